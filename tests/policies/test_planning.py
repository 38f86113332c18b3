"""Planning-based scheduling (Streit 2002, §5): hand-worked schedules and properties.

The golden schedules below are worked out by hand in the comments; each one
also runs the matching ``+conservative`` policy where the two differ, to pin
down exactly what docs/reference/policies/planning.md says: the plan is rebuilt in
policy order at *every* job end, so a job can start later than its first
promise, while conservative backfilling never moves a reservation later.
Semantics used: a job holds its processors on [start, start + min(runtime,
estimate)); at one instant all finishes, then all submissions, then one pass.
"""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine.simulator import run
from schedlab.policies.orderings import in_order, in_order_at, lxf_key_at
from schedlab.policies.planning import PlanningScheduler
from schedlab.policies.registry import make_policy
from schedlab.policies.reservations import RESERVATION_PARAMS
from schedlab.testing import check_invariants, check_policy
from schedlab.workload.job import Job
from strategies import workloads

from .helpers import by_id, simulate, workload

PLAN_POLICIES = ["fcfs+plan", "sjf+plan", "ljf+plan", "lxf+plan"]


# ----------------------------------------------------------- golden schedules
def test_fcfs_plan_rebuild_can_start_a_job_later_than_promised():
    """4 processors; (id, submit, runtime, estimate, width).

    t=1: jobs 1 (rt 5, est 10, w2), 2 (rt 1, est 4, w3), 3 (rt 5, est 5, w2)
    arrive and are placed in arrival order: 1 at 1 on [1,11) leaves 2 free,
    so 2 (w3) fits only at 11; 3 (w2) fits at 1 on [1,6).  1 and 3 start.
    t=2: job 4 (est 2, w2): nothing free on [1,6), 2 free on [6,11) -> 6.
    t=6: 1 ends early (expected 11) and 3 ends.  Rebuild, FCFS order, empty
    machine: 2 at 6 on [6,10) (1 free left), 4 (w2) then fits only at 10.
    Job 2 starts at 6.  t=7: 2 ends early (est 4) -> rebuild: 4 at 7.
    Job 4 was promised 6 and starts at 7: later than its promise.

    fcfs+conservative at t=6 compresses in arrival order while 4 keeps its
    slot [6,8): 2 (w3) cannot fit beside it before 8, so 4 starts at 6 and
    2 at 8 — nobody starts later than promised.
    """
    load = workload(4, (1, 1, 5, 10, 2), (2, 1, 1, 4, 3), (3, 1, 5, 5, 2), (4, 2, 2, 2, 2))
    plan = simulate("fcfs+plan", load)
    assert by_id(plan, "planned_start") == {1: 1, 2: 11, 3: 1, 4: 6}
    assert by_id(plan, "start") == {1: 1, 2: 6, 3: 1, 4: 7}
    assert by_id(plan, "end") == {1: 6, 2: 7, 3: 6, 4: 9}
    conservative = simulate("fcfs+conservative", load)
    assert by_id(conservative, "start") == {1: 1, 2: 8, 3: 1, 4: 6}


def test_fcfs_plan_rebuild_gives_the_freed_room_to_the_earlier_wide_job():
    """4 processors; why fcfs+plan can wait longer than fcfs+conservative (planning.md).

    t=2: 1 (est 6, w2) on [2,8); 2 (est 8, w3) fits only at 8; 4 (est 4, w1)
    on [2,6).  1 and 4 start.  t=3: 3 (rt 1, est 2, w2) is placed at 6, on
    [6,8).  t=4: 1 and 4 end early and the machine is empty.
    fcfs+plan rebuilds in arrival order: 2 (w3) first, at 4 on [4,12); 3
    (w2) no longer fits before 12.  2 runs 7 s and ends at 11: 3 starts at
    11.  Waits 2 and 8.
    fcfs+conservative compresses in arrival order, 3 keeping its slot: 2
    cannot fit before 8 beside it and stays; 3 moves to 4, ends at 5, and
    the next compression moves 2 to 5.  Waits 3 and 1.
    The rebuild gave the wide job 1 s and cost the narrow one 7 s.
    """
    load = workload(4, (1, 2, 2, 6, 2), (2, 2, 7, 8, 3), (3, 3, 1, 2, 2), (4, 2, 2, 4, 1))
    plan = simulate("fcfs+plan", load)
    assert by_id(plan, "planned_start") == {1: 2, 2: 8, 3: 6, 4: 2}
    assert by_id(plan, "start") == {1: 2, 2: 4, 3: 11, 4: 2}
    conservative = simulate("fcfs+conservative", load)
    assert by_id(conservative, "start") == {1: 2, 2: 5, 3: 4, 4: 2}
    waits = [int((run.start - run.submit).sum()) for run in (plan, conservative)]
    assert waits == [10, 4]


