"""Time-sharing execution: gang scheduling on an Ousterhout matrix.

The machine's ``P`` processors are the columns of a matrix whose rows are
the time slots of a scheduling round (Ousterhout 1982; Zhou, Goscinski and
Brent 2003, §1).  Rows are served round robin, each for the slot length
``l``; a job progresses only while a row holding it is served, on its own
processors, all its processes together.  docs/reference/policies/gang.md gives the
rules this module implements, the "readings" among them:

* **Decisions at boundaries.**  A policy changes the matrix only at a round
  boundary, and only if a job arrived or left since its last pass
  (:meth:`TimeSharingPolicy.arrange`); a job arriving mid-round therefore
  starts in the following round (§1).  Jobs the policy calls *express*
  (Strategy 3's short jobs, §5) take free processors of the next slot,
  which is lengthened until they complete; only those that do not fit get
  an extra slot served first, at most one per round, in which matrix jobs
  run as guests on the processors they leave
  (:meth:`TimeSharingPolicy.pack_express`, :meth:`~TimeSharingPolicy.express_guests`).
* **Mid-slot ends.**  A slot lasts ``l`` seconds of service unless every job
  served in it ends earlier: then the slot ends with its last job, and the
  next slot starts at once.  A slot holding express jobs lasts until they
  have ended; express jobs arriving while it runs beyond ``l`` join it.
* **Switch overhead.**  A slot starts with ``context_switch`` seconds of no
  progress unless it serves the same row as the slot just before it.
* **Same instant.**  At a boundary ``b`` every job submitted at or before
  ``b`` is known.

The loop is event-driven: rounds are served slot by slot only when something
changes in them (an end, an express job's arrival, an express slot, an event);
from a round boundary the engine jumps over every whole round until the next of
those, and over the round a job arrives in for the matrix (it waits for the next
boundary anyway), so the cost grows with jobs and matrix changes, never with the
number of rounds.
This module knows no strategy: re-packing, slot limits, job classes and
backfilling are the policy's (``schedlab.policies.gang``).  What surrounds
the loop (input checks, the series, progress, the result) is the kernel's
(:mod:`schedlab.engine.kernel`).
"""

from __future__ import annotations

import time as wallclock
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter, sub
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.kernel import (
    NEVER,
    OVERRUN_MODES,
    Progress,
    ProgressCallback,
    StepSeries,
    assemble,
    check_machine,
    check_one_of,
    claim,
    cyclic_gc_paused,
    job_positions,
    never_starts,
    run_meta,
)
from schedlab.engine.policy import PolicyBase
from schedlab.engine.result import FINISHED, KILLED, MATRIX_CHANGE_KINDS, Result, TimeSharingTrace
from schedlab.errors import PolicyError
from schedlab.workload.job import cancel_column

if TYPE_CHECKING:
    from schedlab.engine.gang_events import GangEvents
    from schedlab.workload.job import Job, Workload
    from schedlab.workload.outages import FailureSpec, Window

PLACE, MOVE, GUEST, UNGUEST, EXPRESS, LEAVE = range(len(MATRIX_CHANGE_KINDS))
_GUESTS = attrgetter("guests")    # a row's guests


def lowest_bits(mask: int, count: int) -> int:
    """The ``count`` lowest set bits of ``mask`` (the lowest-numbered free processors;
    all of them when it has fewer), taken a run of consecutive bits at a time."""
    chosen = 0
    while count and mask:
        first, length = _lowest_run(mask)
        take = ((1 << min(length, count)) - 1) << first
        chosen |= take
        mask ^= take
        count -= min(length, count)
    return chosen


def column_ranges(mask: int) -> tuple[tuple[int, int], ...]:
    """The processors of ``mask`` as half-open ``(first, stop)`` ranges."""
    ranges = []
    while mask:
        first, length = _lowest_run(mask)
        ranges.append((first, first + length))
        mask ^= ((1 << length) - 1) << first
    return tuple(ranges)


def _lowest_run(mask: int) -> tuple[int, int]:
    """The first bit and the length of the lowest run of consecutive set bits of a
    nonzero ``mask``: the trailing ones of the mask shifted to its lowest set bit."""
    first = (mask & -mask).bit_length() - 1
    shifted = mask >> first
    return first, (~shifted & (shifted + 1)).bit_length() - 1


