"""Interoperability: Batsim/evalys job tables out, Slurm accounting in.

* :func:`evalys_jobs_csv_text` writes a run's jobs in the column format of
  Batsim's ``out_jobs.csv`` (Batsim ``docs/output-jobs.rst``; column order as
  Batsim's ``JobsTracer`` writes it), which evalys reads with
  ``evalys.jobset.JobSet.from_csv`` — so existing Batsim/evalys analysis
  scripts work on schedlab runs.  schedlab does not track processor ids, so
  :func:`processor_allocation` assigns them with a deterministic first fit
  over the schedule.
* :func:`load_run` reads back a run written by ``schedlab simulate --out``.
* :func:`read_sacct` imports Slurm accounting (``sacct --parsable2``) as a
  :class:`~schedlab.workload.job.Workload`.

``docs/how-to/interop.md`` documents every column and rule.
"""

from __future__ import annotations

import bisect
import calendar
import csv
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from schedlab.engine.result import (
    CANCELLED,
    FINISHED,
    KILLED,
    REJECTED,
    STATUS_NAMES,
    WITHDRAWN,
    Result,
)
from schedlab.errors import InputError
from schedlab.limits import MAX_PROCESSORS, check_time
from schedlab.outcomes import FAILED, NEVER_RAN
from schedlab.output import atomic_write_text
from schedlab.textio import parse_int, read_text
from schedlab.workload.job import MACHINE_FROM_ARGUMENT, MACHINE_FROM_PEAK_USE, Job, Workload
from schedlab.workload.swf import provenance

# --------------------------------------------------------------------------- Batsim / evalys

#: Columns of Batsim's out_jobs.csv, in the order Batsim writes them.
BATSIM_JOB_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
)
#: Batsim's final_state for each schedlab status: a job killed at its estimate
#: reached its walltime; a finished job completed with exit code 0; one ended by a node
#: failure failed.
BATSIM_FINAL_STATES = {FINISHED: "COMPLETED_SUCCESSFULLY", KILLED: "COMPLETED_WALLTIME_REACHED",
                       REJECTED: "REJECTED", CANCELLED: "COMPLETED_KILLED",
                       WITHDRAWN: "COMPLETED_KILLED", FAILED: "COMPLETED_FAILED"}
#: Every schedlab job runs for a fixed time: Batsim calls that a delay profile.
DELAY_PROFILE = "delay"
#: What Batsim writes as consumed_energy when energy is not simulated.
NO_ENERGY = "-1.000000"


class _FreeProcessors:
    """The free processors of 0..P-1 as sorted, disjoint, maximal closed intervals
    (``lows[k]``-``highs[k]``); ``free`` counts them."""

    def __init__(self, processors: int) -> None:
        self.lows = [0]
        self.highs = [processors - 1]
        self.free = processors

    def take(self, width: int) -> list[tuple[int, int]]:
        """First fit: the lowest contiguous block of ``width`` processors if one exists,
        else the lowest-numbered free processors (several intervals)."""
        self.free -= width
        for k, (low, high) in enumerate(zip(self.lows, self.highs)):
            if high - low + 1 >= width:
                self._shrink(k, low + width)
                return [(low, low + width - 1)]
        pieces: list[tuple[int, int]] = []
        while width > 0:
            low, high = self.lows[0], self.highs[0]
            end = min(high, low + width - 1)
            pieces.append((low, end))
            width -= end - low + 1
            self._shrink(0, end + 1)
        return pieces

    def _shrink(self, k: int, new_low: int) -> None:
        if new_low > self.highs[k]:
            del self.lows[k], self.highs[k]
        else:
            self.lows[k] = new_low

    def give(self, pieces: list[tuple[int, int]]) -> None:
        """Return intervals, merging them with free neighbours."""
        for low, high in pieces:
            self.free += high - low + 1
            k = bisect.bisect_left(self.lows, low)
            if k > 0 and self.highs[k - 1] + 1 == low:
                k -= 1
                self.highs[k] = high
            else:
                self.lows.insert(k, low)
                self.highs.insert(k, high)
            if k + 1 < len(self.lows) and self.lows[k + 1] == self.highs[k] + 1:
                self.highs[k] = self.highs[k + 1]
                del self.lows[k + 1], self.highs[k + 1]


