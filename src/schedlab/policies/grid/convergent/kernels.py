"""Convergent Scheduling's loops compiled (Pasquali thesis §3.2.2): the Job-Machine matrix
("Heuristics Collection") and its eligible pairs, the greedy knapsack's walk, and the
matchings' costs and augmenting paths.

:func:`summed_heuristics` adds, entry by entry, the seven heuristics of
:mod:`.heuristics` in :data:`~.heuristics.HEURISTICS`' order, where numpy
made about forty jobs x machines temporaries per pass (bench/CS.md).  Each
entry is computed with the same operations, in the same order, as the
heuristic's numpy expression, and each row sum (the Deadline heuristic's
urgency and its share's denominator, the Input heuristic's total transfer)
is added in numpy's pairwise order (:func:`pairwise_sum`), so the matrix
is the same to the last bit and no tie in the matching falls another way;
a property test compares it with the heuristics summed in numpy.
:func:`eligible` is the matrix's mask ``M_Aff``; :func:`positive_means` and
:func:`greedy_walk` serve the knapsack (:mod:`.knapsack`);
:func:`assignment_costs` is MFS's input to scipy, and :func:`padded_costs`,
:func:`shortest_augmenting_path`, :func:`unchanged_rows` and :func:`reprice`
are IMFS's steps (:class:`~.matching.IncrementalMatcher`), each the same
operations in the same order as the numpy they replace (property tests in
tests/grid/test_cs_matching.py and test_cs_heuristics.py).

This module imports numba, so it is imported only when a ``cs`` pass
first builds its matrix; ``cache=True`` keeps the machine code on disk and
``schedlab precompile`` compiles it ahead.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit

#: numpy's pairwise summation adds blocks of up to this many values with 8 accumulators.
_PAIRWISE_BLOCK = 128


@njit(cache=True)
def block_sum(values: np.ndarray, lo: int, n: int) -> float:
    """``values[lo:lo + n].sum()`` for ``n <= 128`` in numpy's order: below 8 values one
    by one, else 8 interleaved partial sums, combined in pairs, then the rest."""
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += values[i]
        return total
    partial = values[lo:lo + 8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            partial[j] += values[lo + i + j]
        i += 8
    total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) \
        + ((partial[4] + partial[5]) + (partial[6] + partial[7]))
    for k in range(lo + i, lo + n):
        total += values[k]
    return total


@njit(cache=True)
def pairwise_sum(values: np.ndarray) -> float:
    """``values.sum()`` for a contiguous float64 row, added in numpy's pairwise order:
    a row longer than 128 is the sum of its two halves (cut at a multiple of 8), each
    summed the same way, down to :func:`block_sum`.  The halves are walked with a stack
    (numba caches no recursive function)."""
    los = np.empty(128, np.int64)       # pending ranges; n = -1 marks "add the last two"
    ns = np.empty(128, np.int64)
    sums = np.empty(64)
    pending, done = 1, 0
    los[0], ns[0] = 0, len(values)
    while pending:
        pending -= 1
        lo, n = los[pending], ns[pending]
        if n < 0:
            done -= 1
            sums[done - 1] = sums[done - 1] + sums[done]
        elif n <= _PAIRWISE_BLOCK:
            sums[done] = block_sum(values, lo, n)
            done += 1
        else:
            half = n // 2
            half -= half % 8
            los[pending], ns[pending] = 0, -1
            los[pending + 1], ns[pending + 1] = lo + half, n - half
            los[pending + 2], ns[pending + 2] = lo, half
            pending += 3
    return sums[0]


@njit(cache=True, error_model="numpy")
def summed_heuristics(now: float, estimate_left: np.ndarray, job_rating: np.ndarray,
                      deadline: np.ndarray, submit: np.ndarray, machine: np.ndarray,
                      input_size: np.ndarray, input_location: np.ndarray, rating: np.ndarray,
                      bandwidth: np.ndarray, eligible: np.ndarray, licence_score: np.ndarray,
                      base: float, deadline_max: float, deadline_min: float, deadline_k: float,
                      deadline_late: float, input_weight: float, wait: float, wait_all: bool,
                      overhead: float, age_factor: float) -> np.ndarray:
    """``P`` (jobs x machines): Minimal requirements, Deadline, Licences, Input, Wait
    minimization, Overhead minimization and Anti-Aging added in that order on the
    ``eligible`` entries, 0 elsewhere.  The arguments are :class:`~.matrix.ClusterState`'s
    columns, the Licences heuristic's per-job score (:func:`~.heuristics.licence_score`)
    and the :class:`~.heuristics.Weights` (``deadline_late``: ``f_1``'s value past the
    deadline; ``wait_all``: ``wait_sup="all"``)."""
    n, m = eligible.shape
    matrix = np.zeros((n, m))
    work = estimate_left * job_rating
    nx = np.empty(m)
    f1 = np.empty(m)
    spare = np.empty(m)
    transfer = np.empty(m)
    sup_all = 0.0
    if wait_all:
        for i in range(n):
            for k in range(m):
                if eligible[i, k]:
                    sup_all = max(sup_all, work[i] / rating[k])
    age_span = now - submit
    for i in range(n):
        count = 0
        sup = 0.0
        for k in range(m):
            nx[k] = work[i] / rating[k]
            if eligible[i, k]:
                count += 1
                sup = max(sup, nx[k])
        if wait_all:
            sup = sup_all
        # Deadline: the urgency sum f_1 shared by f1bar = Max - f_1 (eq. 3.10)
        due = deadline[i]
        has_deadline = not np.isnan(due)
        for k in range(m):
            f1[k] = 0.0
            spare[k] = 0.0
            if eligible[i, k]:
                if has_deadline:
                    start = due - deadline_k * nx[k]
                    extime = now + nx[k]
                    span = due - start if nx[k] > 0 else 1.0
                    slope = (deadline_max - deadline_min) / span
                    value = deadline_min
                    if extime > start and extime <= due:
                        value = slope * (extime - start) + deadline_min
                    if extime > due:
                        value = deadline_late
                    f1[k] = value
                spare[k] = deadline_max - f1[k]
        urgency = pairwise_sum(f1)
        spare_total = pairwise_sum(spare)
        # Input: the transfer from where the job's input lies (our reading)
        for k in range(m):
            transfer[k] = 0.0
            if eligible[i, k] and input_location[i] != k:
                transfer[k] = input_size[i] / bandwidth[k]
        transfer_total = pairwise_sum(transfer)
        sup_or_one = sup if sup > 0 else 1.0
        for k in range(m):
            if not eligible[i, k]:
                continue
            entry = base                    # then each heuristic in turn, as numpy adds them
            if has_deadline:
                share = spare[k] / spare_total if spare_total > 0 else 1.0 / max(count, 1)
                entry += urgency * share
            entry += licence_score[i]
            moved = transfer[k] / transfer_total if transfer_total > 0 else 1.0 / max(count, 1)
            entry += input_weight * (1.0 - moved)
            entry += wait * (1.0 - nx[k] / sup_or_one)
            if machine[i] == k:
                entry += overhead
            entry += age_span[i] * age_factor
            matrix[i, k] = entry
    return matrix


@njit(cache=True)
def eligible(needs: np.ndarray, usable: np.ndarray, cpus: np.ndarray,
             width: np.ndarray) -> np.ndarray:
    """Jobs x machines: the machine has ``width`` CPUs or more and every licence the job
    ``needs`` is ``usable`` there (:func:`~.matrix.eligible_pairs`).  A job's licences are
    few: each masks the machines lacking it out of the job's row."""
    n, licences = needs.shape
    m = len(cpus)
    mask = np.empty((n, m), np.bool_)
    for i in range(n):
        for k in range(m):
            mask[i, k] = cpus[k] >= width[i]
        for l in range(licences):
            if needs[i, l]:
                for k in range(m):
                    if not usable[l, k]:
                        mask[i, k] = False
    return mask


