"""Checks that any simulation result and any policy must pass.

* :func:`check_invariants` — the rules of SPEC §3 on one result: no
  oversubscription, no start before submission, one start per job, and the
  exact end time every accepted job must have.
* :func:`check_policy` — a conformance suite for any policy, built-in or
  third-party: it runs the policy on small fixed workloads that exercise the
  engine's corners (same-time events, zero runtimes, machine-wide jobs, jobs
  killed at their estimate, overruns) and checks invariants, completeness and
  determinism.
"""

from __future__ import annotations

import copy
from typing import Callable

import numpy as np

from schedlab.engine.result import FINISHED, KILLED, REJECTED, Result
from schedlab.engine.simulator import run
from schedlab.policies.base import Policy
from schedlab.policies.registry import PolicySpec, make_policy
from schedlab.workload.job import Job, Workload


def check_invariants(result: Result, workload: Workload, *, overrun: str = "kill") -> None:
    """Raise ``AssertionError`` naming the first job that breaks a simulation rule."""
    jobs = workload.jobs
    assert len(result) == len(jobs), f"result has {len(result)} jobs, workload {len(jobs)}"
    ids = np.array([j.id for j in jobs], dtype=np.int64)
    assert np.array_equal(result.job_id, ids), "result jobs are not in workload order"
    rejected = result.status == REJECTED
    accepted = ~rejected
    _check_rejected_have_no_times(result, rejected)
    _expect(accepted & (result.start < result.submit), result, "starts before it is submitted")
    _expect(accepted & (result.end < result.start), result, "ends before it starts")
    held = result.end - result.start
    if result.suspended is not None:
        held = held - result.suspended
    if overrun == "kill":
        should_hold = np.minimum(result.runtime, result.estimate)
        should_kill = result.runtime > result.estimate
    else:
        should_hold = result.runtime
        should_kill = np.zeros(len(result), dtype=bool)
    _expect(accepted & (held != should_hold), result, "does not run for min(runtime, estimate)"
            if overrun == "kill" else "does not run for its runtime")
    _expect(accepted & should_kill & (result.status != KILLED), result, "should be killed")
    _expect(accepted & ~should_kill & (result.status != FINISHED), result,
            "is marked killed but ran to completion")
    _check_capacity(result, accepted)


def _check_rejected_have_no_times(result: Result, rejected: np.ndarray) -> None:
    _expect(rejected & ((result.start != -1) | (result.end != -1)), result,
            "is rejected but has a start or end time")


def _check_capacity(result: Result, accepted: np.ndarray) -> None:
    """Sweep +width at starts and -width at ends (ends first at equal times)."""
    if result.suspended is not None and np.any(result.suspended[accepted] > 0):
        accepted = accepted & (result.suspended == 0)   # intervals with gaps are the gang policy's to check
    starts, ends, widths = result.start[accepted], result.end[accepted], result.width[accepted]
    times = np.concatenate([ends, starts])
    deltas = np.concatenate([-widths, widths])
    kinds = np.concatenate([np.zeros(len(ends), np.int8), np.ones(len(starts), np.int8)])
    order = np.lexsort((kinds, times))
    in_use = np.cumsum(deltas[order])
    if len(in_use) and in_use.max() > result.processors:
        at = times[order][int(np.argmax(in_use))]
        raise AssertionError(f"{int(in_use.max())} processors in use at time {int(at)} "
                             f"on a {result.processors}-processor machine")
    busy = result.series_busy
    assert busy.size == 0 or (busy.min() >= 0 and busy.max() <= result.processors), \
        "the utilization series leaves [0, processors]"


def _expect(bad: np.ndarray, result: Result, what: str) -> None:
    if np.any(bad):
        k = int(np.argmax(bad))
        raise AssertionError(
            f"job {int(result.job_id[k])} {what}: submit={int(result.submit[k])} "
            f"start={int(result.start[k])} end={int(result.end[k])} "
            f"runtime={int(result.runtime[k])} estimate={int(result.estimate[k])}")


