"""The slurm policy on small schedules checked by hand (docs/reference/policies/slurm.md).

One node of 16 CPUs; jobs are ``(id, submit, runtime, limit in minutes, CPUs)``.
The first case is a schedule a real Slurm 22.05 ran (bf_interval=1, its first
submission at second 3 of a minute): Slurm started the jobs at 0, 0, 70, 31
and 31, and so does the policy.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.api import simulate
from schedlab.engine.profile_kernels import NEVER, ArrayProfile, change, earlier_fit
from schedlab.errors import InputError
from schedlab.policies import slurm_backfill as bf
from schedlab.policies.registry import make_policy
from schedlab.policies.slurm import SlurmScheduling, limit_seconds
from schedlab.policies.slurm_partitions import Nodes
from schedlab.testing import check_policy
from schedlab.workload.job import Job, Workload
from schedlab.workload.slurmconf import Partition
from schedlab.workload.slurmqos import Qos
from strategies import workloads

#: A 12-CPU job waits for an 8-CPU one; a 1-CPU job that fits at once is kept off
#: the node by the 4-CPU job's reservation (whole-node slots).
RESERVED_NODE = [(1, 0, 70, 2, 8), (2, 0, 30, 1, 5), (3, 1, 10, 2, 12), (4, 2, 10, 1, 4),
                 (5, 3, 15, 1, 1)]
#: A wide job blocks the queue; a narrow one behind it fits in the free CPUs.
BLOCKED_HEAD = [(1, 0, 100, 2, 10), (2, 1, 10, 1, 8), (3, 2, 10, 1, 2)]


def starts(jobs: list[tuple[int, int, int, int, int]], policy: object) -> list[int]:
    workload = Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=m * 60, width=c)
                                   for i, s, r, m, c in jobs), processors=16)
    return simulate(workload, policy).start.tolist()


def slurm(**params: object) -> dict[str, object]:
    return {"name": "slurm", "bf_interval": 1, **params}


def test_a_reservation_holds_the_whole_node() -> None:
    # At 30 job 2 ends: the main scheduler stops at job 3 (12 CPUs, 8 free); the backfill
    # pass sees job 2's CPUs still completing.  At 31 job 3 is reserved from 120 (job 1's limit),
    # slot [117, 237) on the clock that starts at second 3; jobs 4 and 5 end by 91, before
    # it: both start.  Before 30, job 4 (4 CPUs, 3 free) is reserved from 60 (job 2's
    # limit), slot [57, 117): job 5 would run [3, 63], into that slot, so it waits,
    # although one CPU was free all along -- EASY starts it at once.
    assert starts(RESERVED_NODE, slurm(clock_origin=3)) == [0, 0, 70, 31, 31]
    assert starts(RESERVED_NODE, "fcfs+easy")[4] == 3


def test_the_main_scheduler_stops_at_the_first_job_that_cannot_start() -> None:
    assert starts(BLOCKED_HEAD, slurm(backfill=False)) == [0, 100, 100]


def test_backfill_starts_a_job_that_ends_before_the_reservation() -> None:
    # Job 2 is reserved from 120 (job 1's limit); job 3 runs [2, 62]: it starts at the
    # backfill pass of its submission, or at the next bf_interval tick.
    assert starts(BLOCKED_HEAD, slurm()) == [0, 100, 2]
    assert starts(BLOCKED_HEAD, slurm(bf_interval=30)) == [0, 100, 30]


def test_a_job_ending_exactly_at_a_slot_is_held_back() -> None:
    # Job 1 holds 10 CPUs until its limit at 60, so job 2 (8 CPUs) is reserved from 60:
    # slot [60, 120).  Job 3's limit (one minute) would end it exactly at 60 if it
    # started at 0; submitted at 0 it runs [0, 60] and touches the slot: held back
    # until job 2 has started.
    jobs = [(1, 0, 60, 1, 10), (2, 0, 30, 1, 8), (3, 0, 10, 1, 2)]
    assert starts(jobs, slurm(completing=0)) == [0, 60, 60]


def test_the_periodic_main_pass_runs_sched_offset_past_the_minute() -> None:
    # An event pass tests one job (default_queue_depth=1): at 5 job 2 starts and job 3
    # waits for the next periodic pass, which tests them all: at 60 on the wall clock,
    # at 20 with sched_offset=20, and on a clock that starts at second 10, at its 10.
    jobs = [(1, 0, 1000, 20, 1), (2, 5, 100, 2, 2), (3, 5, 100, 2, 2)]
    main = {"backfill": False, "default_queue_depth": 1}
    assert starts(jobs, slurm(**main)) == [0, 5, 60]
    assert starts(jobs, slurm(**main, sched_offset=20)) == [0, 5, 20]
    assert starts(jobs, slurm(**main, sched_offset=20, clock_origin=10)) == [0, 5, 10]


def test_a_periodic_pass_that_found_no_job_pending_is_not_run_later() -> None:
    # No job is pending at the periodic pass at 60 (job 1 ran [0, 10]).  Jobs 2 and 3
    # come at 61: the pass of their submission tests one job (job 2 starts) and job 3
    # waits for the next periodic pass, at 120 -- the pass at 60 is not run at 61.
    # The same for the first submission of a run, at 61: the pass at 0 found none.
    # (batch_sched_delay=0: a submission's request is honoured at once.)
    jobs = [(1, 0, 10, 1, 1), (2, 61, 100, 2, 2), (3, 61, 100, 2, 2)]
    main = {"backfill": False, "default_queue_depth": 1, "batch_sched_delay": 0}
    assert starts(jobs, slurm(**main)) == [0, 61, 120]
    assert starts([(1, 61, 100, 2, 2), (2, 61, 100, 2, 2)], slurm(**main)) == [61, 120]


def test_a_submission_waits_batch_sched_delay_after_the_last_call() -> None:
    # The periodic pass at 60 is a call of the main scheduler (no job pending then: job 1
    # ran [0, 10]).  Job 2, submitted at 61, is a request the background thread honours
    # only 3 s after that call: it starts at 63.  Job 3, submitted at 62, waits with it
    # (one pass, at 63: default_queue_depth=1 tests job 2 alone), and then for the next
    # periodic pass, 120.  With a delay of 2 both requests are due at 62; honoured at
    # once (batch_sched_delay=0), each submission has its own pass: 61 and 62.
    jobs = [(1, 0, 10, 1, 1), (2, 61, 100, 2, 2), (3, 62, 100, 2, 2)]
    main = {"backfill": False, "default_queue_depth": 1}
    assert starts(jobs, slurm(**main)) == [0, 63, 120]
    assert starts(jobs, slurm(**main, batch_sched_delay=2)) == [0, 62, 120]
    assert starts(jobs, slurm(**main, batch_sched_delay=0)) == [0, 61, 62]


def test_an_end_waits_batch_sched_delay_after_the_last_call() -> None:
    # Job 2's submission at 8 is a call (8 s after the periodic pass at 0); it does not
    # fit.  Job 1 ends at 10, 2 s after that call: job 2 starts at 11, the request's due
    # second, where the policy wakes for it.  Job 3's submission at 12 is due at 14 (a
    # call; it does not fit), job 2's end at 16 at 17: job 3 starts then.  Honoured at
    # once: 10, and 15 at job 2's end.
    jobs = [(1, 0, 10, 1, 16), (2, 8, 5, 1, 16), (3, 12, 5, 1, 16)]
    main = {"backfill": False}
    assert starts(jobs, slurm(**main)) == [0, 11, 17]
    assert starts(jobs, slurm(**main, batch_sched_delay=0)) == [0, 10, 15]


def test_a_request_due_while_no_job_waited_counts_as_the_last_call() -> None:
    # Job 1's end at 10 comes 1 s after the call for its own submission at 9: that
    # request is due at 12, when no job waits; it was honoured then, so job 2,
    # submitted at 13, waits until 15.
    jobs = [(1, 9, 1, 1, 16), (2, 13, 5, 1, 16)]
    main = {"backfill": False}
    assert starts(jobs, slurm(**main)) == [9, 15]


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=20), st.sampled_from([1, 3, 10]), st.sampled_from([7, 60]))
def test_main_scheduler_calls_between_ticks_are_batch_sched_delay_apart(
        workload: Workload, delay: int, interval: int) -> None:
    # Without backfill every start is a call of the main scheduler: one that is not at a
    # periodic tick comes at least batch_sched_delay seconds after the start before it.
    params = {"backfill": False, "batch_sched_delay": delay, "sched_interval": interval}
    instants = sorted(set(simulate(workload, slurm(**params)).start.tolist()))
    for before, at in pairwise(instants):
        assert at % interval == 0 or at - before >= delay, (before, at)


def test_the_will_run_test_frees_running_jobs_in_groups_of_close_ends() -> None:
    # Job 3 (12 CPUs) needs job 2's 8 CPUs, back at its limit, 60; job 1 holds 2 CPUs
    # until 120.  The will-run test frees ends together up to 30 s past the first
    # end's next 30-second boundary of the wall clock.  From clock 0: 60 -> boundary
    # 90, group to 120, so job 1 goes with job 2 and job 3 is planned from 120, slot
    # [120, 180): job 4 (2 CPUs, one minute) runs [5, 65] before it and starts at its
    # submission.  From clock 15: job 2's end is 75 on the clock, boundary 90, group
    # to 120 (105 here): job 1 is not in it, job 3 is planned from 60, slot [45, 105),
    # and job 4 waits until job 3 starts.
    jobs = [(1, 0, 100, 2, 2), (2, 0, 50, 1, 8), (3, 1, 10, 1, 12), (4, 5, 10, 1, 2)]
    assert starts(jobs, slurm()) == [0, 0, 50, 5]
    assert starts(jobs, slurm(clock_origin=15)) == [0, 0, 50, 50]


def test_will_run_reports_the_last_end_of_the_group() -> None:
    # Ends 60 and 100 form the first group (boundary 90, to 120); the reach doubles to
    # 60, taking 140 and 150 (to 150); then to 240, taking 300.  From clock 25 the
    # first end is 85 on the clock: boundary 90 (65 here), group to 95: 60 alone.
    times = np.array([0, 60, 100, 140, 150, 300], np.int64)
    free = np.array([0, 4, 6, 8, 10, 16], np.int64)

    def found(fits: int, origin: int = 0) -> int:
        return int(bf.will_run(times, free, len(times), fits, 0, origin))

    assert [found(fits) for fits in (0, 60, 100, 140, 150, 300)] == [0, 100, 100, 150, 150,
                                                                      300]
    assert [found(60, 25), found(100, 25)] == [60, 100]


def test_bf_window_leaves_far_jobs_unreserved() -> None:
    # With a one-minute window job 2's start at 120 is beyond it: no reservation, so
    # job 3 (two minutes) backfills at once.
    jobs = [(1, 0, 100, 2, 10), (2, 1, 10, 1, 8), (3, 2, 10, 2, 2)]
    assert starts(jobs, slurm())[2] == 100
    assert starts(jobs, slurm(bf_window=1))[2] == 2


def test_bf_min_prio_reserve_leaves_low_priority_jobs_unreserved() -> None:
    # Under the age factor every job's priority is at least 1: with bf_min_prio_reserve=1
    # job 2 is reserved from 120 and job 3 (two minutes) waits as in the case above; with
    # a threshold no priority reaches, job 2 gets no reservation and job 3 starts at once.
    jobs = [(1, 0, 100, 2, 10), (2, 1, 10, 1, 8), (3, 2, 10, 2, 2)]
    aged = {"priority": "multifactor", "weight_age": 1000}
    assert starts(jobs, slurm(**aged, bf_min_prio_reserve=1))[2] == 100
    assert starts(jobs, slurm(**aged, bf_min_prio_reserve=10**6))[2] == 2


def test_bf_max_job_user_tests_as_many_jobs_of_a_user_per_pass() -> None:
    # All jobs are one user's.  Job 2 is tested first in every pass (and reserved), so
    # with bf_max_job_user=1 jobs 3 and 4 are never tested and start with job 2 at 100.
    # With 2, the pass at 2 tests jobs 2 and 3 (3 starts) but not 4, which waits for
    # the next pass something changed for: job 3's end at 12.
    jobs = BLOCKED_HEAD + [(4, 2, 10, 1, 2)]
    assert starts(jobs, slurm()) == [0, 100, 2, 2]
    assert starts(jobs, slurm(bf_max_job_user=1)) == [0, 100, 100, 100]
    assert starts(jobs, slurm(bf_max_job_user=2)) == [0, 100, 2, 12]


def test_multifactor_job_size_orders_the_queue() -> None:
    # Jobs 2 (2 CPUs) and 3 (16 CPUs) wait behind job 1; with the job-size weight the
    # wide job has the higher priority and goes first.
    jobs = [(1, 0, 50, 1, 16), (2, 1, 10, 1, 2), (3, 2, 10, 1, 16)]
    assert starts(jobs, slurm()) == [0, 50, 60]
    sized = starts(jobs, slurm(priority="multifactor", weight_job_size=1000))
    assert sized == [0, 60, 50]


def test_backfill_sees_an_ended_job_one_second_late() -> None:
    # Job 2 (4 CPUs) fits only in job 1's CPUs.  As the queue's head the main scheduler
    # starts it when job 1 ends.  Behind a blocked head (job 3, 16 CPUs, reserved from
    # 120) only the backfill pass can start job 4, one second after job 1's end (job 1
    # still completes then), or at once with completing=0.
    head = [(1, 0, 30, 1, 14), (2, 1, 10, 1, 4)]
    assert starts(head, slurm()) == [0, 30]
    behind = [(1, 0, 30, 1, 14), (2, 0, 100, 2, 2), (3, 1, 10, 1, 16), (4, 2, 10, 1, 4)]
    assert starts(behind, slurm()) == [0, 0, 100, 31]
    assert starts(behind, slurm(completing=0)) == [0, 0, 100, 30]


def test_time_limits_are_whole_minutes() -> None:
    assert limit_seconds(Job(id=1, submit=0, runtime=5, estimate=61, width=1)) == 120
    assert limit_seconds(Job(id=1, submit=0, runtime=5, estimate=60, width=1)) == 60


def test_bad_parameters_are_input_errors() -> None:
    with pytest.raises(InputError, match="bf_interval"):
        make_policy({"name": "slurm", "bf_interval": 0})
    with pytest.raises(InputError, match="priority"):
        make_policy({"name": "slurm", "priority": "fairshare"})


def test_conformance() -> None:
    check_policy(SlurmScheduling(bf_interval=1))


def ends(jobs: list[tuple[int, int, int, int, int]], policy: object) -> list[int]:
    workload = Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=m * 60, width=c)
                                   for i, s, r, m, c in jobs), processors=16)
    return simulate(workload, policy).end.tolist()


#: A job of 200 s with a two-minute limit, and one waiting for the whole machine.
OVERRUNNING = [(1, 0, 200, 2, 16), (2, 1, 10, 1, 16)]


@pytest.mark.parametrize("over_time_limit, first_end", [(0, 120), (1, 180), (5, 200),
                                                         (-1, 200)])
def test_over_time_limit_kills_that_many_minutes_past_the_limit(over_time_limit: int,
                                                                  first_end: int) -> None:
    # Killed at its limit (120) plus the over-time, or finished at 200 within it (-1:
    # UNLIMITED); the job behind it starts when it ends.
    policy = slurm(over_time_limit=over_time_limit)
    assert ends(OVERRUNNING, policy) == [first_end, first_end + 10]
    result = simulate(Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=m * 60,
                                              width=c) for i, s, r, m, c in OVERRUNNING),
                               processors=16), policy)
    assert result.status_names()[0] == ("killed" if first_end < 200 else "finished")


#: Job 1 (10 CPUs) overruns its two-minute limit; job 2 (8 CPUs) waits for it; job 3
#: (2 CPUs) arrives at 150, when job 1 is past its limit.
PAST_THE_LIMIT = [(1, 0, 200, 2, 10), (2, 1, 10, 1, 8), (3, 150, 10, 1, 2)]


def test_planning_uses_the_limit_and_guesses_the_end_of_a_job_past_it() -> None:
    # Killed at 120 without over-time: job 2 starts then, job 3 at its arrival.
    assert starts(PAST_THE_LIMIT, slurm()) == [0, 120, 150]
    # OverTimeLimit=2: job 1 runs to 200.  At 150 the backfill map expects it to end at
    # 120 + KillWait 30 + 120 = 270: job 2 is reserved from 270, slot [240, 300), and
    # job 3 ([150, 210]) backfills before it.  Job 2 starts when job 1 ends.
    assert starts(PAST_THE_LIMIT, slurm(over_time_limit=2)) == [0, 200, 150]


def test_kill_wait_moves_the_guessed_end() -> None:
    # One-second slots; job 3 now has a two-minute limit and would run [150, 270].  With
    # KillWait 30 job 2 is reserved from 270: job 3 would end exactly when the slot
    # begins, and is held back until job 1 ends at 200; with KillWait 31 it starts.
    jobs = [(1, 0, 200, 2, 10), (2, 1, 10, 1, 8), (3, 150, 10, 2, 2)]
    assert starts(jobs, slurm(over_time_limit=2, bf_resolution=1)) == [0, 200, 200]
    assert starts(jobs, slurm(over_time_limit=2, bf_resolution=1, kill_wait=31)) \
        == [0, 200, 150]


def test_conformance_with_over_time() -> None:
    check_policy(SlurmScheduling(bf_interval=1, over_time_limit=1))


# ---------------------------------------------------------------------- partitions
#: Four nodes of 4 CPUs, n1..n4 (positions 0..3).
A = Partition("a", nodes=(0, 1), default=True)
B = Partition("b", nodes=(2, 3))
EVERY = Partition("all", nodes=())


def placed(jobs: list[tuple[int, int, int, int, int, int]], names: tuple[str, ...],
           **params: object):
    """Jobs ``(id, submit, runtime, limit in minutes, CPUs, queue number)`` of a
    workload naming its queues ``names``, on four nodes of 4 CPUs."""
    workload = Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=m * 60, width=c,
                                       queue=q) for i, s, r, m, c, q in jobs),
                        processors=16, names={"queue": names})
    return simulate(workload, make_policy({"name": "slurm", "bf_interval": 1,
                                           "cpus_per_node": 4, "queue_names": names,
                                           **params}))


def test_a_partition_that_cannot_start_its_job_stops_only_itself() -> None:
    # Job 2 (a, 4 CPUs) finds 2 free in a: a stops.  Job 3 (b, 8 CPUs) starts at once in
    # b.  On one partition of 16 CPUs job 2 starts at 1 and job 3 waits for its end.
    # (batch_sched_delay=0: every submission's request is honoured at once.)
    jobs = [(1, 0, 100, 2, 6, 1), (2, 1, 10, 1, 4, 1), (3, 2, 10, 1, 8, 2)]
    main = {"backfill": False, "batch_sched_delay": 0}
    assert placed(jobs, ("a", "b"), **main, partitions=(A, B)).start.tolist() == [0, 100, 2]
    assert placed(jobs, ("a", "b"), **main).start.tolist() == [0, 1, 11]


def test_no_later_job_may_use_the_nodes_of_a_stopped_partition() -> None:
    # a (n1, n2) stops at job 2; job 3 of "all" needs 10 CPUs: 10 are free, but only 8
    # on nodes outside a, so it waits for job 1's end, where both start.
    jobs = [(1, 0, 100, 2, 6, 1), (2, 1, 10, 1, 4, 1), (3, 2, 10, 1, 10, 2)]
    result = placed(jobs, ("a", "all"), backfill=False, partitions=(A, EVERY))
    assert result.start.tolist() == [0, 100, 100]


def test_the_higher_priority_tier_goes_first() -> None:
    # Jobs 2 (low) and 3 (high) wait for the whole machine; at 100 job 3's partition
    # has the higher PriorityTier and starts first, although job 2 came earlier.
    low, high = Partition("low", default=True), Partition("high", priority_tier=2)
    jobs = [(1, 0, 100, 2, 16, 1), (2, 1, 100, 2, 16, 1), (3, 2, 100, 2, 16, 2)]
    assert placed(jobs, ("low", "high"), partitions=(low, high)).start.tolist() \
        == [0, 200, 100]
    assert placed(jobs, ("low", "high"), partitions=(low, Partition("high"))) \
        .start.tolist() == [0, 100, 200]


def test_the_partition_factor_weighs_priority_job_factor() -> None:
    # One tier; "high" has PriorityJobFactor 3 (factor 1), "low" 1 (factor 1/3): with
    # PriorityWeightPartition=300 job 3 has priority 300, job 2 100, and goes first.
    low, high = Partition("low", default=True), Partition("high", priority_job_factor=3)
    jobs = [(1, 0, 100, 2, 16, 1), (2, 1, 100, 2, 16, 1), (3, 2, 100, 2, 16, 2)]
    weighted = placed(jobs, ("low", "high"), partitions=(low, high), priority="multifactor",
                      weight_partition=300)
    assert weighted.start.tolist() == [0, 200, 100]
    unweighted = placed(jobs, ("low", "high"), partitions=(low, high),
                        priority="multifactor")
    assert unweighted.start.tolist() == [0, 100, 200]


def test_jobs_the_partitions_refuse_are_rejected() -> None:
    # Job 1: two minutes above a's MaxTime of one; job 2: a partition the configuration
    # lacks; job 3: more CPUs than b has; job 4 runs in b.
    short = A._replace(max_time=60)
    jobs = [(1, 0, 10, 2, 2, 1), (2, 0, 10, 1, 2, 3), (3, 0, 10, 1, 12, 2),
            (4, 0, 10, 1, 2, 2)]
    result = placed(jobs, ("a", "b", "gpu"), partitions=(short, B))
    assert result.status_names() == ["rejected", "rejected", "rejected", "finished"]
    assert sorted(result.reject_reasons.values()) == [
        "more CPUs than partition 'b' has", "no partition 'gpu' in the configuration",
        "time limit above the MaxTime of partition 'a'"]


def test_jobs_of_no_partition_go_to_the_default_one() -> None:
    # Queue -1 (not known) and, without queue names, an SWF queue number that names no
    # partition: both run in the default partition b, one after the other.
    workload = Workload(jobs=(Job(1, 0, 10, 60, 8, queue=-1), Job(2, 0, 10, 60, 8, queue=7)),
                        processors=16)
    policy = make_policy({"name": "slurm", "cpus_per_node": 4,
                          "partitions": (A._replace(default=False), B._replace(default=True))})
    assert simulate(workload, policy).start.tolist() == [0, 10]


def test_nodes_give_cpus_first_fit_and_take_them_back() -> None:
    nodes = Nodes((A, EVERY), 4, 4)
    assert nodes.tracked and nodes.shared == [{1: 2}, {0: 2}]
    nodes.take(1, 1, 6)                       # n1 (4) and n2 (2)
    assert nodes.node_free == [0, 2, 4, 4] and nodes.part_free == [2, 10]
    assert nodes.free(1, blocked={0, 1}) == 8
    nodes.take(2, 1, 5, blocked={0, 1})       # n3 (4) and n4 (1)
    assert nodes.held[2] == [(2, 4), (3, 1)] and nodes.cpus_in(nodes.held[2], 0) == 0
    assert nodes.give_back(1) == [(0, 4), (1, 2)] and nodes.part_free == [8, 11]
    assert not Nodes((EVERY,), 4, 4).tracked


def test_bad_partitions_are_input_errors() -> None:
    with pytest.raises(InputError, match="tuple of Partition"):
        make_policy({"name": "slurm", "partitions": ("a",)})
    with pytest.raises(InputError, match="names one twice"):
        make_policy({"name": "slurm", "partitions": (A, A)})
    with pytest.raises(InputError, match="names node 4, but the machine has 2 nodes"):
        simulate(Workload(jobs=(Job(1, 0, 10, 60, 1),), processors=8),
                 make_policy({"name": "slurm", "cpus_per_node": 4, "partitions": (B,)}))


def test_conformance_with_partitions() -> None:
    check_policy(SlurmScheduling(bf_interval=1, cpus_per_node=2,
                                 partitions=(EVERY, Partition("p", nodes=(0,)))))


# ---------------------------------------------------------------------- QOS
def with_qos(jobs: list[tuple[int, int, int, int, int, int, int]], table: tuple[Qos, ...],
             names: tuple[str, ...] = (), **params: object):
    """Jobs ``(id, submit, runtime, limit in minutes, CPUs, user, QOS number)`` on one
    node of 16 CPUs under the QOS ``table`` (the workload names its QOS ``names``)."""
    workload = Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=m * 60, width=c,
                                       user=u, qos=q) for i, s, r, m, c, u, q in jobs),
                        processors=16)
    return simulate(workload, make_policy({"name": "slurm", "bf_interval": 1, "qos": table,
                                           "qos_names": names, **params}))


def test_max_jobs_per_user_passes_over_a_job_without_stopping_the_queue() -> None:
    # User 1 may run one job at a time: job 2 waits for job 1's end at 10, and job 3
    # (user 2) behind it starts at once -- in both schedulers, without backfill too.
    jobs = [(1, 0, 10, 1, 2, 1, -1), (2, 0, 10, 1, 2, 1, -1), (3, 0, 10, 1, 2, 2, -1)]
    for backfill in (True, False):
        result = with_qos(jobs, (Qos("normal", max_jobs_per_user=1),), backfill=backfill)
        assert result.start.tolist() == [0, 10, 0]


def test_max_submit_jobs_per_user_refuses_submissions_beyond_it() -> None:
    # Two jobs of user 1 pending or running at most: job 3 is refused at 2; job 4 comes
    # at 150, after job 1 ended (100), and is taken.
    jobs = [(1, 0, 100, 2, 16, 1, -1), (2, 1, 100, 2, 16, 1, -1), (3, 2, 10, 1, 1, 1, -1),
            (4, 150, 10, 1, 1, 1, -1)]
    result = with_qos(jobs, (Qos("normal", max_submit_per_user=2),))
    assert result.status_names() == ["finished", "finished", "rejected", "finished"]
    assert result.reject_reasons == {3: "MaxSubmitJobsPerUser of QOS 'normal' reached"}


def test_cpu_limits_per_user_and_per_qos() -> None:
    # MaxTRESPerUser cpu=8: user 1's 4-CPU job waits for its 6-CPU one (10 would be over);
    # a 10-CPU job of user 1 could never start and is refused.  GrpTRES cpu=8 on "grp":
    # users 3 and 4 together hold at most 8.
    per_user = with_qos([(1, 0, 10, 1, 6, 1, 1), (2, 0, 10, 1, 4, 1, 1),
                         (3, 0, 10, 1, 10, 1, 1), (4, 0, 10, 1, 4, 2, 1)],
                        (Qos("capped", max_cpus_per_user=8),), ("capped",))
    assert per_user.start.tolist()[:2] == [0, 10] and per_user.start.tolist()[3] == 0
    assert per_user.reject_reasons == {3: "more CPUs than the MaxTRESPerUser cpu=8 of QOS "
                                          "'capped'"}
    group = with_qos([(1, 0, 10, 1, 6, 3, 1), (2, 0, 10, 1, 4, 4, 1), (3, 0, 10, 1, 2, 4, 1)],
                     (Qos("grp", grp_cpus=8),), ("grp",))
    assert group.start.tolist() == [0, 10, 0]


def test_qos_priority_weighs_in_multifactor() -> None:
    # Jobs 2 (QOS low, priority 10) and 3 (high, 100) wait for the machine; with
    # PriorityWeightQOS 1000 job 3 has priority 1000 against 100 and goes first.
    table = (Qos("low", priority=10), Qos("high", priority=100))
    jobs = [(1, 0, 50, 1, 16, 1, 1), (2, 1, 10, 1, 16, 1, 1), (3, 2, 10, 1, 16, 1, 2)]
    assert with_qos(jobs, table, ("low", "high"), priority="multifactor").start.tolist() \
        == [0, 50, 60]
    assert with_qos(jobs, table, ("low", "high"), priority="multifactor",
                    weight_qos=1000).start.tolist() == [0, 60, 50]


def test_a_qos_the_table_lacks_is_refused_and_no_qos_takes_normal() -> None:
    # Job 1 names QOS "gpu": refused.  Job 2 names none: "normal", whose MaxJobsPU 1
    # holds job 3 (also none) until job 2 ends.
    jobs = [(1, 0, 10, 1, 1, 1, 2), (2, 0, 10, 1, 1, 1, -1), (3, 0, 10, 1, 1, 1, -1)]
    result = with_qos(jobs, (Qos("normal", max_jobs_per_user=1),), ("normal", "gpu"))
    assert result.status_names()[0] == "rejected"
    assert result.reject_reasons == {1: "no QOS 'gpu' in the QOS table"}
    assert result.start.tolist()[1:] == [0, 10]


def test_conformance_with_qos() -> None:
    check_policy(SlurmScheduling(bf_interval=1, qos=(Qos("normal", max_jobs_per_user=2,
                                                         max_cpus_per_user=6),)))


def test_a_job_the_walk_starts_holds_its_cpus_for_the_later_reservations() -> None:
    # 12 CPUs, three nodes of 4.  At 10 the main scheduler stops at job 2 (12 CPUs; job 1
    # holds 4): the backfill pass reserves it every node from 1020, starts job 3 now (4
    # CPUs to 130), and reserves job 4 (8 CPUs) two nodes from 130, which job 3's CPUs
    # keep it from before: so job 5, asking for two nodes to 611, cannot start now.
    jobs = (Job(id=1, submit=0, runtime=1000, estimate=1000, width=4),
            Job(id=2, submit=10, runtime=60, estimate=60, width=12),
            Job(id=3, submit=10, runtime=120, estimate=120, width=4),
            Job(id=4, submit=10, runtime=60, estimate=60, width=8),
            Job(id=5, submit=10, runtime=600, estimate=600, width=4, nodes=2))
    start = simulate(Workload(jobs=jobs, processors=12),
                     SlurmScheduling(cpus_per_node=4, bf_interval=1)).start.tolist()
    assert start[2] == 10
    assert start[4] > 10


def slurms_will_run(ends: list[tuple[int, int]], free_now: int, width: int, now: int,
                    origin: int) -> int:
    """Slurm's will-run loop as its source reads, job by job: ``ends`` are the running
    jobs' ``(end, CPUs)``; the start reported, or -1."""
    if free_now >= width:
        return now
    jobs = sorted(ends)
    free, window, boundary, k = free_now, 30, 0, 0
    while k < len(jobs):
        if k == 0:
            wall = jobs[0][0] + origin
            boundary = wall + (30 - wall % 30) - origin
        while True:                 # this group: always its first job, then the close ones
            free += jobs[k][1]
            k += 1
            if k == len(jobs) or jobs[k][0] > boundary + window:
                break
        window *= 2
        while k < len(jobs) and jobs[k][0] > boundary + window:
            window *= 2
        if free >= width:
            return jobs[k - 1][0]
    return -1


@given(st.lists(st.tuples(st.integers(1, 400), st.integers(1, 4)), min_size=1, max_size=12),
       st.integers(0, 3), st.integers(1, 40), st.integers(0, 10**6))
@settings(max_examples=300, deadline=None)
def test_will_run_on_the_map_is_slurms_loop_job_by_job(ends: list[tuple[int, int]],
                                                      free_now: int, width: int,
                                                      origin: int) -> None:
    # The map merges the ends of one second; Slurm's loop takes the jobs one at a time.
    capacity = free_now + sum(cpus for _, cpus in ends)
    width = min(width, capacity)
    now = 0
    cpus = ArrayProfile(capacity, now)
    cpus.make_room(2 * len(ends) + 2)
    for end, held in ends:
        cpus.size = change(cpus.times, cpus.free, cpus.size, now, end - now, -held)
    fits = earlier_fit(cpus.times, cpus.free, cpus.size, width, 60, now, NEVER)
    found = int(bf.will_run(cpus.times, cpus.free, cpus.size, fits, now, origin))
    assert found == slurms_will_run(ends, free_now, width, now, origin)
