"""No predictor but the oracle reads a runtime it could not know (docs/reference/predictions.md).

On random workloads with a random recorded schedule, the prediction of job i
must not change when the runtimes of job i and of every job that has not
ended by i's submission change (keeping those jobs unended then): a predictor
that read any of them would, for some draw, answer differently.  The oracle,
which looks ahead by design, is shown to fail the same check, so the check
has teeth.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.predictors import (
    PredictionQuery,
    Predictor,
    TraceRecord,
    available_predictors,
    make_predictor,
)
from schedlab.predictors.accuracy import replay
from schedlab.workload.job import Job, Workload

HONEST = [name for name, entry in available_predictors().items()
          if not entry.factory.looks_ahead]
SPECS = [*HONEST, "easy++[correction=graded]", "user-quantile[q=0.9,window=3,min_jobs=1]",
         "knn[k=1,window=4]", "knn[k=3,user_weight=0]"]


@st.composite
def traces(draw):
    """A workload (users 0-3 and unknown, equal submits allowed, zero runtimes and waits
    allowed) with its recorded waits, a job i, and new runtimes for i and every job that has
    not ended by i's submission."""
    n = draw(st.integers(1, 25))
    gaps = draw(st.lists(st.integers(0, 300), min_size=n, max_size=n))
    submits = np.cumsum(gaps).tolist()
    jobs, waits = [], []
    for k, submit in enumerate(submits):
        estimate = draw(st.integers(1, 1000))
        jobs.append(Job(k + 1, submit, draw(st.integers(0, 1200)), estimate,
                        draw(st.integers(1, 16)), draw(st.sampled_from([-1, 0, 1, 2, 3]))))
        waits.append(draw(st.integers(0, 500)))
    i = draw(st.integers(0, n - 1))
    start = [job.submit + wait for job, wait in zip(jobs, waits)]
    changed = []
    for k, job in enumerate(jobs):
        unended = start[k] + job.runtime > submits[i]
        if k == i:
            changed.append(job._replace(runtime=draw(st.integers(0, 2000))))
        elif unended:
            low = max(0, submits[i] + 1 - start[k])      # still running at i's submission
            changed.append(job._replace(runtime=draw(st.integers(low, low + 2000))))
        else:
            changed.append(job)
    return jobs, changed, np.array(waits), i


def predictions(jobs: list[Job], waits: np.ndarray, spec: str) -> list[int]:
    workload = Workload(jobs=tuple(jobs), processors=16)
    record = TraceRecord.from_swf_columns(workload, waits, np.ones(len(jobs), dtype=np.int64),
                                          np.full(len(jobs), -1))
    predicted, _ = replay(workload, make_predictor(spec), record)
    return predicted.tolist()


@settings(max_examples=150, deadline=None)
@given(traces(), st.sampled_from(SPECS))
def test_a_prediction_reads_no_runtime_of_a_job_not_yet_ended(trace, spec):
    jobs, changed, waits, i = trace
    before = predictions(jobs, waits, spec)
    after = predictions(changed, waits, spec)
    assert before[:i + 1] == after[:i + 1]
    assert all(1 <= p <= job.estimate for p, job in zip(before, jobs))


def test_the_check_catches_a_predictor_that_looks_ahead():
    jobs = [Job(1, 0, 100, 1000, 1, 1), Job(2, 10, 300, 1000, 1, 1)]
    changed = [jobs[0], jobs[1]._replace(runtime=700)]
    waits = np.zeros(2, dtype=np.int64)
    assert predictions(jobs, waits, "oracle")[1] != predictions(changed, waits, "oracle")[1]


class Spy(Predictor):
    """Records what it is handed."""

    name = "spy"

    def reset(self) -> None:
        self.seen: list[object] = []

    def predict(self, query: PredictionQuery) -> int:
        self.seen.append(query)
        return query.estimate

    def observe(self, ended) -> None:
        self.seen.append(ended)


def test_predict_is_handed_queries_without_runtimes_and_observe_ended_jobs_in_order():
    jobs = [Job(1, 0, 100, 1000, 1, 1), Job(2, 10, 30, 1000, 1, 1), Job(3, 200, 5, 9, 1, 2)]
    workload = Workload(jobs=tuple(jobs), processors=1)
    spy = Spy()
    replay(workload, spy, TraceRecord.without_waits(workload))
    kinds = [(type(item).__name__, item.id) for item in spy.seen]
    assert kinds == [("PredictionQuery", 1), ("PredictionQuery", 2), ("EndedJob", 2),
                     ("EndedJob", 1), ("PredictionQuery", 3)]
    assert all(not hasattr(item, "runtime") for item in spy.seen
               if isinstance(item, PredictionQuery))
