"""A metric against load, shrinking factor or any numeric parameter, one line per policy.

The figures of Streit 2002 (§5, Figs. 2–8: ARTwW, SLDwW_60, SLDwW_300 and
utilization against the shrinking factor, one diagram per job set) and of
QoPS (Islam et al., §5.2, Figs. 4–6: unadmitted jobs, unadmitted
processor-seconds and utilization against the load factor) share one form:
each point is a simulation run, points of one policy are joined by a line,
and the x axis is the parameter the sweep varies.  :func:`curve_figure`
draws that form from the results table of an experiment
(``schedlab.experiments.load_results``): one diagram per workload, one line
per policy, the mean over seeds with bars of its 95 % confidence interval
(:mod:`schedlab.metrics.confidence`) when a point has several seeds, and
optionally the paper's own values as hollow markers on a dotted line for a
side-by-side reading.

A column whose values name alternatives rather than quantities (text,
booleans, a policy's :attr:`categorical_parameters` such as Zhou et al.'s
gang Strategies 1-3) is drawn as categories: evenly spaced, labelled, in
natural order, one marker per line and category with no line joining them
(a line would claim an order and an in-between that do not exist).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from schedlab.errors import InputError
from schedlab.metrics.confidence import ci_half_width
from schedlab.viz.style import (
    LEGEND_PLACE,
    NUMBER_FORMATTER,
    LineStyle,
    honest_limits,
    natural_key,
    new_figure,
    paper_style,
    policy_styles,
    readable_number,
)

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes

#: Axis labels of the metrics figures draw: a name a reader knows, with its unit; other
#: metrics show their flat name.  Every time-valued metric is drawn in hours
#: (:func:`metric_scale`), so its label says [h].
METRIC_LABELS = {
    "prediction_accuracy": "prediction accuracy min(p, a) / max(p, a)",
    "prediction_corrections": "prediction corrections",
    "broken_reservations": "reservations broken by corrections",
    "underpredicted_pct": "jobs underpredicted [%]",
    "artww": "ARTwW [h]",
    "avg_response": "mean response time [h]",
    "avg_wait": "mean wait [h]",
    "max_wait": "maximum wait [h]",
    "makespan": "makespan [h]",
    "wait_weighted": "wait weighted by node-seconds [h]",
    "wait_weighted_queued": "wait since queued, weighted by node-seconds [h]",
    "nondeadline_avg_response": "mean response of jobs without deadline [h]",
    "deadline_max_lateness": "largest lateness past a deadline [h]",
    "sldww_60": "SLDwW₆₀",
    "sldww_300": "SLDwW₃₀₀",
    "avg_slowdown": "mean slowdown",
    "avg_bsld_10": "mean bounded slowdown (τ = 10 s)",
    "avg_bsld_60": "mean bounded slowdown (τ = 60 s)",
    "avg_bsld_300": "mean bounded slowdown (τ = 300 s)",
    "utilization": "utilization",
    "utilization_margo": "utilization (Margo eq. 1)",
    "utilization_margo_reserved": "utilization, reserved nodes counted (Margo eq. 1)",
    "utilization_reserved": "share of the machine reserved",
    "loss_of_capacity": "loss of capacity",
    "offered_load": "offered load",
    "avg_queue": "mean queue length [jobs]",
    "max_queue": "longest queue [jobs]",
    "rejected_pct": "rejected jobs [%]",
    "rejected_area_pct": "rejected processor-seconds [%]",
    "deadline_rejected_pct": "unadmitted deadline jobs [%]",
    "deadline_rejected_area_pct": "unadmitted processor-seconds of deadline jobs [%]",
    "expansion_factor_weighted": "expansion factor (node-seconds weighted)",
    "expansion_factor_weighted_queued": "expansion factor since queued (node-seconds weighted)",
    "gang_slowdown": "average slowdown (turnaround / service)",
    "gang_slowdown_short": "average slowdown, short jobs",
    "gang_slots_mean": "average time slots in a round",
    "deadline_missed_pct": "jobs missing their deadline [%]",
    "system_usage": "system usage",
    "licence_usage": "licence usage",
    "machine_usage": "machine usage",
    "mean_jobs_in_system": "jobs in the system (time average)",
    "nondeadline_avg_slowdown": "slowdown of jobs without deadline",
    "cluster_share_deviation": "deviation from the machine-count shares",
}

#: Axis labels for the usual sweep axes.
X_LABELS = {
    "transform.shrink": "shrinking factor",
    "transform.load": "load factor",
    "param.slot": "slot length l [s]",
    "param.strategy": "strategy (Zhou et al. 2003)",
    "ta": "mean interarrival time Ta [s]",
    "preemption_overhead": "preemption overhead [s]",
    "load": "load factor",
    "utilization": "achieved utilization",
}

#: Columns that describe a run's setting besides its policy and seed (the grid columns
#: and ``dispatch.<param>`` only in grid experiments, schedlab.experiments.store).
AXIS_PREFIXES = ("param.", "transform.", "dispatch.")
AXIS_COLUMNS = ("processors", "overrun", "platform", "dispatch", "allocation",
                "preemption_overhead", "ta")

#: Room a legend needs per character of its longest label (9 pt DejaVu Sans).
LEGEND_INCHES_PER_CHARACTER = 0.075

#: Up to this many swept values each get a tick of their own.
MAX_VALUE_TICKS = 8

#: Columns of a reference table (``workload`` is optional).
REFERENCE_COLUMNS = ("policy", "x", "value")


def metric_label(metric: str) -> str:
    """The axis label of a metric: a paper name with its unit, or the flat name."""
    return METRIC_LABELS.get(metric, metric)


def x_label(column: str) -> str:
    """The axis label of a sweep column: ``transform.shrink`` -> ``shrinking factor``."""
    return X_LABELS.get(column, column.split(".", 1)[-1].replace("_", " "))


def finished_runs(results: pd.DataFrame) -> pd.DataFrame:
    """The runs that finished (a failed run has no metrics to plot)."""
    if "status" not in results.columns:
        return results
    return results[results["status"] == "finished"]


def numeric_column(frame: pd.DataFrame, column: str, role: str) -> pd.Series:
    """``frame[column]`` as floats; a missing or non-numeric column is a user mistake.

    ``role`` names the argument the column came from (``x``, ``metric``).
    """
    if column not in frame.columns:
        choices = ", ".join(sorted(c for c in frame.columns
                                   if pd.api.types.is_numeric_dtype(frame[c])))
        raise InputError(f"no column {column!r} in the results (numeric columns: {choices})",
                         field=role)
    values = pd.to_numeric(frame[column], errors="coerce")
    if values.notna().sum() == 0:
        raise InputError(f"column {column!r} holds no number in any finished run", field=role)
    return values.astype(np.float64)


def varying_axes(runs: pd.DataFrame, exclude: Iterable[str] = ()) -> list[str]:
    """Sweep columns (``param.*``, ``transform.*``, ``processors``, ``overrun``) that take
    more than one value among ``runs``, except those in ``exclude``."""
    skip = set(exclude)
    return [c for c in runs.columns
            if c not in skip and (c.startswith(AXIS_PREFIXES) or c in AXIS_COLUMNS)
            and runs[c].dropna().astype(str).nunique() > 1]


def setting_text(value: object) -> str:
    """A setting as written in a label: 2 rather than 2.0 (a column with gaps is float)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _setting_label(name: str, value: object) -> str:
    """``name=value`` for one run's setting, empty where the run has none."""
    return "" if pd.isna(value) else f"{name}={setting_text(value)}"


