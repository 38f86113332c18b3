"""Deadline metrics: admission, misses, and how non-deadline jobs fare (Islam et al., QoPS §5).

Computed from the ``deadline`` and ``artificial_deadline`` columns of a
:class:`~schedlab.engine.result.Result`; :func:`compute_metrics` adds them
only when the result has deadlines.  Two kinds of jobs:

* **deadline jobs** — a real deadline (``deadline >= 0``, not artificial);
* **non-deadline jobs** — no deadline, or an artificial one given only
  against starvation (QoPS §4.2).

Names (documented with their formulas in docs/reference/metrics.md):

* ``deadline_jobs``, ``deadline_rejected``, ``deadline_rejected_pct``,
  ``deadline_rejected_area_pct`` — unadmitted deadline jobs and their share
  of the deadline jobs' processor-seconds (width x trace runtime), QoPS §5.1
  and §5.2 ("admittance of deadline jobs");
* ``deadline_missed``, ``deadline_missed_pct``, ``deadline_max_lateness`` —
  admitted jobs with a deadline (real or artificial) that end after it: 0
  under admission control with estimates that hold, measured otherwise
  (QoPS §6 leaves inexact estimates to future work);
* ``deadline_unfinished``, ``deadline_unfinished_pct`` — admitted jobs with a
  deadline killed at their estimate by the deadline: not late, yet their
  work is not done.  Admission control plans by estimates, so with
  estimates below runtimes (``overrun="kill"``) these are the deadlines it
  fails without a single miss.  Missed and unfinished are disjoint: the
  deadlines met are the admitted ones minus both;
* ``nondeadline_jobs``, ``nondeadline_rejected``,
  ``nondeadline_avg_response``, ``nondeadline_avg_slowdown`` — QoPS §5.2,
  Figs. 25–36 and 43–54 (response time and slowdown of non-deadline jobs).

The all-jobs shares ``rejected_pct`` / ``rejected_area_pct`` and the
``utilization`` are in :mod:`schedlab.metrics.aggregates`.  A share or mean
over no jobs (no deadline jobs, no admitted job with a deadline, no
non-deadline job that ran) is missing, ``None`` (docs/reference/metrics.md, "Empty
groups"), as is the largest lateness when no admitted job had a deadline.
"""

from __future__ import annotations

import numpy as np

from schedlab.engine.result import KILLED, REJECTED, Result
from schedlab.metrics.jobs import (
    Metrics,
    accepted_jobs,
    area_percent,
    largest,
    mean,
    percent,
    requested_area,
    response_time,
    slowdown,
)

#: One line per deadline metric name: meaning and source.
DEADLINE_METRIC_DOCS: dict[str, str] = {
    "deadline_jobs": "jobs with a real (not artificial) deadline",
    "deadline_rejected": "deadline jobs not admitted (QoPS, Islam et al., §5.1)",
    "deadline_rejected_pct": "percentage of deadline jobs not admitted (QoPS §5.1, §5.2)",
    "deadline_rejected_area_pct": "percentage of the deadline jobs' processor-seconds "
                                  "(width x trace runtime) not admitted (QoPS §5.1, §5.2)",
    "deadline_missed": "admitted jobs with a deadline (real or artificial) ending after it",
    "deadline_missed_pct": "percentage of the admitted jobs with a deadline that miss it",
    "deadline_max_lateness": "largest end - deadline over the admitted jobs with a deadline, "
                             "0 when none is late, seconds",
    "deadline_unfinished": "admitted jobs with a deadline killed at their estimate by the "
                           "deadline: in time, but not done",
    "deadline_unfinished_pct": "percentage of the admitted jobs with a deadline that are "
                               "unfinished",
    "nondeadline_jobs": "jobs without a deadline or with an artificial one (QoPS §4.2)",
    "nondeadline_rejected": "non-deadline jobs not admitted",
    "nondeadline_avg_response": "mean end - submit of the non-deadline jobs that ran, seconds "
                                "(QoPS §5.2, Figs. 25-36, 43-54)",
    "nondeadline_avg_slowdown": "mean max(response, 1) / max(run, 1) of the non-deadline jobs "
                                "that ran (QoPS §5.2, Figs. 25-36, 43-54)",
}


def has_deadlines(result: Result) -> bool:
    """Whether the result carries deadline columns (some job of the workload had a deadline)."""
    return result.deadline is not None


def deadline_masks(result: Result) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks ``(deadline jobs, non-deadline jobs)`` over all jobs of the result."""
    deadline = np.asarray(result.deadline)
    artificial = np.asarray(result.artificial_deadline, dtype=bool)
    real = (deadline >= 0) & ~artificial
    return real, ~real


def admission_of_deadline_jobs(result: Result) -> dict[str, float | int | None]:
    """How many deadline jobs, and what share of their processor-seconds, were not admitted."""
    real, _ = deadline_masks(result)
    rejected = np.asarray(result.status) == REJECTED
    count = int(np.count_nonzero(real))
    refused = int(np.count_nonzero(real & rejected))
    return {
        "deadline_jobs": count,
        "deadline_rejected": refused,
        "deadline_rejected_pct": percent(refused, count),
        "deadline_rejected_area_pct": area_percent(requested_area(result)[real],
                                                   rejected[real]),
    }


def deadline_misses(result: Result) -> dict[str, float | int | None]:
    """Admitted jobs with a deadline (real or artificial) that end after it, and by how much;
    and those killed at their estimate in time, which end by it without being done."""
    deadline = np.asarray(result.deadline)
    status = np.asarray(result.status)
    ran = result.accepted & (deadline >= 0)
    lateness = np.asarray(result.end)[ran] - deadline[ran]
    late = lateness > 0
    missed = int(np.count_nonzero(late))
    unfinished = int(np.count_nonzero((status[ran] == KILLED) & ~late))
    admitted = len(lateness)
    latest = largest(lateness)
    return {
        "deadline_missed": missed,
        "deadline_missed_pct": percent(missed, admitted),
        "deadline_max_lateness": None if latest is None else max(latest, 0),
        "deadline_unfinished": unfinished,
        "deadline_unfinished_pct": percent(unfinished, admitted),
    }


def nondeadline_performance(result: Result) -> dict[str, float | int | None]:
    """Admission, mean response and mean slowdown of the non-deadline jobs (QoPS §5.2)."""
    _, other = deadline_masks(result)
    rejected = np.asarray(result.status) == REJECTED
    ran = accepted_jobs(result).subset(other[~rejected])
    return {
        "nondeadline_jobs": int(np.count_nonzero(other)),
        "nondeadline_rejected": int(np.count_nonzero(other & rejected)),
        "nondeadline_avg_response": mean(response_time(ran)),
        "nondeadline_avg_slowdown": mean(slowdown(ran)),
    }


def deadline_metrics(result: Result) -> Metrics:
    """Every deadline metric as a flat dict; empty when the result has no deadlines."""
    if not has_deadlines(result):
        return {}
    metrics: Metrics = {}
    metrics.update(admission_of_deadline_jobs(result))
    metrics.update(deadline_misses(result))
    metrics.update(nondeadline_performance(result))
    return metrics
