"""The matching phase of Convergent Scheduling (Pasquali thesis §3.2.2, "Matching").

From the Job-Machine matrix ``P`` (after pre-matching), find job-machine
pairs ``MTC``, each job on at most one machine and each machine running at
most one job, only on eligible pairs (``P > 0``):

* :func:`mis` -- Maximum Iterative Search: greedily the largest remaining
  entry whose job and machine are both free.  Fast, but may leave machines
  idle that a better matching would use.
* :func:`mfs` -- Maximum Flow Search: a matching of maximum cardinality
  ``|MTC|`` and, among those, maximum weight ``sum p_{i,m}``.  Solved by
  :func:`scipy.optimize.linear_sum_assignment` on ``P + M`` (eligible pairs)
  and 0 (the others), with ``M`` larger than the weight of any matching:
  one more pair is then worth more than any gain in weight.
* :class:`IncrementalMatcher` -- Incremental MFS: the same optimum, computed
  from the previous plan.  Shortest augmenting paths (the Hungarian method
  with dual potentials) on the square problem; between two calls it keeps
  the pairs and potentials of the rows (jobs, identified by key) whose
  entries did not change, re-prices the changed and new rows, and augments
  only from the rows left unmatched -- instead of from every row.

:func:`matching_rounds` extends any of them to space sharing (thesis §4.3.2,
our reading): matchings repeated while machines have CPUs left, so that a
machine may take several jobs, each round at most one more.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Matching:
    """Job-machine pairs: ``rows[k]`` (job) runs on ``columns[k]`` (machine), by row."""

    rows: np.ndarray
    columns: np.ndarray
    weight: float

    @property
    def size(self) -> int:
        """``|MTC|``: the number of pairs."""
        return len(self.rows)

    def machine_of(self, n_jobs: int) -> np.ndarray:
        """Per job, its machine in the matching, -1 for none."""
        machine = np.full(n_jobs, -1, dtype=np.int64)
        machine[self.rows] = self.columns
        return machine


def _matching(matrix: np.ndarray, rows, columns) -> Matching:
    rows = np.asarray(rows, dtype=np.int64)
    columns = np.asarray(columns, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    rows, columns = rows[order], columns[order]
    return Matching(rows, columns, float(matrix[rows, columns].sum()))


def mis(matrix: np.ndarray) -> Matching:
    """MIS: repeatedly the largest positive entry whose row and column are free.

    Ties go to the lower row, then the lower column.  ``O(E log E)`` for
    ``E`` positive entries (the thesis: ``O(|N|^2 log |N|^2)``).
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    rows, columns = np.nonzero(matrix > 0)
    order = np.lexsort((columns, rows, -matrix[rows, columns]))
    row_free = np.ones(matrix.shape[0], dtype=bool)
    column_free = np.ones(matrix.shape[1], dtype=bool)
    chosen_rows, chosen_columns = [], []
    for i, j in zip(rows[order].tolist(), columns[order].tolist()):
        if row_free[i] and column_free[j]:
            row_free[i] = column_free[j] = False
            chosen_rows.append(i)
            chosen_columns.append(j)
    return _matching(matrix, chosen_rows, chosen_columns)


def cardinality_premium(matrix: np.ndarray) -> float:
    """A premium ``M`` per pair above the weight of any matching of ``matrix``.

    ``min(n, m) x max P`` bounds every matching's weight; ``M`` exceeds it,
    so a matching with one more pair always weighs more (with ``P + M``).
    """
    n, m = matrix.shape
    return min(n, m) * float(matrix.max(initial=0.0)) + 1.0


def mfs(matrix: np.ndarray) -> Matching:
    """MFS: maximum cardinality, then maximum weight, over the positive entries.

    :func:`scipy.optimize.linear_sum_assignment` on ``P + M`` where ``P > 0``
    and 0 elsewhere (``M`` from :func:`cardinality_premium`); assigned pairs
    with ``P = 0`` are dropped.  scipy is handed the costs as it would make them
    itself, negated and with fewer rows than columns (:func:`.kernels.assignment_costs`),
    so that it solves the same numbers without copying them.  scipy is imported at
    the first call (about half a second), not by every grid run that imports the
    policies.
    """
    from scipy.optimize import linear_sum_assignment

    from schedlab.policies.grid.convergent.kernels import assignment_costs

    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    if matrix.size == 0:
        return _matching(matrix, [], [])
    costs = assignment_costs(matrix, cardinality_premium(matrix))
    rows, columns = linear_sum_assignment(costs)
    if costs.shape[0] != matrix.shape[0]:           # transposed: rows are machines
        rows, columns = columns, rows
    keep = matrix[rows, columns] > 0
    return _matching(matrix, rows[keep], columns[keep])


