"""Hyper-Erlang distributions of common order and the workload model built on them.

J. Jann, P. Pattnaik, H. Franke, F. Wang, J. Skovira, J. Riordan, "Modeling of
workload in MPPs", JSSPP 1997: interarrival and service times of parallel
jobs are over-dispersed, and a *hyper-Erlang distribution of common order*

    f(x) = p * Erlang(n, rate1)(x) + (1 - p) * Erlang(n, rate2)(x)

(two Erlang branches sharing the order ``n``) fits them by matching the first
three moments.  The jobs are split into size ranges (powers of two), and
each range gets its own interarrival and service-time fit.  Zhou, Goscinski
and Brent (paper 001, §4) generate their gang-scheduling workloads w0..w8
with this model, raising the mean service time at a fixed arrival rate.

This module holds the closed-form three-moment fit (:func:`fit_hyper_erlang`,
the smallest feasible order), the sampler (:meth:`HyperErlang.sample`), the
per-size-range workload model (:func:`fit_workload`,
:func:`generate_hyper_erlang`), its JSON file format, and the built-in
family ``w0`` .. ``w8`` (:func:`gang_workload`), whose baseline is fitted
from the SDSC Blue Horizon trace and calibrated as described in
docs/reference/models.md ("Hyper-Erlang workloads").
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import gammainc

from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload

if TYPE_CHECKING:
    from schedlab.workload.swf import MissingEstimate, WidthField

FORMAT_NAME = "schedlab-hyper-erlang-model"
FORMAT_VERSION = 1
#: The largest common order tried by :func:`fit_hyper_erlang`.  An order ``n``
#: needs a squared coefficient of variation above ``1 / n``, so moments of an
#: almost deterministic distribution (SCV <= 0.01) have no fit.
MAX_ORDER = 100
#: Jobs a size range needs for a fit: its interarrival fit uses the
#: ``jobs - 1`` gaps between them, and three moments of fewer values say little.
MIN_RANGE_JOBS = 30
DEFAULT_JOBS = 10_000           # paper 001, §4: "Each generated workload consists of 10,000 jobs"

# --- the built-in family w0..w8 (paper 001, §4 and §5; our reading in docs/reference/models.md) ------

#: The parameter file of the baseline w0 (package data, made by :func:`build_family_baseline`).
FAMILY_FILE = "sdscblue-hypererlang.json"
#: The trace the baseline is fitted from, and the allocation unit of its machine
#: (Blue Horizon: 144 nodes of 8 processors; every job holds whole nodes).
FAMILY_TRACE = "SDSC-BLUE-2000-4.2-cln.swf.gz"
FAMILY_WIDTH_UNIT = 8
#: Paper 001, §4-§5: 256 processors; a job is short below 150 s, long above 6000 s,
#: and about 25 % of the jobs are each.
FAMILY_PROCESSORS = 256
SHORT_LIMIT = 150
LONG_LIMIT = 6000
TARGET_SHARE = 0.25
#: Offered load of w0, and the equal step by which each wi adds to it (our reading: the
#: paper gives no load figure).  BASE_LOAD is calibrated against the paper's slot
#: occupancy: Strategy 1 at l = 1 averages 4.57 slots on w0 (Table 5), found by bisection
#: (schedlab.experiments.recipes.gang.calibration, docs/reference/models.md).  wi multiplies every
#: service time by ``(BASE_LOAD + i * LOAD_STEP) / BASE_LOAD`` at the arrival rate of w0.
BASE_LOAD = 0.965
LOAD_STEP = 0.05
#: What BASE_LOAD was calibrated against (recorded in the parameter file).
SLOTS_TARGET = "paper 001, Table 5: Strategy 1, slot length 1, 4.57 slots on w0"
FAMILY_SIZE = 9


# --------------------------------------------------------------------------- the distribution


@dataclass(frozen=True)
class HyperErlang:
    """``p * Erlang(order, rate1) + (1 - p) * Erlang(order, rate2)`` (Jann et al. 1997).

    Rates are per second; branch 1 is the slower one (``rate1 <= rate2``)
    when made by :func:`fit_hyper_erlang`.
    """

    order: int
    p: float
    rate1: float
    rate2: float

    def moment(self, k: int) -> float:
        """``E[X^k] = (n)_k * (p / rate1^k + (1 - p) / rate2^k)``, ``(n)_k`` the rising factorial."""
        return rising_factorial(self.order, k) * (self.p / self.rate1 ** k
                                                  + (1 - self.p) / self.rate2 ** k)

    @property
    def mean(self) -> float:
        """The first moment."""
        return self.moment(1)

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        """``P(X <= x)``: the two Erlang CDFs (regularized incomplete gamma) mixed."""
        x = np.asarray(x, dtype=np.float64)
        return (self.p * gammainc(self.order, self.rate1 * x)
                + (1 - self.p) * gammainc(self.order, self.rate2 * x))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws: branch 1 with probability ``p``, then a gamma(order, 1 / rate) draw."""
        first = rng.random(size) < self.p
        scale = np.where(first, 1.0 / self.rate1, 1.0 / self.rate2)
        return rng.gamma(self.order, scale)

    def scaled(self, factor: float) -> HyperErlang:
        """The distribution of ``factor * X`` (both rates divided by ``factor``)."""
        return replace(self, rate1=self.rate1 / factor, rate2=self.rate2 / factor)

    def to_dict(self) -> dict[str, float | int]:
        """The four parameters, as stored in a model file."""
        return {"order": self.order, "p": self.p, "rate1": self.rate1, "rate2": self.rate2}


