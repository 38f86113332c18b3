"""The fate of a job on a failed node, as every engine with failures applies it.

One rule for the whole run (docs/reference/events.md, "The fate"): the job
is killed, queued again from the start, or queued again from its last
checkpoint.  :class:`Attempts` keeps, per job, what that rule needs and what
the run's :class:`~schedlab.engine.result.OutageRecord` reports: the attempts
a failure ended, each job's work and limit left, the needs of its last
attempt (checkpoint writes and restart included) and its checkpoint
overhead.  The space-sharing engine (:mod:`schedlab.engine.outages`) counts
an attempt's progress in seconds on its processors, the time-sharing engine
(:mod:`schedlab.engine.gang_events`) in seconds of service; the arithmetic is
the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from schedlab.workload.job import Job
    from schedlab.workload.outages import FailureSpec, Window


def wall_time(work: int, interval: int, cost: int) -> int:
    """Seconds to do ``work`` seconds of work writing a checkpoint (``cost`` seconds)
    after every ``interval`` seconds of it, none at the very end."""
    if work <= 0:
        return 0
    return work + cost * ((work - 1) // interval)


def wall_times(work: np.ndarray, interval: np.ndarray, cost: int) -> np.ndarray:
    """:func:`wall_time` of every job at once."""
    return np.where(work > 0, work + cost * ((work - 1) // interval), 0)


def checkpoint_intervals(widths: np.ndarray, spec: FailureSpec) -> np.ndarray:
    """Seconds of work between checkpoints of jobs of ``widths`` processors:
    :meth:`~schedlab.workload.outages.Checkpointing.interval_for` of their nodes (the
    ``node_size`` of ``spec``) and its node MTBF, one job per element."""
    sizes, job_size = np.unique(-(-widths // spec.node_size), return_inverse=True)
    intervals = [spec.checkpointing.interval_for(n, spec.mtbf) for n in sizes.tolist()]
    return np.array(intervals, dtype=np.int64)[job_size]


def saved_work(elapsed: int, interval: int, cost: int, restart: int, work: int) -> int:
    """The seconds of work the last checkpoint written within ``elapsed`` seconds of an
    attempt keeps: the attempt first spends ``restart`` seconds reading a checkpoint, then
    alternates ``interval`` seconds of work and ``cost`` seconds of writing."""
    useful = elapsed - restart
    if useful <= 0:
        return 0
    return min(work, (useful // (interval + cost)) * interval)


def with_times(job: Job, runtime: int, estimate: int) -> Job:
    """``job`` with another runtime and estimate (fields 2 and 3 of the tuple)."""
    return tuple.__new__(type(job), job[:2] + (runtime, estimate) + job[4:])


def outage_settings(spec: FailureSpec, windows: Sequence[Window]) -> dict[str, Any]:
    """The failure settings a run's record and metrics.json carry (``meta.outages``)."""
    settings: dict[str, Any] = {
        "fate": spec.fate, "allocation": spec.allocation, "node_size": spec.node_size,
        "requeue": spec.requeue_order, "max_requeues": spec.max_requeues,
        "windows": len(windows)}
    if spec.model is not None:
        settings["model"] = asdict(spec.model)
    if spec.source:
        settings["failure_file"] = spec.source
    if spec.fate == "checkpoint":
        settings["checkpointing"] = asdict(spec.checkpointing)
    return settings


