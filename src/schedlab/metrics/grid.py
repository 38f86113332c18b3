"""Metrics of grid runs (Pasquali's thesis §4.1, §4.3; docs/reference/metrics.md, "Grid runs").

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

* Preemption (runs whose local policy preempts, docs/reference/policies/grid.md):
  ``preemptions`` and ``migrations``, totals over the jobs; the job metrics
  then read ``start`` as the first start (wait before it) and count the time
  a preempted job spent queued again as time suspended, so its run time is
  its time on machines, resumption overheads included.

Out Deadline is ``deadline_missed_pct`` and the slowdown of jobs without a
deadline ``nondeadline_avg_slowdown`` (:mod:`schedlab.metrics.deadlines`).

:func:`cluster_metrics` splits Out Deadline, the slowdown of jobs without a
deadline, system and licence usage by the cluster the jobs were sent to
(thesis §4.3.1, Figs. 26–29 per cluster); it needs the platform (each
cluster's CPUs and licence copies), so it is not part of ``metrics.json``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.result import Result
from schedlab.metrics.deadlines import deadline_masks
from schedlab.metrics.jobs import accepted_jobs, mean, percent, slowdown
from schedlab.metrics.series import integrate, time_weighted_mean

if TYPE_CHECKING:
    from schedlab.platform.model import Platform

#: One line per grid metric name (added only for grid runs; docs/reference/metrics.md "Grid runs").
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

#: The metrics added for a grid run that allowed preemption (docs/reference/metrics.md "Grid runs").
PREEMPTION_METRIC_DOCS: dict[str, str] = {
    "preemptions": "jobs preempted, counted once per preemption",
    "migrations": "resumptions of a preempted job on another machine than the one it left",
}


def usage_average(times: np.ndarray, active: np.ndarray, capacity: np.ndarray,
                  t0: int, t1: int) -> float | None:
    """Time average over [t0, t1] of ``active / capacity`` where ``capacity`` > 0 (step
    functions on ``times``); None when the capacity is never > 0 (nothing was asked
    for: the usage is missing, docs/reference/metrics.md "Empty groups")."""
    defined = capacity > 0
    ratio = np.divide(active, capacity, out=np.zeros(len(times)), where=defined)
    span = integrate(times, defined.astype(float), t0, t1)
    return integrate(times, ratio, t0, t1) / span if span > 0 else None


def system_usage(result: Result, t0: int, t1: int) -> float | None:
    """System usage (thesis §4.1), time-averaged over [t0, t1] (module docstring)."""
    assert result.grid is not None      # only called for grid runs
    denominator = np.minimum(result.processors, result.grid.series_demand)
    return usage_average(result.series_time, result.series_busy, denominator, t0, t1)


def licence_usage(result: Result, t0: int, t1: int) -> float | None:
    """Licence usage: copies in use / min(copies, jobs in the system needing one), summed
    over licences, time-averaged over [t0, t1]; None for a platform without licences or
    when no job in the system needed a copy (no licence use to measure)."""
    grid = result.grid
    assert grid is not None             # only called for grid runs
    if not grid.licence_names:
        return None
    used = grid.series_licences_used.sum(axis=1)
    bound = np.minimum(grid.licence_copies[None, :], grid.series_licences_demand).sum(axis=1)
    return usage_average(result.series_time, used, bound, t0, t1)


def cluster_shares(result: Result) -> dict[str, float | None]:
    """Share of the dispatched jobs per cluster, its machine-count optimum, and the deviation
    (the shares and the deviation are None when no job was dispatched)."""
    grid = result.grid
    assert grid is not None             # only called for grid runs
    sent = grid.cluster[grid.cluster >= 0]
    counts = np.bincount(sent, minlength=len(grid.cluster_names))
    share = counts / max(len(sent), 1)
    optimum = grid.cluster_machines / grid.cluster_machines.sum()
    metrics: dict[str, float | None] = {}
    for name, s, o in zip(grid.cluster_names, share, optimum):
        metrics[f"cluster_share.{name}"] = float(s) if len(sent) else None
        metrics[f"cluster_share_optimum.{name}"] = float(o)
    metrics["cluster_share_deviation"] = (float(np.abs(share - optimum).sum() / 2)
                                          if len(sent) else None)
    if grid.rating is not None:
        sent_to = grid.cluster >= 0
        work = (result.width * result.estimate * grid.rating)[sent_to].astype(float)
        per_cluster = np.bincount(grid.cluster[sent_to], weights=work,
                                  minlength=len(grid.cluster_names))
        total = per_cluster.sum()
        for name, w in zip(grid.cluster_names, per_cluster):
            metrics[f"cluster_work_share.{name}"] = float(w / total) if total > 0 else None
    return metrics


def grid_metrics(result: Result, window: tuple[int, int]) -> dict[str, float | None]:
    """Every grid metric as a flat dict; empty for a run that is not a grid run."""
    if result.grid is None:
        return {}
    metrics = {"system_usage": system_usage(result, *window),
               "licence_usage": licence_usage(result, *window),
               **cluster_shares(result)}
    if result.grid.preemptive:
        # every grid run records both (schedlab.engine.grid)
        assert result.grid.preemptions is not None and result.grid.migrations is not None
        metrics["preemptions"] = int(result.grid.preemptions.sum())
        metrics["migrations"] = int(result.grid.migrations.sum())
    return metrics


#: The per-cluster metrics of :func:`cluster_metrics`, one line each (docs/reference/metrics.md).
CLUSTER_METRIC_DOCS: dict[str, str] = {
    "cluster_jobs.<cluster>": "jobs that ran in the cluster",
    "cluster_deadline_jobs.<cluster>": "of them, jobs with a deadline",
    "cluster_deadline_missed_pct.<cluster>": "percentage of the cluster's jobs with a deadline "
                                             "that end after it (§4.3.1, Fig. 27)",
    "cluster_nondeadline_avg_slowdown.<cluster>": "mean slowdown of the cluster's jobs without "
                                                  "a deadline (§4.3.1, Fig. 26)",
    "cluster_system_usage.<cluster>": "system usage over the cluster's CPUs and the CPUs its "
                                      "jobs ask for (§4.3.1, Fig. 28)",
    "cluster_licence_usage.<cluster>": "licence usage over the cluster's copies and its jobs' "
                                       "needs (§4.3.1, Fig. 29)",
}


def _held_and_asked(submit: np.ndarray, start: np.ndarray, end: np.ndarray,
                    weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step functions of what jobs hold and ask for: job ``i`` holds ``weights[i, r]`` of
    resource ``r`` from ``start[i]`` to ``end[i]`` and asks for it from ``submit[i]`` to
    ``end[i]``.  Returns ``(times, held[t, r], asked[t, r])``, the state after every change
    at each distinct time."""
    times = np.concatenate((start, end, submit, end))
    zero = np.zeros_like(weights)
    held = np.concatenate((weights, -weights, zero, zero))
    asked = np.concatenate((zero, zero, weights, -weights))
    order = np.argsort(times, kind="stable")
    times = times[order]
    last = np.append(times[1:] != times[:-1], True) if len(times) else np.zeros(0, bool)
    return (times[last], np.cumsum(held[order], axis=0)[last],
            np.cumsum(asked[order], axis=0)[last])


