"""Deadlines for workloads: a side file, and the assignment of QoPS (Islam et al., §4).

SWF has no deadline field, so deadlines come from one of three places:

* :func:`read_deadlines` — a CSV side file ``job_id,deadline[,kind]``
  (absolute deadlines in seconds since the trace start; ``kind`` is
  ``real`` or ``artificial``); :func:`write_deadlines` writes one;
* :func:`stringency_deadlines` — QoPS §4.1: given the response times of an
  EASY backfilling schedule (computed one layer up, by
  :func:`schedlab.pipeline.easy_response_times`: this layer simulates
  nothing), every job gets the deadline
  ``submit + max(runtime, ceil((1 - s) x R_easy))``
  where ``R_easy`` is its response time under EASY and ``s`` the stringency
  factor (the converted paper prints "(1s)"; the factor is 1 - s: with s = 0
  the deadline is the job's EASY completion time, and deadlines tighten as s
  grows).  Our reading: the runtime term is at least :data:`LEAST_DURATION`
  (1 s), the least estimate a job has — a job that runs 0 s keeps an
  estimate of 1 s, so a deadline at its submission could never be met by
  admission control, which plans by estimates (``least_duration=0`` gives
  the formula as printed);
* :func:`mixed_deadlines` — QoPS §4.2: a seeded fraction of the jobs get
  that deadline; the others are non-deadline jobs and get the artificial
  deadline ``submit + max(24 h, ceil(R x runtime))`` (relaxation factor R),
  marked with ``Job.artificial_deadline`` so that metrics can tell them apart.

Deadlines are integers; the products are rounded up, computed exactly with
the factors taken as the decimals they print as, so a deadline is never
tighter than the formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError
from schedlab.textio import parse_int, read_text
from schedlab.workload.job import Job, Workload
from schedlab.workload.transforms import NAME_SEPARATOR

if TYPE_CHECKING:
    from fractions import Fraction  # imported where used: it loads decimal, 8 ms

#: Our reading of QoPS §4.1: the least time from submit to a stringency deadline, seconds —
#: the least estimate a job has (the time resolution; a 0-second job keeps a 1 s estimate).
LEAST_DURATION = 1
#: QoPS §4.2: the artificial deadline of a non-deadline job is at least one day.
ARTIFICIAL_MINIMUM = 24 * 3600
#: Values of the optional ``kind`` column of a deadline file.
KINDS = ("real", "artificial")
_HEADERS = ("job_id,deadline", "job_id,deadline,kind")


# ------------------------------------------------------------------ side file
def read_deadlines(path: str | Path, workload: Workload) -> Workload:
    """The workload with the deadlines of a CSV side file.

    The first line is the header ``job_id,deadline`` or
    ``job_id,deadline,kind``; every other non-blank line that does not start
    with ``#`` gives one job's absolute deadline (an integer, seconds since
    the trace start, like submit times) and, with the third column, whether
    it is ``real`` or ``artificial``.  Jobs the file does not list keep what
    they had.  An unknown job id, a deadline before the job's submit time, a
    job listed twice, a wrong field count or a value that is not an integer
    raise :class:`InputError` naming the file, line and field.
    """
    path = Path(path)
    text = read_text(path, "deadline file")
    by_id = {job.id: job for job in workload.jobs}
    rows = _parse_rows(text, str(path), by_id)
    jobs = [_with_deadline(job, *rows[job.id]) if job.id in rows else job
            for job in workload.jobs]
    return workload.with_jobs(jobs, name=_suffixed(workload.name, f"deadlines-{path.stem}"))


def _parse_rows(text: str, file: str, by_id: dict[int, Job]) -> dict[int, tuple[int, bool]]:
    """``{job id: (deadline, artificial)}`` from the text of a deadline file."""
    lines = text.splitlines()
    numbered = [(k + 1, line.strip()) for k, line in enumerate(lines)]
    content = [(n, line) for n, line in numbered if line and not line.startswith("#")]
    if not content:
        raise InputError(f"expected the header {_HEADERS[0]!r} (or {_HEADERS[1]!r}), "
                         f"the file is empty", file=file)
    header_line, header = content[0]
    header = ",".join(part.strip() for part in header.split(","))
    if header not in _HEADERS:
        raise InputError(f"expected the header {_HEADERS[0]!r} or {_HEADERS[1]!r}, "
                         f"got {header!r}", file=file, line=header_line, field="header")
    columns = header.split(",")
    rows: dict[int, tuple[int, bool]] = {}
    first_seen: dict[int, int] = {}
    for line_no, line in content[1:]:
        values = [part.strip() for part in line.split(",")]
        if len(values) != len(columns):
            raise InputError(f"expected {len(columns)} fields ({','.join(columns)}), "
                             f"got {len(values)}", file=file, line=line_no,
                             field=columns[min(len(values), len(columns)) - 1])
        job_id = _integer(values[0], file, line_no, "job_id")
        deadline = _integer(values[1], file, line_no, "deadline")
        artificial = _kind(values[2], file, line_no) if len(values) == 3 else False
        job = by_id.get(job_id)
        if job is None:
            raise InputError(f"no job {job_id} in the workload", file=file, line=line_no,
                             field="job_id")
        if job_id in first_seen:
            raise InputError(f"job {job_id} is listed twice (first on line "
                             f"{first_seen[job_id]})", file=file, line=line_no, field="job_id")
        if deadline < job.submit:
            raise InputError(f"deadline {deadline} is before the submit time {job.submit} "
                             f"of job {job_id}", file=file, line=line_no, field="deadline")
        first_seen[job_id] = line_no
        rows[job_id] = (deadline, artificial)
    return rows


def _integer(text: str, file: str, line: int, field: str) -> int:
    """A side-file integer: ASCII decimal digits only (no ``1_000``, no other scripts' digits),
    magnitude at most 2**53 as in SWF files (:func:`schedlab.textio.parse_int`)."""
    return parse_int(text, field=field, file=file, line=line)


def _kind(text: str, file: str, line: int) -> bool:
    if text not in KINDS:
        raise InputError(f"expected one of {', '.join(KINDS)}, got {text!r}", file=file,
                         line=line, field="kind")
    return text == "artificial"


def write_deadlines(workload: Workload, path: str | Path) -> None:
    """Write ``job_id,deadline,kind`` for every job with a deadline (atomically).

    :func:`read_deadlines` reads the file back to the same deadlines.
    """
    from schedlab.atomic import atomic_write_text

    lines = ["job_id,deadline,kind"]
    lines += [f"{job.id},{job.deadline},{KINDS[job.artificial_deadline]}"
              for job in workload.jobs if job.deadline is not None]
    atomic_write_text(path, "\n".join(lines) + "\n")


# ------------------------------------------------------- QoPS §4.1 and §4.2
def check_factors(stringency: float, fraction: float = 1.0, relaxation: float = 1.0) -> None:
    """Raise :class:`InputError` for a stringency, fraction or relaxation out of range.

    Called before the EASY schedule is computed, so a bad value costs no simulation.
    """
    _fraction("stringency", stringency, low=0, high=1)
    _fraction("fraction", fraction, low=0, high=1)
    _fraction("relaxation", relaxation, low=0, high=math.inf, open_low=True)


def stringency_deadlines(workload: Workload, stringency: float,
                         easy_response: Sequence[int], *,
                         least_duration: int = LEAST_DURATION) -> Workload:
    """Every job gets the QoPS deadline for stringency ``s`` (Islam et al., §4.1).

    ``deadline = submit + max(runtime, least_duration, ceil((1 - s) x R_easy))``
    with ``R_easy`` the job's response time under EASY backfilling, given in
    workload order (:func:`schedlab.pipeline.easy_response_times` runs that
    schedule: this layer simulates nothing).  ``s`` is in [0, 1]: 0 gives
    the EASY completion time, 1 the job's own runtime.  All deadlines are real.
    ``least_duration`` (our reading, :data:`LEAST_DURATION`): a job of
    runtime 0 still has an estimate of 1 s, so its deadline is at least 1 s
    after its submission; 0 gives the paper's formula as printed, under
    which admission control can never accept such a job.
    """
    factor = 1 - _fraction("stringency", stringency, low=0, high=1)
    least = _least_duration(least_duration)
    response = list(easy_response)
    jobs = [_with_deadline(job, job.submit + _stringent(job, rt, factor, least), False)
            for job, rt in zip(workload.jobs, response)]
    return workload.with_jobs(jobs, name=_suffixed(workload.name, f"s{stringency:g}"))


def mixed_deadlines(workload: Workload, stringency: float, fraction: float, relaxation: float,
                    seed: int | np.random.Generator = 0, *,
                    easy_response: Sequence[int],
                    least_duration: int = LEAST_DURATION) -> Workload:
    """A seeded ``fraction`` of the jobs get QoPS deadlines, the others artificial ones (§4.2).

    ``round(fraction x n)`` jobs (halves up) are deadline jobs: the first
    ones of a random permutation of the workload drawn from ``seed``, so for
    one seed a smaller fraction picks a subset of a larger one.  They get
    the deadline of :func:`stringency_deadlines`.  Every other job is a
    non-deadline job with the artificial deadline
    ``submit + max(24 h, ceil(relaxation x runtime))`` ("the artificial
    deadline of each non-deadline job is set to max(24 hours, R*runtime)"),
    marked ``artificial_deadline=True``.  The EASY schedule behind the real
    deadlines is that of the whole workload; ``least_duration`` is that of
    :func:`stringency_deadlines`.
    """
    factor = 1 - _fraction("stringency", stringency, low=0, high=1)
    least = _least_duration(least_duration)
    share = _fraction("fraction", fraction, low=0, high=1)
    relax = _fraction("relaxation", relaxation, low=0, high=math.inf, open_low=True)
    n = len(workload.jobs)
    chosen = np.zeros(n, dtype=bool)
    count = (2 * share.numerator * n + share.denominator) // (2 * share.denominator)
    chosen[np.random.default_rng(seed).permutation(n)[:count]] = True
    response = list(easy_response)
    jobs = []
    for job, rt, real in zip(workload.jobs, response, chosen.tolist()):
        if real:
            jobs.append(_with_deadline(job, job.submit + _stringent(job, rt, factor, least),
                                       False))
        else:
            jobs.append(_with_deadline(job, job.submit + _relaxed(job, relax), True))
    seed_part = f"-seed{seed}" if isinstance(seed, (int, np.integer)) else ""
    suffix = f"s{stringency:g}-f{fraction:g}-R{relaxation:g}{seed_part}"
    return workload.with_jobs(jobs, name=_suffixed(workload.name, suffix))


def _stringent(job: Job, easy_response: int, factor: Fraction, least: int) -> int:
    """max(runtime, least, ceil((1 - s) x EASY response)): seconds from submit to the
    deadline."""
    return max(job.runtime, least, _ceil(factor * easy_response))


def _least_duration(value: int) -> int:
    """The ``least_duration`` of a deadline assignment: a whole number of seconds >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"The 'least_duration' parameter of the deadline assignment must "
                         f"be a whole number of seconds >= 0. Got {value!r} instead.",
                         field="least_duration")
    return int(value)


def _relaxed(job: Job, relaxation: Fraction) -> int:
    """max(24 h, ceil(R x runtime)): seconds from submit to the artificial deadline."""
    return max(ARTIFICIAL_MINIMUM, _ceil(relaxation * job.runtime))


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def _fraction(param: str, value: float, *, low: float, high: float,
              open_low: bool = False) -> Fraction:
    """A finite number in [low, high] (or (low, high]) as an exact decimal fraction."""
    valid = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)
    if not valid or value < low or value > high or (open_low and value == low):
        span = ("(" if open_low else "[") + f"{low}, " + ("inf)" if high == math.inf
                                                          else f"{high}]")
        raise InputError(f"The {param!r} parameter of the deadline assignment must be a "
                         f"finite number in {span}. Got {value!r} instead.", field=param)
    from fractions import Fraction

    return Fraction(repr(float(value)))


def _with_deadline(job: Job, deadline: int, artificial: bool) -> Job:
    return Job(job.id, job.submit, job.runtime, job.estimate, job.width, job.user, job.group,
               job.queue, deadline, artificial, job.cancel_after, job.account, job.qos,
               job.nodes, job.priority)


def _suffixed(name: str, suffix: str) -> str:
    return f"{name}{NAME_SEPARATOR}{suffix}"
