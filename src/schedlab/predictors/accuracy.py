"""How well a predictor predicts a trace, without scheduling it.

:func:`prediction_accuracy` replays a workload as a predictor would live
through it: at each job's submission the predictor has observed exactly the
jobs that ended by then, in the order they ended, and is asked for that
job's runtime.  What has ended by a submission comes from the schedule the
trace itself records (:class:`TraceRecord`: start = submit + wait, end =
start + runtime, SWF fields 2-4), not from a simulation: the analysis needs
no policy.  At one instant ends come before submissions (the engine's
order); a job is never observed before it was itself predicted.

The metrics compare each prediction ``p`` with the time the job holds its
processors in a run, ``a = min(runtime, estimate)`` (it is killed at its
estimate), and the user's estimate is measured the same way, as the
baseline.  docs/reference/predictions.md defines every metric.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields

import numpy as np

from schedlab.outcomes import FINISHED, KILLED
from schedlab.predictors.base import UNKNOWN, EndedJob, PredictionQuery, Predictor
from schedlab.workload.job import Workload

#: SWF status 1: the job completed.
SWF_COMPLETED = 1


@dataclass(frozen=True)
class TraceRecord:
    """The schedule a trace records, one entry per job of the workload in its order.

    ``source`` says where it came from: ``"trace"`` (the SWF's wait times;
    a wait of -1, unknown, is taken as 0) or ``"no waits"`` (a workload
    without a record, or a trace whose every wait is unknown: every job
    taken to start at its submission).
    """

    start: np.ndarray
    end: np.ndarray
    status: np.ndarray
    app: np.ndarray
    source: str

    @classmethod
    def from_swf_columns(cls, workload: Workload, wait: np.ndarray, status: np.ndarray,
                         executable: np.ndarray) -> TraceRecord:
        """From the SWF's wait (field 3), status (field 11: 1 completed, else the job is
        observed as killed) and executable (field 14) of each job."""
        columns = workload.to_arrays()
        start = columns["submit"] + np.maximum(wait, 0)
        return cls(start, start + columns["runtime"],
                   np.where(status == SWF_COMPLETED, FINISHED, KILLED).astype(np.int64),
                   np.where(executable > 0, executable, UNKNOWN).astype(np.int64),
                   "trace" if (wait >= 0).any() else "no waits")

    @classmethod
    def without_waits(cls, workload: Workload) -> TraceRecord:
        """Every job started at its submission and finished: for a workload with no record."""
        columns = workload.to_arrays()
        n = len(workload)
        return cls(columns["submit"], columns["submit"] + columns["runtime"],
                   np.full(n, FINISHED, dtype=np.int64), np.full(n, UNKNOWN, dtype=np.int64),
                   "no waits")


@dataclass(frozen=True)
class AccuracyMetrics:
    """The accuracy of one set of predictions ``p`` against ``a = min(runtime, estimate)``.

    * ``mean_absolute_error``: mean of ``|p - a|``, seconds;
    * ``mean_relative_error``: mean of ``|p - a| / max(a, 1)``;
    * ``mean_accuracy``: mean of ``min(p, a') / max(p, a')`` with ``a' = max(a, 1)``:
      1 for a perfect prediction, near 0 for one far off either way;
    * ``underpredicted``: share of jobs with ``p < a``;
    * ``overprediction_factor``: mean of ``p / max(a, 1)`` over the jobs with ``p > a``;
    * ``underprediction_factor``: mean of ``a / p`` over the jobs with ``p < a``;
    * ``corrections``: how many corrections the predictor's rule makes until every
      prediction reaches ``a`` (a job is corrected when it outlives its prediction);
    * ``corrected_jobs``: jobs corrected at least once (those with ``p < a``).

    A factor over no jobs is NaN.
    """

    jobs: int
    mean_absolute_error: float
    mean_relative_error: float
    mean_accuracy: float
    underpredicted: float
    overprediction_factor: float
    underprediction_factor: float
    corrections: int
    corrected_jobs: int

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: The metrics' labels, in the order the command prints them.
METRIC_LABELS = {
    "mean_absolute_error": "mean absolute error [s]",
    "mean_relative_error": "mean relative error",
    "mean_accuracy": "mean accuracy min(p,a)/max(p,a)",
    "underpredicted": "share underpredicted",
    "overprediction_factor": "mean overprediction factor (p/a)",
    "underprediction_factor": "mean underprediction factor (a/p)",
    "corrections": "corrections",
    "corrected_jobs": "jobs corrected",
}


@dataclass(frozen=True)
class PredictionAccuracy:
    """One predictor on one trace: every job's prediction, the metrics, the baseline.

    Arrays are in the workload's order (submit, id).  ``baseline`` measures
    the user estimates the same way; ``overran`` counts the jobs whose runtime
    exceeds their estimate (``a`` is their estimate); ``seconds`` is the CPU
    time of the replay (predict and observe calls).
    """

    predictor: str
    workload: str
    record: str
    ids: np.ndarray
    predicted: np.ndarray
    actual: np.ndarray
    estimate: np.ndarray
    metrics: AccuracyMetrics
    baseline: AccuracyMetrics
    overran: int
    seconds: float
    looks_ahead: bool = field(default=False)


def replay(workload: Workload, predictor: Predictor, record: TraceRecord
           ) -> tuple[np.ndarray, list[PredictionQuery]]:
    """The prediction of every job (workload order) and the queries asked.

    At each submission the predictor first observes every job that ended at
    or before it (by end, then by workload order) and was itself submitted
    earlier; a job submitted at the same instant and ending then (zero wait
    and runtime) is observed at the next submission after its own.
    """
    jobs = workload.jobs
    n = len(jobs)
    columns = workload.to_arrays()
    by_end = np.lexsort((np.arange(n), record.end))
    end_sorted = record.end[by_end].tolist()
    by_end_list = by_end.tolist()
    starts, ends = record.start.tolist(), record.end.tolist()
    status, app = record.status.tolist(), record.app.tolist()
    if predictor.looks_ahead:
        predictor.reveal(dict(zip(columns["id"].tolist(), columns["runtime"].tolist())))
    predictions = np.empty(n, dtype=np.int64)
    queries: list[PredictionQuery] = []
    predict, observe = predictor.predict, predictor.observe
    cursor = 0
    for i, job in enumerate(jobs):
        submit = job.submit
        while cursor < n and end_sorted[cursor] <= submit and by_end_list[cursor] < i:
            j = by_end_list[cursor]
            done = jobs[j]
            observe(EndedJob(done.id, done.submit, done.width, done.estimate, done.user,
                             done.group, done.queue, app[j], starts[j], ends[j],
                             ends[j] - starts[j], status[j]))
            cursor += 1
        query = PredictionQuery(job.id, submit, job.width, job.estimate, job.user, job.group,
                                job.queue, app[i])
        queries.append(query)
        predictions[i] = predict(query)
    return predictions, queries


def prediction_accuracy(workload: Workload, predictor: Predictor,
                        record: TraceRecord | None = None) -> PredictionAccuracy:
    """Replay ``workload`` through a fresh copy of ``predictor`` and measure it (see the
    module docstring); without a ``record`` every job starts at its submission."""
    record = record or TraceRecord.without_waits(workload)
    fresh = predictor.clone()
    began = time.process_time()
    predicted, queries = replay(workload, fresh, record)
    seconds = time.process_time() - began
    columns = workload.to_arrays()
    estimate = columns["estimate"]
    actual = np.minimum(columns["runtime"], estimate)
    return PredictionAccuracy(
        predictor=fresh.label, workload=workload.name, record=record.source, ids=columns["id"],
        predicted=predicted, actual=actual, estimate=estimate,
        metrics=accuracy_metrics(predicted, actual, fresh, queries),
        baseline=accuracy_metrics(estimate, actual, fresh, queries),
        overran=int((columns["runtime"] > estimate).sum()), seconds=seconds,
        looks_ahead=fresh.looks_ahead)


def accuracy_metrics(predicted: np.ndarray, actual: np.ndarray, predictor: Predictor,
                     queries: list[PredictionQuery]) -> AccuracyMetrics:
    """:class:`AccuracyMetrics` of ``predicted`` against ``actual``; the corrections are
    those of ``predictor``'s rule."""
    under = predicted < actual
    corrections = 0
    for i in np.flatnonzero(under).tolist():
        value, target = int(predicted[i]), int(actual[i])
        while value < target:
            value = predictor.corrected(queries[i], value, value)
            corrections += 1
    return AccuracyMetrics(jobs=len(predicted), **error_measures(predicted, actual),
                           corrections=corrections, corrected_jobs=int(under.sum()))


def error_measures(predicted: np.ndarray, actual: np.ndarray) -> dict[str, float]:
    """The error measures of :class:`AccuracyMetrics` (its fields from
    ``mean_absolute_error`` to ``underprediction_factor``) of ``predicted`` against
    ``actual``; shared by the trace replay and the metrics of a run."""
    p = predicted.astype(np.float64)
    a = actual.astype(np.float64)
    error = np.abs(p - a)
    over, under = p > a, p < a
    return {
        "mean_absolute_error": _mean(error),
        "mean_relative_error": _mean(error / np.maximum(a, 1)),
        "mean_accuracy": _mean(np.minimum(p, np.maximum(a, 1)) / np.maximum(np.maximum(p, a), 1)),
        "underpredicted": _mean(under.astype(np.float64)),
        "overprediction_factor": _mean(p[over] / np.maximum(a[over], 1)),
        "underprediction_factor": _mean(a[under] / np.maximum(p[under], 1))}


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else float("nan")