def rising_factorial(n: int, k: int) -> int:
    """``(n)_k = n (n + 1) ... (n + k - 1)``."""
    return math.prod(range(n, n + k))


def fit_hyper_erlang(m1: float, m2: float, m3: float, *,
                     max_order: int = MAX_ORDER) -> HyperErlang:
    """The hyper-Erlang of the smallest common order with raw moments ``m1, m2, m3``.

    For an order ``n`` the stage means ``a = 1/rate1``, ``b = 1/rate2`` and
    the weight ``p`` are the two-point distribution with moments
    ``y_k = m_k / (n)_k`` (Jann et al. 1997, closed form):
    ``d = y2 - y1^2``, ``s = (y3 - y1 y2) / d``, ``q = (y1 y3 - y2^2) / d``,
    ``a, b = (s +- sqrt(s^2 - 4q)) / 2``, ``p = (y1 - b) / (a - b)``.  The
    order is feasible when ``d > 0``, ``a > b > 0`` are real and
    ``0 <= p <= 1``; orders 1, 2, ... are tried and the first feasible one is
    taken (the original paper chooses the order for "desired accuracy"; the
    smallest is our rule).  ``d > 0`` needs a squared coefficient of variation
    above ``1 / n``.  Raises InputError when no order up to ``max_order`` fits.
    """
    for value in (m1, m2, m3):
        if not math.isfinite(value) or value <= 0:
            raise InputError(f"expected three finite positive moments, got {m1!r}, {m2!r}, "
                             f"{m3!r}", field="moments")
    for n in range(1, max_order + 1):
        fitted = _fit_order(n, m1, m2, m3)
        if fitted is not None:
            return fitted
    scv = m2 / m1 ** 2 - 1
    raise InputError(f"no hyper-Erlang of common order 1..{max_order} has the moments "
                     f"{m1:.6g}, {m2:.6g}, {m3:.6g} (squared coefficient of variation "
                     f"{scv:.4g}; an order n needs more than 1/n, and a consistent third "
                     f"moment)", field="moments")


def _fit_order(n: int, m1: float, m2: float, m3: float) -> HyperErlang | None:
    """The fit of order ``n`` (see :func:`fit_hyper_erlang`), or None where infeasible."""
    y1, y2, y3 = m1 / n, m2 / rising_factorial(n, 2), m3 / rising_factorial(n, 3)
    d = y2 - y1 * y1
    if not d > 1e-12 * y2:
        return None
    s = (y3 - y1 * y2) / d
    q = (y1 * y3 - y2 * y2) / d
    discriminant = s * s - 4 * q
    if not discriminant > 0:
        return None
    root = math.sqrt(discriminant)
    a, b = (s + root) / 2, (s - root) / 2
    if not b > 0:
        return None
    p = (y1 - b) / (a - b)
    if not 0 <= p <= 1:
        return None
    return HyperErlang(order=n, p=p, rate1=1 / a, rate2=1 / b)