class Row:
    """One time slot of the matrix: its own jobs (id -> processor mask) and guests.

    A *guest* is a job of another row that also runs in this one because its
    processors are free here (Zhou et al. 1999, "running jobs in multiple
    slots").  ``occupied`` and ``guest_mask`` are the processors used by each.
    """

    __slots__ = ("guest_mask", "guests", "id", "occupied", "own")

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
    :meth:`job`, ``usable``, ``windows_ahead``) and changes it only with :meth:`place`, :meth:`move`,
    :meth:`add_guest`/:meth:`add_guests` and :meth:`set_guests`; each change is checked at
    once (a processor holds at most one process per row; a job keeps its processors for
    its lifetime; no process goes on a processor outside ``usable``) and logged.  A
    violation is a bug in the policy: :class:`PolicyError`.  Guests yield to a row's own
    jobs: a job placed or moved onto processors a guest holds in that row takes them, and
    the guest leaves the row.
    """

    def __init__(self, processors: int, policy_name: str = "policy") -> None:
        self.processors = processors
        self.full = (1 << processors) - 1
        #: The processors a policy may place jobs on: all but those failed or held by a
        #: maintenance window (docs/reference/events.md, "Gang runs"); set by the engine.
        self.usable = self.full
        #: The maintenance windows announced and not yet started, as ``(processors mask,
        #: start, end)`` by start: the processors each will take, known from its notice
        #: (docs/reference/events.md, "Gang runs"); set by the engine.
        self.windows_ahead: list[tuple[int, int, int]] = []
        self.rows: list[Row] = []
        self.now = 0
        self._policy_name = policy_name
        self._row_of: dict[int, Row] = {}
        self._mask: dict[int, int] = {}
        self._jobs: dict[int, Job] = {}
        self._next_row_id = 0
        self.log: list[tuple[int, int, int, int]] = []      # (time, kind, job id, row id)
        #: Every job whose place changed (placed, moved, left), in order: a policy that keeps
        #: state across passes reads what came since its last pass.
        self.journal: list[int] = []
        #: The service each matrix job has received, as of the policy's pass (what a
        #: scheduler knows: estimate - served is the most it needs); set by the engine.
        self.served: Mapping[int, int] = {}
        #: Row id -> its guests when the pass began, for the rows whose guests the pass
        #: changed (:meth:`_guest_changes`); every change gives the row a new dict.
        self._guests_before: dict[int, dict[int, int]] = {}
        #: Counts the changes of any row's guests (a row's guests given anew, a guest that
        #: left, a row dropped with its guests): the engine's grouping of the guests by
        #: their slots per round holds while it stays the same.
        self.guests_changed = 0
        #: Whether a row may have lost its last job of its own (:meth:`_drop_empty_rows`).
        self._emptied = False

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

    @property
    def masks(self) -> Mapping[int, int]:
        """Every job in the matrix and its processors (read-only: :meth:`place` changes it)."""
        return self._mask

    def row_index(self, job_id: int) -> int:
        return self.rows.index(self._row_of[job_id])

    def row_of(self, job_id: int) -> Row:
        """The row a job in the matrix belongs to."""
        return self._row_of[job_id]

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
        if mask & ~self.usable or mask.bit_count() != job.width:
            if mask & self.full & ~self.usable:
                self._fail(job.id, "place", "some of its processors are out of service "
                                            "(failed or held by a window)")
            self._fail(job.id, "place", f"it needs {job.width} of the {self.processors} "
                                        f"processors, got {mask.bit_count()}")
        if index == len(self.rows):
            self.rows.append(Row(self._next_row_id))
            self._next_row_id += 1
        elif not 0 <= index < len(self.rows):
            self._fail(job.id, "place", f"row {index} does not exist")
        row = self.rows[index]
        if mask & row.occupied:
            self._fail(job.id, "place", f"its processors are taken in row {index}")
        if mask & row.guest_mask:
            self._displace_guests(row, mask)
        row.own[job.id] = mask
        row.occupied |= mask
        self._row_of[job.id] = row
        self._mask[job.id] = mask
        self._jobs[job.id] = job
        self.log.append((self.now, PLACE, job.id, row.id))
        self.journal.append(job.id)

    def move(self, job_id: int, index: int) -> None:
        """Move a job, on its processors, to another row (job re-packing)."""
        mask = self._mask[job_id]
        source = self._row_of[job_id]
        target = self.rows[index]
        if target is source:
            return
        if mask & ~self.usable:
            self._fail(job_id, "move", "some of its processors are out of service")
        if mask & target.occupied:
            self._fail(job_id, "move", f"its processors are taken in row {index}")
        if mask & target.guest_mask:
            self._displace_guests(target, mask)
        del source.own[job_id]
        source.occupied ^= mask
        if not source.own:
            self._emptied = True
        target.own[job_id] = mask
        target.occupied |= mask
        self._row_of[job_id] = target
        self.log.append((self.now, MOVE, job_id, target.id))
        self.journal.append(job_id)

    def add_guest(self, job_id: int, index: int) -> None:
        """Let a job also run in row ``index``, where its processors are free."""
        self.add_guests([job_id], index)

    def add_guests(self, job_ids: Iterable[int], index: int) -> None:
        """Let jobs also run in row ``index``, where their processors are free (in turn:
        each must find its processors free of the jobs added before it)."""
        row = self.rows[index]
        self._check_and_set_guests(row, index, row.guests, row.guest_mask, list(job_ids))

    def set_guests(self, job_ids: Iterable[int], index: int) -> None:
        """Make ``job_ids`` the guests of row ``index``, in this order, checked as
        :meth:`add_guests` checks them; a row already holding exactly these is left as it
        is (a policy keeping its guests across passes sets only what changed)."""
        row = self.rows[index]
        job_ids = list(job_ids)
        if list(row.guests) != job_ids:
            self._check_and_set_guests(row, index, {}, 0, job_ids)

    def _check_and_set_guests(self, row: Row, index: int, kept: dict[int, int],
                              kept_mask: int, job_ids: list[int]) -> None:
        """Row ``index``'s guests become ``kept`` (processors ``kept_mask``) and then
        ``job_ids``: checked in one loop (disjoint, in service, free in the row), job by
        job only to name what is wrong."""
        out_of_service = ~self.usable
        masks = self._mask
        union = 0
        guests = dict(kept)
        for job_id in job_ids:
            mask = masks[job_id]
            if not mask or mask & union:
                break
            union |= mask
            guests[job_id] = mask
        else:
            if not union & (out_of_service | row.occupied | kept_mask):
                self._replace_guests(row, guests, kept_mask | union)
                return
        guests = dict(kept)
        for job_id in job_ids:
            mask = masks[job_id]
            if self._row_of[job_id] is row or job_id in guests:
                self._fail(job_id, "add as a guest", f"it already runs in row {index}")
            if mask & out_of_service:
                self._fail(job_id, "add as a guest", "some of its processors are out of service")
            if mask & (row.occupied | kept_mask):
                self._fail(job_id, "add as a guest", f"its processors are taken in row {index}")
            guests[job_id] = mask
            kept_mask |= mask
        self._replace_guests(row, guests, kept_mask)

    def _displace_guests(self, row: Row, mask: int) -> None:
        """The guests of ``row`` on processors of ``mask`` leave it (a job of its own
        takes them)."""
        self._replace_guests(row, {job_id: guest for job_id, guest in row.guests.items()
                                   if not guest & mask})

    def _replace_guests(self, row: Row, guests: dict[int, int], mask: int | None = None
                        ) -> None:
        """Give ``row`` the guests ``guests`` (a new dict; ``mask`` their processors, if
        known), keeping its guests from before the pass for :meth:`_guest_changes`."""
        self._guests_before.setdefault(row.id, row.guests)
        self.guests_changed += 1
        row.guests = guests
        if mask is None:
            mask = 0
            for guest in guests.values():
                mask |= guest
        row.guest_mask = mask

    # ------------------------------------------------------- engine-only parts
    def _remove(self, job_id: int) -> None:
        """A job left: free its processors in its row and wherever it was a guest."""
        mask = self._mask.pop(job_id)
        row = self._row_of.pop(job_id)
        del self._jobs[job_id]
        del row.own[job_id]
        row.occupied ^= mask
        if not row.own:
            self._emptied = True
        for other in self.rows:
            if job_id in other.guests:
                del other.guests[job_id]
                other.guest_mask ^= mask
                self.guests_changed += 1
        self.log.append((self.now, LEAVE, job_id, row.id))
        self.journal.append(job_id)

    def _clear_guests(self) -> None:
        """Every row without guests (a pass of a policy that does not keep them begins so)."""
        for row in self.rows:
            if row.guests:
                self._replace_guests(row, {}, 0)

    def _guests_in_service(self) -> None:
        """Guests on processors that left service leave their rows."""
        out_of_service = ~self.usable
        for row in self.rows:
            if row.guest_mask & out_of_service:
                self._displace_guests(row, out_of_service)

    def _drop_empty_rows(self) -> None:
        """A row without jobs of its own is removed (it would only waste a slot).  Rows lose
        jobs only when a job leaves or moves, which note it: otherwise nothing is walked."""
        if self._emptied:
            self._emptied = False
            for row in self.rows:
                if not row.own and row.guests:
                    self._guests_before.setdefault(row.id, row.guests)
                    self.guests_changed += 1
            self.rows = [row for row in self.rows if row.own]

    def _guest_changes(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The guest places ``(job id, row id)`` lost and won since the pass began, each
        sorted; read once, at the pass's end.  Only the rows whose guests changed are
        compared, each by its guests' ids."""
        before = self._guests_before
        self._guests_before = {}
        now = {row.id: row.guests for row in self.rows if row.id in before}
        lost: list[tuple[int, int]] = []
        won: list[tuple[int, int]] = []
        for row_id, old in before.items():
            new = now.get(row_id, {})
            lost += zip(old.keys() - new.keys(), repeat(row_id))
            won += zip(new.keys() - old.keys(), repeat(row_id))
        lost.sort()
        won.sort()
        return lost, won

    def _fail(self, job_id: int, action: str, why: str) -> None:
        raise PolicyError(f"policy {self._policy_name!r} cannot {action} job {job_id} at "
                          f"time {self.now}: {why}")


