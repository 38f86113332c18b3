"""Execute one run of a sweep and return everything the result store keeps.

:func:`execute_run` is what every executor calls, in the sweep's own
process, in a pool worker or on a Dask worker.  It never raises for an
ordinary error: a run that fails comes back as a record with status
``failed`` and the error text, so one bad run does not stop a sweep.

The worker encodes the run's job table and time series as Parquet bytes and
returns them inside the record; the sweep's process writes them into the
experiment directory and then the database row.  So workers need no access
to the experiment directory (a remote Dask cluster only needs the workload
files), and every file is written by one process, atomically.

Workloads are loaded once per worker process: the loaded and the
transformed workloads are kept in small least-recently-used caches keyed by
source, options, seed and machine size.
"""

from __future__ import annotations

import io
import time
import traceback
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np

from schedlab import run as runs
from schedlab.engine.result import STATUS_NAMES, Result
from schedlab.experiments.spec import (
    PlatformSource,
    RequestSource,
    ReservationSetting,
    SweepRun,
    WorkloadSource,
)
from schedlab.workload.job import Workload

FINISHED, FAILED = "finished", "failed"
#: Loaded workloads kept per process (a sweep touches few workloads at a time:
#: runs are expanded workload-major).
WORKLOAD_CACHE_SIZE = 8
#: Modules runs import, loaded once by a process pool's fork server so that
#: its workers start with them (the models pull in scipy, the tables pyarrow).
WORKER_MODULES = ("schedlab.experiments.runner", "schedlab.engine.simulator", "schedlab.metrics",
                  "schedlab.policies.registry", "schedlab.workload.models",
                  "schedlab.workload.swf", "schedlab.workload.transforms", "pyarrow.parquet")


@dataclass
class RunRecord:
    """The outcome of one run, as the result store keeps it.

    ``jobs_parquet`` and ``series_parquet`` are the encoded job table
    (columns of ``jobs.csv``) and series (``time, busy, queue``); they and
    ``metrics`` are empty for a failed run, whose ``error`` holds the
    exception's one-line summary followed by its traceback.
    """

    run: SweepRun
    status: str
    wall_time: float
    schedlab_version: str
    metrics: dict[str, Any] = field(default_factory=dict)
    policy_stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    jobs_parquet: bytes | None = None
    series_parquet: bytes | None = None

    @property
    def run_id(self) -> str:
        return self.run.run_id


def execute_run(run: SweepRun) -> RunRecord:
    """Simulate one run; a run that raises is returned as a failed record.

    Only ``Exception`` is caught: Ctrl-C and the end of the process pass through.
    """
    from schedlab import __version__

    began = time.perf_counter()
    try:
        result, metrics = simulate_run(run)
        return finished_record(run, result, metrics, began)
    except Exception as err:
        return RunRecord(run, FAILED, time.perf_counter() - began, __version__,
                         error=describe_error(err))


def finished_record(run: SweepRun, result: Result, metrics: dict[str, Any],
                    began: float) -> RunRecord:
    """The record of a run that ended with ``result`` and its ``metrics``: its tables
    encoded, its wall time since ``began`` (a ``time.perf_counter()``)."""
    from schedlab import __version__
    from schedlab.output import json_safe

    jobs, series = encode_jobs(result), encode_series(result)
    return RunRecord(run, FINISHED, time.perf_counter() - began, __version__,
                     metrics=json_safe(metrics), policy_stats=json_safe(result.stats),
                     jobs_parquet=jobs, series_parquet=series)


def failed_record(run: SweepRun, error: str) -> RunRecord:
    """A failed record for a run that could not execute at all (its worker died)."""
    from schedlab import __version__
    return RunRecord(run, FAILED, 0.0, __version__, error=error)


def describe_error(err: BaseException) -> str:
    """``Type: message`` on the first line, then the traceback."""
    summary = f"{type(err).__name__}: {err}".strip().replace("\n", " ")
    return summary + "\n\n" + "".join(traceback.format_exception(err)).rstrip()


def simulate_run(run: SweepRun) -> tuple[Result, dict[str, Any]]:
    """The run's Result and its metrics (docs/reference/metrics.md)."""
    from schedlab.execution import execute, model_of

    if run.grid is not None:
        workload: Any = grid_workload(run.workload, run.seed, run.grid.platform)
        description = grid_run_description(run, workload)
    else:
        workload = prepared_workload(run.workload, run.seed, run.processors, run.transforms)
        description = run_description(run, workload)
    result = execute(description, workload=workload)
    return result, model_of(description).metrics(result, description)


