"""The QoPS admission test in plain Python, step by step on a Profile: the reference that
tests keep the compiled test (:mod:`schedlab.policies.deadline.qops_search`) equal to.

Islam et al., §3, Fig. 3; the readings are those of :mod:`schedlab.policies.deadline.qops`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from schedlab.engine.profile import Profile
from schedlab.policies.deadline.common import (
    Decision,
    HeuristicKey,
    Plan,
    in_ast_order,
    reserve_all,
)
from schedlab.policies.deadline.qops import insertion_points
from schedlab.workload.job import Job


def qops_admission_reference(running: Profile, now: int, plan: Plan, job: Job,
                             limits: Mapping[int, float], *, k: int,
                             key: HeuristicKey) -> Decision:
    """:func:`~schedlab.policies.deadline.qops.qops_admission`, one Profile search per placement."""
    points = insertion_points(len(plan))
    placements = 0
    for p, profile in prefix_profiles(running, plan, points):
        placed, repairs, work = place_from(profile, now, plan[p:], job, limits, k, key)
        placements += work
        if placed is not None:
            return Decision(in_ast_order([*plan[:p], *placed]), placements=placements,
                            detail={"repairs": repairs,
                                    "insertion_point_tries": 1 + points.index(p)})
    return Decision(None, f"no insertion point of {points} keeps every deadline "
                          f"with at most {k} repairs", placements,
                    detail={"insertion_point_tries": len(points)})


def prefix_profiles(running: Profile, plan: Plan,
                    positions: Sequence[int]) -> Iterator[tuple[int, Profile]]:
    """For each position ``p`` (ascending): a fresh profile of running + ``plan[:p]`` reserved."""
    base = running.copy()
    done = 0
    for p in positions:
        reserve_all(base, plan[done:p])
        done = p
        yield p, base.copy()


def place_from(profile: Profile, now: int, tail: Plan, new: Job, limits: Mapping[int, float],
               k: int, key: HeuristicKey) -> tuple[list | None, int, int]:
    """Steps 2–4 at one insertion point: ``(placed entries or None, repairs, placements)``.

    The temporary list is kept in reverse heuristic order; its head is popped from the end.
    """
    pending = sorted((job for job, _ in tail), key=key, reverse=True)
    pending.append(new)
    placed: list[tuple[Job, int]] = []
    violations = 0
    work = 0
    while pending:
        job = pending.pop()
        start = profile.earliest_fit(job.width, job.estimate, now)
        work += 1
        if start + job.estimate <= limits[job.id]:
            profile.reserve(start, job.estimate, job.width)
            placed.append((job, start))
            continue
        violations += 1
        at = len(placed)
        mid = at // 2
        if violations > k or mid == at:
            return None, 0, work
        for moved, moved_start in placed[mid:]:
            profile.release(moved_start, moved.estimate, moved.width)
            pending.append(moved)
        del placed[mid:]
        pending.sort(key=key, reverse=True)
        pending.append(job)
    return placed, violations, work
