"""The built-in runtime predictors on a hand-made workload, their parameters, the registry,
the correction rules and the trace-only accuracy replay (docs/reference/predictions.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.outcomes import FINISHED
from schedlab.predictors import (
    EasyPlusPlus,
    EndedJob,
    PredictionQuery,
    Predictor,
    TraceRecord,
    available_predictors,
    ended_job,
    make_predictor,
    prediction_accuracy,
    query_of,
)
from schedlab.predictors import registry as predictor_registry
from schedlab.predictors.accuracy import replay
from schedlab.workload.job import Job, Workload

#: (id, submit, runtime, estimate, width, user): every job starts at its submission.
#: User 1's jobs end at 100 (job 1), 310 (job 2), 420 (job 4), 450 (job 3); user 2's job 5
#: at 427.
JOBS = [
    (1, 0, 100, 1000, 1, 1),
    (2, 10, 300, 1000, 4, 1),
    (3, 400, 50, 1000, 8, 1),
    (4, 410, 10, 150, 1, 1),
    (5, 420, 7, 500, 8, 2),
    (6, 1000, 5, 1000, 8, 1),
]


def hand_workload() -> Workload:
    jobs = [Job(i, submit, runtime, estimate, width, user)
            for i, submit, runtime, estimate, width, user in JOBS]
    return Workload(jobs=tuple(jobs), processors=8, name="hand")


def predictions(spec: str) -> list[int]:
    workload = hand_workload()
    predicted, _ = replay(workload, make_predictor(spec), TraceRecord.without_waits(workload))
    return predicted.tolist()


def test_estimate_predicts_the_estimate():
    assert predictions("estimate") == [1000, 1000, 1000, 150, 500, 1000]


def test_easy_plus_plus_averages_the_users_last_two_ended_jobs_capped_by_the_estimate():
    # job 3: user 1's jobs 1 and 2 ended: (100 + 300) / 2; job 4: the same mean, capped at
    # its estimate 150; job 5: user 2 has no ended job; job 6: the last two to end are job 4
    # (10 s, ended at 420) and job 3 (50 s, at 450): 30.
    assert predictions("easy++") == [1000, 1000, 200, 150, 500, 30]


def test_easy_plus_plus_gives_the_estimate_before_two_ended_jobs():
    predictor = EasyPlusPlus()
    query = PredictionQuery(9, 500, 1, 700, user=3)
    assert predictor.predict(query) == 700
    predictor.observe(EndedJob(8, 0, 1, 700, 3, -1, -1, -1, 0, 40, 40))
    assert predictor.predict(query) == 700
    predictor.observe(EndedJob(7, 0, 1, 700, 3, -1, -1, -1, 0, 51, 51))
    assert predictor.predict(query) == 46               # (40 + 51) / 2 rounded up
    predictor.observe(EndedJob(6, 0, 1, 700, 3, -1, -1, -1, 60, 60, 0))
    assert predictor.predict(query) == 26               # the last two: 51 and 0
    predictor.observe(EndedJob(5, 0, 1, 700, 3, -1, -1, -1, 60, 60, 0))
    assert predictor.predict(query) == 1                # at least one second


def test_last_predicts_the_users_last_ended_job():
    assert predictions("last") == [1000, 1000, 300, 150, 500, 50]


def test_user_quantile_is_the_nearest_rank_quantile_of_the_users_ended_jobs():
    # job 6: user 1's runtimes 10, 50, 100, 300: the median by nearest rank is the 2nd
    assert predictions("user-quantile") == [1000, 1000, 100, 100, 500, 50]
    assert predictions("user-quantile[q=0.9]") == [1000, 1000, 300, 150, 500, 300]
    assert predictions("user-quantile[q=0.5,window=1,min_jobs=1]") == \
        [1000, 1000, 300, 150, 500, 50]


def test_knn_picks_the_nearest_ended_jobs_on_user_width_and_estimate():
    # job 6 (user 1, width 8, estimate 1000): job 3 is at distance 0, job 2 at 1 (width 4),
    # job 5 at 3 (another user, half the estimate), job 1 at 3, job 4 at 3 + log2(1000/150)
    assert predictions("knn[k=1]")[5] == 50
    assert predictions("knn[k=2]")[5] == 175
    # with fewer ended jobs than k, all of them: job 3 sees jobs 1 and 2
    assert predictions("knn[k=5]")[2] == 200
    assert predictions("knn[k=1]")[0] == 1000        # nothing ended: the estimate


def test_knn_ties_go_to_the_job_that_ended_later():
    predictor = make_predictor("knn[k=1]")
    for job_id, runtime in ((1, 10), (2, 20)):
        predictor.observe(EndedJob(job_id, 0, 4, 100, 1, -1, -1, -1, 0, runtime, runtime))
    assert predictor.predict(PredictionQuery(3, 50, 4, 100, user=1)) == 20


def test_oracle_predicts_the_real_runtime_capped_by_the_estimate():
    assert predictions("oracle") == [100, 300, 50, 10, 7, 5]
    oracle = make_predictor("oracle")
    assert oracle.looks_ahead
    with pytest.raises(RuntimeError, match="reveal"):
        oracle.predict(PredictionQuery(1, 0, 1, 10))
    oracle.reveal({1: 0, 2: 50})
    assert oracle.predict(PredictionQuery(1, 0, 1, 10)) == 1
    assert oracle.predict(PredictionQuery(2, 0, 1, 10)) == 10


def test_only_the_oracle_is_told_the_truth():
    assert [name for name, entry in available_predictors().items()
            if entry.factory.looks_ahead] == ["oracle"]
    with pytest.raises(TypeError, match="does not look ahead"):
        make_predictor("easy++").reveal({1: 5})


def test_a_query_has_no_runtime_and_is_made_from_a_job():
    job = Job(7, 100, 999, 500, 4, user=3, group=2, queue=1)
    query = query_of(job, app=12)
    assert "runtime" not in PredictionQuery._fields
    assert query == PredictionQuery(7, 100, 4, 500, 3, 2, 1, 12)
    assert ended_job(job, 150, 400) == EndedJob(7, 100, 4, 500, 3, 2, 1, -1, 150, 400, 250,
                                                FINISHED)


@pytest.mark.parametrize("predicted, elapsed, rule, expected", [
    (100, 100, "estimate", 1000),
    (100, 100, "graded", 200),
    (600, 600, "graded", 1000),        # capped by the estimate
    (0, 0, "graded", 1),               # always beyond what has run
    (1000, 1000, "estimate", 1001),    # past its estimate (overrun=extend): "soon"
    (1000, 1200, "graded", 1201),
])
def test_corrections(predicted, elapsed, rule, expected):
    predictor = make_predictor(f"easy++[correction={rule}]")
    assert predictor.corrected(PredictionQuery(1, 0, 1, 1000), predicted, elapsed) == expected


@pytest.mark.parametrize("spec, message", [
    ("easy+", "unknown predictor 'easy+' (did you mean 'easy++'?)"),
    ("knn[k=0]", "The 'k' parameter of predictor 'knn' must be an int in [1, 10000]. Got 0 "
                 "instead."),
    ("knn[k=20,window=10]", "must be at most its window (10)"),
    ("user-quantile[q=1]", "The 'q' parameter of predictor 'user-quantile' must be a float in "
                           "(0, 1). Got 1 instead."),
    ("user-quantile[q=-0.5]", "must be a float in (0, 1)"),
    ("easy++[correction=slow]", "must be one of 'estimate', 'graded'"),
    ("easy++[k=3]", "predictor 'easy++' has no parameter 'k'"),
    ("easy++[", "predictor spec 'easy++[': expected NAME or NAME[KEY=VALUE,...]"),
])
def test_bad_specs_are_one_line_input_errors(spec, message):
    with pytest.raises(InputError) as caught:
        make_predictor(spec)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_specs_round_trip_through_labels():
    predictor = make_predictor("user-quantile[q=0.9,correction=graded]")
    assert predictor.label == "user-quantile[q=0.9,correction=graded]"
    assert make_predictor(predictor.label).get_params() == predictor.get_params()
    assert make_predictor({"name": "knn", "k": 3}).label == "knn[k=3]"
    assert make_predictor("EASY++").label == "easy++"
    assert make_predictor(predictor) is predictor
    assert make_predictor().label == "estimate"


def test_a_clone_has_the_parameters_and_no_history():
    predictor = make_predictor("last")
    predictor.observe(EndedJob(1, 0, 1, 100, 5, -1, -1, -1, 0, 30, 30))
    assert predictor.predict(PredictionQuery(2, 40, 1, 100, user=5)) == 30
    assert predictor.clone().predict(PredictionQuery(2, 40, 1, 100, user=5)) == 100


class Constant(Predictor):
    """Always the same number of seconds (a plug-in)."""

    name = "constant"

    def predict(self, query: PredictionQuery) -> int:
        return min(60, query.estimate)


def test_a_plugin_is_found_and_built(monkeypatch):
    entry = predictor_registry.PredictorEntry("constant", Constant, source="tests")
    monkeypatch.setattr(predictor_registry, "_plugin_entries", lambda: {"constant": entry})
    assert "constant" in available_predictors()
    assert make_predictor("constant").predict(PredictionQuery(1, 0, 1, 100)) == 60
    assert available_predictors()["constant"].summary == "Always the same number of seconds " \
                                                          "(a plug-in)."


def test_accuracy_metrics_on_the_hand_workload():
    accuracy = prediction_accuracy(hand_workload(), make_predictor("easy++"))
    actual = [100, 300, 50, 10, 7, 5]
    predicted = [1000, 1000, 200, 150, 500, 30]
    assert accuracy.actual.tolist() == actual
    assert accuracy.predicted.tolist() == predicted
    metrics = accuracy.metrics
    errors = [abs(p - a) for p, a in zip(predicted, actual)]
    assert metrics.mean_absolute_error == pytest.approx(np.mean(errors))
    assert metrics.mean_relative_error == pytest.approx(np.mean([e / a for e, a in
                                                                 zip(errors, actual)]))
    assert metrics.underpredicted == 0
    assert math.isnan(metrics.underprediction_factor)
    assert metrics.overprediction_factor == pytest.approx(np.mean([p / a for p, a in
                                                                   zip(predicted, actual)]))
    assert accuracy.baseline.mean_absolute_error == pytest.approx(
        np.mean([e - a for e, a in zip([1000, 1000, 1000, 150, 500, 1000], actual)]))
    assert accuracy.record == "no waits"


def test_corrections_count_until_the_prediction_covers_the_job():
    # job 3 of user 1 runs 800 s on an estimate of 1000, predicted 200 (mean of 100 and 300)
    jobs = [Job(1, 0, 100, 1000, 1, 1), Job(2, 10, 300, 1000, 1, 1),
            Job(3, 400, 800, 1000, 1, 1)]
    workload = Workload(jobs=tuple(jobs), processors=1)
    once = prediction_accuracy(workload, make_predictor("easy++"))
    assert once.predicted.tolist()[2] == 200
    assert (once.metrics.corrections, once.metrics.corrected_jobs) == (1, 1)
    graded = prediction_accuracy(workload, make_predictor("easy++[correction=graded]"))
    assert (graded.metrics.corrections, graded.metrics.corrected_jobs) == (2, 1)  # 400, 800
    assert graded.metrics.underprediction_factor == pytest.approx(4.0)


def test_the_trace_record_decides_what_has_ended():
    # job 2 waited 1000 s in the trace: it has not ended when job 3 is submitted
    jobs = [Job(1, 0, 100, 1000, 1, 1), Job(2, 10, 300, 1000, 1, 1),
            Job(3, 400, 50, 1000, 1, 1)]
    workload = Workload(jobs=tuple(jobs), processors=1)
    record = TraceRecord.from_swf_columns(workload, np.array([0, 1000, -1]),
                                          np.array([1, 0, 1]), np.array([3, -1, 3]))
    assert record.end.tolist() == [100, 1310, 450]
    assert record.status.tolist() == [FINISHED, 1, FINISHED]
    assert prediction_accuracy(workload, make_predictor("last"), record).predicted.tolist() \
        == [1000, 1000, 100]


def test_a_trace_without_any_recorded_wait_is_replayed_without_waits():
    workload = Workload(jobs=(Job(1, 0, 100, 1000, 1, 1),), processors=1)
    record = TraceRecord.from_swf_columns(workload, np.array([-1]), np.array([1]),
                                          np.array([-1]))
    assert (record.source, record.start.tolist()) == ("no waits", [0])
