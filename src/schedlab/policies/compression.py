"""Conservative backfilling's compression pass, compiled (numba).

One call re-places every waiting job of a conservative plan, in queue order,
at its earliest fit from now when that is earlier than its booking (Mu'alem
& Feitelson 2001, §2; Feitelson & Weil 1998).  It is the algorithm of
:meth:`Profile.earlier_fit <schedlab.engine.profile.Profile.earlier_fit>`,
:meth:`~schedlab.engine.profile.Profile.release` and
:meth:`~schedlab.engine.profile.Profile.reserve`, with the proofs of
:func:`no_start_before` (the "certificates"), run as one compiled loop over
numpy copies of the profile's breakpoints and of the queue; the search and
the edits are the shared compiled twins of :mod:`schedlab.engine.profile_kernels`.

Why compiled: a compression visits every waiting job, and with thousands
waiting and an early end every few seconds that is millions of visits,
each a handful of short loops; in Python each visit cost about a
microsecond of interpreter overhead (bench/SCALING.md, third and fourth
passes).  The crossing into the compiled code costs a few microseconds, so
it happens once per compression, never per job.

This module imports numba, so it is imported only when a conservative run
first compresses: no other policy, and no command that does not simulate
conservative backfilling, pays for loading it.  ``cache=True`` keeps the
machine code on disk (in ``__pycache__``, or ``NUMBA_CACHE_DIR``): only the
very first run compiles.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from schedlab.engine.profile import Profile
from schedlab.engine.profile_kernels import change, earlier_fit

KEEP = 8
"""How many proofs a compression keeps: the last ones, from the jobs just before in the queue."""


def compress(profile: Profile, now: int, order: np.ndarray, ids: np.ndarray, widths: np.ndarray,
             durations: np.ndarray, booked: np.ndarray) -> list[int]:
    """Compress ``profile`` in place for the waiting jobs ``order`` (queue order).

    ``order`` holds indices into the job columns ``ids``, ``widths``,
    ``durations`` (estimates) and ``booked`` (booked starts; ``<= now``:
    starting now or not booked, left alone); the new starts are written
    into ``booked``.  Returns the moves, flat: job id, new start, job id,
    new start, ... in queue order.
    """
    times, free = profile.breakpoints()
    room = len(times) + 4 * len(order) + 4      # a move adds at most four breakpoints
    times_array = np.empty(room, np.int64)
    free_array = np.empty(room, np.int64)
    times_array[:len(times)] = times
    free_array[:len(free)] = free
    moves = np.empty(2 * len(order), np.int64)
    size, moved = _compress(times_array, free_array, len(times), now, order, ids, widths,
                            durations, booked, moves)
    if moved == 0:
        return []
    profile.replace_breakpoints(times_array[:size].tolist(), free_array[:size].tolist())
    return moves[:2 * moved].tolist()


@njit(cache=True)
def _compress(times, free, size, now, order, ids, widths, durations, booked,
              moves):  # pragma: no cover
    """The pass itself on breakpoint arrays with room to grow: their new length, the moves.

    Each job's search starts where the proofs of the jobs checked just
    before it show that no earlier start can work, so in a long queue a job
    is not scanned again from ``now``; the starts found are exactly those of
    a scan from ``now`` (a property test compares the two).
    """
    proofs = np.empty((KEEP, 4), np.int64)       # width, duration, booked, bound
    held = 0
    moved = 0
    for i in order:
        old = booked[i]
        if old <= now:
            continue
        width = widths[i]
        duration = durations[i]
        after = no_start_before(proofs, held, width, duration, old)
        if after >= old:
            continue
        start = earlier_fit(times, free, size, width, duration,
                            now if after < now else after, old)
        if start < 0:
            held = add_proof(proofs, held, width, duration, old, old)
            continue
        size = change(times, free, size, old, duration, width)
        size = change(times, free, size, start, duration, -width)
        booked[i] = start
        moves[2 * moved] = ids[i]
        moves[2 * moved + 1] = start
        moved += 1
        released(proofs, held, old)
        held = add_proof(proofs, held, width, duration, old, start)
    return size, moved


@njit(cache=True)
def no_start_before(proofs, held, width, duration, booked):  # pragma: no cover
    """The latest time before which no held proof allows this job to start (-1: none).

    A search for a job of ``width`` and ``duration`` booked at ``booked``
    that found no start before ``bound`` (``bound == booked``: it cannot
    move; else it moved to ``bound``, its earliest fit) proves that every
    window ``[s, min(s + duration, booked))`` with ``s < bound`` holds a
    step with fewer than ``width`` free processors.  A later job at least as
    wide, at least as long and booked no earlier has, for the same ``s``, a
    window containing that one before its own booking, so it cannot start
    before ``bound`` either.
    """
    latest = -1
    for p in range(held):
        bound = proofs[p, 3]
        if (bound > latest and proofs[p, 0] <= width and proofs[p, 1] <= duration
                and proofs[p, 2] <= booked):
            latest = bound
    return latest


@njit(cache=True)
def add_proof(proofs, held, width, duration, booked, bound):  # pragma: no cover
    """Hold a new proof, forgetting the oldest beyond :data:`KEEP`; returns how many are held."""
    if held == KEEP:
        for p in range(KEEP - 1):
            proofs[p, :] = proofs[p + 1, :]
        held -= 1
    proofs[held, 0] = width
    proofs[held, 1] = duration
    proofs[held, 2] = booked
    proofs[held, 3] = bound
    return held + 1


@njit(cache=True)
def released(proofs, held, t):  # pragma: no cover
    """Processors came free from ``t`` on: cut the proofs whose windows reach past ``t``.

    Taking processors keeps a proof true; giving them back from ``t`` on
    keeps it true only for the windows that end by ``t``, so ``bound``
    drops to ``t - duration + 1`` for a proof booked after ``t``.
    """
    for p in range(held):
        if proofs[p, 2] > t and proofs[p, 3] > t - proofs[p, 1] + 1:
            proofs[p, 3] = t - proofs[p, 1] + 1
