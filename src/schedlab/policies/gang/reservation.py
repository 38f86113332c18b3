"""Backfilling with a reservation for the queue's head in the Ousterhout matrix.

Zhou, Goscinski and Brent 2003 apply backfilling under the slot limit and
note that it needs "the information about the length of each individual
job" (§2; §3 with reference [14], reservation-based backfilling).  This is
EASY backfilling carried over to the matrix (our reading, docs/policies/gang.md,
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

The reservation is made again at every pass of the policy (a round boundary
after an arrival or an end), as EASY makes it again at every event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from schedlab.engine.timesharing import Matrix

if TYPE_CHECKING:
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

    def __init__(self, matrix: Matrix, head: Job, head_long: bool, is_long, slot_limit: int,
                 now: int) -> None:
        self.full = matrix.full
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

    def admits(self, index: int, mask: int, job: Job, is_long: bool) -> bool:
        """Whether ``job``, placed in row ``index`` (``len`` rows: a new one) on ``mask``,
        leaves the head's reservation where it is; if so it joins the plan."""
        rows = max(self.rows, index + 1)
        entry = Entry(index, mask, job.estimate, is_long)
        if rows == self.rows and self.now + job.estimate * rows <= self.time:
            admitted = True              # gone before the head's time, at the same pace
        else:
            admitted = self.reservation([*self.entries, entry], rows) <= self.time
        if admitted:
            self.entries.append(entry)
            self.rows = rows
        return admitted

    def reservation(self, entries: list[Entry], rows: int) -> float:
        """The earliest predicted end after which the head fits (``inf`` if never)."""
        ends = sorted({self.now + e.left * rows for e in entries})
        for t in ends:
            if self.fits([e for e in entries if self.now + e.left * rows > t]):
                return t
        return float("inf")

    def fits(self, entries: list[Entry]) -> bool:
        """Whether the head fits beside ``entries``: a row with room, or a new row."""
        avoid = 0
        occupied: dict[int, int] = {}
        for e in entries:
            occupied[e.row] = occupied.get(e.row, 0) | e.mask
            if e.long and self.head_long:
                avoid |= e.mask
        allowed = self.full & ~avoid
        if allowed.bit_count() < self.head.width:
            return False
        if len(occupied) < self.slot_limit:
            return True
        return any((allowed & ~used).bit_count() >= self.head.width
                   for used in occupied.values())