@njit(cache=True)
def positive_means(matrix: np.ndarray) -> np.ndarray:
    """Per row, the mean of its positive entries (0 for none): their sum taken as numpy
    sums the row with the other entries set to 0 (:func:`pairwise_sum`), over their
    count."""
    n, m = matrix.shape
    means = np.zeros(n)
    row = np.empty(m)
    for i in range(n):
        count = 0
        for k in range(m):
            row[k] = 0.0
            if matrix[i, k] > 0:
                row[k] = matrix[i, k]
                count += 1
        if count > 0:
            means[i] = pairwise_sum(row) / count
    return means


@njit(cache=True)
def greedy_walk(order: np.ndarray, starts: np.ndarray, resources: np.ndarray,
                used: np.ndarray, limit: np.ndarray, alive_demand: np.ndarray,
                taken: np.ndarray) -> int:
    """The walk of the greedy knapsack (:func:`~.knapsack.greedy_knapsack`) over ``order``:
    each item (its resources ``resources[starts[i]:starts[i + 1]]``) is taken if every
    resource has a unit left (``used < limit``); a discarded item leaves the demand of the
    items still alive.  Returns the position after the first discard that leaves a
    resource no longer critical (``alive_demand == limit``), ``len(order)`` if none does:
    from there the order is recomputed."""
    for position in range(len(order)):
        item = order[position]
        fits = True
        for p in range(starts[item], starts[item + 1]):
            if used[resources[p]] >= limit[resources[p]]:
                fits = False
                break
        if fits:
            taken[item] = True
            for p in range(starts[item], starts[item + 1]):
                used[resources[p]] += 1
            continue
        still_critical = True
        for p in range(starts[item], starts[item + 1]):
            alive_demand[resources[p]] -= 1
            if alive_demand[resources[p]] == limit[resources[p]]:
                still_critical = False
        if not still_critical:
            return position + 1
    return len(order)


