"""EG-EDF with Tabu search: a schedule-based local policy (Pasquali thesis §5.2, after
Klusáček and Rudová).

Unlike the queue-based policies of :mod:`schedlab.policies.grid.local`, this
one keeps a *plan*: every queued job of the cluster has a machine and a
start time.  Each cluster's plan is built incrementally:

* **EG-EDF** (§5.2.1): a new job goes into the *earliest gap* of the plan
  able to hold it, on the machine whose insertion has the highest
  ``weight`` (makespan and non-delayed-job terms); when no machine has a
  gap, it is inserted on every machine in *earliest deadline first* order
  in turn, and the best by the same weight is kept;
* **Tabu search** (§5.2.2): the last delayed job of the machine with the
  most delayed jobs is moved to an earlier gap if that raises the weight,
  and put on a tabu list so that it is not picked again;
* **compression**: when a job ends before its expected end (or runs past
  it), the plan is rebuilt in order of planned start, each job at its
  earliest fit, so that no job moves later (only resources were freed);
* jobs whose planned start is now are started through the GridContext, and
  the policy asks for a wake-up at the next planned start.

The plan's resources are step functions of time (:class:`~schedlab.engine.profile.Profile`):
free CPUs per machine (exclusive allocation: one unit per machine) and free
copies per floating licence of the cluster.  Times are in each machine's
own time: a job's duration on machine ``k`` is its estimate scaled by
eq. 3.9 (``ctx.duration``), so gaps are compared across machine speeds by
what the job would need there.  The readings where the thesis is silent or
garbled are listed in docs/reference/policies/grid.md ("EG-EDF with Tabu search").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.platform.model import time_on_machine
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.grid.base import LocalPolicy

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask
    from schedlab.engine.outages import OutageEvent

#: The terms of the weight function (§5.2.1): both (the thesis), or one of them.
OBJECTIVES = ("weight", "deadline", "makespan")
#: The denominator of the non-delayed term (garbled in the thesis): before or after.
DEADLINE_BASES = ("old", "new")
#: Between insertions of equal weight: the earlier end first, or the earlier start.
TIES = ("end", "start")
#: How two insertions of a job compare, the smaller first: minus its weight, the two
#: times of :meth:`EarliestGapEDF._tie`, the machine's rank by power.
InsertionKey = tuple[float, int, int, int]
_NEVER = float("inf")


@dataclass(eq=False, slots=True)
class Slot:
    """A planned job: its machine and start, and its expected end there (eq. 3.9)."""

    task: GridTask
    machine: int
    start: int
    end: int

    @property
    def late(self) -> bool:
        """Planned to end after its deadline."""
        deadline = self.task.deadline
        return deadline is not None and self.end > deadline

    @property
    def on_time(self) -> bool:
        """A job with a deadline planned to end by it (the thesis' "non-delayed")."""
        deadline = self.task.deadline
        return deadline is not None and self.end <= deadline


def overdue_end(task: GridTask, now: int) -> int:
    """When a job running past its expected end is assumed to end (our reading): one more
    scaled estimate later, and so on -- the end of the first whole estimate period after
    ``now`` counted from its start."""
    span = max(task.expected_end - task.start, 1)
    return task.start + span * ((now - task.start) // span + 1)


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Time spans ``(start, end)`` joined where they overlap or touch, by start."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def outside(start: int, end: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside the disjoint ``spans`` (by start), in order."""
    parts = []
    for begin, until in spans:
        if begin > start:
            parts.append((start, min(begin, end)))
        start = max(start, until)
        if start >= end:
            return parts
    return [*parts, (start, end)]


def deadline_key(task: GridTask) -> float:
    """EDF order: the deadline; a job without one after every job with one."""
    return _NEVER if task.deadline is None else task.deadline


class Plan:
    """One cluster's schedule: running jobs until their expected ends, and a slot per
    queued job; resources as profiles of free CPUs (per machine) and free copies (per
    floating licence of the cluster)."""

    def __init__(self, ctx: GridContext) -> None:
        self.ctx = ctx
        self.exclusive = ctx.exclusive
        self.slots: dict[int, Slot] = {}
        self.on_machine: dict[int, list[Slot]] = {int(k): [] for k in ctx.machines}
        self.planned_end = dict.fromkeys(self.on_machine, 0)
        self._durations: dict[int, tuple[list[int], np.ndarray]] = {}
        self.rebuild_resources()

    # ------------------------------------------------------------ resources
    def rebuild_resources(self) -> None:
        """Fresh profiles from ``now``: running jobs only (planned slots are dropped from
        the profiles; :meth:`compress` places them again)."""
        ctx = self.ctx
        platform = ctx.platform
        now = ctx.now
        self.machine_free = {k: Profile(1 if self.exclusive else int(platform.cpus[k]), now)
                             for k in self.on_machine}
        self.copies_free = {int(l): Profile(int(c), now)
                            for l, c in enumerate(platform.copies[ctx.cluster]) if c > 0}
        self.running_end = dict.fromkeys(self.on_machine, now)
        self.overdue_until: dict[int, int] = {}
        # free_from[w, k] <= the first time from now with w CPUs free on machine k: taking
        # resources keeps it a lower bound, giving them back lowers it (_give), and
        # first_free makes it exact.  Tabu search skips a machine by it (_move).
        widest = max((profile.capacity for profile in self.machine_free.values()), default=1)
        self.free_from = np.full((widest + 1, len(platform.rating)), now, np.int64)
        # A machine out of service (docs/reference/events.md, "Grid runs") is planned full
        # until it is back, and one a window known from its notice will take, full during
        # the window; its running jobs (a drained machine's) hold it outside those times.
        blocked: dict[int, list[tuple[int, int]]] = {}
        for k in ctx.out_of_service.tolist():
            blocked[k] = [(now, ctx.back_at(k))]
            self.running_end[k] = blocked[k][0][1]
        for k, start, end in ctx.windows_ahead:
            blocked.setdefault(k, []).append((start, end))
        for k, spans in blocked.items():
            spans[:] = merged(spans)
            for start, end in spans:
                self.machine_free[k].reserve(start, end - start, self.machine_free[k].capacity)
        for task in ctx.running.values():
            end = task.expected_end
            if end <= now:                  # past its estimate (overrun="extend")
                end = self.overdue_until[task.id] = overdue_end(task, now)
            machine = task.machine
            if machine in blocked:
                for start, until in outside(now, end, blocked[machine]):
                    self.machine_free[machine].reserve(start, until - start, self.units(task))
                for l in self.held(task, machine):
                    self.copies_free[l].reserve(now, end - now, 1)
            else:
                self._take(task, machine, now, end - now)
            self.running_end[machine] = max(self.running_end[machine], end)

    def advance(self, now: int) -> None:
        """Forget the past: every profile starts at ``now``."""
        for profile in self.machine_free.values():
            profile.discard_before(now)
        for profile in self.copies_free.values():
            profile.discard_before(now)

    def duration(self, task: GridTask, machine: int) -> int:
        """``ctx.duration(task, machine)`` (:meth:`durations`)."""
        return self.durations(task)[machine]

    def durations(self, task: GridTask) -> list[int]:
        """``ctx.duration(task, k)`` for every machine ``k``, computed at once and kept
        while the job waits (its estimate does not change then)."""
        return self._rows(task)[0]

    def duration_array(self, task: GridTask) -> np.ndarray:
        """:meth:`durations` as a numpy array (for a filter over many machines at once)."""
        return self._rows(task)[1]

    def _rows(self, task: GridTask) -> tuple[list[int], np.ndarray]:
        rows = self._durations.get(task.id)
        if rows is None:
            ctx = self.ctx
            if ctx.lengthens_runs:          # checkpoint writes and restarts: the engine's
                array = np.array([ctx.duration(task, k)
                                  for k in range(len(ctx.platform.rating))], np.int64)
            else:
                array = time_on_machine(task.estimate_left, task.rating, ctx.platform.rating)
            rows = self._durations[task.id] = (array.tolist(), array)
        return rows

    def held(self, task: GridTask, machine: int) -> list[int]:
        """The floating licences ``task`` holds a copy of on ``machine`` (not features)."""
        feature = self.ctx.platform.feature
        return [l for l in task.licences if not feature[l, machine]]

    def units(self, task: GridTask) -> int:
        """The CPUs ``task`` takes on a machine: its width, or the machine (exclusive)."""
        return 1 if self.exclusive else task.width

    def _take(self, task: GridTask, machine: int, start: int, duration: int) -> None:
        self.machine_free[machine].reserve(start, duration, self.units(task))
        for l in self.held(task, machine):
            self.copies_free[l].reserve(start, duration, 1)

    def _give(self, task: GridTask, machine: int, start: int, duration: int) -> None:
        self.machine_free[machine].release(start, duration, self.units(task))
        column = self.free_from[:, machine]
        np.minimum(column, start, out=column)
        for l in self.held(task, machine):
            self.copies_free[l].release(start, duration, 1)

    def first_free(self, task: GridTask, machine: int) -> int:
        """The first time from now with CPUs free for ``task`` on ``machine`` (and
        ``free_from`` there made exact): it can start there no earlier."""
        units = self.units(task)
        at = self.machine_free[machine].earliest_fit(units, 0, self.ctx.now)
        self.free_from[units, machine] = at
        return at

    def earliest(self, task: GridTask, machine: int, after: int) -> int:
        """The earliest start >= ``after`` at which ``task`` fits on ``machine`` for its
        scaled estimate: CPUs there and a copy of each floating licence it holds there."""
        duration = self.duration(task, machine)
        if not task.licences:
            return self.machine_free[machine].earliest_fit(self.units(task), duration, after)
        profiles = [self.machine_free[machine]] + [self.copies_free[l]
                                                   for l in self.held(task, machine)]
        units = [self.units(task)] + [1] * (len(profiles) - 1)
        start = after
        while True:
            moved = start
            for profile, need in zip(profiles, units):
                moved = profile.earliest_fit(need, duration, moved)
            if moved == start:
                return start
            start = moved

    # ------------------------------------------------------------ slots
    def add(self, task: GridTask, machine: int, start: int) -> Slot:
        """Plan ``task`` on ``machine`` at ``start`` (it must fit there)."""
        duration = self.duration(task, machine)
        self._take(task, machine, start, duration)
        slot = Slot(task, machine, start, start + duration)
        self.slots[task.id] = slot
        row = self.on_machine[machine]
        row.append(slot)
        row.sort(key=_slot_order)
        self.planned_end[machine] = max(self.planned_end[machine], slot.end)
        return slot

    def remove(self, slot: Slot) -> None:
        """Take ``slot`` out of the plan and give its resources back."""
        self._give(slot.task, slot.machine, slot.start, slot.end - slot.start)
        self._drop(slot)

    def _drop(self, slot: Slot) -> None:
        del self.slots[slot.task.id]
        row = self.on_machine[slot.machine]
        row.remove(slot)
        if slot.end >= self.planned_end[slot.machine]:
            self.planned_end[slot.machine] = max((s.end for s in row), default=0)

    def started(self, slot: Slot) -> None:
        """``slot``'s job started now: its resources stay taken, as a running job's."""
        self._drop(slot)
        del self._durations[slot.task.id]
        self.running_end[slot.machine] = max(self.running_end[slot.machine], slot.end)

    def compress(self) -> None:
        """Rebuild from the running jobs and place every slot again, in order of planned
        start, at its earliest fit on its machine: a job whose predecessors only moved
        earlier never moves later."""
        slots = sorted(self.slots.values(), key=_slot_order)
        self.slots.clear()
        for row in self.on_machine.values():
            row.clear()
        self.planned_end = dict.fromkeys(self.on_machine, 0)
        self.rebuild_resources()
        for slot in slots:
            self.add(slot.task, slot.machine, self.earliest(slot.task, slot.machine, self.ctx.now))

    # ------------------------------------------------------------ measures
    def horizon(self, machine: int) -> int:
        """When ``machine``'s last running or planned job is expected to end (>= now)."""
        return max(self.ctx.now, self.running_end[machine], self.planned_end[machine])

    def is_gap(self, machine: int, start: int) -> bool:
        """Whether a job fitting on ``machine`` from ``start`` fills a gap (our reading of
        §5.2.1, "a period in which there are idle CPUs"): it starts now, or before the
        machine's last running or planned job ends -- not appended after it."""
        return start == self.ctx.now or start < self.horizon(machine)

    def makespan(self) -> int:
        """The plan's expected makespan from now: its last expected end, minus now."""
        return max(self.ctx.now, max(self.running_end.values()),
                   max(self.planned_end.values())) - self.ctx.now

    def on_time(self) -> int:
        """Planned jobs with a deadline planned to end by it."""
        return sum(1 for s in self.slots.values() if s.on_time)


def _slot_order(slot: Slot) -> tuple[int, int]:
    return slot.start, slot.task.index


class EarliestGapEDF(LocalPolicy):
    """EG-EDF with Tabu search (Pasquali thesis §5.2, after Klusáček and Rudová).

    ``iterations`` -- Tabu search iterations after the arrivals of a pass (0:
    EG-EDF alone); ``tabu_size`` -- how many recently picked jobs the tabu
    list keeps; ``objective`` -- ``"weight"`` (the thesis: makespan plus
    non-delayed terms), or only its ``"deadline"`` or ``"makespan"`` term;
    ``deadline_base`` -- the non-delayed term's denominator, the count
    ``"old"`` (before the change, our reading) or ``"new"`` (after it);
    ``ties`` -- between insertions of equal weight, the earliest gap
    (``"start"``, our reading) or the earliest end (``"end"``).
    """

    name = "eg-edf"

    def __init__(self, iterations: int = 20, tabu_size: int = 10, objective: str = "weight",
                 deadline_base: str = "old", ties: str = "start") -> None:
        check_number(self.name, "iterations", iterations, int, 0)
        check_number(self.name, "tabu_size", tabu_size, int, 1)
        check_choice(self.name, "objective", objective, OBJECTIVES)
        check_choice(self.name, "deadline_base", deadline_base, DEADLINE_BASES)
        check_choice(self.name, "ties", ties, TIES)
        self.iterations = iterations
        self.tabu_size = tabu_size
        self.objective = objective
        self.deadline_base = deadline_base
        self.ties = ties
        self.plan: Plan | None = None
        self._arrived: list[GridTask] = []
        self._disturbed = False
        self._woken: set[int] = set()
        self.counts = {"gap_insertions": 0, "edf_insertions": 0, "tabu_moves": 0,
                       "tabu_refused": 0, "compressions": 0}

    # ------------------------------------------------------------ events
    def on_submit(self, ctx: GridContext, task: GridTask) -> None:
        self._arrived.append(task)

    def on_finish(self, ctx: GridContext, task: GridTask) -> None:
        if ctx.now != task.expected_end:
            self._disturbed = True          # not the end the plan assumed: compress it
        plan = self.plan
        if plan is not None and task.id in plan.slots:   # withdrawn while planned
            plan.remove(plan.slots[task.id])
            del plan._durations[task.id]
        if task in self._arrived:                         # withdrawn before any pass
            self._arrived.remove(task)

    def on_outage(self, ctx: GridContext, event: OutageEvent) -> None:
        """A machine failed, came back, or a window took or gave back machines: plan again
        from the machines as they are (docs/reference/events.md, "Grid runs")."""
        self._disturbed = True

    def schedule(self, ctx: GridContext) -> None:
        plan = self.plan
        if plan is None:
            plan = self.plan = Plan(ctx)
        plan.advance(ctx.now)
        if ctx.overrun == "extend" and any(
                t.expected_end <= ctx.now and plan.overdue_until.get(t.id, 0) <= ctx.now
                for t in ctx.running.values()):
            self._disturbed = True          # a job runs past what the plan assumed: replan
        if self._disturbed:
            plan.compress()
            self.counts["compressions"] += 1
            self._disturbed = False
        for task in self._arrived:
            self.insert(plan, task)
        if self._arrived and self.iterations:
            self.tabu_search(plan)
        self._arrived.clear()
        self._start_due(ctx, plan)

    def statistics(self) -> dict[str, Any]:
        return {f"eg-edf.{k}": v for k, v in self.counts.items()}

    # ------------------------------------------------------------ the weight (§5.2.1)
    def weight(self, makespan_old: int, makespan_new: int, on_time_old: int,
               on_time_new: int) -> float:
        """The thesis' weight of a change: ``(makespan_old - makespan_new) / makespan_old +
        (on_time_new - on_time_old) / base`` with ``base`` the non-delayed count before
        (``deadline_base="old"``) or after; a zero denominator counts as 1."""
        value = 0.0
        if self.objective != "deadline":
            value += (makespan_old - makespan_new) / max(makespan_old, 1)
        if self.objective != "makespan":
            base = on_time_old if self.deadline_base == "old" else on_time_new
            value += (on_time_new - on_time_old) / max(base, 1)
        return value

    def _tie(self, start: int, end: int) -> tuple[int, int]:
        """What decides between insertions of equal weight (before the machine's power)."""
        return (end, start) if self.ties == "end" else (start, end)

    # ------------------------------------------------------------ EG-EDF (§5.2.1)
    def insert(self, plan: Plan, task: GridTask) -> Slot:
        """Plan a new job: the best earliest gap if any machine has one, else the best EDF
        insertion over all its machines (ties: :meth:`_tie`, then the faster machine)."""
        ctx = plan.ctx
        makespan, on_time = plan.makespan(), plan.on_time()
        gaps = []
        for rank, k in enumerate(ctx.candidates(task).tolist()):
            start = plan.earliest(task, k, ctx.now)
            if plan.is_gap(k, start):
                gaps.append((start, rank, k))
        if gaps:
            self.counts["gap_insertions"] += 1
            best: tuple[InsertionKey, int, int] | None = None
            for start, rank, k in gaps:
                end = start + plan.duration(task, k)
                new_makespan = max(makespan, end - ctx.now)
                met = task.deadline is not None and end <= task.deadline
                key = (-self.weight(makespan, new_makespan, on_time, on_time + met),
                       *self._tie(start, end), rank)
                if best is None or key < best[0]:
                    best = (key, k, start)
            assert best is not None                 # there is a gap
            return plan.add(task, best[1], best[2])
        self.counts["edf_insertions"] += 1
        top = sorted(((plan.horizon(k), k) for k in plan.on_machine), reverse=True)[:2]
        chosen: tuple[InsertionKey, int] | None = None
        for rank, k in enumerate(ctx.candidates(task).tolist()):
            moved = self._edf_insert(plan, task, k)
            others = next((h for h, m in top if m != k), ctx.now)
            new_makespan = max(others, plan.horizon(k)) - ctx.now
            new_on_time = on_time + sum(plan.slots[s.task.id].on_time - s.on_time
                                        for s, _ in moved) + plan.slots[task.id].on_time
            slot = plan.slots[task.id]
            key = (-self.weight(makespan, new_makespan, on_time, new_on_time),
                   *self._tie(slot.start, slot.end), rank)
            if chosen is None or key < chosen[0]:
                chosen = (key, k)
            self._undo_edf(plan, task, moved)
        assert chosen is not None                   # the job has a machine
        self._edf_insert(plan, task, chosen[1])
        return plan.slots[task.id]

    def _edf_insert(self, plan: Plan, task: GridTask, machine: int) -> list[tuple[Slot, int]]:
        """Insert ``task`` into ``machine``'s planned jobs in deadline order: it and every
        job after it are placed again in that order, each no earlier than the one before.
        Returns the moved slots with their former starts (for :meth:`_undo_edf`)."""
        row = plan.on_machine[machine]
        key = deadline_key(task)
        at = next((i for i, s in enumerate(row) if deadline_key(s.task) > key), len(row))
        moved = [(s, s.start) for s in row[at:]]
        for slot, _ in moved:
            plan.remove(slot)
        after = row[at - 1].start if at else plan.ctx.now
        for job in [task] + [s.task for s, _ in moved]:
            after = plan.add(job, machine, plan.earliest(job, machine, after)).start
        return moved

    @staticmethod
    def _undo_edf(plan: Plan, task: GridTask, moved: list[tuple[Slot, int]]) -> None:
        """Take ``task`` back out and put the moved jobs back where they were."""
        for job in [task] + [s.task for s, _ in moved]:
            plan.remove(plan.slots[job.id])
        for slot, start in moved:
            plan.add(slot.task, slot.machine, start)

    # ------------------------------------------------------------ Tabu search (§5.2.2)
    def tabu_search(self, plan: Plan) -> None:
        """Up to ``iterations`` times: pick the last delayed job, not tabu, of the machine
        with the most delayed jobs (next machines if all of its are tabu), make it tabu,
        and move it to the earliest gap (any machine, earliest first) whose weight is > 0.
        Stops early when no delayed job is left that is not tabu.

        A refused move leaves the plan as it was, so the delayed jobs, the count of jobs
        on time and the makespan are taken once and again only after a move."""
        tabu: deque[int] = deque(maxlen=self.tabu_size)
        delayed, on_time, makespan = delayed_slots(plan), plan.on_time(), plan.makespan()
        for _ in range(self.iterations):
            slot = self._pick(plan, tabu, delayed)
            if slot is None:
                return
            tabu.append(slot.task.id)
            if self._move(plan, slot, on_time, makespan):
                self.counts["tabu_moves"] += 1
                delayed, on_time, makespan = delayed_slots(plan), plan.on_time(), plan.makespan()
            else:
                self.counts["tabu_refused"] += 1

    @staticmethod
    def _pick(plan: Plan, tabu: deque[int], delayed: list[list[Slot]]) -> Slot | None:
        """The last delayed non-tabu slot of the machine with the most delayed slots
        (``delayed``: :func:`delayed_slots` of ``plan``), as ``plan`` holds it now."""
        for row in delayed:
            last = next((s for s in row if s.task.id not in tabu), None)
            if last is not None:
                return plan.slots[last.task.id]
        return None

    def _move(self, plan: Plan, slot: Slot, on_time: int, makespan: int) -> bool:
        """Move ``slot``'s job to the earliest gap with a positive weight; False (and the
        plan unchanged) if there is none.  ``on_time``, ``makespan``: ``plan.on_time()``,
        ``plan.makespan()``."""
        ctx = plan.ctx
        now = ctx.now
        task = slot.task
        home, start = slot.machine, slot.start
        # A machine gives a positive weight only if the job can end there by the latest
        # end below: skip the rest, first by when CPUs are free there at the earliest
        # (plan.free_from), then exactly.  The bound holds on the job's own machine too,
        # taken with the job still there: before its start its CPUs are free either way,
        # and a fit there from its start on is its start (it fits there): no move.
        latest_end = self._latest_useful_end(task, now + makespan, slot.end >= now + makespan)
        durations = plan.durations(task)
        candidates = ctx.candidates(task)
        ends = np.maximum(plan.free_from[plan.units(task), candidates], now) \
            + plan.duration_array(task)[candidates]
        ranks = np.flatnonzero(ends <= latest_end)
        if not ranks.size:
            return False
        plan.remove(slot)
        gaps = []
        for rank, k in zip(ranks.tolist(), candidates[ranks].tolist()):
            if plan.first_free(task, k) + durations[k] > latest_end:
                continue
            at = plan.earliest(task, k, now)
            if plan.is_gap(k, at) and (k, at) != (home, start):
                gaps.append((at, rank, k))
        if gaps:
            latest = plan.makespan()
            left = on_time - slot.on_time
            for at, _, k in sorted(gaps):
                end = at + durations[k]
                met = task.deadline is not None and end <= task.deadline
                if self.weight(makespan, max(latest, end - now), on_time, left + met) > 0:
                    plan.add(task, k, at)
                    return True
        plan.add(task, home, start)
        return False

    def _latest_useful_end(self, task: GridTask, plan_end: int, last: bool) -> int:
        """The latest end at which moving the delayed ``task`` can have a positive weight
        (-1: nowhere).  The deadline term grows only if the job then meets its deadline;
        the makespan term only if the job ends the plan (``last``: the plan ends at
        ``plan_end``, its end) and then ends before ``plan_end`` (any other job that
        ends the plan stays where it is)."""
        deadline = task.deadline
        assert deadline is not None                 # a delayed job has one
        latest = -1
        if self.objective != "makespan":
            latest = deadline
        if last and self.objective != "deadline":
            latest = max(latest, plan_end - 1)
        return latest

    # ------------------------------------------------------------ starts and wake-ups
    def _start_due(self, ctx: GridContext, plan: Plan) -> None:
        """Start the jobs planned for now; ask for a wake-up at the next planned start."""
        due = sorted((s for s in plan.slots.values() if s.start <= ctx.now), key=_slot_order)
        for slot in due:
            ctx.start(slot.task, slot.machine)
            plan.started(slot)
        upcoming = min((s.start for s in plan.slots.values()), default=None)
        self._woken = {t for t in self._woken if t > ctx.now}
        if upcoming is not None and upcoming not in self._woken:
            ctx.wake_at(upcoming)
            self._woken.add(upcoming)


def delayed_slots(plan: Plan) -> list[list[Slot]]:
    """The plan's delayed slots by machine: the machine with the most first (ties: the
    lower number), each machine's from the last planned (Tabu search's pick, §5.2.2)."""
    delayed: dict[int, list[Slot]] = {}
    for slot in plan.slots.values():
        if slot.late:
            delayed.setdefault(slot.machine, []).append(slot)
    return [sorted(delayed[k], key=_slot_order, reverse=True)
            for k in sorted(delayed, key=lambda k: (-len(delayed[k]), k))]
