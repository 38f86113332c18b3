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
    REJECTED,
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

    With failures, windows or cancellations (docs/reference/events.md, "Grid
    runs") the rules of :func:`_check_grid_outages` hold too, and the rules
    above apply to each job's last attempt (its runs from ``start`` on).
    """
    record = result.grid
    assert record is not None, "not a grid run"
    ran = np.flatnonzero(result.accepted)
    machine, cluster = record.machine, record.cluster
    columns = grid.licence_columns(platform)
    exclusive = record.allocation == "exclusive"
    outages = result.outages
    if record.preemptive or outages is not None:
        assert record.runs is not None, "a preemptive run without its runs"
        runs = record.runs
        assert not np.isin(runs[:, 0], np.flatnonzero(result.status == REJECTED)).any(), \
            "a rejected job ran"
    else:                             # one run per job: the job columns say it all
        runs = np.stack([ran, machine[ran], result.start[ran], result.end[ran],
                         np.zeros(len(ran), dtype=np.int64)], axis=1).reshape(-1, 5)
    by_job = np.split(runs, np.flatnonzero(np.diff(runs[:, 0])) + 1) if len(runs) else []
    if outages is None:
        assert [int(r[0, 0]) for r in by_job] == ran.tolist(), "jobs that ran and runs differ"
        for i, job_runs in zip(ran.tolist(), by_job):
            _check_job_runs(result, grid, platform, columns, i, job_runs)
    else:
        _check_grid_outages(result, grid, platform, columns, by_job)
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
                    i: int, runs: np.ndarray, work: tuple[int, int] | None = None,
                    checkpoints: tuple[int, int, int] = (0, 0, 0)) -> None:
    """The rules of one job's runs (:func:`check_grid_invariants`): those of its last
    attempt, which begins with ``work`` (rating-seconds of runtime and estimate; None:
    the job's own) after ``checkpoints[2]`` seconds of restart, and writes a checkpoint
    of ``checkpoints[1]`` seconds every ``checkpoints[0]`` seconds of work (0: never)."""
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
    interval, cost, restart = checkpoints
    assert overheads[0] == restart and bool(np.all(overheads[1:] ==
                                                   record.preemption_overhead)), \
        f"job {job.id}: a resumption without the run's overhead"
    if record.preemptive:
        assert record.preemptions is not None and record.migrations is not None \
            and record.last_start is not None, "a preemptive run without its counts"
        if work is None:             # else counted over every attempt by the caller
            assert record.preemptions[i] == len(runs) - 1, \
                f"job {job.id}: preemptions miscounted"
            assert record.migrations[i] == int((machines[1:] != machines[:-1]).sum()), \
                f"job {job.id}: migrations miscounted"
        assert record.last_start[i] == starts[-1], f"job {job.id}: last start is not its last run"
        if result.suspended is not None:
            assert result.suspended[i] == ends[-1] - starts[0] - (ends - starts).sum(), \
                f"job {job.id}: time off machines miscounted"
    killed = result.status[i] == KILLED
    if work is None:
        work = (job.runtime * rating, job.estimate * rating)
    need = work[1] if killed else work[0]
    speed = platform.rating[machines].astype(np.int64)
    elapsed = np.maximum(ends - starts - overheads, 0)
    if interval:
        from schedlab.engine.grid_outages import computed_seconds

        elapsed = np.array([computed_seconds(int(e), interval, cost) for e in elapsed],
                           dtype=np.int64)
    done = elapsed * speed
    cut = int(done[:-1].sum())
    assert cut < need or (need == 0 and cut == 0), f"job {job.id}: preempted after its end"
    compute = -(-(need - cut) // int(speed[-1]))
    if interval:
        from schedlab.engine.attempts import wall_time

        compute = wall_time(compute, interval, cost)
    last = int(overheads[-1]) + compute
    if result.status[i] in (CANCELLED, FAILED):
        assert ends[-1] - starts[-1] < last or (last == 0 and ends[-1] == starts[-1]), \
            f"job {job.id} ran its whole time and yet was ended by a cancellation or failure"
        return
    assert ends[-1] - starts[-1] == last, \
        f"job {job.id} ran {ends[-1] - starts[-1]} s at last, expected {last} (eq. 3.9)"


def check_grid_window_notices(result: Result) -> None:
    """Raise ``AssertionError`` if a job started on a machine between the notice and the
    start of a window taking it was expected, by its estimate, to run into the window.

    The promise of the grid local policies that plan around a window's notice
    (``bf-fcfs``, ``bf-unmod``, ``bf-mod``, ``eg-edf``, ``cs``; docs/reference/events.md,
    "Grid runs"), not a rule of every grid run: ``grid-fcfs`` and ``grid-edf`` look
    only at the machines' room now.  Each job's last run is checked (its expected end:
    its start, plus its time on machines by its estimate, ``machine_estimate``, less
    what its earlier runs of the attempt held); the windows and their machines are
    :attr:`OutageRecord.notices <schedlab.engine.result.OutageRecord.notices>`.
    """
    record, grid = result.outages, result.grid
    if record is None or record.notices is None or grid is None:
        return
    runs, last_start, estimate = grid.runs, grid.last_start, grid.machine_estimate
    assert runs is not None and last_start is not None and estimate is not None
    for i in np.flatnonzero(result.accepted & (last_start >= 0)).tolist():
        mine = runs[runs[:, 0] == i]
        last = int(last_start[i])
        earlier = mine[(mine[:, 2] >= result.start[i]) & (mine[:, 2] < last)]
        expected_end = last + int(estimate[i]) - int(
            (earlier[:, 3] - earlier[:, 2]).sum())
        machine = int(grid.machine[i])
        for lo, hi, notice, start, end in record.notices.tolist():
            if lo <= machine < hi and notice <= last < start:
                assert expected_end <= start, (
                    f"job {int(result.job_id[i])} started on machine {machine} at {last}, after the "
                    f"notice ({notice}) of a window from {start} to {end} taking it, and was "
                    f"expected to run until {expected_end}, into the window")


def check_gang_window_notices(result: Result) -> None:
    """Raise ``AssertionError`` if a job entered the matrix on processors a window takes,
    between the window's notice and its start, though its estimate said it would run
    into the window even with one row (its placement plus its estimate).

    The promise of the gang policy (docs/reference/events.md, "Gang runs"), whose
    reading is stronger: it predicts the estimate times the rows in use, which the
    result does not keep, so this checks what holds for any number of rows.  A job's
    last attempt is checked (its estimate as the record keeps it, overheads
    included); express jobs (Strategy 3: logged ``express``, in a slot of their own or
    on a row's free processors) are served at once on free columns, windows ahead or
    not, and are not checked.
    """
    record, trace = result.outages, result.timesharing
    if record is None or record.notices is None or trace is None:
        return
    express_kind = MATRIX_CHANGE_KINDS.index("express")
    express = set(trace.change_job[trace.change_kind == express_kind].tolist())
    for i, placed in enumerate(trace.placed.tolist()):
        job_id = int(result.job_id[i])
        if placed < 0 or job_id in express:
            continue
        expected_end = placed + int(record.final_estimate[i])
        for lo, hi, notice, start, end in record.notices.tolist():
            if notice <= placed < start and any(first < hi and lo < stop
                                                for first, stop in trace.columns[i]):
                assert expected_end <= start, (
                    f"job {job_id} entered the matrix at {placed} on processors "
                    f"{trace.columns[i]}, after the notice ({notice}) of a window from "
                    f"{start} to {end} taking {lo} to {hi - 1}, and was expected to run "
                    f"until {expected_end} at least, into the window")


def _check_grid_outages(result: Result, grid: GridWorkload, platform: Platform,
                        columns: np.ndarray, by_job: list[np.ndarray]) -> None:
    """The rules of a grid run with failures, windows or cancellations
    (docs/reference/events.md, "Grid runs").

    No job runs on a machine while a failure or a window holds it; a job's runs
    before its last attempt end exactly at the failures that ended its attempts
    (the ``attempts`` of the record), the last attempt's runs keep every rule
    of :func:`_check_job_runs` with the work the fate left it: all of it
    (``requeue``), or what its last checkpoint did not keep (``checkpoint``,
    replayed run by run); a ``failed`` job ends at an attempt's end, one
    ``cancelled`` at its cancellation, one ``withdrawn`` never runs after its
    last failure; every job ends exactly once.
    """
    record = result.outages
    assert record is not None, "a grid run with failures or windows has its record"
    status = result.status
    attempts = record.attempts
    ends_of: dict[int, list[int]] = {}
    for i, start, end, _ in attempts.tolist():
        assert start >= result.submit[i], f"job index {i} has an attempt before its submission"
        ends_of.setdefault(i, []).append(end)
    first_cpu = (np.cumsum(platform.cpus) - platform.cpus).tolist()
    all_runs = np.concatenate(by_job) if by_job else np.zeros((0, 5), dtype=np.int64)
    for lo, _, start, end, _ in record.intervals.tolist():
        k = first_cpu.index(lo)
        on = all_runs[(all_runs[:, 1] == k) & (all_runs[:, 2] < end) & (all_runs[:, 3] > start)
                      & (all_runs[:, 3] > all_runs[:, 2])]
        assert not len(on), (f"job index {int(on[0, 0])} runs on machine {k} while it is out "
                             f"of service [{start}, {end})")
    settings = record.settings
    fate = settings.get("fate", "kill")
    checkpointing = settings.get("checkpointing", {})
    interval = int(checkpointing.get("interval", 0)) if fate == "checkpoint" else 0
    cost, restart = int(checkpointing.get("cost", 0)), int(checkpointing.get("restart", 0))
    ran = set(np.flatnonzero(result.accepted).tolist())
    with_runs = {int(r[0, 0]) for r in by_job}
    assert ran <= with_runs, "a job that ran has no run"
    for job_runs in by_job:
        i = int(job_runs[0, 0])
        ended = sorted(ends_of.get(i, []))
        first = int(result.start[i]) if i in ran else NEVER_STARTED
        earlier, last = job_runs[job_runs[:, 2] < first], job_runs[job_runs[:, 2] >= first]
        assert i in ran or (status[i] == WITHDRAWN and not len(last)), \
            f"job index {i} has runs but neither ran nor was withdrawn after a failure"
        assert set(earlier[:, 3].tolist()) >= set(ended[:len(ended) - (status[i] == FAILED)]), \
            f"job index {i}: an attempt's end is no run's end"
        assert not len(earlier) or int(earlier[:, 3].max()) <= first, \
            f"job index {i} runs again before the failure of its attempt"
        if i not in ran:
            continue
        previous = len(ended) - int(status[i] == FAILED)
        record_grid = result.grid
        assert record_grid is not None and record_grid.preemptions is not None
        assert record_grid.preemptions[i] == len(job_runs) - previous - 1, \
            f"job index {i}: preemptions miscounted"
        work = _attempt_work(grid, platform, i, earlier, ended, fate, interval, cost)
        _check_job_runs(result, grid, platform, columns, i, last, work,
                        (interval, cost, restart if previous and fate == "checkpoint" else 0))
        if status[i] == FAILED:
            assert result.end[i] in ended, f"job index {i} failed but not at a failure"
        elif status[i] == CANCELLED:
            after = result.cancel_after
            assert after is not None and result.end[i] == result.submit[i] + after[i], \
                f"job index {i} is cancelled but not at its cancellation"
    if result.cancel_after is not None:
        at = result.submit + result.cancel_after
        cancels = result.cancel_after >= 0
        _expect(~cancels & np.isin(status, (CANCELLED, WITHDRAWN)), result,
                "is cancelled though its user never cancels it")
        _expect(result.accepted & cancels & (result.end > at), result,
                "runs past its cancellation")
    else:
        _expect(np.isin(status, (CANCELLED, WITHDRAWN)), result, "is cancelled though no job is")
    _expect(~np.isin(status, (FINISHED, KILLED, REJECTED, CANCELLED, WITHDRAWN, FAILED)),
            result, "has no end status")


#: A start after every time: a job that never started in its last attempt.
NEVER_STARTED = 2**62


def _attempt_work(grid: GridWorkload, platform: Platform, i: int, earlier: np.ndarray,
                  failures: list[int], fate: str, interval: int, cost: int
                  ) -> tuple[int, int]:
    """The work (rating-seconds of runtime and estimate) job ``i``'s last attempt begins
    with: replaying its ``earlier`` runs, each cut by a preemption or, when it ends at one
    of ``failures``, by a failure (docs/reference/events.md, "Grid runs")."""
    from schedlab.engine.attempts import saved_work
    from schedlab.engine.grid_outages import computed_seconds

    job = grid.workload.jobs[i]
    rating = int(grid.rating[i])
    original = (job.runtime * rating, job.estimate * rating)
    work, kept = original, original
    for _, machine, start, end, overhead in earlier.tolist():
        speed = int(platform.rating[machine])
        if interval:
            saved = saved_work(end - start, interval, cost, overhead, -(-work[0] // speed))
            if saved:
                gain = min(work[0], saved * speed)
                kept = (work[0] - gain, work[1] - gain)
            done = computed_seconds(max(0, end - start - overhead), interval, cost) * speed
        else:
            done = max(0, end - start - overhead) * speed
        if end in failures:
            work = kept if fate == "checkpoint" else original
            if fate != "checkpoint":
                kept = original
        else:
            work = (max(0, work[0] - done), max(0, work[1] - done))
    return work


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
            for name, outages in grid_outage_options(grid).items():
                options = {"clusters": len(clusters), "allocation": allocation,
                           "outages": name}
                cases.append(Case(_described("generated grid jobs", options),
                                  {"platform": platform, "allocation": allocation,
                                   **outages}))
    return cases


def grid_outage_options(grid: GridWorkload) -> dict[str, Mapping[str, Any]]:
    """The failures, windows and cancellations every grid local policy also meets on
    ``grid`` (docs/reference/events.md, "Grid runs"), by name: machine 0 failing a third of
    the way through the submissions and machines 0 and 1 at two thirds, their jobs queued
    again, beside a window of one machine from the middle submission on, announced at the
    first submission (its machine fixed then; docs/reference/events.md), with every fifth
    job cancelled by its user 30 s after its submission; and one failure of machines 0 and
    1 whose jobs restart from checkpoints every 5 s."""
    from dataclasses import replace

    from schedlab.workload.outages import Checkpointing, Failure, FailureSpec, Window

    submits = [job.submit for job in grid.workload.jobs]
    third, middle, two_thirds = (submits[len(submits) * k // 6] + 1 for k in (2, 3, 4))
    cancelled = grid.workload.with_jobs([job._replace(cancel_after=30) if k % 5 == 4 else job
                                         for k, job in enumerate(grid.workload.jobs)])
    return {
        "requeue, a window and cancellations": {
            "workload": replace(grid, workload=cancelled),
            "failures": FailureSpec(replayed=(Failure(third, (0,), 20),
                                              Failure(two_thirds, (0, 1), 40)),
                                    fate="requeue"),
            "maintenance": (Window(submits[0], middle, middle + 60, 1),)},
        "checkpoint": {
            "workload": grid,
            "failures": FailureSpec(replayed=(Failure(middle, (0, 1), 15),),
                                    fate="checkpoint",
                                    checkpointing=Checkpointing(cost=1, restart=1, interval=5))},
    }


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
