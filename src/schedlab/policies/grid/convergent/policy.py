"""Convergent Scheduling as a grid local policy (Pasquali thesis §3.2.2, §4.2, §4.3.2).

At every scheduling pass of its cluster (a job arrived or ended), ``cs``
builds the Job-Machine matrix ``P`` over the cluster's running and queued
jobs (:func:`.matrix.job_machine_matrix`), sets aside by a knapsack per
group of jobs sharing critical licences those that cannot run together
(:func:`.knapsack.prematch`), matches jobs to machines (MFS, incremental
MFS or MIS, :mod:`.matching`) and starts every queued job matched to a
machine that can take it now.  The thesis' versions without preemption are
``CS_i_np`` (``incremental=true``) and ``CS_ni_np`` (``incremental=false``,
§4.2).  Running jobs stay where they are: non-preemptive, as the thesis
simulates them, with a large Overhead minimization weight (800) that keeps
each running job on its machine in the plan.  With ``preemption=true``
(``CS_i_p``/``CS_ni_p``, Overhead minimization 8) the plan is followed for
running jobs too (:mod:`.preemption`).

Space sharing (§4.3.2, "an extend version of our Convergent Scheduler, which
supports the Space Sharing policy"; the thesis does not say how), our
readings: ``sharing="slots"`` places the queued jobs into the CPUs free now
by matchings over machine slots, so that a preferred machine takes several
jobs at once; ``"rounds"`` keeps the thesis' one-job-per-machine plan and
then repeats the matching while machines have CPUs left
(:func:`.matching.matching_rounds`); ``"one"`` is the §4.2 plan alone; and
``"auto"`` (default) is ``slots`` under shared allocation, ``one`` under
exclusive allocation or with preemption (the space-sharing plans place
queued jobs only).  Without preemption, running jobs keep their machines,
and the knapsack keeps them (``fixed``): only the copies they leave are
shared out.

Our readings (docs/reference/policies/convergent.md, "CS as a local policy"): a queued
job matched to a machine that cannot take it now (CPUs busy, no free licence
copy) stays queued until the next pass; matched jobs start by decreasing
``P`` entry, so that the most preferred take contended copies first.
"""

from __future__ import annotations

import time
from dataclasses import fields
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.base import check_bool, check_choice
from schedlab.policies.grid.base import LocalPolicy
from schedlab.policies.grid.convergent.heuristics import Weights
from schedlab.policies.grid.convergent.knapsack import METHODS, prematch
from schedlab.policies.grid.convergent.matching import (
    IncrementalMatcher,
    Matching,
    matching_rounds,
    mfs,
    mis,
    scratch_work,
)
from schedlab.policies.grid.convergent.matrix import (
    QUEUED,
    STORAGE,
    ClusterState,
    job_machine_matrix,
)
from schedlab.policies.grid.convergent.preemption import preempt_off_plan

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask

#: The matchings: MFS (maximum cardinality, then weight; the thesis') or MIS (greedy).
MATCHINGS = ("mfs", "mis")
#: Jobs per machine in the plan: by allocation mode, one (§4.2), or several by matching
#: rounds or over machine slots (space sharing, §4.3.2, our readings).
SHARINGS = ("auto", "one", "rounds", "slots")


