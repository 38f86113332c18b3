"""MSB (Islam et al., §2.2.1, Fig. 1): every insertion position, the cheapest feasible plan.

Hand-worked cases on an empty 4-processor machine at t=0 with machine-wide
jobs submitted at 0 (so the price, the total promised wait, is the sum of
the start times), then a reference check of the pruned search against plain
enumeration of every position on random plans and in whole runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.api import load_workload
from schedlab.engine.profile import Profile
from schedlab.engine.simulator import run
from schedlab.errors import InputError
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.policies.deadline.common import Decision, edf_key
from schedlab.policies.deadline.msb import ModifiedSlackBased, msb_admission
from schedlab.workload.job import Job

from .helpers import column, deadline_workload, draw_running, simulate


def job(job_id: int, estimate: int, deadline: int) -> Job:
    return Job(job_id, 0, estimate, estimate, 4, deadline=deadline)


def admit(plan, new, processors: int = 4):
    limits = {j.id: j.deadline for j, _ in plan} | {new.id: new.deadline}
    return msb_admission(Profile(processors, 0), 0, plan, new, limits)


def starts(decision) -> list[tuple[int, int]]:
    return [(j.id, start) for j, start in decision.plan]


A, B = job(1, 10, 100), job(2, 10, 100)


def test_a_short_newcomer_is_cheapest_in_front():
    # X 5 s: p=2 -> 0+10+20 = 30; p=1 -> 0+10+15 = 25; p=0 -> 0+5+15 = 20
    assert starts(admit([(A, 0), (B, 10)], job(3, 5, 100))) == [(3, 0), (1, 5), (2, 15)]


def test_a_long_newcomer_is_cheapest_at_the_end():
    # X 20 s: p=2 -> 0+10+20 = 30; p=1 -> 0+10+30 = 40; p=0 -> 0+20+30 = 50
    assert starts(admit([(A, 0), (B, 10)], job(3, 20, 100))) == [(1, 0), (2, 10), (3, 20)]


def test_equal_prices_go_to_the_insertion_that_moves_fewest_jobs():
    # X 10 s: every position prices 0+10+20 = 30; the end (p=2) moves nobody
    assert starts(admit([(A, 0), (B, 10)], job(3, 10, 100))) == [(1, 0), (2, 10), (3, 20)]


def test_a_deadline_rules_out_the_cheapest_position():
    # A must end by 10, so X (5 s) cannot go first: p=1 -> A [0,10), X [10,15), B [15,25)
    tight = job(1, 10, 10)
    assert starts(admit([(tight, 0), (B, 10)], job(3, 5, 100))) == [(1, 0), (3, 10), (2, 15)]


def test_the_order_of_admitted_jobs_is_never_changed():
    # Plan B [0,5) (deadline 100), A [5,15) (deadline 15); X (10 s, deadline 20) fits
    # only in the order A, X, B, which MSB may not take: every position fails.
    b, a = job(1, 5, 100), job(2, 10, 15)
    decision = admit([(b, 0), (a, 5)], job(3, 10, 20))
    assert decision.plan is None
    assert decision.reason == "no insertion position of 3 keeps every deadline"
    # p=2: X late (1 search); p=1: X [5,15), A late (2); p=0: X [0,10), B [10,15) hold
    # what X and B held at p=1, so A is late as there without a third search (2).
    assert decision.placements == 1 + 2 + 2


def test_a_job_that_ends_early_lets_the_next_start_at_once():
    # 4 processors: job 1 (est 10, runtime 4) starts at 0; job 2 (machine-wide) arrives
    # at 1 and is planned at 10; job 1 ends at 4 and the plan is compressed: 2 starts at 4.
    load = deadline_workload(4, (1, 0, 4, 10, 4, 50), (2, 1, 5, 5, 4, 50))
    result = simulate("msb", load)
    assert column(result, "start") == {1: 0, 2: 4}
    assert column(result, "planned_start") == {1: 0, 2: 10}


# --------------------------------------------------- reference: plain enumeration
def enumerate_positions(plan, new, processors):
    """Every insertion position evaluated in full; the cheapest, ties to the largest p."""
    best, best_cost = None, math.inf
    for p in range(len(plan), -1, -1):
        profile = Profile(processors, 0)
        for j, s in plan[:p]:
            profile.reserve(s, j.estimate, j.width)
        entries = list(plan[:p])
        for j in [new, *(j for j, _ in plan[p:])]:
            s = profile.earliest_fit(j.width, j.estimate, 0)
            profile.reserve(s, j.estimate, j.width)
            entries.append((j, s))
        if any(s + j.estimate > j.deadline for j, s in entries):
            continue
        cost = sum(s - j.submit for j, s in entries)
        if cost < best_cost:
            best, best_cost = sorted(entries, key=lambda e: e[1]), cost
    return best


JOBS = st.lists(st.tuples(st.integers(1, 4), st.integers(1, 9), st.integers(0, 30)),
                min_size=1, max_size=7)


@given(JOBS)
def test_the_pruned_search_chooses_what_plain_enumeration_chooses(rows):
    """Jobs (width, estimate, slack) on 4 processors; the plan is built by MSB itself."""
    jobs = [Job(k + 1, 0, e, e, w, deadline=e + slack) for k, (w, e, slack) in enumerate(rows)]
    plan = []
    for new in jobs[:-1]:
        decision = admit(plan, new)
        if decision.plan is not None:
            plan = decision.plan
    decision = admit(plan, jobs[-1])
    expected = enumerate_positions(plan, jobs[-1], 4)
    assert (None if decision.plan is None else starts(decision)) == \
        (None if expected is None else [(j.id, s) for j, s in expected])


def enumerate_on(running, now, plan, new, limits=None):
    """Every position in full on a copy of ``running`` (any Profile class): the cheapest plan.

    ``limits`` (by job id) replaces the deadlines where given."""
    limit = (lambda j: j.deadline) if limits is None else (lambda j: limits[j.id])
    best, best_cost = None, math.inf
    for p in range(len(plan), -1, -1):
        profile = running.copy()
        for j, s in plan[:p]:
            profile.reserve(s, j.estimate, j.width)
        entries = list(plan[:p])
        for j in [new, *(j for j, _ in plan[p:])]:
            s = profile.earliest_fit(j.width, j.estimate, now)
            profile.reserve(s, j.estimate, j.width)
            entries.append((j, s))
        if any(s + j.estimate > limit(j) for j, s in entries):
            continue
        cost = sum(s - j.submit for j, s in entries)
        if cost < best_cost:
            best, best_cost = sorted(entries, key=lambda e: e[1]), cost
    return None if best is None else [(j.id, s) for j, s in best]


@given(st.data())
def test_taking_over_the_candidate_before_changes_no_choice(data):
    """Plans whose jobs sit wherever they fit (not at earliest fits) behind running jobs,
    with and without a scheduling tick, in AST and EDF order: MSB, which takes the rest
    of a candidate from the one before when their profiles meet, chooses what plain
    enumeration chooses."""
    size = 6
    running = draw_running(data, size)
    profile = running.copy()
    plan = []
    rows = data.draw(st.lists(st.tuples(st.integers(1, size), st.integers(0, 9),
                                        st.integers(0, 12), st.integers(0, 20)),
                              max_size=9), "plan")
    for k, (width, estimate, delay, slack) in enumerate(rows):
        start = profile.earliest_fit(width, estimate, delay)
        profile.reserve(start, estimate, width)
        plan.append((Job(k + 1, 0, estimate, estimate, width,
                         deadline=start + estimate + slack), start))
    plan.sort(key=lambda entry: entry[1])
    width, estimate, slack = data.draw(st.tuples(st.integers(1, size), st.integers(0, 9),
                                                 st.integers(0, 40)), "new")
    new = Job(len(plan) + 1, 0, estimate, estimate, width, deadline=estimate + slack)
    limits = {j.id: j.deadline for j, _ in plan} | {new.id: new.deadline}
    key = data.draw(st.sampled_from([None, edf_key]), "order")
    decision = msb_admission(running, 0, plan, new, limits, key)
    fixed = plan if key is None else sorted(plan, key=lambda entry: key(entry[0]))
    assert (None if decision.plan is None else starts(decision)) == \
        enumerate_on(running, 0, fixed, new)


# The fixed order: Fig. 1 re-places the removed jobs in AST order, the text of §2.2.1
# arranges the plan by a heuristic (EDF, LLF).  Plan in AST order: B [0,10) (deadline 100),
# A [10,20) (deadline 20); newcomer X, 5 s, deadline 100.
B_LATE, A_DUE = job(1, 10, 100), job(2, 10, 20)
X_SHORT = job(3, 5, 100)


def test_in_ast_order_the_short_newcomer_goes_last():
    # AST B, A: p=2 -> 0+10+20 = 30; p=1 (B kept): X [10,15), A [15,25) misses 20;
    # p=0: X [0,5), B [5,15), A [15,25) misses 20
    decision = ModifiedSlackBased().admit(Profile(4, 0), 0, [(B_LATE, 0), (A_DUE, 10)],
                                          X_SHORT, {1: 100, 2: 20, 3: 100})
    assert starts(decision) == [(1, 0), (2, 10), (3, 20)]


def test_in_edf_order_the_short_newcomer_goes_first():
    # EDF A, B: p=2 -> 30; p=1 (A kept at [10,20)): X [0,5), B [20,30) -> 10+0+20 = 30;
    # p=0: X [0,5), A [5,15), B [15,25) -> 0+5+15 = 20, the cheapest
    for policy in (ModifiedSlackBased(order="edf"), ModifiedSlackBased(order="llf")):
        decision = policy.admit(Profile(4, 0), 0, [(B_LATE, 0), (A_DUE, 10)], X_SHORT,
                                {1: 100, 2: 20, 3: 100})
        assert starts(decision) == [(3, 0), (2, 5), (1, 15)]


def test_the_order_is_a_listed_parameter_checked_on_input():
    assert ModifiedSlackBased.param_defaults() == {"order": "ast", "predictor": "estimate"}
    with pytest.raises(InputError, match="order"):
        ModifiedSlackBased(order="sjf")


# ------------------------------------------- whole runs against plain enumeration
class EveryPositionInFull(ModifiedSlackBased):
    """MSB choosing by :func:`enumerate_on` (every position placed in full, in Python)."""

    def admit(self, running, now, plan, job, limits):
        fixed = plan if self._key is None else sorted(plan, key=lambda e: self._key(e[0]))
        by_id = {j.id: j for j, _ in plan} | {job.id: job}
        best = enumerate_on(running, now, fixed, job, limits)
        if best is None:
            return Decision(None, f"no insertion position of {len(plan) + 1} keeps every "
                                  "deadline")
        return Decision([(by_id[job_id], start) for job_id, start in best])


@pytest.mark.parametrize(("order", "exact", "tick"),
                         [("ast", True, 0), ("edf", True, 0), ("ast", False, 0),
                          ("ast", True, 900)])
def test_msb_decides_as_plain_enumeration_on_an_overloaded_lublin_workload(order, exact,
                                                                          tick):
    """300 Lublin jobs at load 1.6 by duplication and stringency 0.2 (long queues; early
    ends with inexact estimates; a tick): the compiled MSB runs exactly as MSB choosing
    by every position placed in full."""
    load = load_workload("lublin", jobs=300, seed=1)
    load = apply_transforms(load, Transforms(perfect_estimates=exact, load=1.6,
                                             stringency=0.2), seed=1)
    compiled = run(load, ModifiedSlackBased(order=order), tick=tick)
    plain = run(load, EveryPositionInFull(order=order), tick=tick)
    for name in ("start", "end", "status", "planned_start"):
        assert np.array_equal(getattr(compiled, name), getattr(plain, name)), name
    assert compiled.reject_reasons == plain.reject_reasons
    assert compiled.stats["admitted"] == plain.stats["admitted"]
