"""Which job, failure or window holds each processor of a space-sharing run with outages.

Only a run with failures or maintenance windows keeps one (docs/reference/events.md):
a failure hits particular processors, so particular jobs.  The free
processors are kept as sorted runs ``[lo, hi)`` and a job's processors as
ranges.

A job's start and end, and the end of a failure or a window, only append
two integers to a journal (:meth:`ProcessorMap.take`,
:meth:`ProcessorMap.release_job`, :meth:`ProcessorMap.release`; the engine's
per-job path appends them to :attr:`ProcessorMap.journal` itself); compiled
code (:func:`_apply`, numba) applies the journal when the map is read: at a
failure, a window's claim, the end of the run.  Between outages a run pays
no map work per job, so its cost follows its outages, not its jobs
(bench/OUTAGES.md).
"""

from __future__ import annotations

from array import array

import numpy as np

from schedlab.compiled import njit

#: A processor's holder in :attr:`ProcessorMap.owner` when no job holds it (jobs are
#: held by their position in the workload, >= 0).
FREE, FAILED, WINDOW = -1, -2, -3
#: How a starting job takes free processors (docs/reference/events.md).
ALLOCATIONS = ("first-fit", "contiguous", "any")

Ranges = list[tuple[int, int]]

# The journal's operations, two integers each: ``(position, now)``, the job at
# ``position`` takes its width (:attr:`ProcessorMap.widths`) of free processors;
# ``(~position, now)``, it gives them back; ``(~(jobs + lo), hi)``, the processors
# ``[lo, hi)`` are free again (``jobs`` the number of positions).
_RUNS, _POOL_TOP, _USED_TOP, _RNG = range(4)    # slots of the kernel's state array
_PARK_MILLER = 2**31 - 1                        # modulus of the draws of ``any``


