"""QoPS: admission control with log N insertion points and K repairs (Islam et al., §3, Fig. 3).

For a plan of N waiting jobs (AST order) the new job is tried at the
insertion points 0, N/2, 3N/4, 7N/8, … — position ``N - floor(N / 2^i)``
for i = 0, 1, 2, … — up to and including N, the end of the plan: about
log2(N) + 2 points.  At insertion point ``p``:

1. the jobs at positions ``p`` … N-1 leave the plan and form the temporary
   list TL, sorted by the heuristic (EDF or LLF); the jobs before ``p`` keep
   their reservations;
2. the new job is placed first ("we then create a reservation for the newly
   arrived job, and finally generate reservations for the remaining N/2 jobs
   in the order specified by TL"), then the jobs of TL in order, each at
   its earliest fit;
3. when a job ``Jc`` would end after its deadline at position ``T``, the
   *violation count* grows by one; the jobs placed at positions
   ``mid = (p + T) // 2`` … T-1 go back into TL, TL is sorted again and
   ``Jc`` goes on top, so that it is placed at position ``mid`` (Fig. 3,
   step 4.ii; the text: the missed job "is considered as a critical job and
   is pushed to the head of the list");
4. more than K violations give up this insertion point.

The first insertion point that places every job in time is taken ("the
current scheme looks at each of these options in a FCFS order", §6); the job
is rejected when none does.  Readings of the converted text, written down
in docs/reference/policies/deadlines.md: the violation count starts at 0 for every
insertion point (Fig. 3, step A.3); the end of the plan, N, is an insertion
point, so a job that fits behind every admitted job is always admitted; a
violation at the insertion point itself (nothing to move, ``mid == T``)
gives up the point at once, since repeating it would place the same job in
the same profile again.

The insertion points are tried compiled
(:mod:`~schedlab.policies.deadline.qops_search`, numba): one call per
admission test, on arrays of the profile's breakpoints and of the plan.
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
    in_ast_order,
    job_columns,
)

if TYPE_CHECKING:
    from schedlab.workload.job import Job


def insertion_points(n: int) -> list[int]:
    """Positions 0, N/2, 3N/4, 7N/8, …, N: ``N - floor(N / 2^i)`` for i = 0, 1, … (QoPS §3).

    >>> insertion_points(8)
    [0, 4, 6, 7, 8]
    >>> insertion_points(5)
    [0, 3, 4, 5]
    """
    points = []
    rest = n
    while rest > 0:
        points.append(n - rest)
        rest //= 2
    points.append(n)
    return points


def qops_admission(running: Profile, now: int, plan: Plan, job: Job,
                   limits: Mapping[int, float], *, k: int, key: HeuristicKey) -> Decision:
    """The QoPS admission test (Islam et al., §3, Fig. 3) for ``job`` against ``plan``.

    ``running`` holds the running jobs from ``now`` on and is not modified;
    ``limits`` gives every job's latest end.  Returns the plan of the first
    insertion point that succeeds with at most ``k`` repairs.  The points are
    tried compiled
    (:func:`~schedlab.policies.deadline.qops_search.first_feasible_point`).
    """
    from schedlab.engine.profile_kernels import as_arrays
    from schedlab.policies.deadline.qops_search import FAR, first_feasible_point

    n = len(plan)
    points = insertion_points(n)
    jobs = [*(planned for planned, _ in plan), job]
    widths, estimates, held, ends = job_columns(jobs, limits, running, FAR)
    booked = np.array([*(start for _, start in plan), 0], np.int64)
    ranks = np.empty(n + 1, np.int64)
    ranks[sorted(range(n + 1), key=lambda i: key(jobs[i]))] = np.arange(n + 1)
    times, free, size = as_arrays(running, 4 * n + 8)
    placed = np.empty(n + 1, np.int64)
    placed_starts = np.empty(n + 1, np.int64)
    point, repairs, placements = first_feasible_point(
        times, free, size, now, widths, estimates, held, ends, booked, ranks,
        np.array(points, np.int64), k, placed, placed_starts)
    if point < 0:
        return Decision(None, f"no insertion point of {points} keeps every deadline "
                              f"with at most {k} repairs", placements,
                        detail={"insertion_point_tries": len(points)})
    p = points[point]
    moved = zip((jobs[i] for i in placed[:n + 1 - p].tolist()), placed_starts[:n + 1 - p].tolist())
    return Decision(in_ast_order([*plan[:p], *moved]), placements=placements,
                    detail={"repairs": repairs, "insertion_point_tries": 1 + point})


class QoPS(AdmissionPolicy):
    """QoPS admission control (Islam et al., §3, Fig. 3).

    Parameters:

    * ``k`` — the K-factor: how many deadline violations may be repaired at
      one insertion point before it is given up (§3: "this altering of the
      temporary schedule is allowed at most 'K' times").  The paper does not
      give the value it used; default 5.
    * ``heuristic`` — order of the temporary list: ``"edf"`` (earliest
      deadline first, default) or ``"llf"`` (least laxity first) (§3).
    """

    name = "qops"

    def __init__(self, *, k: int = 5, heuristic: str = "edf",
                 predictor: str = "estimate") -> None:
        check_number("QoPS", "k", k, int, 0)
        check_choice("QoPS", "heuristic", heuristic, HEURISTICS)
        super().__init__(predictor=predictor)
        self.k = k
        self.heuristic = heuristic

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return qops_admission(running, now, plan, job, limits, k=self.k,
                              key=HEURISTICS[self.heuristic])
