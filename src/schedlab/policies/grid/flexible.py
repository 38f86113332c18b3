"""Flexible Backfilling (BF_UNMOD, BF_MOD) and EDF on heterogeneous machines with licences.

Pasquali's thesis, §3.2 and §3.2.1: at every scheduling event (a job
submission or a job end) each queued job gets a priority

    P(i) = Δ_AA + Δ_D + Δ_L + Δ_WM

from four heuristics -- Anti-Aging, Deadline, Licence, Wait Minimization --
whose weights are the policy's parameters (defaults: the §4.1 footnote).
The queue is then backfilled in priority order as EASY does: jobs start on
the fastest machine with room among those that meet their *Minimal
Requirements* (CPUs and licences, :meth:`GridContext.candidates`); the
first that cannot start gets a reservation (:func:`~.local.reserve`) and
later jobs may start only if they leave it intact.  The two variants differ
in who holds the reservation:

* ``bf-unmod`` (BF_UNMOD): the job that got the reservation keeps it until
  it starts, however the priorities change; the others are reordered;
* ``bf-mod`` (BF_MOD): at every event the reservation goes to the first job
  of the queue in priority order that cannot start at once.

``grid-edf`` is §4.2's EDF: jobs by deadline, each on the fastest machine
with room now, no reservation.  Where the thesis text is garbled or
ambiguous we chose; the choices are "our reading" in docs/reference/policies/grid.md.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from schedlab.engine.grid import positions
from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.grid.local import (
    RESERVE_BY,
    InOrder,
    Kept,
    TracksSinceLastPass,
    backfill,
    first_fits,
    try_behind,
)

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask, TaskColumns


class Priority(NamedTuple):
    """A queued job's priority and its four terms (thesis §3.2.1, P(i))."""

    aging: float
    deadline: float
    licence: float
    wait: float

    @property
    def total(self) -> float:
        return self.aging + self.deadline + self.licence + self.wait


def anti_aging(now: int, submit: np.ndarray, age_factor: float) -> np.ndarray:
    """Δ_AA = (wall_clock − Submission_i) · age_factor (§3.2), per job."""
    return (now - submit) * age_factor


def deadline_term(now: int, estimate: np.ndarray, deadline: np.ndarray, low: float,
                  high: float, k: float) -> np.ndarray:
    """Δ_D of §3.2.1 per job, with Extime_i = now + Estimated_i and T_i = Deadline_i −
    k · Estimated_i (eq. 3.5): ``low`` (Min) while Extime_i ≤ T_i, then the line through
    (T_i, Min) and (Deadline_i, Max), 0 once Extime_i is past the deadline.  A job
    without deadline (``deadline`` NaN) gets 0.

    Estimated_i is the job's estimate still to run at its own rating: FB's
    classification uses no machine information (§3.2).
    """
    threshold, span = deadline_line(estimate, deadline, k)
    return deadline_score(now, estimate, deadline, threshold, span, low, high)


def deadline_line(estimate: np.ndarray, deadline: np.ndarray,
                  k: float) -> tuple[np.ndarray, np.ndarray]:
    """What of :func:`deadline_term` does not depend on the time: per job, T_i and the
    span of the rising line, ``Deadline_i − T_i`` (k · Estimated_i, at least 1e-300)."""
    threshold = deadline - k * estimate
    return threshold, np.maximum(deadline - threshold, 1e-300)


def deadline_score(now: int, estimate: np.ndarray, deadline: np.ndarray, threshold: np.ndarray,
                   span: np.ndarray, low: float, high: float) -> np.ndarray:
    """:func:`deadline_term` at ``now`` from its time-free part (:func:`deadline_line`)."""
    extime = now + estimate
    rising = (high - low) * (extime - threshold) / span + low
    score = np.where(extime <= threshold, low, rising)
    return np.where(extime <= deadline, score, 0.0)         # NaN deadlines compare False


