"""What the three engines share: event kinds, input checks, the run's bookkeeping.

Space sharing (:mod:`schedlab.engine.simulator`), time sharing
(:mod:`schedlab.engine.timesharing`) and the grid (:mod:`schedlab.engine.grid`)
each keep their own event loop, the hot path of a run, inline.  Everything
around the loops is here, once (docs/reference/engine.md, "One kernel"):

* the kinds of heap events and their order at one instant (:data:`FINISH` ...
  :data:`WAKE`);
* the checks of a run's input (:func:`check_one_of`, :func:`check_machine`,
  :func:`job_positions`) and the overrun modes (:data:`OVERRUN_MODES`);
* one run per policy instance (:func:`claim`);
* the cycle collector paused for the loop (:func:`cyclic_gc_paused`);
* the recorder of step functions (:class:`StepSeries`) and of progress
  (:class:`Progress`);
* the error for a job a policy leaves waiting forever (:func:`never_starts`);
* the metadata every result carries (:func:`run_meta`), the deadline
  columns (:func:`deadline_columns`) and the assembly of the
  :class:`~schedlab.engine.result.Result` (:func:`assemble`).
"""

from __future__ import annotations

import gc
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab import __version__
from schedlab.engine.result import Result
from schedlab.errors import InputError, PolicyError

if TYPE_CHECKING:
    from schedlab.workload.job import Job, Workload

# Kinds of heap events, in the order they are processed at one instant
# (docs/reference/engine.md): job finishes, reservation ends, repairs and window ends
# (RESTORE), reservation starts, window notices, failures and window starts (OUTAGE),
# corrections of runtime predictions a running job outlived, cancellations by users, then
# (not on the heap) the submissions of the instant, then jobs released from a per-user
# queue limit, reservation requests and wake-ups (ticks included).  The grid engine uses
# FINISH and WAKE; the time-sharing engine has no heap.
(FINISH, RESERVATION_END, RESTORE, RESERVATION_START, NOTICE, OUTAGE, CORRECT, CANCEL,
 RELEASE, REQUEST, WAKE) = range(11)

#: A time after every event (every time is an int; SWF times stay below 2**53): the
#: sentinel after the last submit time an event loop reads.
NEVER = 2**63 - 1

#: What happens to a job still running at its estimate: killed (CCS behaviour,
#: Streit 2002 §5; the default) or left to run to completion.
OVERRUN_MODES = ("kill", "extend")

#: ``progress(done, total)``: jobs finished or rejected so far, out of all.
ProgressCallback = Callable[[int, int], None]
#: About how many times a run calls its progress callback (and once more at the end).
REPORTS_PER_RUN = 200


