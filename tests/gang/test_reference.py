"""The event-driven engine agrees exactly with the second-by-second reference."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlab.engine.timesharing import run_timesharing
from schedlab.policies.gang import GangScheduler
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload
from strategies import gang_policies

from .reference import reference_run

JOB = st.tuples(st.integers(0, 6), st.integers(0, 20), st.integers(1, 25), st.integers(1, 8))
POLICY = gang_policies(most_slots=3)


def _workload(raw, processors: int) -> Workload:
    jobs, submit = [], 0
    for i, (gap, runtime, estimate, width) in enumerate(raw):
        submit += gap
        jobs.append(Job(i + 1, submit, runtime, estimate, min(width, processors)))
    return Workload(tuple(jobs), processors, name="random")


@settings(max_examples=300, deadline=None)
@given(st.lists(JOB, min_size=1, max_size=9), st.integers(1, 6), POLICY,
       st.sampled_from(["kill", "extend"]))
@example(  # a short job arriving the instant the slot's only job ends early joins the slot
    [(0, 0, 6, 1), (1, 0, 1, 1)], 2,
    {"strategy": 3, "slot": 1, "slots": 1, "context_switch": 1, "packing": "repack",
     "switchable": True, "backfill": "none", "express_start": "arrival"}, "kill")
def test_engine_matches_reference(raw, processors, params, overrun):
    workload = _workload(raw, processors)
    # class bounds inside the drawn lengths, so all three classes occur
    make = lambda: GangScheduler(short=6, long=15, **params)  # noqa: E731
    result = run_timesharing(workload, make(), overrun=overrun)
    expected = reference_run(workload.jobs, processors, make(), overrun)
    ids = result.job_id.tolist()
    assert dict(zip(ids, result.start.tolist())) == expected.start
    assert dict(zip(ids, result.end.tolist())) == expected.end
    assert dict(zip(ids, result.timesharing.service.tolist())) == expected.service
    check_invariants(result, workload, overrun=overrun)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 400), st.integers(1, 500),
                          st.integers(1, 8)), min_size=1, max_size=7),
       st.integers(1, 4), POLICY)
def test_long_jobs_match_reference(raw, processors, params):
    """Runtimes of many rounds: the whole-round jumps carry the weight."""
    workload = _workload(raw, processors)
    make = lambda: GangScheduler(short=20, long=200, **params)  # noqa: E731
    result = run_timesharing(workload, make())
    expected = reference_run(workload.jobs, processors, make())
    ids = result.job_id.tolist()
    assert dict(zip(ids, result.end.tolist())) == expected.end
    assert dict(zip(ids, result.start.tolist())) == expected.start


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 60), st.integers(1, 80),
                          st.integers(1, 8)), min_size=5, max_size=25),
       st.integers(4, 8), POLICY)
def test_crowded_matrices_match_reference_and_keep_the_rules(raw, processors, params):
    """Many jobs on a few processors: re-packing, guests and the slot limit all at work."""
    workload = _workload(raw, processors)
    make = lambda: GangScheduler(short=10, long=40, **params)  # noqa: E731
    result = run_timesharing(workload, make())
    check_invariants(result, workload)
    # at most one express slot in a round, counted only while it runs
    assert result.timesharing.slots_count.max() <= params["slots"] + 1
    expected = reference_run(workload.jobs, processors, make())
    ids = result.job_id.tolist()
    assert dict(zip(ids, result.end.tolist())) == expected.end
    assert dict(zip(ids, result.start.tolist())) == expected.start
