"""The engine's side of advance reservations, scheduling ticks and the per-user queue limit.

Every schedule here is worked out by hand; times are seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine.result import Result
from schedlab.engine.simulator import run
from schedlab.errors import InputError, PolicyError
from schedlab.policies.base import Policy
from schedlab.policies.registry import make_policy
from schedlab.testing import check_invariants, check_reservations
from strategies import workloads

from .helpers import SUPPORTING, granted, reasons, requests, simulate, starts, workload


class Granting(Policy):
    """Grants every request at the start it asks for and runs jobs FCFS without looking ahead."""

    name = "granting"

    def on_reservation_request(self, ctx, request):
        ctx.grant(request, request.start)

    def schedule(self, ctx):
        for job in list(ctx.waiting.values()):
            if job.width > ctx.free:
                return
            ctx.start(job)


class Deferring(Policy):
    """Leaves every request pending and never decides it."""

    name = "deferring"

    def on_reservation_request(self, ctx, request):
        pass


def test_a_granted_reservation_holds_its_processors_exactly_from_start_to_end():
    # 4 processors; nothing runs.  Reservation 1 holds 3 processors on [10, 30).
    # Job 1 (2 wide) arrives at 12: only 1 processor is free until 30.
    load = workload(4, (1, 12, 5, 5, 2))
    result = simulate(Granting(), load, requests((1, 0, 10, 20, 3)))
    assert starts(result) == {1: 30}
    table = result.reservations
    assert table.series_time.tolist() == [10, 30]
    assert table.series_reserved.tolist() == [3, 0]
    # the busy series counts jobs only: the reserved processors are not "in use"
    assert result.series_busy.max() == 2


def test_same_time_order_finishes_then_reservation_boundaries_then_submissions():
    # Job 1 holds both processors until 10, when reservation 1 (2 wide, [10, 15)) starts:
    # the finish comes first, so the processors are free for it.  Job 2 arrives at 15,
    # the instant the reservation ends, and starts at once.
    load = workload(2, (1, 0, 10, 10, 2), (2, 15, 3, 3, 2))
    result = simulate(Granting(), load, requests((1, 0, 10, 5, 2)))
    assert starts(result) == {1: 0, 2: 15}


def test_a_reservation_granted_to_start_now_takes_its_processors_at_once():
    # Requested at 5 to start at 5; job 2 (2 wide) arrives at 5 too, but the request is
    # decided after the submissions of the instant and the reservation is taken before
    # the scheduling pass, so only 1 processor is left and job 2 waits until 8.
    load = workload(3, (1, 5, 3, 3, 1), (2, 5, 1, 1, 2))
    result = simulate(Granting(), load, requests((1, 5, 5, 3, 2)))
    assert starts(result) == {1: 5, 2: 8}


def test_the_base_policy_refuses_every_request_as_unsupported():
    load = workload(4, (1, 0, 5, 5, 4))
    result = simulate("fcfs", load, requests((1, 0, 10, 5, 1), (2, 1, 2, 5, 4)))
    assert granted(result) == {1: -1, 2: -1}
    assert reasons(result) == {1: "unsupported", 2: "unsupported"}


def test_a_policy_that_runs_a_job_into_a_reservation_is_stopped_at_its_start():
    # Granting grants [10, 20) on all 2 processors, then starts job 1 (estimate 50) at 0.
    load = workload(2, (1, 0, 50, 50, 1))
    with pytest.raises(PolicyError, match="reservation 1 starts at 10 and needs 2 processors, "
                                          "but only 1 are free"):
        run(load, Granting(), reservations=requests((1, 0, 10, 10, 2)))


def test_a_request_left_undecided_after_its_pass_is_a_policy_error():
    load = workload(2, (1, 0, 5, 5, 1))
    with pytest.raises(PolicyError, match="left reservation request 3 undecided"):
        run(load, Deferring(), reservations=requests((3, 0, 10, 10, 2)))


class Misbehaving(Policy):
    """Tries one invalid reservation action, chosen by ``how``."""

    name = "misbehaving"

    def __init__(self, *, how: str) -> None:
        self.how = how

    def on_reservation_request(self, ctx, request):
        if self.how == "past":
            ctx.grant(request, ctx.now - 1)
        elif self.how == "no fit":
            ctx.grant(request, request.start)
        else:
            ctx.refuse(request, "first")
            ctx.refuse(request, "second")

    def schedule(self, ctx):
        for job in list(ctx.waiting.values()):
            if job.width <= ctx.free:
                ctx.start(job)


@pytest.mark.parametrize("how, says", [
    ("past", "its start 4 is in the past"),
    ("no fit", "it does not fit from 6"),
    ("twice", "refuse reservation request 1 at time 5, but it is not pending"),
])
def test_grant_and_refuse_are_validated(how, says):
    # Job 1 runs on both processors [0, 10) when request 1 (2 wide from 6) arrives at 5.
    load = workload(2, (1, 0, 10, 10, 2))
    with pytest.raises(PolicyError, match=says):
        run(load, Misbehaving(how=how), reservations=requests((1, 5, 6, 4, 2)))


@pytest.mark.parametrize("asked, says", [
    (requests((1, 0, 5, 5, 9)), "width is not in \\[1, 8\\]"),
    (requests((1, 0, 5, 0, 1)), "duration is not > 0"),
    (requests((1, 6, 5, 5, 1)), "starts before it is created"),
    (requests((1, 0, 5, 5, 1), (1, 1, 5, 5, 1)), "id is used twice"),
])
def test_requests_that_cannot_be_simulated_are_input_errors(asked, says):
    with pytest.raises(InputError, match=says):
        run(workload(8, (1, 0, 1, 1, 1)), make_policy("fcfs+easy"), reservations=asked)


def test_reservations_need_jobs_killed_at_their_estimate():
    with pytest.raises(InputError, match="overrun='kill'") as caught:
        run(workload(8, (1, 0, 1, 1, 1)), make_policy("fcfs+easy"), overrun="extend",
            reservations=())
    assert caught.value.field == "overrun"


def test_a_run_without_requests_has_no_table_and_an_empty_list_an_empty_one():
    load = workload(2, (1, 0, 1, 1, 1))
    assert run(load, make_policy("fcfs+easy")).reservations is None
    table = run(load, make_policy("fcfs+easy"), reservations=[]).reservations
    assert len(table) == 0 and table.series_time.size == 0


def test_the_invariant_check_catches_a_reservation_that_was_not_held():
    load = workload(4, (1, 0, 5, 5, 1))
    asked = requests((1, 0, 10, 20, 3))
    result = simulate(Granting(), load, asked)
    result.reservations.series_reserved[0] = 2          # pretend it held only 2 processors
    with pytest.raises(AssertionError, match="reserved processors over time"):
        check_reservations(result, asked)
    result.reservations.series_reserved[0] = 3
    result.reservations.width[0] = 4                    # a table that lies about the request
    with pytest.raises(AssertionError, match="does not list the requests given"):
        check_reservations(result, asked)


def test_the_invariant_check_counts_reservations_against_the_capacity():
    # A forged result: job 1 uses 3 of 4 processors on [0, 10) while reservation 1 holds 2.
    load = workload(4, (1, 0, 10, 10, 3))
    result = simulate(Granting(), load, requests((1, 0, 20, 5, 2)))
    result.reservations.start[0] = 5
    result.reservations.series_time[:] = [5, 10]
    with pytest.raises(AssertionError, match="5 processors in use at time 5"):
        check_invariants(result, load)


# ------------------------------------------------------------------------ ticks
@pytest.mark.parametrize("name", ["fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp"])
def test_with_a_tick_the_policy_schedules_only_at_multiples_of_it(name):
    # Job 1 runs [0, 5); job 2 arrives at 3.  Event-driven it starts at 5, when job 1
    # ends; with a 10 s tick the scheduler next looks at 10.
    load = workload(2, (1, 0, 5, 5, 2), (2, 3, 4, 4, 2))
    assert starts(simulate(name, load)) == {1: 0, 2: 5}
    ticked = simulate(name, load, tick=10)
    assert starts(ticked) == {1: 0, 2: 10}
    assert ticked.meta["tick"] == 10


def test_with_a_tick_jobs_still_end_and_are_counted_at_their_true_times():
    load = workload(2, (1, 1, 5, 5, 1), (2, 2, 30, 30, 1))
    result = simulate("fcfs+easy", load, tick=7)
    assert starts(result) == {1: 7, 2: 7}
    assert dict(zip(result.job_id.tolist(), result.end.tolist())) == {1: 12, 2: 37}
    assert result.series_time.tolist() == [1, 2, 7, 12, 37]
    assert result.series_busy.tolist() == [0, 0, 2, 1, 0]
    assert result.series_queue.tolist() == [1, 2, 0, 0, 0]


def test_a_request_seen_at_a_tick_after_its_start_has_passed():
    # Created at 5 for 7; the scheduler looks at 10.  Exact placement rejects it;
    # 'earliest' grants it from 10.
    from schedlab.policies.reservations import ReservationRules

    load = workload(2, (1, 0, 1, 1, 1))
    asked = requests((1, 5, 7, 4, 2))
    assert reasons(simulate("fcfs+easy", load, asked, tick=10)) == {1: "start_passed"}
    moved = simulate("fcfs+easy", load, asked, ReservationRules(placement="earliest"), tick=10)
    assert granted(moved) == {1: 10}


@pytest.mark.parametrize("tick", [-1, 1.5, True])
def test_a_bad_tick_is_an_input_error(tick):
    with pytest.raises(InputError, match="'tick' option"):
        run(workload(2, (1, 0, 1, 1, 1)), make_policy("fcfs"), tick=tick)


# ------------------------------------------------------------ per-user queue limit
def queue_limited(name: str) -> Result:
    # One processor; user 7 submits four 10 s jobs at 0 with at most 2 queued.  Jobs 1 and 2
    # are queued, 3 and 4 held.  Job 1 starts at 0, so job 3 joins the queue at 0; job 2
    # starts at 10 and job 4 joins then.  Job 5 (no known user) is never held.
    load = workload(1, (1, 0, 10, 10, 1, 7), (2, 0, 10, 10, 1, 7), (3, 0, 10, 10, 1, 7),
                    (4, 0, 10, 10, 1, 7), (5, 0, 10, 10, 1, -1))
    return simulate(name, load, max_queued_per_user=2)


@pytest.mark.parametrize("name", SUPPORTING)
def test_a_user_beyond_the_queue_limit_is_held_until_a_queued_job_starts(name):
    result = queue_limited(name)
    assert result.queued.tolist() == [0, 0, 0, 10, 0]
    assert result.meta["max_queued_per_user"] == 2
    # First come in the queue, first served: 1, 2, 5 (queued with the submissions at 0),
    # then 3 (released at 0 when job 1 started), then 4 (released at 10)
    assert starts(result) == {1: 0, 2: 10, 5: 20, 3: 30, 4: 40}


def test_held_jobs_are_not_in_the_queue_series():
    result = queue_limited("fcfs+easy")
    # waiting at 0: jobs 2, 5 and 3 (job 1 runs, job 4 is held)
    assert result.series_time[0] == 0 and result.series_queue[0] == 3


def test_a_queue_limit_must_be_positive():
    with pytest.raises(InputError, match="'max_queued_per_user' option"):
        run(workload(2, (1, 0, 1, 1, 1)), make_policy("fcfs"), max_queued_per_user=0)


def test_reservation_options_are_recorded_in_the_metadata():
    from schedlab.policies.reservations import ReservationRules

    result = simulate("fcfs+easy", workload(2, (1, 0, 1, 1, 1)), requests((1, 0, 5, 5, 1)),
                      ReservationRules(cap=100))
    assert result.meta["reservation_rules"] == {"placement": "exact", "cap": 100,
                                                "window": 604800, "min_duration": 0,
                                                "min_notice": 0}
    assert "tick" not in result.meta and "max_queued_per_user" not in result.meta
    assert np.array_equal(result.reservations.requested_start, [5])


@given(workloads(processors=8), st.sampled_from(["fcfs", "fcfs+easy", "sjf+conservative",
                                                 "ljf+plan", "dynp", "qops"]),
       st.sampled_from(["kill", "extend"]))
def test_the_plain_loop_and_the_full_loop_give_the_same_run(load, name, overrun):
    # A run without requests, ticks or queue limit takes the plain loop; an empty list of
    # requests sends the same run through the full loop (extend: a queue limit no one
    # reaches, since reservations need kill).
    plain = run(load, make_policy(name), overrun=overrun)
    options = {"reservations": []} if overrun == "kill" else {"max_queued_per_user": 10 ** 6}
    full = run(load, make_policy(name), overrun=overrun, **options)
    for column in ("start", "end", "status", "planned_start", "series_time", "series_busy",
                   "series_queue"):
        assert np.array_equal(getattr(plain, column), getattr(full, column)), column
