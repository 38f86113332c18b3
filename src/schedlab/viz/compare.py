"""The figure of ``schedlab compare``: key metrics side by side, one row per policy.

A dot plot (Cleveland & McGill 1984): the policies run down one shared
axis in the order given, each metric has a panel, and a policy's value is a
point.  Points rather than bars, because a panel whose values span more
than :data:`LOG_RATIO` times switches to a log axis (so that a far-off
baseline such as FCFS without backfilling does not flatten the others), and
on a log axis a bar's length means nothing.  Every value axis carries the
same plain tick labels (:func:`~schedlab.viz.style.readable_number`), and
every point its value.

With several runs per policy (the seeds of a sweep) the point is their mean
and a bar spans their minimum to maximum.  The title's second line states
the offered load of the workload — what the machine was asked to carry.

When some run rejected jobs (admission control, QoPS §5), two panels more
show the share of jobs and of requested processor-seconds each policy
rejected: wait and slowdown are measured over the jobs a policy kept, so a
policy that refuses the hard ones looks better there than it is.  A metric
over no jobs (missing, docs/reference/metrics.md "Empty groups") leaves its point out
and is left out of a policy's mean over runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, LogLocator, MaxNLocator, NullFormatter

from schedlab.viz.curves import is_share, metric_label, metric_scale
from schedlab.viz.style import (
    NUMBER_FORMATTER,
    LineStyle,
    honest_limits,
    new_figure,
    paper_style,
    policy_styles,
    readable_number,
    save_figure,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: The metrics drawn, a panel each, titled by :func:`~schedlab.viz.curves.metric_label` in
#: the unit of :func:`~schedlab.viz.curves.metric_scale` (times in hours).
PANELS = ("avg_wait", "avg_bsld_60", "artww", "utilization")

#: Added when some run rejected jobs: the shares refused (QoPS §5.1, docs/reference/metrics.md).
REJECTION_PANELS = ("rejected_pct", "rejected_area_pct")

#: Width of the figure per panel, inches.
PANEL_WIDTH = 3.25

#: A panel whose largest value is more than this many times its smallest gets a log axis.
LOG_RATIO = 20

#: One run's metrics (``compute_metrics``), or several runs' (e.g. one per seed).
MetricRow = Mapping[str, float | int | None]
PolicyRuns = Mapping[str, MetricRow | Sequence[MetricRow]]


@dataclass(frozen=True, slots=True)
class Spread:
    """A metric over a policy's runs: mean, minimum, maximum and the number of runs."""

    mean: float
    low: float
    high: float
    runs: int


def runs_per_policy(rows: PolicyRuns) -> dict[str, list[MetricRow]]:
    """Every policy's runs as a list; a single metrics mapping is one run."""
    return {policy: [runs] if isinstance(runs, Mapping) else list(runs)
            for policy, runs in rows.items()}


def spread(runs: Sequence[MetricRow], metric: str, factor: float) -> Spread | None:
    """The metric over the runs that have it, in the unit shown; ``None`` when none has."""
    values = [float(value) * factor for run in runs if (value := run.get(metric)) is not None]
    if not values:
        return None
    return Spread(float(np.mean(values)), min(values), max(values), len(values))


def subtitle(offered_loads: Sequence[float], runs: int) -> str:
    """The title's second line: the offered load, and what points and bars mean.

    ``offered_loads`` holds one value per workload the runs used (one per
    seed of a model or of a load transform); ``runs`` is the most runs any
    policy has.
    """
    parts = []
    if offered_loads:
        mean = sum(offered_loads) / len(offered_loads)
        text = f"offered load {mean:.2f}"
        if len(offered_loads) > 1:
            text += (f" ({min(offered_loads):.2f}–{max(offered_loads):.2f} over "
                     f"{len(offered_loads)} workloads)")
        parts.append(text)
    if runs > 1:
        parts.append(f"points: mean of {runs} runs, bars: min–max")
    return "; ".join(parts)


def panels(runs: Mapping[str, Sequence[MetricRow]]) -> tuple[str, ...]:
    """The panels to draw: :data:`PANELS`, and :data:`REJECTION_PANELS` when a run rejected
    jobs."""
    rejected = any(run.get("rejected") for policy_runs in runs.values() for run in policy_runs)
    return PANELS + REJECTION_PANELS if rejected else PANELS