class ConvergentScheduling(LocalPolicy):
    """CS: Job-Machine matrix, knapsack pre-matching, then matching (thesis §3.2.2).

    ``incremental`` -- IMFS, reusing the previous pass's plan (``CS_i_np``),
    or MFS from scratch (``CS_ni_np``); the same plan value either way.
    ``matching`` -- ``mfs`` (default) or ``mis`` (greedy; ``incremental`` is
    then unused). ``knapsack`` -- ``greedy`` (the thesis') or ``exact``
    (MILP). ``preemption`` -- ``true``: running jobs follow the plan too,
    preempted or migrated (``CS_i_p``/``CS_ni_p``, :mod:`.preemption`).
    ``sharing`` -- ``one`` job per machine in the plan (§4.2), matching
    ``rounds`` while machines have CPUs left, matchings over machine
    ``slots`` (space sharing, §4.3.2, our readings; not with preemption), or
    ``auto``: slots under shared allocation without preemption, one
    otherwise.  ``count_work`` -- ``true``: also count the work of every MFS from
    scratch (:func:`.matching.scratch_work`, by solving it again with our counter; its
    time is reported apart, not in the plan's); IMFS counts its own work always
    (:meth:`statistics`).  ``deadline_late`` -- the Deadline heuristic past the deadline
    (:class:`~.heuristics.Weights`).  The other parameters are the heuristic
    weights (:class:`~.heuristics.Weights`), by default the thesis' (§4.2,
    footnote 2); ``overhead`` defaults to its value for the version: 8.0 with
    preemption, 800.0 without.
    """

    name = "cs"

    def __init__(self, incremental: bool = True, matching: str = "mfs",
                 knapsack: str = "greedy", preemption: bool = False, sharing: str = "auto",
                 count_work: bool = False,
                 base: float = 0.01, deadline_max: float = 10.0, deadline_min: float = 0.1,
                 deadline_k: float = 1.3, deadline_late: str = "max", licences: float = 2.5,
                 input: float = 3.0, wait: float = 4.0, wait_sup: str = "job",
                 overhead: float | None = None,
                 age_factor: float = 0.02) -> None:
        for param, value in (("incremental", incremental), ("preemption", preemption),
                             ("count_work", count_work)):
            check_bool(self.name, param, value)
        check_choice(self.name, "matching", matching, MATCHINGS)
        check_choice(self.name, "knapsack", knapsack, METHODS)
        check_choice(self.name, "sharing", sharing, SHARINGS)
        if preemption and sharing in ("rounds", "slots"):
            raise InputError(f"The 'sharing' parameter of {self.name}: {sharing!r} places "
                             f"queued jobs only, while preemption=true moves running jobs "
                             f"by the one-job-per-machine plan; use sharing=one or auto "
                             f"with preemption.", field="sharing")
        self.incremental = incremental
        self.matching = matching
        self.knapsack = knapsack
        self.preemption = preemption
        #: The preemptive versions preempt and migrate running jobs (the run reports it).
        self.preemptive = preemption
        self.sharing = sharing
        self.count_work = count_work
        self.base = base
        self.deadline_max = deadline_max
        self.deadline_min = deadline_min
        self.deadline_k = deadline_k
        self.deadline_late = deadline_late
        self.licences = licences
        self.input = input
        self.wait = wait
        self.wait_sup = wait_sup
        self.overhead = overhead if overhead is not None else 8.0 if preemption else 800.0
        self.age_factor = age_factor
        self.weights = Weights(**{f.name: getattr(self, f.name) for f in fields(Weights)})
        self._matcher = IncrementalMatcher()
        self._mfs_paths = self._mfs_entries = 0
        self._count_seconds = 0.0

    def schedule(self, ctx: GridContext) -> None:
        if not (ctx.waiting or (self.preemption and ctx.running)):
            return
        tasks = list(ctx.running.values()) + list(ctx.waiting.values())
        state = cluster_state(ctx, tasks)
        matrix = job_machine_matrix(state, self.weights)
        away = ctx.out_of_service
        if away.size:               # no queued job is matched to a machine out of service
            queued = np.flatnonzero([task.id in ctx.waiting for task in tasks])
            matrix[np.ix_(queued, np.flatnonzero(np.isin(ctx.machines, away)))] = 0.0
        if ctx.windows_ahead:       # nor to one where it would run into a known window
            for row, task in enumerate(tasks):
                if task.id in ctx.waiting:
                    matrix[row, ~ctx.clear_of_windows(task, ctx.machines)] = 0.0
        pre = prematch(matrix, state.needs, state.copies, self.knapsack,
                       fixed=state.running if not self.preemption else None)
        sharing = self.plan_sharing(ctx.exclusive)
        if sharing == "slots":
            plan = self._fill_rooms(ctx, tasks, None, pre.matrix)
        else:
            plan = self._match(pre.matrix, [task.id for task in tasks])
            if sharing == "rounds":
                plan = self._fill_rooms(ctx, tasks, plan, pre.matrix)
        if self.preemption:
            preempt_off_plan(ctx, tasks, plan)
        self._start_matched(ctx, tasks, plan, pre.matrix)

    def plan_sharing(self, exclusive: bool) -> str:
        """The plan's kind: ``sharing``, or for ``auto`` ``one`` (exclusive allocation or
        preemption) or ``slots``."""
        if self.sharing != "auto":
            return self.sharing
        return "one" if exclusive or self.preemption else "slots"

    def _match(self, matrix: np.ndarray, keys: list[int]) -> Matching:
        """The pass's plan: MIS, MFS from scratch, or MFS from the previous plan."""
        if self.matching == "mis":
            return mis(matrix)
        if self.incremental:
            return self._matcher.match(matrix, keys=keys)
        return self._counted_mfs(matrix)

    def _counted_mfs(self, matrix: np.ndarray) -> Matching:
        """:func:`.matching.mfs`; with ``count_work``, its work counted by
        :func:`.matching.scratch_work` (the counting's time kept apart)."""
        if self.count_work:
            began = time.perf_counter()
            paths, entries = scratch_work(matrix)
            self._mfs_paths += paths
            self._mfs_entries += entries
            self._count_seconds += time.perf_counter() - began
        return mfs(matrix)

    def statistics(self) -> dict[str, float]:
        """The matching's work over the run (thesis Figs. 23–24 in operations, our count):
        augmenting paths grown and matrix entries touched by IMFS
        (:class:`.matching.IncrementalMatcher`), plus, with ``count_work``, by every MFS
        from scratch (:func:`.matching.scratch_work`, the space-sharing rounds' included)
        and the seconds that counting took (part of the policy's time, not of the plan's).
        MIS is not counted; without ``count_work`` a run that never used IMFS reports
        nothing."""
        if not (self.count_work or self._matcher.augmentations):
            return {}
        return {"matching_augmenting_paths": self._matcher.augmentations + self._mfs_paths,
                "matching_entries_touched": self._matcher.entries_touched + self._mfs_entries,
                "matching_count_seconds": round(self._count_seconds, 6)}

    def _fill_rooms(self, ctx: GridContext, tasks: list[GridTask], plan: Matching | None,
                    matrix: np.ndarray) -> Matching:
        """Queued jobs placed into the machines' room now (space sharing, our reading).

        A machine's room is its CPUs free now (exclusive allocation: room for
        one job of width 1 if idle, none if busy or out of service); running jobs keep their
        machines.  With a one-job-per-machine ``plan`` (``sharing="rounds"``),
        its queued jobs take their machine's room first, by decreasing entry
        while they fit, and the others are placed by matching rounds
        (:func:`.matching.matching_rounds`, one job per machine a round);
        without (``"slots"``), every queued job is placed by rounds over
        machine slots.  MFS or MIS as ``matching``.
        """
        columns = ctx.machines
        if ctx.exclusive:
            width = np.ones(len(tasks), dtype=np.int64)
            room = ((ctx.jobs_on[columns] == 0) & (ctx.free_cpus[columns] > 0)).astype(np.int64)
        else:
            width = np.array([task.width for task in tasks], dtype=np.int64)
            room = ctx.free_cpus[columns].astype(np.int64)
        queued = np.array([task.id in ctx.waiting for task in tasks])
        kept_rows: list[int] = []
        kept_columns: list[int] = []
        if plan is not None:
            entries = matrix[plan.rows, plan.columns]
            for k in np.lexsort((plan.rows, -entries)).tolist():
                row, column = int(plan.rows[k]), int(plan.columns[k])
                if queued[row] and width[row] <= room[column]:
                    room[column] -= width[row]
                    kept_rows.append(row)
                    kept_columns.append(column)
        left = np.flatnonzero(queued)
        left = left[~np.isin(left, kept_rows)]
        more = matching_rounds(matrix[left], width[left], room,
                               mis if self.matching == "mis" else self._counted_mfs,
                               slots=plan is None)
        rows = np.concatenate([np.asarray(kept_rows, dtype=np.int64), left[more.rows]])
        chosen = np.concatenate([np.asarray(kept_columns, dtype=np.int64), more.columns])
        return Matching(rows, chosen, float(matrix[rows, chosen].sum()))

    @staticmethod
    def _start_matched(ctx: GridContext, tasks: list[GridTask], plan: Matching,
                       matrix: np.ndarray) -> None:
        """Start the queued jobs of ``plan`` whose machine can take them now, by decreasing
        entry of ``matrix`` (ties: the earlier row); the others stay queued."""
        columns = ctx.machines
        entries = matrix[plan.rows, plan.columns]
        for k in np.lexsort((plan.rows, -entries)).tolist():
            task = tasks[int(plan.rows[k])]
            machine = int(columns[plan.columns[k]])
            if task.id in ctx.waiting and ctx.fits_now(task, machine):
                ctx.start(task, machine)