def platform_capacity(platform: Platform) -> float:
    """What the platform does per second in rating-CPU-seconds: sum over machines of CPUs x
    BM_m (eq. 3.9: a machine of rating BM_m runs a job measured at BM_job in runtime x
    BM_job / BM_m seconds)."""
    return float((platform.cpus.astype(np.float64) * platform.rating).sum())


def rating_weighted_load(result: Result, platform: Platform) -> float | None:
    """The grid's offered load: the work the jobs bring, width x runtime x BM_job
    (rating-CPU-seconds), per second of their submission span, over
    :func:`platform_capacity` (Pasquali thesis §4.3.2; docs/reference/metrics.md, "Grid
    runs").  Above 1 the queues grow whatever the schedulers do; None with no span."""
    grid = result.grid
    assert grid is not None and grid.rating is not None, "a grid run records the jobs' ratings"
    if len(result) == 0 or int(result.submit.max() - result.submit.min()) == 0:
        return None
    work = result.width.astype(np.float64) * result.runtime * grid.rating
    span = float(result.submit.max() - result.submit.min())
    return float(work.sum()) / (platform_capacity(platform) * span)


def licence_offered_load(result: Result, platform: Platform) -> dict[str, float | None]:
    """Each floating licence's offered load: the copy-seconds its jobs ask for per second
    of their submission span, over its copies (``licence_offered_load.<licence>``), and
    the largest of them (``licence_offered_load``; None without floating licences or
    submit span).

    A job holds a copy while it runs, and how long it runs depends on the
    machine (eq. 3.9): its demand is taken on a CPU of the platform's mean
    rating (CPU-weighted, :func:`platform_capacity` / CPUs), runtime x
    BM_job / mean BM — our reading, so that the load depends on the jobs and
    the platform, not on the schedule.  Above 1 the licence alone makes the
    queue grow without bound, however many CPUs are free (docs/reference/metrics.md,
    "Grid runs").
    """
    grid = result.grid
    assert grid is not None and grid.rating is not None, "a grid run records the jobs' ratings"
    floating = [(k, name) for k, name in enumerate(grid.licence_names)
                if grid.licence_copies[k] > 0]
    if not floating or len(result) == 0:
        return {"licence_offered_load": None}
    span = float(result.submit.max() - result.submit.min())
    mean_rating = platform_capacity(platform) / float(platform.cpus.sum())
    seconds = result.runtime.astype(np.float64) * grid.rating / mean_rating
    needs = licence_needs(result, platform)
    column = {name: l for l, name in enumerate(platform.licence_names)}
    loads: dict[str, float | None] = {}
    for k, name in floating:
        # added up job after job, in workload order (a running sum)
        asking = seconds[needs[:, column[name]]]
        asked = float(np.cumsum(asking)[-1]) if len(asking) else 0.0
        loads[f"licence_offered_load.{name}"] = (asked / (float(grid.licence_copies[k]) * span)
                                                 if span > 0 else None)
    known = [v for v in loads.values() if v is not None]
    return {"licence_offered_load": max(known) if known else None, **loads}


