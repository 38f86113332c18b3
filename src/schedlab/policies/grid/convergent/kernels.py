"""The Job-Machine matrix in one compiled pass (Pasquali thesis §3.2.2, "Heuristics Collection").

:func:`summed_heuristics` adds, entry by entry, the seven heuristics of
:mod:`.heuristics` in :data:`~.heuristics.HEURISTICS`' order, where numpy
made about forty jobs x machines temporaries per pass (bench/CS.md).  Each
entry is computed with the same operations, in the same order, as the
heuristic's numpy expression, and each row sum (the Deadline heuristic's
urgency and its share's denominator, the Input heuristic's total transfer)
is added in numpy's pairwise order (:func:`pairwise_sum`), so the matrix
is the same to the last bit and no tie in the matching falls another way;
a property test compares it with the heuristics summed in numpy.

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
