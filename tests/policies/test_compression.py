"""The compiled compression pass: its pieces against the Profile, its proofs, its lazy import.

The pass as a whole is checked against a scan of every job from ``now``
(tests/properties/test_policies.py,
``test_conservative_compression_equals_a_scan_of_every_job_from_now``);
its searches and profile edits are compared with the Profile's in
tests/engine/test_profile_kernels.py.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.policies import compression


def test_compress_moves_a_job_into_a_freed_hole_and_edits_the_profile():
    # 4 processors; job 7 (width 2, 5 s) booked at 10 behind a hole [0, 10) of 2 free.
    profile = Profile(4)
    profile.reserve(0, 10, 2)
    profile.reserve(10, 5, 2)
    ids, widths, estimates, starts = (np.array([7], np.int64), np.array([2], np.int64),
                                      np.array([5], np.int64), np.array([10], np.int64))
    moves = compression.compress(profile, 0, np.arange(1), ids, widths, estimates, starts)
    assert moves == [7, 0]
    assert profile.steps() == [(0, 0), (5, 2), (10, 4)]


def test_compress_leaves_the_profile_alone_when_nothing_moves():
    profile = Profile(4)
    profile.reserve(0, 10, 4)
    profile.reserve(10, 5, 2)
    before = profile.steps()
    moves = compression.compress(profile, 0, np.arange(1), np.array([7], np.int64),
                                 np.array([2], np.int64), np.array([5], np.int64),
                                 np.array([10], np.int64))
    assert moves == []
    assert profile.steps() == before


def test_proofs_cover_wider_longer_later_jobs_and_shrink_on_release():
    proofs = np.empty((compression.KEEP, 4), np.int64)
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
    proofs = np.empty((compression.KEEP, 4), np.int64)
    held = compression.add_proof(proofs, 0, 1, 1, 0, 500)      # the oldest proof
    for k in range(compression.KEEP - 1):
        held = compression.add_proof(proofs, held, 9, 9, 1000, 10 + k)
    assert held == compression.KEEP
    assert compression.no_start_before(proofs, held, 1, 1, 0) == 500
    held = compression.add_proof(proofs, held, 9, 9, 1000, 10)
    assert held == compression.KEEP
    assert compression.no_start_before(proofs, held, 1, 1, 0) == -1     # forgotten


def numba_loaded_after(code: str) -> bool:
    """Whether running ``code`` in a fresh interpreter imports numba."""
    probe = f"{code}\nimport sys\nprint('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip().splitlines()[-1] == "True"


RUN = """
import schedlab
from schedlab.workload.job import Job, Workload
jobs = (Job(1, 0, 5, 10, 2), Job(2, 0, 5, 10, 2), Job(3, 1, 5, 10, 2))
schedlab.simulate(Workload(jobs, 2), "{policy}")
"""


def test_numba_is_imported_only_when_a_conservative_run_compresses():
    assert not numba_loaded_after("import schedlab.cli.app, schedlab.api")
    assert not numba_loaded_after(RUN.format(policy="fcfs+easy"))
    assert numba_loaded_after(RUN.format(policy="fcfs+conservative"))