def line_labels(runs: pd.DataFrame, x: str | None = None) -> pd.Series:
    """A line per policy and per value of every other varying sweep column.

    ``fcfs+easy`` when only the policy (and ``x``, and the seed) varies;
    ``dynp[k=4]`` when a parameter grid varies too (the syntax ``--policy``
    takes), and ``dynp[k=4] (shrink=0.5)`` when another sweep column does, so
    that runs of different settings are never averaged together — only seeds are.
    """
    from schedlab.policies.registry import spec_text

    axes = varying_axes(runs, exclude=() if x is None else (x,))
    labels = runs["policy"].astype(str)
    if not axes:
        return labels
    params = [c for c in axes if c.startswith("param.")]
    if params:
        labels = pd.Series([spec_text(name, {c.removeprefix("param."): setting_text(row[c])
                                             for c in params if not pd.isna(row[c])})
                            for name, (_, row) in zip(labels, runs.iterrows())],
                           index=runs.index)
    others = [c for c in axes if not c.startswith("param.")]
    if not others:
        return labels
    parts = [runs[c].map(partial(_setting_label, c.split(".", 1)[-1])) for c in others]
    settings = pd.concat(parts, axis=1).apply(lambda row: ", ".join(p for p in row if p), axis=1)
    return labels.where(settings == "", labels + " (" + settings + ")")


