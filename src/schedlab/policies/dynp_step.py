"""Self-tuning dynP's state and step, compiled (numba) (Streit 2002, §3.2).

A self-tuning step builds one full schedule per candidate policy from the
running jobs' profile, measures each and adopts the best.  On SDSC-BLUE
that is 360,000 steps of a few dozen waiting jobs each: the placements
themselves (28 million) cost about 7 s compiled, and the Python around
them (building the running jobs' profile, the queues as arrays, a dozen
small numpy calls for the quality metrics, the plan as a heap) cost three
times as much (measured: bench/DYNP.md).  So dynP keeps everything a
step reads in arrays for the whole run (:class:`TuningState`):

* the jobs as columns by arrival number (id, width, estimate, submit time,
  start);
* the waiting queue in every static candidate order, one row each, kept
  in order at every arrival and start (arrival order for FCFS; estimate,
  then submit time, then id for SJF and its reverse for LJF: the keys of
  :mod:`schedlab.policies.orderings`);
* the running jobs' profile (:meth:`Profile.from_releases
  <schedlab.engine.profile.Profile.from_releases>` of the running jobs),
  edited at every start and early end with the same breakpoint splits and
  merges as the Profile, when the run allows it (overrun ``"kill"``, no
  advance reservations: a job then holds its processors exactly until its
  start plus its estimate, or less).

One compiled call (:meth:`TuningState.tune`) then places every distinct
candidate queue on its own copy of that profile (the earliest fit of
:meth:`Profile.place <schedlab.engine.profile.Profile.place>`, job by job
in the queue's order: the schedule generation of CCS, §5), and gives for
each the integer sums the exact quality metrics are made of and its plan
as (start, job id) pairs arranged as a heap, ready to be the planning
scheduler's heap.  Where the running jobs' profile is kept and the metric
is one exact metric as it is, :meth:`TuningState.step` also decides in
that call (the deciders of :mod:`schedlab.policies.deciders`, compiled
as they are) and starts the chosen schedule's due jobs in the state;
otherwise the metric and the decider run in Python.

The planning scheduler (:mod:`schedlab.policies.planning`: ``+plan`` and
basic dynP) keeps the same state where the running jobs' profile is kept
and its orders are static: its rebuild at a job end is :meth:`TuningState.step`
without a decision, which places only the current order's queue.

This module imports numba, so dynP and such a planning scheduler import it
at their first submission;
``cache=True`` keeps the machine code on disk: only the very first run
compiles.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from heapq import heapify
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import (
    ArrayProfile,
    as_arrays,
    as_profile,
    change,
    discard_before,
    grown,
    place,
    step_at,
)
from schedlab.policies.deciders import best_candidate, table1_case_number
from schedlab.policies.dynp_metrics import ScheduleSums

if TYPE_CHECKING:
    from schedlab.engine.profile import Profile
    from schedlab.workload.job import Job

#: Rows of :attr:`TuningState.columns`, one column per job by arrival number.
ID, WIDTH, ESTIMATE, SUBMIT, STARTED, PLACED = range(6)
#: How a row of :attr:`TuningState.queues` is ordered: by arrival (FCFS), by
#: (estimate, submit, id) (SJF), by (-estimate, submit, id) (LJF), or
#: written by the policy before every step (orders that change with time).
ARRIVAL, SHORTEST, LONGEST, GIVEN = range(4)
STATIC_KINDS = {"fcfs": ARRIVAL, "sjf": SHORTEST, "ljf": LONGEST}
#: Columns of the facts :func:`_tune` gives per candidate: the first candidate
#: with the same queue (they share one schedule), the length of its profile,
#: the sums the exact quality metrics are made of (:class:`ScheduleSums`: sum
#: of width x response, sum of responses, sum of waits, the last planned end
#: (-1 with no job), the width of all waiting jobs), how many jobs it starts
#: at once and the earliest start of the others (-1: none).
SAME, SIZE, WEIGHTED_RESPONSE, RESPONSE, WAIT, LAST_END, WIDTH_TOTAL, DUE, NEXT = range(9)
FACTS = 9
#: The fact each exact quality metric orders the candidates by (:meth:`TuningState.step`):
#: ARTwW, ART and the mean wait divide it by a total all candidates share (the waiting
#: jobs' widths, their number), the makespan is it or the last running job's end.
ORDERING_FACT = {"artww": WEIGHTED_RESPONSE, "art": RESPONSE, "wait": WAIT, "ms": LAST_END}
#: Below this, every sum of :data:`ORDERING_FACT` is compared exactly as the metric's float:
#: Python's int / int is correctly rounded, so two sums under 2**52 over the same total
#: give floats in the same order, equal only if the sums are (the gap 1 / total exceeds
#: the float's spacing there).  A step with a larger sum decides on the floats instead.
EXACT_ORDER_BELOW = 2 ** 52


class Decision(NamedTuple):
    """How a compiled step decides (:meth:`TuningState.step`), for one exact metric as it is.

    ``fact``: the column of :data:`ORDERING_FACT` the candidates are
    ordered by; ``keep_current``: the advanced decider (the current policy
    kept on ties, :func:`~schedlab.policies.deciders.best_candidate`);
    ``table1``: count the Table 1 case (the paper's three candidates).
    """

    fact: int
    keep_current: bool
    table1: bool

    @classmethod
    def by(cls, metric: str, keep_current: bool, table1: bool) -> Decision:
        """The decision by the exact quality metric ``metric`` (a key of :data:`ORDERING_FACT`)."""
        return cls(ORDERING_FACT[metric], keep_current, table1)


#: What :meth:`TuningState.step` passes the compiled call when it does not decide.
NO_DECISION = Decision(WEIGHTED_RESPONSE, False, False)


class TuningState:
    """What a self-tuning step reads, as numpy arrays kept up to date for the whole run.

    ``columns`` (rows :data:`ID` … :data:`PLACED`) by arrival number;
    ``queues[row, :waiting]`` the waiting jobs' arrival numbers in the
    order of ``kinds[row]`` (row 0 is the arrival order); ``rows[c]`` the
    row of candidate ``c`` (candidates of one static order share a row;
    ``given`` names the candidates whose order the policy writes before
    every step, :meth:`give`).  With ``tracks_running``, ``running`` is the
    running jobs' profile (an :class:`~schedlab.engine.profile_kernels.ArrayProfile`)
    from the last instant it was edited on.

    What the state can run in one compiled call is fixed at construction:
    with the running jobs tracked and no given order it builds and starts
    a schedule by itself (``compiled``, :meth:`step`), and with a
    :class:`Decision` it also decides (``decision``; None otherwise):
    :meth:`tuning_step` is then the whole self-tuning step.
    """

    __slots__ = (
        "arrival_of",
        "capacity",
        "columns",
        "compiled",
        "decision",
        "facts",
        "given_candidates",
        "job_room",
        "jobs",
        "kinds",
        "plans",
        "queues",
        "rows",
        "running",
        "starts",
        "step_room",
        "steps",
        "tracks_running",
        "waiting",
    )

    def __init__(self, capacity: int, candidates: Sequence[str], given: Collection[str],
                 tracks_running: bool, decision: Decision | None = None) -> None:
        kinds = [ARRIVAL]
        rows = []
        for policy in candidates:
            kind = GIVEN if policy in given else STATIC_KINDS.get(policy, GIVEN)
            if kind == GIVEN or kind not in kinds:
                kinds.append(kind)
            rows.append(len(kinds) - 1 if kind == GIVEN else kinds.index(kind))
        self.capacity = capacity
        self.columns = np.empty((6, 1024), np.int64)
        self.jobs: list[Job] = []
        self.arrival_of: dict[int, int] = {}          # job id -> arrival number, until it ends
        self.kinds = np.array(kinds, np.int64)
        self.rows = np.array(rows, np.int64)
        self.given_candidates = [c for c, row in enumerate(rows) if kinds[row] == GIVEN]
        self.queues = np.empty((len(kinds), 256), np.int64)
        self.waiting = 0
        self.tracks_running = tracks_running
        self.running = ArrayProfile(capacity, 0)
        self.compiled = tracks_running and not self.given_candidates
        self.decision = decision if self.compiled else None
        # What a step writes (Tuned), kept for the run: arrays made and returned by the
        # compiled call would cost more than the placements of a short queue.
        self.facts = np.zeros((len(rows), FACTS), np.int64)
        self.starts = np.empty((len(rows), 256), np.int64)
        self.plans = np.empty((len(rows), 2, 256), np.int64)
        self.steps = np.empty((len(rows), 2, 256), np.int64)
        self.job_room = self.step_room = 256        # their last axes' lengths

    # ------------------------------------------------------------ the queues
    def enter(self, job: Job) -> None:
        """Take an arriving job into every static queue row."""
        arrival = len(self.jobs)
        if arrival == self.columns.shape[1]:
            self.columns = grown(self.columns, arrival + 1)
        if self.waiting == self.queues.shape[1]:
            self.queues = grown(self.queues, self.waiting + 1)
        _enter(self.columns, self.queues, self.kinds, self.waiting, arrival, job.id, job.width,
               job.estimate, job.submit)
        self.jobs.append(job)
        self.arrival_of[job.id] = arrival
        self.waiting += 1

    def leave(self, started: Sequence[Job], now: int) -> None:
        """Take jobs just started out of the queues (and into the running jobs' profile).

        A job a compiled step took out already (:meth:`step`) is left as it is.
        """
        if not started:
            return
        arrival_of = self.arrival_of
        arrivals = np.array([arrival_of[job.id] for job in started], np.int64)
        running = self.running
        running.make_room(2 * len(arrivals) + 2)
        running.size, left = _leave(self.columns, self.queues, self.kinds, self.waiting, arrivals,
                                    now, self.tracks_running, running.times, running.free,
                                    running.size)
        self.waiting -= left

    def withdraw(self, job: Job, now: int) -> None:
        """Take a job cancelled while it waited out of the queues: it never runs."""
        arrivals = np.array([self.arrival_of.pop(job.id)], np.int64)
        running = self.running
        running.size, left = _leave(self.columns, self.queues, self.kinds, self.waiting,
                                    arrivals, now, False, running.times, running.free,
                                    running.size)
        self.waiting -= left

    def ended(self, job: Job, now: int) -> None:
        """A running job ended at ``now``: its processors are free from now on."""
        arrival = self.arrival_of.pop(job.id)
        if self.tracks_running:
            running = self.running
            running.make_room(2)
            running.size = _ended(self.columns, arrival, now, running.times, running.free,
                                  running.size)

    def is_given(self, candidate: int) -> bool:
        """Whether the candidate's order is written by the policy before every step."""
        return candidate in self.given_candidates

    def queue_of(self, candidate: int) -> np.ndarray:
        """The arrival numbers of the waiting jobs in the candidate's order."""
        return self.queues[self.rows[candidate], :self.waiting]

    def give(self, candidate: int, arrivals: Sequence[int]) -> None:
        """Write a :meth:`given <is_given>` candidate's order (arrival numbers) before a step."""
        self.queues[self.rows[candidate], :self.waiting] = arrivals

    def jobs_at(self, arrivals: np.ndarray) -> list[Job]:
        jobs = self.jobs
        return [jobs[arrival] for arrival in arrivals.tolist()]

    def ids_at(self, arrivals: np.ndarray) -> list[int]:
        return self.columns[ID, arrivals].tolist()

    def arrival_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The waiting jobs' widths, estimates and submit times, in arrival order."""
        arrivals = self.queues[0, :self.waiting]
        return (self.columns[WIDTH, arrivals], self.columns[ESTIMATE, arrivals],
                self.columns[SUBMIT, arrivals])

    # ---------------------------------------------------------- the profile
    def running_profile(self, now: int) -> Profile:
        """The running jobs' profile from ``now`` as a :class:`Profile` (``tracks_running`` only)."""
        return self.running.profile(now)

    def running_end(self, now: int) -> int:
        """When the last running job is expected to end (``now`` with none running)."""
        return max(self.running.last_time(), now)

    def tuning_step(self, now: int, current: int,
                    fixed: Callable[[], Profile]) -> tuple[Tuned, int, int]:
        """A self-tuning step as far as the state can take it; as :meth:`step` returns.

        With a :class:`Decision`: :meth:`step`, deciding when two jobs or
        more wait.  Without: every candidate's schedule (:meth:`tune`) from
        the running jobs' profile, or from ``fixed()`` where the state does
        not keep it, and chosen -1: the caller measures and decides.
        """
        if self.decision is not None:
            return self.step(now, current, self.waiting >= 2)
        return self.tune(now, None if self.tracks_running else fixed()), -1, -1

    def tune(self, now: int, fixed: Profile | None = None) -> Tuned:
        """Every candidate's schedule from ``fixed`` (the running jobs' profile when None).

        The :class:`Tuned` reads the state's step arrays: it holds until the next step.
        """
        if fixed is None:
            running = self.running
            times, free, size = running.times, running.free, running.size
        else:
            times, free, size = as_arrays(fixed, 0)
        self._make_room(size)
        _tune(times, free, size, now, self.columns, self.queues, self.rows, self.waiting,
              self.facts, self.starts, self.plans, self.steps, -1)
        return Tuned(self.capacity, self.waiting, now, self.facts, self.starts, self.plans,
                     self.steps)

    def step(self, now: int, current: int, decide: bool) -> tuple[Tuned, int, int]:
        """A whole self-tuning step in one compiled call: place, measure, decide, start.

        Only where the state is ``compiled``; ``decide`` needs a
        ``decision``.  Every candidate's schedule from the running jobs'
        profile as :meth:`tune`; the candidates ordered by the decision's
        integer fact (:data:`ORDERING_FACT`: the order of the exact metric's
        values), the decider's choice among them
        (:func:`~schedlab.policies.deciders.best_candidate`, from the policy
        at position ``current``), the Table 1 case when the decision counts
        it; and the chosen schedule's jobs due now taken out of the queues
        into the running jobs' profile, as :meth:`leave` would.  Returns the step (:meth:`Tuned.choose` done),
        the chosen candidate and the case number
        (:func:`~schedlab.policies.deciders.table1_case_number`, -1 without
        ``table1``); chosen -1 when a sum reached :data:`EXACT_ORDER_BELOW`:
        nothing was decided nor started, nor chosen.  Without ``decide``
        only the current policy's schedule is built and kept, and no case
        counted: a step with fewer than two jobs waiting (every order gives
        the same schedule) or the planning scheduler's rebuild.
        """
        running = self.running
        waiting = self.waiting
        running.make_room(2 * waiting + 2)
        self._make_room(running.size)
        fact, keep_current, table1 = self.decision or NO_DECISION
        chosen, case, size, row, length, due, upcoming = _step(
            running.times, running.free, running.size, now, self.columns, self.queues,
            self.kinds, self.rows, waiting, self.facts, self.starts, self.plans, self.steps,
            fact, current, keep_current, table1, decide)
        tuned = Tuned(self.capacity, waiting, now, self.facts, self.starts, self.plans,
                      self.steps)
        if chosen >= 0:
            running.size = size
            self.waiting -= due
            tuned.chosen_as(chosen, True, row, length, due, upcoming)
        return tuned, chosen, case

    def _make_room(self, size: int) -> None:
        """Step arrays large enough for the waiting jobs on a fixed part of ``size`` breakpoints."""
        if self.waiting > self.job_room:
            self.starts = grown(self.starts, self.waiting)
            self.plans = grown(self.plans, self.waiting)
            self.job_room = self.starts.shape[1]
        if size + 2 * self.waiting + 2 > self.step_room:
            self.steps = grown(self.steps, size + 2 * self.waiting + 2)
            self.step_room = self.steps.shape[2]


class Tuned:
    """One step's candidate schedules (:func:`_tune`) at instant ``now``, read for the chosen one.

    ``facts[c]``: the first candidate whose queue equals candidate ``c``'s
    (:data:`SAME`), the length of its profile, its sums and its due jobs
    (:data:`SIZE` … :data:`NEXT`); ``starts[c, i]`` the start of the
    ``i``-th of the ``waiting`` jobs in arrival order; ``plans[c]`` the
    (start, job id) pairs, first the jobs due at the step's instant (by job
    id), then the others arranged as a heap; ``steps[c]`` the profile after
    the placements.  The arrays are the state's, written anew by every step:
    a Tuned is read before the next step or not at all, which the policy
    ensures by adopting each step's schedule in place of the last.

    :meth:`choose` names the adopted candidate; the plan's methods
    (:meth:`plan`, :meth:`later`, :meth:`profile`, …) read its schedule, so
    that the policy can hold them as they are, to be called if ever needed.
    ``left``: the step took the chosen schedule's due jobs out of the state.
    """

    __slots__ = (
        "_due",
        "_next",
        "_row",
        "_size",
        "capacity",
        "chosen",
        "facts",
        "left",
        "now",
        "plans",
        "starts",
        "steps",
        "waiting",
    )

    def __init__(self, capacity: int, waiting: int, now: int, facts: np.ndarray,
                 starts: np.ndarray, plans: np.ndarray, steps: np.ndarray) -> None:
        self.capacity = capacity
        self.waiting = waiting
        self.now = now
        self.facts = facts
        self.starts = starts
        self.plans = plans
        self.steps = steps
        self.left = False

    def choose(self, candidate: int, left: bool) -> None:
        """The candidate whose schedule is adopted; ``left``: its due jobs left the state."""
        facts = self.facts[candidate].tolist()
        self.chosen_as(candidate, left, facts[SAME], facts[SIZE], facts[DUE], facts[NEXT])

    def chosen_as(self, candidate: int, left: bool, row: int, size: int, due: int,
                  upcoming: int) -> None:
        """:meth:`choose` with the candidate's facts given (:data:`SAME`, :data:`SIZE`, …)."""
        self.chosen = candidate
        self.left = left
        self._row, self._size, self._due, self._next = row, size, due, upcoming

    def schedule_sums(self) -> ScheduleSums:
        """The candidates' sums as the exact quality metrics read them (one entry each)."""
        columns = self.facts.T.tolist()
        return ScheduleSums(columns[WEIGHTED_RESPONSE], columns[RESPONSE], columns[WAIT],
                            columns[LAST_END], self.waiting, columns[WIDTH_TOTAL][0])

    def candidate_starts(self) -> np.ndarray:
        """``starts[c, i]``: candidate ``c``'s start of the ``i``-th waiting job (arrival order)."""
        return self.starts[:, :self.waiting]

    def newest_starts(self, count: int) -> list[int]:
        """The chosen schedule's starts of the ``count`` newest waiting jobs, in arrival order."""
        return self.starts[self.chosen, self.waiting - count:self.waiting].tolist()

    def plan(self) -> list[tuple[int, int]]:
        """The chosen whole plan as a heap of (start, job id)."""
        starts, ids = self.plans[self._row, :, :self.waiting].tolist()
        plan = list(zip(starts, ids))
        heapify(plan)
        return plan

    def due(self) -> list[tuple[int, int]]:
        """The (start, job id) of the chosen plan's jobs due at the step's instant, by job id."""
        if not self._due:
            return []
        starts, ids = self.plans[self._row, :, :self._due].tolist()
        return list(zip(starts, ids))

    def later(self) -> list[tuple[int, int]]:
        """The chosen plan without its due jobs, as a heap of (start, job id)."""
        starts, ids = self.plans[self._row, :, self._due:self.waiting].tolist()
        return list(zip(starts, ids))

    def upcoming(self) -> int | None:
        """The earliest start after the step's instant in the chosen plan (None: none)."""
        return self._next if self._next >= 0 else None

    def profile(self) -> Profile:
        """The profile after the chosen schedule's placements, as a :class:`Profile`."""
        times, free = self.steps[self._row, :, :self._size]
        return as_profile(self.capacity, times, free)


# ------------------------------------------------------------- compiled code
@njit(cache=True)
def _precedes(columns, kind, a, b):  # pragma: no cover
    """Whether job ``a`` comes before job ``b`` (arrival numbers) in a queue of ``kind``.

    SJF: (estimate, submit, id); LJF: (-estimate, submit, id)
    (:func:`schedlab.policies.orderings.sjf_key`, ``ljf_key``).
    """
    if kind == ARRIVAL:
        return a < b
    ea, eb = columns[ESTIMATE, a], columns[ESTIMATE, b]
    if ea != eb:
        return ea < eb if kind == SHORTEST else ea > eb
    sa, sb = columns[SUBMIT, a], columns[SUBMIT, b]
    if sa != sb:
        return sa < sb
    return columns[ID, a] < columns[ID, b]


@njit(cache=True)
def _enter(columns, queues, kinds, waiting, arrival, job_id, width, estimate,
           submit):  # pragma: no cover
    """Write the job's column and insert it into every static row at its place."""
    columns[ID, arrival] = job_id
    columns[WIDTH, arrival] = width
    columns[ESTIMATE, arrival] = estimate
    columns[SUBMIT, arrival] = submit
    columns[STARTED, arrival] = -1
    for row in range(len(kinds)):
        kind = kinds[row]
        if kind == GIVEN:
            continue
        queue = queues[row]
        lo, hi = 0, waiting                      # bisect: the first job after the new one
        while lo < hi:
            mid = (lo + hi) // 2
            if _precedes(columns, kind, queue[mid], arrival):
                lo = mid + 1
            else:
                hi = mid
        for m in range(waiting, lo, -1):
            queue[m] = queue[m - 1]
        queue[lo] = arrival


@njit(cache=True)
def _leave(columns, queues, kinds, waiting, arrivals, now, track, times, free,
           size):  # pragma: no cover
    """Mark ``arrivals`` started at ``now``, drop them from the static rows; book them when tracking.

    Jobs marked started before are skipped (``arrivals`` is scratch).
    Returns the running profile's new length and the number of jobs taken out.
    """
    left = 0
    for arrival in arrivals:
        if columns[STARTED, arrival] < 0:
            columns[STARTED, arrival] = now
            arrivals[left] = arrival
            left += 1
    if left == 0:
        return size, 0
    for row in range(len(kinds)):
        if kinds[row] == GIVEN:                  # written anew before every step
            continue
        queue = queues[row]
        kept = 0
        for m in range(waiting):
            arrival = queue[m]
            if columns[STARTED, arrival] < 0:
                queue[kept] = arrival
                kept += 1
    if track:
        size = discard_before(times, free, size, now)
        for m in range(left):
            arrival = arrivals[m]
            size = change(times, free, size, now, columns[ESTIMATE, arrival],
                          -columns[WIDTH, arrival])
    return size, left


@njit(cache=True)
def _ended(columns, arrival, now, times, free, size):  # pragma: no cover
    """Give back a job's processors from ``now`` to its expected end; the new length."""
    size = discard_before(times, free, size, now)
    expected = columns[STARTED, arrival] + columns[ESTIMATE, arrival]
    if expected > now:
        size = change(times, free, size, now, expected - now, columns[WIDTH, arrival])
    return size


@njit(cache=True)
def _same_queue(queues, a, b, waiting):  # pragma: no cover
    for m in range(waiting):  # noqa: SIM110 (numba compiles no generator)
        if queues[a, m] != queues[b, m]:
            return False
    return True


@njit(cache=True)
def _tune(times, free, size, now, columns, queues, rows, waiting, facts, starts, plans,
          steps, only):  # pragma: no cover
    """Every distinct candidate queue placed on its own copy of the profile from ``now``.

    Candidate ``c`` places ``queues[rows[c], :waiting]``, job by job, each at
    its earliest fit (:func:`~schedlab.engine.profile_kernels.place`).
    Writes ``facts``, ``starts``, ``plans``, ``steps`` (:class:`Tuned`; room
    for ``waiting`` jobs and ``size + 2 * waiting + 2`` breakpoints);
    ``columns[PLACED]`` is scratch.  With ``only`` >= 0, only that
    candidate is placed (the others' facts stay 0, :data:`SAME` -1).
    """
    count = len(rows)
    first = step_at(times, size, now)
    base = size - first
    facts[:, :] = 0
    arrival_order = queues[0]
    placed = columns[PLACED]
    for c in range(count):
        if only >= 0 and c != only:
            facts[c, SAME] = -1
            continue
        facts[c, SAME] = c
        for d in range(c):
            if facts[d, SAME] == d and _same_queue(queues, rows[c], rows[d], waiting):
                facts[c] = facts[d]
                starts[c, :waiting] = starts[d, :waiting]
                break
        if facts[c, SAME] != c:
            continue
        steps_t, steps_f = steps[c, 0], steps[c, 1]
        steps_t[:base] = times[first:size]
        steps_f[:base] = free[first:size]
        steps_t[0] = now
        length = base
        queue = queues[rows[c]]
        for m in range(waiting):
            job = queue[m]
            start, length = place(steps_t, steps_f, length, columns[WIDTH, job],
                                  columns[ESTIMATE, job], now)
            placed[job] = start
        facts[c, SIZE] = length
        last_end = -1
        due = 0
        for i in range(waiting):
            if placed[arrival_order[i]] == now:
                due += 1
        facts[c, DUE] = due
        plan_starts, plan_ids = plans[c, 0], plans[c, 1]
        early, late = 0, due
        for i in range(waiting):
            job = arrival_order[i]
            start = placed[job]
            estimate, submit = columns[ESTIMATE, job], columns[SUBMIT, job]
            starts[c, i] = start
            at = early if start == now else late
            plan_starts[at] = start
            plan_ids[at] = columns[ID, job]
            if start == now:
                early += 1
            else:
                late += 1
            response = start + estimate - submit
            facts[c, WEIGHTED_RESPONSE] += columns[WIDTH, job] * response
            facts[c, RESPONSE] += response
            facts[c, WAIT] += start - submit
            facts[c, WIDTH_TOTAL] += columns[WIDTH, job]
            if start + estimate > last_end:
                last_end = start + estimate
        facts[c, LAST_END] = last_end
        plan_ids[:due].sort()                    # the due jobs, by job id
        _heapify(plan_starts[due:], plan_ids[due:], waiting - due)
        facts[c, NEXT] = plan_starts[due] if due < waiting else -1


_best_candidate = njit(cache=True)(best_candidate)
_table1_case_number = njit(cache=True)(table1_case_number)


@njit(cache=True)
def _step(times, free, size, now, columns, queues, kinds, rows, waiting, facts, starts, plans,
          steps, fact, current, keep_current, table1, decide):  # pragma: no cover
    """:meth:`TuningState.step`: :func:`_tune`, the decision, the chosen schedule's due jobs started.

    Writes ``facts, starts, plans, steps`` (:func:`_tune`); returns the
    chosen candidate (-1: a sum too large to order exactly), the Table 1
    case number, the running profile's new length and the chosen
    candidate's :data:`SAME`, :data:`SIZE`, :data:`DUE` (the jobs started)
    and :data:`NEXT`.
    """
    _tune(times, free, size, now, columns, queues, rows, waiting, facts, starts, plans, steps,
          -1 if decide else current)
    chosen, case = current, -1
    if decide:
        count = len(rows)
        running_end = max(times[size - 1], now)
        keys = np.empty(count, np.int64)
        for c in range(count):
            key = facts[c, fact]
            if fact == LAST_END and running_end > key:
                key = running_end
            if key >= EXACT_ORDER_BELOW:
                return -1, -1, size, 0, 0, 0, -1
            keys[c] = key
        chosen = _best_candidate(keys, current, keep_current)
        if table1:
            case = _table1_case_number(keys[0], keys[1], keys[2], current)
    due = facts[chosen, DUE]
    if due:
        arrivals = np.empty(due, np.int64)
        arrival_order = queues[0]
        found = 0
        for i in range(waiting):
            if starts[chosen, i] == now:
                arrivals[found] = arrival_order[i]
                found += 1
        size, _ = _leave(columns, queues, kinds, waiting, arrivals, now, True, times, free, size)
    return (chosen, case, size, facts[chosen, SAME], facts[chosen, SIZE], due,
            facts[chosen, NEXT])


@njit(cache=True)
def _heapify(starts, ids, count):  # pragma: no cover
    """Arrange the pairs (starts[i], ids[i]) as :func:`heapq.heapify` would need: a min-heap."""
    for top in range(count // 2 - 1, -1, -1):
        k = top
        while True:
            child = 2 * k + 1
            if child >= count:
                break
            if child + 1 < count and _before(starts, ids, child + 1, child):
                child += 1
            if not _before(starts, ids, child, k):
                break
            starts[k], starts[child] = starts[child], starts[k]
            ids[k], ids[child] = ids[child], ids[k]
            k = child


@njit(cache=True)
def _before(starts, ids, a, b):  # pragma: no cover
    return starts[a] < starts[b] or (starts[a] == starts[b] and ids[a] < ids[b])
