"""The rules every simulation result keeps, and the small runs a policy is held to them on.

* :func:`check_invariants` — the rules of SPEC §3 on one result of one
  machine: no oversubscription, no start before submission, one start per
  job, and the exact end time every accepted job must have; with advance
  reservations, that each granted one held exactly its processors for
  exactly its interval, on processors no job used (:func:`check_reservations`).
* :func:`check_matrix` — the rules of a gang (time-sharing) result, checked
  by :func:`check_invariants` whenever the result has a time-sharing trace:
  never two processes on one processor in one slot, every job's service
  equal to what it needed, no more rows than the slot limit, and under
  Strategy 2 and 3 never two long jobs on one processor.
* :func:`check_grid_invariants` — the rules of a grid run (machines,
  licences, eq. 3.9's time on the machine, preemption's runs).
* :func:`check_deadlines` — admission control's guarantee.
* The conformance cases of each execution model (:func:`space_sharing_cases`,
  :func:`time_sharing_cases`, :func:`grid_cases`) and the check of one of
  their results (:func:`check_one_machine_run`, :func:`check_grid_run`): the
  execution model table (:mod:`schedlab.execution`) names them, and
  :func:`schedlab.testing.check_policy` runs a policy through its model's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.result import (
    CANCELLED,
    FAILED,
    FINISHED,
    KILLED,
    MATRIX_CHANGE_KINDS,
    WITHDRAWN,
    Result,
)
from schedlab.workload.job import Job, Workload
from schedlab.workload.reservations import Reservation

if TYPE_CHECKING:
    from schedlab.platform.model import Platform
    from schedlab.workload.grid import GridWorkload


def check_invariants(result: Result, workload: Workload, *, overrun: str = "kill",
                     reservations: Sequence[Reservation] | None = None) -> None:
    """Raise ``AssertionError`` naming the first job that breaks a simulation rule.

    ``reservations`` are the requests the run was given; the result must
    account for each of them (:func:`check_reservations`).  A result with a
    reservation table is checked against it even without them.
    """
    jobs = workload.jobs
    assert len(result) == len(jobs), f"result has {len(result)} jobs, workload {len(jobs)}"
    ids = np.array([j.id for j in jobs], dtype=np.int64)
    assert np.array_equal(result.job_id, ids), "result jobs are not in workload order"
    accepted = result.accepted
    _check_rejected_have_no_times(result, ~accepted)
    _expect(accepted & (result.start < result.submit), result, "starts before it is submitted")
    _expect(accepted & (result.end < result.start), result, "ends before it starts")
    held = result.end - result.start
    if result.suspended is not None:
        held = held - result.suspended
    runtime, estimate = result.runtime, result.estimate
    if result.outages is not None:          # the last attempt's needs, overheads included
        runtime, estimate = result.outages.final_runtime, result.outages.final_estimate
    if overrun == "kill":
        limit = estimate + int(result.meta.get("kill_grace", 0))
        should_hold = np.minimum(runtime, limit)
        should_kill = runtime > limit
    else:
        should_hold = runtime
        should_kill = np.zeros(len(result), dtype=bool)
    cancelled = _check_cancellations(result, accepted, held, should_hold)
    failed = _check_outages(result, accepted)
    whole = accepted & ~cancelled & ~failed
    _expect(whole & (held != should_hold), result, "does not run for min(runtime, estimate)"
            if overrun == "kill" else "does not run for its runtime")
    _expect(whole & should_kill & (result.status != KILLED), result, "should be killed")
    _expect(whole & ~should_kill & (result.status != FINISHED), result,
            "is marked killed but ran to completion")
    if reservations is not None or result.reservations is not None:
        check_reservations(result, reservations)
    if result.timesharing is not None:
        _expect(whole & (result.timesharing.service != should_hold), result,
                "received a service other than it needed")
        _expect(accepted & (result.timesharing.placed > result.start), result,
                "starts before it is placed in the matrix")
        check_matrix(result)
    else:
        _check_capacity(result, accepted)


def check_matrix(result: Result) -> None:
    """Replay the matrix changes of a gang result; raise ``AssertionError`` at the first
    processor holding two processes in one row (or express slot), the first moment
    with more rows than the ``slots`` parameter, or — under ``strategy`` >= 2 — two
    long jobs on one processor (docs/reference/policies/gang.md).
    """
    trace = result.timesharing
    assert trace is not None, "the result has no time-sharing trace"
    params = result.params
    masks = _AttemptMasks(result)
    long_jobs = set()
    if params.get("strategy", 1) >= 2 and "long" in params:
        length = result.estimate if params.get("classify_by") == "estimate" else result.runtime
        long_jobs = set(result.job_id[length > params["long"]].tolist())
    rows: dict[int, dict[int, int]] = {}      # row id -> job id -> mask (own and guests)
    home: dict[int, int] = {}
    place, move, guest, unguest, express, _leave = range(len(MATRIX_CHANGE_KINDS))
    events = zip(trace.change_time.tolist(), trace.change_kind.tolist(),
                 trace.change_job.tolist(), trace.change_row.tolist())
    last_time = None
    for time, kind, job_id, row_id in events:
        if last_time is not None and time != last_time:
            _check_rows(rows, home, masks, long_jobs, params, last_time)
        last_time = time
        where = f"job {job_id} at time {time}"
        if kind in (place, express):
            masks.placed(job_id, time)
        if kind in (place, guest, express):
            cells = rows.setdefault(row_id, {})
            taken = sum(cells.values())
            assert not masks[job_id] & taken, f"{where} shares a processor in a slot"
            cells[job_id] = masks[job_id]
            if kind == place:
                home[job_id] = row_id
        elif kind == move:
            rows[home[job_id]].pop(job_id)
            cells = rows.setdefault(row_id, {})
            assert not masks[job_id] & sum(cells.values()), f"{where} moves onto a busy processor"
            cells[job_id] = masks[job_id]
            home[job_id] = row_id
        elif kind == unguest:
            rows[row_id].pop(job_id)
        else:
            for cells in rows.values():
                cells.pop(job_id, None)
            home.pop(job_id, None)
    if last_time is not None:
        _check_rows(rows, home, masks, long_jobs, params, last_time)


class _AttemptMasks(dict):
    """Each job's processors (a bit mask) in the attempt that holds them now: a gang job
    queued again after a failure may come back on others (the record's intervals)."""

    def __init__(self, result: Result) -> None:
        trace = result.timesharing
        assert trace is not None
        ids = result.job_id.tolist()
        super().__init__((job_id, _as_mask(ranges)) for job_id, ranges in zip(ids, trace.columns))
        self._attempts: dict[int, dict[int, int]] = {}
        if result.outages is not None:
            for lo, hi, start, _, holder in result.outages.intervals.tolist():
                if holder >= 0:
                    held = self._attempts.setdefault(ids[holder], {})
                    held[start] = held.get(start, 0) | ((1 << hi) - (1 << lo))

    def placed(self, job_id: int, time: int) -> None:
        """Job ``job_id`` entered the matrix (or an express slot) at ``time``."""
        attempts = self._attempts.get(job_id)
        if attempts is not None and time in attempts:
            self[job_id] = attempts[time]


def _as_mask(ranges: Sequence[tuple[int, int]]) -> int:
    return sum(((1 << stop) - (1 << first)) for first, stop in ranges)


def _check_rows(rows, home, masks, long_jobs, params, time) -> None:
    """The limits that hold after every instant's changes: rows and long jobs."""
    used_rows = {row for row in home.values()}
    limit = params.get("slots")
    assert limit is None or len(used_rows) <= limit, \
        f"{len(used_rows)} rows at time {time}, more than the limit of {limit}"
    seen = 0
    for job_id in home:
        if job_id in long_jobs:
            assert not masks[job_id] & seen, f"two long jobs share a processor at time {time}"
            seen |= masks[job_id]


def check_reservations(result: Result, requests: Sequence[Reservation] | None = None) -> None:
    """Raise ``AssertionError`` unless every granted reservation was honoured (SPEC §3, §4.5).

    With ``requests`` the table must list exactly them (sorted by creation,
    then id) with their times, widths and owners.  A granted reservation
    starts no earlier than its request was created and has no reason; a
    rejected one has no start and a reason.  The engine's series of
    reserved processors must be exactly the sum of the granted intervals:
    each held its width from its start for its duration, no more, no less.
    That processors held by jobs and reservations together never exceed
    the machine (so a reservation's processors were free at its start) is
    checked with the jobs by :func:`check_invariants`.
    """
    table = result.reservations
    assert table is not None, "the result has no reservation table"
    if requests is not None:
        ordered = sorted(requests, key=lambda r: (r.created, r.id))
        expected = [(r.id, r.created, r.start, r.duration, r.width, r.owner) for r in ordered]
        found = list(zip(table.id.tolist(), table.created.tolist(),
                         table.requested_start.tolist(), table.duration.tolist(),
                         table.width.tolist(), table.owner))
        assert found == expected, "the reservation table does not list the requests given"
    granted = table.granted
    for k in range(len(table)):
        what = f"reservation {int(table.id[k])}"
        if granted[k]:
            assert table.start[k] >= table.created[k], f"{what} starts before it was requested"
            assert table.reason[k] == "", f"{what} is granted but has a reason"
        else:
            assert table.start[k] == -1, f"{what} is rejected but has a start"
            assert table.reason[k] != "", f"{what} is rejected without a reason"
    expected_series = _sum_of_intervals(table.start[granted], table.duration[granted],
                                        table.width[granted])
    recorded = _without_repeats(*_settled(table.series_time, table.series_reserved))
    assert _series_equal(recorded, expected_series), \
        (f"the reserved processors over time {recorded} differ from the granted "
         f"reservations {expected_series}")


def _sum_of_intervals(starts: np.ndarray, durations: np.ndarray, widths: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The step function sum of ``width`` on ``[start, start + duration)`` (changes only)."""
    times = np.concatenate([starts, starts + durations])
    deltas = np.concatenate([widths, -widths])
    distinct, inverse = np.unique(times, return_inverse=True)
    values = np.cumsum(np.bincount(inverse, weights=deltas, minlength=len(distinct)))
    return _without_repeats(distinct, values.astype(np.int64))


def _settled(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The last entry at each instant."""
    if len(times) == 0:
        return times, values
    last = np.append(times[1:] != times[:-1], True)
    return times[last], values[last]


def _without_repeats(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop entries that repeat the value before them (and leading zeros)."""
    previous = np.concatenate([[0], values[:-1]])
    keep = values != previous
    return times[keep], values[keep]


def _series_equal(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def _check_cancellations(result: Result, accepted: np.ndarray, held: np.ndarray,
                         should_hold: np.ndarray) -> np.ndarray:
    """The rules of users' cancellations (docs/reference/events.md); returns the mask of
    the jobs cancelled while running.

    Only a job its user cancels is cancelled or withdrawn; no job runs past its
    cancellation; one cancelled while running ends exactly then, before it would
    have ended of itself; one withdrawn never ran.
    """
    status = result.status
    if result.cancel_after is None:
        _expect((status == CANCELLED) | (status == WITHDRAWN), result,
                "is cancelled though no job is")
        return np.zeros(len(result), dtype=bool)
    at = result.submit + result.cancel_after
    cancels = result.cancel_after >= 0
    _expect(~cancels & ((status == CANCELLED) | (status == WITHDRAWN)), result,
            "is cancelled though its user never cancels it")
    _expect(accepted & cancels & (result.end > at), result, "runs past its cancellation")
    cancelled = status == CANCELLED
    _expect(cancelled & (result.end != at), result, "is cancelled running but not then")
    _expect(cancelled & (held >= should_hold), result,
            "is marked cancelled but held its processors as long as it needed")
    return cancelled


def _check_outages(result: Result, accepted: np.ndarray) -> np.ndarray:
    """The rules of failures, maintenance windows and drains (docs/reference/events.md);
    returns the mask of the jobs a failure killed.

    No processor is held by two things at once — jobs, failures and windows
    (so no job runs on a processor out of service); only the ``kill`` fate
    makes ``failed`` jobs (and a requeueing one, those hit once more than
    ``max_requeues`` times), each ending exactly at the end of an attempt a
    failure ended; every attempt a failure ended comes after the job's
    submission and before its last start; under a requeueing fate the work
    is conserved: the last attempt needs the work its checkpoints did not
    keep (:func:`_check_work_conserved`).
    """
    record = result.outages
    failed = result.status == FAILED
    if record is None:
        _expect(failed, result, "failed though the run had no failures")
        return failed
    _check_processors(record.intervals, shared=result.timesharing is not None)
    fate = record.settings.get("fate", "kill")
    attempts = record.attempts
    positions = attempts[:, 0]
    ends_of_attempts = np.zeros(len(result), dtype=bool)
    if fate != "kill":
        hits = np.bincount(positions, minlength=len(result))
        limit = record.settings["max_requeues"]
        _expect(failed & (hits != limit + 1), result,
                f"failed under the {fate!r} fate without being hit {limit + 1} times")
    last_attempt_end = np.full(len(result), -1, dtype=np.int64)
    if len(attempts):
        np.maximum.at(last_attempt_end, positions, attempts[:, 2])
        exact = result.end[positions] == attempts[:, 2]
        ends_of_attempts[positions[exact]] = True
        early = attempts[:, 1] < result.submit[positions]
        assert not early.any(), (f"job {int(result.job_id[positions[early][0]])} has an "
                                 f"attempt before its submission")
    _expect(failed & ~ends_of_attempts, result, "failed but not at the end of an attempt")
    again = accepted & ~failed & (last_attempt_end >= 0)
    _expect(again & (result.start < last_attempt_end), result,
            "starts again before the failure of its previous attempt")
    if fate == "checkpoint":
        _check_work_conserved(result, record)
    return failed


def _check_processors(intervals: np.ndarray, shared: bool = False) -> None:
    """No processor is held by two holders (jobs, failures, windows) at one time
    (``intervals``: rows ``(lo, hi, start, end, holder)``).  With ``shared`` (a gang
    run, whose jobs share processors in different rows: :func:`check_matrix`) only
    failures and windows are exclusive: no job holds a processor while one of them
    does."""
    if len(intervals) == 0:
        return
    if shared:
        _check_jobs_off_outages(intervals)
        intervals = intervals[intervals[:, 4] < 0]
        if len(intervals) == 0:
            return
    per_processor = _per_processor(intervals)
    order = np.lexsort((per_processor[:, 1], per_processor[:, 0]))
    rows = per_processor[order]
    same = rows[1:, 0] == rows[:-1, 0]
    overlap = same & (rows[1:, 1] < rows[:-1, 2])
    if overlap.any():
        k = int(np.argmax(overlap))
        first, second = rows[k], rows[k + 1]
        names = {-1: "a failure", -2: "a window"}
        raise AssertionError(
            f"processor {int(first[0])} is held by "
            f"{names.get(int(first[3]), f'job index {int(first[3])}')} until "
            f"{int(first[2])} and by {names.get(int(second[3]), f'job index {int(second[3])}')} "
            f"from {int(second[1])}")


def _per_processor(intervals: np.ndarray) -> np.ndarray:
    """``intervals`` one row ``(processor, start, end, holder)`` per processor they hold."""
    sizes = intervals[:, 1] - intervals[:, 0]
    first = np.repeat(intervals[:, 0], sizes)
    offsets = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.column_stack([first + offsets, np.repeat(intervals[:, 2:], sizes, axis=0)])


def _check_jobs_off_outages(intervals: np.ndarray) -> None:
    """No job interval overlaps a failure's or window's interval on one processor."""
    rows = _per_processor(intervals)
    outages, jobs = rows[rows[:, 3] < 0], rows[rows[:, 3] >= 0]
    for processor in np.unique(outages[:, 0]).tolist():
        held = outages[outages[:, 0] == processor]
        held = held[np.argsort(held[:, 1], kind="stable")]
        mine = jobs[jobs[:, 0] == processor]
        # the last outage starting before a job's end is the only one that can overlap it
        k = np.searchsorted(held[:, 1], mine[:, 2], side="left") - 1
        bad = (k >= 0) & (held[np.maximum(k, 0), 2] > mine[:, 1])
        if bad.any():
            job, outage = mine[int(np.argmax(bad))], held[int(k[int(np.argmax(bad))])]
            raise AssertionError(
                f"processor {processor} is held by job index {int(job[3])} from "
                f"{int(job[1])} to {int(job[2])}, while it is out of service from "
                f"{int(outage[1])} to {int(outage[2])}")


def _check_work_conserved(result: Result, record: Any) -> None:
    """Under the ``checkpoint`` fate every job's last attempt needs exactly the work its
    checkpoints did not keep, with its restart and checkpoint writes
    (:func:`~schedlab.engine.attempts.wall_time`)."""
    from schedlab.engine.attempts import wall_time
    from schedlab.workload.outages import Checkpointing

    settings = record.settings
    checkpointing = Checkpointing(**settings["checkpointing"])
    mtbf = settings.get("model", {}).get("mtbf")
    node_size = settings.get("node_size", 1)
    saved = np.zeros(len(result), dtype=np.int64)
    tries = np.zeros(len(result), dtype=np.int64)
    attempts = record.attempts
    np.add.at(saved, attempts[:, 0], attempts[:, 3])
    np.add.at(tries, attempts[:, 0], 1)
    for k in np.flatnonzero(result.accepted & (result.status != FAILED)).tolist():
        interval = checkpointing.interval_for(-(-int(result.width[k]) // node_size), mtbf)
        restart = checkpointing.restart if tries[k] else 0
        work = int(result.runtime[k]) - int(saved[k])
        needed = restart + wall_time(work, interval, checkpointing.cost)
        assert int(record.final_runtime[k]) == needed, \
            (f"job {int(result.job_id[k])} does not conserve its work: its last attempt needs "
             f"{int(record.final_runtime[k])} s, {needed} s after {int(saved[k])} s kept")


def _check_rejected_have_no_times(result: Result, rejected: np.ndarray) -> None:
    _expect(rejected & ((result.start != -1) | (result.end != -1)), result,
            "never ran (rejected or withdrawn) but has a start or end time")


def _check_capacity(result: Result, accepted: np.ndarray) -> None:
    """Sweep +width at starts and -width at ends (ends first at equal times).

    Granted reservations count like jobs over their intervals.
    """
    if result.suspended is not None and np.any(result.suspended[accepted] > 0):
        accepted = accepted & (result.suspended == 0)   # intervals with gaps are the gang policy's to check
    starts, ends, widths = result.start[accepted], result.end[accepted], result.width[accepted]
    table = result.reservations
    if table is not None:
        granted = table.granted
        starts = np.concatenate([starts, table.start[granted]])
        ends = np.concatenate([ends, table.start[granted] + table.duration[granted]])
        widths = np.concatenate([widths, table.width[granted]])
    times = np.concatenate([ends, starts])
    deltas = np.concatenate([-widths, widths])
    kinds = np.concatenate([np.zeros(len(ends), np.int8), np.ones(len(starts), np.int8)])
    order = np.lexsort((kinds, times))
    in_use = np.cumsum(deltas[order])
    if len(in_use) and in_use.max() > result.processors:
        at = times[order][int(np.argmax(in_use))]
        raise AssertionError(f"{int(in_use.max())} processors in use at time {int(at)} "
                             f"on a {result.processors}-processor machine")
    busy = result.series_busy
    assert busy.size == 0 or (busy.min() >= 0 and busy.max() <= result.processors), \
        "the utilization series leaves [0, processors]"


def _expect(bad: np.ndarray, result: Result, what: str) -> None:
    if np.any(bad):
        k = int(np.argmax(bad))
        raise AssertionError(
            f"job {int(result.job_id[k])} {what}: submit={int(result.submit[k])} "
            f"start={int(result.start[k])} end={int(result.end[k])} "
            f"runtime={int(result.runtime[k])} estimate={int(result.estimate[k])}")


def check_deadlines(result: Result, workload: Workload) -> None:
    """Raise ``AssertionError`` unless every admitted job with a deadline ends by it.

    The guarantee of admission control (Islam et al., QoPS §3; SPEC §4.6):
    with estimates that hold — exact ones, or any under ``overrun="kill"``,
    where no job runs past its estimate — no admitted job misses its
    deadline.  Also checks that the result carries the workload's deadlines
    (-1 where a job has none) and artificial-deadline marks.
    """
    jobs = workload.jobs
    expected = np.array([-1 if j.deadline is None else j.deadline for j in jobs], dtype=np.int64)
    if not np.any(expected >= 0):
        assert result.deadline is None, "the result has deadlines the workload does not have"
        return
    assert result.deadline is not None, "the result lost the workload's deadlines"
    assert np.array_equal(result.deadline, expected), "the result's deadlines differ from the workload's"
    assert result.artificial_deadline is not None, "the result lost the artificial-deadline marks"
    assert np.array_equal(result.artificial_deadline,
                          np.array([j.artificial_deadline for j in jobs], dtype=bool)), \
        "the result's artificial-deadline marks differ from the workload's"
    late = result.accepted & (result.deadline >= 0) & (result.end > result.deadline)
    if np.any(late):
        k = int(np.argmax(late))
        raise AssertionError(f"job {int(result.job_id[k])} misses its deadline "
                             f"{int(result.deadline[k])}: submit={int(result.submit[k])} "
                             f"start={int(result.start[k])} end={int(result.end[k])} "
                             f"estimate={int(result.estimate[k])}")


def check_grid_invariants(result: Result, grid: GridWorkload, platform: Platform) -> None:
    """Raise ``AssertionError`` unless a grid run (docs/reference/policies/grid.md) kept every rule.

    No job starts before its submission or runs on a machine it cannot use
    (CPUs, licences) or outside the cluster it was sent to; at no time do a
    machine's jobs exceed its CPUs (one job at a time under exclusive
    allocation) or a cluster's jobs hold more copies of a floating licence
    than it has; every job that ran took eq. 3.9's time on its machine (its
    scaled runtime, or its scaled estimate when killed).

    With preemption the check reads every run of every job
    (``result.grid.runs``): a job's runs never overlap (it runs in one place
    at a time), the first starts at ``start``, the last ends at ``end`` on
    ``machine``; each resumption begins with the run's overhead, and the work
    is conserved across runs and machines: every run cut by a preemption did
    less than the work left, and the last takes exactly what was left
    (eq. 3.9, rounded up) after its overhead.  The counts of preemptions and
    migrations and the time off machines (``suspended``) must agree with the runs,
    and no job is restarted on the machine it was preempted from at the same instant.
    """
    record = result.grid
    assert record is not None, "not a grid run"
    ran = np.flatnonzero(result.accepted)
    machine, cluster = record.machine, record.cluster
    columns = grid.licence_columns(platform)
    exclusive = record.allocation == "exclusive"
    if record.preemptive:
        assert record.runs is not None, "a preemptive run without its runs"
        runs = record.runs
        assert not np.isin(runs[:, 0], np.flatnonzero(~result.accepted)).any(), \
            "a rejected job ran"
    else:                             # one run per job: the job columns say it all
        runs = np.stack([ran, machine[ran], result.start[ran], result.end[ran],
                         np.zeros(len(ran), dtype=np.int64)], axis=1).reshape(-1, 5)
    by_job = np.split(runs, np.flatnonzero(np.diff(runs[:, 0])) + 1) if len(runs) else []
    assert [int(r[0, 0]) for r in by_job] == ran.tolist(), "jobs that ran and runs differ"
    for i, job_runs in zip(ran.tolist(), by_job):
        _check_job_runs(result, grid, platform, columns, i, job_runs)
    busy = runs[runs[:, 3] > runs[:, 2]]
    on_machine = busy[:, 1]
    for k in range(len(platform.machines)):
        on = busy[on_machine == k]
        load = _peak(on[:, 2], on[:, 3], np.ones(len(on)) if exclusive
                     else result.width[on[:, 0]])
        assert load <= (1 if exclusive else platform.cpus[k]), f"machine {k} oversubscribed"
    for c in range(len(platform.clusters)):
        for l in np.flatnonzero(platform.copies[c]).tolist():
            column = np.flatnonzero(columns == l)
            if not column.size:
                continue
            jobs = busy[:, 0]
            held = busy[(cluster[jobs] == c) & grid.needs[jobs, column[0]]
                        & ~platform.feature[l, on_machine]]
            peak = _peak(held[:, 2], held[:, 3], np.ones(len(held)))
            assert peak <= platform.copies[c, l], f"licence {l} over its copies in cluster {c}"


def _check_job_runs(result: Result, grid: GridWorkload, platform: Platform, columns: np.ndarray,
                    i: int, runs: np.ndarray) -> None:
    """The rules of one job's runs (:func:`check_grid_invariants`)."""
    record = result.grid
    assert record is not None, "not a grid run"
    job = grid.workload.jobs[i]
    rating = int(grid.rating[i])
    licences = [int(columns[c]) for c in np.flatnonzero(grid.needs[i])]
    machines, starts, ends, overheads = runs[:, 1], runs[:, 2], runs[:, 3], runs[:, 4]
    assert result.start[i] >= job.submit, f"job {job.id} starts before its submission"
    assert starts[0] == result.start[i] and ends[-1] == result.end[i] \
        and machines[-1] == record.machine[i], f"job {job.id}: runs and columns differ"
    assert (ends >= starts).all() and (starts[1:] >= ends[:-1]).all(), \
        f"job {job.id} runs in two places at once"
    assert not ((starts[1:] == ends[:-1]) & (machines[1:] == machines[:-1])).any(), \
        f"job {job.id} preempted and restarted in place at one instant"
    for k in set(machines.tolist()):
        assert platform.eligible(job.width, licences)[k], f"job {job.id} on unusable machine {k}"
        assert platform.cluster_of[k] == record.cluster[i], f"job {job.id} outside its cluster"
    assert overheads[0] == 0 and bool(np.all(overheads[1:] == record.preemption_overhead)), \
        f"job {job.id}: a resumption without the run's overhead"
    if record.preemptive:
        assert record.preemptions is not None and record.migrations is not None \
            and record.last_start is not None, "a preemptive run without its counts"
        assert record.preemptions[i] == len(runs) - 1, f"job {job.id}: preemptions miscounted"
        assert record.migrations[i] == int((machines[1:] != machines[:-1]).sum()), \
            f"job {job.id}: migrations miscounted"
        assert record.last_start[i] == starts[-1], f"job {job.id}: last start is not its last run"
        if result.suspended is not None:
            assert result.suspended[i] == ends[-1] - starts[0] - (ends - starts).sum(), \
                f"job {job.id}: time off machines miscounted"
    seconds = job.estimate if result.status[i] == KILLED else job.runtime
    work = seconds * rating
    speed = platform.rating[machines].astype(np.int64)
    done = np.maximum(ends - starts - overheads, 0) * speed
    cut = int(done[:-1].sum())
    assert cut < work or (work == 0 and cut == 0), f"job {job.id}: preempted after its end"
    last = int(overheads[-1]) - (-(work - cut) // int(speed[-1]))
    assert ends[-1] - starts[-1] == last, \
        f"job {job.id} ran {ends[-1] - starts[-1]} s at last, expected {last} (eq. 3.9)"


def _peak(starts: np.ndarray, ends: np.ndarray, amounts: np.ndarray) -> float:
    """The largest total amount held at once by intervals [start, end)."""
    if not len(starts):
        return 0
    times = np.concatenate([starts, ends])
    deltas = np.concatenate([amounts, -np.asarray(amounts)])
    order = np.lexsort((deltas, times))          # ends before starts at one instant
    return float(np.cumsum(deltas[order]).max())


def conformance_workloads() -> list[tuple[str, Workload]]:
    """Small workloads on the engine's corners, plus random ones (fixed seeds)."""
    cases = [
        ("same-time events", Workload((Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 4),
                                       Job(3, 10, 5, 5, 8), Job(4, 10, 0, 1, 2),
                                       Job(5, 10, 3, 20, 6)), 8)),
        ("machine-wide and zero runtime", Workload((Job(1, 0, 0, 5, 8), Job(2, 0, 7, 7, 8),
                                                    Job(3, 1, 0, 1, 1), Job(4, 2, 9, 9, 8)), 8)),
        ("killed at estimate", Workload((Job(1, 0, 100, 50, 3), Job(2, 5, 20, 10, 5),
                                         Job(3, 6, 10, 100, 2)), 5)),
    ]
    rng = np.random.default_rng(20020101)
    for k in range(4):
        cases.append((f"random {k}", random_workload(rng, n_jobs=60, processors=16)))
    return cases