def test_sjf_plan_puts_a_short_newcomer_first_at_the_next_job_end():
    """4 processors, every job machine-wide.

    t=0: 1 (est 100) starts.  t=1: 2 (est 100) placed at 100.  t=2: 3 (est
    10) is placed around the plan, not in SJF order: after 2, at 200.
    t=100: 1 ends on time; rebuild in SJF order: 3 (est 10) at 100, 2 at 110.
    Job 2 was promised 100 and starts at 110.  sjf+conservative never lets a
    newcomer displace a reservation: 2 at 100, 3 at 200.
    """
    load = workload(4, (1, 0, 100, 100, 4), (2, 1, 100, 100, 4), (3, 2, 10, 10, 4))
    plan = simulate("sjf+plan", load)
    assert by_id(plan, "planned_start") == {1: 0, 2: 100, 3: 200}
    assert by_id(plan, "start") == {1: 0, 2: 110, 3: 100}
    conservative = simulate("sjf+conservative", load)
    assert by_id(conservative, "start") == {1: 0, 2: 100, 3: 200}


def test_ljf_plan_rebuilds_at_an_on_time_end_and_fills_holes_at_submission():
    """4 processors.

    t=0: 1 (est 50, w3) starts on [0,50); 2 (est 10, w4) placed at 50.
    t=5: 3 (est 40, w1) and 4 (est 60, w1) arrive; placed in arrival order
    around the plan: 3 in the hole [5,45) beside job 1 -> starts at 5;
    4 needs 60 s on one processor: [45,50) is free but 2 takes all four on
    [50,60) -> 4 at 60.
    t=45: 3 ends on time — still a job end, so the plan is rebuilt in LJF
    order: 4 (est 60) first, at 45 on the processor beside job 1 until 105;
    then 2 (w4) only at 105.  Job 2 was promised 50 and starts at 105.
    ljf+conservative only compresses after an early end: 2 at 50, 4 at 60.
    """
    load = workload(4, (1, 0, 50, 50, 3), (2, 0, 10, 10, 4), (3, 5, 40, 40, 1), (4, 5, 60, 60, 1))
    plan = simulate("ljf+plan", load)
    assert by_id(plan, "planned_start") == {1: 0, 2: 50, 3: 5, 4: 60}
    assert by_id(plan, "start") == {1: 0, 2: 105, 3: 5, 4: 45}
    conservative = simulate("ljf+conservative", load)
    assert by_id(conservative, "start") == {1: 0, 2: 50, 3: 5, 4: 60}


def test_a_job_submitted_at_a_job_end_takes_part_in_the_rebuild():
    """2 processors, machine-wide jobs.

    t=0: 1 (runtime 30, est 100) starts.  t=1: 2 (est 50) placed at 100.
    t=30: 1 ends early and 3 (est 5) arrives at the same instant: finishes,
    then submissions, then one pass — the rebuild places both waiting jobs
    in SJF order: 3 at 30, 2 at 35.  Job 3's first promise is 30 (it was
    never placed into the stale plan, where it would have got 150).
    """
    load = workload(2, (1, 0, 30, 100, 2), (2, 1, 50, 50, 2), (3, 30, 5, 5, 2))
    plan = simulate("sjf+plan", load)
    assert by_id(plan, "planned_start") == {1: 0, 2: 100, 3: 30}
    assert by_id(plan, "start") == {1: 0, 2: 35, 3: 30}


def test_lxf_plan_orders_by_expansion_factor_at_the_rebuild():
    """2 processors, machine-wide jobs, every runtime equal to its estimate.

    t=0: 1 (est 100) starts.  Placed around the plan on arrival: 2 (t=1, est
    50) at 100, 3 (t=2, est 400) at 150, 4 (t=90, est 20) at 550.
    t=100: 1 ends; expansion factors (100 - submit + est) / est: job 2
    149/50 = 2.98, job 3 498/400 = 1.245, job 4 30/20 = 1.5 -> order 2, 4, 3:
    2 at 100, 4 at 150, 3 at 170.  (FCFS: 2, 3, 4; SJF: 4, 2, 3; LJF: 3, 2, 4.)
    """
    load = workload(2, (1, 0, 100, 100, 2), (2, 1, 50, 50, 2), (3, 2, 400, 400, 2),
                    (4, 90, 20, 20, 2))
    assert by_id(simulate("lxf+plan", load), "start") == {1: 0, 2: 100, 3: 170, 4: 150}
    assert by_id(simulate("fcfs+plan", load), "start") == {1: 0, 2: 100, 3: 150, 4: 550}
    assert by_id(simulate("sjf+plan", load), "start") == {1: 0, 2: 120, 3: 170, 4: 100}
    assert by_id(simulate("ljf+plan", load), "start") == {1: 0, 2: 500, 3: 100, 4: 550}


