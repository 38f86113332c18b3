"""The two Profile additions reservations need: from_changes and fit_limits."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine.profile import Profile


def test_from_changes_sums_changes_at_one_time_and_merges_equal_steps():
    # 2 free at 10; a job of 3 ends at 20, a reservation of 4 holds [20, 30), one of 1 [25, 30)
    profile = Profile.from_changes(8, 10, 2, [(30, 4), (20, 3), (20, -4), (25, -1), (30, 1)])
    assert profile.steps() == [(10, 2), (20, 1), (25, 0), (30, 5)]
    assert Profile.from_changes(4, 0, 4, [(5, -2), (5, 2)]).steps() == [(0, 4)]


@pytest.mark.parametrize("changes", [[(5, -3)], [(5, 3)]])
def test_from_changes_refuses_levels_outside_the_machine(changes):
    with pytest.raises(ValueError, match="out of \\[0, 4\\]"):
        Profile.from_changes(4, 0, 2, changes)


def test_fit_limits_by_hand():
    profile = Profile.from_changes(8, 10, 2, [(20, 3), (20, -4), (25, -1), (30, 5)])
    limits = profile.fit_limits()          # free: 2 on [10, 20), 1 on [20, 25), 0, then 5
    assert [limits.until(w) for w in (1, 2, 3)] == [25, 20, 10]
    assert limits.fits(2, 10) and not limits.fits(2, 11) and not limits.fits(3, 1)
    assert Profile(4, 0).fit_limits().until(4) > 10 ** 12


@given(st.integers(1, 10), st.lists(st.tuples(st.integers(0, 80), st.integers(1, 40),
                                                st.integers(1, 10)), max_size=8))
def test_fit_limits_agree_with_min_free(capacity, intervals):
    profile = Profile(capacity, 5)
    for start, duration, width in intervals:
        with contextlib.suppress(ValueError):
            profile.reserve(5 + start, duration, min(width, capacity))
    limits = profile.fit_limits()
    for width in range(1, capacity + 1):
        for duration in (1, 2, 7, 30, 100):
            assert limits.fits(width, duration) == (profile.min_free(5, 5 + duration) >= width)
