"""Self-tuning dynP's quality metrics: how a candidate schedule is measured (Streit 2002, §3.2, §6).

Each metric measures candidate schedules of the same waiting jobs: a value
per schedule, lower is better.  A job's planned end is its start plus its
estimate: the scheduler knows nothing else (§3.2).  The metrics of
:data:`EXACT_METRICS` are made of integer sums over the jobs
(:class:`ScheduleSums`): a self-tuning step gets them from its compiled
placements (:mod:`schedlab.policies.dynp_step`), anything else from
:class:`Measured` columns (:func:`schedule_sums`); the sums are exact
(int64, divided as Python ints), so two identical schedules get identical
numbers.  The slowdown needs every job (:class:`Measured`) and sums floats
one by one, in the order of the columns: the jobs in arrival order.

:class:`Quality` is the ``metric`` parameter of one policy, parsed once:
its terms (one metric or a weighted combination, §6), the reduced future
(§6, :func:`select_future`) and what measuring them needs.

The module sits below both :mod:`schedlab.policies.dynp` and its compiled
step (:mod:`schedlab.policies.dynp_step`), and imports neither (nor numba).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from schedlab.errors import InputError

#: The bound of the bounded slowdown in the ``slowdown`` quality metric (SLDwW_60, §5.1).
SLOWDOWN_BOUND = 60


class Measured(NamedTuple):
    """Candidate schedules as job columns (1-D) and the starts of each schedule (2-D)."""

    widths: np.ndarray
    estimates: np.ndarray
    submits: np.ndarray
    starts: np.ndarray


class ScheduleSums(NamedTuple):
    """What the exact quality metrics read: one integer sum per schedule, and the jobs' totals."""

    weighted_response: list[int]    # sum of width x (start + estimate - submit)
    response: list[int]             # sum of (start + estimate - submit)
    wait: list[int]                 # sum of (start - submit)
    last_end: list[int]             # latest start + estimate; -1 with no job
    jobs: int
    width: int                      # sum of the widths


def schedule_sums(schedules: Measured) -> ScheduleSums:
    """The :class:`ScheduleSums` of the schedules in ``schedules``, in numpy (exact int64)."""
    widths, estimates, submits, starts = schedules
    response = starts + (estimates - submits)
    return ScheduleSums((response @ widths).tolist(), response.sum(axis=1).tolist(),
                        (starts - submits).sum(axis=1).tolist(),
                        (starts + estimates).max(axis=1, initial=-1).tolist(), len(widths),
                        int(widths.sum()))


def _sums(schedules: Measured | ScheduleSums) -> ScheduleSums:
    return schedules if isinstance(schedules, ScheduleSums) else schedule_sums(schedules)


