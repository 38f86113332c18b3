"""Reservation metrics: requests granted and rejected, reserved capacity (Margo et al., §4–6).

Computed from ``Result.reservations`` (and ``Result.queued`` for the
per-user queue limit); :func:`compute_metrics` adds them only when the run
had reservation requests (or a queue limit).  Margo et al. measure
utilization (eq. 1) "when reservations are counted as utilized parts of the
machine" and without (§6, Graphs 6–7): ``utilization_margo`` counts only the
processors jobs use, ``utilization_margo_reserved`` adds the processors
held by reservations.  Their eq. 2–3 (node-seconds-weighted expansion
factor and wait) are ``expansion_factor_weighted`` and ``wait_weighted`` of
:mod:`schedlab.metrics.aggregates`, per width class 1 / 2–64 / 65–256 in
:mod:`schedlab.metrics.classes`.

Names (documented with their formulas in docs/reference/metrics.md):

* ``reservations``, ``reservations_granted``, ``reservations_rejected``,
  ``reservations_moved`` (granted at another start than the one asked
  for), ``reserved_node_seconds``;
* ``reservations_rejected.<reason>`` — rejections by reason code
  (docs/reference/reservations.md); only the reasons that occurred appear;
* ``utilization_reserved`` and ``utilization_margo_reserved`` over the
  observation window;
* with a per-user queue limit: ``held_jobs``, ``wait_weighted_queued`` and
  ``expansion_factor_weighted_queued`` — Margo's eq. 2–3 with the wait
  counted from the moment a job entered the queue ("the length of time
  between when a job comes into the queue and when it starts running", §4).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from schedlab.engine.result import Result
from schedlab.metrics import series
from schedlab.metrics.jobs import (
    AcceptedJobs,
    Metrics,
    accepted_jobs,
    expansion_factor,
    node_seconds,
    wait_time,
    weighted_mean,
)

#: One line per reservation metric name: meaning and source.
RESERVATION_METRIC_DOCS: dict[str, str] = {
    "reservations": "reservation requests of the run (Margo et al., §5)",
    "reservations_granted": "requests granted",
    "reservations_rejected": "requests rejected (Margo et al., §2: over the throttling cap, "
                             "or not placeable)",
    "reservations_moved": "requests granted at another start than the one asked for "
                          "(placement 'earliest')",
    "reserved_node_seconds": "sum of width x duration of the granted reservations",
    "utilization_reserved": "integral of the processors held by reservations / (N x window) "
                            "over the observation window",
    "utilization_margo_reserved": "utilization_margo with reserved processors counted as used "
                                  "(Margo et al., §4 eq. 1, §6 Graphs 6-7)",
}

#: Metrics of a run with a per-user limit of queued jobs.
QUEUE_LIMIT_METRIC_DOCS: dict[str, str] = {
    "held_jobs": "jobs that ran and were held back by the per-user queue limit first",
    "wait_weighted_queued": "wait_weighted with the wait counted from queue entry "
                            "(Margo et al., §4 eq. 3, §6: DataStar queues 6 jobs per user)",
    "expansion_factor_weighted_queued": "expansion_factor_weighted with the wait counted from "
                                        "queue entry (Margo et al., §4 eq. 2)",
}


def reservation_metrics(result: Result, window: tuple[int, int]) -> Metrics:
    """The reservation metrics over the observation ``window`` ({} without requests)."""
    table = result.reservations
    if table is None:
        return {}
    granted = table.granted
    moved = granted & (table.start != table.requested_start)
    reserved = float(series.integrate(table.series_time, table.series_reserved, *window))
    span = window[1] - window[0]
    capacity = result.processors * span
    used = float(series.integrate(result.series_time, result.series_busy, *window))
    metrics: Metrics = {
        "reservations": len(table),
        "reservations_granted": int(np.count_nonzero(granted)),
        "reservations_rejected": int(np.count_nonzero(~granted)),
        "reservations_moved": int(np.count_nonzero(moved)),
        "reserved_node_seconds": int(np.sum(table.width[granted] * table.duration[granted])),
        "utilization_reserved": reserved / capacity if span > 0 else None,
        "utilization_margo_reserved": (used + reserved) / capacity if span > 0 else None,
    }
    reasons = Counter(reason for reason, ok in zip(table.reason, granted) if not ok)
    for reason, count in sorted(reasons.items()):
        metrics[f"reservations_rejected.{reason_key(reason)}"] = count
    return metrics


def reason_key(reason: str) -> str:
    """A rejection reason as a metric-name part: lower case, runs of other characters as ``_``."""
    return re.sub(r"[^a-z0-9]+", "_", reason.lower()).strip("_") or "unknown"


def queue_limit_metrics(result: Result) -> Metrics:
    """Margo's eq. 2–3 with waits from queue entry ({} without a per-user queue limit)."""
    if result.queued is None:
        return {}
    jobs = accepted_jobs(result)
    queued = np.asarray(result.queued, dtype=np.int64)[result.accepted]
    from_queue = AcceptedJobs(queued, jobs.start, jobs.end, jobs.width, jobs.estimate,
                              jobs.suspended)
    weights = node_seconds(jobs)
    return {
        "held_jobs": int(np.count_nonzero(queued > jobs.submit)),
        "wait_weighted_queued": weighted_mean(wait_time(from_queue), weights),
        "expansion_factor_weighted_queued": weighted_mean(expansion_factor(from_queue), weights),
    }
