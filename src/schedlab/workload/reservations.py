"""Advance-reservation requests: the record, the CSV file, a generator and a time transform.

Margo et al. ("Impact of Reservations on Production Job Scheduling", §3,
§5) replay a production job log together with user reservation requests,
each with a creation date, a start date, an end date and an owner.  A
request asks for ``width`` nodes (processors here) from ``start`` for
``duration`` seconds; it reaches the scheduler at ``created``, which grants
or rejects it (docs/reference/reservations.md).

Times are integer seconds since the start of the trace, like job submit
times.  A request file may also give absolute Unix times, converted with the
trace's ``UnixStartTime``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.limits import JOBS_BOUND, MAX_JOBS
from schedlab.textio import csv_rows, parse_int, read_text

HOUR = 3600
WEEK = 7 * 24 * HOUR

#: Margo et al., §5: "We injected 15 reservations during each week of
#: simulation time ... with job sizes from eight to 128 with a duration of
#: four to 18 hours."
PAPER_PER_WEEK = 15
PAPER_NODES = (8, 128)
PAPER_DURATION = (4 * HOUR, 18 * HOUR)
#: Advance notice of generated requests (the paper gives none; see docs/reference/reservations.md).
DEFAULT_NOTICE = (24 * HOUR, 7 * 24 * HOUR)

#: Columns of a request file; ``created``/``start`` are relative to the trace
#: start, ``created_unix``/``start_unix`` absolute Unix times.
RELATIVE_TIMES = ("created", "start")
UNIX_TIMES = ("created_unix", "start_unix")
REQUIRED_COLUMNS = ("id", "duration", "nodes")
OPTIONAL_COLUMNS = ("owner",)


@dataclass(frozen=True, slots=True)
class Reservation:
    """One reservation request (Margo et al., §3: creation date, start, end, owner).

    ``width`` processors are asked for on ``[start, start + duration)``; the
    request reaches the scheduler at ``created`` (<= ``start``).
    """

    id: int
    created: int
    start: int
    duration: int
    width: int
    owner: str = ""

    @property
    def end(self) -> int:
        """The end of the requested interval (exclusive)."""
        return self.start + self.duration

    @property
    def notice(self) -> int:
        """Advance notice: seconds between the request and the start it asks for."""
        return self.start - self.created

    @property
    def area(self) -> int:
        """Node-seconds asked for (width x duration)."""
        return self.width * self.duration


# ---------------------------------------------------------------------- reading
def read_reservations(path: str | os.PathLike, *, processors: int | None = None,
                      unix_start_time: int | None = None) -> tuple[Reservation, ...]:
    """Read a reservation-request CSV file; requests sorted by (created, id).

    The header names the columns: ``id``, ``duration`` (seconds), ``nodes``,
    either ``created`` and ``start`` (seconds since the trace start) or
    ``created_unix`` and ``start_unix`` (Unix times, converted with
    ``unix_start_time``, the trace's ``UnixStartTime``), and optionally
    ``owner``.  Lines starting with ``#`` are comments.  Every mistake — a
    missing column, a value that is not an integer, a duration <= 0, more
    nodes than ``processors``, a start before the creation, a creation
    before the trace start, a repeated id — raises :class:`InputError`
    naming the file, the line and the field.
    """
    source = str(path)
    text = read_text(path, "reservation file")
    rows = list(csv_rows(text))
    if not rows:
        raise InputError("expected a header line naming the columns", file=source)
    header_line, header = rows[0]
    columns, unix = _columns(header, source, header_line)
    offset = 0
    if unix:
        if unix_start_time is None:
            raise InputError("the file gives Unix times but the trace has no UnixStartTime "
                             "header to convert them with", file=source, line=header_line,
                             field=UNIX_TIMES[0])
        offset = unix_start_time
    requests = [_request(row, len(header), columns, unix, offset, processors, source, line)
                for line, row in rows[1:]]
    _check_unique_ids(requests, [line for line, _ in rows[1:]], source)
    return tuple(sorted(requests, key=lambda r: (r.created, r.id)))


def _columns(header: list[str], source: str, line: int) -> tuple[dict[str, int], bool]:
    """Position of every column; whether the times are Unix times."""
    names = [name.lower() for name in header]
    unix = UNIX_TIMES[0] in names or UNIX_TIMES[1] in names
    times = UNIX_TIMES if unix else RELATIVE_TIMES
    for name in (*REQUIRED_COLUMNS, *times):
        if name not in names:
            raise InputError(f"missing column {name!r} (columns: id, created, start, duration, "
                             f"nodes, owner; or created_unix, start_unix for Unix times)",
                             file=source, line=line, field=name)
    if unix and any(name in names for name in RELATIVE_TIMES):
        raise InputError("give times either relative (created, start) or as Unix times "
                         "(created_unix, start_unix), not both", file=source, line=line,
                         field="created")
    return {name: names.index(name) for name in (*REQUIRED_COLUMNS, *times, *OPTIONAL_COLUMNS)
            if name in names}, unix


def _request(row: list[str], fields: int, columns: dict[str, int], unix: bool, offset: int,
             processors: int | None, source: str, line: int) -> Reservation:
    """One validated request from one CSV row: as many fields as the header names, integers
    in ASCII digits of magnitude at most 2**53 (:func:`schedlab.textio.parse_int`)."""
    if len(row) != fields:
        raise InputError(f"expected {fields} fields, got {len(row)} (the header names {fields} "
                         f"columns)", file=source, line=line)
    created_col, start_col = UNIX_TIMES if unix else RELATIVE_TIMES

    def integer(name: str) -> int:
        return parse_int(row[columns[name]], field=name, file=source, line=line)

    request_id = integer("id")
    created = integer(created_col) - offset
    start = integer(start_col) - offset
    duration = integer("duration")
    width = integer("nodes")
    owner = row[columns["owner"]] if "owner" in columns else ""
    if created < 0:
        raise InputError(f"the request is created {-created} s before the trace starts",
                         file=source, line=line, field=created_col)
    if start < created:
        raise InputError(f"the reservation starts ({start}) before the request is created "
                         f"({created})", file=source, line=line, field=start_col)
    if duration <= 0:
        raise InputError(f"expected a duration > 0 seconds, got {duration}", file=source,
                         line=line, field="duration")
    if width <= 0:
        raise InputError(f"expected at least 1 node, got {width}", file=source, line=line,
                         field="nodes")
    if processors is not None and width > processors:
        raise InputError(f"{width} nodes asked for on a {processors}-processor machine",
                         file=source, line=line, field="nodes")
    return Reservation(request_id, created, start, duration, width, owner)


def _check_unique_ids(requests: Sequence[Reservation], lines: Sequence[int], source: str) -> None:
    seen: dict[int, int] = {}
    for request, line in zip(requests, lines):
        if request.id in seen:
            raise InputError(f"request id {request.id} already used on line {seen[request.id]}",
                             file=source, line=line, field="id")
        seen[request.id] = line


# ---------------------------------------------------------------------- writing
def requests_csv_text(requests: Iterable[Reservation]) -> str:
    """Requests as CSV with relative times (the format :func:`read_reservations` reads)."""
    lines = ["id,created,start,duration,nodes,owner"]
    lines += [f"{r.id},{r.created},{r.start},{r.duration},{r.width},{csv_cell(r.owner)}"
              for r in requests]
    return "\n".join(lines) + "\n"


def write_reservations(requests: Iterable[Reservation], path: str | os.PathLike) -> None:
    """Write requests as a CSV file, atomically."""
    from schedlab.atomic import atomic_write_text

    atomic_write_text(path, requests_csv_text(requests))


def csv_cell(text: str) -> str:
    """A CSV cell, quoted when it holds a comma, a quote or a line break."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


# ------------------------------------------------------------------- generating
def generate_requests(span: tuple[int, int], *, per_week: float = PAPER_PER_WEEK,
                      nodes: tuple[int, int] = PAPER_NODES,
                      duration: tuple[int, int] = PAPER_DURATION,
                      notice: tuple[int, int] = DEFAULT_NOTICE, processors: int | None = None,
                      seed: int | np.random.Generator = 0) -> tuple[Reservation, ...]:
    """Synthetic requests spread uniformly over ``span`` (Margo et al., §3 and §5).

    The defaults are the paper's: 15 requests per week of simulated time,
    8 to 128 nodes, 4 to 18 hours (§5), "distributed uniformly across
    simulation time" (§3).  There are ``round(per_week x weeks in span)``
    requests (halves up).  Each start is an integer drawn uniformly from
    ``[span[0], span[1])``; width, duration (seconds) and advance notice
    (seconds) are integers drawn uniformly from their closed ranges; the
    widths are capped at ``processors`` when a machine size is given.  A
    request is created ``notice`` seconds before its start, but not before
    ``span[0]`` (the trace start, when the span begins there).  Requests are
    numbered 1, 2, … in order of creation (then start).
    """
    t0, t1 = _ints_range("span", span, low=0)
    if t1 <= t0:
        raise InputError(f"The 'span' parameter of generate_requests must have end > start. "
                         f"Got {span!r} instead.", field="span")
    if not (isinstance(per_week, (int, float)) and math.isfinite(per_week) and per_week >= 0):
        raise InputError(f"The 'per_week' parameter of generate_requests must be a finite "
                         f"number >= 0. Got {per_week!r} instead.", field="per_week")
    lo_nodes, hi_nodes = _ints_range("nodes", nodes, low=1)
    if processors is not None:
        hi_nodes = min(hi_nodes, processors)
        lo_nodes = min(lo_nodes, hi_nodes)
    lo_dur, hi_dur = _ints_range("duration", duration, low=1)
    lo_notice, hi_notice = _ints_range("notice", notice, low=0)
    count = math.floor(per_week * (t1 - t0) / WEEK + 0.5)
    if count > MAX_JOBS:
        raise InputError(f"{per_week:g} requests per week over {t1 - t0} s make {count} "
                         f"requests; expected at most {JOBS_BOUND}", field="per_week")
    rng = np.random.default_rng(seed)
    starts = rng.integers(t0, t1, size=count)
    widths = rng.integers(lo_nodes, hi_nodes + 1, size=count)
    durations = rng.integers(lo_dur, hi_dur + 1, size=count)
    notices = rng.integers(lo_notice, hi_notice + 1, size=count)
    created = np.maximum(starts - notices, t0)
    order = np.lexsort((starts, created))
    return tuple(Reservation(k + 1, int(created[i]), int(starts[i]), int(durations[i]),
                             int(widths[i])) for k, i in enumerate(order))


def _ints_range(name: str, value: tuple[int, int], *, low: int) -> tuple[int, int]:
    """A (low, high) pair of integers with ``low <= lo <= hi``."""
    valid = (isinstance(value, (tuple, list)) and len(value) == 2
             and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
             and low <= value[0] <= value[1])
    if not valid:
        raise InputError(f"The {name!r} parameter must be a pair of integers (lo, hi) with "
                         f"{low} <= lo <= hi. Got {value!r} instead.", field=name)
    return int(value[0]), int(value[1])


# ------------------------------------------------------------------ transforming
NOTICE_MODES = ("keep", "scale")


def compress_requests(requests: Iterable[Reservation], source: tuple[int, int],
                      target: tuple[int, int], *, notice: str = "keep") -> tuple[Reservation, ...]:
    """Map the requests of ``source`` onto the shorter (or longer) ``target`` span.

    Margo et al. (§5) replay "one year worth of reservations ... over a month
    period of time", which "should overstate the impact of real
    reservations".  Each start moves linearly:
    ``start' = target[0] + floor((start - source[0]) x len(target) / len(source))``
    (exact integer arithmetic); durations and widths are kept, so the
    reserved node-seconds per week grow by ``len(source) / len(target)``.
    With ``notice="keep"`` (default) a request keeps its advance notice
    (``created' = start' - notice``); with ``"scale"`` the creation time is
    mapped like the start.  Either way a creation time before ``target[0]``
    becomes ``target[0]``.  Every start must lie in ``[source[0], source[1])``.
    """
    s0, s1 = _ints_range("source", source, low=-(2 ** 62))
    u0, u1 = _ints_range("target", target, low=0)
    if s1 <= s0 or u1 <= u0:
        raise InputError("source and target spans need end > start", field="source")
    if notice not in NOTICE_MODES:
        raise InputError(f"The 'notice' parameter of compress_requests must be one of "
                         f"{', '.join(map(repr, NOTICE_MODES))}. Got {notice!r} instead.",
                         field="notice")

    def moved(t: int) -> int:
        return u0 + (t - s0) * (u1 - u0) // (s1 - s0)

    out = []
    for r in requests:
        if not s0 <= r.start < s1:
            raise InputError(f"request {r.id} starts at {r.start}, outside the source span "
                             f"[{s0}, {s1})", field="start")
        start = moved(r.start)
        created = start - r.notice if notice == "keep" else moved(r.created)
        out.append(Reservation(r.id, max(created, u0), start, r.duration, r.width, r.owner))
    return tuple(sorted(out, key=lambda r: (r.created, r.id)))