def cluster_state(ctx: GridContext, tasks: list[GridTask]) -> ClusterState:
    """The :class:`ClusterState` of ``ctx``'s cluster holding ``tasks`` (running and queued).

    A running job's estimate still to run is its estimate times the part of
    its expected time on its machine not yet elapsed (``progress``, eq. 3.9;
    0 once past its expected end; a resumption's overhead is not progress).
    The engine has no network model: every link gets the same bandwidth, and
    every job a unit input (with one bandwidth the Input heuristic does not
    depend on the size), on the cluster's storage for a job never started,
    on its machine for a running one, and on the machine it left for a
    preempted one (its partial results, §3.2.2 Input).
    """
    platform, cluster, now = ctx.platform, ctx.cluster, ctx.now
    columns = ctx.machines
    column_of = np.full(len(platform.cpus), QUEUED, dtype=np.int64)
    column_of[columns] = np.arange(len(columns))
    at = np.fromiter((t.index for t in tasks), dtype=np.intp, count=len(tasks))
    fixed = ctx.columns
    on = np.fromiter((t.machine for t in tasks), dtype=np.int64, count=len(tasks))
    machine = np.where(on >= 0, column_of[on], QUEUED)
    estimate = _estimates_left(tasks, on, now)
    left_from = np.fromiter((t.preempted_from if t.machine < 0 else -1 for t in tasks),
                            dtype=np.int64, count=len(tasks))
    left = np.where(left_from >= 0, column_of[left_from], STORAGE)
    location = np.where(machine == QUEUED, left, machine)
    return ClusterState(now=now, estimate_left=estimate, job_rating=fixed.rating[at],
                        width=fixed.width[at], submit=fixed.submit[at],
                        deadline=fixed.deadline[at], needs=fixed.needs[at],
                        machine=machine, input_size=np.ones(len(tasks)),
                        input_location=location, cpus=platform.cpus[columns],
                        rating=platform.rating[columns], bandwidth=np.ones(len(columns)),
                        usable=platform.usable[:, columns], copies=platform.copies[cluster])


def _estimates_left(tasks: list[GridTask], machine: np.ndarray, now: int) -> np.ndarray:
    """``estimated x (1 - progress)`` per task at the job's own rating (eq. 3.9); a queued
    task (``machine`` -1) has made no progress, a running one none before its resumption's
    overhead, all of it at its expected end."""
    count = len(tasks)
    estimate = np.fromiter((t.estimate_left for t in tasks), dtype=np.float64, count=count)
    running = np.flatnonzero(machine >= 0)
    if not running.size:
        return estimate
    ran = [tasks[k] for k in running.tolist()]
    began = np.fromiter((t.start + t.overhead for t in ran), dtype=np.int64, count=len(ran))
    span = np.fromiter((t.expected_end for t in ran), dtype=np.int64, count=len(ran)) - began
    elapsed = np.maximum(now - began, 0)
    progress = np.minimum(1.0, elapsed / np.where(span > 0, span, 1))
    estimate[running] = np.where(span > 0, estimate[running] * (1.0 - progress), 0.0)
    return estimate


__all__ = ["MATCHINGS", "SHARINGS", "ConvergentScheduling", "cluster_state"]
