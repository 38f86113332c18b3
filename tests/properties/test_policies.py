"""Properties of every registered policy on random workloads (hypothesis).

For every policy of :func:`schedlab.available_policies` and both overrun
modes: the simulation invariants (SPEC §3), determinism, every accepted job
ending exactly once, and the utilization/queue series agreeing with the
per-job columns.  Then what each built-in family promises:

* no backfilling — jobs start strictly in queue order (Streit 2002, §2);
* EASY — the first waiting job that cannot start keeps its reservation at
  the shadow time, which only ever moves earlier (Lifka 1995; Mu'alem &
  Feitelson 2001, §2);
* conservative — no job starts later than the start it was first promised
  (Mu'alem & Feitelson 2001, §2; Feitelson & Weil 1998);
* EASY and no backfilling never leave the first job of their queue waiting
  while it fits in the free processors.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab
from schedlab.engine.result import Result
from schedlab.engine.simulator import run
from schedlab.policies import backfilling
from schedlab.policies.backfilling import EasyBackfilling
from schedlab.policies.base import Policy
from schedlab.policies.orderings import in_order
from schedlab.testing import check_invariants
from schedlab.workload.job import Workload
from strategies import workloads

#: Space-sharing policies (gang scheduling has its own properties: tests/gang/).
POLICIES = sorted(name for name, entry in schedlab.available_policies().items()
                  if not entry.time_sharing)
OVERRUNS = ("kill", "extend")
ORDERS = ("fcfs", "sjf", "ljf")          # the static orderings of SPEC §4.1
RESULT_ARRAYS = ("job_id", "submit", "start", "end", "width", "estimate", "runtime", "status",
                 "planned_start", "series_time", "series_busy", "series_queue", "suspended",
                 "predicted", "final_prediction", "corrections")


# ------------------------------------------------------------------- helpers
class FinishCounter(Policy):
    """Passes every call on to ``inner`` and counts the ``on_finish`` calls per job."""

    def __init__(self, *, inner: Policy) -> None:
        self.inner = inner
        self.finishes: Counter[int] = Counter()

    @property
    def name(self) -> str:
        return self.inner.name

    def on_submit(self, ctx, job) -> None:
        self.inner.on_submit(ctx, job)

    def on_finish(self, ctx, job) -> None:
        self.finishes[job.id] += 1
        self.inner.on_finish(ctx, job)

    def schedule(self, ctx) -> None:
        self.inner.schedule(ctx)

    def statistics(self) -> dict:
        return self.inner.statistics()

    def get_params(self) -> dict:
        return self.inner.get_params()


def event_times(result: Result) -> np.ndarray:
    """Every instant at which the state of the machine can change."""
    ran = result.accepted
    return np.unique(np.concatenate([result.submit, result.start[ran], result.end[ran]]))


def busy_at(result: Result, times: np.ndarray) -> np.ndarray:
    """Processors held at each time: jobs with start <= t < end."""
    ran = result.accepted
    at = times[:, None]
    holding = (result.start[ran] <= at) & (at < result.end[ran])
    return (holding * result.width[ran]).sum(axis=1)


def waiting_at(result: Result, t: int) -> np.ndarray:
    """Mask of the jobs waiting just after the instant ``t``: submitted, not yet started."""
    return result.accepted & (result.submit <= t) & (t < result.start)


def queue_rank(result: Result, order: str) -> np.ndarray:
    """Each job's position in the queue ordering (ties by submit, then id)."""
    primary = {"fcfs": np.zeros(len(result), dtype=np.int64), "sjf": result.estimate,
               "ljf": -result.estimate}[order]
    rank = np.empty(len(result), dtype=np.int64)
    rank[np.lexsort((result.job_id, result.submit, primary))] = np.arange(len(result))
    return rank


#: The queue policies: no backfilling and EASY, named ORDER and ORDER+easy.
QUEUE_POLICIES = [(name, order) for order in ORDERS for name in (order, f"{order}+easy")]


