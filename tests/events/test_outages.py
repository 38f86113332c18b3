"""Node failures, maintenance windows and drains (docs/reference/events.md): hand-checked
schedules for each fate, window and allocation, the invariants and determinism on random
workloads for every space-sharing policy, the metrics, and bad input."""

from __future__ import annotations

import gc
import json
import math
import weakref
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import schedlab
from schedlab import Job, Workload
from schedlab.cli.app import app
from schedlab.engine.attempts import Attempts
from schedlab.engine.outages import _by_start
from schedlab.engine.simulator import run
from schedlab.errors import InputError
from schedlab.testing import check_invariants
from schedlab.workload.outages import (
    Checkpointing,
    Failure,
    FailureModel,
    FailureSpec,
    Window,
    parse_failure_spec,
    read_failures,
    read_windows,
)
from strategies import workloads

SPACE_SHARING = sorted(name for name, entry in schedlab.available_policies().items()
                       if not entry.time_sharing)

#: 4 processors.  Jobs 1 and 2 (2 wide, 100 s, estimates 200) start at 0 on processors
#: 0-1 and 2-3; job 3 (4 wide, 50 s) arrives at 10 and waits.  Node 0 fails at 30 for
#: 20 s: job 1's attempt ends there.
THREE = ((1, 0, 100, 200, 2), (2, 0, 100, 200, 2), (3, 10, 50, 60, 4))
NODE_0_AT_30 = (Failure(30, (0,), 20),)


def three_jobs() -> Workload:
    return Workload(jobs=tuple(Job(*row) for row in THREE), processors=4)


def failing(fate: str, **more) -> FailureSpec:
    return FailureSpec(replayed=NODE_0_AT_30, fate=fate, **more)


@pytest.mark.parametrize("windows", [(), (Window(5, 20, 40, 2),)])
def test_a_run_with_outages_is_freed_by_reference_counting(windows):
    """Once a run with outages is dropped nothing keeps its context alive: the outages keep
    it by a weak reference (no cycle), so the run's state goes without the cycle
    collector, which :func:`run` resumes only after dropping it.  A run that compiles a
    kernel with numba (the compiled extension not built, or out of date) leaves cycles
    holding its context until the collector runs, so a first run compiles whatever is
    not compiled yet and the run checked is the second."""
    from schedlab.engine.simulator import Simulation

    run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=failing("checkpoint"),
        windows=windows)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        simulation = Simulation(three_jobs(), schedlab.make_policy("fcfs+easy"),
                                failures=failing("checkpoint"), windows=windows)
        for _ in simulation.passes:
            simulation.policy.schedule(simulation.ctx)
        simulation.result()
        context = weakref.ref(simulation.ctx)
        del simulation
        assert context() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_run_leaves_the_cycle_collector_as_it_found_it():
    """:func:`run` pauses the collector for the whole run and restores its state, even when
    the run's input is refused."""
    assert gc.isenabled()
    run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=failing("requeue"))
    assert gc.isenabled()
    with pytest.raises(InputError):
        run(three_jobs(), schedlab.make_policy("fcfs+easy"), overrun="sometimes")
    assert gc.isenabled()


@pytest.mark.parametrize("policy", ["fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan",
                                    "dynp", "slurm"])
def test_killed_job_ends_at_the_failure(policy):
    """Job 1 fails at 30; job 3 needs all four processors: it starts when job 2 ends."""
    result = run(three_jobs(), schedlab.make_policy(policy), failures=failing("kill"))
    check_invariants(result, three_jobs())
    assert result.start.tolist() == [0, 0, 100] and result.end.tolist() == [30, 100, 150]
    assert result.status_names() == ["failed", "finished", "finished"]
    assert result.outages.attempts.tolist() == [[0, 0, 30, 0]]


#: 4 processors.  Job 1 (2 wide, 100 s) runs on processors 0-1 from 0; job 2 (4 wide,
#: 50 s) arrives at 5 and is booked at 100; processors 2-3 are idle meanwhile.
BOOKED_AT_100 = ((1, 0, 100, 100, 2), (2, 5, 50, 50, 4))


@pytest.mark.parametrize(("repair", "start", "rebuilds"), [(50, 100, 0), (120, 120, 1)])
def test_conservative_keeps_its_bookings_when_a_failure_leaves_them_possible(
        repair, start, rebuilds):
    """Processor 3 fails at 20.  Repaired at 50, before job 2's booking: the plan has it
    free until then, so the failure is booked and nothing moves (no rebuild, none at the
    repair either).  Repaired at 120, it runs into the booking at 100: the plan is made
    again and job 2 starts at the repair."""
    workload = Workload(jobs=tuple(Job(*row) for row in BOOKED_AT_100), processors=4)
    spec = FailureSpec(replayed=(Failure(20, (3,), repair - 20),))
    result = run(workload, schedlab.make_policy("fcfs+conservative"), failures=spec)
    check_invariants(result, workload)
    assert result.start.tolist() == [0, start]
    assert result.stats.get("plan_rebuilds", 0) == rebuilds


