"""Allocation in the Ousterhout matrix: first fit, job re-packing, guests, short jobs.

Zhou, Brent, Johnson and Walsh, "Job re-packing for enhancing the performance
of gang scheduling" (JSSPP 1999), as Zhou, Goscinski and Brent 2003 describe
it in §2 and §4.  A job keeps its processors for its lifetime; what changes
is the row (time slot) it runs in on them.  Our readings are documented in
docs/reference/policies/gang.md.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING

from schedlab.engine.timesharing import Matrix, Row, lowest_bits

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

    While a row's jobs are visited the rows before it only fill, so a row none of whose
    jobs finds its processors free in an earlier row is passed over (checked at C level
    against each earlier row): most rows, as most passes move nothing.
    """
    moves = 0
    rows = matrix.rows
    for index in range(1, len(rows)):
        row = rows[index]
        masks = row.own.values()
        for target in range(index):
            if 0 in map(rows[target].occupied.__and__, masks):
                break                       # a job of the row fits in an earlier one
        else:
            continue
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


def largest_spots(matrix: Matrix, slot_limit: int, avoid: int) -> tuple[int, int]:
    """The widest job :func:`first_fit_spot` can place now, anywhere and outside ``avoid``:
    the most free processors in a row, or all allowed ones when a new row may open.  A
    wider job finds no spot, so a pass over a long queue skips it without a search."""
    usable = matrix.usable
    allowed = usable & ~avoid
    if len(matrix) < slot_limit:            # a new row offers all: no row offers more
        return usable.bit_count(), allowed.bit_count()
    widest = 0
    if not avoid:
        for row in matrix.rows:
            widest = max(widest, (usable & ~row.occupied).bit_count())
        return widest, widest
    widest_off = 0
    for row in matrix.rows:
        free = usable & ~row.occupied
        widest = max(widest, free.bit_count())
        widest_off = max(widest_off, (free & allowed).bit_count())
    return widest, widest_off


def add_guests(matrix: Matrix) -> int:
    """Let jobs also run in other rows where all their processors are free.

    Rows in round order; candidates row by row, by lowest processor (the
    order the jobs hold in the matrix), each row chosen on its own
    (:func:`row_guests`) and its guests set to them.  Returns the number of guest places.
    """
    candidates = [(row.occupied, by_lowest_processor(row.own)) for row in matrix.rows]
    placed = 0
    out_of_service = ~matrix.usable
    for index, row in enumerate(matrix.rows):
        chosen = row_guests(candidates, row, out_of_service)
        matrix.set_guests(chosen, index)
        placed += len(chosen)
    return placed


def row_guests(candidates: list[tuple[int, list[tuple[int, int, int]]]], row: Row,
               out_of_service: int) -> list[int]:
    """The guests of one row: first fit of the ``candidates`` (every matrix job as
    :func:`by_lowest_processor` gives them, rows in order, given as each row's processors
    and its jobs), in their order, onto the processors in service that neither the row's
    jobs nor the guests chosen before hold (the row's present guests do not count: they
    are chosen again).  A row's choice depends on no other row's.

    A job's processors are among its row's, so the jobs of a row none of whose processors
    is still free here are passed over together (the row itself among them)."""
    taken = out_of_service | row.occupied
    chosen: list[int] = []
    if not ~taken:
        return chosen
    for occupied, jobs in candidates:
        if not occupied & ~taken:
            continue
        for _, job_id, mask in jobs:
            if not mask & taken:
                chosen.append(job_id)
                taken |= mask
                if not ~taken:
                    return chosen
    return chosen


def _touched(entry: tuple[int, list[int], dict[int, int]], changed: dict[int, tuple[int, int] | None],
             masks_now: list[int]) -> bool:
    """Whether the jobs that came, left or moved (and where they are now; ``masks_now``
    the processors of those still in the matrix) may change a row's last choice of
    guests (:class:`KeptGuests`): one of them is now on processors all free of the row's
    own, or it was one of the guests chosen."""
    taken, chosen, _ = entry
    return 0 in map(taken.__and__, masks_now) or not changed.keys().isdisjoint(chosen)