def processor_allocation(result: Result) -> list[list[tuple[int, int]]]:
    """Processor ids for every job of a schedule, as closed intervals (empty if rejected).

    schedlab schedules by processor counts, not ids.  Ids are assigned by
    replaying the schedule in time order — at each instant first the jobs
    that end, then the jobs that run for zero seconds, then the jobs that
    start (in workload order) — each start taking the lowest contiguous block
    of free processors that fits or, when none does, the lowest-numbered free
    processors.  A zero-second job holds its processors for no time at all:
    it gets ids by the same rule and gives them back at once (the engine may
    start another job on them at the same instant).  The result is
    deterministic and never gives one processor to two jobs at once.
    """
    pool = _FreeProcessors(result.processors)
    allocation: list[list[tuple[int, int]]] = [[] for _ in range(len(result))]
    widths = result.width.tolist()
    for time, kind, k in _allocation_events(result):
        if kind == _END:
            pool.give(allocation[k])
            continue
        width = widths[k]
        if width > pool.free:
            raise InputError(f"the schedule uses more than {result.processors} processors "
                             f"at time {time} (job {int(result.job_id[k])} needs {width})",
                             field="processors")
        allocation[k] = pool.take(width)
        if kind == _INSTANT:
            pool.give(allocation[k])
    return allocation


_END, _INSTANT, _START = 0, 1, 2


def _allocation_events(result: Result) -> list[tuple[int, int, int]]:
    """(time, kind, job index), sorted: ends, then zero-second jobs, then starts."""
    events: list[tuple[int, int, int]] = []
    for k, (start, end, status) in enumerate(zip(result.start.tolist(), result.end.tolist(),
                                                  result.status.tolist())):
        if status in NEVER_RAN:
            continue
        if end == start:
            events.append((start, _INSTANT, k))
        else:
            events.append((start, _START, k))
            events.append((end, _END, k))
    events.sort()
    return events


def interval_set_text(pieces: list[tuple[int, int]]) -> str:
    """Batsim's canonical interval-set string: ``[(0, 3), (5, 5)]`` -> ``"0-3 5"``."""
    return " ".join(f"{low}-{high}" if high > low else f"{low}" for low, high in pieces)


def evalys_jobs_csv_text(result: Result) -> str:
    """The jobs of a run as Batsim's out_jobs.csv (columns :data:`BATSIM_JOB_COLUMNS`).

    Times are written as Batsim writes them (seconds with six decimals);
    execution_time is end - start (the time the job held its processors),
    stretch is turnaround_time / execution_time (``inf`` for a zero-length job
    that waited, ``nan`` for one that did not).  Rejected jobs leave the
    start, end, derived-time, allocation and energy columns empty.
    """
    workload = _csv_field(result.workload)
    allocation = processor_allocation(result)
    lines = [",".join(BATSIM_JOB_COLUMNS)]
    for k, (job_id, submit, start, end, width, estimate, status) in enumerate(zip(
            result.job_id.tolist(), result.submit.tolist(), result.start.tolist(),
            result.end.tolist(), result.width.tolist(), result.estimate.tolist(),
            result.status.tolist())):
        head = (f"{job_id},{workload},{DELAY_PROFILE},{submit:.6f},{width},{estimate:.6f},"
                f"{int(status == FINISHED)},{BATSIM_FINAL_STATES[status]}")
        if status in NEVER_RAN:
            lines.append(head + ',,,,,,,,,""')
            continue
        execution, turnaround = end - start, end - submit
        lines.append(f"{head},{start:.6f},{execution:.6f},{end:.6f},{start - submit:.6f},"
                     f"{turnaround:.6f},{_stretch(turnaround, execution)},"
                     f"{interval_set_text(allocation[k])},{NO_ENERGY},\"\"")
    return "\n".join(lines) + "\n"


def _stretch(turnaround: int, execution: int) -> str:
    """turnaround / execution as Batsim prints it (IEEE division: inf or nan at zero)."""
    if execution:
        return f"{turnaround / execution:.6f}"
    return "inf" if turnaround else "nan"


