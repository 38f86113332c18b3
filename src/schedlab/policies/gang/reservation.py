"""Backfilling with a reservation for the queue's head in the Ousterhout matrix.

Zhou, Goscinski and Brent 2003 apply backfilling under the slot limit and
note that it needs "the information about the length of each individual
job" (§2; §3 with reference [14], reservation-based backfilling).  This is
EASY backfilling carried over to the matrix (our reading, docs/reference/policies/gang.md,
"Slot limit, waiting queue and backfilling"):

* A matrix job's predicted end is ``now + (estimate - service received) x k``,
  ``k`` the number of rows: it progresses one second per round of ``k``
  slots (guest places, which only speed it up, are not counted).
* The head — the first waiting job first fit cannot place — gets a
  reservation: the earliest predicted end after which it would fit (a row
  with ``width`` free processors, outside the long jobs' processors for a
  long job under Strategy 2, or room for a new row).
* A later job is placed only if the head's reservation does not move later
  with it in the matrix (its own predicted end counted with the rows it
  shares, one more if it opens a row).
* With maintenance windows announced (``Matrix.windows_ahead``), the head
  fits at a time only outside the processors of the windows it would run
  into from then by its estimate x rows, and a window's end is one more time
  it may fit (docs/reference/events.md, "Gang runs").

The reservation is made again at every pass of the policy (a round boundary
after an arrival or an end), as EASY makes it again at every event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from schedlab.engine.timesharing import Matrix
from schedlab.policies.gang.packing import clashing

if TYPE_CHECKING:
    from collections.abc import Callable

    from schedlab.workload.job import Job


@dataclass(frozen=True)
class Entry:
    """A job of the plan: its row, processors, estimated service still needed, long or not."""

    row: int
    mask: int
    left: int
    long: bool


class HeadReservation:
    """The head's reservation over a plan of the matrix (see the module docstring).

    ``is_long`` tells whether a job is long (Strategy 2's rule applies to the
    head when ``head_long``); ``slot_limit`` is the limit of rows.
    """

    def __init__(self, matrix: Matrix, head: Job, head_long: bool,
                 is_long: Callable[[Job], bool], slot_limit: int, now: int) -> None:
        self.full = matrix.usable
        self.windows = matrix.windows_ahead
        self.head = head
        self.head_long = head_long
        self.slot_limit = slot_limit
        self.now = now
        self.entries = [Entry(index, mask, max(0, matrix.job(job_id).estimate
                                               - matrix.served.get(job_id, 0)),
                              is_long(matrix.job(job_id)))
                        for index, row in enumerate(matrix.rows)
                        for job_id, mask in row.own.items()]
        self.rows = len(matrix)
        self.time = self.reservation(self.entries, self.rows)
        self.at_time = self.state_at(self.entries, self.rows, self.time)

    def admits(self, index: int, mask: int, job: Job, is_long: bool) -> bool:
        """Whether ``job``, placed in row ``index`` (``len`` rows: a new one) on ``mask``,
        leaves the head's reservation where it is; if so it joins the plan.

        With the same number of rows the others' predicted ends stay, so the
        question is whether the head still fits at its time with the job
        there (it did not fit earlier without it, so it cannot with it); a new
        row slows every job down and the reservation is made again.
        """
        entry = Entry(index, mask, job.estimate, is_long)
        if index < self.rows:
            if self.now + job.estimate * self.rows <= self.time:
                self.entries.append(entry)      # gone by the head's time
                return True
            occupied, members, avoid = self.at_time
            occupied, members = dict(occupied), dict(members)
            occupied[index] = occupied.get(index, 0) | mask
            members[index] = members.get(index, 0) + 1
            if is_long and self.head_long:
                avoid |= mask
            if not self.fits(occupied, members, avoid, self.time, self.rows):
                return False
            self.entries.append(entry)
            self.at_time = (occupied, members, avoid)
            return True
        rows = index + 1
        if self.reservation([*self.entries, entry], rows) > self.time:
            return False
        self.entries.append(entry)
        self.rows = rows
        self.at_time = self.state_at(self.entries, rows, self.time)
        return True

    def state_at(self, entries: list[Entry], rows: int, t: float
                 ) -> tuple[dict[int, int], dict[int, int], int]:
        """Rows' processors, jobs per row and the long jobs' processors (when the head
        is long) of the entries still running after ``t``."""
        occupied: dict[int, int] = {}
        members: dict[int, int] = {}
        avoid = 0
        for e in entries:
            if self.now + e.left * rows > t:
                occupied[e.row] = occupied.get(e.row, 0) | e.mask
                members[e.row] = members.get(e.row, 0) + 1
                if e.long and self.head_long:
                    avoid |= e.mask
        return occupied, members, avoid

    def reservation(self, entries: list[Entry], rows: int) -> float:
        """The earliest predicted end, or end of a window ahead, after which the head
        fits (``inf`` if never).

        The entries leave in the order of their predicted ends; the rows'
        processors, the long jobs' processors and the count of non-empty rows
        are kept as they leave (masks within a row, and long jobs' masks, are
        disjoint, so a leaving job's mask is taken off with an exclusive or).
        """
        occupied: dict[int, int] = {}
        members: dict[int, int] = {}
        avoid = 0
        for e in entries:
            occupied[e.row] = occupied.get(e.row, 0) | e.mask
            members[e.row] = members.get(e.row, 0) + 1
            if e.long and self.head_long:
                avoid |= e.mask
        ordered = sorted(entries, key=lambda e: e.left)
        times = [self.now + e.left * rows for e in ordered]
        if self.windows:
            times = sorted({*times, *(end for _, _, end in self.windows)})
        i, previous = 0, None
        for t in times:
            if t == previous:
                continue
            previous = t
            while i < len(ordered) and self.now + ordered[i].left * rows <= t:
                e = ordered[i]
                occupied[e.row] ^= e.mask
                members[e.row] -= 1
                if e.long and self.head_long:
                    avoid ^= e.mask
                i += 1
            if self.fits(occupied, members, avoid, t, rows):
                return t
        return float("inf")

    def fits(self, occupied: dict[int, int], members: dict[int, int], avoid: int,
             t: float, rows: int) -> bool:
        """Whether the head fits at ``t``: a row with room outside ``avoid`` and the
        windows it would run into from ``t`` (``rows`` rows), or a new row."""
        allowed = self.full & ~avoid
        if self.windows:
            allowed &= ~clashing(self.windows, t, t + self.head.estimate * rows)
        width = self.head.width
        if allowed.bit_count() < width:
            return False
        if sum(1 for count in members.values() if count) < self.slot_limit:
            return True
        return any((allowed & ~occupied[row]).bit_count() >= width
                   for row, count in members.items() if count)
