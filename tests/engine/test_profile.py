"""The availability profile: exact step lists by hand, and a brute-force reference.

Every hand case writes the profile as its list of ``(time, free from then on)``
steps; intervals are half-open ``[start, end)`` (docs/reference/engine.md, "The
availability profile").
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.profile import Profile


def profile_with(capacity: int, *reservations: tuple[int, int, int]) -> Profile:
    """A profile from 0 with the given ``(start, duration, width)`` reservations."""
    profile = Profile(capacity)
    for start, duration, width in reservations:
        profile.reserve(start, duration, width)
    return profile


# ------------------------------------------------------------------ construction
def test_new_profile_is_one_step_of_full_capacity():
    assert Profile(8).steps() == [(0, 8)]
    later = Profile(8, origin=5)
    assert later.steps() == [(5, 8)]
    assert later.origin == 5


@pytest.mark.parametrize("capacity", [0, -3])
def test_capacity_must_be_positive(capacity):
    with pytest.raises(ValueError, match="capacity must be > 0"):
        Profile(capacity)


# ----------------------------------------------------------------- from_releases
def test_from_releases_sums_equal_ends():
    # Two jobs end at 5 (2 and 1 processors), one at 9 (3 processors).
    profile = Profile.from_releases(8, 0, [(5, 2), (5, 1), (9, 3)])
    assert profile.steps() == [(0, 2), (5, 5), (9, 8)]


def test_from_releases_of_an_idle_machine():
    assert Profile.from_releases(8, 4, []).steps() == [(4, 8)]


def test_from_releases_beyond_capacity_raises():
    with pytest.raises(ValueError, match="running jobs need 10 processors, more than the capacity 8"):
        Profile.from_releases(8, 0, [(3, 6), (7, 4)])


@given(capacity=st.integers(1, 8), origin=st.integers(0, 5),
       jobs=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 8)), max_size=8))
def test_from_releases_equals_one_reservation_per_job(capacity, origin, jobs):
    releases, used = [], 0
    for length, width in sorted(jobs):
        if used + width <= capacity:
            releases.append((origin + length, width))
            used += width
    by_reserve = Profile(capacity, origin)
    for end, width in releases:
        by_reserve.reserve(origin, end - origin, width)
    built = Profile.from_releases(capacity, origin, releases)
    assert built.steps() == by_reserve.steps()


# ----------------------------------------------------------------------- reserve
def test_reserve_in_the_middle_adds_two_breakpoints():
    assert profile_with(8, (10, 5, 3)).steps() == [(0, 8), (10, 5), (15, 8)]


def test_reserve_at_the_origin_changes_the_first_step():
    assert profile_with(8, (0, 5, 3)).steps() == [(0, 5), (5, 8)]


def test_reserve_the_whole_machine():
    assert profile_with(8, (0, 10, 8)).steps() == [(0, 0), (10, 8)]


def test_adjacent_reservations_of_equal_width_merge():
    # [10, 15) and [15, 20) touch without overlapping: one step of 5 free.
    assert profile_with(8, (10, 5, 3), (15, 5, 3)).steps() == [(0, 8), (10, 5), (20, 8)]


def test_overlapping_reservations_add_up():
    # 2 on [0, 10) and 3 on [5, 15): 6 free, then 3, then 5, then all 8.
    profile = profile_with(8, (0, 10, 2), (5, 10, 3))
    assert profile.steps() == [(0, 6), (5, 3), (10, 5), (15, 8)]


@pytest.mark.parametrize("duration,width", [(0, 3), (5, 0)])
def test_zero_duration_or_width_changes_nothing(duration, width):
    profile = profile_with(8, (10, 5, 3))
    profile.reserve(12, duration, width)
    profile.release(12, duration, width)
    assert profile.steps() == [(0, 8), (10, 5), (15, 8)]


def test_reserve_that_does_not_fit_raises_and_leaves_the_profile_unchanged():
    profile = profile_with(8, (5, 10, 6))
    # 3 processors fit on [0, 5) but only 2 are free from 5 on.
    with pytest.raises(ValueError, match="only 2 free at 5"):
        profile.reserve(0, 10, 3)
    assert profile.steps() == [(0, 8), (5, 2), (15, 8)]


def test_reserve_before_the_origin_raises():
    profile = Profile(8, origin=10)
    with pytest.raises(ValueError, match="before the profile origin 10"):
        profile.reserve(5, 10, 1)
    assert profile.steps() == [(10, 8)]


# ----------------------------------------------------------------------- release
def test_release_undoes_reserve_and_merges_back():
    profile = profile_with(8, (0, 10, 2), (5, 10, 3))
    profile.release(5, 10, 3)
    assert profile.steps() == [(0, 6), (10, 8)]
    profile.release(0, 10, 2)
    assert profile.steps() == [(0, 8)]


def test_release_of_part_of_a_reservation_splits_it():
    profile = profile_with(8, (0, 20, 4))
    profile.release(10, 5, 4)
    assert profile.steps() == [(0, 4), (10, 8), (15, 4), (20, 8)]


def test_release_beyond_capacity_raises_and_leaves_the_profile_unchanged():
    # Same guarantee as a failed reserve: an error leaves the profile as it was.
    profile = profile_with(4, (0, 5, 4))
    with pytest.raises(ValueError, match="exceeds capacity"):
        profile.release(0, 10, 1)
    assert profile.steps() == [(0, 0), (5, 4)]


# --------------------------------------------------------------- free_at, min_free
def test_free_at_reads_half_open_steps():
    profile = profile_with(8, (10, 5, 3))
    assert [profile.free_at(t) for t in (0, 9, 10, 14, 15, 1000)] == [8, 8, 5, 5, 8, 8]


@pytest.mark.parametrize("start,end,expected", [
    (0, 10, 8),     # the step beginning at 10 is outside [0, 10)
    (0, 11, 5),
    (12, 13, 5),
    (14, 15, 5),
    (15, 20, 8),
    (9, 100, 5),
])
def test_min_free_over_half_open_windows(start, end, expected):
    assert profile_with(8, (10, 5, 3)).min_free(start, end) == expected


# ------------------------------------------------------------------- earliest_fit
@pytest.mark.parametrize("width,duration,after,expected", [
    (4, 10, 0, 0),     # ends exactly when the full reservation starts: allowed
    (4, 11, 0, 15),    # one second longer overlaps it
    (4, 7, 3, 3),      # [3, 10) fits
    (4, 8, 3, 15),
    (1, 5, 12, 15),    # "after" inside the blocked step
    (2, 3, 20, 20),    # "after" beyond the last breakpoint
    (1, 0, 5, 5),      # zero length: needs its processors at its start instant
    (1, 0, 12, 15),    # ... which are all taken on [10, 15)
])
def test_earliest_fit_around_a_full_reservation(width, duration, after, expected):
    profile = profile_with(4, (10, 5, 4))
    assert profile.earliest_fit(width, duration, after) == expected


@pytest.mark.parametrize("width,duration,after,expected", [
    (2, 100, 0, 0),    # 2 are free everywhere
    (4, 10, 0, 10),    # the gap [10, 20) is exactly long enough
    (4, 11, 0, 25),    # one second too long for the gap
    (3, 10, 5, 10),
    (3, 10, 12, 25),   # [12, 22) runs into the second reservation
])
def test_earliest_fit_restarts_behind_the_blocking_step(width, duration, after, expected):
    profile = profile_with(8, (0, 10, 6), (20, 5, 6))
    assert profile.steps() == [(0, 2), (10, 8), (20, 2), (25, 8)]
    assert profile.earliest_fit(width, duration, after) == expected


def test_earliest_fit_wider_than_the_machine_raises():
    with pytest.raises(ValueError, match="width 9 exceeds capacity 8"):
        Profile(8).earliest_fit(9, 1, 0)


# ------------------------------------------------------------------- earlier_fit
def test_earlier_fit_counts_the_jobs_own_reservation_as_free():
    # 2 taken on [0, 10) by a running job; the job asking holds all 4 on [10, 15).
    profile = profile_with(4, (0, 10, 2), (10, 5, 4))
    assert profile.steps() == [(0, 2), (10, 0), (15, 4)]
    assert profile.earlier_fit(4, 5, 0, 10) == -1      # nothing earlier than 10
    profile.release(3, 7, 2)                            # the running job ends at 3
    before = profile.steps()
    assert profile.earlier_fit(4, 5, 3, 10) == 3
    assert profile.earlier_fit(4, 5, 7, 10) == 7        # [7, 12) overlaps its own old slot
    assert profile.earlier_fit(4, 5, 10, 10) == -1      # not earlier than the booking
    assert profile.steps() == before                    # nothing was modified


@pytest.mark.parametrize("duration,after,expected", [
    (10, 0, 15),    # [0, 10) runs into the 1-free step at 5; 15 is before 20
    (10, 16, 16),
    (4, 0, 0),
    (10, 20, -1),
])
def test_earlier_fit_skips_blocked_steps(duration, after, expected):
    # Another job holds 3 of 4 on [5, 15); the asking job (width 2) is booked at 20.
    profile = profile_with(4, (5, 10, 3), (20, duration, 2))
    assert profile.earlier_fit(2, duration, after, 20) == expected


# ---------------------------------------------------------------- discard_before
@pytest.mark.parametrize("t,expected", [
    (5, [(5, 8), (10, 5), (15, 8)]),
    (10, [(10, 5), (15, 8)]),     # exactly on a breakpoint
    (12, [(12, 5), (15, 8)]),     # inside a step: it now starts at 12
    (15, [(15, 8)]),
    (40, [(40, 8)]),
])
def test_discard_before_moves_the_origin(t, expected):
    profile = profile_with(8, (10, 5, 3))
    profile.discard_before(t)
    assert profile.steps() == expected
    assert profile.origin == t


def test_after_discard_the_past_cannot_be_reserved():
    profile = profile_with(8, (10, 5, 3))
    profile.discard_before(12)
    profile.reserve(12, 2, 5)
    assert profile.steps() == [(12, 0), (14, 5), (15, 8)]
    with pytest.raises(ValueError, match="before the profile origin 12"):
        profile.reserve(11, 2, 1)


# -------------------------------------------------------------------------- copy
def test_copy_is_independent_both_ways():
    original = profile_with(8, (10, 5, 3))
    clone = original.copy()
    clone.reserve(0, 10, 8)
    assert original.steps() == [(0, 8), (10, 5), (15, 8)]
    original.release(10, 5, 3)
    original.discard_before(3)
    assert clone.steps() == [(0, 0), (10, 5), (15, 8)]
    assert clone.capacity == 8 and clone.origin == 0


# ------------------------------------------------------- brute-force reference
HORIZON = 64        # all reservations end before this in the property below


class Reference:
    """Free processors as a plain array over ``[0, HORIZON)``; all free after."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.free = [capacity] * HORIZON

    def at(self, t: int) -> int:
        return self.free[t] if t < HORIZON else self.capacity

    def fits(self, start: int, duration: int, width: int) -> bool:
        return all(self.at(t) >= width for t in range(start, start + duration))

    def add(self, start: int, duration: int, width: int) -> None:
        for t in range(start, start + duration):
            self.free[t] += width

    def earliest_fit(self, width: int, duration: int, after: int) -> int:
        """First ``s >= after`` with ``width`` free on ``[s, s + max(duration, 1))``.

        A zero-length job still needs its processors at its start instant,
        as a zero-runtime job does in the engine.
        """
        s = after
        while not self.fits(s, max(duration, 1), width):
            s += 1
        return s

    def earlier_fit(self, width: int, duration: int, after: int, booked: int) -> int:
        """The earliest fit once the job's own slot at ``booked`` is free, if before ``booked``; else -1."""
        self.add(booked, duration, width)
        start = self.earliest_fit(width, duration, after)
        self.add(booked, duration, -width)
        return start if start < booked else -1


