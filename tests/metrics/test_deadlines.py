"""Deadline metrics (QoPS §5): a hand-built result, simulated runs, documentation."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from schedlab.engine.simulator import run
from schedlab.metrics import compute_metrics
from schedlab.metrics.deadlines import DEADLINE_METRIC_DOCS, deadline_metrics
from schedlab.policies.registry import make_policy
from schedlab.testing import check_deadlines, check_invariants
from schedlab.workload.job import Job, Workload

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md"

# 4 processors; (submit, start, end, width, estimate, runtime, status)
#   A real deadline 20, ran 0-25: 5 s late
#   B artificial deadline 86400, ran 10-30 (run 20, response 30, slowdown 1.5)
#   C no deadline, ran 10-15 (run 5, response 10, slowdown 2)
#   D real deadline 100, rejected (width 2 x runtime 10 = 20 processor-seconds)
#   E artificial deadline, rejected
ROWS = [(0, 0, 25, 1, 25, 25, 0), (0, 10, 30, 2, 20, 20, 0), (5, 10, 15, 1, 5, 5, 0),
        (0, -1, -1, 2, 10, 10, 2), (0, -1, -1, 1, 10, 10, 2)]
DEADLINES = [20, 86400, -1, 100, 86400]
ARTIFICIAL = [False, True, False, False, True]


@pytest.fixture
def mixed(make_result):
    result = make_result(ROWS, 4)
    return dataclasses.replace(result, deadline=np.array(DEADLINES, dtype=np.int64),
                               artificial_deadline=np.array(ARTIFICIAL))


def test_the_hand_built_result(mixed):
    assert deadline_metrics(mixed) == {
        "deadline_jobs": 2,                       # A, D
        "deadline_rejected": 1,                   # D
        "deadline_rejected_pct": 50.0,
        "deadline_rejected_area_pct": pytest.approx(100 * 20 / 45),   # D 20 of A 25 + D 20
        "deadline_missed": 1,                     # A; B ends long before its deadline
        "deadline_missed_pct": 50.0,              # of A, B (admitted with a deadline)
        "deadline_max_lateness": 5,
        "deadline_unfinished": 0,                 # nobody was killed
        "deadline_unfinished_pct": 0.0,
        "nondeadline_jobs": 3,                    # B, C, E
        "nondeadline_rejected": 1,                # E
        "nondeadline_avg_response": 20.0,         # (30 + 10) / 2
        "nondeadline_avg_slowdown": 1.75,         # (1.5 + 2) / 2
    }


def test_compute_metrics_includes_them_only_with_deadlines(mixed, make_result):
    assert compute_metrics(mixed)["deadline_missed"] == 1
    without = compute_metrics(make_result(ROWS, 4))
    assert not any(name.startswith(("deadline_", "nondeadline_")) for name in without)
    assert deadline_metrics(make_result(ROWS, 4)) == {}


def test_nobody_late_gives_zero_lateness_and_empty_groups_are_missing(make_result):
    rows = [(0, 0, 10, 1, 10, 10, 0)]
    result = dataclasses.replace(make_result(rows, 1), deadline=np.array([30]),
                                 artificial_deadline=np.array([False]))
    metrics = deadline_metrics(result)
    assert (metrics["deadline_missed"], metrics["deadline_max_lateness"]) == (0, 0)
    # no non-deadline job: their mean response and slowdown are missing, not 0
    assert (metrics["nondeadline_jobs"], metrics["nondeadline_avg_response"],
            metrics["nondeadline_avg_slowdown"]) == (0, None, None)


def test_shares_of_no_deadline_jobs_are_missing(make_result):
    # Only a non-deadline job: no deadline job to reject, no admitted job with a deadline.
    rows = [(0, 0, 10, 1, 10, 10, 0)]
    result = dataclasses.replace(make_result(rows, 1), deadline=np.array([-1]),
                                 artificial_deadline=np.array([False]))
    metrics = deadline_metrics(result)
    assert (metrics["deadline_jobs"], metrics["deadline_rejected"]) == (0, 0)
    for name in ("deadline_rejected_pct", "deadline_rejected_area_pct", "deadline_missed_pct",
                 "deadline_max_lateness", "deadline_unfinished_pct"):
        assert metrics[name] is None, name
    assert metrics["nondeadline_avg_slowdown"] == 1.0


def test_a_job_killed_at_its_estimate_before_its_deadline_is_unfinished_not_met(make_result):
    # 1 processor; (submit, start, end, width, estimate, runtime, status)
    #   A deadline 30, killed at its estimate 20 (needed 25): in time, unfinished
    #   B deadline 10, killed at 20: late, counted as missed only
    #   C deadline 50, finished at 40: met
    rows = [(0, 0, 20, 1, 20, 25, 1), (0, 20, 20, 1, 0, 5, 1), (0, 30, 40, 1, 10, 10, 0)]
    result = dataclasses.replace(make_result(rows, 1), deadline=np.array([30, 10, 50]),
                                 artificial_deadline=np.zeros(3, dtype=bool))
    metrics = deadline_metrics(result)
    assert (metrics["deadline_missed"], metrics["deadline_unfinished"]) == (1, 1)
    assert metrics["deadline_unfinished_pct"] == pytest.approx(100 / 3)


def test_admission_control_with_short_estimates_reports_the_killed_job_unfinished():
    # Job 1 (deadline 100) is admitted by its 5 s estimate but needs 20 s: killed at
    # 5, inside its deadline, so it is not late, yet its deadline is not met either.
    short = Workload((Job(1, 0, 20, 5, 4, deadline=100), Job(2, 0, 10, 10, 4, deadline=50)), 4)
    metrics = compute_metrics(run(short, make_policy("qops"), overrun="kill"))
    assert (metrics["deadline_rejected"], metrics["deadline_missed"],
            metrics["deadline_unfinished"]) == (0, 0, 1)
    assert metrics["deadline_unfinished_pct"] == 50.0


# The golden workload of tests/policies/deadline/test_golden.py: machine-wide jobs
# (runtime = estimate, deadline) 1 (5, 100), 2 (10, 15), 3 (10, 20), all at 0.
GOLDEN = Workload(tuple(Job(i, 0, rt, rt, 4, deadline=d)
                        for i, rt, d in ((1, 5, 100), (2, 10, 15), (3, 10, 20))), 4)


def simulated(name: str):
    result = run(GOLDEN, make_policy(name))
    check_invariants(result, GOLDEN)
    if name == "msb":
        check_deadlines(result, GOLDEN)
    return compute_metrics(result)


def test_easy_misses_one_deadline_by_five_seconds():
    # EASY runs 1 [0,5), 2 [5,15), 3 [15,25): job 3 misses 20
    metrics = simulated("fcfs+easy")
    assert (metrics["deadline_jobs"], metrics["deadline_rejected"], metrics["deadline_missed"],
            metrics["deadline_max_lateness"]) == (3, 0, 1, 5)
    assert metrics["deadline_missed_pct"] == pytest.approx(100 / 3)


def test_msb_rejects_a_third_of_the_jobs_and_forty_percent_of_the_area():
    # MSB rejects job 3: 4 x 10 of 4 x (5 + 10 + 10) processor-seconds
    metrics = simulated("msb")
    assert metrics["deadline_rejected_pct"] == pytest.approx(100 / 3)
    assert metrics["deadline_rejected_area_pct"] == 40.0
    assert metrics["rejected_area_pct"] == 40.0            # every job is a deadline job
    assert (metrics["deadline_missed"], metrics["nondeadline_jobs"]) == (0, 0)


def test_every_deadline_metric_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([^`]+)`", text, flags=re.MULTILINE))
    result = run(GOLDEN, make_policy("qops"))
    check_invariants(result, GOLDEN)
    check_deadlines(result, GOLDEN)
    names = set(deadline_metrics(result))
    assert names == set(DEADLINE_METRIC_DOCS)
    assert names <= documented
