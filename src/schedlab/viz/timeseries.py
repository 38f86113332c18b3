"""Utilization and queue length over time (Margo et al., §6, Graphs 6–9).

Two diagrams sharing the time axis: the fraction of processors in use and
the number of waiting jobs, one line per run (Margo et al. overlay their
three scenarios the same way).  Series are step functions as in
:mod:`schedlab.metrics.series`; a long series is resampled to bin means
(:func:`schedlab.metrics.series.bin_means`) so that a peak keeps its area
and the figure stays light.

A run directory written by ``schedlab simulate --out`` holds jobs.csv but
not the series; :func:`series_from_jobs` recomputes it from the job rows.
For space-shared runs whose rejections happen at submission (every policy
of SPEC §4.1–4.3 and §4.6 admission control) this is exactly the engine's
series: busy processors are the sum of the widths of the jobs in
[start, end) and the queue counts the jobs in [submit, start).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from schedlab.engine.result import Result
from schedlab.errors import InputError
from schedlab.metrics.series import bin_means, settle
from schedlab.viz.style import (
    LEGEND_PLACE,
    NUMBER_FORMATTER,
    LineStyle,
    new_figure,
    paper_style,
    policy_styles,
    time_unit,
)

#: Resampling steps (seconds) chosen from when a series is too long to draw step by step.
NICE_STEPS = (1, 5, 10, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200,
              86_400, 172_800, 604_800)
#: At most this many breakpoints are drawn exactly; longer series are resampled.
EXACT_LIMIT = 2000
#: The target number of bins of an automatic resampling.
TARGET_BINS = 250


@dataclass(frozen=True)
class Series:
    """Busy processors and waiting jobs as step functions, on a machine of ``processors``;
    in a run with failures or windows also the processors out of service (``down`` at
    ``down_time``; docs/reference/events.md)."""

    time: np.ndarray
    busy: np.ndarray
    queue: np.ndarray
    processors: int
    down_time: np.ndarray | None = None
    down: np.ndarray | None = None


def series_from_result(result: Result) -> Series:
    """The series the engine recorded for a simulation."""
    record = result.outages
    return Series(np.asarray(result.series_time), np.asarray(result.series_busy),
                  np.asarray(result.series_queue), result.processors,
                  None if record is None else record.series_time,
                  None if record is None else record.series_down)


def series_from_frame(frame: pd.DataFrame, processors: int) -> Series:
    """A stored series (columns time, busy, queue), e.g. ``series/<run_id>.parquet``.

    Every value must be a whole number and the times must increase; the
    first offending row is named (its line in a CSV file: row + 2).
    """
    missing = [c for c in ("time", "busy", "queue") if c not in frame.columns]
    if missing:
        raise InputError(f"the series table lacks the column(s) {', '.join(missing)}",
                         field=missing[0])
    columns = {}
    for name in ("time", "busy", "queue"):
        numbers = pd.to_numeric(frame[name], errors="coerce")
        bad = (numbers.isna() | (numbers != numbers.round())).to_numpy()
        if bad.any():
            row = int(bad.nonzero()[0][0])
            raise InputError(f"expected a whole number in row {row + 1}, got "
                             f"{frame[name].iloc[row]!r}", field=name)
        columns[name] = numbers.to_numpy(np.int64)
    backwards = np.diff(columns["time"]) <= 0
    if backwards.any():
        row = int(backwards.nonzero()[0][0]) + 1
        raise InputError(f"the times must increase; row {row + 1} is at {columns['time'][row]}, "
                         f"after {columns['time'][row - 1]}", field="time")
    return Series(columns["time"], columns["busy"], columns["queue"], int(processors))


def series_from_jobs(jobs: pd.DataFrame, processors: int) -> Series:
    """Recompute the engine's series from a jobs table (columns of jobs.csv).

    Every job that ran adds its width to ``busy`` over [start, end) and
    every job adds one to ``queue`` over [submit, start); a rejected job is
    taken as rejected at its submission.  As in the engine, there is one
    entry per instant at which a value changes, holding the state after
    every event of that instant.
    """
    missing = [c for c in ("submit", "start", "end", "width", "status") if c not in jobs.columns]
    if missing:
        raise InputError(f"the jobs table lacks the column(s) {', '.join(missing)} "
                         f"(expected the columns of jobs.csv)", field=missing[0])
    ran = jobs[jobs["status"].astype(str) != "rejected"]
    if ran[["submit", "start", "end"]].isna().any().any():
        raise InputError("a job that ran has no submit, start or end time", field="start")
    submit = ran["submit"].to_numpy(np.int64)
    start = ran["start"].to_numpy(np.int64)
    end = ran["end"].to_numpy(np.int64)
    width = ran["width"].to_numpy(np.int64)
    busy_times, busy = step_sum(np.concatenate((start, end)), np.concatenate((width, -width)))
    queue_times, queue = step_sum(np.concatenate((submit, start)),
                                  np.concatenate((np.ones_like(submit), -np.ones_like(start))))
    return merge_steps(busy_times, busy, queue_times, queue, processors)


def step_sum(times: np.ndarray, changes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The running total of ``changes`` after all changes at each distinct time."""
    order = np.argsort(times, kind="stable")
    totals = np.cumsum(changes[order])
    sorted_times = times[order]
    return settle(sorted_times, totals)


def merge_steps(t_busy: np.ndarray, busy: np.ndarray, t_queue: np.ndarray, queue: np.ndarray,
                processors: int) -> Series:
    """Both step functions on their common breakpoints, keeping only changes (engine form)."""
    times = np.union1d(t_busy, t_queue)
    busy_at = value_at(t_busy, busy, times)
    queue_at = value_at(t_queue, queue, times)
    changed = np.ones(len(times), dtype=bool)
    changed[1:] = (np.diff(busy_at) != 0) | (np.diff(queue_at) != 0)
    return Series(times[changed], busy_at[changed], queue_at[changed], int(processors))