def grid_run_description(run: SweepRun, workload: Any) -> runs.RunSpec:
    """A grid sweep run as the one run description: its platform drawn or read once per
    worker (:func:`run_platform`), its jobs ``workload`` (:func:`grid_workload`)."""
    assert run.grid is not None, "not a grid run"
    grid = run.grid
    outages = run.outages
    return runs.RunSpec(workload, policy={"name": run.policy, **dict(run.params)},
                        seed=0 if run.seed is None else run.seed, overrun=run.overrun,
                        platform=run_platform(grid.platform, run.seed),
                        dispatch=grid.dispatch_spec(), allocation=grid.allocation,
                        preemption_overhead=grid.preemption_overhead,
                        failures=None if outages is None else outages.failures_text,
                        maintenance=None if outages is None or outages.maintenance is None
                        else outages.maintenance[0])


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def run_platform(source: PlatformSource, seed: int | None):
    """The platform of a grid run: its file read, or its preset drawn with the run's seed as
    ``schedlab simulate --platform PRESET --seed S`` draws it; cached per process."""
    from schedlab.platform.generator import generate_platform, preset

    if not source.is_preset:
        return runs.load_platform(source.source)[0]
    seed = 0 if seed is None else seed
    if not source.settings:
        return runs.load_platform(source.source, seed=seed)[0]
    return generate_platform(preset(source.source, **dict(source.settings)), seed,
                             name=f"{source.label}-seed{seed}")


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def grid_workload(source: WorkloadSource, seed: int | None, platform: PlatformSource):
    """The jobs of a grid run, cached per process: an SWF file and its side file read and
    checked on the platform, or drawn as ``schedlab generate grid --platform P --preset
    PRESET --ta TA --seed S -n JOBS`` draws them."""
    from schedlab.workload.models.grid import generate_grid, preset

    machines = run_platform(platform, seed)
    if source.is_file:
        return runs.load_grid_workload(source.source, machines,
                                       cancellations=source.option("cancellations", "ignore"))
    settings = preset(source.option("preset"), **dict(source.option("settings", ())))
    return generate_grid(machines, settings, n_jobs=source.option("jobs"),
                         interarrival=source.option("ta"), seed=0 if seed is None else seed)


DAY = 86400


def run_description(run: SweepRun, workload: Workload) -> runs.RunSpec:
    """The sweep's run as the one run description every way of running shares.

    ``workload`` is the run's prepared workload: generated reservation
    requests are spread over it.  The reservation setting (Margo et al.,
    §2–6) gives the tick, the queue limit, the requests and, for the
    policies that take requests, their placement and throttling parameters.
    """
    policy: dict[str, Any] = {"name": run.policy, **dict(run.params)}
    engine: dict[str, Any] = {}
    setting = run.reservations
    if setting is not None:
        machine = run.processors or workload.processors
        engine = {"tick": setting.tick, "max_queued_per_user": setting.max_queued_per_user}
        if setting.requests is not None:
            engine["reservations"] = run_requests(setting.requests, workload, machine)
            policy = runs.with_reservation_params(policy, reservation_params(setting, machine))
    outages = run.outages
    if outages is not None:
        engine["failures"] = outages.failures_text
        engine["maintenance"] = None if outages.maintenance is None else outages.maintenance[0]
    return replace(_description(run.workload, run.seed, run.processors, run.transforms),
                   policy=policy, overrun=run.overrun, **engine)


def reservation_params(setting: ReservationSetting, processors: int) -> dict[str, Any]:
    """The policy's reservation parameters for a setting's rules (``{}`` for a baseline).

    ``cap_hours`` is the whole machine for that many hours (Margo §2: "all
    unshared batch nodes in the system for half a day each week").
    """
    from schedlab.policies.reservations import ReservationRules, params_from_rules

    if setting.rules is None:
        return {}
    rules = dict(setting.rules)
    if "cap_hours" in rules:
        rules["cap"] = processors * rules.pop("cap_hours") * 3600
    return params_from_rules(ReservationRules(**rules))


