"""Whole-round jumps agree with the same rounds served slot by slot.

The engine counts the rounds between two decisions instead of serving them
(``_Simulation.jump``): over the round a job arrives in for the matrix, with each
guest's slots per round kept across passes that leave the guests as they were.  The
plain path serves every round slot by slot; both must give the same schedules, the
same rounds and slots, the same matrix log and the same series, on random workloads
with and without failures, windows and cancellations.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from events.test_gang_outages import workloads_with_events
from schedlab.engine import timesharing
from schedlab.engine.timesharing import run_timesharing
from schedlab.policies.gang import GangScheduler
from schedlab.workload.job import Job, Workload
from strategies import gang_policies, workloads

PARAMS = gang_policies(most_slots=4)
CLASSES = {"short": 6, "long": 40}


def _served_slot_by_slot(workload: Workload, params: dict, **events):
    with mock.patch.object(timesharing._Simulation, "jump", lambda self, rows: False):
        return run_timesharing(workload, GangScheduler(**CLASSES, **params), **events)


def _same_runs(workload: Workload, params: dict, **events) -> None:
    jumped = run_timesharing(workload, GangScheduler(**CLASSES, **params), **events)
    plain = _served_slot_by_slot(workload, params, **events)
    assert jumped.start.tolist() == plain.start.tolist()
    assert jumped.end.tolist() == plain.end.tolist()
    assert jumped.stats == plain.stats
    for column in ("change_time", "change_kind", "change_job", "change_row", "slots_time",
                   "slots_count"):
        assert getattr(jumped.timesharing, column).tolist() == \
            getattr(plain.timesharing, column).tolist()
    for column in ("series_time", "series_busy", "series_queue"):
        assert getattr(jumped, column).tolist() == getattr(plain, column).tolist()


@st.composite
def spread(draw) -> Workload:
    """Jobs of many rounds arriving apart (so arrivals fall inside rounds of a busy
    matrix), narrow ones among them (so rows take guests), short ones among them
    (Strategy 3's express jobs arriving while the matrix runs)."""
    processors = draw(st.integers(2, 10))
    estimates = st.one_of(st.integers(1, 7), st.integers(1, 160))
    raw = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 150), estimates,
                                  st.integers(1, processors), st.booleans()),
                        min_size=3, max_size=25))
    jobs, submit = [], 0
    for i, (gap, runtime, estimate, width, narrow) in enumerate(raw):
        submit += gap
        jobs.append(Job(i + 1, submit, runtime, estimate,
                        min(1 + width % 3, width) if narrow else width))
    return Workload(tuple(jobs), processors, name="spread")


@settings(max_examples=150, deadline=None)
@given(spread(), PARAMS)
def test_jumps_match_rounds_served_slot_by_slot(workload, params):
    _same_runs(workload, params)


@settings(max_examples=40, deadline=None)
@given(st.data(), PARAMS)
def test_jumps_match_rounds_served_slot_by_slot_on_varied_workloads(data, params):
    workload = data.draw(workloads(max_jobs=25, processors=data.draw(st.integers(1, 12))))
    _same_runs(workload, params)


@settings(max_examples=60, deadline=None)
@given(st.data(), PARAMS)
def test_jumps_match_rounds_served_slot_by_slot_under_failures_and_windows(data, params):
    workload, spec, windows = data.draw(workloads_with_events(15, 8))
    _same_runs(workload, params, failures=spec, windows=windows)


def test_a_job_arriving_mid_round_starts_after_the_jumped_round():
    """Three jobs of 100 s, one row each on one processor, rounds of 3 s at l = 1: a
    fourth arriving at 10 s (inside the round 9-12) is placed at 12 in a fourth row and
    first served at 15; its 5 s end at 32 (rounds of 4 s)."""
    jobs = (Job(1, 0, 100, 100, 1), Job(2, 0, 100, 100, 1), Job(3, 0, 100, 100, 1),
            Job(4, 10, 5, 5, 1))
    params = {"strategy": 1, "slot": 1, "slots": 4}
    workload = Workload(jobs, 1, name="arrival")
    jumped = run_timesharing(workload, GangScheduler(**params))
    assert jumped.start.tolist() == [0, 1, 2, 15]
    assert jumped.end[3] == 32
    plain = _served_slot_by_slot(workload, params)
    assert jumped.start.tolist() == plain.start.tolist()
    assert jumped.end.tolist() == plain.end.tolist()
    assert jumped.stats == plain.stats
