"""The event loop: same-time order, zero runtimes, wake-ups, overruns, series, errors.

Every expected schedule below is worked out by hand from docs/reference/engine.md
("Events and the same-time order", "How long a job holds its processors").
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.api import simulate
from schedlab.engine.simulator import run
from schedlab.errors import InputError, PolicyError
from schedlab.policies import make_policy
from schedlab.policies.base import Policy
from schedlab.workload.job import Job, Workload
from strategies import workloads


class Logged(Policy):
    """FCFS without backfilling that logs every call the engine makes.

    ``wakes`` maps an instant to the times the policy asks to be woken at
    during its pass at that instant; ``hold`` lists instants at which it
    starts nothing.
    """

    name = "logged"

    def __init__(self, *, wakes: dict[int, list[int]] | None = None,
                 hold: tuple[int, ...] = ()) -> None:
        self.wakes = wakes
        self.hold = hold
        self.log: list[tuple] = []

    def on_submit(self, ctx, job) -> None:
        self.log.append(("submit", ctx.now, job.id, ctx.free))

    def on_finish(self, ctx, job) -> None:
        self.log.append(("finish", ctx.now, job.id))

    def schedule(self, ctx) -> None:
        self.log.append(("schedule", ctx.now))
        for t in (self.wakes or {}).get(ctx.now, []):
            ctx.wake_at(t)
        if ctx.now in self.hold:
            return
        for job in list(ctx.waiting.values()):
            if job.width > ctx.free:
                return
            ctx.start(job)

    def passes(self) -> list[int]:
        return [entry[1] for entry in self.log if entry[0] == "schedule"]


# ------------------------------------------------------------ same-time order
def test_finishes_then_submissions_then_one_pass():
    # Jobs 7 and 2 both end at 10; jobs 3 and 4 arrive at 10.
    workload = Workload((Job(7, 0, 10, 10, 2), Job(2, 1, 9, 9, 2),
                         Job(3, 10, 5, 5, 1), Job(4, 10, 5, 5, 4)), 4)
    policy = Logged()
    result = run(workload, policy)
    assert policy.log == [
        ("submit", 0, 7, 4), ("schedule", 0),
        ("submit", 1, 2, 2), ("schedule", 1),
        ("finish", 10, 2), ("finish", 10, 7),          # finishes by job id
        ("submit", 10, 3, 4), ("submit", 10, 4, 4),    # they see both finishes
        ("schedule", 10),                              # one pass for the instant
        ("finish", 15, 3), ("schedule", 15),
        ("finish", 20, 4), ("schedule", 20),
    ]
    assert result.start.tolist() == [0, 1, 10, 15]
    assert result.end.tolist() == [10, 10, 15, 20]


def test_zero_runtime_job_ends_at_its_start_with_a_second_pass():
    workload = Workload((Job(1, 0, 0, 1, 2), Job(2, 0, 5, 5, 2)), 2)
    policy = Logged()
    result = run(workload, policy)
    assert policy.log == [
        ("submit", 0, 1, 2), ("submit", 0, 2, 2), ("schedule", 0),
        ("finish", 0, 1), ("schedule", 0),             # second batch at 0
        ("finish", 5, 2), ("schedule", 5),
    ]
    assert result.start.tolist() == [0, 0]
    assert result.end.tolist() == [0, 5]
    assert result.status_names() == ["finished", "finished"]
    # The second pass at 0 overwrites the first entry of the series.
    assert result.series_time.tolist() == [0, 5]
    assert result.series_busy.tolist() == [2, 0]
    assert result.series_queue.tolist() == [0, 0]


def test_several_wake_ups_for_one_instant_give_one_pass():
    workload = Workload((Job(1, 0, 3, 3, 1), Job(2, 12, 1, 1, 1)), 1)
    # At 0: three requests for 7 and one for 12 (a submission instant);
    # at 7: one more request for 12.
    policy = Logged(wakes={0: [7, 7, 12, 7], 7: [12]}, hold=(0,))
    result = run(workload, policy)
    assert policy.passes() == [0, 7, 10, 12, 13]
    assert result.start.tolist() == [7, 12]


# --------------------------------------------------------------- overrun modes
@pytest.mark.parametrize("overrun,starts,ends,statuses", [
    ("kill", [0, 20, 25], [20, 25, 35], ["killed", "finished", "finished"]),
    ("extend", [0, 30, 35], [30, 35, 45], ["finished", "finished", "finished"]),
])
def test_kill_or_extend_a_job_past_its_estimate(overrun, starts, ends, statuses):
    # Job 1 needs 30 s but asked for 20; job 3's runtime equals its estimate.
    workload = Workload((Job(1, 0, 30, 20, 4), Job(2, 0, 5, 5, 4), Job(3, 0, 10, 10, 4)), 4)
    result = run(workload, make_policy("fcfs"), overrun=overrun)
    assert result.start.tolist() == starts
    assert result.end.tolist() == ends
    assert result.status_names() == statuses
    assert result.meta["overrun"] == overrun


def test_job_ending_before_its_estimate_is_finished():
    result = run(Workload((Job(1, 0, 4, 100, 1),), 1), make_policy("fcfs"))
    assert (result.start.tolist(), result.end.tolist()) == ([0], [4])
    assert result.status_names() == ["finished"]


# ------------------------------------------------------------------- the series
SERIES_WORKLOAD = Workload((Job(1, 0, 10, 10, 2), Job(2, 0, 5, 5, 4), Job(3, 2, 3, 3, 2)), 4)


@pytest.mark.parametrize("policy,series", [
    # FCFS: job 2 (machine-wide) waits for job 1; job 3 waits behind job 2.
    ("fcfs", [(0, 2, 1), (2, 2, 2), (10, 4, 1), (15, 2, 0), (18, 0, 0)]),
    # EASY: job 2's shadow time is 10; job 3 ends at 5 <= 10, so it backfills at 2.
    ("fcfs+easy", [(0, 2, 1), (2, 4, 1), (5, 2, 1), (10, 4, 0), (15, 0, 0)]),
])
def test_utilization_and_queue_series(policy, series):
    result = run(SERIES_WORKLOAD, make_policy(policy))
    got = list(zip(result.series_time.tolist(), result.series_busy.tolist(),
                   result.series_queue.tolist()))
    assert got == series


# ------------------------------------------------------------ machine and input
def test_processors_override():
    workload = Workload((Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 4)), 4)
    assert run(workload, make_policy("fcfs")).start.tolist() == [0, 10]
    wider = run(workload, make_policy("fcfs"), processors=8)
    assert wider.start.tolist() == [0, 0]
    assert wider.processors == 8


@given(workloads(max_jobs=15), st.integers(0, 5))
def test_override_equals_a_workload_of_that_size(workload, spare):
    machine = max(job.width for job in workload.jobs) + spare
    overridden = run(workload, make_policy("fcfs+easy"), processors=machine)
    resized = run(workload.with_jobs(workload.jobs, processors=machine), make_policy("fcfs+easy"))
    for column in ("start", "end", "status", "series_time", "series_busy", "series_queue"):
        assert np.array_equal(getattr(overridden, column), getattr(resized, column)), column


def test_job_wider_than_the_machine_is_an_input_error():
    workload = Workload((Job(1, 0, 10, 10, 2), Job(9, 0, 10, 10, 6), Job(4, 1, 1, 1, 5)), 4)
    with pytest.raises(InputError) as caught:
        run(workload, make_policy("fcfs"))
    assert caught.value.field == "processors"
    assert "2 job(s) are wider than the 4-processor machine (first: job 9)" in str(caught.value)


def test_override_narrower_than_a_job_is_an_input_error():
    workload = Workload((Job(1, 0, 10, 10, 4),), 4)
    with pytest.raises(InputError, match="wider than the 3-processor machine"):
        run(workload, make_policy("fcfs"), processors=3)


@pytest.mark.parametrize("processors", [0, -1])
def test_machine_needs_a_processor(processors):
    with pytest.raises(InputError) as caught:
        run(Workload((), 4), make_policy("fcfs"), processors=processors)
    assert caught.value.field == "processors"


@pytest.mark.parametrize("runner", [run, simulate])
def test_unknown_overrun_mode_is_an_input_error(runner):
    workload = Workload((Job(1, 0, 10, 10, 1),), 4)
    with pytest.raises(InputError) as caught:
        runner(workload, make_policy("fcfs"), overrun="pause")
    assert caught.value.field == "overrun"
    assert "expected one of kill, extend, got 'pause'" in str(caught.value)


def test_duplicate_job_ids_are_an_input_error():
    workload = Workload((Job(1, 0, 10, 10, 1), Job(1, 5, 10, 10, 1)), 4)
    with pytest.raises(InputError, match="job ids must be unique"):
        run(workload, make_policy("fcfs"))


def test_empty_workload_gives_an_empty_result():
    result = run(Workload((), 4), make_policy("fcfs+conservative"))
    assert len(result) == 0
    assert result.start.shape == (0,) and result.series_time.shape == (0,)


# ------------------------------------------------------------ policy mistakes
class Idle(Policy):
    """Starts nothing; fails the test instead of looping forever after 100 passes."""

    name = "idle"

    def __init__(self) -> None:
        self.passes: list[int] = []

    def schedule(self, ctx) -> None:
        self.passes.append(ctx.now)
        assert len(self.passes) < 100, "the engine keeps calling a policy that starts nothing"


@pytest.mark.parametrize("tick", [0, 10])
def test_policy_that_never_starts_a_job_is_a_policy_error(tick):
    workload = Workload((Job(1, 0, 10, 10, 1), Job(2, 3, 10, 10, 1)), 4)
    with pytest.raises(PolicyError) as caught:
        run(workload, Logged(hold=(0, 3, 10)), tick=tick)
    assert str(caught.value) == ("policy 'logged' left job 1 waiting with no event "
                                 "to come: it never starts")


@pytest.mark.parametrize("tick", [1, 10, 900])
def test_ticks_stop_when_nothing_is_left_to_happen(tick):
    """One job, a policy that starts nothing: one pass at the first tick, then the error.

    The job arrives at 5; the tick after it is its only pass.  Ticks go on
    only while an event or a submission is still to come (here none).
    """
    policy = Idle()
    with pytest.raises(PolicyError, match="left job 1 waiting"):
        run(Workload((Job(1, 5, 10, 10, 1),), 4), policy, tick=tick)
    assert policy.passes == [tick * (5 // tick + 1) if 5 % tick else 5]


def test_ticks_go_on_while_a_submission_is_still_to_come():
    # Job 2 arrives at 35: the idle policy gets every tick from 10 to 40, then stops.
    policy = Idle()
    with pytest.raises(PolicyError):
        run(Workload((Job(1, 5, 10, 10, 1), Job(2, 35, 10, 10, 1)), 4), policy, tick=10)
    assert policy.passes == [10, 20, 30, 40]


# -------------------------------------------------------------------- progress
def test_progress_reports_every_job_done_at_the_end():
    workload = Workload(tuple(Job(i, i, 3, 3, 2) for i in range(1, 8)), 2)
    calls: list[tuple[int, int]] = []
    run(workload, make_policy("fcfs"), progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (7, 7)
    assert all(total == 7 for _, total in calls)
    done = [d for d, _ in calls]
    assert done == sorted(done)


# ------------------------------------------------------------ a run advanced pass by pass
def test_a_simulation_returns_each_pass_to_its_caller():
    """Two jobs of width 2 on 2 processors, submitted at 0 and 5, runtimes 10 and 3: passes at
    0 (job 1 starts), 5 (job 2 arrives, waits), 10 (job 1 ends, job 2 starts), 13 (it ends).
    The caller makes the passes; the Result is the one ``run`` gives with fcfs."""
    from schedlab.engine.simulator import Simulation

    jobs = [Job(1, 0, 10, 20, 2, -1, -1, -1, None, False, None),
            Job(2, 5, 3, 20, 2, -1, -1, -1, None, False, None)]
    workload = Workload(jobs=tuple(jobs), processors=2, name="two")
    simulation = Simulation(workload, Policy())
    ctx = simulation.ctx
    seen = []
    for now in simulation.passes:
        seen.append((now, sorted(ctx.waiting)))
        for job in list(ctx.waiting.values()):
            if job.width <= ctx.free:
                ctx.start(job)
    assert seen == [(0, [1]), (5, [2]), (10, [2]), (13, [])]
    result = simulation.result()
    assert list(result.start) == [0, 10] and list(result.end) == [10, 13]
    assert np.array_equal(result.start, run(workload, make_policy("fcfs")).start)


@given(workloads(max_jobs=12))
def test_passes_made_by_the_caller_give_the_schedule_of_run(workload):
    """Driving ``Simulation.passes`` with a policy's ``schedule`` is ``run``, with a tick
    (the loop with ticks, reservations and queue limits) and without."""
    from schedlab.engine.simulator import Simulation

    for tick in (0, 7):
        simulation = Simulation(workload, make_policy("fcfs+easy"), tick=tick)
        for _ in simulation.passes:
            simulation.policy.schedule(simulation.ctx)
        driven = simulation.result()
        ran = run(workload, make_policy("fcfs+easy"), tick=tick)
        assert np.array_equal(driven.start, ran.start)
        assert np.array_equal(driven.series_busy, ran.series_busy)