def cluster_metrics(result: Result, platform) -> dict[str, float | None]:
    """Out Deadline, slowdown of jobs without deadline, system and licence usage of the jobs
    that ran in each cluster (thesis §4.3.1, Figs. 26–29), named ``<metric>.<cluster>``
    (:data:`CLUSTER_METRIC_DOCS`).

    Each is the whole-platform metric restricted to one cluster's jobs, CPUs
    and licence copies: system usage is the time average of the CPUs its jobs
    hold over min(its CPUs, the CPUs its jobs in the system ask for), licence
    usage likewise per floating licence with the cluster's copies (a machine
    feature is no copy and is not counted), both over the
    run's observation window where the denominator is > 0.  On a platform of
    one cluster they equal :func:`system_usage`, :func:`licence_usage` and
    the deadline metrics.  Jobs a local policy rejected are left out.  Under
    a policy that preempts, a job counts as holding its CPUs and licences
    from its first start to its end (the time it was queued again is not
    subtracted): the usages are then upper bounds.
    """
    grid = result.grid
    assert grid is not None             # only called for grid runs
    ran = result.accepted & (grid.cluster >= 0)
    jobs = accepted_jobs(result)
    window = (int(jobs.submit.min()), int(jobs.end.max())) if len(jobs) else (0, 0)
    if result.deadline is None:
        with_deadline, without = np.zeros(len(result), bool), np.ones(len(result), bool)
        late = with_deadline
    else:
        with_deadline, without = deadline_masks(result)
        late = np.asarray(result.end) > np.asarray(result.deadline)
    cpus = np.bincount(platform.cluster_of, weights=platform.cpus,
                       minlength=len(grid.cluster_names))
    needs = licence_needs(result, platform)
    times = {name: np.asarray(getattr(result, name), dtype=np.int64)
             for name in ("submit", "start", "end")}
    width = np.asarray(result.width, dtype=np.int64)
    metrics: dict[str, float | None] = {}
    for c, name in enumerate(grid.cluster_names):
        mine = ran & (grid.cluster == c)
        deadline = mine & with_deadline
        metrics[f"cluster_jobs.{name}"] = int(np.count_nonzero(mine))
        metrics[f"cluster_deadline_jobs.{name}"] = int(np.count_nonzero(deadline))
        metrics[f"cluster_deadline_missed_pct.{name}"] = percent(
            int(np.count_nonzero(late[deadline])), int(np.count_nonzero(deadline)))
        metrics[f"cluster_nondeadline_avg_slowdown.{name}"] = mean(
            slowdown(jobs.subset((mine & without)[result.accepted])))
        weights = np.column_stack((width[mine], needs[mine].astype(np.int64)))
        axis, held, asked = _held_and_asked(times["submit"][mine], times["start"][mine],
                                            times["end"][mine], weights)
        metrics[f"cluster_system_usage.{name}"] = usage_average(
            axis, held[:, 0], np.minimum(cpus[c], asked[:, 0]), *window)
        # A licence held as a machine feature is never floating in the same cluster
        # (Platform checks it): it is no copy and not counted, as in licence_usage.
        floating = platform.copies[c] > 0
        metrics[f"cluster_licence_usage.{name}"] = usage_average(
            axis, held[:, 1:][:, floating].sum(axis=1),
            np.minimum(platform.copies[c][None, :], asked[:, 1:]).sum(axis=1),
            *window) if needs.shape[1] else None
    return metrics


