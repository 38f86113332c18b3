"""Clustering and pre-matching of Convergent Scheduling (Pasquali thesis §3.2.2).

Before the matching, the jobs asking for *critical* licences -- more jobs
want them than there are copies, ``rho_l > 1`` (eq. 3.6-3.8) -- are grouped
by the licences they share, and in each group a multidimensional 0-1
knapsack (MKP) keeps a subset of jobs that can run together: the
capacities are the licences' copies, the items the jobs, each using one
copy of each licence it needs.  The jobs left out lose their row of the
Job-Machine matrix until the next scheduling event.

* :func:`licence_groups`: the groups are the connected components of the
  job-licence hypergraph (licences are nodes, jobs hyperedges) restricted to
  critical licences.  They are computed afresh at every event, so a licence
  turning critical merges groups and one turning non-critical splits them,
  as the thesis describes.
* :func:`greedy_knapsack`: the thesis' greedy -- Eilon's surrogate turns the
  MKP into a knapsack with one constraint, items taken by decreasing unit
  cost (eq. 3.11), and the weights recomputed after every discarded item.
* :func:`exact_knapsack`: the optimum, by :func:`scipy.optimize.milp`
  (HiGHS branch and bound), the thesis' "branch&bound" reference (Table 5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.policies.base import check_choice

#: Knapsack solvers of :func:`prematch`.
METHODS = ("greedy", "exact")
#: Group label of a job that needs no critical licence.
NO_GROUP = -1


def licence_pressure(needs: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """``rho_l = sum_i s_{i,l} / a_l`` (eq. 3.6): jobs asking for licence ``l`` per copy.

    ``needs`` is jobs x licences (boolean), ``copies`` the copies per licence.
    A licence with no copy (a machine feature, never counted) has ``rho = 0``.
    """
    demand = np.asarray(needs, dtype=bool).sum(axis=0).astype(np.float64)
    copies = np.asarray(copies, dtype=np.float64)
    return np.divide(demand, copies, out=np.zeros_like(demand), where=copies > 0)


def critical_licences(needs: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """``L_c = {l : rho_l > 1}`` (eq. 3.7) as a boolean mask over licences."""
    return licence_pressure(needs, copies) > 1.0


def licence_groups(needs: np.ndarray, critical: np.ndarray) -> np.ndarray:
    """Per job, its group: jobs linked through shared critical licences; -1 for none.

    The connected components of the bipartite graph jobs -- critical
    licences, found on the licences (few): two licences are linked when a
    job asks for both, and the links are closed transitively by squaring
    the licence-by-licence reachability until it no longer grows; a job's
    group is that of its licences.  Groups are numbered 0, 1, ... in the
    order of their first job, so the labels are deterministic.
    """
    needs = np.asarray(needs, dtype=bool)
    held = needs[:, np.asarray(critical, dtype=bool)]
    labels = np.full(needs.shape[0], NO_GROUP, dtype=np.int64)
    involved = np.flatnonzero(held.any(axis=1))
    if not involved.size:
        return labels
    asked = held[involved].astype(np.int64)
    reach = (asked.T @ asked) > 0                 # linked through one job (or itself)
    while True:
        wider = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (wider == reach).all():
            break
        reach = wider
    component = reach.argmax(axis=1)              # the lowest licence reachable
    of_job = component[held[involved].argmax(axis=1)]
    _, first_job, numbered = np.unique(of_job, return_index=True, return_inverse=True)
    rank = np.empty(len(first_job), dtype=np.int64)
    rank[np.argsort(first_job, kind="stable")] = np.arange(len(first_job))
    labels[involved] = rank[numbered]
    return labels


@dataclass(frozen=True)
class Knapsack:
    """A solution: ``taken[i]`` per item, the ``value`` it totals, ``used[l]`` per licence.

    ``proven`` is False when the exact solver stopped at its time limit.
    """

    taken: np.ndarray
    value: float
    used: np.ndarray
    proven: bool = True


def _solution(values: np.ndarray, demand: np.ndarray, taken: np.ndarray,
              proven: bool = True) -> Knapsack:
    return Knapsack(taken, float(values[taken].sum()), demand[taken].sum(axis=0), proven)


def _check(values, demand, capacity) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=np.float64)
    demand = np.asarray(demand, dtype=bool).reshape(len(values), -1)
    capacity = np.asarray(capacity, dtype=np.int64).reshape(demand.shape[1])
    if (capacity < 1).any():
        raise ValueError("knapsack capacities must be >= 1 (licences with copies)")
    return values, demand, capacity


def eilon_weights(demand: np.ndarray, capacity: np.ndarray, critical: np.ndarray) -> np.ndarray:
    """Eilon's surrogate weight ``a-bar_i = sum_{l in L_c} a_{i,l} / b_l`` per item (§3.2.2)."""
    return demand[:, critical].astype(np.float64) @ (1.0 / capacity[critical])


