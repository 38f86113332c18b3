"""Rewards: a schedlab metric of the episode, paid per decision (dense) or at its end.

Every reward is one metric of :func:`schedlab.metrics.compute_metrics`
(docs/reference/metrics.md), signed so that more reward is better: the
negative of the metric, or the metric itself for a utilization.

* ``"episode"``: the last step of an episode pays the signed metric of the
  episode's :class:`~schedlab.engine.result.Result`, every other step 0.
  Any metric of :data:`EPISODE_METRICS`.
* ``"dense"``: for the metrics that are a mean over the episode's jobs of a
  value known when a job starts (:data:`PER_JOB`), each step pays, for every
  job started during it, the signed value of that job divided by the number
  of the episode's jobs (or, for a width-weighted mean, its value times its
  width divided by the episode's total width).  A job's end is known when it
  starts (the engine kills it at its estimate or ends it at its runtime), so
  its wait, response and slowdowns are too; the rewards of an episode sum
  to the signed metric of its Result, up to floating-point rounding.

The per-job values are the functions of :mod:`schedlab.metrics.jobs`, on
the started jobs' columns: the same formulas as the metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from schedlab.engine.result import Result
from schedlab.errors import InputError, did_you_mean
from schedlab.metrics import compute_metrics
from schedlab.metrics.jobs import (
    AcceptedJobs,
    bounded_slowdown,
    response_time,
    slowdown,
    wait_time,
)
from schedlab.workload.job import Job

#: How a reward is paid.
REWARD_MODES = ("dense", "episode")

#: The metrics a dense reward pays job by job: name -> (per-job value, weighted by width).
PER_JOB: dict[str, tuple[Callable[[AcceptedJobs], np.ndarray], bool]] = {
    "avg_wait": (wait_time, False),
    "avg_response": (response_time, False),
    "avg_slowdown": (slowdown, False),
    "avg_bsld_10": (partial(bounded_slowdown, tau=10), False),
    "avg_bsld_60": (partial(bounded_slowdown, tau=60), False),
    "avg_bsld_300": (partial(bounded_slowdown, tau=300), False),
    "artww": (response_time, True),
    "sldww_60": (partial(bounded_slowdown, tau=60), True),
    "sldww_300": (partial(bounded_slowdown, tau=300), True),
}

#: The metrics a reward at the episode's end may be: the per-job ones and those of the
#: whole schedule.
EPISODE_METRICS = (*PER_JOB, "max_wait", "makespan", "utilization", "utilization_margo",
                   "loss_of_capacity", "avg_queue", "max_queue", "expansion_factor_weighted",
                   "wait_weighted")

#: The metrics where more is better: their reward is the metric, not its negative.
HIGHER_IS_BETTER = ("utilization", "utilization_margo")

#: A job started during a step: the job, its start and its end.
Started = tuple[Job, int, int]


class Reward:
    """The reward of one metric paid one way; :meth:`begin` at every episode."""

    def __init__(self, metric: str, mode: str) -> None:
        if mode not in REWARD_MODES:
            raise InputError(f"expected one of {', '.join(REWARD_MODES)}, got {mode!r}",
                             field="reward_mode")
        names = PER_JOB if mode == "dense" else EPISODE_METRICS
        if metric not in names:
            more = ("; a dense reward is paid job by job, so its metric is a mean over jobs"
                    if mode == "dense" and metric in EPISODE_METRICS else "")
            raise InputError(f"expected one of {', '.join(names)} for a {mode} reward, got "
                             f"{metric!r}{did_you_mean(str(metric), names)}{more}",
                             field="reward")
        self.metric = metric
        self.mode = mode
        self.sign = 1.0 if metric in HIGHER_IS_BETTER else -1.0
        self._value, self._weighted = PER_JOB.get(metric, (wait_time, False))
        self._scale = 1.0

    def begin(self, jobs: Sequence[Job]) -> None:
        """A new episode of ``jobs``: what a dense reward divides by."""
        total = sum(job.width for job in jobs) if self._weighted else len(jobs)
        self._scale = self.sign / max(total, 1)

    def paid(self, started: list[Started]) -> float:
        """The reward of a step during which ``started`` jobs started.

        The per-job function takes one job's columns as numbers (numpy's
        operations take scalars as they take vectors): a step starts a job or
        a few, and arrays of one would cost more than the formula.
        """
        if self.mode != "dense" or not started:
            return 0.0
        value, weighted = self._value, self._weighted
        total = 0.0
        for job, start, end in started:
            columns: tuple[Any, ...] = (job.submit, start, end, job.width, job.estimate, 0)
            term = float(value(AcceptedJobs(*columns)))
            total += term * job.width if weighted else term
        return total * self._scale

    def final(self, result: Result) -> float:
        """What the last step of the episode adds: the signed metric of its ``result`` for
        an episode reward (0 for a metric over no jobs), nothing for a dense one."""
        if self.mode != "episode":
            return 0.0
        value = compute_metrics(result, classes=False)[self.metric]
        return 0.0 if value is None else self.sign * float(value)
