"""What failures, maintenance windows and drains cost a run (docs/reference/events.md).

For a run with outages (a result with an
:class:`~schedlab.engine.result.OutageRecord`): the outages, the attempts a
failure ended and what became of them, the work lost and the overheads of
checkpointing, the machine's availability and goodput, and the wait over
attempts beside the wait over jobs (``avg_wait``: from submission to the last
attempt's start, so time lost to failed attempts counts as waiting).
"""

from __future__ import annotations

import numpy as np

from schedlab.engine.result import FAILED, Result
from schedlab.metrics import series

#: Metric names (docs/reference/metrics.md, "Outages"), in the order they are reported.
OUTAGE_METRIC_DOCS: dict[str, str] = {
    "failures": "node failures that took processors out of service",
    "maintenance_windows": "maintenance windows and drains",
    "jobs_hit": "attempts a failure ended",
    "failed": "jobs a failure ended for good (fate kill; under requeue and checkpoint, "
              "a job hit once more than max_requeues times)",
    "requeued": "attempts queued again from the start (fate requeue)",
    "restarted": "attempts queued again from their last checkpoint (fate checkpoint)",
    "lost_work": "processor-seconds of attempts a failure ended (in a gang run, of their "
                 "service), less the work their checkpoints kept",
    "checkpoint_overhead": "processor-seconds spent writing checkpoints and restarting",
    "availability": "share of the processor-seconds of [first submit, last end] in service "
                    "(not failed, not held by a window)",
    "goodput": "useful processor-seconds (every job's min(runtime, estimate), once) over "
               "the processor-seconds of [first submit, last end]",
    "avg_wait_attempts": "mean wait of every attempt, from its submission or the failure "
                         "that ended the attempt before it",
}


def outage_metrics(result: Result) -> dict[str, float | int | None]:
    """The outage metrics of a run with outages; empty for any other run."""
    record = result.outages
    if record is None:
        return {}
    kinds = record.outages[:, 0]
    attempts = record.attempts
    positions = attempts[:, 0]
    width = result.width.astype(np.int64)
    fate = record.settings.get("fate", "kill")
    hit = len(attempts)
    failed = int(np.count_nonzero(result.status == FAILED))
    progress = (attempts[:, 2] - attempts[:, 1] if record.attempt_progress is None
                else record.attempt_progress)      # a gang attempt progresses in its slots
    lost = int(np.sum(width[positions] * (progress - attempts[:, 3])))
    ran = result.accepted
    t0 = int(result.submit[ran].min()) if ran.any() else 0
    t1 = int(max(result.end[ran].max(), attempts[:, 2].max(initial=0))) if ran.any() else 0
    area = result.processors * (t1 - t0)
    done = ran & (result.status != FAILED)
    seconds = (np.minimum(result.runtime, result.estimate) if record.work_done is None
               else record.work_done)          # a grid run: the work done on its machines
    useful = int(np.sum(width[done] * seconds[done]))
    down = series.time_weighted_mean(record.series_time, record.series_down, t0, t1)
    return {
        "failures": int(np.count_nonzero(kinds == 0)),
        "maintenance_windows": int(np.count_nonzero(kinds != 0)),
        "jobs_hit": hit,
        "failed": failed,
        "requeued": hit - failed if fate == "requeue" else 0,
        "restarted": hit - failed if fate == "checkpoint" else 0,
        "lost_work": lost,
        "checkpoint_overhead": int(np.sum(width * record.overhead)),
        "availability": None if down is None else 1.0 - down / result.processors,
        "goodput": useful / area if area > 0 else None,
        "avg_wait_attempts": attempt_wait(result),
    }


def attempt_wait(result: Result) -> float | None:
    """Mean wait over every attempt: a job's first from its submission, each later one from
    the failure that ended the one before it (None when no attempt started).  A job a
    failure killed has its last attempt among the attempts already."""
    record = result.outages
    assert record is not None
    attempts = record.attempts
    order = np.lexsort((attempts[:, 1], attempts[:, 0]))
    rows = attempts[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows[1:, 0] != rows[:-1, 0]
    queued = np.where(first, result.submit[rows[:, 0]], np.roll(rows[:, 2], 1))
    waits = list((rows[:, 1] - queued).tolist())
    last_of = {int(p): int(end) for p, end in zip(rows[:, 0], rows[:, 2])}
    started = np.flatnonzero((result.start >= 0) & (result.status != FAILED))
    for k in started.tolist():
        waits.append(int(result.start[k]) - last_of.get(k, int(result.submit[k])))
    return float(np.mean(waits)) if waits else None
