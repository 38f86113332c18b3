"""Why the orderings of conservative backfilling differ (docs/reference/policies/backfilling.md).

The ordering of ``ORDER+conservative`` decides only the order of the
compression after a job ends before its estimate, and it sorts by estimate:
an overestimated job sorted last finds the freed room taken.  With exact
estimates nothing ends early and the three orderings give one schedule.
Job rows are (id, submit, runtime, estimate, width).
"""

from __future__ import annotations

from schedlab.workload.transforms import perfect_estimates

from .helpers import by_id, simulate, workload

ORDERINGS = ("fcfs+conservative", "sjf+conservative", "ljf+conservative")

# 2 processors.  1 (asks 100, runs 10) holds both; 2 (asks 1000, runs 10, width 1)
# is booked on [100,1100); 3 (asks and runs 50, width 2) only fits at 1100.
OVERESTIMATED = workload(2, (1, 0, 10, 100, 2), (2, 1, 10, 1000, 1), (3, 2, 50, 50, 2))


def test_sjf_compression_moves_the_overestimated_long_job_last_and_it_loses_the_room():
    """t=10: 1 ends early, both processors free on [10,100).

    FCFS (and LJF: 2 asks most) compress 2 first: it moves to 10, on one
    processor, so 3 (width 2) can move only to 2's expected end, 1010;
    2 ends at 20 and the next compression moves 3 to 20.  Waits 0, 9, 18.
    SJF compresses 3 (asks 50) first: it takes [10,60), and 2 moves only
    to 60.  Waits 0, 59, 8: the mean rises from 9 to 22.3, all of it the
    10-second job that asked for 1000.
    """
    starts = {name: by_id(simulate(name, OVERESTIMATED), "start") for name in ORDERINGS}
    assert starts["fcfs+conservative"] == {1: 0, 2: 10, 3: 20}
    assert starts["ljf+conservative"] == {1: 0, 2: 10, 3: 20}
    assert starts["sjf+conservative"] == {1: 0, 2: 60, 3: 10}


def test_with_exact_estimates_the_orderings_of_conservative_give_one_schedule():
    """Nothing ends before its estimate, so no compression runs: 1 on [0,10), 2 at 10, 3 at 20."""
    exact = perfect_estimates(OVERESTIMATED)
    for name in ORDERINGS:
        assert by_id(simulate(name, exact), "start") == {1: 0, 2: 10, 3: 20}
