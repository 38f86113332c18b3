"""A policy instance serves one run: the engine refuses to run it a second time.

A policy keeps state from call to call (plans, counters, dynP's decisions),
so a second run of the same object would start where the first ended
(docs/reference/engine.md, "Policy lifecycle").
"""

from __future__ import annotations

import numpy as np
import pytest

import schedlab
from schedlab.api import run  # picks the engine: gang policies time-share
from schedlab.errors import InputError
from schedlab.policies import make_policy
from schedlab.testing import random_workload
from schedlab.workload.job import Job, Workload

WORKLOAD = random_workload(np.random.default_rng(7), n_jobs=40, processors=16)


@pytest.mark.parametrize("name", sorted(schedlab.available_policies()))
def test_every_policy_instance_is_refused_for_a_second_run(name):
    policy = make_policy(name)
    run(WORKLOAD, policy)
    with pytest.raises(InputError) as caught:
        run(WORKLOAD, policy)
    kind = type(policy).__name__
    assert caught.value.field == "policy"
    assert str(caught.value) == (
        f"field policy: this {kind} instance (policy {policy.name!r}) has already been run and "
        "keeps that run's state; give every run a new policy, e.g. policy.clone(), or pass "
        "the policy by name")


def test_a_clone_repeats_the_run_exactly():
    """dynP counts its decisions: a clone counts the same as the first run."""
    policy = make_policy("dynp")
    first = run(WORKLOAD, policy)
    again = run(WORKLOAD, policy.clone())
    assert first.stats == again.stats
    assert np.array_equal(first.start, again.start)


@pytest.mark.parametrize("workload, options, field", [
    (Workload((Job(1, 0, 5, 5, 1),), 4), {"overrun": "pause"}, "overrun"),
    (Workload((Job(1, 0, 5, 5, 1), Job(1, 0, 5, 5, 1)), 4), {}, "job id"),
], ids=["bad-overrun", "duplicate-job-ids"])
def test_a_run_refused_for_bad_input_leaves_the_instance_unused(workload, options, field):
    policy = make_policy("fcfs")
    with pytest.raises(InputError) as caught:
        run(workload, policy, **options)
    assert caught.value.field == field
    assert run(Workload((Job(1, 0, 5, 5, 1),), 4), policy).start.tolist() == [0]
