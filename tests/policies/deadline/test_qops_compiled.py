"""The compiled QoPS admission test (qops_search) against the plain Python reference
(qops_reference): the same admissions, the same plans, the same counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.api import load_workload
from schedlab.engine.simulator import run
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.policies.deadline.common import HEURISTICS
from schedlab.policies.deadline.qops import QoPS, qops_admission
from schedlab.workload.job import Job

from .helpers import draw_running
from .qops_reference import qops_admission_reference


def outcome(decision):
    """Everything a decision says, with jobs by id."""
    plan = None if decision.plan is None else [(j.id, s) for j, s in decision.plan]
    return plan, decision.reason, decision.placements, decision.detail


@settings(max_examples=150)     # cheap examples; repairs need many of them
@given(st.data())
def test_the_compiled_test_decides_as_the_python_reference(data):
    """Plans whose jobs sit wherever they fit behind running jobs, some without a
    deadline, with and without a tick, K from 0 to 3, EDF and LLF: the compiled test
    returns exactly the reference's plan, reason, placements and counts."""
    size = 6
    running = draw_running(data, size)
    profile = running.copy()
    plan = []
    rows = data.draw(st.lists(st.tuples(st.integers(1, size), st.integers(0, 9),
                                        st.integers(0, 12), st.integers(0, 8),
                                        st.booleans()),
                              max_size=12), "plan")
    for k, (width, estimate, delay, slack, free) in enumerate(rows):
        start = profile.earliest_fit(width, estimate, delay)
        profile.reserve(start, estimate, width)
        plan.append((Job(k + 1, k % 3, estimate, estimate, width,
                         deadline=None if free else start + estimate + slack), start))
    plan.sort(key=lambda entry: entry[1])
    width, estimate, slack = data.draw(st.tuples(st.integers(1, size), st.integers(0, 9),
                                                 st.integers(0, 25)), "new")
    new = Job(len(plan) + 1, 0, estimate, estimate, width, deadline=estimate + slack)
    limits = {j.id: math.inf if j.deadline is None else j.deadline for j, _ in plan}
    limits[new.id] = new.deadline
    k = data.draw(st.integers(0, 3), "k")
    key = HEURISTICS[data.draw(st.sampled_from(sorted(HEURISTICS)), "heuristic")]
    before = running.breakpoints()
    compiled = qops_admission(running, 0, plan, new, limits, k=k, key=key)
    assert running.breakpoints() == before
    assert outcome(compiled) == outcome(
        qops_admission_reference(running, 0, plan, new, limits, k=k, key=key))


class QoPSInPython(QoPS):
    """QoPS deciding by the plain Python reference."""

    def admit(self, running, now, plan, job, limits):
        return qops_admission_reference(running, now, plan, job, limits, k=self.k,
                                        key=HEURISTICS[self.heuristic])


@pytest.mark.parametrize(("heuristic", "k", "exact", "tick"),
                         [("edf", 5, True, 0), ("llf", 2, True, 0), ("edf", 5, False, 0),
                          ("edf", 1, True, 900)])
def test_qops_runs_as_the_python_reference_on_an_overloaded_lublin_workload(heuristic, k,
                                                                           exact, tick):
    """300 Lublin jobs at load 1.6 by duplication and stringency 0.2 (long queues, many
    repairs; early ends with inexact estimates; a tick): the compiled QoPS gives the same
    jobs.csv columns, reasons and counts as QoPS deciding in Python."""
    load = load_workload("lublin", jobs=300, seed=1)
    load = apply_transforms(load, Transforms(perfect_estimates=exact, load=1.6,
                                             stringency=0.2), seed=1)
    compiled = run(load, QoPS(k=k, heuristic=heuristic), tick=tick)
    plain = run(load, QoPSInPython(k=k, heuristic=heuristic), tick=tick)
    for name in ("start", "end", "status", "planned_start"):
        assert np.array_equal(getattr(compiled, name), getattr(plain, name)), name
    assert compiled.reject_reasons == plain.reject_reasons
    assert compiled.stats == plain.stats
    assert compiled.stats["admitted"] < len(load.jobs)        # overloaded: some are rejected
    assert compiled.stats["repairs"] > 0 or not exact
