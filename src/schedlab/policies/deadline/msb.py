"""MSB: the modified slack-based algorithm (Islam et al., §2.2.1, Fig. 1).

The slack-based backfilling of Talby and Feitelson gives every job a slack,
how long it may be pushed back; MSB sets it from the deadline: "Slack =
Deadline - (Arrival Time + Run Time)", so a job may start no later than its
*latest start time* arrival + slack = deadline - run time (with the
estimate as the run time a scheduler knows; with exact estimates they are
equal).  Starting by the latest start time is ending by the deadline.

The order of the admitted jobs is fixed ("this ordering is fixed. When a new
job arrives, the MSB algorithm tries to fit this new job in the given
schedule without any change to the initial ordering", §3): for a plan of N
jobs in that order the new job is tried at **every** position p = 0 … N
(Fig. 1, step C): the jobs before p keep their reservations, the new job is
placed at its earliest fit, then the jobs from p on are placed again one by
one in the order (step C.c).

**Which order.** The paper disagrees with itself: Fig. 1, step C.c,
re-places the removed jobs "in Ascending Scheduled Time (AST) order", while
the text of §2.2.1 and §3 arranges the jobs "in an order decided by a
heuristic function (such as Earliest Deadline First, or Least Laxity
First)".  ``order`` chooses: ``ast`` (default, the figure) or ``edf`` /
``llf`` (the text, with the heuristics of :mod:`~schedlab.policies.deadline.common`:
ties by submit time, then id).  A candidate in which some job would
miss its deadline has no price; among the others the cheapest is taken
(step C.e); with none the job is rejected (step D).

**Cost function.** The paper uses "a pre-decided cost function" without
giving it.  schedlab prices a plan by the total wait it promises,
``sum over the plan's jobs of (start - submit)`` — with the prefix
unchanged, the sum of start times of the jobs the insertion moves — so MSB
picks the insertion that delays the queue least.  Equal prices go to the
largest p, the insertion that moves fewest jobs.  Candidates are evaluated
from p = N down to 0 and a candidate is abandoned as soon as its price so
far plus the least the unplaced jobs can add (each waits at least
now - submit) reaches the best price found: that changes the work, not the
choice.  Neither does the reuse of the candidate before: when the new job
and ``plan[p]`` leave the profile as candidate p + 1 left it, candidate p
places the rest exactly as p + 1 did and is not searched again.

The candidates are evaluated compiled
(:mod:`~schedlab.policies.deadline.msb_search`, numba): one call per
admission test, on arrays of the profile's breakpoints and of the plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice
from schedlab.policies.deadline.common import (
    HEURISTICS,
    INFINITY,
    AdmissionPolicy,
    Decision,
    HeuristicKey,
    Plan,
    held_time,
    in_ast_order,
    job_columns,
)

if TYPE_CHECKING:
    from schedlab.workload.job import Job


#: The orders MSB can fix the plan in (``order``): the AST order of Fig. 1 or a heuristic
#: of the text (§2.2.1).
ORDERS = ("ast", *HEURISTICS)


def msb_admission(running: Profile, now: int, plan: Plan, job: Job,
                  limits: Mapping[int, float], key: HeuristicKey | None = None) -> Decision:
    """The MSB admission test (Islam et al., §2.2.1, Fig. 1) for ``job`` against ``plan``.

    ``running`` holds the running jobs from ``now`` on and is not modified.
    ``plan`` is in AST order; with a heuristic ``key`` it is arranged by the
    key first (stable).  Returns the cheapest feasible plan over all N + 1
    insertion positions.  The candidates are evaluated compiled
    (:func:`~schedlab.policies.deadline.msb_search.cheapest_insertion`).
    """
    from schedlab.engine.profile_kernels import as_arrays
    from schedlab.policies.deadline.msb_search import FAR, cheapest_insertion

    if key is not None:
        plan = sorted(plan, key=lambda entry: key(entry[0]))
    n = len(plan)
    jobs = [planned for planned, _ in plan]
    widths, estimates, held_columns, ends = job_columns(jobs, limits, running, FAR)
    submits = np.array([planned.submit for planned in jobs], np.int64)
    booked = np.array([start for _, start in plan], np.int64)
    held = held_time(running)
    times, free, size = as_arrays(running, 4 * n + 8)
    best_starts = np.empty(n, np.int64)
    limit = limits[job.id]
    p, start, placements = cheapest_insertion(
        times, free, size, now, widths, estimates, held_columns, submits, ends,
        booked, job.width, job.estimate, held(job.estimate), job.submit,
        FAR if limit == INFINITY else int(limit), best_starts)
    if p < 0:
        return Decision(None, f"no insertion position of {n + 1} keeps every deadline",
                        placements)
    entries = [*plan[:p], (job, start), *zip(jobs[p:], best_starts[p:].tolist())]
    return Decision(in_ast_order(entries), placements=placements)


class ModifiedSlackBased(AdmissionPolicy):
    """MSB admission control (Islam et al., §2.2.1, Fig. 1).

    Every insertion position of the new job in the fixed order is tried;
    the feasible plan with the least total promised wait is kept.

    * ``order`` — the fixed order of the planned jobs: ``"ast"`` (ascending
      scheduled time, Fig. 1 step C.c; default), ``"edf"`` or ``"llf"``
      (the heuristic order of the text, §2.2.1).
    """

    name = "msb"

    def __init__(self, *, order: str = "ast", predictor: str = "estimate") -> None:
        check_choice("MSB", "order", order, ORDERS)
        super().__init__(predictor=predictor)
        self.order = order
        self._key = HEURISTICS.get(order)

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return msb_admission(running, now, plan, job, limits, self._key)