def _csv_field(text: str) -> str:
    """A text field quoted the CSV way when it holds a comma, a quote or a line break."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_evalys_jobs_csv(result: Result, path: str | Path) -> None:
    """Write :func:`evalys_jobs_csv_text` to ``path`` atomically."""
    atomic_write_text(path, evalys_jobs_csv_text(result))


# --------------------------------------------------------------------------- schedlab runs

#: jobs.csv columns a run must have (the contract of ``schedlab simulate``).
RUN_COLUMNS = ("job_id", "submit", "start", "end", "width", "estimate", "runtime", "status")


def load_run(path: str | Path, *, processors: int | None = None) -> Result:
    """A run written by ``schedlab simulate --out DIR`` (the directory or its jobs.csv).

    The per-job columns come from jobs.csv; the machine size, policy and
    workload name from metrics.json beside it.  ``processors`` overrides the
    machine size (and is required when there is no metrics.json).  The
    result has no time series.
    """
    path = Path(path)
    jobs_csv = path / "jobs.csv" if path.is_dir() else path
    if not jobs_csv.is_file():
        raise InputError("expected a run directory holding jobs.csv, or a jobs.csv file",
                         file=str(path))
    facts = _run_facts(jobs_csv.parent / "metrics.json")
    machine = processors if processors is not None else facts.get("processors")
    if not isinstance(machine, int) or isinstance(machine, bool) or machine <= 0:
        raise InputError("cannot tell the machine size: no metrics.json with 'processors' "
                         "beside it; give the number of processors", file=str(jobs_csv))
    columns = _read_run_columns(jobs_csv)
    empty = np.zeros(0, dtype=np.int64)
    return Result(processors=machine, policy=str(facts.get("policy", "unknown")),
                  series_time=empty, series_busy=empty, series_queue=empty,
                  workload=str(facts.get("workload", jobs_csv.parent.name)), **columns)


def _run_facts(path: Path) -> dict:
    """metrics.json as a dict ({} when the file does not exist)."""
    if not path.is_file():
        return {}
    try:
        facts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise InputError(f"not a readable metrics.json ({err})", file=str(path)) from None
    if not isinstance(facts, dict):
        raise InputError("expected a JSON object", file=str(path))
    return facts


def _read_run_columns(path: Path) -> dict[str, Any]:
    """The per-job int64 columns of a jobs.csv (start/end -1 for rejected jobs), keyed by
    the :class:`~schedlab.engine.result.Result` fields they fill."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the file ({err})", file=str(path)) from None
    if not rows:
        raise InputError("empty file: expected a header line", file=str(path), line=1)
    index = {name: k for k, name in enumerate(rows[0])}
    missing = [name for name in RUN_COLUMNS if name not in index]
    if missing:
        raise InputError(f"missing column (expected {', '.join(RUN_COLUMNS)})",
                         file=str(path), line=1, field=missing[0])
    planned = index.get("planned_start")
    values: dict[str, list[int]] = {name: [] for name in (*RUN_COLUMNS, "planned_start")}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(index):
            raise InputError(f"expected {len(index)} fields, got {len(row)}",
                             file=str(path), line=line)
        status = _run_status(row[index["status"]], path, line)
        values["status"].append(status)
        for name in ("job_id", "submit", "width", "estimate", "runtime"):
            values[name].append(_run_int(row[index[name]], path, line, name))
        for name in ("start", "end"):
            text = row[index[name]]
            values[name].append(-1 if status in NEVER_RAN and not text
                                else _run_int(text, path, line, name))
        text = row[planned] if planned is not None else ""
        values["planned_start"].append(_run_int(text, path, line, "planned_start")
                                       if text else -1)
    return {name: np.array(column, dtype=np.int64) for name, column in values.items()}


def _run_int(text: str, path: Path, line: int, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"expected an integer, got {text!r}", file=str(path), line=line,
                         field=name) from None


def _run_status(text: str, path: Path, line: int) -> int:
    if text not in STATUS_NAMES:
        raise InputError(f"expected one of {', '.join(STATUS_NAMES)}, got {text!r}",
                         file=str(path), line=line, field="status")
    return STATUS_NAMES.index(text)


# --------------------------------------------------------------------------- Slurm sacct

#: The sacct command whose output read_sacct expects (documented in docs/how-to/interop.md).
SACCT_COMMAND = ("sacct -a -X --parsable2 --format=JobID,Submit,Start,End,Elapsed,Timelimit,"
                 "TimelimitRaw,NCPUS,NNodes,AllocCPUS,ReqCPUS,State,User,Group,Account,"
                 "Partition,QOS,Priority")
#: Columns that must be present.
SACCT_REQUIRED = ("JobID", "Submit", "Start", "End", "State")
#: Time-limit columns: at least one must be present (TimelimitRaw, whole minutes, first).
SACCT_LIMIT_COLUMNS = ("TimelimitRaw", "Timelimit")
#: Columns named by their values, the job field each number goes to (``Workload.names``).
SACCT_NAMED_COLUMNS = {"User": "user", "Group": "group", "Partition": "queue",
                       "Account": "account", "QOS": "qos"}