def assert_canonical(profile: Profile) -> None:
    """Breakpoints strictly increasing, each a real change, every value in [0, capacity]."""
    steps = profile.steps()
    times = [t for t, _ in steps]
    free = [f for _, f in steps]
    assert times == sorted(set(times))
    assert all(a != b for a, b in itertools.pairwise(free)), steps
    assert all(0 <= f <= profile.capacity for f in free), steps


operations = st.lists(st.one_of(
    st.tuples(st.just("reserve"), st.integers(0, 30), st.integers(0, 12), st.integers(0, 6)),
    st.tuples(st.just("release"), st.integers(0, 20)),
    st.tuples(st.just("discard"), st.integers(0, 4)),
), max_size=14)
queries = st.lists(st.tuples(st.integers(1, 6), st.integers(0, 12), st.integers(0, 30)),
                   min_size=1, max_size=12)


@given(capacity=st.integers(1, 6), ops=operations, asks=queries)
def test_profile_matches_brute_force(capacity, ops, asks):
    profile, reference = Profile(capacity), Reference(capacity)
    held: list[tuple[int, int, int]] = []
    for op in ops:
        if op[0] == "reserve":
            apply_reserve(profile, reference, held, op[1] + profile.origin, op[2],
                          min(op[3], capacity))
        elif op[0] == "release" and held:
            start, duration, width = held.pop(op[1] % len(held))
            profile.release(start, duration, width)
            reference.add(start, duration, width)
        elif op[0] == "discard":
            profile.discard_before(profile.origin + op[1])
            held = [h for h in held if h[0] >= profile.origin]
        assert_canonical(profile)
        origin = profile.origin
        assert [profile.free_at(t) for t in range(origin, HORIZON)] == \
            [reference.at(t) for t in range(origin, HORIZON)]
    for start, duration, width in held:
        for after in (profile.origin, start - 3, start):
            after = max(after, profile.origin)
            assert profile.earlier_fit(width, duration, after, start) == \
                reference.earlier_fit(width, duration, after, start)
    for width, duration, after in asks:
        width, after = min(width, capacity), after + profile.origin
        assert profile.earliest_fit(width, duration, after) == \
            reference.earliest_fit(width, duration, after)
        if duration > 0:
            assert profile.min_free(after, after + duration) == \
                min(reference.at(t) for t in range(after, after + duration))


