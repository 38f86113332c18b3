"""QoPS's admission test, compiled (numba): every insertion point in one call.

The algorithm is the one :mod:`schedlab.policies.deadline.qops` describes
(Islam et al., §3, Fig. 3: the insertion points 0, N/2, 3N/4, …, N in that
order, the temporary list in heuristic order, at most K repairs per point,
the first point that keeps every deadline), run on numpy copies of the
profile's breakpoints (:mod:`schedlab.engine.profile_kernels`) and on
arrays of the plan.  Why compiled: an arrival re-places every job behind
each of its O(log N) insertion points, and on long queues the interpreter
stepping over the profile cost 3-6 ms per job (bench/DEADLINES.md, section
"QoPS compiled").  The crossing into compiled code happens once per test.

Imported at the first QoPS admission test, so no other policy loads numba
for it; ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import NEVER, change, earlier_fit

FAR = NEVER
"""The limit of a job without a deadline."""


@njit(cache=True)
def first_feasible_point(times, free, size, now, widths, estimates, held, limits, booked, ranks,
                         points, k, placed, placed_starts):  # pragma: no cover
    """The first insertion point that keeps every deadline: ``(its index, repairs, placements)``.

    ``times``, ``free`` and ``size`` hold the running jobs from ``now`` on,
    with room for four breakpoints per job and four more.  Jobs ``0 … N-1``
    are the plan in AST order, job ``N`` the new job, given by the columns
    ``widths``, ``estimates`` (for the deadlines), ``held`` (what a
    reservation takes), ``limits`` (latest ends, :data:`FAR` for none),
    ``booked`` (planned starts of the plan) and ``ranks`` (each job's place
    in the heuristic order, all distinct).  ``points`` are the insertion
    points, ascending.  The index is -1 when no point succeeds; else
    ``placed[:N + 1 - p]`` and ``placed_starts`` hold the jobs from the
    point on in the order they were placed, and their starts.
    """
    n = widths.shape[0] - 1
    by_rank = np.empty(n + 1, np.int64)
    for i in range(n + 1):
        by_rank[ranks[i]] = i
    scratch_times = np.empty_like(times)
    scratch_free = np.empty_like(free)
    pending = np.empty(n + 1, np.int64)     # the temporary list, its head at the end
    done = 0
    placements = 0
    for point in range(points.shape[0]):
        p = points[point]
        for i in range(done, p):                # the kept prefix
            size = change(times, free, size, booked[i], held[i], -widths[i])
        done = p
        scratch_times[:size] = times[:size]
        scratch_free[:size] = free[:size]
        scratch = size
        count = 0
        for i in range(p, n):
            pending[count] = i
            count += 1
        _sort_by_rank_descending(pending, count, ranks, by_rank)
        pending[count] = n                      # the new job is placed first
        count += 1
        m = 0                                   # jobs placed at this point
        violations = 0
        failed = False
        while count > 0:
            count -= 1
            job = pending[count]
            start = earlier_fit(scratch_times, scratch_free, scratch, widths[job], held[job], now,
                                NEVER)
            placements += 1
            if start + estimates[job] <= limits[job]:
                scratch = change(scratch_times, scratch_free, scratch, start, held[job],
                                 -widths[job])
                placed[m] = job
                placed_starts[m] = start
                m += 1
                continue
            violations += 1
            mid = m // 2
            if violations > k or mid == m:
                failed = True
                break
            for q in range(mid, m):             # the jobs from mid on go back to the list
                moved = placed[q]
                scratch = change(scratch_times, scratch_free, scratch, placed_starts[q],
                                 held[moved], widths[moved])
                pending[count] = moved
                count += 1
            m = mid
            _sort_by_rank_descending(pending, count, ranks, by_rank)
            pending[count] = job                # the critical job on top
            count += 1
        if not failed:
            return point, violations, placements
    return -1, 0, placements


@njit(cache=True)
def _sort_by_rank_descending(jobs, count, ranks, by_rank):  # pragma: no cover
    """Sort ``jobs[:count]`` by descending rank (the head of the heuristic order last)."""
    keys = np.empty(count, np.int64)
    for c in range(count):
        keys[c] = ranks[jobs[c]]
    keys.sort()
    for c in range(count):
        jobs[c] = by_rank[keys[count - 1 - c]]