@pytest.mark.parametrize("policy", ["fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan"])
def test_requeued_job_keeps_its_place_by_arrival(policy):
    """Job 1 is queued again at 30, ahead of job 3; node 0 is back at 50, so job 1 runs
    50-150 from the start and job 3 follows."""
    result = run(three_jobs(), schedlab.make_policy(policy), failures=failing("requeue"))
    check_invariants(result, three_jobs())
    assert result.start.tolist() == [50, 0, 150] and result.end.tolist() == [150, 100, 200]
    assert result.status_names() == ["finished"] * 3
    assert result.stats["requeued"] == 1


@pytest.mark.parametrize("policy", ["fcfs", "fcfs+easy"])
def test_requeued_job_at_the_back_waits_behind_later_arrivals(policy):
    """Behind job 3, job 1 cannot pass it: EASY's shadow time for job 3 is job 2's estimated
    end, 200, and job 1 would run by its estimate to 250.  Job 3 starts when job 2 really
    ends, at 100; job 1 after it."""
    result = run(three_jobs(), schedlab.make_policy(policy),
                 failures=failing("requeue", requeue_order="back"))
    check_invariants(result, three_jobs())
    assert result.start.tolist() == [150, 0, 100] and result.end.tolist() == [250, 100, 150]


def test_checkpointed_job_restarts_from_its_last_checkpoint():
    """A checkpoint every 10 s of work costs 5 s, a restart 3 s.  Jobs 1 and 2 need
    100 + 9 x 5 = 145 s.  Job 1 fails at 30 after two checkpoints (20 s of work kept):
    80 s of work are left, 3 + 80 + 7 x 5 = 118 s from 50.  Job 3 needs 50 + 4 x 5 = 70 s."""
    spec = failing("checkpoint", checkpointing=Checkpointing(cost=5, restart=3, interval=10))
    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=spec)
    check_invariants(result, three_jobs())
    assert result.start.tolist() == [50, 0, 168] and result.end.tolist() == [168, 145, 238]
    assert result.outages.attempts.tolist() == [[0, 0, 30, 20]]
    # job 1: 2 writes before the failure, 38 s of restart and writes after; job 2: 9 writes
    assert result.outages.overhead.tolist() == [48, 45, 20]
    metrics = schedlab.compute_metrics(result)
    assert metrics["restarted"] == 1 and metrics["checkpoint_overhead"] == 2 * 48 + 2 * 45 + 4 * 20
    assert metrics["lost_work"] == 2 * (30 - 20)


def test_a_job_withdrawn_at_its_submission_keeps_its_submitted_needs():
    """Under ``checkpoint`` a job's final runtime and estimate count its writes from its
    first attempt on (job 2: 145 s, 200 + 19 x 5 = 295 s); job 3, cancelled by its user
    at its submission, never enters the queue and keeps the 50 s and 60 s it was
    submitted with."""
    jobs = three_jobs().jobs
    workload = Workload(jobs=jobs[:2] + (jobs[2]._replace(cancel_after=0),), processors=4)
    spec = failing("checkpoint", checkpointing=Checkpointing(cost=5, restart=3, interval=10))
    result = run(workload, schedlab.make_policy("fcfs+easy"), failures=spec)
    assert result.status_names()[2] == "withdrawn"
    assert result.outages.final_runtime.tolist() == [118, 145, 50]
    assert result.outages.final_estimate.tolist()[1:] == [295, 60]


@settings(max_examples=60, deadline=None)
@given(workload=workloads(max_jobs=30), cost=st.integers(0, 5), interval=st.integers(1, 40),
       fate=st.sampled_from(["kill", "requeue", "checkpoint"]))
def test_every_first_attempt_made_at_once_is_the_one_made_at_entry(workload, cost, interval,
                                                                   fate):
    """The first attempts made once for the run (only those the checkpoint writes
    lengthen made anew) are, job by job, what :meth:`Attempts.entered` makes as the job
    enters, with the same final runtimes and estimates."""
    spec = FailureSpec(fate=fate, checkpointing=Checkpointing(cost=cost, restart=1,
                                                              interval=interval))
    at_once, one_by_one = Attempts(workload.jobs, spec), Attempts(workload.jobs, spec)
    first = at_once.first_attempts(workload.jobs)
    entered = [one_by_one.entered(job, i) for i, job in enumerate(workload.jobs)]
    assert first == entered
    assert all(type(job) is type(other) for job, other in zip(first, entered))
    assert at_once.final_runtime.tolist() == one_by_one.final_runtime.tolist()
    assert at_once.final_estimate.tolist() == one_by_one.final_estimate.tolist()