#: Width columns, in order of preference (the first one > 0 gives the width).
SACCT_WIDTH_COLUMNS = ("AllocCPUS", "NCPUS", "ReqCPUS")
#: Reasons a record is skipped, in the order they are tested.
SACCT_SKIP_REASONS = ("job step", "cancelled before start", "not started", "still running",
                      "width <= 0", "no estimate", "width > machine")
#: Timelimit values that mean "no limit of its own": the job has no estimate.
NO_TIME_LIMIT = ("UNLIMITED", "Partition_Limit")
#: The ``Source`` header of a workload read from sacct.
SACCT_SOURCE = "Slurm sacct --parsable2"

_NO_TIME = ("", "None", "Unknown")


class _SacctJob(NamedTuple):
    """What one job line says, in Unix seconds and seconds (limit None: no limit)."""

    submit: int
    start: int
    runtime: int
    limit: int | None
    width: int
    nodes: int
    priority: int | None

_DURATION = re.compile(r"(?:([0-9]+)-)?(?:([0-9]+):)?([0-9]+):([0-9]+)")


def is_sacct_file(path: str | Path) -> bool:
    """True when the file's first line is a sacct --parsable2 header (starts with ``JobID|``)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return False
    return first.removeprefix(b"\xef\xbb\xbf").startswith(b"JobID|")


def is_sacct_workload(workload: Workload) -> bool:
    """True for a workload :func:`read_sacct` read."""
    return workload.header.get("Source") == SACCT_SOURCE


def read_sacct(path: str | Path, *, missing_estimate: str = "use-runtime",
               processors: int | None = None) -> Workload:
    """A Workload from Slurm accounting written by :data:`SACCT_COMMAND`.

    One job per allocation line; job steps (``123.batch``, ``123.0``), jobs
    cancelled before they started, jobs never started and jobs still running
    are skipped and counted by reason (:data:`SACCT_SKIP_REASONS`).  Array
    tasks (``123_4``) are jobs like any other.  submit = Submit (seconds since
    the earliest kept submission); runtime = Elapsed (else End - Start);
    estimate = Timelimit (``UNLIMITED``/``Partition_Limit``: the runtime with
    ``missing_estimate="use-runtime"``, skipped with ``"drop"``; TimelimitRaw, in
    minutes, where present); width = the first of AllocCPUS, NCPUS, ReqCPUS that
    is > 0; nodes = NNodes; priority = Priority.  Users, groups, partitions,
    accounts and QOS are numbered 1, 2, … in order of first appearance (-1 when
    the column is absent), their names kept in ``Workload.names``; jobs are
    numbered 1..n in file order.  Machine size: ``processors``, else the most
    CPUs the kept jobs held at once in the log (a lower bound of the real size).
    """
    source = str(path)
    if missing_estimate not in ("use-runtime", "drop"):
        raise InputError(f"The 'missing_estimate' parameter of read_sacct must be one of "
                         f"'use-runtime', 'drop'. Got {missing_estimate!r} instead.")
    lines = _sacct_lines(source)
    columns = _sacct_header(lines[0], source)
    skipped = dict.fromkeys(SACCT_SKIP_REASONS, 0)
    records: list[_SacctJob] = []
    names: list[tuple[str | None, ...]] = []
    for line_no, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        row = _sacct_row(text, columns, source, line_no)
        reason = _sacct_skip_reason(row)
        if reason is None:
            record = _sacct_record(row, source, line_no)
            reason = _data_skip_reason(record, missing_estimate)
        if reason is not None:
            skipped[reason] += 1
            continue
        records.append(record)
        names.append(tuple(row.get(column) for column in SACCT_NAMED_COLUMNS))
    named = tuple(field for column, field in SACCT_NAMED_COLUMNS.items() if column in columns)
    return _sacct_workload(records, names, named, skipped, processors, source)


def _sacct_lines(source: str) -> list[str]:
    lines = read_text(source, "sacct file").split("\n")
    while lines and not lines[-1]:
        lines.pop()
    if not lines or not lines[0].strip():
        raise InputError(f"empty file: expected the header line of `{SACCT_COMMAND}`",
                         file=source, line=1)
    return lines


def _sacct_header(line: str, source: str) -> list[str]:
    """The column names; every required column and one width column must be present."""
    columns = line.rstrip("|").split("|")
    for name in SACCT_REQUIRED:
        if name not in columns:
            raise InputError(f"missing column; export with `{SACCT_COMMAND}`", file=source,
                             line=1, field=name)
    if not any(name in columns for name in SACCT_LIMIT_COLUMNS):
        raise InputError(f"missing column (one of {', '.join(SACCT_LIMIT_COLUMNS)}); export "
                         f"with `{SACCT_COMMAND}`", file=source, line=1, field="Timelimit")
    if not any(name in columns for name in SACCT_WIDTH_COLUMNS):
        raise InputError(f"missing column (one of {', '.join(SACCT_WIDTH_COLUMNS)}); export "
                         f"with `{SACCT_COMMAND}`", file=source, line=1, field="AllocCPUS")
    return columns


def _sacct_row(text: str, columns: list[str], source: str, line_no: int) -> dict[str, str]:
    """One line as column -> value (``--parsable``'s trailing '|' is accepted too)."""
    fields = text.split("|")
    if len(fields) == len(columns) + 1 and fields[-1] == "":
        fields.pop()
    if len(fields) != len(columns):
        raise InputError(f"expected {len(columns)} fields separated by '|', got {len(fields)}",
                         file=source, line=line_no)
    return dict(zip(columns, fields))


def _sacct_skip_reason(row: dict[str, str]) -> str | None:
    """The reason a line is not a job of the schedule, None when it is one.

    A cancelled job whose Start is not a time (or that was allocated no CPU,
    as older Slurm reports it) never ran.
    """
    if "." in row["JobID"]:
        return "job step"
    started = row["Start"] not in _NO_TIME
    if row["State"].startswith("CANCELLED") and (not started or row.get("AllocCPUS") == "0"):
        return "cancelled before start"
    if not started:
        return "not started"
    if row["End"] in _NO_TIME:
        return "still running"
    return None


def _sacct_record(row: dict[str, str], source: str, line_no: int) -> _SacctJob:
    """The times, limit and width of one job line."""
    submit = _sacct_time(row, "Submit", source, line_no)
    start = _sacct_time(row, "Start", source, line_no)
    end = _sacct_time(row, "End", source, line_no)
    if end < start:
        raise InputError(f"End {row['End']} is before Start {row['Start']}", file=source,
                         line=line_no, field="End")
    runtime = (_sacct_duration(row, "Elapsed", source, line_no) if "Elapsed" in row
               else end - start)
    return _SacctJob(submit, start, runtime, _sacct_limit(row, source, line_no),
                     _sacct_width(row, source, line_no),
                     _sacct_count(row, "NNodes", source, line_no) or 0,
                     _sacct_count(row, "Priority", source, line_no))


def _sacct_limit(row: dict[str, str], source: str, line_no: int) -> int | None:
    """The time limit in seconds: TimelimitRaw (whole minutes) where present, else
    Timelimit; None for no limit of the job's own."""
    name = next(column for column in SACCT_LIMIT_COLUMNS if column in row)
    if row[name] in NO_TIME_LIMIT:
        return None
    if name == "Timelimit":
        return _sacct_duration(row, name, source, line_no)
    minutes = _sacct_count(row, name, source, line_no)
    return check_time((minutes or 0) * 60, field=name, file=source, line=line_no)


def _sacct_count(row: dict[str, str], name: str, source: str, line_no: int) -> int | None:
    """A whole number >= 0 of column ``name`` (None where the column is absent or
    empty)."""
    text = row.get(name, "")
    if text == "":
        return None
    if not (text.isascii() and text.isdigit()):
        raise InputError(f"expected a whole number >= 0, got {text!r}", file=source,
                         line=line_no, field=name)
    return parse_int(text, field=name, file=source, line=line_no)


def _sacct_time(row: dict[str, str], name: str, source: str, line_no: int) -> int:
    """A sacct time in Unix seconds: ``2024-01-31T13:45:00`` (read as UTC) or Unix seconds
    (``SLURM_TIME_FORMAT=%s``)."""
    text = row[name]
    if text.isascii() and text.isdigit():
        return parse_int(text, field=name, file=source, line=line_no)
    try:
        if not text.isascii():
            raise ValueError(text)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"expected a time like 2024-01-31T13:45:00 or Unix seconds, "
                         f"got {text!r}", file=source, line=line_no, field=name) from None
    if moment.tzinfo is not None:
        return int(moment.timestamp())
    return calendar.timegm(moment.timetuple())