def test_an_overrun_under_extend_makes_the_plan_follow_the_machine():
    """2 processors, overrun="extend".

    t=0: 1 (runtime 15, est 10, w2) starts.  t=1: 2 (est 5, w2) placed at 10.
    t=10 (a wake-up: 1 still runs past its estimate): 2 is due but does not
    fit; the plan is rebuilt from the machine, where 1 is expected to end at
    now + 1, and so on each second until 1 really ends at 15.  2 starts at 15.
    """
    load = workload(2, (1, 0, 15, 10, 2), (2, 1, 5, 5, 2))
    result = simulate("fcfs+plan", load, overrun="extend")
    assert by_id(result, "planned_start") == {1: 0, 2: 10}
    assert by_id(result, "start") == {1: 0, 2: 15}
    assert by_id(result, "end") == {1: 15, 2: 20}


class Recording(PlanningScheduler):
    """A planning policy that records its proposed starts after every pass."""

    def __init__(self, *, order: str = "fcfs") -> None:
        super().__init__(order=order)
        self.seen: list[tuple[int, dict[int, int]]] = []

    def schedule(self, ctx) -> None:
        super().schedule(ctx)
        self.seen.append((ctx.now, self.proposed_starts()))


def test_proposed_starts_follow_the_current_plan():
    """The sjf+plan scenario above: job 2's proposal moves from 100 to 110 at t=100."""
    load = workload(4, (1, 0, 100, 100, 4), (2, 1, 100, 100, 4), (3, 2, 10, 10, 4))
    policy = Recording(order="sjf")
    run(load, policy)
    assert policy.seen == [(0, {}), (1, {2: 100}), (2, {2: 100, 3: 200}), (100, {2: 110}),
                           (110, {}), (210, {})]


def test_names_and_parameters():
    assert make_policy("sjf+plan").name == "sjf+plan"
    assert make_policy("lxf+plan").get_params() == {"order": "lxf", "predictor": "estimate",
                                                    **RESERVATION_PARAMS}


# ------------------------------------------------------------------ orderings
def test_lxf_key_orders_by_expansion_factor_then_submit_then_id():
    # At t=100: (100-0+100)/100 = 2.0, (100-50+50)/50 = 2.0, (100-60+10)/10 = 5.0
    jobs = [Job(1, 0, 1, 100, 1), Job(2, 50, 1, 50, 1), Job(3, 60, 1, 10, 1), Job(4, 0, 1, 100, 1)]
    assert [j.id for j in in_order_at(jobs, "lxf", 100)] == [3, 1, 4, 2]
    # At t=60 job 3 has waited 0 s: factors 1.6, 1.2, 1.0, 1.6.
    assert [j.id for j in in_order_at(jobs, "lxf", 60)] == [1, 4, 2, 3]
    assert lxf_key_at(100)(jobs[2]) == (-5.0, 60, 3)


def test_in_order_at_keeps_the_static_orderings():
    jobs = [Job(1, 0, 1, 30, 1), Job(2, 1, 1, 10, 1), Job(3, 2, 1, 20, 1)]
    for order in ("fcfs", "sjf", "ljf"):
        assert in_order_at(jobs, order, 999) == in_order(jobs, order)


# ----------------------------------------------------------------- properties
@pytest.mark.parametrize("name", PLAN_POLICIES)
def test_conformance_suite(name):
    check_policy(name)


@pytest.mark.parametrize("name", PLAN_POLICIES)
@given(load=workloads())
def test_every_job_gets_a_promise_at_submission(name, load):
    result = run(load, make_policy(name))
    assert np.all(result.planned_start >= result.submit)


@given(load=workloads(early_ends=False))
def test_fcfs_plan_keeps_every_promise_without_early_ends(load):
    """FCFS placement on arrival is what an FCFS rebuild gives, so nothing moves."""
    result = run(load, make_policy("fcfs+plan"))
    assert np.array_equal(result.start, result.planned_start)


@given(load=workloads(early_ends=False))
def test_fcfs_plan_is_fcfs_conservative_without_early_ends(load):
    plan = run(load, make_policy("fcfs+plan"))
    conservative = run(load, make_policy("fcfs+conservative"))
    assert np.array_equal(plan.start, conservative.start)
    assert np.array_equal(plan.planned_start, conservative.planned_start)


