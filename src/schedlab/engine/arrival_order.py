"""A whole run of a policy that starts jobs strictly in arrival order, compiled (numba).

Plain FCFS without backfilling (Streit 2002, §2) needs no queue, no profile
and no policy call: the head of the queue starts as soon as it fits, and
nothing behind it may pass it, so a job starts at the first instant at
which it has been submitted, the job before it has started and enough
processors are free.  :func:`run_in_arrival_order` is the event loop of
:func:`schedlab.engine.simulator.run` for such a policy in one compiled call
over the job arrays: at each instant the finishes (a heap of ends), the
submissions (an index into the submit-ordered jobs), then the pass, and the
busy and queue-length series recorded as :class:`~schedlab.engine.kernel.StepSeries`
records them (a value row per instant at which either changed, the last one
recorded at an instant winning).  A job that starts and ends at the same
instant makes a second pass at that instant, as in the event loop.

The engine takes it for a policy that declares
:attr:`~schedlab.engine.policy.Policy.starts_in_arrival_order` in a run without
reservations, ticks, queue limit, cancellations, outages or planned runtimes
(:meth:`schedlab.engine.simulator.Simulation.in_arrival_order`); a property
test keeps it equal to the event loop (tests/engine/test_arrival_order.py).

This module imports numba (or the ahead-of-time extension), so it is
imported at the first such run.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit


@njit(cache=True)
def run_in_arrival_order(submit: np.ndarray, width: np.ndarray, held: np.ndarray,
                         machine: int, start: np.ndarray, end: np.ndarray,
                         series: np.ndarray) -> int:
    """Start every job in arrival order on a ``machine`` of processors; returns the
    number of series rows.

    ``submit`` is sorted; job ``i`` needs ``width[i]`` processors and holds
    them ``held[i]`` seconds once started.  Fills ``start`` and ``end`` (one
    per job) and ``series`` (room for ``3 * (2 * n + 1)`` values): rows of
    (time, busy processors, waiting jobs).
    """
    n = submit.shape[0]
    heap_end = np.empty(n, np.int64)        # running jobs' ends, a binary min-heap
    heap_width = np.empty(n, np.int64)
    size = 0
    free = machine
    nxt = 0                                 # the next job to be submitted
    head = 0                                # the next job to start
    rows = 0
    last_time = -1
    last_busy = -1
    last_queue = -1
    while nxt < n or size > 0:
        now = submit[nxt] if nxt < n else heap_end[0]
        if size > 0 and heap_end[0] < now:
            now = heap_end[0]
        # finishes
        while size > 0 and heap_end[0] == now:
            free += heap_width[0]
            size -= 1
            moved_end, moved_width = heap_end[size], heap_width[size]
            k = 0
            while True:
                child = 2 * k + 1
                if child >= size:
                    break
                if child + 1 < size and heap_end[child + 1] < heap_end[child]:
                    child += 1
                if heap_end[child] >= moved_end:
                    break
                heap_end[k], heap_width[k] = heap_end[child], heap_width[child]
                k = child
            heap_end[k], heap_width[k] = moved_end, moved_width
        # submissions
        while nxt < n and submit[nxt] == now:
            nxt += 1
        # the pass: the head starts while it fits
        while head < nxt and width[head] <= free:
            free -= width[head]
            start[head] = now
            finish = now + held[head]
            end[head] = finish
            k = size
            size += 1
            while k > 0:
                parent = (k - 1) // 2
                if heap_end[parent] <= finish:
                    break
                heap_end[k], heap_width[k] = heap_end[parent], heap_width[parent]
                k = parent
            heap_end[k], heap_width[k] = finish, width[head]
            head += 1
        # the series, as StepSeries.record
        busy, queue = machine - free, nxt - head
        if busy != last_busy or queue != last_queue:
            if now != last_time:
                rows += 1
                last_time = now
            series[3 * rows - 3] = now
            series[3 * rows - 2] = busy
            series[3 * rows - 1] = queue
            last_busy, last_queue = busy, queue
    return rows
