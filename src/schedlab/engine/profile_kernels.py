"""Compiled twins (numba) of the Profile's search and edits, on numpy breakpoint arrays.

:class:`~schedlab.engine.profile.Profile` keeps its step function as two
Python lists; the functions here run the same algorithms on numpy copies of
them (``times``, ``free`` with room to grow, and ``size``, the number of
breakpoints in use; :func:`as_arrays` makes them), so that a loop over many
jobs is one crossing into compiled code instead of one Python search per job:

* :func:`earlier_fit` — :meth:`Profile.earlier_fit` (and, with ``booked =
  NEVER``, :meth:`Profile.earliest_fit`);
* :func:`change` — :meth:`Profile.reserve` / :meth:`Profile.release`
  without their checks, with the same breakpoint splits and merges;
* :func:`place` — :meth:`Profile.place` (the earliest fit, reserved);
* :func:`place_in_order` — :func:`schedlab.policies.planning.place_in_order`
  (one :meth:`Profile.place` per job, in order), and :func:`place_queue`,
  the same on a Profile itself (the planning-based scheduler's rebuild);
* :func:`min_free` — :meth:`Profile.min_free`;
* :func:`discard_before` — :meth:`Profile.discard_before`;
* :func:`step_at` — the step holding a time (``bisect_right(times, t) - 1``).

Users: conservative backfilling's compression (:mod:`schedlab.policies.compression`),
the planning-based scheduler's rebuild of a long queue
(:mod:`schedlab.policies.planning`), self-tuning dynP's step
(:mod:`schedlab.policies.dynp_step`)
and the admission tests of QoPS, MSB and MRT
(:mod:`schedlab.policies.deadline.qops_search`,
:mod:`schedlab.policies.deadline.msb_search`,
:mod:`schedlab.policies.deadline.mrt_search`).
The Profile stays the reference: QoPS, MSB and MRT copy its lists in and, where
the schedule is kept, back; conservative backfilling keeps its whole plan
in such arrays for the run (an :class:`ArrayProfile`: :class:`schedlab.policies.compression.ArrayPlan`),
and so does self-tuning dynP with its running jobs' profile.
Property tests keep the twins equal to the Profile
(tests/engine/test_profile_kernels.py).

This module imports numba, so it is imported only where a policy first
needs it: start-up and every other policy never load numba.
``cache=True`` keeps the machine code on disk (``__pycache__`` or
``NUMBA_CACHE_DIR``): only the very first run compiles.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile import Profile

NEVER = 2 ** 62
"""A booked start later than any simulated time: :func:`earlier_fit` then finds the earliest fit."""


def as_arrays(profile: Profile, room: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Copies of the profile's breakpoints with ``room`` more slots: ``(times, free, size)``."""
    times, free = profile.breakpoints()
    size = len(times)
    times_array = np.empty(size + room, np.int64)
    free_array = np.empty(size + room, np.int64)
    times_array[:size] = times
    free_array[:size] = free
    return times_array, free_array, size


def as_profile(capacity: int, times: np.ndarray, free: np.ndarray) -> Profile:
    """The :class:`Profile` of the breakpoints ``times``, ``free`` (the ones in use): a copy."""
    profile = Profile(capacity)
    profile.replace_breakpoints(times.tolist(), free.tolist())
    return profile