class Served(Mapping[int, int]):
    """The service each job in the matrix has received, read on demand from the
    engine's live state (a policy that never asks costs nothing per pass).  It holds the
    run through a weak reference: the run's state then makes no cycle and is freed as
    soon as the run ends (:func:`run_timesharing`)."""

    __slots__ = ("_simulation",)

    def __init__(self, simulation: _Simulation) -> None:
        self._simulation = weakref.proxy(simulation)

    def __getitem__(self, job_id: int) -> int:
        simulation = self._simulation
        return (simulation.held[simulation.index[job_id]] - simulation.remaining[job_id]
                + simulation.lag)

    def __iter__(self) -> Iterator[int]:
        return iter(self._simulation.remaining)

    def __len__(self) -> int:
        return len(self._simulation.remaining)


#: The execution model of :func:`run_timesharing`: jobs take turns in the time
#: slots of an Ousterhout matrix (gang scheduling).
TIME_SHARING = "time-sharing"
#: When an express job that arrives while a slot runs may start
#: (:attr:`TimeSharingPolicy.express_start`): at the next slot boundary, or at once
#: on the processors the running slot leaves free.
EXPRESS_STARTS = ("arrival", "next-slot")


class TimeSharingPolicy(PolicyBase):
    """What the time-sharing engine asks of a policy (gang scheduling).

    ``slot`` (seconds, >= 1) and ``context_switch`` (seconds, >= 0) are read
    by the engine.  :meth:`arrange` changes the matrix at a round boundary;
    :meth:`is_express` and :meth:`pack_express` give jobs an extra slot of
    their own at the next slot boundary.  Policies must be deterministic and
    their passes idempotent: the engine skips a pass when nothing changed.
    """

    name = "time-sharing"
    #: The engine this policy needs (:data:`schedlab.execution.MODELS`).
    execution_model = TIME_SHARING
    slot = 1
    context_switch = 0
    #: One of :data:`EXPRESS_STARTS`: an express job arriving while a slot runs waits
    #: for the next slot (``"next-slot"``) or starts at once on the processors the
    #: running slot leaves free, the slot lengthened until it completes (``"arrival"``).
    express_start = "next-slot"
    #: Whether a pass begins with the guests the last one left (less those of jobs that
    #: left and those on processors out of service), for a policy that changes only the
    #: rows whose guests change (:meth:`Matrix.set_guests`); otherwise every pass begins
    #: with no guests.
    keeps_guests = False

    def arrange(self, matrix: Matrix, waiting: list[Job], now: int) -> None:
        """Place waiting jobs (arrival order), move jobs between rows, add guests."""
        raise NotImplementedError

    def is_express(self, job: Job) -> bool:
        """Whether a job skips the matrix and runs in the next slot (default: no); asked
        once per job, before the run."""
        return False

    def pack_express(self, jobs: list[Job], free: int) -> list[tuple[Job, int]]:
        """Which waiting express jobs run now on the processors of ``free`` (a bit
        mask), on which processors (arrival order; those not chosen wait)."""
        return []

    def express_guests(self, matrix: Matrix, free: int, first: int) -> list[int]:
        """Which matrix jobs also run in an express slot, on the processors of ``free``
        its express jobs leave; rows are taken in round order from row ``first``."""
        return []



