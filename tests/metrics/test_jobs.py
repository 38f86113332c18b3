"""Per-job metric vectors on hand-built schedules."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.metrics.jobs import (
    accepted_jobs,
    bounded_slowdown,
    expansion_factor,
    mean,
    node_seconds,
    response_time,
    run_time,
    slowdown,
    wait_time,
    weighted_mean,
)


def test_rejected_jobs_are_left_out(example):
    jobs = accepted_jobs(example)
    assert len(jobs) == 4
    assert jobs.submit.tolist() == [0, 0, 10, 20]


def test_wait_response_run_and_node_seconds(example):
    jobs = accepted_jobs(example)
    assert wait_time(jobs).tolist() == [0, 0, 90, 30]
    assert response_time(jobs).tolist() == [100, 50, 120, 50]
    # C was killed at its estimate 30 although its trace runtime is 40.
    assert run_time(jobs).tolist() == [100, 50, 30, 20]
    assert node_seconds(jobs).tolist() == [200, 100, 120, 20]


def test_slowdown_is_response_over_run(example):
    assert slowdown(accepted_jobs(example)).tolist() == [1.0, 1.0, 4.0, 2.5]


def test_bounded_slowdown_for_each_tau(example):
    jobs = accepted_jobs(example)
    assert bounded_slowdown(jobs, 10).tolist() == [1.0, 1.0, 4.0, 2.5]
    # B: 50 / max(50, 60) < 1 -> 1; C: 120 / 60; D: 50 / 60 < 1 -> 1.
    assert bounded_slowdown(jobs, 60).tolist() == [1.0, 1.0, 2.0, 1.0]
    assert bounded_slowdown(jobs, 300).tolist() == [1.0, 1.0, 1.0, 1.0]


def test_bounded_slowdown_equals_streit_form(example):
    jobs = accepted_jobs(example)
    response, run = response_time(jobs), run_time(jobs)
    streit = np.maximum(response, 60) / np.maximum(run, 60)
    assert bounded_slowdown(jobs, 60).tolist() == streit.tolist()


def test_expansion_factor_uses_the_estimate(example):
    # (wait + estimate) / estimate: A 100/100, B 200/200, C 120/30, D 70/40.
    assert expansion_factor(accepted_jobs(example)).tolist() == [1.0, 1.0, 4.0, 1.75]


def test_zero_run_time_and_zero_estimate(make_result):
    result = make_result([
        (0, 0, 0, 1, 0, 0, 0),    # no wait, no run, no estimate
        (0, 5, 5, 1, 0, 0, 0),    # waited 5 s, ran 0 s
        (0, 7, 12, 1, 10, 5, 0),  # ordinary job
    ], 1)
    jobs = accepted_jobs(result)
    assert slowdown(jobs).tolist() == [1.0, 5.0, 12 / 5]
    assert bounded_slowdown(jobs, 10).tolist() == [1.0, 1.0, 1.2]
    # The estimate 0 counts as 1 s: (wait + 1) / 1.
    assert expansion_factor(jobs).tolist() == [1.0, 6.0, 1.7]


def test_bound_must_be_positive(example):
    with pytest.raises(InputError, match="field tau"):
        bounded_slowdown(accepted_jobs(example), 0)


def test_means_of_nothing_are_missing():
    empty = np.array([], dtype=np.int64)
    assert mean(empty) is None
    assert weighted_mean(empty, empty) is None
    assert weighted_mean(np.array([3, 4]), np.array([0, 0])) is None


def test_weighted_mean():
    assert weighted_mean(np.array([1.0, 4.0]), np.array([3, 1])) == 7 / 4
