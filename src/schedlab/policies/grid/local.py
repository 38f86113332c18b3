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

from typing import TYPE_CHECKING

from schedlab.policies.base import check_choice
from schedlab.policies.grid.base import LocalPolicy

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask

#: What the head's reservation minimises over its eligible machines.
RESERVE_BY = ("start", "end")
#: Queue orders of BF_FCFS: arrival, or the meta-scheduler's priority first (§4.3.1).
QUEUE_ORDERS = ("arrival", "priority")


class GridFCFS(LocalPolicy):
    """First come, first served: jobs start in arrival order, each on the fastest machine
    of the cluster with room for it now; the first that cannot start blocks the rest."""

    name = "grid-fcfs"

    def schedule(self, ctx: GridContext) -> None:
        for task in list(ctx.waiting.values()):
            machine = ctx.fastest_fit(task)
            if machine is None:
                return
            ctx.start(task, machine)


class Reservation:
    """The head job's reservation: machine, start time (shadow time), and what is still
    free for other jobs at that time -- CPUs on the machine and copies of the head's
    floating licences in the cluster."""

    __slots__ = ("machine", "spare_copies", "spare_cpus", "start")

    def __init__(self, machine: int, start: int, spare_cpus: int,
                 spare_copies: dict[int, int]) -> None:
        self.machine = machine
        self.start = start
        self.spare_cpus = spare_cpus
        self.spare_copies = spare_copies

    def admits(self, ctx: GridContext, task: GridTask, machine: int, end: int) -> bool:
        """Whether ``task`` on ``machine`` until ``end`` leaves the reservation intact;
        if so, the CPUs and copies it holds past the shadow time are taken from the spare."""
        if end <= self.start:
            return True
        cpus = 0
        if machine == self.machine:
            if ctx.exclusive:
                return False
            cpus = task.width
            if cpus > self.spare_cpus:
                return False
        feature = ctx.platform.feature
        held = [l for l in task.licences if l in self.spare_copies and not feature[l, machine]]
        if any(self.spare_copies[l] < 1 for l in held):
            return False
        self.spare_cpus -= cpus
        for l in held:
            self.spare_copies[l] -= 1
        return True


def reserve(ctx: GridContext, head: GridTask, by: str = "start") -> Reservation:
    """The head's reservation: over its eligible machines, fastest first, the one where it
    can start earliest (``by="start"``) or end earliest (``by="end"``), assuming running
    jobs end at their expected ends and nothing else starts.

    On machine ``m`` the start is the later of (a) when enough CPUs of ``m``
    are free (exclusive: when ``m`` is idle) and (b) for each floating
    licence the head needs there, when a copy is free in the cluster.
    """
    running = sorted(ctx.running.values(), key=ctx.expected_end)
    feature = ctx.platform.feature
    copy_free: dict[int, int] = {}
    for l in head.licences:
        if ctx.free_copies[l] >= 1:
            copy_free[l] = ctx.now
        else:
            copy_free[l] = next((ctx.expected_end(t) for t in running
                                 if l in t.licences and not feature[l, t.machine]), ctx.now)
    by_machine: dict[int, list[GridTask]] = {}
    for t in running:
        by_machine.setdefault(t.machine, []).append(t)
    best: tuple[int, int, int] | None = None
    for k in ctx.candidates(head):
        k = int(k)
        start = _cpus_free_at(ctx, head, k, by_machine.get(k, []))
        for l in head.licences:
            if not feature[l, k]:
                start = max(start, copy_free[l])
        key = start if by == "start" else start + ctx.duration(head, k)
        if best is None or key < best[0]:
            best = (key, start, k)
    assert best is not None, "a dispatched job has an eligible machine in its cluster"
    _, start, machine = best
    holding = [t for t in running if ctx.expected_end(t) > start]
    spare_cpus = int(ctx.platform.cpus[machine]) - head.width \
        - sum(t.width for t in holding if t.machine == machine)
    spare_copies = {l: int(ctx.platform.copies[ctx.cluster, l]) - 1
                    - sum(1 for t in holding if l in t.licences and not feature[l, t.machine])
                    for l in head.licences if not feature[l, machine]}
    return Reservation(machine, start, spare_cpus, spare_copies)


def _cpus_free_at(ctx: GridContext, head: GridTask, machine: int,
                  on_machine: list[GridTask]) -> int:
    """When ``machine`` has room for ``head`` by CPUs (exclusive: is idle), its running
    tasks ``on_machine`` (earliest expected end first) ending as expected, and not before
    it is back in service (:meth:`GridContext.back_at`: a failed or drained machine)."""
    back = ctx.back_at(machine)
    if ctx.exclusive:
        return max(max((ctx.expected_end(t) for t in on_machine), default=ctx.now), back)
    free = int(ctx.free_cpus[machine]) if back == ctx.now else \
        int(ctx.platform.cpus[machine]) - sum(t.width for t in on_machine)
    when = ctx.now
    for t in on_machine:
        if free >= head.width:
            break
        free += t.width
        when = ctx.expected_end(t)
    return max(when, back)


class BackfillingFCFS(LocalPolicy):
    """BF_FCFS: EASY backfilling on heterogeneous machines with licences (thesis §4.1).

    Jobs in arrival order start on the fastest machine with room; the first
    that cannot start gets a reservation (:func:`reserve`); later jobs start
    out of order on the fastest machine where they fit now and leave that
    reservation intact (they end by the shadow time, or use only CPUs of the
    reserved machine and licence copies the head does not need then).

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

    def schedule(self, ctx: GridContext) -> None:
        queue = list(ctx.waiting.values())
        if self.order == "priority":
            queue.sort(key=lambda task: -task.priority)
        backfill(ctx, queue, self.reserve_by)


def backfill(ctx: GridContext, queue: list[GridTask], by: str = "start") -> GridTask | None:
    """One EASY pass over ``queue`` in its order; returns the job that got the reservation
    (None when every job that could be tried started).

    Jobs start on the fastest machine with room until one cannot (the head):
    it gets a reservation (:func:`reserve`, ``by`` as there), and every later
    job starts on the fastest machine with room where it leaves that
    reservation intact.  BF_FCFS runs it on the arrival order, Flexible
    Backfilling on the priority order.
    """
    reservation = head = None
    for task in queue:
        if reservation is None:
            machine = ctx.fastest_fit(task)
            if machine is not None:
                ctx.start(task, machine)
            else:
                head, reservation = task, reserve(ctx, task, by)
            continue
        for k in ctx.machines_with_room(task).tolist():
            if reservation.admits(ctx, task, k, ctx.now + ctx.duration(task, k)):
                ctx.start(task, k)
                break
    return head
