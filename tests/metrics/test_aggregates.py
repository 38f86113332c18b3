"""Aggregate metrics: the worked example of docs/reference/metrics.md, edge cases, invariants."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from real_traces import trace_path
from schedlab.errors import InputError
from schedlab.metrics import METRIC_DOCS, compute_metrics
from schedlab.metrics.aggregates import (
    loss_of_capacity,
    observation_window,
    utilization_margo,
    utilization_streit,
)
from schedlab.metrics.jobs import accepted_jobs, node_seconds
from schedlab.metrics.series import integrate

from .conftest import build_result

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md"

# Every value worked out by hand in docs/reference/metrics.md ("Worked example").
EXPECTED = {
    "offered_load": 660 / (4 * 30),
    "jobs": 5, "finished": 3, "killed": 1, "rejected": 1,
    "rejected_pct": 20.0,
    "rejected_area_pct": 100 * 180 / 660,
    "avg_wait": 30.0, "max_wait": 90,
    "avg_response": 80.0,
    "artww": 830 / 9,
    "avg_slowdown": 2.125,
    "avg_bsld_10": 2.125, "avg_bsld_60": 1.25, "avg_bsld_300": 1.0,
    "sldww_60": 13 / 9, "sldww_300": 1.0,
    "expansion_factor_weighted": 815 / 440,
    "wait_weighted": 11400 / 440,
    "makespan": 130,
    "utilization": 440 / 520, "utilization_margo": 440 / 520,
    "loss_of_capacity": 80 / 520,
    "avg_queue": 120 / 130, "max_queue": 2,
}


def test_worked_example(example):
    metrics = compute_metrics(example, classes=False)
    assert metrics.keys() == EXPECTED.keys()
    for name, value in EXPECTED.items():
        assert metrics[name] == pytest.approx(value, rel=1e-12), name


def test_integer_metrics_are_ints(example):
    metrics = compute_metrics(example)
    for name in ("jobs", "finished", "killed", "rejected", "max_wait", "makespan",
                 "max_queue", "width_1.jobs"):
        assert type(metrics[name]) is int, name


def test_saturated_example_has_loc_equal_to_one_minus_util(example):
    # Jobs wait whenever a processor is idle in the example: Streit's identity holds.
    metrics = compute_metrics(example)
    assert metrics["utilization"] + metrics["loss_of_capacity"] == pytest.approx(1.0)


def test_idle_time_with_empty_queue_is_no_loss(make_result):
    # One job on 2 processors of 4, nobody waits: half the capacity unused, none lost.
    result = make_result([(0, 0, 10, 2, 10, 10, 0)], 4)
    metrics = compute_metrics(result)
    assert metrics["utilization"] == 0.5
    assert metrics["loss_of_capacity"] == 0.0


def test_margo_utilization_over_a_window(example):
    # In [0, 65): A 2x65, B 2x50, C not yet started, D 1x15 -> 245 of 4x65.
    assert utilization_margo(example, (0, 65)) == 245 / 260
    assert utilization_margo(example) == utilization_streit(accepted_jobs(example), 4)


def test_margo_window_must_not_be_empty(example):
    with pytest.raises(InputError, match="field window"):
        utilization_margo(example, (10, 10))


def test_suspended_time_is_not_run_time(make_result):
    # Gang scheduling: job 1 ran [0, 20) and [60, 100), suspended 40 s while
    # job 2 used the machine on [20, 60).  Both have width 2 on 2 processors.
    result = make_result([(0, 0, 100, 2, 100, 60, 0), (0, 20, 60, 2, 50, 40, 0)], 2,
                         series=[(0, 2, 1), (20, 2, 0), (100, 0, 0)],
                         suspended=[40, 0])
    metrics = compute_metrics(result)
    assert metrics["avg_slowdown"] == (100 / 60 + 60 / 40) / 2
    assert metrics["utilization"] == (2 * 60 + 2 * 40) / (2 * 100)
    assert metrics["utilization_margo"] == 1.0
    assert metrics["wait_weighted"] == (0 * 120 + 20 * 80) / 200


#: Counts (and the makespan, a length): 0 over no jobs; every other metric is then missing.
COUNTS = {"jobs", "finished", "killed", "rejected", "makespan", "max_queue"}


def test_empty_result_has_counts_of_zero_and_every_other_metric_missing(make_result):
    metrics = compute_metrics(make_result([], 8))
    for name, value in metrics.items():
        if name in COUNTS or name.endswith(".jobs"):
            assert value == 0, name
        else:
            assert value is None, name
    json.dumps(metrics, allow_nan=False)


def test_all_rejected_leaves_every_time_metric_missing(make_result):
    result = make_result([(0, -1, -1, 2, 10, 10, 2), (5, -1, -1, 1, 10, 30, 2)], 4)
    metrics = compute_metrics(result)
    assert metrics["rejected"] == 2
    assert metrics["rejected_pct"] == 100.0
    assert metrics["rejected_area_pct"] == 100.0
    assert metrics["offered_load"] == (2 * 10 + 1 * 30) / (4 * 5)   # what was asked for
    for name, value in metrics.items():
        if name in {"jobs", "rejected", "rejected_pct", "rejected_area_pct", "offered_load"}:
            continue
        assert value == 0 if name in COUNTS or name.endswith(".jobs") else value is None, name
    json.dumps(metrics, allow_nan=False)


def test_zero_length_window(make_result):
    # A single job of run time 0 started at once: window [0, 0].
    metrics = compute_metrics(make_result([(0, 0, 0, 1, 5, 0, 0)], 2))
    assert metrics["makespan"] == 0
    assert metrics["utilization"] is None
    assert metrics["utilization_margo"] is None
    assert metrics["loss_of_capacity"] is None
    assert metrics["avg_queue"] is None
    assert metrics["avg_slowdown"] == 1.0
    # Node-seconds are 0, so the node-seconds-weighted means have no weight.
    assert metrics["expansion_factor_weighted"] is None
    json.dumps(metrics, allow_nan=False)


def test_observation_window_ignores_rejected_jobs(make_result):
    result = make_result([(0, -1, -1, 1, 9, 9, 2), (4, 6, 9, 1, 9, 3, 0)], 1)
    assert observation_window(accepted_jobs(result)) == (4, 9)


def test_max_queue_ignores_zero_length_states(make_result):
    # At t=0 the engine first recorded 3 waiting jobs, then started them all.
    result = make_result([(0, 0, 10, 1, 10, 10, 0)] * 3, 3,
                         series=[(0, 0, 3), (0, 3, 0), (10, 0, 0)])
    assert compute_metrics(result)["max_queue"] == 0


def test_every_metric_is_documented(example):
    text = DOCS.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([^`]+)`", text, flags=re.MULTILINE))
    names = set(compute_metrics(example))
    core = set(compute_metrics(example, classes=False))
    assert core == set(METRIC_DOCS)
    assert core <= documented
    class_fields = {name.split(".", 1)[1] for name in names - core}
    prefixes = {name.split(".", 1)[0] for name in names - core}
    assert {f"<class>.{field}" for field in class_fields} <= documented
    assert {f"{prefix}.*" for prefix in prefixes} <= documented


def serial_schedule(draws: list[tuple[int, int, int, int]], processors: int) -> list:
    """FCFS one job at a time: a valid schedule for any jobs no wider than the machine."""
    rows, free_at, submit = [], 0, 0
    for gap, width, run, estimate in draws:
        submit += gap
        start = max(submit, free_at)
        status = 1 if run > estimate else 0
        end = start + min(run, estimate)
        rows.append((submit, start, end, min(width, processors), estimate, run, status))
        free_at = end
    return rows


jobs_strategy = st.lists(st.tuples(st.integers(0, 50), st.integers(1, 8),
                                   st.integers(0, 100), st.integers(0, 100)),
                         min_size=1, max_size=15)


@settings(max_examples=60, deadline=None)
@given(draws=jobs_strategy, processors=st.integers(1, 8))
def test_invariants_on_valid_schedules(draws, processors):
    result = build_result(serial_schedule(draws, processors), processors)
    metrics = compute_metrics(result)
    jobs = accepted_jobs(result)
    t0, t1 = observation_window(jobs)
    busy_area = integrate(result.series_time, result.series_busy, t0, t1)
    assert busy_area == pytest.approx(float(np.sum(node_seconds(jobs))))
    if t1 > t0:
        assert metrics["loss_of_capacity"] >= 0.0
        assert metrics["utilization"] + metrics["loss_of_capacity"] <= 1.0 + 1e-12
        assert metrics["utilization_margo"] == pytest.approx(metrics["utilization"])
    else:                                    # an empty window: no ratio over it
        assert metrics["utilization"] is metrics["loss_of_capacity"] is None
    assert metrics["avg_bsld_10"] >= 1.0
    assert metrics["avg_slowdown"] >= metrics["avg_bsld_10"] - 1e-12
    assert metrics["avg_bsld_10"] >= metrics["avg_bsld_60"] >= metrics["avg_bsld_300"]
    accepted = metrics["finished"] + metrics["killed"]
    assert sum(metrics[f"{name}.jobs"] for name in
               ("width_1", "width_2_64", "width_65_256", "width_gt_256")) == accepted
    assert loss_of_capacity(result, (t0, t1)) == metrics["loss_of_capacity"]
    json.dumps(metrics, allow_nan=False)


KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")


def test_engine_result_on_a_real_trace():
    if not KTH.exists():
        pytest.skip("KTH-SP2 trace not available")
    import schedlab
    workload = schedlab.load_workload(KTH)
    result = schedlab.simulate(workload.with_jobs(workload.jobs[:3000]), "fcfs+easy")
    metrics = compute_metrics(result)
    # Streit's UTIL from the job columns and Margo's from the engine's busy series agree.
    assert metrics["utilization_margo"] == pytest.approx(metrics["utilization"], rel=1e-12)
    assert metrics["loss_of_capacity"] > 0.0
    assert metrics["utilization"] + metrics["loss_of_capacity"] <= 1.0
    assert metrics["finished"] + metrics["killed"] + metrics["rejected"] == 3000
    for prefix, names in (("width", ("1", "2_64", "65_256", "gt_256")),
                          ("runtime", ("le_5m", "le_10m", "le_1h", "le_12h", "gt_12h"))):
        total = sum(metrics[f"{prefix}_{name}.jobs"] for name in names)
        assert total == metrics["finished"] + metrics["killed"]
    json.dumps(metrics, allow_nan=False)