# ------------------------------------------------ every policy, both overruns
@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("name", POLICIES)
@given(workload=workloads())
def test_every_policy_is_valid_deterministic_and_consistent(name, overrun, workload):
    """Invariants, one end per accepted job, identical reruns, series from the columns."""
    counter = FinishCounter(inner=schedlab.make_policy(name))
    first = run(workload, counter, overrun=overrun)
    check_invariants(first, workload, overrun=overrun)
    assert counter.finishes == Counter(first.job_id[first.accepted].tolist())
    second = run(workload, schedlab.make_policy(name), overrun=overrun)
    assert_identical(first, second)
    assert_series_match_the_job_columns(first)


#: The policies that plan with a ``predictor`` (docs/reference/predictions.md).
PREDICTING = [name for name in POLICIES
              if "predictor" in schedlab.available_policies()[name].parameters()]


@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("name", PREDICTING)
@given(workload=workloads(),
       predictor=st.sampled_from(["easy++", "easy++[correction=graded]", "user-quantile",
                                  "knn[k=2]", "oracle"]))
def test_every_policy_planning_on_predictions_is_valid_and_deterministic(name, overrun,
                                                                         workload, predictor):
    """The invariants and identical reruns with predicted runtimes; a prediction never
    changes when a job is killed: at its estimate, as without one."""
    spec = {"name": name, "predictor": predictor}
    first = run(workload, schedlab.make_policy(spec), overrun=overrun)
    check_invariants(first, workload, overrun=overrun)
    assert_identical(first, run(workload, schedlab.make_policy(spec), overrun=overrun))
    assert_series_match_the_job_columns(first)
    plain = run(workload, schedlab.make_policy(name), overrun=overrun)
    assert np.array_equal(first.status, plain.status) or name in {"qops", "msb", "mrt"}
    assert first.corrections is not None and (first.corrections >= 0).all()


def assert_identical(first: Result, second: Result) -> None:
    for column in RESULT_ARRAYS:
        assert np.array_equal(getattr(first, column), getattr(second, column)), column
    assert (first.stats, first.reject_reasons, first.params) == \
        (second.stats, second.reject_reasons, second.params)


def assert_series_match_the_job_columns(result: Result) -> None:
    """The series is the step function of busy processors and waiting jobs, entry by entry.

    It starts at the first submission, ends with an empty machine, and at
    every instant where anything happens it equals the recount from the
    per-job start/end columns (Result docstring: a step function).  A job
    that was ever suspended holds no processors for part of ``[start, end)``,
    so busy processors are recounted only for runs without suspensions.
    """
    series_time = result.series_time
    assert np.all(np.diff(series_time) > 0)
    assert series_time[0] == result.submit.min()
    assert (result.series_busy[-1], result.series_queue[-1]) == (0, 0)
    times = event_times(result)
    k = np.searchsorted(series_time, times, side="right") - 1
    if result.suspended is None or not result.suspended.any():
        assert np.array_equal(result.series_busy[k], busy_at(result, times))
    queued = [int(waiting_at(result, t).sum()) for t in times.tolist()]
    assert result.series_queue[k].tolist() == queued


# ---------------------------------------------------------- no backfilling
@pytest.mark.parametrize("overrun", OVERRUNS)
@given(workload=workloads())
def test_fcfs_starts_jobs_in_submission_order(overrun, workload):
    result = run(workload, schedlab.make_policy("fcfs"), overrun=overrun)
    # Workload order is (submit, id).
    assert np.all(np.diff(result.start) >= 0)


@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads())
def test_no_backfilling_never_overtakes(order, overrun, workload):
    """Every job started at an instant precedes, in queue order, every job still waiting."""
    result = run(workload, schedlab.make_policy(order), overrun=overrun)
    rank = queue_rank(result, order)
    for t in np.unique(result.start).tolist():
        waiting = waiting_at(result, t)
        if waiting.any():
            assert rank[result.start == t].max() < rank[waiting].min()


# ------------------------------------------------- the head never idles
@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("name,order", QUEUE_POLICIES)
@given(workload=workloads())
def test_first_job_of_the_queue_waits_only_if_it_does_not_fit(name, order, overrun, workload):
    """After the last pass of every instant, the queue's first job is wider than the free processors."""
    result = run(workload, schedlab.make_policy(name), overrun=overrun)
    rank = queue_rank(result, order)
    times = event_times(result)
    free = result.processors - busy_at(result, times)
    for t, idle in zip(times.tolist(), free.tolist()):
        waiting = np.flatnonzero(waiting_at(result, t))
        if waiting.size:
            head = waiting[np.argmin(rank[waiting])]
            assert result.width[head] > idle, f"job {result.job_id[head]} fits at {t}"


