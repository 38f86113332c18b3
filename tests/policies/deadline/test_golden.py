"""One workload worked by hand through every deadline policy and the baselines.

Four processors; every job is machine-wide, so jobs run one after another.
All three arrive at t=0, in id order (id, runtime = estimate, deadline):

    job 1   5 s   deadline 100
    job 2  10 s   deadline  15
    job 3  10 s   deadline  20

The only order that meets every deadline is 2, 3, 1 (2 must end by 15 and
3 by 20, so both go before 1): 2 on [0,10), 3 on [10,20), 1 on [20,25).

* **qops** (K=5, EDF).  Job 1 is placed at 0.  Job 2 (plan [1@0], insertion
  points [0, 1]): at point 0 it goes first on [0,10) and 1 follows on
  [10,15) — admitted, plan [2@0, 1@10].  Job 3 (points [0, 1, 2]): at point 0
  it goes first on [0,10); TL in EDF order is 2, 1; 2 would end at 20 > 15:
  one violation at position T=1, mid = (0+1)//2 = 0, so 3 leaves the plan
  again, TL = [3, 1] in EDF order and 2 goes on top: 2 [0,10), 3 [10,20),
  1 [20,25) — admitted with one repair at the first insertion point.
  Placements: 3 single-job checks at submission + 1 (job 1) + 2 (job 2) +
  5 (job 3: 3, 2 failed, 2, 3, 1) = 11.
* **qops with K=0**: the violation gives up point 0; at point 1 job 2 keeps
  [0,10), job 3 is placed on [10,20) and 1 on [20,25): the same schedule
  without a repair, after 2 insertion points for job 3 (4 in all).
  Placements 3 + 1 + 2 + 2 + 2 = 10.
* **msb**: job 2 against [1@0]: appended (p=1) it runs [5,15), price 5;
  first (p=0) it would price 10 — so plan [1@0, 2@5].  Job 3, order 1, 2
  fixed: p=2 ends 25 > 20; p=1: 3 [5,15), 2 [15,25) > 15; p=0: 3 [0,10),
  1 [10,15), 2 [15,25) > 15 — rejected.  Jobs 1 and 2 run [0,5), [5,15).
  Placements 3 + 1 + 3 + 6 = 13.
* **mrt** (EDF): job 3 sorts the plan as 2, 3, 1; each extension stays
  strongly feasible; schedule 2, 3, 1 without backtracking.  Placements 3 +
  1 + 3 (job 2: two fits, one refit) + 5 (job 3: three fits; job 2 goes at
  its fit 0; the witnesses of 3 and 1 move to their latest starts 10 and 95,
  where they fit; job 3 is searched from 0 and goes at 10, job 1 from 0 and
  goes at 20).
* **edf** (no admission): EDF queue 2, 3, 1: the same schedule.
* **fcfs+easy** (no admission): 1 [0,5), 2 [5,15), 3 [15,25): job 3 is
  5 s late.
"""

from __future__ import annotations

import pytest

from .helpers import column, deadline_workload, simulate

LOAD = deadline_workload(4, (1, 0, 5, 5, 4, 100), (2, 0, 10, 10, 4, 15), (3, 0, 10, 10, 4, 20))
ORDER_2_3_1 = {1: 20, 2: 0, 3: 10}


@pytest.mark.parametrize("overrun", ["kill", "extend"])
def test_qops_repairs_a_violation_at_the_first_insertion_point(overrun):
    result = simulate("qops", LOAD, overrun)
    assert column(result, "start") == ORDER_2_3_1
    assert column(result, "end") == {1: 25, 2: 10, 3: 20}
    assert column(result, "planned_start") == {1: 0, 2: 0, 3: 10}
    assert result.stats == {"placements": 11, "admitted": 3, "repairs": 1,
                            "insertion_point_tries": 3}


def test_qops_without_repairs_finds_the_schedule_at_the_second_insertion_point():
    result = simulate({"name": "qops", "k": 0}, LOAD)
    assert column(result, "start") == ORDER_2_3_1
    assert result.stats == {"placements": 10, "admitted": 3, "repairs": 0,
                            "insertion_point_tries": 4}


def test_msb_keeps_the_order_and_rejects_the_third_job():
    result = simulate("msb", LOAD)
    assert column(result, "start") == {1: 0, 2: 5, 3: -1}
    assert result.reject_reasons == {3: "no insertion position of 3 keeps every deadline"}
    # Job 3's position 0 ends like position 1 (the new job and job 1 trade equal slots),
    # so its last job is not searched again: 12 placements, not 13.
    assert result.stats == {"placements": 12, "admitted": 2}


def test_mrt_rebuilds_in_edf_order():
    result = simulate("mrt", LOAD)
    assert column(result, "start") == ORDER_2_3_1
    assert result.stats == {"placements": 12, "admitted": 3, "backtracks": 0}


def test_edf_without_admission_runs_the_same_order():
    result = simulate("edf", LOAD)
    assert column(result, "start") == ORDER_2_3_1
    assert result.stats == {}


def test_easy_ignores_deadlines_and_job_3_is_late():
    result = simulate("fcfs+easy", LOAD)
    assert column(result, "start") == {1: 0, 2: 5, 3: 15}
    assert column(result, "end")[3] - 20 == 5