def categorical_axis(runs: pd.DataFrame, column: str) -> bool:
    """Whether ``column``'s values are categories: text or booleans, or a parameter that
    a policy of ``runs`` declares categorical (Zhou et al.'s ``strategy``)."""
    from schedlab.policies.registry import available_policies, canonical_name

    values = runs[column]
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return True
    if not column.startswith("param."):
        return False
    entries = available_policies()
    parameter = column.removeprefix("param.")
    return any(parameter in entry.categorical_parameters
               for name in runs.loc[values.notna(), "policy"].astype(str).unique()
               if (entry := entries.get(canonical_name(name))) is not None)


def categories(runs: pd.DataFrame, column: str) -> list[str]:
    """The values of a categorical column as written in labels, in natural order."""
    return sorted({setting_text(v) for v in runs[column].dropna()}, key=natural_key)


def axis_positions(runs: pd.DataFrame, column: str, categorical: bool) -> pd.Series:
    """Where each run sits on the x axis: its number, or its category's place (0, 1, ...)."""
    if not categorical:
        return numeric_column(runs, column, "x")
    if column not in runs.columns:
        numeric_column(runs, column, "x")                 # says which columns there are
    place = {text: float(k) for k, text in enumerate(categories(runs, column))}
    return runs[column].map(lambda v: np.nan if pd.isna(v) else place[setting_text(v)])


def curve_points(results: pd.DataFrame, metric: str, x: str) -> pd.DataFrame:
    """One point per (workload, line, x): the mean of the metric, the half-width of its
    95 % confidence interval over seeds (NaN for one run), and the runs.

    Lines are :func:`line_labels`.  Only finished runs with a number in both
    columns count; a categorical ``x`` (:func:`categorical_axis`) is its
    category's place.  The result is sorted by workload, line and x — the
    order lines are drawn in.
    """
    runs = finished_runs(results)
    if runs.empty:
        raise InputError("no finished run to plot", field="status")
    categorical = x in runs.columns and categorical_axis(runs, x)
    table = pd.DataFrame({
        "workload": runs["workload"].astype(str) if "workload" in runs else "workload",
        "line": line_labels(runs, x),
        "x": axis_positions(runs, x, categorical),
        "value": numeric_column(runs, metric, "metric"),
    }).dropna()
    grouped = table.groupby(["workload", "line", "x"], sort=True)["value"]
    points = grouped.agg(["mean", ci_half_width, "count"]).reset_index()
    return points.rename(columns={"ci_half_width": "ci", "count": "runs"})


def check_reference(reference: pd.DataFrame) -> pd.DataFrame:
    """A reference table must have policy, x and value columns (workload optional)."""
    missing = [c for c in REFERENCE_COLUMNS if c not in reference.columns]
    if missing:
        raise InputError(f"the reference points need the columns {', '.join(REFERENCE_COLUMNS)}"
                         f" (missing: {', '.join(missing)})", field="reference")
    return reference


