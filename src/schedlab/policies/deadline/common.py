"""What the deadline policies share: limits, heuristics, plans on a Profile, the admission loop.

Islam et al., "QoPS: A QoS based Scheme for Parallel Job Scheduling"
(papers/004_…), §2.2 and §3.  Each admission-control policy keeps a *plan*:
every admitted job that has not started has a reserved start time, and the
plan is **feasible** — every job in it ends (by its estimate) no later than
its deadline.  A new job is admitted only if the policy finds a feasible plan
that includes it; otherwise it is rejected at submission and never runs.

Terms used by all three schemes:

* a **plan** is a list of ``(job, start)`` in *ascending scheduled time*
  (AST order, QoPS §2.2.1); positions in the plan are indices in that list;
* a job's **limit** is the latest end the plan may give it: its deadline, or
  infinity for a job without one;
* **placing** a job means reserving it at its earliest fit in a
  :class:`~schedlab.engine.profile.Profile` that holds the running jobs
  (until their expected ends) and the jobs placed before it;
* the **heuristics** order jobs: ``edf`` earliest deadline first, ``llf``
  least laxity first (laxity = deadline - now - estimate; at one instant
  that orders like deadline - estimate).  Jobs without a deadline come
  last; ties fall to submit time, then id.

The admission functions are pure (``running`` profile, ``now``, plan, new
job, limits) -> :class:`Decision`, so they can be tested and timed on their
own; :class:`AdmissionPolicy` connects them to the engine.  In a run with a
scheduling tick they get a :class:`TickProfile`, on which every fit is a tick.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies.base import Policy
from schedlab.policies.predicting import PredictedRuntimes

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.outages import OutageEvent
    from schedlab.workload.job import Job

Plan = list[tuple["Job", int]]
HeuristicKey = Callable[["Job"], tuple]
INFINITY = math.inf


def latest_end(job: Job) -> float:
    """The deadline of a job, or infinity when it has none."""
    return INFINITY if job.deadline is None else job.deadline


def edf_key(job: Job) -> tuple:
    """Earliest deadline first (QoPS §2.1.2, §3): (deadline, submit, id); no deadline last."""
    return (latest_end(job), job.submit, job.id)


def llf_key(job: Job) -> tuple:
    """Least laxity first (QoPS §2.1.2, §3): (deadline - estimate, submit, id); no deadline last.

    The laxity at time t is deadline - t - estimate; every job of one
    ordering is ranked at the same t, so t drops out.
    """
    return (latest_end(job) - job.estimate, job.submit, job.id)


HEURISTICS: dict[str, HeuristicKey] = {"edf": edf_key, "llf": llf_key}


@dataclass(frozen=True)
class Decision:
    """The outcome of one admission test.

    ``plan`` is the new plan in AST order (it includes the new job) or
    ``None`` when the job is rejected, with ``reason`` saying why.
    ``placements`` counts the earliest-fit searches the test made (its
    work, for statistics and benchmarks); ``detail`` holds scheme-specific
    counts (QoPS's insertion point and repairs, MRT's backtracks).
    """

    plan: Plan | None
    reason: str = ""
    placements: int = 0
    detail: dict[str, int] = field(default_factory=dict)


def in_ast_order(entries: Sequence[tuple[Job, int]]) -> Plan:
    """Entries sorted by start; equal starts keep their placement order (stable sort)."""
    return sorted(entries, key=lambda entry: entry[1])


def reserve_all(profile: Profile, plan: Sequence[tuple[Job, int]]) -> None:
    """Reserve every job of a plan at its start (raises ``ValueError`` if one does not fit)."""
    reserve = profile.reserve
    for job, start in plan:
        reserve(start, job.estimate, job.width)


def earliest_end_alone(running: Profile, job: Job, now: int) -> int:
    """The earliest end of ``job`` with only the running jobs on the machine.

    No plan can give the job an earlier end (adding reservations never makes a
    fit earlier), so a job whose deadline falls before it is rejected at once
    by every scheme.
    """
    return running.earliest_fit(job.width, job.estimate, now) + job.estimate


def round_up(t: int, tick: int) -> int:
    """The first multiple of ``tick`` at or after ``t``."""
    return -(-t // tick) * tick


class TickProfile(Profile):
    """An availability profile on the grid of scheduling ticks (Catalina; Margo et al., §3).

    With a tick the engine starts jobs only at its multiples, so processors
    freed at ``t`` serve a new job from the first tick at or after ``t``.
    Every duration reserved here, and every running job's end, is rounded up
    to a whole tick: all breakpoints lie on the grid, so every fit found from
    a tick is a tick, and a job fits at a tick here exactly when it fits
    there on the real machine.  Deadline checks keep the true estimate
    (a job started at ``s`` ends at ``s + estimate``).  Built only for runs
    with a tick: runs without keep the plain :class:`Profile`.
    """

    __slots__ = ("tick",)
    tick: int

    @classmethod
    def of_running(cls, ctx: Context) -> TickProfile:
        """The running jobs from ``ctx.now`` (a tick) until the tick after their expected end.

        The admission policies take no advance reservations, so only
        processors held now (by jobs or reservations) are in it.
        """
        tick = ctx.tick
        profile = cast(TickProfile, cls.from_releases(
            ctx.processors, ctx.now, ((round_up(end, tick), width) for end, width in ctx.releases())))
        profile.tick = tick
        return profile

    def copy(self) -> TickProfile:
        clone = TickProfile.__new__(TickProfile)
        clone.capacity, clone.tick = self.capacity, self.tick
        clone._times, clone._free = self._times.copy(), self._free.copy()
        return clone

    def earliest_fit(self, width: int, duration: int, after: int) -> int:
        return super().earliest_fit(width, round_up(duration, self.tick), after)

    def earlier_fit(self, width: int, duration: int, after: int, booked: int) -> int:
        return super().earlier_fit(width, round_up(duration, self.tick), after, booked)

    def place(self, width: int, duration: int, after: int) -> int:
        return super().place(width, round_up(duration, self.tick), after)

    def reserve(self, start: int, duration: int, width: int) -> None:
        super().reserve(start, round_up(duration, self.tick), width)

    def release(self, start: int, duration: int, width: int) -> None:
        super().release(start, round_up(duration, self.tick), width)


def held_time(profile: Profile) -> Callable[[int], int]:
    """How long ``profile`` holds processors for a job of a given estimate.

    The estimate itself, or on a :class:`TickProfile` the estimate rounded up
    to a whole tick: what :meth:`Profile.reserve` and :meth:`Profile.place`
    really take, for callers that reason about reservations without the profile.
    """
    if isinstance(profile, TickProfile):
        tick = profile.tick
        return lambda estimate: round_up(estimate, tick)
    return lambda estimate: estimate


def job_columns(jobs: Sequence[Job], limits: Mapping[int, float], profile: Profile,
                no_limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The jobs as int64 columns for a compiled admission test: widths, estimates, held, limits.

    ``held`` is what a reservation on ``profile`` takes (:func:`held_time`:
    the estimate, rounded up to the tick on a :class:`TickProfile`);
    ``limits`` are the latest ends, ``no_limit`` for a job without one.
    """
    widths = np.array([job.width for job in jobs], np.int64)
    estimates = np.array([job.estimate for job in jobs], np.int64)
    tick = profile.tick if isinstance(profile, TickProfile) else 0
    held = -(-estimates // tick) * tick if tick else estimates      # round_up, per column
    ends = np.array([limits[job.id] for job in jobs], np.float64)
    ends[ends == INFINITY] = no_limit
    return widths, estimates, held, ends.astype(np.int64)


def running_profile(ctx: Context) -> Profile:
    """The running jobs from now on; on the tick grid in a run with a tick."""
    return TickProfile.of_running(ctx) if ctx.tick else ctx.profile()


class AdmissionPolicy(PredictedRuntimes, Policy):
    """Admission control at submission plus plan keeping, shared by QoPS, MSB and MRT.

    * **Submission.** A job whose deadline cannot be met even with only the
      running jobs on the machine is rejected at once.  A job without a
      deadline cannot miss one: it is appended to the plan at its earliest
      fit, nobody moves.  Every other job goes through :meth:`admit`, the
      scheme's test; it is admitted with the plan the test returns, or
      rejected with the test's reason (``ctx.reject``).  The first start
      the plan gives an admitted job is recorded with ``ctx.plan``.
    * **Start.** A job starts when its planned start comes.
    * **Early end.** When a job ends before its estimate, the plan is
      compressed as conservative backfilling does: in AST order, each job
      gives up its slot and takes the earliest fit from now, which is never
      later, so every deadline the plan met is still met.
    * **Overrun** (``overrun="extend"`` only). A job running past its
      estimate can hold processors the plan gave away; then the plan is
      rebuilt in AST order at earliest fits from the machine as it is
      (``plan_repairs`` in the statistics).  Deadlines may be missed then
      — the guarantee holds for exact estimates (QoPS §6 leaves inexact
      ones to future work); a job made late keeps its new end as its limit,
      so later admissions never make it later still.

    Under ``overrun="kill"`` (the default) no job holds processors past its
    estimate, so every admitted job with a deadline ends by it.

    **Predicted runtimes** (``predictor``, :mod:`~schedlab.policies.predicting`).
    The plan and the admission test use the predictions; a job that outlives
    its prediction is corrected and the plan repaired as after an overrun, so
    the guarantee holds only for exact estimates: the deadline metrics report
    the misses.

    **Ticks.** In a run with a scheduling tick the policy is called only at
    ticks and jobs start only at ticks; every plan is made on a
    :class:`TickProfile`, so every planned start is a tick and the
    guarantee holds as without a tick.
    """

    def __init__(self, *, predictor: str = "estimate") -> None:
        self.init_predictor(predictor)
        self._plan: Plan = []
        self._limits: dict[int, float] = {}
        self._booked_end: dict[int, int] = {}
        self._compress_pending = False
        self._wake = -1

    # ----------------------------------------------------------- the scheme
    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        """The scheme's admission test: a feasible plan with ``job`` or a rejection."""
        raise NotImplementedError

    # --------------------------------------------------------- engine calls
    def on_submit(self, ctx: Context, job: Job) -> None:
        self._refresh(ctx)
        now = ctx.now
        running = running_profile(ctx)
        limit = latest_end(job)
        alone = earliest_end_alone(running, job, now)
        ctx.count("placements")
        if alone > limit:
            ctx.reject(job, f"deadline {job.deadline} is before its earliest possible end "
                            f"{alone}")
            return
        self._limits[job.id] = limit
        if limit == INFINITY:
            decision = self._append(running, now, job)
        else:
            decision = self.admit(running, now, self._plan, job, self._limits)
        ctx.count("placements", decision.placements)
        for name, value in decision.detail.items():
            ctx.count(name, value)
        if decision.plan is None:
            del self._limits[job.id]
            ctx.reject(job, decision.reason)
            return
        self._plan = decision.plan
        ctx.count("admitted")
        ctx.plan(job, next(start for planned, start in self._plan if planned is job))

    def on_correction(self, ctx: Context, job: Job, previous_end: int) -> None:
        """A running job outlived its planned runtime: repair the plan if it no longer fits
        the machine, and count the admitted jobs it moved later (statistic
        ``broken_reservations``; their deadlines may be missed now)."""
        self._booked_end[job.id] = ctx.expected_end(job)     # an earlier end compresses
        self._repair_if_broken(ctx)

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        """Capacity changed (a failure, a repair, a window): repair the plan if it no longer
        fits the machine; the admitted jobs it moved later are counted as broken
        reservations (their guarantees cannot be kept; the misses are reported)."""
        self._repair_if_broken(ctx)

    def _repair_if_broken(self, ctx: Context) -> None:
        """Repair the plan when it no longer fits the machine, counting the admitted jobs
        it moved later (statistic ``broken_reservations``)."""
        from schedlab.policies.deadline.plan_arrays import plan_fits

        if plan_fits(running_profile(ctx), self._plan, ctx.now):
            return
        booked = {planned.id: start for planned, start in self._plan}
        self._repair(ctx)
        broken = sum(start > booked[planned.id] for planned, start in self._plan
                     if planned.id in booked)
        if broken:
            ctx.count("broken_reservations", broken)

    def on_cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job was cancelled: it leaves the plan, whose later jobs move up at the
        next pass, never later (the compression of an early end)."""
        self._plan = [(planned, start) for planned, start in self._plan if planned.id != job.id]
        self._limits.pop(job.id, None)
        self._compress_pending = True

    def on_finish(self, ctx: Context, job: Job) -> None:
        self._limits.pop(job.id, None)
        if self._booked_end.pop(job.id) > ctx.now:
            self._compress_pending = True

    def schedule(self, ctx: Context) -> None:
        self._refresh(ctx)
        due = self._due(ctx.now)
        if sum(job.width for job, _ in due) > ctx.free:
            self._repair(ctx)
            due = self._due(ctx.now)
        if due:
            del self._plan[:len(due)]
            for job, _ in due:
                self._booked_end[job.id] = ctx.now + job.estimate
                ctx.start(job)
        self._wake_for_next_start(ctx)

    # ------------------------------------------------------------- the plan
    def _append(self, running: Profile, now: int, job: Job) -> Decision:
        """Place a job without a deadline behind the plan: nobody else moves (compiled,
        :func:`~schedlab.policies.deadline.plan_arrays.earliest_fit_behind`)."""
        from schedlab.policies.deadline.plan_arrays import earliest_fit_behind

        start = earliest_fit_behind(running, self._plan, now, job.width,
                                    held_time(running)(job.estimate))
        return Decision(in_ast_order([*self._plan, (job, start)]), placements=1)

    def _due(self, now: int) -> Plan:
        """The plan's jobs whose start has come (a prefix of the AST order)."""
        plan = self._plan
        k = 0
        while k < len(plan) and plan[k][1] <= now:
            k += 1
        return plan[:k]

    def _refresh(self, ctx: Context) -> None:
        """Bring the plan up to date: compress after early ends, repair after overruns.

        The plan is checked against the machine and compressed on arrays, in
        one compiled call (:mod:`~schedlab.policies.deadline.plan_arrays`):
        walking a long plan in Python at every early end grew with the plan.
        """
        from schedlab.policies.deadline.plan_arrays import compressed_plan, plan_fits

        if not (self._compress_pending or not ctx.ends_as_expected):
            return
        running = running_profile(ctx)
        if not self._compress_pending:
            if not plan_fits(running, self._plan, ctx.now):
                self._repair(ctx)
            return
        compressed = compressed_plan(running, self._plan, ctx.now)
        if compressed is None:
            self._repair(ctx)
        else:
            self._plan = compressed
        self._compress_pending = False

    def _repair(self, ctx: Context) -> None:
        """Rebuild the plan in AST order from the machine as it is (after an overrun)."""
        profile = running_profile(ctx)
        now = ctx.now
        placed = []
        for job, _ in self._plan:
            start = profile.earliest_fit(job.width, job.estimate, now)
            profile.reserve(start, job.estimate, job.width)
            placed.append((job, start))
            self._limits[job.id] = max(self._limits[job.id], start + job.estimate)
        self._plan = in_ast_order(placed)
        ctx.count("plan_repairs")

    def _wake_for_next_start(self, ctx: Context) -> None:
        """Ask for a pass at the next planned start (not every one is an event)."""
        if self._plan:
            upcoming = self._plan[0][1]
            if upcoming != self._wake and upcoming > ctx.now:
                self._wake = upcoming
                ctx.wake_at(upcoming)
