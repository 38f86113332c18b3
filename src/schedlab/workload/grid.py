"""Grid workloads: jobs with licences, benchmark ratings and user classes, and their file.

Pasquali's thesis (ch. 3, ch. 4 intro) describes a job by its CPUs (on one
machine), deadline, estimate, the benchmark rating of the machine its
estimate was measured on, the licences it needs, its user's class (Gold,
Silver, Regular) and an owner priority 0..3 (§3.1.1), and the size of its
input data (§3.2.2, Table 4).  The first ones are :class:`Job` fields
already (``width`` is the CPUs on one machine; ``deadline``); the others
live in :class:`GridWorkload` as numpy columns beside the workload, row
``i`` for ``workload.jobs[i]``, so that the hot :class:`Job` tuple keeps
its fields and grid policies read whole columns (docs/architecture.md).

A grid workload is stored as an SWF file plus a CSV side file keyed by job
id (SWF has no room for licence sets), ``jobs.swf`` + ``jobs.grid.csv``::

    job_id,rating,deadline,licences,class,owner_priority,input
    1,340,2710,lic-03;lic-11,gold,2,0
    2,120,,,regular,0,0

``deadline`` is absolute (seconds since the trace start), empty for a job
without one; ``licences`` are names separated by ``;``, empty for none;
``class`` is ``regular``, ``silver`` or ``gold``.  Every job of the SWF
file has exactly one row.  Mistakes raise :class:`InputError` naming the
file, line and field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from schedlab.errors import InputError
from schedlab.limits import MAX_TIME
from schedlab.platform.model import MAX_RATING
from schedlab.workload.deadlines import _integer
from schedlab.workload.job import Job, Workload

if TYPE_CHECKING:
    from schedlab.platform.model import Platform

#: User classes of the thesis' User heuristic (§3.1.1), by increasing priority; code = index.
USER_CLASSES = ("regular", "silver", "gold")
#: Owner priorities a user may give a job (§3.1.1: "in the range [0,3]").
OWNER_PRIORITIES = (0, 1, 2, 3)
#: Columns of the side file, in order.
SIDE_COLUMNS = ("job_id", "rating", "deadline", "licences", "class", "owner_priority", "input")
#: Separator of licence names inside the ``licences`` column.
LICENCE_SEPARATOR = ";"
SIDE_SUFFIX = ".grid.csv"
#: Largest ``seconds x rating`` of a job: its time on any machine (eq. 3.9) is exact in int64.
MAX_SCALED_TIME = 2**62


class GridJob(NamedTuple):
    """One job of a grid workload with all its attributes (a convenience view, not the hot path)."""

    job: Job
    licences: tuple[str, ...]
    rating: int
    user_class: str
    owner_priority: int
    input_size: int


@dataclass(frozen=True)
class GridWorkload:
    """A workload plus the grid attributes of its jobs, as read-only columns in workload order.

    * ``licence_names``: the licences the columns of ``needs`` stand for;
    * ``needs[i, l]``: job ``i`` needs licence ``licence_names[l]`` (one copy);
    * ``rating[i]``: benchmark rating of the machine job ``i``'s estimate and
      runtime were measured on (thesis eq. 3.9, ``BM_m-bar``);
    * ``user_class[i]``: index in :data:`USER_CLASSES`;
    * ``owner_priority[i]``: 0..3;
    * ``input_size[i]``: input data size (Table 4 "Input"; 0 when unused).
    """

    workload: Workload
    licence_names: tuple[str, ...]
    needs: np.ndarray
    rating: np.ndarray
    user_class: np.ndarray
    owner_priority: np.ndarray
    input_size: np.ndarray

    def __post_init__(self) -> None:
        n, width = len(self.workload), len(self.licence_names)
        columns = {"needs": (self.needs, bool, (n, width)),
                   "rating": (self.rating, np.int64, (n,)),
                   "user_class": (self.user_class, np.int8, (n,)),
                   "owner_priority": (self.owner_priority, np.int8, (n,)),
                   "input_size": (self.input_size, np.int64, (n,))}
        for name, (values, dtype, shape) in columns.items():
            array = np.array(values, dtype=dtype)
            if array.shape != shape:
                raise ValueError(f"GridWorkload.{name} has shape {array.shape}, expected {shape}")
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        if n and (self.rating.min() < 1 or self.input_size.min() < 0
                  or not np.isin(self.user_class, range(len(USER_CLASSES))).all()
                  or not np.isin(self.owner_priority, OWNER_PRIORITIES).all()):
            raise ValueError("GridWorkload: a rating < 1, a negative input size, or a user "
                             "class or owner priority out of range")

    def __len__(self) -> int:
        return len(self.workload)

    @property
    def name(self) -> str:
        return self.workload.name

    def licences_of(self, i: int) -> tuple[str, ...]:
        """Names of the licences job ``i`` (workload order) needs."""
        return tuple(self.licence_names[l] for l in np.flatnonzero(self.needs[i]))

    def job(self, i: int) -> GridJob:
        """Every attribute of job ``i`` (workload order)."""
        return GridJob(self.workload.jobs[i], self.licences_of(i), int(self.rating[i]),
                       USER_CLASSES[self.user_class[i]], int(self.owner_priority[i]),
                       int(self.input_size[i]))

    def licence_columns(self, platform: Platform) -> np.ndarray:
        """Platform licence index of each column of ``needs``; InputError for one it lacks."""
        return np.array(platform.licence_index(self.licence_names), dtype=np.int64)

    def check_on(self, platform: Platform, *, swf_file: str | None = None,
                 side_file: str | None = None, side_lines: Mapping[int, int] | None = None
                 ) -> None:
        """InputError unless every job can run on some machine of ``platform``.

        Names the first job asking for more CPUs than the largest machine
        (in ``swf_file``), needing a licence no cluster has, or whose licence
        set no machine with enough CPUs can activate all at once (in
        ``side_file``, at the job's line of ``side_lines``: job id -> line).
        """
        lines = side_lines or {}
        widths = np.fromiter((j.width for j in self.workload.jobs), np.int64, len(self))
        too_wide = np.flatnonzero(widths > platform.max_cpus)
        if too_wide.size:
            job = self.workload.jobs[int(too_wide[0])]
            raise InputError(f"job {job.id} asks for {job.width} CPUs, more than any machine "
                             f"of platform {platform.name!r} has ({platform.max_cpus})",
                             file=swf_file, field="requested processors")
        unknown = np.array([name not in platform.licence_names for name in self.licence_names],
                           dtype=bool)
        lacking = np.flatnonzero(self.needs[:, unknown].any(axis=1))
        if lacking.size:
            i = int(lacking[0])
            job = self.workload.jobs[i]
            name = next(n for n in self.licences_of(i) if n not in platform.licence_names)
            known = ", ".join(platform.licence_names) or "none"
            raise InputError(f"job {job.id} needs licence {name!r}, which no cluster of "
                             f"platform {platform.name!r} has (known: {known})",
                             file=side_file, line=lines.get(job.id), field="licences")
        stranded = np.flatnonzero(~runnable(self, platform))
        if stranded.size:
            i = int(stranded[0])
            job = self.workload.jobs[i]
            raise InputError(f"no machine of platform {platform.name!r} has {job.width} CPUs "
                             f"and can activate all of job {job.id}'s licences "
                             f"({', '.join(self.licences_of(i))})", file=side_file,
                             line=lines.get(job.id), field="licences")


def runnable(grid: GridWorkload, platform: Platform) -> np.ndarray:
    """Boolean per job: some machine has its CPUs and can activate all its licences.

    Licences the platform lacks make a job not runnable.
    """
    known = [name in platform.licence_names for name in grid.licence_names]
    needs = grid.needs[:, known]
    rows = platform.licence_index([n for n, k in zip(grid.licence_names, known) if k])
    widths = np.fromiter((j.width for j in grid.workload.jobs), np.int64, len(grid))
    fits = activates_all(needs, platform.usable[rows]) & \
        (platform.cpus[None, :] >= widths[:, None])
    missing = grid.needs[:, [not k for k in known]].any(axis=1)
    runs: np.ndarray = np.logical_and(fits.any(axis=1), ~missing)
    return runs


def activates_all(needs: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """``[i, k]``: machine ``k`` can activate every licence job ``i`` needs -- ``needs``
    (jobs x licences) is within ``usable`` (licences x machines) -- as
    :meth:`Platform.eligible` decides job by job, for every job and machine at once.

    Each job's needs and each machine's unusable licences are packed into 64-bit words,
    tested with a bitwise and: no floating-point product (BLAS would take several threads
    for it, and their start-up, at every run)."""
    words = -(-needs.shape[1] // 64)

    def packed(bits: np.ndarray) -> np.ndarray:
        padded = np.zeros((bits.shape[0], 64 * words), dtype=bool)
        padded[:, :bits.shape[1]] = bits
        return np.packbits(padded, axis=1).view(np.uint64)

    wanted, unusable = packed(needs), packed(~usable.T)
    clear = np.ones((len(wanted), len(unusable)), dtype=bool)
    for w in range(words):
        clear &= (wanted[:, w, None] & unusable[None, :, w]) == 0
    return clear


# ------------------------------------------------------------------ files
def side_path(swf_path: str | Path) -> Path:
    """``jobs.swf`` (or ``jobs.swf.gz``) -> ``jobs.grid.csv`` beside it.

    A directory, or a name that is only a suffix, has no stem to name the
    side file after: an :class:`InputError` naming the path.
    """
    path = Path(swf_path)
    stem = path.name
    for suffix in (".gz", ".swf"):
        stem = stem.removesuffix(suffix)
    if path.is_dir() or not stem:
        raise InputError("expected an SWF file name such as jobs.swf (the side file "
                         "jobs.grid.csv goes beside it)", file=str(swf_path))
    return path.with_name(stem + SIDE_SUFFIX)


def write_grid_workload(grid: GridWorkload, swf_path: str | Path,
                        side: str | Path | None = None) -> Path:
    """Write the SWF file and its side file (default :func:`side_path`); returns the side path.

    :func:`read_grid_workload` reads them back to the same workload.
    """
    from schedlab.atomic import atomic_write_text
    from schedlab.workload.swf import write_swf

    side = side_path(swf_path) if side is None else Path(side)
    write_swf(grid.workload, swf_path)
    lines = [",".join(SIDE_COLUMNS)]
    for i, job in enumerate(grid.workload.jobs):
        deadline = "" if job.deadline is None else str(job.deadline)
        lines.append(f"{job.id},{grid.rating[i]},{deadline},"
                     f"{LICENCE_SEPARATOR.join(grid.licences_of(i))},"
                     f"{USER_CLASSES[grid.user_class[i]]},{grid.owner_priority[i]},"
                     f"{grid.input_size[i]}")
    atomic_write_text(side, "\n".join(lines) + "\n")
    return side


def read_grid_workload(swf_path: str | Path, side: str | Path | None = None, *,
                       platform: Platform | None = None, **swf_options) -> GridWorkload:
    """The grid workload of an SWF file and its side file (default :func:`side_path`).

    ``swf_options`` go to :func:`~schedlab.workload.swf.read_swf`.  With a
    ``platform`` every job is checked to run on it (:meth:`GridWorkload.check_on`).
    """
    from schedlab.workload.swf import read_swf

    side = side_path(swf_path) if side is None else Path(side)
    workload = read_swf(swf_path, **swf_options)
    try:
        text = side.read_text(encoding="utf-8-sig")  # a spreadsheet's byte-order mark is fine
    except FileNotFoundError:
        raise InputError(f"no side file for {Path(swf_path).name}: expected the grid "
                         f"attributes of its jobs in {side.name} (docs/reference/platform.md)",
                         file=str(side)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the side file: {err}", file=str(side)) from None
    grid, lines = _parse_side(text, str(side), workload)
    if platform is not None:
        grid.check_on(platform, swf_file=str(swf_path), side_file=str(side), side_lines=lines)
    return grid


#: What one side-file row gives: rating, class, owner priority, input size, deadline (None:
#: none) and licence names of each job by workload position, and each position's line.
_SideColumns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list["int | None"],
                     list[tuple[str, ...]], dict[int, int]]
#: Decimal integers of at most 17 digits, one a line (longer ones are read row by row).
_INTEGER_LINES = re.compile(r"(?:[+-]?[0-9]{1,17}\n)*[+-]?[0-9]{1,17}")
#: Characters ``str.strip`` would remove from a value of an ASCII line (the others of
#: ``string.whitespace`` end a line).
_SPACES = re.compile(r"[ \t\x1f]")
_CLASS_CODE = {name: code for code, name in enumerate(USER_CLASSES)}
_DEADLINE_FIELD = Job._fields.index("deadline")


def _parse_side(text: str, file: str,
                workload: Workload) -> tuple[GridWorkload, dict[int, int]]:
    """The grid columns of a side file's text for ``workload``, and each job id's line.

    A file as :func:`write_grid_workload` writes it (ASCII, no spaces, every job once,
    every value in range) is read column by column (:func:`_side_at_once`); any other is
    read row by row (:func:`_side_by_row`), which names the first mistake."""
    numbered = [(k + 1, line.strip()) for k, line in enumerate(text.splitlines())]
    content = [(n, line) for n, line in numbered if line and not line.startswith("#")]
    header = ",".join(SIDE_COLUMNS)
    if not content or ",".join(p.strip() for p in content[0][1].split(",")) != header:
        got = content[0][1] if content else "an empty file"
        raise InputError(f"expected the header {header!r}, got {got!r}", file=file,
                         line=content[0][0] if content else None, field="header")
    rows = content[1:]
    columns = _side_at_once(rows, workload) or _side_by_row(rows, file, workload)
    rating, klass, owner, size, deadline, licences, line_of = columns
    n = len(workload)
    licence_names = sorted({name for row in licences for name in row})
    column = {name: l for l, name in enumerate(licence_names)}
    needs = np.zeros((n, len(licence_names)), bool)
    needs[[i for i, row in enumerate(licences) for _ in row],
          [column[name] for row in licences for name in row]] = True
    jobs = [job if deadline[i] is None else
            Job._make((*job[:_DEADLINE_FIELD], deadline[i], *job[_DEADLINE_FIELD + 1:]))
            for i, job in enumerate(workload.jobs)]
    grid = GridWorkload(workload.with_jobs(jobs), tuple(licence_names), needs, rating, klass, owner,
                        size)
    return grid, {workload.jobs[i].id: line for i, line in line_of.items()}


def _side_at_once(rows: list[tuple[int, str]], workload: Workload) -> _SideColumns | None:
    """The side file's rows (line number, text) read a column at a time; None if any row
    is not as :func:`write_grid_workload` writes it -- a value with spaces around it,
    non-ASCII text, a mistake -- for :func:`_side_by_row` to read (the same values, or
    the error).  Accepts nothing :func:`_side_by_row` refuses."""
    body = "\n".join(line for _, line in rows)
    if not body.isascii() or _SPACES.search(body):
        return None
    fields = [line.split(",") for _, line in rows]
    if any(len(values) != len(SIDE_COLUMNS) for values in fields):
        return None
    ids, ratings, deadlines, names, classes, owners, inputs = zip(*fields) if fields else \
        ((),) * len(SIDE_COLUMNS)
    given = [d for d in deadlines if d]
    if not all(_INTEGER_LINES.fullmatch("\n".join(column))
               for column in (ids, ratings, owners, inputs, given) if column):
        return None
    job_ids, rating, owner, size = (list(map(int, c)) for c in (ids, ratings, owners, inputs))
    row_of = {job.id: i for i, job in enumerate(workload.jobs)}
    found = [row_of.get(job_id) for job_id in job_ids]
    n = len(workload)
    if len(found) != n or None in found or len(set(found)) != n:
        return None
    at = cast("list[int]", found)
    if (n and (min(job_ids) < -MAX_TIME or max(job_ids) > MAX_TIME
               or min(rating) < 1 or max(rating) > MAX_RATING
               or min(owner) < 0 or max(owner) > OWNER_PRIORITIES[-1]
               or min(size) < 0 or max(size) > MAX_TIME)):
        return None
    jobs = workload.jobs
    if any(max(jobs[i].runtime, jobs[i].estimate) * r > MAX_SCALED_TIME
           for i, r in zip(at, rating)):
        return None
    deadline: list[int | None] = [None] * n
    for i, d in zip(at, deadlines):
        if d:
            due = int(d)
            if abs(due) > MAX_TIME or due < jobs[i].submit:
                return None
            deadline[i] = due
    licences: list[tuple[str, ...]] = [()] * n
    for i, text in zip(at, names):
        if text:
            row = tuple(text.split(LICENCE_SEPARATOR))
            if "" in row or len(set(row)) != len(row):
                return None
            licences[i] = row
    known = [_CLASS_CODE.get(name) for name in classes]
    if None in known:
        return None
    codes = cast("list[int]", known)
    order = np.array(at, dtype=np.intp)

    def by_position(values: list[int], dtype: type) -> np.ndarray:
        column: np.ndarray = np.zeros(n, dtype)
        column[order] = values
        return column

    line_of = {i: line_no for i, (line_no, _) in zip(at, rows)}
    return (by_position(rating, np.int64), by_position(codes, np.int8),
            by_position(owner, np.int8), by_position(size, np.int64), deadline, licences,
            line_of)


def _side_by_row(rows: list[tuple[int, str]], file: str, workload: Workload) -> _SideColumns:
    """The side file's rows (line number, text) read one at a time; an InputError naming
    the file, line and field of the first mistake."""
    header = ",".join(SIDE_COLUMNS)
    row_of = {job.id: i for i, job in enumerate(workload.jobs)}
    n = len(workload)
    rating = np.zeros(n, np.int64)
    klass = np.zeros(n, np.int8)
    owner = np.zeros(n, np.int8)
    size = np.zeros(n, np.int64)
    deadline: list[int | None] = [None] * n
    licences: list[tuple[str, ...]] = [()] * n
    line_of: dict[int, int] = {}
    for line_no, line in rows:
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(SIDE_COLUMNS):
            raise InputError(f"expected {len(SIDE_COLUMNS)} fields ({header}), got "
                             f"{len(values)}", file=file, line=line_no)
        job_id = _integer(values[0], file, line_no, "job_id")
        i = row_of.get(job_id)
        if i is None:
            raise InputError(f"no job {job_id} in the SWF file", file=file, line=line_no,
                             field="job_id")
        if i in line_of:
            raise InputError(f"job {job_id} is listed twice (first on line {line_of[i]})",
                             file=file, line=line_no, field="job_id")
        line_of[i] = line_no
        rating[i] = _bounded(values[1], file, line_no, "rating", low=1, high=MAX_RATING)
        longest = max(workload.jobs[i].runtime, workload.jobs[i].estimate)
        if longest * int(rating[i]) > MAX_SCALED_TIME:
            raise InputError(f"job {job_id} lasts {longest} s at rating {rating[i]}: "
                             f"seconds x rating is {longest * int(rating[i])}, expected at "
                             f"most 2**62 (eq. 3.9 scales times by the rating in 64-bit "
                             f"integers)", file=file, line=line_no, field="rating")
        if values[2]:
            due = _integer(values[2], file, line_no, "deadline")
            if due < workload.jobs[i].submit:
                raise InputError(f"deadline {due} is before the submit time "
                                 f"{workload.jobs[i].submit} of job {job_id}", file=file,
                                 line=line_no, field="deadline")
            deadline[i] = due
        names = tuple(p.strip() for p in values[3].split(LICENCE_SEPARATOR)) if values[3] else ()
        if any(not name for name in names) or len(set(names)) != len(names):
            raise InputError(f"expected distinct licence names separated by "
                             f"{LICENCE_SEPARATOR!r}, got {values[3]!r}", file=file,
                             line=line_no, field="licences")
        licences[i] = names
        if values[4] not in USER_CLASSES:
            raise InputError(f"expected one of {', '.join(USER_CLASSES)}, got {values[4]!r}",
                             file=file, line=line_no, field="class")
        klass[i] = USER_CLASSES.index(values[4])
        owner[i] = _bounded(values[5], file, line_no, "owner_priority", low=0,
                            high=OWNER_PRIORITIES[-1])
        size[i] = _bounded(values[6], file, line_no, "input", low=0)
    missing = [job.id for i, job in enumerate(workload.jobs) if i not in line_of]
    if missing:
        raise InputError(f"job {missing[0]} of the SWF file has no row"
                         + (f" (nor {len(missing) - 1} more)" if len(missing) > 1 else ""),
                         file=file, field="job_id")
    return rating, klass, owner, size, deadline, licences, line_of


def _bounded(text: str, file: str, line: int, field: str, *, low: int,
             high: int | None = None) -> int:
    value = _integer(text, file, line, field)
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise InputError(f"expected an integer {span}, got {value}", file=file, line=line,
                         field=field)
    return value
