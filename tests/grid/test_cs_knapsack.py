"""Convergent Scheduling's clustering and pre-matching: critical licences, groups, knapsacks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.policies.grid.convergent import (
    critical_licences,
    exact_knapsack,
    greedy_knapsack,
    licence_groups,
    licence_pressure,
    prematch,
)
from schedlab.policies.grid.convergent.knapsack import eilon_weights, unit_values
from schedlab.policies.grid.convergent.table5 import licence_usage, table5, table5_markdown


def test_rho_is_requests_over_copies_and_critical_means_above_one():
    needs = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 0]], dtype=bool)
    copies = np.array([1, 2, 0])
    assert licence_pressure(needs, copies).tolist() == [2.0, 1.0, 0.0]   # no copy: a feature
    assert critical_licences(needs, copies).tolist() == [True, False, False]


def test_groups_are_components_of_shared_critical_licences():
    # jobs: {a, b}, {b, c}, {c}, {d}, {}
    needs = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]],
                     dtype=bool)
    assert licence_groups(needs, [True, True, True, True]).tolist() == [0, 0, 0, 1, -1]
    # b no longer critical: the group splits
    assert licence_groups(needs, [True, False, True, True]).tolist() == [0, 1, 1, 2, -1]
    # only d critical: the others need no critical licence
    assert licence_groups(needs, [False, False, False, True]).tolist() == [-1, -1, -1, 0, -1]


def test_eilon_surrogate_weight():
    demand = np.array([[1, 1], [1, 0], [0, 1]], dtype=bool)
    capacity = np.array([1, 2])
    assert eilon_weights(demand, capacity, np.array([True, True])).tolist() == [1.5, 1.0, 0.5]
    assert eilon_weights(demand, capacity, np.array([True, False])).tolist() == [1.0, 1.0, 0.0]


def test_greedy_recomputes_the_weights_after_a_discard():
    # A (1 copy), B (2 copies).  Unit costs: i1 9, i0 10/1.5, i2 and i3 1/0.5.
    # i1 taken, i0 discarded (A full); then A and B are no longer critical
    # (alive demand 1 <= 1, 2 <= 2): i2 and i3 come at infinite unit cost and fit.
    values = [10.0, 9.0, 1.0, 1.0]
    demand = np.array([[1, 1], [1, 0], [0, 1], [0, 1]], dtype=bool)
    result = greedy_knapsack(values, demand, [1, 2])
    assert result.taken.tolist() == [False, True, True, True]
    assert result.value == 11.0 and result.used.tolist() == [1, 2]
    assert exact_knapsack(values, demand, [1, 2]).value == 11.0


def test_greedy_can_miss_the_optimum():
    # one copy each of A and B; i0 needs A (value 4), i1 and i2 need A and B (5, 3).
    # Unit costs 4/1, 5/2, 3/2: i0 is taken, i1 and i2 no longer fit.  The optimum is i1.
    values = [4.0, 5.0, 3.0]
    demand = np.array([[1, 0], [1, 1], [1, 1]], dtype=bool)
    greedy = greedy_knapsack(values, demand, [1, 1])
    exact = exact_knapsack(values, demand, [1, 1])
    assert greedy.taken.tolist() == [True, False, False] and greedy.value == 4.0
    assert exact.taken.tolist() == [False, True, False] and exact.value == 5.0


def test_unit_values_are_row_means_of_positive_entries():
    matrix = np.array([[2.0, 0.0, 4.0], [0.0, 0.0, 0.0]])
    assert unit_values(matrix).tolist() == [3.0, 0.0]


def test_prematch_discards_rows_in_each_group():
    matrix = np.array([[5.0, 5.0], [1.0, 1.0], [3.0, 0.0], [2.0, 2.0]])
    needs = np.array([[1, 0], [1, 0], [0, 0], [0, 1]], dtype=bool)
    result = prematch(matrix, needs, [1, 1])                  # licence 0 critical (2 > 1)
    assert result.critical.tolist() == [True, False]
    assert result.groups.tolist() == [0, 0, -1, -1]
    assert result.kept.tolist() == [True, False, True, True]
    assert result.matrix.tolist() == [[5.0, 5.0], [0.0, 0.0], [3.0, 0.0], [2.0, 2.0]]
    assert prematch(matrix, needs, [1, 1], method="exact").kept.tolist() == \
        result.kept.tolist()


def test_prematch_keeps_the_fixed_jobs_and_chooses_among_the_others():
    """One copy each of A and B.  R (runs, needs A, value 1), Q1 (A and B, value 10), Q2 (B,
    value 3).  Free choice: Q1 first (unit cost 5), Q2 no longer fits, then R: only Q1 is
    kept, and it cannot start while R holds A.  With R fixed (running, no preemption) A has
    no copy left: Q1 is set aside and Q2 takes B."""
    matrix = np.array([[1.0], [10.0], [3.0]])
    needs = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    for method in ("greedy", "exact"):
        assert prematch(matrix, needs, [1, 1], method).kept.tolist() == [False, True, False]
        fixed = prematch(matrix, needs, [1, 1], method, fixed=np.array([True, False, False]))
        assert fixed.kept.tolist() == [True, False, True]


def test_prematch_method_is_checked():
    with pytest.raises(InputError) as err:
        prematch(np.ones((1, 1)), np.zeros((1, 1), bool), [1], method="dp")
    assert err.value.field == "knapsack"


# ------------------------------------------------------------------ properties
@st.composite
def knapsacks(draw, max_items=9, max_resources=4):
    n = draw(st.integers(1, max_items))
    r = draw(st.integers(1, max_resources))
    values = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    demand = draw(st.lists(st.lists(st.booleans(), min_size=r, max_size=r),
                           min_size=n, max_size=n))
    capacity = draw(st.lists(st.integers(1, 4), min_size=r, max_size=r))
    return np.array(values, float), np.array(demand, bool), np.array(capacity)


@settings(max_examples=150, deadline=None)
@given(knapsacks())
def test_greedy_never_exceeds_capacity_and_milp_is_never_worse(problem):
    values, demand, capacity = problem
    greedy = greedy_knapsack(values, demand, capacity)
    exact = exact_knapsack(values, demand, capacity)
    assert (demand[greedy.taken].sum(axis=0) <= capacity).all()
    assert (demand[exact.taken].sum(axis=0) <= capacity).all()
    assert exact.value >= greedy.value - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=12), st.integers(1, 6))
def test_one_licence_equal_weights_greedy_is_optimal(values, copies):
    # every job needs the one licence: the greedy takes the best `copies` values
    values = np.array(values, float)
    demand = np.ones((len(values), 1), dtype=bool)
    greedy = greedy_knapsack(values, demand, [copies])
    exact = exact_knapsack(values, demand, [copies])
    assert greedy.value == pytest.approx(exact.value)
    assert greedy.value == pytest.approx(np.sort(values)[::-1][:copies].sum())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 30)), min_size=1, max_size=12),
       st.lists(st.integers(1, 3), min_size=4, max_size=4))
def test_disjoint_single_licence_jobs_greedy_is_optimal(jobs, capacity):
    # each job needs exactly one licence: separate knapsacks of equal weights
    values = np.array([v for _, v in jobs], float)
    demand = np.zeros((len(jobs), 4), dtype=bool)
    demand[np.arange(len(jobs)), [l for l, _ in jobs]] = True
    greedy = greedy_knapsack(values, demand, capacity)
    assert greedy.value == pytest.approx(exact_knapsack(values, demand, capacity).value)


def test_licence_usage_counts_copies_of_critical_licences():
    needs = np.array([[1, 1], [1, 0], [0, 1]], dtype=bool)
    copies = np.array([2, 4])
    critical = np.array([True, True])
    assert licence_usage(needs, copies, np.array([True, False, True]), critical) == 3 / 6
    assert licence_usage(needs, copies, np.ones(3, bool), np.array([False, False])) == 1.0


def test_table5_rows_per_ratio_and_method():
    rows = table5(ratios=[(0.40, 0.45)], instances=2, n_jobs=120, seed=3)
    assert [(r.ratio, r.method) for r in rows] == [((0.40, 0.45), "greedy"),
                                                   ((0.40, 0.45), "exact")]
    greedy, exact = rows
    assert exact.value_vs_exact == 1.0 and exact.unproven == 0
    assert 0 < greedy.value_vs_exact <= 1.0
    assert 0 < greedy.smallest <= greedy.average <= greedy.best <= 1.0
    table = table5_markdown(rows)
    assert table.count("\n") == 3 and "| [40% - 45%] | greedy | 2 |" in table


def recomputing_greedy(values, demand, capacity) -> np.ndarray:
    """The thesis' greedy read literally: after every discard the critical resources, the
    weights and the order of the items not yet visited are all recomputed (the reference
    for :func:`greedy_knapsack`, which recomputes only when a resource stops being critical)."""
    n = len(values)
    taken = np.zeros(n, dtype=bool)
    alive = np.ones(n, dtype=bool)
    used = np.zeros_like(capacity)
    pending = np.arange(n)
    while pending.size:
        critical = demand[alive].sum(axis=0) > capacity
        weight = eilon_weights(demand, capacity, critical)
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(weight > 0, values / weight, np.inf)
        pending = pending[np.lexsort((pending, -unit[pending]))]
        for k, i in enumerate(pending.tolist()):
            if (used + demand[i] <= capacity).all():
                taken[i] = True
                used += demand[i]
                continue
            alive[i] = False
            pending = pending[k + 1:]
            break
        else:
            break
    return taken


@settings(max_examples=300, deadline=None)
@given(knapsacks(max_items=30, max_resources=5))
def test_greedy_takes_what_recomputing_after_every_discard_takes(problem):
    values, demand, capacity = problem
    assert (greedy_knapsack(values, demand, capacity).taken.tolist()
            == recomputing_greedy(values, demand, capacity).tolist())


def components_groups(needs: np.ndarray, critical: np.ndarray) -> list[int]:
    """The groups as connected components of the bipartite graph jobs -- critical licences
    (scipy's), numbered by first job: the reference for :func:`licence_groups`."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = needs.shape[0]
    jobs, licences = np.nonzero(needs[:, critical])
    size = n + int(critical.sum())
    graph = coo_matrix((np.ones(len(jobs)), (jobs, n + licences)), shape=(size, size))
    _, component = connected_components(graph, directed=False)
    labels, renumber = [-1] * n, {}
    for i in sorted(set(jobs.tolist())):
        labels[i] = renumber.setdefault(int(component[i]), len(renumber))
    return labels


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 25).flatmap(lambda n: st.integers(1, 7).flatmap(lambda r: st.tuples(
    st.lists(st.lists(st.booleans(), min_size=r, max_size=r), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=r, max_size=r)))))
def test_groups_are_the_components_of_the_job_licence_graph(problem):
    needs, critical = (np.array(part, dtype=bool) for part in problem)
    assert licence_groups(needs, critical).tolist() == components_groups(needs, critical)
