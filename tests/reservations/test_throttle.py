"""The sliding-window cap (Margo et al., §2) against brute force, and a month of KTH-SP2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from real_traces import trace_path
from schedlab.metrics import compute_metrics
from schedlab.policies.reservations import ReservationRules, over_cap, peak_window_load, window_load
from schedlab.workload.reservations import generate_requests

from .helpers import simulate

KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")

INTERVALS = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 60), st.integers(1, 9)),
                     max_size=6)


def test_window_load_counts_only_the_overlap():
    # [0, 50) x 10 and [70, 120) x 10 inside [20, 120): 30 x 10 + 50 x 10
    assert window_load([(0, 50, 10), (70, 120, 10)], 20, 100) == 800


@given(INTERVALS, st.integers(1, 80), st.integers(-100, 100), st.integers(0, 150))
def test_the_peak_is_the_maximum_over_every_window_start(parts, window, lo, length):
    intervals = [(s, s + d, w) for s, d, w in parts]
    hi = lo + length
    brute = max(window_load(intervals, t, window) for t in range(lo, hi + 1))
    assert peak_window_load(intervals, window, lo, hi) == brute


@given(INTERVALS, st.tuples(st.integers(0, 200), st.integers(1, 60), st.integers(1, 9)),
       st.integers(1, 80), st.integers(0, 600))
def test_over_cap_is_true_iff_some_window_would_exceed_the_cap(parts, new, window, cap):
    granted = [(s, d, w) for s, d, w in parts]
    everything = [(s, s + d, w) for s, d, w in [*granted, new]]
    first = min(s for s, _, _ in everything) - window
    last = max(e for _, e, _ in everything)
    brute = max(window_load(everything, t, window) for t in range(first, last + 1))
    already = max((window_load(everything[:-1], t, window) for t in range(first, last + 1)),
                  default=0)
    if already <= cap:                     # the granted set obeys the cap, as in a run
        assert over_cap(*new, granted, window, cap) == (brute > cap)


@pytest.mark.skipif(not KTH.exists(), reason="KTH-SP2 trace not in ../shared/workloads")
def test_a_month_of_kth_with_a_year_of_requests_and_the_papers_three_scenarios():
    from schedlab.api import load_workload
    from schedlab.workload.transforms import first_jobs

    load = first_jobs(load_workload(KTH), 3000)
    span = (0, load.jobs[-1].submit)
    asked = generate_requests(span, processors=load.processors, seed=2006)
    throttle = ReservationRules(cap=load.processors * 12 * 3600)   # all nodes, half a day
    for name in ("fcfs+easy", "fcfs+conservative"):
        base = compute_metrics(simulate(name, load))
        heavy = compute_metrics(simulate(name, load, asked))
        throttled = compute_metrics(simulate(name, load, asked, throttle))
        assert heavy["reservations_granted"] > throttled["reservations_granted"] > 0
        assert throttled["reservations_rejected.over_cap"] > 0
        # Margo §6: reservations raise the weighted wait; throttling recovers part of it
        assert heavy["wait_weighted"] > throttled["wait_weighted"]
        assert heavy["wait_weighted"] > base["wait_weighted"]
        assert heavy["utilization_margo_reserved"] > heavy["utilization_margo"]
