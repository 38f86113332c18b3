"""Aggregate metrics of one simulated cluster, as a flat dict for metrics.json.

The names returned by :func:`compute_metrics` are a contract: they appear in
``metrics.json`` and are documented, with formula and source, in
``docs/reference/metrics.md`` and in :data:`METRIC_DOCS`.

Conventions (the same for every metric):

* Rejected jobs never ran: they are counted (``rejected``,
  ``rejected_pct``, ``rejected_area_pct``) and left out of every time metric.
* The observation window is [first submit, last end] over the jobs that ran
  (Streit 2002, §5.1: lastEndTime - firstSubmitTime).  Makespan,
  utilization, loss of capacity and the time-weighted queue length are
  taken over it.
* A metric over no jobs is missing, ``None`` (docs/reference/metrics.md, "Empty
  groups"): a mean over no jobs or over a total weight of 0, a percentage
  of no jobs, a maximum over nothing and a ratio over a window of length 0.
  It is ``null`` in metrics.json (never NaN), an empty CSV cell, ``—`` in
  tables, and left out of means over runs.  Counts over no jobs are 0.
"""

from __future__ import annotations

import numpy as np

from schedlab.engine.result import CANCELLED, FINISHED, KILLED, REJECTED, WITHDRAWN, Result
from schedlab.errors import InputError
from schedlab.metrics import series
from schedlab.metrics.classes import flat_breakdowns
from schedlab.metrics.deadlines import deadline_metrics
from schedlab.metrics.gang import gang_metrics
from schedlab.metrics.grid import grid_metrics
from schedlab.metrics.jobs import (
    AcceptedJobs,
    Metrics,
    accepted_jobs,
    area_percent,
    bounded_slowdown,
    expansion_factor,
    largest,
    mean,
    node_seconds,
    percent,
    requested_area,
    response_time,
    slowdown,
    wait_time,
    weighted_mean,
)
from schedlab.metrics.outages import outage_metrics
from schedlab.metrics.predictions import prediction_metrics
from schedlab.metrics.reservations import queue_limit_metrics, reservation_metrics
from schedlab.workload.job import offered_load

#: Bounds (seconds) of the bounded slowdown reported as avg_bsld_<tau>
#: (Feitelson et al. 1997 use 10 s; Streit 2002, §5.2 uses 60 s and 300 s).
BSLD_TAUS = (10, 60, 300)

#: Bounds (seconds) of Streit's width-weighted slowdown reported as sldww_<tau>
#: (Streit 2002, §5.1 and Fig. 5 for 60 s; §5.2 and Fig. 7 for 300 s).
SLDWW_TAUS = (60, 300)

#: One line per flat metric name: meaning and source.  docs/reference/metrics.md gives
#: the full formulas.
METRIC_DOCS: dict[str, str] = {
    "offered_load": "sum of width x runtime over processors x the submit span: above 1 the "
                    "queue grows without bound (a grid run's is rating-weighted)",
    "jobs": "number of jobs in the result (finished + killed + rejected)",
    "finished": "jobs that ran to completion",
    "killed": "jobs killed at their estimate (Streit 2002, §4: CCS kills overrunning jobs)",
    "rejected": "jobs rejected by the policy; excluded from every time metric",
    "rejected_pct": "percentage of jobs rejected (QoPS, Islam et al., §5.1: unadmitted jobs)",
    "rejected_area_pct": "percentage of requested processor-seconds (width x trace runtime; "
                         "x the job's rating in a grid run) rejected (QoPS, Islam et al., "
                         "§5.1: unadmitted processor-seconds)",
    "avg_wait": "mean of start - submit, seconds",
    "max_wait": "largest start - submit, seconds",
    "avg_response": "ART: mean of end - submit, seconds (Streit 2002, §3.2)",
    "artww": "ARTwW: response time weighted by width, seconds (Streit 2002, §3.2, §5.1)",
    "avg_slowdown": "mean of max(response, 1) / max(run, 1) (Zhou et al., §4)",
    "avg_bsld_10": "mean bounded slowdown max(1, response / max(run, 10)) (Feitelson et al. 1997)",
    "avg_bsld_60": "mean bounded slowdown with tau = 60 s",
    "avg_bsld_300": "mean bounded slowdown with tau = 300 s",
    "sldww_60": "SLDwW_60: width-weighted mean of max(response, 60) / max(run, 60) "
                "(Streit 2002, §5.1)",
    "sldww_300": "SLDwW_300: the same with a 300 s bound (Streit 2002, §5.2, Fig. 7)",
    "makespan": "last end - first submit, seconds (Streit 2002, §3.2 MS, relative to first submit)",
    "utilization": "UTIL: sum(width x run) / (N x (last end - first submit)) (Streit 2002, §5.1)",
    "utilization_margo": "integral of busy processors / (N x window) over the observation "
                         "window (Margo et al., §4, eq. 1)",
    "loss_of_capacity": "LOC: processor-seconds idle while jobs wait / (N x window) "
                        "(Zhang et al. 2000, used by Streit 2002, §5.2)",
    "expansion_factor_weighted": "mean of (wait + estimate) / estimate weighted by node-seconds "
                                 "(Margo et al., §4, eq. 2)",
    "wait_weighted": "mean wait weighted by node-seconds, seconds (Margo et al., §4, eq. 3)",
    "avg_queue": "time-weighted mean number of waiting jobs over the window",
    "max_queue": "largest number of waiting jobs held for a positive time",
}