def value_at(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The step function's value at each time in ``at`` (0 before its first entry)."""
    values = np.asarray(values)
    index = np.searchsorted(times, at, side="right") - 1
    return np.where(index >= 0, values[np.maximum(index, 0)], 0).astype(values.dtype)


def nice_step(span: float, bins: int = TARGET_BINS) -> float:
    """The smallest of :data:`NICE_STEPS` giving at most ``bins`` bins over ``span`` seconds."""
    for step in NICE_STEPS:
        if span / step <= bins:
            return float(step)
    return float(NICE_STEPS[-1])


def series_span(series: Mapping[str, Series]) -> tuple[float, float]:
    """From the earliest to the latest breakpoint over all series."""
    starts = [s.time[0] for s in series.values() if len(s.time)]
    ends = [s.time[-1] for s in series.values() if len(s.time)]
    if not starts:
        raise InputError("the series are empty: nothing to draw", field="series")
    t0, t1 = float(min(starts)), float(max(ends))
    return (t0, t1) if t1 > t0 else (t0, t0 + 1.0)


def steps_in_window(times: np.ndarray, values: np.ndarray,
                    window: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The exact step function over the window, as points for a ``steps-post`` line."""
    t0, t1 = window
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    inside = (times > t0) & (times < t1)
    first = value_at(times, values, np.array([t0]))[0] if len(times) else 0
    x = np.concatenate(([t0], times[inside], [t1]))
    y = np.concatenate(([first], values[inside]))
    return x, np.append(y, y[-1])


def resampled(series: Series, values: np.ndarray, window: tuple[float, float],
              step: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Points of a ``steps-post`` line: exact steps, or bin means when ``step`` is given."""
    return resampled_at(series.time, values, window, step)


def resampled_at(times: np.ndarray, values: np.ndarray, window: tuple[float, float],
                 step: float | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`resampled` of a step function on its own ``times``."""
    if step is None:
        return steps_in_window(times, values, window)
    starts, means = bin_means(times, values, step, *window)
    return np.append(starts, window[1]), np.append(means, means[-1] if len(means) else 0.0)


def duration_text(seconds: float) -> str:
    """A bin length in the largest unit dividing it: ``2 days``, ``3 h``, ``10 min``, ``45 s``."""
    for unit, size in (("day", 86_400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}s" if unit == "day" and count > 1 else f"{count} {unit}"
    return f"{seconds:,.0f} s" if float(seconds).is_integer() else f"{seconds:g} s"


def choose_step(series: Mapping[str, Series], window: tuple[float, float],
                step: float | None) -> float | None:
    """The step asked for, else None (exact) for short series, else a nice automatic step."""
    if step is not None:
        if not step > 0:
            raise InputError(f"expected a resampling step in seconds > 0, got {step!r}",
                             field="step")
        return float(step)
    t0, t1 = window
    longest = max(int(np.sum((s.time >= t0) & (s.time <= t1))) for s in series.values())
    return None if longest <= EXACT_LIMIT else nice_step(t1 - t0)


def timeseries_figure(series: Mapping[str, Series], *, step: float | None = None,
                      window: tuple[float, float] | None = None,
                      styles: dict[str, LineStyle] | None = None,
                      title: str | None = None) -> Figure:
    """Utilization (busy / N) above and queue length below, one line per labelled series;
    the share of processors in service dotted above, for a run with failures or windows.

    ``window`` is (start, end) in seconds (default: the span of the series).
    ``step`` resamples to bin means of that many seconds; by default short
    series are drawn exactly and long ones resampled to about 250 bins.
    """
    if not series:
        raise InputError("no series to draw", field="series")
    window = window if window is not None else series_span(series)
    if not window[1] > window[0]:
        raise InputError(f"expected a window START:END with END > START, got "
                         f"{window[0]}:{window[1]}", field="window")
    step = choose_step(series, window, step)
    styles = styles or policy_styles(series)
    unit, scale = time_unit(window[1] - window[0])
    with paper_style():
        figure = new_figure(10, 6)
        top, bottom = figure.subplots(2, 1, sharex=True)
        for label, one in series.items():
            style = styles[label]
            x, y = resampled(one, one.busy / max(one.processors, 1), window, step)
            top.plot(x / scale, y, drawstyle="steps-post", color=style.color,
                     linestyle=style.linestyle, linewidth=1.2, label=label)
            if one.down is not None and one.down_time is not None:
                x, y = resampled_at(one.down_time, 1 - one.down / max(one.processors, 1),
                                    window, step)
                top.plot(x / scale, y, drawstyle="steps-post", color=style.color,
                         linestyle=":", linewidth=1.0, label=f"{label}: in service")
            x, y = resampled(one, one.queue, window, step)
            bottom.plot(x / scale, y, drawstyle="steps-post", color=style.color,
                        linestyle=style.linestyle, linewidth=1.2)
        top.set_ylim(0, 1.05)
        top.yaxis.set_major_formatter(PercentFormatter(1.0))
        top.set_ylabel("utilization")
        bottom.set_ylim(bottom=0)
        bottom.yaxis.set_major_formatter(NUMBER_FORMATTER)
        bottom.set_ylabel("waiting jobs")
        bottom.set_xlim(window[0] / scale, window[1] / scale)
        bottom.set_xlabel(f"time since trace start [{unit}]")
        figure.legend(loc=LEGEND_PLACE)
        how = "exact" if step is None else f"means over {duration_text(step)} bins"
        figure.suptitle(title or f"Utilization and queue length ({how})")
    return figure
