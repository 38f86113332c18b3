"""The grid EASY pass's reservation compiled (Pasquali thesis §4.1, BF_FCFS; our reading in
docs/reference/policies/grid.md, "BF_FCFS").

:func:`reservation` computes, in one call over the running jobs' arrays, what
:func:`~.local.reserve` computes with about thirty numpy calls: per candidate
machine the time the head job could start there (enough CPUs free as the
running jobs end in order of expected end, a copy of each floating licence it
needs free in the cluster), the machine minimising the start (or the end), and
what is still spare at that time.  It serves runs without failures or
maintenance windows; :func:`~.local.reserve` keeps the numpy reading for those,
and tests/grid/test_easy_arrays.py compares both with the job-by-job loops.
:func:`admissions` tries the jobs behind the head; :func:`easy_pass` does both
in one call from Python, the running jobs read from the run's columns, so a
pass after an end pays one call's fixed cost; it calls :func:`admissions` with
the argument types Python's calls give it, so that kernel keeps one signature
(:func:`schedlab.compiled.exportable`).

``cache=True`` keeps the machine code on disk and ``schedlab precompile``
compiles it ahead (one BF_FCFS run of each allocation).
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit


@njit(cache=True)
def reservation(now: int, width: int, exclusive: bool, candidates: np.ndarray,
                extra: np.ndarray, free_cpus: np.ndarray, cpus: np.ndarray,
                running: np.ndarray, machines: np.ndarray, widths: np.ndarray,
                ends: np.ndarray, needs: np.ndarray, licences: np.ndarray,
                feature: np.ndarray, free_copies: np.ndarray, copies: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The head's reservation: ``[best, start, spare CPUs]``, and per licence of the
    platform the copies spare at the start and whether the reservation tracks them.

    ``best`` indexes ``candidates`` (the head's eligible machines, fastest
    first): the first whose start plus ``extra`` (zeros to minimise the start,
    the durations there to minimise the end) is least.  On machine ``k`` the
    start is when ``width`` CPUs of ``k`` are free (exclusive: when ``k`` is
    idle), the running jobs (workload positions ``running``, on ``machines``,
    ``widths`` CPUs each, expected at ``ends``) ending in order of expected end,
    and no earlier than the earliest expected end of a running job holding a
    floating copy of each of ``licences`` the head floats on ``k`` and of which
    no copy is free (``free_copies``; ``needs`` and ``feature`` as
    :class:`~schedlab.engine.grid.TaskColumns` and the platform hold them).
    ``spare CPUs``: CPUs of the chosen machine not held past the start, less
    the head's.  Tracked: the head's licences it floats on the chosen machine;
    the spare of each is the cluster's ``copies`` less the head's and those of
    the running jobs holding a floating copy past the start (untracked: 0).
    """
    n_running, n_licences = len(ends), len(licences)
    # floats[j, i]: running job j holds a floating copy of licences[i]
    floats = np.zeros((n_running, n_licences), dtype=np.bool_)
    copy_free = np.full(n_licences, now, dtype=np.int64)
    for i in range(n_licences):
        lic = licences[i]
        first = -1
        for j in range(n_running):
            if needs[running[j], lic] and not feature[lic, machines[j]]:
                floats[j, i] = True
                if first < 0 or ends[j] < first:
                    first = ends[j]
        if free_copies[lic] < 1 and first >= 0:
            copy_free[i] = first
    # the running jobs by machine, each machine's in order of expected end
    size = len(cpus)
    count = np.zeros(size + 1, dtype=np.int64)
    for j in range(n_running):
        count[machines[j] + 1] += 1
    for k in range(size):
        count[k + 1] += count[k]
    filled = count[:size].copy()
    by_machine = np.empty(n_running, dtype=np.int64)
    for j in np.argsort(ends, kind="mergesort"):
        by_machine[filled[machines[j]]] = j
        filled[machines[j]] += 1
    best, best_key, best_start = -1, 0, 0
    for c in range(len(candidates)):
        k = candidates[c]
        start = now
        if exclusive:
            if count[k + 1] > count[k]:
                start = ends[by_machine[count[k + 1] - 1]]
        elif free_cpus[k] < width:
            free = free_cpus[k]
            for p in range(count[k], count[k + 1]):
                j = by_machine[p]
                free += widths[j]
                start = ends[j]
                if free >= width:
                    break
        for i in range(n_licences):
            if not feature[licences[i], k] and copy_free[i] > start:
                start = copy_free[i]
        key = start + extra[c]
        if best < 0 or key < best_key:
            best, best_key, best_start = c, key, start
    machine = candidates[best]
    out = np.zeros(3, dtype=np.int64)
    out[0], out[1] = best, best_start
    spare_cpus = cpus[machine] - width
    spare = np.zeros(feature.shape[0], dtype=np.int64)
    tracked = np.zeros(feature.shape[0], dtype=np.bool_)
    for i in range(n_licences):
        if not feature[licences[i], machine]:
            tracked[licences[i]] = True
            spare[licences[i]] = copies[licences[i]] - 1
    for j in range(n_running):
        if ends[j] > best_start:
            if machines[j] == machine:
                spare_cpus -= widths[j]
            for i in range(n_licences):
                if floats[j, i] and tracked[licences[i]]:
                    spare[licences[i]] -= 1
    out[2] = spare_cpus
    return out, spare, tracked