# -------------------------------------------------------------------- EASY
@dataclass(frozen=True)
class EasyPass:
    """One scheduling pass of EASY as seen from outside."""

    now: int
    first: int | None        # first job of the ordered queue when the pass began
    head: int | None         # the job that got the reservation (None: no shadow computed)
    shadow: int
    started: frozenset[int]


class RecordingEasy(EasyBackfilling):
    """EASY that records every pass and checks each reservation against the profile.

    The shadow time and extra processors the policy computes
    (:func:`~schedlab.policies.backfilling.shadow_and_extra`) must equal what
    the availability profile of the running jobs says: the earliest time at
    which ``width`` processors are free, and the processors free then beyond
    ``width``.  After backfilling, the profile (running jobs by estimates,
    the backfilled ones included) must still have ``width`` processors free
    at the shadow time: backfilling never takes the head's processors.
    """

    def __init__(self, *, order: str = "fcfs") -> None:
        super().__init__(order=order)
        self.passes: list[EasyPass] = []

    def schedule(self, ctx) -> None:
        queue = in_order(ctx.waiting.values(), self.order)
        shadows: list[tuple[int, int]] = []

        def spy(context, width):
            shadow, extra = SHADOW_AND_EXTRA(context, width)
            profile = context.profile()
            assert shadow == profile.earliest_fit(width, 1, context.now) > context.now
            assert extra == profile.free_at(shadow) - width
            shadows.append((width, shadow))
            return shadow, extra

        with patch.object(backfilling, "shadow_and_extra", spy):
            super().schedule(ctx)
        started = frozenset(job.id for job in queue if job.id not in ctx.waiting)
        head, shadow = None, -1
        if shadows:
            [(width, shadow)] = shadows
            head_job = next(job for job in queue if job.id in ctx.waiting)
            assert head_job.width == width
            head = head_job.id
            backfilled = ctx.profile().free_at(shadow)
            assert backfilled >= width, (f"at {ctx.now} backfilling left {backfilled} processors "
                                         f"at the shadow time {shadow} for job {head} of width {width}")
        first = queue[0].id if queue else None
        self.passes.append(EasyPass(ctx.now, first, head, shadow, started))


SHADOW_AND_EXTRA = backfilling.shadow_and_extra


def check_reservations_only_move_earlier(passes: list[EasyPass]) -> None:
    """Follow the head's reservation while the job stays first in the queue.

    While a job ``h`` holding a reservation is the first job of the queue
    when a pass begins, that pass comes no later than its reservation, and
    either starts ``h`` or gives it a shadow time no later than before.
    """
    holder, bound = None, -1
    for p in passes:
        if holder is not None and p.first == holder:
            assert p.now <= bound, f"pass at {p.now} after job {holder}'s reservation at {bound}"
            if holder in p.started:
                holder = None
        else:
            holder = None
        if p.head is not None:
            if p.head == holder:
                assert p.shadow <= bound, f"job {holder}'s reservation moved from {bound} to {p.shadow}"
            holder, bound = p.head, p.shadow


@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads())
def test_easy_head_never_starts_after_its_reservation(order, overrun, workload):
    """Under kill the reservation holds; under extend only the shadow computation is checked."""
    policy = RecordingEasy(order=order)
    result = run(workload, policy, overrun=overrun)
    if overrun != "kill":
        return
    check_reservations_only_move_earlier(policy.passes)
    if order == "fcfs":
        first_shadow: dict[int, int] = {}
        for p in policy.passes:
            if p.head is not None:
                first_shadow.setdefault(p.head, p.shadow)
        start = dict(zip(result.job_id.tolist(), result.start.tolist()))
        for job_id, shadow in first_shadow.items():
            assert start[job_id] <= shadow, f"job {job_id} starts after its reservation"