def run_timesharing(workload: Workload, policy: TimeSharingPolicy, *,
                    processors: int | None = None, overrun: str = "kill",
                    progress: ProgressCallback | None = None,
                    failures: FailureSpec | None = None,
                    windows: Sequence[Window] = ()) -> Result:
    """Simulate ``workload`` under a time-sharing ``policy``; the :class:`Result`
    carries a :class:`~schedlab.engine.result.TimeSharingTrace`.

    A job ends when its service reaches its runtime, or its estimate under
    ``overrun="kill"`` (then it is ``killed``), as in space sharing.
    ``failures``, ``windows`` and the jobs' ``cancel_after`` are the events of
    a real machine (docs/reference/events.md, "Gang runs";
    :mod:`schedlab.engine.gang_events`); a run without them takes the path it
    always took.

    The cycle collector rests from the set-up to the result
    (:func:`~schedlab.engine.kernel.cyclic_gc_paused`) and the run's state is dropped
    before it resumes: the matrix log and the series grow with the decisions, and left
    alive they would make the collector's first pass after the run walk them all.
    """
    machine = workload.processors if processors is None else processors
    check_machine(workload.jobs, machine)
    check_one_of("overrun", overrun, OVERRUN_MODES)
    claim(policy)                   # one run per policy instance, as in space sharing
    began = wallclock.perf_counter()
    with cyclic_gc_paused():
        simulation = _Simulation(workload, policy, machine, overrun, progress)
        if failures is not None or windows or any(job.cancel_after is not None
                                                  for job in workload.jobs):
            simulation.take_events(failures, tuple(windows))
        simulation.run()
        result = simulation.result(wallclock.perf_counter() - began)
        del simulation              # the run's state freed before the collector resumes
    return result


class _SlotCut(Exception):
    """The slot in service ended at an event that ends attempts (a failure, a job in the
    matrix cancelled): the round ends there."""

    def __init__(self, row_id: int) -> None:
        super().__init__(row_id)
        self.row_id = row_id


