"""Step-function series: settling, integrals, time-weighted means, resampling."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.metrics.series import (
    bin_means,
    cumulative_integral,
    integrate,
    queue_series,
    series_window,
    settle,
    time_weighted_mean,
    utilization_series,
)

# 2 from t=10, 5 from t=20 (after a transient 9 at the same instant), 0 from t=30.
TIMES = np.array([10, 20, 20, 30])
VALUES = np.array([2, 9, 5, 0])


def test_settle_keeps_the_last_entry_per_instant():
    times, values = settle(TIMES, VALUES)
    assert times.tolist() == [10, 20, 30]
    assert values.tolist() == [2, 5, 0]


def test_settle_empty():
    times, values = settle(np.array([]), np.array([]))
    assert len(times) == len(values) == 0


def test_cumulative_integral():
    at = np.array([0, 10, 15, 20, 25, 30, 100])
    assert cumulative_integral(TIMES, VALUES, at).tolist() == [0, 0, 10, 20, 45, 70, 70]


def test_last_value_holds_after_the_last_entry():
    assert cumulative_integral(np.array([0]), np.array([3]), np.array([4])).tolist() == [12]


def test_integrate_and_mean_over_windows():
    assert integrate(TIMES, VALUES, 15, 25) == 35.0
    assert integrate(TIMES, VALUES, 0, 100) == 70.0
    assert integrate(TIMES, VALUES, 25, 25) == 0.0
    assert time_weighted_mean(TIMES, VALUES, 10, 30) == 3.5
    assert time_weighted_mean(TIMES, VALUES, 0, 40) == 70 / 40
    assert time_weighted_mean(TIMES, VALUES, 5, 5) is None       # no duration: missing


def test_empty_series_integrates_to_zero():
    empty = np.array([], dtype=np.int64)
    assert integrate(empty, empty, 0, 10) == 0.0


def test_bin_means_with_a_short_last_bin():
    starts, means = bin_means(TIMES, VALUES, 8, 10, 30)
    assert starts.tolist() == [10, 18, 26]
    # [10,18): 2; [18,26): 2x2 + 6x5 = 34 / 8; [26,30): 4x5 / 4.
    assert means.tolist() == [2.0, 34 / 8, 5.0]


def test_bin_means_step_must_be_positive():
    with pytest.raises(InputError, match="field step"):
        bin_means(TIMES, VALUES, 0, 10, 30)


def test_bin_means_empty_window():
    starts, means = bin_means(TIMES, VALUES, 5, 30, 30)
    assert len(starts) == len(means) == 0


def test_utilization_series_raw_and_resampled(example):
    times, fraction = utilization_series(example)
    assert times.tolist() == [0, 10, 20, 50, 70, 100, 130]
    assert fraction.tolist() == [1.0, 1.0, 1.0, 0.75, 0.5, 1.0, 0.0]
    starts, means = utilization_series(example, step=50)
    assert starts.tolist() == [0, 50, 100]
    # [50,100): 20 s at 3/4 and 30 s at 2/4; [100,130): full.
    assert means.tolist() == [1.0, (20 * 0.75 + 30 * 0.5) / 50, 1.0]


def test_queue_series_raw_and_resampled(example):
    times, queue = queue_series(example)
    assert times.tolist() == [0, 10, 20, 50, 70, 100, 130]
    assert queue.tolist() == [0, 1, 2, 1, 1, 0, 0]
    starts, means = queue_series(example, step=65, window=(0, 130))
    assert starts.tolist() == [0, 65]
    # [0,65): 10x1 + 30x2 + 15x1 = 85; [65,130): 35x1.
    assert means.tolist() == [85 / 65, 35 / 65]


def test_series_window(example, make_result):
    assert series_window(example) == (0, 130)
    assert series_window(make_result([], 4)) == (0, 0)
