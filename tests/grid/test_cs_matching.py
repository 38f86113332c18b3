"""Convergent Scheduling's matching: MIS, MFS (against a brute force) and incremental MFS."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.policies.grid.convergent import IncrementalMatcher, mfs, mis, scratch_work
from schedlab.policies.grid.convergent.matching import matching_rounds


def brute_force(matrix: np.ndarray) -> tuple[int, float]:
    """(cardinality, weight) of the best matching: most pairs, then most weight."""
    n, m = matrix.shape
    best = (0, 0.0)
    for k in range(min(n, m), 0, -1):
        for rows in itertools.combinations(range(n), k):
            for columns in itertools.permutations(range(m), k):
                if all(matrix[i, j] > 0 for i, j in zip(rows, columns)):
                    weight = float(sum(matrix[i, j] for i, j in zip(rows, columns)))
                    best = max(best, (k, weight))
        if best[0]:
            return best
    return best


matrices = st.integers(0, 4).flatmap(lambda n: st.integers(0, 4).flatmap(
    lambda m: st.lists(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 3.5, 7.0, 20.0]),
                                min_size=m, max_size=m), min_size=n, max_size=n)
    .map(lambda rows: np.array(rows, dtype=float).reshape(n, m))))


def check_matching(matrix, matching):
    assert len(set(matching.rows.tolist())) == matching.size
    assert len(set(matching.columns.tolist())) == matching.size
    assert (matrix[matching.rows, matching.columns] > 0).all()


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_mfs_is_maximum_cardinality_then_maximum_weight(matrix):
    result = mfs(matrix)
    check_matching(matrix, result)
    size, weight = brute_force(matrix)
    assert result.size == size
    assert result.weight == pytest.approx(weight)


@settings(max_examples=200, deadline=None)
@given(matrices)
def test_mis_is_a_valid_maximal_matching_no_better_than_mfs(matrix):
    result = mis(matrix)
    check_matching(matrix, result)
    free_rows = np.setdiff1d(np.arange(matrix.shape[0]), result.rows)
    free_columns = np.setdiff1d(np.arange(matrix.shape[1]), result.columns)
    assert not (matrix[np.ix_(free_rows, free_columns)] > 0).any()      # maximal
    assert result.size <= mfs(matrix).size


def test_mis_takes_the_largest_entry_first_and_may_idle_a_machine():
    matrix = np.array([[3.0, 2.0], [1.0, 0.0]])
    greedy = mis(matrix)
    assert greedy.rows.tolist() == [0] and greedy.columns.tolist() == [0] and greedy.weight == 3
    best = mfs(matrix)
    assert best.machine_of(2).tolist() == [1, 0] and best.weight == 3.0


def test_mfs_prefers_one_more_pair_to_more_weight():
    matrix = np.array([[100.0, 1.0], [1.0, 0.0]])
    assert mfs(matrix).size == 2 and mfs(matrix).weight == 2.0


@st.composite
def update_sequences(draw):
    """A machine count and a sequence of (keys, matrix): jobs arrive, leave, change."""
    m = draw(st.integers(1, 5))
    values = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.0, 5.0, 8.0])
    row = st.lists(values, min_size=m, max_size=m)
    rows = {k: draw(row) for k in range(draw(st.integers(0, 6)))}
    next_key = len(rows)
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        for _ in range(draw(st.integers(0, 3))):
            action = draw(st.sampled_from(["add", "remove", "change", "shift"]))
            if action == "add" or not rows:
                rows[next_key] = draw(row)
                next_key += 1
            elif action == "remove":
                del rows[draw(st.sampled_from(sorted(rows)))]
            elif action == "change":
                rows[draw(st.sampled_from(sorted(rows)))] = draw(row)
            else:                                  # anti-aging: every eligible entry grows
                delta = draw(st.sampled_from([0.5, 1.0]))
                rows = {k: [x + delta if x > 0 else 0.0 for x in r] for k, r in rows.items()}
        keys = sorted(rows, key=lambda k: draw(st.integers(0, 3)) * 100 + k)
        steps.append((keys, np.array([rows[k] for k in keys], dtype=float).reshape(-1, m)))
    return steps


@settings(max_examples=200, deadline=None)
@given(update_sequences())
def test_incremental_mfs_equals_mfs_on_every_update(steps):
    matcher = IncrementalMatcher()
    for keys, matrix in steps:
        result = matcher.match(matrix, keys)
        check_matching(matrix, result)
        best = mfs(matrix)
        assert result.size == best.size
        assert result.weight == pytest.approx(best.weight)


def test_incremental_mfs_augments_only_from_the_changed_rows():
    rng = np.random.default_rng(7)
    matrix = np.where(rng.random((40, 25)) < 0.4, rng.uniform(1, 10, (40, 25)), 0.0)
    matcher = IncrementalMatcher()
    first = matcher.match(matrix, keys=range(40))
    assert matcher.augmentations == 40 and matcher.cold_starts == 1   # one per row of 40 x 40
    changed = matrix.copy()
    changed[3] = np.where(changed[3] > 0, changed[3] * 0.5, 0.0)
    second = matcher.match(changed, keys=range(40))
    assert matcher.augmentations == 41 and matcher.cold_starts == 1
    assert second.weight == pytest.approx(mfs(changed).weight)
    assert first.size == second.size == mfs(matrix).size
    # a new job and one that left: at most two augmentations
    arrived = np.vstack([changed[1:], rng.uniform(1, 10, (1, 25))])
    matcher.match(arrived, keys=[*range(1, 40), 40])
    assert matcher.augmentations <= 43


def test_incremental_mfs_keys_must_be_distinct():
    with pytest.raises(ValueError):
        IncrementalMatcher().match(np.ones((2, 2)), keys=[1, 1])


def test_matching_rounds_one_job_per_machine_a_round():
    """Round 1 (MFS): two pairs beat one, J0-m0 + J1-m1 (6) beats J1-m0 + J0-m1 (5); every
    job is placed, so there is no round 2, though m0 has room for both."""
    plan = matching_rounds(np.array([[5.0, 1.0], [4.0, 1.0]]), [2, 2], [4, 4])
    assert plan.machine_of(2).tolist() == [0, 1]


def test_matching_rounds_over_slots_fill_the_preferred_machine():
    """Slots: m0 has room for two 2-CPU jobs, m1 too; both on m0 (9) beat one on each (6)."""
    plan = matching_rounds(np.array([[5.0, 1.0], [4.0, 1.0]]), [2, 2], [4, 4], slots=True)
    assert plan.machine_of(2).tolist() == [0, 0]
    assert plan.weight == 9.0


def test_matching_rounds_never_overfill_a_machine():
    """Slots of the narrowest job (2 CPUs): m0 gets two, but J0 (3 CPUs, entry 5) takes 3 of
    its 4 and J1 (2 CPUs) no longer fits; round 2 places J1 on m1.  Without slots: round 1
    J0-m0 + J1-m1, the same."""
    matrix = np.array([[5.0, 1.0], [4.0, 1.0]])
    for slots in (True, False):
        plan = matching_rounds(matrix, [3, 2], [4, 4], slots=slots)
        assert plan.machine_of(2).tolist() == [0, 1]


def test_matching_rounds_continue_while_a_machine_has_room():
    """One machine of 4 CPUs, three 1-CPU jobs and one of 2: round 1 places the best entry
    (J3), round 2 the next (J2), round 3 J0; J1 (2 CPUs) never fits the 1 CPU left."""
    matrix = np.array([[2.0], [1.5], [3.0], [4.0]])
    plan = matching_rounds(matrix, [1, 2, 1, 1], [4])
    assert plan.machine_of(4).tolist() == [0, -1, 0, 0]


@settings(max_examples=60, deadline=None)
@given(matrix=matrices, data=st.data())
def test_matching_rounds_respect_the_rooms(matrix, data):
    n, m = matrix.shape
    width = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=int)
    room = np.array(data.draw(st.lists(st.integers(0, 6), min_size=m, max_size=m)), dtype=int)
    for slots in (True, False):
        plan = matching_rounds(matrix, width, room, slots=slots)
        assert (matrix[plan.rows, plan.columns] > 0).all()
        assert len(set(plan.rows.tolist())) == plan.size
        used = np.bincount(plan.columns, weights=width[plan.rows], minlength=m)
        assert (used <= room).all()
        # nothing left out fits anywhere it is eligible
        machine = plan.machine_of(n)
        left = room - used
        for i in np.flatnonzero(machine < 0):
            assert not ((matrix[i] > 0) & (width[i] <= left)).any()


def test_scratch_work_counts_the_same_method_started_cold_by_hand():
    """From scratch the counter pads to K x K and grows one path per row.  ``[[3, 1], [1,
    3]]``: 4 entries given, K^2 = 4, two paths of one row scan (2 entries): 12.  One job on
    three machines ``[[1, 2, 0]]``, K = 3: 3 given, 9, then 3 paths (the job's and two
    padding rows') of one row scan (3 entries) each: 21."""
    assert scratch_work(np.array([[3.0, 1.0], [1.0, 3.0]])) == (2, 12)
    assert scratch_work(np.array([[1.0, 2.0, 0.0]])) == (3, 21)


def test_incremental_mfs_counts_its_paths_and_the_entries_it_touches_by_hand():
    """2 jobs x 2 machines, ``[[3, 1], [1, 3]]``, K = 2.  Cold: the 4 entries given, K^2 = 4
    for the first potentials, then each row's path ends at its own free column after one
    row scan (2 entries): 2 paths, 12 entries.  The same matrix again: 4 given, 4
    compared, no path.  Row 1 changed: 4 given, 4 compared, 2 to re-price it, still tight
    on its column, no path.  A new job in row 1: 4 given, 2 compared (row 0), 2 to price
    the new row, one path of one row scan (2): 1 path, 10 entries."""
    matcher = IncrementalMatcher()
    first = np.array([[3.0, 1.0], [1.0, 3.0]])
    work = []
    for matrix, keys in ((first, [0, 1]), (first, [0, 1]),
                         (np.array([[3.0, 1.0], [1.0, 5.0]]), [0, 1]), (first, [0, 2])):
        before = matcher.augmentations, matcher.entries_touched
        plan = matcher.match(matrix, keys=keys)
        assert plan.size == 2 and plan.weight == mfs(matrix).weight
        work.append((matcher.augmentations - before[0], matcher.entries_touched - before[1]))
    assert work == [(2, 12), (0, 8), (0, 10), (1, 10)]
    assert work[0] == scratch_work(first)        # a cold start is the count from scratch


# ------------------------------------------------------------------ compiled against plain

def plain_mfs(matrix):
    """MFS as numpy and scipy give it with no compiled help: the lifted matrix, maximized."""
    from scipy.optimize import linear_sum_assignment

    from schedlab.policies.grid.convergent.matching import cardinality_premium

    eligible = matrix > 0
    lifted = np.where(eligible, matrix + cardinality_premium(matrix), 0.0)
    rows, columns = linear_sum_assignment(lifted, maximize=True)
    keep = eligible[rows, columns]
    return rows[keep].tolist(), columns[keep].tolist()


#: Wide and tall matrices of few distinct values: many equal-weight plans to choose from.
tied_matrices = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2 ** 32 - 1)) \
    .map(lambda shape: np.random.default_rng(shape[2]).choice(
        [0.0, 0.0, 1.0, 1.0, 2.5, 1e-9], size=shape[:2]))