class ArrayProfile:
    """A :class:`Profile`'s step function kept in numpy arrays for a whole run.

    ``times[k]``, ``free[k]`` for ``k < size`` (the last step runs to
    infinity), with room to grow: the compiled kernels of this module edit
    them in place with the same breakpoint splits and merges as the
    ``Profile``, so a policy that edits its profile at every event crosses
    into compiled code once per event and never copies the profile there
    and back.  Conservative backfilling's plan is one
    (:class:`schedlab.policies.compression.ArrayPlan`), and self-tuning
    dynP keeps its running jobs' profile in one
    (:class:`schedlab.policies.dynp_step.TuningState`).  :meth:`profile`
    and :meth:`load` are the conversions to and from a ``Profile``, for the
    rare steps that need one.
    """

    __slots__ = ("capacity", "free", "size", "times")

    def __init__(self, capacity: int, origin: int) -> None:
        self.capacity = capacity
        self.times = np.empty(256, np.int64)
        self.free = np.empty(256, np.int64)
        self.times[0] = origin
        self.free[0] = capacity
        self.size = 1

    def make_room(self, extra: int) -> None:
        """Room for ``extra`` more breakpoints (what the next compiled edit may add at most)."""
        needed = self.size + extra
        if needed > len(self.times):
            self.times = grown(self.times, needed)
            self.free = grown(self.free, needed)

    def profile(self, origin: int | None = None) -> Profile:
        """The step function as a :class:`Profile` (a copy); from ``origin`` on when given.

        With ``origin`` the steps before it are left out, as
        :meth:`Profile.discard_before` leaves them.
        """
        size = self.size
        if origin is None:
            return as_profile(self.capacity, self.times[:size], self.free[:size])
        first = int(np.searchsorted(self.times[:size], origin, side="right")) - 1
        times = self.times[first:size].copy()
        times[0] = origin
        return as_profile(self.capacity, times, self.free[first:size])

    def load(self, profile: Profile) -> None:
        """Take ``profile``'s step function as this one."""
        times, free = profile.breakpoints()
        self.size = 0                            # the old steps are dropped: room for the new
        self.make_room(len(times))
        self.times[:len(times)] = times
        self.free[:len(free)] = free
        self.size = len(times)

    def last_time(self) -> int:
        """The last breakpoint (the origin when there is one step only)."""
        return int(self.times[self.size - 1])


def grown(array: np.ndarray, needed: int) -> np.ndarray:
    """A copy of ``array`` whose last axis holds at least ``needed`` (twice as many, or more).

    The arrays the compiled passes edit in place have room to grow; this is
    how they get more.
    """
    room = max(2 * array.shape[-1], needed)
    bigger = np.empty((*array.shape[:-1], room), array.dtype)
    bigger[..., :array.shape[-1]] = array
    return bigger


def place_queue(profile: Profile, widths: np.ndarray, durations: np.ndarray,
                now: int) -> np.ndarray:
    """:func:`~schedlab.policies.planning.place_in_order` in one compiled call.

    Reserves the jobs of the columns ``widths`` and ``durations``, in column
    order, each at its earliest fit from ``now``, in ``profile`` itself, and
    returns their starts; every width is at most the profile's capacity.
    The planning-based scheduler's rebuild of a long queue (Streit 2002, §5).
    """
    times, free, size = as_arrays(profile, 2 * len(widths))   # a placement adds <= 2 steps
    starts = np.empty(len(widths), np.int64)
    size = place_in_order(times, free, size, widths, durations,
                          np.arange(len(widths), dtype=np.int64), now, starts)
    profile.replace_breakpoints(times[:size].tolist(), free[:size].tolist())
    return starts


@njit(cache=True)
def place_in_order(times, free, size, widths, durations, order, now,
                   starts):  # pragma: no cover
    """Reserve the jobs ``order[0], order[1], ...`` one by one, each at its earliest fit from now.

    :meth:`Profile.place <schedlab.engine.profile.Profile.place>` per job:
    the start of job ``i`` goes to ``starts[i]``; returns the
    profile's new length.  The schedule generation of CCS (Streit 2002, §5).
    """
    for n in range(len(order)):
        job = order[n]
        start, size = place(times, free, size, widths[job], durations[job], now)
        starts[job] = start
    return size


@njit(cache=True)
def place(times, free, size, width, duration, after):  # pragma: no cover
    """:meth:`Profile.place <schedlab.engine.profile.Profile.place>` on arrays: ``(start, size)``.

    The earliest fit from ``after``, reserved with the step indices the
    search found (no second search, as in the Profile); the arrays need room
    for two more breakpoints, and ``width`` is at most the capacity.
    """
    k = step_at(times, size, after)
    start = after
    while True:
        while free[k] < width:
            k += 1
            start = times[k]
        end = start + duration
        j = k + 1
        while j < size and times[j] < end:
            if free[j] < width:
                break
            j += 1
        else:
            break
        k = j
        start = times[j]
    if duration <= 0 or width == 0:
        return start, size
    # Steps k .. j-1 cover [start, end); times[k] <= start; j is the first step at or after end.
    if j == size or times[j] != end:
        size = _insert(times, free, size, j, end)
    last = j
    first = k
    if times[k] != start:
        size = _insert(times, free, size, k + 1, start)
        first = k + 1
        last += 1
    for m in range(first, last):
        free[m] -= width
    if last < size and free[last] == free[last - 1]:
        size = _delete(times, free, size, last)
    if first > 0 and free[first] == free[first - 1]:
        size = _delete(times, free, size, first)
    return start, size