def greedy_knapsack(values, demand, capacity) -> Knapsack:
    """The thesis' greedy MKP: decreasing unit cost ``c-bar_i / a-bar_i`` (eq. 3.11).

    ``values[i]`` is item ``i``'s cost ``c-bar_i``, ``demand[i, l]`` whether it
    uses one unit of resource ``l``, ``capacity[l]`` the units (``b_l``).
    Items are visited by decreasing unit cost (ties: lower index first) and
    taken while they fit.  The first that does not fit is discarded; then
    the resources still critical -- demand of the items taken or not yet
    visited above capacity -- are recomputed, so are the weights and the
    order of the items not yet visited ("the job weights are recomputed
    after each job discarding"), and the walk goes on.  An item needing no
    critical resource has unit cost infinity: it always fits.

    The weights depend on the items only through the critical resources,
    and a resource, once no longer critical, stays so (the demand of the
    items taken or not yet visited only falls).  So the weights and the
    order are recomputed only when a discard leaves a resource no longer
    critical -- at most once per resource; after any other discard they
    would come out the same and the walk goes on in the order it has.
    """
    from schedlab.policies.grid.convergent.kernels import greedy_walk

    values, demand, capacity = _check(values, demand, capacity)
    n = len(values)
    taken = np.zeros(n, dtype=bool)
    items, resources = np.nonzero(demand)                     # each item's resources
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(items, minlength=n), out=starts[1:])
    used = np.zeros(len(capacity), dtype=np.int64)
    alive_demand = demand.sum(axis=0)           # of the items taken or not yet visited
    pending = np.arange(n)
    while pending.size:
        weight = eilon_weights(demand, capacity, alive_demand > capacity)
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(weight > 0, values / weight, np.inf)
        order = pending[np.lexsort((pending, -unit[pending]))]
        walked = greedy_walk(order, starts, resources, used, capacity, alive_demand, taken)
        pending = order[walked:]
    return _solution(values, demand, taken)


def exact_knapsack(values, demand, capacity, *, time_limit: float | None = None) -> Knapsack:
    """The optimal MKP: maximise ``sum values x`` with ``demand^T x <= capacity``, ``x`` 0/1.

    :func:`scipy.optimize.milp` (HiGHS); ``time_limit`` in seconds, None
    for none (past it the best solution found so far is returned).  scipy is
    imported here, at the first exact solve: importing it costs about half a
    second, which a process that never solves one exactly does not pay.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    values, demand, capacity = _check(values, demand, capacity)
    n = len(values)
    if n == 0:
        return _solution(values, demand, np.zeros(0, dtype=bool))
    options = {} if time_limit is None else {"time_limit": time_limit}
    result = milp(-values, integrality=np.ones(n), bounds=Bounds(0, 1),
                  constraints=[LinearConstraint(demand.T.astype(np.float64), -np.inf, capacity)],
                  options=options)
    if result.x is None:
        raise RuntimeError(f"the MILP solver found no solution: {result.message}")
    return _solution(values, demand, result.x > 0.5, proven=result.status == 0)


def unit_values(matrix: np.ndarray) -> np.ndarray:
    """``c-bar_i``: the mean of row ``i``'s positive entries of ``P`` (0 for none) (§3.2.2)."""
    from schedlab.policies.grid.convergent.kernels import positive_means

    return positive_means(np.ascontiguousarray(matrix, dtype=np.float64))


@dataclass(frozen=True)
class Prematch:
    """The result of clustering and pre-matching.

    ``matrix`` is ``P`` with the rows of the discarded jobs set to 0;
    ``kept[i]`` whether job ``i`` stays; ``groups[i]`` its group (-1: no
    critical licence); ``critical[l]`` the critical licences; ``proven``
    False if an exact knapsack stopped at its time limit.
    """

    matrix: np.ndarray
    kept: np.ndarray
    groups: np.ndarray
    critical: np.ndarray
    proven: bool = True


def prematch(matrix: np.ndarray, needs: np.ndarray, copies: np.ndarray,
             method: str = "greedy", *, fixed: np.ndarray | None = None,
             time_limit: float | None = None) -> Prematch:
    """Clustering and pre-matching: per group, a knapsack over its critical licences.

    ``matrix`` is the Job-Machine matrix, ``needs`` jobs x licences,
    ``copies`` the cluster's copies per licence (the jobs are all of the
    cluster's, queued and running, so the capacities are the whole copies).
    ``method`` is ``"greedy"`` (the thesis') or ``"exact"`` (MILP, each group
    within ``time_limit`` seconds if given).  ``fixed`` marks the jobs that
    are always kept (running jobs that cannot be stopped): their copies are
    taken from the capacities first, the knapsack chooses among the others,
    and a job needing a copy that none is left of is set aside.
    """
    check_choice("convergent scheduling", "knapsack", method, METHODS)
    if method == "greedy":
        solve = greedy_knapsack
    else:
        def solve(values, demand, capacity):
            return exact_knapsack(values, demand, capacity, time_limit=time_limit)
    proven = True
    needs = np.asarray(needs, dtype=bool)
    copies = np.asarray(copies, dtype=np.int64)
    fixed = np.zeros(len(needs), dtype=bool) if fixed is None else np.asarray(fixed, bool)
    critical = critical_licences(needs, copies)
    groups = licence_groups(needs, critical)
    values = unit_values(matrix)
    kept = np.ones(len(matrix), dtype=bool)
    for group in range(int(groups.max(initial=NO_GROUP)) + 1):
        rows = np.flatnonzero(groups == group)
        columns = np.flatnonzero(critical & needs[rows].any(axis=0))
        capacity = copies[columns] - needs[np.ix_(rows[fixed[rows]], columns)].sum(axis=0)
        items = rows[~fixed[rows]]
        blocked = needs[np.ix_(items, columns[capacity < 1])].any(axis=1)
        kept[items[blocked]] = False
        items, left = items[~blocked], capacity >= 1
        if items.size == 0:
            continue
        solution = solve(values[items], needs[np.ix_(items, columns[left])], capacity[left])
        kept[items[~solution.taken]] = False
        proven = proven and solution.proven
    result = np.where(kept[:, None], matrix, 0.0)
    return Prematch(result, kept, groups, critical, proven)


__all__ = ["METHODS", "NO_GROUP", "Knapsack", "Prematch", "critical_licences",
           "eilon_weights", "exact_knapsack", "greedy_knapsack", "licence_groups",
           "licence_pressure", "prematch", "unit_values"]