def fit_sample(values: np.ndarray, *, what: str = "sample") -> HyperErlang:
    """The three-moment fit of a sample's raw moments (``what`` names it in errors)."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) < 3 or not np.any(x > 0):
        raise InputError(f"{what}: expected at least 3 values, not all 0, for a three-moment "
                         f"fit, got {len(x)}", field="moments")
    moments = [float(np.mean(x ** k)) for k in (1, 2, 3)]
    try:
        return fit_hyper_erlang(*moments)
    except InputError as err:
        raise InputError(f"{what}: {err.reason}", field="moments") from None


# --------------------------------------------------------------------------- the workload model


@dataclass(frozen=True)
class SizeRange:
    """The jobs of widths ``low..high``: their widths and the two fits (Jann et al. 1997).

    ``widths``/``counts`` are the histogram of the widths seen in the range
    (a generated job draws its width from it); ``interarrival`` is the fit of
    the gaps between consecutive jobs of the range, ``service`` of their
    runtimes.  ``jobs`` is how many jobs of the source fell into the range.
    """

    low: int
    high: int
    jobs: int
    widths: tuple[int, ...]
    counts: tuple[int, ...]
    interarrival: HyperErlang
    service: HyperErlang

    @property
    def rate(self) -> float:
        """Arrivals per second of this range's stream."""
        return 1.0 / self.interarrival.mean

    @property
    def mean_width(self) -> float:
        """The histogram's mean width."""
        return float(np.average(self.widths, weights=self.counts))


@dataclass(frozen=True)
class HyperErlangModel:
    """Per-size-range hyper-Erlang fits of a trace; ``processors`` is its machine size.

    ``width_unit`` processors of the source were counted as one (widths
    divided by it, rounded up); ``calibration`` records how a built-in model
    was derived from its trace (empty for a plain fit).
    """

    source: str
    processors: int
    width_unit: int
    ranges: tuple[SizeRange, ...]
    calibration: dict[str, Any]

    @property
    def max_width(self) -> int:
        """The widest job the model can generate."""
        return max(max(r.widths) for r in self.ranges)

    def share_below(self, x: float) -> float:
        """Expected share of generated jobs with a service time ``<= x`` (rate-weighted)."""
        rates = np.array([r.rate for r in self.ranges])
        below = np.array([float(r.service.cdf(x)) for r in self.ranges])
        return float(rates @ below / rates.sum())

    def mean_service(self) -> float:
        """Expected mean service time of a generated job."""
        rates = np.array([r.rate for r in self.ranges])
        return float(rates @ [r.service.mean for r in self.ranges] / rates.sum())

    def offered_load(self, processors: int | None = None) -> float:
        """Expected offered load: sum over ranges of rate x mean width x mean service / machine."""
        machine = self.processors if processors is None else processors
        return sum(r.rate * r.mean_width * r.service.mean for r in self.ranges) / machine

    def with_service_scale(self, factor: float) -> HyperErlangModel:
        """Every service time multiplied by ``factor`` (same arrivals)."""
        return replace(self, ranges=tuple(replace(r, service=r.service.scaled(factor))
                                          for r in self.ranges))

    def with_arrival_scale(self, factor: float) -> HyperErlangModel:
        """Every interarrival time multiplied by ``factor`` (the arrival rate divided by it)."""
        return replace(self, ranges=tuple(replace(r, interarrival=r.interarrival.scaled(factor))
                                          for r in self.ranges))

    def to_dict(self) -> dict[str, Any]:
        """The model as a JSON-ready document (the model file format, docs/reference/models.md)."""
        return {
            "format": FORMAT_NAME, "version": FORMAT_VERSION, "source": self.source,
            "processors": self.processors, "width_unit": self.width_unit,
            "calibration": self.calibration,
            "ranges": [{"low": r.low, "high": r.high, "jobs": r.jobs,
                        "widths": list(r.widths), "counts": list(r.counts),
                        "interarrival": r.interarrival.to_dict(),
                        "service": r.service.to_dict()} for r in self.ranges],
        }


