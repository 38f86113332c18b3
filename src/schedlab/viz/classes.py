"""Bars per job class, several policies side by side (Margo et al., §6, Graphs 10–13).

Margo et al. show the expansion factor and the wait time of small (1 node),
medium (2–64) and large (65–256) jobs for each scenario as grouped bars;
Streit 2002 (§5.2) splits jobs by actual run time (<= 5 min … > 12 h).
The classes and their metrics are those of :mod:`schedlab.metrics.classes`,
read here from the flat names of ``metrics.json`` and of the results table
(``width_2_64.avg_wait``, ``runtime_le_1h.jobs`` …), so a figure can be
drawn from a run directory, an experiment or a :class:`Result` alike.
A class without jobs in any of the runs shown is left out, and so, on a
machine of P processors, is a width class that starts above P; the last
width class drawn is labelled up to P ("65-100" on 100 processors), not up
to the paper's 256.  Times are drawn in hours (:func:`metric_scale`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from schedlab.engine.result import Result
from schedlab.errors import InputError
from schedlab.metrics.classes import (
    RUNTIME_CLASSES,
    TABLE_COLUMNS,
    WIDTH_CLASSES,
    JobClass,
    flat_breakdowns,
)
from schedlab.metrics.jobs import Metrics
from schedlab.viz.curves import metric_label, metric_scale
from schedlab.viz.style import (
    LEGEND_PLACE,
    NUMBER_FORMATTER,
    LineStyle,
    new_figure,
    paper_style,
    policy_styles,
    readable_number,
)

CLASS_SETS: dict[str, tuple[JobClass, ...]] = {"width": WIDTH_CLASSES,
                                               "runtime": RUNTIME_CLASSES}
#: The per-class metrics a figure can show (those of schedlab.metrics.classes).
CLASS_METRICS = TABLE_COLUMNS[2:]
CLASS_AXIS = {"width": "width class [processors]", "runtime": "run-time class"}
#: Bars carry their value only while there are at most this many of them.
MAX_VALUE_LABELS = 24


def class_set(by: str) -> tuple[JobClass, ...]:
    """The width classes (Margo et al., §6) or the run-time classes (Streit 2002, §5.2)."""
    if by not in CLASS_SETS:
        raise InputError(f"expected classes by {' or '.join(CLASS_SETS)}, got {by!r}", field="by")
    return CLASS_SETS[by]


def rows_from_results(results: Mapping[str, Result]) -> dict[str, Metrics]:
    """Flat per-class metrics of several simulations, keyed by their label."""
    return {label: flat_breakdowns(result) for label, result in results.items()}


def range_label(first: int, last: float, processors: int) -> str | None:
    """A class of widths ``first`` to ``last`` as drawn on a machine of ``processors``:
    ``2-64``, ``65-100`` (cut at the machine), ``1``; ``None`` for a class that starts
    above the machine (no job of it can run there)."""
    if first > processors:
        return None
    top = int(min(last, processors))
    return str(first) if first == top else f"{first}-{top}"


def width_class_label(job_class: JobClass, processors: int | None) -> str | None:
    """A width class's label on a machine of ``processors`` (:func:`range_label`); without a
    machine size, the class as defined (``65-256``, ``>256``)."""
    if processors is None:
        return job_class.label
    return range_label(int(job_class.lower) + 1, job_class.upper, processors)


def class_values(rows: Mapping[str, Mapping[str, float | None]], by: str,
                 metric: str) -> tuple[list[JobClass], dict[str, list[float]], list[list[int]]]:
    """The classes with jobs, each label's value per class, and the job counts per class.

    ``rows`` maps a label (policy or run) to flat metrics.  A metric or a
    class missing from a row is a user mistake naming what was expected.  A
    class in which a label ran no job has no value for it (NaN: no bar), as
    its metrics are missing, not 0 (docs/reference/metrics.md, "Empty groups").
    """
    if metric not in CLASS_METRICS:
        raise InputError(f"expected a class metric ({', '.join(CLASS_METRICS)}), got {metric!r}",
                         field="metric")
    if not rows:
        raise InputError("no run to draw", field="runs")
    classes = class_set(by)
    counts = [[int(lookup(row, f"{c.name}.jobs", label)) for label, row in rows.items()]
              for c in classes]
    kept = [k for k, per_label in enumerate(counts) if any(per_label)]
    values = {label: [float(lookup(row, f"{classes[k].name}.{metric}", label))
                      if counts[k][j] else math.nan for k in kept]
              for j, (label, row) in enumerate(rows.items())}
    return [classes[k] for k in kept], values, [counts[k] for k in kept]


def lookup(row: Mapping[str, float | None], name: str, label: str) -> float:
    """One flat metric of a row; absent or empty means the run has no class breakdown."""
    value = row.get(name)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        raise InputError(f"run {label!r} has no metric {name!r} (metrics computed without "
                         f"class breakdowns?)", field=name)
    return value


def figure_width(classes: int, labels: int) -> float:
    """Inches: room for every bar group plus the legend, between 6.5 and 11."""
    return min(11.0, max(6.5, 2.5 + classes * (0.4 + 0.35 * labels)))


def class_tick(label: str, counts: list[int]) -> str:
    """A class label with its number of jobs (one number when all runs agree)."""
    jobs = f"n = {counts[0]:,}" if len(set(counts)) == 1 else (f"n = {min(counts):,}–"
                                                                f"{max(counts):,}")
    return f"{label}\n{jobs}"


def shown_classes(classes: list[JobClass], by: str,
                  processors: int | None) -> list[tuple[int, str]]:
    """(position in ``classes``, label) of the classes a figure draws: width classes cut at
    the machine (:func:`width_class_label`; one starting above it is left out), run-time
    classes as they are."""
    if by != "width":
        return [(k, c.label) for k, c in enumerate(classes)]
    labels = [(k, width_class_label(c, processors)) for k, c in enumerate(classes)]
    return [(k, label) for k, label in labels if label is not None]


def classes_figure(rows: Mapping[str, Mapping[str, float]], by: str = "width",
                   metric: str = "avg_wait", *, styles: dict[str, LineStyle] | None = None,
                   title: str | None = None, log: bool = False,
                   processors: int | None = None) -> Figure:
    """Grouped bars: one group per class, one bar per label (policy or run).

    ``by`` is ``width`` (Margo et al., §6) or ``runtime`` (Streit 2002,
    §5.2); ``metric`` one of :data:`CLASS_METRICS`, times drawn in hours.
    Each bar is labelled with its value.  ``log`` draws the value axis on a
    log scale.  ``processors``, the machine's size, cuts the width classes
    at it (none starts above it, the last ends at it); ``None`` draws the
    classes as defined.
    """
    classes, values, counts = class_values(rows, by, metric)
    shown = shown_classes(classes, by, processors)
    if not shown:
        raise InputError("no job ran in any class: nothing to draw", field="runs")
    ticks = [class_tick(label, counts[k]) for k, label in shown]
    factor = metric_scale(metric)
    heights = {label: [row[k] * factor for k, _ in shown] for label, row in values.items()}
    styles = styles or policy_styles(heights)
    labels = list(heights)
    slot = 0.8 / len(labels)
    with paper_style():
        figure = new_figure(figure_width(len(shown), len(labels)), 4.2)
        ax = figure.add_subplot()
        centres = np.arange(len(shown), dtype=np.float64)
        for k, label in enumerate(labels):
            offsets = centres - 0.4 + slot * (k + 0.5)
            bars = ax.bar(offsets, heights[label], width=slot * 0.95, color=styles[label].color,
                          label=label)
            if len(shown) * len(labels) <= MAX_VALUE_LABELS:
                ax.bar_label(bars, fmt=readable_number, fontsize=7, padding=1)
        ax.set_xticks(centres, ticks)
        ax.grid(axis="x", visible=False)
        ax.set_xlabel(CLASS_AXIS[by])
        ax.set_ylabel(metric_label(metric))
        if log:
            ax.set_yscale("log")
        else:
            ax.yaxis.set_major_formatter(NUMBER_FORMATTER)
        figure.legend(loc=LEGEND_PLACE)
        figure.suptitle(title or f"{metric_label(metric)} by {CLASS_AXIS[by].split(' [')[0]}")
    return figure
