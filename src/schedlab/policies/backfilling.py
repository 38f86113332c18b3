"""Queue scheduling with no backfilling, EASY backfilling and conservative backfilling.

Each class takes an ordering (``fcfs``, ``sjf``, ``ljf``; see
:mod:`schedlab.policies.orderings`), so ``sjf+easy`` is ``EasyBackfilling(order="sjf")``.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies.base import Policy, check_choice
from schedlab.policies.orderings import ORDERINGS, in_order
from schedlab.policies.reservations import CatalinaReservations, decide_requests, queue_plan

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.workload.job import Job


class _Ordered(Policy):
    """A policy parameterised by a queue ordering."""

    family = ""

    def __init__(self, *, order: str = "fcfs") -> None:
        check_choice(type(self).__name__, "order", order, ORDERINGS)
        self.order = order

    @property
    def name(self) -> str:
        return self.order if self.family == "none" else f"{self.order}+{self.family}"


class NoBackfilling(_Ordered):
    """Start jobs strictly in queue order; stop at the first one that does not fit.

    The plain list schedulers FCFS, SJF and LJF (Streit 2002, §2) without any
    backfilling: a wide job at the head blocks everything behind it.
    """

    family = "none"

    def schedule(self, ctx: Context) -> None:
        waiting = ctx.waiting
        if self.order == "fcfs":
            while waiting:
                head = next(iter(waiting.values()))
                if head.width > ctx.free:
                    return
                ctx.start(head)
            return
        for job in in_order(waiting.values(), self.order):
            if job.width > ctx.free:
                return
            ctx.start(job)


def shadow_and_extra(ctx: Context, width: int) -> tuple[int, int]:
    """EASY's reservation for a job of ``width`` that does not fit now.

    The shadow time is the earliest expected end (by estimates) at which at
    least ``width`` processors are free; the extra processors are those free
    at the shadow time beyond ``width``, counting *every* running job whose
    expected end is at or before the shadow time — several may end exactly
    at it (Lifka 1995; Skovira et al. 1996; Mu'alem & Feitelson 2001, §2).
    """
    available = ctx.free
    shadow = -1
    for end, released in ctx.releases():
        if shadow >= 0 and end > shadow:
            break
        available += released
        if shadow < 0 and available >= width:
            shadow = end
    return shadow, available - width


def out_of_reach(ctx: Context, queue: list[Job], reserved_from: int) -> bool:
    """Whether an EASY pass over ``queue`` cannot touch a reservation starting at ``reserved_from``.

    Every job the pass could start ends (by its estimate) by ``now`` plus
    the longest waiting estimate.  The head's reservation starts at its
    shadow time after those starts, which is no later than the larger of
    its shadow time now and that bound (by then every job started in the
    pass has ended), and lasts its estimate.  If all of that ends by
    ``reserved_from``, the profile with the reservation equals the one
    without it wherever the pass looks, so the shadow-time rule decides
    exactly as EASY on the profile would (Margo et al. reservations; a
    hypothesis property of the tests).
    """
    reach = ctx.now + max(job.estimate for job in queue)
    if reach > reserved_from:
        return False
    free = ctx.free
    for job in queue:
        if job.width > free:
            shadow, _ = shadow_and_extra(ctx, job.width)
            return max(shadow, reach) + job.estimate <= reserved_from
        free -= job.width
    return True


def easy_pass(ctx: Context, queue: Sequence[Job]) -> None:
    """One EASY pass over ``queue`` (already in priority order); see :class:`EasyBackfilling`.

    Shared by every EASY-style policy (any ordering, EDF), so the head's
    protection rule exists once.
    """
    position = 0
    for job in queue:
        if job.width > ctx.free:
            break
        ctx.start(job)
        position += 1
    if position == len(queue) or ctx.free == 0:
        return
    shadow, extra = shadow_and_extra(ctx, queue[position].width)
    now = ctx.now
    free = ctx.free
    for job in queue[position + 1:]:
        width = job.width
        if width > free:
            continue
        if now + job.estimate <= shadow:
            ctx.start(job)
        elif width <= extra:
            ctx.start(job)
            extra -= width
        else:
            continue
        free -= width
        if free == 0:
            return


class EasyBackfilling(CatalinaReservations, _Ordered):
    """EASY backfilling: only the first waiting job that cannot start gets a reservation.

    Jobs start from the head of the ordered queue while they fit.  The first
    one that does not fit gets a reservation at the shadow time
    (:func:`shadow_and_extra`).  Every later job, in queue order, starts now
    if it fits in the free processors and either ends by its estimate no
    later than the shadow time (intervals are half-open, so ending exactly at
    it is allowed) or uses no more than the remaining extra processors.
    The reservation is recomputed at every pass, so an early finish moves it
    forward at once (Lifka 1995; Mu'alem & Feitelson 2001, §2).

    With advance reservations granted (Margo et al.) the same rules run on
    an availability profile that holds them (:meth:`_backfill_around`) —
    unless no reservation still to come is within reach of any job this
    pass could start or reserve (:func:`out_of_reach`): then the shadow
    time alone decides.  Reservation requests are decided first,
    against the plan that gives every waiting job a reservation
    (:func:`~schedlab.policies.reservations.queue_plan`).
    """

    family = "easy"

    def __init__(self, *, order: str = "fcfs", **reservation: Any) -> None:
        super().__init__(order=order)
        self.init_reservation_params(**reservation)

    def schedule(self, ctx: Context) -> None:
        if ctx.reservations_enabled:
            queue = self._around_reservations(ctx)
            if queue is None:
                return
        elif ctx.free == 0 or not ctx.waiting:
            return
        else:
            queue = in_order(ctx.waiting.values(), self.order)
        easy_pass(ctx, queue)

    def _around_reservations(self, ctx: Context) -> list[Job] | None:
        """Decide pending requests, then schedule around reservations if they are in reach.

        Returns the ordered queue when the plain shadow-time rule is exact —
        no reservation still to come is in reach of this pass
        (:func:`out_of_reach`; reservations holding processors now are among
        the releases either way) — and None when the pass is done.
        """
        if ctx.pending_requests:
            decide_requests(ctx, queue_plan(ctx, in_order(ctx.waiting.values(), self.order)),
                            self.reservation_rules)
        if ctx.free == 0 or not ctx.waiting:
            return None
        queue = in_order(ctx.waiting.values(), self.order)
        reserved_from = ctx.next_reservation_start()
        if reserved_from is None or out_of_reach(ctx, queue, reserved_from):
            return queue
        self._backfill_around(ctx, queue)
        return None

    @staticmethod
    def _backfill_around(ctx: Context, queue: list[Job]) -> None:
        """EASY on a profile that holds the granted reservations (Margo et al., §2).

        A job may start now only if its processors stay free until its
        expected end (now + estimate) — no job runs into a reservation.  The
        first job that cannot start gets the earliest start where it fits
        (its shadow time, reservations accounted for) and is reserved there;
        every later job starts if it fits now around all of that.  Without
        reservations this is exactly the shadow-time / extra-processors rule:
        on a profile of running jobs alone the free processors only grow, so
        a job fits until the shadow time iff it fits now, and beyond it iff
        it also fits in the extra processors.  The profile is built only
        once some job fits in the processors free now; each candidate is
        checked with one bisection (:class:`~schedlab.engine.profile.FitLimits`).
        """
        free = ctx.free
        if all(job.width > free for job in queue):
            return
        profile = ctx.profile()
        limits = profile.fit_limits()
        now = ctx.now
        position = 0
        for job in queue:
            if job.width > ctx.free or not limits.fits(job.width, job.estimate):
                break
            ctx.start(job)
            profile.reserve(now, job.estimate, job.width)
            limits = profile.fit_limits()
            position += 1
        if position == len(queue) or ctx.free == 0:
            return
        head = queue[position]
        profile.place(head.width, head.estimate, now)
        limits = profile.fit_limits()
        for job in queue[position + 1:]:
            if job.width > ctx.free or not limits.fits(job.width, job.estimate):
                continue
            ctx.start(job)
            if ctx.free == 0:
                return
            profile.reserve(now, job.estimate, job.width)
            limits = profile.fit_limits()


class ConservativeBackfilling(CatalinaReservations, _Ordered):
    """Conservative backfilling: every job gets a reservation when it arrives.

    The policy keeps an availability :class:`~schedlab.engine.profile.Profile`
    of running jobs (until their expected ends) and of every waiting job's
    reservation.  An arriving job is booked at the earliest time it fits
    without moving any existing reservation; it starts when that time comes.
    When a job ends before its expected end, the waiting jobs are re-placed
    one at a time in queue order (for ``fcfs``, arrival order): each gives up
    its slot and takes the earliest fit from now, which is never later than
    the slot it gave up (Mu'alem & Feitelson 2001, §2; Feitelson & Weil 1998).

    Under ``overrun="extend"`` a job can hold its processors past its
    expected end, so a booked start may not be possible when it comes; then
    the whole plan is rebuilt from the machine as it is, in queue order, and
    the "never later" promise does not hold for the jobs it moves.  The same
    happens when a booked start passes between two scheduling ticks.

    Granted advance reservations are booked in the same profile, so jobs are
    placed around them; a request is decided after every waiting job has
    its reservation (Catalina, Margo et al., §2).
    """

    family = "conservative"

    def __init__(self, *, order: str = "fcfs", **reservation: Any) -> None:
        super().__init__(order=order)
        self.init_reservation_params(**reservation)
        self._profile: Profile | None = None
        self._booked_start: dict[int, int] = {}
        self._booked_end: dict[int, int] = {}
        self._arrival: dict[int, int] = {}          # waiting job id -> arrival number
        self._columns = _QueueColumns()
        self._bookings: list[tuple[int, int, int]] = []   # heap of (start, arrival, job id)
        self._compress_pending = False
        self._wake = -1

    def on_submit(self, ctx: Context, job: Job) -> None:
        profile = self._current_profile(ctx)
        start = profile.place(job.width, job.estimate, ctx.now)
        self._arrival[job.id] = self._columns.add(job)
        self._book(job.id, start)
        ctx.plan(job, start)

    def on_finish(self, ctx: Context, job: Job) -> None:
        booked_end = self._booked_end.pop(job.id)
        if booked_end > ctx.now:
            profile = self._profile_from_now(ctx)
            profile.release(ctx.now, booked_end - ctx.now, job.width)
            self._compress_pending = True

    def schedule(self, ctx: Context) -> None:
        profile = self._current_profile(ctx)
        now = ctx.now
        booked = self._booked_start
        upcoming = self._next_booking()
        due: list[Job] = []
        if upcoming is not None and upcoming <= now:     # most passes start nothing
            due = self._pop_due(ctx)
            if any(booked[job.id] < now for job in due) or sum(j.width for j in due) > ctx.free:
                self._rebuild(ctx)
                due = self._pop_due(ctx)
                profile = self._profile
        if ctx.pending_requests:
            decide_requests(ctx, profile, self.reservation_rules)
        for job in due:
            del booked[job.id]
            self._columns.started(self._arrival.pop(job.id))
            self._booked_end[job.id] = now + job.estimate
            ctx.start(job)
        if upcoming is not None and upcoming <= now:     # the bookings changed
            upcoming = self._next_booking()
        self._wake_for_booking(ctx, upcoming)

    def _book(self, job_id: int, start: int) -> None:
        """Book a waiting job at ``start`` (replacing its booking, if any).

        The replaced entry stays in the heap until it comes to the top; when
        such entries outnumber the bookings, the heap is built anew, so it
        never holds more than twice the waiting jobs.
        """
        arrival = self._arrival[job_id]
        self._booked_start[job_id] = start
        self._columns.starts[arrival] = start
        heappush(self._bookings, (start, arrival, job_id))
        self._trim_bookings()

    def _rebook(self, moves: list[int]) -> None:
        """Book the jobs a compression moved: ``moves`` is job id, new start, job id, ...

        The compiled pass has written the new starts into the queue columns.
        """
        booked, arrival, bookings = self._booked_start, self._arrival, self._bookings
        for job_id, start in zip(moves[::2], moves[1::2]):
            booked[job_id] = start
            heappush(bookings, (start, arrival[job_id], job_id))
        self._trim_bookings()

    def _trim_bookings(self) -> None:
        """Build the heap anew once replaced entries outnumber the bookings."""
        booked = self._booked_start
        if len(self._bookings) > 2 * len(booked) + 64:
            arrival = self._arrival
            self._bookings = [(at, arrival[waiting], waiting) for waiting, at in booked.items()]
            heapify(self._bookings)

    def _next_booking(self) -> int | None:
        """The earliest booked start (None: nothing booked).

        The heap keeps the entries of bookings since replaced; they are
        dropped when they come to the top, so finding the earliest booking
        costs a logarithm, not a look at every waiting job.
        """
        bookings, booked = self._bookings, self._booked_start
        while bookings:
            start, _, job_id = bookings[0]
            if booked.get(job_id) == start:
                return start
            heappop(bookings)
        return None

    def _pop_due(self, ctx: Context) -> list[Job]:
        """Take the bookings that have come (start <= now) off the heap; their jobs in arrival order."""
        bookings, booked = self._bookings, self._booked_start
        now = ctx.now
        due = []
        while bookings and bookings[0][0] <= now:
            start, arrival, job_id = heappop(bookings)
            if booked.get(job_id) == start:
                due.append((arrival, job_id))
        due.sort()
        return [ctx.waiting[job_id] for _, job_id in due]

    def _wake_for_booking(self, ctx: Context, upcoming: int | None) -> None:
        """Ask for a pass at the next booked start (``upcoming``; None: nothing booked).

        Most booked starts coincide with an expected end, hence with an event,
        but not all: compression moves jobs one at a time, so a job may stay
        booked behind the old slot of a job re-placed after it.
        """
        if upcoming is not None and upcoming != self._wake and upcoming > ctx.now:
            self._wake = upcoming
            ctx.wake_at(upcoming)

    def _profile_from_now(self, ctx: Context) -> Profile:
        """The profile with the past forgotten."""
        if self._profile is None:
            self._profile = Profile(ctx.processors, ctx.now)
        self._profile.discard_before(ctx.now)
        return self._profile

    def _current_profile(self, ctx: Context) -> Profile:
        """The profile from now, compressed once if jobs ended early since the last look."""
        profile = self._profile_from_now(ctx)
        if self._compress_pending:
            self._compress_pending = False
            self._compress(ctx, profile)
        return profile

    def _compress(self, ctx: Context, profile: Profile) -> None:
        """Re-place every waiting job, in queue order, at its earliest fit (never later).

        One call of the compiled pass (:mod:`schedlab.policies.compression`,
        imported at the first compression); each job's search starts where
        the jobs checked just before it prove that no earlier start can
        work, so the starts are exactly those of a scan from ``now``.
        """
        from schedlab.policies.compression import compress

        columns = self._columns
        if self.order == "fcfs":
            order = columns.from_oldest()
        else:
            arrival = self._arrival
            order = np.array([arrival[job.id] for job in in_order(ctx.waiting.values(), self.order)
                              if job.id in arrival], np.int64)
        moves = compress(profile, ctx.now, order, columns.ids, columns.widths,
                         columns.estimates, columns.starts)
        self._rebook(moves)

    def _rebuild(self, ctx: Context) -> None:
        """Plan again from the machine as it is (only needed after an overrun)."""
        profile = ctx.profile()
        self._booked_end = {job.id: ctx.expected_end(job) for job in ctx.running.values()}
        self._bookings = []
        for job in in_order(ctx.waiting.values(), self.order):
            self._book(job.id, profile.place(job.width, job.estimate, ctx.now))
        self._profile = profile
        ctx.count("plan_rebuilds")


class _QueueColumns:
    """The waiting jobs of a conservative plan as arrays indexed by arrival number.

    Job ids, widths, estimates and booked starts (-1 once started), kept
    up to date at every booking, so a compression hands the compiled pass
    its queue without a conversion per job.  In arrival order the queue is
    the fcfs order: the arrivals from the oldest still waiting on.
    """

    __slots__ = ("ids", "widths", "estimates", "starts", "arrived", "oldest")

    def __init__(self) -> None:
        self.ids = np.empty(1024, np.int64)
        self.widths = np.empty(1024, np.int64)
        self.estimates = np.empty(1024, np.int64)
        self.starts = np.empty(1024, np.int64)
        self.arrived = 0
        self.oldest = 0

    def add(self, job: Job) -> int:
        """Take an arriving job (not booked yet); its arrival number."""
        arrival = self.arrived
        if arrival == len(self.ids):
            for name in ("ids", "widths", "estimates", "starts"):
                column = getattr(self, name)
                setattr(self, name, np.concatenate((column, np.empty_like(column))))
        self.ids[arrival] = job.id
        self.widths[arrival] = job.width
        self.estimates[arrival] = job.estimate
        self.starts[arrival] = -1
        self.arrived = arrival + 1
        return arrival

    def started(self, arrival: int) -> None:
        self.starts[arrival] = -1

    def from_oldest(self) -> np.ndarray:
        """The arrival numbers from the oldest job still waiting on (started ones among them)."""
        oldest, starts = self.oldest, self.starts
        while oldest < self.arrived and starts[oldest] < 0:
            oldest += 1
        self.oldest = oldest
        return np.arange(oldest, self.arrived)
