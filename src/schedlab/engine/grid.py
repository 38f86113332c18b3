"""The grid engine: jobs on clusters of heterogeneous machines with floating licences.

Pasquali's thesis (paper 003) schedules in two levels (§3.1, §3.2): a
meta-scheduler sends each submitted job to a cluster, and each cluster's
local scheduler places its jobs on its own machines under its own licences.
Only submissions and job ends cross the levels (§3.1.2).  This module
simulates both levels in one event loop:

* :class:`GridTask` -- one job as the engine tracks it (machine, start,
  work left at the job's own rating, licences as platform indices);
* :class:`GridContext` -- one per cluster: what its local policy sees (free
  CPUs per machine, free licence copies, queue, running jobs with expected
  ends) and the only way it acts (``start(task, machine)``, ``preempt``,
  ``reject``, ``wake_at``); every start is validated;
* :class:`MetaView` -- what the dispatcher sees: the platform's static
  description and, per cluster, the jobs sent to it and not yet ended;
* :func:`run_grid` -- the event loop (what surrounds it -- input checks,
  series, progress, the result -- is :mod:`schedlab.engine.kernel`'s).

Time on a machine follows eq. 3.9 (:func:`~schedlab.platform.time_on_machine`):
a job measured on a machine of rating ``BM_job`` runs ``t x BM_job / BM_m``
on machine ``m``, estimate and runtime alike.  The engine keeps each job's
work left exactly, in rating-seconds (seconds x rating: ``t x BM_job`` at
submission), so that a preemption (``GridContext.preempt``) can stop a job,
keep its progress and resume it on any machine of its cluster for
``ceil(work left / BM_m)`` seconds plus the run's ``preemption_overhead``
(eq. 3.9 on what is still to run; docs/reference/policies/grid.md, "Preemption").

Same-time order (as the space-sharing engine, docs/reference/engine.md): at an instant,
every job end (the local policy hears it, then the dispatcher), then the
repairs and window ends, failures and window starts and users' cancellations
of a run that has them (docs/reference/events.md, "Grid runs";
:mod:`schedlab.engine.grid_outages`), then every submission (dispatched,
then heard by the chosen cluster's policy), then wake-ups, then one
scheduling pass for each cluster that had an event.  The
engine imports nothing from the policies: local policies and dispatchers are
any objects with the methods of :class:`LocalPolicyLike` and
:class:`DispatcherLike` (docs/reference/policies/grid.md).
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from schedlab.engine.kernel import (
    CANCEL,
    FINISH,
    NEVER,
    OVERRUN_MODES,
    WAKE,
    Progress,
    ProgressCallback,
    StepSeries,
    assemble,
    check_one_of,
    cyclic_gc_paused,
    deadline_columns,
    job_positions,
    never_starts,
    run_meta,
)
from schedlab.engine.result import (
    CANCELLED,
    FINISHED,
    KILLED,
    REJECTED,
    WITHDRAWN,
    GridRecord,
    Result,
)
from schedlab.errors import InputError, PolicyError
from schedlab.platform.model import Platform
from schedlab.workload.grid import activates_all
from schedlab.workload.job import cancel_column

if TYPE_CHECKING:
    from schedlab.engine.grid_outages import GridOutages
    from schedlab.engine.outages import OutageEvent
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.job import Job
    from schedlab.workload.outages import FailureSpec, Window

#: One job per machine at a time (thesis §4.1, §4.2) or machines' CPUs shared (§4.3).
ALLOCATIONS = ("shared", "exclusive")
_NONE = np.zeros(0, dtype=np.int64)
#: Below this many rating-seconds of estimate, a job's times on machines are computed as
#: int64 arrays (:meth:`GridContext.durations`) with no risk of overflow.
_EXACT_WORK = 2**61


@dataclass(eq=False)
class GridTask:
    """One job of a grid run as the engine tracks it.

    ``index`` is the job's position in the workload; ``width`` its CPUs (as
    ``job.width``, read often); ``licences`` are platform licence indices;
    ``eligible`` is the mask of the platform's machines the job could ever
    run on (CPUs and licences, thesis *Minimal requirements*); ``candidates``
    those of its cluster, fastest first (set when it is dispatched).
    ``runtime_left`` and ``estimate_left`` are seconds at the job's own
    ``rating`` (eq. 3.9), what is still to run (rounded up after a
    preemption; the engine keeps the exact work).  ``user_class`` (index in
    ``USER_CLASSES``) and ``owner_priority`` are the job's static QoS labels
    (§3.1.1).  ``cluster``, ``machine``,
    ``start``, ``expected_end`` and ``end`` are set by the dispatcher and the
    engine (-1 before).  Policies read these fields; only the engine writes
    them, except ``priority``: the label a dispatcher may attach to a job it
    sends (the meta-scheduler's classification, thesis §3.1.1; 0 when none),
    which local policies may order their queue by.

    Preemption (:meth:`GridContext.preempt`): ``start`` is the start of the
    current run (the last start; -1 again while a preempted job waits) and
    ``first_start`` the first; ``overhead`` the seconds of the current run
    spent on the resumption overhead (0 for a first start); ``preemptions``
    and ``migrations`` count the job's preemptions and its resumptions on
    another machine than the one it left; ``preempted_from`` and
    ``preempted_at`` are the machine and time of its last preemption (-1:
    never preempted).  A preempted job is queued again with ``machine`` -1.

    ``held`` is the seconds the job's earlier runs (cut by preemptions) held
    machines.  ``machine_runtime`` and ``machine_estimate`` are the seconds
    the job holds machines to run its runtime and its estimate, given the
    machines it ran on: the earlier runs, the current run's overhead and what
    was left, rescaled to the current machine's rating (eq. 3.9); set at each
    start (-1 before).  ``end - first_start - time off machines`` equals
    ``machine_runtime`` for a finished job and ``machine_estimate`` for one
    killed at its estimate (docs/reference/metrics.md, "Grid runs").
    """

    index: int
    job: Job
    width: int
    licences: tuple[int, ...]
    rating: int
    eligible: np.ndarray
    runtime_left: int
    estimate_left: int
    user_class: int = 0
    owner_priority: int = 0
    cluster: int = -1
    machine: int = -1
    start: int = -1
    expected_end: int = -1
    end: int = -1
    priority: int = 0
    candidates: np.ndarray | None = None
    first_start: int = -1
    overhead: int = 0
    preemptions: int = 0
    migrations: int = 0
    preempted_from: int = -1
    preempted_at: int = -1
    held: int = 0
    machine_runtime: int = -1
    machine_estimate: int = -1
    #: ``job.id``, a field: the queues and the running set are keyed by it at every event.
    id: int = field(init=False)

    def __post_init__(self) -> None:
        self.id = self.job.id

    @property
    def submit(self) -> int:
        return self.job.submit

    @property
    def deadline(self) -> int | None:
        return self.job.deadline

    def __repr__(self) -> str:
        return f"GridTask(job {self.job.id}, cluster {self.cluster}, machine {self.machine})"


@dataclass(frozen=True)
class TaskColumns:
    """What never changes about a run's jobs, as read-only arrays by workload position
    (:attr:`GridTask.index`): a policy reads a queue's attributes with one fancy index
    instead of a Python loop over its tasks at every pass.

    ``submit``, ``estimate`` (at submission, at the job's own rating), ``deadline``
    (NaN: none), ``rating``, ``width``, ``needs`` (jobs x the platform's licences:
    whether the job asks for it), ``eligible`` (jobs x the platform's machines:
    :attr:`GridTask.eligible`) and ``estimate_work`` (the estimate in
    rating-seconds at submission, ``estimate x rating``; -1 from 2**61 on, where
    int64 arithmetic on it could overflow).
    """

    submit: np.ndarray
    estimate: np.ndarray
    deadline: np.ndarray
    rating: np.ndarray
    width: np.ndarray
    needs: np.ndarray
    eligible: np.ndarray
    estimate_work: np.ndarray

    @classmethod
    def of(cls, tasks: Sequence[GridTask], licences: int, machines: int) -> TaskColumns:
        """The columns of ``tasks`` (in workload order: task ``k`` has ``index == k``) on a
        platform of ``licences`` licences and ``machines`` machines."""
        needs = np.zeros((len(tasks), licences), dtype=bool)
        rows = [task.index for task in tasks for _ in task.licences]
        needs[rows, [l for task in tasks for l in task.licences]] = True
        eligible = (np.array([task.eligible for task in tasks], dtype=bool) if tasks
                    else np.zeros((0, machines), dtype=bool))
        work = [t.estimate_left * t.rating for t in tasks]
        return cls(
            eligible=_read_only(eligible),
            estimate_work=_read_only(np.array([w if w < _EXACT_WORK else -1 for w in work],
                                              dtype=np.int64)),
            submit=_read_only(np.array([t.job.submit for t in tasks], dtype=np.float64)),
            estimate=_read_only(np.array([t.estimate_left for t in tasks], dtype=np.float64)),
            deadline=_read_only(np.array([np.nan if t.job.deadline is None else t.job.deadline
                                          for t in tasks], dtype=np.float64)),
            rating=_read_only(np.array([t.rating for t in tasks], dtype=np.float64)),
            width=_read_only(np.array([t.width for t in tasks], dtype=np.int64)),
            needs=_read_only(needs))


class LocalPolicyLike(Protocol):
    """What the engine calls on a cluster's local policy (docs/reference/policies/grid.md)."""

    name: str

    def on_submit(self, ctx: GridContext, task: GridTask) -> None: ...
    def on_finish(self, ctx: GridContext, task: GridTask) -> None: ...
    def schedule(self, ctx: GridContext) -> None: ...


class DispatcherLike(Protocol):
    """What the engine calls on the meta-scheduler (docs/reference/policies/grid.md)."""

    name: str

    def dispatch(self, view: MetaView, task: GridTask) -> int: ...
    def on_finish(self, view: MetaView, task: GridTask) -> None: ...


class GridContext:
    """One cluster at ``now``: the view its local policy gets, and the only way it acts.

    Read-only views (the arrays cannot be written; the dicts must not be
    changed), over the platform's machine indices ``k`` (entries of other
    clusters' machines stay 0):

    * ``machines`` -- this cluster's machine indices, in file order;
    * ``by_power`` -- the same, fastest first (rating descending, then index);
    * ``free_cpus[k]`` -- CPUs of machine ``k`` not in use;
    * ``jobs_on[k]`` -- number of jobs running on machine ``k``;
    * ``free_copies[l]`` -- copies of floating licence ``l`` of this cluster
      not in use (0 for a licence the cluster lacks; features are not counted);
    * ``largest_room`` -- the most free CPUs on one machine (exclusive: the
      largest idle machine): a job wider than this cannot start now;
    * ``waiting`` -- queued tasks by job id, in the order they entered the
      queue (a preempted task enters it again at the end);
    * ``running`` -- running tasks by job id;
    * ``columns`` -- the fixed attributes of every job of the run, by workload
      position (:class:`TaskColumns`).
    """

    def __init__(self, platform: Platform, cluster: int, allocation: str, overrun: str,
                 policy_name: str, engine: _Engine) -> None:
        self.platform = platform
        self.cluster = cluster
        self.allocation = allocation
        self.exclusive = allocation == "exclusive"
        self.overrun = overrun
        self.policy_name = policy_name
        self.now = 0
        in_cluster = platform.cluster_of == cluster
        self.machines = np.flatnonzero(in_cluster)
        order = np.lexsort((self.machines, -platform.rating[self.machines]))
        self.by_power = self.machines[order]
        self.mask = in_cluster
        # The engine writes these arrays; policies get read-only views of them.
        self._free_cpus = np.where(in_cluster, platform.cpus, 0).astype(np.int64)
        self._jobs_on = np.zeros(len(platform.cpus), dtype=np.int64)
        self._free_copies = platform.copies[cluster].astype(np.int64)
        self.free_cpus = _read_only(self._free_cpus)
        self.jobs_on = _read_only(self._jobs_on)
        self.free_copies = _read_only(self._free_copies)
        # _free_copies as a Python list, changed with it: the licence tests of a search and
        # of a start read no numpy scalars
        self._copies_left: list[int] = self._free_copies.tolist()
        self.largest_room = 0
        self._update_room()
        feature_here = platform.feature[:, in_cluster].any(axis=1)
        self._feature_here = cast("list[bool]", feature_here.tolist())
        self._floating_here = ~feature_here
        self.waiting: dict[int, GridTask] = {}
        self._queue_at = _NONE                  # the waiting tasks' positions, queue order
        # whether _queue_at is ascending (the queue in workload order): every task entered
        # behind a task of a lower position, since the queue was last empty or reordered
        self._queue_ascending, self._queue_entered = True, -1
        self._resumed_waiting = 0               # waiting tasks that have run before
        self.running: dict[int, GridTask] = {}
        self._running_mask = np.zeros(len(engine.tasks), dtype=bool)   # by workload position
        self._engine = engine
        #: Machine failures and maintenance windows (docs/reference/events.md); None without.
        self._outages: GridOutages | None = None

    # ------------------------------------------------------------ queries
    @property
    def columns(self) -> TaskColumns:
        """The fixed attributes of the run's jobs, by workload position."""
        return self._engine.columns

    def duration(self, task: GridTask, machine: int) -> int:
        """How long ``task`` is expected to hold ``machine`` if started now: the estimate
        still to run, rescaled to the machine's rating (eq. 3.9), plus the preemption
        overhead if it is a resumption."""
        return self._engine.expected_time(task, int(self.platform.rating[machine]))

    def durations(self, task: GridTask, machines: np.ndarray) -> np.ndarray:
        """:meth:`duration` of ``task`` on each of ``machines`` (int64), the same integers."""
        engine = self._engine
        work = engine.estimate_work[task.index]
        if engine.outages is None and work < _EXACT_WORK:
            resumes = engine.overhead if task.first_start >= 0 else 0
            ratings = self.platform.rating[machines].astype(np.int64)
            exact: np.ndarray = resumes - (-work // ratings)
            return exact
        return np.array([self.duration(task, int(k)) for k in machines.tolist()],
                        dtype=np.int64)

    def running_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The running tasks as arrays in workload order (not start order): their
        positions (rows of :attr:`columns`), machines, widths and :meth:`expected_end`
        times.  Kept as a mask of the run's jobs, so no loop over the tasks."""
        at = np.flatnonzero(self._running_mask)
        engine = self._engine
        return (at, engine.machine_of[at], engine.columns.width[at],
                np.maximum(engine.expected_end_of[at], self.now + 1))

    def running_by_position(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What :meth:`running_columns` reads, for a compiled pass to read it there: whether
        each task of the run is running, and every task's machine, width and expected end
        (meaningful for the running ones), by workload position."""
        engine = self._engine
        return (self._running_mask, engine.machine_of, engine.columns.width,
                engine.expected_end_of)

    @property
    def tasks(self) -> Sequence[GridTask]:
        """Every task of the run, by workload position (:attr:`GridTask.index`)."""
        return self._engine.tasks

    def queue_positions(self) -> np.ndarray:
        """The workload positions of the :attr:`waiting` tasks, in queue order (as
        :func:`positions` of ``list(waiting.values())``), kept as the queue changes: a
        pass reads its queue's columns without a loop over its tasks."""
        return _read_only(self._queue_at)

    def queue_in_workload_order(self) -> bool:
        """Whether :meth:`queue_positions` is ascending: kept as tasks enter the queue, so a
        policy ordering a queue in workload order need not test it at every pass.  False
        may be stale (the task out of order has left); True is always so."""
        return self._queue_ascending

    def times_from_columns(self) -> bool:
        """Whether every queued task would hold a machine of rating ``r`` for
        ``ceil(estimate_work / r)`` seconds if started now
        (:attr:`TaskColumns.estimate_work`, eq. 3.9), as :meth:`durations` says: no
        failure or window in the run (which lengthen runs), none started before (a
        resumption has done work and pays the overhead), no job of the run with an
        estimate work past int64 arithmetic."""
        engine = self._engine
        return engine.outages is None and not self._resumed_waiting and engine.exact_work

    def expected_end(self, task: GridTask) -> int:
        """When a running task is expected to free its machine (start + scaled estimate).

        A job already past its estimate (``overrun="extend"``) is expected at ``now + 1``.
        """
        end = task.expected_end
        return end if end > self.now else self.now + 1

    @property
    def lengthens_runs(self) -> bool:
        """Whether runs last longer than eq. 3.9's time (checkpoint writes and restarts,
        docs/reference/events.md): :meth:`duration` counts them."""
        outages = self._outages
        return outages is not None and outages.interval > 0

    def back_at(self, machine: int) -> int:
        """When ``machine`` is known to be in service (``now`` when it is): a failed one at
        its repair, one a maintenance window holds or drains at the window's end
        (docs/reference/events.md, "Grid runs")."""
        outages = self._outages
        return self.now if outages is None else outages.back_at(int(machine), self.now)

    @property
    def windows_ahead(self) -> list[tuple[int, int, int]]:
        """The maintenance windows this cluster knows of before they start: one
        ``(machine, start, end)`` per machine of the cluster each announced window takes,
        by machine, then start; empty in a run without them (docs/reference/events.md,
        "Grid runs": a window is known from its notice; one without an earlier notice
        only at its start, when its machines go out of service)."""
        outages = self._outages
        if outages is None or not outages.announced:
            return []
        return outages.windows_ahead(self.mask)

    def clear_of_windows(self, task: GridTask, machines: np.ndarray) -> np.ndarray:
        """Per machine of ``machines``, whether ``task`` started there now would end by its
        estimate (:meth:`durations`) before the next window known to take it."""
        outages = self._outages
        if outages is None or not outages.announced:
            return np.ones(len(machines), dtype=bool)
        ends = self.now + self.durations(task, machines)
        clear: np.ndarray = ends <= outages.ahead_start[machines]
        return clear

    def clear_start(self, machine: int, start: int, duration: int) -> int:
        """The earliest time from ``start`` at which a run of ``duration`` seconds on
        ``machine`` meets no window known to take it: after the end of each it would run
        into."""
        for k, begins, ends in self.windows_ahead:
            if k == machine and start < ends and begins < start + duration:
                start = ends
        return start

    @property
    def out_of_service(self) -> np.ndarray:
        """This cluster's machines out of service now (failed, or held or drained by a
        maintenance window), in index order; empty in a run without outages."""
        outages = self._outages
        if outages is None:
            return _NONE
        out: np.ndarray = self.machines[outages.out[self.machines]]
        return out

    def running_on(self, machine: int) -> list[GridTask]:
        """Tasks running on ``machine``, in start order."""
        return [t for t in self.running.values() if t.machine == machine]

    def candidates(self, task: GridTask) -> np.ndarray:
        """This cluster's machines ``task`` could ever run on, fastest first."""
        if task.candidates is None or task.cluster != self.cluster:
            eligible: np.ndarray = self.by_power[task.eligible[self.by_power]]
            return eligible
        return task.candidates

    def fits_now(self, task: GridTask, machine: int) -> bool:
        """Whether ``start(task, machine)`` would be accepted now."""
        return self._refusal(task, machine) is None

    def fastest_fit(self, task: GridTask) -> int | None:
        """The fastest machine of this cluster ``task`` can start on now (None: none)."""
        room = self.machines_with_room(task)
        return int(room[0]) if room.size else None

    def may_start(self, at: np.ndarray) -> np.ndarray:
        """Per task at workload positions ``at`` (:func:`positions`), False where
        :meth:`machines_with_room` would find no machine by its first two checks alone:
        wider than :attr:`largest_room`, or needing a floating licence of which no copy is
        free.  Starts only take CPUs and copies, so a task refused here stays refused
        until something ends: a scheduling pass can skip it without asking again.  True
        says only that the task may find a machine."""
        columns = self.columns
        ok: np.ndarray = columns.width[at] <= self.largest_room
        blocked = self.blocked_licences()
        if blocked.any():
            ok &= ~columns.needs[at][:, blocked].any(axis=1)
        return ok

    def blocked_licences(self) -> np.ndarray:
        """Per platform licence, True where this cluster has no copy free and no machine
        holding it as a feature: a task needing one cannot start now (:meth:`may_start`)."""
        blocked: np.ndarray = (self._free_copies < 1) & self._floating_here
        return blocked

    def machines_with_room(self, task: GridTask) -> np.ndarray:
        """This cluster's machines ``task`` can start on now, fastest first: eligible, with
        its CPUs free (exclusive: idle), and a free copy of each floating licence it needs
        there (not the machine it was preempted from at this instant)."""
        if task.width > self.largest_room:
            return _NONE
        left, local = self._copies_left, self._feature_here
        if any(left[l] < 1 and not local[l] for l in task.licences):
            return _NONE
        order = self.candidates(task)
        ok = self.free_cpus[order] >= task.width
        if self.exclusive:
            ok &= self.jobs_on[order] == 0
        room: np.ndarray = order[ok]
        feature = self.platform.feature
        for l in task.licences:
            if left[l] < 1:
                room = room[feature[l, room]]
        if task.preempted_at == self.now:
            room = room[room != task.preempted_from]
        return room

    # ------------------------------------------------------------ actions
    def start(self, task: GridTask, machine: int) -> None:
        """Start waiting ``task`` on ``machine`` now; PolicyError if it cannot start there."""
        problem = self._refusal(task, machine)
        if problem is not None:
            raise PolicyError(f"policy {self.policy_name!r} started job {task.id} on machine "
                              f"{self._machine_name(machine)} at time {self.now}: {problem}")
        machine = int(machine)
        self._free_cpus[machine] -= task.width
        self._jobs_on[machine] += 1
        floating = self._engine._floating(task, machine)
        left = self._copies_left
        for l in floating:
            self._free_copies[l] -= 1
            left[l] -= 1
        self._dequeue(task)
        self.running[task.id] = task
        self._running_mask[task.index] = True
        if self.exclusive or self._free_cpus[machine] + task.width >= self.largest_room:
            self._update_room()         # the machine had the most room: look at every one
        self._engine.started(self, task, machine, floating)

    def preempt(self, task: GridTask) -> None:
        """Stop running ``task`` now: its CPUs and licence copies are free at once, it keeps
        the work done (less any resumption overhead) and is queued again in this cluster,
        to be resumed later by :meth:`start` on any machine that can take it; PolicyError if
        it is not running here.  It may not be started again on the same machine at the
        same instant (docs/reference/policies/grid.md, "Preemption")."""
        if task.id not in self.running:
            raise PolicyError(f"policy {self.policy_name!r} preempted job {task.id} at time "
                              f"{self.now}, but it is not running in cluster {self.cluster}")
        machine = task.machine
        floating = self._release(task)
        self._enqueue(task)
        self._engine.preempted(self, task, machine, floating)

    def reject(self, task: GridTask, reason: str = "rejected") -> None:
        """Refuse waiting ``task``: it never runs (e.g. deadline admission control); the
        dispatcher hears of it as of a job end."""
        if task.id not in self.waiting or task.first_start >= 0:
            where = "it has run already" if task.first_start >= 0 else \
                f"it is not waiting in cluster {self.cluster}"
            raise PolicyError(f"policy {self.policy_name!r} rejected job {task.id} at time "
                              f"{self.now}, but {where}")
        self._dequeue(task)
        self._engine.rejected(task, reason)

    def wake_at(self, time: int) -> None:
        """Ask for a scheduling pass of this cluster at ``time`` (>= now)."""
        if time < self.now:
            raise PolicyError(f"policy {self.policy_name!r} asked for a wake-up at {time}, "
                              f"before now ({self.now})")
        self._engine.wake(int(time), self.cluster)

    # ------------------------------------------------------------ checks
    def _refusal(self, task: GridTask, machine: int) -> str | None:
        """Why ``task`` may not start on ``machine`` now (None: it may)."""
        if task.id not in self.waiting:
            return f"it is not waiting in cluster {self.cluster}"
        if not (0 <= machine < len(self.mask)) or not self.mask[machine]:
            return f"the machine is not in cluster {self.cluster}"
        if task.preempted_at == self.now and task.preempted_from == machine:
            return "it was preempted from this machine at this instant"
        outages = self._outages
        if outages is not None and outages.out[machine]:
            return (f"the machine is out of service (failed, or held or drained by a "
                    f"maintenance window) until {outages.back_at(int(machine), self.now)}")
        platform = self.platform
        if task.width > platform.cpus[machine]:
            return f"it needs {task.width} CPUs, the machine has {platform.cpus[machine]}"
        usable, feature = self._engine.usable_on[machine], self._engine.feature_on[machine]
        for l in task.licences:
            if not usable[l]:
                return f"licence {platform.licence_names[l]!r} cannot be activated there"
        if self.exclusive and self.jobs_on[machine]:
            return "the machine is busy (one job per machine)"
        if task.width > self.free_cpus[machine]:
            return f"it needs {task.width} CPUs, {self.free_cpus[machine]} are free"
        left = self._copies_left
        for l in task.licences:
            if not feature[l] and left[l] < 1:
                return f"no copy of licence {platform.licence_names[l]!r} is free"
        return None

    def _enqueue(self, task: GridTask) -> None:
        """``task`` enters the back of the queue."""
        self.waiting[task.id] = task
        self._engine.queued += 1
        if not self._queue_at.size:
            self._queue_ascending = True
        elif task.index < self._queue_entered:
            self._queue_ascending = False
        self._queue_entered = task.index
        self._queue_at = np.concatenate((self._queue_at, (task.index,)))
        self._resumed_waiting += task.first_start >= 0

    def _dequeue(self, task: GridTask) -> None:
        """``task`` leaves the queue (started, rejected or withdrawn)."""
        del self.waiting[task.id]
        self._engine.queued -= 1
        self._queue_at = self._queue_at[self._queue_at != task.index]
        self._resumed_waiting -= task.first_start >= 0

    def _queue_reordered(self) -> None:
        """:attr:`waiting` was reordered in place (a job requeued at its place by
        arrival, :mod:`~schedlab.engine.grid_outages`): read the positions again."""
        waiting = list(self.waiting.values())
        self._queue_at = positions(waiting)
        self._queue_ascending = bool((self._queue_at[1:] > self._queue_at[:-1]).all())
        self._queue_entered = int(self._queue_at[-1]) if len(waiting) else -1
        self._resumed_waiting = sum(task.first_start >= 0 for task in waiting)

    def _release(self, task: GridTask) -> list[int]:
        """Give back the CPUs and licence copies of running ``task`` (an end or a
        preemption); returns the licences it held a floating copy of."""
        machine = task.machine
        self._free_cpus[machine] += task.width
        self._jobs_on[machine] -= 1
        floating = self._engine.floating_held[task.index]
        left = self._copies_left
        for l in floating:
            self._free_copies[l] += 1
            left[l] += 1
        del self.running[task.id]
        self._running_mask[task.index] = False
        if self._outages is not None:
            self._outages.released(self, machine)
            self._update_room()
        elif self.exclusive:
            self._update_room()
        else:                           # only this machine's room grew
            self.largest_room = max(self.largest_room, int(self._free_cpus[machine]))
        return floating

    def _update_room(self) -> None:
        """Recompute :attr:`largest_room` after a start or an end."""
        free = self.free_cpus[self.machines]
        if self.exclusive:
            free = np.where(self.jobs_on[self.machines] == 0, free, 0)
        self.largest_room = int(free.max())

    def _machine_name(self, machine: int) -> str:
        try:
            return repr(self.platform.machines[int(machine)].name)
        except (IndexError, TypeError, ValueError):
            return repr(machine)


class MetaView:
    """What a dispatcher may know (thesis §3.1.2): the static platform and its own jobs.

    * ``platform`` -- clusters, machines, ratings, licences (static facts);
    * ``now`` -- the current time;
    * ``outstanding[c]`` -- tasks sent to cluster ``c`` and not ended yet, by
      job id in dispatch order (only submissions and ends cross the levels);
    * ``dispatched[c]`` -- how many jobs were sent to cluster ``c`` so far;
    * ``seed`` -- the run's seed, for dispatchers that draw.

    :meth:`eligible_clusters` says which clusters could ever run a task.
    A task's ``start`` field is the local level's information; a
    dispatcher that reads it knows more than §3.1.2 allows (and must say so).
    """

    def __init__(self, platform: Platform, seed: int, eligible: np.ndarray | None = None
                 ) -> None:
        self.platform = platform
        self.now = 0
        self.seed = seed
        count = len(platform.clusters)
        self.outstanding: list[dict[int, GridTask]] = [{} for _ in range(count)]
        self.dispatched = [0] * count
        # each cluster's first machine index: machines are numbered cluster by cluster
        self._first_machines = np.searchsorted(platform.cluster_of, np.arange(count))
        # with the run's TaskColumns.eligible: per job (workload position) and cluster,
        # whether a machine of the cluster could run it, for all the jobs at once
        self._clusters_of = None if eligible is None else \
            np.logical_or.reduceat(eligible, self._first_machines, axis=1)
        # per job (workload position), its eligible clusters as a tuple of ints, made at the
        # first call of cluster_indices: one tuple per distinct row of _clusters_of
        self._indices_of: list[tuple[int, ...]] | None = None

    def eligible_clusters(self, task: GridTask) -> np.ndarray:
        """Indices of the clusters with a machine ``task`` could ever run on (ascending)."""
        eligible: np.ndarray = np.flatnonzero(self.cluster_mask(task))
        return eligible

    def cluster_indices(self, task: GridTask) -> tuple[int, ...]:
        """:meth:`eligible_clusters` as a tuple of ints: a dispatcher and the engine's check
        of its choice read them with no numpy call per job."""
        if self._clusters_of is None:
            return tuple(self.eligible_clusters(task).tolist())
        if self._indices_of is None:
            rows, row_of = np.unique(self._clusters_of, axis=0, return_inverse=True)
            kinds = [tuple(np.flatnonzero(row).tolist()) for row in rows]
            self._indices_of = [kinds[k] for k in row_of.ravel().tolist()]
        return self._indices_of[task.index]

    def cluster_mask(self, task: GridTask) -> np.ndarray:
        """Per cluster, whether it has a machine ``task`` could ever run on."""
        if self._clusters_of is not None:
            mask: np.ndarray = self._clusters_of[task.index]
            return mask
        return np.logical_or.reduceat(task.eligible, self._first_machines)


class _Engine:
    """State shared by the clusters' contexts: events, per-job bookkeeping, series.

    ``work[i]`` and ``estimate_work[i]`` are job ``i``'s runtime and
    estimate still to run, in rating-seconds (seconds x rating, exact
    integers): ``t x BM_job`` at submission, less ``seconds run x BM_m`` of
    each run cut by a preemption.  A run on machine ``m`` lasts
    ``ceil(work / BM_m)`` (eq. 3.9, as :func:`time_on_machine` rounds), plus
    ``overhead`` seconds when it resumes a preempted job.  ``segments`` holds
    the runs cut by a preemption, as ``(job index, machine, start, end,
    overhead)``; the last run of each job is the task's own fields.
    """

    def __init__(self, platform: Platform, tasks: list[GridTask], overrun: str,
                 overhead: int = 0) -> None:
        self.platform = platform
        self.tasks = tasks
        self.columns = TaskColumns.of(tasks, len(platform.licence_names), len(platform.cpus))
        #: whether every job's estimate work fits int64 arithmetic (TaskColumns.estimate_work)
        self.exact_work = not (self.columns.estimate_work < 0).any()
        self.overrun = overrun
        self.overhead = overhead
        self.events: list[tuple[int, int, int, int]] = []   # (time, kind, key, version)
        self.version = [0] * len(tasks)
        self.status = [FINISHED] * len(tasks)
        self.work = [t.runtime_left * t.rating for t in tasks]
        self.estimate_work = [t.estimate_left * t.rating for t in tasks]
        self.segments: list[tuple[int, int, int, int, int]] = []
        # each job's machine and expected end as of its last start (read only while it runs)
        self.machine_of = np.full(len(tasks), -1, dtype=np.int64)
        self.expected_end_of = np.full(len(tasks), -1, dtype=np.int64)
        self.reasons: dict[int, str] = {}
        self.busy = 0
        self.queued = 0                 # jobs waiting in every cluster
        #: per job (workload position), the licences it holds a floating copy of as of its
        #: last start (:meth:`_floating`), given back when it leaves its machine
        self.floating_held: list[list[int]] = [[]] * len(tasks)
        self.in_system_cpus = 0
        # per licence, the copies in use and the jobs in the system needing one: Python
        # lists, changed a licence at a time at every start and end, read whole per instant
        self.licences_used = [0] * len(platform.licence_names)
        self.licences_needed = [0] * len(platform.licence_names)
        self.dirty: set[int] = set()
        self.done = 0
        self.view: MetaView | None = None
        self.dispatcher: DispatcherLike | None = None
        #: Machine failures and maintenance windows (docs/reference/events.md); None without.
        self.outages: GridOutages | None = None
        #: The platform's ``feature`` and ``usable`` by machine, as lists of the licences'
        #: bools: the licence tests of every start and end read no numpy scalars.
        self.feature_on: list[list[bool]] = platform.feature.T.tolist()
        self.usable_on: list[list[bool]] = platform.usable.T.tolist()

    def _floating(self, task: GridTask, machine: int) -> list[int]:
        """The licences ``task`` holds a floating copy of on ``machine``: a machine feature
        (a non-floating licence) is no copy and is not counted in the licence usage."""
        feature = self.feature_on[machine]
        return [l for l in task.licences if not feature[l]]

    def expected_time(self, task: GridTask, rating: int) -> int:
        """Seconds ``task`` would hold a machine of ``rating`` by its estimate if started
        now: the estimate still to run rescaled (eq. 3.9), plus the overhead of a resumption."""
        resumes = self.overhead if task.first_start >= 0 else 0
        if self.outages is not None:
            return self.outages.expected_time(
                task, -(-self.estimate_work[task.index] // rating), resumes)
        return resumes - (-self.estimate_work[task.index] // rating)

    def started(self, ctx: GridContext, task: GridTask, machine: int,
                floating: list[int]) -> None:
        """``task`` started on ``machine`` now, holding a floating copy of the licences
        ``floating`` (:meth:`_floating`): its end is due."""
        i = task.index
        rating = int(self.platform.rating[machine])
        run_for = -(-self.work[i] // rating)
        expected = -(-self.estimate_work[i] // rating)
        killed = self.overrun == "kill" and run_for > expected
        overhead = 0
        if task.first_start < 0:
            task.first_start = ctx.now
            if self.outages is not None:
                overhead = self.outages.restart_overhead(i)
        else:
            overhead = self.overhead
            if machine != task.preempted_from:
                task.migrations += 1
        if self.outages is not None:        # with the checkpoint writes, if any
            run_for = self.outages.lengthened(run_for)
            expected = self.outages.lengthened(expected)
        task.overhead = overhead
        task.machine = machine
        task.start = ctx.now
        task.expected_end = ctx.now + overhead + expected
        task.end = ctx.now + overhead + (expected if killed else run_for)
        task.machine_runtime = task.held + overhead + run_for
        task.machine_estimate = task.held + overhead + expected
        self.machine_of[i] = machine
        self.expected_end_of[i] = task.expected_end
        self.status[i] = KILLED if killed else FINISHED
        self.busy += task.width
        self.floating_held[i] = floating
        for l in floating:
            self.licences_used[l] += 1
        heappush(self.events, (task.end, FINISH, i, self.version[i]))

    def preempted(self, ctx: GridContext, task: GridTask, machine: int,
                  floating: list[int]) -> None:
        """``task`` left ``machine`` now (its resources are released, ``floating`` the
        licences it held a floating copy of): keep the work its run did after the overhead,
        cancel its end event, and queue it again."""
        i, now = task.index, ctx.now
        rating = int(self.platform.rating[machine])
        if self.outages is None:
            done = max(0, now - task.start - task.overhead) * rating
        else:
            done = self.outages.cut(task, machine, now) * rating
        self.work[i] = max(0, self.work[i] - done)
        self.estimate_work[i] = max(0, self.estimate_work[i] - done)
        task.runtime_left = -(-self.work[i] // task.rating)
        task.estimate_left = -(-self.estimate_work[i] // task.rating)
        self.segments.append((i, machine, task.start, now, task.overhead))
        task.held += now - task.start
        self.version[i] += 1                 # the pending end event becomes stale
        self.status[i] = FINISHED
        task.preemptions += 1
        task.preempted_from, task.preempted_at = machine, now
        task.machine = task.start = task.expected_end = task.end = -1
        self.busy -= task.width
        for l in floating:
            self.licences_used[l] -= 1

    def finished(self, ctx: GridContext, task: GridTask) -> None:
        if self.outages is not None:
            rating = int(self.platform.rating[task.machine])
            work = self.estimate_work if self.status[task.index] == KILLED else self.work
            self.outages.finished(task, -(-work[task.index] // rating))
        self._ended(ctx, task)

    def _ended(self, ctx: GridContext, task: GridTask) -> None:
        """Running ``task`` has left the system: its CPUs and copies are free."""
        for l in ctx._release(task):
            self.licences_used[l] -= 1
        self.busy -= task.width
        self._leave(task)
        task.runtime_left = task.estimate_left = 0
        self.work[task.index] = self.estimate_work[task.index] = 0

    def ended_now(self, ctx: GridContext, task: GridTask, status: int) -> None:
        """Running ``task`` ends now before its time: cancelled by its user or killed by a
        failure (``status``); its pending end becomes stale."""
        self.version[task.index] += 1
        self.status[task.index] = status
        if self.outages is not None:
            self.outages.cut(task, task.machine, ctx.now)
        task.end = ctx.now
        self._ended(ctx, task)

    def withdrawn(self, ctx: GridContext | None, task: GridTask) -> None:
        """Its user cancelled waiting ``task`` (``ctx`` None: before its submission)."""
        self.status[task.index] = WITHDRAWN
        if ctx is None:
            self.done += 1
            return
        ctx._dequeue(task)
        self._leave(task)

    def rejected(self, task: GridTask, reason: str) -> None:
        """A local policy refused ``task``: for the dispatcher, the job has ended."""
        self.status[task.index] = REJECTED
        self.reasons[task.job.id] = reason
        self._leave(task)
        if self.dispatcher is not None and self.view is not None:
            del self.view.outstanding[task.cluster][task.id]
            self.dispatcher.on_finish(self.view, task)

    def enter(self, task: GridTask) -> None:
        self.in_system_cpus += task.width
        for l in task.licences:
            self.licences_needed[l] += 1

    def _leave(self, task: GridTask) -> None:
        self.in_system_cpus -= task.width
        for l in task.licences:
            self.licences_needed[l] -= 1
        self.done += 1

    def wake(self, time: int, cluster: int) -> None:
        heappush(self.events, (time, WAKE, cluster, 0))


class _Timer:
    """Wall time spent in policy and dispatcher calls (for the run record only, never
    for decisions)."""

    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds = 0.0

    def call(self, method: Callable[..., Any], *args: Any) -> Any:
        began = wallclock.perf_counter()
        try:
            return method(*args)
        finally:
            self.seconds += wallclock.perf_counter() - began


def positions(tasks: Sequence[GridTask]) -> np.ndarray:
    """The workload positions (:attr:`GridTask.index`) of ``tasks``, in their order: the
    rows of :class:`TaskColumns` to read them by."""
    return np.fromiter(map(_INDEX, tasks), dtype=np.intp, count=len(tasks))


_INDEX = attrgetter("index")


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written through (it follows the array's changes)."""
    view = array.view()
    view.setflags(write=False)
    return view


def make_tasks(grid: GridWorkload, platform: Platform) -> list[GridTask]:
    """One :class:`GridTask` per job, in workload order; InputError if a job fits no machine.

    The jobs' licences and eligible machines are read off whole columns (the licence
    matrix against the machines' usable licences, :func:`~schedlab.workload.grid.activates_all`,
    as :meth:`Platform.eligible` decides job by job), not job by job: this runs once per
    run, for every job.  A job
    with no eligible machine, or needing a licence the platform lacks, is what
    :meth:`GridWorkload.check_on` refuses: it is asked only then, to name the job."""
    if not set(grid.licence_names) <= set(platform.licence_names):
        grid.check_on(platform)
    jobs = grid.workload.jobs
    rows, columns = np.nonzero(grid.needs)
    licence_of = grid.licence_columns(platform)[columns]
    ends = np.searchsorted(rows, np.arange(1, len(jobs) + 1)).tolist()
    flat = licence_of.tolist()
    widths = np.fromiter((job.width for job in jobs), np.int64, len(jobs))
    needs = np.zeros((len(jobs), len(platform.licence_names)), dtype=bool)
    needs[rows, licence_of] = True
    eligible = (platform.cpus[None, :] >= widths[:, None]) & activates_all(needs, platform.usable)
    if not eligible.any(axis=1).all():
        grid.check_on(platform)
    ratings = grid.rating.tolist()
    classes = grid.user_class.tolist()
    owners = grid.owner_priority.tolist()
    tasks, begin = [], 0
    for i, job in enumerate(jobs):
        end = ends[i]
        tasks.append(GridTask(i, job, job.width, tuple(flat[begin:end]), ratings[i],
                              eligible[i], job.runtime, job.estimate, classes[i], owners[i]))
        begin = end
    return tasks


def run_grid(grid: GridWorkload, platform: Platform, local_policies: Sequence[LocalPolicyLike],
             dispatcher: DispatcherLike | None = None, *, allocation: str = "shared",
             overrun: str = "kill", seed: int = 0, preemption_overhead: int = 0,
             progress: ProgressCallback | None = None, failures: FailureSpec | None = None,
             windows: Sequence[Window] = ()) -> Result:
    """Simulate ``grid`` on ``platform``: ``dispatcher`` sends each job to a cluster, where
    ``local_policies[c]`` (one instance per cluster) schedules it.

    A platform of one cluster needs no dispatcher.  ``allocation`` is
    ``"shared"`` (jobs share a machine's CPUs, §4.3) or ``"exclusive"`` (one
    job per machine, §4.1); ``overrun`` as in the space-sharing engine.
    ``preemption_overhead`` (seconds, >= 0) is added to every resumption of
    a preempted job (docs/reference/policies/grid.md, "Preemption").  ``progress(done, total)``
    is called now and then with the number of ended or rejected jobs.

    Events of a real machine (docs/reference/events.md, "Grid runs"): ``failures``
    take whole machines out of service (node ids are machine indices), ``windows``
    take whole machines for maintenance, and a job whose ``cancel_after`` is set is
    cancelled by its user then.
    """
    check_preemption_overhead(preemption_overhead)
    check_one_of("allocation", allocation, ALLOCATIONS)
    check_one_of("overrun", overrun, OVERRUN_MODES)
    clusters = len(platform.clusters)
    if len(local_policies) != clusters:
        raise ValueError(f"{len(local_policies)} local policies for {clusters} clusters")
    if len({id(p) for p in local_policies}) != clusters:
        raise ValueError("every cluster needs its own local policy instance")
    if dispatcher is None and clusters > 1:
        raise InputError(f"platform {platform.name!r} has {clusters} clusters: a dispatcher "
                         f"(meta-scheduler) must choose among them", field="dispatch")
    job_positions(grid.workload.jobs)
    tasks = make_tasks(grid, platform)
    engine = _Engine(platform, tasks, overrun, preemption_overhead)
    contexts = [GridContext(platform, c, allocation, overrun, p.name, engine)
                for c, p in enumerate(local_policies)]
    view = MetaView(platform, seed, engine.columns.eligible)
    engine.view, engine.dispatcher = view, dispatcher
    if failures is not None or windows:
        from schedlab.engine.grid_outages import GridOutages

        engine.outages = GridOutages(platform, engine, failures, windows)
        engine.outages.begin(contexts)
        for ctx in contexts:
            ctx._outages = engine.outages
    for task in tasks:
        if task.job.cancel_after is not None:
            heappush(engine.events, (task.submit + task.job.cancel_after, CANCEL, task.index, 0))
    timer = _Timer()
    began = wallclock.perf_counter()
    with cyclic_gc_paused():
        series, passes = _loop(engine, contexts, local_policies, dispatcher, view, timer,
                               Progress(progress, len(tasks)))
    wall = wallclock.perf_counter() - began
    result = _collect(grid, platform, engine, series, local_policies[0], dispatcher,
                      allocation, overrun, seed, timer.seconds, passes, wall)
    if result.outages is not None:     # the failure settings and readings, in metrics.json
        result.meta["outages"] = result.outages.settings
    return result


def check_preemption_overhead(value: Any) -> None:
    """InputError unless ``value`` is a whole number of seconds from 0 to 2**53.

    The bound is that of SWF times: larger values overflow the int64 schedule.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"expected a whole number of seconds >= 0, got {value!r}",
                         field="preemption_overhead")
    if value > 2**53:
        raise InputError(f"expected at most 2**53 seconds, got {value!r}",
                         field="preemption_overhead")


def _loop(engine: _Engine, contexts: list[GridContext], policies: Sequence[LocalPolicyLike],
          dispatcher: DispatcherLike | None, view: MetaView, timer: _Timer,
          progress: Progress) -> tuple[StepSeries, int]:
    """The event loop; returns the series and the number of scheduling passes.

    The series are, per instant: busy CPUs, queued jobs, CPUs asked for by the
    jobs in the system, then per licence the copies in use, then per licence
    the jobs in the system needing one.
    """
    tasks = engine.tasks
    events = engine.events
    version = engine.version
    dirty = engine.dirty
    call = timer.call
    series = StepSeries(3 + 2 * len(engine.licences_used))
    due = progress.due
    order = sorted(range(len(tasks)), key=lambda i: (tasks[i].submit, i))
    submits = [tasks[i].submit for i in order] + [NEVER]
    nxt, n, passes = 0, len(tasks), 0
    outages = engine.outages
    # failures, repairs, windows and cancellations (docs/reference/events.md), if any
    happening = outages is not None or any(t.job.cancel_after is not None for t in tasks)
    status = engine.status
    while nxt < n or events:
        if outages is not None and nxt == n and engine.done == n:
            break                             # every job has ended: failures go on forever
        now = submits[nxt]
        if events and events[0][0] <= now:
            now = events[0][0]
        view.now = now
        for ctx in contexts:
            ctx.now = now
        # 1. job ends: the cluster's policy hears it, then the dispatcher (§3.1.2)
        while events and events[0][0] == now and events[0][1] == FINISH:
            _, _, index, ver = heappop(events)
            if version[index] != ver:
                continue
            task = tasks[index]
            ctx = contexts[task.cluster]
            engine.finished(ctx, task)
            dirty.add(task.cluster)
            call(policies[task.cluster].on_finish, ctx, task)
            if dispatcher is not None:
                del view.outstanding[task.cluster][task.id]
                call(dispatcher.on_finish, view, task)
        # 2. repairs and window ends, failures and window starts, cancellations
        while happening and events and events[0][0] == now and events[0][1] < WAKE:
            _, kind, key, _ = heappop(events)
            if kind == CANCEL:
                _cancel(engine, contexts, policies, tasks[key], call)
            else:
                _outage_event(engine, contexts, policies, kind, key, call)
        # 3. submissions: dispatched, then queued in the chosen cluster
        while submits[nxt] == now:
            task = tasks[order[nxt]]
            nxt += 1
            if happening and status[task.index] == WITHDRAWN:
                continue                      # cancelled at its submission: never dispatched
            cluster = 0 if dispatcher is None else _dispatch(dispatcher, view, task, call)
            task.cluster = cluster
            ctx = contexts[cluster]
            task.candidates = ctx.candidates(task)
            ctx._enqueue(task)
            engine.enter(task)
            dirty.add(cluster)
            call(policies[cluster].on_submit, ctx, task)
        # 4. wake-ups
        while events and events[0][0] == now and events[0][1] == WAKE:
            dirty.add(heappop(events)[2])
        # 5. one scheduling pass per cluster with an event
        for cluster in sorted(dirty):
            call(policies[cluster].schedule, contexts[cluster])
            passes += 1
        dirty.clear()
        series.record(now, engine.busy, engine.queued, engine.in_system_cpus,
                      *engine.licences_used, *engine.licences_needed)
        if engine.done >= due:
            due = progress.report(engine.done)
    stuck = [t for c in contexts for t in c.waiting.values()]
    if stuck:
        raise never_starts(contexts[stuck[0].cluster].policy_name, stuck[0].id,
                           f" in cluster {stuck[0].cluster}")
    progress.close(engine.done)
    return series, passes


def _left_cluster(engine: _Engine, task: GridTask, call: Callable[..., Any]) -> None:
    """The dispatcher hears that ``task`` has ended (it leaves ``view.outstanding``)."""
    dispatcher, view = engine.dispatcher, engine.view
    if dispatcher is not None and view is not None:
        del view.outstanding[task.cluster][task.id]
        call(dispatcher.on_finish, view, task)


def _cancel(engine: _Engine, contexts: list[GridContext], policies: Sequence[LocalPolicyLike],
            task: GridTask, call: Callable[..., Any]) -> None:
    """Its user cancels ``task`` now (docs/reference/events.md): not yet submitted, it is
    withdrawn before any policy sees it; waiting, it leaves its cluster's queue
    (withdrawn); running, it leaves its machine (cancelled, its end now).  The local
    policy hears ``on_finish`` and the dispatcher its end; an ended job is not touched."""
    if task.cluster < 0:
        engine.withdrawn(None, task)
        return
    ctx = contexts[task.cluster]
    if task.id in ctx.waiting:
        engine.withdrawn(ctx, task)
    elif task.id in ctx.running:
        engine.ended_now(ctx, task, CANCELLED)
    else:
        return
    engine.dirty.add(task.cluster)
    call(policies[task.cluster].on_finish, ctx, task)
    _left_cluster(engine, task, call)


def _outage_event(engine: _Engine, contexts: list[GridContext],
                  policies: Sequence[LocalPolicyLike], kind: int, key: int,
                  call: Callable[..., Any]) -> None:
    """A failure, repair or window event (docs/reference/events.md, "Grid runs"): each job
    a failure hit is heard ended by its local policy (``on_finish``; killed ones by the
    dispatcher too) and, queued again, submitted again (``on_submit``); then every policy
    of a cluster concerned hears the event (``on_outage``, if it has one)."""
    assert engine.outages is not None             # these events come only with outages
    happened = engine.outages.event(kind, key, contexts[0].now)
    if happened is None:
        return
    event, hit, clusters = happened
    for task, requeued in hit:
        ctx = contexts[task.cluster]
        call(policies[task.cluster].on_finish, ctx, task)
        if requeued:
            call(policies[task.cluster].on_submit, ctx, task)
        else:
            _left_cluster(engine, task, call)
    for cluster in sorted(clusters):
        engine.dirty.add(cluster)
        on_outage: Callable[[GridContext, OutageEvent], None] | None = getattr(
            policies[cluster], "on_outage", None)
        if on_outage is not None:
            call(on_outage, contexts[cluster], event)


def _dispatch(dispatcher: DispatcherLike, view: MetaView, task: GridTask,
              call: Callable[..., Any]) -> int:
    """The dispatcher's cluster for ``task``, checked: it must have a machine for the job."""
    cluster = call(dispatcher.dispatch, view, task)
    clusters = view.platform.clusters
    if not isinstance(cluster, (int, np.integer)) or not 0 <= cluster < len(clusters):
        raise PolicyError(f"dispatcher {dispatcher.name!r} sent job {task.id} to cluster "
                          f"{cluster!r} at time {view.now}: expected a cluster index in "
                          f"[0, {len(clusters)})")
    cluster = int(cluster)
    if cluster not in view.cluster_indices(task):
        raise PolicyError(f"dispatcher {dispatcher.name!r} sent job {task.id} to cluster "
                          f"{clusters[cluster].name!r} at time {view.now}, which has no "
                          f"machine it can run on")
    view.outstanding[cluster][task.id] = task
    view.dispatched[cluster] += 1
    return cluster


def _collect(grid: GridWorkload, platform: Platform, engine: _Engine, series: StepSeries,
             policy: LocalPolicyLike, dispatcher: DispatcherLike | None, allocation: str,
             overrun: str, seed: int, policy_seconds: float, passes: int,
             wall: float) -> Result:
    workload = grid.workload
    tasks = engine.tasks
    licences = len(platform.licence_names)
    series_time, values = series.arrays()
    rejected = [engine.status[t.index] == REJECTED for t in tasks]
    start = np.array([-1 if r else t.first_start for t, r in zip(tasks, rejected)],
                     dtype=np.int64)
    end = np.array([-1 if r else t.end for t, r in zip(tasks, rejected)], dtype=np.int64)
    runs = _runs(engine, rejected)
    preemptive = any(t.preemptions for t in tasks) or bool(getattr(policy, "preemptive", False))
    suspended = _time_off_machines(runs, start, end) if preemptive else None
    deadline, _ = deadline_columns(workload.jobs)      # a grid job has no artificial one
    events = len(tasks) * 2 - sum(rejected)   # submissions + job ends
    params = dict(_params(policy))
    if dispatcher is not None:
        params["dispatch"] = dispatcher.name
        params.update({f"dispatch.{k}": v for k, v in _params(dispatcher).items()})
    record = GridRecord(
        platform=platform.name,
        machine_names=tuple(m.name for m in platform.machines),
        cluster_names=tuple(c.name for c in platform.clusters),
        cluster_machines=np.array([len(c.machines) for c in platform.clusters], dtype=np.int64),
        licence_names=platform.licence_names,
        licence_copies=platform.copies.sum(axis=0),
        machine=np.array([t.machine for t in tasks], dtype=np.int64),
        cluster=np.array([t.cluster for t in tasks], dtype=np.int64),
        series_demand=values[:, 2].copy(),
        series_licences_used=values[:, 3:3 + licences].copy(),
        series_licences_demand=values[:, 3 + licences:].copy(),
        allocation=allocation,
        job_licences=tuple(";".join(map(platform.licence_names.__getitem__, t.licences))
                           for t in tasks),
        priority=np.array([t.priority for t in tasks], dtype=np.int64),
        rating=np.array([t.rating for t in tasks], dtype=np.int64),
        machine_runtime=np.array([-1 if r else t.machine_runtime
                                  for t, r in zip(tasks, rejected)], dtype=np.int64),
        machine_estimate=np.array([-1 if r else t.machine_estimate
                                   for t, r in zip(tasks, rejected)], dtype=np.int64),
        runs=runs,
        last_start=np.array([-1 if r else t.start for t, r in zip(tasks, rejected)],
                            dtype=np.int64),
        preemptions=np.array([t.preemptions for t in tasks], dtype=np.int64),
        migrations=np.array([t.migrations for t in tasks], dtype=np.int64),
        preemptive=preemptive,
        preemption_overhead=engine.overhead,
    )
    return assemble(
        workload, processors=platform.total_cpus,
        policy=policy.name if dispatcher is None else f"{policy.name}@{dispatcher.name}",
        params=params,
        stats={**getattr(policy, "statistics", dict)(),
               **{f"dispatch.{k}": v for k, v in
                  getattr(dispatcher, "statistics", dict)().items()}},
        start=start, end=end, status=engine.status,
        series=(series_time, values[:, 0].copy(), values[:, 1].copy()),
        meta=run_meta(workload, overrun, wall, settings={"allocation": allocation, "seed": seed},
                      extra={"scheduling_events": events, "scheduling_passes": passes,
                             "scheduling_time_s": round(policy_seconds, 6),
                             "scheduling_time_per_event_us":
                                 round(1e6 * policy_seconds / events, 3) if events else 0.0}),
        reject_reasons=dict(engine.reasons), suspended=suspended, deadline=deadline,
        artificial_deadline=None if deadline is None else np.zeros(len(tasks), dtype=bool),
        grid=record, cancel_after=cancel_column(workload.jobs),
        outages=None if engine.outages is None else engine.outages.record(_last_time(engine)))


def _last_time(engine: _Engine) -> int:
    """When the run's last job ended (0: none ran)."""
    return max([t.end for t in engine.tasks] + [0])


def _runs(engine: _Engine, rejected: list[bool]) -> np.ndarray:
    """Every run of every job, (k, 5) int64 rows ``(job index, machine, start, end,
    overhead)`` by job then time: the runs cut by a preemption, then each job's last."""
    last = [(t.index, t.machine, t.start, t.end, t.overhead)
            for t, r in zip(engine.tasks, rejected) if not r and t.start >= 0]
    rows = np.array(engine.segments + last, dtype=np.int64).reshape(-1, 5)
    return rows[np.lexsort((rows[:, 2], rows[:, 0]))]


def _time_off_machines(runs: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per job, the time between its first start and its end spent on no machine (queued
    again after a preemption): ``end - first start - sum of its runs``; 0 if it never ran.
    ``start`` is the first start of the job's last attempt (after any failure)."""
    if not len(runs):
        return np.zeros(len(start), dtype=np.int64)
    runs = runs[runs[:, 2] >= start[runs[:, 0]]]
    held = np.bincount(runs[:, 0], weights=runs[:, 3] - runs[:, 2], minlength=len(start))
    return np.where(start >= 0, end - start - held.astype(np.int64), 0).astype(np.int64)


def _params(obj: Any) -> dict[str, Any]:
    get = getattr(obj, "get_params", None)
    return dict(get()) if get is not None else {}


__all__ = ["ALLOCATIONS", "GridContext", "GridTask", "MetaView", "check_preemption_overhead",
           "make_tasks", "positions", "run_grid"]