@settings(max_examples=300, deadline=None)
@given(tied_matrices)
def test_mfs_picks_the_pairs_scipy_picks_on_the_lifted_matrix(matrix):
    plan = mfs(matrix)
    assert (plan.rows.tolist(), plan.columns.tolist()) == plain_mfs(matrix)


def plain_augment(cost, u, v, col4row, row4col, start):
    """:meth:`IncrementalMatcher._augment` in numpy (what the compiled path must equal);
    returns the rows scanned."""
    size = cost.shape[0]
    shortest = np.full(size, np.inf)
    path = np.full(size, -1, dtype=np.int64)
    done = np.zeros(size, dtype=bool)
    visited = []
    row, best = start, 0.0
    while True:
        visited.append(row)
        reduced = best + cost[row] - u[row] - v
        better = ~done & (reduced < shortest)
        path[better] = row
        shortest[better] = reduced[better]
        open_cost = np.where(done, np.inf, shortest)
        best = float(open_cost.min())
        ties = np.flatnonzero(open_cost == best)
        free = ties[row4col[ties] < 0]
        col = int(free[0] if free.size else ties[0])
        done[col] = True
        if row4col[col] < 0:
            break
        row = int(row4col[col])
    u[start] += best
    for r in visited[1:]:
        u[r] += best - shortest[col4row[r]]
    v[done] -= best - shortest[done]
    while True:
        row = int(path[col])
        row4col[col] = row
        col4row[row], col = col, int(col4row[row])
        if row == start:
            break
    return len(visited)