# ------------------------------------------------------------------ machines (thesis §4.2)
#: The metrics of :func:`machine_metrics`, one line each (docs/reference/metrics.md "Grid runs").
MACHINE_METRIC_DOCS: dict[str, str] = {
    "machine_usage": "time average over the run of machines running a job / min(machines, "
                     "jobs in the system), where jobs are in the system (§4.2, Fig. 22)",
    "mean_jobs_in_system": "time average over the run of the jobs waiting or running (§4.2, "
                           "Fig. 19, the system workload)",
}


def running_jobs(start: np.ndarray, end: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Jobs running at each instant of ``times``: started (``start >= 0``), not yet ended."""
    ran = start >= 0
    starts, ends = np.sort(start[ran]), np.sort(end[ran])
    return (np.searchsorted(starts, times, side="right")
            - np.searchsorted(ends, times, side="right"))


def jobs_in_system(result: Result) -> np.ndarray:
    """Jobs waiting or running at each instant of ``result.series_time``: the thesis'
    "system workload" (§4.2, Fig. 19)."""
    return np.asarray(result.series_queue) + running_jobs(result.start, result.end,
                                                          result.series_time)


def machine_runs(result: Result) -> np.ndarray:
    """Every run of every job as ``(machine, start, end)`` rows: ``result.grid.runs`` (each
    run on the machine it ran on, the runs cut by a preemption included), or for a result
    without them one run per job from its start to its end on its machine.

    A job preempted or migrated has several runs; its first start, last end and last
    machine alone would put it on its last machine from its first start, and leave the
    machine it left idle meanwhile (thesis §4.2, Fig. 22, for the preemptive versions)."""
    grid = result.grid
    assert grid is not None             # only called for grid runs
    runs = getattr(grid, "runs", None)
    if runs is None:
        rows = np.column_stack((grid.machine, result.start, result.end))
    else:
        rows = np.asarray(runs, dtype=np.int64).reshape(-1, 5)[:, 1:4]
    return rows[(rows[:, 0] >= 0) & (rows[:, 1] >= 0) & (rows[:, 2] > rows[:, 1])]


def active_machines(result: Result) -> np.ndarray:
    """Machines running at least one job at each instant of ``result.series_time``, from
    every run of every job (:func:`machine_runs`)."""
    rows = machine_runs(result)
    if len(rows) == 0:
        return np.zeros(len(result.series_time), dtype=np.int64)
    machine = rows[:, 0]
    # Events (time, +1 start / -1 end, machine); at one instant ends come before starts.
    times = np.concatenate((rows[:, 1], rows[:, 2]))
    steps = np.concatenate((np.ones(len(rows), np.int64), -np.ones(len(rows), np.int64)))
    machines = np.concatenate((machine, machine))
    order = np.lexsort((steps, times))
    per_machine = [0] * (int(machine.max()) + 1)
    active, count = np.empty(len(order), dtype=np.int64), 0
    for k, (step, where) in enumerate(zip(steps[order].tolist(), machines[order].tolist())):
        before = per_machine[where]
        per_machine[where] = before + step
        count += int(before == 0 and step > 0) - int(before + step == 0 and step < 0)
        active[k] = count
    index = np.searchsorted(times[order], result.series_time, side="right") - 1
    return np.where(index >= 0, active[np.maximum(index, 0)], 0)


def machine_usage(result: Result, window: tuple[int, int]) -> float | None:
    """Machine usage (thesis §4.2, Fig. 22): the time average over ``window`` of
    active machines / min(machines, jobs in the system), where jobs are in the system."""
    assert result.grid is not None      # only called for grid runs
    machines = len(result.grid.machine_names)
    bound = np.minimum(machines, jobs_in_system(result))
    return usage_average(result.series_time, active_machines(result), bound, *window)


def run_window(result: Result) -> tuple[int, int]:
    """The whole run: its first submission to its last end (or submission)."""
    return (int(result.submit.min()), int(max(result.end.max(), result.submit.max())))


def machine_metrics(result: Result) -> dict[str, float | None]:
    """:data:`MACHINE_METRIC_DOCS` over the whole run (:func:`run_window`); empty for a run
    without jobs."""
    if len(result) == 0:
        return {}
    window = run_window(result)
    return {"machine_usage": machine_usage(result, window),
            "mean_jobs_in_system": time_weighted_mean(result.series_time,
                                                      jobs_in_system(result), *window)}


# ------------------------------------------------------------------ the policy's cost
#: The local policy's operation counts kept per scheduling event (``cs``'s matchings;
#: thesis Figs. 23–24 in operations, docs/reference/policies/convergent.md).
MATCHING_WORK = ("matching_augmenting_paths", "matching_entries_touched")


def scheduling_cost(result: Result) -> dict[str, float]:
    """The local policy's cost per scheduling event (submissions and job ends):
    ``<count>_per_event`` for each of :data:`MATCHING_WORK` the policy counted, and
    ``scheduling_time_per_event_us``, its wall-clock time [µs] less the time it spent
    counting its own work (``matching_count_seconds``: ``cs count_work=true`` solving each
    MFS again to count it), which is not part of scheduling.  The time depends on the
    machine; the counts do not."""
    events = result.meta["scheduling_events"]
    counting = float(result.stats.get("matching_count_seconds", 0.0))
    seconds = max(0.0, float(result.meta["scheduling_time_s"]) - counting)
    cost = {f"{name}_per_event": float(result.stats[name]) / events if events else 0.0
            for name in MATCHING_WORK if name in result.stats}
    cost["scheduling_time_per_event_us"] = seconds * 1e6 / events if events else 0.0
    return cost


def licence_needs(result: Result, platform) -> np.ndarray:
    """``needs[i, l]``: job ``i`` of a grid run needs licence ``l`` of ``platform``
    (read-only: the licence and the cluster metrics of a run share it)."""
    assert result.grid is not None      # only called for grid runs
    return _needs_of(result.grid.job_licences, tuple(platform.licence_names))


@lru_cache(maxsize=1)
def _needs_of(job_licences: tuple[str, ...], licence_names: tuple[str, ...]) -> np.ndarray:
    """:func:`licence_needs` of the jobs' licence names (each joined by ``;``), read once
    per run."""
    index = {name: l for l, name in enumerate(licence_names)}
    rows, columns = [], []
    for i, names in enumerate(job_licences):
        for name in filter(None, names.split(";")):
            rows.append(i)
            columns.append(index[name])
    needs = np.zeros((len(job_licences), len(index)), dtype=bool)
    needs[rows, columns] = True
    needs.setflags(write=False)
    return needs