def conformance_workloads() -> list[tuple[str, Workload]]:
    """Small workloads on the engine's corners, plus random ones (fixed seeds)."""
    cases = [
        ("same-time events", Workload((Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 4),
                                       Job(3, 10, 5, 5, 8), Job(4, 10, 0, 1, 2),
                                       Job(5, 10, 3, 20, 6)), 8)),
        ("machine-wide and zero runtime", Workload((Job(1, 0, 0, 5, 8), Job(2, 0, 7, 7, 8),
                                                    Job(3, 1, 0, 1, 1), Job(4, 2, 9, 9, 8)), 8)),
        ("killed at estimate", Workload((Job(1, 0, 100, 50, 3), Job(2, 5, 20, 10, 5),
                                         Job(3, 6, 10, 100, 2)), 5)),
    ]
    rng = np.random.default_rng(20020101)
    for k in range(4):
        cases.append((f"random {k}", random_workload(rng, n_jobs=60, processors=16)))
    return cases


def random_workload(rng: np.random.Generator, *, n_jobs: int, processors: int) -> Workload:
    """A small random workload with bursts, short and long jobs and bad estimates."""
    gaps = rng.choice([0, 0, 1, 5, 30, 200], size=n_jobs)
    submits = np.cumsum(gaps)
    runtimes = rng.integers(0, 400, size=n_jobs)
    estimates = np.maximum(1, (runtimes * rng.choice([0.5, 1.0, 1.0, 2.0, 5.0], size=n_jobs))
                           .astype(np.int64))
    widths = rng.integers(1, processors + 1, size=n_jobs)
    jobs = tuple(Job(i + 1, int(s), int(r), int(e), int(w))
                 for i, (s, r, e, w) in enumerate(zip(submits, runtimes, estimates, widths)))
    return Workload(jobs, processors, name="random")


def check_policy(policy: PolicySpec | Callable[[], Policy]) -> None:
    """Run a policy through the conformance suite; raise ``AssertionError`` on a failure.

    ``policy`` is anything :func:`~schedlab.policies.make_policy` accepts or a
    zero-argument factory.  A policy instance is deep-copied before each run,
    so its state never leaks from one run into the next.
    """
    def fresh() -> Policy:
        if isinstance(policy, Policy):
            return copy.deepcopy(policy)
        if callable(policy) and not isinstance(policy, (str, dict)):
            return policy()
        return make_policy(policy)

    for label, workload in conformance_workloads():
        for overrun in ("kill", "extend"):
            first = run(workload, fresh(), overrun=overrun)
            try:
                check_invariants(first, workload, overrun=overrun)
            except AssertionError as err:
                raise AssertionError(f"{first.policy} on {label!r} ({overrun}): {err}") from None
            second = run(workload, fresh(), overrun=overrun)
            for column in ("start", "end", "status"):
                assert np.array_equal(getattr(first, column), getattr(second, column)), \
                    f"{first.policy} on {label!r} ({overrun}): two runs differ in {column!r}"


def check_deadlines(result: Result, workload: Workload) -> None:
    """Raise ``AssertionError`` unless every admitted job with a deadline ends by it.

    The guarantee of admission control (Islam et al., QoPS §3; SPEC §4.6):
    with estimates that hold — exact ones, or any under ``overrun="kill"``,
    where no job runs past its estimate — no admitted job misses its
    deadline.  Also checks that the result carries the workload's deadlines
    (-1 where a job has none) and artificial-deadline marks.
    """
    jobs = workload.jobs
    expected = np.array([-1 if j.deadline is None else j.deadline for j in jobs], dtype=np.int64)
    if not np.any(expected >= 0):
        assert result.deadline is None, "the result has deadlines the workload does not have"
        return
    assert result.deadline is not None, "the result lost the workload's deadlines"
    assert np.array_equal(result.deadline, expected), "the result's deadlines differ from the workload's"
    assert np.array_equal(result.artificial_deadline,
                          np.array([j.artificial_deadline for j in jobs], dtype=bool)), \
        "the result's artificial-deadline marks differ from the workload's"
    late = (result.status != REJECTED) & (result.deadline >= 0) & (result.end > result.deadline)
    if np.any(late):
        k = int(np.argmax(late))
        raise AssertionError(f"job {int(result.job_id[k])} misses its deadline "
                             f"{int(result.deadline[k])}: submit={int(result.submit[k])} "
                             f"start={int(result.start[k])} end={int(result.end[k])} "
                             f"estimate={int(result.estimate[k])}")
