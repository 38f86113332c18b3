"""The outcome of one simulation: per-job columns, time series, statistics.

Metrics, plots, writers and the experiment store read only a :class:`Result`;
they never look inside the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.outcomes import (
    CANCELLED,
    FAILED,
    FINISHED,
    KILLED,
    NEVER_RAN,
    REJECTED,
    STATUS_NAMES,
    WITHDRAWN,
)

GRANTED = 0
RESERVATION_STATUS_NAMES = ("granted", "rejected")

#: The job outcomes are re-exported from :mod:`schedlab.outcomes` with the result.
__all__ = ["CANCELLED", "FAILED", "FINISHED", "GRANTED", "KILLED", "MATRIX_CHANGE_KINDS",
           "REJECTED", "RESERVATION_STATUS_NAMES", "STATUS_NAMES", "WITHDRAWN", "GridRecord",
           "OutageRecord", "ReservationTable", "Result", "TimeSharingTrace", "ran_mask"]


def ran_mask(status: np.ndarray) -> np.ndarray:
    """Which jobs ran (held processors): all but those rejected or withdrawn
    (:data:`~schedlab.outcomes.NEVER_RAN`)."""
    ran: np.ndarray = ~np.isin(np.asarray(status), NEVER_RAN)
    return ran


@dataclass
class ReservationTable:
    """Every reservation request of a run and what became of it, in request order.

    Columns (numpy int64 unless said otherwise): ``id``, ``created``,
    ``requested_start``, ``start`` (the granted start; -1 when rejected),
    ``duration``, ``width``, ``status`` (int8: 0 granted, 1 rejected);
    ``owner`` and ``reason`` (empty for a granted request) are tuples of
    strings.  ``series_time``/``series_reserved`` is the step function of the
    processors held by reservations, recorded by the engine at every
    reservation boundary (Margo et al., §6 count them as used or not).
    """

    id: np.ndarray
    created: np.ndarray
    requested_start: np.ndarray
    start: np.ndarray
    duration: np.ndarray
    width: np.ndarray
    status: np.ndarray
    owner: tuple[str, ...]
    reason: tuple[str, ...]
    series_time: np.ndarray
    series_reserved: np.ndarray

    def __len__(self) -> int:
        return len(self.id)

    @property
    def granted(self) -> np.ndarray:
        """Boolean mask of the granted requests."""
        granted: np.ndarray = self.status == GRANTED
        return granted


@dataclass
class TimeSharingTrace:
    """What a time-sharing (gang) run adds to its :class:`Result` (docs/reference/policies/gang.md).

    Per job, in workload order (numpy int64): ``service`` (seconds of service
    received; ``end - start - service`` is the time it waited between its
    first and last second of service), ``placed`` (when it entered the
    matrix or an express slot; -1 for a job that never did) and ``columns``
    (the processors it ran on, as ``(first, stop)`` ranges; a job keeps its
    processors from start to end).

    ``slots_time``/``slots_count`` is the step function of the number of
    time slots in the current scheduling round (0 while the machine is idle),
    recorded where it changes.  ``change_time``/``change_kind``/``change_job``
    /``change_row`` log every change of the Ousterhout matrix (kinds in
    :data:`MATRIX_CHANGE_KINDS`; rows by a stable row id, express slots by
    negative ids), for figures of the matrix over time.
    """

    slot: int
    context_switch: int
    service: np.ndarray
    placed: np.ndarray
    columns: tuple[tuple[tuple[int, int], ...], ...]
    slots_time: np.ndarray
    slots_count: np.ndarray
    change_time: np.ndarray
    change_kind: np.ndarray
    change_job: np.ndarray
    change_row: np.ndarray
    rounds: int = 0
    slots_served: int = 0


#: Kinds of :attr:`TimeSharingTrace.change_kind`: a job placed in a row, moved to another
#: row (re-packing), given or losing a guest place in another row, run in an express
#: slot, or leaving the matrix at its end.
MATRIX_CHANGE_KINDS = ("place", "move", "guest", "unguest", "express", "leave")


@dataclass
class Result:
    """Per-job columns (numpy int64, one entry per simulated job, in workload order).

    ``start``/``end`` are -1 for rejected jobs.  ``runtime`` is the runtime the
    job asked for in the workload; the time it really held its processors is
    ``end - start`` (shorter when it was killed at its estimate).
    ``planned_start`` is the first start time a planning policy promised the
    job (-1 where the policy makes no promises).

    ``suspended`` is the time each job spent suspended between its start and
    its end (gang scheduling; in a grid run with preemption, the time it was
    queued again between runs); ``None`` means no job was ever suspended.

    ``deadline`` is each job's absolute deadline (-1 where it has none) and
    ``artificial_deadline`` (bool) marks the deadlines given only against
    starvation (QoPS §4.2); both are ``None`` when no job has a deadline.

    ``series_time``/``series_busy``/``series_queue`` describe step functions:
    from ``series_time[k]`` until the next entry, ``series_busy[k]`` processors
    were in use by jobs and ``series_queue[k]`` jobs were waiting.

    ``reservations`` is the fate of every advance-reservation request of the
    run (``None`` when the run had none).  ``queued`` is the time each job
    entered the scheduler's queue — later than its submit when a per-user
    limit of queued jobs held it back; ``None`` when no such limit was set.

    ``cancel_after`` is when each job's user cancels it, in seconds after its
    submission (-1: never; ``None`` when no job is cancelled): a job still
    waiting then is ``withdrawn``, one running then ends ``cancelled``
    (docs/reference/events.md).

    ``predicted``, ``final_prediction`` and ``corrections``: when the policy
    planned with runtime predictions instead of the estimates
    (:class:`~schedlab.engine.policy.RuntimePlanner`), each job's planned
    runtime at its submission, the one it had at its end, and how many times
    it was corrected because the job outlived it (-1, -1, 0 for a job that
    was never submitted to the policy); ``None`` otherwise.

    ``timesharing`` holds what a gang (time-sharing) run adds — service per
    job, the slots series, the matrix changes; ``None`` in space-sharing runs.
    In a gang run ``suspended`` is the time a job waited between its first
    and last second of service, so ``end - start - suspended`` is its service.
    ``grid`` holds the machines, clusters and licence series of a grid run
    (:class:`GridRecord`; ``None`` for every other run).
    """

    processors: int
    policy: str
    job_id: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    width: np.ndarray
    estimate: np.ndarray
    runtime: np.ndarray
    status: np.ndarray
    planned_start: np.ndarray
    series_time: np.ndarray
    series_busy: np.ndarray
    series_queue: np.ndarray
    workload: str = "workload"
    params: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    reject_reasons: dict[int, str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    suspended: np.ndarray | None = None
    deadline: np.ndarray | None = None
    artificial_deadline: np.ndarray | None = None
    reservations: ReservationTable | None = None
    queued: np.ndarray | None = None
    cancel_after: np.ndarray | None = None
    predicted: np.ndarray | None = None
    final_prediction: np.ndarray | None = None
    corrections: np.ndarray | None = None
    timesharing: TimeSharingTrace | None = None
    grid: GridRecord | None = None
    outages: OutageRecord | None = None

    def __len__(self) -> int:
        return len(self.job_id)

    @property
    def accepted(self) -> np.ndarray:
        """Boolean mask of jobs that ran (finished, killed, or cancelled while running)."""
        return ran_mask(self.status)

    def status_names(self) -> list[str]:
        """Status of every job as a word (:data:`~schedlab.outcomes.STATUS_NAMES`)."""
        return [STATUS_NAMES[s] for s in self.status.tolist()]


@dataclass
class OutageRecord:
    """What node failures, maintenance windows and drains add to a :class:`Result`
    (docs/reference/events.md).

    ``outages`` has one row ``(kind, start, end, processors)`` per outage
    (kind 0 a failure, 1 a maintenance window, 2 a drain; ``processors`` the
    most it held).  ``attempts`` has one row ``(job index, start, end,
    saved)`` per attempt a failure ended (``saved``: the seconds of work its
    checkpoints kept); a job's last attempt is its ``start``/``end`` in the
    result.  Per job, ``final_runtime`` and ``final_estimate`` are the
    seconds its last attempt needed and was allowed, overheads included
    (the runtime and estimate for a job no failure hit and never
    checkpointed), ``overhead`` the seconds of checkpoint writes and
    restarts in all its attempts.  ``intervals`` lists every use of the
    processors as rows ``(lo, hi, start, end, holder)``: processors ``lo``
    to ``hi - 1`` from ``start`` to ``end``, held by a job (``holder``, its
    index, >= 0), a failure (-1) or a window (-2).  ``series_time``/``series_down`` is
    the step function of processors out of service (failed or held by a
    window).  ``settings`` are the run's failure settings.

    A grid run (docs/reference/events.md, "Grid runs") fails whole machines:
    ``processors`` and ``intervals`` count a machine's CPUs (machine ``k``'s
    are those after the CPUs of machines 0 to ``k - 1``), the jobs' runs are
    in its :class:`GridRecord`; ``final_runtime`` and ``final_estimate`` are
    seconds at the job's own rating; an attempt's ``saved`` also counts its
    time off machines (preempted), so that ``end - start - saved`` is the
    machine time it lost; ``work_done`` is, per job, the seconds of work its
    last attempt did on machines (overheads excluded), the useful time of the
    goodput (None for one machine: ``min(runtime, estimate)``).
    ``attempt_progress`` (gang runs) is the service each ended attempt
    received, row by row of ``attempts`` (a gang job progresses only in its
    slots); None where an attempt progresses from its start to its end.
    ``notices`` (grid and gang runs) has rows ``(lo, hi, notice, start, end)``
    for each window announced before its start: the machines (grid) or
    processors (gang) ``lo`` to ``hi - 1`` it takes, known from its notice;
    None where no window was announced before its start.
    """

    outages: np.ndarray
    attempts: np.ndarray
    final_runtime: np.ndarray
    final_estimate: np.ndarray
    overhead: np.ndarray
    intervals: np.ndarray
    series_time: np.ndarray
    series_down: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)
    work_done: np.ndarray | None = None
    attempt_progress: np.ndarray | None = None
    notices: np.ndarray | None = None


@dataclass
class GridRecord:
    """What a grid run (docs/reference/policies/grid.md) adds to its :class:`Result`.

    The platform's names (machines in platform order, clusters, licences),
    machines per cluster and copies of each licence over all clusters; per
    job (workload order) the ``machine`` and ``cluster`` indices it ran on
    (-1: rejected before dispatch/start); and three step functions on the
    result's ``series_time``: ``series_demand`` (CPUs asked for by the jobs
    in the system, waiting or running), ``series_licences_used[t, l]``
    (copies of licence ``l`` in use) and ``series_licences_demand[t, l]``
    (jobs in the system needing ``l``).  ``allocation`` is ``shared`` or
    ``exclusive``.  Per job, ``job_licences`` (the names it needs, joined
    by ``;``) and ``priority`` (the label the dispatcher gave it, 0: none;
    the meta-scheduler's classification, thesis §3.1.1) and ``rating`` (the
    benchmark rating its estimate was measured at, eq. 3.9);
    ``machine_runtime`` and ``machine_estimate`` (-1: never ran) the seconds
    the job holds machines to run its runtime and its estimate on the
    machines it ran on (eq. 3.9, resumption overheads included):
    ``runtime`` and ``estimate`` stay the values at the job's own rating.

    Preemption (docs/reference/policies/grid.md, "Preemption"): ``runs`` has one row
    ``(job index, machine, start, end, overhead)`` per run of a job on a
    machine, by job then start (one per job that ran when nothing was
    preempted; ``overhead`` is the resumption overhead at the run's start,
    0 for a first run); per job ``last_start`` (the start of its last run),
    ``preemptions`` and ``migrations`` (resumptions on another machine).
    ``machine`` is the machine of the last run.  ``preemptive`` says whether
    the run allowed preemption (the local policy preempts, or a job was
    preempted); ``preemption_overhead`` is the run's overhead in seconds.
    """

    platform: str
    machine_names: tuple[str, ...]
    cluster_names: tuple[str, ...]
    cluster_machines: np.ndarray
    licence_names: tuple[str, ...]
    licence_copies: np.ndarray
    machine: np.ndarray
    cluster: np.ndarray
    series_demand: np.ndarray
    series_licences_used: np.ndarray
    series_licences_demand: np.ndarray
    allocation: str = "shared"
    job_licences: tuple[str, ...] = ()
    priority: np.ndarray | None = None
    rating: np.ndarray | None = None
    machine_runtime: np.ndarray | None = None
    machine_estimate: np.ndarray | None = None
    runs: np.ndarray | None = None
    last_start: np.ndarray | None = None
    preemptions: np.ndarray | None = None
    migrations: np.ndarray | None = None
    preemptive: bool = False
    preemption_overhead: int = 0
