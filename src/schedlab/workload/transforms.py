"""Workload transforms: pure functions Workload -> Workload (SPEC §1.2).

Every transform returns a new workload and leaves its argument untouched.
The machine size, header, skip counts and Unix start time are kept; the name
gains a suffix recording the transform, so results and plots say what they
ran on: ``KTH-SP2-1996-2.1-cln~shrink0.8~perfect``.  Submit times stay
seconds since the trace start (they are never rebased).

Parameter mistakes raise :class:`~schedlab.errors.InputError`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from numbers import Real
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError
from schedlab.limits import JOBS_BOUND, MAX_JOBS, MAX_TIME, TIME_BOUND
from schedlab.workload.job import ESTIMATES_PERFECT, Job, Workload

if TYPE_CHECKING:
    from fractions import Fraction  # imported where used: it loads decimal, 8 ms

#: A job's submit time, the key :class:`Workload` keeps its jobs sorted by.
submit_time = attrgetter("submit")

#: Separator between a workload's name and the transforms applied to it.
NAME_SEPARATOR = "~"


def shrink(workload: Workload, factor: float) -> Workload:
    """Multiply every interarrival time by ``factor`` (Streit 2002, §5, shrinking factor).

    ``submit_i' = submit_0 + round(factor * (submit_i - submit_0))`` where
    ``submit_0`` is the first submit time and ``round`` rounds halves up
    (``floor(x + 0.5)``), so times stay integer seconds and never decrease.
    The product is computed exactly in integers with the factor taken as the
    decimal number it prints as (0.7 is 7/10, so 0.7 x 45 = 31.5 rounds to 32,
    where floating point would give 31.499999999999996 and round down).
    A factor below 1 raises the load.  A job's deadline, if any, moves with
    its submit time (the time it grants after submission is unchanged).
    """
    if isinstance(factor, bool) or not isinstance(factor, Real) \
            or not math.isfinite(factor) or factor <= 0:
        raise InputError(f"The 'factor' parameter of shrink must be a finite number > 0. "
                         f"Got {factor!r} instead.")
    suffix = f"shrink{factor:g}"
    if not workload.jobs:
        return workload.with_jobs((), name=_suffixed(workload.name, suffix))
    from fractions import Fraction

    ratio = Fraction(repr(float(factor)))
    num, den = ratio.numerator, ratio.denominator
    first = workload.jobs[0].submit
    _check_horizon(first + _scale_half_up(workload.jobs[-1].submit - first, ratio)
                   + _longest(workload), f"shrinking by {factor:g}")
    jobs = [_with_submit(job, first + (2 * num * (job.submit - first) + den) // (2 * den))
            for job in workload.jobs]
    return workload.with_jobs(jobs, name=_suffixed(workload.name, suffix))


def _with_submit(job: Job, submit: int) -> Job:
    """The job submitted at another time; a deadline keeps its distance to the submit."""
    deadline = None if job.deadline is None else job.deadline + submit - job.submit
    return Job(job.id, submit, job.runtime, job.estimate, job.width, job.user, job.group,
               job.queue, deadline, job.artificial_deadline, job.cancel_after, job.account,
               job.qos, job.nodes, job.priority)


def perfect_estimates(workload: Workload) -> Workload:
    """Set every estimate to the job's runtime, at least 1 s (Streit 2002, §5.2, Fig. 6).

    The workload's provenance then says so (``estimates_source``), so that no
    warning about estimates missing from the trace is given for a choice.
    """
    jobs = [Job(j.id, j.submit, j.runtime, max(j.runtime, 1), j.width, j.user, j.group,
                j.queue, j.deadline, j.artificial_deadline, j.cancel_after, j.account, j.qos,
                j.nodes, j.priority) for j in workload.jobs]
    facts = {**workload.provenance, "estimates_source": ESTIMATES_PERFECT,
             "estimates_from_runtime": len(jobs)}
    return workload.with_jobs(jobs, name=_suffixed(workload.name, "perfect"), provenance=facts)


def split_wide_jobs(workload: Workload, max_width: int) -> Workload:
    """Split every job wider than ``max_width`` into jobs of width <= ``max_width``.

    Streit 2002, §4, item 3: "large jobs are split up in width, so that the
    maximum job width is only 64, but the total area of all jobs is not
    changed".  A job of width ``w > m`` becomes ``ceil(w / m)`` jobs with the
    same submit time, runtime, estimate, user, group, queue and deadline:
    ``floor(w / m)`` parts of width ``m`` and, if ``w`` is not a multiple of
    ``m``, one part of width ``w mod m`` — the widths sum to ``w``.

    Ids: the first part keeps the job's id; the other parts get new ids
    ``max_id + 1, max_id + 2, ...`` (``max_id`` = largest id in the workload),
    handed out in workload order (submit, id) and, within a job, part by part.
    So ids stay unique and the result is deterministic.
    """
    if isinstance(max_width, bool) or not isinstance(max_width, (int, np.integer)) \
            or max_width < 1:
        raise InputError(f"The 'max_width' parameter of split_wide_jobs must be an int >= 1. "
                         f"Got {max_width!r} instead.")
    parts = sum(-(-job.width // int(max_width)) for job in workload.jobs)
    _check_job_count(parts, len(workload), f"splitting at width {max_width}")
    next_id = max((j.id for j in workload.jobs), default=0) + 1
    jobs: list[Job] = []
    for job in workload.jobs:
        widths = _part_widths(job.width, int(max_width))
        jobs.append(job if len(widths) == 1 else _with_width(job, job.id, widths[0]))
        for width in widths[1:]:
            jobs.append(_with_width(job, next_id, width))
            next_id += 1
    return workload.with_jobs(jobs, name=_suffixed(workload.name, f"split{max_width}"))


def _part_widths(width: int, max_width: int) -> list[int]:
    """Widths of the parts of one job: full parts of ``max_width``, then the remainder."""
    full, rest = divmod(width, max_width)
    return [max_width] * full + ([rest] if rest else [])


def _with_width(job: Job, job_id: int, width: int) -> Job:
    """A copy of the job with another id and width (its node count, which was the whole
    job's, no longer stated)."""
    return Job(job_id, job.submit, job.runtime, job.estimate, width, job.user, job.group,
               job.queue, job.deadline, job.artificial_deadline, job.cancel_after,
               job.account, job.qos, 0, job.priority)


def first_jobs(workload: Workload, n: int) -> Workload:
    """The first ``n`` jobs in (submit, id) order (all of them if there are fewer)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"The 'n' parameter of first_jobs must be an int >= 1. "
                         f"Got {n!r} instead.")
    return workload.with_jobs(workload.jobs[:n], name=_suffixed(workload.name, f"first{n}"))


def time_window(workload: Workload, start: int, end: int) -> Workload:
    """The jobs submitted in ``[start, end)`` (seconds since the trace start, not rebased)."""
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InputError(f"The '{name}' parameter of time_window must be an int. "
                             f"Got {value!r} instead.")
    if end <= start:
        raise InputError(f"The 'end' parameter of time_window must be greater than "
                         f"start={start}. Got {end!r} instead.")
    jobs = workload.jobs          # sorted by submit time: the window is one slice of them
    first = bisect_left(jobs, start, key=submit_time)
    jobs = jobs[first:bisect_left(jobs, end, lo=first, key=submit_time)]
    return workload.with_jobs(jobs, name=_suffixed(workload.name, f"window{start}-{end}"))


def _suffixed(name: str, suffix: str) -> str:
    """The workload name with one more transform recorded."""
    return f"{name}{NAME_SEPARATOR}{suffix}"


def duplicate_load(workload: Workload, load: float,
                   seed: int | np.random.Generator = 0) -> Workload:
    """Raise the offered load to ``load`` x by adding copies of jobs (QoPS, Islam et al., §4.2).

    "With l=1.2, 20% of the original jobs are picked, and duplicates are
    introduced into the trace at random points in time."  The number of
    copies is ``round((load - 1) x n)`` (halves up, computed exactly with
    ``load`` taken as the decimal it prints as).  The random draws come in
    blocks of ``n``: a permutation of the original jobs (the order in which
    they are picked) and, for every pick, a submit time drawn uniformly from
    the integers in [first submit, last submit].  Copy ``k`` is pick ``k`` of
    that sequence, so the draws do not depend on ``load``: the trace for a
    higher load contains every job of the trace for a lower load with the
    same submit time (QoPS §5, "the workload for a load of 1.6 would include
    all the jobs in the trace for load 1.4").  Loads above 2 use further
    blocks, so a job may be copied more than once.

    A copy keeps runtime, estimate, width, user, group and queue; a deadline
    keeps its distance to the submit time.  Copy ``k`` (0-based) gets the id
    ``max_id + 1 + k``.
    """
    ratio = _factor("load", "duplicate_load", load, minimum=1)
    suffix = f"dup{load:g}" + (f"-seed{seed}" if isinstance(seed, (int, np.integer)) else "")
    jobs = workload.jobs
    n = len(jobs)
    copies = _scale_half_up(n, ratio - 1)
    _check_job_count(n + copies, n, f"a load of {load:g}")
    if copies == 0:
        return workload.with_jobs(jobs, name=_suffixed(workload.name, suffix))
    rng = np.random.default_rng(seed)
    first, last = jobs[0].submit, jobs[-1].submit
    picks: list[int] = []
    times: list[int] = []
    while len(picks) < copies:
        picks.extend(rng.permutation(n).tolist())
        times.extend(rng.integers(first, last + 1, size=n).tolist())
    next_id = max(job.id for job in jobs) + 1
    added = [_with_id(_with_submit(jobs[pick], submit), next_id + k)
             for k, (pick, submit) in enumerate(zip(picks[:copies], times[:copies]))]
    return workload.with_jobs(jobs + tuple(added), name=_suffixed(workload.name, suffix))


def expand_load(workload: Workload, load: float) -> Workload:
    """Raise the offered load to ``load`` x by stretching every job (QoPS, Islam et al., §4.2).

    The paper names "expansion" without defining it; schedlab stretches
    time inside each job and keeps the arrival process: ``runtime' =
    round(load x runtime)``, ``estimate' = max(1, round(load x estimate))``
    and, for a job with a deadline, ``deadline' = submit + round(load x
    (deadline - submit))`` (the deadline stretches with the job, so a job
    that could meet its deadline still can).  Rounding is half up, exact
    with ``load`` taken as the decimal it prints as.  Widths and submit
    times are unchanged, so the requested processor-seconds grow by the
    factor ``load`` and the estimate never falls below the runtime where it
    was not below before.  ``load`` may be any finite number > 0.
    """
    ratio = _factor("load", "expand_load", load, minimum=0)
    if workload.jobs:
        _check_horizon(workload.jobs[-1].submit + _scale_half_up(_longest(workload), ratio),
                       f"stretching by {load:g}")
    jobs = [Job(j.id, j.submit, _scale_half_up(j.runtime, ratio),
                max(1, _scale_half_up(j.estimate, ratio)), j.width, j.user, j.group, j.queue,
                None if j.deadline is None
                else j.submit + _scale_half_up(j.deadline - j.submit, ratio),
                j.artificial_deadline, j.cancel_after, j.account, j.qos, j.nodes, j.priority)
            for j in workload.jobs]
    return workload.with_jobs(jobs, name=_suffixed(workload.name, f"expand{load:g}"))


def _factor(param: str, transform: str, value: float, *, minimum: float) -> Fraction:
    """A finite number (``>= 1`` when ``minimum`` is 1, ``> 0`` otherwise) as an exact decimal."""
    valid = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)
    if not valid or (value < 1 if minimum == 1 else value <= 0):
        bound = ">= 1" if minimum == 1 else "> 0"
        raise InputError(f"The {param!r} parameter of {transform} must be a finite number "
                         f"{bound}. Got {value!r} instead.", field=param)
    from fractions import Fraction

    return Fraction(repr(float(value)))


def _longest(workload: Workload) -> int:
    """The longest time a job lasts after its submission: runtime, estimate or deadline."""
    return max(max(job.runtime, job.estimate,
                   0 if job.deadline is None else job.deadline - job.submit)
               for job in workload.jobs)


def _check_horizon(latest: int, what: str) -> None:
    """InputError when a transform would put a time beyond :data:`~schedlab.limits.MAX_TIME`
    (an upper bound of the latest submit, end or deadline it makes)."""
    if latest > MAX_TIME:
        raise InputError(f"{what} puts times up to {latest} s; expected at most {TIME_BOUND}", field="factor")


def _check_job_count(total: int, n: int, what: str) -> None:
    """InputError when a transform would make more than :data:`~schedlab.limits.MAX_JOBS`
    jobs, checked before any is made (a load of 10**9 would otherwise fill the memory)."""
    if total > MAX_JOBS:
        raise InputError(f"{what} makes {total} jobs of {n}; expected at most {JOBS_BOUND}", field="jobs")


def _scale_half_up(value: int, ratio: Fraction) -> int:
    """``round(ratio x value)`` with halves rounded up, exactly in integers (``value`` >= 0)."""
    num, den = ratio.numerator, ratio.denominator
    return (2 * num * value + den) // (2 * den)


def _with_id(job: Job, job_id: int) -> Job:
    """A copy of the job under another id."""
    return Job(job_id, job.submit, job.runtime, job.estimate, job.width, job.user, job.group,
               job.queue, job.deadline, job.artificial_deadline, job.cancel_after,
               job.account, job.qos, job.nodes, job.priority)
