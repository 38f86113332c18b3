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
choice.
"""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING, Mapping, Sequence

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice
from schedlab.policies.deadline.common import (HEURISTICS, INFINITY, AdmissionPolicy, Decision,
                                               HeuristicKey, Plan, in_ast_order,
                                               reserve_all)

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
    insertion positions.
    """
    if key is not None:
        plan = sorted(plan, key=lambda entry: key(entry[0]))
    n = len(plan)
    prefix_wait = [0, *accumulate(start - planned.submit for planned, start in plan)]
    floors = [now - planned.submit for planned, _ in plan]
    tail_floor = [*accumulate(reversed(floors), initial=0)][::-1]   # tail_floor[p] = sum(floors[p:])
    planned_jobs = [planned for planned, _ in plan]
    profile = running.copy()
    reserve_all(profile, plan)
    best: Plan | None = None
    best_cost = INFINITY
    placements = 0
    for p in range(n, -1, -1):
        if p < n:
            planned, start = plan[p]
            profile.release(start, planned.estimate, planned.width)
        order = [job, *planned_jobs[p:]]
        floor = now - job.submit + tail_floor[p]
        placed, cost, work = _place_priced(profile.copy(), now, order, limits,
                                           best_cost - prefix_wait[p], floor)
        placements += work
        if placed is not None:
            best, best_cost = [*plan[:p], *placed], prefix_wait[p] + cost
    if best is None:
        return Decision(None, f"no insertion position of {n + 1} keeps every deadline",
                        placements)
    return Decision(in_ast_order(best), placements=placements)


def _place_priced(profile: Profile, now: int, order: Sequence[Job], limits: Mapping[int, float],
                  bound: float, floor: int) -> tuple[list | None, int, int]:
    """Place ``order`` one by one at earliest fits: ``(entries or None, price, placements)``.

    ``None`` when a job would miss its deadline or when the price cannot stay
    below ``bound`` (``floor`` is the least the jobs not yet placed add).
    ``profile`` is a scratch copy: a job is placed (searched and reserved
    in one call) before its deadline is checked, and a candidate that
    fails is thrown away with it.
    """
    placed = []
    cost = 0
    work = 0
    place = profile.place
    for job in order:
        if cost + floor >= bound:
            return None, cost, work
        start = place(job.width, job.estimate, now)
        work += 1
        if start + job.estimate > limits[job.id]:        # ends_in_time, inlined: hot loop
            return None, cost, work
        placed.append((job, start))
        wait = start - job.submit
        cost += wait
        floor -= now - job.submit
    if cost >= bound:
        return None, cost, work
    return placed, cost, work


class ModifiedSlackBased(AdmissionPolicy):
    """MSB admission control (Islam et al., §2.2.1, Fig. 1).

    Every insertion position of the new job in the fixed order is tried;
    the feasible plan with the least total promised wait is kept.

    * ``order`` — the fixed order of the planned jobs: ``"ast"`` (ascending
      scheduled time, Fig. 1 step C.c; default), ``"edf"`` or ``"llf"``
      (the heuristic order of the text, §2.2.1).
    """

    name = "msb"

    def __init__(self, *, order: str = "ast") -> None:
        check_choice("MSB", "order", order, ORDERS)
        super().__init__()
        self.order = order
        self._key = HEURISTICS.get(order)

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return msb_admission(running, now, plan, job, limits, self._key)
