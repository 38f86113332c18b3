"""Breakdowns by width class (Margo) and by run-time class (Streit)."""

from __future__ import annotations

import pytest

from schedlab.metrics.classes import (
    TABLE_COLUMNS,
    breakdown_by_runtime,
    breakdown_by_width,
    breakdown_table,
    flat_breakdowns,
)


def test_width_classes_of_the_example(example):
    stats = {entry.job_class.name: entry for entry in breakdown_by_width(example)}
    assert list(stats) == ["width_1", "width_2_64", "width_65_256", "width_gt_256"]
    # Width 1: D alone (wait 30, response 50, estimate 40).
    one = stats["width_1"]
    assert (one.jobs, one.avg_wait, one.avg_response, one.avg_bsld_60) == (1, 30.0, 50.0, 1.0)
    assert (one.wait_weighted, one.expansion_factor_weighted) == (30.0, 1.75)
    # Widths 2-64: A, B, C; node-seconds 200, 100, 120; the rejected E is left out.
    medium = stats["width_2_64"]
    assert medium.jobs == 3
    assert medium.avg_wait == 30.0
    assert medium.avg_response == 90.0
    assert medium.avg_bsld_60 == pytest.approx(4 / 3)
    assert medium.wait_weighted == pytest.approx(90 * 120 / 420)
    assert medium.expansion_factor_weighted == pytest.approx((200 + 100 + 4 * 120) / 420)
    for name in ("width_65_256", "width_gt_256"):
        empty = stats[name]
        assert (empty.jobs, empty.avg_wait, empty.expansion_factor_weighted) == (0, None, None)


def test_width_class_boundaries(make_result):
    widths = [1, 2, 64, 65, 256, 257]
    rows = [(0, 0, 10, width, 10, 10, 0) for width in widths]
    counts = [entry.jobs for entry in breakdown_by_width(make_result(rows, 512))]
    assert counts == [1, 2, 2, 1]


def test_runtime_classes_use_the_actual_run_time(make_result):
    runs = [0, 300, 301, 600, 601, 3600, 3601, 43200, 43201]
    rows = [(0, 0, run, 1, run, run, 0) for run in runs]
    # Trace runtime 900 but killed at the estimate 120: it counts as <= 5 min.
    rows.append((0, 0, 120, 1, 120, 900, 1))
    stats = breakdown_by_runtime(make_result(rows, 16))
    assert [entry.job_class.name for entry in stats] == [
        "runtime_le_5m", "runtime_le_10m", "runtime_le_1h", "runtime_le_12h", "runtime_gt_12h"]
    assert [entry.jobs for entry in stats] == [3, 2, 2, 2, 1]


def test_runtime_class_values(make_result):
    rows = [
        (0, 10, 110, 2, 100, 100, 0),    # wait 10, response 110
        (0, 30, 230, 1, 400, 200, 0),    # wait 30, response 230
        (0, 0, 1000, 1, 1000, 1000, 0),  # another class
    ]
    short = breakdown_by_runtime(make_result(rows, 4))[0]
    assert short.jobs == 2
    assert short.avg_wait == 20.0
    assert short.avg_response == 170.0
    assert short.avg_bsld_60 == pytest.approx((110 / 100 + 230 / 200) / 2)
    # Node-seconds 200 and 200: expansion factors 110/100 and 430/400.
    assert short.wait_weighted == 20.0
    assert short.expansion_factor_weighted == pytest.approx((1.1 + 430 / 400) / 2)


def test_flat_names(example):
    flat = flat_breakdowns(example)
    assert flat["width_2_64.avg_wait"] == 30.0
    assert flat["width_1.jobs"] == 1
    assert flat["runtime_le_5m.jobs"] == 4
    assert flat["runtime_gt_12h.jobs"] == 0
    assert flat["runtime_gt_12h.avg_response"] is None       # an empty class: missing, not 0
    assert len(flat) == (4 + 5) * 6


def test_table_form(example):
    header, rows = breakdown_table(breakdown_by_width(example))
    assert header == TABLE_COLUMNS
    assert rows[0] == ("1", 1, 30.0, 50.0, 1.0, 30.0, 1.75)
    assert [row[0] for row in rows] == ["1", "2-64", "65-256", ">256"]


def test_empty_result_has_empty_classes(make_result):
    flat = flat_breakdowns(make_result([], 4))
    assert flat and all(value == 0 if name.endswith(".jobs") else value is None
                        for name, value in flat.items())