def brute_force_placement(capacity: int, now: int, held: list[tuple[int, int, int]],
                          jobs: list[Job]) -> dict[int, int]:
    """Earliest-fit placement in order, by trying every candidate start time.

    ``held`` are (start, end, width) intervals already in the schedule.  A
    start is feasible if at every interval boundary inside the job's window
    the processors in use plus its width fit.  Candidates: now and every end.
    """
    held = list(held)
    placed = {}
    for job in jobs:
        for t in sorted({now} | {end for _, end, _ in held if end > now}):
            window_end = t + job.estimate
            checkpoints = {t} | {s for s, _, _ in held if t < s < window_end}
            if all(sum(w for s, e, w in held if s <= c < e) + job.width <= capacity
                   for c in checkpoints):
                placed[job.id] = t
                held.append((t, window_end, job.width))
                break
    return placed


class CheckedRebuilds(PlanningScheduler):
    """Compares every rebuild, in Python or in the compiled state, with :func:`brute_force_placement`.

    Reading the plan between a compiled rebuild and the start of its due
    jobs also makes those jobs start from the plan's heap: the state must
    not take them out twice.
    """

    def _update_plan(self, ctx) -> None:
        replan = self._replan
        super()._update_plan(ctx)
        if replan:
            self.check(ctx)

    def rebuild(self, ctx) -> None:
        super().rebuild(ctx)
        self.check(ctx)

    def check(self, ctx) -> None:
        self.checked = getattr(self, "checked", 0) + 1
        held = [(ctx.now, end, width) for end, width in ctx.releases()]
        queue = in_order_at(ctx.waiting.values(), self.order, ctx.now)
        assert self.proposed_starts() == brute_force_placement(ctx.processors, ctx.now, held, queue)


@pytest.mark.parametrize("order", ["fcfs", "sjf", "ljf", "lxf"])
@pytest.mark.parametrize("overrun", ["kill", "extend"])
@given(load=workloads(max_jobs=12))
def test_every_rebuild_is_the_earliest_fit_placement_in_policy_order(order, overrun, load):
    policy = CheckedRebuilds(order=order)
    check_invariants(run(load, policy, overrun=overrun), load, overrun=overrun)
    assert policy.checked > 0
    assert policy._rebuilds_compiled == (order != "lxf" and overrun == "kill")


@pytest.mark.parametrize("order,overrun", [("lxf", "kill"), ("sjf", "extend")])
@given(load=workloads(max_jobs=12))
def test_every_compiled_python_rebuild_is_the_earliest_fit_placement_in_policy_order(
        order, overrun, load):
    """The same check with every queue of two jobs or more placed by ``place_queue``'s twin.

    (Runs without the compiled state: an order that changes with time, or overruns.)
    """
    with patch("schedlab.policies.planning.COMPILED_FROM", 2):
        run(load, CheckedRebuilds(order=order), overrun=overrun)


class PythonRebuilds(PlanningScheduler):
    """The planning scheduler without its compiled state: the reference of the compiled rebuild."""

    def _new_state(self, ctx):
        return None


@pytest.mark.parametrize("order", ["fcfs", "sjf", "ljf"])
@given(load=workloads(), tick=st.sampled_from([0, 0, 7]),
       limit=st.sampled_from([None, None, 1, 3]))
def test_compiled_rebuilds_plan_as_the_python_rebuild(order, load, tick, limit):
    """The same starts and promises with the rebuild in the compiled state or in Python.

    With a scheduling tick a planned start can pass between two passes (the
    plan is then rebuilt in Python from the state's profile); a per-user
    queue limit releases held jobs after later submissions.
    """
    options = dict(tick=tick, max_queued_per_user=limit)
    policy = PlanningScheduler(order=order)
    compiled = run(load, policy, **options)
    plain = run(load, PythonRebuilds(order=order), **options)
    assert policy._rebuilds_compiled
    check_invariants(compiled, load)
    assert np.array_equal(compiled.start, plain.start)
    assert np.array_equal(compiled.planned_start, plain.planned_start)


class CheckedPlans(PlanningScheduler):
    """After every pass the plan (running jobs + proposed starts) fits the machine."""

    def schedule(self, ctx) -> None:
        super().schedule(ctx)
        profile = ctx.profile()
        for job_id, start in self.proposed_starts().items():
            job = ctx.waiting[job_id]
            assert start > ctx.now
            profile.reserve(start, job.estimate, job.width)   # raises if it does not fit


@pytest.mark.parametrize("order", ["fcfs", "sjf"])
@given(load=workloads())
def test_the_plan_always_fits_under_kill(order, load):
    run(load, CheckedPlans(order=order))
