"""EDF without admission control: EASY backfilling over an earliest-deadline-first queue.

The reference point between the deadline-blind baselines (EASY and
conservative backfilling, which QoPS §5 compares against) and the
admission-control schemes: jobs are ordered by deadline (Islam et al., §2.1.2
name Earliest Deadline First as the first heuristic), every job is
accepted, and a job may miss its deadline — the deadline metrics count how
many do.

Backfilling is EASY (Lifka 1995; Mu'alem & Feitelson 2001, §2), the
scheduler QoPS derives its deadlines from: jobs start from the head of the
EDF queue while they fit; the first that does not fit gets a reservation at
the shadow time; every later job, in EDF order, may start now if it fits and
ends by its estimate by the shadow time or uses only the extra processors.
Jobs without a deadline come after every job with one, in submit order.
EASY rather than conservative backfilling because a reservation made at
arrival (conservative) would keep a late-arriving urgent job behind every
earlier one, which is what EDF is meant to avoid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedlab.policies.backfilling import easy_pass
from schedlab.policies.base import Policy
from schedlab.policies.deadline.common import edf_key

if TYPE_CHECKING:
    from schedlab.engine.context import Context


class EarliestDeadlineFirst(Policy):
    """EDF-ordered EASY backfilling, no admission control (no parameters)."""

    name = "edf"

    def schedule(self, ctx: Context) -> None:
        if ctx.free == 0 or not ctx.waiting:
            return
        easy_pass(ctx, sorted(ctx.waiting.values(), key=edf_key))
