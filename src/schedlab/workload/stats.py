"""Trace statistics in the form of Streit's trace analyzer (Streit 2002, §4, Table 2).

:func:`trace_statistics` computes the rows of Table 2 for a workload;
:data:`STREIT_TABLE2` holds the values Streit published for his four traces
and :data:`STREIT_TABLE3` those of the synthetic job sets made from them,
and :func:`compare_to_reference` lines ours up against them.

Weibull parameterisation (Streit 2002, §4): the interarrival times follow
``F(x) = 1 - exp(-(x / beta) ** alpha)`` — ``alpha`` is the shape and
``beta`` the scale (``scipy.stats.weibull_min(c=alpha, scale=beta)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, special, stats

from schedlab.errors import InputError
from schedlab.workload.job import Workload

WeibullMethod = Literal["moments", "mle"]
WEIBULL_METHODS = ("moments", "mle")

# Shape bracket for the moment fit: alpha = 0.01 means a coefficient of
# variation beyond 10**60, alpha = 1000 one of about 0.0013.
_ALPHA_BRACKET = (0.01, 1000.0)


@dataclass(frozen=True)
class TraceStatistics:
    """The rows of Streit's Table 2 (Streit 2002, §4) for one workload.

    Times are in seconds.  ``overrun_jobs`` counts jobs whose actual runtime
    exceeds their estimate.  Interarrival times are the differences of
    consecutive submit times; with a single job they are NaN, as are the
    Weibull parameters when they cannot be fitted.
    """

    jobs: int
    max_width: int
    machine_width: int
    avg_width: float
    estimate_avg: float
    estimate_min: int
    estimate_max: int
    runtime_avg: float
    runtime_min: int
    runtime_max: int
    overrun_jobs: int
    interarrival_avg: float
    interarrival_min: float
    interarrival_max: float
    weibull_alpha: float
    weibull_beta: float

    @property
    def overrun_percent(self) -> float:
        """Jobs with actual > estimated runtime, in percent of all jobs."""
        return 100.0 * self.overrun_jobs / self.jobs

    def rows(self) -> list[tuple[str, float]]:
        """(label, value) pairs in the row order of Streit's Table 2."""
        return [
            ("number of jobs", self.jobs),
            ("maximum job width", self.max_width),
            ("width of machine", self.machine_width),
            ("average requested resources", self.avg_width),
            ("estimated runtime avg (s)", self.estimate_avg),
            ("estimated runtime min (s)", self.estimate_min),
            ("estimated runtime max (s)", self.estimate_max),
            ("actual runtime avg (s)", self.runtime_avg),
            ("actual runtime min (s)", self.runtime_min),
            ("actual runtime max (s)", self.runtime_max),
            ("jobs with actual > estimated runtime", self.overrun_jobs),
            ("jobs with actual > estimated runtime (%)", self.overrun_percent),
            ("interarrival time avg (s)", self.interarrival_avg),
            ("interarrival time min (s)", self.interarrival_min),
            ("interarrival time max (s)", self.interarrival_max),
            ("Weibull alpha (shape)", self.weibull_alpha),
            ("Weibull beta (scale) (s)", self.weibull_beta),
        ]


