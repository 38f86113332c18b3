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

Why it is exact but cheaper than it looks: adding a reservation never makes
a fit earlier, so each unplaced job's earliest fit is cached and searched
again (from the cached time on) only when the new reservation overlaps it;
an undo restores the cached fits from a log.  Because the partial schedule
before an extension was strongly feasible, only the fits that moved can
break strong feasibility.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deadline.common import (HEURISTICS, AdmissionPolicy, Decision,
                                               HeuristicKey, Plan, in_ast_order)

if TYPE_CHECKING:
    from schedlab.workload.job import Job


class _Search:
    """The state of one MRT search: the partial schedule and the cached fits of the rest."""

    def __init__(self, running: Profile, now: int, jobs: list[Job],
                 limits: Mapping[int, float]) -> None:
        self.profile = running.copy()
        self.now = now
        self.limits = limits
        self.remaining = jobs
        fit = self.profile.earliest_fit
        self.fits = {job.id: fit(job.width, job.estimate, now) for job in jobs}
        self.placements = len(jobs)

    def hopeless(self) -> bool:
        """Whether some job misses its deadline even at its earliest fit now."""
        fits, limits = self.fits, self.limits
        return any(fits[job.id] + job.estimate > limits[job.id] for job in self.remaining)

    def extend(self, index: int) -> tuple[int, list[tuple[int, int]]] | None:
        """Place ``remaining[index]`` at its cached fit; keep it if strongly feasible.

        Returns ``(start, undo log)`` on success (the job leaves ``remaining``),
        ``None`` after undoing a failed extension.
        """
        job = self.remaining[index]
        start = self.fits[job.id]
        end = start + job.estimate
        self.profile.reserve(start, job.estimate, job.width)
        log: list[tuple[int, int]] = []
        if self._refit(job, start, end, log):
            del self.remaining[index]
            return start, log
        self.undo(job, start, log)
        return None

    def _refit(self, placed: Job, start: int, end: int, log: list[tuple[int, int]]) -> bool:
        """Update the fits the new reservation overlaps; False as soon as one job becomes late."""
        fits, limits = self.fits, self.limits
        fit = self.profile.earliest_fit
        for job in self.remaining:
            old = fits[job.id]
            # The window of a zero-length job still holds its instant (estimate or 1).
            if old < end and start < old + (job.estimate or 1) and job is not placed:
                new = fit(job.width, job.estimate, old)
                self.placements += 1
                if new != old:
                    log.append((job.id, old))
                    fits[job.id] = new
                    if new + job.estimate > limits[job.id]:
                        return False
        return True

    def undo(self, job: Job, start: int, log: list[tuple[int, int]]) -> None:
        """Take a placed job out again and restore the fits its reservation moved."""
        self.profile.release(start, job.estimate, job.width)
        fits = self.fits
        for job_id, old in reversed(log):
            fits[job_id] = old


def mrt_admission(running: Profile, now: int, plan: Plan, job: Job,
                  limits: Mapping[int, float], *, backtracks: int,
                  key: HeuristicKey) -> Decision:
    """The MRT admission test (Islam et al., §2.2.2, Fig. 2) for ``job`` against ``plan``.

    ``running`` holds the running jobs from ``now`` on and is not modified.
    """
    search = _Search(running, now, sorted([*(p for p, _ in plan), job], key=key), limits)
    if search.hopeless():
        return Decision(None, "the empty schedule is not strongly feasible",
                        search.placements)
    chosen: list[tuple[Job, int, list[tuple[int, int]], int]] = []   # job, start, log, index
    undone = 0
    index = 0
    while search.remaining:
        if index < len(search.remaining):
            candidate = search.remaining[index]
            extended = search.extend(index)
            if extended is not None:
                chosen.append((candidate, extended[0], extended[1], index))
                index = 0
                continue
            index += 1
        elif chosen:
            last, start, log, index = chosen.pop()
            search.undo(last, start, log)
            search.remaining.insert(index, last)
            index += 1
        else:
            break
        undone += 1
        if undone > backtracks:
            break
    if search.remaining:
        return Decision(None, f"no strongly feasible schedule within {backtracks} backtracks",
                        search.placements, detail={"backtracks": undone})
    return Decision(in_ast_order([(placed, start) for placed, start, _, _ in chosen]),
                    placements=search.placements, detail={"backtracks": undone})


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

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return mrt_admission(running, now, plan, job, limits, backtracks=self.backtracks,
                             key=HEURISTICS[self.heuristic])