def _sacct_duration(row: dict[str, str], name: str, source: str, line_no: int) -> int:
    """``[D-]HH:MM:SS`` or ``MM:SS`` in seconds."""
    match = _DURATION.fullmatch(row[name])
    if match is None:
        extra = f", {' or '.join(NO_TIME_LIMIT)}" if name == "Timelimit" else ""
        raise InputError(f"expected [D-]HH:MM:SS{extra}, got {row[name]!r}", file=source,
                         line=line_no, field=name)
    days, hours, minutes, seconds = (parse_int(part, field=name, file=source, line=line_no,
                                               limit=None) if part else 0
                                     for part in match.groups())
    return check_time(((days * 24 + hours) * 60 + minutes) * 60 + seconds, field=name,
                      file=source, line=line_no)


def _sacct_width(row: dict[str, str], source: str, line_no: int) -> int:
    """The first of AllocCPUS, NCPUS, ReqCPUS (those present) that is > 0, else 0."""
    for name in SACCT_WIDTH_COLUMNS:
        if name in row:
            text = row[name]
            if not (text.isascii() and text.isdigit()):
                raise InputError(f"expected a whole number of CPUs, got {text!r}",
                                 file=source, line=line_no, field=name)
            cpus = parse_int(text, field=name, file=source, line=line_no, limit=MAX_PROCESSORS)
            if cpus > 0:
                return cpus
    return 0


