"""QoPS (Islam et al., §3, Fig. 3): insertion points, repairs and heuristics, by hand.

The admission test is called directly: an empty 4-processor machine at
t=0, machine-wide jobs (so they run one after another), every job submitted
at 0.  A job is (id, estimate, deadline).
"""

from __future__ import annotations

import pytest

from schedlab.engine.profile import Profile
from schedlab.errors import InputError
from schedlab.policies.deadline.common import edf_key, llf_key
from schedlab.policies.deadline.qops import QoPS, insertion_points, qops_admission
from schedlab.workload.job import Job

from .helpers import column, deadline_workload, simulate


def job(job_id: int, estimate: int, deadline: int) -> Job:
    return Job(job_id, 0, estimate, estimate, 4, deadline=deadline)


def admit(plan: list[tuple[Job, int]], new: Job, *, k: int = 5, key=edf_key):
    limits = {j.id: j.deadline for j, _ in plan} | {new.id: new.deadline}
    return qops_admission(Profile(4, 0), 0, plan, new, limits, k=k, key=key)


def starts(decision) -> list[tuple[int, int]]:
    return [(j.id, start) for j, start in decision.plan]


@pytest.mark.parametrize("n,points", [(0, [0]), (1, [0, 1]), (2, [0, 1, 2]), (5, [0, 3, 4, 5]),
                                      (8, [0, 4, 6, 7, 8]), (16, [0, 8, 12, 14, 15, 16])])
def test_insertion_points_halve_the_rest_of_the_plan(n, points):
    # N - floor(N / 2^i): 0, N/2, 3N/4, 7N/8, ... and the end N
    assert insertion_points(n) == points


def test_a_lax_newcomer_goes_first_at_insertion_point_0():
    # plan A [0,10), B [10,20); X (5 s) is reserved first, then TL = A, B in EDF order
    a, b, x = job(1, 10, 100), job(2, 10, 100), job(3, 5, 100)
    decision = admit([(a, 0), (b, 10)], x)
    assert starts(decision) == [(3, 0), (1, 5), (2, 15)]
    assert decision.detail == {"repairs": 0, "insertion_point_tries": 1}
    assert decision.placements == 3


def test_a_violation_moves_the_critical_job_ahead_and_k0_forbids_it():
    """Plan B [0,5) (deadline 100), A [5,15) (deadline 15); X needs 10 s by 20.

    Only A, X, B meets every deadline.  Point 0: X [0,10), then A would end
    at 20 > 15: violation at T=1, mid=0, X goes back into TL, A on top:
    A [0,10), X [10,20), B [20,25).  With K=0 the violation ends point 0;
    point 1 keeps B at 0, X [5,15), A would end at 25; point 2 appends X at
    15, ending 25 > 20: rejected.
    """
    b, a, x = job(1, 5, 100), job(2, 10, 15), job(3, 10, 20)
    plan = [(b, 0), (a, 5)]
    repaired = admit(plan, x, k=1)
    assert starts(repaired) == [(2, 0), (3, 10), (1, 20)]
    assert repaired.detail == {"repairs": 1, "insertion_point_tries": 1}
    rejected = admit(plan, x, k=0)
    assert rejected.plan is None
    assert rejected.reason == ("no insertion point of [0, 1, 2] keeps every deadline "
                               "with at most 0 repairs")
    assert rejected.placements == 2 + 2 + 1


def test_repairs_that_keep_failing_give_up_the_point_after_k_violations():
    """Plan E1 [0,10) (deadline 20), E2 [10,20) (deadline 25); X (10 s, lax).

    Point 0: X [0,10), E1 [10,20), E2 would end 30 > 25: T=2, mid=1, so only
    E1 leaves; E2 [10,20), then E1 ends 30 > 20; and so on — the two swap
    back and forth behind X until the 6th violation exceeds K=5 (13
    placements).  Point 1 keeps E1: X [10,20), E2 late at T=1, mid=0: X
    leaves, E2 [10,20), X [20,30) — admitted with one repair (4 placements).
    """
    e1, e2, x = job(1, 10, 20), job(2, 10, 25), job(3, 10, 100)
    decision = admit([(e1, 0), (e2, 10)], x, k=5)
    assert starts(decision) == [(1, 0), (2, 10), (3, 20)]
    assert decision.detail == {"repairs": 1, "insertion_point_tries": 2}
    assert decision.placements == 13 + 4


def test_the_heuristic_orders_the_temporary_list():
    # C: 10 s, deadline 30 (laxity 20); D: 2 s, deadline 25 (laxity 23).
    # EDF puts D first, LLF puts C first; X (1 s) goes first either way.
    c, d, x = job(1, 10, 30), job(2, 2, 25), job(3, 1, 1000)
    plan = [(c, 0), (d, 10)]
    assert starts(admit(plan, x, key=edf_key)) == [(3, 0), (2, 1), (1, 3)]
    assert starts(admit(plan, x, key=llf_key)) == [(3, 0), (1, 1), (2, 11)]


def test_running_jobs_are_respected_and_the_callers_profile_is_untouched():
    # 4 processors; a running job holds 2 until 10.  Plan: P (w2, 10 s, deadline 20) at 0.
    # X (w4, 5 s, deadline 30): point 0 puts X first at 10 (needs the whole machine),
    # P then fits at 0 beside the running job: P [0,10), X [10,15).
    running = Profile(4, 0)
    running.reserve(0, 10, 2)
    p = Job(1, 0, 10, 10, 2, deadline=20)
    x = Job(2, 0, 5, 5, 4, deadline=30)
    decision = qops_admission(running, 0, [(p, 0)], x, {1: 20, 2: 30}, k=5, key=edf_key)
    assert [(j.id, s) for j, s in decision.plan] == [(1, 0), (2, 10)]
    assert running.steps() == [(0, 2), (10, 4)]      # the caller's profile is untouched


def test_parameters_are_checked():
    with pytest.raises(InputError, match=r"The 'k' parameter of QoPS must be an int in \[0, inf\)"
                                         r"\. Got -1 instead\."):
        QoPS(k=-1)
    with pytest.raises(InputError, match=r"The 'heuristic' parameter of QoPS must be one of "
                                         "'edf', 'llf'. Got 'sjf' instead."):
        QoPS(heuristic="sjf")
    assert QoPS(k=2, heuristic="llf").get_params() == {"k": 2, "heuristic": "llf",
                                                       "predictor": "estimate"}


def test_llf_policy_runs_through_the_engine():
    # The golden workload of test_golden.py with LLF: laxities 95, 5, 10 -> the same order 2, 3, 1.
    load = deadline_workload(4, (1, 0, 5, 5, 4, 100), (2, 0, 10, 10, 4, 15),
                             (3, 0, 10, 10, 4, 20))
    result = simulate({"name": "qops", "heuristic": "llf"}, load)
    assert column(result, "start") == {1: 20, 2: 0, 3: 10}
