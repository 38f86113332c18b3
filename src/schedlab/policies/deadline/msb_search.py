"""MSB's admission test, compiled (numba): every insertion position in one call.

The algorithm is the one :mod:`schedlab.policies.deadline.msb` describes
(Islam et al., §2.2.1, Fig. 1; candidates p = N … 0, priced by the total
promised wait, abandoned once they cannot beat the best, and the reuse of
the candidate before), run on numpy copies of the profile's breakpoints
(:mod:`schedlab.engine.profile_kernels`) and on arrays of the plan in its
fixed order.  Why compiled: a test makes O(N²) placements, millions per
overloaded run, and in Python a quarter of the run was the interpreter
stepping over full steps of the profile (bench/DEADLINES.md, sections 5.1
and 5.3).  The crossing into compiled code happens once per test.

Imported at the first MSB admission test, so no other policy loads numba
for it; ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import NEVER, change, place

FAR = NEVER
"""The limit of a job without a deadline, and the price of no plan (beyond any sum of waits)."""

_DONE, _LATE, _BOUND = 0, 1, 2     # how a candidate ended: placed all, a job late, priced out


@njit(cache=True)
def cheapest_insertion(times, free, size, now, widths, estimates, held, submits, limits,
                       booked, new_width, new_estimate, new_held, new_submit, new_limit,
                       best_starts):  # pragma: no cover
    """The cheapest feasible insertion of the new job: ``(p, its start, placements)``.

    ``times``, ``free`` and ``size`` hold the running jobs from ``now`` on,
    with room for four breakpoints per job of the plan and four more.  The
    plan, in its fixed order, is given by the columns ``widths``,
    ``estimates`` (for the deadlines), ``held`` (what a reservation takes:
    the estimate, or on a tick grid the estimate rounded up to a tick),
    ``submits``, ``limits`` (latest ends, :data:`FAR` for none) and
    ``booked`` (planned starts); the new job by the same values.  ``p`` is
    -1 when no position keeps every deadline; else ``best_starts[i]`` for
    i >= p is the start of the i-th job of the plan in the chosen plan.
    """
    n = widths.shape[0]
    for i in range(n):
        size = change(times, free, size, booked[i], held[i], -widths[i])
    prefix_wait = np.zeros(n + 1, np.int64)     # prefix_wait[p]: the price of plan[:p]
    tail_floor = np.zeros(n + 1, np.int64)      # tail_floor[p]: the least plan[p:] can add
    for i in range(n):
        prefix_wait[i + 1] = prefix_wait[i] + booked[i] - submits[i]
    for i in range(n - 1, -1, -1):
        tail_floor[i] = tail_floor[i + 1] + now - submits[i]
    scratch_times = np.empty_like(times)
    scratch_free = np.empty_like(free)
    starts = np.zeros(n, np.int64)      # the reference's start of plan[i], i in [p + 1, end)
    tail_cost = np.zeros(n + 1, np.int64)   # its price of plan[i:], when its fate is _DONE
    has_reference = False               # whether the candidate before placed the new job ...
    reference_new = 0                   # ... at this start
    end = n                             # the reference placed plan[p + 1 : end] and then ...
    fate = _DONE                        # ... had placed all, found plan[end] late or priced out
    placements = 0
    best_p = -1
    best_new = 0
    best_cost = FAR
    for p in range(n, -1, -1):
        if p < n:
            size = change(times, free, size, booked[p], held[p], widths[p])
        bound = best_cost - prefix_wait[p]
        floor = now - new_submit + tail_floor[p]
        # --- candidate p: the new job, then plan[p:], on running + plan[:p]
        had_reference = has_reference
        has_reference = False
        if floor >= bound:
            continue
        scratch_times[:size] = times[:size]
        scratch_free[:size] = free[:size]
        x, scratch = place(scratch_times, scratch_free, size, new_width, new_held, now)
        placements += 1
        if x + new_estimate > new_limit:
            continue
        has_reference = True
        new_at = x
        cost = x - new_submit
        floor -= now - new_submit
        if p == n:
            end, fate = p, _DONE
            tail_cost[p] = 0
            if cost < bound:
                best_p, best_new, best_cost = p, x, prefix_wait[p] + cost
            reference_new = new_at
            continue
        if cost + floor >= bound:
            end, fate = p, _BOUND
            reference_new = new_at
            continue
        s, scratch = place(scratch_times, scratch_free, scratch, widths[p], held[p], now)
        placements += 1
        if s + estimates[p] > limits[p]:
            end, fate = p, _LATE
            reference_new = new_at
            continue
        starts[p] = s
        cost += s - submits[p]
        floor -= now - submits[p]
        priced = False              # whether the candidate ends with a price below the bound
        first = p + 1               # where it goes on placing on its own (n + 1: it does not)
        if had_reference and _same_holdings(new_width, new_held, x, reference_new, widths[p],
                                            held[p], s, booked[p]):
            # Take the reference's placements of plan[p + 1:] and with them its end.
            q = p + 1
            first = n + 1
            if fate == _DONE:
                tail_cost[p] = tail_cost[q] + starts[p] - submits[p]
                cost += tail_cost[q]
                priced = cost < bound
            elif fate == _BOUND:
                out = False
                for i in range(q, end):
                    if cost + floor >= bound:
                        end = i
                        out = True
                        break
                    cost += starts[i] - submits[i]
                    floor -= now - submits[i]
                if not out:
                    for i in range(q, end):
                        scratch = change(scratch_times, scratch_free, scratch, starts[i],
                                         held[i], -widths[i])
                    first = end
        if first <= n:
            done = True
            for i in range(first, n):
                if cost + floor >= bound:
                    end, fate = i, _BOUND
                    done = False
                    break
                s, scratch = place(scratch_times, scratch_free, scratch, widths[i], held[i],
                                   now)
                placements += 1
                if s + estimates[i] > limits[i]:
                    end, fate = i, _LATE
                    done = False
                    break
                starts[i] = s
                cost += s - submits[i]
                floor -= now - submits[i]
            if done:
                end, fate = n, _DONE
                tail_cost[n] = 0
                for i in range(n - 1, p - 1, -1):
                    tail_cost[i] = tail_cost[i + 1] + starts[i] - submits[i]
                priced = cost < bound
        reference_new = new_at
        if priced:
            best_p, best_new, best_cost = p, x, prefix_wait[p] + cost
            best_starts[p:] = starts[p:]
    return best_p, best_new, placements


@njit(cache=True)
def _same_holdings(width, held, new, reference_new, planned_width, planned_held, start,
                   was):  # pragma: no cover
    """Whether the new job at ``new`` and a planned job at ``start`` hold what they hold in
    the reference (the new job at ``reference_new``, the planned job at ``was``): the
    changes of the free count they make, summed per time, all cancel."""
    if new == reference_new and start == was:
        return True
    change_times = np.empty(8, np.int64)
    change_deltas = np.empty(8, np.int64)
    count = 0
    if held > 0 and width != 0 and new != reference_new:
        change_times[0], change_deltas[0] = new, -width
        change_times[1], change_deltas[1] = new + held, width
        change_times[2], change_deltas[2] = reference_new, width
        change_times[3], change_deltas[3] = reference_new + held, -width
        count = 4
    if planned_held > 0 and planned_width != 0 and start != was:
        change_times[count], change_deltas[count] = start, -planned_width
        change_times[count + 1], change_deltas[count + 1] = start + planned_held, planned_width
        change_times[count + 2], change_deltas[count + 2] = was, planned_width
        change_times[count + 3], change_deltas[count + 3] = was + planned_held, -planned_width
        count += 4
    for a in range(count):
        total = 0
        for b in range(count):
            if change_times[b] == change_times[a]:
                total += change_deltas[b]
        if total != 0:
            return False
    return True