#: Streit's published Table 2 (Streit 2002, §4), one column per trace.  The
#: row "likelihood of interarrival time" is not transcribed: the paper does
#: not define it (docs/reference/workloads.md lists its values).
STREIT_TABLE2: dict[str, TraceStatistics] = {
    "ctc": TraceStatistics(
        jobs=79302, max_width=336, machine_width=430, avg_width=10.72,
        estimate_avg=24324, estimate_min=0, estimate_max=64800,
        runtime_avg=10983, runtime_min=0, runtime_max=71998, overrun_jobs=7180,
        interarrival_avg=369, interarrival_min=0, interarrival_max=164472,
        weibull_alpha=0.35, weibull_beta=60),
    "kth": TraceStatistics(
        jobs=28490, max_width=100, machine_width=100, avg_width=7.68,
        estimate_avg=13677, estimate_min=60, estimate_max=216000,
        runtime_avg=8876, runtime_min=0, runtime_max=226709, overrun_jobs=478,
        interarrival_avg=1031, interarrival_min=0, interarrival_max=327952,
        weibull_alpha=0.35, weibull_beta=200),
    "pc2": TraceStatistics(
        jobs=35094, max_width=96, machine_width=96, avg_width=6.34,
        estimate_avg=11716, estimate_min=1, estimate_max=1209600,
        runtime_avg=4346, runtime_min=1, runtime_max=604800, overrun_jobs=0,
        interarrival_avg=870, interarrival_min=0, interarrival_max=313861,
        weibull_alpha=0.25, weibull_beta=40),
    "sdsc": TraceStatistics(
        jobs=67667, max_width=128, machine_width=352, avg_width=10.53,
        estimate_avg=14337, estimate_min=0, estimate_max=172800,
        runtime_avg=6119, runtime_min=0, runtime_max=510209, overrun_jobs=4327,
        interarrival_avg=934, interarrival_min=0, interarrival_max=79503,
        weibull_alpha=0.4, weibull_beta=290),
}


#: Streit's published Table 3 (Streit 2002, §4): the synthetic job sets of
#: 10 000 jobs generated from the four traces of Table 2 (CTC_syn, KTH_syn,
#: PC2_syn, SDSC_syn).  The table has no Weibull rows: those fields are NaN.
STREIT_TABLE3: dict[str, TraceStatistics] = {
    "ctc": TraceStatistics(
        jobs=10000, max_width=330, machine_width=430, avg_width=10.67,
        estimate_avg=24260, estimate_min=0, estimate_max=64800,
        runtime_avg=10924, runtime_min=0, runtime_max=71998, overrun_jobs=929,
        interarrival_avg=287, interarrival_min=0, interarrival_max=24815,
        weibull_alpha=math.nan, weibull_beta=math.nan),
    "kth": TraceStatistics(
        jobs=10000, max_width=100, machine_width=100, avg_width=7.73,
        estimate_avg=13643, estimate_min=60, estimate_max=216000,
        runtime_avg=9060, runtime_min=0, runtime_max=215965, overrun_jobs=178,
        interarrival_avg=1047, interarrival_min=0, interarrival_max=191258,
        weibull_alpha=math.nan, weibull_beta=math.nan),
    "pc2": TraceStatistics(
        jobs=10000, max_width=96, machine_width=96, avg_width=6.48,
        estimate_avg=11516, estimate_min=1, estimate_max=604800,
        runtime_avg=4442, runtime_min=1, runtime_max=604800, overrun_jobs=0,
        interarrival_avg=1013, interarrival_min=0, interarrival_max=236546,
        weibull_alpha=math.nan, weibull_beta=math.nan),
    "sdsc": TraceStatistics(
        jobs=10000, max_width=128, machine_width=352, avg_width=10.71,
        estimate_avg=14305, estimate_min=0, estimate_max=64800,
        runtime_avg=6085, runtime_min=0, runtime_max=64884, overrun_jobs=640,
        interarrival_avg=945, interarrival_min=0, interarrival_max=76019,
        weibull_alpha=math.nan, weibull_beta=math.nan),
}


def trace_statistics(workload: Workload, *,
                     weibull_method: WeibullMethod = "moments") -> TraceStatistics:
    """Streit's trace-analyzer output (Streit 2002, §4, Table 2) for a workload.

    The Weibull distribution is fitted to the interarrival times with
    :func:`fit_weibull` (``weibull_method``; moments by default, the fit that
    comes closest to Streit's published parameters — see docs/reference/workloads.md).
    """
    if not workload.jobs:
        raise InputError(f"workload '{workload.name}' has no jobs to analyse")
    columns = workload.to_arrays()
    width, runtime, estimate = columns["width"], columns["runtime"], columns["estimate"]
    interarrival = np.diff(columns["submit"]).astype(np.float64)
    alpha, beta = fit_weibull(interarrival, method=weibull_method)
    return TraceStatistics(
        jobs=len(workload),
        max_width=int(width.max()),
        machine_width=int(workload.processors),
        avg_width=float(width.mean()),
        estimate_avg=float(estimate.mean()),
        estimate_min=int(estimate.min()),
        estimate_max=int(estimate.max()),
        runtime_avg=float(runtime.mean()),
        runtime_min=int(runtime.min()),
        runtime_max=int(runtime.max()),
        overrun_jobs=int((runtime > estimate).sum()),
        interarrival_avg=_or_nan(interarrival, np.mean),
        interarrival_min=_or_nan(interarrival, np.min),
        interarrival_max=_or_nan(interarrival, np.max),
        weibull_alpha=alpha,
        weibull_beta=beta,
    )


