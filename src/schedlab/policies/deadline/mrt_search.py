"""MRT's admission search, compiled (numba): Ramamritham's search with witnesses, in one call.

The algorithm is the one :mod:`schedlab.policies.deadline.mrt` describes
(Islam et al., §2.2.2, Fig. 2; every unplaced job certified in time by a
*witness*), run on numpy copies of the running profile's breakpoints
(:mod:`schedlab.engine.profile_kernels`) and on arrays of the jobs in
heuristic order.  Why compiled: a search extends the partial schedule once
per job of the plan and, per extension, looks at every unplaced job; with
thousands of arrivals against plans of tens to hundreds of jobs that is
millions of short steps per run, each costing about a microsecond of
interpreter overhead in Python (bench/DEADLINES.md, section 5.3).  The
crossing into compiled code costs a few microseconds: once per admission
test, never per job.

Imported at the first MRT admission test, so no other policy loads numba
for it; ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import NEVER, change, earlier_fit, min_free

FAR = NEVER
"""The limit of a job without a deadline (beyond any simulated time): it is never late."""

ADMITTED, HOPELESS, EXHAUSTED = 0, 1, 2
"""How a search ends: every job placed; a job late on the empty schedule; no schedule found
within the backtracks (or none at all)."""


@njit(cache=True)
def search(times, free, size, now, tick, widths, estimates, held, limits, backtracks,
           order, starts):  # pragma: no cover
    """Search a strongly feasible schedule of every job; ``(outcome, backtracks, placements)``.

    ``times``, ``free`` and ``size`` hold the running jobs from ``now`` on,
    with room for two breakpoints per job; they are edited.  The jobs are
    given in heuristic order by their ``widths``, ``estimates`` (for the
    deadlines), ``held`` (what a reservation takes: the estimate, or on a
    tick grid the estimate rounded up to a tick, ``tick`` > 0) and
    ``limits`` (latest ends, :data:`FAR` for none).  When admitted,
    ``order[d]`` and ``starts[d]`` are the job placed d-th and its start.
    ``placements`` counts the earliest-fit searches.
    """
    n = widths.shape[0]
    fits = np.empty(n, np.int64)        # a lower bound of each unplaced job's earliest fit
    witnesses = np.empty(n, np.int64)   # a start at which it fits and ends in time (FAR: any)
    for i in range(n):
        fits[i] = earlier_fit(times, free, size, widths[i], held[i], now, NEVER)
        witnesses[i] = fits[i]
    placements = n
    for i in range(n):
        if fits[i] + estimates[i] > limits[i]:
            return HOPELESS, 0, placements
    remaining = np.arange(n)            # unplaced jobs, in heuristic order, first ``count``
    count = n
    step_log = np.empty(n, np.int64)    # per extension made: where its undo log begins
    step_index = np.empty(n, np.int64)  # ... and its job's index in ``remaining``
    depth = 0
    log_job = np.empty(4 * n + 16, np.int64)    # (job, bound, witness) before each refit
    log_bound = np.empty_like(log_job)
    log_witness = np.empty_like(log_job)
    logged = 0
    undone = 0
    index = 0
    while count > 0:
        if index < count:
            job = remaining[index]
            start = fits[job]
            if witnesses[job] != start:
                start = earlier_fit(times, free, size, widths[job], held[job], start, NEVER)
                placements += 1
            size = change(times, free, size, start, held[job], -widths[job])
            begin = logged
            if logged + count > log_job.shape[0]:       # room for one log entry per job
                log_job = _grown(log_job, logged)
                log_bound = _grown(log_bound, logged)
                log_witness = _grown(log_witness, logged)
            in_time, logged, refits = _refit(times, free, size, tick, widths, estimates, held,
                                             limits, fits, witnesses, remaining, count, job,
                                             start, start + estimates[job], log_job,
                                             log_bound, log_witness, logged)
            placements += refits
            if in_time:
                order[depth] = job
                starts[depth] = start
                step_log[depth] = begin
                step_index[depth] = index
                depth += 1
                for r in range(index, count - 1):
                    remaining[r] = remaining[r + 1]
                count -= 1
                index = 0
                continue
            size = change(times, free, size, start, held[job], widths[job])
            logged = _undo(fits, witnesses, log_job, log_bound, log_witness, logged, begin)
            index += 1
        elif depth > 0:
            depth -= 1
            job = order[depth]
            size = change(times, free, size, starts[depth], held[job], widths[job])
            logged = _undo(fits, witnesses, log_job, log_bound, log_witness, logged,
                           step_log[depth])
            index = step_index[depth]
            for r in range(count, index, -1):
                remaining[r] = remaining[r - 1]
            remaining[index] = job
            count += 1
            index += 1
        else:
            break
        undone += 1
        if undone > backtracks:
            break
    return (ADMITTED if count == 0 else EXHAUSTED), undone, placements


@njit(cache=True)
def _refit(times, free, size, tick, widths, estimates, held, limits, fits, witnesses,
           remaining, count, placed, start, end, log_job, log_bound, log_witness,
           logged):  # pragma: no cover
    """New witnesses where ``placed``'s reservation ``[start, end)`` overlaps one.

    Returns ``(in time, logged, earliest-fit searches)``: false once a job is
    late.  An overlapped witness is replaced by the job's latest start in
    time if it fits there, else by the earliest fit searched from the lower
    bound (which then is the bound as well); the bound and witness before
    are logged (the log has room for one entry per unplaced job).
    """
    searched = 0
    for r in range(count):
        other = remaining[r]
        witness = witnesses[other]
        # The window of a zero-length job still holds its instant.
        if other == placed or witness >= end or start >= witness + max(estimates[other], 1):
            continue
        bound = fits[other]
        log_job[logged] = other
        log_bound[logged] = bound
        log_witness[logged] = witness
        logged += 1
        if limits[other] >= FAR:
            witnesses[other] = FAR
            continue
        latest = limits[other] - estimates[other]
        if tick > 0:
            latest = latest // tick * tick
        if latest < bound:
            return False, logged, searched
        if latest != witness and \
                min_free(times, free, size, latest, latest + held[other]) >= widths[other]:
            witnesses[other] = latest
            continue
        fit = earlier_fit(times, free, size, widths[other], held[other], bound, NEVER)
        searched += 1
        fits[other] = fit
        witnesses[other] = fit
        if fit > latest:
            return False, logged, searched
    return True, logged, searched


@njit(cache=True)
def _undo(fits, witnesses, log_job, log_bound, log_witness, logged, begin):  # pragma: no cover
    """Restore the bounds and witnesses logged since ``begin``, newest first; returns ``begin``."""
    for e in range(logged - 1, begin - 1, -1):
        fits[log_job[e]] = log_bound[e]
        witnesses[log_job[e]] = log_witness[e]
    return begin


@njit(cache=True)
def _grown(array, used):  # pragma: no cover
    """A copy of ``array`` with twice the room, its first ``used`` entries kept."""
    bigger = np.empty(2 * array.shape[0], array.dtype)
    bigger[:used] = array[:used]
    return bigger
