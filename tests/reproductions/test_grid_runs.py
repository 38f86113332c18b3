"""The grid-run machinery shared by the grid recipes: run ids, the run's machine usage and
workload (hand-checked), storing and resuming."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from schedlab.experiments.recipes.grid_runs import (
    Point,
    active_machines,
    execute_stored,
    jobs_in_system,
    machine_usage,
    nested_by_cluster,
    read_stored,
    running_jobs,
    simulate_point,
    spelled,
)


def tiny_result():
    """Three jobs on two machines: A on m0 over [0, 10), B on m0 over [0, 5), C on m1 over
    [5, 10); D waits over [0, 5) and never runs."""
    return SimpleNamespace(
        start=np.array([0, 0, 5, -1]), end=np.array([10, 5, 10, -1]),
        series_time=np.array([0, 5, 10]), series_queue=np.array([1, 0, 0]),
        grid=SimpleNamespace(machine=np.array([0, 0, 1, -1]), machine_names=("m0", "m1")))


def test_running_jobs_and_active_machines_by_hand():
    result = tiny_result()
    assert running_jobs(result).tolist() == [2, 2, 0]
    assert active_machines(result).tolist() == [1, 2, 0]
    assert jobs_in_system(result).tolist() == [3, 2, 0]


def test_machine_usage_by_hand():
    # [0, 5): 1 active of min(2 machines, 3 jobs) = 1/2; [5, 10): 2 of min(2, 2) = 1
    assert machine_usage(tiny_result(), (0, 10)) == pytest.approx(0.75)


def migrated_result():
    """Two machines over [0, 10): X runs on m0 over [0, 5) and migrates to m1, which Y left
    at 5 (Y ends), and Z takes m0 at 5, in the same pass.  X's first start, last end and
    last machine alone put it on m1 over [0, 10) beside Y, and leave m0 idle over [0, 5)."""
    return SimpleNamespace(
        start=np.array([0, 0, 5]), end=np.array([10, 5, 10]),
        series_time=np.array([0, 5, 10]), series_queue=np.array([1, 0, 0]),
        grid=SimpleNamespace(machine=np.array([1, 1, 0]), machine_names=("m0", "m1"),
                             runs=np.array([[0, 0, 0, 5, 0], [0, 1, 5, 10, 0],
                                            [1, 1, 0, 5, 0], [2, 0, 5, 10, 0]])))


def test_machine_usage_counts_each_run_of_a_migrated_job_on_the_machine_it_ran_on():
    # every instant of [0, 10): 2 active machines of min(2, 2 or 3 jobs)
    result = migrated_result()
    assert active_machines(result).tolist() == [2, 2, 0]
    assert machine_usage(result, (0, 10)) == pytest.approx(1.0)


def test_without_preemption_the_runs_give_the_usage_of_the_start_and_end_columns():
    result = tiny_result()
    runs = np.array([[0, 0, 0, 10, 0], [1, 0, 0, 5, 0], [2, 1, 5, 10, 0]])
    with_runs = SimpleNamespace(**{**vars(result), "grid": SimpleNamespace(
        **vars(result.grid), runs=runs)})
    assert active_machines(with_runs).tolist() == active_machines(result).tolist()
    assert machine_usage(with_runs, (0, 10)) == machine_usage(result, (0, 10))


def test_a_point_names_its_parameters_in_its_run_id():
    plain = Point("thesis-4.2", 4, (0.55, 0.65), 0, "bf-fcfs", 100)
    assert plain.run_id == "thesis-4.2-n100-ta4-ratio0.55-0.65-exclusive-rep0-bf-fcfs"
    assert plain.policy_spec() == "bf-fcfs" and plain.dispatch_spec() is None
    cs = Point("thesis-4.3", 5, (0.5, 0.7), 1, "cs", 100, "shared", "ms-heuristics",
               (("incremental", False), ("overhead", 8.0)), (("window", 50),), label="CS")
    assert cs.run_id.endswith("-shared-rep1-cs.incremental=false.overhead=8.0"
                              "-ms-heuristics.window=50")
    assert cs.policy_spec() == {"name": "cs", "incremental": False, "overhead": 8.0}
    assert cs.dispatch_spec() == {"name": "ms-heuristics", "window": 50}
    assert spelled("x", ()) == "x"


def test_per_cluster_metrics_are_nested_by_cluster():
    flat = {"cluster_work_share.c1": 0.75, "cluster_work_share.c2": 0.25,
            "cluster_jobs.c1": 3, "system_usage": 0.5}
    assert nested_by_cluster(flat, ("cluster_work_share", "cluster_share_optimum")) == {
        "cluster_work_share": {"c1": 0.75, "c2": 0.25}, "cluster_share_optimum": {}}
    assert nested_by_cluster(flat) == {"cluster_work_share": {"c1": 0.75, "c2": 0.25},
                                       "cluster_jobs": {"c1": 3.0}}


def test_a_dispatched_run_stores_the_metrics_of_each_cluster():
    local = simulate_point(Point("thesis-4.1", 4, (0.5, 0.7), 0, "bf-fcfs", 30))
    assert "cluster_jobs" not in local
    run = simulate_point(Point("thesis-4.3", 5, (0.5, 0.7), 0, "bf-fcfs", 60, "shared",
                               "ms-heuristics"))
    clusters = list(run["cluster_share_optimum"])
    assert clusters == ["c1", "c2", "c3", "c4"]
    assert sum(run["cluster_jobs"].values()) == 60
    for name in ("cluster_work_share", "cluster_deadline_missed_pct",
                 "cluster_nondeadline_avg_slowdown", "cluster_system_usage",
                 "cluster_licence_usage"):
        assert list(run[name]) == clusters


def test_stored_work_resumes_after_a_failure(tmp_path):
    calls = []

    def work(key, fail=False):
        def compute():
            calls.append(key)
            if fail:
                raise RuntimeError("stopped")
            return {"key": key}
        return key, compute

    with pytest.raises(RuntimeError):
        execute_stored(tmp_path, [work("a"), work("b"), work("c", fail=True), work("d")])
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == ["a", "b"]
    assert execute_stored(tmp_path, [work("a"), work("b"), work("c"), work("d")]) == 2
    assert calls == ["a", "b", "c", "c", "d"]
    assert read_stored(tmp_path, ["d", "a"]) == {"a": {"key": "a"}, "d": {"key": "d"}}
    assert json.loads((tmp_path / "c.json").read_text()) == {"key": "c"}


def test_work_stored_meanwhile_by_another_process_is_not_done_again(tmp_path):
    calls = []

    def first():
        calls.append("a")
        (tmp_path / "b.json").write_text('{"by": "the other process"}')   # as another run would
        return {"key": "a"}

    def second():
        calls.append("b")
        return {"key": "b"}

    assert execute_stored(tmp_path, [("a", first), ("b", second)]) == 1
    assert calls == ["a"]
    assert read_stored(tmp_path, ["b"]) == {"b": {"by": "the other process"}}


def test_a_damaged_stored_result_is_an_error_naming_the_file(tmp_path):
    from schedlab.errors import InputError

    (tmp_path / "good.json").write_text('{"x": 1}\n')
    (tmp_path / "bad.json").write_text('{"run_id": ')
    assert read_stored(tmp_path, ["good"]) == {"good": {"x": 1}}
    with pytest.raises(InputError, match=r"not valid JSON.*delete the file") as err:
        read_stored(tmp_path)
    assert err.value.file == str(tmp_path / "bad.json")
