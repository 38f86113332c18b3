"""Hand-built Results for the metric tests.

``build_result`` makes a :class:`Result` from a few job rows; unless a
series is given it derives the busy/queue step functions from the rows the
way the engine records them (one settled entry per distinct event time), so
a test only has to write down the schedule it reasons about.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine.result import REJECTED, Result

#: (submit, start, end, width, estimate, runtime, status); start/end -1 when rejected.
Row = tuple[int, int, int, int, int, int, int]


def derived_series(rows: list[Row]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Busy processors and waiting jobs at every distinct submit/start/end time.

    A job is running on [start, end) and waiting on [submit, start); rejected
    jobs never wait.
    """
    ran = [row for row in rows if row[6] != REJECTED]
    if not ran:
        return (np.array([], dtype=np.int64),) * 3
    submit, start, end, width = (np.array([row[k] for row in ran], dtype=np.int64)
                                 for k in range(4))
    times = np.unique(np.concatenate((submit, start, end)))
    at = times[:, None]
    busy = np.sum(width * ((start <= at) & (at < end)), axis=1)
    queue = np.sum((submit <= at) & (at < start), axis=1)
    return times, busy.astype(np.int64), queue.astype(np.int64)


def build_result(rows: list[Row], processors: int, *,
                 series: list[tuple[int, int, int]] | None = None,
                 suspended: list[int] | None = None,
                 policy: str = "test") -> Result:
    """A Result with one job per row (ids 1..n) and the given or derived series.

    ``series`` rows are (time, busy, queue); ``suspended`` the seconds each job
    spent suspended (gang scheduling), absent by default.
    """
    columns = np.array(rows, dtype=np.int64).reshape(len(rows), 7).T
    submit, start, end, width, estimate, runtime, status = columns
    if series is None:
        times, busy, queue = derived_series(rows)
    else:
        times, busy, queue = np.array(series, dtype=np.int64).reshape(len(series), 3).T
    return Result(
        processors=processors, policy=policy,
        job_id=np.arange(1, len(rows) + 1, dtype=np.int64),
        submit=submit, start=start, end=end, width=width, estimate=estimate,
        runtime=runtime, status=status,
        planned_start=np.full(len(rows), -1, dtype=np.int64),
        series_time=times, series_busy=busy, series_queue=queue,
        suspended=None if suspended is None else np.array(suspended, dtype=np.int64),
    )


@pytest.fixture
def make_result():
    """The :func:`build_result` factory, as a fixture."""
    return build_result


#: The worked example of docs/reference/metrics.md: 4 processors, jobs A–E.
#: A and B fill the machine from 0; C (width 4) waits until A ends at 100 and
#: is killed at its estimate 30; D backfills at 50 when B ends; E is rejected.
EXAMPLE_ROWS: list[Row] = [
    (0, 0, 100, 2, 100, 100, 0),   # A
    (0, 0, 50, 2, 200, 50, 0),     # B
    (10, 100, 130, 4, 30, 40, 1),  # C, killed at its estimate
    (20, 50, 70, 1, 40, 20, 0),    # D
    (30, -1, -1, 3, 60, 60, 2),    # E, rejected
]


@pytest.fixture
def example() -> Result:
    """The worked example on 4 processors."""
    return build_result(EXAMPLE_ROWS, 4)
