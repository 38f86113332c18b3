"""The backfill pass of the ``slurm`` policy, compiled (numba): its maps in arrays, its walk.

A backfill pass (:meth:`schedlab.policies.slurm.SlurmScheduling._backfill`;
the model and its sources are in :mod:`schedlab.policies.slurm`) plans up to
``bf_max_job_test`` pending jobs on two maps per partition: the CPUs, as
running and completing jobs hold them, and the unreserved nodes.  Both are
step functions kept as :class:`~schedlab.engine.profile_kernels.ArrayProfile`
arrays, and :func:`walk` goes down the queue in one compiled call, finding
each job's earliest start and blocking its reservation's slot, and stops
once no job left could start now (a pass's reservations end with it: its
only result is what it starts).  It hands the walk back to Python only
where Python must act: a job's QOS limits must be asked, a job belongs to
a partition whose map is not the one in hand, a job starts now on a
machine of partitions (the engine takes its nodes), a reservation must
also be blocked on other partitions' maps, or the queue's columns given so
far are used up.  With one partition of every node a job that starts now
is taken off the CPU map in the walk, and Python starts the jobs so
listed when the walk returns: with no QOS a pass is one call.

The queue's columns are rows of ``table`` (``WIDTH`` ... ``PRIORITY``; the
policy's :class:`~schedlab.policies.slurm.PendingRows`), the queue itself the
rows ``slots`` names in queue order; the
walk's counters are ``state`` (``TESTED`` ... ``NODES``); the reservations
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
#: for "nothing free" (1: one partition of every node, whose jobs the walk starts itself),
#: the queue position whose QOS was asked and allows it, the position last counted as
#: tested, reservations made, whether maps of other partitions exist (1), jobs started
#: (their positions in ``started``), and whether the walk makes the maps of the partition
#: in hand before it walks (1: a pass's first call, on a machine of one partition and no
#: holds), from the first ``RUNNING`` running jobs and ``COMPLETED`` rows of ended jobs, on
#: ``CPUS`` CPUs and ``NODES`` nodes.
(TESTED, FREE, MAP_FREE, ALLOWED, COUNTED, MADE, OTHERS, STARTED, BUILD, RUNNING, COMPLETED,
 CPUS, NODES) = range(13)
#: The pass's parameters (``config``), fixed for a run: ``bf_min_prio_reserve``,
#: ``bf_max_job_test``, ``bf_max_job_user``, ``bf_resolution``, ``clock_origin``,
#: ``over_time_limit``, ``kill_wait``, and ``bf_window`` in seconds.
MIN_PRIO, MAX_JOB_TEST, MAX_JOB_USER, RESOLUTION, ORIGIN, OVER_TIME, KILL_WAIT, WINDOW = \
    range(8)
#: Why :func:`walk` returned: the pass is over; the job at the position starts now (with
#: partitions: the engine takes its nodes); its QOS limits must be asked; its partition's
#: map is needed; its reservation must be blocked on the other partitions' maps too; the
#: columns given are used up.
DONE, START, CHECK_QOS, OTHER_MAP, RESERVED, MORE = range(6)
#: How many times the pass tries one job at a later time before it gives up on it for this
#: pass (each try moves past one change of the reservation map).
MAX_TRIES = 1000
#: The first group of running jobs' ends the select plugin's will-run test frees together
#: reaches this many seconds past a boundary of as many seconds of the wall clock
#: (:func:`will_run`).
WILL_RUN_WINDOW = 30


class Scratch:
    """The arrays backfill passes work in, kept from pass to pass (making them anew was
    most of a short pass's cost): the pass's parameters, the walk's counters, the
    per-user counts, the reservations made, and each partition's two maps once made."""

    def __init__(self, config: tuple[int, ...]) -> None:
        self.config = np.array(config, np.int64)
        self.state = np.zeros(13, np.int64)
        self.per_user = np.zeros(64, np.int64)
        self.made = np.empty((64, 4), np.int64)
        self.started = np.empty(64, np.int64)
        self.maps: dict[int, tuple[ArrayProfile, ArrayProfile]] = {}
        #: What the walk is given before it asks for a partition's maps.
        self.no_maps = (ArrayProfile(1, 0), ArrayProfile(1, 0))
        #: No rows of ended jobs (:func:`pass_map`'s ``completing``).
        self.no_rows = np.empty((0, 2), np.int64)

    def begin(self, free: int, map_free: bool, users: int,
              build: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)) -> None:
        """Counters for a new pass on a machine with ``free`` CPUs free now, and per-user
        counts of ``users`` users (0: no per-user limit); ``build``: ``BUILD`` ...
        ``NODES``."""
        self.state[:] = (0, free, map_free, -1, -1, 0, 0, 0, *build)
        if users > len(self.per_user):
            self.per_user = np.zeros(2 * users, np.int64)
        elif users:
            self.per_user[:users] = 0

    def room_to_make(self, jobs: int) -> None:
        """Room in ``made`` and ``started`` for ``jobs`` more rows."""
        needed = int(self.state[MADE]) + jobs
        if needed > len(self.made):
            grown = np.empty((2 * needed, 4), np.int64)
            grown[:len(self.made)] = self.made
            self.made = grown
        needed = int(self.state[STARTED]) + jobs
        if needed > len(self.started):
            self.started = np.empty(2 * needed, np.int64)

    def take_started(self) -> list[int]:
        """The queue positions of the jobs the walk started since this was last asked."""
        count = int(self.state[STARTED])
        if not count:
            return []
        self.state[STARTED] = 0
        return self.started[:count].tolist()

    def maps_of(self, part: int, cpus: int, nodes: int) -> tuple[ArrayProfile, ArrayProfile]:
        """Partition ``part``'s two maps (of ``cpus`` CPUs, ``nodes`` nodes), as the last
        pass left them."""
        if part not in self.maps:
            self.maps[part] = (ArrayProfile(cpus, 0), ArrayProfile(nodes, 0))
        return self.maps[part]


