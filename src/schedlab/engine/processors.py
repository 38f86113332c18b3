"""Which job, failure or window holds each processor of a space-sharing run with outages.

Only a run with failures or maintenance windows keeps one (docs/reference/events.md):
a failure hits particular processors, so particular jobs.  The free
processors are kept as sorted runs ``[lo, hi)`` and a job's processors as
ranges, so that a start and an end cost a few list operations and one slice
assignment per range, not a scan of the machine (bench/OUTAGES.md).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

#: A processor's holder in :attr:`ProcessorMap.owner` when no job holds it (jobs are
#: held by their position in the workload, >= 0).
FREE, FAILED, WINDOW = -1, -2, -3

Ranges = list[tuple[int, int]]


class ProcessorMap:
    """The processors of one machine and who holds them.

    ``allocation`` is how a starting job takes free processors (our
    readings; docs/reference/events.md): ``first-fit`` the lowest-numbered
    free ones; ``contiguous`` the first run of consecutive free ones long
    enough, else first-fit (a job is never delayed for contiguity: the
    policies schedule on counts); ``any`` free ones drawn at random (a
    machine without locality; seeded by ``seed``).
    """

    def __init__(self, processors: int, allocation: str, seed: int) -> None:
        self.owner = np.full(processors, FREE, dtype=np.int64)
        self.allocation = allocation
        self._rng = np.random.default_rng([seed, processors])
        self._lo: list[int] = [0]           # the free runs [lo, hi), sorted
        self._hi: list[int] = [processors]
        #: The ranges each running job (by position) holds.
        self.held: dict[int, Ranges] = {}

    # ------------------------------------------------------------------ jobs
    def take(self, position: int, width: int) -> Ranges:
        """Give ``width`` free processors to the job at ``position``, by the allocation."""
        if self.allocation == "first-fit":
            ranges = self.held[position] = self._take_lowest(width, position)
            return ranges
        if self.allocation == "contiguous":
            ranges = self._first_run(width) or self._lowest(width)
        else:
            ranges = self._drawn(width)
        self._hold(ranges, position)
        self.held[position] = ranges
        return ranges

    def _take_lowest(self, width: int, holder: int) -> Ranges:
        """The ``width`` lowest free processors, to ``holder``: whole runs from the front,
        then the low end of the next (first-fit, the hot path of a run with outages)."""
        owner, lo, hi = self.owner, self._lo, self._hi
        ranges = []
        while width:
            a, b = lo[0], hi[0]
            if b - a > width:
                ranges.append((a, a + width))
                owner[a:a + width] = holder
                lo[0] = a + width
                return ranges
            ranges.append((a, b))
            owner[a:b] = holder
            del lo[0], hi[0]
            width -= b - a
        return ranges

    # ------------------------------------------------------------------ outages
    def take_lowest(self, width: int, holder: int) -> Ranges:
        """The ``width`` lowest free processors (fewer if fewer are free), to ``holder``."""
        return self._take_lowest(min(width, self.free_count()), holder)

    def take_free_in(self, lo: int, hi: int, holder: int) -> Ranges:
        """Every free processor of ``[lo, hi)``, to ``holder``."""
        ranges = self.free_in(lo, hi)
        self._hold(ranges, holder)
        return ranges

    def free_in(self, lo: int, hi: int) -> Ranges:
        """The free parts of ``[lo, hi)``."""
        k = max(0, bisect_right(self._lo, lo) - 1)
        parts = []
        while k < len(self._lo) and self._lo[k] < hi:
            a, b = max(self._lo[k], lo), min(self._hi[k], hi)
            if a < b:
                parts.append((a, b))
            k += 1
        return parts

    def release(self, ranges: Ranges) -> None:
        """``ranges`` free again (merged with the free runs around them)."""
        owner, lo, hi = self.owner, self._lo, self._hi
        for a, b in ranges:
            owner[a:b] = FREE
            k = bisect_left(lo, a)
            if k > 0 and hi[k - 1] == a:
                if k < len(lo) and lo[k] == b:
                    hi[k - 1] = hi[k]
                    del lo[k], hi[k]
                else:
                    hi[k - 1] = b
            elif k < len(lo) and lo[k] == b:
                lo[k] = a
            else:
                lo.insert(k, a)
                hi.insert(k, b)

    def free_count(self) -> int:
        return sum(b - a for a, b in zip(self._lo, self._hi))

    # ------------------------------------------------------------------ choosing
    def _lowest(self, width: int) -> Ranges:
        ranges = []
        lo, hi = self._lo, self._hi
        k = 0
        while width > 0:
            a, b = lo[k], hi[k]
            taken = min(width, b - a)
            ranges.append((a, a + taken))
            width -= taken
            k += 1
        return ranges

    def _first_run(self, width: int) -> Ranges:
        for a, b in zip(self._lo, self._hi):
            if b - a >= width:
                return [(a, a + width)]
        return []

    def _drawn(self, width: int) -> Ranges:
        free = np.concatenate([np.arange(a, b) for a, b in zip(self._lo, self._hi)])
        chosen = np.sort(self._rng.choice(free, size=width, replace=False))
        return as_ranges(chosen)

    def _hold(self, ranges: Ranges, holder: int) -> None:
        """Take ``ranges`` (each inside one free run) out of the free runs, to ``holder``."""
        owner, lo, hi = self.owner, self._lo, self._hi
        for a, b in ranges:
            owner[a:b] = holder
            k = bisect_right(lo, a) - 1
            run_lo, run_hi = lo[k], hi[k]
            if run_lo == a and run_hi == b:
                del lo[k], hi[k]
            elif run_lo == a:
                lo[k] = b
            elif run_hi == b:
                hi[k] = a
            else:
                hi[k] = a
                lo.insert(k + 1, b)
                hi.insert(k + 1, run_hi)


def as_ranges(ids: np.ndarray) -> Ranges:
    """Sorted processor ids as maximal ranges ``[lo, hi)``."""
    if ids.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [ids.size]))
    return [(int(ids[s]), int(ids[e - 1]) + 1) for s, e in zip(starts, ends)]


def free_runs(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First processor and length of every maximal block of free processors (a boolean
    mask), lowest first."""
    edges = np.diff(np.concatenate(([0], free.view(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    return starts, np.flatnonzero(edges == -1) - starts