def reservation_workloads() -> list[tuple[str, Workload, tuple[Reservation, ...], str]]:
    """Workloads with advance-reservation requests and the placement to run them with.

    The hand-made case asks for the whole machine while it is busy, for a
    reservation starting at once, and for one that starts exactly when a
    job's estimate ends (exact placement).  In the random ones every request
    is moved to its earliest fit, so all of them are granted.
    """
    from schedlab.workload.reservations import generate_requests

    busy = Workload((Job(1, 0, 50, 60, 6), Job(2, 0, 30, 30, 2), Job(3, 5, 40, 40, 8),
                     Job(4, 6, 10, 10, 1), Job(5, 70, 20, 20, 4)), 8)
    cases: list[tuple[str, Workload, tuple[Reservation, ...], str]] = [
        ("machine-wide reservation", busy,
         (Reservation(1, 1, 60, 20, 8), Reservation(2, 2, 2, 10, 1),
          Reservation(3, 3, 30, 5, 2), Reservation(4, 80, 80, 15, 3)), "exact")]
    rng = np.random.default_rng(20070301)
    for k in range(2):
        workload = random_workload(rng, n_jobs=60, processors=16)
        span = (0, workload.jobs[-1].submit + 1)
        cases.append((f"random with reservations {k}", workload,
                      generate_requests(span, per_week=604800 * 8 / span[1], nodes=(1, 16),
                                        duration=(10, 300), notice=(0, 600), seed=rng),
                      "earliest"))
    return cases


