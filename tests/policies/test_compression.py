"""Conservative's compiled plan: its pieces against the Profile, its proofs, its lazy import.

The pass as a whole is checked against a scan of every job from ``now``
(tests/properties/test_policies.py,
``test_conservative_compression_equals_a_scan_of_every_job_from_now``);
its searches and profile edits are compared with the Profile's in
tests/engine/test_profile_kernels.py, and here the plan's own edits
(arrival placement, early-end release, moves).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from schedlab.engine import profile_kernels as kernels
from schedlab.engine.profile import Profile
from schedlab.policies import compression

ROOM = 64


def steps(times: np.ndarray, free: np.ndarray, size: int) -> list[tuple[int, int]]:
    return list(zip(times[:size].tolist(), free[:size].tolist()))


bookings = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12), st.integers(1, 6)),
                    min_size=1, max_size=10)


@given(capacity=st.integers(1, 6), booked=bookings, start=st.integers(0, 30),
       job=st.tuples(st.integers(1, 30), st.integers(1, 12), st.integers(1, 6)))
def test_a_move_edits_the_steps_as_a_release_and_a_reserve(capacity, booked, start, job):
    """A move rewrites only the steps it spans, to the same list as the two edits.

    Compression moves a job only to where it fits, so a move that would overfill a step
    is not an input."""
    old, duration, width = job
    start = min(start, old - 1)
    profile = Profile(capacity + width)
    profile.reserve(old, duration, width)
    for at, length, wide in booked:
        if length and profile.min_free(at, at + length) >= wide:
            profile.reserve(at, length, wide)
    expected_times, expected_free, size = kernels.as_arrays(profile, ROOM)
    expected_size = kernels.change(expected_times, expected_free, size, old, duration, width)
    expected_size = kernels.change(expected_times, expected_free, expected_size, start,
                                   duration, -width)
    assume(expected_free[:expected_size].min() >= 0)
    moved_times, moved_free, _ = kernels.as_arrays(profile, ROOM)
    moved_size = compression.move(moved_times, moved_free, size, old, start, duration, width,
                                  *np.zeros((2, size + ROOM), np.int64))
    assert steps(moved_times, moved_free, moved_size) == \
        steps(expected_times, expected_free, expected_size)


def plan_steps(plan: compression.ArrayPlan) -> list[tuple[int, int]]:
    return steps(plan.times, plan.free, plan.size)


events = st.lists(st.tuples(st.booleans(), st.integers(0, 4), st.integers(0, 12),
                            st.integers(1, 6)), min_size=1, max_size=25)


@given(capacity=st.integers(1, 6), happenings=events)
def test_arrivals_and_early_ends_edit_the_plan_as_the_profile(capacity, happenings):
    """Place arriving jobs and end running ones early, time going on, in both."""
    profile, plan = Profile(capacity), compression.ArrayPlan(capacity, 0)
    now, placed = 0, []
    for arrives, wait, duration, width in happenings:
        now += wait
        profile.discard_before(now)
        if arrives:
            width = min(width, capacity)
            start = profile.place(width, duration, now)
            assert plan.place(width, duration, now) == start
            placed.append((start, duration, width))
        else:                       # the oldest booking running at now ends now
            running = [b for b in placed if b[0] <= now < b[0] + b[1]]
            if not running:
                continue
            start, duration, width = running[0]
            placed.remove(running[0])
            profile.release(now, start + duration - now, width)
            plan.release(now, start + duration - now, width)
        assert plan_steps(plan) == profile.steps()


def test_the_plan_grows_its_arrays_as_the_profile_does():
    profile, plan = Profile(4), compression.ArrayPlan(4, 0)
    for k in range(400):                         # 400 jobs placed from 0, stacking up
        assert plan.place(1 + k % 4, 1 + k % 7 + k, 0) == profile.place(1 + k % 4, 1 + k % 7 + k, 0)
    assert plan_steps(plan) == profile.steps()
    assert plan.size > 256


def test_compress_moves_a_job_into_a_freed_hole_and_edits_the_profile():
    # 4 processors; job 7 (width 2, 5 s) booked at 10 behind a hole [0, 10) of 2 free.
    plan = compression.ArrayPlan(4, 0)
    assert plan.place(2, 10, 0) == 0
    arrival = plan.add(7, 2, 5)
    plan.book(arrival, plan.place(2, 5, 10))
    assert plan.starts[arrival] == 10 and plan.upcoming == 10
    plan.compress(0)
    assert plan.starts[arrival] == 0 and plan.upcoming == 0
    assert plan_steps(plan) == [(0, 0), (5, 2), (10, 4)]
    assert plan.pop_due(0) == [arrival]


def test_compress_leaves_the_profile_alone_when_nothing_moves():
    plan = compression.ArrayPlan(4, 0)
    plan.place(4, 10, 0)
    arrival = plan.add(7, 2, 5)
    plan.book(arrival, plan.place(2, 5, 0))
    before = plan_steps(plan)
    plan.compress(0, np.array([arrival], np.int64))
    assert plan.starts[arrival] == 10 and plan.upcoming == 10
    assert plan_steps(plan) == before
    assert plan.pop_due(9) == []


def test_due_jobs_come_in_arrival_order_and_started_ones_leave_the_queue():
    plan = compression.ArrayPlan(8, 0)
    first, second, third = (plan.add(job_id, 1, 5) for job_id in (1, 2, 3))
    for arrival, start in ((first, 20), (second, 10), (third, 15)):
        plan.book(arrival, start)
    assert plan.upcoming == 10
    assert plan.pop_due(15) == [second, third]
    assert plan.upcoming == 20
    plan.started(second)
    plan.started(third)
    assert plan.pop_due(15) == []
    assert plan.queue[:plan.queued].tolist() == [first]


def test_proofs_cover_wider_longer_later_jobs_and_shrink_on_release():
    proofs = compression.new_proofs()
    held = compression.add_proof(proofs, 0, 2, 10, 100, 100)   # width 2, 10 s, booked at 100
    assert compression.no_start_before(proofs, held, 2, 10, 120) == 100
    assert compression.no_start_before(proofs, held, 4, 30, 100) == 100
    assert compression.no_start_before(proofs, held, 1, 10, 120) == -1     # narrower
    assert compression.no_start_before(proofs, held, 2, 9, 120) == -1      # shorter
    assert compression.no_start_before(proofs, held, 2, 10, 99) == -1      # booked earlier
    compression.released(proofs, held, 50)     # windows from 41 on reach processors freed at 50
    assert compression.no_start_before(proofs, held, 2, 10, 120) == 41
    compression.released(proofs, held, 200)    # after the proof's booking: no window reaches it
    assert compression.no_start_before(proofs, held, 2, 10, 120) == 41


def test_only_the_last_proofs_are_kept():
    proofs = compression.new_proofs()
    held = compression.add_proof(proofs, 0, 1, 1, 0, 500)      # the oldest proof
    for k in range(compression.KEEP - 1):
        held = compression.add_proof(proofs, held, 9, 9, 1000, 10 + k)
    assert held == compression.KEEP
    assert compression.no_start_before(proofs, held, 1, 1, 0) == 500
    held = compression.add_proof(proofs, held, 9, 9, 1000, 10)
    assert held == compression.KEEP + 1                                # proofs ever added
    assert compression.no_start_before(proofs, held, 1, 1, 0) == -1     # forgotten
    assert compression.no_start_before(proofs, held, 9, 9, 1000) == 10 + compression.KEEP - 2


def numba_loaded_after(code: str) -> bool:
    """Whether running ``code`` in a fresh interpreter compiling its kernels with numba
    (``SCHEDLAB_AOT=0``: no ahead-of-time extension, tests/test_compiled.py) imports numba."""
    probe = f"{code}\nimport sys\nprint('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env={**os.environ, "SCHEDLAB_AOT": "0"})
    return done.stdout.strip().splitlines()[-1] == "True"


RUN = """
import schedlab
from schedlab.workload.job import Job, Workload
jobs = (Job(1, 0, 5, 10, 2), Job(2, 0, 5, 10, 2), Job(3, 1, 5, 10, 2))
schedlab.simulate(Workload(jobs, 2), "{policy}")
"""


def test_numba_is_imported_only_when_a_conservative_run_plans():
    assert not numba_loaded_after("from schedlab.cli.app import app\nimport schedlab.api")
    assert not numba_loaded_after(RUN.format(policy="fcfs+easy"))
    assert numba_loaded_after(RUN.format(policy="fcfs+conservative"))
