"""The machine metrics of grid runs (Pasquali thesis §4.2, Figs. 19 and 22), hand-checked:
jobs running and in the system, machines active, machine usage, and the policy's cost per
scheduling event."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from schedlab.metrics.grid import (
    active_machines,
    jobs_in_system,
    machine_metrics,
    machine_usage,
    running_jobs,
    scheduling_cost,
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
    assert running_jobs(result.start, result.end, result.series_time).tolist() == [2, 2, 0]
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


def test_machine_metrics_of_a_grid_run_cover_the_whole_run():
    from schedlab import simulate
    from schedlab.platform.generator import generate_platform, preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(preset("thesis-4.1"), seed=0)
    jobs = generate_grid(platform, PRESETS["thesis-4.1"], n_jobs=40, interarrival=4, seed=0)
    result = simulate(jobs, "bf-fcfs", platform=platform, allocation="exclusive")
    metrics = machine_metrics(result)
    assert set(metrics) == {"machine_usage", "mean_jobs_in_system"}
    assert 0 < metrics["machine_usage"] <= 1
    assert metrics["mean_jobs_in_system"] > 0


def test_the_scheduling_cost_leaves_out_the_time_spent_counting():
    result = SimpleNamespace(meta={"scheduling_events": 4, "scheduling_time_s": 0.003},
                             stats={"matching_count_seconds": 0.001,
                                    "matching_augmenting_paths": 10})
    assert scheduling_cost(result) == pytest.approx({
        "matching_augmenting_paths_per_event": 2.5, "scheduling_time_per_event_us": 500.0})
    idle = SimpleNamespace(meta={"scheduling_events": 0, "scheduling_time_s": 0.0}, stats={})
    assert scheduling_cost(idle) == {"scheduling_time_per_event_us": 0.0}


def test_the_machine_metrics_and_the_cost_per_event_are_documented():
    """Every name machine_metrics and scheduling_cost store is a row of docs/reference/metrics.md."""
    import re
    from pathlib import Path

    from schedlab.metrics.grid import MACHINE_METRIC_DOCS, MATCHING_WORK

    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md").read_text()
    documented = {name for row in re.findall(r"^\| (`[^|]+)\|", text, flags=re.MULTILINE)
                  for name in re.findall(r"`([^`]+)`", row)}
    stored = {*MACHINE_METRIC_DOCS, *(f"{name}_per_event" for name in MATCHING_WORK),
              "scheduling_time_per_event_us"}
    assert stored <= documented, stored - documented
