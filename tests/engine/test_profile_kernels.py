"""The compiled profile kernels against :class:`~schedlab.engine.profile.Profile`.

Each kernel is the algorithm of the Profile method it names on breakpoint
arrays; here they are compared step list by step list and answer by answer
with the Profile, whose own reference is a brute force
(tests/engine/test_profile.py).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine import profile_kernels as kernels
from schedlab.engine.profile import Profile
from schedlab.policies.planning import place_in_order
from schedlab.workload.job import Job

ROOM = 64


def steps(times: np.ndarray, free: np.ndarray, size: int) -> list[tuple[int, int]]:
    return list(zip(times[:size].tolist(), free[:size].tolist()))


bookings = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12), st.integers(1, 6)),
                    min_size=1, max_size=10)


def booked_profile(capacity: int, booked) -> tuple[Profile, list[tuple[int, int, int]]]:
    """A profile holding every booking that fits, in order, and those bookings."""
    profile = Profile(capacity)
    held = []
    for start, duration, width in booked:
        width = min(width, capacity)
        if duration and profile.min_free(start, start + duration) >= width:
            profile.reserve(start, duration, width)
            held.append((start, duration, width))
    return profile, held


@given(capacity=st.integers(1, 6), booked=bookings, after=st.integers(0, 30))
def test_searches_and_edits_equal_the_profiles(capacity, booked, after):
    """Take what fits, then give back each booking and search for it again, in both."""
    profile, held = booked_profile(capacity, booked)
    times, free, size = kernels.as_arrays(profile, ROOM)
    assert steps(times, free, size) == profile.steps()
    for start, duration, width in held:
        assert kernels.earlier_fit(times, free, size, width, duration, min(after, start),
                                   start) == \
            profile.earlier_fit(width, duration, min(after, start), start)
        profile.release(start, duration, width)
        size = kernels.change(times, free, size, start, duration, width)
        assert steps(times, free, size) == profile.steps()
    for start, duration, width in held:
        profile.reserve(start, duration, width)
        size = kernels.change(times, free, size, start, duration, -width)
        assert steps(times, free, size) == profile.steps()


@given(capacity=st.integers(1, 6), booked=bookings, width=st.integers(1, 6),
       duration=st.integers(0, 12), after=st.integers(0, 40), span=st.integers(1, 15))
def test_earliest_fit_place_min_free_and_step_at_equal_the_profiles(capacity, booked, width,
                                                               duration, after, span):
    profile, _ = booked_profile(capacity, booked)
    width = min(width, capacity)
    times, free, size = kernels.as_arrays(profile, 0)
    assert kernels.earlier_fit(times, free, size, width, duration, after, kernels.NEVER) == \
        profile.earliest_fit(width, duration, after)
    assert kernels.min_free(times, free, size, after, after + span) == \
        profile.min_free(after, after + span)
    assert free[kernels.step_at(times, size, after)] == profile.free_at(after)
    times, free, size = kernels.as_arrays(profile, 2)
    start, size = kernels.place(times, free, size, width, duration, after)
    assert start == profile.place(width, duration, after)
    assert steps(times, free, size) == profile.steps()


queues = st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6)), min_size=1, max_size=12)


@given(capacity=st.integers(1, 6), booked=bookings, queue=queues, now=st.integers(0, 20))
def test_placing_a_queue_in_the_profile_equals_place_in_order(capacity, booked, queue, now):
    """The planning rebuild's compiled call: the same starts, and the profile itself changed."""
    profile, _ = booked_profile(capacity, booked)
    profile.discard_before(now)
    jobs = [Job(i + 1, 0, duration, duration, min(width, capacity))
            for i, (duration, width) in enumerate(queue)]
    reference = profile.copy()
    expected = place_in_order(reference, jobs, now)
    starts = kernels.place_queue(profile, np.array([job.width for job in jobs], np.int64),
                                 np.array([job.estimate for job in jobs], np.int64), now)
    assert starts.tolist() == expected
    assert profile.steps() == reference.steps()