class KeptGuests:
    """:func:`add_guests` kept across passes: a row's guests are chosen again only when
    a change since the last pass could alter them, else the row keeps the last pass's
    (``TimeSharingPolicy.keeps_guests``: the matrix holds them from one pass to the next;
    a row whose guests were cleared meanwhile gets them again).

    A row's choice (:func:`row_guests`) is fixed by its taken processors and the
    candidates in matrix order.  Between two passes the rows keep their relative order
    (rows open at the end and leave only empty), so a job that did not change row
    (``Matrix.journal``) keeps its place among the others; a job that came, left or moved
    is one candidate taken out and one put in.  Taking out a job the row did not choose
    changes nothing (it added no processor); putting in one whose processors meet the
    row's own changes nothing (it is passed over wherever it stands).  Any other change,
    a row whose processors changed, or a change of the processors in service chooses
    again.  The result is the plain pass's (tests/gang/test_kept_state.py compares them
    at every pass).
    """

    def __init__(self) -> None:
        self._usable = -1
        self._seen = 0                      # the part of the matrix's journal read
        #: Every matrix job's (row id, processors) at the last pass.
        self._where: dict[int, tuple[int, int]] = {}
        #: Row id -> (taken processors, guests chosen, the row's guests dict) at the last pass.
        self._rows: dict[int, tuple[int, list[int], dict[int, int]]] = {}
        #: Row id -> its jobs by lowest processor (:func:`by_lowest_processor`).
        self._order: dict[int, list[tuple[int, int, int]]] = {}

    def add(self, matrix: Matrix) -> int:
        """Add every row's guests to ``matrix`` (as :func:`add_guests`); returns their number."""
        rows = matrix.rows
        if matrix.usable != self._usable:
            self._usable = matrix.usable
            self._rows = {}
        journal = matrix.journal
        masks = matrix.masks
        # each job that came, left or moved since the last pass: where it is now (or None)
        changed = {job_id: (matrix.row_of(job_id).id, masks[job_id]) if job_id in masks
                   else None for job_id in journal[self._seen:]}
        self._seen = len(journal)
        self._reorder(changed, rows)
        if len(rows) < 2:                   # the only candidates are the row's own jobs
            self._rows = {}
            return 0
        masks_now = [place[1] for place in changed.values() if place is not None]
        out_of_service = ~self._usable
        kept = self._rows
        fresh: dict[int, tuple[int, list[int], dict[int, int]]] = {}
        candidates: list[tuple[int, list[tuple[int, int, int]]]] | None = None
        placed = 0
        for index, row in enumerate(rows):
            taken = row.occupied
            entry = kept.get(row.id)
            if (entry is None or entry[0] != taken
                    or (changed and _touched(entry, changed, masks_now))):
                if candidates is None:
                    candidates = self._candidates(rows)
                chosen = row_guests(candidates, row, out_of_service)
                if entry is None or chosen != entry[1] or row.guests is not entry[2]:
                    matrix.set_guests(chosen, index)    # else the row holds them still
                entry = (taken, chosen, row.guests)
            elif row.guests is not entry[2]:
                matrix.set_guests(entry[1], index)
                entry = (taken, entry[1], row.guests)
            fresh[row.id] = entry
            placed += len(entry[1])
        self._rows = fresh
        return placed

    def _reorder(self, changed: dict[int, tuple[int, int] | None], rows: list[Row]) -> None:
        """Keep each row's jobs by lowest processor and every job's place: the jobs that
        left a row are taken out of its list, those that came are put in at their place."""
        order, where = self._order, self._where
        if len(order) > len(rows):
            order = self._order = {row.id: order[row.id] for row in rows if row.id in order}
        for job_id, after in changed.items():
            before = where.pop(job_id, None)
            if before is not None and before[0] in order:
                jobs, mask = order[before[0]], before[1]
                del jobs[bisect.bisect_left(jobs, (mask & -mask, job_id, mask))]
            if after is not None:
                where[job_id] = after
                if after[0] in order:
                    mask = after[1]
                    bisect.insort(order[after[0]], (mask & -mask, job_id, mask))

    def _candidates(self, rows: list[Row]) -> list[tuple[int, list[tuple[int, int, int]]]]:
        """Every matrix job as :func:`by_lowest_processor` gives them, rows in order, as
        :func:`row_guests` takes them (each row's processors and its jobs)."""
        order = self._order
        candidates = []
        for row in rows:
            jobs = order.get(row.id)
            if jobs is None:
                jobs = order[row.id] = by_lowest_processor(row.own)
            candidates.append((row.occupied, jobs))
        return candidates


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
