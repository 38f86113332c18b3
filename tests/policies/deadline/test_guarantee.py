"""The guarantee of admission control, over random workloads (hypothesis).

Islam et al., QoPS §3 and SPEC §4.6: a job is admitted only if a schedule
exists in which it and every admitted job meet their deadlines, so with
estimates that hold no admitted job ever misses its deadline.  Estimates
hold when they are exact, and under ``overrun="kill"`` for any estimates (no
job holds processors past its estimate).  Every run is also checked for the
simulation invariants and rerun for determinism.

The deadlines mix every case: none, impossible (before submit + estimate),
tight (a few seconds of slack), moderate, lax, and artificial.  Runs are
drawn with and without a scheduling tick: with one, jobs start only at its
multiples and admission must count on that.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.api import load_workload
from schedlab.engine.result import REJECTED
from schedlab.engine.simulator import run
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.policies.registry import make_policy
from schedlab.workload.job import Job, Workload
from schedlab.workload.transforms import perfect_estimates
from strategies import workloads

from .helpers import simulate

LAX = 10**6
#: No tick (a pass at every event) three times in five; else a tick shorter or longer than most jobs.
TICKS = st.sampled_from([0, 0, 0, 7, 300])
KINDS = st.sampled_from(["none", "impossible", "tight", "moderate", "lax", "artificial"])
SPECS = st.one_of(
    st.builds(lambda k, h: {"name": "qops", "k": k, "heuristic": h},
              st.sampled_from([0, 1, 5]), st.sampled_from(["edf", "llf"])),
    st.just({"name": "msb"}),
    st.builds(lambda b, h: {"name": "mrt", "backtracks": b, "heuristic": h},
              st.sampled_from([0, 3]), st.sampled_from(["edf", "llf"])),
)


def deadline_for(job: Job, kind: str, spread: int) -> tuple[int | None, bool]:
    """A deadline of the given kind (``spread`` picks the value) and its artificial mark."""
    base = job.submit + job.estimate
    if kind == "none":
        return None, False
    if kind == "impossible":
        return job.submit + spread % max(job.estimate, 1), False
    if kind == "tight":
        return base + spread % 4, False
    if kind == "moderate":
        return base + spread % 200, False
    return base + LAX, kind == "artificial"


@st.composite
def deadline_workloads(draw, *, exact: bool = False, kinds=KINDS) -> Workload:
    """A random workload (tests/strategies.py) with a deadline of a random kind per job."""
    workload = draw(workloads())
    if exact:
        workload = perfect_estimates(workload)
    drawn = draw(st.lists(st.tuples(kinds, st.integers(0, 1000)),
                          min_size=len(workload), max_size=len(workload)))
    jobs = []
    for job, (kind, spread) in zip(workload.jobs, drawn):
        deadline, artificial = deadline_for(job, kind, spread)
        jobs.append(Job(job.id, job.submit, job.runtime, job.estimate, job.width, job.user,
                        job.group, job.queue, deadline, artificial))
    return workload.with_jobs(jobs)


def assert_deterministic(spec, workload, overrun, first, tick=0) -> None:
    second = run(workload, make_policy(spec), overrun=overrun, tick=tick)
    for name in ("start", "end", "status", "planned_start"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    assert (first.stats, first.reject_reasons) == (second.stats, second.reject_reasons)


@given(spec=SPECS, workload=deadline_workloads(), tick=TICKS)
def test_no_admitted_job_misses_its_deadline_when_jobs_are_killed_at_their_estimate(spec,
                                                                                   workload,
                                                                                   tick):
    result = simulate(spec, workload, overrun="kill", tick=tick)  # invariants and deadlines
    assert "plan_repairs" not in result.stats             # the plan never needed rebuilding
    assert_deterministic(spec, workload, "kill", result, tick)


@given(spec=SPECS, workload=deadline_workloads(exact=True), tick=TICKS)
def test_no_admitted_job_misses_its_deadline_with_exact_estimates(spec, workload, tick):
    result = simulate(spec, workload, overrun="extend", tick=tick)  # invariants and deadlines
    assert "plan_repairs" not in result.stats
    assert_deterministic(spec, workload, "extend", result, tick)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", ["qops", "msb", "mrt"])
def test_the_guarantee_holds_with_catalinas_tick_on_a_lublin_workload(name, seed):
    """300 Lublin jobs with deadlines of stringency 0.2 and exact estimates, 900 s tick."""
    load = load_workload("lublin", jobs=300, seed=seed)
    load = apply_transforms(load, Transforms(perfect_estimates=True, stringency=0.2),
                            seed=seed)
    simulate(name, load, overrun="kill", tick=900)       # invariants and deadlines


@given(spec=SPECS, workload=deadline_workloads(kinds=st.sampled_from(["none", "lax",
                                                                       "artificial"])))
def test_lax_deadlines_reject_nobody(spec, workload):
    result = simulate(spec, workload)
    assert not np.any(result.status == REJECTED)


@given(name=st.sampled_from(["qops", "msb"]), workload=deadline_workloads())
def test_qops_and_msb_admit_every_lax_job_since_the_end_of_the_plan_is_always_tried(name,
                                                                                   workload):
    result = simulate(name, workload)
    lax = np.array([j.deadline is None or j.deadline - j.submit >= LAX for j in workload])
    assert not np.any((result.status == REJECTED) & lax)