@njit(cache=True)
def easy_pass(now: int, width: int, exclusive: bool, candidates: np.ndarray,
              extra: np.ndarray, free_cpus: np.ndarray, cpus: np.ndarray,
              running_mask: np.ndarray, machine_of: np.ndarray, widths_of: np.ndarray,
              expected_end_of: np.ndarray, needs: np.ndarray, licences: np.ndarray,
              feature: np.ndarray, free_copies: np.ndarray, copies: np.ndarray,
              later: np.ndarray, work_of: np.ndarray, eligible: np.ndarray,
              by_power: np.ndarray, rating: np.ndarray,
              jobs_on: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rest of an EASY pass once its head cannot start, in one call: the head's
    :func:`reservation` (its arguments first, the running jobs given as the run's columns:
    ``running_mask``, ``machine_of``, ``widths_of``, ``expected_end_of``, by workload
    position, as :meth:`~schedlab.engine.grid.GridContext.running_columns` reads them),
    then the :func:`admissions` of the jobs at workload positions ``later`` behind it
    (their widths and ``work_of`` estimates read here; ``eligible``, ``by_power``,
    ``rating``, ``jobs_on`` as there).  Returns ``[machine, start, spare CPUs]`` as the
    starts leave them, the spare copies and the tracked licences, and the machine each
    job of ``later`` starts on (-1: none)."""
    running = np.flatnonzero(running_mask)
    machines = machine_of[running]
    widths = widths_of[running]
    ends = np.maximum(expected_end_of[running], now + 1)
    found, spare, tracked = reservation(now, width, exclusive, candidates, extra, free_cpus,
                                         cpus, running, machines, widths, ends, needs,
                                         licences, feature, free_copies, copies)
    machine = candidates[found[0]]
    chosen, spare_cpus = admissions(now, exclusive, later, widths_of[later],
                                     work_of[later], eligible,
                                     needs, by_power, rating, free_cpus, jobs_on,
                                     free_copies, feature, machine, found[1], found[2],
                                     spare, tracked)
    found[0], found[2] = machine, spare_cpus
    return found, spare, tracked, chosen


@njit(cache=True)
def admissions(now: int, exclusive: bool, later: np.ndarray, widths: np.ndarray,
               work: np.ndarray, eligible: np.ndarray, needs: np.ndarray,
               by_power: np.ndarray, rating: np.ndarray, free_cpus: np.ndarray,
               jobs_on: np.ndarray, free_copies: np.ndarray, feature: np.ndarray,
               reserved: int, shadow: int, spare_cpus: int, spare: np.ndarray,
               tracked: np.ndarray) -> tuple[np.ndarray, int]:
    """The machine each job of ``later`` (workload positions, in queue order) starts on
    behind a reservation, -1 for none: the first of ``by_power`` it is ``eligible`` for
    with its ``widths`` CPUs free (exclusive: idle) and a free copy of each floating
    licence it ``needs`` there, where it leaves the reservation intact -- it ends by
    ``shadow`` (``now`` plus its estimate ``work`` over the machine's ``rating``, rounded
    up: eq. 3.9), or what it holds past it is spare: CPUs on the ``reserved`` machine
    (never under exclusive allocation; ``spare_cpus``) and, for each ``tracked`` licence
    (the head's floating ones there), a copy (``spare``).

    :meth:`~.local.Reservation.first_admitting` over
    :meth:`~schedlab.engine.grid.GridContext.machines_with_room`, job after job, with
    each start taking its CPUs and copies (from ``free_cpus``, ``jobs_on``,
    ``free_copies``, which are the kernel's own copies) and what it holds past the
    shadow time from the spare.  A job wider than the most CPUs free on one machine
    (exclusive: the largest idle one), or needing a floating licence no machine of
    ``by_power`` holds as a feature and of which no copy is free, is passed over
    without a search (:meth:`~schedlab.engine.grid.GridContext.may_start`'s test).
    With ``shadow`` past every end (and ``reserved`` -1), each job starts on the first
    machine with room: EDF's first fit.

    Also returns what is left of ``spare_cpus``; ``spare`` is updated in place: the
    reservation as the starts leave it, kept by a pass that tries only new jobs
    behind it (:meth:`~.local.BackfillingFCFS.schedule`).
    """
    free = free_cpus.copy()
    busy = jobs_on.copy()
    copies = free_copies.copy()
    n_licences = needs.shape[1]
    floating_here = np.ones(n_licences, dtype=np.bool_)
    for lic in range(n_licences):
        for k in by_power:
            if feature[lic, k]:
                floating_here[lic] = False
                break
    largest = _largest_room(by_power, free, busy, exclusive)
    chosen = np.full(len(later), -1, dtype=np.int64)
    mine = np.empty(n_licences, dtype=np.int64)          # the job's licences
    for q in range(len(later)):
        at, width = later[q], widths[q]
        if width > largest:
            continue
        count, blocked = 0, False
        for lic in range(n_licences):
            if needs[at, lic]:
                mine[count] = lic
                count += 1
                if floating_here[lic] and copies[lic] < 1:
                    blocked = True
                    break
        if blocked:
            continue
        cpus_spare = not exclusive and width <= spare_cpus
        for k in by_power:
            if not eligible[at, k] or free[k] < width or (exclusive and busy[k] > 0):
                continue
            room, past = True, True
            for i in range(count):
                lic = mine[i]
                if not feature[lic, k]:
                    if copies[lic] < 1:
                        room = False
                        break
                    if tracked[lic] and spare[lic] < 1:
                        past = False
            if not room:
                continue
            ends = now - (-work[q] // rating[k])
            if ends > shadow and not (past and (cpus_spare or k != reserved)):
                continue
            chosen[q] = k
            free[k] -= width
            busy[k] += 1
            for i in range(count):
                lic = mine[i]
                if not feature[lic, k]:
                    copies[lic] -= 1
                    if ends > shadow and tracked[lic]:
                        spare[lic] -= 1
            if ends > shadow and k == reserved:
                spare_cpus -= width
            largest = _largest_room(by_power, free, busy, exclusive)
            break
    return chosen, spare_cpus


@njit(cache=True)
def _largest_room(machines: np.ndarray, free: np.ndarray, busy: np.ndarray,
                  exclusive: bool) -> int:
    """The most CPUs free on one of ``machines`` (exclusive: on an idle one; 0: none),
    as :attr:`~schedlab.engine.grid.GridContext.largest_room`."""
    largest = 0
    for k in machines:
        if free[k] > largest and not (exclusive and busy[k] > 0):
            largest = free[k]
    return largest
