"""MRT (Islam et al., §2.2.2, Fig. 2; Ramamritham et al. 1990): strong feasibility, backtracking.

Hand-worked cases on an empty 2-processor machine at t=0, every job
submitted at 0; a job is (id, width, estimate, deadline).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.api import load_workload
from schedlab.engine.profile import Profile
from schedlab.engine.simulator import run
from schedlab.errors import InputError
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.policies.deadline.common import HEURISTICS, Decision, edf_key, in_ast_order, llf_key
from schedlab.policies.deadline.mrt import ModifiedRealTime, mrt_admission
from schedlab.workload.job import Job

from .test_guarantee import TICKS, deadline_workloads


def job(job_id: int, width: int, estimate: int, deadline: int) -> Job:
    return Job(job_id, 0, estimate, estimate, width, deadline=deadline)


def admit(plan, new, *, backtracks: int, key=edf_key):
    limits = {j.id: j.deadline for j, _ in plan} | {new.id: new.deadline}
    return mrt_admission(Profile(2, 0), 0, plan, new, limits, backtracks=backtracks, key=key)


# Job 1: one processor for 3 s by 3; job 2: one processor for 6 s by 6; both at 0.
# New job 3: one processor for 2 s by 5.
J1, J2, J3 = job(1, 1, 3, 3), job(2, 1, 6, 6), job(3, 1, 2, 5)


def test_edf_order_fails_strong_feasibility_and_one_backtrack_fixes_it():
    """EDF order 1 (3), 3 (5), 2 (6).  1 on [0,3): still strongly feasible.

    3 on [0,2) takes the second processor, so 2's earliest fit moves to 2 and
    it would end at 8 > 6: not strongly feasible, undo (backtrack 1) and
    extend with the next job instead: 2 on [0,6); 3's earliest fit is now 3,
    ending 5 <= 5.  Plan 1 [0,3), 2 [0,6), 3 [3,5).
    """
    decision = admit([(J1, 0), (J2, 0)], J3, backtracks=1)
    assert [(j.id, s) for j, s in decision.plan] == [(1, 0), (2, 0), (3, 3)]
    assert decision.detail == {"backtracks": 1}
    # 3 first fits; 2 refits after job 1 (both overlap, neither moves); 1 refit of job 2
    # in the failed extension; 1 refit of job 3 after job 2
    assert decision.placements == 3 + 2 + 1 + 1


def test_without_backtracking_the_same_job_is_rejected():
    decision = admit([(J1, 0), (J2, 0)], J3, backtracks=0)
    assert decision.plan is None
    assert decision.reason == "no strongly feasible schedule within 0 backtracks"
    assert decision.detail == {"backtracks": 1}


def test_llf_needs_no_backtracking_here():
    # laxities (deadline - estimate): 1 -> 0, 2 -> 0, 3 -> 3: order 1, 2, 3
    decision = admit([(J1, 0), (J2, 0)], J3, backtracks=0, key=llf_key)
    assert [(j.id, s) for j, s in decision.plan] == [(1, 0), (2, 0), (3, 3)]
    assert decision.detail == {"backtracks": 0}


def test_a_search_without_solution_ends_when_every_alternative_is_undone():
    """Plan 1 (w1, 3 s by 3) and 2 (w1, 4 s by 7) at 0; new 3 (w2, 3 s by 6).

    No schedule exists: 3 needs both processors for 3 s by 6, job 2 holds
    one until 4 and job 1 must run first.  EDF order 1, 3, 2.  The undone
    extensions: 3 after 1 (2 would end at 10 > 7); 2 after 1 (3 would end
    at 7 > 6); job 1 itself; 3 first (1 would end at 6 > 3); 2 first (3
    would end at 7).  Five in all, then nothing is left to try.
    """
    plan = [(job(1, 1, 3, 3), 0), (job(2, 1, 4, 7), 0)]
    new = job(3, 2, 3, 6)
    exhausted = admit(plan, new, backtracks=10)
    assert exhausted.plan is None
    assert exhausted.detail == {"backtracks": 5}
    bounded = admit(plan, new, backtracks=2)
    assert bounded.plan is None
    assert bounded.detail == {"backtracks": 3}


def test_a_hopeless_start_is_rejected_before_any_search():
    decision = admit([(J1, 0)], job(2, 1, 6, 5), backtracks=10)
    assert decision.plan is None
    assert decision.reason == "the empty schedule is not strongly feasible"
    assert decision.placements == 2


def test_parameters_are_checked():
    with pytest.raises(InputError, match="The 'backtracks' parameter of MRT must be an int"):
        ModifiedRealTime(backtracks=1.5)
    with pytest.raises(InputError, match="The 'heuristic' parameter of MRT must be one of"):
        ModifiedRealTime(heuristic="fcfs")
    assert ModifiedRealTime().get_params() == {"backtracks": 10, "heuristic": "edf",
                                               "predictor": "estimate"}


def plain_mrt(running, now, plan, new, limits, *, backtracks, key):
    """Fig. 2 as written: from the empty schedule, every unplaced job's earliest fit searched
    after every extension, no caches, bounds, witnesses or reuse (the reference)."""
    profile = running.copy()
    remaining = sorted([*(j for j, _ in plan), new], key=key)

    def strongly_feasible():
        return all(profile.earliest_fit(j.width, j.estimate, now) + j.estimate <= limits[j.id]
                   for j in remaining)

    if not strongly_feasible():
        return Decision(None, "the empty schedule is not strongly feasible")
    chosen, undone, index = [], 0, 0
    while remaining:
        if index < len(remaining):
            candidate = remaining.pop(index)
            start = profile.earliest_fit(candidate.width, candidate.estimate, now)
            profile.reserve(start, candidate.estimate, candidate.width)
            if strongly_feasible():
                chosen.append((candidate, start, index))
                index = 0
                continue
            profile.release(start, candidate.estimate, candidate.width)
            remaining.insert(index, candidate)
            index += 1
        elif chosen:
            last, start, index = chosen.pop()
            profile.release(start, last.estimate, last.width)
            remaining.insert(index, last)
            index += 1
        else:
            break
        undone += 1
        if undone > backtracks:
            break
    if remaining:
        return Decision(None, f"no strongly feasible schedule within {backtracks} backtracks",
                        detail={"backtracks": undone})
    return Decision(in_ast_order([(j, s) for j, s, _ in chosen]), detail={"backtracks": undone})


class FromTheEmptySchedule(ModifiedRealTime):
    """MRT searching as Fig. 2 is written (:func:`plain_mrt`) at every arrival."""

    def admit(self, running, now, plan, job, limits):
        return plain_mrt(running, now, plan, job, limits, backtracks=self.backtracks,
                         key=HEURISTICS[self.heuristic])


def assert_same_runs(workload, overrun, tick, backtracks, heuristic):
    compiled = run(workload, ModifiedRealTime(backtracks=backtracks, heuristic=heuristic),
                  overrun=overrun, tick=tick)
    scratch = run(workload, FromTheEmptySchedule(backtracks=backtracks, heuristic=heuristic),
                  overrun=overrun, tick=tick)
    for name in ("start", "end", "status", "planned_start"):
        assert np.array_equal(getattr(compiled, name), getattr(scratch, name)), name
    assert compiled.reject_reasons == scratch.reject_reasons
    # The placements differ (the reference counts none); every other statistic is equal.
    assert {k: v for k, v in compiled.stats.items() if k != "placements"} == \
        {k: v for k, v in scratch.stats.items() if k != "placements"}


@settings(max_examples=300)
@given(workload=deadline_workloads(), overrun=st.sampled_from(["kill", "extend"]),
       tick=TICKS, backtracks=st.sampled_from([0, 3, 10]),
       heuristic=st.sampled_from(["edf", "llf"]))
def test_the_compiled_search_with_witnesses_decides_as_the_plain_search(
        workload, overrun, tick, backtracks, heuristic):
    """Random workloads (early ends, overruns, jobs without deadlines, ticks): MRT, its
    search compiled and with witnesses instead of earliest fits, starts, rejects and
    backtracks exactly as Fig. 2's search written plainly."""
    assert_same_runs(workload, overrun, tick, backtracks, heuristic)


@pytest.mark.parametrize(("heuristic", "exact", "tick"),
                         [("edf", True, 0), ("llf", True, 0), ("edf", False, 0),
                          ("edf", True, 900)])
@pytest.mark.parametrize("seed", [0, 1])
def test_mrt_decides_as_the_plain_search_on_an_overloaded_lublin_workload(seed, heuristic,
                                                                         exact, tick):
    """300 Lublin jobs at load 1.6 by duplication and stringency 0.2: long queues,
    backtracking (with exact estimates, else early ends); the runs are the same as with
    Fig. 2's search written plainly."""
    load = load_workload("lublin", jobs=300, seed=seed)
    load = apply_transforms(load, Transforms(perfect_estimates=exact, load=1.6,
                                             stringency=0.2), seed=seed)
    assert_same_runs(load, "kill", tick, 10, heuristic)