def test_the_outage_metrics_of_a_killed_job():
    """Lost: job 1's 30 s on 2 processors.  Down: 1 processor for 20 s of the 4 x 150
    processor-seconds from the first submission to the last end.  Useful: jobs 2 and 3."""
    metrics = schedlab.compute_metrics(run(three_jobs(), schedlab.make_policy("fcfs+easy"),
                                           failures=failing("kill")))
    assert (metrics["failures"], metrics["jobs_hit"], metrics["failed"]) == (1, 1, 1)
    assert metrics["lost_work"] == 60
    assert metrics["availability"] == pytest.approx(1 - 20 / 600)
    assert metrics["goodput"] == pytest.approx((2 * 100 + 4 * 50) / 600)
    # attempts: job 1 at 0 (0 s) and again never; job 2 at 0; job 3 at 100 (90 s)
    assert metrics["avg_wait_attempts"] == pytest.approx(90 / 3)


def test_a_failure_on_free_processors_hits_no_job():
    spec = FailureSpec(replayed=(Failure(120, (0, 1), 100),))
    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=spec)
    check_invariants(result, three_jobs())
    # job 3 started at 100 on all four processors: it is hit at 120
    assert result.status_names() == ["finished", "finished", "failed"]
    spec = FailureSpec(replayed=(Failure(160, (0, 1), 100),))
    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=spec)
    assert result.status_names() == ["finished"] * 3 and len(result.outages.attempts) == 0


# ------------------------------------------------------------------ windows
WINDOW = (Window(notice=0, start=150, end=300, processors=2),)


@pytest.mark.parametrize("policy", ["fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp"])
def test_planning_policies_keep_jobs_out_of_an_announced_window(policy):
    """From 150 to 300 two processors are maintained.  Job 2 (estimate 200) would run into
    the window beside job 1: it waits until job 1 ends at 100, then fits beside the window.
    Job 3 needs all four processors: after the window."""
    result = run(three_jobs(), schedlab.make_policy(policy), windows=WINDOW)
    check_invariants(result, three_jobs())
    assert result.start.tolist() == [0, 100, 300] and result.end.tolist() == [100, 200, 350]
    assert result.outages.outages.tolist() == [[1, 150, 300, 2]]


def test_fcfs_ignores_the_notice_and_the_window_takes_what_is_free():
    """fcfs starts job 3 (55 s here) at 100 across the window's start; the window waits for
    its processors until job 3 ends at 155.  The run ends with its last job, there."""
    jobs = (Job(1, 0, 100, 200, 2), Job(2, 0, 100, 200, 2), Job(3, 10, 55, 60, 4))
    workload = Workload(jobs=jobs, processors=4)
    result = run(workload, schedlab.make_policy("fcfs"), windows=WINDOW)
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 0, 100] and result.end.tolist() == [100, 100, 155]
    down = dict(zip(result.outages.series_time.tolist(), result.outages.series_down.tolist()))
    assert down == {0: 0, 155: 2}


def test_a_drain_lets_running_jobs_end_and_takes_their_processors():
    """A drain of all 4 processors from 50 to 400: job 1 (to 200) and job 2 (to 100) run
    on; job 3 arrives at 60 and starts only when the drain ends."""
    jobs = (Job(1, 0, 200, 300, 2), Job(2, 0, 100, 100, 2), Job(3, 60, 10, 10, 2))
    workload = Workload(jobs=jobs, processors=4)
    drain = (Window(notice=50, start=50, end=400, processors=None, kind="drain"),)
    result = run(workload, schedlab.make_policy("fcfs+easy"), windows=drain)
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 0, 400] and result.end.tolist() == [200, 100, 410]
    assert result.status_names() == ["finished"] * 3
    down = dict(zip(result.outages.series_time.tolist(), result.outages.series_down.tolist()))
    assert down == {0: 0, 100: 2, 200: 4, 400: 0}


# ------------------------------------------------------------------ allocation
def test_allocation_decides_which_job_a_failure_hits():
    """5 processors: jobs 1-3 one wide on processors 0, 1, 2; job 2 ends at 10, leaving
    processors 1, 3, 4 free.  Job 4 (2 wide) takes 1 and 3 first-fit, 3 and 4 contiguous.
    Processor 1 fails at 30: it hits job 4 under first-fit only."""
    jobs = (Job(1, 0, 100, 100, 1), Job(2, 0, 10, 10, 1), Job(3, 0, 100, 100, 1),
            Job(4, 20, 50, 50, 2))
    workload = Workload(jobs=jobs, processors=5)
    statuses = {}
    for allocation in ("first-fit", "contiguous"):
        spec = FailureSpec(replayed=(Failure(30, (1,), 10),), allocation=allocation)
        result = run(workload, schedlab.make_policy("fcfs+easy"), failures=spec)
        check_invariants(result, workload)
        statuses[allocation] = result.status_names()[3]
    assert statuses == {"first-fit": "failed", "contiguous": "finished"}


@pytest.mark.parametrize("policy", SPACE_SHARING)
@settings(max_examples=15, deadline=None)
@given(workload=workloads(max_jobs=20), allocation=st.sampled_from(["first-fit", "contiguous",
                                                                     "any"]))
