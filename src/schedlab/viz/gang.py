"""Figures of a gang (time-sharing) run: the Ousterhout matrix over time and its slots.

Zhou, Goscinski and Brent 2003 (§2, §4) describe the system as an
Ousterhout matrix — time slots (rows) × processors (columns) — that changes
at scheduling-round boundaries, and measure the number of slots in a round
over time (Tables 3-5, 10).  Two figures show a run that way:

* :func:`matrix_figure`: one band per row of the matrix, processors up, time
  across; a job is a box over its processors for as long as it holds its
  place in that row (placed or moved there, until it leaves or is moved);
  guest places (the job also runs in another row where its processors are
  free) are drawn hatched and pale; express slots (Strategy 3) get a band of
  their own on top.  Row ids are stable in the engine but rows are created and
  removed, so rows whose lifetimes do not overlap share a band (first fit on
  their lifetimes): at most ``slots`` bands, plus express.
* :func:`slots_figure`: the number of slots in the current round over time,
  a step function, with the time-weighted mean of the window.

Both read plain tables — the change log and the slots series of
:class:`~schedlab.engine.result.TimeSharingTrace`, as :func:`~schedlab.metrics.gang.matrix_table`
and :func:`~schedlab.metrics.gang.slots_table` make them from a result and as ``schedlab simulate
--out`` writes them (``matrix.csv``, ``slots.csv``) — so a figure can be
drawn from a run directory without simulating again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from schedlab.errors import InputError
from schedlab.metrics.gang import MATRIX_COLUMNS, SLOTS_COLUMNS, parse_processors
from schedlab.viz.style import LEGEND_PLACE, PALETTE, new_figure, paper_style, time_unit

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Colours of the boxes: a job in its own row, as a guest, in an express slot.
OWN_COLOR, GUEST_COLOR, EXPRESS_COLOR = "#56B4E9", "#D9EEF9", "#E69F00"
EDGE = "#333333"


# --------------------------------------------------------------------------- tables


def check_columns(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"the {what} table needs the columns {', '.join(columns)} "
                         f"(missing: {', '.join(missing)})", field=what)


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class Place:
    """A job held a place in a row (or an express slot) over [start, end)."""

    job_id: int
    row: int
    start: int
    end: int
    processors: tuple[tuple[int, int], ...]
    kind: str                 # "own", "guest" or "express"


def matrix_places(matrix: pd.DataFrame, ends: dict[int, int], until: int) -> list[Place]:
    """Every place a job held, from the change log.

    ``ends`` maps a job id to its end (an express job's place lasts until
    its end); places still held at the end of the log last until ``until``.
    """
    check_columns(matrix, MATRIX_COLUMNS, "matrix")
    places: list[Place] = []
    own: dict[int, tuple[int, int]] = {}                    # job -> (row, since)
    guest: dict[tuple[int, int], int] = {}                  # (job, row) -> since
    procs: dict[int, tuple[tuple[int, int], ...]] = {}
    for time, kind, job, row, text in matrix[list(MATRIX_COLUMNS)].itertuples(index=False):
        time, job, row = int(time), int(job), int(row)
        procs.setdefault(job, parse_processors(text))
        if kind in ("place", "move", "leave") and job in own:
            old_row, since = own.pop(job)
            places.append(Place(job, old_row, since, time, procs[job], "own"))
        if kind in ("place", "move"):
            own[job] = (row, time)
        elif kind == "guest":
            guest[(job, row)] = time
        elif kind in ("unguest", "leave"):
            for key in [k for k in guest if k[0] == job and (kind == "leave" or k[1] == row)]:
                # a matrix job running in an express slot (negative row id) is drawn there
                places.append(Place(job, key[1], guest.pop(key), time, procs[job],
                                    "express" if key[1] < 0 else "guest"))
        elif kind == "express":
            places.append(Place(job, row, time, ends.get(job, until), procs[job], "express"))
    places += [Place(job, row, since, until, procs[job], "own") for job, (row, since) in own.items()]
    places += [Place(job, row, since, until, procs[job], "guest")
               for (job, row), since in guest.items()]
    return places


def row_bands(places: list[Place]) -> dict[int, int]:
    """Band of every regular row id: first fit of the rows' lifetimes (a band is reused
    once its row is gone), in order of first appearance."""
    life: dict[int, list[int]] = {}
    for place in places:
        if place.kind != "express":
            span = life.setdefault(place.row, [place.start, place.end])
            span[0], span[1] = min(span[0], place.start), max(span[1], place.end)
    bands: dict[int, int] = {}
    free_at: list[int] = []                                 # band -> end of its last row
    for row, (start, end) in sorted(life.items(), key=lambda item: (item[1][0], item[0])):
        band = next((b for b, t in enumerate(free_at) if t <= start), len(free_at))
        if band == len(free_at):
            free_at.append(end)
        free_at[band] = end
        bands[row] = band
    return bands


def matrix_figure(matrix: pd.DataFrame, jobs: pd.DataFrame, processors: int, *,
                  window: tuple[int, int] | None = None, title: str | None = None) -> Figure:
    """The Ousterhout matrix over ``window``: one band per row, processors up, time across.

    ``matrix`` is a matrix table (:func:`~schedlab.metrics.gang.matrix_table`, ``matrix.csv``),
    ``jobs`` a jobs table with ``job_id`` and ``end`` (jobs.csv).  The
    default window is the first 20 changes' span widened to a whole hour —
    the whole run is rarely readable.
    """
    if matrix.empty:
        raise InputError("the run changed no matrix (no job ran): nothing to draw",
                         field="matrix")
    ends = {int(j): int(e) for j, e in zip(jobs["job_id"], jobs["end"]) if pd.notna(e)}
    until = int(max(matrix["time"].max(), max(ends.values(), default=0)))
    places = matrix_places(matrix, ends, until)
    start, stop = window if window is not None else default_window(matrix)
    shown = [p for p in places if p.end > start and p.start < stop and p.end > p.start]
    if not shown:
        raise InputError(f"no job held a place in the window {start}:{stop}", field="window")
    bands = row_bands(places)
    used = sorted({bands[p.row] for p in shown if p.kind != "express"})
    has_express = any(p.kind == "express" for p in shown)
    {band: k for k, band in enumerate(used)}
    panels = len(used) + has_express
    unit, scale = time_unit(stop - start)
    with paper_style():
        figure = new_figure(8.0, 1.2 + 1.25 * panels)
        axes = figure.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
        for k, band in enumerate(used):
            ax = axes[panels - 1 - k]                      # row 1 at the bottom
            draw_places(ax, [p for p in shown if p.kind != "express" and bands[p.row] == band],
                        start, stop, scale)
            ax.set_ylabel(f"row {k + 1}", rotation=0, ha="right", va="center")
        if has_express:
            draw_places(axes[0], [p for p in shown if p.kind == "express"], start, stop, scale)
            axes[0].set_ylabel("express", rotation=0, ha="right", va="center")
        for ax in axes:
            ax.set_ylim(0, processors)
            ax.set_xlim((start - start) / scale, (stop - start) / scale)
            ax.set_yticks([0, processors])
            ax.grid(axis="y", visible=False)
        axes[-1].set_xlabel(f"time since {start:,} s [{unit}]")
        figure.supylabel("processors", fontsize=10)
        figure.legend(handles=[Patch(facecolor=OWN_COLOR, edgecolor=EDGE, label="job in its row"),
                               Patch(facecolor=GUEST_COLOR, edgecolor="#7a9fb5", hatch="///",
                                     label="guest (runs in\nanother row too)"),
                               Patch(facecolor=EXPRESS_COLOR, edgecolor=EDGE,
                                     label="express slot")], loc=LEGEND_PLACE)
        figure.suptitle(title or f"Ousterhout matrix, {start:,}-{stop:,} s "
                                 f"({len({p.job_id for p in shown})} jobs)")
    return figure


def default_window(matrix: pd.DataFrame) -> tuple[int, int]:
    """From the first change to one hour later."""
    first = int(matrix["time"].min())
    return first, first + 3600


def draw_places(ax: Axes, places: list[Place], start: int, stop: int, scale: float) -> None:
    """Boxes of the places over the processors they hold, clipped to [start, stop)."""
    styles = {"own": (OWN_COLOR, EDGE, ""), "guest": (GUEST_COLOR, "#7a9fb5", "///"),
              "express": (EXPRESS_COLOR, EDGE, "")}
    for kind, (face, edge, hatch) in styles.items():
        boxes = []
        for p in places:
            if p.kind != kind:
                continue
            x0, x1 = (max(p.start, start) - start) / scale, (min(p.end, stop) - start) / scale
            boxes += [[(x0, a), (x1, a), (x1, b), (x0, b)] for a, b in p.processors]
        if boxes:
            ax.add_collection(PolyCollection(boxes, facecolors=face, edgecolors=edge,
                                             linewidths=0.3, hatch=hatch or None))


# --------------------------------------------------------------------------- slots


def slots_figure(slots: pd.DataFrame, *, limit: int | None = None,
                 window: tuple[int, int] | None = None, title: str | None = None) -> Figure:
    """Slots in the current round over time (a step function), with the window's
    time-weighted mean (Zhou et al. 2003, §4: n = Σ i·t_i / Σ t_i over the time
    with at least one slot) and the slot ``limit`` as a dashed line."""
    check_columns(slots, SLOTS_COLUMNS, "slots")
    if slots.empty:
        raise InputError("the run has no slots series (no job ran): nothing to draw",
                         field="slots")
    times = slots["time"].to_numpy(np.int64)
    counts = slots["slots"].to_numpy(np.int64)
    start, stop = window if window is not None else (int(times[0]), int(times[-1]))
    if stop <= start:
        raise InputError("the window is empty", field="window")
    t, c = window_steps(times, counts, start, stop)
    durations = np.diff(np.append(t, stop))
    busy = durations[c > 0].sum()
    mean = float((c * durations).sum() / busy) if busy else 0.0
    unit, scale = time_unit(stop - start)
    with paper_style():
        figure = new_figure(8.0, 3.0)
        ax = figure.subplots()
        x, y = (np.append(t, stop) - start) / scale, np.append(c, c[-1])
        ax.fill_between(x, y, step="post", color=PALETTE[0], alpha=0.25, linewidth=0)
        ax.step(x, y, where="post", color=PALETTE[0], linewidth=0.8, label="slots in the round")
        ax.axhline(mean, color=PALETTE[1], linewidth=1.2, linestyle="-",
                   label=f"mean while busy: {mean:.2f}")
        if limit is not None:
            ax.axhline(limit, color="#555555", linewidth=1.0, linestyle="--",
                       label=f"slot limit ({limit})")
        top = max(int(c.max()), limit or 0)
        ax.set_ylim(0, top + 0.6)
        ax.set_yticks(range(top + 1))
        ax.set_xlim(0, (stop - start) / scale)
        ax.set_xlabel(f"time since {start:,} s [{unit}]")
        ax.set_ylabel("time slots")
        figure.legend(loc=LEGEND_PLACE)
        ax.set_title(title or "Time slots in a scheduling round")
    return figure


def window_steps(times: np.ndarray, counts: np.ndarray, start: int,
                 stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The step function restricted to [start, stop): its value at ``start``, then every
    change inside."""
    k = int(np.searchsorted(times, start, side="right")) - 1
    first = counts[k] if k >= 0 else 0
    inside = (times > start) & (times < stop)
    return np.append(start, times[inside]), np.append(first, counts[inside])
