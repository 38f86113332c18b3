"""Figures of grid runs (Pasquali's thesis §4.3, Figs. 25-29).

* :func:`share_figure` -- each cluster's share of the dispatched work, one
  bar per run beside the machine-count optimum (Fig. 25);
* :func:`interarrival_figure` -- deadline misses, system and licence usage
  (or any metric) against the mean interarrival time ``Ta``, one line per
  configuration (Figs. 27-29 at several ``Ta``);
* :func:`machine_gantt_figure` -- the schedule with one row per machine,
  grouped by cluster, each job a box on the CPUs it held (first fit within
  its machine, as :func:`schedlab.viz.gantt.place_jobs`), coloured by
  deadline status or by licence need.

They read what ``schedlab simulate --platform ... --out`` writes: the
metrics of metrics.json and the columns of jobs.csv (``machine``,
``cluster``, ``licences``, ``deadline``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from schedlab.errors import InputError
from schedlab.viz.curves import metric_label, metric_scale
from schedlab.viz.gantt import EDGE, check_window, place_jobs
from schedlab.viz.style import (
    LEGEND_PLACE,
    OUTAGE_COLORS,
    new_figure,
    paper_style,
    policy_styles,
    time_unit,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from schedlab.platform.model import Platform

#: Metrics drawn against Ta by default: Out Deadline (Fig. 27), system and licence usage
#: (Figs. 28, 29).
TA_METRICS = ("deadline_missed_pct", "system_usage", "licence_usage")
#: Colourings of the machine Gantt chart.
MACHINE_COLOR_BY = ("deadline", "licences")
DEADLINE_COLORS = {"met": "#009E73", "missed": "#D55E00", "none": "#BBBBBB"}
#: Licence counts by bins (upper bounds) and a sequential palette, none in grey.
LICENCE_BINS = ((0, "0"), (2, "1-2"), (5, "3-5"), (8, "6-8"), (None, "9+"))
LICENCE_COLORS = {"0": "#DDDDDD", "1-2": "#C6DBEF", "3-5": "#6BAED6", "6-8": "#2171B5",
                  "9+": "#08306B"}
OPTIMUM_COLOR = "#DDDDDD"
#: Legend entries longer than this go in one column below the bars, else two.
LEGEND_COLUMN_CHARACTERS = 45
#: Machine names are written on the axis when no more than this many rows are drawn.
NAMED_ROWS = 40


@dataclass(frozen=True)
class GridRun:
    """One grid run as the figures need it: a label, its jobs table, its metrics."""

    label: str
    jobs: pd.DataFrame
    metrics: Mapping[str, float]

    @property
    def interarrival(self) -> float:
        """Mean interarrival time Ta of its jobs: (last submit - first) / (jobs - 1)."""
        submit = self.jobs["submit"].to_numpy()
        return float(submit.max() - submit.min()) / (len(submit) - 1) if len(submit) > 1 \
            else 0.0


def cluster_names(metrics: Mapping[str, float]) -> list[str]:
    """The clusters of a grid run, in platform order, from its metric names."""
    prefix = "cluster_share_optimum."
    return [key[len(prefix):] for key in metrics if key.startswith(prefix)]


def share_figure(runs: Sequence[GridRun], *, title: str | None = None) -> Figure:
    """Each cluster's share of the dispatched work, one bar per run, the machine-count
    optimum first (thesis §4.3, Fig. 25).

    Runs are ordered by label, then Ta; when the runs have several Ta, a
    label keeps its colour and larger Ta are drawn lighter.
    """
    if not runs:
        raise InputError("no grid run to draw", field="runs")
    clusters = cluster_names(runs[0].metrics)
    if not clusters or any(f"cluster_work_share.{c}" not in r.metrics for r in runs
                           for c in clusters):
        raise InputError("expected grid runs with the metrics cluster_work_share.<cluster> and "
                         "cluster_share_optimum.<cluster> (simulate --platform)", field="metrics")
    runs = sorted(runs, key=lambda r: (r.label, r.interarrival))
    styles = policy_styles(r.label for r in runs)
    tas = sorted({round(r.interarrival, 1) for r in runs})
    shade = {ta: 1.0 - 0.55 * k / max(len(tas) - 1, 1) for k, ta in enumerate(tas)}
    optimum = [runs[0].metrics[f"cluster_share_optimum.{c}"] for c in clusters]
    # (label, one value per cluster, colour, shade, hatch) of each group of bars
    bars: list[tuple[str, list[float], str, float, str | None]] = [
        ("optimum (machine share)", optimum, OPTIMUM_COLOR, 1.0, "//")]
    for r in runs:
        ta = round(r.interarrival, 1)
        label = f"{r.label}, Ta = {ta:g} s" if len(tas) > 1 else r.label
        bars.append((label, [r.metrics[f"cluster_work_share.{c}"] for c in clusters],
                     styles[r.label].color, shade[ta], None))
    width = 0.84 / len(bars)
    x = np.arange(len(clusters))
    with paper_style():
        figure = new_figure(10, 4.2)
        ax = figure.add_subplot()
        for k, (label, values, color, alpha, hatch) in enumerate(bars):
            ax.bar(x - 0.42 + width * (k + 0.5), 100 * np.asarray(values), width, label=label,
                   color=color, alpha=alpha, edgecolor="#333333", linewidth=0.5, hatch=hatch)
        ax.set_xticks(x, clusters)
        ax.set_xlabel("cluster")
        ax.set_ylabel("share of the dispatched work [%]")
        ax.grid(axis="x", visible=False)
        longest = max(len(label) for label, *_ in bars)
        figure.legend(loc="outside lower center",
                      ncols=1 if longest > LEGEND_COLUMN_CHARACTERS else 2)
        figure.suptitle(title or "Workload per cluster")
    return figure


def interarrival_figure(runs: Sequence[GridRun], metrics: Sequence[str] = TA_METRICS, *,
                        title: str | None = None) -> Figure:
    """``metrics`` against the mean interarrival time, one panel per metric (times in hours),
    one line per run label (runs of one label at several Ta)."""
    if len(runs) < 2:
        raise InputError("a curve against Ta needs at least two runs", field="runs")
    for metric in metrics:
        missing = [r.label for r in runs if metric not in r.metrics]
        if missing:
            raise InputError(f"run {missing[0]!r} has no metric {metric!r}", field="--metric")
    points = pd.DataFrame([{"label": r.label, "ta": r.interarrival,
                            **{m: r.metrics[m] for m in metrics}} for r in runs])
    # a metric over no jobs is None (docs/reference/metrics.md, "Empty groups"): a gap in its line
    points[list(metrics)] = points[list(metrics)].apply(pd.to_numeric, errors="coerce")
    styles = policy_styles(points["label"])
    with paper_style():
        figure = new_figure(max(3.6 * len(metrics), 5.0), 4.2)
        axes = figure.subplots(1, len(metrics), squeeze=False)[0]
        for ax, metric in zip(axes, metrics):
            for label, line in points.groupby("label", sort=True):
                line = line.sort_values("ta")
                style = styles[label]
                ax.plot(line["ta"], line[metric] * metric_scale(metric), color=style.color,
                        marker=style.marker, linestyle=style.linestyle, label=label)
            ax.set_xlabel("mean interarrival time Ta [s]")
            ax.set_ylabel(metric_label(metric))
            if metric.endswith("usage"):
                ax.set_ylim(0, 1.02)
            else:
                ax.set_ylim(bottom=0)
        handles, labels = axes[0].get_legend_handles_labels()
        longest = max(len(label) for label in labels)
        figure.legend(handles, labels, loc="outside lower center",
                      ncols=1 if longest > LEGEND_COLUMN_CHARACTERS else min(len(labels), 3))
        figure.suptitle(title or "Against the interarrival time")
    return figure


@dataclass(frozen=True)
class MachineRows:
    """The machines drawn as rows: names in platform order, their cluster and CPUs."""

    names: list[str]
    clusters: list[str]
    cpus: list[int]


def rows_from_platform(platform: Platform) -> MachineRows:
    """Every machine of a :class:`~schedlab.platform.Platform`, in platform order."""
    names = [m.name for m in platform.machines]
    clusters = [platform.clusters[c].name for c in platform.cluster_of.tolist()]
    return MachineRows(names, clusters, [int(c) for c in platform.cpus])


def rows_from_jobs(jobs: pd.DataFrame) -> MachineRows:
    """The machines some job ran on, by cluster then name, each as wide as its peak use
    (when the platform is not at hand)."""
    ran = jobs[jobs["machine"].notna()]
    order = ran[["cluster", "machine"]].drop_duplicates().sort_values(["cluster", "machine"])
    cpus = []
    for machine in order["machine"]:
        on = ran[ran["machine"] == machine]
        times = np.concatenate((on["end"].to_numpy(), on["start"].to_numpy()))
        change = np.concatenate((-on["width"].to_numpy(), on["width"].to_numpy()))
        cpus.append(int(np.cumsum(change[np.lexsort((change, times))]).max()))
    return MachineRows(order["machine"].tolist(), order["cluster"].tolist(), cpus)


def deadline_status(jobs: pd.DataFrame) -> np.ndarray:
    """``met``, ``missed`` (ended after its deadline, or killed) or ``none`` per job."""
    if "deadline" not in jobs.columns:
        return np.full(len(jobs), "none", dtype=object)
    deadline = pd.to_numeric(jobs["deadline"], errors="coerce").to_numpy()
    has = ~np.isnan(deadline)
    late = has & ((jobs["end"].to_numpy() > deadline) | (jobs["status"] == "killed").to_numpy())
    return np.where(~has, "none", np.where(late, "missed", "met")).astype(object)


def licence_class(jobs: pd.DataFrame) -> np.ndarray:
    """The bin of :data:`LICENCE_BINS` of the number of licences each job needs."""
    names = jobs["licences"].fillna("").astype(str) if "licences" in jobs.columns else \
        pd.Series([""] * len(jobs))
    count = names.map(lambda text: len([n for n in text.split(";") if n])).to_numpy()
    classes = np.full(len(jobs), LICENCE_BINS[-1][1], dtype=object)
    for high, label in reversed(LICENCE_BINS[:-1]):
        classes[count <= high] = label
    return classes


def machine_gantt_figure(jobs: pd.DataFrame, rows: MachineRows | None = None, *,
                         window: tuple[float, float] | None = None,
                         color_by: str = "deadline", title: str | None = None,
                         outages: pd.DataFrame | None = None) -> Figure:
    """The schedule with one row per machine, grouped by cluster (platform order).

    Within its row a job covers the share of the machine's CPUs it held,
    placed by first fit among that machine's CPUs.  ``color_by`` is
    ``deadline`` (met / missed / no deadline) or ``licences`` (how many it
    needs).  ``window`` (start, end) in seconds cuts the boxes.  In a run
    with preemption (a ``last_start`` column) a job's box is its last run,
    on its last machine: jobs.csv does not hold the earlier runs
    (``Result.grid.runs`` does).  ``outages`` (the run's processors.csv,
    with ``rows`` every machine of the platform in platform order) adds the
    failures and windows over their machines' rows (docs/reference/events.md,
    "Grid runs").
    """
    if color_by not in MACHINE_COLOR_BY:
        raise InputError(f"expected {' or '.join(MACHINE_COLOR_BY)}, got {color_by!r}",
                         field="--by")
    if "machine" not in jobs.columns:
        raise InputError("expected the jobs.csv of a grid run (a machine column; simulate "
                         "--platform)", field="machine")
    if "last_start" in jobs.columns:
        jobs = jobs.assign(start=jobs["last_start"])
    ran = jobs[jobs["machine"].notna() & (jobs["end"] > jobs["start"])]
    if ran.empty:
        raise InputError("no job held a machine: nothing to draw", field="jobs")
    rows = rows or rows_from_jobs(ran)
    t0, t1 = check_window(window) if window is not None else (float(ran["start"].min()),
                                                              float(ran["end"].max()))
    keys = deadline_status(ran) if color_by == "deadline" else licence_class(ran)
    key_of = pd.Series(keys, index=ran.index)
    palette = DEADLINE_COLORS if color_by == "deadline" else LICENCE_COLORS
    row_of = {name: k for k, name in enumerate(rows.names)}
    unknown = set(ran["machine"]) - set(row_of)
    if unknown:
        raise InputError(f"job on machine {sorted(unknown)[0]!r}, which the platform lacks",
                         field="machine")
    boxes, faces = [], []
    unit, scale = time_unit(t1 - t0)
    for machine, on in ran.groupby("machine", sort=False):
        k = row_of[machine]
        start, end = on["start"].to_numpy(), on["end"].to_numpy()
        placed = place_jobs(start, end, on["width"].to_numpy(), rows.cpus[k])
        cpu = 1.0 / rows.cpus[k]
        inside = (start < t1) & (end > t0)
        for i in np.flatnonzero(inside).tolist():
            left, right = max(start[i], t0) / scale, min(end[i], t1) / scale
            for first, count in placed[i]:
                top = len(rows.names) - k        # the first machine on top
                y0, y1 = top - (first + count) * cpu, top - first * cpu
                boxes.append([(left, y0), (right, y0), (right, y1), (left, y1)])
                faces.append(palette[key_of[on.index[i]]])
    with paper_style():
        figure = new_figure(10, min(max(4.0, 0.035 * len(rows.names) + 2.5), 12))
        ax = figure.add_subplot()
        ax.add_collection(PolyCollection(boxes, facecolors=faces, edgecolors=EDGE,
                                         linewidths=0.15))
        outage_legend = [] if outages is None else _draw_machine_outages(
            ax, outages, rows, (t0, t1), scale)
        _cluster_axis(ax, rows)
        ax.set_xlim(t0 / scale, t1 / scale)
        ax.set_ylim(0, len(rows.names))
        ax.grid(False)
        ax.set_xlabel(f"time since trace start [{unit}]")
        shown = (ran["start"] < t1) & (ran["end"] > t0)
        counts = key_of[shown].value_counts()
        names = {"met": "deadline met", "missed": "deadline missed", "none": "no deadline"} \
            if color_by == "deadline" else {k: f"{k} licences" for k in LICENCE_COLORS}
        legend = [Patch(facecolor=color, edgecolor=EDGE, label=f"{names[key]} ({counts[key]})")
                  for key, color in palette.items() if key in counts] + outage_legend
        figure.legend(handles=legend, loc=LEGEND_PLACE, title=f"{int(shown.sum())} jobs")
        figure.suptitle(title or "Schedule per machine")
    return figure


def _draw_machine_outages(ax: Axes, outages: pd.DataFrame, rows: MachineRows,
                          window: tuple[float, float], scale: float) -> list[Patch]:
    """The failures and windows of ``outages`` as boxes over their machines' whole rows (a
    grid run lists a machine's CPUs after those of the machines before it); their legend
    entries with counts."""
    first_cpu = np.concatenate(([0], np.cumsum(rows.cpus)[:-1]))
    t0, t1 = window
    legend = []
    n = len(rows.names)
    for kind in ("failure", "window"):
        held = outages[(outages["kind"] == kind) & (outages["end"] > t0)
                       & (outages["start"] < t1)]
        if held.empty:
            continue
        machines = np.searchsorted(first_cpu, held["first"].to_numpy(), side="right") - 1
        boxes = [[(max(s, t0) / scale, n - k - 1), (min(e, t1) / scale, n - k - 1),
                  (min(e, t1) / scale, n - k), (max(s, t0) / scale, n - k)]
                 for k, s, e in zip(machines.tolist(), held["start"].tolist(),
                                    held["end"].tolist())]
        ax.add_collection(PolyCollection(boxes, facecolors=OUTAGE_COLORS[kind],
                                         edgecolors=EDGE, linewidths=0.3))
        legend.append(Patch(facecolor=OUTAGE_COLORS[kind], edgecolor=EDGE,
                            label=f"{kind} ({len(boxes)})"))
    return legend


def _cluster_axis(ax: Axes, rows: MachineRows) -> None:
    """Cluster names beside their block of rows, lines between clusters; machine names too
    when few rows are drawn."""
    n = len(rows.names)
    bounds = [0] + [k for k in range(1, n) if rows.clusters[k] != rows.clusters[k - 1]] + [n]
    for k in bounds[1:-1]:
        ax.axhline(n - k, color="#333333", linewidth=0.8)
    if n <= NAMED_ROWS:
        ax.set_yticks([n - k - 0.5 for k in range(n)], rows.names, fontsize=7)
    else:
        ax.set_yticks([])
    for a, b in itertools.pairwise(bounds):
        ax.annotate(f"{rows.clusters[a]}\n({b - a})", xy=(0, n - (a + b) / 2),
                    xycoords=("axes fraction", "data"), xytext=(-6 if n > NAMED_ROWS else -60, 0),
                    textcoords="offset points", ha="right", va="center", fontsize=9)
    ax.set_ylabel("machines by cluster", labelpad=40 if n > NAMED_ROWS else 90)


__all__ = ["GridRun", "MachineRows", "interarrival_figure", "machine_gantt_figure",
           "rows_from_jobs", "rows_from_platform", "share_figure"]
