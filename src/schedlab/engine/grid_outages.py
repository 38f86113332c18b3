"""Machine failures, maintenance windows and drains in a grid run (docs/reference/events.md, "Grid runs").

The grid's unit of failure is the machine: a failure takes all the CPUs of
one or more machines out of service until its repair, and a window takes
whole machines.  :class:`GridOutages` makes the failures of a
:class:`~schedlab.workload.outages.FailureSpec` (drawn per machine, or
replayed from a failure file whose node ids are the platform's machine
indices) and the windows happen on the grid engine's heap
(:mod:`schedlab.engine.grid`), with the same pieces as the space-sharing
engine (:mod:`schedlab.engine.outages`): the fates, the checkpoint
arithmetic (:func:`~schedlab.engine.attempts.wall_time`,
:func:`~schedlab.engine.attempts.saved_work`), the :class:`OutageEvent`
policies hear and the :class:`~schedlab.engine.result.OutageRecord`.

Our readings (docs/reference/events.md, "Grid runs"):

* a job on a failed machine ends its run there like a preemption
  (:meth:`GridContext.preempt <schedlab.engine.grid.GridContext.preempt>`'s
  bookkeeping); under ``requeue`` it is queued again in its cluster with all
  its work, under ``checkpoint`` with the work left at its last checkpoint
  (a preemption keeps the job's memory image and writes none);
* a window known only at its start (a drain, or a maintenance window with no
  earlier notice) takes the lowest-numbered idle machines in service at its
  start, then drains the lowest-numbered busy ones it still needs (no job
  starts there; each is taken when its last job ends), and takes machines
  back from repair while it is short; it never stops a job;
* a window announced before its start has its machines from its notice on:
  those its ``node_ids`` name, or, for a count, the lowest-numbered machines
  no other known window overlapping it names (fixed at the notice, then
  taken as a named window's are); the local policies of their clusters hear
  the notice and see the window (:attr:`GridContext.windows_ahead
  <schedlab.engine.grid.GridContext.windows_ahead>`) until it starts;
* a machine out of service (failed, held or drained) shows no free CPU, and
  :meth:`GridContext.start <schedlab.engine.grid.GridContext.start>` refuses
  it; :meth:`GridContext.back_at <schedlab.engine.grid.GridContext.back_at>`
  says when it is known to come back (a repair time is known at the failure).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from heapq import heappush
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.attempts import saved_work, wall_time
from schedlab.engine.kernel import NEVER, NOTICE, OUTAGE, RESTORE, StepSeries
from schedlab.engine.outages import (
    HELD_BY_FAILURE,
    HELD_BY_WINDOW,
    KIND_CODES,
    OutageEvent,
    fixed_at_notice,
)
from schedlab.engine.result import FAILED, OutageRecord
from schedlab.errors import InputError
from schedlab.workload.outages import FailureSpec

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask, _Engine
    from schedlab.platform.model import Platform
    from schedlab.workload.outages import Window


def computed_seconds(elapsed: int, interval: int, cost: int) -> int:
    """Seconds of work done in ``elapsed`` seconds of a run that alternates ``interval``
    seconds of work and ``cost`` seconds of checkpoint writing (after its overhead)."""
    period = interval + cost
    return (elapsed // period) * interval + min(elapsed % period, interval)


class _Failure:
    """One failure: its machines, interval, the drawing machine (-1: from a file) and the
    machines it took."""

    __slots__ = ("end", "machines", "node", "start", "taken")

    def __init__(self, start: int, end: int, node: int, machines: Sequence[int]) -> None:
        self.start, self.end, self.node, self.machines = start, end, node, tuple(machines)
        self.taken: list[int] = []


class _WindowState:
    """A window's machines: how many it wants, the machines it may take (None: any), those
    it holds (with when it took each) and those it drains."""

    __slots__ = ("draining", "held", "machines", "wanted", "window")

    def __init__(self, window: Window, wanted: int, machines: Sequence[int] | None) -> None:
        self.window, self.wanted, self.machines = window, wanted, machines
        self.held: dict[int, int] = {}
        self.draining: set[int] = set()

    @property
    def short(self) -> int:
        return self.wanted - len(self.held) - len(self.draining)


class GridOutages:
    """The failures and windows of one grid run and their bookkeeping."""

    def __init__(self, platform: Platform, engine: _Engine, spec: FailureSpec | None,
                 windows: Sequence[Window]) -> None:
        self.spec = spec if spec is not None else FailureSpec()
        self.platform = platform
        self.engine = engine
        machines = len(platform.cpus)
        self.cpus = platform.cpus.tolist()
        self.first_cpu = (np.cumsum(platform.cpus) - platform.cpus).tolist()
        self.windows = tuple(windows)
        self.contexts: list[GridContext] = []
        #: Per machine: repair time while failed (-1: not failed), the window holding it
        #: and the window draining it (-1: none), and whether it is out of service.
        self.failed_until = [-1] * machines
        self.held_by = [-1] * machines
        self.drain_for = [-1] * machines
        self.out = np.zeros(machines, dtype=bool)
        self.down = 0
        self._failures: list[_Failure] = []
        self._states: dict[int, _WindowState] = {}
        #: Per window, the machines it takes, known from its notice (its ``node_ids``, or
        #: those fixed at an advance notice; None: a count taken as its start finds them).
        self.named: list[tuple[int, ...] | None] = [w.node_ids or None for w in self.windows]
        #: The windows announced and not started, every window announced (the record's
        #: notices), and per machine the start of the first of the former that names it
        #: (NEVER: none).
        self.announced: list[int] = []
        self._heard: list[int] = []
        self.ahead_start = np.full(machines, NEVER, dtype=np.int64)
        self._rngs: dict[int, np.random.Generator] = {}
        checkpointing = self.spec.checkpointing
        #: Seconds of work between checkpoints (0: the fate is not ``checkpoint``); a grid
        #: job runs on one machine, so its MTBF is the machine's.
        self.interval = (checkpointing.interval_for(1, self.spec.mtbf)
                         if self.spec.fate == "checkpoint" else 0)
        self.cost, self.restart = checkpointing.cost, checkpointing.restart
        tasks = engine.tasks
        self.original = [(engine.work[t.index], engine.estimate_work[t.index]) for t in tasks]
        self.final_runtime = np.array([t.runtime_left for t in tasks], dtype=np.int64)
        self.final_estimate = np.array([t.estimate_left for t in tasks], dtype=np.int64)
        self.overhead = np.zeros(len(tasks), dtype=np.int64)
        #: Seconds of work each job's current attempt did on machines.
        self.work_done = np.zeros(len(tasks), dtype=np.int64)
        #: Per job: (work, estimate work) left at its last checkpoint, in rating-seconds.
        self._kept: dict[int, tuple[int, int]] = {}
        #: Seconds of work the checkpoints of the job's current attempt kept.
        self._checkpointed: dict[int, int] = {}
        #: Jobs whose next start, and those whose current run, begin with a restart read.
        self._restart_next: set[int] = set()
        self._restart_run: set[int] = set()
        self._hits: dict[int, int] = {}
        self._attempts: list[tuple[int, int, int, int]] = []
        self._used: list[tuple[int, int, int, int, int]] = []
        self._outage_rows: list[tuple[int, int, int, int]] = []
        #: Processors out of service (failed or held by a window) over time.
        self._down_series = StepSeries(1)
        self._down_series.record(0, 0)
        self._check_spec()

    # ------------------------------------------------------------------ set-up
    def _check_spec(self) -> None:
        """InputError for the keys of one machine's processors and for a replayed failure of
        a machine the platform lacks (naming the failure file, its line and ``nodes``)."""
        spec = self.spec
        for key, value, default in (("allocation", spec.allocation, "first-fit"),
                                    ("node_size", spec.node_size, 1)):
            if value != default:
                raise InputError(f"{key} belongs to the processors of one machine; a grid run "
                                 f"fails whole machines (docs/reference/events.md, \"Grid "
                                 f"runs\")", field=f"failures {key}")
        machines = len(self.cpus)
        named = [(failure.nodes, self.spec.source, failure.line, "nodes")
                 for failure in self.spec.replayed]
        named += [(window.node_ids, window.source, window.line, "node_ids")
                  for window in self.windows]
        for nodes, source, line, column in named:
            unknown = [k for k in nodes if k >= machines]
            if unknown:
                raise InputError(f"machine {unknown[0]} does not exist: in a grid run a node id "
                                 f"is a machine index of the platform, which has {machines} "
                                 f"machines (0 to {machines - 1})", file=source, line=line,
                                 field=column)

    def begin(self, contexts: list[GridContext]) -> None:
        """Put the first failures and every window's start on the engine's heap."""
        self.contexts = contexts
        events = self.engine.events
        model = self.spec.model
        if model is not None:
            for machine in range(len(self.cpus)):
                rng = self._rngs[machine] = model.generator(machine)
                self._draw(machine, 0, rng)
        for failure in self.spec.replayed:
            self._add_failure(failure.time, failure.end, -1, failure.nodes)
        for k, window in enumerate(self.windows):
            heappush(events, (window.start, OUTAGE, -1 - k, 0))
            if window.notice < window.start:
                heappush(events, (window.notice, NOTICE, k, 0))

    def _draw(self, machine: int, after: int, rng: np.random.Generator) -> None:
        model = self.spec.model
        assert model is not None
        start = after + model.time_to_failure(rng)
        self._add_failure(start, start + model.repair_time(rng), machine, (machine,))

    def _add_failure(self, start: int, end: int, node: int, machines: Sequence[int]) -> None:
        key = len(self._failures)
        self._failures.append(_Failure(start, end, node, machines))
        heappush(self.engine.events, (start, OUTAGE, key, 0))

    # ------------------------------------------------------------------ what policies see
    def back_at(self, machine: int, now: int) -> int:
        """When ``machine`` is known to be in service again (``now`` when it is): its
        repair, the end of the window holding or draining it."""
        if not self.out[machine]:
            return now
        back = self.failed_until[machine]
        window = max(self.held_by[machine], self.drain_for[machine])
        if window >= 0:
            back = max(back, self.windows[window].end)
        return max(back, now)

    def windows_ahead(self, mask: np.ndarray) -> list[tuple[int, int, int]]:
        """The announced windows not yet started on the machines of ``mask``, one
        ``(machine, start, end)`` per machine each names, by machine, then start."""
        return sorted((m, self.windows[k].start, self.windows[k].end)
                      for k in self.announced for m in self.named[k] or () if mask[m])

    def released(self, ctx: GridContext, machine: int) -> None:
        """A job left ``machine`` (an end, a preemption, a failure): a machine out of service
        keeps showing no free CPU, and a drained one is taken when its last job left."""
        if not self.out[machine]:
            return
        ctx._free_cpus[machine] = 0
        window = self.drain_for[machine]
        if window >= 0 and self.failed_until[machine] < 0 and ctx.jobs_on[machine] == 0:
            self._take(window, machine, ctx.now)

    # ------------------------------------------------------------------ the runs
    def restart_overhead(self, index: int) -> int:
        """Seconds a job's first run of an attempt spends before working: the restart read
        after a failure under ``checkpoint``, else 0."""
        if index in self._restart_next:
            self._restart_next.discard(index)
            self._restart_run.add(index)
            return self.restart
        return 0

    def lengthened(self, compute: int) -> int:
        """Seconds a run doing ``compute`` seconds of work lasts with its checkpoint writes."""
        return wall_time(compute, self.interval, self.cost) if self.interval else compute

    def expected_time(self, task: GridTask, compute: int, resumes: int) -> int:
        """:meth:`_Engine.expected_time` with a restart read and the checkpoint writes."""
        if task.first_start < 0 and task.index in self._restart_next:
            resumes = self.restart
        return resumes + self.lengthened(compute)

    def cut(self, task: GridTask, machine: int, now: int) -> int:
        """A run of ``task`` on ``machine`` is cut now (a preemption or a failure): the
        seconds of work it did; its checkpoint writes and restart read are counted, and
        the work its checkpoints kept remembered."""
        i = task.index
        elapsed = now - task.start
        after = max(0, elapsed - task.overhead)
        if not self.interval:
            self.work_done[i] += after
            return after
        rating = int(self.platform.rating[machine])
        work, estimate = self.engine.work[i], self.engine.estimate_work[i]
        saved = saved_work(elapsed, self.interval, self.cost, task.overhead, -(-work // rating))
        if saved:
            kept = min(work, saved * rating)
            self._kept[i] = (work - kept, estimate - kept)
            self._checkpointed[i] = self._checkpointed.get(i, 0) + saved
        done = computed_seconds(after, self.interval, self.cost)
        restart = min(elapsed, task.overhead) if i in self._restart_run else 0
        self._restart_run.discard(i)
        self.overhead[i] += restart + (after - done)
        self.work_done[i] += done
        return done

    def finished(self, task: GridTask, compute: int) -> None:
        """A run of ``compute`` seconds of work ended of itself: count its writes and its
        restart read."""
        i = task.index
        self.work_done[i] += compute
        if not self.interval:
            return
        restart = task.overhead if i in self._restart_run else 0
        self._restart_run.discard(i)
        self.overhead[i] += restart + self.lengthened(compute) - compute

    # ------------------------------------------------------------------ events
    def event(self, kind: int, key: int, now: int
              ) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]] | None:
        """A failure or window start (``OUTAGE``) or a repair or window end (``RESTORE``)
        has come: what the policies hear, the jobs a failure hit (each with whether it was
        queued again) and the clusters concerned; None when nothing happened."""
        if kind == NOTICE:
            return self._notice(key)
        if kind == RESTORE:
            if key < 0:
                return self._end_window(-1 - key, now)
            return self._repair(key, now)
        if key < 0:
            return self._start_window(-1 - key, now)
        return self._fail(key, now)

    def _fail(self, key: int, now: int
              ) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]] | None:
        failure = self._failures[key]
        taken = [k for k in failure.machines
                 if self.failed_until[k] < 0 and self.held_by[k] < 0]
        if not taken:
            if failure.node >= 0:
                self._draw(failure.node, failure.end, self._rngs[failure.node])
            return None
        cluster_of = self.platform.cluster_of
        hit: list[tuple[GridTask, bool]] = []
        clusters = set()
        for k in taken:
            ctx = self.contexts[int(cluster_of[k])]
            clusters.add(ctx.cluster)
            self.failed_until[k] = failure.end
            self.out[k] = True
            for task in ctx.running_on(k):
                hit.append((task, self._hit(ctx, task)))
            ctx._free_cpus[k] = 0
            ctx._update_room()
            self.down += self.cpus[k]
            self._log(k, failure.start, failure.end, HELD_BY_FAILURE)
        failure.taken = taken
        cpus = sum(self.cpus[k] for k in taken)
        self._outage_rows.append((KIND_CODES["failure"], failure.start, failure.end, cpus))
        heappush(self.engine.events, (failure.end, RESTORE, key, 0))
        self._record(now)
        return OutageEvent("failure", cpus, failure.start, failure.end,
                           tuple(task.id for task, _ in hit)), hit, clusters

    def _hit(self, ctx: GridContext, task: GridTask) -> bool:
        """A failure ended ``task``'s run now: killed (status ``failed``; False), or queued
        again in its cluster by the run's fate (True)."""
        spec, engine = self.spec, self.engine
        i, now, machine = task.index, ctx.now, task.machine
        self._hits[i] = hits = self._hits.get(i, 0) + 1
        attempt_start = task.first_start
        if spec.fate == "kill" or hits > spec.max_requeues:
            off_machines = now - attempt_start - (task.held + now - task.start)
            self._attempts.append((i, attempt_start, now, off_machines))
            engine.ended_now(ctx, task, FAILED)
            return False
        engine.preempted(ctx, task, machine, ctx._release(task))   # the run's work and books
        task.preemptions -= 1                          # ... but no preemption
        off_machines = now - attempt_start - task.held
        self._attempts.append((i, attempt_start, now,
                               off_machines + self._checkpointed.pop(i, 0)))
        work, estimate = (self._kept.get(i, self.original[i]) if spec.fate == "checkpoint"
                          else self.original[i])
        engine.work[i], engine.estimate_work[i] = work, estimate
        task.runtime_left = self.final_runtime[i] = -(-work // task.rating)
        task.estimate_left = self.final_estimate[i] = -(-estimate // task.rating)
        task.first_start = task.preempted_from = task.preempted_at = -1
        task.held = task.overhead = 0
        self.work_done[i] = 0
        if spec.fate == "checkpoint":
            self._restart_next.add(i)
        _requeue(ctx, task, spec.requeue_order == "arrival")
        return True

    def _repair(self, key: int, now: int
                ) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]]:
        failure = self._failures[key]
        clusters = set()
        for k in failure.taken:
            self.failed_until[k] = -1
            window = self.drain_for[k]
            ctx = self.contexts[int(self.platform.cluster_of[k])]
            clusters.add(ctx.cluster)
            self.down -= self.cpus[k]
            if window >= 0:
                self._take(window, k, now)
            else:
                self._back_in_service(ctx, k)
        if failure.node >= 0:
            self._draw(failure.node, failure.end, self._rngs[failure.node])
        clusters |= self._fill(now)
        self._record(now)
        cpus = sum(self.cpus[k] for k in failure.taken)
        return OutageEvent("repair", cpus, failure.start, failure.end), [], clusters

    def _notice(self, k: int) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]]:
        """Window ``k`` is announced before its start: its machines are fixed now (a count
        takes :meth:`_unclaimed` ones), and its clusters' policies see it coming."""
        window = self.windows[k]
        machines = self.named[k]
        if machines is None:
            machines = self.named[k] = self._unclaimed(k)
        self.announced.append(k)
        self._heard.append(k)
        self._note_ahead()
        clusters = {int(self.platform.cluster_of[m]) for m in machines}
        return OutageEvent("notice", len(machines), window.start, window.end), [], clusters

    def _wanted(self, window: Window) -> int:
        """How many machines ``window`` takes."""
        machines = len(self.cpus)
        return len(window.node_ids) if window.node_ids else \
            machines if window.processors is None else min(window.processors, machines)

    def _unclaimed(self, k: int) -> tuple[int, ...]:
        """The machines a counted window ``k`` announced now takes
        (:func:`~schedlab.engine.outages.fixed_at_notice`)."""
        return fixed_at_notice(k, self.windows, [*self.announced, *self._states],
                               lambda other: self.named[other] or (), len(self.cpus),
                               self._wanted(self.windows[k]))

    def _note_ahead(self) -> None:
        """Recompute :attr:`ahead_start` from the announced windows not started."""
        self.ahead_start.fill(NEVER)
        for k in self.announced:
            machines = list(self.named[k] or ())
            np.minimum.at(self.ahead_start, machines, self.windows[k].start)

    def _start_window(self, k: int, now: int
                      ) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]]:
        window = self.windows[k]
        machines = self.named[k]
        if k in self.announced:
            self.announced.remove(k)
            self._note_ahead()
        wanted = self._wanted(window) if machines is None else len(machines)
        self._states[k] = state = _WindowState(window, wanted, machines)
        heappush(self.engine.events, (window.end, RESTORE, -1 - k, 0))
        clusters = self._fill(now)
        self._record(now)
        return OutageEvent("window start", state.wanted, window.start, window.end), [], clusters

    def _end_window(self, k: int, now: int
                    ) -> tuple[OutageEvent, list[tuple[GridTask, bool]], set[int]]:
        state = self._states.pop(k)
        window = state.window
        clusters = set()
        cpus = 0
        for machine, taken_at in state.held.items():
            self._log(machine, taken_at, now, HELD_BY_WINDOW)
            self.held_by[machine] = -1
            self.down -= self.cpus[machine]
            cpus += self.cpus[machine]
        for machine in [*state.held, *state.draining]:
            self.drain_for[machine] = -1
            ctx = self.contexts[int(self.platform.cluster_of[machine])]
            clusters.add(ctx.cluster)
            if self.failed_until[machine] < 0:
                self._back_in_service(ctx, machine)
        self._outage_rows.append((KIND_CODES[window.kind], window.start, window.end, cpus))
        clusters |= self._fill(now)
        self._record(now)
        return OutageEvent("window end", cpus, window.start, window.end), [], clusters

    def _fill(self, now: int) -> set[int]:
        """The started windows still short of machines take the idle machines in service
        (of those they name, when they name machines), lowest-numbered first, then drain
        the busy ones; returns the clusters concerned."""
        clusters: set[int] = set()
        for k, state in self._states.items():
            if state.short <= 0:
                continue
            named = state.machines or range(len(self.cpus))
            free = [m for m in named if not self.out[m]]
            cluster_of = self.platform.cluster_of
            idle = [m for m in free
                    if self.contexts[int(cluster_of[m])].jobs_on[m] == 0][:state.short]
            for machine in idle:
                self._take(k, machine, now)
                clusters.add(int(cluster_of[machine]))
            busy = [m for m in free if m not in idle][:state.short]
            for machine in busy:
                ctx = self.contexts[int(cluster_of[machine])]
                state.draining.add(machine)
                self.drain_for[machine] = k
                self.out[machine] = True
                ctx._free_cpus[machine] = 0
                ctx._update_room()
                clusters.add(ctx.cluster)
        return clusters

    def _take(self, k: int, machine: int, now: int) -> None:
        """Window ``k`` holds ``machine`` from now (it is idle and not failed)."""
        state = self._states[k]
        state.draining.discard(machine)
        self.drain_for[machine] = -1
        state.held[machine] = now
        self.held_by[machine] = k
        self.out[machine] = True
        ctx = self.contexts[int(self.platform.cluster_of[machine])]
        ctx._free_cpus[machine] = 0
        ctx._update_room()
        self.down += self.cpus[machine]
        self._record(now)

    def _back_in_service(self, ctx: GridContext, machine: int) -> None:
        """``machine`` is in service again: its CPUs not used by its jobs are free."""
        self.out[machine] = False
        ctx._free_cpus[machine] = self.cpus[machine] - sum(
            t.width for t in ctx.running_on(machine))
        ctx._update_room()

    # ------------------------------------------------------------------ the record
    def _log(self, machine: int, start: int, end: int, holder: int) -> None:
        if end > start:
            lo = self.first_cpu[machine]
            self._used.append((lo, lo + self.cpus[machine], start, end, holder))

    def _record(self, now: int) -> None:
        self._down_series.record(now, self.down)

    def record(self, now: int) -> OutageRecord:
        """The run's :class:`OutageRecord` (windows still open at the end of the run are
        closed there: the run ends when its last job does).  Its ``intervals`` are the
        machines' CPUs in platform order (machine ``k``'s are those after the CPUs of
        machines 0 to ``k - 1``) held by failures and windows; the jobs' runs are in the
        :class:`~schedlab.engine.result.GridRecord`."""
        for state in self._states.values():
            for machine, taken_at in state.held.items():
                self._log(machine, taken_at, now, HELD_BY_WINDOW)
            self._outage_rows.append((KIND_CODES[state.window.kind], state.window.start,
                                      state.window.end,
                                      sum(self.cpus[m] for m in state.held)))
        spec = self.spec
        settings = {"fate": spec.fate, "unit": "machine", "requeue": spec.requeue_order,
                    "max_requeues": spec.max_requeues, "windows": len(self.windows)}
        if spec.model is not None:
            settings["model"] = asdict(spec.model)
        if spec.source:
            settings["failure_file"] = spec.source
        if spec.fate == "checkpoint":
            settings["checkpointing"] = {**asdict(spec.checkpointing),
                                         "interval": self.interval}
        return OutageRecord(
            outages=np.array(self._outage_rows, dtype=np.int64).reshape(-1, 4),
            attempts=np.array(self._attempts, dtype=np.int64).reshape(-1, 4),
            final_runtime=self.final_runtime, final_estimate=self.final_estimate,
            overhead=self.overhead,
            intervals=np.array(self._used, dtype=np.int64).reshape(-1, 5),
            series_time=self._down_series.arrays()[0],
            series_down=self._down_series.arrays()[1][:, 0].copy(), settings=settings,
            work_done=self.work_done, notices=self._notices())

    def _notices(self) -> np.ndarray | None:
        """:attr:`OutageRecord.notices`: the machines of the windows announced before
        their start (None: none was)."""
        if not self._heard:
            return None
        rows = [(m, m + 1, self.windows[k].notice, self.windows[k].start, self.windows[k].end)
                for k in self._heard for m in self.named[k] or ()]
        return np.array(rows, dtype=np.int64).reshape(-1, 5)


def _requeue(ctx: GridContext, task: GridTask, by_arrival: bool) -> None:
    """Put ``task`` back in its cluster's queue: at its place by arrival (workload position)
    among the waiting jobs, or at the back."""
    waiting = ctx.waiting
    if not by_arrival or not waiting:
        ctx._enqueue(task)
        return
    items = list(waiting.items())
    at = next((k for k, (_, t) in enumerate(items) if t.index > task.index), len(items))
    items.insert(at, (task.id, task))
    waiting.clear()
    waiting.update(items)
    ctx._queue_reordered()