def apply_reserve(profile: Profile, reference: Reference, held: list, start: int,
                  duration: int, width: int) -> None:
    """Reserve if the reference says it fits; otherwise expect a ValueError and no change."""
    if reference.fits(start, duration, width):
        profile.reserve(start, duration, width)
        reference.add(start, duration, -width)
        if duration > 0 and width > 0:
            held.append((start, duration, width))
        return
    before = profile.steps()
    with pytest.raises(ValueError, match="does not fit"):
        profile.reserve(start, duration, width)
    assert profile.steps() == before


def test_from_releases_equals_one_reservation_per_running_job():
    # Three running jobs seen at time 5: two end at 7 (widths 2 and 3), one at 9 (width 1).
    built = Profile.from_releases(10, 5, [(7, 2), (7, 3), (9, 1)])
    assert built.steps() == [(5, 4), (7, 9), (9, 10)]
    reserved = Profile(10, 5)
    for end, width in [(7, 2), (7, 3), (9, 1)]:
        reserved.reserve(5, end - 5, width)
    assert built.steps() == reserved.steps()


def test_from_releases_of_an_idle_machine_and_of_too_many_jobs():
    assert Profile.from_releases(10, 5, []).steps() == [(5, 10)]
    with pytest.raises(ValueError, match="more than the capacity"):
        Profile.from_releases(4, 0, [(3, 3), (5, 2)])


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 9), st.integers(0, 12)),
                min_size=1, max_size=25))