def observation_window(jobs: AcceptedJobs) -> tuple[int, int]:
    """[first submit, last end] over the jobs that ran; (0, 0) when none ran."""
    if len(jobs) == 0:
        return 0, 0
    return int(jobs.submit.min()), int(jobs.end.max())


def makespan(jobs: AcceptedJobs) -> int:
    """Last end - first submit (Streit 2002, §3.2 MS = max end, here from the first submit)."""
    t0, t1 = observation_window(jobs)
    return t1 - t0


def utilization_streit(jobs: AcceptedJobs, processors: int) -> float | None:
    """UTIL = sum(width x run) / (N x (lastEnd - firstSubmit)) (Streit 2002, §5.1).

    Streit's RequestedResources is the job's width; RunTime is end - start
    (less any time suspended, see :func:`schedlab.metrics.jobs.run_time`).
    """
    span = makespan(jobs)
    if span == 0:
        return None
    return float(np.sum(node_seconds(jobs))) / (processors * span)


def utilization_margo(result: Result, window: tuple[int, int] | None = None) -> float | None:
    """Node-seconds used / node-seconds available (Margo et al., §4, eq. 1).

    The paper measures "the percentage of the entire cluster being used
    during the simulation" from snapshots of the machine's instantaneous
    utilization.  Here the node-seconds used are the integral of the busy
    series over ``window`` (t0, t1), exact for any window and for suspended
    gang jobs.  By default the window is the observation window
    [first submit, last end]; there the value equals Streit's UTIL computed
    from the job columns, which the tests check.
    """
    if window is None:
        return busy_fraction(result, *observation_window(accepted_jobs(result)))
    t0, t1 = window
    if not t1 > t0:
        raise InputError(f"expected a window (t0, t1) with t1 > t0, got {window!r}",
                         field="window")
    return busy_fraction(result, t0, t1)


def busy_fraction(result: Result, t0: int, t1: int) -> float | None:
    """Integral of the busy series over [t0, t1] / (N x (t1 - t0)); None for an empty window."""
    if t1 <= t0:
        return None
    used = series.integrate(result.series_time, result.series_busy, t0, t1)
    return used / (result.processors * (t1 - t0))


def loss_of_capacity(result: Result, window: tuple[int, int]) -> float | None:
    """Fraction of capacity idle while jobs wait (Zhang et al. 2000; Streit 2002, §5.2).

    LOC = sum_i n_i (t_{i+1} - t_i) delta_i / (N x (t1 - t0)) over the steps
    of the series inside the window, where n_i is the number of idle
    processors and delta_i is 1 when at least one job waits.  When the
    queue is never empty (a saturated system) LOC = 1 - utilization, the
    identity Streit states in §5.2.  None for an empty window.
    """
    t0, t1 = window
    if t1 <= t0:
        return None
    idle = result.processors - np.asarray(result.series_busy, dtype=np.int64)
    waiting = np.asarray(result.series_queue) > 0
    lost = series.integrate(result.series_time, idle * waiting, t0, t1)
    return lost / (result.processors * (t1 - t0))


def max_queue(result: Result) -> int:
    """Largest number of waiting jobs held for a positive time (0 with no series)."""
    _, queue = series.settle(result.series_time, result.series_queue)
    return int(queue.max()) if len(queue) else 0


#: Counted for a run where users cancelled jobs (docs/reference/events.md).
CANCELLATION_METRIC_DOCS = {
    "cancelled": "jobs cancelled by their users while running (they ended then)",
    "withdrawn": "jobs cancelled by their users while waiting (they never ran)",
}


