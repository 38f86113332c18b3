"""What a policy author tests with: the conformance suite and the rules every result keeps.

* :func:`check_policy` — runs any policy, built-in or third-party, through
  the conformance cases of its execution model (:mod:`schedlab.execution`):
  small fixed workloads on the engine's corners (same-time events, zero
  runtimes, machine-wide jobs, jobs killed at their estimate, overruns),
  under the options its model takes (a scheduling tick, a per-user queue
  limit, advance reservations; both allocations on a grid platform), and
  checks the model's invariants, completeness and determinism.
* :func:`parametrize_with_checks` — the same suite as one pytest test per
  policy and case, for a plug-in's own test suite.
* The invariant checks themselves (:func:`check_invariants`,
  :func:`check_matrix`, :func:`check_reservations`, :func:`check_deadlines`,
  :func:`check_grid_invariants`), from :mod:`schedlab.conformance`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from schedlab.conformance import (
    Case,
    check_deadlines,
    check_grid_invariants,
    check_invariants,
    check_matrix,
    check_reservations,
    conformance_workloads,
    random_workload,
    reservation_workloads,
    with_users,
)
from schedlab.errors import PolicyError
from schedlab.execution import ExecutionModel, execute, model_of_policy
from schedlab.policies.base import PolicyBase
from schedlab.policies.registry import PolicySpec, is_grid_policy, make_local_policy, make_policy
from schedlab.run import RunSpec

__all__ = ["check_deadlines", "check_grid_invariants", "check_invariants", "check_matrix",
           "check_policy", "check_reservations", "conformance_workloads", "parametrize_with_checks",
           "random_workload", "reservation_workloads", "with_users"]

PolicySource = PolicySpec | Callable[[], PolicyBase]


def _factory(policy: PolicySource) -> Callable[[], PolicyBase]:
    """A maker of fresh policies: a policy instance is deep-copied (it must not have run:
    the engine refuses a used one), a factory called, a name or mapping built from the
    registry (a grid name as a grid local policy)."""
    if isinstance(policy, PolicyBase):
        return lambda: copy.deepcopy(policy)
    if callable(policy):
        return policy
    name = str(policy["name"] if isinstance(policy, Mapping) else policy)
    if is_grid_policy(name):
        return lambda: make_local_policy(policy)  # type: ignore[arg-type]
    return lambda: make_policy(policy)


def _with_params(policy: PolicyBase, params: Any) -> PolicyBase:
    """``policy`` rebuilt with the case's parameters it has (a reservation placement,
    docs/reference/reservations.md); a policy without them as it is."""
    wanted = {k: v for k, v in params.items() if k in policy.param_names()}
    if not wanted:
        return policy
    return type(policy)(**{**policy.get_params(), **wanted})


def run_case(fresh: Callable[[], PolicyBase], model: ExecutionModel, case: Case) -> None:
    """Run one conformance case twice with fresh policies; raise ``AssertionError`` naming
    the policy and the case when a result breaks its model's rules or the runs differ."""
    spec = RunSpec(**case.fields)
    results = []
    for _ in range(2):
        policy = _with_params(fresh(), case.params)
        try:
            result = execute(replace(spec, policy=policy))
            model.check(result, case.fields["workload"], spec)
        except (AssertionError, PolicyError) as err:
            raise AssertionError(f"{policy.name} on {case.label}: {err}") from None
        results.append(result)
    first, second = results
    for column in ("start", "end", "status"):
        assert np.array_equal(getattr(first, column), getattr(second, column)), \
            f"{first.policy} on {case.label}: two runs differ in {column!r}"
    if first.reservations is not None and second.reservations is not None:
        assert np.array_equal(first.reservations.start, second.reservations.start), \
            f"{first.policy} on {case.label}: two runs differ in their reservations"


def check_policy(policy: PolicySource) -> None:
    """Run a policy through the conformance suite of its execution model; raise
    ``AssertionError`` on a failure.

    ``policy`` is anything :func:`~schedlab.policies.make_policy` (or, for a
    grid local policy, ``make_local_policy``) accepts, or a zero-argument
    factory.  The model the policy declares (``execution_model``) gives the
    cases and the invariants (:data:`schedlab.execution.MODELS`): space
    sharing runs every small workload under both overrun modes, with a
    scheduling tick and with a per-user queue limit, then with
    advance-reservation requests (a policy that refuses them all, as the
    base class does, passes); time sharing under both overrun modes; a grid
    local policy on one and two clusters under both allocations, and there with
    machine failures, a maintenance window and users' cancellations.
    """
    fresh = _factory(policy)
    model = model_of_policy(fresh())    # type: ignore[arg-type]
    for case in model.cases():
        run_case(fresh, model, case)


def parametrize_with_checks(policies: list[PolicySource]) -> Any:
    """A pytest decorator that makes one test per policy and conformance case, in the style
    of scikit-learn's ``parametrize_with_checks``::

        @parametrize_with_checks(["my-policy", {"name": "my-policy", "k": 3}])
        def test_conformance(check):
            check()

    Each ``check`` runs one case (:func:`check_policy` runs them all); its id
    names the policy and the case.
    """
    import pytest

    def checks() -> Iterator[Any]:
        for policy in policies:
            fresh = _factory(policy)
            model = model_of_policy(fresh())    # type: ignore[arg-type]
            for case in model.cases():
                def check(fresh: Callable[[], PolicyBase] = fresh, model: ExecutionModel = model,
                          case: Case = case) -> None:
                    run_case(fresh, model, case)
                yield pytest.param(check, id=f"{fresh().name}: {case.label}")

    return pytest.mark.parametrize("check", list(checks()))
