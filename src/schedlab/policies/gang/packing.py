"""Allocation in the Ousterhout matrix: first fit, job re-packing, guests, short jobs.

Zhou, Brent, Johnson and Walsh, "Job re-packing for enhancing the performance
of gang scheduling" (JSSPP 1999), as Zhou, Goscinski and Brent 2003 describe
it in §2 and §4.  A job keeps its processors for its lifetime; what changes
is the row (time slot) it runs in on them.  Our readings are documented in
docs/reference/policies/gang.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from schedlab.engine.timesharing import Matrix, lowest_bits

if TYPE_CHECKING:
    from schedlab.workload.job import Job


def repack(matrix: Matrix) -> int:
    """Move every job, on its own processors, to the earliest row where they are free.

    Rows are visited from the second to the last and the jobs of a row by
    their lowest processor; one pass is a fixpoint (a move only frees cells in
    a later row).  Busy cells gather in the first rows, so the idle fragments
    of neighbouring processors merge into the last rows, and rows left empty
    are then removed by the engine (Zhou et al. 1999; 2003, §2).  Returns the
    number of moves.
    """
    moves = 0
    rows = matrix.rows
    for index in range(1, len(rows)):
        row = rows[index]
        for _, job_id, mask in by_lowest_processor(row.own):
            for target in range(index):
                if not mask & rows[target].occupied:
                    matrix.move(job_id, target)
                    moves += 1
                    break
    return moves


def by_lowest_processor(jobs: dict[int, int]) -> list[tuple[int, int, int]]:
    """``(lowest processor bit, job id, mask)`` of a row's jobs, lowest processor first."""
    return sorted([(mask & -mask, job_id, mask) for job_id, mask in jobs.items()])


def first_fit(matrix: Matrix, job: Job, slot_limit: int, avoid: int = 0) -> bool:
    """Place ``job`` where :func:`first_fit_spot` finds room.  Returns whether it was placed."""
    spot = first_fit_spot(matrix, job, slot_limit, avoid)
    if spot is not None:
        matrix.place(job, *spot)
    return spot is not None


def first_fit_spot(matrix: Matrix, job: Job, slot_limit: int,
                   avoid: int = 0) -> tuple[int, int] | None:
    """The first row with ``job.width`` free processors outside ``avoid`` and its
    lowest-numbered free ones, else a new row (index ``len(matrix)``) if fewer than
    ``slot_limit`` rows exist: ``(row index, mask)``, or None.  Only the processors in
    service count (``matrix.usable``: neither failed nor held by a window)."""
    allowed = matrix.usable & ~avoid
    if allowed.bit_count() < job.width:
        return None
    for index, row in enumerate(matrix.rows):
        free = allowed & ~row.occupied
        if free.bit_count() >= job.width:
            return index, lowest_bits(free, job.width)
    if len(matrix) < slot_limit:
        return len(matrix), lowest_bits(allowed, job.width)
    return None


def clashing(windows: Iterable[tuple[int, int, int]], start: float, end: float) -> int:
    """The processors of the ``windows`` (``(mask, start, end)``, as
    ``Matrix.windows_ahead``) that overlap ``[start, end)``, as a mask."""
    mask = 0
    for columns, begins, ends in windows:
        if begins < end and start < ends:
            mask |= columns
    return mask


def clear_spot(matrix: Matrix, job: Job, slot_limit: int, avoid: int,
               now: int) -> tuple[int, int] | None:
    """:func:`first_fit_spot` outside the processors of the windows ahead
    (``matrix.windows_ahead``) that ``job`` would run into by its predicted end:
    ``now + estimate x rows``, the rows in use counting a new one it opens (our
    reading, docs/reference/events.md, "Gang runs": the wall time under time
    sharing is not known; one second of service per round of ``rows`` slots, as
    :mod:`~schedlab.policies.gang.reservation` predicts)."""
    windows = matrix.windows_ahead
    if not windows:
        return first_fit_spot(matrix, job, slot_limit, avoid)
    rows = len(matrix)
    spot = first_fit_spot(matrix, job, slot_limit,
                          avoid | clashing(windows, now, now + job.estimate * max(rows, 1)))
    if spot is not None and spot[0] == rows:        # it opens a row: every job runs slower
        slower = clashing(windows, now, now + job.estimate * (rows + 1))
        if spot[1] & slower:
            spot = first_fit_spot(matrix, job, slot_limit, avoid | slower)
    return spot


def largest_spot(matrix: Matrix, slot_limit: int, avoid: int = 0) -> int:
    """The widest job :func:`first_fit_spot` can place now outside ``avoid``: the most free
    processors in a row, or all allowed ones when a new row may open.  A wider job finds
    no spot, so a pass over a long queue skips it without a search."""
    allowed = matrix.usable & ~avoid
    widest = allowed.bit_count() if len(matrix) < slot_limit else 0
    for row in matrix.rows:
        widest = max(widest, (allowed & ~row.occupied).bit_count())
    return widest


def add_guests(matrix: Matrix) -> int:
    """Let jobs also run in other rows where all their processors are free.

    Rows in round order; candidates row by row, by lowest processor (the
    order the jobs hold in the matrix).  Returns the number of guest places.
    """
    candidates = [(job_id, mask) for row in matrix.rows
                  for _, job_id, mask in by_lowest_processor(row.own)]
    placed = 0
    full = matrix.usable
    for index, row in enumerate(matrix.rows):
        taken = ~full | row.occupied | row.guest_mask
        if not ~taken:
            continue
        chosen = []
        for job_id, mask in candidates:
            if not mask & taken and job_id not in row.own:
                chosen.append(job_id)
                taken |= mask
                if not ~taken:
                    break
        if chosen:
            matrix.add_guests(chosen, index)
            placed += len(chosen)
    return placed


def pack_express(jobs: Iterable[Job], free: int) -> list[tuple[Job, int]]:
    """First fit of jobs (arrival order) onto the processors of ``free``: each takes
    its lowest-numbered free ones; a job that does not fit is passed over (Strategy 3's
    short jobs are not queued behind each other, Zhou et al. 2003, §6)."""
    chosen = []
    for job in jobs:
        if free.bit_count() >= job.width:
            mask = lowest_bits(free, job.width)
            free &= ~mask
            chosen.append((job, mask))
    return chosen


def express_guests(matrix: Matrix, free: int, first: int) -> list[int]:
    """The matrix jobs that also run in an express slot on the processors of ``free``
    (those its short jobs leave): rows in round order from row ``first`` (the slot
    that would have come next), the jobs of a row by lowest processor, first fit.

    Our reading of "jobs run in multiple time slots whenever possible" (Zhou et
    al. 2003, §2): an express slot is a slot like the others, and the processors
    short jobs leave idle in it serve matrix jobs as they do in a regular slot.
    """
    rows = matrix.rows[first:] + matrix.rows[:first]
    chosen = []
    for row in rows:
        for _, job_id, mask in by_lowest_processor(row.own):
            if not mask & ~free:
                chosen.append(job_id)
                free &= ~mask
        if not free:
            break
    return chosen
