"""Step-function time series: integrals, time-weighted means, resampling.

A series is a pair (times, values) read as in :class:`schedlab.engine.result.Result`:
from ``times[k]`` until the next entry the value is ``values[k]``; before
the first entry it is 0 and after the last entry it keeps the last value.
Several entries at one instant are allowed (the engine may record
intermediate states); only the last one at each instant lasts a positive
time, so only it carries weight.  Times must be non-decreasing.

The utilization series (busy / N) is the instantaneous utilization that
Margo et al. (§6, Graphs 6–7) plot over the simulation; the queue series is
their queue depth (§5, "Graphs of the queue depth").
"""

from __future__ import annotations

import numpy as np

from schedlab.engine.result import Result
from schedlab.errors import InputError


def settle(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep only the last entry at each distinct time: the states that last.

    Entries followed by another at the same instant last zero seconds and
    would otherwise count in maxima although no time was spent in them.
    """
    times = np.asarray(times)
    values = np.asarray(values)
    if len(times) == 0:
        return times, values
    last = np.append(times[1:] != times[:-1], True)
    return times[last], values[last]


def cumulative_integral(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Integral of the step function from -inf to each time in ``at`` (float64)."""
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    at = np.asarray(at, dtype=np.float64)
    if len(times) == 0:
        return np.zeros(at.shape)
    at_breaks = np.concatenate(([0.0], np.cumsum(values[:-1] * np.diff(times))))
    index = np.searchsorted(times, at, side="right") - 1
    inside = index >= 0
    safe = np.maximum(index, 0)
    tail = values[safe] * (at - times[safe])
    return np.where(inside, at_breaks[safe] + tail, 0.0)


def integrate(times: np.ndarray, values: np.ndarray, t0: float, t1: float) -> float:
    """Integral of the step function over [t0, t1] (0.0 when t1 <= t0)."""
    if t1 <= t0:
        return 0.0
    low, high = cumulative_integral(times, values, np.array([t0, t1]))
    return float(high - low)


def time_weighted_mean(times: np.ndarray, values: np.ndarray, t0: float,
                       t1: float) -> float | None:
    """Mean of the step function over [t0, t1], weighting each value by its duration.

    A window of zero length has no duration to average over: its mean is
    missing, ``None`` (docs/reference/metrics.md, "Empty groups").
    """
    if t1 <= t0:
        return None
    return integrate(times, values, t0, t1) / (t1 - t0)


def bin_means(times: np.ndarray, values: np.ndarray, step: float,
              t0: float, t1: float) -> tuple[np.ndarray, np.ndarray]:
    """Resample to a fixed step: the time-weighted mean over each bin [t, t + step).

    Returns the bin start times and the means.  Bins cover [t0, t1]; the last
    bin is shorter when the window is not a multiple of ``step``.  Means
    (rather than samples) keep short peaks visible in their area and make
    the plotted curve integrate to the same total as the series.
    """
    if not step > 0:
        raise InputError(f"expected a resampling step in seconds > 0, got {step!r}", field="step")
    if t1 <= t0:
        return np.array([], dtype=np.float64), np.array([], dtype=np.float64)
    edges = np.append(np.arange(t0, t1, step, dtype=np.float64), float(t1))
    totals = np.diff(cumulative_integral(times, values, edges))
    return edges[:-1], totals / np.diff(edges)


def series_window(result: Result) -> tuple[int, int]:
    """The span of the recorded series: first to last entry ((0, 0) when empty)."""
    if len(result.series_time) == 0:
        return 0, 0
    return int(result.series_time[0]), int(result.series_time[-1])


def utilization_series(result: Result, step: float | None = None,
                       window: tuple[float, float] | None = None, *,
                       count_reserved: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Fraction of processors in use over time (Margo et al., §6, Graphs 6–7).

    Without ``step`` the settled step function itself is returned (times,
    busy / N).  With ``step`` it is resampled to bin means over ``window``
    (default: the span of the recorded series).  ``count_reserved`` counts
    the processors held by advance reservations as used, as Margo et al.
    do in Graphs 6–7.
    """
    times = np.asarray(result.series_time)
    busy = np.asarray(result.series_busy, dtype=np.float64)
    if count_reserved and result.reservations is not None:
        times, busy = add_step_functions(times, busy, result.reservations.series_time,
                                         result.reservations.series_reserved)
    return _shape_series(times, busy / result.processors, step,
                         window if window is not None else series_window(result))


def reserved_series(result: Result, step: float | None = None,
                    window: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Processors held by advance reservations over time (Margo et al., §6).

    Same conventions as :func:`utilization_series` (a count of processors,
    not a fraction); empty for a run without reservations.
    """
    table = result.reservations
    if table is None:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    return _shape_series(np.asarray(table.series_time), np.asarray(table.series_reserved),
                         step, window if window is not None else series_window(result))


def add_step_functions(times_a: np.ndarray, values_a: np.ndarray, times_b: np.ndarray,
                       values_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sum of two step functions, on the union of their (settled) breakpoints."""
    times_a, values_a = settle(times_a, values_a)
    times_b, values_b = settle(times_b, values_b)
    times = np.union1d(times_a, times_b)
    return times, _value_at(times_a, values_a, times) + _value_at(times_b, values_b, times)


def _value_at(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A settled step function's value at each time of ``at`` (0 before its first entry)."""
    index = np.searchsorted(times, at, side="right") - 1
    inside = index >= 0
    return np.where(inside, np.asarray(values, dtype=np.float64)[np.maximum(index, 0)]
                    if len(values) else 0.0, 0.0)


def queue_series(result: Result, step: float | None = None,
                 window: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Number of waiting jobs over time (Margo et al., §6, queue depth).

    Same conventions as :func:`utilization_series`.
    """
    return _shape_series(np.asarray(result.series_time), np.asarray(result.series_queue), step,
                         window if window is not None else series_window(result))


def _shape_series(times: np.ndarray, values: np.ndarray, step: float | None,
                  window: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """A step function settled, or resampled to ``step`` over ``window``."""
    if step is None:
        return settle(times, values)
    return bin_means(times, values, step, *window)