@njit(cache=True)
def walk(table, slots, first, count, part, cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, state,
         per_user, made, started, config, now, ends, held, limits, completing, rest_width,
         rest_need, rest_duration):  # pragma: no cover
    """Walk the queue positions ``first`` to ``count - 1`` (rows ``slots[k]`` of ``table``)
    on partition ``part``'s maps, made first where ``state[BUILD]`` asks (the CPUs as
    :func:`pass_map` has them from the running jobs, ``ends``, ``held[part]``,
    ``limits``, and the ended ones, ``completing``; every node unreserved).

    ``cpus_n`` and ``res_n`` are the two maps' lengths; the arrays have room for two
    more breakpoints per row (and the CPUs' for the map made).  The queue past
    ``count`` is bounded by ``rest_width``, ``rest_need`` and ``rest_duration`` (the
    fewest CPUs, nodes and seconds a job of it may need).  With one
    partition of every node (``MAP_FREE``) a job that starts now is taken off the
    CPU map here and its position written to ``started`` (the caller starts it
    before it answers the walk or ends the pass).
    The pass is over once no job left could start now (:func:`none_starts`; the
    pass's other results, its reservations, end with it).
    Returns ``(why, position, cpus_n, res_n)``: the reason (``DONE`` ... ``MORE``), the
    queue position it concerns (``count`` for ``MORE``) and the maps' new lengths.
    """
    if state[BUILD] == 1:
        state[BUILD] = 0
        cpus_n = pass_map(cpus_t, cpus_f, state[CPUS], now, ends, held[part], limits,
                            state[RUNNING], config[OVER_TIME], config[KILL_WAIT], completing,
                            state[COMPLETED])
        res_t[0], res_f[0], res_n = now, state[NODES], 1
    min_prio, max_job_test, max_job_user = config[MIN_PRIO], config[MAX_JOB_TEST], \
        config[MAX_JOB_USER]
    resolution, origin, window_end = config[RESOLUTION], config[ORIGIN], now + config[WINDOW]
    narrowest, fewest, shortest = least_after(table, slots, first, count, rest_width,
                                              rest_need, rest_duration)
    one_map = state[MAP_FREE] == 1
    for k in range(first, count):
        job = table[slots[k]]
        if state[COUNTED] != k:     # (a row handed back for its map is counted already)
            if state[TESTED] >= max_job_test:
                return DONE, k, cpus_n, res_n
            if none_starts(cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, state[FREE],
                           one_map, now, narrowest[k - first], fewest[k - first],
                           shortest[k - first]):
                return DONE, k, cpus_n, res_n      # (the rest would start nothing)
            if job[CHECK] == 1 and state[ALLOWED] != k:
                return CHECK_QOS, k, cpus_n, res_n
            if max_job_user > 0:
                user = job[USER]
                if per_user[user] >= max_job_user:
                    continue
                per_user[user] += 1
            state[TESTED] += 1
            state[COUNTED] = k
        if job[PART] != part:
            return OTHER_MAP, k, cpus_n, res_n
        width, need, duration = job[WIDTH], job[NEED], job[DURATION]
        start = earliest_start(cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, width, need,
                               duration, now, resolution, origin)
        if start < 0:
            continue
        if start == now:
            if width > state[FREE]:
                continue        # partitions: failed or held processors the map misses
            if not one_map:
                return START, k, cpus_n, res_n
            started[state[STARTED]] = k
            state[STARTED] += 1
            state[FREE] -= width
            cpus_n = change(cpus_t, cpus_f, cpus_n, now, duration, -width)
            continue
        if start > window_end or job[PRIORITY] < min_prio:
            continue
        begin, end = slot(start, duration, resolution, origin)
        begin = max(begin, now)
        row = state[MADE]
        made[row, 0], made[row, 1], made[row, 2], made[row, 3] = part, begin, end, need
        state[MADE] = row + 1
        res_n = block(res_t, res_f, res_n, begin, end, need)
        if state[OTHERS] == 1:
            return RESERVED, k, cpus_n, res_n
    return MORE, count, cpus_n, res_n


