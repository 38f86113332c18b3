"""Dispatchers (who gets which job) and grid metrics, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.grid import run_grid
from schedlab.errors import InputError
from schedlab.metrics import compute_metrics
from schedlab.policies.grid import (
    BackfillingFCFS,
    GridFCFS,
    LeastWork,
    Proportional,
    RandomDispatch,
    RoundRobin,
    make_dispatcher,
)

from .helpers import grid_workload, three_machines, two_clusters


def clusters_of(rows, dispatcher, seed=0):
    result = run_grid(grid_workload(rows), two_clusters(), [GridFCFS(), GridFCFS()],
                      dispatcher, seed=seed)
    return result.grid.cluster.tolist()


def test_round_robin_takes_clusters_in_turn_skipping_those_that_cannot_run_the_job():
    rows = [(t, 10, 10, 1, ("A",) if t == 2 else (), 100) for t in range(5)]
    assert clusters_of(rows, RoundRobin()) == [0, 1, 0, 1, 0]
    rows[3] = (3, 10, 10, 1, ("A",), 100)     # job 4 needs A (only c1): c1 twice in a row
    assert clusters_of(rows, RoundRobin()) == [0, 1, 0, 0, 1]


def test_proportional_follows_the_machine_count():
    rows = [(t, 10, 10, 1, (), 100) for t in range(6)]
    # weights 2 : 1; (sent + 1) / weight, ties to the first cluster
    assert clusters_of(rows, Proportional()) == [0, 0, 1, 0, 0, 1]
    # rating sums 400 : 200 give the same shares here
    assert clusters_of(rows, Proportional(weight="rating")) == [0, 0, 1, 0, 0, 1]


def test_random_is_seeded_by_the_run():
    rows = [(t, 10, 10, 1, (), 100) for t in range(40)]
    first = clusters_of(rows, RandomDispatch(), seed=3)
    assert first == clusters_of(rows, RandomDispatch(), seed=3)
    assert first != clusters_of(rows, RandomDispatch(), seed=4)
    assert set(first) == {0, 1}


def test_least_work_balances_estimated_work_per_unit_of_power():
    # powers: c1 = 4 x 100 + 4 x 300 = 1600, c2 = 8 x 200 = 1600
    rows = [(0, 100, 100, 4, (), 100),    # both empty: c1
            (0, 100, 100, 2, (), 100),    # c1 has 40000 / 1600: c2
            (0, 100, 100, 1, (), 100),    # c1 25, c2 12.5: c2
            (0, 100, 100, 4, (), 100)]    # c1 25, c2 18.75: c2
    assert clusters_of(rows, LeastWork()) == [0, 1, 1, 1]


def test_least_work_remaining_counts_only_what_running_jobs_have_left():
    rows = [(0, 1000, 1000, 4, (), 100),  # c1 (a2, rating 300): work 400000, ends at 334
            (0, 1000, 1000, 1, (), 100),  # c2 (b1, rating 200): work 100000, ends at 500
            (333, 10, 10, 1, (), 100)]
    # outstanding: 400000 vs 100000 -> c2; remaining at 333: 4 x 1 x 300 vs 1 x 167 x 200
    assert clusters_of(rows, LeastWork()) == [0, 1, 1]
    assert clusters_of(rows, LeastWork(load="remaining")) == [0, 1, 0]


def test_make_dispatcher_names_and_parameters():
    assert make_dispatcher({"name": "least-work", "load": "remaining"}).load == "remaining"
    with pytest.raises(InputError, match="unknown dispatcher 'nearest'"):
        make_dispatcher("nearest")
    with pytest.raises(InputError, match="has no parameter 'k'"):
        make_dispatcher({"name": "random", "k": 1})
    with pytest.raises(InputError, match="'weight' parameter"):
        make_dispatcher({"name": "proportional", "weight": "cpus"})


def test_system_usage_is_the_time_average_while_jobs_are_in_the_system():
    rows = [(0, 100, 100, 1, (), 100), (0, 100, 100, 1, (), 100),
            (0, 100, 100, 1, (), 100), (0, 100, 100, 2, (), 100)]
    result = run_grid(grid_workload(rows), three_machines(), [GridFCFS()],
                      allocation="exclusive")
    # [0, 50): 3 CPUs busy / min(10, 5 asked) = 0.6; [50, 100): 4 / 4 = 1
    assert compute_metrics(result)["system_usage"] == pytest.approx(0.8)


def test_licence_usage_counts_copies_against_what_the_jobs_in_the_system_need():
    from .test_schedules import LICENCE_ROWS

    result = run_grid(grid_workload(LICENCE_ROWS), three_machines(), [BackfillingFCFS()])
    # B (2 copies): 1/1 on [0,1), 1/2 on [1,3), 2/2 on [3,53), 1/2 on [53,100), 1 on
    # [100,400); no job needs a licence after 400 (undefined until the end at 1004)
    assert compute_metrics(result)["licence_usage"] == pytest.approx(375.5 / 400)


def test_cluster_shares_against_the_machine_count_optimum():
    rows = [(t, 10, 10, 1, (), 100) for t in range(4)]
    result = run_grid(grid_workload(rows), two_clusters(), [GridFCFS(), GridFCFS()],
                      RoundRobin())
    metrics = compute_metrics(result)
    assert metrics["cluster_share.c1"] == 0.5
    assert metrics["cluster_share_optimum.c1"] == pytest.approx(2 / 3)
    assert metrics["cluster_share_deviation"] == pytest.approx(1 / 6)


def test_out_deadline_and_slowdown_of_jobs_without_deadline():
    rows = [(0, 100, 100, 4, (), 100, 40),     # fast: ends 50, deadline 40: missed
            (0, 100, 100, 4, (), 100, 200),    # mid: ends 100: met
            (0, 100, 100, 4, (), 100)]         # waits to 50 on fast, ends 100: slowdown 2
    result = run_grid(grid_workload(rows), three_machines(), [GridFCFS()])
    metrics = compute_metrics(result)
    assert metrics["deadline_missed_pct"] == 50.0
    assert metrics["nondeadline_avg_slowdown"] == 2.0
    assert np.array_equal(result.deadline, [40, 200, -1])


def test_every_grid_metric_is_documented():
    import re
    from pathlib import Path

    from schedlab.metrics.grid import GRID_METRIC_DOCS

    rows = [(t, 10, 10, 1, ("A",) if t % 2 else (), 100) for t in range(4)]
    result = run_grid(grid_workload(rows), two_clusters(), [GridFCFS(), GridFCFS()],
                      RoundRobin())
    names = {re.sub(r"\.(c1|c2)$", ".<cluster>", name) for name in compute_metrics(result)}
    assert set(GRID_METRIC_DOCS) <= names
    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md").read_text()
    documented = set(re.findall(r"^\| `([^`]+)`", text, flags=re.MULTILINE))
    assert set(GRID_METRIC_DOCS) <= documented


def test_a_machine_feature_is_no_licence_copy_in_the_licence_usage():
    from schedlab.metrics.grid import cluster_metrics
    from schedlab.platform.model import Cluster, Licence, Machine, Platform

    # m1 has M as a feature (non-floating); B is floating with one copy. Both jobs
    # run at once on [0, 100): B is 1 of min(1, 1) copies in use, M counts nowhere.
    cluster = Cluster("c", (Machine("m1", 4, 100, frozenset({"M"})), Machine("m2", 4, 100)),
                      (Licence("B", 1, ("m1", "m2")),))
    rows = [(0, 100, 100, 1, ("M",), 100), (0, 100, 100, 1, ("B",), 100)]
    platform = Platform((cluster,), name="f")
    result = run_grid(grid_workload(rows), platform, [GridFCFS()])
    assert compute_metrics(result)["licence_usage"] == 1.0
    assert cluster_metrics(result, platform)["cluster_licence_usage.c"] == 1.0


def test_cluster_metrics_split_out_deadline_slowdown_and_usage_by_cluster():
    from schedlab.metrics.grid import cluster_metrics

    rows = [(0, 100, 100, 4, ("A",), 100, 40),   # c1, a2 (300): 0-34, deadline met
            (0, 200, 200, 4, (), 100),           # c2, b1 (200): 0-100
            (0, 100, 100, 8, (), 100, 60),       # c2 (c1 has no 8 CPUs): 100-150, missed
            (0, 100, 100, 4, ("A",), 100)]       # c1, waits for A's copy: a2 34-68
    platform = two_clusters()
    result = run_grid(grid_workload(rows), platform, [GridFCFS(), GridFCFS()], RoundRobin())
    assert result.grid.cluster.tolist() == [0, 1, 1, 0]
    assert result.end.tolist() == [34, 100, 150, 68]
    metrics = cluster_metrics(result, platform)
    assert metrics["cluster_jobs.c1"] == 2 and metrics["cluster_deadline_jobs.c2"] == 1
    assert metrics["cluster_deadline_missed_pct.c1"] == 0.0
    assert metrics["cluster_deadline_missed_pct.c2"] == 100.0
    assert metrics["cluster_nondeadline_avg_slowdown.c1"] == 2.0       # 68 / 34
    assert metrics["cluster_nondeadline_avg_slowdown.c2"] == 1.0
    # c1, 8 CPUs: [0, 34) 4 busy / min(8, 8 asked); [34, 68) 4 / 4; then nothing asked
    assert metrics["cluster_system_usage.c1"] == pytest.approx((0.5 * 34 + 34) / 68)
    # c2, 8 CPUs: [0, 100) 4 / min(8, 12); [100, 150) 8 / 8
    assert metrics["cluster_system_usage.c2"] == pytest.approx((0.5 * 100 + 50) / 150)
    # c1's one copy of A is in use whenever a job needs it; c2 has no licence: no usage
    # to measure, missing rather than 0 (docs/reference/metrics.md, "Empty groups")
    assert metrics["cluster_licence_usage.c1"] == 1.0
    assert metrics["cluster_licence_usage.c2"] is None


def test_cluster_metrics_of_one_cluster_are_the_platform_metrics():
    import schedlab
    from schedlab.metrics.grid import cluster_metrics
    from schedlab.platform.generator import generate_platform, preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(preset("thesis-4.1"), seed=2)
    grid = generate_grid(platform, PRESETS["thesis-4.1"], n_jobs=150, interarrival=6, seed=2)
    result = schedlab.simulate(grid, "bf-fcfs", platform=platform)
    whole, split = compute_metrics(result), cluster_metrics(result, platform)
    for metric in ("deadline_missed_pct", "nondeadline_avg_slowdown", "system_usage",
                   "licence_usage"):
        assert split[f"cluster_{metric}.c1"] == pytest.approx(whole[metric], rel=1e-12)
    assert 0 < whole["licence_usage"] < 1 and whole["deadline_missed_pct"] > 0


def test_every_cluster_metric_is_documented():
    import re
    from pathlib import Path

    from schedlab.metrics.grid import CLUSTER_METRIC_DOCS, cluster_metrics

    rows = [(t, 10, 10, 1, ("A",) if t % 2 else (), 100) for t in range(4)]
    platform = two_clusters()
    result = run_grid(grid_workload(rows), platform, [GridFCFS(), GridFCFS()], RoundRobin())
    names = {re.sub(r"\.(c1|c2)$", ".<cluster>", n) for n in cluster_metrics(result, platform)}
    assert names == set(CLUSTER_METRIC_DOCS)
    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md").read_text()
    documented = set(re.findall(r"^\| `([^`]+)`", text, flags=re.MULTILINE))
    assert set(CLUSTER_METRIC_DOCS) <= documented


def test_a_licence_offered_load_counts_its_jobs_runtimes_at_the_mean_rating():
    from schedlab.metrics.grid import licence_offered_load, rating_weighted_load
    from schedlab.platform.model import Cluster, Licence, Machine, Platform

    # 4 CPUs at rating 100 and 4 at 300: the mean CPU rates 200.  B (one copy) is asked for
    # 100 x 200/200 + 100 x 100/200 = 150 copy-seconds over a submit span of 100: 1.5.
    # M is a feature of m1, no copy: no load of its own.
    cluster = Cluster("c", (Machine("m1", 4, 100, frozenset({"M"})), Machine("m2", 4, 300)),
                      (Licence("B", 1, ("m1", "m2")),))
    platform = Platform((cluster,), name="f")
    rows = [(0, 100, 100, 1, ("B",), 200), (50, 100, 100, 1, ("B",), 100),
            (100, 10, 10, 1, ("M",), 100)]
    result = run_grid(grid_workload(rows), platform, [GridFCFS()])
    assert licence_offered_load(result, platform) == {"licence_offered_load": 1.5,
                                                      "licence_offered_load.B": 1.5}
    # CPUs: (100 x 200 + 100 x 100 + 10 x 100) / ((4 x 100 + 4 x 300) x 100)
    assert rating_weighted_load(result, platform) == pytest.approx(31_000 / 160_000)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**4), st.integers(1, 10**4), st.integers(1, 997),
                          st.booleans()), min_size=2, max_size=40))
def test_a_licence_offered_load_is_its_jobs_running_sum(jobs):
    """The load of a licence is its jobs' seconds at the mean rating added up job after job
    in workload order: the same float as Python's sum over them."""
    from schedlab.metrics.grid import licence_offered_load, platform_capacity
    from schedlab.platform.model import Cluster, Licence, Machine, Platform

    cluster = Cluster("c", (Machine("m1", 4, 100), Machine("m2", 4, 300)),
                      (Licence("B", 1, ("m1", "m2")),))
    platform = Platform((cluster,), name="f")
    rows = [(submit, runtime, runtime, 1, ("B",) if asks else (), rating)
            for submit, runtime, rating, asks in sorted(jobs)]
    result = run_grid(grid_workload(rows), platform, [GridFCFS()])
    mean = platform_capacity(platform) / float(platform.cpus.sum())
    seconds = result.runtime.astype(np.float64) * result.grid.rating / mean
    asks = ["B" in names.split(";") for names in result.grid.job_licences]
    span = float(result.submit.max() - result.submit.min())
    expected = float(sum(s for s, a in zip(seconds, asks) if a)) / span if span else None
    assert licence_offered_load(result, platform)["licence_offered_load.B"] == expected