class PlainMatcher(IncrementalMatcher):
    """IMFS with the plain augmenting path, on the square problem written out."""

    def _augment(self, cost, size, u, v, col4row, row4col, start):
        square = np.zeros((size, size))
        square[:cost.shape[0], :cost.shape[1]] = cost
        scanned = plain_augment(square, u, v, col4row, row4col, start)
        self.augmentations += 1
        self.scanned_rows += scanned
        self.entries_touched += scanned * size


@settings(max_examples=200, deadline=None)
@given(update_sequences())
def test_incremental_mfs_keeps_the_plain_paths_pairs_potentials_and_counts(steps):
    compiled, plain = IncrementalMatcher(), PlainMatcher()
    for keys, matrix in steps:
        matrix = np.where(matrix > 0, matrix * 0.7321 + 0.1379, 0.0)    # sums that round
        a, b = compiled.match(matrix, keys), plain.match(matrix, keys)
        assert (a.rows.tolist(), a.columns.tolist()) == (b.rows.tolist(), b.columns.tolist())
        assert compiled._u.tobytes() == plain._u.tobytes()
        assert compiled._v.tobytes() == plain._v.tobytes()
        assert compiled._col4row.tolist() == plain._col4row.tolist()
        assert (compiled.augmentations, compiled.scanned_rows, compiled.entries_touched) \
            == (plain.augmentations, plain.scanned_rows, plain.entries_touched)