def _or_nan(values: np.ndarray, reduce) -> float:
    """A reduction of the values, NaN when there are none."""
    return float(reduce(values)) if values.size else math.nan


def fit_weibull(samples: np.ndarray, *, method: WeibullMethod = "moments") -> tuple[float, float]:
    """Fit ``F(x) = 1 - exp(-(x / beta) ** alpha)`` (Streit 2002, §4) and return (alpha, beta).

    ``method="moments"``: match the sample mean ``m`` and coefficient of
    variation ``cv`` (population standard deviation / mean) exactly, solving
    ``Gamma(1 + 2/alpha) / Gamma(1 + 1/alpha)**2 = 1 + cv**2`` for alpha
    (``scipy.optimize.brentq``) and setting ``beta = m / Gamma(1 + 1/alpha)``.
    Zero samples (jobs submitted in the same second) take part like any other.

    ``method="mle"``: ``scipy.stats.weibull_min.fit(samples, floc=0)`` on the
    positive samples only — the likelihood of a zero sample is unbounded
    when alpha < 1, so zeros must be left out.

    Returns (NaN, NaN) when the samples do not determine a fit (fewer than two
    usable samples, no variation, or a shape outside [0.01, 1000]).
    """
    if method not in WEIBULL_METHODS:
        raise InputError(f"The 'method' parameter of fit_weibull must be one of "
                         f"{', '.join(repr(m) for m in WEIBULL_METHODS)}. Got {method!r} instead.")
    values = np.asarray(samples, dtype=np.float64)
    if method == "mle":
        return _fit_weibull_mle(values[values > 0])
    return _fit_weibull_moments(values)


def _fit_weibull_moments(values: np.ndarray) -> tuple[float, float]:
    """Method-of-moments Weibull fit (see :func:`fit_weibull`)."""
    if values.size < 2 or values.mean() <= 0 or values.std() == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    target = math.log1p((float(values.std()) / mean) ** 2)

    def excess(alpha: float) -> float:
        """log(E[X^2] / E[X]^2) of a Weibull with this shape, minus the sample's."""
        return special.gammaln(1 + 2 / alpha) - 2 * special.gammaln(1 + 1 / alpha) - target

    low, high = _ALPHA_BRACKET
    if excess(low) < 0 or excess(high) > 0:
        return math.nan, math.nan
    alpha = optimize.brentq(excess, low, high, xtol=1e-12)
    beta = mean / math.exp(special.gammaln(1 + 1 / alpha))
    return float(alpha), float(beta)


def _fit_weibull_mle(positive: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood Weibull fit with location 0 (see :func:`fit_weibull`)."""
    if positive.size < 2 or positive.std() == 0:
        return math.nan, math.nan
    alpha, _, beta = stats.weibull_min.fit(positive, floc=0)
    return float(alpha), float(beta)


def compare_to_reference(ours: TraceStatistics, reference: TraceStatistics
                         ) -> list[tuple[str, float, float, float | None]]:
    """Rows (label, ours, paper, relative difference) in Table 2 order.

    The relative difference is ``(ours - paper) / paper``; it is 0 when both
    are 0 and None when only the paper's value is 0 (undefined).
    """
    rows = []
    for (label, mine), (_, theirs) in zip(ours.rows(), reference.rows()):
        rows.append((label, mine, theirs, _relative_difference(mine, theirs)))
    return rows


def _relative_difference(ours: float, paper: float) -> float | None:
    """(ours - paper) / paper, with the zero cases of :func:`compare_to_reference`."""
    if paper == 0:
        return 0.0 if ours == 0 else None
    return (ours - paper) / paper
