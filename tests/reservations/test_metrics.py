"""Reservation metrics and series (Margo et al., §4 eq. 1–3, §6), worked out by hand."""

from __future__ import annotations

import pytest

from schedlab.engine.simulator import run
from schedlab.metrics import compute_metrics
from schedlab.metrics.reservations import reason_key
from schedlab.metrics.series import reserved_series, utilization_series
from schedlab.policies.registry import make_policy

from .helpers import requests, simulate, workload
from .test_engine import queue_limited


@pytest.fixture
def reserved_run():
    # 4 processors.  Job 1 uses 2 on [0, 100).  Request 1 gets the other 2 on [50, 80);
    # request 2 (1 processor on [60, 70)) finds them taken: rejected, 'busy'.
    load = workload(4, (1, 0, 100, 100, 2))
    return simulate("fcfs+easy", load, requests((1, 0, 50, 30, 2), (2, 0, 60, 10, 1)))


def test_reservation_counts_and_utilization_with_and_without_reserved_processors(reserved_run):
    metrics = compute_metrics(reserved_run)
    assert metrics["reservations"] == 2
    assert metrics["reservations_granted"] == 1
    assert metrics["reservations_rejected"] == 1
    assert metrics["reservations_rejected.busy"] == 1
    assert metrics["reservations_moved"] == 0
    assert metrics["reserved_node_seconds"] == 60
    # window [0, 100]: jobs use 200 of 400 node-seconds, reservations hold 60
    assert metrics["utilization_margo"] == pytest.approx(0.5)
    assert metrics["utilization_reserved"] == pytest.approx(0.15)
    assert metrics["utilization_margo_reserved"] == pytest.approx(0.65)


def test_the_reserved_series_and_utilization_counting_reserved_processors(reserved_run):
    times, nodes = reserved_series(reserved_run)
    assert times.tolist() == [50, 80] and nodes.tolist() == [2, 0]
    times, busy = utilization_series(reserved_run, count_reserved=True)
    assert times.tolist() == [0, 50, 80, 100]
    assert busy.tolist() == [0.5, 1.0, 0.5, 0.0]
    bins, means = reserved_series(reserved_run, step=25, window=(0, 100))
    assert bins.tolist() == [0, 25, 50, 75]
    assert means.tolist() == pytest.approx([0, 0, 2, 0.4])
    assert utilization_series(reserved_run)[1].tolist() == [0.5, 0.0]


def test_a_run_without_reservations_has_no_reservation_metrics():
    result = run(workload(2, (1, 0, 5, 5, 1)), make_policy("fcfs+easy"))
    metrics = compute_metrics(result)
    assert not any(name.startswith(("reservation", "reserved", "held")) for name in metrics)
    assert reserved_series(result)[0].size == 0
    empty = compute_metrics(simulate("fcfs+easy", workload(2, (1, 0, 5, 5, 1))))
    assert (empty["reservations"], empty["utilization_reserved"]) == (0, 0.0)


def test_margo_wait_and_expansion_factor_from_queue_entry_under_a_queue_limit():
    # Jobs of 10 s on one processor start at 0, 10, 20, 30, 40 (jobs 1, 2, 5, 3, 4);
    # all were submitted at 0, job 4 entered the queue at 10.  Equal node-seconds, so
    # the weighted means are plain means: waits 0, 10, 30, 40, 20 from submission
    # (mean 20), 0, 10, 30, 30, 20 from queue entry (mean 18); expansion factors from
    # queue entry (wait + 10) / 10 = 1, 2, 4, 4, 3 (mean 2.8).
    metrics = compute_metrics(queue_limited("fcfs+easy"))
    assert metrics["wait_weighted"] == pytest.approx(20)
    assert metrics["wait_weighted_queued"] == pytest.approx(18)
    assert metrics["expansion_factor_weighted_queued"] == pytest.approx(2.8)
    assert metrics["held_jobs"] == 1


@pytest.mark.parametrize("reason, key", [
    ("busy", "busy"), ("Policy does not support it!", "policy_does_not_support_it"),
    ("***", "unknown")])
def test_reasons_become_metric_name_parts(reason, key):
    assert reason_key(reason) == key