@njit(cache=True)
def assignment_costs(matrix: np.ndarray, premium: float) -> np.ndarray:
    """The costs :func:`~.matching.mfs` gives :func:`scipy.optimize.linear_sum_assignment`,
    as scipy solves them: ``-(P + premium)`` on the positive entries of ``P``, ``-0.0``
    elsewhere, jobs x machines, transposed when there are more jobs than machines.
    scipy itself would make that copy of the lifted matrix (negated to maximize,
    transposed when tall) and then solve the same numbers; here it is one pass, with no
    numpy temporary."""
    n, m = matrix.shape
    if n > m:
        costs = np.empty((m, n))
        for i in range(n):
            for k in range(m):
                entry = matrix[i, k]
                costs[k, i] = -(entry + premium) if entry > 0 else -0.0
    else:
        costs = np.empty((n, m))
        for i in range(n):
            for k in range(m):
                entry = matrix[i, k]
                costs[i, k] = -(entry + premium) if entry > 0 else -0.0
    return costs


@njit(cache=True)
def padded_costs(matrix: np.ndarray, premium: float) -> np.ndarray:
    """IMFS's costs (:class:`~.matching.IncrementalMatcher`): ``-(P + premium)`` on the
    positive entries of ``P``, 0 elsewhere.  The kernels below read them as the top-left
    corner of a square problem whose other entries (the padding) are 0."""
    n, m = matrix.shape
    cost = np.empty((n, m))
    for i in range(n):
        for k in range(m):
            entry = matrix[i, k]
            cost[i, k] = -(entry + premium) if entry > 0 else 0.0
    return cost


@njit(cache=True)
def shortest_augmenting_path(cost: np.ndarray, size: int, u: np.ndarray, v: np.ndarray,
                             col4row: np.ndarray, row4col: np.ndarray, start: int) -> int:
    """One shortest augmenting path from the free row ``start`` of the ``size`` x ``size``
    problem padding ``cost`` (:func:`padded_costs`), by Dijkstra on the reduced costs
    ``cost - u - v``: each step closes the open column of least distance (among equals
    the first free one, else the first) and scans the row paired with it, until a free
    column closes; the potentials of the scanned rows and closed columns then move by
    the distances, and the pairs ``col4row``, ``row4col`` flip along the path (all in
    place).  Returns the number of rows scanned."""
    n, m = cost.shape
    shortest = np.full(size, np.inf)
    path = np.full(size, -1, np.int64)
    done = np.zeros(size, np.bool_)
    visited = np.empty(size, np.int64)
    scanned = 0
    row, best, col = start, 0.0, -1
    while True:
        visited[scanned] = row
        scanned += 1
        ur = u[row]
        for j in range(size):
            if not done[j]:
                entry = cost[row, j] if row < n and j < m else 0.0
                reduced = best + entry - ur - v[j]
                if reduced < shortest[j]:
                    path[j] = row
                    shortest[j] = reduced
        best, col, free = np.inf, -1, -1
        for j in range(size):
            if not done[j]:
                if shortest[j] < best:
                    best, col = shortest[j], j
                    free = j if row4col[j] < 0 else -1
                elif shortest[j] == best and free < 0 and row4col[j] < 0:
                    free = j
        if free >= 0:
            col = free
        done[col] = True
        if row4col[col] < 0:
            break
        row = row4col[col]
    u[start] += best
    for k in range(1, scanned):
        r = visited[k]
        u[r] += best - shortest[col4row[r]]
    for j in range(size):
        if done[j]:
            v[j] -= best - shortest[j]
    while True:
        row = path[col]
        row4col[col] = row
        col4row[row], col = col, col4row[row]
        if row == start:
            break
    return scanned


@njit(cache=True)
def unchanged_rows(matrix: np.ndarray, previous: np.ndarray, rows: np.ndarray,
                   previous_rows: np.ndarray) -> np.ndarray:
    """Per ``k``, whether row ``rows[k]`` of ``matrix`` equals row ``previous_rows[k]`` of
    ``previous`` entry for entry."""
    same = np.ones(len(rows), np.bool_)
    for k in range(len(rows)):
        i, j = rows[k], previous_rows[k]
        for c in range(matrix.shape[1]):
            if matrix[i, c] != previous[j, c]:
                same[k] = False
                break
    return same


@njit(cache=True)
def reprice(cost: np.ndarray, size: int, u: np.ndarray, v: np.ndarray, col4row: np.ndarray,
            rows: np.ndarray) -> None:
    """Re-price ``rows`` of the ``size`` x ``size`` problem padding ``cost``
    (:func:`padded_costs`): each row's potential ``u = min(cost - v)``, and its pair
    dropped unless still tight (reduced cost 0)."""
    n, m = cost.shape
    for i in rows:
        lowest = np.inf
        for j in range(size):
            entry = cost[i, j] if i < n and j < m else 0.0
            reduced = entry - v[j]
            if reduced < lowest:
                lowest = reduced
        u[i] = lowest
        c = col4row[i]
        if c >= 0:
            entry = cost[i, c] if i < n and c < m else 0.0
            if (entry - v[c]) - u[i] != 0.0:
                col4row[i] = -1
