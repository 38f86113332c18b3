"""Time-sharing execution: gang scheduling on an Ousterhout matrix.

The machine's ``P`` processors are the columns of a matrix whose rows are
the time slots of a scheduling round (Ousterhout 1982; Zhou, Goscinski and
Brent 2003, §1).  Rows are served round robin, each for the slot length
``l``; a job progresses only while a row holding it is served, on its own
processors, all its processes together.  docs/policies/gang.md gives the
rules this module implements, the "readings" among them:

* **Decisions at boundaries.**  A policy changes the matrix only at a round
  boundary, and only if a job arrived or left since its last pass
  (:meth:`TimeSharingPolicy.arrange`); a job arriving mid-round therefore
  starts in the following round (§1).  Jobs the policy calls *express*
  (Strategy 3's short jobs, §3 item 6) are packed into an extra slot served
  at the next slot boundary (:meth:`TimeSharingPolicy.pack_express`).
* **Mid-slot ends.**  A slot lasts ``l`` seconds of service unless every job
  served in it ends earlier: then the slot ends with its last job, and the
  next slot starts at once.  An express slot lasts until its last job ends.
* **Switch overhead.**  A slot starts with ``context_switch`` seconds of no
  progress unless it serves the same row as the slot just before it.
* **Same instant.**  At a boundary ``b`` every job submitted at or before
  ``b`` is known.

The loop is event-driven: rounds are served slot by slot only when something
changes in them (an arrival, an end, an express slot); a quiet round is
followed by a jump over every whole round until the next end or arrival, so
the cost grows with jobs and matrix changes, never with the number of rounds.
This module knows no strategy: re-packing, slot limits, job classes and
backfilling are the policy's (``schedlab.policies.gang``).
"""

from __future__ import annotations

import gc
import time as wallclock
from typing import TYPE_CHECKING, Callable, Iterator

import numpy as np

from schedlab.engine.result import (FINISHED, KILLED, MATRIX_CHANGE_KINDS, Result,
                                    TimeSharingTrace)
from schedlab.errors import InputError, PolicyError

if TYPE_CHECKING:
    from schedlab.workload.job import Job, Workload

PLACE, MOVE, GUEST, UNGUEST, EXPRESS, LEAVE = range(len(MATRIX_CHANGE_KINDS))
ProgressCallback = Callable[[int, int], None]


def lowest_bits(mask: int, count: int) -> int:
    """The ``count`` lowest set bits of ``mask`` (the lowest-numbered free processors)."""
    chosen = 0
    for _ in range(count):
        low = mask & -mask
        chosen |= low
        mask ^= low
    return chosen


def column_ranges(mask: int) -> tuple[tuple[int, int], ...]:
    """The processors of ``mask`` as half-open ``(first, stop)`` ranges."""
    ranges = []
    column = 0
    while mask:
        if mask & 1:
            first = column
            while mask & 1:
                mask >>= 1
                column += 1
            ranges.append((first, column))
        else:
            skip = (mask & -mask).bit_length() - 1
            mask >>= skip
            column += skip
    return tuple(ranges)


class Row:
    """One time slot of the matrix: its own jobs (id -> processor mask) and guests.

    A *guest* is a job of another row that also runs in this one because its
    processors are free here (Zhou et al. 1999, "running jobs in multiple
    slots").  ``occupied`` and ``guest_mask`` are the processors used by each.
    """

    __slots__ = ("id", "own", "occupied", "guests", "guest_mask")

    def __init__(self, row_id: int) -> None:
        self.id = row_id
        self.own: dict[int, int] = {}
        self.occupied = 0
        self.guests: dict[int, int] = {}
        self.guest_mask = 0

    def members(self) -> list[int]:
        """Every job served in this row's slot: its own, then its guests."""
        return [*self.own, *self.guests]


