"""Numbers a user can trust: empty groups are missing, slowdowns never below 1, grid jobs
measured on their machine (docs/reference/metrics.md, "Empty groups", "Times on the machine").

Hand-made schedules for every kind of group that can hold no job (classes, deadline /
non-deadline splits, grid clusters), how a missing metric is written (``null`` in
metrics.json, an empty CSV cell, ``—`` in tables), a hypothesis property that no
slowdown of any job is below 1, and a hand-checked 2-machine grid platform of different
ratings for the machine-scaled run time and estimate.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grid.helpers import grid_workload
from schedlab.engine.grid import run_grid
from schedlab.engine.result import KILLED
from schedlab.metrics import compute_metrics
from schedlab.metrics.grid import cluster_metrics
from schedlab.metrics.jobs import accepted_jobs, bounded_slowdown, expansion_factor, slowdown
from schedlab.output import jobs_csv_text, metrics_document
from schedlab.platform import Cluster, Machine, Platform
from schedlab.policies.grid import GridFCFS, RoundRobin

from .conftest import build_result

#: One cluster of two single-CPU machines: slow (rating 100) and fast (rating 300).
SLOW_FAST = Platform((Cluster("c", (Machine("slow", 1, 100), Machine("fast", 1, 300)), ()),),
                     name="slow-fast")


def test_classes_no_job_fell_into_are_missing_not_zero(make_result):
    # 100 processors: no job can be wider than 256, none ran longer than 12 h.
    result = make_result([(0, 0, 100, 4, 100, 100, 0), (0, 10, 40, 1, 60, 30, 0)], 100)
    metrics = compute_metrics(result)
    assert metrics["width_gt_256.jobs"] == 0
    for value in ("avg_wait", "avg_response", "avg_bsld_60", "wait_weighted",
                  "expansion_factor_weighted"):
        assert metrics[f"width_gt_256.{value}"] is None
        assert metrics[f"runtime_gt_12h.{value}"] is None
    assert metrics["width_1.avg_wait"] == 10.0 and metrics["width_2_64.avg_wait"] == 0.0


def test_no_nondeadline_job_leaves_their_slowdown_missing_in_json_csv_and_tables(make_result):
    from schedlab.cli.compare import _metrics_csv
    from schedlab.cli.consoles import console
    from schedlab.cli.summary import metrics_table

    rows = [(0, 0, 10, 1, 10, 10, 0), (0, 10, 30, 1, 20, 20, 0)]
    result = dataclasses.replace(make_result(rows, 1), deadline=np.array([10, 40]),
                                 artificial_deadline=np.zeros(2, dtype=bool))
    metrics = compute_metrics(result)
    assert metrics["nondeadline_jobs"] == 0
    assert metrics["nondeadline_avg_slowdown"] is None
    assert metrics["nondeadline_avg_response"] is None
    document = json.loads(json.dumps(metrics_document(result, metrics), allow_nan=False))
    assert document["metrics"]["nondeadline_avg_slowdown"] is None            # null
    header, line = _metrics_csv({"qops": metrics}).splitlines()
    cells = dict(zip(header.split(","), line.split(",")))
    assert cells["nondeadline_avg_slowdown"] == "" and cells["deadline_jobs"] == "2"
    with console.capture() as captured:
        console.print(metrics_table("t", {"qops": metrics}, ["nondeadline_avg_slowdown",
                                                             "deadline_jobs"], {}))
    shown = {line.split("│")[1].strip(): line.split("│")[2].strip()
             for line in captured.get().splitlines() if line.count("│") == 3}
    assert shown == {"nondeadline_avg_slowdown": "—", "deadline_jobs": "2.00"}


def test_clusters_that_ran_no_job_have_missing_shares_and_slowdowns():
    platform = Platform((Cluster("a", (Machine("a1", 1, 100),), ()),
                         Cluster("b", (Machine("b1", 1, 100),), ())), name="two")
    grid = grid_workload([(0, 10, 10, 1, (), 100)])
    result = run_grid(grid, platform, [GridFCFS(), GridFCFS()], RoundRobin())  # one job: a
    metrics = cluster_metrics(result, platform)
    assert metrics["cluster_jobs.b"] == 0
    assert metrics["cluster_nondeadline_avg_slowdown.b"] is None
    assert metrics["cluster_system_usage.b"] is None
    assert metrics["cluster_nondeadline_avg_slowdown.a"] == 1.0


def test_a_run_where_nothing_was_dispatched_has_no_cluster_shares():
    grid = grid_workload([(0, 10, 10, 1, (), 100)])
    result = run_grid(grid, SLOW_FAST, [GridFCFS()])
    empty = dataclasses.replace(result, grid=dataclasses.replace(
        result.grid, cluster=np.array([-1])), status=np.array([2], dtype=np.int8))
    metrics = compute_metrics(empty)
    assert metrics["cluster_share.c"] is None and metrics["cluster_share_deviation"] is None
    assert metrics["cluster_share_optimum.c"] == 1.0


# ------------------------------------------------------------------ grid: times on machines
def hand_checked_grid_run():
    """Three jobs on slow (rating 100) and fast (rating 300), FCFS, fastest machine first:

    * job 1, rating 200, runtime 300, estimate 600: fast at 0, 300 x 200 / 300 = 200 s
      (estimate 400 s), ends 200;
    * job 2, rating 200, runtime 120, estimate 90: slow at 0, needs 240 s but its
      estimate is 180 s there: killed at 180;
    * job 3, rating 300, runtime 30, estimate 60, submitted at 10: waits for slow (free
      at 180), runs 30 x 300 / 100 = 90 s (estimate 180 s), ends 270.
    """
    grid = grid_workload([(0, 300, 600, 1, (), 200), (0, 120, 90, 1, (), 200),
                          (10, 30, 60, 1, (), 300)])
    return run_grid(grid, SLOW_FAST, [GridFCFS()])


def test_grid_jobs_csv_gives_the_run_time_and_estimate_on_the_machine_of_the_job():
    result = hand_checked_grid_run()
    assert result.grid.machine.tolist() == [1, 0, 0]
    assert (result.start.tolist(), result.end.tolist()) == ([0, 0, 180], [200, 180, 270])
    assert result.status.tolist()[1] == KILLED
    assert result.grid.machine_runtime.tolist() == [200, 240, 90]
    assert result.grid.machine_estimate.tolist() == [400, 180, 180]
    lines = jobs_csv_text(result).splitlines()
    header = lines[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
    assert [(r["runtime"], r["estimate"], r["machine_runtime"], r["machine_estimate"])
            for r in rows] == [("300", "600", "200", "400"), ("120", "90", "240", "180"),
                               ("30", "60", "90", "180")]
    # end - start is the machine's run time (finished) or estimate (killed)
    assert [int(r["end"]) - int(r["start"]) for r in rows] == [200, 180, 90]


def test_every_grid_slowdown_divides_by_the_time_on_the_machine():
    result = hand_checked_grid_run()
    jobs = accepted_jobs(result)
    # job 3: wait 170, response 260, 90 s on slow: 260 / 90, not 260 / 30 by its reference
    # runtime; bounded at 60 s the same; expansion (170 + 180) / 180, not (170 + 60) / 60
    assert slowdown(jobs).tolist() == pytest.approx([1.0, 1.0, 260 / 90])
    assert bounded_slowdown(jobs, 60).tolist() == pytest.approx([1.0, 1.0, 260 / 90])
    assert expansion_factor(jobs).tolist() == pytest.approx([1.0, 1.0, 350 / 180])
    metrics = compute_metrics(result)
    assert metrics["avg_slowdown"] == pytest.approx((2 + 260 / 90) / 3)
    # node-seconds 200, 180, 90: expansion factors 1, 1, 350 / 180
    assert metrics["expansion_factor_weighted"] == pytest.approx((200 + 180 + 350 / 2) / 470)
    # rejected area at rating 1: nothing rejected here, so 0 of it
    assert metrics["rejected_area_pct"] == 0.0


# ------------------------------------------------------------------ slowdown >= 1
def serial_rows(draws, processors: int) -> list:
    """A valid one-at-a-time schedule with some jobs suspended part of their wall time."""
    rows, suspended, free_at, submit = [], [], 0, 0
    for gap, width, run, estimate, paused in draws:
        submit += gap
        start = max(submit, free_at)
        status = 1 if run > estimate else 0
        end = start + min(run, estimate) + paused
        rows.append((submit, start, end, min(width, processors), estimate, run, status))
        suspended.append(paused)
        free_at = end
    return rows, suspended


@settings(max_examples=80, deadline=None)
@given(draws=st.lists(st.tuples(st.integers(0, 50), st.integers(1, 8), st.integers(0, 100),
                                st.integers(1, 100), st.integers(0, 30)),
                      min_size=1, max_size=12),
       processors=st.integers(1, 8))
def test_no_slowdown_of_any_job_is_below_one(draws, processors):
    rows, suspended = serial_rows(draws, processors)
    result = build_result(rows, processors, suspended=suspended)
    jobs = accepted_jobs(result)
    for values in (slowdown(jobs), bounded_slowdown(jobs, 10), bounded_slowdown(jobs, 60),
                   expansion_factor(jobs)):
        assert (values >= 1.0).all()
    metrics = compute_metrics(result)
    for name in ("avg_slowdown", "avg_bsld_10", "avg_bsld_60", "avg_bsld_300", "sldww_60",
                 "expansion_factor_weighted", "width_1.avg_bsld_60"):
        assert metrics[name] is None or metrics[name] >= 1.0 - 1e-12, name


@settings(max_examples=40, deadline=None)
@given(jobs=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 200), st.integers(1, 200),
                               st.sampled_from([50, 100, 200, 300, 600])),
                     min_size=1, max_size=10))
def test_no_grid_slowdown_is_below_one_whatever_the_ratings(jobs):
    rows, submit = [], 0
    for gap, runtime, estimate, rating in jobs:
        submit += gap
        rows.append((submit, runtime, estimate, 1, (), rating))
    result = run_grid(grid_workload(rows), SLOW_FAST, [GridFCFS()])
    ran = accepted_jobs(result)
    for values in (slowdown(ran), bounded_slowdown(ran, 10), expansion_factor(ran)):
        assert (values >= 1.0).all()
    held = (result.end - result.start)[result.accepted]
    finished = (result.status == 0)[result.accepted]
    assert (held[finished] == result.grid.machine_runtime[result.accepted][finished]).all()
    assert (held[~finished] == result.grid.machine_estimate[result.accepted][~finished]).all()


# ------------------------------------------------------------------ means over runs, tables
def test_results_means_leave_a_missing_metric_out_and_say_over_how_many_runs():
    import pandas as pd

    from schedlab.cli.consoles import console
    from schedlab.cli.results import means_table
    from schedlab.experiments.summary import summary_frame

    frame = pd.DataFrame({
        "workload": ["w"] * 4, "policy": ["qops", "qops", "qops", "easy"],
        "seed": [0, 1, 2, 0], "processors": [None] * 4, "overrun": ["kill"] * 4,
        # seed 1 of qops had no non-deadline job: its slowdown is missing, not 0
        "nondeadline_avg_slowdown": pd.Series([2.0, None, 4.0, None], dtype=object),
        "avg_wait": [10.0, 20.0, 30.0, 5.0]})
    names = ["nondeadline_avg_slowdown", "avg_wait"]
    summary = summary_frame(frame, names)
    rows = summary.set_index("policy")
    assert rows.loc["qops", "nondeadline_avg_slowdown"] == 3.0          # (2 + 4) / 2, not 2
    assert rows.loc["qops", "runs.nondeadline_avg_slowdown"] == 2
    assert rows.loc["qops", "n"] == 3 and rows.loc["qops", "avg_wait"] == 20.0
    assert pd.isna(rows.loc["easy", "nondeadline_avg_slowdown"])
    with console.capture() as captured:
        console.print(means_table(summary, names))
    text = captured.get()
    # Student's t intervals, with the decimals of their means: (2, 4) gives 12.706 x 1.414 /
    # sqrt(2) = 12.706; (10, 20, 30)
    # gives 4.303 x 10 / sqrt(3) = 24.8; a single run gives none
    assert rows.loc["qops", "ci95.avg_wait"] == pytest.approx(24.841, abs=1e-3)
    assert pd.isna(rows.loc["easy", "ci95.avg_wait"])
    assert "3.000 ± 12.706 (2/3)" in text and "20.0 ± 24.8" in text and "(k/n)" in text
    assert "—" in text
    assert "runs." not in text


def test_results_and_compare_show_the_rejected_shares_when_a_run_rejected_jobs():
    import pandas as pd

    from schedlab.cli.results import default_metrics
    from schedlab.cli.summary import summary_metrics

    frame = pd.DataFrame({"rejected": [0, 174], "avg_wait": [1.0, 2.0]})
    assert default_metrics(frame) == ["avg_wait", "avg_bsld_60", "sldww_60", "utilization",
                                      "rejected_pct", "rejected_area_pct"]
    assert "rejected_pct" not in default_metrics(frame.assign(rejected=[0, 0]))
    names = summary_metrics({"easy": {"rejected": 0}, "qops": {"rejected": 174}})
    assert names[names.index("rejected"):names.index("rejected") + 3] == [
        "rejected", "rejected_pct", "rejected_area_pct"]
    assert "rejected_pct" not in summary_metrics({"easy": {"rejected": 0}})