def run_requests(source: RequestSource, workload: Workload, processors: int):
    """The requests of a run: the file read, or generated over the workload's span.

    Generated requests start at the first submission ``a``.  With
    ``compress`` they are generated over ``from_days`` and mapped into
    ``[a, a + into_days)`` — Margo §5, "one year worth of reservations ...
    over a month period of time"; otherwise they are spread over ``days``
    (default: up to the last submission).  Widths are drawn in nodes and
    multiplied by ``node_size`` (processors per node).
    """
    from schedlab.workload.reservations import (
        DEFAULT_NOTICE,
        PAPER_DURATION,
        PAPER_NODES,
        PAPER_PER_WEEK,
        compress_requests,
        generate_requests,
        read_reservations,
    )

    if source.kind == "file":
        assert source.path is not None      # a request file has its path (spec.reservation_section)
        return read_reservations(source.path, processors=processors,
                                 unix_start_time=workload.unix_start_time)
    node_size = source.option("node_size", 1)
    first = workload.jobs[0].submit if workload.jobs else 0
    last = workload.jobs[-1].submit + 1 if workload.jobs else 1
    compress = source.option("compress")
    if compress is not None:
        span = (first, first + round(compress["from_days"] * DAY))
    elif source.option("days") is not None:
        span = (first, first + round(source.option("days") * DAY))
    else:
        span = (first, last)
    hours = source.option("hours", [PAPER_DURATION[0] // 3600, PAPER_DURATION[1] // 3600])
    notice = source.option("notice_hours", [DEFAULT_NOTICE[0] // 3600,
                                            DEFAULT_NOTICE[1] // 3600])
    requests = generate_requests(span, per_week=source.option("per_week", PAPER_PER_WEEK),
                                 nodes=tuple(source.option("nodes", PAPER_NODES)),
                                 duration=(hours[0] * 3600, hours[1] * 3600),
                                 notice=(notice[0] * 3600, notice[1] * 3600),
                                 processors=processors // node_size,
                                 seed=source.option("seed", 0))
    if compress is not None:
        requests = compress_requests(requests, span,
                                     (first, first + round(compress["into_days"] * DAY)))
    return tuple(_in_processors(r, node_size) for r in requests)


def _in_processors(request, node_size: int):
    """A request for ``width`` nodes as one for ``width x node_size`` processors."""
    return request if node_size == 1 else replace(request, width=request.width * node_size)


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def prepared_workload(source: WorkloadSource, seed: int | None, processors: int | None,
                      transforms: tuple[tuple[str, Any], ...]) -> Workload:
    """The loaded workload with the run's transforms applied, cached per process."""
    return runs.transform(loaded_workload(source, seed, processors),
                          _description(source, seed, processors, transforms),
                          label=lambda name: f"transforms.{name}")


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def loaded_workload(source: WorkloadSource, seed: int | None,
                    processors: int | None) -> Workload:
    """A model generated or a file read (SWF or sacct), then windowed and cut to its first
    N jobs (:func:`schedlab.run.read_workload`), cached per process."""
    return runs.read_workload(_description(source, seed, processors, ()),
                              label=lambda name: f"workloads.{name}")


def _description(source: WorkloadSource, seed: int | None, processors: int | None,
                 transforms: tuple[tuple[str, Any], ...]) -> runs.RunSpec:
    """The part of a run description that says which jobs it simulates."""
    from schedlab.pipeline import Transforms

    return runs.RunSpec(source.source, processors=processors,
                        width_field=source.option("width_field", "requested"),
                        missing_estimate=source.option("missing_estimate", "use-runtime"),
                        strict=source.option("strict", False),
                        cancellations=source.option("cancellations", "ignore"),
                        jobs=source.option("jobs"),
                        seed=0 if seed is None else seed,
                        transforms=Transforms(window=source.option("window"),
                                              **dict(transforms)))


# --------------------------------------------------------------------------- encoding


def jobs_table(result: Result):
    """The job table as an Arrow table: the columns of ``jobs.csv``, nulls where empty (a
    grid run's also its grid columns, :func:`grid_job_columns`).

    ``start``, ``end`` and ``wait`` are null for rejected jobs, ``planned_start``
    where no start was promised (docs/architecture.md, "Outputs").
    """
    import pyarrow as pa

    rejected = ~result.accepted                 # rejected or withdrawn: never ran
    names = np.array(STATUS_NAMES, dtype=object)
    table = pa.table({
        "job_id": pa.array(result.job_id),
        "submit": pa.array(result.submit),
        "start": pa.array(result.start, mask=rejected),
        "end": pa.array(result.end, mask=rejected),
        "width": pa.array(result.width),
        "estimate": pa.array(result.estimate),
        "runtime": pa.array(result.runtime),
        "status": pa.array(names[result.status.astype(np.int64)].tolist(), type=pa.string()),
        "wait": pa.array(result.start - result.submit, mask=rejected),
        "planned_start": pa.array(result.planned_start, mask=result.planned_start < 0),
    })
    if result.grid is None:
        return table
    for name, column in grid_job_columns(result).items():
        table = table.append_column(name, column)
    return table


def grid_job_columns(result: Result) -> dict[str, Any]:
    """The columns a grid run's jobs.csv adds (schedlab.output.jobs_csv_text), as Arrow
    arrays: ``deadline`` (null: none; when the jobs have deadlines), ``machine`` and
    ``cluster`` (null: never ran),
    ``licences``, ``priority``; with preemption ``last_start``, ``preemptions``,
    ``migrations``.  ``schedlab plot EXP --kind gantt`` draws them per machine."""
    import pyarrow as pa

    grid = result.grid
    assert grid is not None                 # only called for grid runs
    machine_names = np.array(grid.machine_names, dtype=object)
    cluster_names = np.array(grid.cluster_names, dtype=object)
    columns = {} if result.deadline is None else {
        "deadline": pa.array(result.deadline, mask=result.deadline < 0)}
    columns |= {
        "machine": pa.array(machine_names[np.maximum(grid.machine, 0)].tolist(),
                            mask=grid.machine < 0, type=pa.string()),
        "cluster": pa.array(cluster_names[np.maximum(grid.cluster, 0)].tolist(),
                            mask=grid.cluster < 0, type=pa.string()),
        "licences": pa.array(list(grid.job_licences), type=pa.string()),
        "priority": pa.array(grid.priority if grid.priority is not None
                             else np.zeros(len(result), dtype=np.int64)),
    }
    for name in ("machine_runtime", "machine_estimate"):     # jobs.csv's, output.py
        scaled = getattr(grid, name)
        if scaled is not None:
            columns[name] = pa.array(scaled, mask=scaled < 0)
    if grid.preemptive:
        # every grid run records them (schedlab.engine.grid)
        assert grid.last_start is not None
        columns.update({"last_start": pa.array(grid.last_start, mask=grid.last_start < 0),
                        "preemptions": pa.array(grid.preemptions),
                        "migrations": pa.array(grid.migrations)})
    return columns


def series_table(result: Result):
    """The utilization and queue-length step functions as an Arrow table.

    A run with reservation requests has a fourth column, ``reserved``: the
    processors held by granted reservations (Margo §6, Graphs 6–7 count
    them as used), on the union of both series' breakpoints.
    """
    import pyarrow as pa

    times, busy, queue = result.series_time, result.series_busy, result.series_queue
    if result.reservations is None:
        return pa.table({"time": pa.array(times), "busy": pa.array(busy),
                         "queue": pa.array(queue)})
    table = result.reservations
    union = np.union1d(times, table.series_time)
    return pa.table({"time": pa.array(union), "busy": pa.array(_step_at(times, busy, union)),
                     "queue": pa.array(_step_at(times, queue, union)),
                     "reserved": pa.array(_step_at(table.series_time, table.series_reserved,
                                                   union))})


def _step_at(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A step function's value at each time of ``at`` (its last value at a repeated time;
    0 before its first entry)."""
    times, values = np.asarray(times), np.asarray(values, dtype=np.int64)
    if values.size == 0:     # e.g. no reservation request at all: 0 throughout
        return np.zeros(len(at), dtype=np.int64)
    index = np.searchsorted(times, at, side="right") - 1
    return np.where(index >= 0, values[np.clip(index, 0, None)], 0)


def to_parquet_bytes(table) -> bytes:
    """An Arrow table as the bytes of a Parquet file."""
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def encode_jobs(result: Result) -> bytes:
    return to_parquet_bytes(jobs_table(result))


def encode_series(result: Result) -> bytes:
    return to_parquet_bytes(series_table(result))
