"""The backfill pass of the ``slurm`` policy, compiled (numba): its maps in arrays, its walk.

A backfill pass (:meth:`schedlab.policies.slurm.SlurmScheduling._backfill`;
the model and its sources are in :mod:`schedlab.policies.slurm`) plans up to
``bf_max_job_test`` pending jobs on two maps per partition: the CPUs, as
running and completing jobs hold them, and the unreserved nodes.  Both are
step functions kept as :class:`~schedlab.engine.profile_kernels.ArrayProfile`
arrays, and :func:`walk` goes down the queue in one compiled call, finding
each job's earliest start and blocking its reservation's slot.  It hands the
walk back to Python only where Python must act: a job starts now (the
engine starts it), a job's QOS limits must be asked, a job belongs to a
partition whose map is not the one in hand, a reservation must also be
blocked on other partitions' maps, or the queue's columns given so far are
used up.  With one partition and no QOS a pass is one call, plus one per job
it starts.

The queue's columns are rows of ``table`` (``WIDTH`` ... ``PRIORITY``; the
policy's :class:`~schedlab.policies.slurm.PendingRows`), the queue itself the
rows ``slots`` names in queue order; the
walk's counters are ``state`` (``TESTED`` ... ``OTHERS``); the reservations
made are rows ``(partition, begin, end, nodes)`` of ``made``, for the maps
of partitions built later in the pass.  This module imports numba: the
policy imports it at its first backfill pass.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.engine.profile_kernels import NEVER, ArrayProfile, change, earlier_fit, min_free, step_at

#: Columns of the queue's rows: CPUs, nodes needed, time limit (s), partition, user (a dense
#: number), whether its QOS limits must be asked (1) or not (0), priority.
WIDTH, NEED, DURATION, PART, USER, CHECK, PRIORITY = range(7)
#: The walk's counters: jobs tested, CPUs free on the machine now, whether the CPU map counts
#: for "nothing free" (1: one partition of every node), the queue position whose QOS was
#: asked and allows it, the position last counted as tested, reservations made, whether
#: maps of other partitions exist (1).
TESTED, FREE, MAP_FREE, ALLOWED, COUNTED, MADE, OTHERS = range(7)
#: Why :func:`walk` returned: the pass is over; the job at the position starts now; its QOS
#: limits must be asked; its partition's map is needed; its reservation must be blocked on
#: the other partitions' maps too; the columns given are used up.
DONE, START, CHECK_QOS, OTHER_MAP, RESERVED, MORE = range(6)
#: How many times the pass tries one job at a later time before it gives up on it for this
#: pass (each try moves past one change of the reservation map).
MAX_TRIES = 1000


class Scratch:
    """The arrays backfill passes work in, kept from pass to pass (making them anew was
    most of a short pass's cost): the walk's counters, the per-user counts, the
    reservations made, and each partition's two maps once built."""

    def __init__(self) -> None:
        self.state = np.zeros(7, np.int64)
        self.sizes = np.zeros(2, np.int64)
        self.per_user = np.zeros(64, np.int64)
        self.made = np.empty((64, 4), np.int64)
        self.maps: dict[int, tuple[ArrayProfile, ArrayProfile]] = {}
        #: What the walk is given before it asks for a partition's maps.
        self.no_maps = (ArrayProfile(1, 0), ArrayProfile(1, 0))

    def begin(self, free: int, map_free: bool, users: int) -> None:
        """Counters for a new pass on a machine with ``free`` CPUs free now, and per-user
        counts of ``users`` users (0: no per-user limit)."""
        self.state[:] = (0, free, map_free, -1, -1, 0, 0)     # TESTED ... OTHERS
        if users > len(self.per_user):
            self.per_user = np.zeros(2 * users, np.int64)
        elif users:
            self.per_user[:users] = 0

    def room_to_make(self, reservations: int) -> None:
        """Room in ``made`` for ``reservations`` more rows."""
        needed = int(self.state[MADE]) + reservations
        if needed > len(self.made):
            grown = np.empty((2 * needed, 4), np.int64)
            grown[:len(self.made)] = self.made
            self.made = grown

    def empty_maps(self, part: int, cpus: int, nodes: int, now: int) -> tuple[ArrayProfile,
                                                                                ArrayProfile]:
        """Partition ``part``'s two maps, reused: all ``cpus`` free and all ``nodes``
        unreserved from ``now`` on."""
        if part not in self.maps:
            self.maps[part] = (ArrayProfile(cpus, now), ArrayProfile(nodes, now))
        found = self.maps[part]
        for profile in found:
            profile.times[0], profile.free[0], profile.size = now, profile.capacity, 1
        return found


@njit(cache=True)
def walk(table, slots, first, count, part, cpus_t, cpus_f, res_t, res_f, sizes, state, per_user,
         made, now, window_end, min_prio, max_job_test, max_job_user, resolution,
         origin):  # pragma: no cover
    """Walk the queue positions ``first`` to ``count - 1`` (rows ``slots[k]`` of ``table``)
    on partition ``part``'s maps.

    ``sizes`` holds the two maps' lengths (CPUs, reserved); the arrays have room for
    two more breakpoints per row.  Returns ``(why, position)``: the reason (``DONE``
    ... ``MORE``) and the queue position it concerns (``count`` for ``MORE``).
    """
    for k in range(first, count):
        job = table[slots[k]]
        if state[COUNTED] != k:     # (a row handed back for its map is counted already)
            if state[TESTED] >= max_job_test:
                return DONE, k
            if state[MAP_FREE] == 1 and state[TESTED] > 0:
                nothing_free = cpus_f[step_at(cpus_t, sizes[0], now)] == 0
            else:
                nothing_free = state[FREE] == 0
            if nothing_free:
                return DONE, k      # (no CPU free now: the rest would start nothing)
            if job[CHECK] == 1 and state[ALLOWED] != k:
                return CHECK_QOS, k
            if max_job_user > 0:
                user = job[USER]
                if per_user[user] >= max_job_user:
                    continue
                per_user[user] += 1
            state[TESTED] += 1
            state[COUNTED] = k
        if job[PART] != part:
            return OTHER_MAP, k
        width, need, duration = job[WIDTH], job[NEED], job[DURATION]
        start = earliest_start(cpus_t, cpus_f, sizes[0], res_t, res_f, sizes[1], width, need,
                               duration, now, resolution, origin)
        if start < 0:
            continue
        if start == now:
            if width > state[FREE]:
                continue        # partitions: failed or held processors the map misses
            return START, k
        if start > window_end or job[PRIORITY] < min_prio:
            continue
        begin, end = slot(start, duration, resolution, origin)
        begin = max(begin, now)
        row = state[MADE]
        made[row, 0], made[row, 1], made[row, 2], made[row, 3] = part, begin, end, need
        state[MADE] = row + 1
        sizes[1] = block(res_t, res_f, sizes[1], begin, end, need)
        if state[OTHERS] == 1:
            return RESERVED, k
    return MORE, count


@njit(cache=True)
def earliest_start(cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, width, need, duration, now,
                   resolution, origin):  # pragma: no cover
    """When the pass plans a job of ``width`` CPUs on ``need`` nodes for ``duration``
    seconds (-1: no start found in ``MAX_TRIES`` tries).

    Tried from ``now``: the nodes must be unreserved from the try to its time limit
    included, else it is tried again from the first change of the map after which
    they are; the CPUs come back as running jobs reach their limits (the select
    plugin's will-run test, which knows no reservation); a start past the map's next
    drop in unreserved nodes is tried again from there; a future start whose slot
    overlaps a reservation is tried again from that start.
    """
    start_res = now
    for _ in range(MAX_TRIES):
        fits_from = earlier_fit(res_t, res_f, res_n, need, duration + 1, start_res, NEVER)
        if fits_from != start_res:      # tried again at each change: the first that fits
            start_res = fits_from
            continue
        start = earlier_fit(cpus_t, cpus_f, cpus_n, width, duration, start_res, NEVER)
        drop = next_drop(res_t, res_f, res_n, start_res)
        if drop >= 0 and start > drop:
            start_res = drop
            continue
        if start > now:
            begin, end = slot(start, duration, resolution, origin)
            if min_free(res_t, res_f, res_n, max(begin, now), end) < need:
                start_res = start if start > start_res else start + resolution
                continue
        return start
    return -1


@njit(cache=True)
def next_drop(times, free, size, after):  # pragma: no cover
    """The first breakpoint after ``after`` with fewer free than the step before (-1: none)."""
    for k in range(max(1, step_at(times, size, after) + 1), size):
        if free[k] < free[k - 1]:
            return times[k]
    return -1


@njit(cache=True)
def slot(start, duration, resolution, origin):  # pragma: no cover
    """A reservation's slot: its start and its end (start plus time limit) both rounded
    down to ``resolution`` seconds of the wall clock, at least one ``resolution`` long
    (Slurm 22.05's backfill.c)."""
    begin = (start + origin) // resolution * resolution - origin
    end = (start + duration + origin) // resolution * resolution - origin
    return begin, max(end, begin + resolution)


@njit(cache=True)
def block(times, free, size, begin, end, nodes):  # pragma: no cover
    """Mark ``nodes`` nodes reserved on ``[begin, end)``, as many as are still unreserved
    where fewer are (the backfill map clears node bits whatever they held); the map's new
    length.  The arrays need room for two more breakpoints."""
    k = step_at(times, size, begin)
    pieces = np.empty((size - k, 3), np.int64)
    found = 0
    while k < size and times[k] < end:
        until = times[k + 1] if k + 1 < size else end
        lo, hi = max(times[k], begin), min(until, end)
        if lo < hi:
            pieces[found, 0], pieces[found, 1], pieces[found, 2] = lo, hi, free[k]
            found += 1
        k += 1
    for m in range(found):
        size = change(times, free, size, pieces[m, 0], pieces[m, 1] - pieces[m, 0],
                      -min(nodes, pieces[m, 2]))
    return size


@njit(cache=True)
def cpu_map(times, free, capacity, now, ends, held, limits, count, over_time_limit,
            kill_wait):  # pragma: no cover
    """The CPU map of running jobs (rows ``0 .. count - 1`` of ``ends``, the start plus the
    time limit; ``held``, their CPUs on the partition's nodes; ``limits``, their time
    limits) from ``now``: each holds its CPUs until its end, or where that has passed
    until :func:`guessed_end`; written into ``times``, ``free`` (room for ``count + 1``
    breakpoints); returns the map's length."""
    planned = np.empty(count, np.int64)
    busy = 0
    for k in range(count):
        end = ends[k]
        planned[k] = end if end > now else guessed_end(end, limits[k], now, over_time_limit,
                                                       kill_wait)
        busy += held[k]
    order = np.argsort(planned)
    times[0], free[0] = now, capacity - busy
    size = 1
    for k in order:
        if held[k] == 0:
            continue
        if times[size - 1] == planned[k]:
            free[size - 1] += held[k]
        else:
            times[size], free[size] = planned[k], free[size - 1] + held[k]
            size += 1
    return size


@njit(cache=True)
def guessed_end(limit_end, limit, now, over_time_limit, kill_wait):  # pragma: no cover
    """When the backfill map expects a job past its time limit (``limit_end``) to end:
    ``kill_wait`` after its limit plus the over-time, or with an UNLIMITED over-time (-1)
    one time limit from now; at least ``now + 1`` (the select plugin's ``_guess_job_end``)."""
    unlimited = over_time_limit == -1
    end = now + limit if unlimited else limit_end + kill_wait + over_time_limit * 60
    return max(end, now + 1)
