"""The availability profile: free processors over future time.

One implementation shared by every policy that plans ahead: conservative
backfilling, planning-based scheduling and dynP's virtual schedules (Streit
2002, §5), reservations (Margo et al.), QoPS admission (Islam et al.) and
schedule-based grid search.

The profile is a step function kept as two parallel lists: ``times[k]`` is a
breakpoint and ``free[k]`` the number of free processors on
``[times[k], times[k+1])``; the last step runs to infinity.  All intervals are
half-open, so a job ending at ``t`` and one starting at ``t`` never overlap.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

_FAR = 2 ** 62      # beyond any simulated time


class Profile:
    """Free processors as a step function of (integer) time from ``origin`` on."""

    __slots__ = ("_free", "_times", "capacity")

    def __init__(self, capacity: int, origin: int = 0) -> None:
        if capacity <= 0:
            raise ValueError(f"capacity must be > 0, got {capacity}")
        self.capacity = capacity
        self._times = [origin]
        self._free = [capacity]

    @classmethod
    def from_releases(cls, capacity: int, origin: int,
                      releases: Iterable[tuple[int, int]]) -> Profile:
        """The profile of running jobs: ``(end, width)`` pairs sorted by end, all ends > origin.

        Built in one pass (linear in the number of jobs) instead of one
        reservation per job: the free count starts at ``capacity`` minus every
        width and rises at each end.
        """
        ends: list[int] = []
        gains: list[int] = []
        for end, width in releases:
            if ends and ends[-1] == end:
                gains[-1] += width
            else:
                ends.append(end)
                gains.append(width)
        profile = cls.__new__(cls)
        profile.capacity = capacity
        free = capacity - sum(gains)
        if free < 0:
            raise ValueError(f"running jobs need {capacity - free} processors, "
                             f"more than the capacity {capacity}")
        times, levels = [origin], [free]
        for end, gain in zip(ends, gains):
            free += gain
            times.append(end)
            levels.append(free)
        profile._times = times
        profile._free = levels
        return profile

    @classmethod
    def from_changes(cls, capacity: int, origin: int, free: int,
                     changes: Iterable[tuple[int, int]]) -> Profile:
        """The profile with ``free`` processors at ``origin`` and ``(time, delta)`` changes after.

        Changes may come in any order (all times > ``origin``); those at one
        time are summed.  One sort instead of one reservation per interval:
        this is how a profile of running jobs *and* granted reservations is
        built (a reservation is a drop at its start and a rise at its end).
        Raises ``ValueError`` if the free count leaves ``[0, capacity]``.
        """
        times, levels = [origin], [free]
        for t, delta in sorted(changes):
            if t == times[-1]:
                levels[-1] += delta
            else:
                times.append(t)
                levels.append(levels[-1] + delta)
        if min(levels) < 0 or max(levels) > capacity:
            raise ValueError(f"the changes take the free processors out of [0, {capacity}]: "
                             f"{list(zip(times, levels))}")
        profile = cls.__new__(cls)
        profile.capacity = capacity
        keep = [0] + [k for k in range(1, len(times)) if levels[k] != levels[k - 1]]
        profile._times = [times[k] for k in keep]
        profile._free = [levels[k] for k in keep]
        return profile

    def fit_limits(self) -> FitLimits:
        """A view answering "does a job fit from the origin?" in logarithmic time.

        Valid only until the profile changes (it shares the breakpoint list);
        see :class:`FitLimits`.
        """
        return FitLimits(self._times, self._free)

    def copy(self) -> Profile:
        """An independent copy (two list copies: cheap enough for what-if schedules)."""
        clone = Profile.__new__(Profile)
        clone.capacity = self.capacity
        clone._times = self._times.copy()
        clone._free = self._free.copy()
        return clone

    @property
    def origin(self) -> int:
        return self._times[0]

    def steps(self) -> list[tuple[int, int]]:
        """The breakpoints as ``(time, free processors from then on)`` pairs."""
        return list(zip(self._times, self._free))

    def breakpoints(self) -> tuple[list[int], list[int]]:
        """The two lists themselves, ``(times, free)``: for a compiled pass to copy (not to edit)."""
        return self._times, self._free

    def replace_breakpoints(self, times: list[int], free: list[int]) -> None:
        """Take ``times`` and ``free`` as the new step function (the result of a compiled pass)."""
        self._times = times
        self._free = free

    def free_at(self, t: int) -> int:
        """Free processors at time ``t`` (``t`` >= origin)."""
        return self._free[bisect_right(self._times, t) - 1]

    def min_free(self, start: int, end: int) -> int:
        """Fewest free processors anywhere in ``[start, end)``."""
        times, free = self._times, self._free
        k = bisect_right(times, start) - 1
        lowest = free[k]
        k += 1
        n = len(times)
        while k < n and times[k] < end:
            if free[k] < lowest:
                lowest = free[k]
            k += 1
        return lowest

    def earliest_fit(self, width: int, duration: int, after: int) -> int:
        """Earliest ``s >= after`` with ``width`` processors free on ``[s, s + duration)``.

        A zero-duration job still needs its processors at the instant ``s``.

        The scan walks the steps from ``after``: on a step with too few free
        processors it jumps to the next step; otherwise it checks the steps the
        window covers and restarts behind the first one that blocks.  Every
        step is looked at a bounded number of times, so the search is linear
        in the number of breakpoints behind ``after``.
        """
        if width > self.capacity:
            raise ValueError(f"width {width} exceeds capacity {self.capacity}")
        times, free = self._times, self._free
        n = len(times)
        k = bisect_right(times, after) - 1
        start = after
        while True:
            while free[k] < width:
                k += 1
                start = times[k]
            end = start + duration
            j = k + 1
            while j < n and times[j] < end:
                if free[j] < width:
                    break
                j += 1
            else:
                return start
            k = j
            start = times[j]

    def place(self, width: int, duration: int, after: int) -> int:
        """Reserve ``width`` processors at their earliest fit from ``after``; return the start.

        The same as :meth:`earliest_fit` followed by :meth:`reserve`, but the
        reservation reuses the step indices the search found: no second
        bisection and no second scan.  Every planner places jobs this way,
        so this is the hottest call of planning and dynP.
        """
        if width > self.capacity:
            raise ValueError(f"width {width} exceeds capacity {self.capacity}")
        times, free = self._times, self._free
        n = len(times)
        k = bisect_right(times, after) - 1
        start = after
        while True:
            while free[k] < width:
                k += 1
                start = times[k]
            end = start + duration
            j = k + 1
            while j < n and times[j] < end:
                if free[j] < width:
                    break
                j += 1
            else:
                break
            k = j
            start = times[j]
        if duration <= 0 or width == 0:
            return start
        # Steps k .. j-1 cover [start, end); times[k] <= start; j is the first step at or after end.
        if j == n or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        last = j
        if times[k] == start:
            first = k
        else:
            times.insert(k + 1, start)
            free.insert(k + 1, free[k])
            first = k + 1
            last += 1
        for m in range(first, last):
            free[m] -= width
        self._merge_around(first, last)
        return start

    def earlier_fit(self, width: int, duration: int, after: int, booked: int) -> int:
        """Earliest start before ``booked`` for a job already reserved at ``booked``.

        The answer is what :meth:`earliest_fit` would give after releasing the
        job's own reservation ``[booked, booked + duration)``, if that is earlier
        than ``booked``; otherwise -1.  Nothing is modified, so a compression pass
        pays for release and re-reserve only for the jobs that really move.

        A window ``[s, s + duration)`` with ``s < booked`` ends before the
        job's own reservation does, and on that reservation the job would
        find its own processors: only the steps before ``booked`` can block.
        """
        times, free = self._times, self._free
        n = len(times)
        k = bisect_right(times, after) - 1
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
            while j < n and times[j] < limit:
                if free[j] < width:
                    break
                j += 1
            else:
                return start
            k = j
            start = times[j]
        return -1

    def reserve(self, start: int, duration: int, width: int) -> None:
        """Take ``width`` processors on ``[start, start + duration)``.

        Raises ``ValueError`` if that would leave fewer than 0 free anywhere:
        the caller asked for something that does not fit.
        """
        if duration <= 0 or width == 0:
            return
        end = start + duration
        first = self._split(start)
        last = self._split(end)
        free = self._free
        for k in range(first, last):
            if free[k] < width:
                for undo in range(first, k):
                    free[undo] += width
                self._merge_around(first, last)
                raise ValueError(
                    f"reserving {width} processors on [{start}, {end}) does not fit: "
                    f"only {free[k]} free at {self._times[k]}")
            free[k] -= width
        self._merge_around(first, last)

    def release(self, start: int, duration: int, width: int) -> None:
        """Give back ``width`` processors on ``[start, start + duration)``."""
        if duration <= 0 or width == 0:
            return
        end = start + duration
        first = self._split(start)
        last = self._split(end)
        free = self._free
        capacity = self.capacity
        for k in range(first, last):
            if free[k] + width > capacity:
                for undo in range(first, k):
                    free[undo] -= width
                self._merge_around(first, last)
                raise ValueError(f"releasing {width} processors on [{start}, {end}) "
                                 f"exceeds capacity at {self._times[k]}")
            free[k] += width
        self._merge_around(first, last)

    def discard_before(self, t: int) -> None:
        """Forget the past: make ``t`` the new origin (``t`` >= origin)."""
        times = self._times
        k = bisect_right(times, t) - 1
        if k > 0:
            del times[:k]
            del self._free[:k]
        times[0] = t

    def _split(self, t: int) -> int:
        """Index of the breakpoint at ``t``, inserting one if needed (``t`` >= origin)."""
        times = self._times
        k = bisect_left(times, t)
        if k < len(times) and times[k] == t:
            return k
        if k == 0:
            raise ValueError(f"time {t} is before the profile origin {times[0]}")
        times.insert(k, t)
        self._free.insert(k, self._free[k - 1])
        return k

    def _merge_around(self, first: int, last: int) -> None:
        """Drop breakpoints at ``last`` and ``first`` whose step equals the one before."""
        times, free = self._times, self._free
        if last < len(times) and free[last] == free[last - 1]:
            del times[last]
            del free[last]
        if first > 0 and free[first] == free[first - 1]:
            del times[first]
            del free[first]

    def __repr__(self) -> str:
        return f"Profile(capacity={self.capacity}, steps={self.steps()!r})"


class FitLimits:
    """How long a job of each width could run from a profile's origin on.

    ``low[k]`` is minus the fewest free processors on steps ``0..k`` (so it
    never decreases).  The first step where fewer than ``width`` processors
    are free is ``k = bisect_right(low, -width)``; a job of that width can
    run from the origin until that step's start.  EASY with reservations
    asks this for many queued jobs per pass: one bisection each instead of
    a scan of the steps (:meth:`Profile.min_free`).
    """

    __slots__ = ("_low", "_origin", "_times")

    def __init__(self, times: list[int], free: list[int]) -> None:
        low: list[int] = []
        lowest = free[0]
        for level in free:      # a plain loop: 4x faster than accumulate(free, min) here
            if level < lowest:
                lowest = level
            low.append(-lowest)
        self._low = low
        self._times = times
        self._origin = times[0]

    def until(self, width: int) -> int:
        """The latest end of a job of ``width`` started at the origin (a huge number: never)."""
        k = bisect_right(self._low, -width)
        return self._times[k] if k < len(self._times) else _FAR

    def fits(self, width: int, duration: int) -> bool:
        """Whether ``width`` are free on ``[origin, origin + duration)``; duration >= 1."""
        return self._origin + duration <= self.until(width)
