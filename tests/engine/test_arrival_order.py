"""The run of plain FCFS in one compiled call (engine/arrival_order.py) against the event loop.

The engine takes the compiled run for a policy that declares
``starts_in_arrival_order`` and a run with nothing but submissions and
finishes; a subclass of FCFS takes the event loop, which makes it the
reference here.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine.result import Result
from schedlab.engine.simulator import Simulation, run
from schedlab.policies import make_policy
from schedlab.policies.backfilling import NoBackfilling
from schedlab.workload.job import Job, Workload
from strategies import workloads


class EventLoopFCFS(NoBackfilling):
    """FCFS run by the event loop: a subclass does not declare arrival order."""


def assert_same_result(fast: Result, loop: Result) -> None:
    """Every field equal, but for the wall time of the run."""
    for field in dataclasses.fields(Result):
        mine, theirs = getattr(fast, field.name), getattr(loop, field.name)
        if field.name == "meta":
            mine = {k: v for k, v in mine.items() if k != "wall_time_s"}
            theirs = {k: v for k, v in theirs.items() if k != "wall_time_s"}
        if isinstance(mine, np.ndarray):
            assert mine.dtype == theirs.dtype, field.name
            assert np.array_equal(mine, theirs), field.name
        else:
            assert mine == theirs, field.name


def takes_arrival_order(workload: Workload, policy, **options) -> bool:
    return Simulation(workload, policy, **options).in_arrival_order()


@given(workloads(max_jobs=40), st.sampled_from(["kill", "extend"]), st.integers(0, 3),
       st.integers(0, 4))
def test_the_compiled_run_equals_the_event_loop(workload, overrun, grace, spare):
    machine = max(job.width for job in workload.jobs) + spare
    fast_policy, loop_policy = NoBackfilling(), EventLoopFCFS()
    fast_policy.kill_grace = loop_policy.kill_grace = grace
    assert takes_arrival_order(workload, NoBackfilling(), processors=machine)
    assert not takes_arrival_order(workload, EventLoopFCFS(), processors=machine)
    fast = run(workload, fast_policy, processors=machine, overrun=overrun)
    loop = run(workload, loop_policy, processors=machine, overrun=overrun)
    assert_same_result(fast, loop)


def test_zero_runtimes_make_a_second_pass_at_their_instant():
    # At 5 job 1 ends and job 2 takes the whole machine for 0 s, job 3 waiting; the second
    # pass at 5 starts job 3, back to the values of time 0: the row at 5 stays, as in the
    # event loop's series.
    workload = Workload((Job(1, 0, 5, 5, 1), Job(2, 5, 0, 1, 2), Job(3, 5, 3, 3, 1)), 2)
    fast = run(workload, make_policy("fcfs"))
    assert_same_result(fast, run(workload, EventLoopFCFS()))
    assert fast.start.tolist() == [0, 5, 5]
    assert fast.end.tolist() == [5, 5, 8]
    assert fast.series_time.tolist() == [0, 5, 8]
    assert fast.series_busy.tolist() == [1, 1, 0]
    assert fast.series_queue.tolist() == [0, 0, 0]


def test_the_policy_is_not_called(monkeypatch):
    def refuse(self, ctx):
        raise AssertionError("the compiled run calls no pass")

    monkeypatch.setattr(NoBackfilling, "schedule", refuse)
    workload = Workload((Job(1, 0, 5, 5, 2), Job(2, 1, 4, 4, 1)), 2)
    assert run(workload, make_policy("fcfs")).start.tolist() == [0, 5]


def test_progress_is_reported_once_at_the_end():
    workload = Workload(tuple(Job(k, k, 3, 3, 1) for k in range(1, 6)), 2)
    calls = []
    run(workload, make_policy("fcfs"), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(5, 5)]


@pytest.mark.parametrize(("policy", "options", "cancel"), [
    ("sjf", {}, False),
    ("fcfs+easy", {}, False),
    ("fcfs", {"tick": 10}, False),
    ("fcfs", {"max_queued_per_user": 1}, False),
    ("fcfs", {"reservations": ()}, False),
    ("fcfs", {"windows": ()}, True),
])
def test_anything_but_submissions_and_finishes_takes_the_event_loop(policy, options, cancel):
    jobs = (Job(1, 0, 5, 5, 2, cancel_after=3 if cancel else None), Job(2, 1, 4, 4, 1))
    workload = Workload(jobs, 2)
    assert not takes_arrival_order(workload, make_policy(policy), **options)
    assert takes_arrival_order(Workload((Job(2, 1, 4, 4, 1),), 2), make_policy("fcfs"))