def test_outages_that_never_come_change_no_schedule(policy, workload, allocation):
    """A failure after the last job and a window announced after it: the schedule is the
    one of the run without them, whatever the allocation."""
    plain = run(workload, schedlab.make_policy(policy))
    late = max(int(plain.end.max()), 0) + 10
    spec = FailureSpec(replayed=(Failure(late, (0,), 5),), allocation=allocation)
    windows = (Window(late, late, late + 5, 1),)
    with_outages = run(workload, schedlab.make_policy(policy), failures=spec, windows=windows)
    assert np.array_equal(plain.start, with_outages.start)
    assert np.array_equal(plain.end, with_outages.end)


# ------------------------------------------------------------------ random workloads
@st.composite
def outages(draw, processors: int):
    """Failures of random nodes (never two of one node at once) and a few windows."""
    failures = []
    back: dict[int, int] = {}
    time = 0
    for _ in range(draw(st.integers(0, 4))):
        time += draw(st.integers(0, 60))
        node = draw(st.integers(0, processors - 1))
        if back.get(node, -1) > time:
            continue
        duration = draw(st.integers(1, 80))
        failures.append(Failure(time, (node,), duration))
        back[node] = time + duration
    windows = []
    for _ in range(draw(st.integers(0, 2))):
        notice = draw(st.integers(0, 200))
        start = notice + draw(st.integers(0, 100))
        kind = draw(st.sampled_from(["maintenance", "drain"]))
        if kind == "drain":
            notice = start
        windows.append(Window(notice, start, start + draw(st.integers(1, 100)),
                              draw(st.one_of(st.none(), st.integers(1, processors))), kind))
    return tuple(failures), tuple(windows)


@pytest.mark.parametrize("policy", SPACE_SHARING)
@settings(max_examples=20, deadline=None)
@given(data=st.data(), workload=workloads(max_jobs=20),
       fate=st.sampled_from(["kill", "requeue", "checkpoint"]))
def test_outages_keep_the_invariants_and_rerun_identically(policy, data, workload, fate):
    failures, windows = data.draw(outages(workload.processors))
    spec = FailureSpec(replayed=failures, fate=fate,
                       checkpointing=Checkpointing(cost=2, restart=1, interval=7),
                       requeue_order=data.draw(st.sampled_from(["arrival", "back"])),
                       allocation=data.draw(st.sampled_from(["first-fit", "contiguous", "any"])))
    first = run(workload, schedlab.make_policy(policy), failures=spec, windows=windows)
    check_invariants(first, workload)
    second = run(workload, schedlab.make_policy(policy), failures=spec, windows=windows)
    assert np.array_equal(first.start, second.start) and np.array_equal(first.end, second.end)
    assert np.array_equal(first.status, second.status)


def test_drawn_failures_are_seeded():
    workload = schedlab.load_workload("lublin", jobs=300, seed=3)
    model = FailureModel(mtbf=30 * 86400, repair=3600, seed=1)
    spec = FailureSpec(model=model, fate="requeue")
    one = run(workload, schedlab.make_policy("fcfs+easy"), failures=spec)
    check_invariants(one, workload)
    again = run(workload, schedlab.make_policy("fcfs+easy"), failures=spec)
    other = run(workload, schedlab.make_policy("fcfs+easy"),
                failures=replace(spec, model=replace(model, seed=2)))
    assert np.array_equal(one.outages.outages, again.outages.outages)
    assert np.array_equal(one.start, again.start)
    assert not np.array_equal(one.outages.outages, other.outages.outages)
    assert len(one.outages.outages) > 10


def test_a_job_longer_than_the_machine_mtbf_is_killed_after_max_requeues():
    """One processor failing every 100 s for 1 s; a job of 500 s never completes a run: it
    is queued again twice, then killed at its third failure (the run ends)."""
    workload = Workload(jobs=(Job(1, 0, 500, 500, 1),), processors=1)
    spec = FailureSpec(replayed=tuple(Failure(100 * k, (0,), 1) for k in range(1, 30)),
                       fate="requeue", max_requeues=2)
    result = run(workload, schedlab.make_policy("fcfs+easy"), failures=spec)
    check_invariants(result, workload)
    assert result.outages.attempts[:, 1:3].tolist() == [[0, 100], [101, 200], [201, 300]]
    assert result.status_names() == ["failed"] and result.end.tolist() == [300]
    metrics = schedlab.compute_metrics(result)
    assert (metrics["jobs_hit"], metrics["requeued"], metrics["failed"]) == (3, 2, 1)


def test_weibull_failures_have_the_mtbf_as_mean():
    model = FailureModel(mtbf=1000, distribution="weibull", shape=0.7)
    rng = model.generator(0)
    draws = [model.time_to_failure(rng) for _ in range(20000)]
    assert np.mean(draws) == pytest.approx(1000, rel=0.05)


