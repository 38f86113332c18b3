"""Backfilling on predicted runtimes: hand-checked schedules, corrections as engine events,
the kill time kept at the estimate, the prediction metrics, and no look-ahead in a run.

The two small traces run on 4 processors.  User 7's first two jobs (4 wide, 10 s of
their 100 s estimates) run 0-10 and 10-20, so from t = 20 EASY++ predicts user 7's jobs
at (10 + 10) / 2 = 10 s (Tsafrir, Etsion & Feitelson 2007, §3).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from schedlab import Job, Workload
from schedlab.engine.result import FINISHED, KILLED

#: (id, submit, runtime, estimate, width, user)
HISTORY = ((1, 0, 10, 100, 4, 7), (2, 0, 10, 100, 4, 7))


def workload(rows) -> Workload:
    return Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w, user=u)
                               for i, s, r, e, w, u in HISTORY + tuple(rows)), processors=4)


def starts(result) -> dict[int, int]:
    return dict(zip(result.job_id.tolist(), result.start.tolist()))


#: Job 3 (user 8, 2 wide) runs 21-71 by its exact estimate; job 4 (4 wide) waits for
#: it: its reservation is at 71 and leaves no extra processor.  Job 5 (user 7, 2 wide,
#: estimate 100, runtime 10) cannot backfill on its estimate (23 + 100 > 71) but can on
#: EASY++'s 10 s (23 + 10 <= 71).
BACKFILLED = ((3, 21, 50, 50, 2, 8), (4, 22, 50, 100, 4, 9), (5, 23, 10, 100, 2, 7))


def test_easy_plus_plus_backfills_a_job_easy_cannot():
    trace = workload(BACKFILLED)
    easy = schedlab.simulate(trace, "fcfs+easy")
    assert starts(easy) == {1: 0, 2: 10, 3: 21, 4: 71, 5: 121}
    plus = schedlab.simulate(trace, {"name": "fcfs+easy", "predictor": "easy++"})
    assert starts(plus) == {1: 0, 2: 10, 3: 21, 4: 71, 5: 23}
    assert plus.predicted.tolist() == [100, 100, 50, 100, 10]    # no history: the estimate
    assert plus.corrections.tolist() == [0, 0, 0, 0, 0]
    assert plus.params["predictor"] == "easy++"


#: Job 3 (user 7, 2 wide, runtime 200 of an estimate of 1000) is predicted at 10 s: it
#: should end at 31.  Job 4 (4 wide) is reserved at 31.  Job 5 (user 11, 2 wide, 100 s)
#: does not fit before 31 and the reservation leaves no extra processor.  At 31 job 3
#: still runs: its prediction is raised to its estimate (EASY++), its expected end to
#: 1021, job 4's reservation moves from 31 to 1021 — broken — and the pass at that
#: instant starts job 5 at once.  Job 4 starts when job 3 really ends, at 221.
CORRECTED = ((3, 21, 200, 1000, 2, 7), (4, 22, 50, 100, 4, 9), (5, 25, 100, 100, 2, 11))


def test_an_outlived_prediction_is_corrected_at_that_instant_and_the_plan_follows():
    plus = schedlab.simulate(workload(CORRECTED), {"name": "fcfs+easy", "predictor": "easy++"})
    assert starts(plus) == {1: 0, 2: 10, 3: 21, 4: 221, 5: 31}
    assert plus.predicted.tolist() == [100, 100, 10, 100, 100]
    assert plus.final_prediction.tolist() == [100, 100, 1000, 100, 100]
    assert plus.corrections.tolist() == [0, 0, 1, 0, 0]
    assert plus.stats["broken_reservations"] == 1
    metrics = schedlab.compute_metrics(plus)
    assert metrics["prediction_corrections"] == 1 and metrics["broken_reservations"] == 1
    # p against a = min(runtime, estimate): 100/10, 100/10, 10/200, 100/50, 100/100
    assert metrics["underpredicted_pct"] == 20.0
    assert metrics["underprediction_factor"] == 20.0
    assert metrics["overprediction_factor"] == pytest.approx((10 + 10 + 2) / 3)
    assert metrics["prediction_mae"] == pytest.approx((90 + 90 + 190 + 50 + 0) / 5)
    easy = schedlab.simulate(workload(CORRECTED), "fcfs+easy")
    assert starts(easy)[5] == 25                        # on job 3's estimate: at once


def test_the_graded_correction_doubles_the_prediction_capped_by_the_estimate():
    """Job 3 outlives 10 s at 31, 20 s at 41, 40 s at 61, 80 s at 101 and 160 s at 181;
    the sixth prediction, 320 s, outlasts its 200 s.  Job 5 starts at 181, when the
    reservation of job 4 moves past 21 + 320 = 341 >= 181 + 100."""
    graded = schedlab.simulate(workload(CORRECTED),
                               {"name": "fcfs+easy", "predictor": "easy++[correction=graded]"})
    assert graded.corrections.tolist()[2] == 5
    assert graded.final_prediction.tolist()[2] == 320
    assert starts(graded)[5] == 181


def test_a_job_is_still_killed_at_its_estimate_not_at_its_prediction():
    rows = ((3, 21, 5000, 1000, 2, 7),)                 # runs past its estimate
    plus = schedlab.simulate(workload(rows), {"name": "fcfs+easy", "predictor": "easy++"})
    assert plus.end.tolist()[2] == 21 + 1000
    assert plus.status.tolist() == [FINISHED, FINISHED, KILLED]
    extended = schedlab.simulate(workload(rows), {"name": "fcfs+easy", "predictor": "easy++"},
                                 overrun="extend")
    assert extended.end.tolist()[2] == 21 + 5000
    # raised to its estimate once; past it, expected "soon" at every look, no event
    assert extended.corrections.tolist()[2] == 1


@pytest.mark.parametrize("policy", ["fcfs+conservative", "fcfs+plan", "sjf+easy", "dynp"])
def test_every_planning_policy_takes_a_predictor(policy):
    plus = schedlab.simulate(workload(CORRECTED), {"name": policy, "predictor": "easy++"})
    assert plus.corrections.tolist()[2] == 1
    assert plus.end.tolist()[2] == 221 and starts(plus)[4] >= 221


def test_conservative_counts_the_bookings_a_correction_moves_later():
    """Job 4 is booked at 31 (job 3's predicted end), job 5 behind it at 131.  At 31 the
    plan is rebuilt on job 3's estimate: job 4 moves to 1021 (broken), job 5 to 31
    (earlier: not broken), and starts."""
    plus = schedlab.simulate(workload(CORRECTED), {"name": "fcfs+conservative",
                                                   "predictor": "easy++"})
    assert plus.planned_start.tolist()[3:] == [31, 131]
    assert starts(plus) == {1: 0, 2: 10, 3: 21, 4: 221, 5: 31}
    assert plus.stats == {"plan_rebuilds": 1, "broken_reservations": 1}


def test_the_oracle_plans_with_the_runtimes_and_never_corrects():
    oracle = schedlab.simulate(workload(CORRECTED), {"name": "fcfs+easy", "predictor": "oracle"})
    assert oracle.predicted.tolist() == [10, 10, 200, 50, 100]
    assert oracle.corrections.sum() == 0


def test_the_estimate_predictor_is_the_plain_run():
    trace = workload(CORRECTED)
    plain = schedlab.simulate(trace, "fcfs+easy")
    named = schedlab.simulate(trace, {"name": "fcfs+easy", "predictor": "estimate"})
    assert starts(plain) == starts(named) and named.predicted is None
    metrics = schedlab.compute_metrics(named)        # the estimates measured as predictions
    assert metrics["prediction_corrections"] == 0 and metrics["underpredicted_pct"] == 0.0


def test_shortest_job_backfilled_first_tries_the_shortest_prediction_first():
    """Job 4 (4 wide) waits for job 3 (2 wide, 21-71); jobs 5 (estimate 40) and 6
    (estimate 20) both fit in the 2 processors before 71, but not together: in queue
    order job 5 backfills, shortest first job 6 does."""
    rows = ((3, 21, 50, 50, 2, 8), (4, 22, 50, 100, 4, 9), (5, 23, 40, 40, 2, 10),
            (6, 23, 20, 20, 2, 11))
    queue = schedlab.simulate(workload(rows), "fcfs+easy")
    assert starts(queue)[5] == 23 and starts(queue)[6] > 23
    sjbf = schedlab.simulate(workload(rows), {"name": "fcfs+easy", "backfill_order": "sjbf"})
    assert starts(sjbf)[6] == 23 and starts(sjbf)[5] > 23


def test_bad_predictor_parameters_are_one_line_errors():
    with pytest.raises(schedlab.InputError, match=r"unknown predictor 'easy\+' \(did you mean "
                                                   r"'easy\+\+'\?"):
        schedlab.make_policy({"name": "fcfs+easy", "predictor": "easy+"})
    with pytest.raises(schedlab.InputError, match="'q' parameter of predictor 'user-quantile'"):
        schedlab.make_policy({"name": "fcfs+easy", "predictor": "user-quantile[q=1.5]"})
    with pytest.raises(schedlab.InputError, match="backfill_order"):
        schedlab.make_policy({"name": "fcfs+easy", "backfill_order": "longest"})


# ------------------------------------------------------------------ no look-ahead in a run
job_rows = st.lists(st.tuples(st.integers(0, 50), st.integers(1, 200), st.integers(1, 250),
                              st.integers(1, 4), st.integers(0, 2)), min_size=2, max_size=25)


@settings(max_examples=60, deadline=None)
@given(rows=job_rows, cut=st.integers(0, 24), seed=st.integers(0, 2**16),
       predictor=st.sampled_from(["easy++", "last", "user-quantile", "knn[k=2]"]))
def test_no_prediction_reads_the_runtime_of_its_job_or_of_a_later_one(rows, cut, seed,
                                                                       predictor):
    """Changing the runtimes of job ``cut`` and of every job submitted after it changes
    no prediction made up to ``cut``'s submission: what had ended by then is the same."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = [Job(id=k + 1, submit=s, runtime=r, estimate=e, width=w, user=u)
            for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows))]
    cut = min(cut, len(jobs) - 1)
    rng = np.random.default_rng(seed)
    changed = [job if job.submit < jobs[cut].submit
               else job._replace(runtime=int(rng.integers(0, 400))) for job in jobs]
    policy = {"name": "fcfs+easy", "predictor": predictor}
    first = schedlab.simulate(Workload(jobs=tuple(jobs), processors=4), policy)
    second = schedlab.simulate(Workload(jobs=tuple(changed), processors=4), policy)
    before = [k for k, job in enumerate(jobs) if job.submit <= jobs[cut].submit]
    assert first.predicted[before].tolist() == second.predicted[before].tolist()