def random_workload(rng: np.random.Generator, *, n_jobs: int, processors: int) -> Workload:
    """A small random workload with bursts, short and long jobs and bad estimates."""
    gaps = rng.choice([0, 0, 1, 5, 30, 200], size=n_jobs)
    submits = np.cumsum(gaps)
    runtimes = rng.integers(0, 400, size=n_jobs)
    estimates = np.maximum(1, (runtimes * rng.choice([0.5, 1.0, 1.0, 2.0, 5.0], size=n_jobs))
                           .astype(np.int64))
    widths = rng.integers(1, processors + 1, size=n_jobs)
    jobs = tuple(Job(i + 1, int(s), int(r), int(e), int(w))
                 for i, (s, r, e, w) in enumerate(zip(submits, runtimes, estimates, widths)))
    return Workload(jobs, processors, name="random")


def with_users(workload: Workload, users: int = 3) -> Workload:
    """The workload with its jobs spread over ``users`` users in turn (for the queue limit)."""
    return workload.with_jobs([job._replace(user=k % users)
                               for k, job in enumerate(workload.jobs)])


@dataclass(frozen=True)
class Case:
    """One conformance run: what it is called, the run's settings (:class:`~schedlab.run.RunSpec`
    fields other than the policy) and the policy parameters it sets where the policy has
    them (a reservation placement)."""

    label: str
    fields: Mapping[str, Any]
    params: Mapping[str, Any] = field(default_factory=dict)


