"""The admission policies' plan on arrays, compiled (numba): its check, its compression.

:class:`~schedlab.policies.deadline.common.AdmissionPolicy` keeps a plan of
every admitted job that has not started (Islam et al., §2.2).  After an
early end it compresses the plan as conservative backfilling does: in AST
order each job moves to its earliest fit from now when that is earlier
(Mu'alem & Feitelson 2001, §2); before that, and at every event of a run
with ``overrun="extend"``, it checks that the plan still fits on the
machine as it is.  Both used to walk a
:class:`~schedlab.engine.profile.Profile` in Python: one earliest-fit search
(over the whole profile) and one reservation per waiting job, so with the
thousands of waiting jobs an overloaded machine admits a compression cost
milliseconds, and an early end comes with nearly every job (bench/DEADLINES.md,
"The plan compiled").  Here the plan is reserved and compressed in one
compiled call each, on arrays of the profile's breakpoints, by the pass of
conservative backfilling itself (:func:`schedlab.policies.compression._compress`):
the same search, the same moves, so the same plans.

Imported at the first admission-control event that needs it, so no other
policy loads numba for it; ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile import Profile
from schedlab.engine.profile_kernels import NEVER, as_arrays, change, earlier_fit, min_free
from schedlab.policies.compression import _compress

if TYPE_CHECKING:
    from schedlab.policies.deadline.common import Plan

#: Breakpoints a reservation adds at most (two), and a compression's move (four).
RESERVE_ROOM, MOVE_ROOM = 2, 4


def plan_columns(profile: Profile, plan: Plan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The plan as int64 columns: widths, held times (what a reservation on ``profile``
    takes, :func:`~schedlab.policies.deadline.common.held_time`), starts."""
    from schedlab.policies.deadline.common import TickProfile

    n = len(plan)
    widths = np.fromiter((job.width for job, _ in plan), np.int64, n)
    held = np.fromiter((job.estimate for job, _ in plan), np.int64, n)
    if isinstance(profile, TickProfile):
        held = -(-held // profile.tick) * profile.tick
    starts = np.fromiter((start for _, start in plan), np.int64, n)
    return widths, held, starts


def reserved_plan(running: Profile, plan: Plan, now: int, room: int = 0):
    """The running jobs' profile with every job of the plan reserved at its start, as arrays
    ``(times, free, size, widths, held, starts)`` with ``room`` more breakpoints to spare; or
    ``None`` when the plan no longer fits the machine (a job due before ``now``, or one whose
    processors are taken: :meth:`Profile.reserve` would raise)."""
    if plan and plan[0][1] < now:
        return None
    widths, held, starts = plan_columns(running, plan)
    times, free, size = as_arrays(running, RESERVE_ROOM * len(plan) + room + 8)
    size = _reserve_all(times, free, size, widths, held, starts)
    if size < 0:
        return None
    return times, free, size, widths, held, starts


def plan_fits(running: Profile, plan: Plan, now: int) -> bool:
    """Whether the plan still fits on the running jobs from ``now`` (the check of a run with
    ``overrun="extend"``, where a job running late may hold processors the plan gave away)."""
    return reserved_plan(running, plan, now) is not None


def compressed_plan(running: Profile, plan: Plan, now: int) -> Plan | None:
    """The plan with every job, in AST order, moved to its earliest fit from ``now`` when
    that is earlier (AST order again, equal starts in their old order); ``None`` when the plan
    no longer fits the machine."""
    from schedlab.policies.deadline.common import in_ast_order

    reserved = reserved_plan(running, plan, now, MOVE_ROOM * len(plan))
    if reserved is None:
        return None
    times, free, size, widths, held, starts = reserved
    n = len(plan)
    _compress(times, free, size, now, np.arange(n, dtype=np.int64), n, widths, held, starts,
              False, np.empty((2, len(times)), np.int64))
    return in_ast_order(list(zip((job for job, _ in plan), starts.tolist())))


def earliest_fit_behind(running: Profile, plan: Plan, now: int, width: int,
                        duration: int) -> int:
    """The earliest fit from ``now`` of a job held for ``duration`` behind every job of the
    plan (the plan is assumed to fit: it was made on this machine)."""
    reserved = reserved_plan(running, plan, now)
    if reserved is None:
        raise ValueError("the plan does not fit the machine")
    times, free, size = reserved[:3]
    return earlier_fit(times, free, size, width, duration, now, NEVER)


@njit(cache=True)
def _reserve_all(times, free, size, widths, held, starts):  # pragma: no cover
    """Reserve every job at its start, in order; the profile's new length, or -1 as soon as
    one does not fit (fewer than its width free somewhere in its window)."""
    for i in range(widths.shape[0]):
        duration = held[i]
        if duration <= 0 or widths[i] == 0:
            continue
        if min_free(times, free, size, starts[i], starts[i] + duration) < widths[i]:
            return -1
        size = change(times, free, size, starts[i], duration, -widths[i])
    return size
