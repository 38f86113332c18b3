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
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from schedlab.engine.result import REJECTED, STATUS_NAMES, Result
from schedlab.experiments.spec import RunSpec, WorkloadSource
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

    run: RunSpec
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


def execute_run(run: RunSpec) -> RunRecord:
    """Simulate one run; a run that raises is returned as a failed record.

    Only ``Exception`` is caught: Ctrl-C and the end of the process pass through.
    """
    from schedlab import __version__

    began = time.perf_counter()
    try:
        result, metrics = simulate_run(run)
        jobs, series = encode_jobs(result), encode_series(result)
    except Exception as err:  # noqa: BLE001 - recorded with its traceback, the sweep goes on
        return RunRecord(run, FAILED, time.perf_counter() - began, __version__,
                         error=describe_error(err))
    from schedlab.output import json_safe
    return RunRecord(run, FINISHED, time.perf_counter() - began, __version__,
                     metrics=json_safe(metrics), policy_stats=json_safe(result.stats),
                     jobs_parquet=jobs, series_parquet=series)


def failed_record(run: RunSpec, error: str) -> RunRecord:
    """A failed record for a run that could not execute at all (its worker died)."""
    from schedlab import __version__
    return RunRecord(run, FAILED, 0.0, __version__, error=error)


def describe_error(err: BaseException) -> str:
    """``Type: message`` on the first line, then the traceback."""
    summary = f"{type(err).__name__}: {err}".strip().replace("\n", " ")
    return summary + "\n\n" + "".join(traceback.format_exception(err)).rstrip()


def simulate_run(run: RunSpec) -> tuple[Result, dict[str, Any]]:
    """The run's Result and its metrics (docs/metrics.md)."""
    from schedlab.engine.simulator import run as simulate
    from schedlab.metrics import compute_metrics
    from schedlab.policies.registry import make_policy

    workload = prepared_workload(run.workload, run.seed, run.processors, run.transforms)
    policy = make_policy({"name": run.policy, **dict(run.params)})
    result = simulate(workload, policy, processors=run.processors, overrun=run.overrun)
    return result, compute_metrics(result)


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def prepared_workload(source: WorkloadSource, seed: int | None, processors: int | None,
                      transforms: tuple[tuple[str, Any], ...]) -> Workload:
    """The loaded workload with the run's transforms applied, cached per process."""
    from schedlab.errors import InputError
    from schedlab.workload.pipeline import Transforms, apply_transforms

    workload = apply_transforms(loaded_workload(source, seed, processors),
                                Transforms(**dict(transforms)), seed=0 if seed is None else seed,
                                label=lambda name: f"transforms.{name}")
    if len(workload) == 0:
        raise InputError("the workload has no job left to simulate", file=source.label)
    return workload


@lru_cache(maxsize=WORKLOAD_CACHE_SIZE)
def loaded_workload(source: WorkloadSource, seed: int | None,
                    processors: int | None) -> Workload:
    """A model generated or a file read (SWF or sacct), then windowed and cut to its first
    N jobs.

    The order of ``schedlab simulate``: time window, then the first N jobs of
    a trace (for a model, ``jobs`` is the number of jobs generated).
    """
    from schedlab.workload.pipeline import Transforms, apply_transforms

    jobs = source.option("jobs")
    if source.is_file:
        from schedlab.api import load_workload
        workload = load_workload(source.source,
                                 width_field=source.option("width_field", "requested"),
                                 missing_estimate=source.option("missing_estimate", "use-runtime"),
                                 strict=source.option("strict", False), processors=processors)
    else:
        from schedlab.workload.models import generate_builtin
        workload = generate_builtin(source.source, n_jobs=jobs, processors=processors,
                                    seed=0 if seed is None else seed)
    steps = Transforms(window=source.option("window"), first=jobs if source.is_file else None)
    workload = apply_transforms(workload, steps, label=lambda name: f"workloads.{name}")
    return workload


# --------------------------------------------------------------------------- encoding


def jobs_table(result: Result):
    """The job table as an Arrow table: the columns of ``jobs.csv``, nulls where empty.

    ``start``, ``end`` and ``wait`` are null for rejected jobs, ``planned_start``
    where no start was promised (docs/architecture.md, "Outputs").
    """
    import pyarrow as pa

    rejected = result.status == REJECTED
    names = np.array(STATUS_NAMES, dtype=object)
    return pa.table({
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


def series_table(result: Result):
    """The utilization and queue-length step functions as an Arrow table."""
    import pyarrow as pa

    return pa.table({"time": pa.array(result.series_time), "busy": pa.array(result.series_busy),
                     "queue": pa.array(result.series_queue)})


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