def test_young_and_daly_intervals():
    """Young: sqrt(2 C M); Daly's first order: sqrt(2 C M) - C; M the job's MTBF."""
    young = Checkpointing(cost=50)
    assert young.interval_for(4, 400_000) == 3162           # sqrt(2 * 50 * 100,000)
    assert Checkpointing(cost=50, rule="daly").interval_for(4, 400_000) == 3112
    assert Checkpointing(cost=50, interval=600).interval_for(4, 400_000) == 600


# ------------------------------------------------------------------ invariants that fail
def test_check_invariants_sees_a_job_on_a_failed_processor():
    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=failing("kill"))
    intervals = result.outages.intervals
    failure = np.flatnonzero(intervals[:, 4] == -1)[0]
    intervals[failure, 2] = 20              # the failure now starts while job 1 still runs
    with pytest.raises(AssertionError, match="processor 0 is held by"):
        check_invariants(result, three_jobs())


def test_check_invariants_sees_lost_work():
    spec = failing("checkpoint", checkpointing=Checkpointing(cost=5, restart=3, interval=10))
    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=spec)
    result.outages.attempts[0, 3] = 30       # claims a checkpoint it never wrote
    with pytest.raises(AssertionError, match="does not conserve its work"):
        check_invariants(result, three_jobs())


# ------------------------------------------------------------------ input
def test_failure_file_and_window_file(tmp_path: Path):
    path = tmp_path / "failures.csv"
    path.write_text("# node failures\ntime,nodes,duration\n3600,0-2;7,600\n100,5,50\n")
    assert read_failures(str(path)) == (Failure(100, (5,), 50, 4),
                                        Failure(3600, (0, 1, 2, 7), 600, 3))
    windows = tmp_path / "maintenance.csv"
    windows.write_text("notice,start,end,nodes,kind\n0,500,900,all,maintenance\n"
                       "700,700,800,16,drain\n")
    assert read_windows(str(windows)) == (Window(0, 500, 900, None, "maintenance", 2),
                                          Window(700, 700, 800, 16, "drain", 3))


@pytest.mark.parametrize(("text", "message"), [
    ("time,nodes,duration\n10,3,100\n50,3,10\n",
     r"failures.csv:3: field nodes: node 3 fails at 50 while it is down from line 2 until 110"),
    ("time,nodes,duration\n10,3,0\n", r"failures.csv:2: field duration: expected a duration > 0"),
    ("time,nodes,duration\n-1,3,5\n", r"failures.csv:2: field time: expected a time >= 0"),
    ("time,nodes\n10,3\n", r"failures.csv:1: field duration: missing column 'duration'"),
    ("time,nodes,duration\n10,x,5\n", r"failures.csv:2: field nodes: expected an integer"),
    ("time,nodes,duration\n10,3\n", r"failures.csv:2: expected 3 fields, got 2"),
    ("time,nodes,duration\n10,5-3,5\n", r"failures.csv:2: field nodes: expected node ids"),
    ("time,nodes,duration\n1e99,3,5\n", r"failures.csv:2: field time: expected an integer"),
    ("time,nodes,duration\n10,0,9007199254740992\n",
     r"failures.csv:2: field duration: the nodes would be back after 2\*\*53 s"),
    ("time,nodes,duration\n10,٣,5\n", r"failures.csv:2: field nodes: expected an integer"),
    ("", r"failures.csv: expected a header line"),
])
def test_bad_failure_files_name_file_line_and_field(tmp_path: Path, text, message):
    path = tmp_path / "failures.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_failures(str(path))


#: 4 processors.  Job 1 (2 wide, 100 s) runs on processors 0-1, job 2 (1 wide, 50 s) on
#: processor 2; job 3 (2 wide, 30 s) arrives at 20; job 4 (1 wide) runs from 200 to 300.
#: A window from 10 to 300, announced at 0.
BESIDE_A_WINDOW = ((1, 0, 100, 100, 2), (2, 0, 50, 50, 1), (3, 20, 30, 30, 2),
                   (4, 200, 100, 100, 1))


@pytest.mark.parametrize(("policy", "window", "start", "taken"), [
    (policy, Window(0, 10, 300, 1), 100, [(3, 4, 10, 300)])
    for policy in ("fcfs+easy", "fcfs+conservative", "fcfs+plan")] + [
    ("fcfs+easy", Window(0, 10, 300, None, node_ids=(0,)), 50, [(0, 1, 100, 300)]),
    ("fcfs+plan", Window(0, 10, 300, None, node_ids=(0,)), 50, [(0, 1, 100, 300)]),
    ("fcfs+conservative", Window(0, 10, 300, None, node_ids=(0,)), 100, [(0, 1, 100, 300)]),
])
def test_a_window_on_named_nodes_claims_them_as_their_jobs_end(policy, window, start, taken):
    """A window of one processor takes the free processor 3 at 10, so job 3 waits for job
    1's end.  A window on node 0 (held by job 1) claims it only from job 1's expected end
    at 100: under EASY and +plan, which look at the machine at every pass, job 3 runs on
    processors 2-3 from 50 to 80, before it.  Conservative backfilling keeps the plan it
    made at the notice, when node 0 was still free and claimed from the window's start."""
    workload = Workload(jobs=tuple(Job(*row) for row in BESIDE_A_WINDOW), processors=4)
    result = run(workload, schedlab.make_policy(policy), windows=(window,))
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 0, start, 200]
    intervals = result.outages.intervals
    assert [tuple(row[:4]) for row in intervals[intervals[:, 4] == -2].tolist()] == taken


