"""Local baselines of the grid: FCFS and EASY backfilling on heterogeneous machines.

Pasquali's thesis compares its Flexible Backfilling with "FCFS and with
BF_FCFS, which is an implementation of EASY backfilling" adapted to "an
heterogeneous architecture ... jobs ... may require different
software/hardware resources" (§4.1).  Both scan a cluster's machines by
power, fastest first.  How EASY's reservation (shadow time) is computed on
heterogeneous machines with licences is our reading, documented in
docs/reference/policies/grid.md ("BF_FCFS").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import compress
from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np

from schedlab.engine.grid import positions
from schedlab.policies.base import check_choice
from schedlab.policies.grid.base import LocalPolicy

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask
    from schedlab.engine.outages import OutageEvent

#: What the head's reservation minimises over its eligible machines.
RESERVE_BY = ("start", "end")
#: Queue orders of BF_FCFS: arrival, or the meta-scheduler's priority first (§4.3.1).
QUEUE_ORDERS = ("arrival", "priority")
#: The shadow time of :func:`first_fits` without a reservation: later than any end.
_NO_SHADOW = 2**63 - 1


class GridFCFS(LocalPolicy):
    """First come, first served: jobs start in arrival order, each on the fastest machine
    of the cluster with room for it now; the first that cannot start blocks the rest."""

    name = "grid-fcfs"

    def schedule(self, ctx: GridContext) -> None:
        waiting = ctx.waiting
        while waiting:
            task = next(iter(waiting.values()))
            machine = ctx.fastest_fit(task)
            if machine is None:
                return
            ctx.start(task, machine)


class InOrder(Sequence["GridTask"]):
    """``tasks`` in the order of ``order`` (indices into ``tasks``; the run's tasks and
    queue positions, :meth:`GridContext.queue_positions`), read job by job: a pass
    touches only the jobs it tries (the first ones, and those that start), not a list
    of the whole queue rebuilt at every event."""

    __slots__ = ("order", "tasks")

    def __init__(self, tasks: Sequence[GridTask], order: np.ndarray) -> None:
        self.tasks = tasks
        self.order = order

    def __len__(self) -> int:
        return len(self.order)

    @overload
    def __getitem__(self, i: int) -> GridTask: ...
    @overload
    def __getitem__(self, i: slice) -> list[GridTask]: ...

    def __getitem__(self, i: int | slice) -> GridTask | list[GridTask]:
        if isinstance(i, slice):
            return [self.tasks[k] for k in self.order[i].tolist()]
        return self.tasks[int(self.order[i])]


class Reservation:
    """The head job's reservation: machine, start time (shadow time), and what is still
    free for other jobs at that time -- CPUs on the machine and copies of the head's
    floating licences in the cluster: ``spare[l]`` for each licence ``l`` that
    ``tracked[l]`` (arrays over the platform's licences, as the compiled pass reads and
    leaves them: :func:`.easy_kernels.admissions`)."""

    __slots__ = ("machine", "spare", "spare_cpus", "start", "tracked")

    def __init__(self, machine: int, start: int, spare_cpus: int, spare: np.ndarray,
                 tracked: np.ndarray) -> None:
        self.machine = machine
        self.start = start
        self.spare_cpus = spare_cpus
        self.spare = spare
        self.tracked = tracked

    @classmethod
    def of_copies(cls, machine: int, start: int, spare_cpus: int,
                  spare_copies: dict[int, int], licences: int) -> Reservation:
        """The reservation whose spare copies are ``spare_copies`` (licence: copies, the
        tracked licences), on a platform of ``licences`` licences."""
        spare = np.zeros(licences, dtype=np.int64)
        tracked = np.zeros(licences, dtype=bool)
        for l, copies in spare_copies.items():
            tracked[l], spare[l] = True, copies
        return cls(machine, start, spare_cpus, spare, tracked)

    def first_admitting(self, ctx: GridContext, task: GridTask, room: np.ndarray) -> int | None:
        """The first machine of ``room`` (machines where ``task`` can start now, in the
        order to try) where it leaves the reservation intact -- it ends by the shadow time,
        or what it holds past it is spare: CPUs on the reserved machine (never under
        exclusive allocation) and a copy of each of the head's floating licences it
        floats there.  What the chosen start holds past the shadow time is taken from the
        spare.  None: no machine of ``room`` admits it.  One array test over ``room``."""
        if not room.size:
            return None
        ends = ctx.now + ctx.durations(task, room)
        admitted = ends <= self.start
        on_reserved = room == self.machine
        cpus_spare = not ctx.exclusive and task.width <= self.spare_cpus
        holds_past = ~on_reserved if not cpus_spare else np.ones(len(room), dtype=bool)
        feature = ctx.platform.feature
        spare, tracked = self.spare, self.tracked
        lacking = [l for l in task.licences if tracked[l] and spare[l] < 1]
        if lacking:
            holds_past &= feature[lacking][:, room].all(axis=0)
        admitted |= holds_past
        first = int(admitted.argmax())
        if not admitted[first]:
            return None
        machine = int(room[first])
        if ends[first] > self.start:
            if machine == self.machine:
                self.spare_cpus -= task.width
            for l in task.licences:
                if tracked[l] and not feature[l, machine]:
                    spare[l] -= 1
        return machine


class Kept(NamedTuple):
    """The job that got a pass's reservation, and that reservation as the pass's starts
    left it (:func:`backfill`)."""

    head: GridTask
    reservation: Reservation

    def still_holds(self, ctx: GridContext, freed: bool) -> bool:
        """Whether a pass now may try only the jobs submitted since the pass that made
        this reservation, behind it, and keep it.

        True when nothing may have freed CPUs or licence copies since (``freed``
        False: no end, no outage; :class:`SinceLastPass`), no running job is
        past its estimate (``overrun="kill"``) and times are eq. 3.9's
        (:meth:`GridContext.times_from_columns`: no failures, no windows, no
        resumption), and the head is still queued.  Then the head still
        cannot start; the reservation computed again would be this one (the
        jobs started behind it end by the shadow time or hold only what was
        spare, and the running jobs' expected ends have not moved); and every
        job the last pass refused behind it would be refused again, whatever
        starts before it: CPUs and copies free, and the spare, are at most
        what they were then, and a job started now ends later.  The new jobs
        entered the queue at its back, behind the head."""
        return (not freed and ctx.overrun == "kill" and ctx.times_from_columns()
                and self.head.id in ctx.waiting)


class SinceLastPass:
    """What happened in a cluster since its policy's last pass, as its hooks hear it: the
    jobs submitted (:attr:`fresh`, workload positions, in queue order) and whether
    anything may have freed CPUs or licence copies (:attr:`freed`: a job end, an outage,
    or no pass yet).  A pass after submissions alone need try only the new jobs when the
    others could not start at the last pass (grid-edf; BF_FCFS and Flexible Backfilling
    behind a :class:`Kept` reservation)."""

    __slots__ = ("freed", "fresh")

    def __init__(self) -> None:
        self.fresh: list[int] = []
        self.freed = True

    def submitted(self, task: GridTask) -> None:
        self.fresh.append(task.index)

    def ended(self) -> None:
        self.freed = True

    def take(self) -> tuple[list[int], bool]:
        """:attr:`fresh` and :attr:`freed`, and start afresh for the next pass."""
        fresh, freed = self.fresh, self.freed
        self.fresh, self.freed = [], False
        return fresh, freed



class TracksSinceLastPass(LocalPolicy):
    """A local policy whose hooks keep :class:`SinceLastPass` (``_since``) for its passes:
    a submission adds the job, an end or an outage marks the cluster freed."""

    def __init__(self) -> None:
        self._since = SinceLastPass()

    def on_submit(self, ctx: GridContext, task: GridTask) -> None:
        self._since.submitted(task)

    def on_finish(self, ctx: GridContext, task: GridTask) -> None:
        self._since.ended()

    def on_outage(self, ctx: GridContext, event: OutageEvent) -> None:
        self._since.ended()

def reserve(ctx: GridContext, head: GridTask, by: str = "start") -> Reservation:
    """The head's reservation: over its eligible machines, fastest first, the one where it
    can start earliest (``by="start"``) or end earliest (``by="end"``), assuming running
    jobs end at their expected ends (:meth:`GridContext.expected_end`) and nothing else
    starts; the first such machine on a tie.

    On machine ``m`` the start is the latest of (a) when enough CPUs of ``m``
    are free (exclusive: when ``m`` is idle; :func:`cpus_free_at`), (b) for
    each floating licence the head needs there, when a copy is free in the
    cluster (now, or the earliest expected end of a job holding one), and (c)
    when ``m`` is back in service (:meth:`GridContext.back_at`: a failed or
    drained machine); then, if the head would run into a window known to take
    ``m`` (:attr:`GridContext.windows_ahead`), the end of that window
    (:meth:`GridContext.clear_start`).  Computed over arrays of the running
    jobs: in one compiled call (:func:`reserve_and_fit`, no job behind) while every
    machine is in service and no window is announced, else with numpy.
    """
    if not ctx.windows_ahead and not len(ctx.out_of_service):
        return reserve_and_fit(ctx, [head], 0, by, np.array([head.index]))
    now = ctx.now
    running, machines, widths, ends = ctx.running_columns()
    feature = ctx.platform.feature
    licences = list(head.licences)
    # floats[j, i]: running job j holds a floating copy of the head's licence licences[i]
    floats = np.zeros((len(ends), len(licences)), dtype=bool)
    copy_free = np.full(len(licences), now, dtype=np.int64)
    if licences and len(ends):
        floats = ctx.columns.needs[running][:, licences] & ~feature[licences][:, machines].T
        for i, l in enumerate(licences):
            if ctx.free_copies[l] < 1 and floats[:, i].any():
                copy_free[i] = ends[floats[:, i]].min()
    candidates = ctx.candidates(head)
    start = cpus_free_at(ctx, head.width, candidates, machines, widths, ends)
    if licences:
        floating_there = ~feature[licences][:, candidates]
        start = np.maximum(start, np.where(floating_there, copy_free[:, None], now).max(axis=0))
    if ctx.windows_ahead:
        durations = ctx.durations(head, candidates)
        start = np.array([ctx.clear_start(k, s, d) for k, s, d in
                          zip(candidates.tolist(), start.tolist(), durations.tolist())],
                         dtype=np.int64)
    key = start if by == "start" else start + ctx.durations(head, candidates)
    best = int(key.argmin())
    machine, when = int(candidates[best]), int(start[best])
    holding = ends > when
    spare_cpus = int(ctx.platform.cpus[machine]) - head.width \
        - int(widths[holding & (machines == machine)].sum())
    held = floats[holding].sum(axis=0)
    spare_copies = {l: int(ctx.platform.copies[ctx.cluster, l]) - 1 - int(held[i])
                    for i, l in enumerate(licences) if not feature[l, machine]}
    return Reservation.of_copies(machine, when, spare_cpus, spare_copies,
                                 len(ctx.platform.licence_names))


def cpus_free_at(ctx: GridContext, width: int, candidates: np.ndarray, machines: np.ndarray,
                 widths: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per machine of ``candidates``, when it has ``width`` CPUs free (exclusive: is idle)
    and is in service (:meth:`GridContext.back_at`), the running jobs (on ``machines``,
    ``widths`` CPUs each, expected at ``ends``) ending in order of expected end (jobs
    ending together free their CPUs at the same time, so their order does not matter).
    A machine out of service counts its CPUs less its jobs' as free."""
    now = ctx.now
    when = np.full(len(ctx.free_cpus), now, dtype=np.int64)
    if len(ends):
        order = np.lexsort((ends, machines))        # by machine, then expected end
        on, end = machines[order], ends[order]
        first = np.flatnonzero(np.r_[True, on[1:] != on[:-1]])
        last = np.r_[first[1:], len(on)] - 1
        if ctx.exclusive:
            when[on[last]] = end[last]
        else:
            free = ctx.free_cpus.astype(np.int64)
            back = _back_at(ctx, candidates)
            if back is not None:
                away = candidates[back > now]
                used = np.bincount(machines, weights=widths, minlength=len(free))
                free[away] = ctx.platform.cpus[away] - used[away].astype(np.int64)
            # free CPUs after each job of the machine has ended, in order
            freed = np.cumsum(widths[order])
            freed -= np.repeat(freed[first] - widths[order][first], last - first + 1)
            enough = free[on] + freed >= width
            # the job whose end frees enough (else the machine's last), unless enough now
            position = np.where(enough, np.arange(len(on)), len(on))
            reached = np.minimum(np.minimum.reduceat(position, first), last)
            short = free[on[first]] < width
            when[on[first][short]] = end[reached[short]]
    result: np.ndarray = when[candidates]
    back = _back_at(ctx, candidates)
    if back is not None:
        result = np.maximum(result, back)
    return result


def _back_at(ctx: GridContext, candidates: np.ndarray) -> np.ndarray | None:
    """When each of ``candidates`` is back in service; None in a run without outages."""
    if not len(ctx.out_of_service):
        return None
    return np.array([ctx.back_at(int(k)) for k in candidates.tolist()], dtype=np.int64)


class BackfillingFCFS(TracksSinceLastPass):
    """BF_FCFS: EASY backfilling on heterogeneous machines with licences (thesis §4.1).

    Jobs in arrival order start on the fastest machine with room; the first
    that cannot start gets a reservation (:func:`reserve`); later jobs start
    out of order on the fastest machine where they fit now and leave that
    reservation intact (they end by the shadow time, or use only CPUs of the
    reserved machine and licence copies the head does not need then).  No job
    starts on a machine where it would run into a maintenance window known
    from its notice, by its estimate (docs/reference/events.md, "Grid runs").

    ``reserve_by`` -- the head's machine: earliest ``start`` (default) or
    earliest ``end`` (start plus its scaled estimate there).
    ``order`` -- the queue in ``arrival`` order (default), or by the priority
    the meta-scheduler gave each job, highest first, then arrival (thesis
    §4.3.1 "MS Heuristics": "higher the job priority is, higher the position
    of the job in LSs' queues is").
    """

    name = "bf-fcfs"

    def __init__(self, reserve_by: str = "start", order: str = "arrival") -> None:
        check_choice(self.name, "reserve_by", reserve_by, RESERVE_BY)
        check_choice(self.name, "order", order, QUEUE_ORDERS)
        self.reserve_by = reserve_by
        self.order = order
        super().__init__()
        self._kept: Kept | None = None

    def schedule(self, ctx: GridContext) -> None:
        """One EASY pass (:func:`backfill`).  In arrival order, a pass after submissions
        alone tries only the new jobs, behind the last pass's reservation, when that
        reservation still holds (:meth:`Kept.still_holds`)."""
        fresh, freed = self._since.take()
        kept, self._kept = self._kept, None
        if self.order == "priority":
            queue = sorted(ctx.waiting.values(), key=lambda task: -task.priority)
            backfill(ctx, queue, self.reserve_by)
            return
        if kept is not None and kept.still_holds(ctx, freed):
            try_behind(ctx, kept, fresh)
            self._kept = kept
            return
        at = ctx.queue_positions()
        self._kept = backfill(ctx, InOrder(ctx.tasks, at), self.reserve_by, at)


def try_behind(ctx: GridContext, kept: Kept, fresh: Sequence[int]) -> None:
    """Start the jobs at workload positions ``fresh`` (in that order) behind ``kept``'s
    reservation (:func:`first_fits`), which they leave as their starts leave it.  A job
    with no machine with room now (:meth:`GridContext.machines_with_room`, most often
    refused at once for want of a licence copy) is passed over without the compiled
    call: it could not start, and starts only take."""
    tasks = ctx.tasks
    fresh = [i for i in fresh if ctx.machines_with_room(tasks[i]).size]
    if fresh:
        later = np.array(fresh, dtype=np.intp)
        first_fits(ctx, ctx.tasks, later, later, kept.reservation)


def backfill(ctx: GridContext, queue: Sequence[GridTask], by: str = "start",
             at: np.ndarray | None = None) -> Kept | None:
    """One EASY pass over ``queue`` in its order; returns the job that got the reservation
    and the reservation as the pass's starts leave it (None when every job that could be
    tried started).

    Jobs start on the fastest machine with room until one cannot (the head):
    it gets a reservation (:func:`reserve`, ``by`` as there), and every later
    job starts on the fastest machine with room where it leaves that
    reservation intact.  BF_FCFS runs it on the arrival order, Flexible
    Backfilling on the priority order.  The jobs that cannot start now by
    width or licence copies (:meth:`GridContext.may_start`, one array test
    over the queue) are passed over without a search: a long queue behind a
    scarce licence costs little.  ``at``: the queue's workload positions
    (:func:`~schedlab.engine.grid.positions`), when the caller has them.

    With maintenance windows announced (:attr:`GridContext.windows_ahead`),
    a job starts only on a machine where it ends by its estimate before the
    next window taking that machine (:meth:`GridContext.clear_of_windows`),
    and the head's reservation is placed clear of them (:func:`reserve`).
    Without windows, when the queue's times are eq. 3.9's
    (:meth:`GridContext.times_from_columns`: no failures, no resumption), the
    jobs behind the head are tried in one compiled call (:func:`first_fits`),
    which makes the queue test itself as jobs start.
    """
    at = positions(queue) if at is None else at
    ahead = bool(ctx.windows_ahead)
    compiled = not ahead and ctx.times_from_columns()
    may = None if compiled else ctx.may_start(at).tolist()
    for position, task in enumerate(queue):
        machine = (None if may is not None and not may[position] else
                   _first(_clear_room(ctx, task)) if ahead else ctx.fastest_fit(task))
        if machine is None:
            break
        ctx.start(task, machine)
    else:
        return None
    head = queue[position]
    if may is None:
        return Kept(head, reserve_and_fit(ctx, queue, position, by, at))
    reservation = reserve(ctx, head, by)
    for task in compress(queue[position + 1:], may[position + 1:]):
        room = _clear_room(ctx, task) if ahead else ctx.machines_with_room(task)
        machine = reservation.first_admitting(ctx, task, room)
        if machine is not None:
            ctx.start(task, machine)
    return Kept(head, reservation)


def reserve_and_fit(ctx: GridContext, queue: Sequence[GridTask], position: int, by: str,
                    at: np.ndarray) -> Reservation:
    """:func:`reserve` for the head ``queue[position]`` (``by`` as there), then
    :func:`first_fits` of the jobs behind it (``at``: the queue's workload positions), in
    one compiled call (:func:`.easy_kernels.easy_pass`); returns the reservation as the
    starts leave it: one call's fixed cost, and no Python between the two.  For a
    cluster with every machine in service and no window announced; with jobs behind the
    head, for a pass whose times are eq. 3.9's (:meth:`GridContext.times_from_columns`,
    which rules out failures).  :func:`reserve` calls it with the head alone."""
    from schedlab.policies.grid.easy_kernels import easy_pass

    platform, columns, head = ctx.platform, ctx.columns, queue[position]
    candidates = ctx.candidates(head)
    extra = ctx.durations(head, candidates) if by == "end" else \
        np.zeros(len(candidates), dtype=np.int64)
    behind = at[position + 1:].copy()        # writable, as every caller's: one signature
    found, spare, tracked, chosen = easy_pass(
        ctx.now, head.width, ctx.exclusive, candidates, extra, ctx.free_cpus, platform.cpus,
        *ctx.running_by_position(), columns.needs, np.array(head.licences, dtype=np.int64),
        platform.feature, ctx.free_copies, platform.copies[ctx.cluster], behind,
        columns.estimate_work, columns.eligible, ctx.by_power, platform.rating, ctx.jobs_on)
    machine, start, spare_cpus = found.tolist()
    _start_chosen(ctx, queue, range(position + 1, len(queue)), chosen)
    return Reservation(machine, start, spare_cpus, spare, tracked)


def _start_chosen(ctx: GridContext, queue: Sequence[GridTask],
                  later: Sequence[int] | np.ndarray, chosen: np.ndarray) -> None:
    """Start each job ``queue[later[q]]`` on machine ``chosen[q]`` where that is not -1, in
    order: the starts a compiled admission chose."""
    for q in (chosen >= 0).nonzero()[0].tolist():
        ctx.start(queue[int(later[q])], int(chosen[q]))


def first_fits(ctx: GridContext, queue: Sequence[GridTask], later: np.ndarray, at: np.ndarray,
               reservation: Reservation | None = None) -> None:
    """Start each job ``queue[i]`` for ``i`` in ``later`` (in that order; at workload
    positions ``at``) on the first machine with room (fastest first), where it leaves
    ``reservation`` intact if there is one -- the loop of :func:`backfill` with
    :meth:`Reservation.first_admitting`, EDF's with :meth:`GridContext.fastest_fit` --
    in one compiled call (:func:`.easy_kernels.admissions`), which passes over the jobs
    :meth:`GridContext.may_start` would refuse as jobs start.  For jobs whose times are
    eq. 3.9's (:meth:`GridContext.times_from_columns`); only the jobs that start are
    touched as Python objects.  ``reservation`` is left as the starts leave it (what they
    hold past the shadow time taken from its spare), as :meth:`Reservation.first_admitting`
    leaves it."""
    from schedlab.policies.grid.easy_kernels import admissions

    platform, columns = ctx.platform, ctx.columns
    if reservation is None:       # no job ends past a shadow time that never comes
        machine, shadow, spare_cpus = -1, _NO_SHADOW, 0
        spare, tracked = _untracked(len(platform.licence_names))
    else:
        machine, shadow, spare_cpus = reservation.machine, reservation.start, \
            reservation.spare_cpus
        spare, tracked = reservation.spare, reservation.tracked
    chosen, spare_cpus = admissions(
        ctx.now, ctx.exclusive, at, columns.width.take(at), columns.estimate_work.take(at),
        columns.eligible, columns.needs, ctx.by_power, platform.rating, ctx.free_cpus,
        ctx.jobs_on, ctx.free_copies, platform.feature, machine, shadow, spare_cpus, spare,
        tracked)
    if reservation is not None:
        reservation.spare_cpus = spare_cpus
    _start_chosen(ctx, queue, later, chosen)


@cache
def _untracked(licences: int) -> tuple[np.ndarray, np.ndarray]:
    """The spare copies and the tracked licences of no reservation, for ``licences``
    licences: none tracked, so :func:`.easy_kernels.admissions` never writes the spare;
    made once per size."""
    return np.zeros(licences, dtype=np.int64), np.zeros(licences, dtype=bool)


def _clear_room(ctx: GridContext, task: GridTask) -> np.ndarray:
    """The machines ``task`` can start on now and leave, by its estimate, before a
    window known to take them, fastest first."""
    room = ctx.machines_with_room(task)
    clear: np.ndarray = room[ctx.clear_of_windows(task, room)]
    return clear


def _first(machines: np.ndarray) -> int | None:
    return int(machines[0]) if machines.size else None
