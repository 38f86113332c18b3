"""Queue scheduling with no backfilling, EASY backfilling and conservative backfilling.

Each class takes an ordering (``fcfs``, ``sjf``, ``ljf``; see
:mod:`schedlab.policies.orderings`), so ``sjf+easy`` is ``EasyBackfilling(order="sjf")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.policies.base import Policy, check_choice
from schedlab.policies.orderings import ORDERINGS, in_order
from schedlab.policies.predicting import PredictedRuntimes
from schedlab.policies.reservations import CatalinaReservations, decide_requests, queue_plan
from schedlab.workload.job import Job

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.outages import OutageEvent
    from schedlab.policies.compression import ArrayPlan


class _Ordered(Policy):
    """A policy parameterised by a queue ordering, named ``ORDER+FAMILY`` (``sjf+easy``),
    or just ``ORDER`` without backfilling."""

    family = ""

    def __init__(self, *, order: str = "fcfs") -> None:
        check_choice(type(self).__name__, "order", order, ORDERINGS)
        self.order = order
        self.name = order if self.family == "none" else f"{order}+{self.family}"


class NoBackfilling(_Ordered):
    """Start jobs strictly in queue order; stop at the first one that does not fit.

    The plain list schedulers FCFS, SJF and LJF (Streit 2002, §2) without any
    backfilling: a wide job at the head blocks everything behind it.
    """

    family = "none"

    def starts_in_arrival_order(self) -> bool:
        """FCFS itself: the waiting queue is kept in arrival order, so its head is FCFS's
        (a subclass, which may change a reaction, takes the event loop)."""
        return self.order == "fcfs" and type(self) is NoBackfilling

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
    return shadow_of(ctx.free, ctx.releases(), width)


def shadow_of(free: int, releases: Iterable[tuple[int, int]], width: int) -> tuple[int, int]:
    """:func:`shadow_and_extra` from ``free`` processors and ``(end, width)`` releases in
    end order."""
    available = free
    shadow = -1
    for end, released in releases:
        if shadow >= 0 and end > shadow:
            break
        available += released
        if shadow < 0 and available >= width:
            shadow = end
    return shadow, available - width


def shadow_moved(ctx: Context, job: Job, previous_end: int, width: int) -> bool:
    """Whether a correction moved the shadow time of a blocked job of ``width`` later.

    Before it, ``job`` was to end at ``previous_end`` (a time already reached:
    "soon", ``now + 1``, the earliest release); now it ends at its corrected
    expected end.  The shadow time moves later iff the job no longer ends by
    the shadow time it had and the blocked job needed some of its processors
    then (fewer extra processors than the job's width).  One walk over
    :meth:`~schedlab.engine.context.Context.releases`, the corrected job's
    release counted at ``previous_end`` instead (:func:`shadow_of`'s loop).
    """
    now = ctx.now
    corrected = (ctx.expected_end(job), job.width)
    released_first = max(previous_end, now + 1)
    available = ctx.free + job.width
    shadow = released_first if available >= width else -1
    skipped = False
    for release in ctx.releases():
        end = release[0]
        if shadow >= 0 and end > shadow:
            break
        if not skipped and release == corrected:
            skipped = True
            continue
        available += release[1]
        if shadow < 0 and available >= width:
            shadow = end
    return corrected[0] > shadow and available - width < job.width


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


#: The order EASY tries the jobs behind the first one that cannot start: the queue's
#: own, or shortest (planned) job backfilled first, as EASY++ does (Tsafrir, Etsion &
#: Feitelson 2007, §4).
BACKFILL_ORDERS = ("queue", "sjbf")
#: A job's planned runtime as the policy sees it (its ``estimate``), read in C for sorting:
#: by position, which a tuple answers faster than a named field.
_PLANNED_RUNTIME = itemgetter(Job._fields.index("estimate"))


def backfill_candidates(queue: list[Job], after: int, order: str) -> list[Job]:
    """The jobs behind ``queue[after]``, in the order backfilling tries them: the queue's,
    or by planned runtime (the job's ``estimate`` as the policy sees it) for ``sjbf``,
    queue order among equals (the slice sorted in place: no second list)."""
    rest = queue[after + 1:]
    if order == "sjbf":
        rest.sort(key=_PLANNED_RUNTIME)
    return rest


class HeadReservation:
    """EASY's reservation for the first waiting job that cannot start, as a pass leaves it:
    the job and its width, its shadow time and the extra processors no backfilled job has
    taken (:func:`backfill_choices` keeps it up to date as it hands out jobs); and, filled
    in by :class:`EasyBackfilling`, the processors free and the number of jobs waiting when
    the pass ended (:meth:`EasyBackfilling._backfill_arrivals`)."""

    __slots__ = ("extra", "free", "job", "queued", "shadow", "width")

    def __init__(self) -> None:
        self.width = self.shadow = self.extra = self.free = self.queued = 0
        self.job: Job | None = None


def easy_pass(ctx: Context, queue: list[Job], backfill_order: str = "queue",
              reservation: HeadReservation | None = None) -> HeadReservation | None:
    """One EASY pass over ``queue`` (already in priority order); see :class:`EasyBackfilling`.

    Shared by every EASY-style policy (any ordering, EDF), so the head's
    protection rule exists once; ``backfill_order`` is :data:`BACKFILL_ORDERS`'.
    Given a ``reservation``, returns it as the pass leaves the head's
    reservation, or None when the pass ended with no blocked head or no
    processor free.
    """
    blocked = start_heads(ctx, queue)
    if blocked == len(queue) or ctx.free == 0:
        return None
    if reservation is not None:
        reservation.job = head = queue[blocked]
        reservation.width = head.width
    for job in backfill_choices(ctx, queue, blocked, backfill_order, reservation):
        ctx.start(job)
    return reservation


def start_heads(ctx: Context, queue: Sequence[Job]) -> int:
    """Start jobs from the head of ``queue`` while they fit; the position of the first one
    that does not (``len(queue)`` when every job started)."""
    position = 0
    for job in queue:
        if job.width > ctx.free:
            break
        ctx.start(job)
        position += 1
    return position


def backfill_choices(ctx: Context, queue: list[Job], blocked: int,
                     backfill_order: str = "queue",
                     reservation: HeadReservation | None = None, *,
                     known: bool = False) -> Iterator[Job]:
    """The jobs EASY backfills behind ``queue[blocked]``, the first job that cannot start,
    one at a time.

    Each job given may start now without delaying the blocked job's
    reservation (:func:`shadow_and_extra`): it fits in the free processors
    and either ends by its estimate no later than the shadow time or uses no
    more than the extra processors left.  The caller starts it or not
    (:func:`easy_pass` starts every one; the learned ``schedlab/Backfill``
    environment asks an agent); the next one is chosen on the machine as it
    then is.  Starting a job the shadow rule admits leaves the shadow time
    where it was, so asking again after each start gives the same jobs as
    one pass.  ``reservation``, when given, is kept at the head's shadow time and
    the extra processors left; ``known``: it holds them already, found by an
    earlier pass on the same machine (:meth:`EasyBackfilling._backfill_arrivals`).
    """
    if not known:
        shadow, extra = shadow_and_extra(ctx, queue[blocked].width)
        if reservation is not None:
            reservation.shadow, reservation.extra = shadow, extra
    else:
        assert reservation is not None               # known: the reservation holds them
        shadow, extra = reservation.shadow, reservation.extra
    now = ctx.now
    waiting = ctx.waiting
    for job in backfill_candidates(queue, blocked, backfill_order):
        width = job.width
        if width > ctx.free:
            continue
        if now + job.estimate <= shadow:
            yield job
        elif width <= extra:
            yield job
            if job.id not in waiting:
                extra -= width
                if reservation is not None:
                    reservation.extra = extra
        else:
            continue
        if ctx.free == 0:
            return


class EasyBackfilling(PredictedRuntimes, CatalinaReservations, _Ordered):
    """EASY backfilling: only the first waiting job that cannot start gets a reservation.

    Jobs start from the head of the ordered queue while they fit.  The first
    one that does not fit gets a reservation at the shadow time
    (:func:`shadow_and_extra`).  Every later job, in queue order, starts now
    if it fits in the free processors and either ends by its estimate no
    later than the shadow time (intervals are half-open, so ending exactly at
    it is allowed) or uses no more than the remaining extra processors.
    The reservation is recomputed at every pass, so an early finish moves it
    forward at once (Lifka 1995; Mu'alem & Feitelson 2001, §2); a pass with
    nothing but arrivals since one that left the head blocked finds it where
    that pass left it, and looks at the arrivals alone (:meth:`_backfill_arrivals`).

    With advance reservations granted (Margo et al.) the same rules run on
    an availability profile that holds them (:meth:`_backfill_around`) —
    unless no reservation still to come is within reach of any job this
    pass could start or reserve (:func:`out_of_reach`): then the shadow
    time alone decides.  Reservation requests are decided first,
    against the plan that gives every waiting job a reservation
    (:func:`~schedlab.policies.reservations.queue_plan`).
    """

    family = "easy"

    def __init__(self, *, order: str = "fcfs", predictor: str = "estimate",
                 backfill_order: str = "queue", **reservation: Any) -> None:
        super().__init__(order=order)
        check_choice(self.name, "backfill_order", backfill_order, BACKFILL_ORDERS)
        self.backfill_order = backfill_order
        #: The head's reservation as the last pass left it (None: it left none); the one
        #: object every pass fills.
        self._left: HeadReservation | None = None
        self._reservation = HeadReservation()
        #: Whether nothing but arrivals, and corrections that leave the head's reservation
        #: exact, can have happened since the last pass, which left that reservation
        #: (cleared by any other correction, an outage or a cancellation): the next pass
        #: may look at the arrivals alone (:meth:`_backfill_arrivals`).
        self._arrivals_only = False
        #: Whether a run's expected ends stay as a pass saw them until an event moves them
        #: and its passes see the queue as it is (fcfs order, jobs killed at their
        #: estimates, no grace, no advance reservations): set at the first pass over the
        #: queue.  On estimates, a run where they do not keeps nothing between passes.
        self._ends_hold: bool | None = None
        self.init_predictor(predictor)
        self.init_reservation_params(**reservation)

    def schedule(self, ctx: Context) -> None:
        if self._arrivals_only:
            kept = self._reservation
            if len(ctx.waiting) > kept.queued and ctx.free == kept.free and kept.free:
                self._backfill_arrivals(ctx)
                return
            self._arrivals_only = False
        if ctx.reservations_enabled:
            self._left = None
            queue = self._around_reservations(ctx)
            if queue is None:
                return
        elif ctx.free == 0 or not ctx.waiting:
            self._left = None
            return
        else:
            queue = in_order(ctx.waiting.values(), self.order)
        ends_hold = self._ends_hold
        if ends_hold is None:
            ends_hold = self._ends_hold = (self.order == "fcfs" and ctx.overrun == "kill"
                                           and not ctx.kill_grace
                                           and not ctx.reservations_enabled)
        if not ends_hold and self.runtime_planner is None:
            easy_pass(ctx, queue, self.backfill_order)    # nothing kept for the next pass
            return
        left = self._left = easy_pass(ctx, queue, self.backfill_order, self._reservation)
        if left is not None:
            left.free, left.queued = ctx.free, len(ctx.waiting)
            self._arrivals_only = ends_hold

    def forget_between_passes(self) -> None:
        """Keep nothing from one pass to the next: every pass looks at the whole queue.

        For a caller that makes EASY's pass among other policies' passes and does not tell
        it of every event (``schedlab/PickPolicy``): a pass over the arrivals alone
        (:meth:`_backfill_arrivals`) needs the last pass to have been EASY's and every
        outage and cancellation since to have been heard.
        """
        self._ends_hold = False

    def _backfill_arrivals(self, ctx: Context) -> None:
        """Make the pass by looking only at the jobs that arrived since the last one, with
        the head's reservation that pass left.

        Called (by :meth:`schedule`) when nothing but arrivals can have happened since the
        last pass, which left the head's reservation (``_arrivals_only``: no outage or
        cancellation since, and no correction but those that left the reservation exact,
        :meth:`on_correction`, in a run where an expected end moves only by an event),
        some job has arrived since, and the processors free are those that pass left, not
        none (otherwise the whole queue is looked at). No job left the
        queue (only a pass starts one), so the head is the one that pass left blocked and
        the arrivals are the jobs behind the ones it saw. If the processors free are still
        those that pass left, no job ended either, so the shadow time and the extra
        processors are those the reservation holds. Every job it passed over is passed over
        again: it is still wider than the free processors, or still ends after the shadow
        time (later now) and is wider than the extra processors, which are no more than
        they were; so is every job it never looked at (no processor left). The head still
        does not fit. So backfilling the arrivals alone, behind the head, with the shadow
        time and extra processors the reservation holds, starts what a pass over the
        whole queue would, in the same order: the arrivals keep their order among
        themselves in either backfill order (fcfs: they are at the tail of
        ``ctx.waiting``). The reservation is left as that pass would leave it.
        """
        left = self._reservation
        waiting = ctx.waiting
        arrived = len(waiting) - left.queued
        if arrived == 1:                          # the usual case: one job since
            self._backfill_one(ctx, left, next(reversed(waiting.values())))
        else:
            head = left.job
            assert head is not None               # set by the pass that left it
            queue = list(islice(reversed(waiting.values()), arrived))
            queue.append(head)
            queue.reverse()
            for job in backfill_choices(ctx, queue, 0, self.backfill_order, left, known=True):
                ctx.start(job)
        left.free, left.queued = ctx.free, len(waiting)

    @staticmethod
    def _backfill_one(ctx: Context, left: HeadReservation, job: Job) -> None:
        """:func:`backfill_choices` behind ``left.job`` with the one candidate ``job``,
        ``left`` known (the free processors are ``left.free``): the shadow rule decided in
        place, with no list, generator, slice or sort (15,657 of EASY++'s 15,819
        arrivals-only passes on KTH-SP2 have one arrival)."""
        width = job.width
        if width > left.free:
            return
        if ctx.now + job.estimate <= left.shadow:
            ctx.start(job)
        elif width <= left.extra:
            ctx.start(job)
            left.extra -= width

    def idle_after_corrections(self, ctx: Context) -> bool:
        """Whether a pass now would start nothing, when only corrections happened since the
        last one (the engine then skips it; :meth:`Policy.idle_after_corrections`).

        A correction only moves a running job's expected end later; the queue
        and the free processors are those the last pass left, and a pass run
        again on them starts nothing (:func:`backfill_choices`).  With no job
        waiting or no processor free this one starts nothing either.  Else, if
        the blocked head's shadow time is where the last pass left it (the
        extra processors, less the width of every job corrected from ending by
        it to ending after it, are still >= 0: :meth:`on_correction`), every
        job that pass passed over still ends after the shadow time (it is
        later now) and is still wider than the extra processors, which are no
        more than they were, so it is passed over again.
        """
        if not ctx.waiting or ctx.free == 0:
            return True
        left = self._left
        return left is not None and left.extra >= 0

    def on_correction(self, ctx: Context, job: Job, previous_end: int) -> None:
        """Count the reservation a correction breaks: the first waiting job's shadow time
        moves later than it was with ``job`` ending at ``previous_end`` as planned
        (statistic ``broken_reservations``).  Keeps the head's reservation the last pass
        left (:meth:`idle_after_corrections`): a job that was to end by its shadow
        time and now ends after it takes its width from the extra processors.

        When that reservation is the head's now (:meth:`_reservation_is_current`), it
        answers in O(1): the shadow time moves iff the job now ends after it and the
        extra processors were fewer than its width (what :func:`shadow_moved` finds by
        a walk over the releases, which every other correction takes).  The reservation
        is then exact, so the next pass may still look at the arrivals alone
        (:meth:`_backfill_arrivals`), unless the shadow time moved; then the pass comes
        at once, with no arrival, over the whole queue.  After any other correction the
        next pass looks at the whole queue.
        """
        left = self._left
        if left is not None and previous_end <= left.shadow < ctx.expected_end(job):
            extra = left.extra
            left.extra = extra - job.width
            if extra >= 0 and self._reservation_is_current(ctx, left):
                if extra < job.width:
                    ctx.count("broken_reservations")
                return
        elif left is not None and left.extra >= 0 and self._reservation_is_current(ctx, left):
            return                                # it still ends by the shadow time
        self._arrivals_only = False
        waiting = ctx.waiting
        if not waiting:
            return
        head = (next(iter(waiting.values())) if self.order == "fcfs"
                else in_order(waiting.values(), self.order)[0])
        if head.width <= ctx.free:
            return
        if shadow_moved(ctx, job, previous_end, head.width):
            ctx.count("broken_reservations")

    def on_cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job left the queue: the next pass looks at the whole queue."""
        self._arrivals_only = False

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        """Capacity changed (jobs may have been queued again): the next pass looks at the
        whole queue."""
        self._arrivals_only = False

    @staticmethod
    def _reservation_is_current(ctx: Context, left: HeadReservation) -> bool:
        """Whether ``left``, the reservation the last pass left with its extra processors
        still >= 0, is the blocked head's shadow time and extra processors now, as
        :func:`shadow_moved` would find them with the job being corrected still counted
        at its previous end.

        It is when nothing but corrections happened since that pass
        (``ctx.corrections_only``: the queue, the free processors and every other
        release are as the pass left them) and the shadow time is later than now: at
        ``now`` a release expected now is seen at ``now + 1`` ("soon",
        :meth:`~schedlab.engine.context.Context.releases`), which moves a shadow time of
        ``now`` but no later one.  In such a run every running job is expected to end at
        or after now (killed at its estimate, no grace, no outages: a job expected to end
        earlier has ended, at an instant with a pass, or been corrected later), so the
        releases by the shadow time are those the pass counted.
        """
        return ctx.corrections_only and left.shadow > ctx.now

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

    def _backfill_around(self, ctx: Context, queue: list[Job]) -> None:
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
        for job in backfill_candidates(queue, position, self.backfill_order):
            if job.width > ctx.free or not limits.fits(job.width, job.estimate):
                continue
            ctx.start(job)
            if ctx.free == 0:
                return
            profile.reserve(now, job.estimate, job.width)
            limits = profile.fit_limits()


class ConservativeBackfilling(PredictedRuntimes, CatalinaReservations, _Ordered):
    """Conservative backfilling: every job gets a reservation when it arrives.

    The policy keeps an availability profile of running jobs (until their
    expected ends) and of every waiting job's reservation, as the numpy
    arrays of a :class:`~schedlab.policies.compression.ArrayPlan` edited by
    compiled calls (the step function of a
    :class:`~schedlab.engine.profile.Profile`).  An arriving job is booked
    at the earliest time it fits without moving any existing reservation;
    it starts when that time comes.
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

    def __init__(self, *, order: str = "fcfs", predictor: str = "estimate",
                 **reservation: Any) -> None:
        super().__init__(order=order)
        self.init_predictor(predictor)
        self.init_reservation_params(**reservation)
        self._plan: ArrayPlan | None = None
        self._booked_end: dict[int, int] = {}
        self._arrival: dict[int, int] = {}          # waiting job id -> arrival number
        self._compress_pending = False
        self._wake = -1

    def on_submit(self, ctx: Context, job: Job) -> None:
        plan = self._current_plan(ctx)
        start = plan.place(job.width, job.estimate, ctx.now)
        arrival = self._arrival[job.id] = plan.add(job.id, job.width, job.estimate)
        plan.book(arrival, start)
        ctx.plan(job, start)

    def on_finish(self, ctx: Context, job: Job) -> None:
        booked_end = self._booked_end.pop(job.id)
        if booked_end > ctx.now:
            self._plan_from(ctx).release(ctx.now, booked_end - ctx.now, job.width)
            self._compress_pending = True

    def schedule(self, ctx: Context) -> None:
        plan = self._plan
        if plan is None or self._compress_pending:       # most passes find neither
            plan = self._current_plan(ctx)
        now = ctx.now
        due: list[Job] = []
        if plan.upcoming <= now:                  # most passes start nothing
            due = self._pop_due(ctx, plan)
            starts = plan.starts
            arrival = self._arrival
            if (any(starts[arrival[job.id]] < now for job in due)
                    or sum(j.width for j in due) > ctx.free):
                self._rebuild(ctx, plan)
                due = self._pop_due(ctx, plan)
        if ctx.pending_requests:
            profile = plan.profile()
            decide_requests(ctx, profile, self.reservation_rules)
            plan.load(profile)
        for job in due:
            plan.started(self._arrival.pop(job.id))
            self._booked_end[job.id] = now + job.estimate
            ctx.start(job)
        if plan.upcoming != self._wake:
            self._wake_for_booking(ctx, plan)

    def on_cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job was cancelled: its booking is given back, and the jobs behind it
        move up at the next pass, never later (the compression of an early end)."""
        plan = self._plan_from(ctx)
        arrival = self._arrival.pop(job.id)
        start = int(plan.starts[arrival])
        if start >= 0:
            plan.give_back(ctx.now, start, job.estimate, job.width)
        plan.started(arrival)              # no longer waiting: the walks drop it
        self._compress_pending = True

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        """Capacity changed: keep every booking the change leaves possible (our reading of
        conservative backfilling's promise under outages, docs/reference/events.md).

        A repair, a window's start and its end come when the plan expected them: it
        already gives the processors back (or holds them) then.  A failure takes its
        processors until its repair: when the plan has them free until then (the jobs
        it hit have given their bookings back), the failure is booked and nothing else
        moves; otherwise, when it queued a job it hit again (the job takes its place in
        the queue, not at its end), and at a window's notice, every waiting job is planned
        again from the machine as it is, in queue order.
        """
        if event.kind in ("repair", "window start", "window end"):
            return
        plan = self._plan_from(ctx)
        if event.kind == "failure" and not ctx.windows_claiming and \
                not any(job_id in ctx.waiting for job_id in event.hit):
            now, duration, width = ctx.now, event.end - ctx.now, event.processors
            start = plan.place(width, duration, now)
            if start == now:
                return
            plan.give_back(now, start, duration, width)
        self._rebuild(ctx, self._current_plan(ctx))

    def on_correction(self, ctx: Context, job: Job, previous_end: int) -> None:
        """A running job outlived its planned runtime: plan every waiting job again from
        the machine as it is, and count the reservations that moved later (statistic
        ``broken_reservations``)."""
        plan = self._current_plan(ctx)
        arrival = self._arrival
        booked = {job_id: int(plan.starts[a]) for job_id, a in arrival.items()}
        self._rebuild(ctx, plan)
        broken = sum(int(plan.starts[arrival[job_id]]) > start
                     for job_id, start in booked.items())
        if broken:
            ctx.count("broken_reservations", broken)

    def _pop_due(self, ctx: Context, plan: ArrayPlan) -> list[Job]:
        """The jobs whose booked start has come (start <= now), in arrival order."""
        ids, waiting = plan.ids, ctx.waiting
        return [waiting[int(ids[arrival])] for arrival in plan.pop_due(ctx.now)]

    def _wake_for_booking(self, ctx: Context, plan: ArrayPlan) -> None:
        """Ask for a pass at the plan's next booked start, if any.

        Most booked starts coincide with an expected end, hence with an event,
        but not all: compression moves jobs one at a time, so a job may stay
        booked behind the old slot of a job re-placed after it.
        """
        upcoming = plan.upcoming
        if upcoming != self._wake and ctx.now < upcoming < plan.NEVER:
            self._wake = upcoming
            ctx.wake_at(upcoming)

    def _plan_from(self, ctx: Context) -> ArrayPlan:
        """The plan, made at the first look (numba is imported then, not before)."""
        if self._plan is None:
            from schedlab.policies.compression import ArrayPlan
            self._plan = ArrayPlan(ctx.processors, ctx.now)
        return self._plan

    def _current_plan(self, ctx: Context) -> ArrayPlan:
        """The plan from now, compressed once if jobs ended early since the last look."""
        plan = self._plan_from(ctx)
        if self._compress_pending:
            self._compress_pending = False
            self._compress(ctx, plan)
        return plan

    def _compress(self, ctx: Context, plan: ArrayPlan) -> None:
        """Re-place every waiting job, in queue order, at its earliest fit (never later).

        One call of the compiled pass (:mod:`schedlab.policies.compression`);
        each job's search starts where the jobs checked just before it prove
        that no earlier start can work, so the starts are exactly those of a
        scan from ``now``.
        """
        if self.order == "fcfs":
            plan.compress(ctx.now)
            return
        arrival = self._arrival
        plan.compress(ctx.now, np.array([arrival[job.id] for job in
                                         in_order(ctx.waiting.values(), self.order)
                                         if job.id in arrival], np.int64))

    def _rebuild(self, ctx: Context, plan: ArrayPlan) -> None:
        """Plan again from the machine as it is (only needed after an overrun)."""
        profile = ctx.profile()
        self._booked_end = {job.id: ctx.expected_end(job) for job in ctx.running.values()}
        plan.forget_bookings()
        arrival = self._arrival
        for job in in_order(ctx.waiting.values(), self.order):
            plan.book(arrival[job.id], profile.place(job.width, job.estimate, ctx.now))
        plan.load(profile)
        ctx.count("plan_rebuilds")