# ------------------------------------------------------------------ input checks
def check_one_of(field: str, value: object, choices: Sequence[str]) -> None:
    """InputError naming ``field`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise InputError(f"expected one of {', '.join(choices)}, got {value!r}", field=field)


def check_machine(jobs: Iterable[Job], machine: int) -> None:
    """InputError unless the machine has a processor and every job fits on it."""
    if machine <= 0:
        raise InputError(f"the machine needs at least one processor, got {machine}",
                         field="processors")
    too_wide = [j.id for j in jobs if j.width > machine]
    if too_wide:
        raise InputError(f"{len(too_wide)} job(s) are wider than the {machine}-processor "
                         f"machine (first: job {too_wide[0]})", field="processors")


def job_positions(jobs: Sequence[Job]) -> dict[int, int]:
    """Each job's position in the workload by id; InputError if two jobs share an id
    (an engine keeps its results by position)."""
    index = {job.id: i for i, job in enumerate(jobs)}
    if len(index) != len(jobs):
        raise InputError("job ids must be unique within a workload", field="job id")
    return index


def claim(policy: Any) -> None:
    """Mark a policy instance as used; refuse one that a run has used already.

    A policy keeps state across the calls of a run (plans, counters, dynP's
    decisions), so a second run of the same instance would start from the
    first one's end.  The instance is marked rather than copied, so that the
    object the caller holds is the one that ran (docs/reference/engine.md, "Policy
    lifecycle").
    """
    if getattr(policy, "_used_by_a_run", False):
        kind = type(policy).__name__
        raise InputError(f"this {kind} instance (policy {policy.name!r}) has already been run "
                         f"and keeps that run's state; give every run a new policy, e.g. "
                         f"policy.clone(), or pass the policy by name",
                         field="policy")
    policy._used_by_a_run = True


# ------------------------------------------------------------------ the loop's frame
@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector for the event loop, restoring its state after.

    The loop makes and drops hundreds of thousands of small tuples; each
    burst makes the collector walk every live object, the workload's jobs
    included, looking for cycles the engine never creates.  Paused, the
    loop runs about 30% faster on a trace of 28,000 jobs (bench/README.md).
    Memory is still freed at once by reference counting; cycles a policy
    might create are collected when the collector resumes.  The space-sharing
    :func:`~schedlab.engine.simulator.run` keeps it paused from the run's set-up
    to its result and drops the run's state before it resumes, so that a run's
    objects are never walked (bench/OUTAGES.md).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class StepSeries:
    """Step functions of a run on one time axis: ``width`` values per instant at which
    any of them changed (the last values recorded at an instant win).

    Kept as one flat 64-bit array (``array('q')``), 8 bytes a value: as
    lists, every time and every count above 256 would be an int object of
    its own (about 36 bytes), and there are about two instants per job.
    """

    __slots__ = ("_flat", "_last", "_time", "width")

    def __init__(self, width: int) -> None:
        self.width = width
        self._flat = array("q")
        self._last: tuple[int, ...] | None = None
        self._time: int | None = None

    def record(self, now: int, *values: int) -> None:
        """The values from ``now`` on (ints, ``width`` of them)."""
        if values == self._last:
            return
        flat = self._flat
        if now == self._time:
            del flat[-self.width:]
        else:
            flat.append(now)
            self._time = now
        flat.extend(values)
        self._last = values

    def load(self, flat: np.ndarray) -> None:
        """Take the rows a compiled loop recorded as :meth:`record` would have kept them:
        ``flat`` (int64) holds each row's time, then its ``width`` values."""
        self._flat = array("q", flat.tobytes())

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The times (int64) and the values, one row per time, one column per value."""
        table = np.array(self._flat, dtype=np.int64).reshape(-1, self.width + 1)
        return table[:, 0].copy(), table[:, 1:]


class Progress:
    """Calls ``callback(done, total)`` each time about 1/200 more of the jobs are done,
    and once at the end of the run; does nothing without a callback.

    A loop keeps :attr:`due` in a local and calls :meth:`report` when the
    count of finished or rejected jobs reaches it.
    """

    __slots__ = ("callback", "due", "every", "total")

    def __init__(self, callback: ProgressCallback | None, total: int) -> None:
        self.callback = callback
        self.total = total
        self.every = max(1, total // REPORTS_PER_RUN)
        self.due = self.every if callback is not None else sys.maxsize

    def report(self, done: int) -> int:
        """Report ``done`` jobs; returns the count at which the next report is due."""
        if self.callback is not None:
            self.callback(done, self.total)
            self.due = done + self.every
        return self.due

    def close(self, done: int) -> None:
        """The last report, at the end of the run."""
        if self.callback is not None:
            self.callback(done, self.total)


def never_starts(policy_name: str, job_id: int, where: str = "") -> PolicyError:
    """The error for a job a policy leaves waiting when no event is left to come
    (``where``: e.g. ``" in cluster 1"``)."""
    return PolicyError(f"policy {policy_name!r} left job {job_id} waiting{where} with no "
                       f"event to come: it never starts")


# ------------------------------------------------------------------ the result
def run_meta(workload: Workload, overrun: str, wall: float,
             settings: Mapping[str, Any] | None = None,
             extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The metadata of every run: version, overrun mode, the engine's own ``settings``,
    wall time, number of jobs, the trace's Unix start time, then ``extra``."""
    return {"schedlab_version": __version__, "overrun": overrun, **(settings or {}),
            "wall_time_s": round(wall, 6), "jobs": len(workload.jobs),
            "unix_start_time": workload.unix_start_time, **(extra or {})}


def deadline_columns(jobs: Sequence[Job]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Deadlines (-1 where none) and the artificial-deadline marks; ``None`` without deadlines."""
    if all(job.deadline is None for job in jobs):
        return None, None
    deadline = np.array([-1 if job.deadline is None else job.deadline for job in jobs],
                        dtype=np.int64)
    artificial = np.array([job.artificial_deadline for job in jobs], dtype=bool)
    return deadline, artificial


def assemble(workload: Workload, *, processors: int, policy: str, params: dict[str, Any],
             stats: dict[str, Any], start: Any, end: Any, status: Any,
             series: tuple[np.ndarray, np.ndarray, np.ndarray], meta: dict[str, Any],
             planned_start: Any = None, **fields: Any) -> Result:
    """The :class:`Result` of a run: the workload's own columns, what the engine
    recorded per job (``start``, ``end``, ``status``; ``planned_start``, -1 for
    every job when not given), the series ``(time, busy, queue)``, and the
    engine's own ``fields``."""
    columns = workload.to_arrays()
    n = len(workload.jobs)
    series_time, series_busy, series_queue = series
    return Result(
        processors=processors, policy=policy,
        job_id=columns["id"], submit=columns["submit"], width=columns["width"],
        estimate=columns["estimate"], runtime=columns["runtime"],
        start=np.array(start, dtype=np.int64), end=np.array(end, dtype=np.int64),
        status=np.array(status, dtype=np.int8),
        planned_start=(np.full(n, -1, dtype=np.int64) if planned_start is None
                       else np.array(planned_start, dtype=np.int64)),
        series_time=series_time, series_busy=series_busy, series_queue=series_queue,
        workload=workload.name, params=params, stats=stats,
        skipped=dict(workload.skipped), meta=meta, **fields)
