"""The Tsafrir-Etsion-Feitelson user estimate model, step by step, with hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.workload.models.estimates import (
    DEFAULT_MAX_ESTIMATE,
    HOUR,
    MINUTE,
    TIME_RANK_TO_POPULARITY_RANK,
    add_estimates,
    assign_estimates,
    equalize_counts,
    estimate_histogram,
    estimate_value_count,
    head_estimate_times,
    head_percentages,
    popularity_ranks,
    tail_estimate_times,
    tail_percentages,
)


@pytest.mark.parametrize("n_jobs, values", [
    (1, 1),            # 1 * 10/20 = 0.5, rounded half up
    (20, 10),          # a table point
    (500, 26),         # 20 + 300 * 15/800 = 25.625
    (10_000, 90),      # a table point
    (40_000, 215),     # 90 + 30,000 * 250/60,000
    (300_000, 565),    # constant beyond 250,000 jobs
])
def test_number_of_estimate_values_is_the_piecewise_linear_model(n_jobs, values):
    assert estimate_value_count(n_jobs) == values


def test_head_values_for_a_48_hour_limit():
    # The maximum, the 15 joint values, then multiples of 10 h (40, 30, 20 h;
    # 10 h is already there) and of 5 h (45 h) down from 48 h.
    hours = [48, 5 / 60, 10 / 60, 15 / 60, 20 / 60, 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 12, 18,
             20, 30, 40, 45]
    assert head_estimate_times(48 * HOUR).tolist() == [round(h * HOUR) for h in hours]


def test_head_values_for_a_two_hour_limit():
    # Joint values below 2 h: 5, 10, 15, 20, 30, 60 min; then multiples of
    # 20 min (100, 80, 40), 10 min (110, 90, 70, 50) and 5 min (115 ... 65).
    minutes = [120, 5, 10, 15, 20, 30, 40, 50, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105,
               110, 115]
    assert head_estimate_times(2 * HOUR).tolist() == [m * MINUTE for m in minutes]


def test_head_percentages_follow_the_exponential_model():
    sizes = head_percentages()
    assert len(sizes) == 20
    assert sizes.sum() == pytest.approx(89.0)
    assert sizes[1] == pytest.approx(14.0491 * math.exp(-0.177531 * 2) + 0.462513)
    assert sizes[1] == pytest.approx(10.3128, abs=1e-4)
    assert sizes[0] == pytest.approx(21.7329, abs=1e-4)  # 89 - 67.2671
    assert np.all(np.diff(sizes) < 0)


def test_popularity_table_columns_are_rankings():
    for column in TIME_RANK_TO_POPULARITY_RANK.T:
        assert sorted(column.tolist()) == list(range(1, 21))


def test_popularity_ranks_are_a_permutation_respecting_the_traces():
    table = TIME_RANK_TO_POPULARITY_RANK
    first_time_rank = {r: min(t for t in range(20) if r in table[t]) for r in range(1, 21)}
    last_time_rank = {r: max(t for t in range(20) if r in table[t]) for r in range(1, 21)}
    seen = set()
    for seed in range(60):
        ranks = popularity_ranks(np.random.default_rng(seed)).tolist()
        seen.add(tuple(ranks))
        assert sorted(ranks) == list(range(1, 21))
        assert ranks[0] == 1  # the maximal estimate is the most popular
        for time_rank, rank in enumerate(ranks):
            # Only a rank some trace shows at this time rank or earlier ...
            assert first_time_rank[rank] <= time_rank
            # ... and an overdue rank (no trace has it later) goes first.
            overdue = [r for r in range(1, 21)
                       if last_time_rank[r] <= time_rank and r not in ranks[:time_rank]]
            if overdue:
                assert rank == overdue[0]
    assert len(seen) > 30
    assert popularity_ranks(np.random.default_rng(4)).tolist() == \
        popularity_ranks(np.random.default_rng(4)).tolist()


def test_second_time_rank_favours_the_more_popular_of_two_pool_draws():
    # After time rank 0 takes rank 1, the pool is [3] + row 1 (1, 3, 4, 6)
    # without 1 = [3, 3, 4, 6]; keeping the smaller of two draws gives
    # P(3) = 1 - (1/2)**2 = 3/4, P(4) = (1/2)**2 - (1/4)**2 = 3/16, P(6) = 1/16.
    second = np.array([popularity_ranks(np.random.default_rng(seed))[1] for seed in range(2_000)])
    assert np.mean(second == 3) == pytest.approx(3 / 4, abs=0.03)
    assert np.mean(second == 4) == pytest.approx(3 / 16, abs=0.03)
    assert np.mean(second == 6) == pytest.approx(1 / 16, abs=0.02)
    assert set(second.tolist()) == {3, 4, 6}


def test_tail_values_spread_below_the_maximum_without_collisions():
    head = set(head_estimate_times(48 * HOUR).tolist())
    tail = tail_estimate_times(48 * HOUR, 70, head)
    assert len(tail) == 70
    assert len(set(tail.tolist())) == 70 and not head & set(tail.tolist())
    assert tail.min() > 0 and tail.max() < 48 * HOUR
    assert np.all(np.diff(tail) > 0)
    # Value 1 of 70: x = 1/70, a = 1 + 12.1039 * 90**-0.6026 = 1.804079;
    # y = 0.804079 * x / (a - x) = 0.0064180; * 48 h = 1109 s -> 18 minutes.
    assert tail[0] == 18 * MINUTE
    assert tail_estimate_times(48 * HOUR, 0, head).size == 0


def test_tail_percentages_are_a_power_law_summing_to_eleven():
    sizes = tail_percentages(70)
    assert sizes.sum() == pytest.approx(11.0)
    assert sizes[0] / sizes[1] == pytest.approx((21 / 22) ** -2.267)
    assert tail_percentages(0).size == 0


@pytest.mark.parametrize("n_jobs", [1, 7, 20, 21, 500, 10_000, 33_333])
def test_histogram_counts_add_up_to_the_number_of_jobs(n_jobs):
    times, counts = estimate_histogram(n_jobs, DEFAULT_MAX_ESTIMATE, np.random.default_rng(1))
    assert counts.sum() == n_jobs
    assert counts.min() >= 0
    assert len(set(times.tolist())) == len(times)
    assert times.max() == DEFAULT_MAX_ESTIMATE and times.min() >= 1


def test_histogram_for_ten_thousand_jobs():
    times, counts = estimate_histogram(10_000, DEFAULT_MAX_ESTIMATE, np.random.default_rng(2))
    assert len(times) == 90 and counts.min() >= 1
    assert counts[-1] == pytest.approx(2173, abs=10)  # the maximum: 21.73% of the jobs
    head = np.isin(times, head_estimate_times(DEFAULT_MAX_ESTIMATE))
    assert counts[head].sum() == pytest.approx(8900, abs=40)  # the head holds 89%
    assert np.sort(counts[head])[::-1][1] == pytest.approx(1031, abs=10)  # rank 2: 10.31%


def test_equalize_adds_in_proportion_from_the_largest_count():
    # diff 2, proportion 2/10: ceil(0.2 * 5) = 1 to the 5, ceil(0.2 * 3) = 1 to the 3.
    assert equalize_counts(np.array([1, 2, 3]), np.array([5, 3, 2]), 12).tolist() == [6, 4, 2]


def test_equalize_removes_in_proportion():
    # diff 3, proportion 0.3: ceil(1.5) = 2 from the 5, then 1 from the 3.
    assert equalize_counts(np.array([1, 2, 3]), np.array([5, 3, 2]), 7).tolist() == [3, 2, 2]


def test_equalize_empties_bins_only_as_a_last_resort():
    # Every pass before the last keeps counts >= 1; the last empties the
    # first bins in (count, time) order.
    counts = equalize_counts(np.array([10, 20, 30, 40]), np.array([1, 1, 1, 1]), 2)
    assert counts.tolist() == [0, 0, 1, 1]


def test_assign_gives_the_only_long_enough_estimate_to_the_long_job():
    estimates = assign_estimates(np.array([10, 100, 50]), np.array([60, 120]), np.array([2, 1]),
                                 np.random.default_rng(0))
    assert estimates.tolist() == [60, 120, 60]


def test_assign_caps_runtimes_above_the_maximum():
    estimates = assign_estimates(np.array([500, 30]), np.array([60, 120]), np.array([1, 1]),
                                 np.random.default_rng(0))
    assert estimates.tolist() == [120, 60]


def test_assign_rejects_runtimes_the_histogram_cannot_cover():
    with pytest.raises(InputError, match="maximal estimate 120 s") as err:
        assign_estimates(np.array([100, 100]), np.array([60, 120]), np.array([1, 1]),
                         np.random.default_rng(0))
    assert err.value.field == "max_estimate"


def test_assign_draws_uniformly_among_eligible_estimates():
    # Job of runtime 50 first takes 60 or 120 (each 1/2); the other job, of
    # runtime 1, gets the rest.  Over many draws both happen about equally.
    firsts = [assign_estimates(np.array([50, 1]), np.array([60, 120]), np.array([1, 1]),
                               np.random.default_rng(seed))[0] for seed in range(400)]
    assert np.mean(np.array(firsts) == 120) == pytest.approx(0.5, abs=0.08)


def test_add_estimates_uses_the_whole_histogram_and_covers_every_runtime():
    rng = np.random.default_rng(5)
    runtimes = np.floor(np.exp(rng.gamma(4.2, 1.2, size=3_000))).astype(np.int64) + 1
    too_long = runtimes > DEFAULT_MAX_ESTIMATE
    assert 0 < too_long.sum() < 100
    estimates = add_estimates(runtimes, np.random.default_rng(6))
    times, counts = estimate_histogram(3_000, DEFAULT_MAX_ESTIMATE, np.random.default_rng(6))
    assert np.array_equal(np.sort(estimates), np.repeat(times, counts))
    assert np.all(estimates[~too_long] >= runtimes[~too_long])
    assert np.all(estimates[too_long] == DEFAULT_MAX_ESTIMATE)
    assert np.array_equal(estimates, add_estimates(runtimes, np.random.default_rng(6)))
    assert not np.array_equal(estimates, add_estimates(runtimes, np.random.default_rng(7)))


def test_add_estimates_of_nothing_is_nothing():
    assert add_estimates(np.zeros(0, dtype=np.int64), np.random.default_rng(0)).size == 0


@pytest.mark.parametrize("bad", [HOUR, 0, -5, 7_200.5, True])
def test_a_maximal_estimate_below_two_hours_is_rejected(bad):
    with pytest.raises(InputError) as err:
        add_estimates(np.array([10]), np.random.default_rng(0), max_estimate=bad)
    assert err.value.field == "max_estimate"
