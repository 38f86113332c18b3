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
places the rest exactly as p + 1 did and is not searched again
(:class:`_Candidates`).
"""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING, Callable, Mapping

from schedlab.engine.profile import Profile
from schedlab.policies.base import check_choice
from schedlab.policies.deadline.common import (HEURISTICS, INFINITY, AdmissionPolicy, Decision,
                                               HeuristicKey, Plan, held_time, in_ast_order,
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
    profile = running.copy()
    reserve_all(profile, plan)
    search = _Candidates(plan, job, now, limits, held_time(profile))
    best: Plan | None = None
    best_cost = INFINITY
    for p in range(n, -1, -1):
        if p < n:
            planned, start = plan[p]
            profile.release(start, planned.estimate, planned.width)
        floor = now - job.submit + tail_floor[p]
        cost = search.evaluate(p, profile, best_cost - prefix_wait[p], floor)
        if cost is not None:
            best, best_cost = search.entries(p), prefix_wait[p] + cost
    if best is None:
        return Decision(None, f"no insertion position of {n + 1} keeps every deadline",
                        search.placements)
    return Decision(in_ast_order(best), placements=search.placements)


_DONE, _LATE, _BOUND = 0, 1, 2     # how a candidate ended: placed all, a job late, priced out


class _Candidates:
    """The candidates of one MSB test, p = N down to 0, each reusing the one before.

    Candidate ``p`` places the new job and then ``plan[p:]`` one by one at
    earliest fits on running + ``plan[:p]``.  Candidate ``p + 1`` did the
    same on running + ``plan[:p + 1]``.  After candidate ``p`` has placed
    the new job and ``plan[p]``, both candidates place ``plan[p + 1]`` next;
    if the two profiles are then the same step function (the new job and
    ``plan[p]`` hold the same processor-time in both, checked by summing
    their reservations' changes of the free count per time), every later fit
    is the same too: candidate ``p`` takes candidate ``p + 1``'s placements of
    the rest without searching, and with them its end — the same job late,
    or the same price of the tail.  What the last candidate placed is the
    *reference* (``starts``, ``end``, ``fate``, ``tail_cost``), itself
    possibly taken over from the candidate before it.
    """

    def __init__(self, plan: Plan, job: Job, now: int, limits: Mapping[int, float],
                 held: Callable[[int], int]) -> None:
        self.plan = plan
        self.job = job
        self.now = now
        self.limits = limits
        self.held = held
        n = len(plan)
        self.starts = [0] * n           # the reference's start of plan[i], i in [p + 1, end)
        self.tail_cost = [0] * (n + 1)  # its price of plan[i:], when its fate is _DONE
        self.new_start: int | None = None   # the reference's start of the new job (None: none)
        self.end = n                    # the reference placed plan[p + 1 : end] and then ...
        self.fate = _DONE               # ... had placed all, found plan[end] late or priced out
        self.new_entry = (job, 0)
        self.placements = 0

    def entries(self, p: int) -> Plan:
        """The plan of candidate ``p``, just evaluated: plan[:p], the new job, the rest."""
        plan, starts = self.plan, self.starts
        return [*plan[:p], self.new_entry,
                *[(plan[i][0], starts[i]) for i in range(p, len(plan))]]

    def evaluate(self, p: int, base: Profile, bound: float, floor: int) -> int | None:
        """The price of candidate ``p`` on ``base`` (running + plan[:p]), or None.

        None when a job misses its deadline or the price cannot stay below
        ``bound`` (``floor`` is the least the jobs not yet placed add).
        ``base`` is not modified.
        """
        job, now, limits = self.job, self.now, self.limits
        reference_new = self.new_start
        self.new_start = None           # no reference for candidate p - 1 unless the job is placed
        if floor >= bound:
            return None
        profile = base.copy()
        x = profile.place(job.width, job.estimate, now)
        self.placements += 1
        if x + job.estimate > limits[job.id]:
            return None
        self.new_start = x
        self.new_entry = (job, x)
        cost = x - job.submit
        floor -= now - job.submit
        if p == len(self.plan):
            self.end, self.fate = p, _DONE
            self.tail_cost[p] = 0
            return cost if cost < bound else None
        planned, was = self.plan[p]
        if cost + floor >= bound:
            self.end, self.fate = p, _BOUND
            return None
        s = profile.place(planned.width, planned.estimate, now)
        self.placements += 1
        if s + planned.estimate > limits[planned.id]:
            self.end, self.fate = p, _LATE
            return None
        self.starts[p] = s
        cost += s - planned.submit
        floor -= now - planned.submit
        if reference_new is not None and self._same_profile(x, reference_new, planned, s, was):
            return self._take_over(p, profile, cost, bound, floor)
        return self._place_from(p + 1, p, profile, cost, bound, floor)

    def _same_profile(self, new: int, reference_new: int, planned: Job, start: int,
                      was: int) -> bool:
        """Whether the new job at ``new`` and ``planned`` at ``start`` hold what they hold
        in the reference (the new job at ``reference_new``, ``planned`` at ``was``)."""
        if new == reference_new and start == was:
            return True
        changes: dict[int, int] = {}
        job, held = self.job, self.held
        _moved(changes, job.width, held(job.estimate), new, reference_new)
        _moved(changes, planned.width, held(planned.estimate), start, was)
        return not changes

    def _place_from(self, first: int, p: int, profile: Profile, cost: int, bound: float,
                    floor: int) -> int | None:
        """Place ``plan[first:]`` in order on ``profile``: candidate ``p``'s price, or None."""
        plan, starts, now, limits = self.plan, self.starts, self.now, self.limits
        place = profile.place
        n = len(plan)
        for i in range(first, n):
            planned = plan[i][0]
            if cost + floor >= bound:
                self.end, self.fate = i, _BOUND
                return None
            s = place(planned.width, planned.estimate, now)
            self.placements += 1
            if s + planned.estimate > limits[planned.id]:       # ends_in_time, inlined: hot
                self.end, self.fate = i, _LATE
                return None
            starts[i] = s
            cost += s - planned.submit
            floor -= now - planned.submit
        self.end, self.fate = n, _DONE
        self._price_tail(p, n)
        return cost if cost < bound else None

    def _take_over(self, p: int, profile: Profile, cost: int, bound: float,
                   floor: int) -> int | None:
        """Candidate ``p`` is at the reference's profile before plan[p + 1]: take its rest."""
        q = p + 1
        if self.fate == _LATE:
            return None
        if self.fate == _DONE:
            self._price_tail(p, q)
            cost += self.tail_cost[q]
            return cost if cost < bound else None
        # The reference was priced out before plan[end]: take what it placed, go on alone.
        plan, starts, now, end = self.plan, self.starts, self.now, self.end
        for i in range(q, end):
            if cost + floor >= bound:
                self.end = i
                return None
            planned = plan[i][0]
            cost += starts[i] - planned.submit
            floor -= now - planned.submit
        for i in range(q, end):
            planned = plan[i][0]
            profile.reserve(starts[i], planned.estimate, planned.width)
        return self._place_from(end, p, profile, cost, bound, floor)

    def _price_tail(self, p: int, q: int) -> None:
        """``tail_cost[i]`` for i in [p, q), from ``tail_cost[q]`` and the starts."""
        plan, starts, tail = self.plan, self.starts, self.tail_cost
        if q == len(plan):
            tail[q] = 0
        for i in range(q - 1, p - 1, -1):
            tail[i] = tail[i + 1] + starts[i] - plan[i][0].submit


def _moved(changes: dict[int, int], width: int, held: int, new: int, old: int) -> None:
    """Add to ``changes`` a reservation on [new, new + held) less one on [old, old + held)."""
    if held <= 0 or width == 0 or new == old:
        return
    for t, delta in ((new, -width), (new + held, width), (old, width), (old + held, -width)):
        total = changes.get(t, 0) + delta
        if total:
            changes[t] = total
        else:
            del changes[t]


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
