"""Writing results to disk: jobs.csv, metrics.json — always atomically.

The atomic writers live in :mod:`schedlab.atomic` (the core layer, so that
workload readers and writers can use them); they are re-exported here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.atomic import (
    atomic_directory,
    atomic_write_blocks,
    atomic_write_bytes,
    atomic_write_text,
)
from schedlab.engine.result import STATUS_NAMES, ReservationTable, Result
from schedlab.outcomes import NEVER_RAN
from schedlab.workload.reservations import csv_cell

JOB_COLUMNS = ("job_id", "submit", "start", "end", "width", "estimate", "runtime", "status",
               "wait", "planned_start")
DEADLINE_COLUMNS = ("deadline", "deadline_kind")
GRID_COLUMNS = ("machine", "cluster", "licences", "priority", "machine_runtime",
                "machine_estimate")
PREEMPTION_COLUMNS = ("last_start", "preemptions", "migrations")
#: How a table shows a missing metric, one over no jobs (docs/reference/metrics.md, "Empty groups"):
#: metrics.json holds ``null`` and a CSV an empty cell.
MISSING_CELL = "—"
__all__ = [
    "MISSING_CELL",
    "atomic_directory",
    "atomic_write_bytes",
    "atomic_write_text",
    "jobs_csv_text",
    "json_safe",
    "metrics_document",
    "outcomes_csv_text",
    "write_jobs_csv",
    "write_metrics_json",
    "write_outcomes",
]


#: Rows of jobs.csv made at a time: the text and the Python ints of one block are all of
#: the table in memory at once (about 1.5 MB), so writing the table adds a fixed amount to
#: a run's peak memory, not an amount per job (blocks of 50,000 rows added 270 bytes per job).
CSV_BLOCK_ROWS = 4_096


def jobs_csv_text(result: Result) -> str:
    """The per-job table as CSV (``JOB_COLUMNS``); start, end, wait and
    planned_start are empty where they do not exist (rejected jobs, no plan).

    A run with deadlines adds ``deadline`` (empty for a job without one) and
    ``deadline_kind`` (``real`` or ``artificial``, QoPS §4.2).  A gang
    (time-sharing) run adds ``service``, the seconds each job was served
    (its wall time from start to end is longer; docs/reference/policies/gang.md).  A
    grid run adds ``machine`` and ``cluster`` (names), ``licences`` (the names a job
    needs, joined by ``;``), ``priority`` (the dispatcher's label, 0: none) and
    ``machine_runtime`` / ``machine_estimate``: the seconds the job holds machines
    to run its runtime / estimate on the machines it ran on (eq. 3.9; empty for a
    job that never ran) — ``runtime`` and ``estimate`` are at the job's own
    rating, and every slowdown divides by the machine's time; a
    grid run that allowed preemption also ``last_start``, ``preemptions`` and
    ``migrations`` (``start`` is then the first start, ``machine`` the last).
    """
    return "".join(jobs_csv_blocks(result))


def jobs_csv_blocks(result: Result) -> Iterator[str]:
    """:func:`jobs_csv_text` in pieces: the header line, then ``CSV_BLOCK_ROWS`` rows at a time."""
    header = JOB_COLUMNS + (DEADLINE_COLUMNS if result.deadline is not None else ())
    header += ("service",) if result.timesharing is not None else ()
    header += GRID_COLUMNS if result.grid is not None else ()
    header += PREEMPTION_COLUMNS if result.grid is not None and result.grid.preemptive else ()
    yield ",".join(header) + "\n"
    for first in range(0, len(result), CSV_BLOCK_ROWS):
        yield _job_block(result, slice(first, first + CSV_BLOCK_ROWS))


#: The ``JOB_COLUMNS`` of a Result's int64 columns, in order (the status names the codes
#: of ``status``, and ``wait`` is made from ``start`` and ``submit``).
_INT_JOB_COLUMNS = ("job_id", "submit", "start", "end", "width", "estimate", "runtime", "status")
_STATUS, _WAIT, _PLANNED = (JOB_COLUMNS.index(name) for name in ("status", "wait",
                                                                  "planned_start"))
#: The cells left empty for a job that never ran.
_RAN_ONLY = np.array([JOB_COLUMNS.index(name) for name in ("start", "end", "wait")])


def _job_cells(result: Result, rows: slice) -> str:
    """The ``JOB_COLUMNS`` cells of the jobs in ``rows``, each line ended.

    A table of their int64 values and of the cells left empty, written by one
    compiled call (:func:`schedlab.output_kernels.csv_text`), so that no Python
    code runs per row or cell.  A job that never ran has empty ``start``, ``end``
    and ``wait``; one never promised a start an empty ``planned_start``.
    """
    from schedlab.output_kernels import csv_text

    status, planned = result.status[rows], result.planned_start[rows]
    values = np.empty((status.size, len(JOB_COLUMNS)), np.int64)
    for k, name in enumerate(_INT_JOB_COLUMNS):
        values[:, k] = getattr(result, name)[rows]
    values[:, _WAIT] = result.start[rows] - result.submit[rows]
    values[:, _PLANNED] = planned
    empty = np.zeros(values.shape, dtype=bool)
    empty[np.ix_(np.isin(status, NEVER_RAN), _RAN_ONLY)] = True
    empty[:, _PLANNED] = planned < 0
    return csv_text(values, empty, _STATUS, STATUS_NAMES)


def _job_block(result: Result, rows: slice) -> str:
    """The CSV lines of the jobs in ``rows``: :func:`_job_cells`, then the columns of a run
    with deadlines, a gang run's or a grid run's."""
    text = _job_cells(result, rows)
    if result.deadline is None and result.timesharing is None and result.grid is None:
        return text
    lines = text.split("\n")[:-1]
    if result.deadline is not None:
        kinds = (result.artificial_deadline[rows].tolist()
                 if result.artificial_deadline is not None else [False] * len(lines))
        for k, (deadline, artificial) in enumerate(zip(result.deadline[rows].tolist(), kinds)):
            if deadline >= 0:
                lines[k] += f",{deadline},{'artificial' if artificial else 'real'}"
            else:
                lines[k] += ",,"
    if result.timesharing is not None:
        for k, service in enumerate(result.timesharing.service[rows].tolist()):
            lines[k] += f",{service}"
    if result.grid is not None:
        _add_grid_columns(lines, result.grid, rows)
    return "".join(line + "\n" for line in lines)


def _add_grid_columns(lines: list[str], grid, rows: slice) -> None:
    """Append ``machine`` and ``cluster`` (names; empty where the job never ran),
    ``licences`` (names joined by ``;``), ``priority`` (the dispatcher's label),
    ``machine_runtime`` and ``machine_estimate`` (empty where the job never ran) to the
    lines of a grid run's jobs in ``rows``; with preemption, ``last_start``,
    ``preemptions`` and ``migrations``."""
    priority = grid.priority[rows].tolist() if grid.priority is not None else [0] * len(lines)
    unknown = [-1] * len(lines)
    scaled = [unknown if column is None else column[rows].tolist()
              for column in (grid.machine_runtime, grid.machine_estimate)]
    cells = zip(grid.machine[rows].tolist(), grid.cluster[rows].tolist(),
                grid.job_licences[rows], priority, *scaled)
    for k, (machine, cluster, licences, label, runtime, estimate) in enumerate(cells):
        lines[k] += (f",{grid.machine_names[machine] if machine >= 0 else ''},"
                     f"{grid.cluster_names[cluster] if cluster >= 0 else ''},{licences},{label},"
                     f"{runtime if runtime >= 0 else ''},{estimate if estimate >= 0 else ''}")
    if grid.preemptive:
        runs = zip(grid.last_start[rows].tolist(), grid.preemptions[rows].tolist(),
                   grid.migrations[rows].tolist())
        for k, (last, preemptions, migrations) in enumerate(runs):
            lines[k] += f",{last if last >= 0 else ''},{preemptions},{migrations}"


def write_jobs_csv(result: Result, path: str | Path) -> None:
    atomic_write_blocks(path, jobs_csv_blocks(result))


def write_timesharing_tables(result: Result, directory: str | Path) -> list[Path]:
    """For a gang run, ``matrix.csv`` (every change of the Ousterhout matrix),
    ``slots.csv`` (slots in the round over time) and ``series.csv`` (processors
    allocated in any row and waiting jobs over time, the engine's series) in
    ``directory``, the data of the ``matrix``, ``slots`` and ``timeseries``
    figures (docs/how-to/figures.md); nothing for other runs.

    A space-shared run's series follows from jobs.csv; a gang run's does not,
    since its jobs share processors across the rows of the matrix.
    """
    if result.timesharing is None:
        return []
    import pandas as pd

    from schedlab.metrics.gang import matrix_table, slots_table

    directory = Path(directory)
    series = pd.DataFrame({"time": result.series_time, "busy": result.series_busy,
                           "queue": result.series_queue})
    paths = [directory / "matrix.csv", directory / "slots.csv", directory / "series.csv"]
    for table, path in zip((matrix_table(result), slots_table(result), series), paths):
        atomic_write_text(path, table.to_csv(index=False, lineterminator="\n"))
    return paths


#: What holds processors in ``processors.csv`` besides the jobs' last attempts.
OUTAGE_KINDS = ("failure", "window", "ended attempt")


def processor_uses(result: Result) -> tuple[np.ndarray, ...] | None:
    """The columns of :func:`processors_table` as arrays, ordered by start then first
    processor: ``kind`` (strings), ``job_id`` (-1 but for jobs), ``first``, ``count``,
    ``start``, ``end``; None for a run without failures or windows."""
    record = result.outages
    if record is None:
        return None
    lo, hi, start, end, holder = record.intervals.T
    order = np.lexsort((lo, start))
    lo, hi, start, end, holder = lo[order], hi[order], start[order], end[order], holder[order]
    of_job = holder >= 0
    position = np.where(of_job, holder, 0)
    # a gang job holds its processors from its placement in the matrix, not its first slot
    held_from = result.start if result.timesharing is None else result.timesharing.placed
    last = of_job & (held_from[position] == start)
    kind = np.select([holder == -1, holder < 0, last], ["failure", "window", "job"],
                     "ended attempt")
    job_id = np.where(of_job, result.job_id[position], -1)
    return kind, job_id, lo, hi - lo, start, end


def processors_table(result: Result) -> Any:
    """Every use of the processors of a run with failures or windows, as a DataFrame with
    the columns ``kind`` (``job``: a job's last attempt; ``ended attempt``: one a failure
    ended; ``failure``; ``window``), ``job_id`` (empty but for jobs), ``first`` and
    ``count`` (the processors ``first`` to ``first + count - 1``), ``start`` and ``end``;
    None for a run without them (docs/reference/events.md)."""
    uses = processor_uses(result)
    if uses is None:
        return None
    import pandas as pd

    kind, job_id, first, count, start, end = uses
    return pd.DataFrame({
        "kind": kind, "job_id": pd.array(np.where(job_id >= 0, job_id, 0), dtype="Int64"),
        "first": first, "count": count, "start": start, "end": end}).assign(
        job_id=lambda table: table["job_id"].mask(job_id < 0))


def write_processors_table(result: Result, directory: str | Path) -> list[Path]:
    """``processors.csv`` (:func:`processors_table`: the Gantt chart's exact placement) and
    ``capacity.csv`` (``time,down``: the processors out of service from each time on) for
    a run with failures or windows; nothing for other runs.  Written from the arrays,
    without pandas (a run of SDSC-BLUE has some 230,000 uses)."""
    uses = processor_uses(result)
    if uses is None or result.outages is None:
        return []
    kind, job_id, first, count, start, end = (column.tolist() for column in uses)
    paths = [Path(directory) / "processors.csv", Path(directory) / "capacity.csv"]
    atomic_write_text(paths[0], "kind,job_id,first,count,start,end\n" + "".join(
        f"{k},{'' if j < 0 else j},{f},{c},{s},{e}\n"
        for k, j, f, c, s, e in zip(kind, job_id, first, count, start, end)))
    record = result.outages
    atomic_write_text(paths[1], "time,down\n" + "".join(
        f"{t},{d}\n" for t, d in zip(record.series_time.tolist(),
                                      record.series_down.tolist())))
    return paths


def json_safe(value: Any) -> Any:
    """Numbers JSON can hold: numpy scalars to Python, NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def metrics_document(result: Result, metrics: dict[str, Any]) -> dict[str, Any]:
    """Everything metrics.json holds: metrics (flat names), policy statistics, run facts."""
    return json_safe({
        "workload": result.workload,
        "policy": result.policy,
        "params": result.params,
        "processors": result.processors,
        "metrics": metrics,
        "policy_stats": result.stats,
        "skipped": result.skipped,
        "meta": result.meta,
    })


def write_metrics_json(result: Result, metrics: dict[str, Any], path: str | Path) -> None:
    atomic_write_text(path, json.dumps(metrics_document(result, metrics), indent=2,
                                       sort_keys=False) + "\n")


def outcomes_csv_text(table: ReservationTable) -> str:
    """What became of every request of a run, one CSV row each (``OUT/reservations.csv``).

    Columns: ``id, created, requested_start, start, end, duration, nodes,
    owner, status, reason``; ``start`` and ``end`` are empty for a rejected
    request, ``reason`` is empty for a granted one.
    """
    lines = ["id,created,requested_start,start,end,duration,nodes,owner,status,reason"]
    for k in range(len(table)):
        granted = bool(table.granted[k])
        start = int(table.start[k])
        times = f"{start},{start + int(table.duration[k])}" if granted else ","
        lines.append(f"{int(table.id[k])},{int(table.created[k])},"
                     f"{int(table.requested_start[k])},{times},{int(table.duration[k])},"
                     f"{int(table.width[k])},{csv_cell(table.owner[k])},"
                     f"{'granted' if granted else 'rejected'},{csv_cell(table.reason[k])}")
    return "\n".join(lines) + "\n"


def write_outcomes(table: ReservationTable, path: str | Path) -> None:
    """Write :func:`outcomes_csv_text` to a file, atomically."""
    atomic_write_text(path, outcomes_csv_text(table))


def write_run_directory(result: Result, metrics: dict[str, Any], directory: str | Path, *,
                        swf: bool = False) -> list[Path]:
    """Everything a run writes in its directory, as ``simulate --out`` and each policy of
    ``compare`` do: jobs.csv and metrics.json, a gang run's matrix, slots and series
    (:func:`write_timesharing_tables`), a run with outages' processors.csv
    (:func:`write_processors_table`), the reservations' outcomes, and with ``swf`` the
    schedule as SWF.  Returns the files written, in that order."""
    directory = Path(directory)
    written = [directory / "jobs.csv", directory / "metrics.json"]
    write_jobs_csv(result, written[0])
    write_metrics_json(result, metrics, written[1])
    written += write_timesharing_tables(result, directory)
    written += write_processors_table(result, directory)
    if result.reservations is not None:
        written.append(directory / "reservations.csv")
        write_outcomes(result.reservations, written[-1])
    if swf:
        from schedlab.workload.swf import write_swf

        written.append(directory / "schedule.swf")
        write_swf(result, written[-1])
    return written
