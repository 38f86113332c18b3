"""Gantt chart of a schedule window: time across, processors up, one box per job.

The engine accounts processors as a count, not as numbered nodes (space
sharing on a homogeneous cluster, SPEC §3), so a chart has to choose where
each job sits.  :func:`place_jobs` does it by a deterministic first fit of
the interval graph: jobs in order of start time (then of their order in the
table), processors released at a job's end before any start at that
instant, and each job given the lowest contiguous block of free processors
wide enough for it.  First fit can fragment the free processors so that no
contiguous block is left although enough processors are free (dynamic
storage allocation is NP-hard, Garey & Johnson 1979, [SR2]); such a job is
drawn in several pieces over the lowest free processors — it is still drawn
on exactly its width and never above the machine — and the chart says how
many jobs were split.  Rejected jobs hold no processors and are not drawn.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from schedlab.engine.processors import free_runs
from schedlab.engine.result import STATUS_NAMES, Result
from schedlab.errors import InputError
from schedlab.metrics.classes import WIDTH_CLASSES
from schedlab.outcomes import NEVER_RAN
from schedlab.output import OUTAGE_KINDS, processors_table
from schedlab.viz.classes import width_class_label
from schedlab.viz.style import (
    LEGEND_PLACE,
    OUTAGE_COLORS,
    STATUS_COLORS,
    WIDTH_CLASS_COLORS,
    new_figure,
    paper_style,
    time_unit,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Columns a jobs table needs for a Gantt chart (those of jobs.csv).
GANTT_COLUMNS = ("job_id", "start", "end", "width", "status")
COLOR_BY = ("status", "width")

#: Label a job with its id only when its box is at least this share of the
#: window in both directions and no more than this many jobs are drawn.
LABEL_SHARE = 0.05
#: Outline of every box: dark and thin, so that a job of a few seconds still shows as a line.
EDGE = "#1a1a1a"
#: Hatch of the pieces of a job drawn over several blocks of processors.
SPLIT_HATCH = "#00000080"
LABEL_MAX_JOBS = 150


@dataclass(frozen=True)
class GanttJobs:
    """The jobs that held processors: ids, [start, end), width and status name."""

    job_id: np.ndarray
    start: np.ndarray
    end: np.ndarray
    width: np.ndarray
    status: np.ndarray

    def __len__(self) -> int:
        return len(self.job_id)

    def subset(self, mask: np.ndarray) -> GanttJobs:
        return GanttJobs(self.job_id[mask], self.start[mask], self.end[mask],
                         self.width[mask], self.status[mask])


def jobs_from_result(result: Result) -> GanttJobs:
    """The jobs of a simulation that ran (finished or killed)."""
    ran = result.accepted
    names = np.array(STATUS_NAMES, dtype=object)[result.status[ran]]
    return GanttJobs(result.job_id[ran], result.start[ran].astype(np.int64),
                     result.end[ran].astype(np.int64), result.width[ran].astype(np.int64),
                     names)


def jobs_from_table(jobs: pd.DataFrame) -> GanttJobs:
    """The jobs that ran, from a table with the columns of jobs.csv.

    Jobs that never ran (status ``rejected`` or ``withdrawn``, empty start and
    end) are left out.
    """
    missing = [c for c in GANTT_COLUMNS if c not in jobs.columns]
    if missing:
        raise InputError(f"the jobs table lacks the column(s) {', '.join(missing)} "
                         f"(expected the columns of jobs.csv)", field=missing[0])
    status = jobs["status"].astype(str)
    unknown = ~status.isin(STATUS_NAMES)
    if unknown.any():
        row = int(np.flatnonzero(unknown.to_numpy())[0])
        raise InputError(f"job {jobs['job_id'].iloc[row]}: expected a status "
                         f"{', '.join(STATUS_NAMES)}, got {status.iloc[row]!r}", field="status")
    ran = jobs[~status.isin([STATUS_NAMES[code] for code in NEVER_RAN])]
    if ran[["start", "end"]].isna().any().any():
        raise InputError("a job that ran has no start or end time", field="start")
    return GanttJobs(ran["job_id"].to_numpy(), ran["start"].to_numpy(np.int64),
                     ran["end"].to_numpy(np.int64), ran["width"].to_numpy(np.int64),
                     ran["status"].astype(str).to_numpy(dtype=object))


def fit(free: np.ndarray, width: int) -> list[tuple[int, int]]:
    """Blocks (first processor, count) for a job of ``width``: one contiguous block
    if any is wide enough (the lowest such), else pieces over the lowest free processors."""
    starts, lengths = free_runs(free)
    wide = np.flatnonzero(lengths >= width)
    if len(wide):
        return [(int(starts[wide[0]]), width)]
    pieces: list[tuple[int, int]] = []
    left = width
    for first, length in zip(starts.tolist(), lengths.tolist()):
        take = min(length, left)
        pieces.append((first, take))
        left -= take
        if left == 0:
            break
    return pieces


def place_jobs(start: np.ndarray, end: np.ndarray, width: np.ndarray,
               processors: int) -> list[list[tuple[int, int]]]:
    """Processor blocks for every job by deterministic first fit (see the module docstring).

    Returns, per job in input order, a list of (first processor, count)
    blocks; one block unless the job had to be split.  Jobs must hold
    processors for a positive time.  A schedule that needs more than
    ``processors`` at some instant is a user mistake (wrong machine size).
    """
    free = np.ones(processors, dtype=bool)
    placed: list[list[tuple[int, int]]] = [[] for _ in range(len(start))]
    running: list[tuple[int, int]] = []            # (end, job index), a heap
    for i in np.lexsort((np.arange(len(start)), start)).tolist():
        while running and running[0][0] <= start[i]:
            _, done = heapq.heappop(running)
            for first, count in placed[done]:
                free[first:first + count] = True
        if int(width[i]) > int(free.sum()):
            raise InputError(f"at time {int(start[i])} the jobs use more than {processors} "
                             f"processors (is the machine size right?)", field="width")
        placed[i] = fit(free, int(width[i]))
        for first, count in placed[i]:
            free[first:first + count] = False
        heapq.heappush(running, (int(end[i]), i))
    return placed


def peak_width(start: np.ndarray, end: np.ndarray, width: np.ndarray) -> int:
    """Largest number of processors in use at once (ends count before starts at one instant;
    a job of zero length holds nothing)."""
    held = end > start
    start, end, width = start[held], end[held], width[held]
    if len(start) == 0:
        return 0
    times = np.concatenate((end, start))
    change = np.concatenate((-width, width))
    order = np.lexsort((change, times))            # at equal times, releases first
    return int(np.cumsum(change[order]).max())


def check_window(window: tuple[float, float]) -> tuple[float, float]:
    """A window must end after it starts."""
    t0, t1 = window
    if not t1 > t0:
        raise InputError(f"expected a window START:END with END > START, got {t0}:{t1}",
                         field="window")
    return float(t0), float(t1)


def in_window(jobs: GanttJobs, window: tuple[float, float] | None) -> tuple[GanttJobs,
                                                                             tuple[float, float]]:
    """The jobs that hold processors inside the window, and the window itself.

    Without a window: the whole schedule, from the first start to the last end.
    """
    held = jobs.subset(jobs.end > jobs.start)
    if window is None:
        if len(held) == 0:
            raise InputError("no job held processors: nothing to draw", field="jobs")
        window = (float(held.start.min()), float(held.end.max()))
    t0, t1 = check_window(window)
    return held.subset((held.start < t1) & (held.end > t0)), (t0, t1)


def job_colors(jobs: GanttJobs, color_by: str,
               processors: int | None = None) -> tuple[list[str], list[Patch]]:
    """A face colour per job and the legend entries (with counts) for ``color_by``; width
    classes are named as on a machine of ``processors`` (:func:`width_class_label`)."""
    if color_by == "status":
        keys = jobs.status.astype(str)
        entries = [(name, name, STATUS_COLORS[name]) for name in STATUS_COLORS]
    elif color_by == "width":
        keys = np.empty(len(jobs), dtype=object)
        for job_class in WIDTH_CLASSES:
            keys[job_class.contains(jobs.width)] = job_class.name
        entries = [(c.name, f"width {width_class_label(c, processors)}",
                    WIDTH_CLASS_COLORS[c.name]) for c in WIDTH_CLASSES]
    else:
        raise InputError(f"expected a colouring by {' or '.join(COLOR_BY)}, got {color_by!r}",
                         field="color_by")
    colors = {key: color for key, _, color in entries}
    legend = [Patch(facecolor=color, edgecolor=EDGE, label=f"{label} ({int(np.sum(keys == key))})")
              for key, label, color in entries if np.any(keys == key)]
    return [colors[key] for key in keys.tolist()], legend


def gantt_figure(source: Result | pd.DataFrame, processors: int | None = None, *,
                 window: tuple[float, float] | None = None, color_by: str = "status",
                 title: str | None = None, uses: pd.DataFrame | None = None) -> Figure:
    """Draw the jobs of a schedule window as boxes on processors against time.

    ``source`` is a :class:`Result` or a jobs table (columns of jobs.csv).
    ``processors`` defaults to the result's machine size, or for a table to
    the peak number of processors in use (then no machine line is drawn).
    ``window`` is (start, end) in seconds since the trace start; boxes are
    cut at its edges.  ``color_by`` is ``status`` (finished / killed) or
    ``width`` (Margo et al. §6 classes 1 / 2–64 / 65–256 / >256, cut at the
    machine's size when it is known: 1 / 2–64 / 65–100 on 100 processors).
    A run with failures or windows (a Result with outages, or ``uses``, its
    processors.csv) is drawn on the processors each job held, with the
    failed processors, the windows and the attempts a failure ended
    (docs/reference/events.md); any other run on processors laid out here.
    """
    jobs = jobs_from_result(source) if isinstance(source, Result) else jobs_from_table(source)
    if processors is None and isinstance(source, Result):
        processors = source.processors
    shown, (t0, t1) = in_window(jobs, window)
    machine = processors if processors is not None else peak_width(jobs.start, jobs.end,
                                                                   jobs.width)
    if uses is None and isinstance(source, Result):
        uses = processors_table(source)
    placed = (place_jobs(shown.start, shown.end, shown.width, max(machine, 1))
              if uses is None else held_processors(uses, shown))
    colors, legend = job_colors(shown, color_by, processors)
    unit, scale = time_unit(t1 - t0)
    with paper_style():
        figure = new_figure(10, 5.5)
        ax = figure.add_subplot()
        draw_boxes(ax, shown, placed, colors, (t0, t1), scale)
        if uses is not None:
            legend += draw_outages(ax, uses, (t0, t1), scale)
        label_ids(ax, shown, placed, (t0, t1), scale, machine)
        ax.set_xlim(t0 / scale, t1 / scale)
        ax.set_ylim(0, machine * 1.02)
        ax.grid(False)
        if processors is not None:
            ax.axhline(processors, color="#333333", linewidth=0.8, linestyle="--")
        ax.set_xlabel(f"time since trace start [{unit}]")
        ax.set_ylabel("processors" if processors is not None else "processors (peak in use)")
        split = sum(1 for blocks in placed if len(blocks) > 1)
        if split:
            legend.append(Patch(facecolor="white", edgecolor="#333333", hatch="//",
                                label=f"{split} drawn in pieces (fragmented processors)"))
        figure.legend(handles=legend, loc=LEGEND_PLACE, title=f"{len(shown)} jobs")
        figure.suptitle(title or f"Schedule from {t0:,.0f} s to {t1:,.0f} s")
    return figure


def draw_boxes(ax: Axes, jobs: GanttJobs, placed: list[list[tuple[int, int]]], colors: list[str],
               window: tuple[float, float], scale: float) -> None:
    """One rectangle per block, cut at the window; the blocks of split jobs hatched."""
    t0, t1 = window
    boxes: list[list[tuple[float, int]]] = []
    hatched: list[list[tuple[float, int]]] = []
    faces: list[str] = []
    for i, blocks in enumerate(placed):
        left = max(float(jobs.start[i]), t0) / scale
        right = min(float(jobs.end[i]), t1) / scale
        for first, count in blocks:
            corners = [(left, first), (right, first), (right, first + count), (left, first + count)]
            (hatched if len(blocks) > 1 else boxes).append(corners)
            if len(blocks) == 1:
                faces.append(colors[i])
    ax.add_collection(PolyCollection(boxes, facecolors=faces, edgecolors=EDGE, linewidths=0.3))
    if hatched:
        split_faces = [colors[i] for i, blocks in enumerate(placed) if len(blocks) > 1
                       for _ in blocks]
        ax.add_collection(PolyCollection(hatched, facecolors=split_faces, edgecolors=EDGE,
                                         linewidths=0.3, hatch="//", hatchcolor=SPLIT_HATCH))


def held_processors(uses: pd.DataFrame, jobs: GanttJobs) -> list[list[tuple[int, int]]]:
    """The processors each job's last attempt held, as blocks ``(first, count)``, from a
    run's processor uses (:func:`schedlab.output.processors_table`)."""
    blocks: dict[tuple[int, int], list[tuple[int, int]]] = {}
    held = uses[uses["kind"] == "job"]
    for job_id, start, first, count in zip(held["job_id"].tolist(), held["start"].tolist(),
                                           held["first"].tolist(), held["count"].tolist()):
        blocks.setdefault((int(job_id), int(start)), []).append((int(first), int(count)))
    return [blocks.get((int(job_id), int(start)), [])
            for job_id, start in zip(jobs.job_id.tolist(), jobs.start.tolist())]


def draw_outages(ax: Axes, uses: pd.DataFrame, window: tuple[float, float],
                 scale: float) -> list[Patch]:
    """Failed processors, processors held by windows and the attempts a failure ended,
    as boxes inside the window; their legend entries (with counts)."""
    t0, t1 = window
    legend = []
    for kind in OUTAGE_KINDS:
        rows = uses[(uses["kind"] == kind) & (uses["end"] > t0) & (uses["start"] < t1)]
        if rows.empty:
            continue
        boxes = [[(max(s, t0) / scale, f), (min(e, t1) / scale, f),
                  (min(e, t1) / scale, f + c), (max(s, t0) / scale, f + c)]
                 for f, c, s, e in zip(rows["first"].tolist(), rows["count"].tolist(),
                                       rows["start"].tolist(), rows["end"].tolist())]
        ax.add_collection(PolyCollection(boxes, facecolors=OUTAGE_COLORS[kind],
                                         edgecolors=EDGE, linewidths=0.3))
        legend.append(Patch(facecolor=OUTAGE_COLORS[kind], edgecolor=EDGE,
                            label=f"{kind} ({len(boxes)})"))
    return legend


def label_ids(ax: Axes, jobs: GanttJobs, placed: list[list[tuple[int, int]]],
              window: tuple[float, float], scale: float, machine: int) -> None:
    """Write the job id in boxes big enough to hold it, when few jobs are drawn."""
    if len(jobs) > LABEL_MAX_JOBS:
        return
    t0, t1 = window
    for i, blocks in enumerate(placed):
        left, right = max(float(jobs.start[i]), t0), min(float(jobs.end[i]), t1)
        first, count = max(blocks, key=lambda block: block[1])
        if (right - left) >= LABEL_SHARE * (t1 - t0) and count >= LABEL_SHARE * machine:
            ax.text((left + right) / 2 / scale, first + count / 2, str(jobs.job_id[i]),
                    ha="center", va="center", fontsize=7, color="#111111")