class Matrix:
    """The Ousterhout matrix: processors (bit positions) x rows, with validated changes.

    A policy reads it (``len``, :meth:`row`, :meth:`mask_of`, :meth:`row_index`,
    :meth:`job`) and changes it only with :meth:`place`, :meth:`move` and
    :meth:`add_guest`; each change is checked at once (a processor holds at
    most one process per row; a job keeps its processors for its lifetime) and
    logged.  A violation is a bug in the policy: :class:`PolicyError`.
    """

    def __init__(self, processors: int, policy_name: str = "policy") -> None:
        self.processors = processors
        self.full = (1 << processors) - 1
        self.rows: list[Row] = []
        self.now = 0
        self._policy_name = policy_name
        self._row_of: dict[int, Row] = {}
        self._mask: dict[int, int] = {}
        self._jobs: dict[int, Job] = {}
        self._next_row_id = 0
        self.log: list[tuple[int, int, int, int]] = []      # (time, kind, job id, row id)

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int) -> Row:
        return self.rows[index]

    def job(self, job_id: int) -> Job:
        return self._jobs[job_id]

    def mask_of(self, job_id: int) -> int:
        """The processors of a job in the matrix (as a bit mask)."""
        return self._mask[job_id]

    def row_index(self, job_id: int) -> int:
        return self.rows.index(self._row_of[job_id])

    def __contains__(self, job_id: int) -> bool:
        return job_id in self._mask

    def job_ids(self) -> Iterator[int]:
        """Every job in the matrix, row by row (each once, in its own row)."""
        for row in self.rows:
            yield from row.own

    def allocated(self) -> int:
        """The processors holding a process in at least one row, as a bit mask."""
        used = 0
        for row in self.rows:
            used |= row.occupied
        return used

    # ---------------------------------------------------------------- changes
    def place(self, job: Job, index: int, mask: int) -> None:
        """Put a waiting job into row ``index`` on the processors of ``mask``;
        ``index == len(self)`` opens a new row at the end of the round."""
        if job.id in self._mask:
            self._fail(job.id, "place", "it is already in the matrix")
        if mask & ~self.full or mask.bit_count() != job.width:
            self._fail(job.id, "place", f"it needs {job.width} of the {self.processors} "
                                        f"processors, got {mask.bit_count()}")
        if index == len(self.rows):
            self.rows.append(Row(self._next_row_id))
            self._next_row_id += 1
        elif not 0 <= index < len(self.rows):
            self._fail(job.id, "place", f"row {index} does not exist")
        row = self.rows[index]
        if mask & (row.occupied | row.guest_mask):
            self._fail(job.id, "place", f"its processors are taken in row {index}")
        row.own[job.id] = mask
        row.occupied |= mask
        self._row_of[job.id] = row
        self._mask[job.id] = mask
        self._jobs[job.id] = job
        self.log.append((self.now, PLACE, job.id, row.id))

    def move(self, job_id: int, index: int) -> None:
        """Move a job, on its processors, to another row (job re-packing)."""
        mask = self._mask[job_id]
        source = self._row_of[job_id]
        target = self.rows[index]
        if target is source:
            return
        if mask & (target.occupied | target.guest_mask):
            self._fail(job_id, "move", f"its processors are taken in row {index}")
        del source.own[job_id]
        source.occupied ^= mask
        target.own[job_id] = mask
        target.occupied |= mask
        self._row_of[job_id] = target
        self.log.append((self.now, MOVE, job_id, target.id))

    def add_guest(self, job_id: int, index: int) -> None:
        """Let a job also run in row ``index``, where its processors are free."""
        mask = self._mask[job_id]
        row = self.rows[index]
        if self._row_of[job_id] is row or job_id in row.guests:
            self._fail(job_id, "add as a guest", f"it already runs in row {index}")
        if mask & (row.occupied | row.guest_mask):
            self._fail(job_id, "add as a guest", f"its processors are taken in row {index}")
        row.guests[job_id] = mask
        row.guest_mask |= mask

    # ------------------------------------------------------- engine-only parts
    def _remove(self, job_id: int) -> None:
        """A job left: free its processors in its row and wherever it was a guest."""
        mask = self._mask.pop(job_id)
        row = self._row_of.pop(job_id)
        del self._jobs[job_id]
        del row.own[job_id]
        row.occupied ^= mask
        for other in self.rows:
            if job_id in other.guests:
                del other.guests[job_id]
                other.guest_mask ^= mask
        self.log.append((self.now, LEAVE, job_id, row.id))

    def _guest_places(self) -> set[tuple[int, int]]:
        return {(job_id, row.id) for row in self.rows for job_id in row.guests}

    def _clear_guests(self) -> None:
        for row in self.rows:
            row.guests = {}
            row.guest_mask = 0

    def _drop_empty_rows(self) -> None:
        """A row without jobs of its own is removed (it would only waste a slot)."""
        if any(not row.own for row in self.rows):
            self.rows = [row for row in self.rows if row.own]

    def _fail(self, job_id: int, action: str, why: str) -> None:
        raise PolicyError(f"policy {self._policy_name!r} cannot {action} job {job_id} at "
                          f"time {self.now}: {why}")