def curve_figure(results: pd.DataFrame, metric: str, x: str = "transform.shrink", *,
                 reference: pd.DataFrame | None = None, reference_label: str = "paper",
                 styles: dict[str, LineStyle] | None = None, title: str | None = None,
                 invert_x: bool = False) -> Figure:
    """Plot ``metric`` against the numeric column ``x``, one line per policy (Streit 2002, §5).

    ``results`` is a results table (one row per run with ``workload``,
    ``policy``, ``status`` and the metric and x columns).  A policy run
    with several settings of another sweep column gets one line per
    setting (:func:`line_labels`).  ``reference`` holds the paper's values
    (columns policy — a line label —, x, value and optionally workload),
    drawn in that line's colour as hollow markers on a dotted line.
    ``styles`` fixes each line's colour and marker (default: from the lines
    shown); ``invert_x`` draws x decreasing, so that the load grows to the
    right when the shrinking factor decreases.  Times are drawn in hours
    (:func:`metric_scale`; ``reference`` values are in the metric's stored unit,
    seconds) and shares from zero (:func:`is_share`).
    """
    points = scaled_points(curve_points(results, metric, x), metric)
    if reference is not None:
        reference = check_reference(reference)
        reference = reference.assign(value=reference["value"] * metric_scale(metric))
    runs = finished_runs(results)
    named = categories(runs, x) if categorical_axis(runs, x) else None
    lines = sorted(points["line"].unique(), key=natural_key)
    styles = styles or policy_styles(lines)
    workloads = sorted(points["workload"].unique())
    with paper_style():
        figure, axes = facet_axes(len(workloads), max(len(label) for label in lines))
        for ax, workload in zip(axes, workloads):
            draw_workload(ax, points[points["workload"] == workload], styles,
                          categorical=named is not None)
            if reference is not None:
                draw_reference(ax, reference_for(reference, workload, len(workloads)), styles)
            ax.set_title(workload if len(workloads) > 1 else "")
            ax.set_xlabel(x_label(x))
            ax.set_ylabel(metric_label(metric))
            ax.yaxis.set_major_formatter(NUMBER_FORMATTER)
            if named is not None:
                ax.set_xticks(range(len(named)), named)
                ax.set_xlim(-0.5, len(named) - 0.5)
            else:
                mark_sweep_values(ax, points["x"])
            if is_share(metric):
                honest_limits(ax, points["mean"])
            if invert_x:
                ax.invert_xaxis()
        for ax in axes[len(workloads):]:
            ax.set_visible(False)
        legend_entries = curve_legend(lines, styles, int(points["runs"].max()),
                                      reference_label if reference is not None else None,
                                      categorical=named is not None)
        figure.legend(handles=legend_entries, loc=LEGEND_PLACE)
        figure.suptitle(title or f"{metric_label(metric)} against {x_label(x)}")
    return figure


def facet_axes(count: int, longest_label: int) -> tuple[Figure, list[Axes]]:
    """A figure with ``count`` diagrams, two per row beyond one (Streit's 2 x 2 layout),
    widened by the legend so that long line labels do not squeeze the diagrams."""
    columns = 1 if count == 1 else 2
    rows = math.ceil(count / columns)
    legend = 0.9 + LEGEND_INCHES_PER_CHARACTER * longest_label
    figure = new_figure(4.6 * columns + legend, 3.4 * rows + 0.5)
    axes = figure.subplots(rows, columns, squeeze=False)
    return figure, list(axes.flat)


def mark_sweep_values(ax: Axes, values: pd.Series) -> None:
    """Ticks at the swept values themselves when there are few of them (as in Streit's figures)."""
    distinct = np.unique(values.to_numpy(np.float64))
    if len(distinct) <= MAX_VALUE_TICKS:
        ax.set_xticks(distinct, [readable_number(v) for v in distinct])


#: On a categorical axis the lines' markers spread over this share of a category's room.
CATEGORY_SPREAD = 0.6


def draw_workload(ax: Axes, points: pd.DataFrame, styles: dict[str, LineStyle], *,
                  categorical: bool = False) -> None:
    """One line per label through the mean values, with bars of the 95 % confidence
    interval where a point has several seeds (bars stay readable where bands of many
    lines would overlap).  On a categorical axis each label's markers stand side by side
    within their category, unjoined."""
    labels = sorted(points["line"].unique(), key=natural_key)    # the legend's order
    for k, label in enumerate(labels):
        line = points[points["line"] == label]
        style = styles[label]
        x = line["x"] + (category_offset(k, len(labels)) if categorical else 0.0)
        ax.plot(x, line["mean"], color=style.color, marker=style.marker,
                linestyle="none" if categorical else style.linestyle, label=label)
        seeded = line["ci"].notna()
        if seeded.any():
            ax.errorbar(x[seeded], line.loc[seeded, "mean"], yerr=line.loc[seeded, "ci"],
                        fmt="none", ecolor=style.color, elinewidth=0.9, capsize=3)


