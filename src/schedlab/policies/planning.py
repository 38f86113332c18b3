"""Planning-based scheduling: the full schedule of CCS / MuPSSiE (Streit 2002, §5).

The scheduler keeps a plan with a proposed start time for every waiting job:

* a submitted job is placed into the plan at once, at the earliest time it
  fits around the running jobs and every job already planned, and that time
  is promised to it (``planned_start`` in jobs.csv is this first promise);
* every time a job ends the whole plan is rebuilt: first the running jobs
  (until their expected ends, by estimates), then the waiting jobs one by
  one in the order of the policy, each at the earliest time it fits;
* a job whose proposed start has come starts.

This is what Streit calls FCFS, SJF and LJF "with conservative backfilling"
(§3.1).  How it differs from :class:`~schedlab.policies.backfilling.ConservativeBackfilling`
is written down in docs/reference/policies/planning.md: a rebuild may move a planned
job *later* (an SJF rebuild puts a short newcomer first), while conservative
backfilling only ever moves a reservation earlier.

:class:`PlanningScheduler` is also the base of dynP (:mod:`schedlab.policies.dynp`),
whose self-tuning step replaces the plan by the best of several candidate
schedules built with :func:`place_in_order`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from heapq import heapify, heappop, heappush
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies.base import Policy, check_choice
from schedlab.policies.orderings import ORDERINGS, TIMED_ORDERINGS, in_order_at
from schedlab.policies.predicting import PredictedRuntimes
from schedlab.policies.reservations import CatalinaReservations, decide_requests

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.outages import OutageEvent
    from schedlab.policies.dynp_step import Tuned, TuningState
    from schedlab.workload.job import Job

#: Orderings a planning-based policy can use (the static ones and LXF).
PLAN_ORDERINGS: tuple[str, ...] = (*ORDERINGS, *TIMED_ORDERINGS)
#: From this many waiting jobs on, a rebuild outside the compiled state
#: (:meth:`PlanningScheduler._new_state`) places them in one compiled call
#: (:func:`place_queue`); shorter queues, and such runs that never have one, do
#: not load numba.
COMPILED_FROM = 8


def place_in_order(profile: Profile, jobs: Iterable[Job], now: int) -> list[int]:
    """Place ``jobs`` one by one, in the given order, each at its earliest fit from ``now``.

    Reserves every job in ``profile`` and returns the start times, aligned
    with ``jobs``.  This is the schedule generation of CCS (Streit 2002, §5):
    "every running and pending job is placed into the schedule", in the
    order of the scheduling policy.
    """
    place = profile.place
    return [place(job.width, job.estimate, now) for job in jobs]


def place_queue(profile: Profile, jobs: Sequence[Job], now: int) -> list[int]:
    """:func:`place_in_order`, in one compiled call when the queue is long.

    From :data:`COMPILED_FROM` jobs on, the jobs' widths and estimates go
    as columns to :func:`schedlab.engine.profile_kernels.place_queue`, the
    compiled twin, which leaves the same profile and starts.  A job wider
    than the machine takes the Python path, which rejects it.
    """
    if len(jobs) < COMPILED_FROM:
        return place_in_order(profile, jobs, now)
    widths = [job.width for job in jobs]
    if max(widths) > profile.capacity:
        return place_in_order(profile, jobs, now)
    estimates = np.fromiter([job.estimate for job in jobs], np.int64, len(jobs))
    return _kernels().place_queue(profile, np.array(widths, np.int64), estimates, now).tolist()


@cache
def _kernels() -> ModuleType:
    """:mod:`schedlab.engine.profile_kernels`, imported (with numba) at the first long queue."""
    from schedlab.engine import profile_kernels
    return profile_kernels


class PlanningScheduler(PredictedRuntimes, CatalinaReservations, Policy):
    """Planning-based scheduling with a fixed ordering (Streit 2002, §5).

    ``order`` is ``fcfs``, ``sjf``, ``ljf`` or ``lxf`` (largest expansion
    factor first, :func:`~schedlab.policies.orderings.lxf_key_at`).  A new job
    is placed into the plan at once at its earliest fit; at every job end the
    plan is rebuilt from the fixed part of the schedule (:meth:`fixed_profile`)
    with the waiting jobs in policy order.  :meth:`proposed_starts` gives the
    current proposed start of every waiting job.

    Under ``overrun="extend"`` a job may hold its processors past its
    expected end, so a planned start can be impossible when it comes; the
    plan is then rebuilt from the machine as it is.  With a ``predictor``
    (:mod:`~schedlab.policies.predicting`) the plan is rebuilt whenever a job
    outlives its planned runtime.  So it is when a planned
    start passes between two scheduling ticks.

    Granted advance reservations belong to the fixed part of the schedule;
    a request is decided against the plan once every waiting job is in it
    (Catalina, Margo et al., §2).

    With a static order, ``overrun="kill"`` and no advance reservations, the
    waiting queue and the running jobs' profile are kept in arrays for the
    whole run (:class:`~schedlab.policies.dynp_step.TuningState`, from the
    first submission), and a rebuild is one compiled call that also starts
    the jobs due at once (:meth:`_compiled_rebuild`): the same schedule
    without building the queue, the profile and the heap in Python at every
    job end.
    """

    family = "plan"

    def __init__(self, *, order: str = "fcfs", predictor: str = "estimate",
                 **reservation: Any) -> None:
        check_choice(type(self).__name__, "order", order, PLAN_ORDERINGS)
        self.order = order
        self.init_predictor(predictor)
        self.init_reservation_params(**reservation)
        # running jobs + the plan, from now on; or the function making it when first read
        self._profile: Profile | Callable[[], Profile] | None = None
        # the plan: a heap of (start, job id); or the function making it when first read
        self._starts: list[tuple[int, int]] | Callable[[], list[tuple[int, int]]] = []
        self._arrival_starts: dict[int, int] = {}  # the starts of the arrivals just placed
        self._arrivals: list[Job] = []             # submitted since the last pass
        self._replan = True                        # rebuild at the next pass
        self._wake = -1
        # The orders the compiled state keeps a queue of, and their positions in it.
        self._orders: tuple[str, ...] = (order,)
        self._index = {order: 0}
        # The compiled state (_new_state): made at the first submission, None if the run
        # does not allow one; whether a rebuild runs in it.
        self._state: TuningState | None = None
        self._state_made = False
        self._rebuilds_compiled = False
        # The last compiled step; the plan it adopted (a function making the heap) and
        # the same without the jobs it started at once.
        self._tuned: Tuned | None = None
        self._step_plan: list[tuple[int, int]] | Callable[[], list[tuple[int, int]]] | None = None
        self._later_plan: list[tuple[int, int]] | Callable[[], list[tuple[int, int]]] | None = None

    @property
    def name(self) -> str:  # type: ignore[override]  # follows order; dynP's classes name themselves
        return f"{self.order}+{self.family}"

    # ------------------------------------------------------------ engine calls
    def on_submit(self, ctx: Context, job: Job) -> None:
        self._arrivals.append(job)
        if not self._state_made:
            self._state_made = True
            self._state = self._new_state(ctx)
            self._rebuilds_compiled = self._state is not None and self._state.compiled
        if self._state is not None:
            self._state.enter(job)

    def on_correction(self, ctx: Context, job: Job, previous_end: int) -> None:
        """A running job outlived its planned runtime: rebuild the plan at the pass that
        follows, from the machine as it is."""
        self._replan = True

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        """Capacity changed (a failure, a repair, a window): rebuild the plan at the pass
        that follows, from the machine as it is."""
        self._replan = True

    def on_cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job was cancelled: it leaves the queues, and the plan is rebuilt at the
        pass that follows."""
        self._replan = True
        self._arrivals = [arrived for arrived in self._arrivals if arrived.id != job.id]
        if self._state is not None:
            self._state.withdraw(job, ctx.now)

    def on_finish(self, ctx: Context, job: Job) -> None:
        self._replan = True
        if self._state is not None:
            self._state.ended(job, ctx.now)

    def schedule(self, ctx: Context) -> None:
        if self._replan or self._arrivals:
            self._update_plan(ctx)
            self._promise_arrivals(ctx)
        if ctx.pending_requests:
            decide_requests(ctx, self._current_plan(ctx), self.reservation_rules)
        self._start_due(ctx)
        self._wake_for_next_start(ctx)

    # ------------------------------------------------------------------ views
    def proposed_starts(self) -> dict[int, int]:
        """The current proposed start of every waiting job, by job id.

        Unlike ``planned_start`` in the result (the first promise), this is
        the plan as it stands now: a rebuild after a job end may have moved a
        job earlier or, with SJF/LJF/LXF, later.
        """
        return {job_id: start for start, job_id in self._plan()}

    def fixed_profile(self, ctx: Context) -> Profile:
        """The part of the schedule that no policy order moves, from now on.

        The running jobs until their expected ends (Streit 2002, §5: the
        rebuild places the running jobs first) and the granted advance
        reservations: "the scheduling policy has no influence on
        reservations" (§5).  The compiled state's copy when it keeps one.
        """
        state = self._state
        if state is not None and state.tracks_running:
            return state.running_profile(ctx.now)
        return ctx.profile()

    def queue(self, ctx: Context, order: str) -> list[Job]:
        """The waiting jobs in the named order at this instant (the state's row if it keeps one)."""
        state, position = self._state, self._index.get(order)
        if state is None or position is None or state.is_given(position):
            return in_order_at(ctx.waiting.values(), order, ctx.now)
        return state.jobs_at(state.queue_of(position))

    # ------------------------------------------------------- the compiled state
    def _new_state(self, ctx: Context) -> TuningState | None:
        """The arrays of the compiled rebuild, or None where the run does not allow them.

        They need static orders (fcfs, sjf, ljf: kept sorted at every
        arrival) and a run whose running jobs hold their processors exactly
        until their expected end or less (``overrun="kill"`` and no planned runtimes,
        :attr:`~schedlab.engine.context.Context.ends_as_expected`; no advance
        reservations), so that the state's profile is the engine's.
        Imports numba (:mod:`schedlab.policies.dynp_step`).
        """
        if (not ctx.ends_as_expected or ctx.reservations_enabled
                or not set(self._orders) <= set(ORDERINGS)):
            return None
        from schedlab.policies.dynp_step import TuningState
        return TuningState(ctx.processors, self._orders, (), True)

    def _compiled_rebuild(self, ctx: Context) -> None:
        """:meth:`rebuild` in one compiled call, the jobs due at once taken out of the state.

        :meth:`TuningState.step <schedlab.policies.dynp_step.TuningState.step>`
        without a decision places the current order's queue on the running
        jobs' profile, as :func:`place_queue` on :meth:`fixed_profile` would.
        """
        assert self._state is not None, "a compiled rebuild without the compiled state"
        tuned, _, _ = self._state.step(ctx.now, self._index[self.order], decide=False)
        self._adopt_step(tuned)

    def _adopt_step(self, tuned: Tuned) -> None:
        """Make a compiled step's chosen schedule the plan, read only when needed.

        The arrivals' promises are its starts of the newest jobs.  While the
        plan is the step's own (:meth:`_fresh_step`), its due jobs and its
        next start are read from the step as it left them.
        """
        if self._arrivals:                  # the newest waiting jobs, in arrival order
            starts = tuned.newest_starts(len(self._arrivals))
            self._arrival_starts = {job.id: start for job, start in zip(self._arrivals, starts)}
        self._adopt_plan(tuned.profile, tuned.plan)
        self._tuned = tuned
        self._step_plan = self._starts

    def _fresh_step(self, now: int) -> Tuned | None:
        """The step made at ``now`` if its plan is still the plan, due jobs and all; else None.

        Whoever takes its due jobs makes the plan the step's plan without
        them (:meth:`Tuned.later <schedlab.policies.dynp_step.Tuned.later>`).
        """
        tuned = self._tuned
        if tuned is not None and self._starts is self._step_plan and now == tuned.now:
            return tuned
        return None

    # -------------------------------------------------------------- the plan
    def _update_plan(self, ctx: Context) -> None:
        """Bring the plan up to date after job ends (rebuild) or submissions (insert)."""
        if not self._replan:
            self._insert_arrivals(ctx)
        elif self._rebuilds_compiled:
            self._compiled_rebuild(ctx)
        else:
            self.rebuild(ctx)

    def rebuild(self, ctx: Context) -> None:
        """The whole plan anew: fixed part, then the waiting jobs in policy order."""
        profile = self.fixed_profile(ctx)
        queue = self.queue(ctx, self.order)
        self.adopt(profile, [job.id for job in queue], place_queue(profile, queue, ctx.now))

    def adopt(self, profile: Profile | Callable[[], Profile], job_ids: Sequence[int],
              starts: Sequence[int]) -> None:
        """Make a schedule the plan: ``profile`` holds it, ``starts`` aligns with ``job_ids``.

        ``profile`` may also be a function making it: it is then called only
        if the plan's profile is read (:meth:`_plan_profile`) before the next
        schedule is adopted; dynP adopts a schedule at almost every step and
        rarely reads one.
        """
        if self._arrivals:                      # their promises are read from this schedule
            self._arrival_starts = dict(zip(job_ids, starts))
        plan = list(zip(starts, job_ids))
        heapify(plan)
        self._adopt_plan(profile, plan)

    def _adopt_plan(self, profile: Profile | Callable[[], Profile],
                    plan: list[tuple[int, int]] | Callable[[], list[tuple[int, int]]]) -> None:
        """Make ``plan``, a heap of (start, job id), the plan; ``profile`` holds it (:meth:`adopt`).

        Either may be a function making it when first read (:meth:`_plan`,
        :meth:`_plan_profile`).  The arrivals' promises must be noted in
        ``_arrival_starts`` first.
        """
        self._profile = profile
        self._starts = plan
        self._replan = False

    def _current_plan(self, ctx: Context) -> Profile:
        """The plan's profile from now; rebuilt first if there is none or a start is overdue."""
        plan = self._plan()
        if self._profile is None or (plan and plan[0][0] < ctx.now):
            self.rebuild(ctx)
        profile = self._plan_profile()
        profile.discard_before(ctx.now)
        return profile

    def _plan(self) -> list[tuple[int, int]]:
        """The plan's heap of (start, job id), made now if it came as a function."""
        if callable(self._starts):
            self._starts = self._starts()
        return self._starts

    def _plan_profile(self) -> Profile:
        """The plan's profile, made now if the adopted schedule came as a function."""
        if callable(self._profile):
            self._profile = self._profile()
        assert self._profile is not None, "the plan's profile read before any plan"
        return self._profile

    def _insert_arrivals(self, ctx: Context) -> None:
        """Place each new job at its earliest fit around the plan, in arrival order."""
        profile = self._plan_profile()
        now = ctx.now
        profile.discard_before(now)
        plan = self._plan()
        for job in self._arrivals:
            start = profile.place(job.width, job.estimate, now)
            self._arrival_starts[job.id] = start
            heappush(plan, (start, job.id))

    def _promise_arrivals(self, ctx: Context) -> None:
        """Tell the engine each new job's proposed start (kept there as its first promise).

        Their starts were noted when they were inserted or when a schedule
        holding them was adopted.
        """
        plan = self._arrival_starts
        for job in self._arrivals:
            ctx.plan(job, plan[job.id])
        self._arrivals = []
        self._arrival_starts = {}

    def _start_due(self, ctx: Context) -> list[Job]:
        """Start every job whose proposed start has come; returns the jobs started.

        Under ``overrun="kill"`` the due jobs always fit: the plan holds every
        running job until its expected end, and a job that ends earlier
        triggers a rebuild.  Under ``"extend"`` an overrunning job can still
        hold processors the plan gave away; the plan is rebuilt from the
        machine as it is, which puts only fitting jobs at now.  A start that
        passed between two scheduling ticks makes the plan stale too (the
        job would run past its slot): the plan is rebuilt as well.

        A compiled step (:meth:`_compiled_rebuild`) took its due jobs out of
        the state already; they fit, since the state's profile is the
        engine's (``ctx.start`` checks it anyway).  Other started jobs leave
        the state here.
        """
        now = ctx.now
        waiting = ctx.waiting
        tuned = self._fresh_step(now)
        left = tuned is not None and tuned.left
        due = self._pop_due(now)
        if due and not left and (due[0][0] < now or
                                 sum(waiting[job_id].width for _, job_id in due) > ctx.free):
            self.rebuild(ctx)
            due = self._pop_due(now)
        jobs = [waiting[job_id] for _, job_id in due]
        for job in jobs:
            ctx.start(job)
        if jobs and not left and self._state is not None:
            self._state.leave(jobs, now)
        return jobs

    def _pop_due(self, now: int) -> list[tuple[int, int]]:
        """Take the jobs whose proposed start is ``now`` (or earlier) out of the plan.

        Returns their ``(proposed start, job id)``, earliest first.  While
        the plan is a compiled step's own, they are the step's due jobs, and
        the step's plan is then made only if it is read again, without them:
        a heap as the compiled step arranged it.
        """
        tuned = self._fresh_step(now)
        if tuned is not None:
            self._starts = self._later_plan = tuned.later
            return tuned.due()
        starts = self._plan()
        due = []
        while starts and starts[0][0] <= now:
            due.append(heappop(starts))
        return due

    def _wake_for_next_start(self, ctx: Context) -> None:
        """Ask for a pass at the next proposed start.

        Under ``overrun="kill"`` every proposed start is the expected end of
        a running or planned job and so an event; under ``"extend"`` an
        overrunning job is expected to end "now + 1", which is no event.
        """
        upcoming = self._upcoming_start()
        if upcoming is not None and upcoming != self._wake and upcoming > ctx.now:
            self._wake = upcoming
            ctx.wake_at(upcoming)

    def _upcoming_start(self) -> int | None:
        """The earliest proposed start in the plan (None: the plan is empty)."""
        if self._starts is self._later_plan and self._tuned is not None:
            return self._tuned.upcoming()
        plan = self._plan()
        return plan[0][0] if plan else None
