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

The search is compiled (:mod:`~schedlab.policies.deadline.mrt_search`,
numba): one call per admission test, on arrays of the running profile's
breakpoints and of the jobs in heuristic order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deadline.common import (
    HEURISTICS,
    AdmissionPolicy,
    Decision,
    HeuristicKey,
    Plan,
    TickProfile,
    job_columns,
)

if TYPE_CHECKING:
    from schedlab.workload.job import Job


def mrt_admission(running: Profile, now: int, plan: Plan, job: Job,
                  limits: Mapping[int, float], *, backtracks: int,
                  key: HeuristicKey) -> Decision:
    """The MRT admission test (Islam et al., §2.2.2, Fig. 2) for ``job`` against ``plan``.

    ``running`` holds the running jobs from ``now`` on and is not modified.
    The search runs compiled (:func:`~schedlab.policies.deadline.mrt_search.search`).
    """
    from schedlab.engine.profile_kernels import as_arrays
    from schedlab.policies.deadline.mrt_search import ADMITTED, FAR, HOPELESS, search

    jobs = [planned for planned, _ in plan]
    jobs.append(job)
    jobs.sort(key=key)
    n = len(jobs)
    widths, estimates, held, ends = job_columns(jobs, limits, running, FAR)
    tick = running.tick if isinstance(running, TickProfile) else 0
    times, free, size = as_arrays(running, 2 * n + 4)
    order = np.empty(n, np.int64)
    starts = np.empty(n, np.int64)
    outcome, undone, placements = search(times, free, size, now, tick, widths, estimates, held,
                                         ends, backtracks, order, starts)
    if outcome == HOPELESS:
        return Decision(None, "the empty schedule is not strongly feasible", placements)
    if outcome != ADMITTED:
        return Decision(None, f"no strongly feasible schedule within {backtracks} backtracks",
                        placements, detail={"backtracks": undone})
    ast = np.argsort(starts, kind="stable")     # in_ast_order: equal starts in placement order
    return Decision([(jobs[i], start) for i, start in zip(order[ast].tolist(),
                                                          starts[ast].tolist())],
                    placements=placements, detail={"backtracks": undone})


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

    def __init__(self, *, backtracks: int = 10, heuristic: str = "edf",
                 predictor: str = "estimate") -> None:
        check_number("MRT", "backtracks", backtracks, int, 0)
        check_choice("MRT", "heuristic", heuristic, HEURISTICS)
        super().__init__(predictor=predictor)
        self.backtracks = backtracks
        self.heuristic = heuristic

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return mrt_admission(running, now, plan, job, limits, backtracks=self.backtracks,
                             key=HEURISTICS[self.heuristic])
