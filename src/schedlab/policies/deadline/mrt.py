"""MRT: the modified real-time algorithm (Islam et al., §2.2.2, Fig. 2; Ramamritham et al. 1990).

At every arrival the whole plan is rebuilt: the waiting jobs and the new one
are sorted by the heuristic (EDF or LLF) and the plan is grown from the
empty partial schedule (the running jobs only), one job at a time, each at
its earliest fit.  A partial schedule is **strongly feasible** when every job
in it meets its deadline and it "would remain feasible when extended by any
one of the unscheduled jobs" — every job not yet placed could still be
placed at its earliest fit and end by its deadline.

The search is Ramamritham's: extend the partial schedule with the first
remaining job in heuristic order; if the result is not strongly feasible,
undo it and try the next remaining job instead; if no remaining job gives a
strongly feasible extension, undo the previous extension as well and try the
job after it.  Every undone extension is one **backtrack**; more than
``backtracks`` of them, or a search that runs out of alternatives, rejects
the new job and keeps the old plan (Fig. 2, step E.ii).  The job is
admitted as soon as every job is placed (step F).

Why it is exact but cheaper than it looks: strong feasibility needs to know
only that every unplaced job can still end in time.  Each keeps a
**witness**, a start at which it fits and ends in time, and a lower bound
of its earliest fit (adding a reservation never makes a fit earlier).  Only
a reservation over a job's witness is looked at: the witness moves to the
job's latest start in time if it fits there, else the earliest fit is
searched from the bound.  A job's earliest fit is searched when it is
placed.  An undo restores bounds and witnesses from a log.  Because the
partial schedule before an extension was strongly feasible, only the
overlapped witnesses can break strong feasibility.

Reuse of the search that made the plan (:func:`_resumed`): the policy keeps
that search's steps and logs (:class:`Trail`).  The next search extends
the partial schedule with the same jobs as long as they come before the new
job in heuristic order and the earlier search had not failed an extension
yet; if nothing changed since but planned starts, and the new job is still
in time there, the next search starts after those steps with the fits the
logs restore, and decides exactly as the search from the empty schedule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deadline.common import (HEURISTICS, INFINITY, AdmissionPolicy,
                                               Decision, HeuristicKey, Plan, TickProfile,
                                               held_time, in_ast_order)

if TYPE_CHECKING:
    from schedlab.workload.job import Job


Log = list[tuple[int, int, float]]     # (job id, lower bound, witness) before a step


class _Search:
    """The state of one MRT search: the partial schedule and what is known of the others' fits.

    For every unplaced job, ``fits`` holds a lower bound of its earliest fit
    and ``witnesses`` a start at which it fits and still ends in time (or
    infinity for a job without a deadline, which cannot be late).  When the
    two are equal the bound is the earliest fit itself.
    """

    def __init__(self, running: Profile, now: int, jobs: list[Job],
                 limits: Mapping[int, float]) -> None:
        self.profile = running.copy()
        self.now = now
        self.limits = limits
        self.remaining = jobs
        fit = self.profile.earliest_fit
        self.fits = {job.id: fit(job.width, job.estimate, now) for job in jobs}
        self.witnesses: dict[int, float] = dict(self.fits)
        self.placements = len(jobs)
        self._set_grid()

    @classmethod
    def resumed(cls, profile: Profile, now: int, jobs: list[Job],
                limits: Mapping[int, float], fits: dict[int, int],
                witnesses: dict[int, float], placements: int) -> _Search:
        """A search whose partial schedule is in ``profile`` (taken, not copied) with known fits.

        ``placements`` counts the fits searched to get there.
        """
        search = cls.__new__(cls)
        search.profile, search.now, search.limits = profile, now, limits
        search.remaining, search.fits, search.witnesses = jobs, fits, witnesses
        search.placements = placements
        search._set_grid()
        return search

    def _set_grid(self) -> None:
        self.tick = self.profile.tick if isinstance(self.profile, TickProfile) else 0
        self.held = held_time(self.profile)

    def hopeless(self) -> bool:
        """Whether some job misses its deadline even at its earliest fit now."""
        fits, limits = self.fits, self.limits
        return any(fits[job.id] + job.estimate > limits[job.id] for job in self.remaining)

    def extend(self, index: int) -> tuple[int, Log] | None:
        """Place ``remaining[index]`` at its earliest fit; keep it if strongly feasible.

        Returns ``(start, undo log)`` on success (the job leaves ``remaining``),
        ``None`` after undoing a failed extension.
        """
        job = self.remaining[index]
        start = self.fits[job.id]
        if self.witnesses[job.id] != start:
            start = self.profile.earliest_fit(job.width, job.estimate, start)
            self.placements += 1
        end = start + job.estimate
        self.profile.reserve(start, job.estimate, job.width)
        log: Log = []
        if self._refit(job, start, end, log):
            del self.remaining[index]
            return start, log
        self.undo(job, start, log)
        return None

    def _latest_start(self, job: Job) -> float:
        """The last start (a tick, in a run with one) at which ``job`` ends in time."""
        latest = self.limits[job.id] - job.estimate
        tick = self.tick
        if tick and latest != INFINITY:
            latest = latest // tick * tick
        return latest

    def _refit(self, placed: Job, start: int, end: int, log: Log) -> bool:
        """Find new witnesses where the new reservation overlaps one; False once a job is late.

        An overlapped witness is replaced by the job's latest start in time
        if it fits there, else by the earliest fit searched from the lower
        bound (which then is the bound as well).
        """
        fits, witnesses = self.fits, self.witnesses
        fit, min_free = self.profile.earliest_fit, self.profile.min_free
        for job in self.remaining:
            witness = witnesses[job.id]
            # The window of a zero-length job still holds its instant (estimate or 1).
            if witness < end and start < witness + (job.estimate or 1) and job is not placed:
                bound = fits[job.id]
                log.append((job.id, bound, witness))
                latest = self._latest_start(job)
                if latest == INFINITY:
                    witnesses[job.id] = INFINITY
                    continue
                if latest < bound:
                    return False
                if latest != witness and \
                        min_free(latest, latest + self.held(job.estimate)) >= job.width:
                    witnesses[job.id] = latest
                    continue
                new = fit(job.width, job.estimate, bound)
                self.placements += 1
                fits[job.id] = witnesses[job.id] = new
                if new > latest:
                    return False
        return True

    def undo(self, job: Job, start: int, log: Log) -> None:
        """Take a placed job out again and restore the bounds and witnesses of its refits."""
        self.profile.release(start, job.estimate, job.width)
        fits, witnesses = self.fits, self.witnesses
        for job_id, bound, witness in reversed(log):
            fits[job_id] = bound
            witnesses[job_id] = witness


Step = tuple["Job", int, Log, int]   # job, start, undo log, index


@dataclass(frozen=True)
class Trail:
    """What a search that made the plan leaves for the next decision (reuse of its prefix).

    ``running`` is the profile of the running jobs it searched on (not
    modified), ``chosen`` its extensions in placement order, ``clean`` how
    many leading ones were made in heuristic order before the search's first
    failed extension, and ``fits`` and ``witnesses`` every job's lower bound
    and witness at the end (:class:`_Search`).  Undoing the logs of
    ``chosen`` from the end restores them for any earlier step, except for
    the jobs in ``untracked``: a job that joined a resumed search, or whose
    bound was moved to its ``now``, is absent from the logs of the steps it
    took over, so ``untracked[id]`` is the number of leading steps its fit is
    not logged in.
    A resumed search starts at ``floor`` steps or later: its first steps
    were taken over without those of jobs that had started meanwhile, so
    its logs describe no state before it.
    """

    running: Profile
    now: int
    chosen: list[Step]
    clean: int
    fits: dict[int, int]
    witnesses: dict[int, float]
    untracked: dict[int, int]
    floor: int = 0


class _UndoesReusedStep(Exception):
    """The search would undo an extension taken over from the previous search."""


def _search(search: _Search, chosen: list[Step], backtracks: int,
            reused: int) -> tuple[int, int]:
    """Ramamritham's search from the partial schedule ``chosen``: (undone, clean prefix).

    Raises :class:`_UndoesReusedStep` instead of undoing one of the first
    ``reused`` extensions (their logs belong to the previous search).
    """
    undone = 0
    clean = -1
    index = 0
    while search.remaining:
        if index < len(search.remaining):
            candidate = search.remaining[index]
            extended = search.extend(index)
            if extended is not None:
                chosen.append((candidate, extended[0], extended[1], index))
                index = 0
                continue
            if clean < 0:
                clean = len(chosen)
            index += 1
        elif len(chosen) > reused:
            last, start, log, index = chosen.pop()
            search.undo(last, start, log)
            search.remaining.insert(index, last)
            clean = min(clean, len(chosen))
            index += 1
        elif chosen:
            raise _UndoesReusedStep
        else:
            break
        undone += 1
        if undone > backtracks:
            break
    return undone, len(chosen) if clean < 0 else clean


def _decision(search: _Search, chosen: list[Step], undone: int, clean: int, now: int,
              running: Profile, backtracks: int,
              untracked: dict[int, int], floor: int) -> tuple[Decision, Trail | None]:
    """The decision of a finished search, and its :class:`Trail` if it admitted the job."""
    if search.remaining:
        return Decision(None, f"no strongly feasible schedule within {backtracks} backtracks",
                        search.placements, detail={"backtracks": undone}), None
    return (Decision(in_ast_order([(placed, start) for placed, start, _, _ in chosen]),
                     placements=search.placements, detail={"backtracks": undone}),
            Trail(running, now, chosen, clean, search.fits, search.witnesses, untracked,
                  floor))


def _resumed(previous: Trail, running: Profile, now: int, plan: Plan, job: Job,
             limits: Mapping[int, float], key: HeuristicKey
             ) -> tuple[_Search, list[Step], dict[int, int], int] | None:
    """The search state after the previous search's clean prefix, or ``None`` if it does not apply.

    With nothing changed since the previous search but jobs of its plan
    started at their planned starts, the new search extends the partial
    schedule with exactly the jobs of that prefix that come before ``job``
    in heuristic order, in the same order and at the same fits, as long as
    ``job`` stays in time: every other remaining job was in time there
    before, and its fit from ``now`` is no later than its planned start.
    Checked here: the plan is the previous plan without the started jobs,
    at the same starts; the started jobs lie in the reused prefix; the
    running profile from ``now`` on is the previous one plus the started
    jobs (so every reused bound and witness not before ``now`` still holds;
    a witness before it is searched again, a bound before it becomes
    ``now``); ``job`` is in time on the partial schedule.
    """
    chosen = previous.chosen
    starts = {planned.id: start for planned, start in plan}
    if len(starts) != len(plan):
        return None
    started: list[Step] = []
    started_before = []             # per position: started jobs in the steps before it
    last_started = -1
    for position, (placed, start, _, _) in enumerate(chosen):
        started_before.append(len(started))
        planned = starts.get(placed.id)
        if planned is None:
            started.append(chosen[position])
            last_started = position
        elif planned != start:
            return None
    started_before.append(len(started))
    if len(chosen) - len(started) != len(plan):
        return None
    new_key = key(job)
    prefix = 0
    while prefix < previous.clean and key(chosen[prefix][0]) < new_key:
        prefix += 1
    floor = max(previous.floor, last_started + 1)
    if prefix == 0 or prefix < floor:
        return None
    expected = previous.running.copy()
    for placed, start, _, _ in started:
        expected.reserve(start, placed.estimate, placed.width)
    expected.discard_before(now)
    if expected.steps() != running.steps():
        return None
    profile = running.copy()
    reserve = profile.reserve
    kept: list[Step] = []
    for step in chosen[:prefix]:
        placed, start = step[0], step[1]
        if placed.id in starts:
            reserve(start, placed.estimate, placed.width)
            kept.append(step)
    fit = profile.earliest_fit
    new_fit = fit(job.width, job.estimate, now)
    if new_fit + job.estimate > limits[job.id]:
        return None
    fits, witnesses = dict(previous.fits), dict(previous.witnesses)
    for step in reversed(chosen[prefix:]):
        for job_id, bound, witness in reversed(step[2]):
            fits[job_id] = bound
            witnesses[job_id] = witness
    remaining = sorted([*(placed for placed, _, _, _ in chosen[prefix:]), job], key=key)
    untracked = {job_id: steps - started_before[steps]
                 for job_id, steps in previous.untracked.items()
                 if steps <= prefix and job_id in starts}
    untracked[job.id] = len(kept)
    placements = 1
    for waiting in remaining:
        if waiting is job:
            continue
        steps = previous.untracked.get(waiting.id)
        if (steps is not None and steps > prefix) or witnesses[waiting.id] < now:
            fits[waiting.id] = witnesses[waiting.id] = fit(waiting.width, waiting.estimate,
                                                           now)
            untracked[waiting.id] = len(kept)
            placements += 1
        elif fits[waiting.id] < now:
            fits[waiting.id] = now
            untracked[waiting.id] = len(kept)
    fits[job.id] = witnesses[job.id] = new_fit
    return (_Search.resumed(profile, now, remaining, limits, fits, witnesses, placements),
            kept, untracked,
            floor - started_before[floor])


def mrt_search(running: Profile, now: int, plan: Plan, job: Job,
               limits: Mapping[int, float], *, backtracks: int, key: HeuristicKey,
               previous: Trail | None = None) -> tuple[Decision, Trail | None]:
    """The MRT admission test, with the :class:`Trail` of an admitted job for the next test.

    With ``previous``, the trail of the search that made ``plan``, the
    search starts after that search's clean prefix where it applies
    (:func:`_resumed`) and gives the same decision as the search from the
    empty schedule; the placements it saves are not counted.
    """
    if previous is not None:
        state = _resumed(previous, running, now, plan, job, limits, key)
        if state is not None:
            search, chosen, untracked, floor = state
            try:
                undone, clean = _search(search, chosen, backtracks, len(chosen))
            except _UndoesReusedStep:
                pass
            else:
                return _decision(search, chosen, undone, clean, now, running, backtracks,
                                 untracked, floor)
    search = _Search(running, now, sorted([*(p for p, _ in plan), job], key=key), limits)
    if search.hopeless():
        return Decision(None, "the empty schedule is not strongly feasible",
                        search.placements), None
    chosen = []
    undone, clean = _search(search, chosen, backtracks, 0)
    return _decision(search, chosen, undone, clean, now, running, backtracks, {}, 0)


def mrt_admission(running: Profile, now: int, plan: Plan, job: Job,
                  limits: Mapping[int, float], *, backtracks: int,
                  key: HeuristicKey) -> Decision:
    """The MRT admission test (Islam et al., §2.2.2, Fig. 2) for ``job`` against ``plan``.

    ``running`` holds the running jobs from ``now`` on and is not modified.
    """
    return mrt_search(running, now, plan, job, limits, backtracks=backtracks, key=key)[0]


class ModifiedRealTime(AdmissionPolicy):
    """MRT admission control (Islam et al., §2.2.2, Fig. 2).

    Parameters:

    * ``backtracks`` — the most undone extensions one admission test may make
      before it rejects the job (Fig. 2, "backtrack max"; the paper does not
      give its value); default 10.
    * ``heuristic`` — the order in which jobs extend the partial schedule:
      ``"edf"`` (earliest deadline first, default) or ``"llf"`` (least
      laxity first) (§2.2.2).
    """

    name = "mrt"

    def __init__(self, *, backtracks: int = 10, heuristic: str = "edf") -> None:
        check_number("MRT", "backtracks", backtracks, int, 0)
        check_choice("MRT", "heuristic", heuristic, HEURISTICS)
        super().__init__()
        self.backtracks = backtracks
        self.heuristic = heuristic
        self._trail: Trail | None = None

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        decision, trail = mrt_search(running, now, plan, job, limits,
                                     backtracks=self.backtracks,
                                     key=HEURISTICS[self.heuristic], previous=self._trail)
        if decision.plan is not None:
            self._trail = trail
        return decision