def makespan(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """MS = max end of all jobs in the schedule, the running ones included (§3.2)."""
    return [float(max(end, running_end)) for end in _sums(schedules).last_end]


def average_response(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """ART = mean of (end - submit) over the waiting jobs (§3.2)."""
    sums = _sums(schedules)
    jobs = sums.jobs
    return [total / jobs if jobs else 0.0 for total in sums.response]


def weighted_response(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """ARTwW = sum of width x (end - submit) over the sum of widths (§3.2)."""
    sums = _sums(schedules)
    width = sums.width
    return [total / width if width else 0.0 for total in sums.weighted_response]


def weighted_slowdown(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """SLDwW_60 of the plan (§5.1 as a quality metric, §6): width-weighted bounded slowdown.
    Not an exact metric: it reads the schedules' jobs, never their sums."""
    assert isinstance(schedules, Measured), "the slowdown reads the schedules' jobs"
    bound = SLOWDOWN_BOUND
    widths, estimates = schedules.widths, schedules.estimates
    response = np.maximum(schedules.starts + (estimates - schedules.submits), bound)
    values = widths * response / np.maximum(estimates, bound)
    width = int(widths.sum())
    return [sum(row) / width if width else 0.0 for row in values.tolist()]


def average_wait(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """Mean of (start - submit) over the waiting jobs (§6)."""
    sums = _sums(schedules)
    jobs = sums.jobs
    return [total / jobs if jobs else 0.0 for total in sums.wait]


QualityMetric = Callable[[Measured | ScheduleSums, int], list[float]]

QUALITY_METRICS: dict[str, QualityMetric] = {
    "artww": weighted_response, "art": average_response, "ms": makespan,
    "slowdown": weighted_slowdown, "wait": average_wait,
}
#: The metrics made of :class:`ScheduleSums` (exact: independent of the order of the jobs).
EXACT_METRICS = frozenset({"artww", "art", "ms", "wait"})


def parse_quality_metric(policy: str, text: str) -> tuple[tuple[float, str], ...]:
    """``"artww"`` or a combination like ``"artww+ms"``, ``"0.7*artww+0.3*slowdown"``.

    Returns ``(weight, metric)`` terms.  Raises :class:`InputError` naming
    the ``metric`` parameter for anything else.
    """
    expected = (f"a quality metric ({', '.join(QUALITY_METRICS)}) or a sum of them "
                f"with optional weights, e.g. 'artww+ms' or '0.7*artww+0.3*slowdown'")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"The 'metric' parameter of {policy} must be {expected}. "
                         f"Got {text!r} instead.", field="metric")
    terms: list[tuple[float, str]] = []
    for part in text.replace(" ", "").lower().split("+"):
        weight, _, name = part.rpartition("*")
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            value = -1.0
        if name not in QUALITY_METRICS or not value > 0 or any(name == t for _, t in terms):
            raise InputError(f"The 'metric' parameter of {policy} must be {expected}, each "
                             f"metric once with a positive weight. Got {text!r} instead.",
                             field="metric")
        terms.append((value, name))
    return tuple(terms)

class Quality:
    """A policy's ``metric`` for the run: its terms, its reduced future, what measuring reads.

    ``terms`` are ``(weight, metric)`` pairs (:func:`parse_quality_metric`);
    ``future_jobs`` and ``future_horizon`` reduce each schedule to the jobs
    it is measured on (:func:`select_future`).  Derived once:
    ``reads_running_end`` (only the makespan reads the last running job's
    end), ``from_sums`` (every term exact and the whole future: the step's
    integer sums suffice) and ``single``, the metric's name when it is one
    metric as it is (weight 1), else None.
    """

    __slots__ = ("from_sums", "future_horizon", "future_jobs", "reads_running_end", "single",
                 "terms")

    def __init__(self, terms: tuple[tuple[float, str], ...], future_jobs: int | None = None,
                 future_horizon: int | None = None) -> None:
        self.terms = terms
        self.future_jobs = future_jobs
        self.future_horizon = future_horizon
        self.reads_running_end = any(name == "ms" for _, name in terms)
        self.from_sums = (all(name in EXACT_METRICS for _, name in terms)
                          and future_jobs is None and future_horizon is None)
        self.single = terms[0][1] if terms == ((1.0, terms[0][1]),) else None

    def exact_single(self) -> str | None:
        """The metric's name when it is one exact metric as it is on the whole future, else None.

        Then the candidates are ordered by one of the step's integer sums,
        which the compiled step can compare itself
        (:data:`schedlab.policies.dynp_step.ORDERING_FACT`).
        """
        return self.single if self.from_sums else None

    def measure(self, candidates: Sequence[str], now: int, running_end: int,
                sums: Callable[[], ScheduleSums],
                schedules: Callable[[], Measured]) -> dict[str, float]:
        """Each candidate's quality: the terms' values, combined (:func:`combine_terms`).

        ``sums`` and ``schedules`` give the candidates' schedules as the
        exact metrics read them and as job columns; only the one the terms
        need is made.
        """
        terms = self.terms
        if self.from_sums:
            measured = sums()
            values = [QUALITY_METRICS[name](measured, running_end) for _, name in terms]
        elif self.future_jobs is None and self.future_horizon is None:
            columns = schedules()
            values = [QUALITY_METRICS[name](columns, running_end) for _, name in terms]
        else:
            parts = reduced_futures(schedules(), now, self.future_jobs, self.future_horizon)
            values = [[QUALITY_METRICS[name](part, running_end)[0] for part in parts]
                      for _, name in terms]
        if self.single is not None:
            return dict(zip(candidates, values[0]))
        return combine_terms({policy: [term[c] for term in values]
                              for c, policy in enumerate(candidates)},
                             [weight for weight, _ in terms])


def select_future(starts: np.ndarray, now: int, future_jobs: int | None,
                  future_horizon: int | None) -> np.ndarray:
    """Which jobs of a schedule the quality is computed from (reduced future, Streit 2002, §6).

    ``starts`` are the proposed starts of the waiting jobs; returns the
    positions kept, in their order.  ``future_horizon``: only the jobs
    planned to start by ``now + future_horizon``; ``future_jobs``: only the
    first ``future_jobs`` jobs to start (ties by position).  Both may be
    given (the first k among those in the horizon).
    """
    keep = np.arange(len(starts))
    if future_horizon is not None:
        keep = keep[starts <= now + future_horizon]
    if future_jobs is not None and len(keep) > future_jobs:
        keep = np.sort(keep[np.lexsort((keep, starts[keep]))[:future_jobs]])
    return keep

def reduced_futures(schedules: Measured, now: int, future_jobs: int | None,
                    future_horizon: int | None) -> list[Measured]:
    """Each schedule reduced to the jobs it is measured on (:func:`select_future`)."""
    widths, estimates, submits, starts = schedules
    parts = []
    for planned in starts:
        keep = select_future(planned, now, future_jobs, future_horizon)
        parts.append(Measured(widths[keep], estimates[keep], submits[keep],
                              planned[keep][None, :]))
    return parts


def combine_terms(raw: dict[str, list[float]], weights: Sequence[float]) -> dict[str, float]:
    """One quality per candidate from the values of one or more metrics (Streit 2002, §6).

    A single metric is used as it is.  Several are made comparable by
    dividing each by its largest value among the candidates (so each lies
    in [0, 1]; a metric that is 0 for all contributes 0) and summed with
    their weights.  Equal values stay equal, so ties survive.
    """
    if len(weights) == 1:
        return {policy: values[0] * weights[0] for policy, values in raw.items()}
    largest = [max(values[k] for values in raw.values()) for k in range(len(weights))]
    return {policy: sum(w * v / top for w, v, top in zip(weights, values, largest) if top > 0)
            for policy, values in raw.items()}