def status_counts(result: Result) -> dict[str, int]:
    """Number of jobs in total and per status; the cancellations only in a run that had
    some (:data:`CANCELLATION_METRIC_DOCS`)."""
    status = np.asarray(result.status)
    counts = {
        "jobs": len(status),
        "finished": int(np.count_nonzero(status == FINISHED)),
        "killed": int(np.count_nonzero(status == KILLED)),
        "rejected": int(np.count_nonzero(status == REJECTED)),
    }
    cancelled = int(np.count_nonzero(status == CANCELLED))
    withdrawn = int(np.count_nonzero(status == WITHDRAWN))
    if cancelled or withdrawn:
        counts |= {"cancelled": cancelled, "withdrawn": withdrawn}
    return counts


def rejection_shares(result: Result) -> dict[str, float | None]:
    """Percent of jobs and of requested processor-seconds rejected (QoPS, Islam et al., §5.1).

    A job's requested processor-seconds are :func:`~schedlab.metrics.jobs.requested_area`
    (width x trace runtime; a rejected job never ran, so nothing else is
    known of its size).  None over no jobs (or no processor-seconds).
    """
    rejected = np.asarray(result.status) == REJECTED
    return {
        "rejected_pct": percent(int(np.count_nonzero(rejected)), len(rejected)),
        "rejected_area_pct": area_percent(requested_area(result), rejected),
    }


def time_metrics(jobs: AcceptedJobs) -> Metrics:
    """User-centric means over the jobs that ran: wait, response, slowdowns."""
    wait = wait_time(jobs)
    response = response_time(jobs)
    metrics: Metrics = {
        "avg_wait": mean(wait),
        "max_wait": largest(wait),
        "avg_response": mean(response),
        "artww": weighted_mean(response, jobs.width),
        "avg_slowdown": mean(slowdown(jobs)),
    }
    for tau in BSLD_TAUS:
        metrics[f"avg_bsld_{tau}"] = mean(bounded_slowdown(jobs, tau))
    for tau in SLDWW_TAUS:
        metrics[f"sldww_{tau}"] = weighted_mean(bounded_slowdown(jobs, tau), jobs.width)
    return metrics


def margo_weighted(jobs: AcceptedJobs) -> dict[str, float | None]:
    """Node-seconds-weighted expansion factor and wait (Margo et al., §4, eq. 2–3)."""
    weights = node_seconds(jobs)
    return {
        "expansion_factor_weighted": weighted_mean(expansion_factor(jobs), weights),
        "wait_weighted": weighted_mean(wait_time(jobs), weights),
    }


def capacity_metrics(result: Result, jobs: AcceptedJobs) -> Metrics:
    """Owner-centric metrics over the observation window: makespan, utilization, LOC, queue."""
    window = observation_window(jobs)
    return {
        "makespan": makespan(jobs),
        "utilization": utilization_streit(jobs, result.processors),
        "utilization_margo": busy_fraction(result, *window),
        "loss_of_capacity": loss_of_capacity(result, window),
        "avg_queue": series.time_weighted_mean(result.series_time, result.series_queue,
                                               *window),
        "max_queue": max_queue(result),
    }


def compute_metrics(result: Result, *, classes: bool = True) -> Metrics:
    """All aggregate metrics of a result as a flat, JSON-safe dict.

    With ``classes`` the per-class breakdowns by width and run time are
    included under names such as ``width_2_64.avg_wait`` (see
    :mod:`schedlab.metrics.classes`).  A result with deadlines also gets the
    deadline metrics of :mod:`schedlab.metrics.deadlines`; one with
    reservation requests or a per-user queue limit the metrics of
    :mod:`schedlab.metrics.reservations`; a gang run those of
    :mod:`schedlab.metrics.gang`.
    """
    jobs = accepted_jobs(result)
    metrics: Metrics = {}
    metrics.update(status_counts(result))
    if result.grid is None:       # a grid's is rating-weighted, on its platform (metrics.grid)
        metrics["offered_load"] = offered_load(result.submit, result.width, result.runtime,
                                               result.processors, result.cancel_after)
    metrics.update(rejection_shares(result))
    metrics.update(time_metrics(jobs))
    metrics.update(margo_weighted(jobs))
    metrics.update(capacity_metrics(result, jobs))
    metrics.update(deadline_metrics(result))
    metrics.update(reservation_metrics(result, observation_window(jobs)))
    metrics.update(queue_limit_metrics(result))
    metrics.update(gang_metrics(result))
    metrics.update(grid_metrics(result, observation_window(jobs)))
    metrics.update(prediction_metrics(result))
    metrics.update(outage_metrics(result))
    if classes:
        metrics.update(flat_breakdowns(result))
    return metrics