def power_of_two_edges(max_width: int) -> list[int]:
    """Lower bounds of the ranges 1, 2, 3-4, 5-8, ..., up to ``max_width`` (Jann et al. 1997)."""
    edges, upper = [1], 2
    while upper <= max_width:
        edges.append(upper)
        upper = 2 * upper - 1
    return edges


def fit_workload(workload: Workload, *, size_edges: Sequence[int] | None = None,
                 width_unit: int = 1) -> HyperErlangModel:
    """Fit interarrival and service times per job-size range (Jann et al. 1997).

    ``size_edges`` are the ranges' lower bounds, starting at 1 (default
    powers of two: 1, 2, 3-4, 5-8, ...); the last range ends at the widest
    job.  Widths are first divided by ``width_unit`` (rounded up).  Each
    non-empty range needs :data:`MIN_RANGE_JOBS` jobs; InputError otherwise.
    """
    _check_integer(width_unit, "width_unit")
    columns = workload.to_arrays()
    if len(columns["id"]) < MIN_RANGE_JOBS:
        raise InputError(f"the trace has {len(columns['id'])} jobs; a fit needs at least "
                         f"{MIN_RANGE_JOBS}", file=workload.name)
    widths = -(-columns["width"] // width_unit)
    edges = (power_of_two_edges(int(widths.max())) if size_edges is None
             else _checked_edges(size_edges))
    ranges = fit_ranges(columns["submit"], columns["runtime"].astype(np.float64), widths,
                        edges, source=workload.name)
    processors = -(-workload.processors // width_unit)
    return HyperErlangModel(source=workload.name, processors=max(processors, int(widths.max())),
                            width_unit=width_unit, ranges=ranges, calibration={})


def fit_ranges(submits: np.ndarray, services: np.ndarray, widths: np.ndarray,
               edges: Sequence[int], *, source: str) -> tuple[SizeRange, ...]:
    """One :class:`SizeRange` per non-empty range ``[edges[i], edges[i+1])`` (the last open)."""
    bounds = list(edges) + [int(widths.max()) + 1]
    ranges = []
    for low, stop in itertools.pairwise(bounds):
        inside = (widths >= low) & (widths < stop)
        jobs = int(inside.sum())
        if jobs == 0:
            continue
        label = f"size range {low}-{stop - 1}"
        if jobs < MIN_RANGE_JOBS:
            raise InputError(f"{label} has {jobs} jobs; a fit needs at least {MIN_RANGE_JOBS} "
                             f"per range (choose coarser ranges with --size-edges)",
                             file=source)
        gaps = np.diff(np.sort(submits[inside])).astype(np.float64)
        values, counts = np.unique(widths[inside], return_counts=True)
        ranges.append(SizeRange(
            low=low, high=stop - 1, jobs=jobs, widths=tuple(values.tolist()),
            counts=tuple(counts.tolist()),
            interarrival=_fit_or_explain(gaps, f"{label}, interarrival times", source),
            service=_fit_or_explain(services[inside], f"{label}, service times", source)))
    return tuple(ranges)


def _fit_or_explain(values: np.ndarray, what: str, source: str) -> HyperErlang:
    """:func:`fit_sample` with the trace named in the error."""
    try:
        return fit_sample(values, what=what)
    except InputError as err:
        raise InputError(err.reason, file=source) from None


def _checked_edges(edges: Sequence[int]) -> list[int]:
    """Strictly increasing integer lower bounds starting at 1."""
    values = list(edges)
    if not values or values[0] != 1 or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values) or any(
            b <= a for a, b in itertools.pairwise(values)):
        raise InputError(f"expected strictly increasing integer lower bounds starting at 1, "
                         f"got {values}", field="size_edges")
    return [int(v) for v in values]


def _check_integer(value: Any, name: str) -> None:
    """An integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"expected an integer >= 1, got {value!r}", field=name)


# --------------------------------------------------------------------------- the generator


def generate_hyper_erlang(model: HyperErlangModel, n_jobs: int = DEFAULT_JOBS,
                          seed: int = 0, *, processors: int | None = None,
                          name: str | None = None) -> Workload:
    """``n_jobs`` jobs from the model: one arrival stream per size range, merged.

    Each range has its own generator (spawned from ``seed``) and draws its
    interarrival gaps, then its jobs' widths (from the range's histogram)
    and service times; the streams are merged by arrival time (ties: lower
    range first) and the first ``n_jobs`` kept.  Submit times are the real
    arrival times truncated to whole seconds; runtimes are rounded, at least
    1 s.  The estimate is the runtime: the model has no user estimates
    (gang scheduling needs none), so estimates are perfect by construction.
    """
    _check_integer(n_jobs, "n_jobs")
    machine = model.processors if processors is None else processors
    _check_integer(machine, "processors")
    if machine < model.max_width:
        raise InputError(f"the model '{model.source}' has jobs of width {model.max_width}; "
                         f"expected a machine of at least that many processors, got {machine}",
                         field="processors")
    rngs = np.random.default_rng(seed).spawn(len(model.ranges))
    arrivals = _arrival_streams(model, n_jobs, rngs)
    times = np.concatenate(arrivals)
    range_of = np.concatenate([np.full(len(a), i) for i, a in enumerate(arrivals)])
    chosen = np.lexsort((range_of, times))[:n_jobs]
    taken = np.bincount(range_of[chosen], minlength=len(model.ranges))
    widths, services = [], []
    for size_range, rng, count in zip(model.ranges, rngs, taken.tolist()):
        widths.append(_draw_widths(size_range, count, rng))
        services.append(size_range.service.sample(count, rng))
    # Within a range the kept arrivals are its first ``count``, in time order.
    order = np.argsort(range_of[chosen], kind="stable")
    width = np.empty(n_jobs, dtype=np.int64)
    runtime = np.empty(n_jobs, dtype=np.int64)
    width[order] = np.concatenate(widths)
    runtime[order] = np.maximum(1, np.rint(np.concatenate(services))).astype(np.int64)
    submit = np.floor(times[chosen]).astype(np.int64)
    jobs = tuple(Job(i + 1, s, r, r, w) for i, (s, r, w) in enumerate(
        zip(submit.tolist(), runtime.tolist(), width.tolist())))
    return Workload(jobs=jobs, processors=int(machine), name=name or f"{model.source}-he",
                    header={"MaxJobs": str(n_jobs), "MaxProcs": str(machine),
                            "Note": f"hyper-Erlang model (Jann et al. 1997) of {model.source}, "
                                    f"perfect estimates (estimate = runtime), seed {seed}"},
                    skipped={})


def _arrival_streams(model: HyperErlangModel, n_jobs: int,
                     rngs: list[np.random.Generator]) -> list[np.ndarray]:
    """Arrival times per range, each stream extended until the first ``n_jobs`` are settled.

    Every stream covers the time ``T`` where the earliest-ending stream
    stops, so all arrivals before ``T`` are known; streams are extended (the
    one ending first, by a chunk) until at least ``n_jobs`` arrive before ``T``.
    """
    rates = np.array([r.rate for r in model.ranges])
    chunks = np.ceil(1.2 * n_jobs * rates / rates.sum()).astype(int) + 16
    streams = [np.cumsum(r.interarrival.sample(int(c), rng))
               for r, c, rng in zip(model.ranges, chunks, rngs)]
    while True:
        ends = [s[-1] for s in streams]
        horizon = min(ends)
        if sum(int(np.searchsorted(s, horizon, side="right")) for s in streams) >= n_jobs:
            return streams
        i = int(np.argmin(ends))
        more = model.ranges[i].interarrival.sample(int(chunks[i]), rngs[i])
        streams[i] = np.concatenate([streams[i], streams[i][-1] + np.cumsum(more)])


def _draw_widths(size_range: SizeRange, count: int, rng: np.random.Generator) -> np.ndarray:
    """Widths by the inverse CDF of the range's histogram."""
    cumulative = np.cumsum(size_range.counts)
    index = np.searchsorted(cumulative, rng.random(count) * cumulative[-1], side="right")
    return np.asarray(size_range.widths, dtype=np.int64)[np.minimum(index, len(cumulative) - 1)]