@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads())
def test_easy_asked_again_after_every_start_makes_the_same_schedule(order, overrun, workload):
    """EASY's next job chosen afresh after every start (what an agent mirroring EASY does,
    one job per step: the head if it fits, else the first of ``backfill_choices``) makes the
    schedule of one EASY pass: a backfilled job leaves the shadow time where it was."""
    from schedlab.engine.simulator import Simulation

    simulation = Simulation(workload, Policy(), overrun=overrun)
    ctx = simulation.ctx
    for _ in simulation.passes:
        while ctx.waiting and ctx.free:
            queue = in_order(ctx.waiting.values(), order)
            if queue[0].width <= ctx.free:
                ctx.start(queue[0])
                continue
            choice = next(backfilling.backfill_choices(ctx, queue, 0), None)
            if choice is None:
                break
            ctx.start(choice)
    easy = run(workload, EasyBackfilling(order=order), overrun=overrun)
    assert np.array_equal(simulation.result().start, easy.start)


# ------------------------------------------------------------- conservative
@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads())
def test_conservative_never_starts_a_job_after_its_first_reservation(order, workload):
    result = run(workload, schedlab.make_policy(f"{order}+conservative"), overrun="kill")
    assert np.all(result.planned_start >= result.submit)
    late = np.flatnonzero(result.start > result.planned_start)
    assert late.size == 0, f"job {result.job_id[late[0]]} starts after its reservation"


@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads(early_ends=False))
def test_conservative_keeps_every_reservation_exactly_without_early_ends(order, workload):
    """With no job ending before its estimate nothing can move: the plan is the schedule."""
    result = run(workload, schedlab.make_policy(f"{order}+conservative"), overrun="kill")
    assert np.array_equal(result.start, result.planned_start)


class ScanFromNowConservative(backfilling.ConservativeBackfilling):
    """Conservative backfilling whose compression searches every job from ``now``.

    The reference for the proof-guided search of the policy: each waiting
    job, in queue order, gives up its booking for its earliest fit when that
    is earlier (Mu'alem & Feitelson 2001, §2), found by a scan from ``now``.
    """

    def _compress(self, ctx, plan):
        now = ctx.now
        profile = plan.profile()
        for job in in_order(ctx.waiting.values(), self.order):
            arrival = self._arrival.get(job.id)
            old = now if arrival is None else int(plan.starts[arrival])
            if old <= now:
                continue
            start = profile.earlier_fit(job.width, job.estimate, now, old)
            if start >= 0:
                profile.release(old, job.estimate, job.width)
                profile.reserve(start, job.estimate, job.width)
                plan.book(arrival, start)
        plan.load(profile)


@pytest.mark.parametrize("overrun", OVERRUNS)
@pytest.mark.parametrize("order", ORDERS)
@given(workload=workloads())
def test_conservative_compression_equals_a_scan_of_every_job_from_now(order, overrun, workload):
    fast = run(workload, schedlab.make_policy(f"{order}+conservative"), overrun=overrun)
    reference = run(workload, ScanFromNowConservative(order=order), overrun=overrun)
    assert_identical(fast, reference)


@pytest.mark.parametrize("name,order", QUEUE_POLICIES)
@given(workload=workloads(max_jobs=10))
def test_queue_policies_make_no_promises(name, order, workload):
    result = run(workload, schedlab.make_policy(name))
    assert np.all(result.planned_start == -1)


def test_the_classic_compositions_are_registered():
    """The nine compositions this module checks family by family are all built in."""
    registry = schedlab.available_policies()
    classic = {f"{o}+{f}" if f != "none" else o for o in ORDERS
               for f in ("none", "easy", "conservative")}
    assert {n for n in classic if registry.get(n) and registry[n].source == "schedlab"} == classic


def test_workloads_strategy_reaches_the_corners():
    """The strategy draws bursts, zero runtimes, bad estimates and machine-wide jobs."""
    seen: Counter[str] = Counter()

    @given(workload=workloads())
    def collect(workload: Workload) -> None:
        jobs = workload.jobs
        seen["burst"] += any(a.submit == b.submit for a, b in itertools.pairwise(jobs))
        seen["zero runtime"] += any(j.runtime == 0 for j in jobs)
        seen["underestimate"] += any(j.estimate < j.runtime for j in jobs)
        seen["overestimate"] += any(j.estimate > j.runtime for j in jobs)
        seen["machine-wide"] += any(j.width == workload.processors > 1 for j in jobs)

    collect()
    assert set(seen) == {"burst", "zero runtime", "underestimate", "overestimate", "machine-wide"}
    assert all(count > 0 for count in seen.values()), seen