def test_place_equals_earliest_fit_then_reserve(requests):
    """place() must give the same start and the same steps as the two-call form."""
    fast, slow = Profile(4, 0), Profile(4, 0)
    for width, duration, after in requests:
        start = slow.earliest_fit(width, duration, after)
        slow.reserve(start, duration, width)
        assert fast.place(width, duration, after) == start
        assert fast.steps() == slow.steps()


# ------------------------------------------------- corners against the reference
def test_an_empty_profile_fits_every_job_at_once():
    profile = Profile(8, origin=3)
    for width, duration in [(1, 1), (8, 1000), (8, 0), (5, 0)]:
        assert profile.earliest_fit(width, duration, 3) == 3
        assert profile.earliest_fit(width, duration, 50) == 50
        assert profile.earlier_fit(width, duration, 3, 3) == -1   # nothing earlier than 3
    assert profile.place(8, 10, 3) == 3
    assert profile.steps() == [(3, 0), (13, 8)]


def test_the_whole_machine_fits_exactly_when_the_last_job_ends():
    # Two jobs end at 7 and 9; a job of the machine's width starts at 9, not before.
    profile = Profile.from_releases(6, 0, [(7, 2), (9, 3)])
    assert profile.earliest_fit(6, 1, 0) == 9
    assert profile.earliest_fit(6, 0, 0) == 9      # zero length still needs the instant
    assert profile.steps() == [(0, 1), (7, 3), (9, 6)]
    assert profile.earliest_fit(3, 3, 0) == 7      # 3 free from 7 on
    assert profile.earliest_fit(4, 3, 0) == 9
    assert profile.earliest_fit(1, 5, 0) == 0


corners = st.tuples(st.integers(1, 6), st.lists(
    st.tuples(st.integers(1, 30), st.integers(1, 12), st.integers(1, 6)), max_size=8))


@settings(max_examples=300)
@given(corner=corners, picks=st.lists(st.tuples(st.integers(0, 40), st.integers(-1, 1),
                                                st.integers(0, 12), st.booleans()),
                                      min_size=1, max_size=10))
def test_fits_at_breakpoints_full_width_and_zero_length_match_the_reference(corner, picks):
    """Queries right at, just before and just after breakpoints, with the machine's width
    among the widths and zero-length jobs among the durations, give the reference's answers."""
    capacity, intervals = corner
    profile, reference = Profile(capacity), Reference(capacity)
    for start, duration, width in intervals:
        width = min(width, capacity)
        if reference.fits(start, duration, width):
            profile.reserve(start, duration, width)
            reference.add(start, duration, -width)
    breakpoints = [t for t, _ in profile.steps()]
    for pick, offset, duration, full in picks:
        after = max(0, breakpoints[pick % len(breakpoints)] + offset)
        for width in {capacity if full else 1 + pick % capacity, capacity}:
            assert profile.earliest_fit(width, duration, after) == \
                reference.earliest_fit(width, duration, after)
            start = profile.earliest_fit(width, duration, after)
            if duration > 0:        # book it, then ask for an earlier start from the origin
                profile.reserve(start, duration, width)
                reference.add(start, duration, -width)
                assert profile.earlier_fit(width, duration, 0, start) == \
                    reference.earlier_fit(width, duration, 0, start)
                profile.release(start, duration, width)
                reference.add(start, duration, width)
