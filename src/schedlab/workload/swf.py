"""Read and write the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file is a header of comment lines (``; Key: value``) followed by one
line per job with 18 whitespace-separated numeric fields (SPEC §1.1).  The
reader turns it into a :class:`~schedlab.workload.job.Workload`; the writer
saves a workload or a simulated schedule (:class:`~schedlab.engine.result.Result`)
as SWF again, so that a schedule round-trips through the reader.

The reader is vectorised: records of plain decimal numbers (most traces)
are converted by array operations on the file's bytes (:func:`_plain_number_records`),
any others by one call to ``numpy.loadtxt``, and all are checked with array
operations.  Only when something is wrong does a slow line-by-line pass run,
to name the file, line and field in the error.  The exact rules are in
``docs/reference/workloads.md``.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import warnings
import zlib
from itertools import repeat
from pathlib import Path
from typing import Any, Literal, NamedTuple, NoReturn, Protocol

import numpy as np

from schedlab import __version__
from schedlab.atomic import atomic_write_bytes
from schedlab.errors import InputError
from schedlab.limits import MAX_PROCESSORS, MAX_TIME, check_processors
from schedlab.outcomes import (
    CANCELLED,
    FAILED,
    FINISHED,
    KILLED,
    NEVER_RAN,
    REJECTED,
    WITHDRAWN,
)
from schedlab.textio import normalize_bytes, parse_int
from schedlab.workload.job import (
    ESTIMATES_PARTLY_RUNTIME,
    ESTIMATES_REQUESTED,
    ESTIMATES_RUNTIME,
    INT_COLUMNS,
    MACHINE_FROM_ARGUMENT,
    MACHINE_FROM_WIDEST_JOB,
    Job,
    Workload,
)

#: Field names of the 18 SWF fields, in file order (field k is FIELD_NAMES[k - 1]).
FIELD_NAMES = (
    "job number", "submit time", "wait time", "run time", "allocated processors",
    "average CPU time used", "used memory", "requested processors", "requested time",
    "requested memory", "status", "user ID", "group ID", "executable number",
    "queue number", "partition number", "preceding job number",
    "think time from preceding job",
)
N_FIELDS = len(FIELD_NAMES)

#: Reasons a record is skipped, in the order they are tested: a record is
#: counted under the first reason that applies.
SKIP_REASONS = ("submit < 0", "runtime < 0", "width <= 0", "no estimate", "width > machine")


WidthField = Literal["requested", "allocated"]
MissingEstimate = Literal["use-runtime", "drop"]
Cancellations = Literal["ignore", "replay", "drop"]
WIDTH_FIELDS = ("requested", "allocated")
MISSING_ESTIMATE_RULES = ("use-runtime", "drop")
#: What becomes of a cancelled record (SWF status 5; docs/reference/events.md):
#: ``ignore`` simulates it as an ordinary job of its recorded runtime; ``replay``
#: cancels it at the trace's cancellation time; ``drop`` skips it (reason "cancelled").
CANCELLATION_RULES = ("ignore", "replay", "drop")
#: SWF field 11's code of a cancelled job.
SWF_CANCELLED = 5

# 0-based column indices of the fields the reader uses.
_JOB, _SUBMIT, _WAIT, _RUN, _ALLOC, _REQ_PROCS, _REQ_TIME = 0, 1, 2, 3, 4, 7, 8
_STATUS, _USER, _GROUP, _EXECUTABLE, _QUEUE = 10, 11, 12, 13, 14
# Count fields must hold integral values; time fields may be decimal and are
# truncated to whole seconds (the SWF definition permits fractional times).
_INTEGER_COLUMNS = (_JOB, _ALLOC, _REQ_PROCS, _USER, _GROUP, _QUEUE)
_TIME_COLUMNS = (_SUBMIT, _RUN, _REQ_TIME)
# Beyond 2**53 a float64 no longer holds every integer exactly (schedlab.limits.MAX_TIME).
_MAX_MAGNITUDE = float(MAX_TIME)

_GZIP_MAGIC = b"\x1f\x8b"
#: :func:`_plain_number_records`: at most this many digits per number (below 2**53, exact
#: in a float64).
_EXACT_DIGITS = 15
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEADER_KEY = re.compile(r"\s*([A-Za-z][\w-]*)\s*:(?!//)\s*(.*?)\s*")

#: ``Workload.provenance`` key: records whose time fields (2, 4, 9) were fractional and were
#: truncated to whole seconds (present only when there are some; docs/reference/workloads.md).
FRACTIONAL_TIMES = "fractional_times_truncated"

#: SWF status codes written for the Result statuses (SWF field 11: 1 completed,
#: 0 failed, 5 cancelled).  A job killed at its estimate or by a node failure did not
#: complete.
SWF_STATUS = {FINISHED: 1, KILLED: 0, REJECTED: 5, CANCELLED: 5, WITHDRAWN: 5, FAILED: 0}


def field_label(column: int) -> str:
    """The label of a 0-based column in messages, e.g. ``'4 (run time)'``."""
    return f"{column + 1} ({FIELD_NAMES[column]})"


class _Header(NamedTuple):
    """Header comments: key -> value (repeated keys joined by newlines) and key -> first line."""

    values: dict[str, str]
    lines: dict[str, int]


# --------------------------------------------------------------------------- reading


def read_swf(path: str | os.PathLike, *, width_field: WidthField = "requested",
             missing_estimate: MissingEstimate = "use-runtime", strict: bool = False,
             processors: int | None = None, cancellations: Cancellations = "ignore"
             ) -> Workload:
    """Read an SWF trace (plain or gzip, detected by its magic bytes) into a Workload.

    Rules (SPEC §1.1; details in docs/reference/workloads.md):

    * width: with ``width_field="requested"`` field 8 if > 0, else field 5;
      with ``"allocated"`` field 5 if > 0, else field 8;
    * estimate: field 9 if > 0 (at least 1 s); otherwise the runtime (at
      least 1 s) with ``missing_estimate="use-runtime"``, or the job is skipped
      as ``"no estimate"`` with ``"drop"``;
    * runtime: field 4; submit: field 2, kept as in the trace (not rebased);
    * machine size: ``processors`` if given, else header ``MaxProcs``, else
      ``MaxNodes``, else the widest job;
    * records that cannot be simulated (placeholders with submit time -1,
      negative runtime, no width, ...) are skipped and counted by reason in
      ``Workload.skipped`` (every reason of :data:`SKIP_REASONS` is present);
      with ``strict=True`` the first such record raises instead;
    * ``Workload.provenance`` says where the machine size and the estimates
      came from, so that a guess can be reported (:func:`provenance`);
    * cancelled records (status 5): ``cancellations="ignore"`` simulates them
      as ordinary jobs (the default, as before), ``"drop"`` skips them
      (reason ``cancelled``), ``"replay"`` cancels each at the time the trace
      recorded (:func:`_cancellation_columns`).

    Malformed input raises :class:`InputError` naming file, line and field.
    """
    source = str(path)
    _check_choice("width_field", width_field, WIDTH_FIELDS)
    _check_choice("missing_estimate", missing_estimate, MISSING_ESTIMATE_RULES)
    _check_choice("cancellations", cancellations, CANCELLATION_RULES)
    data = _read_bytes(source)
    header = _parse_header(_comment_lines(data, source))
    table = _parse_records(data, source)
    _check_job_numbers(table, data, source)
    _check_submit_order(table[:, _SUBMIT], data, source)
    return _build_workload(table, data, source, header, width_field=width_field,
                           missing_estimate=missing_estimate, strict=strict,
                           processors=processors, cancellations=cancellations)


def read_swf_schedule(path: str | os.PathLike, ids: np.ndarray) -> dict[str, np.ndarray]:
    """What the trace recorded of the jobs ``ids`` beyond the Workload: their ``wait``
    (field 3, -1 where unknown), ``status`` (field 11) and ``executable`` (field 14),
    as int64 columns in the order of ``ids``.

    The runtime predictors' trace analysis (:mod:`schedlab.predictors.accuracy`)
    replays the schedule the trace records; the Workload keeps only what a
    simulation needs.  ``ids`` are job numbers of a workload read from the same
    file (each appears once among its kept records).
    """
    source = str(path)
    table = _parse_records(_read_bytes(source), source)
    numbers = table[:, _JOB].astype(np.int64)
    order = np.argsort(numbers, kind="stable")
    wanted = np.asarray(ids, dtype=np.int64)
    rows = order[np.clip(np.searchsorted(numbers[order], wanted), 0, len(order) - 1)]
    if not np.array_equal(numbers[rows], wanted):
        raise InputError("the trace does not hold every job of the workload (was it read from "
                         "another file?)", file=source)
    return {"wait": np.trunc(table[rows, _WAIT]).astype(np.int64),
            "status": table[rows, _STATUS].astype(np.int64),
            "executable": table[rows, _EXECUTABLE].astype(np.int64)}


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """Reject a keyword argument that is not one of its allowed words."""
    if value not in choices:
        raise InputError(f"The '{name}' parameter of read_swf must be one of "
                         f"{', '.join(repr(c) for c in choices)}. Got {value!r} instead.")


def _read_bytes(source: str) -> bytes:
    """The file's content, decompressed when it starts with the gzip magic bytes, without a
    byte-order mark and with LF line ends (:func:`schedlab.textio.normalize_bytes`)."""
    try:
        raw = Path(source).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the file: {err.strerror or err}", file=source) from None
    if not raw.startswith(_GZIP_MAGIC):
        return normalize_bytes(raw)
    try:
        return normalize_bytes(gzip.decompress(raw))
    except (EOFError, OSError, zlib.error) as err:
        raise InputError(f"truncated or corrupt gzip data ({err})", file=source) from None


def _comment_lines(data: bytes, source: str) -> list[tuple[int, str]]:
    """(line number, text after ';') of every comment line, in file order.

    A comment line is one whose first non-blank character is ';'.  A ';'
    after data on a record line is not a comment: the record is malformed and
    the slow pass reports it.  The lines are found by ``bytes.find`` from one ';' to
    the next, and numbered by counting the line ends in between: a trace's comments
    are its header, so the records are only scanned, never split.
    """
    comments: list[tuple[int, str]] = []
    pos = data.find(b";")
    line, counted = 0, 0                    # line ends before ``counted``
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        line += data.count(b"\n", counted, start)
        counted = start
        if data[start:pos].strip():
            _raise_first_record_error(data, source, "';' after data on a record line")
        end = data.find(b"\n", pos)
        text = data[pos + 1:end if end >= 0 else len(data)]
        comments.append((line + 1, text.decode("utf-8", errors="replace").rstrip()))
        pos = data.find(b";", end) if end >= 0 else -1
    return comments


def _parse_header(comments: list[tuple[int, str]]) -> _Header:
    """Header dictionary from comment lines ``; Key: value``.

    A repeated key (``Note``, ``Queue`` …) keeps all its values joined by
    newlines; a comment line without ``Key:`` continues the previous key's
    value (before any key it goes to ``Comment``); empty comment lines are
    ignored.  ``Key://`` (a URL) is not a key.
    """
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    current = "Comment"
    for line, text in comments:
        if not text.strip():
            continue
        match = _HEADER_KEY.fullmatch(text)
        if match:
            current, value = match.group(1), match.group(2)
            lines.setdefault(current, line)
        else:
            value = text.strip()
            lines.setdefault(current, line)
        values[current] = f"{values[current]}\n{value}" if current in values else value
    return _Header(values, lines)


def _parse_records(data: bytes, source: str) -> np.ndarray:
    """All records as a float64 (n, 18) array, checked for shape and value range.

    Fast paths: :func:`_plain_number_records` when every record holds plain
    decimal numbers only, else one ``numpy.loadtxt`` call.  On any failure the slow
    pass (:func:`_raise_first_record_error`) names the first bad line and field.
    """
    table = _plain_number_records(data)
    if table is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                table = np.loadtxt(io.BytesIO(data), comments=";", dtype=np.float64, ndmin=2)
        except ValueError as err:
            _raise_first_record_error(data, source, str(err))
    if table.size == 0:
        raise InputError("no job records (the file is empty or holds only comment lines)",
                         file=source)
    if table.shape[1] != N_FIELDS or not _values_in_range(table):
        _raise_first_record_error(data, source, "unexpected field count or value")
    return table


def _plain_number_records(data: bytes) -> np.ndarray | None:
    """The records as :func:`_parse_records` returns them, when the file is its header
    comments followed by blank lines and lines of 18 plain decimal numbers (an optional
    ``-``, digits, at most one ``.`` between two digits; at most 15 digits, so that
    every value is exactly what ``numpy.loadtxt`` makes of it); None for any other
    file, which ``numpy.loadtxt`` then reads (or the slow pass reports).

    One compiled pass over the bytes (:func:`schedlab.workload.swf_kernels.plain_numbers`),
    several times as fast as ``numpy.loadtxt``.
    """
    from schedlab.workload.swf_kernels import plain_number_records

    start = 0
    while data.startswith((b";", b"\n"), start):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    if data.find(b";", start) >= 0:
        return None
    return plain_number_records(data, start, N_FIELDS, _EXACT_DIGITS)


def _values_in_range(table: np.ndarray) -> bool:
    """True when every field is finite, used fields fit exactly, count fields are integral."""
    if not np.isfinite(table).all():
        return False
    used = table[:, _INTEGER_COLUMNS + _TIME_COLUMNS]
    if (np.abs(used) > _MAX_MAGNITUDE).any():
        return False
    counts = table[:, _INTEGER_COLUMNS]
    return bool((counts == np.trunc(counts)).all())


def _raise_first_record_error(data: bytes, source: str, cause: str) -> NoReturn:
    """Scan the records line by line and raise an InputError for the first bad one.

    A file that is not text (NUL or many control bytes) is reported as such
    first.  Then checks, per record line in file order: 18 fields; every field a decimal
    number; used fields of magnitude <= 2**53; count fields (1, 5, 8, 12, 13,
    15) integral.  ``cause`` is what the fast path saw; it is reported only
    if the scan finds nothing more precise.
    """
    if _looks_binary(data):
        raise InputError("not an SWF text file (it holds binary data); expected comment lines "
                         "starting with ';' and job records of 18 numbers", file=source)
    for line_no, line in enumerate(data.split(b"\n"), start=1):
        tokens = line.split()
        if not tokens or tokens[0].startswith(b";"):
            continue
        _check_record_tokens(tokens, source, line_no)
    raise InputError(f"unreadable job records ({cause})", file=source)


def _looks_binary(data: bytes) -> bool:
    """Whether the first 8 KiB hold a NUL byte or more than 10 % control bytes (not text)."""
    sample = data[:8192]
    if b"\0" in sample:
        return True
    control = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13))
    return control > len(sample) // 10


def _check_record_tokens(tokens: list[bytes], source: str, line_no: int) -> None:
    """Raise an InputError naming the first bad field of one record line."""
    if len(tokens) < N_FIELDS:
        raise InputError(f"expected {N_FIELDS} fields, got {len(tokens)}",
                         file=source, line=line_no, field=field_label(len(tokens)))
    if len(tokens) > N_FIELDS:
        raise InputError(f"expected {N_FIELDS} fields, got {len(tokens)}",
                         file=source, line=line_no, field=f"{N_FIELDS + 1} (extra)")
    for column, token in enumerate(tokens):
        text = token.decode("latin-1")
        if not _NUMBER.fullmatch(token) or not math.isfinite(float(token)):
            raise InputError(f"expected a number, got {text!r}",
                             file=source, line=line_no, field=field_label(column))
        value = float(token)
        used = column in _INTEGER_COLUMNS or column in _TIME_COLUMNS
        if used and abs(value) > _MAX_MAGNITUDE:
            raise InputError(f"expected a number of magnitude at most 2**53, got {text!r}",
                             file=source, line=line_no, field=field_label(column))
        if column in _INTEGER_COLUMNS and not value.is_integer():
            raise InputError(f"expected an integer, got {text!r}",
                             file=source, line=line_no, field=field_label(column))


def _record_line_number(data: bytes, record: int) -> int:
    """File line number (1-based) of the record with 0-based index ``record``.

    Used only to word error messages, so a plain scan is fine.
    """
    seen = -1
    for line_no, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(b";"):
            seen += 1
            if seen == record:
                return line_no
    raise IndexError(record)


def _check_job_numbers(table: np.ndarray, data: bytes, source: str) -> None:
    """Job numbers must be >= 0, except on placeholder records (submit time < 0, skipped),
    which the Archive numbers -1 (LLNL-Thunder)."""
    negative = np.flatnonzero((table[:, _JOB] < 0) & (table[:, _SUBMIT] >= 0))
    if negative.size:
        k = int(negative[0])
        raise InputError(f"expected a job number >= 0, got {_number(table[k, _JOB])} (only a "
                         f"placeholder record, with a submit time < 0, may have a negative "
                         f"number)", file=source, line=_record_line_number(data, k),
                         field=field_label(_JOB))


def _check_submit_order(submit: np.ndarray, data: bytes, source: str) -> None:
    """Submit times >= 0 must not decrease from one such record to the next.

    Records with a negative submit time (placeholders whose fields are all
    -1, as in LLNL-Thunder) are left out of the check; they are skipped.
    """
    valid = np.flatnonzero(submit >= 0)
    backwards = np.flatnonzero(np.diff(submit[valid]) < 0)
    if backwards.size:
        k, previous = int(valid[backwards[0] + 1]), int(valid[backwards[0]])
        previous_line = _record_line_number(data, previous)
        raise InputError(
            f"submit times must not decrease: got {_number(submit[k])} after "
            f"{_number(submit[previous])} on line {previous_line}",
            file=source, line=_record_line_number(data, k), field=field_label(_SUBMIT))


def _number(value: float) -> str:
    """A field value as the user wrote it (integral values without '.0')."""
    return str(int(value)) if float(value).is_integer() else str(value)


def _widths(table: np.ndarray, width_field: WidthField) -> tuple[np.ndarray, np.ndarray]:
    """Job widths and, per job, the column they came from (SPEC §1.1 width rule)."""
    first, second = (_REQ_PROCS, _ALLOC) if width_field == "requested" else (_ALLOC, _REQ_PROCS)
    use_first = table[:, first] > 0
    width = np.where(use_first, table[:, first], table[:, second]).astype(np.int64)
    source_column = np.where(use_first, first, second)
    return width, source_column


def _skip_masks(table: np.ndarray, width: np.ndarray, missing_estimate: MissingEstimate,
                cancellations: Cancellations) -> dict[str, np.ndarray]:
    """Boolean masks of the records skipped for each reason except 'width > machine'.

    A record counts under the first reason of :data:`SKIP_REASONS` that applies;
    dropped cancellations come before all of them (reason ``cancelled``).  A
    replayed cancellation's runtime is not needed (it runs until cancelled or
    its estimate), so a negative one does not skip it.
    """
    cancelled = table[:, _STATUS] == SWF_CANCELLED
    dropped = cancelled if cancellations == "drop" else np.zeros(len(table), dtype=bool)
    bad_submit = ~dropped & (table[:, _SUBMIT] < 0)
    unknown_runtime = table[:, _RUN] < 0
    if cancellations == "replay":
        unknown_runtime &= ~cancelled | (table[:, _REQ_TIME] <= 0)
    bad_runtime = ~dropped & ~bad_submit & unknown_runtime
    bad_width = ~bad_submit & ~bad_runtime & (width <= 0)
    no_estimate = np.zeros(len(table), dtype=bool)
    if missing_estimate == "drop":
        no_estimate = ~bad_submit & ~bad_runtime & ~bad_width & (table[:, _REQ_TIME] <= 0)
    masks = {"submit < 0": bad_submit, "runtime < 0": bad_runtime, "width <= 0": bad_width,
             "no estimate": no_estimate}
    return {"cancelled": dropped, **masks} if cancellations == "drop" else masks


def _build_workload(table: np.ndarray, data: bytes, source: str, header: _Header, *,
                    width_field: WidthField, missing_estimate: MissingEstimate,
                    strict: bool, processors: int | None,
                    cancellations: Cancellations = "ignore") -> Workload:
    """Apply the width/estimate/skip rules to the parsed records and build the Workload."""
    width, width_column = _widths(table, width_field)
    masks = _skip_masks(table, width, missing_estimate, cancellations)
    simulable = ~(masks["submit < 0"] | masks["runtime < 0"] | masks["width <= 0"]
                  | masks["no estimate"] | masks.get("cancelled", False))
    machine, machine_source = _machine_size(processors, header, width[simulable], source)
    masks["width > machine"] = simulable & (width > machine)
    keep = simulable & ~masks["width > machine"]
    if strict:
        _raise_first_skip(masks, table, width, width_column, machine, data, source)
    skipped = {reason: int(masks[reason].sum()) for reason in
               (("cancelled",) if cancellations == "drop" else ()) + SKIP_REASONS}
    if not keep.any():
        counts = ", ".join(f"{reason}: {n}" for reason, n in skipped.items())
        raise InputError(f"no job can be simulated: all {len(table)} records were skipped "
                         f"({counts})", file=source)
    _check_unique_ids(table[:, _JOB], keep, data, source)
    replayed = (table[keep, _STATUS] == SWF_CANCELLED) if cancellations == "replay" else None
    jobs, columns = _make_jobs(table[keep], width[keep], replayed)
    facts = provenance(machine_source, table[keep, _REQ_TIME])
    fractional = _fractional_times(table[keep])
    if fractional:
        facts[FRACTIONAL_TIMES] = fractional
    return Workload.of_columns(jobs, columns, processors=machine, name=_trace_name(source),
                               header=header.values, skipped=skipped,
                               unix_start_time=_header_int(header, "UnixStartTime", source),
                               provenance=facts)


def _fractional_times(table: np.ndarray) -> int:
    """How many records hold a fractional submit, run or requested time (truncated to whole
    seconds by :func:`_make_jobs`; the command line warns with this count)."""
    times = table[:, _TIME_COLUMNS]
    return int((times != np.trunc(times)).any(axis=1).sum())


def provenance(machine_source: str, requested_time: np.ndarray) -> dict[str, object]:
    """Where the machine size and the estimates of the kept jobs came from.

    ``estimates_from_runtime`` counts the jobs without a requested time
    (field 9 <= 0) whose estimate is their runtime: with all of them the
    trace is simulated with perfect estimates, which the user must be told.
    """
    from_runtime = int((requested_time <= 0).sum())
    if from_runtime == 0:
        estimates = ESTIMATES_REQUESTED
    elif from_runtime == len(requested_time):
        estimates = ESTIMATES_RUNTIME
    else:
        estimates = ESTIMATES_PARTLY_RUNTIME
    return {"machine_size_source": machine_source, "estimates_source": estimates,
            "estimates_from_runtime": from_runtime}


def _check_unique_ids(ids: np.ndarray, keep: np.ndarray, data: bytes, source: str) -> None:
    """Two kept records with the same job number are an error naming both lines."""
    rows = np.flatnonzero(keep)
    order = np.argsort(ids[rows], kind="stable")
    repeated = np.flatnonzero(np.diff(ids[rows][order]) == 0)
    if not repeated.size:
        return
    pairs = [(int(rows[order[i]]), int(rows[order[i + 1]])) for i in repeated]
    first, again = min(pairs, key=lambda pair: pair[1])
    raise InputError(f"job number {_number(ids[again])} appears twice (first on line "
                     f"{_record_line_number(data, first)}); job numbers must be unique",
                     file=source, line=_record_line_number(data, again),
                     field=field_label(_JOB))


def _machine_size(processors: int | None, header: _Header, widths: np.ndarray,
                  source: str) -> tuple[int, str]:
    """Machine size and where it came from: the argument, else MaxProcs, else MaxNodes,
    else the widest job (a guess, which the caller reports)."""
    if processors is not None:
        if isinstance(processors, bool) or not isinstance(processors, (int, np.integer)) \
                or processors <= 0:
            raise InputError(f"The 'processors' parameter of read_swf must be an int > 0. "
                             f"Got {processors!r} instead.", file=source)
        return check_processors(int(processors), field="processors", file=source), \
            MACHINE_FROM_ARGUMENT
    for key in ("MaxProcs", "MaxNodes"):
        value = _header_int(header, key, source, limit=None)
        if value is not None:
            if value <= 0:
                raise InputError(f"expected a machine size > 0, got {value} (give the number "
                                 f"of processors explicitly to override it)", file=source,
                                 line=header.lines[key], field=key)
            if value > MAX_PROCESSORS:
                check_processors(value, field=key, file=source, line=header.lines[key])
            return value, f"header {key}"
    return (int(widths.max()) if widths.size else 0), MACHINE_FROM_WIDEST_JOB


def _header_int(header: _Header, key: str, source: str,
                limit: int | None = MAX_TIME) -> int | None:
    """An integer header value in ASCII digits (:func:`schedlab.textio.parse_int`), None when
    the key is absent."""
    if key not in header.values:
        return None
    return parse_int(header.values[key], field=key, file=source, line=header.lines[key],
                     limit=limit)


def _raise_first_skip(masks: dict[str, np.ndarray], table: np.ndarray, width: np.ndarray,
                      width_column: np.ndarray, machine: int, data: bytes,
                      source: str) -> None:
    """Strict mode: raise an InputError for the first record that would be skipped."""
    firsts = {reason: int(np.argmax(mask)) for reason, mask in masks.items() if mask.any()}
    if not firsts:
        return
    reason = min(firsts, key=firsts.__getitem__)
    k = firsts[reason]
    line = _record_line_number(data, k)
    if reason == "submit < 0":
        column = _SUBMIT
        message = f"expected a submit time >= 0, got {_number(table[k, _SUBMIT])}"
    elif reason == "runtime < 0":
        column, message = _RUN, f"expected a run time >= 0, got {_number(table[k, _RUN])}"
    elif reason == "width <= 0":
        column = _REQ_PROCS
        message = (f"expected a width > 0 in field 8 or field 5, got "
                   f"{_number(table[k, _REQ_PROCS])} and {_number(table[k, _ALLOC])}")
    elif reason == "no estimate":
        column = _REQ_TIME
        message = (f"expected a requested time > 0 (missing estimates are dropped), "
                   f"got {_number(table[k, _REQ_TIME])}")
    else:
        column = int(width_column[k])
        message = f"expected a width <= {machine} (the machine size), got {int(width[k])}"
    raise InputError(f"{message} (strict mode)", file=source, line=line,
                     field=field_label(column))


def _make_jobs(table: np.ndarray, width: np.ndarray, cancelled: np.ndarray | None = None
               ) -> tuple[tuple[Job, ...], dict[str, np.ndarray]]:
    """Job objects (built once, column-wise) ordered by (submit, id), and their int64
    columns of :meth:`Workload.to_arrays` (the workload keeps them: :meth:`Workload.of_columns`).

    Times are truncated to whole seconds; estimate = requested time (>= 1 s)
    when given, else the runtime (>= 1 s).  The records marked ``cancelled``
    are replayed as cancellations (:func:`_cancellation_columns`).
    """
    submit = np.trunc(table[:, _SUBMIT]).astype(np.int64)
    runtime = np.trunc(table[:, _RUN]).astype(np.int64)
    requested = table[:, _REQ_TIME]
    estimate = np.where(requested > 0, np.trunc(requested), runtime)
    estimate = np.maximum(estimate, 1).astype(np.int64)
    ids = table[:, _JOB].astype(np.int64)
    order = np.lexsort((ids, submit))
    replayed = cancelled is not None and bool(cancelled.any())
    cancel_after = None
    if replayed:
        assert cancelled is not None
        runtime, cancel_after = _cancellation_columns(table, runtime, estimate, cancelled)
    columns = {name: column[order] for name, column in zip(
        INT_COLUMNS, (ids, submit, runtime, estimate, width, table[:, _USER].astype(np.int64),
                       table[:, _GROUP].astype(np.int64), table[:, _QUEUE].astype(np.int64)))}
    fields = [column.tolist() for column in columns.values()]
    if cancel_after is not None:
        fields += [[None] * len(ids), [False] * len(ids), cancel_after[order].tolist()]
    return _jobs_of(fields), columns


def _jobs_of(fields: list[list[Any]]) -> tuple[Job, ...]:
    """One Job per row of ``fields``, the first fields of :class:`Job` column by column
    (the others take their defaults), made by ``tuple.__new__`` over ``zip`` in C: a
    named tuple's own ``__new__``, in Python, would cost as much again."""
    count = len(fields[0])
    defaults = (repeat(Job._field_defaults[name], count) for name in Job._fields[len(fields):])
    return tuple(map(tuple.__new__, repeat(Job), zip(*fields, *defaults)))