#: The execution model of :func:`run_timesharing`: jobs take turns in the time
#: slots of an Ousterhout matrix (gang scheduling).
TIME_SHARING = "time-sharing"


class TimeSharingPolicy:
    """What the time-sharing engine asks of a policy (gang scheduling).

    ``slot`` (seconds, >= 1) and ``context_switch`` (seconds, >= 0) are read
    by the engine.  :meth:`arrange` changes the matrix at a round boundary;
    :meth:`is_express` and :meth:`pack_express` give jobs an extra slot of
    their own at the next slot boundary.  Policies must be deterministic and
    their passes idempotent: the engine skips a pass when nothing changed.
    """

    name = "time-sharing"
    #: The engine this policy needs (:data:`schedlab.run.ENGINES`).
    execution_model = TIME_SHARING
    slot = 1
    context_switch = 0

    def arrange(self, matrix: Matrix, waiting: list[Job], now: int) -> None:
        """Place waiting jobs (arrival order), move jobs between rows, add guests."""
        raise NotImplementedError

    def is_express(self, job: Job) -> bool:
        """Whether a new job skips the matrix and runs in the next slot (default: no)."""
        return False

    def pack_express(self, jobs: list[Job], processors: int) -> list[tuple[Job, int]]:
        """Which waiting express jobs run in the next slot, on which processors."""
        return []

    def statistics(self) -> dict:
        return {}

    def get_params(self) -> dict:
        return {}


def run_timesharing(workload: Workload, policy: TimeSharingPolicy, *,
                    processors: int | None = None, overrun: str = "kill",
                    progress: ProgressCallback | None = None) -> Result:
    """Simulate ``workload`` under a time-sharing ``policy``; the :class:`Result`
    carries a :class:`~schedlab.engine.result.TimeSharingTrace`.

    A job ends when its service reaches its runtime, or its estimate under
    ``overrun="kill"`` (then it is ``killed``), as in space sharing.
    """
    machine = workload.processors if processors is None else processors
    if machine <= 0:
        raise InputError(f"the machine needs at least one processor, got {machine}",
                         field="processors")
    if overrun not in ("kill", "extend"):
        raise InputError(f"expected one of kill, extend, got {overrun!r}", field="overrun")
    too_wide = [j.id for j in workload.jobs if j.width > machine]
    if too_wide:
        raise InputError(f"{len(too_wide)} job(s) are wider than the {machine}-processor "
                         f"machine (first: job {too_wide[0]})", field="processors")
    from schedlab.engine.simulator import _claim   # at call time: policies import this module

    _claim(policy)                  # one run per policy instance, as in space sharing
    began = wallclock.perf_counter()
    simulation = _Simulation(workload, policy, machine, overrun, progress)
    enabled = gc.isenabled()
    gc.disable()
    try:
        simulation.run()
    finally:
        if enabled:
            gc.enable()
    return simulation.result(wallclock.perf_counter() - began)