def uses_log_axis(spreads: Sequence[Spread]) -> bool:
    """Log when every value is positive and the largest exceeds LOG_RATIO x the smallest."""
    lows = [s.low for s in spreads]
    highs = [s.high for s in spreads]
    return bool(lows) and min(lows) > 0 and max(highs) > LOG_RATIO * min(lows)


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values between ``low`` and ``high``: 1-2-5 per decade over short ranges,
    1-3 over middle ones, powers of ten over long ones — always a few labelled ticks."""
    decades = math.log10(high / low)
    steps = (1, 2, 5) if decades <= 1.5 else (1, 3) if decades <= 3 else (1,)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return [step * 10.0 ** power for power in range(first, last + 1) for step in steps
            if low <= step * 10.0 ** power <= high]


def draw_panel(ax: Axes, spreads: dict[str, Spread | None], styles: dict[str, LineStyle],
               totals: Mapping[str, int] | None = None) -> None:
    """Points (with min–max bars where there are several runs) and their values.

    ``totals`` gives each policy's number of runs; a value over fewer runs (the
    metric is missing in some) says over how many, ``2.5 (2 of 3 runs)``.
    """
    for row, (policy, value) in enumerate(spreads.items()):
        if value is None:
            continue
        style = styles[policy]
        if value.runs > 1:
            ax.errorbar([value.mean], [row], xerr=[[value.mean - value.low],
                                                   [value.high - value.mean]],
                        fmt="none", ecolor=style.color, elinewidth=1.0, capsize=3)
        ax.plot([value.mean], [row], linestyle="none", marker=style.marker,
                color=style.color, markersize=7)
        text = readable_number(value.mean)
        total = (totals or {}).get(policy, value.runs)
        if value.runs < total:
            text += f" ({value.runs} of {total} runs)"
        ax.annotate(text, (value.high, row), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize=8, color="#333333")


def set_value_axis(ax: Axes, spreads: Sequence[Spread], share: bool = False) -> None:
    """Log or linear scale, room right of the points for their values, plain tick labels;
    a linear axis of a ``share`` starts at zero (:func:`honest_limits`)."""
    if not spreads:
        ax.set_xticks([])
        return
    low = min(s.low for s in spreads)
    high = max(s.high for s in spreads)
    if uses_log_axis(spreads):
        ax.set_xscale("log")
        ratio = high / low
        ax.set_xlim(low / ratio ** 0.08, high * ratio ** 0.3)
        ax.xaxis.set_major_locator(FixedLocator(log_ticks(*ax.get_xlim())))
        ax.xaxis.set_minor_locator(LogLocator(subs="all"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("log scale", fontsize=8, color="#555555")
    else:
        left = min(low, 0.0) if share else low      # a share's values are spaced from zero
        width = (high - left) or abs(high) or 1.0
        ax.set_xlim(left - 0.15 * width, high + 0.35 * width)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
        if share:
            honest_limits(ax, [low, high], axis="x")
    ax.xaxis.set_major_formatter(NUMBER_FORMATTER)


def comparison_figure(rows: PolicyRuns, title: str, *,
                      offered_loads: Sequence[float] = ()) -> Figure:
    """Wait, bounded slowdown, ARTwW and utilization per policy, as a dot plot, with the
    rejected shares of jobs and processor-seconds when a run rejected jobs.

    ``rows`` maps each policy label (drawn as given, in the given order) to
    its metrics, or to a list of metrics of several runs; ``offered_loads``
    holds the offered load of each workload the runs used (none: not stated).
    A metric a policy lacks leaves its row empty in that panel.
    """
    runs = runs_per_policy(rows)
    policies = list(runs)
    styles = policy_styles(policies)
    drawn = panels(runs)
    with paper_style():
        figure = new_figure(PANEL_WIDTH * len(drawn), 1.9 + 0.34 * len(policies))
        axes = figure.subplots(1, len(drawn), sharey=True)
        for ax, metric in zip(axes, drawn):
            spreads = {p: spread(runs[p], metric, metric_scale(metric)) for p in policies}
            draw_panel(ax, spreads, styles, {p: len(runs[p]) for p in policies})
            set_value_axis(ax, [s for s in spreads.values() if s is not None], is_share(metric))
            ax.set_title(metric_label(metric), fontsize=10)
            ax.grid(axis="x", which="minor", visible=False)
        axes[0].set_yticks(range(len(policies)), policies)
        axes[0].set_ylim(len(policies) - 0.5, -0.5)   # the first policy on top
        most_runs = max((len(r) for r in runs.values()), default=1)
        second = subtitle(offered_loads, most_runs)
        figure.suptitle(title + ("\n" + second if second else ""))
    return figure


def write_comparison_figure(rows: PolicyRuns, title: str, path: str | Path, *,
                            offered_loads: Sequence[float] = ()) -> Path:
    """Build the comparison figure and write it atomically (PNG or SVG by suffix)."""
    return save_figure(comparison_figure(rows, title, offered_loads=offered_loads), path)
