"""What QoPS, MSB and MRT share (AdmissionPolicy), and EDF without admission control.

Jobs are (id, submit, runtime, estimate, width, deadline); 4 processors.
"""

from __future__ import annotations

import pytest

from schedlab.metrics import compute_metrics
from schedlab.testing import check_policy

from .helpers import ADMISSION, column, deadline_workload, simulate


@pytest.mark.parametrize("name", ADMISSION)
def test_a_deadline_that_cannot_be_met_on_an_idle_queue_is_rejected_at_once(name):
    # job 1 holds the machine until 10; job 2 (5 s) could end at 15 at the earliest
    load = deadline_workload(4, (1, 0, 10, 10, 4, 100), (2, 1, 5, 5, 4, 14))
    result = simulate(name, load)
    assert column(result, "status") == {1: 0, 2: 2}
    assert result.reject_reasons == {2: "deadline 14 is before its earliest possible end 15"}


@pytest.mark.parametrize("name", ADMISSION)
def test_a_job_without_deadline_is_appended_and_moves_nobody(name):
    # QoPS and MSB would put a lax 5 s newcomer before job 1; one without deadline
    # goes behind the plan.
    load = deadline_workload(4, (1, 0, 10, 10, 4, 100), (2, 0, 5, 5, 4, None))
    result = simulate(name, load)
    assert column(result, "start") == {1: 0, 2: 10}
    lax = deadline_workload(4, (1, 0, 10, 10, 4, 100), (2, 0, 5, 5, 4, 100))
    if name != "mrt":                       # MRT rebuilds in EDF order: 1 before 2
        assert column(simulate(name, lax), "start") == {1: 5, 2: 0}


@pytest.mark.parametrize("name", ADMISSION)
def test_an_early_end_compresses_the_plan(name):
    # Job 1 (estimate 10) really ends at 4; job 2 was planned at 10 and starts at 4;
    # job 3 (2 processors) was planned beside job 2 at 10 and moves to 4 as well.
    load = deadline_workload(4, (1, 0, 4, 10, 4, 50), (2, 1, 5, 5, 2, 50), (3, 2, 5, 5, 2, 60))
    result = simulate(name, load)
    assert column(result, "planned_start") == {1: 0, 2: 10, 3: 10}
    assert column(result, "start") == {1: 0, 2: 4, 3: 4}


@pytest.mark.parametrize("name", ADMISSION)
def test_an_overrun_under_extend_forces_a_repair_and_the_miss_is_measured(name):
    """Job 1 estimates 10 s but runs 20 s under overrun="extend".

    Job 2 (5 s, deadline 16) is admitted for [10,15).  At 10 job 1 still holds
    the machine: the plan is rebuilt from the machine as it is, every second
    until job 1 ends at 20; job 2 runs [20,25) and misses its deadline by 9.
    """
    load = deadline_workload(4, (1, 0, 20, 10, 4, 100), (2, 1, 5, 5, 4, 16))
    result = simulate(name, load, overrun="extend")
    assert column(result, "start") == {1: 0, 2: 20}
    assert result.stats["plan_repairs"] == 10          # at 10, 11, ..., 19
    metrics = compute_metrics(result)
    assert (metrics["deadline_missed"], metrics["deadline_max_lateness"]) == (1, 9)


@pytest.mark.parametrize("name", ADMISSION)
def test_under_kill_an_overrunning_job_keeps_the_plan(name):
    # The same workload under "kill": job 1 is killed at 10 and job 2 runs [10,15).
    load = deadline_workload(4, (1, 0, 20, 10, 4, 100), (2, 1, 5, 5, 4, 16))
    result = simulate(name, load)
    assert column(result, "start") == {1: 0, 2: 10}
    assert "plan_repairs" not in result.stats


@pytest.mark.parametrize("name", [*ADMISSION, "edf"])
def test_conformance_suite(name):
    check_policy(name)


def test_edf_backfills_like_easy_around_the_earliest_deadline():
    """Job 1 fills the machine until 10; at 1 three jobs arrive.

    EDF queue at 10: 3 (deadline 50, width 2), 2 (deadline 100, width 4),
    4 (no deadline).  3 starts; 2 does not fit and gets the shadow time 15;
    4 (width 2, 5 s) ends by 15 and backfills.  2 runs at 15.  FCFS EASY
    starts 2 first at 10, then 3 and 4 at 15.
    """
    load = deadline_workload(4, (1, 0, 10, 10, 4, 1000), (2, 1, 5, 5, 4, 100),
                             (3, 1, 5, 5, 2, 50), (4, 1, 5, 5, 2, None))
    assert column(simulate("edf", load), "start") == {1: 0, 2: 15, 3: 10, 4: 10}
    assert column(simulate("fcfs+easy", load), "start") == {1: 0, 2: 10, 3: 15, 4: 15}


def test_same_instant_submissions_are_decided_in_workload_order():
    # Two jobs at 0, each alone would fit by its deadline at 0; together one must wait
    # 10 s.  QoPS tests job 1 first (admitted at 0), then job 2 (deadline 10): point 0
    # puts 2 first and 1 after it, ending at 20 <= 25.
    load = deadline_workload(4, (1, 0, 10, 10, 4, 25), (2, 0, 10, 10, 4, 10))
    result = simulate("qops", load)
    assert column(result, "start") == {1: 10, 2: 0}
    assert column(result, "planned_start") == {1: 0, 2: 0}


# ------------------------------------------------------------------------ ticks
@pytest.mark.parametrize("name", ADMISSION)
def test_with_a_tick_admission_counts_on_starts_at_ticks_only(name):
    """One processor, a 900 s tick: job 1 runs [0,1000); the next start can be at 1800.

    Job 2 (500 s) would end at 1500 right after job 1, but it can start at the
    tick 1800 at the earliest and end at 2300: with deadline 1600 it is
    rejected; with deadline 2300 it is admitted for 1800 and keeps it.
    """
    tight = deadline_workload(1, (1, 0, 1000, 1000, 1, 1000), (2, 0, 500, 500, 1, 1600))
    result = simulate(name, tight, tick=900)
    assert column(result, "status") == {1: 0, 2: 2}
    enough = deadline_workload(1, (1, 0, 1000, 1000, 1, 1000), (2, 0, 500, 500, 1, 2300))
    result = simulate(name, enough, tick=900)
    assert column(result, "planned_start") == {1: 0, 2: 1800}
    assert column(result, "end") == {1: 1000, 2: 2300}


@pytest.mark.parametrize("name", ADMISSION)
def test_with_a_tick_a_job_submitted_between_ticks_is_planned_from_the_next_one(name):
    # Job 2 arrives at 100 and is seen at the tick 900: it ends at 1400 at the earliest.
    load = deadline_workload(4, (1, 0, 300, 300, 4, 1000), (2, 100, 500, 500, 4, 1399),
                             (3, 100, 500, 500, 4, 2000))
    result = simulate(name, load, tick=900)
    assert column(result, "status") == {1: 0, 2: 2, 3: 0}
    assert column(result, "start") == {1: 0, 2: -1, 3: 900}
    assert result.reject_reasons[2] == "deadline 1399 is before its earliest possible end 1400"
