"""Helpers of the reservation tests: workloads, requests, runs checked for every invariant."""

from __future__ import annotations

from schedlab.engine.result import Result
from schedlab.engine.simulator import run
from schedlab.policies.base import Policy
from schedlab.policies.registry import PolicySpec, make_policy
from schedlab.policies.reservations import ReservationRules, params_from_rules
from schedlab.run import with_reservation_params
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload
from schedlab.workload.reservations import Reservation

#: The policies that take reservations (docs/reference/reservations.md).
SUPPORTING = ("fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp")


def workload(processors: int, *rows: tuple[int, ...]) -> Workload:
    """Jobs given as (id, submit, runtime, estimate, width[, user])."""
    jobs = [Job(*row[:5], user=row[5] if len(row) > 5 else -1) for row in rows]
    return Workload(tuple(sorted(jobs, key=lambda j: (j.submit, j.id))), processors)


def requests(*rows: tuple[int, int, int, int, int]) -> tuple[Reservation, ...]:
    """Requests given as (id, created, start, duration, width)."""
    return tuple(Reservation(*row) for row in rows)


def simulate(spec: PolicySpec | Policy, load: Workload, asked: tuple[Reservation, ...] = (),
             rules: ReservationRules | None = None, **options) -> Result:
    """Run with reservations and check every invariant, the reservations' included.

    ``rules`` become the policy's reservation parameters.
    """
    if rules is not None:
        params = params_from_rules(rules)
        spec = type(spec)(**{**spec.get_params(), **params}) if isinstance(spec, Policy) \
            else with_reservation_params({"name": spec}, params)
    policy = spec if isinstance(spec, Policy) else make_policy(spec)
    result = run(load, policy, reservations=asked, **options)
    check_invariants(result, load, reservations=asked)
    return result


def starts(result: Result) -> dict[int, int]:
    """Job start times by job id."""
    return dict(zip(result.job_id.tolist(), result.start.tolist()))


def granted(result: Result) -> dict[int, int]:
    """Granted start (-1: rejected) by request id."""
    table = result.reservations
    return dict(zip(table.id.tolist(), table.start.tolist()))


def reasons(result: Result) -> dict[int, str]:
    """Rejection reason ('' when granted) by request id."""
    table = result.reservations
    return dict(zip(table.id.tolist(), table.reason))
