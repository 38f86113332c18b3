"""Small helpers shared by the policy tests: build a workload, read a result by job id."""

from __future__ import annotations

from schedlab.engine.result import Result
from schedlab.engine.simulator import run
from schedlab.policies.base import Policy
from schedlab.policies.registry import PolicySpec, make_policy
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload


def workload(processors: int, *rows: tuple[int, int, int, int, int]) -> Workload:
    """Jobs given as (id, submit, runtime, estimate, width)."""
    jobs = [Job(job_id, submit, runtime, estimate, width)
            for job_id, submit, runtime, estimate, width in rows]
    return Workload(tuple(sorted(jobs, key=lambda j: (j.submit, j.id))), processors)


def simulate(spec: PolicySpec | Policy, load: Workload, overrun: str = "kill") -> Result:
    """Run and check the simulation invariants."""
    policy = spec if isinstance(spec, Policy) else make_policy(spec)
    result = run(load, policy, overrun=overrun)
    check_invariants(result, load, overrun=overrun)
    return result


def by_id(result: Result, column: str) -> dict[int, int]:
    """A result column as {job id: value}."""
    return dict(zip(result.job_id.tolist(), getattr(result, column).tolist()))