def test_window_files_name_nodes_and_unknown_nodes_are_refused(tmp_path: Path):
    path = tmp_path / "m.csv"
    path.write_text("start,end,nodes,node_ids\n10,300,,0;2-3\n")
    windows = read_windows(str(path))
    assert windows == (Window(10, 10, 300, None, "maintenance", 2, (0, 2, 3)),)
    assert windows[0].width(10, node_size=4) == 6       # node 2 holds 2, node 3 none
    workload = Workload(jobs=tuple(Job(*row) for row in BESIDE_A_WINDOW), processors=4)
    with pytest.raises(InputError, match=r"m.csv:2: field node_ids: node 2 does not exist"):
        run(workload, schedlab.make_policy("fcfs"), windows=windows,
            failures=FailureSpec(node_size=2))


@pytest.mark.parametrize(("text", "message"), [
    ("start,end,nodes\n500,400,all\n", r"m.csv:2: field end: the window ends \(400\) before"),
    ("notice,start,end,nodes\n600,500,900,all\n", r"m.csv:2: field notice: the window is "
                                                  r"announced \(600\) after it starts"),
    ("notice,start,end,nodes,kind\n0,500,900,4,drain\n", r"m.csv:2: field notice: a drain"),
    ("start,end,nodes\n0,10,0\n", r"m.csv:2: field nodes: expected a number of processors"),
    ("start,end,nodes,kind\n0,10,1,repair\n", r"m.csv:2: field kind: expected one of"),
    ("start,nodes\n0,1\n", r"m.csv:1: field end: missing column 'end'"),
    ("start,end,nodes,node_ids\n0,10,4,3\n", r"m.csv:2: field node_ids: give the nodes "
                                               r"either as a count"),
    ("start,end,nodes,node_ids\n0,10,,3-x\n", r"m.csv:2: field node_ids: expected an "
                                                r"integer"),
])
def test_bad_window_files_name_file_line_and_field(tmp_path: Path, text, message):
    path = tmp_path / "m.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_windows(str(path))


@pytest.mark.parametrize(("text", "message"), [
    ("mtbf=0", "field --failures mtbf: expected a duration > 0"),
    ("mtbf=-3d", "field --failures mtbf: expected a duration such as"),
    ("mtbf=nan", "field --failures mtbf: expected a duration such as"),
    ("mtbf=1d,shape=0", "field shape: expected a Weibull shape"),
    ("mtbf=1d,fate=explode", "field --failures fate: expected one of kill, requeue"),
    ("mtbf=1d,mtfb=2", "unknown key 'mtfb'"),
    ("mtbf=1d,restart_cost=5", "restart_cost applies to fate=checkpoint only"),
    ("mtbf=1d,requeue=back", "requeue applies to fate=requeue or checkpoint"),
    ("mtbf=1d,file=x.csv", "give either mtbf=SECONDS"),
    ("fate=kill", "give either mtbf=SECONDS"),
    ("mtbf=1d,node_size=0", "field --failures node_size: expected an integer >= 1"),
])
def test_bad_failure_specs_are_one_line(text, message):
    with pytest.raises(InputError, match=message):
        parse_failure_spec(text)


def test_a_spec_reads_its_keys():
    spec = parse_failure_spec("mtbf=7d,repair=30m,distribution=weibull,shape=0.8,fate=checkpoint,"
                              "checkpoint_interval=daly,checkpoint_cost=120,requeue=back,"
                              "allocation=contiguous,node_size=8", seed=5)
    assert spec.model == FailureModel(mtbf=7 * 86400, repair=1800, distribution="weibull",
                                      shape=0.8, seed=5)
    assert spec.checkpointing == Checkpointing(cost=120, restart=60, interval=None, rule="daly")
    assert (spec.fate, spec.requeue_order, spec.allocation, spec.node_size) == \
        ("checkpoint", "back", "contiguous", 8)