@njit(cache=True)
def least_after(table, slots, first, count, rest_width, rest_need,
                rest_duration):  # pragma: no cover
    """For each queue position ``first + j`` below ``count``: the fewest CPUs, nodes and
    seconds a job from it on asks for (the queue past ``count`` bounded by ``rest_width``,
    ``rest_need`` and ``rest_duration``)."""
    narrowest = np.empty(count - first, np.int64)
    fewest = np.empty(count - first, np.int64)
    shortest = np.empty(count - first, np.int64)
    width, need, duration = rest_width, rest_need, rest_duration
    for j in range(count - first - 1, -1, -1):
        job = table[slots[first + j]]
        width, need = min(width, job[WIDTH]), min(need, job[NEED])
        duration = min(duration, job[DURATION])
        narrowest[j], fewest[j], shortest[j] = width, need, duration
    return narrowest, fewest, shortest


@njit(cache=True)
def none_starts(cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, free, one_map, now, narrowest,
                fewest, shortest):  # pragma: no cover
    """Whether no job of at least ``narrowest`` CPUs, ``fewest`` nodes and ``shortest``
    seconds can start now.  A job starts now (:func:`earliest_start`) only where its CPUs
    are free now on the machine (``free``) and on the CPU map to its time limit, and its
    nodes unreserved to the limit included; a longer job finds no more of either (the
    maps are the only partition's with ``one_map``)."""
    if narrowest > free:
        return True
    if not one_map:
        return False
    return (narrowest > min_free(cpus_t, cpus_f, cpus_n, now, now + shortest)
            or fewest > min_free(res_t, res_f, res_n, now, now + shortest + 1))


