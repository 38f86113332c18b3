"""Scheduling around advance reservations with Catalina semantics (Margo et al., §2).

Hand-worked schedules on 4 processors (jobs: id, submit, runtime, estimate,
width; requests: id, created, start, duration, width), then hypothesis
properties of every policy that takes reservations.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine.simulator import run
from schedlab.metrics import compute_metrics
from schedlab.policies.backfilling import EasyBackfilling
from schedlab.policies.orderings import in_order
from schedlab.policies.reservations import ReservationRules, decide_requests, queue_plan
from schedlab.workload.reservations import Reservation
from strategies import workloads

from .helpers import SUPPORTING, granted, reasons, requests, simulate, starts, workload


@pytest.mark.parametrize("name", SUPPORTING)
def test_no_job_is_started_into_a_reservation(name):
    # Job 1 holds 2 processors [0, 100).  Reservation 1 asks at 0 for the other 2 on
    # [60, 100): free in the plan, granted.  Job 2 (2 wide, 80 s) arrives at 1: it would
    # fit now but run into the reservation, so it waits for 100.  Job 3 (2 wide, 50 s)
    # arrives at 2 and ends by 52, before the reservation: it starts at once.
    load = workload(4, (1, 0, 100, 100, 2), (2, 1, 80, 80, 2), (3, 2, 50, 50, 2))
    result = simulate(name, load, requests((1, 0, 60, 40, 2)))
    assert granted(result) == {1: 60}
    assert starts(result) == {1: 0, 2: 100, 3: 2}
    assert starts(simulate(name, load))[2] == 1          # without it job 2 starts at 1


@pytest.mark.parametrize("name", SUPPORTING)
def test_the_first_waiting_job_is_protected_around_a_reservation(name):
    # Job 1 holds the machine [0, 100); reservation 1 takes 2 processors [100, 150).
    # Job 2 (4 wide) cannot start before 150: its reservation (EASY's shadow time) is
    # 150, not job 1's end at 100.  Job 3 (2 wide, 40 s) fits [100, 140) beside the
    # reservation and ends before 150; job 4 (2 wide, 60 s) would reach into job 2's
    # slot, so it starts after job 2, at 160.
    load = workload(4, (1, 0, 100, 100, 4), (2, 1, 10, 10, 4), (3, 2, 40, 40, 2),
                    (4, 3, 60, 60, 2))
    result = simulate(name, load, requests((1, 0, 100, 50, 2)))
    assert granted(result) == {1: 100}
    assert starts(result) == {1: 0, 2: 150, 3: 100, 4: 160}


@pytest.mark.parametrize("name", SUPPORTING)
def test_a_request_is_placed_only_after_every_waiting_job_has_its_reservation(name):
    # Job 1 holds the machine [0, 100); job 2 (4 wide) waits, planned at 100.  At 2 a
    # request asks for 1 processor on [100, 110): free if only the running job counted,
    # but the plan gives it to job 2.  Exact placement rejects it; 'earliest' moves it
    # behind job 2, to 200.  Job 2 starts at 100 either way.
    load = workload(4, (1, 0, 100, 100, 4), (2, 1, 100, 100, 4))
    asked = requests((1, 2, 100, 10, 1))
    exact = simulate(name, load, asked)
    assert reasons(exact) == {1: "busy"} and starts(exact)[2] == 100
    moved = simulate(name, load, asked, ReservationRules(placement="earliest"))
    assert granted(moved) == {1: 200} and starts(moved)[2] == 100
    assert compute_metrics(moved)["reservations_moved"] == 1


@pytest.mark.parametrize("name", SUPPORTING)
def test_an_early_end_lets_jobs_into_the_gap_before_a_reservation(name):
    # Job 1 (estimate 40) really ends at 10.  The machine is reserved [50, 60).  Job 2
    # (4 wide, 30 s) does not fit in [40, 50) and is planned at 60; after the early end
    # it fits [10, 40) and starts at 10.  Job 3 (45 s) does not fit before 50 and starts
    # when the reservation ends, at 60.
    load = workload(4, (1, 0, 10, 40, 4), (2, 1, 30, 30, 4), (3, 11, 45, 45, 4))
    result = simulate(name, load, requests((1, 0, 50, 10, 4)))
    assert granted(result) == {1: 50}
    assert starts(result) == {1: 0, 2: 10, 3: 60}


@pytest.mark.parametrize("name", SUPPORTING)
def test_the_sliding_window_cap_rejects_what_would_overfill_some_window(name):
    # Window 100 s, cap 1000 node-seconds, 10 processors, all requests made at 0:
    #   1: [10, 60) x 10 = 500
    #   2: [70, 120) x 10: window [20, 120) holds 400 + 500 = 900          -> granted
    #   3: [120, 170) x 10: window [70, 170) holds 500 + 500 = 1000         -> granted
    #   4: [130, 140) x 1: window [70, 170) would hold 1010                 -> over_cap
    #   5: [300, 310) x 10 = 100, alone in its windows                      -> granted
    load = workload(10, (1, 400, 1, 1, 1))
    asked = requests((1, 0, 10, 50, 10), (2, 0, 70, 50, 10), (3, 0, 120, 50, 10),
                     (4, 0, 130, 10, 1), (5, 0, 300, 10, 10))
    result = simulate(name, load, asked, ReservationRules(cap=1000, window=100))
    assert granted(result) == {1: 10, 2: 70, 3: 120, 4: -1, 5: 300}
    assert reasons(result)[4] == "over_cap"
    metrics = compute_metrics(result)
    assert metrics["reservations_rejected.over_cap"] == 1
    assert metrics["reserved_node_seconds"] == 1600


def test_the_papers_throttle_is_256_nodes_for_12_hours_a_week():
    rules = ReservationRules.paper_throttle()
    assert (rules.cap, rules.window) == (256 * 12 * 3600, 7 * 86400)


@pytest.mark.parametrize("name", SUPPORTING)
def test_minimum_duration_and_notice(name):
    load = workload(2, (1, 1000, 1, 1, 1))
    asked = requests((1, 0, 100, 50, 1),      # 50 s long: too short
                     (2, 0, 10, 500, 1),      # asked 10 s ahead: short notice
                     (3, 0, 100, 500, 1))     # fine
    result = simulate(name, load, asked, ReservationRules(min_duration=100, min_notice=60))
    assert reasons(result) == {1: "too_short", 2: "short_notice", 3: ""}
    assert granted(result)[3] == 100


@pytest.mark.parametrize("kwargs", [{"placement": "next"}, {"cap": -1}, {"window": 0},
                                    {"min_notice": 1.5}])
def test_bad_rules_are_input_errors(kwargs):
    from schedlab.errors import InputError

    with pytest.raises(InputError):
        ReservationRules(**kwargs)


def test_requests_of_one_pass_see_each_other():
    # Two requests at 0 for the whole machine at the same time: the first wins.
    load = workload(4, (1, 500, 1, 1, 1))
    result = simulate("fcfs+easy", load, requests((1, 0, 10, 10, 4), (2, 0, 15, 10, 4)))
    assert granted(result) == {1: 10, 2: -1}
    assert reasons(result)[2] == "busy"


# ------------------------------------------------------------------ properties
REQUEST_PARTS = st.tuples(st.integers(0, 150), st.integers(0, 120), st.integers(1, 120),
                          st.integers(1, 64))


def build_requests(parts: list[tuple[int, int, int, int]], processors: int
                   ) -> tuple[Reservation, ...]:
    """Requests 1..n: created at c, starting n s later, for d s on a folded width."""
    return tuple(Reservation(k + 1, c, c + notice, d, 1 + (w - 1) % processors)
                 for k, (c, notice, d, w) in enumerate(parts))


@given(workloads(processors=6), st.lists(REQUEST_PARTS, max_size=6),
       st.sampled_from(SUPPORTING), st.sampled_from(["exact", "earliest"]),
       st.sampled_from([None, 2000]), st.sampled_from([0, 0, 7]))
def test_every_run_honours_its_reservations(load, parts, name, placement, cap, tick):
    asked = build_requests(parts, load.processors)
    rules = ReservationRules(placement=placement, cap=cap, window=300)
    first = simulate(name, load, asked, rules, tick=tick)       # invariants checked here
    second = simulate(name, load, asked, rules, tick=tick)
    assert np.array_equal(first.start, second.start)
    assert np.array_equal(first.reservations.start, second.reservations.start)
    table = first.reservations
    if placement == "exact":
        ok = table.granted
        assert np.array_equal(table.start[ok], table.requested_start[ok])
    elif cap is None:
        assert table.granted.all()
    if tick:
        assert np.all(first.start[first.accepted] % tick == 0)


@given(workloads(processors=6), st.lists(REQUEST_PARTS, max_size=6),
       st.sampled_from(["exact", "earliest"]))
def test_conservative_never_starts_a_job_later_than_promised_despite_reservations(
        load, parts, placement):
    # Catalina semantics: a reservation is placed after the waiting jobs, so no promise
    # made before it is broken (conservative only ever moves a job earlier).
    result = simulate("fcfs+conservative", load, build_requests(parts, load.processors),
                      ReservationRules(placement=placement))
    assert np.all(result.start <= result.planned_start)


class ProfileEasy(EasyBackfilling):
    """EASY that always schedules on the availability profile (never the shadow-time shortcut)."""

    def schedule(self, ctx):
        if ctx.pending_requests:
            decide_requests(ctx, queue_plan(ctx, in_order(ctx.waiting.values(), self.order)),
                            self.reservation_rules)
        if ctx.free and ctx.waiting:
            self._backfill_around(ctx, in_order(ctx.waiting.values(), self.order))


@given(workloads(processors=6), st.sampled_from(["fcfs", "sjf"]))
def test_easy_on_the_profile_is_easy_when_there_are_no_reservations(load, order):
    plain = run(load, EasyBackfilling(order=order))
    assert np.array_equal(run(load, ProfileEasy(order=order)).start, plain.start)


@given(workloads(processors=6), st.lists(REQUEST_PARTS, max_size=6),
       st.sampled_from(["exact", "earliest"]))
def test_the_shadow_time_shortcut_gives_easys_profile_schedule(load, parts, placement):
    asked = build_requests(parts, load.processors)
    rules = ReservationRules(placement=placement)
    hybrid = simulate("fcfs+easy", load, asked, rules)
    assert np.array_equal(simulate(ProfileEasy(), load, asked, rules).start, hybrid.start)