# ------------------------------------------------------------------ the command line
def test_the_command_line_runs_failures_and_maintenance(tmp_path: Path):
    failures = tmp_path / "failures.csv"
    failures.write_text("time,nodes,duration\n30,0,20\n")
    maintenance = tmp_path / "maintenance.csv"
    maintenance.write_text("notice,start,end,nodes\n0,140,145,1\n")
    swf = tmp_path / "three.swf"
    swf.write_text("; MaxProcs: 4\n" + "".join(
        f"{i} {s} -1 {r} {w} -1 -1 {w} {e} -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        for i, s, r, e, w in THREE))
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["simulate", str(swf), "--failures", f"{failures},fate=kill",
                                    "--maintenance", str(maintenance), "--out", str(out)])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "1 failures, 1 maintenance windows or drains; 1 attempts hit (1 failed)" in text
    assert "lost work 60 processor-s" in text
    assert "1,0,0,30,2,200,100,failed" in (out / "jobs.csv").read_text().replace(" ", "")
    meta = json.loads((out / "metrics.json").read_text())["meta"]["outages"]
    assert (meta["fate"], meta["allocation"], meta["windows"]) == ("kill", "first-fit", 1)


@pytest.mark.parametrize(("args", "message"), [
    (["--failures", "mtbf=0"], "field --failures mtbf: expected a duration > 0"),
    (["--failures", "missing.csv"], "missing.csv: no such failure file"),
    (["--failures", "mtbf=1d,fate=eject", "--policy", "gang"],
     "field --failures fate: expected one of kill, requeue, checkpoint"),
])
def test_bad_options_exit_2_with_one_line(args, message):
    done = CliRunner().invoke(app, ["simulate", "lublin", "-n", "50", *args])
    assert done.exit_code == 2
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in " ".join(done.output.split())


def test_every_outage_metric_is_documented():
    import re

    from schedlab.metrics.outages import OUTAGE_METRIC_DOCS

    metrics = schedlab.compute_metrics(run(three_jobs(), schedlab.make_policy("fcfs+easy"),
                                           failures=failing("requeue")))
    assert set(OUTAGE_METRIC_DOCS) <= set(metrics)
    page = Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md"
    documented = set(re.findall(r"^\| `([^`]+)`", page.read_text(), re.MULTILINE))
    assert set(OUTAGE_METRIC_DOCS) <= documented


def test_the_gantt_chart_draws_the_failure_and_the_ended_attempt(tmp_path: Path):
    """The run directory keeps every use of the processors (processors.csv); the chart
    places each job on the processors it held and draws the failed processor and job 1's
    first attempt, from the Result and from the directory alike."""
    from schedlab.output import processors_table, write_run_directory
    from schedlab.viz.gantt import gantt_figure

    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=failing("requeue"))
    table = processors_table(result)
    assert table.to_csv(index=False).splitlines() == [
        "kind,job_id,first,count,start,end", "ended attempt,1,0,2,0,30", "job,2,2,2,0,100",
        "failure,,0,1,30,50", "job,1,0,2,50,150", "job,3,0,4,150,200"]
    legend = [t.get_text() for t in gantt_figure(result).legends[0].get_texts()]
    assert legend == ["finished (3)", "failure (1)", "ended attempt (1)"]
    write_run_directory(result, schedlab.compute_metrics(result), tmp_path / "run")
    done = CliRunner().invoke(app, ["plot", str(tmp_path / "run"), "--kind", "gantt",
                                    "-o", str(tmp_path / "gantt.png")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "gantt.png").stat().st_size > 0


def test_the_api_takes_a_failures_text_and_a_maintenance_file(tmp_path: Path):
    maintenance = tmp_path / "m.csv"
    maintenance.write_text("notice,start,end,nodes\n0,140,145,1\n")
    result = schedlab.simulate(three_jobs(), "fcfs+easy", failures="mtbf=1d,fate=requeue,seed=4",
                               maintenance=str(maintenance))
    assert result.outages.settings["model"]["seed"] == 4
    assert schedlab.compute_metrics(result)["maintenance_windows"] == 1
    results = schedlab.compare(three_jobs(), ["fcfs", "fcfs+easy"], failures="mtbf=1d")
    assert all(r.outages is not None for r in results.values())


def test_capacity_over_time_is_written_and_drawn(tmp_path: Path):
    """capacity.csv has the processors out of service from each time on (processor 0 from
    30 to 50); the time-series figure draws the share in service beside utilization."""
    from schedlab.output import write_run_directory
    from schedlab.viz.timeseries import series_from_result, timeseries_figure

    result = run(three_jobs(), schedlab.make_policy("fcfs+easy"), failures=failing("kill"))
    write_run_directory(result, schedlab.compute_metrics(result), tmp_path / "run")
    assert (tmp_path / "run" / "capacity.csv").read_text() == "time,down\n0,0\n30,1\n50,0\n"
    figure = timeseries_figure({"easy": series_from_result(result)})
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["easy", "easy: in service"]
    done = CliRunner().invoke(app, ["plot", str(tmp_path / "run"), "--kind", "timeseries",
                                    "-o", str(tmp_path / "series.png")])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("policy", ["fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan",
                                    "dynp", "qops", "slurm"])
@settings(max_examples=25, deadline=None)
@given(data=st.data(), workload=workloads(max_jobs=16),
       fate=st.sampled_from(["kill", "requeue", "checkpoint"]))
def test_outages_with_every_other_event_keep_the_invariants(policy, data, workload, fate):
    """Failures and windows together with users' cancellations, a scheduling tick and a
    per-user queue limit: the invariants hold and a second run is identical."""
    failures, windows = data.draw(outages(workload.processors))
    delays = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 60)), min_size=1,
                                max_size=6))
    users = data.draw(st.lists(st.integers(-1, 2), min_size=1, max_size=6))
    jobs = tuple(job._replace(cancel_after=delays[k % len(delays)], user=users[k % len(users)])
                 for k, job in enumerate(workload.jobs))
    events = Workload(jobs=jobs, processors=workload.processors)
    spec = FailureSpec(replayed=failures, fate=fate,
                       checkpointing=Checkpointing(cost=2, restart=1, interval=7))
    tick = data.draw(st.sampled_from([0, 5]))
    limit = data.draw(st.sampled_from([None, 1, 2]))
    runs = [run(events, schedlab.make_policy(policy), failures=spec, windows=windows,
                tick=tick, max_queued_per_user=limit) for _ in range(2)]
    check_invariants(runs[0], events)
    assert np.array_equal(runs[0].start, runs[1].start)
    assert np.array_equal(runs[0].status, runs[1].status)


