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
in docs/policies/deadlines.md: the violation count starts at 0 for every
insertion point (Fig. 3, step A.3); the end of the plan, N, is an insertion
point, so a job that fits behind every admitted job is always admitted; a
violation at the insertion point itself (nothing to move, ``mid == T``)
gives up the point at once, since repeating it would place the same job in
the same profile again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deadline.common import (HEURISTICS, AdmissionPolicy, Decision,
                                               HeuristicKey, Plan, ends_in_time, in_ast_order,
                                               prefix_profiles)

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
    insertion point that succeeds with at most ``k`` repairs.
    """
    points = insertion_points(len(plan))
    placements = 0
    for p, profile in prefix_profiles(running, plan, points):
        placed, repairs, work = _place_from(profile, now, plan[p:], job, limits, k, key)
        placements += work
        if placed is not None:
            return Decision(in_ast_order([*plan[:p], *placed]), placements=placements,
                            detail={"repairs": repairs, "insertion_point_tries": 1 + points.index(p)})
    return Decision(None, f"no insertion point of {points} keeps every deadline "
                          f"with at most {k} repairs", placements,
                    detail={"insertion_point_tries": len(points)})


def _place_from(profile: Profile, now: int, tail: Plan, new: Job, limits: Mapping[int, float],
                k: int, key: HeuristicKey) -> tuple[list | None, int, int]:
    """Steps 2–4 at one insertion point: ``(placed entries or None, repairs, placements)``.

    ``profile`` holds the running jobs and the kept prefix; it is consumed.
    The temporary list is kept in reverse heuristic order so that its head
    is popped from the end.
    """
    pending = sorted((job for job, _ in tail), key=key, reverse=True)
    pending.append(new)
    placed: list[tuple[Job, int]] = []
    violations = 0
    work = 0
    fit, reserve, release = profile.earliest_fit, profile.reserve, profile.release
    while pending:
        job = pending.pop()
        start = fit(job.width, job.estimate, now)
        work += 1
        if ends_in_time(job, start, limits):
            reserve(start, job.estimate, job.width)
            placed.append((job, start))
            continue
        violations += 1
        at = len(placed)
        mid = at // 2
        if violations > k or mid == at:
            return None, 0, work
        for moved, moved_start in placed[mid:]:
            release(moved_start, moved.estimate, moved.width)
            pending.append(moved)
        del placed[mid:]
        pending.sort(key=key, reverse=True)
        pending.append(job)
    return placed, violations, work


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

    def __init__(self, *, k: int = 5, heuristic: str = "edf") -> None:
        check_number("QoPS", "k", k, int, 0)
        check_choice("QoPS", "heuristic", heuristic, HEURISTICS)
        super().__init__()
        self.k = k
        self.heuristic = heuristic

    def admit(self, running: Profile, now: int, plan: Plan, job: Job,
              limits: Mapping[int, float]) -> Decision:
        return qops_admission(running, now, plan, job, limits, k=self.k,
                              key=HEURISTICS[self.heuristic])
