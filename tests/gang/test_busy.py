"""The busy processors of a gang run: every change of the matrix or of the express jobs
running is recorded where it happens (the engine records after a pass only when it
placed a job: moves keep a job's processors and ends record themselves)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from gang.test_jumps import CLASSES, PARAMS, spread
from schedlab.engine.timesharing import run_timesharing
from schedlab.policies.gang import GangScheduler
from schedlab.workload.job import Workload


def _busy_at(result, t: int) -> int:
    """The processors held at ``t`` by the jobs placed by then and not yet ended, read
    from each job's columns."""
    trace = result.timesharing
    held = 0
    for placed, end, columns in zip(trace.placed.tolist(), result.end.tolist(),
                                    trace.columns):
        if 0 <= placed <= t < end:
            for first, stop in columns:
                held |= (1 << stop) - (1 << first)
    return held.bit_count()


@settings(max_examples=120, deadline=None)
@given(spread(), PARAMS)
def test_the_busy_series_follows_every_placement_and_end(workload: Workload, params: dict):
    result = run_timesharing(workload, GangScheduler(**CLASSES, **params))
    times = result.series_time
    changes = sorted({*result.timesharing.placed.tolist(), *result.end.tolist()} - {-1})
    for t in changes:
        k = int(np.searchsorted(times, t, side="right")) - 1
        recorded = int(result.series_busy[k]) if k >= 0 else 0
        assert recorded == _busy_at(result, t), t
