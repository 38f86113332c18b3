"""Gang scheduling with a slot limit, a waiting queue, backfilling and job classes.

Zhou, Goscinski and Brent, "Concerning the length of time slots for efficient
gang scheduling" (IEICE Trans. Inf. & Syst. 2003), §3 and §5:

* Strategy 1: job re-packing, at most ``slots`` rows (5 in the paper), a
  waiting queue served with backfilling when no row can take a job.
* Strategy 2: as 1, and at most one long job on any processor at a time.
* Strategy 3: as 2, and a short job runs in the next slot instead of the next
  round, in a slot sized so that it completes there.

Jobs are short below ``short`` seconds (150), long above ``long`` (6000),
medium otherwise (§5), judged by their estimate unless ``classify_by`` says
``runtime``.  The matrix runs in :mod:`schedlab.engine.timesharing`; this
class only decides.  docs/reference/policies/gang.md has the model and our readings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedlab.engine.timesharing import EXPRESS_STARTS, TIME_SHARING, Matrix, TimeSharingPolicy
from schedlab.errors import PolicyError
from schedlab.policies.base import Policy, check_bool, check_choice, check_number
from schedlab.policies.gang import packing
from schedlab.policies.gang.packing import KeptGuests
from schedlab.policies.gang.reservation import HeadReservation

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.workload.job import Job

STRATEGIES = (1, 2, 3)
PACKINGS = ("repack", "first-fit")
BACKFILLS = ("first-fit", "reservation", "none")
CLASSIFY_BY = ("estimate", "runtime")
SHORT, MEDIUM, LONG = "short", "medium", "long"
_NONE_LEFT = (0, 0, 0, 0)       # a pass that left no job waiting (GangScheduler._left_behind)


@dataclass(frozen=True)
class JobClasses:
    """Short (< ``short``), long (> ``long``) and medium jobs, by estimate or runtime (§5)."""

    short: int = 150
    long: int = 6000
    by: str = "estimate"

    def of(self, job: Job) -> str:
        length = job.estimate if self.by == "estimate" else job.runtime
        return SHORT if length < self.short else LONG if length > self.long else MEDIUM


class GangScheduler(Policy, TimeSharingPolicy):
    """Gang scheduling (Zhou, Goscinski, Brent 2003): ``strategy`` 1, 2 or 3.

    Parameters: ``slot`` length in seconds; ``slots``, the limit of rows per
    round; ``context_switch`` seconds lost at every switch of rows;
    ``packing`` (``repack``: job re-packing, Zhou et al. 1999; ``first-fit``:
    no job moves, the baseline); ``switchable`` (jobs also run in other rows
    where their processors are free); ``backfill`` (``first-fit``: every
    waiting job that fits is placed, in arrival order; ``reservation``: the
    first job that does not fit gets a reservation from the estimates and a
    later one is placed only if it does not delay it, §2-§3,
    :mod:`~schedlab.policies.gang.reservation`; ``none``: the queue stops at
    the first job that does not fit); ``short``/``long`` class bounds and
    ``classify_by``; ``express_start`` (Strategy 3: a short job arriving while
    a slot runs starts at once on the processors that slot leaves free,
    ``arrival``, §5's "immediately executed", or waits for the next slot,
    ``next-slot``; :data:`~schedlab.engine.timesharing.EXPRESS_STARTS`).
    """

    name = "gang"
    #: Said here as :class:`Policy` (space sharing) precedes :class:`TimeSharingPolicy`.
    execution_model = TIME_SHARING
    categorical_parameters = ("strategy",)
    #: The matrix holds the guests from one pass to the next (:class:`KeptGuests`).
    keeps_guests = True

    def __init__(self, *, strategy: int = 1, slot: int = 1, slots: int = 5,
                 context_switch: int = 0, packing: str = "repack", switchable: bool = True,
                 backfill: str = "first-fit", short: int = 150, long: int = 6000,
                 classify_by: str = "estimate", express_start: str = "arrival") -> None:
        check_choice(self.name, "strategy", strategy, STRATEGIES)
        check_number(self.name, "slot", slot, int, 1)
        check_number(self.name, "slots", slots, int, 1)
        check_number(self.name, "context_switch", context_switch, int, 0)
        check_choice(self.name, "packing", packing, PACKINGS)
        check_bool(self.name, "switchable", switchable)
        check_choice(self.name, "backfill", backfill, BACKFILLS)
        check_number(self.name, "short", short, int, 0)
        check_number(self.name, "long", long, int, short)
        check_choice(self.name, "classify_by", classify_by, CLASSIFY_BY)
        check_choice(self.name, "express_start", express_start, EXPRESS_STARTS)
        self.strategy = strategy
        self.slot = slot
        self.slots = slots
        self.context_switch = context_switch
        self.packing = packing
        self.switchable = switchable
        self.backfill = backfill
        self.short = short
        self.long = long
        self.classify_by = classify_by
        self.express_start = express_start
        self.classes = JobClasses(short, long, classify_by)
        self._moves = 0
        self._backfilled = 0
        self._long_of: dict[int, bool] = {}
        #: The long jobs placed in the matrix (some ended since) and their processors.
        self._long_placed: dict[int, int] = {}
        self._long_mask = 0                 # the processors of those
        self._guests = KeptGuests()
        #: The length of the matrix's journal after the last pass: while it is the same, no
        #: job was placed, moved or left since, and every row holds what it held then.
        self._journal_seen = 0
        #: After the last pass: the waiting jobs it left, the id of the last of them and the
        #: widest jobs it could still place, any and long (:meth:`_first_new`).
        self._queue_left = _NONE_LEFT

    # -------------------------------------------------- time-sharing engine
    def arrange(self, matrix: Matrix, waiting: list[Job], now: int) -> None:
        """Re-pack, then serve the queue in arrival order, then add guests."""
        if self.packing == "repack":
            self._repack(matrix)
        long_mask = self._long_processors(matrix) if self.strategy >= 2 else 0
        self._queue_left = self._serve_queue(matrix, waiting, long_mask, now) if waiting \
            else _NONE_LEFT
        self._journal_seen = len(matrix.journal)
        if self.switchable:
            self._guests.add(matrix)

    def _serve_queue(self, matrix: Matrix, waiting: list[Job], long_mask: int, now: int
                     ) -> tuple[int, int, int, int]:
        """Place the waiting jobs that fit, in arrival order, under the backfill rule;
        returns what :meth:`_first_new` reads at the next pass.  The widest spots are
        found again after a placement only when a job still to look at or the jobs left
        need them."""
        blocked = False                     # an earlier job waits: this one is backfilled
        placed = 0                          # jobs placed so far in this pass
        head: HeadReservation | None = None  # backfill="reservation": the first blocked job's
        room, long_room = packing.largest_spots(matrix, self.slots, long_mask)
        stale = False                       # a job was placed since room was found
        long_of = self._long_of
        windows = matrix.windows_ahead      # announced maintenance: placed around
        first = self._first_new(waiting, room, long_room)
        for position, job in self._may_fit(waiting, room, long_room, first):
            if stale:
                room, long_room = packing.largest_spots(matrix, self.slots, long_mask)
                stale = False
            spot = None                     # room >= long_room: a job wider than room waits
            is_long = job.width <= room and long_of.get(job.id, None)
            if is_long is None:
                is_long = self._is_long(job)
            if job.width <= (long_room if is_long else room):
                avoid = long_mask if is_long else 0
                spot = (packing.clear_spot(matrix, job, self.slots, avoid, now) if windows
                        else packing.first_fit_spot(matrix, job, self.slots, avoid))
            if spot is None:
                if self.backfill == "none":
                    break
                if self.backfill == "reservation" and head is None:
                    head = HeadReservation(matrix, job, self._is_long(job), self._is_long,
                                           self.slots, now)
                blocked = True
                continue
            if head is not None and not head.admits(*spot, job, is_long):
                continue
            matrix.place(job, *spot)
            if is_long:
                long_mask |= spot[1]
                self._long_placed[job.id] = spot[1]
                self._long_mask |= spot[1]
            stale = True
            if blocked or position > placed:
                self._backfilled += 1
            placed += 1
        left = len(waiting) - placed
        if not left:
            return _NONE_LEFT
        if stale:
            room, long_room = packing.largest_spots(matrix, self.slots, long_mask)
        return self._left_behind(matrix, waiting, left, room, long_room)

    def _repack(self, matrix: Matrix) -> None:
        """Job re-packing, skipped when every row holds the processors it held at the end
        of the last pass (no job left since: the journal did not grow), and a re-packed
        matrix stays re-packed as jobs are placed (each in the first row with room for it,
        so on processors taken in every row before), so re-packing would move nothing."""
        if len(matrix.journal) != self._journal_seen:
            self._moves += packing.repack(matrix)
            matrix._drop_empty_rows()

    def _may_fit(self, waiting: list[Job], room: int, long_room: int, first: int = 0
                 ) -> list[tuple[int, Job]]:
        """The waiting jobs a pass looks at, with their positions in the queue: with
        first-fit backfilling only those from position ``first`` (:meth:`_first_new`) no
        wider than ``room``, or ``long_room`` for a long job (both only shrink during a
        pass, so a wider job is passed over anyway); otherwise every one (the first that
        does not fit stops the queue or gets the reservation)."""
        if self.backfill != "first-fit":
            return list(enumerate(waiting))
        jobs = enumerate(waiting[first:] if first else waiting, first)
        if long_room < room:
            is_long, long_of = self._is_long, self._long_of
            return [(position, job) for position, job in jobs
                    if job.width <= long_room
                    or (job.width <= room
                        and not (long_of[job.id] if job.id in long_of else is_long(job)))]
        return [(position, job) for position, job in jobs if job.width <= room]

    def _first_new(self, waiting: list[Job], room: int, long_room: int) -> int:
        """The queue position from which a first-fit pass must look.  Every job the last
        pass left waiting is wider than the widest spot it left (``room``; a long job than
        the widest outside the long jobs' processors, ``long_room``): a job no wider finds
        a spot at once.  While the widest spots now are no wider (no job left since, or
        those that left freed too little), the pass would pass over them all, and only the
        jobs that came since are looked at.  The jobs it left are then the head of the
        queue, which ends with the last of them at the same position."""
        left, last, widest, widest_long = self._queue_left
        if (left and room <= widest and long_room <= widest_long and len(waiting) >= left
                and waiting[left - 1].id == last):
            return left
        return 0

    @staticmethod
    def _left_behind(matrix: Matrix, waiting: list[Job], left: int, room: int,
                     long_room: int) -> tuple[int, int, int, int]:
        """What :meth:`_first_new` reads at the next pass: the ``left`` jobs this pass left
        waiting (none counted when windows were ahead: a job no wider than ``room`` may
        then have found no spot clear of them), the id of the last of them, the widest
        spots the pass left (any job, a long job)."""
        if matrix.windows_ahead:
            return _NONE_LEFT
        masks = matrix.masks
        return (left, next(job.id for job in reversed(waiting) if job.id not in masks), room,
                long_room)

    def is_express(self, job: Job) -> bool:
        """Strategy 3: a short job runs in the next slot, sized to complete it (§5)."""
        return self.strategy == 3 and self.classes.of(job) == SHORT

    def pack_express(self, jobs: list[Job], free: int) -> list[tuple[Job, int]]:
        """Strategy 3: waiting short jobs, first fit onto the free processors of a slot."""
        return packing.pack_express(jobs, free)

    def express_guests(self, matrix: Matrix, free: int, first: int) -> list[int]:
        """Matrix jobs that also run in an express slot (with ``switchable``, as guests do)."""
        return packing.express_guests(matrix, free, first) if self.switchable else []

    def _is_long(self, job: Job) -> bool:
        """Whether Strategy 2's rule applies to ``job``: a long job under Strategy 2 or 3
        (decided once per job: a queue is passed over at every round boundary)."""
        known = self._long_of.get(job.id)
        if known is None:
            known = self._long_of[job.id] = (self.strategy >= 2
                                             and self.classes.of(job) == LONG)
        return known

    def _long_processors(self, matrix: Matrix) -> int:
        """The processors holding a long job in any row (Strategy 2, §5): those of the long
        jobs this policy placed that are still in the matrix, gathered again only after
        one of them left (a job that left is in the journal since the last pass)."""
        journal = matrix.journal
        if len(journal) == self._journal_seen:
            return self._long_mask
        placed, masks = self._long_placed, matrix.masks
        ended = [job_id for job_id in journal[self._journal_seen:]
                 if job_id in placed and job_id not in masks]
        if ended:
            for job_id in ended:
                placed.pop(job_id, None)
            mask = 0
            for job_mask in placed.values():
                mask |= job_mask
            self._long_mask = mask
        return self._long_mask

    def statistics(self) -> dict[str, Any]:
        return {"repack_moves": self._moves, "backfilled": self._backfilled}

    # ------------------------------------------------ space-sharing engine
    def schedule(self, ctx: Context) -> None:
        raise PolicyError(f"policy {self.name!r} time-shares processors and runs on the "
                          f"time-sharing engine: use schedlab.api.run or schedlab.simulate")