def matching_rounds(matrix: np.ndarray, width: np.ndarray, room: np.ndarray,
                    match: Callable[[np.ndarray], Matching] = mfs, *,
                    slots: bool = False) -> Matching:
    """Several jobs per machine: ``match`` repeated while machines have room (§4.3.2, ours).

    Each round matches the jobs not yet placed with the machines, on the
    pairs ``P > 0`` whose job's ``width`` fits the machine's ``room`` left
    (CPUs).  With ``slots=False`` a round is the thesis' matching, one job
    per machine.  With ``slots=True`` each machine is first expanded into
    as many columns (slots) as jobs of the narrowest width still open fit in
    its room, so that one round may give a machine several jobs, and the
    preferred machines fill before the others are used.  The pairs of a
    round are then taken by decreasing entry (ties: the lower row) while
    their job fits in its machine's room, which shrinks by the job's width.
    Rounds stop when one places nothing.  The result is the union of the
    rounds: each job on at most one machine, a machine's jobs never wider in
    total than its room.  The best packing of widths into rooms (a
    generalized assignment problem, NP-hard) is not sought.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    width = np.asarray(width, dtype=np.int64)
    room = np.array(room, dtype=np.int64)
    machine = np.full(matrix.shape[0], -1, dtype=np.int64)
    while True:
        open_rows = np.flatnonzero(machine < 0)
        if open_rows.size == 0:
            break
        offered = np.where(width[open_rows, None] <= room[None, :], matrix[open_rows], 0.0)
        column_of = np.arange(matrix.shape[1])
        if slots:
            narrowest = max(int(width[open_rows].min()), 1)
            per_machine = np.minimum(np.maximum(room, 0) // narrowest, open_rows.size)
            column_of = np.repeat(column_of, per_machine)
        plan = match(offered[:, column_of])
        placed_any = False
        entries = offered[plan.rows, column_of[plan.columns]]
        for k in np.lexsort((plan.rows, -entries)).tolist():
            row, column = int(open_rows[plan.rows[k]]), int(column_of[plan.columns[k]])
            if width[row] <= room[column]:
                machine[row] = column
                room[column] -= width[row]
                placed_any = True
        if not placed_any:
            break
    rows = np.flatnonzero(machine >= 0)
    return _matching(matrix, rows, machine[rows])


def scratch_work(matrix: np.ndarray) -> tuple[int, int]:
    """The work of solving ``matrix`` from scratch: (augmenting paths, matrix entries
    touched), counted by the shortest augmenting path method of :class:`IncrementalMatcher`
    started cold, in the same units as its incremental calls.

    Our count of what an MFS from scratch does (thesis Figs. 23–24 in operations):
    :func:`scipy.optimize.linear_sum_assignment`, which :func:`mfs` calls, is a
    compiled shortest augmenting path solver of the same (Jonker-Volgenant)
    class, but it reports no counts, so the same algorithm in Python is
    counted on the same matrix instead.
    """
    counter = IncrementalMatcher()
    counter.match(matrix)
    return counter.augmentations, counter.entries_touched


class IncrementalMatcher:
    """IMFS: maximum-cardinality maximum-weight matchings of a changing matrix.

    Call :meth:`match` with each new matrix and the keys of its rows (job
    ids).  A row whose key was seen before and whose entries are unchanged
    keeps its pair and its dual potential; changed and new rows are
    re-priced (``u_i = min_j (c_ij - v_j)``, which keeps every reduced cost
    >= 0) and keep their pair only if it is still tight.  Then one shortest
    augmenting path (Dijkstra on reduced costs) is grown from each unmatched
    row.  Every augmentation keeps the potentials feasible and the pairs
    tight, so the result is optimal: the same cardinality and weight as
    :func:`mfs`.  The thesis' IMFS (§3.2.2) reuses "the job-machine
    associations inherited by the previous matching phase" the same way.

    The problem is made square (``K = max(n, m)``) with zero-cost padding;
    costs are ``-(P + M)`` on eligible pairs and 0 elsewhere, with ``M`` a
    power of two above :func:`cardinality_premium`.  When ``M`` must grow or
    the number of machines changes, the matcher starts afresh (a cold start).

    ``augmentations`` and ``scanned_rows`` count the work done by all calls
    (rows scanned by Dijkstra, each scan ``O(K)``); ``cold_starts`` the
    calls that could reuse nothing.  ``entries_touched`` counts the matrix
    entries all calls read: the ``n m`` entries given, then a cold start's
    ``K^2`` (the first potentials), or a warm start's comparison of each kept
    row with its previous entries (``m`` each), ``K`` per re-priced row and
    one per kept row and new column; and ``K`` per row Dijkstra scans.
    """

    def __init__(self) -> None:
        self._keys: dict[Hashable, int] = {}
        self._matrix = np.zeros((0, 0))
        self._premium = 0.0
        self._u = self._v = np.zeros(0)
        self._col4row = np.zeros(0, dtype=np.int64)
        self.augmentations = 0
        self.scanned_rows = 0
        self.cold_starts = 0
        self.entries_touched = 0

    def match(self, matrix: np.ndarray, keys: Sequence[Hashable] | None = None) -> Matching:
        """The MFS matching of ``matrix``, reusing the previous call's (rows by ``keys``)."""
        from schedlab.policies.grid.convergent.kernels import padded_costs, reprice

        matrix = np.ascontiguousarray(matrix, dtype=np.float64)
        n, m = matrix.shape
        keys = list(range(n)) if keys is None else list(keys)
        if len(keys) != n or len(set(keys)) != n:
            raise ValueError("IncrementalMatcher.match: expected one distinct key per row")
        size = max(n, m)
        needed = cardinality_premium(matrix) if matrix.size else 1.0
        cold = m != self._matrix.shape[1] or needed >= self._premium or not self._keys
        if cold:
            self._premium = 2.0 ** math.ceil(math.log2(2.0 * needed))
        cost = padded_costs(matrix, self._premium)
        self.entries_touched += n * m
        if cold:
            self.cold_starts += 1
            self.entries_touched += size * size
            u, v = np.zeros(size), np.zeros(size)
            col4row = np.full(size, -1, dtype=np.int64)
            reprice(cost, size, u, v, col4row, np.arange(size))     # u: the row minima
        else:
            u, v, col4row = self._warm_start(matrix, keys, cost, size)
        row4col = np.full(size, -1, dtype=np.int64)
        row4col[col4row[col4row >= 0]] = np.flatnonzero(col4row >= 0)
        for row in np.flatnonzero(col4row < 0).tolist():
            self._augment(cost, size, u, v, col4row, row4col, row)
        self._keys = {key: i for i, key in enumerate(keys)}
        self._matrix, self._u, self._v, self._col4row = matrix, u, v, col4row
        rows = np.arange(n)
        columns = col4row[:n]
        real = columns < m
        rows, columns = rows[real], columns[real]
        keep = matrix[rows, columns] > 0
        return _matching(matrix, rows[keep], columns[keep])

    def _warm_start(self, matrix: np.ndarray, keys: list, cost: np.ndarray, size: int):
        """Potentials and pairs carried over from the previous call (see the class doc);
        ``cost``: the ``size`` x ``size`` problem's (:func:`.kernels.padded_costs`)."""
        from schedlab.policies.grid.convergent.kernels import reprice, unchanged_rows

        n, m = matrix.shape
        old_n, old_size = self._matrix.shape[0], len(self._u)
        # column map: machines by index, padding columns by position
        old_col = np.arange(size)
        old_col[old_col >= old_size] = -1
        new_col = np.full(old_size, -1, dtype=np.int64)
        new_col[old_col[old_col >= 0]] = np.flatnonzero(old_col >= 0)
        # row map: jobs by key, padding rows by position among the padding rows
        old_row = np.full(size, -1, dtype=np.int64)
        old_row[:n] = [self._keys.get(key, -1) for key in keys]
        padding = min(size - n, old_size - old_n)
        old_row[n:n + padding] = np.arange(old_n, old_n + padding)
        u = np.zeros(size)
        v = np.zeros(size)
        col4row = np.full(size, -1, dtype=np.int64)
        kept_cols = old_col >= 0
        v[kept_cols] = self._v[old_col[kept_cols]]
        persisting = np.flatnonzero(old_row >= 0)
        u[persisting] = self._u[old_row[persisting]]
        was = self._col4row[old_row[persisting]]
        col4row[persisting] = np.where(was >= 0, new_col[was], -1)
        fresh_cols = np.flatnonzero(~kept_cols)
        if fresh_cols.size:             # beyond the old size: padding, costs 0
            v[fresh_cols] = (0.0 - u[persisting]).min(initial=0.0)
            self.entries_touched += persisting.size * fresh_cols.size
        same = np.zeros(size, dtype=bool)
        same[n:] = old_row[n:] >= 0                  # padding rows never change
        real = np.flatnonzero(old_row[:n] >= 0)
        if real.size:
            same[real] = unchanged_rows(matrix, self._matrix, real, old_row[real])
            self.entries_touched += real.size * m
        changed = np.flatnonzero(~same)
        self.entries_touched += len(changed) * size
        reprice(cost, size, u, v, col4row, changed)
        return u, v, col4row

    def _augment(self, cost, size: int, u, v, col4row, row4col, start: int) -> None:
        """One shortest augmenting path from free row ``start``; potentials updated.

        Dijkstra over the columns on the reduced costs ``cost[row] - u[row] - v`` from
        ``start``, each step closing the open column of least distance (among equals the
        first free one, else the first) and scanning the row paired with it, until a
        free column closes; the potentials of the scanned rows and closed columns then
        move by the distances, and the pairs flip along the path.  Compiled
        (:func:`.kernels.shortest_augmenting_path`)."""
        from schedlab.policies.grid.convergent.kernels import shortest_augmenting_path

        scanned = shortest_augmenting_path(cost, size, u, v, col4row, row4col, start)
        self.augmentations += 1
        self.scanned_rows += scanned
        self.entries_touched += scanned * size


__all__ = ["IncrementalMatcher", "Matching", "cardinality_premium", "matching_rounds", "mfs",
           "mis", "scratch_work"]