class ProcessorMap:
    """The processors of one machine and who holds them.

    ``allocation`` is how a starting job takes free processors (our
    readings; docs/reference/events.md): ``first-fit`` the lowest-numbered
    free ones; ``contiguous`` the first run of consecutive free ones long
    enough, else first-fit (a job is never delayed for contiguity: the
    policies schedule on counts); ``any`` free ones drawn at random (a
    machine without locality; seeded by ``seed``, the Park-Miller minimal
    standard generator).  ``jobs`` is the number of workload positions.

    Every use of processors by a job ends in :attr:`used` (rows ``lo, hi,
    from, until, position``), written when the job releases them.
    """

    def __init__(self, processors: int, allocation: str, seed: int, jobs: int) -> None:
        self.owner = np.full(processors, FREE, dtype=np.int64)
        self._mode = ALLOCATIONS.index(allocation)
        self._lo = np.zeros(processors // 2 + 2, dtype=np.int64)    # the free runs, sorted
        self._hi = np.zeros(processors // 2 + 2, dtype=np.int64)
        self._lo[0], self._hi[0] = 0, processors
        self._state = np.zeros(4, dtype=np.int64)
        self._state[_RUNS] = 1
        self._state[_RNG] = (seed * 1_000_003 + processors) % (_PARK_MILLER - 1) + 1
        #: The ranges each job holds: rows of ``_pool`` from ``_first[i]``, ``_count[i]`` of
        #: them (0: none), held since ``_since[i]``.
        # Room for three ranges a job (first-fit on a fragmented machine takes two to three
        # a start); np.zeros leaves the pages it never writes unallocated.
        self._pool = np.zeros((max(64, 3 * jobs), 2), dtype=np.int64)
        self._first = np.zeros(jobs, dtype=np.int64)
        self._count = np.zeros(jobs, dtype=np.int64)
        self._since = np.zeros(jobs, dtype=np.int64)
        self._used = np.zeros((max(64, 3 * jobs), 5), dtype=np.int64)
        #: The operations not applied yet (two integers each, the module's format); emptied
        #: in place when applied, so that a caller may keep its bound ``append``.
        self.journal = array("q")
        #: Each position's width, which its takes in the journal take (the engine's jobs'
        #: widths, set once for the run; :meth:`take` sets it too).
        self.widths = np.zeros(jobs, dtype=np.int64)
        #: What :meth:`strike` reads back from its kernel: two counts, positions, ranges.
        self._out = np.zeros(2 + 3 * processors, dtype=np.int64)

    # ------------------------------------------------------------------ jobs
    def take(self, position: int, width: int, now: int) -> None:
        """The job at ``position`` takes ``width`` free processors now, by the allocation.

        The engine's starts write the same two integers through ``journal.append``
        (:attr:`Outages.note <schedlab.engine.outages.Outages.note>`), the widths set
        once for the run: this is that entry for a caller with no widths set."""
        self.widths[position] = width
        self.journal.extend((position, now))

    def release_job(self, position: int, now: int) -> None:
        """The job at ``position`` gives its processors back now (the entry the engine's
        ends write through ``journal.append``)."""
        self.journal.extend((~position, now))

    def flush(self) -> None:
        """Apply the journal (compiled), growing the pool and the record as they fill."""
        if not self.journal:
            return
        ops = self._drained()
        done = 0
        while done < len(ops):
            done = _apply(ops, done, self.owner, self._lo, self._hi, self._state, self._pool,
                          self._first, self._count, self._since, self._used, self._mode,
                          self.widths)
            if done < len(ops):
                self._grow(ops[done, 0] >= 0)

    def _drained(self) -> np.ndarray:
        """The journal's operations as rows of two (a copy), the journal emptied in place:
        no view of it outlives the call, so that it stays free to grow."""
        ops = np.frombuffer(self.journal, dtype=np.int64).reshape(-1, 2).copy()
        del self.journal[:]
        return ops

    def _grow(self, pool: bool) -> None:
        """Double the pool of held ranges (a take found it full) or else the record of uses
        (a release did)."""
        if pool:
            self._pool = np.concatenate([self._pool, np.zeros_like(self._pool)])
        else:
            self._used = np.concatenate([self._used, np.zeros_like(self._used)])

    def holders(self, lo: int, hi: int) -> np.ndarray:
        """The holders of the processors ``[lo, hi)`` now."""
        self.flush()
        return self.owner[lo:hi]

    def held(self) -> list[tuple[int, Ranges, int]]:
        """Every job still holding processors: ``(position, ranges, since)``."""
        self.flush()
        return [(int(i), self._ranges_of(int(i)), int(self._since[i]))
                for i in np.flatnonzero(self._count)]

    def _ranges_of(self, position: int) -> Ranges:
        first = self._first[position]
        return [(int(a), int(b)) for a, b in
                self._pool[first:first + self._count[position]].tolist()]

    @property
    def used(self) -> np.ndarray:
        """Rows ``lo, hi, from, until, position`` of every use a job has ended."""
        self.flush()
        return self._used[:self._state[_USED_TOP]]

    # ------------------------------------------------------------------ outages
    def take_lowest(self, width: int, holder: int) -> Ranges:
        """The ``width`` lowest free processors (fewer if fewer are free), to ``holder``."""
        self.flush()
        return _as_list(_hold(self.owner, self._lo, self._hi, self._state,
                              _lowest(self._lo, self._hi, self._state, width), holder))

    def take_free_in(self, lo: int, hi: int, holder: int) -> Ranges:
        """Every free processor of ``[lo, hi)``, to ``holder``."""
        self.flush()
        return _as_list(_take_free_in(self.owner, self._lo, self._hi, self._state, lo, hi,
                                      holder))

    def strike(self, nodes: np.ndarray, now: int) -> tuple[list[int], Ranges] | None:
        """A failure of the processors ``nodes`` (rows ``[lo, hi)``) now, in one compiled
        call (:func:`_strike`): the jobs on any of them release all their processors,
        then the failure takes every free one of ``nodes``.  Returns the positions of the
        jobs hit, lowest first, and the ranges taken; None when every processor of
        ``nodes`` is out of service already (nothing changes).  The journal is applied in
        the same call."""
        ops, out = self._drained(), self._out
        while (done := _strike(ops, self.owner, self._lo, self._hi, self._state, self._pool,
                               self._first, self._count, self._since, self._used, self._mode,
                               self.widths, nodes, now, out)) < 0:
            applied = int(out[0])
            self._grow(applied < len(ops) and ops[applied, 0] >= 0)
            ops = ops[applied:]
        if not done:
            return None
        hit, taken = out[:2].tolist()
        rows = out[2:2 + hit + 2 * taken].tolist()          # the positions, then the ranges
        return rows[:hit], list(zip(rows[hit::2], rows[hit + 1::2], strict=True))

    def release(self, ranges: Ranges) -> None:
        """``ranges`` (held by a failure or a window) free again."""
        for lo, hi in ranges:
            self.journal.extend((~(len(self.widths) + lo), hi))

    def free_count(self) -> int:
        self.flush()
        runs = self._state[_RUNS]
        return int((self._hi[:runs] - self._lo[:runs]).sum())


def _as_list(ranges: np.ndarray) -> Ranges:
    return [(int(a), int(b)) for a, b in ranges.tolist()]


# ------------------------------------------------------------------ compiled parts
@njit(cache=True)
def _apply(ops, done, owner, lo, hi, state, pool, first, count, since, used, mode,
           widths):  # pragma: no cover
    """Apply the journal ``ops`` from row ``done`` (a position takes ``widths[position]``
    processors); returns the rows applied, fewer than all when the pool of held ranges or
    the record of uses needs room first."""
    jobs = len(widths)
    for k in range(done, len(ops)):
        code = ops[k, 0]
        position = code if code >= 0 else ~code
        if code >= 0:
            width = widths[position]
            top = state[_POOL_TOP]
            if top + (width if mode == 2 else min(width, state[_RUNS])) > len(pool):
                return k
            if mode == 0:
                taken = _first_fit(owner, lo, hi, state, pool, top, width, position)
            else:
                ranges = _hold(owner, lo, hi, state, _choose(lo, hi, state, width, mode),
                               position)
                taken = len(ranges)
                pool[top:top + taken] = ranges
            first[position] = top
            count[position] = taken
            since[position] = ops[k, 1]
            state[_POOL_TOP] = top + taken
        elif position >= jobs:                          # a range free again
            first_free = position - jobs
            owner[first_free:ops[k, 1]] = FREE
            _merge(lo, hi, state, first_free, ops[k, 1])
        else:
            if state[_USED_TOP] + count[position] > len(used):
                return k
            _release_held(owner, lo, hi, state, pool, first, count, since, used, position,
                          ops[k, 1])
    return len(ops)


@njit(cache=True)
def _first_fit(owner, lo, hi, state, pool, top, width, position):  # pragma: no cover
    """The ``width`` lowest free processors (fewer if fewer are free) to ``position``,
    written as rows ``[lo, hi)`` of ``pool`` from ``top``; returns how many rows.  The
    free runs it takes whole leave the runs in one shift (:func:`_lowest` and
    :func:`_hold` give the same, with an array of rows made for each start)."""
    n = state[_RUNS]
    whole = 0
    m = 0
    while width > 0 and whole < n:
        a = lo[whole]
        taken = min(width, hi[whole] - a)
        pool[top + m, 0] = a
        pool[top + m, 1] = a + taken
        for p in range(a, a + taken):
            owner[p] = position
        width -= taken
        m += 1
        if a + taken == hi[whole]:
            whole += 1
        else:
            lo[whole] = a + taken
    if whole:
        for j in range(n - whole):
            lo[j] = lo[j + whole]
            hi[j] = hi[j + whole]
        state[_RUNS] = n - whole
    return m


@njit(cache=True)
def _release_held(owner, lo, hi, state, pool, first, count, since, used, position,
                  now):  # pragma: no cover
    """The job at ``position`` gives its processors back ``now``; its use of them goes
    to the record of uses (which has room for it) unless it lasted no time.  A job that
    holds none gives nothing back: the engine journals the end of an attempt a failure
    has ended already (:func:`_strike` released it)."""
    n = count[position]
    top = state[_USED_TOP]
    at = first[position]
    began = since[position]
    for r in range(n):
        a, b = pool[at + r, 0], pool[at + r, 1]
        for p in range(a, b):
            owner[p] = FREE
        _merge(lo, hi, state, a, b)
        if now > began:
            used[top + r, 0] = a
            used[top + r, 1] = b
            used[top + r, 2] = began
            used[top + r, 3] = now
            used[top + r, 4] = position
    if now > began:
        state[_USED_TOP] = top + n
    count[position] = 0


@njit(cache=True)
def _strike(ops, owner, lo, hi, state, pool, first, count, since, used, mode, widths,
            nodes, now, out):  # pragma: no cover
    """A failure of the processors ``nodes`` (rows ``[lo, hi)``) now, once the journal
    ``ops`` is applied (:func:`_apply`): the jobs holding any of them give all their
    processors back (by position, lowest first), then every free processor of
    ``nodes`` goes to :data:`FAILED`.

    Writes into ``out`` the number of jobs hit and of ranges taken, the jobs'
    positions, then the ranges (``lo, hi`` each).  Returns 1; 0 when no processor
    of ``nodes`` is free or held by a job (nothing else changes); -1 when the pool
    of held ranges or the record of uses needs room first, the journal applied up
    to row ``out[0]`` (the failure not yet).
    """
    applied = _apply(ops, 0, owner, lo, hi, state, pool, first, count, since, used, mode,
                     widths)
    if applied < len(ops):
        out[0] = applied
        return -1
    hit = 0
    live = False
    for r in range(len(nodes)):
        for p in range(nodes[r, 0], nodes[r, 1]):
            holder = owner[p]
            if holder == FREE:
                live = True
            elif holder >= 0:
                live = True
                seen = False
                for j in range(hit):
                    if out[2 + j] == holder:
                        seen = True
                        break
                if not seen:
                    out[2 + hit] = holder
                    hit += 1
    if not live:
        return 0
    positions = np.sort(out[2:2 + hit])
    ended = 0
    for position in positions:
        ended += count[position]
    if state[_USED_TOP] + ended > len(used):
        out[0] = applied
        return -1
    for position in positions:
        _release_held(owner, lo, hi, state, pool, first, count, since, used, position, now)
    out[2:2 + hit] = positions
    m = 0
    for r in range(len(nodes)):
        taken = _take_free_in(owner, lo, hi, state, nodes[r, 0], nodes[r, 1], FAILED)
        for k in range(len(taken)):
            out[2 + hit + 2 * m] = taken[k, 0]
            out[3 + hit + 2 * m] = taken[k, 1]
            m += 1
    out[0] = hit
    out[1] = m
    return 1


@njit(cache=True)
def _choose(lo, hi, state, width, mode):  # pragma: no cover
    """``width`` free processors chosen by the allocation ``mode`` (an index of
    :data:`ALLOCATIONS`), as rows ``[lo, hi)``, lowest first."""
    if mode == 1:
        for k in range(state[_RUNS]):
            if hi[k] - lo[k] >= width:
                ranges = np.empty((1, 2), np.int64)
                ranges[0, 0] = lo[k]
                ranges[0, 1] = lo[k] + width
                return ranges
    if mode == 2:
        return _drawn(lo, hi, state, width)
    return _lowest(lo, hi, state, width)


@njit(cache=True)
def _lowest(lo, hi, state, width):  # pragma: no cover
    """The ``width`` lowest free processors (fewer if fewer are free) as rows ``[lo, hi)``."""
    out = np.empty((state[_RUNS], 2), np.int64)
    m = 0
    for k in range(state[_RUNS]):
        if width <= 0:
            break
        taken = min(width, hi[k] - lo[k])
        out[m, 0] = lo[k]
        out[m, 1] = lo[k] + taken
        width -= taken
        m += 1
    return out[:m]


@njit(cache=True)
def _drawn(lo, hi, state, width):  # pragma: no cover
    """``width`` free processors drawn at random (a partial Fisher-Yates shuffle on the
    Park-Miller generator of ``state``), as rows ``[lo, hi)``."""
    total = 0
    for k in range(state[_RUNS]):
        total += hi[k] - lo[k]
    ids = np.empty(total, np.int64)
    m = 0
    for k in range(state[_RUNS]):
        for p in range(lo[k], hi[k]):
            ids[m] = p
            m += 1
    seed = state[_RNG]
    for j in range(width):
        seed = seed * 48271 % _PARK_MILLER
        r = j + seed % (total - j)
        ids[j], ids[r] = ids[r], ids[j]
    state[_RNG] = seed
    chosen = np.sort(ids[:width])
    out = np.empty((width, 2), np.int64)
    m = 0
    for p in chosen:
        if m > 0 and out[m - 1, 1] == p:
            out[m - 1, 1] = p + 1
        else:
            out[m, 0] = p
            out[m, 1] = p + 1
            m += 1
    return out[:m]


@njit(cache=True)
def _take_free_in(owner, lo, hi, state, first, stop, holder):  # pragma: no cover
    """The free parts of ``[first, stop)`` to ``holder``; returns them as rows ``[lo, hi)``
    (the free runs that reach into it are found by bisection)."""
    n = state[_RUNS]
    k = np.searchsorted(hi[:n], first, side="right")
    end = np.searchsorted(lo[:n], stop)
    out = np.empty((max(0, end - k), 2), np.int64)
    m = 0
    for j in range(k, end):
        a, b = max(lo[j], first), min(hi[j], stop)
        if a < b:
            out[m, 0] = a
            out[m, 1] = b
            m += 1
    return _hold(owner, lo, hi, state, out[:m], holder)


@njit(cache=True)
def _hold(owner, lo, hi, state, ranges, holder):  # pragma: no cover
    """``ranges`` (each inside one free run) to ``holder``; returns them."""
    for r in range(len(ranges)):
        owner[ranges[r, 0]:ranges[r, 1]] = holder
        _cut(lo, hi, state, ranges[r, 0], ranges[r, 1])
    return ranges


@njit(cache=True)
def _free(owner, lo, hi, state, ranges):  # pragma: no cover
    """``ranges`` free again."""
    for r in range(len(ranges)):
        owner[ranges[r, 0]:ranges[r, 1]] = FREE
        _merge(lo, hi, state, ranges[r, 0], ranges[r, 1])


@njit(cache=True)
def _cut(lo, hi, state, a, b):  # pragma: no cover
    """Take ``[a, b)``, inside one free run, out of the free runs."""
    n = state[_RUNS]
    k = np.searchsorted(lo[:n], a, side="right") - 1
    run_lo, run_hi = lo[k], hi[k]
    if run_lo == a and run_hi == b:
        for j in range(k, n - 1):
            lo[j] = lo[j + 1]
            hi[j] = hi[j + 1]
        state[_RUNS] = n - 1
    elif run_lo == a:
        lo[k] = b
    elif run_hi == b:
        hi[k] = a
    else:
        for j in range(n, k + 1, -1):
            lo[j] = lo[j - 1]
            hi[j] = hi[j - 1]
        hi[k] = a
        lo[k + 1] = b
        hi[k + 1] = run_hi
        state[_RUNS] = n + 1


@njit(cache=True)
def _merge(lo, hi, state, a, b):  # pragma: no cover
    """``[a, b)`` free again, merged with the free runs around it."""
    n = state[_RUNS]
    k = 0
    while k < n and lo[k] < a:
        k += 1
    joins_below = k > 0 and hi[k - 1] == a
    joins_above = k < n and lo[k] == b
    if joins_below and joins_above:
        hi[k - 1] = hi[k]
        for j in range(k, n - 1):
            lo[j] = lo[j + 1]
            hi[j] = hi[j + 1]
        state[_RUNS] = n - 1
    elif joins_below:
        hi[k - 1] = b
    elif joins_above:
        lo[k] = a
    else:
        for j in range(n, k, -1):
            lo[j] = lo[j - 1]
            hi[j] = hi[j - 1]
        lo[k] = a
        hi[k] = b
        state[_RUNS] = n + 1


def free_runs(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First processor and length of every maximal block of free processors (a boolean
    mask), lowest first."""
    edges = np.diff(np.concatenate(([0], free.view(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    return starts, np.flatnonzero(edges == -1) - starts