def test_every_prediction_metric_is_computed_and_documented():
    import re
    from pathlib import Path

    from schedlab.metrics.predictions import PREDICTION_METRIC_DOCS

    metrics = schedlab.compute_metrics(schedlab.simulate(
        workload(CORRECTED), {"name": "fcfs+easy", "predictor": "easy++"}))
    assert set(PREDICTION_METRIC_DOCS) <= set(metrics)
    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md").read_text()
    assert set(PREDICTION_METRIC_DOCS) <= set(re.findall(r"^\| `([^`]+)`", text, re.MULTILINE))


@pytest.mark.parametrize("policy", ["qops", "msb", "mrt"])
def test_admission_on_a_prediction_is_repaired_and_its_miss_reported(policy):
    """Job 4 (4 wide, 50 s, deadline 200) is refused on job 3's estimate (it would run to
    1021) but admitted on EASY++'s 10 s prediction, planned at 31.  At 31 job 3 is
    corrected, the plan repaired (job 4 moved later: one broken reservation), and job 4
    starts when job 3 really ends, at 221: it ends at 271 and misses its deadline."""
    deadlines = {3: 5000, 4: 200, 5: 5000}
    trace = Workload(jobs=tuple(job._replace(deadline=deadlines.get(job.id, 10**6))
                                for job in workload(CORRECTED).jobs), processors=4)
    exact = schedlab.simulate(trace, policy)
    assert exact.status.tolist()[3] == 2 and schedlab.compute_metrics(exact)["deadline_missed"] == 0
    predicted = schedlab.simulate(trace, {"name": policy, "predictor": "easy++"})
    assert starts(predicted)[4] == 221 and predicted.planned_start.tolist()[3] == 31
    assert predicted.stats["broken_reservations"] == 1
    assert schedlab.compute_metrics(predicted)["deadline_missed"] == 1