# --------------------------------------------------------------------------- model files


def save_model(model: HyperErlangModel, path: str | Path) -> None:
    """Write the model as JSON (one range per line), atomically."""
    from schedlab.atomic import atomic_write_bytes

    document = model.to_dict()
    ranges = document.pop("ranges")
    lines = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()]
    lines.append('  "ranges": [\n' + ",\n".join(f"    {json.dumps(r)}" for r in ranges) + "\n  ]")
    atomic_write_bytes(path, ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8"))


def load_model(path: str | Path) -> HyperErlangModel:
    """Read a model file written by :func:`save_model`; every problem is an InputError."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the model file: {err.strerror or err}",
                         file=str(path)) from None
    return model_from_bytes(data, str(path))


def model_from_bytes(data: bytes, source: str) -> HyperErlangModel:
    """Parse and check a model document, naming the field of any problem."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"not a JSON document ({getattr(err, 'msg', err)})", file=source,
                         line=getattr(err, "lineno", None)) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise InputError(f"not a hyper-Erlang model file (expected \"format\": "
                         f"\"{FORMAT_NAME}\")", file=source, field="format")
    check = _FieldChecker(source)
    if document.get("version") != FORMAT_VERSION:
        raise check.fail("version", f"format version {FORMAT_VERSION}", document.get("version"))
    ranges = document.get("ranges")
    if not isinstance(ranges, list) or not ranges:
        raise check.fail("ranges", "a non-empty list of size ranges", ranges)
    calibration = document.get("calibration", {})
    if not isinstance(calibration, dict):
        raise check.fail("calibration", "an object", calibration)
    model = HyperErlangModel(
        source=str(document.get("source", source)),
        processors=check.integer(document.get("processors"), "processors"),
        width_unit=check.integer(document.get("width_unit"), "width_unit"),
        ranges=tuple(check.size_range(r, f"ranges[{i}]") for i, r in enumerate(ranges)),
        calibration=calibration)
    if model.max_width > model.processors:
        raise check.fail("processors", f"at least the widest job ({model.max_width})",
                         model.processors)
    return model