class _Simulation:
    """The state of one time-sharing run and its event loop."""

    def __init__(self, workload: Workload, policy: TimeSharingPolicy, machine: int,
                 overrun: str, progress: ProgressCallback | None) -> None:
        self.workload = workload
        self.policy = policy
        self.machine = machine
        self.progress = Progress(progress, len(workload.jobs))
        self.overrun = overrun
        self.slot = policy.slot
        self.switch = policy.context_switch
        check_one_of("express_start", policy.express_start, EXPRESS_STARTS)
        self.join_on_arrival = policy.express_start == "arrival"
        jobs = workload.jobs
        #: The jobs as their current attempt runs them (by workload position).
        self.jobs: Sequence[Job] = jobs
        self.index = job_positions(jobs)
        n = len(jobs)
        kill = overrun == "kill"
        self.held = [min(j.runtime, j.estimate) if kill else j.runtime for j in jobs]
        self.status = [KILLED if kill and j.runtime > j.estimate else FINISHED for j in jobs]
        self.start = [-1] * n
        self.end = [-1] * n
        self.placed = [-1] * n
        self.columns: list[tuple[tuple[int, int], ...]] = [()] * n
        #: Each job's service still to come, plus ``lag``: the service the whole-round
        #: jumps gave every matrix job and :meth:`settle` has not yet taken off (a jump
        #: raises one counter instead of lowering every job; slots served without express
        #: jobs read through it, so only an express slot or a run with events settles).
        self.remaining: dict[int, int] = {}
        self.lag = 0
        self.matrix = Matrix(machine, getattr(policy, "name", "policy"))
        self.matrix.served = Served(self)
        self.waiting: dict[int, Job] = {}
        self.express: dict[int, Job] = {}
        self.submits = [job.submit for job in jobs] + [NEVER]
        self.is_express = [policy.is_express(job) for job in jobs]
        #: ``express_submits[i]``: the submit time of the first express job at or after
        #: position ``i`` (NEVER: none), so that a slot knows at once whether an express job
        #: arrives while it runs.
        self.express_submits = [NEVER] * (n + 1)
        for i in range(n - 1, -1, -1):
            self.express_submits[i] = jobs[i].submit if self.is_express[i] \
                else self.express_submits[i + 1]
        self.next_job = 0
        self.now = jobs[0].submit if jobs else 0
        self.changed = False          # a job arrived or left since the policy's last pass
        self.last_row: int | None = None
        self.next_express_id = -1
        self.short_mask = 0           # processors of the express jobs running now
        self.express_slots = 0
        self.lengthened = 0           # regular slots lengthened for express jobs
        self.done = 0
        self.rounds = 0
        self.slots_served = 0
        self.busy = StepSeries(1)     # processors in the matrix or held by express jobs
        self.slots = StepSeries(1)    # slots in the current round
        #: Failures, windows and cancellations (None: the run has none).
        self.events: GangEvents | None = None
        self.resume_after: int | None = None  # a round cut in this row resumes after it
        #: The jobs placed by a pass and perhaps not served yet; every matrix job not in it has
        #: started (emptied by a jump, :meth:`start_fresh`, and by a whole round served).
        self.fresh: list[int] = []
        self.guest_slots: dict[int, list[int]] = {}  # :meth:`guests_by_slots`, as of
        self.guest_slots_mark = -1                   # Matrix.guests_changed == this

    def take_events(self, failures: FailureSpec | None, windows: tuple[Window, ...]) -> None:
        """Run with failures, windows and cancellations: jobs enter as the fate runs them
        (checkpoint writes included), slots are served up to the next event that ends
        attempts (:meth:`serve_until_cut`)."""
        from schedlab.engine.gang_events import GangEvents

        events = self.events = GangEvents(self, self.jobs, self.machine, failures, windows)
        kill = self.overrun == "kill"
        jobs = self.jobs = events.views = [events.attempts.entered(job, i)
                                           for i, job in enumerate(self.jobs)]
        self.held = [min(j.runtime, j.estimate) if kill else j.runtime for j in jobs]
        self.status = [KILLED if kill and j.runtime > j.estimate else FINISHED for j in jobs]
        self.serve = self.serve_until_cut  # type: ignore[method-assign]

    # ------------------------------------------------------------ the loop
    def run(self) -> None:
        matrix = self.matrix
        events = self.events
        while True:
            self.deliver()
            if events is not None and events.next_time() <= self.now:
                events.process(self)
            if self.changed:
                self.arrange()
            rows = list(matrix.rows)
            if not rows and not self.express:
                self.record_slots(0)
                later = self.submits[self.next_job]
                if events is not None and self.waiting:
                    later = min(later, events.next_time())   # a repair may make room
                if later == NEVER:
                    if self.waiting:
                        raise never_starts(self.matrix._policy_name, next(iter(self.waiting)))
                    break
                self.now = max(self.now, later)
                self.last_row = None
                continue
            self.record_slots(len(rows))
            if not self.express and self.resume_after is None and self.jump(rows):
                continue                  # an arrival or event at the boundary it landed on
            self.serve_round(rows)
        self.progress.close(self.done)

    def deliver(self, until: int | None = None) -> None:
        """Every job submitted by now (or ``until``) joins the waiting (or express) queue."""
        submits = self.submits
        now = self.now if until is None else until
        while submits[self.next_job] <= now:
            job = self.jobs[self.next_job]
            self.next_job += 1
            if self.is_express[self.next_job - 1]:
                self.express[job.id] = job
            else:
                self.waiting[job.id] = job
                self.changed = True

    def arrange(self) -> None:
        """The policy's pass at a round boundary; placed jobs leave the queue."""
        matrix = self.matrix
        matrix.now = self.now
        if not self.policy.keeps_guests:
            matrix._clear_guests()
        matrix._drop_empty_rows()
        log = matrix.log
        mark = len(log)
        if self.events is not None:
            self.events.fill(self)          # windows take the columns jobs have left
            matrix._guests_in_service()
        self.policy.arrange(matrix, list(self.waiting.values()), self.now)
        placed = False
        for _, kind, job_id, _ in log[mark:]:
            if kind != PLACE or self.waiting.pop(job_id, None) is None:
                continue
            placed = True
            i = self.index[job_id]
            self.placed[i] = self.now
            self.columns[i] = column_ranges(matrix.mask_of(job_id))
            self.remaining[job_id] = self.held[i] + self.lag
            self.fresh.append(job_id)
            if self.events is not None:
                self.events.placed(self, job_id)
        if len(matrix._mask) != len(self.remaining):
            stray = next(j for j in matrix._mask if j not in self.remaining)
            matrix._fail(stray, "place", "it is not waiting")
        matrix._drop_empty_rows()
        lost, won = matrix._guest_changes() if matrix._guests_before else ((), ())
        if lost or won:
            # guests lost are logged before the pass's changes, guests won after them
            log[mark:mark] = [(self.now, UNGUEST, job, row) for job, row in lost]
            log.extend((self.now, GUEST, job, row) for job, row in won)
        self.changed = False
        if placed or self.events is not None:
            self.record_busy(self.now)      # moves keep processors; ends record themselves

    def serve_round(self, rows: list[Row]) -> None:
        """Serve one round slot by slot (Zhou et al. 2003, §5, Strategy 3; rule 4 of
        docs/reference/policies/gang.md).

        Before each slot, the express jobs waiting take free processors of that
        slot's row, and the slot is lengthened until they complete.  Only when
        some of them do not fit is an express slot served first, at most one
        per round; an idle machine serves an express slot alone.  In a run with
        events, one that ends attempts cuts the round (:meth:`serve_until_cut`); the
        next begins with the row after the one cut.
        """
        if not rows:
            self.deliver()
            if not self.serve_express(rows, 0, 0):
                self.wait_for_event()
                return
            self.rounds += 1
            return
        if self.resume_after is not None:
            rows = self.after_cut(rows)
        submits = self.submits
        try:
            express_open = True           # this round has not served its express slot yet
            for index, row in enumerate(rows):
                if submits[self.next_job] <= self.now:
                    self.deliver()
                members = row.members()     # a job that ended has left its rows
                if not members:
                    continue              # a row emptied mid-round is skipped
                if not self.express:
                    self.serve(row.id, members, self.slot)
                    continue
                chosen = self.pack_into(row)
                if len(chosen) < len(self.express) and express_open:
                    express_open = False
                    self.serve_express(rows, index, len(rows))
                    self.deliver()
                    members = row.members()
                    if not members:
                        continue
                    chosen = self.pack_into(row) if self.express else []
                row_free = self.matrix.usable & ~(row.occupied | row.guest_mask)
                self.serve(row.id, members, self.slot, self.take_express(chosen, row_free))
        except _SlotCut as cut:
            self.resume_after = cut.row_id
        else:
            self.fresh = []               # every row served: every matrix job has started
        self.rounds += 1

    def after_cut(self, rows: list[Row]) -> list[Row]:
        """The round after one an event cut: from the row after the one cut (rows in
        their order; from the first when that row has gone)."""
        ids = [row.id for row in rows]
        cut, self.resume_after = self.resume_after, None
        if cut not in ids:
            return rows
        k = ids.index(cut) + 1
        return rows[k:] + rows[:k]

    def wait_for_event(self) -> None:
        """No express job can start on the idle machine: with events, wait for the next
        (a repair, a window's end, the failure it must not cross) or arrival."""
        later = self.submits[self.next_job]
        if self.events is not None:
            later = min(later, self.events.next_time())
        if self.events is None or later == NEVER:
            raise PolicyError(f"policy {self.matrix._policy_name!r} runs no express "
                              f"job on an idle machine at time {self.now}")
        self.now = max(self.now, later)
        self.last_row = None

    def express_jobs(self, t: int) -> list[Job]:
        """The waiting express jobs the policy may start at ``t``: all of them, or with
        events those that complete before the next event that ends attempts."""
        if self.events is None:
            return list(self.express.values())
        return self.events.usable_express(self, t)

    def pack_into(self, row: Row) -> list[tuple[Job, int]]:
        """The waiting express jobs the policy puts on the free processors of ``row``."""
        free = self.matrix.usable & ~(row.occupied | row.guest_mask)
        return self.policy.pack_express(self.express_jobs(self.now + self.switch), free)

    def serve_express(self, rows: list[Row], first: int, count: int) -> bool:
        """An express slot served now: the express jobs the policy packs onto the whole
        machine, the matrix jobs it lets run on the processors they leave (guests,
        rows from ``first`` on), lasting until its last express job ends.

        While it runs it is counted as one more slot of the round (``count`` + 1).
        Returns whether it ran.
        """
        full = self.matrix.usable
        chosen = self.policy.pack_express(self.express_jobs(self.now + self.switch), full)
        if not chosen:
            return False
        shorts = self.take_express(chosen, full)
        row_id = self.next_express_id
        self.next_express_id -= 1
        self.express_slots += 1
        used = 0
        for _, mask in shorts:
            used |= mask
        guests = self.policy.express_guests(self.matrix, full & ~used, first) if rows else []
        log = self.matrix.log
        for job_id in guests:
            mask = self.matrix.mask_of(job_id) if job_id in self.matrix else -1
            if job_id not in self.remaining or mask & ~full or mask & used:
                raise PolicyError(f"policy {self.matrix._policy_name!r} lets job {job_id} "
                                  f"run in an express slot at time {self.now} on processors "
                                  f"that are taken, or it is not in the matrix")
            used |= mask
            log.append((self.now, GUEST, job_id, row_id))
        self.record_slots(count + 1)
        self.serve(row_id, guests, 0, shorts)
        log.extend((self.now, UNGUEST, job_id, row_id) for job_id in guests
                   if job_id in self.remaining)
        self.record_slots(count)
        return True

    def take_express(self, chosen: list[tuple[Job, int]], free: int,
                     at: int | None = None) -> list[tuple[int, int]]:
        """Check the policy's choice of express jobs (waiting, on distinct processors of
        ``free``) and take them out of the queue, placed at ``at`` (default: now)."""
        placed = []
        used = 0
        when = self.now if at is None else at
        for job, mask in chosen:
            if job.id not in self.express or mask & used or mask & ~free \
                    or mask.bit_count() != job.width:
                raise PolicyError(f"policy {self.matrix._policy_name!r} packed job {job.id} "
                                  f"into a slot at time {when} on processors that are "
                                  f"taken, too few or not free, or it waits for no slot")
            used |= mask
            del self.express[job.id]
            i = self.index[job.id]
            self.placed[i] = when
            self.columns[i] = column_ranges(mask)
            self.remaining[job.id] = self.held[i] + self.lag
            placed.append((job.id, mask))
        return placed

    def serve(self, row_id: int, members: list[int], length: int,
              shorts: list[tuple[int, int]] | None = None) -> None:
        """One slot: overhead, then up to ``length`` seconds of service for the matrix
        jobs ``members``; it ends early when they have all ended, in order of the
        service they had left, then of job id.

        The express jobs ``shorts`` (job id, processors) start with the slot
        (:meth:`serve_with_express`), as do, when express jobs start on arrival,
        the express jobs submitted before the slot ends.  A slot without either, the
        common case, is :meth:`serve_plain`.  Members the slot serves first start at its
        service start: only jobs placed since the last jump or whole round (``fresh``) can.
        """
        service_start = self.now + (self.switch if row_id != self.last_row else 0)
        if self.fresh:
            index, start = self.index, self.start
            for job_id in members:
                i = index[job_id]
                if start[i] < 0:
                    start[i] = service_start
        if shorts or (self.join_on_arrival
                      and self.express_submits[self.next_job] < service_start + length):
            slot_end = self.serve_with_express(row_id, members, length, shorts or [],
                                             service_start)
        else:
            slot_end = self.serve_plain(members, length, service_start)
        self.last_row = row_id
        self.slots_served += 1
        self.now = slot_end

    def serve_plain(self, members: list[int], length: int, service_start: int) -> int:
        """A slot without express jobs from ``service_start``: every member gets up to
        ``length`` seconds of service; those it completes end in order of the service they
        had left, then of job id.  Returns the slot's end."""
        remaining = self.remaining
        lag = self.lag                  # ``remaining`` holds the service to come + lag
        limit = length + lag
        ending = []
        for job_id in members:
            left = remaining[job_id]
            if left <= limit:
                ending.append((left, job_id))
            else:
                remaining[job_id] = left - length
        ending.sort()
        slot_end = service_start + (ending[-1][0] - lag if len(ending) == len(members)
                                    else length)
        for left, job_id in ending:
            self.finish(job_id, service_start + left - lag, in_matrix=True)
        return slot_end

    def serve_until_cut(self, row_id: int, members: list[int], length: int,
                        shorts: list[tuple[int, int]] | None = None) -> None:
        """:meth:`serve` in a run with events: a slot that would still serve a member at
        the next event that ends attempts is cut there (:class:`_SlotCut`; express jobs
        never cross that event, :meth:`express_jobs`)."""
        assert self.events is not None
        service_start = self.now + (self.switch if row_id != self.last_row else 0)
        room = self.events.cut_time() - service_start
        remaining = self.remaining
        if room >= length or all(remaining[job_id] <= room for job_id in members):
            _Simulation.serve(self, row_id, members, length, shorts)
            return
        if room <= 0:                 # the event comes before the slot serves anyone
            self.now = service_start + room
        else:
            _Simulation.serve(self, row_id, members, room, shorts)
        raise _SlotCut(row_id)

    def serve_with_express(self, row_id: int, members: list[int], length: int,
                           shorts: list[tuple[int, int]], service_start: int
                           ) -> int:
        """A slot whose express jobs ``shorts`` start with it at ``service_start``; it is
        lengthened until the last of them completes (§5: "the length of time slot
        is adjusted … such that the short job can complete in a single time
        slot"), the members running on meanwhile.  While a slot runs beyond
        ``length`` (an express slot has ``length`` 0), and from its start when
        express jobs start on arrival, express jobs arriving or waiting join it
        as soon as processors are free for them (:meth:`extend`).

        Returns the slot's end.
        """
        self.settle()
        remaining, index, start = self.remaining, self.index, self.start
        runs = [(service_start, job_id, mask) for job_id, mask in shorts]
        if self.events is not None:
            for job_id, _ in shorts:
                self.events.started_express(self, job_id, service_start)
        base = service_start + (min(length, max(remaining[j] for j in members))
                                if members else 0)
        slot_end = max([base] + [service_start + remaining[j] for _, j, _ in runs])
        full_end = service_start + length
        if self.join_on_arrival:
            slot_end = self.extend(members, runs, service_start, slot_end, full_end)
        elif slot_end > full_end:
            slot_end = self.extend(members, runs, full_end, slot_end, full_end)
        if slot_end > service_start + length and length:
            self.lengthened += 1
        span = slot_end - service_start
        # (time, phase, sequence, kind, job id, mask), kind 0 an end, 1 a join: at one
        # instant the ends of jobs that ran first, then the express jobs joining in the
        # order they joined, each that needs no service ending at once
        events = []
        for job_id in members:
            left = remaining[job_id]
            if left <= span:
                events.append((service_start + left, 0, 0, 0, job_id, 0))
            else:
                remaining[job_id] = left - span
        for sequence, (begin, job_id, mask) in enumerate(runs):
            start[index[job_id]] = begin
            left = remaining[job_id]
            events.append((self.placed[index[job_id]], 1, 2 * sequence, 1, job_id, mask))
            events.append((begin + left, 1 if left == 0 else 0, 2 * sequence + 1, 0, job_id,
                           mask))
        events.sort()
        log = self.matrix.log
        for t, _, _, kind, job_id, mask in events:
            if kind == 1:
                log.append((t, EXPRESS, job_id, row_id))
                self.short_mask |= mask
                self.record_busy(t)
            elif mask:
                log.append((t, LEAVE, job_id, row_id))
                self.short_mask ^= mask
                self.finish(job_id, t, in_matrix=False)
            else:
                self.finish(job_id, t, in_matrix=True)
        return slot_end

    def extend(self, members: list[int], runs: list[tuple[int, int, int]], t: int,
               slot_end: int, full_end: int) -> int:
        """A slot from ``t`` to its end: at every arrival and every end of an
        express job, the express jobs waiting (arrival order) take the processors
        neither the members nor running express jobs hold, and the slot is
        lengthened until they complete too.  ``runs`` (begin, job id,
        processors) gains the jobs that join; returns the slot's end.

        A slot whose members all end before its full length (``full_end``) is
        still open at the instant they end: an express job arriving then joins it,
        as one arriving a second earlier would, instead of waiting for a slot and
        its switch of its own.
        """
        remaining, full = self.remaining, self.matrix.usable
        held = 0
        for job_id in members:
            held |= self.matrix.mask_of(job_id)
        def open_at(moment: int) -> bool:
            """Whether an express job may still join the slot at ``moment``."""
            return moment < slot_end or moment == slot_end < full_end

        while open_at(t):
            self.deliver(t)
            if self.express:
                busy = held
                for begin, job_id, mask in runs:
                    if begin + remaining[job_id] > t:
                        busy |= mask
                chosen = self.policy.pack_express(self.express_jobs(t), full & ~busy)
                instant = False        # a job that needs no service frees its processors now
                for job_id, mask in self.take_express(chosen, full & ~busy, t):
                    if self.events is not None:
                        self.events.started_express(self, job_id, t)
                    runs.append((t, job_id, mask))
                    slot_end = max(slot_end, t + remaining[job_id])
                    instant = instant or remaining[job_id] == 0
                if instant:
                    continue
            later = [begin + remaining[j] for begin, j, _ in runs if begin + remaining[j] > t]
            arrival = self.express_submits[self.next_job]
            if not later and not open_at(arrival):
                break
            t = min(later + [arrival])
        return slot_end

    def finish(self, job_id: int, t: int, in_matrix: bool) -> None:
        del self.remaining[job_id]
        self.end[self.index[job_id]] = t
        self.done += 1
        if in_matrix:
            self.matrix.now = t
            self.matrix._remove(job_id)
            self.changed = True
        self.record_busy(t)
        if self.done >= self.progress.due:
            self.progress.report(self.done)

    def jump(self, rows: list[Row]) -> bool:
        """Skip every whole round before the next end, express arrival or event: between two
        decisions the round repeats exactly (same slots, same overheads, same service per
        job), so the rounds are counted, not served.  A job arriving for the matrix changes
        nothing before the boundary after it (the policy's next pass), so the round it
        arrives in is jumped too.

        A job gets one slot per round in its own row plus one per guest place; the first
        end is the least ceil(remaining / service per round).  The plain jobs are read with
        one ``min`` over the remaining service: a guest counted there with one slot can
        only end later than its true bound, which is taken with the guests.  The jump is
        made from any round boundary without waiting express jobs: jobs the last pass
        placed start in the first slot that serves them (:meth:`start_fresh`); only a first
        slot whose switch overhead differs from the repeated round's (a switch into the
        single row, or none into the first of several) is served the usual way.

        Returns whether the loop must look at the boundary the jump landed on (an arrival
        or event bounded it); otherwise nothing happens there and the round that holds the
        first end is served at once, as is a round that cannot be jumped.
        """
        slot, k, switch = self.slot, len(rows), self.switch
        if switch and (self.last_row == rows[0].id) == (k > 1):
            return False
        duration = k * (switch + slot) if k > 1 else slot
        remaining, lag = self.remaining, self.lag
        rounds = -(-(min(remaining.values()) - lag) // slot) - 1
        bound = rounds + 1            # the rounds an arrival or event allows, if fewer
        arrival = self.submits[self.next_job]
        if arrival != NEVER:          # the round it arrives in, jumped too
            bound = min(bound, -(-(arrival - self.now) // duration))
        event = self.express_submits[self.next_job]
        if self.events is not None:
            event = min(event, self.events.next_time())
        if event != NEVER:            # the rounds before it
            bound = min(bound, (event - self.now) // duration)
        rounds = min(rounds, bound)
        if rounds <= 0:
            return False
        guests = self.guests_by_slots(rows)
        if guests:
            left_of = remaining.__getitem__
            for count, job_ids in guests.items():
                rounds = min(rounds, -(-(min(map(left_of, job_ids)) - lag) // (count * slot))
                             - 1)
            if rounds <= 0:
                return False
        if self.fresh:
            self.start_fresh(rows, switch + slot if k > 1 else 0, switch if k > 1 else 0)
        served = rounds * slot
        self.lag += served
        for count, job_ids in guests.items():
            remaining.update(zip(job_ids, map(sub, map(remaining.__getitem__, job_ids),
                                              repeat((count - 1) * served))))
        if self.events is not None:           # events read the remaining service
            self.settle()
        self.now += rounds * duration
        self.rounds += rounds
        self.slots_served += rounds * k
        self.last_row = rows[-1].id
        return rounds == bound

    def settle(self) -> None:
        """Take the service of the jumps (``lag``) off every job's remaining service: before
        a slot with express jobs (:meth:`serve_with_express` reads the service to come
        itself) and after every jump in a run with events (they read it too)."""
        lag = self.lag
        if lag:
            remaining = self.remaining
            remaining.update(zip(list(remaining), list(map(sub, remaining.values(), repeat(lag)))))
            self.lag = 0

    def guests_by_slots(self, rows: list[Row]) -> dict[int, list[int]]:
        """The jobs that are guests somewhere, by the slots a round gives each (its own
        row's and one per guest place); kept while no row's guests change
        (``Matrix.guests_changed``)."""
        mark = self.matrix.guests_changed
        if self.guest_slots_mark != mark:
            places = list(chain.from_iterable(map(_GUESTS, rows)))
            by_slots: dict[int, list[int]] = {}
            if len(set(places)) == len(places):     # each a guest in one row: two slots
                if places:
                    by_slots[2] = places
            else:
                slots: dict[int, int] = {}
                for job_id in places:
                    slots[job_id] = slots.get(job_id, 1) + 1
                for job_id, count in slots.items():
                    if count in by_slots:
                        by_slots[count].append(job_id)
                    else:
                        by_slots[count] = [job_id]
            self.guest_slots, self.guest_slots_mark = by_slots, mark
        return self.guest_slots

    def start_fresh(self, rows: list[Row], step: int, overhead: int) -> None:
        """The jobs the last pass placed and no slot has served yet start in the first slot
        of the coming round that serves them (row ``r``'s slot serves from
        ``now + r * step + overhead``)."""
        start, index, remaining = self.start, self.index, self.remaining
        for job_id in self.fresh:
            i = index[job_id]
            if start[i] < 0 and job_id in remaining:
                for r, row in enumerate(rows):
                    if job_id in row.own or job_id in row.guests:
                        start[i] = self.now + r * step + overhead
                        break
        self.fresh = []

    # ---------------------------------------------------------- recording
    def record_busy(self, t: int) -> None:
        """Record the processors allocated in the matrix or held by running express jobs."""
        self.busy.record(t, (self.matrix.allocated() | self.short_mask).bit_count())

    def record_slots(self, count: int) -> None:
        """Record the number of slots of the round from now on."""
        self.slots.record(self.now, count)

    def result(self, wall: float) -> Result:
        events = self.events
        if events is not None:
            events.finish_run(self)
        start = np.array(self.start, dtype=np.int64)
        end = np.array(self.end, dtype=np.int64)
        service = np.array(self.held, dtype=np.int64)
        placed = np.array(self.placed, dtype=np.int64)
        submits = np.array(self.submits[:-1], dtype=np.int64)
        left = placed
        extra: dict[str, Any] = {}
        stats: dict[str, Any] = {}
        if events is not None:          # jobs queued again, withdrawn, never placed
            submits = np.concatenate([submits, np.array(events.queue_in, dtype=np.int64)])
            left = np.concatenate([placed[placed >= 0],
                                   np.array(events.queue_out, dtype=np.int64)])
            extra["cancel_after"] = cancel_column(self.workload.jobs)
            stats = dict(events.stats)
            if events.outages:
                extra["outages"] = events.record(self)
        busy_time, busy = self.busy.arrays()
        slots_time, slots = self.slots.arrays()
        log = np.fromiter(chain.from_iterable(self.matrix.log), dtype=np.int64,
                          count=4 * len(self.matrix.log)).reshape(-1, 4)
        trace = TimeSharingTrace(
            slot=self.slot, context_switch=self.switch, service=service, placed=placed,
            columns=tuple(self.columns), slots_time=slots_time, slots_count=slots[:, 0].copy(),
            change_time=log[:, 0].copy(), change_kind=log[:, 1].copy(),
            change_job=log[:, 2].copy(), change_row=log[:, 3].copy(),
            rounds=self.rounds, slots_served=self.slots_served)
        policy = self.policy
        result = assemble(
            self.workload, processors=self.machine, policy=policy.name,
            params=policy.get_params(),
            stats={**policy.statistics(), "rounds": self.rounds,
                   "slots_served": self.slots_served, "express_slots": self.express_slots,
                   "lengthened_slots": self.lengthened, **stats},
            start=start, end=end, status=self.status,
            series=_series(busy_time, busy[:, 0].copy(), submits, left),
            meta=run_meta(self.workload, self.overrun, wall, extra={"engine": TIME_SHARING}),
            suspended=end - start - service, timesharing=trace, **extra)
        if result.outages is not None:     # the failure settings and readings, in metrics.json
            result.meta["outages"] = result.outages.settings
        return result


def _series(busy_time: np.ndarray, busy: np.ndarray, submit: np.ndarray, placed: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Allocated processors and waiting jobs on one time axis.

    The queue is every job submitted and not yet placed in the matrix (or an
    express slot): the paper's waiting queue (§4).  ``submit`` are the times
    jobs entered it (a job queued again enters again), ``placed`` the times they
    left it (placed, or withdrawn).
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