@njit(cache=True)
def step_at(times, size, t):  # pragma: no cover
    """The index of the step holding ``t``: ``bisect_right(times, t) - 1`` (``t`` >= origin)."""
    lo, hi = 0, size
    while lo < hi:
        mid = (lo + hi) // 2
        if t < times[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo - 1


@njit(cache=True)
def min_free(times, free, size, start, end):  # pragma: no cover
    """:meth:`Profile.min_free <schedlab.engine.profile.Profile.min_free>` on arrays."""
    k = step_at(times, size, start)
    lowest = free[k]
    k += 1
    while k < size and times[k] < end:
        if free[k] < lowest:
            lowest = free[k]
        k += 1
    return lowest


@njit(cache=True)
def discard_before(times, free, size, t):  # pragma: no cover
    """:meth:`Profile.discard_before <schedlab.engine.profile.Profile.discard_before>` on arrays.

    Returns the new length.
    """
    k = step_at(times, size, t)
    if k > 0:
        for m in range(size - k):
            times[m] = times[m + k]
            free[m] = free[m + k]
        size -= k
    times[0] = t
    return size


@njit(cache=True)
def earlier_fit(times, free, size, width, duration, after, booked):  # pragma: no cover
    """:meth:`Profile.earlier_fit <schedlab.engine.profile.Profile.earlier_fit>` on arrays.

    With ``booked = NEVER`` no step is excluded: this is
    :meth:`Profile.earliest_fit <schedlab.engine.profile.Profile.earliest_fit>`
    (the last step has every processor free, so a fit always exists).
    """
    lo, hi = 0, size
    while lo < hi:                               # bisect_right(times, after) - 1
        mid = (lo + hi) // 2
        if after < times[mid]:
            hi = mid
        else:
            lo = mid + 1
    k = lo - 1
    start = after
    while start < booked:
        while free[k] < width:
            k += 1
            start = times[k]
            if start >= booked:
                return -1
        end = start + duration
        limit = end if end < booked else booked
        j = k + 1
        while j < size and times[j] < limit:
            if free[j] < width:
                break
            j += 1
        else:
            return start
        k = j
        start = times[j]
    return -1


@njit(cache=True)
def change(times, free, size, start, duration, gain):  # pragma: no cover
    """Add ``gain`` free processors on ``[start, start + duration)``; returns the new length.

    :meth:`Profile.release <schedlab.engine.profile.Profile.release>` (``gain
    > 0``) and :meth:`~schedlab.engine.profile.Profile.reserve` (``gain < 0``)
    without their checks (the searches guarantee the fit), with the same
    breakpoint splits and merges.
    """
    if duration <= 0 or gain == 0:
        return size
    first, size = _split(times, free, size, start)
    last, size = _split(times, free, size, start + duration)
    for k in range(first, last):
        free[k] += gain
    if last < size and free[last] == free[last - 1]:
        size = _delete(times, free, size, last)
    if first > 0 and free[first] == free[first - 1]:
        size = _delete(times, free, size, first)
    return size


@njit(cache=True)
def _split(times, free, size, t):  # pragma: no cover
    """Index of the breakpoint at ``t``, inserting one if needed; and the new length."""
    lo, hi = 0, size
    while lo < hi:                               # bisect_left(times, t)
        mid = (lo + hi) // 2
        if times[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    if lo < size and times[lo] == t:
        return lo, size
    return lo, _insert(times, free, size, lo, t)


@njit(cache=True)
def _insert(times, free, size, k, t):  # pragma: no cover
    """A breakpoint at ``t`` as number ``k``, continuing the step before it; the new length."""
    for m in range(size, k, -1):
        times[m] = times[m - 1]
        free[m] = free[m - 1]
    times[k] = t
    free[k] = free[k - 1]
    return size + 1


@njit(cache=True)
def _delete(times, free, size, k):  # pragma: no cover
    """Remove breakpoint ``k``; returns the new length."""
    for m in range(k, size - 1):
        times[m] = times[m + 1]
        free[m] = free[m + 1]
    return size - 1