class _FieldChecker:
    """Checks the fields of a model document; errors name the file and the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, name: str, expected: str, got: Any) -> InputError:
        """The error for one field."""
        shown = json.dumps(got)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return InputError(f"expected {expected}, got {shown}", file=self.source, field=name)

    def integer(self, value: Any, name: str) -> int:
        """An integer >= 1."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(name, "an integer >= 1", value)
        return value

    def rate(self, value: Any, name: str) -> float:
        """A finite number > 0."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value <= 0:
            raise self.fail(name, "a finite number > 0", value)
        return float(value)

    def distribution(self, value: Any, name: str) -> HyperErlang:
        """The four parameters of a hyper-Erlang."""
        if not isinstance(value, dict):
            raise self.fail(name, "an object with order, p, rate1, rate2", value)
        p = value.get("p")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise self.fail(f"{name}.p", "a probability in [0, 1]", p)
        return HyperErlang(order=self.integer(value.get("order"), f"{name}.order"), p=float(p),
                           rate1=self.rate(value.get("rate1"), f"{name}.rate1"),
                           rate2=self.rate(value.get("rate2"), f"{name}.rate2"))

    def size_range(self, value: Any, name: str) -> SizeRange:
        """One size range: bounds, width histogram inside them, two distributions."""
        if not isinstance(value, dict):
            raise self.fail(name, "an object", value)
        low = self.integer(value.get("low"), f"{name}.low")
        high = self.integer(value.get("high"), f"{name}.high")
        widths, counts = value.get("widths"), value.get("counts")
        if not isinstance(widths, list) or not widths or not all(
                isinstance(w, int) and not isinstance(w, bool) and low <= w <= high
                for w in widths):
            raise self.fail(f"{name}.widths", f"a list of widths in [{low}, {high}]", widths)
        if not isinstance(counts, list) or len(counts) != len(widths) or not all(
                isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in counts):
            raise self.fail(f"{name}.counts", "one count >= 1 per width", counts)
        return SizeRange(low=low, high=high, jobs=self.integer(value.get("jobs"), f"{name}.jobs"),
                         widths=tuple(widths), counts=tuple(counts),
                         interarrival=self.distribution(value.get("interarrival"),
                                                        f"{name}.interarrival"),
                         service=self.distribution(value.get("service"), f"{name}.service"))


def resolve_model(source: str, *, size_edges: Sequence[int] | None = None, width_unit: int = 1,
                  width_field: WidthField = "requested",
                  missing_estimate: MissingEstimate = "use-runtime") -> HyperErlangModel:
    """A model from a model file (``*.json``) or a fit of an SWF trace."""
    path = Path(source)
    if not path.is_file():
        raise InputError("no such file (expected an SWF trace or a hyper-Erlang model "
                         ".json file)", file=source)
    if source.lower().endswith(".json"):
        return load_model(path)
    from schedlab.workload.swf import read_swf

    trace = read_swf(path, width_field=width_field, missing_estimate=missing_estimate)
    return fit_workload(trace, size_edges=size_edges, width_unit=width_unit)


# --------------------------------------------------------------------------- the family w0..w8


@cache
def family_baseline() -> HyperErlangModel:
    """The calibrated baseline w0 (package data, read once per process)."""
    data = resources.files("schedlab.workload.models").joinpath("data", FAMILY_FILE).read_bytes()
    return model_from_bytes(data, FAMILY_FILE)


def family_service_factor(index: int) -> float:
    """wi's service times are w0's times ``(BASE_LOAD + i * LOAD_STEP) / BASE_LOAD``."""
    return (BASE_LOAD + index * LOAD_STEP) / BASE_LOAD


def family_model(index: int, base_load: float | None = None,
                 load_step: float | None = None, order: int | None = None) -> HyperErlangModel:
    """The model of ``w<index>``: the shipped baseline with its arrivals scaled so that w0's
    expected offered load is ``base_load``, and its service times scaled by
    ``(base_load + index * load_step) / base_load`` (paper 001, §4: a higher mean service
    time at a fixed arrival rate).  Defaults: :data:`BASE_LOAD`, :data:`LOAD_STEP`.

    ``order`` is the common order of the service distribution
    (:func:`family_service_shape`); None keeps the shipped one (the smallest feasible,
    order 1).  The mean service time, and so the offered load, is the same at every order.

    The calibration of the family (docs/reference/models.md) calls this with other loads; at the
    defaults it is the shipped baseline itself (an arrival scale of exactly 1).
    """
    base = BASE_LOAD if base_load is None else base_load
    step = LOAD_STEP if load_step is None else load_step
    if not 0 <= index < FAMILY_SIZE:
        raise InputError(f"expected a workload index 0..{FAMILY_SIZE - 1}, got {index}",
                         field="model")
    if not base > 0 or step < 0:
        raise InputError(f"expected a positive base load and a step >= 0, got {base} and "
                         f"{step}", field="model")
    baseline = family_baseline()
    if order is not None and order != baseline.ranges[0].service.order:
        shape = family_service_shape(order)
        baseline = replace(baseline, ranges=tuple(replace(r, service=shape)
                                                  for r in baseline.ranges))
    model = baseline.with_arrival_scale(baseline.calibration["offered_load"] / base)
    return model.with_service_scale((base + index * step) / base)


@cache
def family_service_shape(order: int) -> HyperErlang:
    """The family's service distribution at common order ``order``: the three conditions
    of :func:`build_family_baseline` (25 % below 150 s, 25 % above 6000 s, the trace's
    mean) solved at that order (our reading; docs/reference/models.md, "The order")."""
    _check_integer(order, "order")
    return _solve_shape(family_baseline().calibration["mean_service"], order)


def gang_workload(index: int, n_jobs: int = DEFAULT_JOBS,
                  processors: int = FAMILY_PROCESSORS, seed: int = 0,
                  order: int | None = None) -> Workload:
    """Workload ``w<index>`` of paper 001 (§4), our reading: w0 with service times scaled.

    The same seed gives the same arrivals and widths in every wi, and
    runtimes that are w0's (before rounding) times :func:`family_service_factor`.
    ``order`` is the order of the service distribution (:func:`family_model`); a
    workload of another order than the shipped one is named ``w<index>-order<order>``.
    """
    shipped = order is None or order == family_baseline().ranges[0].service.order
    return generate_hyper_erlang(family_model(index, order=order), n_jobs, seed,
                                 processors=processors,
                                 name=f"w{index}" if shipped else f"w{index}-order{order}")


def build_family_baseline(trace: Workload) -> HyperErlangModel:
    """Fit and calibrate the baseline w0 from the Blue Horizon trace (our reading, docs/reference/models.md).

    1. Widths in nodes (``FAMILY_WIDTH_UNIT`` processors), power-of-two size
       ranges; per range the width histogram and the three-moment
       interarrival fit of the trace.
    2. Service times: the three-moment fits of the trace's runtimes put only
       15 % of the jobs below 150 s and 10 % above 6000 s, where paper 001 §5
       has about 25 % each, and no scaling reaches both.  So all ranges share
       one service distribution, solved (smallest feasible order) from three
       conditions: 25 % of the jobs below 150 s, 25 % above 6000 s (§5), and
       the mean of the trace's runtimes (its first moment, as in Jann et al.).
    3. Interarrival times: multiplied by one factor so that the expected
       offered load on 256 processors is ``BASE_LOAD``, the load at which
       Strategy 1 fills the slots as the paper's w0 does (:data:`SLOTS_TARGET`).
    """
    columns = trace.to_arrays()
    widths = -(-columns["width"] // FAMILY_WIDTH_UNIT)
    ranges = fit_ranges(columns["submit"], columns["runtime"].astype(np.float64), widths,
                        power_of_two_edges(int(widths.max())), source=trace.name)
    model = HyperErlangModel(source=trace.name, processors=FAMILY_PROCESSORS,
                             width_unit=FAMILY_WIDTH_UNIT, ranges=ranges, calibration={})
    mean = float(np.mean(columns["runtime"]))
    shape = _solve_shape(mean)
    model = replace(model, ranges=tuple(replace(r, service=shape) for r in ranges))
    arrival = model.offered_load() / BASE_LOAD
    model = model.with_arrival_scale(arrival)
    return replace(model, calibration={
        "trace": trace.name, "width_unit": FAMILY_WIDTH_UNIT, "mean_service": mean,
        "arrival_factor": arrival, "offered_load": BASE_LOAD, "short_below": SHORT_LIMIT,
        "long_above": LONG_LIMIT, "target_share": TARGET_SHARE,
        "load_calibrated_against": SLOTS_TARGET})


def _solve_shape(mean: float, order: int | None = None) -> HyperErlang:
    """The service distribution of :func:`build_family_baseline`: the smallest feasible
    order, or exactly ``order``.

    Unknowns ``p``, ``rate1``, ``rate2`` (logistic and log scales); equations:
    the shares below ``SHORT_LIMIT`` and above ``LONG_LIMIT`` are
    ``TARGET_SHARE`` and the mean is ``mean``.  Raises InputError when no
    order tried solves them.
    """
    from scipy.optimize import least_squares

    def shape_of(z: np.ndarray, order: int) -> HyperErlang:
        return HyperErlang(order, float(1 / (1 + np.exp(-z[0]))), float(np.exp(z[1])),
                           float(np.exp(z[2])))

    def residuals(z: np.ndarray, order: int) -> list[float]:
        shape = shape_of(z, order)
        return [float(shape.cdf(SHORT_LIMIT)) - TARGET_SHARE,
                1 - float(shape.cdf(LONG_LIMIT)) - TARGET_SHARE, shape.mean / mean - 1]

    orders = range(1, MAX_ORDER + 1) if order is None else (order,)
    for n in orders:
        start = np.array([0.0, -math.log(2 * mean), -math.log(0.05 * mean)])
        solution = least_squares(residuals, start, args=(n,), xtol=1e-15, ftol=1e-15,
                                 gtol=1e-15)
        if max(abs(v) for v in solution.fun) < 1e-9:
            shape = shape_of(solution.x, n)
            return shape if shape.rate1 <= shape.rate2 else HyperErlang(
                n, 1 - shape.p, shape.rate2, shape.rate1)
    tried = f"1..{MAX_ORDER}" if order is None else str(order)
    raise InputError(f"no hyper-Erlang of order {tried} gives {TARGET_SHARE:.0%} of the "
                     f"jobs below {SHORT_LIMIT} s and above {LONG_LIMIT} s with mean {mean:.0f} s",
                     field="order" if order is not None else "mean")