def licence_term(needs: np.ndarray, rho: np.ndarray, weight: float) -> np.ndarray:
    """Δ_L = W · (Σ_{l ∈ L_c̄(i)} ρ_l + d · Σ_{l ∈ L_c(i)} ρ_l), d = max(|L_c(i)|, 1), per
    job (rows of ``needs``, jobs × licences, as 0/1 float64 or bool): critical licences
    (ρ_l > 1, eq. 3.7) count d times (our reading of d)."""
    needs = needs.astype(np.float64, copy=False)        # once, not at each product
    plain, heavy = licence_sums(needs, rho)
    count = needs @ (rho > 1).astype(np.float64)
    term: np.ndarray = weight * (plain + np.maximum(count, 1.0) * heavy)
    return term


def licence_sums(needs: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The products of :func:`licence_term` (``needs`` as float64): per job, the sum of
    ρ_l over its non-critical licences and over its critical ones (ρ_l > 1), in BLAS's
    order of additions."""
    critical = rho > 1
    return needs @ np.where(critical, 0.0, rho), needs @ np.where(critical, rho, 0.0)


def wait_minimization(estimate: np.ndarray, boost: float) -> np.ndarray:
    """Δ_WM = priority_boost_value · min_ex_t / Estimated_i (§3.2), min over the queue;
    estimates of 0 count as 1."""
    return wait_score(np.maximum(estimate, 1.0), boost)


def wait_score(estimate: np.ndarray, boost: float) -> np.ndarray:
    """:func:`wait_minimization` of estimates already at least 1."""
    shortest: float = estimate.min()
    return boost * shortest / estimate


class _Static:
    """The parts of the priority terms that do not change during a run, per job of the run
    (by workload position), computed once over the run's columns with the same operations
    a pass would apply to its queue's rows: submit, estimate, deadline, the deadline
    line (:func:`deadline_line`), the estimate of Wait Minimization (at least 1), side by
    side so that a pass reads its queue's rows with one fancy index; and the licence
    matrix as float64 (the operand of :func:`licence_term`'s products)."""

    __slots__ = ("columns", "needs", "rows")

    def __init__(self, columns: TaskColumns, k: float) -> None:
        self.columns = columns
        threshold, span = deadline_line(columns.estimate, columns.deadline, k)
        self.rows = np.column_stack((columns.submit, columns.estimate, columns.deadline,
                                     threshold, span, np.maximum(columns.estimate, 1.0)))
        self.needs = columns.needs.astype(np.float64)


class FlexibleBackfilling(TracksSinceLastPass):
    """Flexible Backfilling (thesis §3.2.1): EASY over the queue in priority order, the
    priorities recomputed at every scheduling event.  Subclasses say whether the job
    holding the reservation keeps it (BF_UNMOD) or loses it to a higher priority (BF_MOD).

    Parameters (defaults: thesis §4.1 footnote): ``age_factor`` (Anti-Aging),
    ``deadline_max``, ``deadline_min``, ``deadline_k`` (Deadline: Max, Min, k),
    ``licence_weight`` (Licences: W), ``priority_boost_value`` (Wait
    Minimization); ``reserve_by`` as for ``bf-fcfs``.
    """

    name = "flexible-backfilling"
    #: Whether the reservation stays with its job until that job starts (BF_UNMOD).
    keeps_reservation = False

    def __init__(self, age_factor: float = 0.01, deadline_max: float = 20.0,
                 deadline_min: float = 0.1, deadline_k: float = 1.4,
                 licence_weight: float = 1.0, priority_boost_value: float = 2.0,
                 reserve_by: str = "start") -> None:
        for param, value in (("age_factor", age_factor), ("deadline_max", deadline_max),
                             ("deadline_min", deadline_min), ("licence_weight", licence_weight),
                             ("priority_boost_value", priority_boost_value)):
            check_number(self.name, param, value, float, 0.0)
        check_number(self.name, "deadline_k", deadline_k, float, 1.0)
        if deadline_max < deadline_min:
            raise InputError(f"The 'deadline_max' parameter of {self.name} ({deadline_max!r}) "
                             f"must not be below 'deadline_min' ({deadline_min!r}): the "
                             f"Deadline score rises from Min to Max as the deadline nears.",
                             field="deadline_max")
        check_choice(self.name, "reserve_by", reserve_by, RESERVE_BY)
        self.age_factor = age_factor
        self.deadline_max = deadline_max
        self.deadline_min = deadline_min
        self.deadline_k = deadline_k
        self.licence_weight = licence_weight
        self.priority_boost_value = priority_boost_value
        self.reserve_by = reserve_by
        self.holder: int | None = None
        self.holder_changes = 0
        # Per platform licence, sized at the cluster's first event: the cluster's jobs
        # asking for it, and its copies that can be active at once in the cluster.
        self._asked = np.zeros(0)
        self._offer = np.zeros(0)
        self._counting = False
        self._static: _Static | None = None
        super().__init__()
        self._kept: Kept | None = None

    def on_submit(self, ctx: GridContext, task: GridTask) -> None:
        self._asked_by(ctx, task, +1)
        super().on_submit(ctx, task)

    def on_finish(self, ctx: GridContext, task: GridTask) -> None:
        self._asked_by(ctx, task, -1)
        super().on_finish(ctx, task)

    def _asked_by(self, ctx: GridContext, task: GridTask, step: int) -> None:
        """Keep the count of the cluster's jobs (waiting or running) asking for each licence
        (the numerator of ρ_l, eq. 3.6)."""
        if not self._counting:
            platform = ctx.platform
            self._counting = True
            self._asked = np.zeros(len(platform.licence_names))
            self._offer = (platform.copies[ctx.cluster]
                           + platform.feature[:, ctx.machines].sum(axis=1)).astype(np.float64)
        if task.licences:
            self._asked[list(task.licences)] += step

    def licence_pressure(self) -> np.ndarray:
        """ρ_l of eq. 3.6 per platform licence: the cluster's jobs (waiting and running)
        asking for ``l`` over the copies that can be active at once in the cluster (its
        floating copies plus its machines holding ``l`` as a feature); 0 where none."""
        return np.divide(self._asked, self._offer, out=np.zeros_like(self._asked),
                         where=self._offer > 0)

    def priority_terms(self, ctx: GridContext) -> tuple[list[GridTask], np.ndarray]:
        """The queued jobs (arrival order) and their four priority terms (jobs × 4: Anti-Aging,
        Deadline, Licence, Wait Minimization), computed now (thesis §3.2.1)."""
        tasks = list(ctx.waiting.values())
        return tasks, self._terms(ctx, positions(tasks))

    def _terms(self, ctx: GridContext, at: np.ndarray) -> np.ndarray:
        """The four priority terms of the queued jobs at workload positions ``at``."""
        if not len(at):
            return np.zeros((0, 4))
        static = self._static_of(ctx)
        rows = static.rows.take(at, axis=0)      # as rows[at], at a third of the cost
        estimate = rows[:, 1]
        terms = np.empty((len(at), 4))
        terms[:, 0] = anti_aging(ctx.now, rows[:, 0], self.age_factor)
        terms[:, 1] = deadline_score(ctx.now, estimate, rows[:, 2], rows[:, 3], rows[:, 4],
                                     self.deadline_min, self.deadline_max)
        terms[:, 2] = licence_term(static.needs.take(at, axis=0), self.licence_pressure(),
                                   self.licence_weight)
        terms[:, 3] = wait_score(rows[:, 5], self.priority_boost_value)
        return terms

    def _static_of(self, ctx: GridContext) -> _Static:
        """The run's :class:`_Static`, computed at the first pass."""
        static = self._static
        if static is None or static.columns is not ctx.columns:
            static = self._static = _Static(ctx.columns, self.deadline_k)
        return static

    def _order(self, ctx: GridContext, at: np.ndarray) -> np.ndarray:
        """The jobs at workload positions ``at`` (queue order) by priority, highest first,
        ties in queue order (indices into ``at``): a stable sort of the negated sums of
        :meth:`_terms`, the same bits, in one compiled call beside the licence term's two
        products (:func:`.flexible_kernels.candidates_order` letting every job through)."""
        return self._sorted(ctx, at, np.iinfo(np.int64).max, None, -1)

    def _candidates(self, ctx: GridContext, at: np.ndarray, skip: int) -> np.ndarray:
        """:meth:`_order` of the jobs a pass can start or reserve for, but index ``skip``
        (-1: none): those :meth:`GridContext.may_start` lets through and the first of the
        others (:func:`.flexible_kernels.candidates_order`); the rest would be passed over."""
        return self._sorted(ctx, at, ctx.largest_room, ctx.blocked_licences(), skip)

    def _sorted(self, ctx: GridContext, at: np.ndarray, largest: int,
                blocked: np.ndarray | None, skip: int) -> np.ndarray:
        """:func:`.flexible_kernels.candidates_order` of the queue ``at`` now (``blocked``
        None: no licence blocked)."""
        from schedlab.policies.grid.flexible_kernels import candidates_order

        if not len(at):               # no pressures yet at a pass before any submission
            return np.zeros(0, dtype=np.intp)
        if blocked is None:
            blocked = np.zeros(ctx.columns.needs.shape[1], dtype=bool)
        order: np.ndarray = candidates_order(*self._key_arguments(ctx, at), ctx.columns.width,
                                             largest, blocked, skip)
        return order

    def _key_arguments(self, ctx: GridContext, at: np.ndarray) -> tuple[Any, ...]:
        """The arguments of :func:`.flexible_kernels.priority_keys` for the queue ``at``
        now: the run's static rows, the licence term's two products (numpy's), the
        critical licences and the weights."""
        static = self._static_of(ctx)
        rho = self.licence_pressure()
        plain, heavy = licence_sums(static.needs.take(at, axis=0), rho)
        return (ctx.now, at, static.rows, plain, heavy, ctx.columns.needs, rho > 1,
                self.age_factor, self.deadline_min, self.deadline_max, self.licence_weight,
                self.priority_boost_value)

    def priorities(self, ctx: GridContext) -> dict[int, Priority]:
        """Every queued job's priority now, by job id (for inspection and tests)."""
        tasks, terms = self.priority_terms(ctx)
        return {task.id: Priority(*map(float, row)) for task, row in zip(tasks, terms)}

    def queue(self, ctx: GridContext) -> list[GridTask]:
        """The queue in priority order (highest first; ties in arrival order), with the
        reservation's holder first under BF_UNMOD."""
        return list(self._ordered(ctx)[0])

    def _ordered(self, ctx: GridContext, candidates: bool = False) -> tuple[InOrder, np.ndarray]:
        """:meth:`queue` (as :class:`InOrder`) and its jobs' workload positions; with
        ``candidates``, only the jobs a pass can start or reserve for (:meth:`_candidates`),
        in the same order."""
        at = ctx.queue_positions()
        holder = (ctx.waiting.get(self.holder)
                  if self.keeps_reservation and self.holder is not None else None)
        first = -1 if holder is None else int(np.flatnonzero(at == holder.index)[0])
        if candidates:
            order = self._candidates(ctx, at, first)
            if first >= 0:
                order = np.concatenate(([first], order))
        else:
            order = self._order(ctx, at)
            if first >= 0:
                order = np.concatenate(([first], order[order != first]))
        ordered = at[order]
        return InOrder(ctx.tasks, ordered), ordered

    def schedule(self, ctx: GridContext) -> None:
        """One EASY pass over the queue in priority order (:func:`~.local.backfill`).

        A pass after submissions alone tries only the new jobs (in priority
        order), behind the last pass's reservation, when it still holds
        (:meth:`~.local.Kept.still_holds`) and its job is first in the queue
        (under BF_UNMOD always, the holder; under BF_MOD when it still has the
        highest priority): that job still cannot start, and every other job
        the last pass refused would be refused again, in whatever order.
        Under BF_UNMOD a single new job needs no priorities.

        A pass orders only the jobs it can start or reserve for
        (:meth:`_ordered` with ``candidates``): the queue is mostly jobs that
        wait for a licence copy, which no start of the pass can free."""
        fresh, freed = self._since.take()
        kept, self._kept = self._kept, None
        if kept is not None and kept.still_holds(ctx, freed):
            if self.keeps_reservation and len(fresh) <= 1:
                try_behind(ctx, kept, fresh)
                self._kept = kept
                return
            queue, at = self._ordered(ctx, candidates=True)
            if at[0] == kept.head.index:
                new = set(fresh)
                try_behind(ctx, kept, [i for i in at.tolist() if i in new])
                self._kept = kept
                return
        else:
            queue, at = self._ordered(ctx, candidates=True)
        self._kept = backfill(ctx, queue, self.reserve_by, at)
        holder = None if self._kept is None else self._kept.head.id
        if holder is not None and holder != self.holder:
            self.holder_changes += 1
        self.holder = holder

    def statistics(self) -> dict[str, int]:
        """How many times the reservation went to another job."""
        return {"reservation_holders": self.holder_changes}


class FlexibleBackfillingUnmod(FlexibleBackfilling):
    """BF_UNMOD (thesis §3.2.1): the first queued job that cannot start gets a reservation
    and keeps it until it starts; the other jobs are reordered by priority at every event
    and backfilled."""

    name = "bf-unmod"
    keeps_reservation = True


class FlexibleBackfillingMod(FlexibleBackfilling):
    """BF_MOD (thesis §3.2.1): at every event the reservation goes to the job of highest
    priority that cannot start at once; a job of higher priority takes it from the job
    that held it."""

    name = "bf-mod"
    keeps_reservation = False


class GridEDF(TracksSinceLastPass):
    """EDF as thesis §4.2 implements it: queued jobs by deadline, earliest first (jobs
    without deadline after, in arrival order); each starts on the fastest machine with room
    for it now (CPUs, licence copies); a job that cannot start waits for the next event
    while later jobs may start.  No reservation, no preemption.  The jobs that cannot
    start by width or licence copies (:meth:`GridContext.may_start`) are passed over
    without a search; the others are tried in one compiled call when their times are
    eq. 3.9's (:func:`~.local.first_fits`).

    A pass after submissions alone tries only the jobs submitted since the last pass,
    one by one (:meth:`GridContext.fastest_fit`: a compiled call costs more than the
    few new jobs): every job queued before could not start then, with at least the
    CPUs and licence copies free now (nothing ended, starts only take), so it cannot
    start now either, whatever starts before it.  Any end (or outage) makes the next
    pass try the whole queue."""

    name = "grid-edf"
    #: The run's columns, its jobs in the order of (deadline, workload position), and each
    #: job's place in that order (:meth:`by_deadline`); None before the first pass.
    _ranks: tuple[TaskColumns, np.ndarray, np.ndarray] | None = None

    def by_deadline(self, ctx: GridContext, at: np.ndarray,
                    known_ascending: bool = False) -> np.ndarray:
        """The jobs at workload positions ``at`` (queue order) by deadline, earliest first,
        those without one (NaN) last, ties in queue order: a stable sort of their deadlines.

        A queue in workload order (every job queued at its arrival, none again out of
        its place) is sorted by each job's place in the run's order of (deadline,
        workload position), computed once: a sort of distinct integers, not a stable
        sort of floats at every pass.  ``known_ascending``: ``at`` is known to be in
        workload order (:meth:`GridContext.queue_in_workload_order`); else it is tested."""
        columns = ctx.columns
        if self._ranks is None or self._ranks[0] is not columns:
            order = np.lexsort((np.arange(len(columns.deadline)), columns.deadline))
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            self._ranks = (columns, order, rank)
        _, order, rank = self._ranks
        if known_ascending or (at[1:] > at[:-1]).all():
            places = rank.take(at)
            places.sort()
            ordered: np.ndarray = order.take(places)
            return ordered
        # NaN (no deadline) sorts last; the stable sort keeps queue order among ties
        return at[np.argsort(columns.deadline[at], kind="stable")]

    def schedule(self, ctx: GridContext) -> None:
        fresh, freed = self._since.take()
        compiled = ctx.times_from_columns()
        if compiled and not freed:      # the few new jobs: each on its fastest fit
            ordered = self.by_deadline(ctx, np.array(fresh, dtype=np.intp)).tolist() \
                if len(fresh) > 1 else fresh
            for task in map(ctx.tasks.__getitem__, ordered):
                machine = ctx.fastest_fit(task)
                if machine is not None:
                    ctx.start(task, machine)
            return
        ordered = self.by_deadline(ctx, ctx.queue_positions(), ctx.queue_in_workload_order())
        if compiled:
            first_fits(ctx, ctx.tasks, ordered, ordered)
            return
        possible = ctx.may_start(ordered)
        for task in compress(InOrder(ctx.tasks, ordered), possible.tolist()):
            machine = ctx.fastest_fit(task)
            if machine is not None:
                ctx.start(task, machine)
