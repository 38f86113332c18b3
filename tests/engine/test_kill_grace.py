"""Policy.kill_grace: a job killed that long after its estimate (Slurm's OverTimeLimit)."""

from __future__ import annotations

import pytest

from schedlab.api import run
from schedlab.conformance import check_invariants
from schedlab.errors import PolicyError
from schedlab.policies.registry import make_policy
from schedlab.workload.job import Job, Workload

#: Estimates of 60 s: job 1 runs 100 s, job 2 80 s, job 3 (behind both) 10 s.
JOBS = Workload(jobs=(Job(1, 0, 100, 60, 4), Job(2, 0, 80, 60, 4), Job(3, 1, 10, 60, 8)),
                processors=8)


def graced(grace: object):
    policy = make_policy("fcfs")
    policy.kill_grace = grace
    return policy


def test_a_job_runs_past_its_estimate_for_the_grace_then_is_killed() -> None:
    result = run(JOBS, graced(30))
    # Job 1 is killed at 60 + 30; job 2 finishes at 80, within the grace; job 3 waits for both.
    assert result.end.tolist() == [90, 80, 100]
    assert result.status_names() == ["killed", "finished", "finished"]
    assert result.meta["kill_grace"] == 30
    check_invariants(result, JOBS)


def test_without_a_grace_jobs_die_at_their_estimates() -> None:
    result = run(JOBS, make_policy("fcfs"))
    assert result.end.tolist() == [60, 60, 70] and "kill_grace" not in result.meta


@pytest.mark.parametrize("grace", [-1, 1.5, True])
def test_a_bad_grace_is_the_policys_error(grace: object) -> None:
    with pytest.raises(PolicyError, match="kill_grace"):
        run(JOBS, graced(grace))