def _data_skip_reason(record: _SacctJob, missing_estimate: str) -> str | None:
    """'width <= 0' or 'no estimate' (with the drop rule) for a job that cannot be simulated."""
    if record.width <= 0:
        return "width <= 0"
    if (record.limit is None or record.limit <= 0) and missing_estimate == "drop":
        return "no estimate"
    return None


def _sacct_workload(records: list[_SacctJob], names: list[tuple[str | None, ...]],
                    named: tuple[str, ...], skipped: dict[str, int],
                    processors: int | None, source: str) -> Workload:
    """Number users/groups/partitions, rebase submit times, size the machine, build jobs."""
    if processors is not None and (isinstance(processors, bool)
                                   or not isinstance(processors, int) or processors <= 0):
        raise InputError(f"The 'processors' parameter of read_sacct must be an int > 0. "
                         f"Got {processors!r} instead.", file=source)
    machine = processors if processors is not None else _peak_cpus(records)
    kept = [k for k, record in enumerate(records) if record.width <= machine]
    skipped["width > machine"] = len(records) - len(kept)
    if not kept:
        counts = ", ".join(f"{reason}: {n}" for reason, n in skipped.items())
        raise InputError(f"no job can be simulated ({counts})", file=source)
    origin = min(records[k].submit for k in kept)
    numbering: tuple[dict[str, int], ...] = tuple({} for _ in SACCT_NAMED_COLUMNS)
    jobs = []
    for number, k in enumerate(kept, start=1):
        submit, _, runtime, limit, width, nodes, priority = records[k]
        user, group, queue, account, qos = (
            -1 if name is None else table.setdefault(name, len(table) + 1)
            for table, name in zip(numbering, names[k]))
        estimate = limit if limit is not None and limit > 0 else runtime
        jobs.append(Job(id=number, submit=submit - origin, runtime=runtime,
                        estimate=max(estimate, 1), width=width, user=user, group=group,
                        queue=queue, account=account, qos=qos, nodes=nodes,
                        priority=priority))
    jobs.sort(key=lambda job: (job.submit, job.id))
    limits = np.array([records[k].limit or 0 for k in kept], dtype=np.int64)
    return Workload(jobs=tuple(jobs), processors=machine, name=Path(source).stem,
                    header={"Source": SACCT_SOURCE, "MaxProcs": str(machine)},
                    skipped=skipped, unix_start_time=origin,
                    provenance=provenance(MACHINE_FROM_ARGUMENT if processors is not None
                                          else MACHINE_FROM_PEAK_USE, limits),
                    names={field: tuple(table) for field, table
                           in zip(SACCT_NAMED_COLUMNS.values(), numbering) if field in named})


def _peak_cpus(records: list[_SacctJob]) -> int:
    """The most CPUs held at once by the jobs as they really ran (ends before starts),
    and at least the widest job."""
    if not records:
        return 0
    starts = np.array([r.start for r in records], dtype=np.int64)
    ends = starts + np.array([r.runtime for r in records], dtype=np.int64)
    widths = np.array([r.width for r in records], dtype=np.int64)
    times = np.concatenate([ends, starts])
    kinds = np.concatenate([np.zeros(len(ends), np.int64), np.ones(len(starts), np.int64)])
    deltas = np.concatenate([-widths, widths])
    order = np.lexsort((kinds, times))
    return int(max(np.cumsum(deltas[order]).max(), widths.max()))
