"""What an agent observes: the machine, and the queue in a fixed window of head and tail.

Every feature is a float32 in ``[0, 1]``.  Times enter on a logarithmic
scale, ``log_time(t) = min(1, log(1 + t) / log(1 + TIME_SCALE))`` with
:data:`TIME_SCALE` about 11.6 days, so a second and a day are both told
apart.

The machine (:data:`MACHINE_FEATURES`): free processors over the machine
size; ``log(1 + waiting jobs) / log(1 + QUEUE_SCALE)`` (clipped); the
``log_time`` until the earliest expected end of a running job (0 with none
running); the share of the episode's jobs submitted so far.

A job (:data:`JOB_FEATURES`): present (1; a slot with no job is all zeros);
fits (its width is at most the free processors); width over the machine
size; ``log_time`` of its estimate; ``log_time`` of its wait so far;
``log(1 + wait / estimate) / log(1 + TIME_SCALE)``, the logarithm of the
expansion factor it would have if it started now (Margo et al., §4).  A
job's runtime is never shown: a scheduler knows only the estimate.

The queue window: the waiting jobs in arrival order, the first ``head``
and the last ``tail`` of them when there are more than ``head + tail``, all
of them otherwise (the slots after them empty).  The head holds the jobs
that have waited longest, the tail the newest arrivals, so the window
follows the queue as it moves and never goes stale.
"""

from __future__ import annotations

import math
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from schedlab.engine.context import Context
    from schedlab.workload.job import Job

#: Seconds at which :func:`log_time` reaches 1 (about 11.6 days).
TIME_SCALE = 1_000_000
#: Waiting jobs at which the queue-length feature reaches 1.
QUEUE_SCALE = 10_000
MACHINE_FEATURES = ("free", "queue", "next_release", "submitted")
JOB_FEATURES = ("present", "fits", "width", "estimate", "wait", "expansion")

_LOG_TIME = math.log1p(TIME_SCALE)
_LOG_QUEUE = math.log1p(QUEUE_SCALE)


def log_time(seconds: float) -> float:
    """``min(1, log(1 + seconds) / log(1 + TIME_SCALE))``."""
    return min(1.0, math.log1p(seconds) / _LOG_TIME)


def queue_window(waiting: dict[int, Job], head: int, tail: int) -> list[Job]:
    """The first ``head`` and last ``tail`` waiting jobs in arrival order (all of them when
    there are no more than ``head + tail``)."""
    jobs = waiting.values()
    if len(waiting) <= head + tail:
        return list(jobs)
    back = list(islice(reversed(jobs), tail))
    back.reverse()
    return [*islice(jobs, head), *back]


def machine_features(ctx: Context, submitted: int, episode_jobs: int) -> list[float]:
    """:data:`MACHINE_FEATURES` of the machine now."""
    release = next(ctx.releases(), None)
    return [ctx.free / ctx.processors,
            min(1.0, math.log1p(len(ctx.waiting)) / _LOG_QUEUE),
            0.0 if release is None else log_time(release[0] - ctx.now),
            submitted / max(episode_jobs, 1)]


class JobFeatures:
    """The :data:`JOB_FEATURES` of an episode's jobs: what does not change while a job waits
    computed once per episode, the rest (fits, wait, expansion) for the jobs shown.

    A step shows a few jobs (the window's, at most ``head + tail``): their
    rows are computed in plain Python and written with one conversion, which
    costs less than a dozen numpy operations on arrays of a few elements.
    """

    def __init__(self, jobs: Sequence[Job], processors: int) -> None:
        self.constant = {job.id: (job.width / processors,
                                  min(1.0, math.log1p(job.estimate) / _LOG_TIME),
                                  1.0 / max(job.estimate, 1))
                         for job in jobs}

    def write(self, jobs: list[Job], ctx: Context, rows: np.ndarray) -> list[bool]:
        """Write the features of ``jobs`` into the first rows of ``rows`` (float32, zeros
        beyond them); returns which of them fit in the free processors now."""
        if not jobs:
            return []
        now, free, constant = ctx.now, ctx.free, self.constant
        log1p, scale = math.log1p, 1.0 / _LOG_TIME
        fits = [job.width <= free for job in jobs]
        table = []
        for job, fit in zip(jobs, fits, strict=True):
            width, estimate, per_estimate = constant[job.id]
            wait = now - job.submit
            table.append((1.0, fit, width, estimate, min(1.0, log1p(wait) * scale),
                          min(1.0, log1p(wait * per_estimate) * scale)))
        rows[:len(jobs)] = table
        return fits
