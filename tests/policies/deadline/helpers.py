"""Helpers of the deadline-policy tests: workloads with deadlines, runs checked for the guarantee."""

from __future__ import annotations

from hypothesis import strategies as st

from schedlab.engine.profile import Profile
from schedlab.engine.result import REJECTED, Result
from schedlab.engine.simulator import run
from schedlab.policies.deadline.common import TickProfile, round_up
from schedlab.policies.registry import make_policy
from schedlab.testing import check_deadlines, check_invariants
from schedlab.workload.job import Job, Workload

#: The admission-control schemes: every run of theirs must keep every deadline it admitted.
ADMISSION = ("qops", "msb", "mrt")


def draw_running(data, size: int) -> Profile:
    """The profile of up to two running jobs on ``size`` processors, drawn from ``data``
    (hypothesis), with or without a scheduling tick of 4 (its ends on the tick grid)."""
    tick = data.draw(st.sampled_from([0, 4]), "tick")
    releases = sorted(data.draw(st.lists(st.tuples(st.integers(1, 15), st.integers(1, 2)),
                                         max_size=2), "running"))
    releases = [(round_up(end, tick) if tick else end, width) for end, width in releases]
    running = (TickProfile if tick else Profile).from_releases(size, 0, releases)
    if tick:
        running.tick = tick
    return running


def deadline_workload(processors: int, *rows: tuple) -> Workload:
    """Jobs given as (id, submit, runtime, estimate, width, deadline or None)."""
    jobs = [Job(job_id, submit, runtime, estimate, width, deadline=deadline)
            for job_id, submit, runtime, estimate, width, deadline in rows]
    return Workload(tuple(sorted(jobs, key=lambda j: (j.submit, j.id))), processors)


def simulate(spec, load: Workload, overrun: str = "kill", tick: int = 0) -> Result:
    """Run, check the simulation invariants, and for admission control the guarantee.

    Under ``overrun="kill"`` no job runs past its estimate, so the guarantee
    holds for every admission-control run; under ``"extend"`` only when no
    estimate is exceeded.  With a ``tick`` every job starts at a multiple of it.
    """
    policy = make_policy(spec)
    result = run(load, policy, overrun=overrun, tick=tick)
    check_invariants(result, load, overrun=overrun)
    if tick:
        ran = result.status != REJECTED
        assert all(start % tick == 0 for start in result.start[ran].tolist())
    holds = overrun == "kill" or all(job.runtime <= job.estimate for job in load)
    if policy.name in ADMISSION and holds:
        check_deadlines(result, load)
    return result


def column(result: Result, name: str) -> dict[int, int]:
    """A result column as {job id: value}."""
    return dict(zip(result.job_id.tolist(), getattr(result, name).tolist()))