@njit(cache=True)
def earliest_start(cpus_t, cpus_f, cpus_n, res_t, res_f, res_n, width, need, duration, now,
                   resolution, origin):  # pragma: no cover
    """When the pass plans a job of ``width`` CPUs on ``need`` nodes for ``duration``
    seconds (-1: no start found in ``MAX_TRIES`` tries).

    Tried from ``now``: the nodes must be unreserved from the try to its time limit
    included, else it is tried again from the first change of the map after which
    they are; the CPUs come back as running jobs reach their limits, in the groups of
    the select plugin's will-run test (:func:`will_run`, which knows no reservation:
    its time counts from ``now`` whatever the try); a start past the map's next
    drop in unreserved nodes is tried again from there; a future start whose slot
    overlaps a reservation is tried again from that start.
    """
    fits = earlier_fit(cpus_t, cpus_f, cpus_n, width, duration, now, NEVER)
    found = will_run(cpus_t, cpus_f, cpus_n, fits, now, origin)
    start_res = now
    for _ in range(MAX_TRIES):
        fits_from = earlier_fit(res_t, res_f, res_n, need, duration + 1, start_res, NEVER)
        if fits_from != start_res:      # tried again at each change: the first that fits
            start_res = fits_from
            continue
        tried = max(found, start_res)
        start = fits if tried == fits else earlier_fit(cpus_t, cpus_f, cpus_n, width, duration,
                                                       tried, NEVER)
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
def will_run(times, free, size, fits, now, origin):  # pragma: no cover
    """When the select plugin's will-run test says a job starts whose CPUs are first free
    at ``fits`` (``now`` or a change of the CPU map): the last change of the group of
    ends ``fits`` falls in.

    The test (``_will_run_test`` in ``src/plugins/select/cons_common/job_test.c``,
    Slurm 22.05) frees the running jobs in groups of close ends, tries the job after
    each group, and reports the group's last end as its start.  The groups are laid
    from the first end's next ``WILL_RUN_WINDOW``-second boundary of the wall clock
    (``origin`` is the wall clock of time 0): the first reaches ``WILL_RUN_WINDOW``
    seconds past it; after each, the reach doubles, and doubles again until it takes
    the next end.
    """
    k = step_at(times, size, now) + 1
    if fits <= now or k >= size:
        return fits
    boundary = times[k] + origin
    boundary += WILL_RUN_WINDOW - boundary % WILL_RUN_WINDOW - origin
    reach = WILL_RUN_WINDOW
    while k + 1 < size:
        while k + 1 < size and times[k + 1] <= boundary + reach:
            k += 1
        if times[k] >= fits or k + 1 == size:
            break
        reach *= 2
        while times[k + 1] > boundary + reach:
            reach *= 2
        k += 1
    return max(times[k], fits)


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
def pass_map(times, free, capacity, now, ends, held, limits, count, over_time_limit, kill_wait,
             completing, completed):  # pragma: no cover
    """The backfill CPU map: :func:`cpu_map`, then :func:`hold_completing`; its length."""
    size = cpu_map(times, free, capacity, now, ends, held, limits, count, over_time_limit,
                   kill_wait)
    return hold_completing(times, free, size, now, completing, completed)


@njit(cache=True)
def hold_completing(times, free, size, now, completing, completed):  # pragma: no cover
    """Each of the first ``completed`` rows ``(until, CPUs)`` of ``completing`` (jobs that
    ended) holds its CPUs from ``now`` to ``until``, as many as the map has free (what the
    main scheduler left of them); the map's new length.  Room for two more breakpoints
    per row."""
    for k in range(completed):
        until, cpus = completing[k, 0], completing[k, 1]
        if cpus:
            size = change(times, free, size, now, until - now,
                          -min(cpus, min_free(times, free, size, now, until)))
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
