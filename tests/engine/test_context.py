"""The Context: every invalid action raises PolicyError; suspend/resume and rejection accounting.

The policies here are tiny scripts written for the test: each one does
exactly the action under test at a chosen instant (docs/reference/engine.md, "The
Context: what a policy sees and may do").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from schedlab.engine.simulator import run
from schedlab.errors import PolicyError
from schedlab.policies.base import Policy
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload

Action = Callable[..., None]


class Scripted(Policy):
    """At each instant listed in ``script``, call ``script[now](ctx, jobs_by_id)``."""

    name = "scripted"

    def __init__(self, *, script: dict[int, Action], jobs: dict[int, Job]) -> None:
        self.script = script
        self.jobs = jobs

    def schedule(self, ctx) -> None:
        action = self.script.get(ctx.now)
        if action is not None:
            action(ctx, self.jobs)


def run_script(workload: Workload, script: dict[int, Action], overrun: str = "kill"):
    jobs = {job.id: job for job in workload.jobs}
    return run(workload, Scripted(script=script, jobs=jobs), overrun=overrun)


def start_all(*ids: int) -> Action:
    def action(ctx, jobs):
        for job_id in ids:
            ctx.start(jobs[job_id])
    return action


# Machine of 4; job 1 and 2 at time 0, job 3 (machine-wide) at time 5.
MACHINE = Workload((Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 2), Job(3, 5, 10, 10, 4)), 4)


def _reject_twice(ctx, jobs):
    ctx.reject(jobs[1], "no")
    ctx.reject(jobs[1], "no again")


def _suspend_waiting(ctx, jobs):
    ctx.suspend(jobs[1])


def _resume_running(ctx, jobs):
    ctx.start(jobs[1])
    ctx.resume(jobs[1])


def _resume_into_a_full_machine(ctx, jobs):
    ctx.suspend(jobs[1])
    ctx.start(jobs[3])
    ctx.resume(jobs[1])


@pytest.mark.parametrize("script,message", [
    ({0: start_all(3)}, "tried to start job 3 at time 0, but it is not waiting"),
    ({0: start_all(1, 2)},
     "tried to start job 2 at time 0, but it needs 2 processors and only 0 are free"),
    ({0: start_all(2, 2)}, "tried to start job 2 at time 0, but it is not waiting"),
    ({0: start_all(2), 5: start_all(2)}, "tried to start job 2 at time 5, but it is not waiting"),
    ({0: _reject_twice}, "tried to reject job 1 at time 0, but it is not waiting"),
    ({0: _suspend_waiting}, "tried to suspend job 1 at time 0, but it is not running"),
    ({0: _resume_running}, "tried to resume job 1 at time 0, but it is not suspended"),
    ({0: start_all(1), 5: _resume_into_a_full_machine},
     "tried to resume job 1 at time 5, but it needs 4 processors and only 0 are free"),
], ids=["start-not-submitted", "start-not-fitting", "start-twice-same-pass",
        "start-twice-later", "reject-twice", "suspend-not-running",
        "resume-not-suspended", "resume-not-fitting"])
def test_invalid_action_raises_policy_error_naming_policy_and_job(script, message):
    with pytest.raises(PolicyError) as caught:
        run_script(MACHINE, script)
    assert str(caught.value) == f"policy 'scripted' {message}"


@pytest.mark.parametrize("when,target", [(0, 0), (5, 3)])
def test_wake_at_not_in_the_future_raises(when, target):
    def wake(ctx, jobs):
        ctx.wake_at(target)
    with pytest.raises(PolicyError) as caught:
        run_script(MACHINE, {0: start_all(2), when: wake})
    assert str(caught.value) == (f"policy 'scripted' asked to wake at {target}, "
                                 f"which is not after now ({when})")


# ------------------------------------------------------------ suspend / resume
class Preemptive(Policy):
    """FCFS that makes room for an arriving job by suspending the running ones.

    A gang-like toy: when the head of the queue does not fit, the most recently
    started jobs are suspended until it does; when processors free up,
    suspended jobs are resumed (longest suspended first) before new starts.
    ``expected_ends`` records ``ctx.expected_end`` of every resumed job.
    """

    name = "preemptive"

    def __init__(self) -> None:
        self.started: list[Job] = []
        self.parked: list[Job] = []
        self.expected_ends: list[tuple[int, int, int]] = []

    def schedule(self, ctx) -> None:
        while self.parked and self.parked[0].width <= ctx.free:
            job = self.parked.pop(0)
            ctx.resume(job)
            self.started.append(job)
            self.expected_ends.append((ctx.now, job.id, ctx.expected_end(job)))
        for job in list(ctx.waiting.values()):
            while job.width > ctx.free and self.started:
                victim = self.started.pop()
                if victim.id in ctx.running:
                    ctx.suspend(victim)
                    self.parked.append(victim)
            if job.width > ctx.free:
                return
            ctx.start(job)
            self.started.append(job)


def preemption_workload(runtime: int, estimate: int) -> Workload:
    """Job 1 holds the whole machine; jobs 2 and 3 preempt it at 3 and at 10."""
    return Workload((Job(1, 0, runtime, estimate, 4), Job(2, 3, 5, 5, 4),
                     Job(3, 10, 2, 2, 4)), 4)


@pytest.mark.parametrize("runtime,estimate,overrun,end,status", [
    # Runs [0,3), suspended [3,8), runs [8,10), suspended [10,12), runs on.
    (10, 20, "kill", 17, "finished"),      # 0 + runtime 10 + suspended 7
    (30, 20, "kill", 27, "killed"),        # 0 + estimate 20 + suspended 7
    (30, 20, "extend", 37, "finished"),    # 0 + runtime 30 + suspended 7
])
def test_suspended_time_extends_the_end(runtime, estimate, overrun, end, status):
    workload = preemption_workload(runtime, estimate)
    policy = Preemptive()
    result = run(workload, policy, overrun=overrun)
    assert result.start.tolist() == [0, 3, 10]
    assert result.end.tolist() == [end, 8, 12]
    assert result.suspended.tolist() == [7, 0, 0]
    assert result.status_names() == [status, "finished", "finished"]
    # Expected end = start + time suspended so far + estimate.
    assert policy.expected_ends == [(8, 1, 0 + 5 + 20), (12, 1, 0 + 7 + 20)]
    check_invariants(result, workload, overrun=overrun)


def test_suspended_job_frees_its_processors_and_is_listed_as_suspended():
    seen = []

    def suspend_one(ctx, jobs):
        ctx.suspend(jobs[1])
        seen.append((ctx.free, sorted(ctx.running), sorted(ctx.suspended)))
        ctx.start(jobs[3])

    def resume_one(ctx, jobs):
        ctx.resume(jobs[1])
        seen.append((ctx.free, sorted(ctx.running), sorted(ctx.suspended)))

    workload = Workload((Job(1, 0, 10, 10, 3), Job(2, 0, 4, 4, 1), Job(3, 5, 5, 5, 4)), 4)
    result = run_script(workload, {0: start_all(1, 2), 5: suspend_one, 10: resume_one})
    assert seen == [(4, [], [1]), (1, [1], [])]
    assert result.end.tolist() == [15, 4, 10]
    assert result.suspended.tolist() == [5, 0, 0]


# ------------------------------------------------------------------ rejection
class WidthAdmission(Policy):
    """FCFS that refuses, at submission, every job wider than ``share`` of the machine."""

    name = "width-admission"

    def __init__(self, *, share: float = 0.5) -> None:
        self.share = share

    def on_submit(self, ctx, job) -> None:
        if job.width > self.share * ctx.processors:
            ctx.reject(job, f"wider than {self.share} of {ctx.processors} processors")

    def schedule(self, ctx) -> None:
        for job in list(ctx.waiting.values()):
            if job.width > ctx.free:
                return
            ctx.start(job)


def test_rejection_at_submission():
    workload = Workload((Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 5), Job(3, 2, 5, 5, 8),
                         Job(4, 3, 5, 5, 2)), 8)
    result = run(workload, WidthAdmission())
    assert result.status_names() == ["finished", "rejected", "rejected", "finished"]
    assert result.start.tolist() == [0, -1, -1, 3]
    assert result.end.tolist() == [10, -1, -1, 8]
    assert result.reject_reasons == {2: "wider than 0.5 of 8 processors",
                                     3: "wider than 0.5 of 8 processors"}
    assert result.params == {"share": 0.5}
    assert result.accepted.tolist() == [True, False, False, True]
    # Rejected jobs never wait: the queue series stays at 0.
    assert result.series_time.tolist() == [0, 3, 8, 10]
    assert result.series_busy.tolist() == [4, 6, 4, 0]
    assert result.series_queue.tolist() == [0, 0, 0, 0]
    check_invariants(result, workload)


# ------------------------------------------------------------------------ views
def test_overrunning_job_is_expected_to_end_one_second_from_now():
    seen = []

    def start_and_wake(ctx, jobs):
        ctx.start(jobs[1])
        ctx.wake_at(5)
        ctx.wake_at(25)

    def look(ctx, jobs):
        seen.append((ctx.expected_end(jobs[1]), list(ctx.releases()), ctx.profile().steps()))

    workload = Workload((Job(1, 0, 30, 20, 3),), 4)
    run_script(workload, {0: start_and_wake, 5: look, 25: look}, overrun="extend")
    # At 5 the estimate is still ahead; at 25 the job has run past it.
    assert seen == [(20, [(20, 3)], [(5, 1), (20, 4)]),
                    (26, [(26, 3)], [(25, 1), (26, 4)])]


def plan(job_id: int, t) -> Action:
    def action(ctx, jobs):
        ctx.plan(jobs.get(job_id, Job(job_id, 0, 1, 1, 1)), t)
    return action


def _reject_then_plan(ctx, jobs):
    ctx.reject(jobs[1], "no")
    ctx.plan(jobs[1], 10)


@pytest.mark.parametrize("script,message", [
    ({0: plan(3, 10)}, "tried to plan job 3 at time 0, but it is not waiting"),
    ({0: plan(9, 10)}, "tried to plan job 9 at time 0, but it is not waiting"),
    ({0: start_all(2), 5: plan(2, 20)}, "tried to plan job 2 at time 5, but it is not waiting"),
    ({0: _reject_then_plan}, "tried to plan job 1 at time 0, but it is not waiting"),
    ({0: start_all(2), 5: plan(1, 4)},
     "tried to plan job 1 at time 5, but the promised start 4 is in the past"),
    ({0: plan(1, 10.5)},
     "tried to plan job 1 at time 0, but the promised start 10.5 is not a whole number of "
     "seconds"),
    ({0: plan(1, True)},
     "tried to plan job 1 at time 0, but the promised start True is not a whole number of "
     "seconds"),
], ids=["not-submitted", "not-in-the-workload", "started", "rejected", "in-the-past", "float",
        "bool"])
def test_plan_is_validated_like_the_other_actions(script, message):
    with pytest.raises(PolicyError) as caught:
        run_script(MACHINE, script)
    assert str(caught.value) == f"policy 'scripted' {message}"


def test_plan_takes_now_and_numpy_integers():
    def promise(ctx, jobs):
        ctx.plan(jobs[1], 0)
        ctx.plan(jobs[2], np.int64(10))
        ctx.start(jobs[1])

    workload = Workload((Job(1, 0, 10, 10, 2), Job(2, 0, 10, 10, 4)), 4)
    result = run_script(workload, {0: promise, 10: start_all(2)})
    assert result.planned_start.tolist() == [0, 10]
    assert type(result.planned_start.tolist()[1]) is int


def test_plan_keeps_the_first_promise_and_stats_are_reported():
    def promise(ctx, jobs):
        ctx.plan(jobs[2], 10)
        ctx.plan(jobs[2], 4)
        ctx.count("passes")
        ctx.count("passes", by=2)
        ctx.note("ratio", 0.5)
        ctx.start(jobs[1])
        ctx.start(jobs[2])

    workload = Workload((Job(1, 0, 10, 10, 2), Job(2, 0, 10, 10, 2)), 4)
    result = run_script(workload, {0: promise})
    assert result.planned_start.tolist() == [-1, 10]
    assert result.stats == {"passes": 3, "ratio": 0.5}
    assert np.array_equal(result.start, [0, 0])


def test_waiting_keeps_its_order_and_sheds_the_holes_of_started_and_rejected_jobs():
    """After thousands of removals from the front, ``waiting`` is a compact dict in arrival
    order: looking up the head of the queue no longer walks over the removed jobs."""
    import sys

    from schedlab.engine.result import REJECTED

    n = 3072                               # three times the fewest removals between compactions
    workload = Workload(tuple(Job(i, 0, 10, 10, 1) for i in range(1, n + 1)), n)
    seen = {}

    def take_the_front(ctx, jobs):
        plain = dict(ctx.waiting)          # the same removals on a dict of its own
        for job_id in range(1, n - 100 + 1):
            if job_id % 2:
                ctx.start(jobs[job_id])
            else:
                ctx.reject(jobs[job_id], "even")
            del plain[job_id]
        seen["ids"] = list(ctx.waiting)
        seen["sizes"] = sys.getsizeof(ctx.waiting), sys.getsizeof(plain)
        for job in list(ctx.waiting.values()):
            ctx.start(job)

    result = run_script(workload, {0: take_the_front})
    assert seen["ids"] == list(range(n - 100 + 1, n + 1))
    compacted, with_holes = seen["sizes"]
    assert compacted < with_holes / 2
    assert result.status.tolist().count(REJECTED) == (n - 100) // 2