@given(processors=st.integers(1, 8) | st.integers(9, 5000),
       rows=st.lists(st.tuples(st.integers(0, 4999),
                               st.integers(-4, 4) | st.integers(-2**40, 2**40)), max_size=60),
       huge=st.booleans())
def test_the_intervals_are_ordered_by_start_then_processor_as_by_lexsort(processors, rows, huge):
    """The record's one-key sort of its intervals gives numpy's two-key lexsort order, with
    starts near the 63-bit limit (``huge``: the lexsort itself) too."""
    intervals = np.zeros((len(rows), 5), dtype=np.int64)
    for k, (lo, start) in enumerate(rows):
        intervals[k, 0], intervals[k, 2] = lo % processors, start * (2**21 if huge else 1)
    expected = np.lexsort((intervals[:, 0], intervals[:, 2]))
    assert _by_start(intervals, processors).tolist() == expected.tolist()


@settings(max_examples=60, deadline=None)
@given(mtbf=st.floats(1.0, 1e7), repair=st.floats(1.0, 1e5),
       distribution=st.sampled_from(["exponential", "weibull"]), shape=st.floats(0.1, 10),
       repair_distribution=st.sampled_from(["exponential", "fixed"]),
       seed=st.integers(0, 2**32), node=st.integers(0, 500), count=st.integers(1, 40))
def test_failures_drawn_ahead_are_those_drawn_one_by_one(mtbf, repair, distribution, shape,
                                                          repair_distribution, seed, node,
                                                          count):
    """A node's failures drawn ``count`` at a time (what the engine reads) are those of as
    many draws of numpy's exponential and Weibull distributions one by one."""
    model = FailureModel(mtbf=mtbf, repair=repair, distribution=distribution, shape=shape,
                         repair_distribution=repair_distribution, seed=seed)
    rng = model.generator(node)
    expected = []
    for _ in range(count):
        if distribution == "weibull":
            drawn = mtbf / math.gamma(1 + 1 / shape) * float(rng.weibull(shape))
        else:
            drawn = float(rng.exponential(mtbf))
        fixed = repair_distribution == "fixed"
        expected.append((max(1, round(drawn)),
                         max(1, round(repair if fixed else float(rng.exponential(repair))))))
    assert model.draws(model.generator(node), count) == expected
    one_by_one = model.generator(node)
    assert [(model.time_to_failure(one_by_one), model.repair_time(one_by_one))
            for _ in range(count)] == expected


def test_a_resumed_job_holds_processors_a_failure_can_hit():
    """4 processors: job 1 (2 wide, 100 s) starts at 0, is suspended at 10 and resumed at
    20, on processors 0-1 again; node 0 fails at 50 and ends its attempt there.  A resume
    that took no processors in the map would leave job 1 out of the failure's reach."""
    from schedlab.policies.base import Policy

    class SuspendsJobOne(Policy):
        name = "suspends-job-1"

        def schedule(self, ctx) -> None:
            if ctx.now == 0:
                for job in list(ctx.waiting.values()):
                    ctx.start(job)
                ctx.wake_at(10)
            elif ctx.now == 10:
                ctx.suspend(ctx.running[1])
                ctx.wake_at(20)
            elif ctx.now == 20:
                ctx.resume(ctx.suspended[1])

    workload = Workload(jobs=(Job(1, 0, 100, 200, 2),), processors=4)
    spec = FailureSpec(replayed=(Failure(50, (0,), 20),))
    result = run(workload, SuspendsJobOne(), failures=spec)
    assert result.status_names() == ["failed"] and result.end.tolist() == [50]
