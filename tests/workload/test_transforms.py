"""Workload transforms (SPEC §1.2), checked against numbers worked out by hand."""

from __future__ import annotations

import math

import pytest

from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload
from schedlab.workload.transforms import (
    duplicate_load,
    expand_load,
    first_jobs,
    perfect_estimates,
    shrink,
    split_wide_jobs,
    time_window,
)


def workload_of(*jobs: Job, name: str = "w") -> Workload:
    return Workload(jobs=(), processors=16, name=name, header={"MaxProcs": "16"},
                    skipped={"runtime < 0": 3}, unix_start_time=99).with_jobs(jobs)


# submits 100, 101, 103, 110: interarrivals 1, 2, 7
FOUR = workload_of(
    Job(1, 100, 50, 60, 2),
    Job(2, 101, 0, 10, 4),
    Job(3, 103, 700, 600, 8, deadline=900),
    Job(4, 110, 30, 30, 1),
)


def submits(workload: Workload) -> list[int]:
    return [j.submit for j in workload]


def test_shrink_by_half_rounds_halves_up():
    # 100 + floor(0.5 * [0, 1, 3, 10] + 0.5) = 100 + [0, 1, 2, 5]
    shrunk = shrink(FOUR, 0.5)
    assert submits(shrunk) == [100, 101, 102, 105]
    assert shrunk.name == "w~shrink0.5"


def test_shrink_by_two_doubles_interarrivals_and_moves_deadlines():
    stretched = shrink(FOUR, 2)
    assert submits(stretched) == [100, 102, 106, 120]
    # job 3 was submitted at 103 with deadline 900; now at 106
    assert stretched.jobs[2].deadline == 903
    assert [j.deadline for j in stretched] == [None, None, 903, None]


def test_shrink_rounds_the_decimal_product_exactly():
    # 0.7 * 45 is 31.499999999999996 in floating point; the decimal 31.5 rounds up to 32
    jobs = workload_of(Job(1, 0, 1, 1, 1), Job(2, 5, 1, 1, 1), Job(3, 45, 1, 1, 1))
    assert submits(shrink(jobs, 0.7)) == [0, 4, 32]  # 0.7 * 5 = 3.5 -> 4


def test_shrink_keeps_everything_else():
    shrunk = shrink(FOUR, 0.8)
    for old, new in zip(FOUR, shrunk):
        assert (old.id, old.runtime, old.estimate, old.width) == \
               (new.id, new.runtime, new.estimate, new.width)
    assert (shrunk.processors, shrunk.header, shrunk.skipped, shrunk.unix_start_time) == \
           (16, {"MaxProcs": "16"}, {"runtime < 0": 3}, 99)
    assert submits(FOUR) == [100, 101, 103, 110]  # the input is unchanged


def test_shrink_of_an_empty_workload_is_empty():
    assert len(shrink(workload_of(), 0.5)) == 0


@pytest.mark.parametrize("factor", [0, -0.5, math.nan, math.inf, True, "0.5"])
def test_shrink_rejects_bad_factors(factor):
    with pytest.raises(InputError, match="'factor' parameter of shrink"):
        shrink(FOUR, factor)


def test_perfect_estimates_use_the_runtime_with_a_minimum_of_one_second():
    perfect = perfect_estimates(FOUR)
    assert [j.estimate for j in perfect] == [50, 1, 700, 30]
    assert perfect.name == "w~perfect"


def test_split_wide_jobs_by_hand():
    jobs = workload_of(
        Job(5, 0, 100, 200, 10, user=7),
        Job(2, 10, 50, 60, 3),
        Job(9, 20, 30, 40, 7, deadline=500),
    )
    split = split_wide_jobs(jobs, 4)
    # job 5 (width 10) -> 4 + 4 + 2 with ids 5, 10, 11; job 9 (width 7) -> 4 + 3 with ids 9, 12
    assert split.jobs == (
        Job(5, 0, 100, 200, 4, user=7),
        Job(10, 0, 100, 200, 4, user=7),
        Job(11, 0, 100, 200, 2, user=7),
        Job(2, 10, 50, 60, 3),
        Job(9, 20, 30, 40, 4, deadline=500),
        Job(12, 20, 30, 40, 3, deadline=500),
    )
    assert split.name == "w~split4"
    assert sum(j.area for j in split) == sum(j.area for j in jobs)


def test_split_leaves_narrow_jobs_alone():
    assert split_wide_jobs(FOUR, 8).jobs == FOUR.jobs


@pytest.mark.parametrize("width", [0, -2, 2.5, True])
def test_split_rejects_bad_widths(width):
    with pytest.raises(InputError, match="'max_width' parameter of split_wide_jobs"):
        split_wide_jobs(FOUR, width)


def test_first_jobs():
    assert [j.id for j in first_jobs(FOUR, 2)] == [1, 2]
    assert first_jobs(FOUR, 2).name == "w~first2"
    assert first_jobs(FOUR, 10).jobs == FOUR.jobs


@pytest.mark.parametrize("n", [0, -1, 1.5])
def test_first_jobs_rejects_bad_counts(n):
    with pytest.raises(InputError, match="'n' parameter of first_jobs"):
        first_jobs(FOUR, n)


def test_time_window_is_half_open():
    window = time_window(FOUR, 101, 110)
    assert [j.id for j in window] == [2, 3]
    assert submits(window) == [101, 103]  # not rebased
    assert window.name == "w~window101-110"


def test_time_window_rejects_bad_bounds():
    with pytest.raises(InputError, match="'end' parameter of time_window"):
        time_window(FOUR, 10, 10)
    with pytest.raises(InputError, match="'start' parameter of time_window"):
        time_window(FOUR, 1.5, 10)


def test_transforms_compose_and_record_their_history():
    result = perfect_estimates(shrink(first_jobs(FOUR, 3), 0.5))
    assert result.name == "w~first3~shrink0.5~perfect"
    assert submits(result) == [100, 101, 102]
    assert [j.estimate for j in result] == [50, 1, 700]


@pytest.mark.parametrize("transform", [
    lambda w: shrink(w, 0.5), perfect_estimates, lambda w: split_wide_jobs(w, 16),
    lambda w: first_jobs(w, 2), lambda w: time_window(w, 0, 10**6),
    lambda w: expand_load(w, 1.5), lambda w: duplicate_load(w, 2.0, seed=1)])
def test_transforms_keep_the_slurm_attributes_of_a_sacct_job(transform) -> None:
    """Account, QOS, node count and Slurm's priority ride along with every job copied."""
    jobs = [Job(k, 100 + k, 50, 60, 4, user=1, queue=2, account=3, qos=4, nodes=2,
                priority=1000 + k) for k in range(1, 5)]
    for job in transform(workload_of(*jobs)):
        assert (job.account, job.qos, job.nodes, job.priority in range(1001, 1005)) \
            == (3, 4, 2, True)


def test_a_split_part_no_longer_states_the_whole_jobs_nodes() -> None:
    wide = workload_of(Job(1, 0, 10, 10, 24, account=2, nodes=3))
    assert [(job.width, job.nodes, job.account) for job in split_wide_jobs(wide, 16)] \
        == [(16, 0, 2), (8, 0, 2)]
