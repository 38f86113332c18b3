"""Conservative backfilling's plan, compiled (numba): its profile, its queue, its compression.

The compression re-places every waiting job of a conservative plan, in
queue order, at its earliest fit from now when that is earlier than its
booking (Mu'alem & Feitelson 2001, §2; Feitelson & Weil 1998).  It is the
algorithm of :meth:`Profile.earlier_fit
<schedlab.engine.profile.Profile.earlier_fit>`,
:meth:`~schedlab.engine.profile.Profile.release` and
:meth:`~schedlab.engine.profile.Profile.reserve`, with the proofs of
:func:`no_start_before` (the "certificates"), run as one compiled loop; the
search and the edits are the shared compiled twins of :mod:`schedlab.engine.profile_kernels`.

Why compiled: a compression visits every waiting job, and with thousands
waiting and an early end every few seconds that is millions of visits,
each a handful of short loops; in Python each visit cost about a
microsecond of interpreter overhead (measured:
bench/SCALING.md).  The crossing into the compiled code costs a few microseconds, so
it happens once per compression, never per job.

Why the plan lives in arrays (:class:`ArrayPlan`): copying the
:class:`~schedlab.engine.profile.Profile`'s lists into arrays and back at
every compression, and re-booking each moved job in a dict and a heap,
cost as much as the compiled pass itself (measured: bench/SCALING.md).
So conservative's profile and bookings are numpy arrays for the whole run;
arrivals, early ends and the due jobs are compiled calls on them too, with
the same breakpoint edits as the ``Profile`` (tests compare them step list
by step list).  A ``Profile`` is made from the arrays only for the rare
steps that need one: advance reservations and a rebuilt plan.

This module imports numba, so it is imported only when a conservative run
first plans: no other policy, and no command that does not simulate
conservative backfilling, pays for loading it.  ``cache=True`` keeps the
machine code on disk (in ``__pycache__``, or ``NUMBA_CACHE_DIR``): only the
very first run compiles.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import (
    NEVER,
    ArrayProfile,
    change,
    discard_before,
    earlier_fit,
    grown,
    place,
    step_at,
)

KEEP = 8
"""How many proofs a compression keeps: the last ones, from the jobs just before in the queue."""


class ArrayPlan(ArrayProfile):
    """Conservative backfilling's plan as numpy arrays: the profile and the waiting jobs.

    The profile is an :class:`~schedlab.engine.profile_kernels.ArrayProfile`
    (the step function of :class:`~schedlab.engine.profile.Profile` in
    arrays with room to grow), so arrivals, early ends and compressions
    edit it in place by one compiled call each, with the same breakpoint
    splits and merges as the ``Profile`` (a property test compares them
    step list by step list).  The waiting jobs are columns
    indexed by arrival number (job id, width, estimate, booked start; -1
    once started) and ``queue``, the arrival numbers still waiting, oldest
    first (started ones are dropped lazily by the compiled walks).
    ``upcoming`` is the earliest booked start, kept up to date at every
    booking, so the policy needs no heap of bookings: the due jobs are
    collected by one compiled walk of the queue when that time comes.
    """

    __slots__ = (
        "arrived",
        "due",
        "estimates",
        "ids",
        "queue",
        "queued",
        "scratch",
        "starts",
        "upcoming",
        "widths",
    )

    NEVER = NEVER

    def __init__(self, capacity: int, origin: int) -> None:
        super().__init__(capacity, origin)
        self.ids = np.empty(1024, np.int64)
        self.widths = np.empty(1024, np.int64)
        self.estimates = np.empty(1024, np.int64)
        self.starts = np.empty(1024, np.int64)
        self.queue = np.empty(1024, np.int64)
        #: Room the compiled calls write into, kept for the run instead of allocated at
        #: every call: the due jobs (as long as ``queue``) and a move's new steps (two rows
        #: as long as ``times``).
        self.due = np.empty(1024, np.int64)
        self.scratch = np.empty((2, len(self.times)), np.int64)
        self.arrived = 0
        self.queued = 0
        self.upcoming = NEVER

    # ---------------------------------------------------------------- the jobs
    def add(self, job_id: int, width: int, estimate: int) -> int:
        """Take an arriving job (not booked yet); its arrival number."""
        arrival = self.arrived
        if arrival == len(self.ids):
            for name in ("ids", "widths", "estimates", "starts"):
                setattr(self, name, grown(getattr(self, name), arrival + 1))
        if self.queued == len(self.queue):
            self.queue = grown(self.queue, self.queued + 1)
        self.ids[arrival] = job_id
        self.widths[arrival] = width
        self.estimates[arrival] = estimate
        self.starts[arrival] = -1
        self.queue[self.queued] = arrival
        self.queued += 1
        self.arrived = arrival + 1
        return arrival

    def book(self, arrival: int, start: int) -> None:
        """Book a waiting job at ``start`` (its processors are already taken in the profile)."""
        self.starts[arrival] = start
        if start < self.upcoming:
            self.upcoming = start

    def pop_due(self, now: int) -> list[int]:
        """The arrival numbers of the jobs booked at or before ``now``, oldest first.

        They stay booked (the caller starts them, or rebuilds the plan);
        ``upcoming`` becomes the earliest booking of the others.
        """
        if len(self.due) < self.queued:
            self.due = grown(self.due, self.queued)
        count, self.queued, self.upcoming = _due(self.starts, self.queue, self.queued, now,
                                                 self.due)
        return self.due[:count].tolist()

    def started(self, arrival: int) -> None:
        self.starts[arrival] = -1

    def forget_bookings(self) -> None:
        """No job is booked any more (before the plan is built anew)."""
        self.upcoming = NEVER

    # ------------------------------------------------------------- the profile
    def place(self, width: int, duration: int, now: int) -> int:
        """:meth:`Profile.place <schedlab.engine.profile.Profile.place>` from ``now``, the past forgotten."""
        self.make_room(2)
        start, self.size = _place(self.times, self.free, self.size, now, width, duration)
        return start

    def release(self, now: int, duration: int, width: int) -> None:
        """:meth:`Profile.release <schedlab.engine.profile.Profile.release>` from ``now``.

        The past before ``now`` is forgotten.
        """
        self.make_room(2)
        self.size = _release(self.times, self.free, self.size, now, duration, width)

    def give_back(self, now: int, start: int, duration: int, width: int) -> None:
        """Give back ``width`` on ``[start, start + duration)`` (the part from ``now`` on):
        the booking of a job that will not run.  The past before ``now`` is forgotten."""
        self.make_room(2)
        self.size = _give_back(self.times, self.free, self.size, now, start, duration, width)

    def compress(self, now: int, order: np.ndarray | None = None) -> None:
        """Re-place every waiting job at its earliest fit from ``now`` when that is earlier.

        In queue order: ``order`` (arrival numbers), or, when None, the
        arrival order (fcfs).  One compiled call; the new starts are
        written into ``starts``.
        """
        jobs = self.queued if order is None else len(order)
        self.make_room(4 * jobs + 4)                # a move adds at most four breakpoints
        if self.scratch.shape[1] < len(self.times):
            self.scratch = grown(self.scratch, len(self.times))
        if order is None:
            self.size, self.queued, earliest = _compress(
                self.times, self.free, self.size, now, self.queue, self.queued,
                self.widths, self.estimates, self.starts, True, self.scratch)
        else:
            self.size, _, earliest = _compress(self.times, self.free, self.size, now, order,
                                               len(order), self.widths, self.estimates,
                                               self.starts, False, self.scratch)
        if earliest < self.upcoming:
            self.upcoming = earliest


@njit(cache=True)
def _place(times, free, size, now, width, duration):  # pragma: no cover
    """Forget the steps before ``now``, then reserve at the earliest fit from ``now``."""
    return place(times, free, discard_before(times, free, size, now), width, duration, now)


@njit(cache=True)
def _release(times, free, size, now, duration, width):  # pragma: no cover
    """Forget the steps before ``now``, then give back ``width`` on ``[now, now + duration)``."""
    size = discard_before(times, free, size, now)
    return change(times, free, size, now, duration, width)


@njit(cache=True)
def _give_back(times, free, size, now, start, duration, width):  # pragma: no cover
    """Forget the steps before ``now``, then give back ``width`` on what is left of
    ``[start, start + duration)``."""
    size = discard_before(times, free, size, now)
    first = max(start, now)
    if start + duration > first:
        size = change(times, free, size, first, start + duration - first, width)
    return size


@njit(cache=True)
def _compress(times, free, size, now, order, count, widths, durations, booked,
              compact, scratch):  # pragma: no cover
    """The pass over ``order[:count]`` (arrival numbers of waiting jobs, in queue order).

    With ``compact`` (``order`` is the plan's own queue), the jobs started
    since (booked start -1) are dropped from ``order`` on the way.  Returns
    the profile's new length, the number of jobs kept in ``order`` and the
    earliest new start (:data:`NEVER`: no job moved).
    """
    size = discard_before(times, free, size, now)
    proofs = new_proofs()
    held = 0
    earliest = NEVER
    kept = 0
    for q in range(count):
        i = order[q]
        old = booked[i]
        if compact:
            if old < 0:
                continue
            order[kept] = i
            kept += 1
        if old <= now:
            continue
        size, held, start = _visit(times, free, size, now, widths[i], durations[i], old,
                                   proofs, held, scratch)
        if start >= 0:
            booked[i] = start
            if start < earliest:
                earliest = start
    return size, (kept if compact else count), earliest


@njit(cache=True)
def _visit(times, free, size, now, width, duration, old, proofs, held, scratch):  # pragma: no cover
    """One job of the pass: its earliest fit before ``old``, moved there (-1: it stays).

    The search starts where the proofs of the jobs checked just before it
    show that no earlier start can work, so in a long queue a job is not
    scanned again from ``now``; the starts found are exactly those of a
    scan from ``now`` (a property test compares the two).  Returns the
    profile's new length, the number of proofs held, the new start.
    """
    after = no_start_before(proofs, held, width, duration, old)
    if after >= old:
        return size, held, -1
    start = earlier_fit(times, free, size, width, duration, now if after < now else after, old)
    if start < 0:
        return size, add_proof(proofs, held, width, duration, old, old), -1
    size = move(times, free, size, old, start, duration, width, scratch[0], scratch[1])
    released(proofs, held, old)
    return size, add_proof(proofs, held, width, duration, old, start), start


@njit(cache=True)
def _due(starts, queue, queued, now, due):  # pragma: no cover
    """Collect into ``due`` the queued jobs booked at or before ``now``; drop started ones.

    Returns how many are due, the queue's new length and the earliest
    booking of the others (:data:`NEVER`: none).
    """
    count = 0
    kept = 0
    upcoming = NEVER
    for q in range(queued):
        i = queue[q]
        start = starts[i]
        if start < 0:
            continue
        queue[kept] = i
        kept += 1
        if start <= now:
            due[count] = i
            count += 1
        elif start < upcoming:
            upcoming = start
    return count, kept, upcoming


@njit(cache=True)
def new_proofs():  # pragma: no cover
    """Room for :data:`KEEP` proofs: rows width, duration, booked, bound; a column each."""
    return np.empty((4, KEEP), np.int64)


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
    for p in range(min(held, KEEP)):
        bound = proofs[3, p]
        if (bound > latest and proofs[0, p] <= width and proofs[1, p] <= duration
                and proofs[2, p] <= booked):
            latest = bound
    return latest


@njit(cache=True)
def add_proof(proofs, held, width, duration, booked, bound):  # pragma: no cover
    """Hold a new proof in the place of the oldest beyond :data:`KEEP`; returns ``held + 1``.

    ``proofs`` is a ring of :data:`KEEP` columns (:func:`new_proofs`) and
    ``held`` counts the proofs ever added, so nothing is shifted.
    """
    slot = held % KEEP
    proofs[0, slot] = width
    proofs[1, slot] = duration
    proofs[2, slot] = booked
    proofs[3, slot] = bound
    return held + 1


@njit(cache=True)
def released(proofs, held, t):  # pragma: no cover
    """Processors came free from ``t`` on: cut the proofs whose windows reach past ``t``.

    Taking processors keeps a proof true; giving them back from ``t`` on
    keeps it true only for the windows that end by ``t``, so ``bound``
    drops to ``t - duration + 1`` for a proof booked after ``t``.
    """
    for p in range(min(held, KEEP)):
        if proofs[2, p] > t and proofs[3, p] > t - proofs[1, p] + 1:
            proofs[3, p] = t - proofs[1, p] + 1


@njit(cache=True)
def move(times, free, size, old, start, duration, width, new_times, new_free):  # pragma: no cover
    """A booking of ``width`` for ``duration`` moved from ``old`` to ``start < old``.

    The same step list as ``change(old, +width)`` then ``change(start,
    -width)``, but the steps are rewritten only on ``[start, old +
    duration)`` (the merge below) and the steps behind it are shifted at
    most once, by the difference in breakpoints (often none), instead of
    once per split and merge; in a long profile those shifts were most of
    a move's cost (measured: bench/SCALING.md).  Both step lists have no
    two equal neighbours, so the result is that one list.  ``new_times`` and
    ``new_free`` are scratch space as long as ``times``.
    """
    if duration <= 0 or width == 0:
        return size
    end = old + duration
    first = step_at(times, size, start)                     # the step holding start
    stop = step_at(times, size, end - 1) + 1                # the first breakpoint at or after end
    at_end = stop < size and times[stop] == end
    value_at_end = free[stop] if at_end else free[stop - 1]
    middle = min(start + duration, old)                    # the edges in time order:
    later = max(start + duration, old)                     # start, middle, later, end
    count = 0
    last = free[first - 1] if first > 0 else -1
    k = first
    e = 0
    level = free[first]
    while True:
        edge = _edge(e, start, middle, later, end)
        if k < stop and (e == 4 or times[k] <= edge):
            t = times[k]
            level = free[k]
            k += 1
            if e < 4 and edge == t:
                e += 1
        else:
            t = edge
            e += 1
        while e < 4 and _edge(e, start, middle, later, end) == t:
            e += 1
        if t >= end:
            value = value_at_end
        else:
            value = level
            if start <= t < start + duration:
                value -= width
            if old <= t:
                value += width
        if value != last:
            new_times[count] = t
            new_free[count] = value
            count += 1
            last = value
        if t >= end:
            break
    replaced = stop - first + (1 if at_end else 0)
    tail = size - (first + replaced)
    shift = count - replaced
    if shift > 0:
        for m in range(size - 1, first + replaced - 1, -1):
            times[m + shift] = times[m]
            free[m + shift] = free[m]
    elif shift < 0:
        for m in range(first + replaced, size):
            times[m + shift] = times[m]
            free[m + shift] = free[m]
    for m in range(count):
        times[first + m] = new_times[m]
        free[first + m] = new_free[m]
    return first + count + tail


@njit(cache=True)
def _edge(e, start, middle, later, end):  # pragma: no cover
    """The ``e``-th of a move's four edges in time order: kept in registers, as a move
    runs millions of times in a deep queue's run and an array would be allocated each time."""
    if e == 0:
        return start
    if e == 1:
        return middle
    if e == 2:
        return later
    return end