def _cancellation_columns(table: np.ndarray, runtime: np.ndarray, estimate: np.ndarray,
                          cancelled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runtimes and cancellation delays of the records, with the ``cancelled`` ones replayed.

    Our reading of the SWF fields of a cancelled record (status 5): the user
    cancelled it ``wait + run time`` seconds after its submission (each taken
    as 0 when -1) — while it waited if its run time is 0 or -1, while it ran
    otherwise.  What it would have run is unknown, so in the simulation it
    holds its processors until it is cancelled or reaches its estimate: its
    runtime is its estimate.  Other records keep their runtime and are never
    cancelled.
    """
    wait = np.maximum(np.trunc(table[:, _WAIT]), 0).astype(np.int64)
    delay = wait + np.maximum(runtime, 0)
    runtime = np.where(cancelled, estimate, runtime)
    cancel_after = np.array([int(d) if c else None for d, c in zip(delay.tolist(), cancelled)],
                            dtype=object)
    return runtime, cancel_after


def _trace_name(source: str) -> str:
    """File name without directory, ``.gz`` and ``.swf``."""
    name = Path(source).name
    for suffix in (".gz", ".swf"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


# --------------------------------------------------------------------------- writing


class Schedule(Protocol):
    """What :func:`write_swf` reads of a simulated schedule: the columns of a
    :class:`~schedlab.engine.result.Result` (this layer does not import the engine)."""

    processors: int
    policy: str
    workload: str
    params: dict[str, Any]
    meta: dict[str, Any]
    job_id: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    width: np.ndarray
    estimate: np.ndarray
    status: np.ndarray

    def __len__(self) -> int: ...


def write_swf(schedule: Schedule | Workload, path: str | os.PathLike, *,
              unix_start_time: int | None = None) -> None:
    """Write a workload or a simulated schedule as a valid SWF file, atomically.

    A :class:`Workload` is written as a trace that has not run (wait time and
    status -1, allocated = requested processors = width).  A :class:`Result`
    is written with the simulated wait (start - submit) and run time
    (end - start); status 1 finished, 0 killed at its estimate, 5 rejected
    (wait, run time and allocated processors -1).  Records are ordered by
    (submit, job id).  The header carries ``MaxProcs``, ``UnixStartTime``
    (``unix_start_time`` or the workload's, when known) and a ``Note`` naming
    schedlab and the policy.  A path ending in ``.gz`` is gzip-compressed.
    The file is written to a temporary file in the same directory and moved
    into place with ``os.replace``, so readers never see a partial file.
    """
    if isinstance(schedule, Workload):
        rows = _workload_rows(schedule)
        start_time = schedule.unix_start_time if unix_start_time is None else unix_start_time
        notes = [f"Workload '{schedule.name}' written by schedlab {__version__}; it has not "
                 "run: wait time and status are -1, allocated processors = width."]
    elif _is_schedule(schedule):
        rows = _result_rows(schedule)
        start_time = schedule.meta.get("unix_start_time") if unix_start_time is None \
            else unix_start_time
        notes = [f"Schedule of workload '{schedule.workload}' simulated by schedlab "
                 f"{__version__} with policy '{schedule.policy}'{_params_text(schedule.params)}.",
                 "Status 1 = finished, 0 = killed at its estimate, 5 = rejected (never "
                 "started: wait time, run time and allocated processors are -1)."]
    else:
        raise TypeError(f"write_swf needs a Workload or a Result, got {type(schedule).__name__}")
    header = _header_text(len(rows), schedule.processors, start_time, notes)
    payload = (header + "".join(_format_rows(rows))).encode("ascii")
    if str(path).lower().endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    atomic_write_bytes(path, payload)


def _is_schedule(value: object) -> bool:
    """Whether ``value`` has the columns of a simulated schedule (a ``Result``)."""
    return all(hasattr(value, name) for name in Schedule.__annotations__)


def _params_text(params: dict) -> str:
    """Policy parameters as ' (k=v, ...)' for the header note, '' when there are none."""
    if not params:
        return ""
    return " (" + ", ".join(f"{k}={params[k]}" for k in sorted(params)) + ")"


def _header_text(n_jobs: int, processors: int, unix_start_time: int | None,
                 notes: list[str]) -> str:
    """SWF header comment block."""
    lines = ["Version: 2.2", f"MaxJobs: {n_jobs}", f"MaxRecords: {n_jobs}"]
    if unix_start_time is not None:
        lines.append(f"UnixStartTime: {int(unix_start_time)}")
    lines.append(f"MaxProcs: {int(processors)}")
    lines += [f"Note: {note}" for note in notes]
    return "".join(f"; {line}\n" for line in lines) + ";\n"


def _workload_rows(workload: Workload) -> np.ndarray:
    """(n, 18) int64 SWF records of a workload that has not run."""
    rows = np.full((len(workload), N_FIELDS), -1, dtype=np.int64)
    if len(workload):
        values = np.array([(j.id, j.submit, j.runtime, j.width, j.width, j.estimate,
                            j.user, j.group, j.queue) for j in workload.jobs], dtype=np.int64)
        columns = (_JOB, _SUBMIT, _RUN, _ALLOC, _REQ_PROCS, _REQ_TIME, _USER, _GROUP, _QUEUE)
        rows[:, columns] = values
    return rows


def _result_rows(result: Schedule) -> np.ndarray:
    """(n, 18) int64 SWF records of a simulated schedule, ordered by (submit, job id)."""
    order = np.lexsort((result.job_id, result.submit))
    status = np.asarray(result.status)[order]
    ran = ~np.isin(status, NEVER_RAN)
    start, end = result.start[order], result.end[order]
    width = result.width[order]
    rows = np.full((len(result), N_FIELDS), -1, dtype=np.int64)
    rows[:, _JOB] = result.job_id[order]
    rows[:, _SUBMIT] = result.submit[order]
    rows[:, _WAIT] = np.where(ran, start - result.submit[order], -1)
    rows[:, _RUN] = np.where(ran, end - start, -1)
    rows[:, _ALLOC] = np.where(ran, width, -1)
    rows[:, _REQ_PROCS] = width
    rows[:, _REQ_TIME] = result.estimate[order]
    codes = np.array([SWF_STATUS[code] for code in range(len(SWF_STATUS))], dtype=np.int64)
    rows[:, _STATUS] = codes[status]
    return rows


def _format_rows(rows: np.ndarray) -> list[str]:
    """One text line per record, fields separated by single spaces."""
    template = " ".join(["%d"] * N_FIELDS) + "\n"
    return [template % row for row in map(tuple, rows.tolist())]