#: The overrun modes every case runs under (docs/reference/engine.md).
OVERRUNS = ("kill", "extend")
#: The space-sharing engine options the small workloads also run with: a scheduling tick
#: and a per-user queue limit (docs/reference/engine.md).
SPACE_SHARING_OPTIONS: tuple[Mapping[str, Any], ...] = (
    {"overrun": "kill"}, {"overrun": "extend"}, {"overrun": "kill", "tick": 7},
    {"overrun": "extend", "tick": 7}, {"overrun": "kill", "max_queued_per_user": 2},
)


def _described(label: str, options: Mapping[str, Any]) -> str:
    return f"{label!r} ({', '.join(f'{k}={v}' for k, v in options.items())})"


def outage_options(workload: Workload) -> dict[str, Mapping[str, Any]]:
    """The failures and windows every policy of one machine also meets on ``workload``
    (docs/reference/events.md), by name: processor 0 failing a third of the way through
    the submissions and again at two thirds, its jobs queued again, with a maintenance
    window of one processor announced at the first submission from the middle one on;
    and one failure of processors 0 and 1 whose jobs restart from checkpoints every 5 s."""
    from schedlab.workload.outages import Checkpointing, Failure, FailureSpec, Window

    submits = [job.submit for job in workload.jobs]
    third, middle, two_thirds = (submits[len(submits) * k // 6] + 1 for k in (2, 3, 4))
    nodes = (0, 1) if workload.processors > 1 else (0,)
    return {
        "requeue and a window": {
            "failures": FailureSpec(replayed=(Failure(third, (0,), 20),
                                              Failure(two_thirds + 30, (0,), 10)),
                                    fate="requeue"),
            "maintenance": (Window(submits[0], middle, middle + 60, 1),)},
        "checkpoint": {
            "failures": FailureSpec(replayed=(Failure(middle, nodes, 15),), fate="checkpoint",
                                    checkpointing=Checkpointing(cost=1, restart=1,
                                                                interval=5))},
    }


def space_sharing_cases() -> list[Case]:
    """The small workloads under both overrun modes, a tick and a queue limit, with
    failures and windows (:func:`outage_options`), then the advance-reservation requests
    (a policy that refuses them all passes those)."""
    cases = [Case(_described(label, options),
                  {"workload": with_users(workload) if "max_queued_per_user" in options
                   else workload, **options})
             for label, workload in conformance_workloads() for options in SPACE_SHARING_OPTIONS]
    cases += [Case(_described(label, {"outages": name}), {"workload": workload, **options})
              for label, workload in conformance_workloads()
              for name, options in outage_options(workload).items()]
    cases += [Case(_described(label, {"reservations": len(requests)}),
                   {"workload": workload, "reservations": requests},
                   {"reservation_placement": placement})
              for label, workload, requests, placement in reservation_workloads()]
    return cases


def time_sharing_cases() -> list[Case]:
    """The small workloads under both overrun modes, then with failures and windows
    (:func:`outage_options`; ticks, queue limits and advance reservations belong to
    space sharing: docs/reference/policies/gang.md)."""
    cases = [Case(_described(label, {"overrun": overrun}), {"workload": workload,
                                                            "overrun": overrun})
             for label, workload in conformance_workloads() for overrun in OVERRUNS]
    cases += [Case(_described(label, {"outages": name}), {"workload": workload, **options})
              for label, workload in conformance_workloads()
              for name, options in outage_options(workload).items()]
    return cases


def grid_cases() -> list[Case]:
    """Jobs of the thesis' generator (licences, deadlines, ratings, overruns) on a platform
    of one cluster and one of two, under both allocations and both overrun modes."""
    from schedlab.platform.generator import PlatformSettings, generate_platform
    from schedlab.workload.models.grid import JobSettings, generate_grid

    jobs = JobSettings(estimate=(20, 400), margin=(0, 300), cpus=(1, 6), licence_need=0.4,
                       runtime_ratio=(0.2, 1.3))
    cases = []
    for clusters, seed in (((6,), 1), ((4, 3), 2)):
        platform = generate_platform(PlatformSettings(clusters=clusters, cpus=(1, 6),
                                                      licences=3, ratio=(0.4, 0.8)), seed)
        grid = generate_grid(platform, jobs, 40, 15.0, seed)
        for allocation in ("shared", "exclusive"):
            for overrun in OVERRUNS:
                options = {"clusters": len(clusters), "allocation": allocation,
                           "overrun": overrun}
                cases.append(Case(_described("generated grid jobs", options),
                                  {"workload": grid, "platform": platform,
                                   "allocation": allocation, "overrun": overrun}))
    return cases


def check_one_machine_run(result: Result, workload: Workload, spec: Any) -> None:
    """The rules of a run on one machine (:func:`check_invariants`) for the run ``spec``
    describes (a :class:`~schedlab.run.RunSpec`): its overrun mode and reservation
    requests, and with a scheduling tick, no start between two ticks."""
    check_invariants(result, workload, overrun=spec.overrun, reservations=spec.reservations)
    if spec.tick:
        ran = result.accepted
        assert np.all(result.start[ran] % spec.tick == 0), "a job starts between two ticks"


def check_grid_run(result: Result, grid: GridWorkload, spec: Any) -> None:
    """The rules of a grid run (:func:`check_grid_invariants`) on the platform of ``spec``
    (a :class:`~schedlab.run.RunSpec` whose platform is a Platform)."""
    check_grid_invariants(result, grid, spec.platform)