def category_offset(index: int, count: int) -> float:
    """Where the ``index``-th of ``count`` lines stands within a category, centred on it."""
    if count == 1:
        return 0.0
    return CATEGORY_SPREAD * (index / (count - 1) - 0.5)


def reference_for(reference: pd.DataFrame, workload: str, workloads: int) -> pd.DataFrame:
    """The reference points of one diagram: those of its workload, or all when unlabelled."""
    if "workload" in reference.columns:
        return reference[reference["workload"].astype(str) == workload]
    if workloads > 1:
        raise InputError("reference points need a workload column when the results hold "
                         "several workloads", field="reference")
    return reference


def draw_reference(ax: Axes, reference: pd.DataFrame, styles: dict[str, LineStyle]) -> None:
    """The paper's values: hollow markers on a dotted line, in the policy's colour."""
    for policy, line in reference.sort_values("x").groupby("policy", sort=True):
        style = styles.get(str(policy))
        if style is None:
            continue  # a policy the paper shows but this experiment did not run
        ax.plot(line["x"], line["value"], color=style.color, marker=style.marker,
                markerfacecolor="white", linestyle=":", linewidth=1.0)


def curve_legend(lines: Iterable[str], styles: dict[str, LineStyle], most_runs: int,
                 reference_label: str | None, *, categorical: bool = False) -> list[Artist]:
    """Legend handles: one per line (its marker alone on a categorical axis, where no
    line is drawn), then what the bars and the hollow markers mean."""
    handles: list[Artist] = [Line2D([], [], color=styles[p].color, marker=styles[p].marker,
                                    linestyle="none" if categorical else styles[p].linestyle,
                                    label=p) for p in lines]
    if most_runs > 1:
        handles.append(Line2D([], [], color="#555555", marker="|", markersize=10,
                              linestyle="none",
                              label=f"95 % confidence interval, up to {most_runs} seeds"))
    if reference_label is not None:
        handles.append(Line2D([], [], color="#555555", marker="o", markerfacecolor="white",
                              linestyle=":", linewidth=1.0, label=reference_label))
    return handles


#: Metrics measured in seconds, drawn in hours in every figure (their labels say [h]).
HOUR_METRICS = frozenset({"artww", "avg_response", "avg_wait", "max_wait", "makespan",
                          "wait_weighted", "wait_weighted_queued", "nondeadline_avg_response",
                          "deadline_max_lateness"})

#: Metrics that are a share of a whole (a fraction in [0, 1] or a percentage): their value
#: axis starts at zero (:func:`schedlab.viz.style.honest_limits`).
SHARE_METRICS = frozenset({"utilization", "utilization_margo", "utilization_margo_reserved",
                           "utilization_reserved", "loss_of_capacity", "system_usage",
                           "licence_usage", "machine_usage", "rejected_pct", "rejected_area_pct",
                           "deadline_rejected_pct", "deadline_rejected_area_pct",
                           "deadline_missed_pct"})


def metric_scale(metric: str) -> float:
    """Factor from a metric's stored unit to the one its figures show: 1/3600 for a time
    in seconds (one unit, hours, for every waiting and response time), else 1."""
    return 1 / 3600 if metric in HOUR_METRICS else 1.0


def is_share(metric: str) -> bool:
    """Whether a metric is a share of a whole, whose value axis must start at zero."""
    return metric in SHARE_METRICS


def scaled_points(points: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Points of :func:`curve_points` (mean and interval) in the unit :func:`metric_label`
    states, for drawing."""
    factor = metric_scale(metric)
    return points.assign(**{c: points[c] * factor for c in ("mean", "ci")})
