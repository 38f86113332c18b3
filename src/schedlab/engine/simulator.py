"""The discrete-event loop.

Same-time order (docs/engine.md): at each distinct instant the engine
processes every job finish, then every submission, then every wake-up, and
only then calls the policy's ``schedule`` once.  A job that starts and ends at
the same instant (zero runtime) produces a second batch at that instant.

The loop is the hot path: submissions are read from the sorted workload by an
index instead of going through the heap, and the series are appended only
when they change.
"""

from __future__ import annotations

import time as wallclock
from heapq import heappop
from typing import Callable

import numpy as np

from schedlab.engine.context import FINISH, WAKE, Context
from schedlab.engine.result import FINISHED, KILLED, Result
from schedlab.errors import InputError
from schedlab.policies.base import Policy
from schedlab.workload.job import Workload

OVERRUN_MODES = ("kill", "extend")
ProgressCallback = Callable[[int, int], None]


def run(workload: Workload, policy: Policy, *, processors: int | None = None,
        overrun: str = "kill", progress: ProgressCallback | None = None) -> Result:
    """Simulate ``workload`` under ``policy`` and return the :class:`Result`.

    ``processors`` overrides the workload's machine size.  ``overrun`` says what
    happens to a job still running at its estimate: ``"kill"`` (CCS behaviour,
    Streit 2002 §5; the default) or ``"extend"`` (it runs to completion).
    ``progress(done, total)`` is called now and then with the number of
    finished or rejected jobs.
    """
    machine = workload.processors if processors is None else processors
    if machine <= 0:
        raise InputError(f"the machine needs at least one processor, got {machine}",
                         field="processors")
    if overrun not in OVERRUN_MODES:
        raise InputError(f"expected one of {', '.join(OVERRUN_MODES)}, got {overrun!r}",
                         field="overrun")
    jobs = workload.jobs
    too_wide = [j.id for j in jobs if j.width > machine]
    if too_wide:
        raise InputError(f"{len(too_wide)} job(s) are wider than the {machine}-processor "
                         f"machine (first: job {too_wide[0]})", field="processors")
    began = wallclock.perf_counter()
    ctx = _prepare_context(workload, machine, policy, overrun)
    series = _loop(ctx, policy, jobs, progress)
    return _collect(workload, policy, ctx, series, machine, overrun,
                    wallclock.perf_counter() - began)


def _prepare_context(workload: Workload, machine: int, policy: Policy, overrun: str) -> Context:
    ctx = Context(machine, policy.name, overrun)
    n = len(workload.jobs)
    ctx._index = {job.id: i for i, job in enumerate(workload.jobs)}
    if len(ctx._index) != n:
        raise InputError("job ids must be unique within a workload", field="job id")
    ctx._start = [-1] * n
    ctx._end = [-1] * n
    ctx._status = [FINISHED] * n
    ctx._planned = [-1] * n
    ctx._suspended_for = [0] * n
    return ctx


def _loop(ctx: Context, policy: Policy, jobs, progress: ProgressCallback | None):
    """Run events until no job is left; returns the (time, busy, queue) series lists."""
    events = ctx._events
    version = ctx._version
    index = ctx._index
    running = ctx.running
    waiting = ctx.waiting
    on_submit, on_finish, schedule = policy.on_submit, policy.on_finish, policy.schedule
    n = len(jobs)
    nxt = 0
    report_every = max(1, n // 200)
    next_report = report_every
    s_time: list[int] = []
    s_busy: list[int] = []
    s_queue: list[int] = []
    capacity = ctx.processors
    submits = [job.submit for job in jobs]
    submits.append(float("inf"))            # sentinel: no submission left
    while nxt < n or events:
        now = submits[nxt]
        if events and events[0][0] <= now:
            now = events[0][0]
        ctx.now = now
        # 1. finishes
        while events and events[0][0] == now and events[0][1] == FINISH:
            _, _, job_id, ver = heappop(events)
            if version[job_id] != ver:
                continue                      # stale: the job was suspended meanwhile
            job = running[job_id]
            ctx._stop_running(job)
            i = index[job_id]
            ctx._end[i] = now
            held = now - ctx._start[i] - ctx._suspended_for[i]
            if held < job.runtime:
                ctx._status[i] = KILLED
            ctx._done += 1
            on_finish(ctx, job)
        # 2. submissions
        while submits[nxt] == now:
            job = jobs[nxt]
            nxt += 1
            waiting[job.id] = job
            on_submit(ctx, job)
        # 3. wake-ups (several requests for one instant are one wake-up)
        while events and events[0][0] == now and events[0][1] == WAKE:
            heappop(events)
        schedule(ctx)
        busy = capacity - ctx.free
        queued = len(waiting)
        if not s_time or s_busy[-1] != busy or s_queue[-1] != queued:
            if s_time and s_time[-1] == now:
                s_busy[-1] = busy
                s_queue[-1] = queued
            else:
                s_time.append(now)
                s_busy.append(busy)
                s_queue.append(queued)
        if progress is not None and ctx._done >= next_report:
            progress(ctx._done, n)
            next_report = ctx._done + report_every
    if waiting or ctx.suspended:
        stuck = next(iter(waiting.values() or ctx.suspended.values()))
        raise RuntimeError(f"policy {policy.name!r} left job {stuck.id} waiting with no "
                           f"event to come: it never starts")
    if progress is not None:
        progress(ctx._done, n)
    return s_time, s_busy, s_queue


def _collect(workload: Workload, policy: Policy, ctx: Context, series, machine: int,
             overrun: str, wall: float) -> Result:
    jobs = workload.jobs
    cols = np.array([(j.id, j.submit, j.width, j.estimate, j.runtime) for j in jobs],
                    dtype=np.int64).reshape(-1, 5)
    s_time, s_busy, s_queue = series
    deadline, artificial = _deadline_columns(jobs)
    from schedlab import __version__
    return Result(
        processors=machine,
        policy=policy.name,
        job_id=cols[:, 0].copy(), submit=cols[:, 1].copy(), width=cols[:, 2].copy(),
        estimate=cols[:, 3].copy(), runtime=cols[:, 4].copy(),
        start=np.array(ctx._start, dtype=np.int64),
        end=np.array(ctx._end, dtype=np.int64),
        status=np.array(ctx._status, dtype=np.int8),
        planned_start=np.array(ctx._planned, dtype=np.int64),
        series_time=np.array(s_time, dtype=np.int64),
        series_busy=np.array(s_busy, dtype=np.int64),
        series_queue=np.array(s_queue, dtype=np.int64),
        workload=workload.name,
        params=policy.get_params(),
        stats={**policy.statistics(), **ctx.stats},
        reject_reasons=dict(ctx._reject_reasons),
        suspended=np.array(ctx._suspended_for, dtype=np.int64),
        deadline=deadline, artificial_deadline=artificial,
        skipped=dict(workload.skipped),
        meta={"schedlab_version": __version__, "overrun": overrun,
              "wall_time_s": round(wall, 6), "jobs": len(jobs),
              "unix_start_time": workload.unix_start_time},
    )


def _deadline_columns(jobs) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Deadlines (-1 where none) and the artificial-deadline marks; ``None`` without deadlines."""
    if all(job.deadline is None for job in jobs):
        return None, None
    deadline = np.array([-1 if job.deadline is None else job.deadline for job in jobs],
                        dtype=np.int64)
    artificial = np.array([job.artificial_deadline for job in jobs], dtype=bool)
    return deadline, artificial
