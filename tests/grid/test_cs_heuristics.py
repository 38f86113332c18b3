"""Convergent Scheduling's Job-Machine matrix: each heuristic on a hand-checked cluster."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.platform.generator import PRESETS as PLATFORMS
from schedlab.platform.generator import generate_platform
from schedlab.policies.grid.convergent import ClusterState, Weights, job_machine_matrix
from schedlab.policies.grid.convergent.heuristics import (
    DEADLINE_LATE,
    HEURISTICS,
    WAIT_SUP,
    anti_aging,
    deadline,
    deadline_f1,
    input_data,
    licence_weight,
    licences,
    overhead_minimization,
    wait_minimization,
)
from schedlab.policies.grid.convergent.knapsack import unit_values
from schedlab.policies.grid.convergent.matrix import eligible_pairs
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import generate_grid

NAN = math.nan


def small_cluster(**changes) -> ClusterState:
    """Two jobs, three machines, one floating licence (1 copy, usable on m0 and m1).

    job 0: 2 CPUs, 400 s left at rating 200, deadline 1000, needs the licence,
    queued, input 100 on the storage; job 1: 4 CPUs, 800 s at rating 100, no
    deadline, runs on m2 where its input (60) is.  now = 100.
    """
    fields = dict(now=100, estimate_left=[400, 800], job_rating=[200, 100], width=[2, 4],
                  submit=[0, 50], deadline=[1000, NAN], needs=[[True], [False]],
                  machine=[-1, 2], input_size=[100, 60], input_location=[-1, 2],
                  cpus=[4, 2, 4], rating=[100, 200, 400], bandwidth=[1.0, 1.0, 2.0],
                  usable=[[True, True, False]], copies=[1])
    fields.update(changes)
    return ClusterState(**fields)


def test_minimal_requirements_cpus_and_licences():
    assert eligible_pairs(small_cluster()).tolist() == [[True, True, False], [True, False, True]]


def test_deadline_f1_has_three_pieces():
    w = Weights()
    f1 = deadline_f1(small_cluster(), w)
    # job 0 on m0: Nxtime 800, T = 1000 - 1.3*800 = -40, Extime 900: on the line
    assert f1[0, 0] == pytest.approx(9.9 / 1040 * 940 + 0.1)
    # on m1: Nxtime 400, T = 480, Extime 500
    assert f1[0, 1] == pytest.approx(9.9 / 520 * 20 + 0.1)
    # on m2: Nxtime 200, T = 740, Extime 300 <= T: Min
    assert f1[0, 2] == pytest.approx(0.1)
    late = deadline_f1(small_cluster(now=950), w)         # Extime 1750 > deadline: Max
    assert late[0, 0] == pytest.approx(10.0)
    printed = deadline_f1(small_cluster(now=950), Weights(deadline_late="min"))
    assert printed[0, 0] == pytest.approx(0.1)            # the formula as printed: Min again
    assert np.isnan(f1[1]).all()


def test_deadline_gives_no_share_to_a_machine_that_would_miss_the_deadline():
    """now = 300: on m0 (Nxtime 800) job 0 would end at 1100, past its deadline 1000; on m1
    (Nxtime 400, T = 480) at 700, in time.  f_1 = (Max, 0.1 + 9.9 x 220/520), f1bar =
    (0, 10 - f_1[m1]): the whole urgency goes to m1.  As printed (f_1 = Min past the
    deadline) m0 would get the larger share, f1bar = 9.9 against 5.71."""
    state = small_cluster(now=300)
    eligible = eligible_pairs(state)
    on_m1 = 0.1 + 9.9 * 220 / 520
    delta = deadline(state, eligible, Weights())
    assert delta[0, :2] == pytest.approx([0.0, 10.0 + on_m1])
    printed = deadline(state, eligible, Weights(deadline_late="min"))
    spare = np.array([9.9, 10.0 - on_m1])
    assert printed[0, :2] == pytest.approx((0.1 + on_m1) * spare / spare.sum())
    assert printed[0, 0] > printed[0, 1]


def test_deadline_shares_the_urgency_by_spare_f1bar():
    state = small_cluster()
    f0, f1 = 9.9 / 1040 * 940 + 0.1, 9.9 / 520 * 20 + 0.1
    spare = np.array([10 - f0, 10 - f1])
    expected = (f0 + f1) * spare / spare.sum()               # eq. 3.10
    delta = deadline(state, eligible_pairs(state), Weights())
    assert delta[0, :2] == pytest.approx(expected)
    assert delta[0, 2] == 0 and (delta[1] == 0).all()        # not eligible; no deadline


def test_licence_weight_counts_critical_licences_times_L():
    # rho = (2/1, 2/2): licence 0 critical, |L| = 2
    state = ClusterState(now=0, estimate_left=[1, 1, 1], job_rating=[1, 1, 1], width=[1, 1, 1],
                         submit=[0, 0, 0], deadline=[NAN] * 3,
                         needs=[[True, False], [True, True], [False, True]], machine=[-1] * 3,
                         input_size=[0] * 3, input_location=[-1] * 3, cpus=[1], rating=[1],
                         bandwidth=[1.0], usable=[[True], [True]], copies=[1, 2])
    assert licence_weight(state).tolist() == [4.0, 5.0, 1.0]
    delta = licences(state, eligible_pairs(state), Weights())
    assert delta[:, 0].tolist() == pytest.approx([2.0, 2.5, 0.5])


def test_input_favours_the_machine_holding_the_data():
    state = small_cluster()
    delta = input_data(state, eligible_pairs(state), Weights())
    np.testing.assert_allclose(delta, [[1.5, 1.5, 0.0], [0.0, 0.0, 3.0]])


def test_wait_minimization_per_job_or_overall():
    state = small_cluster()
    eligible = eligible_pairs(state)
    np.testing.assert_allclose(wait_minimization(state, eligible, Weights()),
                               [[0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    shorter = small_cluster(estimate_left=[200, 800])        # Nxtime of job 0: 400, 200
    per_job = wait_minimization(shorter, eligible, Weights())
    overall = wait_minimization(shorter, eligible, Weights(wait_sup="all"))
    assert per_job[0, :2].tolist() == pytest.approx([0.0, 2.0])
    assert overall[0, :2].tolist() == pytest.approx([2.0, 3.0])     # sup = 800 (job 1)


def test_overhead_and_anti_aging():
    state = small_cluster()
    eligible = eligible_pairs(state)
    assert overhead_minimization(state, eligible, Weights(overhead=800.0)).tolist() == \
        [[0, 0, 0], [0, 0, 800.0]]
    np.testing.assert_allclose(anti_aging(state, eligible, Weights()),
                               [[2.0, 2.0, 0.0], [1.0, 0.0, 1.0]])


def test_the_matrix_is_the_sum_of_the_seven_heuristics():
    f0, f1 = 9.9 / 1040 * 940 + 0.1, 9.9 / 520 * 20 + 0.1
    spare = np.array([10 - f0, 10 - f1])
    d = (f0 + f1) * spare / spare.sum()
    expected = [[0.01 + d[0] + 2.5 + 1.5 + 0.0 + 2.0, 0.01 + d[1] + 2.5 + 1.5 + 2.0 + 2.0, 0.0],
                [0.01 + 1.0, 0.0, 0.01 + 3.0 + 3.0 + 8.0 + 1.0]]
    matrix = job_machine_matrix(small_cluster())
    assert matrix.dtype == np.float64
    np.testing.assert_allclose(matrix, expected)


@pytest.mark.parametrize("name, value", [
    ("deadline_late", "never"), ("deadline_min", -0.1), ("deadline_max", 0.1),
    ("deadline_k", 0.9), ("licences", -1.0),
    ("input", math.inf), ("wait", "4"), ("overhead", -8.0), ("age_factor", math.nan),
    ("base", 0.0), ("wait_sup", "max")])
def test_weights_outside_their_domain_name_the_parameter(name, value):
    with pytest.raises(InputError) as err:
        Weights(**{name: value})
    assert err.value.field == name


def test_bandwidth_must_be_positive():
    with pytest.raises(InputError) as err:
        small_cluster(bandwidth=[1.0, 0.0, 1.0])
    assert err.value.field == "bandwidth"


def test_from_grid_matches_the_platform_and_is_positive_exactly_where_eligible():
    platform = generate_platform(PLATFORMS["thesis-4.2"], seed=3)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=60, interarrival=10, seed=3)
    state = ClusterState.from_grid(grid, platform, 0, now=600, jobs=range(60))
    matrix = job_machine_matrix(state)
    assert matrix.shape == (60, 150)
    assert ((matrix > 0) == eligible_pairs(state)).all()
    assert (eligible_pairs(state).any(axis=1)).all()          # every generated job can run


@st.composite
def cluster_states(draw):
    """Clusters of up to 40 jobs on up to 300 machines (rows longer than numpy's pairwise
    blocks of 128), with deadlines, licences, running jobs and inputs anywhere."""
    n, m, licences = draw(st.integers(1, 40)), draw(st.integers(1, 300)), draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    width = rng.integers(1, 9, n)
    deadline = np.where(rng.random(n) < 0.7, rng.uniform(0, 5000, n), NAN)
    machine = np.where(rng.random(n) < 0.3, rng.integers(0, m, n), -1)
    location = np.where(rng.random(n) < 0.5, rng.integers(0, m, n), -1)
    return ClusterState(now=float(draw(st.integers(0, 4000))),
                        estimate_left=rng.uniform(0, 3000, n) * (rng.random(n) < 0.9),
                        job_rating=rng.uniform(50, 500, n), width=width,
                        submit=rng.uniform(0, 4000, n), deadline=deadline,
                        needs=rng.random((n, licences)) < 0.3, machine=machine,
                        input_size=rng.uniform(0, 100, n), input_location=location,
                        cpus=rng.integers(1, 9, m), rating=rng.uniform(50, 500, m),
                        bandwidth=rng.uniform(0.5, 5, m), usable=rng.random((licences, m)) < 0.8,
                        copies=rng.integers(0, 4, licences))


@settings(max_examples=200, deadline=None)
@given(state=cluster_states(), late=st.sampled_from(DEADLINE_LATE),
       sup=st.sampled_from(WAIT_SUP), k=st.floats(1.0, 3.0))
def test_the_compiled_matrix_is_the_heuristics_summed_in_numpy_to_the_last_bit(
        state, late, sup, k):
    weights = Weights(deadline_late=late, wait_sup=sup, deadline_k=k)
    eligible = eligible_pairs(state)
    summed = np.zeros(eligible.shape)
    for heuristic in HEURISTICS:
        summed += heuristic(state, eligible, weights)
    summed[~eligible] = 0.0
    assert job_machine_matrix(state, weights).tobytes() == summed.tobytes()
    positive = summed > 0
    total = np.where(positive, summed, 0.0).sum(axis=1)
    count = positive.sum(axis=1)
    means = np.divide(total, count, out=np.zeros(len(total)), where=count > 0)
    assert unit_values(summed).tobytes() == means.tobytes()


@settings(max_examples=200, deadline=None)
@given(shape=st.tuples(st.integers(0, 30), st.integers(1, 20), st.integers(0, 6)),
       seed=st.integers(0, 2 ** 32 - 1))
def test_eligible_pairs_is_the_plain_licence_product_and_cpu_test(shape, seed):
    """The compiled mask against its plain form: a job is blocked on a machine where it
    needs a licence the machine lacks (a product of the two masks), or is too wide."""
    from schedlab.policies.grid.convergent.kernels import eligible

    n, m, licences = shape
    rng = np.random.default_rng(seed)
    needs = rng.random((n, licences)) < 0.3
    usable = rng.random((licences, m)) < 0.7
    cpus = rng.integers(1, 9, m)
    width = rng.integers(1, 9, n)
    plain = ((needs.astype(np.int64) @ (~usable).astype(np.int64)) == 0) \
        & (cpus[None, :] >= width[:, None])
    assert eligible(needs, usable, cpus, width).tolist() == plain.tolist()