class Attempts:
    """Each job's attempts under the run's fate (jobs by workload position)."""

    def __init__(self, jobs: Sequence[Job], spec: FailureSpec) -> None:
        self.spec = spec
        n = len(jobs)
        runtime = np.fromiter(map(attrgetter("runtime"), jobs), np.int64, n)
        estimate = np.fromiter(map(attrgetter("estimate"), jobs), np.int64, n)
        #: The seconds each job's last attempt needed and was allowed (its first's once it
        #: enters: :meth:`entered`).
        self.final_runtime = runtime
        self.final_estimate = estimate
        #: The positions of the jobs whose first attempt needs other times than submitted.
        self._rewritten = np.zeros(0, dtype=np.int64)
        #: Under ``checkpoint`` only (the other fates run every first attempt as submitted
        #: and count no overhead): the seconds of work each job's first attempt must do,
        #: the smaller of its runtime and estimate as submitted (the limit kills it at its
        #: estimate); and the runtime and estimate of each job's first attempt, as lists
        #: (read per job).
        self._work: list[int] = []
        self._first: tuple[list[int], list[int]] = ([], [])
        if spec.fate == "checkpoint":
            self._work = np.minimum(runtime, estimate).tolist()
            widths = np.fromiter(map(attrgetter("width"), jobs), np.int64, n)
            self._intervals = checkpoint_intervals(widths, spec)
            cost = spec.checkpointing.cost
            submitted = runtime, estimate
            runtime = wall_times(runtime, self._intervals, cost)
            estimate = wall_times(estimate, self._intervals, cost)
            self._rewritten = np.flatnonzero((runtime != submitted[0])
                                             | (estimate != submitted[1]))
            self._first = (runtime.tolist(), estimate.tolist())
        self.overhead = np.zeros(len(jobs), dtype=np.int64)
        #: Per job under a requeueing fate: (work left, limit left, restart seconds).
        self._left: dict[int, tuple[int, int, int]] = {}
        self._hits: dict[int, int] = {}
        #: (position, start, end, work kept) of every attempt a failure ended.
        self.ended: list[tuple[int, int, int, int]] = []
        #: The seconds of progress of each ended attempt (its service in a gang run).
        self.progress: list[int] = []

    @property
    def count_name(self) -> str:
        """The statistic an attempt queued again counts under."""
        return "requeued" if self.spec.fate == "requeue" else "restarted"

    def first_attempts(self, jobs: Sequence[Job]) -> list[Job]:
        """Every job as it runs its first attempt (:meth:`entered` of all of them at once,
        by position): built once for the run, so that a job entering the queue costs a
        look-up.  Only a job its checkpoint writes lengthen is made anew (most jobs end
        before their first write); the others run as submitted.  A job that never enters
        (withdrawn at its submission) keeps its submitted runtime and estimate:
        :meth:`never_entered`."""
        first = list(jobs)
        if self.spec.fate != "checkpoint":
            return first
        runtime, estimate = self._first
        self.final_runtime = np.array(runtime, dtype=np.int64)
        self.final_estimate = np.array(estimate, dtype=np.int64)
        for i in self._rewritten.tolist():
            first[i] = with_times(first[i], runtime[i], estimate[i])
        return first

    def never_entered(self, job: Job, position: int) -> None:
        """A job withdrawn at its submission ran no attempt: its final runtime and estimate
        are those it was submitted with (undoing :meth:`first_attempts`)."""
        self.final_runtime[position] = job.runtime
        self.final_estimate[position] = job.estimate

    def entered(self, job: Job, position: int) -> Job:
        """A job as it runs its first attempt: under ``checkpoint`` its runtime and estimate
        with the checkpoint writes they need (the limit covers the work; the writes are
        the system's)."""
        if self.spec.fate != "checkpoint":
            return job
        runtime, estimate = self._first[0][position], self._first[1][position]
        self.final_runtime[position] = runtime
        self.final_estimate[position] = estimate
        return with_times(job, runtime, estimate)

    def hit(self, job: Job, original: Job, position: int, start: int, now: int,
            elapsed: int) -> Job | None:
        """A failure ended the attempt of ``job`` (as it ran; ``original`` as submitted)
        that began at ``start``, after ``elapsed`` seconds of progress: None when it is
        killed (the ``kill`` fate, or a job hit more than ``max_requeues`` times), else
        the job to queue again, with the runtime and estimate of its next attempt."""
        spec = self.spec
        self._hits[position] = hits = self._hits.get(position, 0) + 1
        self.progress.append(elapsed)
        if spec.fate == "kill" or hits > spec.max_requeues:
            self.ended.append((position, start, now, 0))
            return None
        work, limit, restart = self._left.get(position, (original.runtime, original.estimate, 0))
        cost = spec.checkpointing.cost
        if spec.fate == "checkpoint":
            interval = int(self._intervals[position])
            saved = saved_work(elapsed, interval, cost, restart, min(work, limit))
            self.overhead[position] += min(elapsed, restart) + (saved // interval) * cost
            restart = spec.checkpointing.restart
        else:
            interval, saved, restart = 0, 0, 0
        self.ended.append((position, start, now, saved))
        work, limit = work - saved, limit - saved
        self._left[position] = (work, limit, restart)
        if spec.fate == "checkpoint":
            runtime = restart + wall_time(work, interval, cost)
            estimate = restart + wall_time(limit, interval, cost)
        else:
            runtime, estimate = work, limit
        self.final_runtime[position] = runtime
        self.final_estimate[position] = estimate
        return with_times(job, runtime, estimate)

    def finished(self, position: int, held: int) -> None:
        """A job's last attempt ended after ``held`` seconds of progress: under
        ``checkpoint``, count what of it was not work (its restart and checkpoint
        writes)."""
        if self.spec.fate != "checkpoint":
            return
        left = self._left.get(position)
        work = self._work[position] if left is None else min(left[0], left[1])
        if held > work:
            self.overhead[position] += held - work

    def all_finished(self, positions: np.ndarray, held: np.ndarray) -> None:
        """:meth:`finished` of the last attempts of the jobs at ``positions`` at once (held
        ``held`` seconds each): counted when the run's record is made, not job by job."""
        if self.spec.fate != "checkpoint":
            return
        work = np.array(self._work, dtype=np.int64)
        for position, (work_left, limit_left, _) in self._left.items():
            work[position] = min(work_left, limit_left)
        self.overhead[positions] += np.maximum(held - work[positions], 0)

    def ended_array(self) -> np.ndarray:
        """The attempts a failure ended, one row ``(position, start, end, saved)``."""
        return np.array(self.ended, dtype=np.int64).reshape(-1, 4)


def requeue(queue: dict[int, Job], job: Job, position: int, index: dict[int, int],
            by_arrival: bool) -> None:
    """Put a job a failure ended back in ``queue`` (job id -> job, in queue order): at its
    place by arrival (``position`` in the workload; ``index`` gives every queued job's)
    or at the back.  The ``requeue`` key of ``--failures`` (docs/reference/events.md)."""
    if not by_arrival:
        queue[job.id] = job
        return
    items = list(queue.items())
    at = next((k for k, (job_id, _) in enumerate(items) if index[job_id] > position),
              len(items))
    items.insert(at, (job.id, job))
    queue.clear()
    queue.update(items)
