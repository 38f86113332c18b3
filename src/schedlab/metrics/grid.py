"""Metrics of grid runs (Pasquali's thesis §4.1, §4.3; docs/metrics.md, "Grid runs").

* System usage (§4.1): ``#CPU_in_use / min(#total_CPUs, #jobs_in_system)``.
  Our reading for jobs of several CPUs: the CPUs running jobs over the
  smaller of the platform's CPUs and the CPUs asked for by the jobs in the
  system (waiting or running).  Licence usage likewise: copies in use over
  the smaller of the copies there are and the jobs in the system needing
  one, summed over licences.
* Both are step functions of time; the run's figure is their time average
  over the instants of the observation window (first submission to last
  end) at which the denominator is > 0 -- an empty system is neither used
  nor wasted.
* Workload share per cluster: the share of the jobs the dispatcher sent to
  each cluster, against the machine-count optimum (its share of the
  machines, §4.3); ``cluster_share_deviation`` is half the sum of the
  absolute differences (0: exactly proportional, 1: all elsewhere).
  ``cluster_work_share`` weighs each job by its estimated work, width x
  estimate x the rating it was measured at (CPU-seconds at rating 1): the
  thesis' "workload due to the jobs assigned to a cluster" (Fig. 25).

* Preemption (runs whose local policy preempts, docs/policies/grid.md):
  ``preemptions`` and ``migrations``, totals over the jobs; the job metrics
  then read ``start`` as the first start (wait before it) and count the time
  a preempted job spent queued again as time suspended, so its run time is
  its time on machines, resumption overheads included.

Out Deadline is ``deadline_missed_pct`` and the slowdown of jobs without a
deadline ``nondeadline_avg_slowdown`` (:mod:`schedlab.metrics.deadlines`).
"""

from __future__ import annotations

import numpy as np

from schedlab.engine.result import Result
from schedlab.metrics.series import integrate


#: One line per grid metric name (added only for grid runs; docs/metrics.md "Grid runs").
GRID_METRIC_DOCS: dict[str, str] = {
    "system_usage": "time average of CPUs in use / min(platform CPUs, CPUs asked for by the "
                    "jobs in the system) while jobs are in the system (Pasquali thesis §4.1; "
                    "our reading for multi-CPU jobs)",
    "licence_usage": "time average of licence copies in use / sum over licences of "
                     "min(copies, jobs in the system needing one) (Pasquali thesis §4.1)",
    "cluster_share.<cluster>": "share of the dispatched jobs sent to the cluster",
    "cluster_share_optimum.<cluster>": "the cluster's share of the machines (§4.3)",
    "cluster_share_deviation": "half the sum over clusters of |share - optimum|",
    "cluster_work_share.<cluster>": "share of the dispatched estimated work (width x "
                                    "estimate x job rating) sent to the cluster (§4.3, Fig. 25)",
}

#: The metrics added for a grid run that allowed preemption (docs/metrics.md "Grid runs").
PREEMPTION_METRIC_DOCS: dict[str, str] = {
    "preemptions": "jobs preempted, counted once per preemption",
    "migrations": "resumptions of a preempted job on another machine than the one it left",
}


def usage_average(times: np.ndarray, active: np.ndarray, capacity: np.ndarray,
                  t0: int, t1: int) -> float:
    """Time average over [t0, t1] of ``active / capacity`` where ``capacity`` > 0 (step
    functions on ``times``); 0.0 when the capacity is never > 0."""
    defined = capacity > 0
    ratio = np.divide(active, capacity, out=np.zeros(len(times)), where=defined)
    span = integrate(times, defined.astype(float), t0, t1)
    return integrate(times, ratio, t0, t1) / span if span > 0 else 0.0


def system_usage(result: Result, t0: int, t1: int) -> float:
    """System usage (thesis §4.1), time-averaged over [t0, t1] (module docstring)."""
    denominator = np.minimum(result.processors, result.grid.series_demand)
    return usage_average(result.series_time, result.series_busy, denominator, t0, t1)


def licence_usage(result: Result, t0: int, t1: int) -> float:
    """Licence usage: copies in use / min(copies, jobs in the system needing one), summed
    over licences, time-averaged over [t0, t1]; 0.0 for a platform without licences."""
    grid = result.grid
    if not grid.licence_names:
        return 0.0
    used = grid.series_licences_used.sum(axis=1)
    bound = np.minimum(grid.licence_copies[None, :], grid.series_licences_demand).sum(axis=1)
    return usage_average(result.series_time, used, bound, t0, t1)


def cluster_shares(result: Result) -> dict[str, float]:
    """Share of the dispatched jobs per cluster, its machine-count optimum, and the deviation."""
    grid = result.grid
    sent = grid.cluster[grid.cluster >= 0]
    counts = np.bincount(sent, minlength=len(grid.cluster_names))
    share = counts / max(len(sent), 1)
    optimum = grid.cluster_machines / grid.cluster_machines.sum()
    metrics = {}
    for name, s, o in zip(grid.cluster_names, share, optimum):
        metrics[f"cluster_share.{name}"] = float(s)
        metrics[f"cluster_share_optimum.{name}"] = float(o)
    metrics["cluster_share_deviation"] = float(np.abs(share - optimum).sum() / 2)
    if grid.rating is not None:
        sent_to = grid.cluster >= 0
        work = (result.width * result.estimate * grid.rating)[sent_to].astype(float)
        per_cluster = np.bincount(grid.cluster[sent_to], weights=work,
                                  minlength=len(grid.cluster_names))
        total = per_cluster.sum()
        for name, w in zip(grid.cluster_names, per_cluster):
            metrics[f"cluster_work_share.{name}"] = float(w / total) if total > 0 else 0.0
    return metrics


def grid_metrics(result: Result, window: tuple[int, int]) -> dict[str, float]:
    """Every grid metric as a flat dict; empty for a run that is not a grid run."""
    if result.grid is None:
        return {}
    metrics = {"system_usage": system_usage(result, *window),
               "licence_usage": licence_usage(result, *window),
               **cluster_shares(result)}
    if result.grid.preemptive:
        metrics["preemptions"] = int(result.grid.preemptions.sum())
        metrics["migrations"] = int(result.grid.migrations.sum())
    return metrics