class _Simulation:
    """The state of one time-sharing run and its event loop."""

    def __init__(self, workload: Workload, policy: TimeSharingPolicy, machine: int,
                 overrun: str, progress: ProgressCallback | None) -> None:
        self.workload = workload
        self.policy = policy
        self.machine = machine
        self.progress = progress
        self.overrun = overrun
        self.slot = policy.slot
        self.switch = policy.context_switch
        jobs = workload.jobs
        self.jobs = jobs
        self.index = {job.id: i for i, job in enumerate(jobs)}
        if len(self.index) != len(jobs):
            raise InputError("job ids must be unique within a workload", field="job id")
        n = len(jobs)
        kill = overrun == "kill"
        self.held = [min(j.runtime, j.estimate) if kill else j.runtime for j in jobs]
        self.status = [KILLED if kill and j.runtime > j.estimate else FINISHED for j in jobs]
        self.start = [-1] * n
        self.end = [-1] * n
        self.placed = [-1] * n
        self.columns: list[tuple[tuple[int, int], ...]] = [()] * n
        self.remaining: dict[int, int] = {}
        self.matrix = Matrix(machine, getattr(policy, "name", "policy"))
        self.waiting: dict[int, Job] = {}
        self.express: dict[int, Job] = {}
        self.submits = [job.submit for job in jobs] + [float("inf")]
        self.next_job = 0
        self.now = jobs[0].submit if jobs else 0
        self.changed = False          # a job arrived or left since the policy's last pass
        self.quiet = False            # the last round saw no arrival, end or express slot
        self.last_row: int | None = None
        self.next_express_id = -1
        self.done = 0
        self.rounds = 0
        self.slots_served = 0
        self.busy_time: list[int] = []
        self.busy: list[int] = []
        self.slots_time: list[int] = []
        self.slots_count: list[int] = []
        self.report_every = max(1, n // 200)
        self.next_report = self.report_every

    # ------------------------------------------------------------ the loop
    def run(self) -> None:
        n = len(self.jobs)
        matrix = self.matrix
        while True:
            arrived = self.deliver()
            if self.changed:
                self.arrange()
            rows = list(matrix.rows)
            if not rows and not self.express:
                self.record_slots(0)
                if self.next_job >= n:
                    if self.waiting:
                        stuck = next(iter(self.waiting))
                        raise PolicyError(f"policy {self.matrix._policy_name!r} left job "
                                           f"{stuck} waiting with no event to come: it "
                                           f"never starts")
                    break
                self.now = max(self.now, self.submits[self.next_job])
                self.last_row = None
                continue
            self.record_slots(len(rows))
            if self.quiet and not arrived and not self.express and self.jump(rows):
                continue                  # back to the round boundary the jump landed on
            self.serve_round(rows)
        if self.progress is not None:
            self.progress(self.done, n)

    def deliver(self) -> bool:
        """Every job submitted by now joins the waiting (or express) queue."""
        submits, now, start = self.submits, self.now, self.next_job
        while submits[self.next_job] <= now:
            job = self.jobs[self.next_job]
            self.next_job += 1
            if self.policy.is_express(job):
                self.express[job.id] = job
            else:
                self.waiting[job.id] = job
                self.changed = True
        return self.next_job > start

    def arrange(self) -> None:
        """The policy's pass at a round boundary; placed jobs leave the queue."""
        matrix = self.matrix
        matrix.now = self.now
        before = matrix._guest_places()
        matrix._clear_guests()
        matrix._drop_empty_rows()
        mark = len(matrix.log)
        self.policy.arrange(matrix, list(self.waiting.values()), self.now)
        for job_id in [j for j in self.waiting if j in matrix]:
            job = self.waiting.pop(job_id)
            i = self.index[job_id]
            self.placed[i] = self.now
            self.columns[i] = column_ranges(matrix.mask_of(job_id))
            self.remaining[job_id] = self.held[i]
        if len(matrix._mask) != len(self.remaining):
            stray = next(j for j in matrix._mask if j not in self.remaining)
            matrix._fail(stray, "place", "it is not waiting")
        matrix._drop_empty_rows()
        after = matrix._guest_places()
        log = matrix.log
        # guests lost are logged before the pass's changes, guests won after them
        log[mark:mark] = [(self.now, UNGUEST, job, row) for job, row in sorted(before - after)]
        log.extend((self.now, GUEST, job, row) for job, row in sorted(after - before))
        self.changed = False
        self.record_busy(self.now)

    def serve_round(self, rows: list[Row]) -> None:
        """Serve one round slot by slot, an express slot before any slot if jobs wait for one."""
        self.quiet = True
        count = len(rows)
        for row in rows or [None]:
            if self.deliver():
                self.quiet = False
            if self.express:
                served = self.serve_express(count)
                if not served and row is None:
                    raise PolicyError(f"policy {self.matrix._policy_name!r} runs no express "
                                       f"job on an idle machine at time {self.now}")
                count += served
            if row is None:
                break
            members = [j for j in row.members() if j in self.remaining]
            if members:
                self.serve(row.id, members, self.slot)
        self.rounds += 1

    def serve_express(self, count: int) -> int:
        """Run the express jobs the policy packs into one extra slot; 1 if it ran."""
        chosen = self.policy.pack_express(list(self.express.values()), self.machine)
        if not chosen:
            return 0
        used = 0
        row_id = self.next_express_id
        self.next_express_id -= 1
        self.matrix.now = self.now
        members = []
        for job, mask in chosen:
            if job.id not in self.express or mask & used or mask & ~self.matrix.full \
                    or mask.bit_count() != job.width:
                raise PolicyError(f"policy {self.matrix._policy_name!r} packed job {job.id} "
                                  f"into an express slot at time {self.now} on processors "
                                  f"that are taken, too few or not waiting for one")
            used |= mask
            del self.express[job.id]
            i = self.index[job.id]
            self.placed[i] = self.now
            self.columns[i] = column_ranges(mask)
            self.remaining[job.id] = self.held[i]
            self.matrix.log.append((self.now, EXPRESS, job.id, row_id))
            members.append(job.id)
        self.quiet = False
        self.record_slots(count + 1)
        self.record_busy(self.now, used)
        self.serve(row_id, members, None, express=True)
        self.record_busy(self.now)
        return 1

    def serve(self, row_id: int, members: list[int], length: int | None,
              express: bool = False) -> None:
        """One slot: overhead, then up to ``length`` seconds of service (express: until
        its last job ends); the slot ends early when its last job ends."""
        remaining = self.remaining
        service_start = self.now + (self.switch if row_id != self.last_row else 0)
        index, start = self.index, self.start
        for job_id in members:
            i = index[job_id]
            if start[i] < 0:
                start[i] = service_start
        if length is None:
            length = max(remaining[j] for j in members)
        ending = []
        for job_id in members:
            left = remaining[job_id]
            if left <= length:
                ending.append((left, job_id))
            else:
                remaining[job_id] = left - length
        if len(ending) == len(members):
            slot_end = service_start + max(left for left, _ in ending)
        else:
            slot_end = service_start + length
        ending.sort()
        for left, job_id in ending:
            self.finish(job_id, service_start + left, express)
        self.last_row = row_id
        self.slots_served += 1
        self.now = slot_end
        if ending:
            self.quiet = False

    def finish(self, job_id: int, t: int, express: bool) -> None:
        del self.remaining[job_id]
        self.end[self.index[job_id]] = t
        self.done += 1
        if not express:
            self.matrix.now = t
            self.matrix._remove(job_id)
            self.changed = True
            self.record_busy(t)
        if self.progress is not None and self.done >= self.next_report:
            self.progress(self.done, len(self.jobs))
            self.next_report = self.done + self.report_every

    def jump(self, rows: list[Row]) -> bool:
        """Skip every whole round before the next end or arrival (a quiet round repeats
        exactly: same slots, same overheads, same service per job).

        A job gets one slot per round in its own row plus one per guest place;
        the first end is the least ceil(remaining / service per round).  The
        plain jobs are read with one ``min`` over the remaining service: a guest
        counted there with one slot can only end later than its true bound,
        which is taken with the guests.
        """
        slot, k = self.slot, len(rows)
        duration = k * (self.switch + slot) if k > 1 else slot
        slots_of: dict[int, int] = {}
        for row in rows:
            for job_id in row.guests:
                slots_of[job_id] = slots_of.get(job_id, 1) + 1
        remaining = self.remaining
        first_end = -(-min(remaining.values()) // slot)
        for job_id, count in slots_of.items():
            first_end = min(first_end, -(-remaining[job_id] // (count * slot)))
        rounds = first_end - 1
        arrival = self.submits[self.next_job]
        if arrival != float("inf"):
            rounds = min(rounds, (arrival - self.now) // duration)
        if rounds <= 0:
            return False
        served = rounds * slot
        for job_id in remaining:
            remaining[job_id] -= served
        for job_id, count in slots_of.items():
            remaining[job_id] -= (count - 1) * served
        self.now += rounds * duration
        self.rounds += rounds
        self.slots_served += rounds * k
        return True

    # ---------------------------------------------------------- recording
    def record_busy(self, t: int, extra: int = 0) -> None:
        """Record the processors allocated in the matrix (and ``extra``, an express slot's)."""
        busy = (self.matrix.allocated() | extra).bit_count()
        if self.busy and self.busy[-1] == busy:
            return
        if self.busy_time and self.busy_time[-1] == t:
            self.busy[-1] = busy
        else:
            self.busy_time.append(t)
            self.busy.append(busy)

    def record_slots(self, count: int) -> None:
        if self.slots_count and self.slots_count[-1] == count:
            return
        if self.slots_time and self.slots_time[-1] == self.now:
            self.slots_count[-1] = count
        else:
            self.slots_time.append(self.now)
            self.slots_count.append(count)

    def result(self, wall: float) -> Result:
        from schedlab import __version__
        columns = self.workload.to_arrays()
        start = np.array(self.start, dtype=np.int64)
        end = np.array(self.end, dtype=np.int64)
        service = np.array(self.held, dtype=np.int64)
        placed = np.array(self.placed, dtype=np.int64)
        series_time, series_busy, series_queue = _series(
            np.array(self.busy_time, dtype=np.int64), np.array(self.busy, dtype=np.int64),
            columns["submit"], placed)
        log = np.array(self.matrix.log, dtype=np.int64).reshape(-1, 4)
        trace = TimeSharingTrace(
            slot=self.slot, context_switch=self.switch, service=service, placed=placed,
            columns=tuple(self.columns),
            slots_time=np.array(self.slots_time, dtype=np.int64),
            slots_count=np.array(self.slots_count, dtype=np.int64),
            change_time=log[:, 0].copy(), change_kind=log[:, 1].copy(),
            change_job=log[:, 2].copy(), change_row=log[:, 3].copy(),
            rounds=self.rounds, slots_served=self.slots_served)
        policy = self.policy
        return Result(
            processors=self.machine, policy=policy.name,
            job_id=columns["id"], submit=columns["submit"], width=columns["width"],
            estimate=columns["estimate"], runtime=columns["runtime"],
            start=start, end=end, status=np.array(self.status, dtype=np.int8),
            planned_start=np.full(len(self.jobs), -1, dtype=np.int64),
            series_time=series_time, series_busy=series_busy, series_queue=series_queue,
            workload=self.workload.name, params=policy.get_params(),
            stats={**policy.statistics(), "rounds": self.rounds,
                   "slots_served": self.slots_served},
            suspended=end - start - service, skipped=dict(self.workload.skipped),
            timesharing=trace,
            meta={"schedlab_version": __version__,
                  "overrun": self.overrun,
                  "wall_time_s": round(wall, 6), "jobs": len(self.jobs),
                  "unix_start_time": self.workload.unix_start_time,
                  "engine": "time-sharing"},
        )


def _series(busy_time: np.ndarray, busy: np.ndarray, submit: np.ndarray, placed: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Allocated processors and waiting jobs on one time axis.

    The queue is every job submitted and not yet placed in the matrix (or an
    express slot): the paper's waiting queue (§4).
    """
    times = np.concatenate([submit, placed])
    steps = np.concatenate([np.ones(len(submit), np.int64), -np.ones(len(placed), np.int64)])
    order = np.argsort(times, kind="stable")
    queue_time, queue_at = np.unique(times[order], return_index=True)
    queue_value = np.cumsum(steps[order])
    last = np.r_[queue_at[1:] - 1, len(order) - 1]
    queue_value = queue_value[last]
    all_times = np.union1d(queue_time, busy_time)
    busy_index = np.searchsorted(busy_time, all_times, side="right") - 1
    queue_index = np.searchsorted(queue_time, all_times, side="right") - 1
    busy_at = np.where(busy_index >= 0, busy[np.maximum(busy_index, 0)], 0)
    queue_now = np.where(queue_index >= 0, queue_value[np.maximum(queue_index, 0)], 0)
    return all_times.astype(np.int64), busy_at.astype(np.int64), queue_now.astype(np.int64)
