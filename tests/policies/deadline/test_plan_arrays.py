"""The admission policies' plan compiled (plan_arrays): the same plans as the walk on a Profile.

The reference is the loop the policies ran before, one Profile search and one
reservation per waiting job (Islam et al., §2.2; the compression of
conservative backfilling, Mu'alem & Feitelson 2001, §2).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.deadline.helpers import ADMISSION, deadline_workload, draw_running, simulate
from schedlab.engine.profile import Profile
from schedlab.engine.result import REJECTED
from schedlab.policies.deadline.common import in_ast_order, reserve_all
from schedlab.policies.deadline.plan_arrays import compressed_plan, earliest_fit_behind, plan_fits
from schedlab.workload.job import Job


def reference_fits(running: Profile, plan, now: int) -> Profile | None:
    """Running jobs plus the plan on a Profile, or None when the plan does not fit."""
    profile = running.copy()
    if plan and plan[0][1] < now:
        return None
    try:
        reserve_all(profile, plan)
    except ValueError:
        return None
    return profile


def reference_compression(running: Profile, plan, now: int):
    """Every job, in AST order, to its earliest fit when that is earlier (on a Profile)."""
    profile = reference_fits(running, plan, now)
    if profile is None:
        return None
    moved = []
    for job, start in plan:
        earlier = profile.earlier_fit(job.width, job.estimate, now, start)
        if earlier >= 0:
            profile.release(start, job.estimate, job.width)
            profile.reserve(earlier, job.estimate, job.width)
            start = earlier
        moved.append((job, start))
    return in_ast_order(moved)


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_the_compiled_plan_is_the_plan_of_the_walk_on_a_profile(data) -> None:
    running = draw_running(data, 4)
    profile = running.copy()
    plan = []
    for i in range(data.draw(st.integers(0, 12), "jobs")):
        width = data.draw(st.integers(1, 4), f"width {i}")
        estimate = data.draw(st.integers(1, 20), f"estimate {i}")
        job = Job(i + 1, 0, estimate, estimate, width)
        plan.append((job, profile.place(width, estimate, 0)))
    plan = in_ast_order(plan)
    kept = [entry for entry in plan if data.draw(st.booleans(), f"keep {entry[0].id}")]
    if kept and data.draw(st.booleans(), "shift"):        # may no longer fit
        job, start = kept[0]
        kept[0] = (job, start + data.draw(st.integers(0, 5), "by"))
        kept = in_ast_order(kept)
    assert compressed_plan(running, kept, 0) == reference_compression(running, kept, 0)
    assert plan_fits(running, kept, 0) == (reference_fits(running, kept, 0) is not None)
    if reference_fits(running, kept, 0) is not None:
        behind = reference_fits(running, kept, 0)
        width = data.draw(st.integers(1, 4), "new width")
        held = running.tick if getattr(running, "tick", 0) else 1
        assert earliest_fit_behind(running, kept, 0, width, 7 * held) == \
            behind.earliest_fit(width, 7 * held, 0)


def test_a_plan_due_before_now_does_not_fit() -> None:
    running = Profile.from_releases(4, 10, [])
    plan = [(Job(1, 0, 5, 5, 1), 8)]
    assert compressed_plan(running, plan, 10) is None and not plan_fits(running, plan, 10)


def test_compressing_a_long_plan_searches_no_profile_in_python(monkeypatch) -> None:
    """Thousands of waiting jobs: one compiled pass, no Profile search or reservation per job
    (the walk that grew with the plan under admission control)."""
    rng = np.random.default_rng(7)
    running = Profile.from_releases(64, 0, [(100, 64)])
    profile = running.copy()
    plan = []
    for i in range(3000):
        width, estimate = int(rng.integers(1, 65)), int(rng.integers(1, 500))
        plan.append((Job(i + 1, 0, estimate, estimate, width),
                     profile.place(width, estimate, 0)))
    plan = in_ast_order(plan)
    thinned = plan[::2]
    expected = reference_compression(running, thinned, 0)
    assert expected != thinned                      # jobs do move

    def no_python_search(*args, **kwargs):
        raise AssertionError("a Profile walked in Python")
    for name in ("earlier_fit", "earliest_fit", "reserve", "release", "place"):
        monkeypatch.setattr(Profile, name, no_python_search)
    assert compressed_plan(running, thinned, 0) == expected


@pytest.mark.parametrize("name", ADMISSION)
@pytest.mark.parametrize("overrun", ["kill", "extend"])
def test_a_run_with_early_ends_makes_no_profile_search_per_waiting_job(
        name: str, overrun: str, monkeypatch) -> None:
    """An overloaded machine with loose deadlines: the plan grows long and every job ends
    early; the compression and the plan's check are compiled, so the only Profile searches
    are one per submission (its earliest end alone, and QoPS's none besides)."""
    rng = np.random.default_rng(3)
    rows = [(i + 1, 10 * i, 40, 100, int(rng.integers(1, 9)), 10 * i + 10 ** 6)
            for i in range(300)]
    load = deadline_workload(8, *rows)
    calls = {"earlier_fit": 0}
    real = Profile.earlier_fit

    def counted(self, *args):
        calls["earlier_fit"] += 1
        return real(self, *args)
    monkeypatch.setattr(Profile, "earlier_fit", counted)
    result = simulate(name, load, overrun=overrun)
    assert (result.status != REJECTED).sum() > 250         # a long plan was kept
    assert calls["earlier_fit"] == 0
