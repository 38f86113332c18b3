"""Streit's synthetic job sets: the trace analyzer and the job generator (Streit 2002, §4).

A. Streit, "A Self-Tuning Job Scheduler Family with Dynamic Policy
Switching", JSSPP 2002, §4: a trace is analysed into

* a **Weibull distribution of the interarrival times**,
  ``F(x) = 1 - exp(-(x / beta) ** alpha)`` — "the submission time of all
  jobs is best expressed by a Weibull distribution";
* a **3-dimensional probability matrix** over (width, estimated runtime,
  actual runtime) — the three properties "could not be expressed by any
  distribution although they are dependent on each other".

The generator draws a job's interarrival time from the Weibull distribution
and its width, estimate and runtime from the matrix.  The paper leaves the
details to Krallmann's thesis [9]; the choices made here are documented in
docs/reference/models.md ("Streit's synthetic job sets") and summarised below.

**Binning** (the three axes of the matrix):

* width: power-of-two classes ``{1}, {2}, 3-4, 5-8, ..., 2^(k-1)+1 - 2^k``
  (``width_bins="pow2"``) or one class per width (``"exact"``);
* estimate: ``estimate_bins`` log-spaced bins per decade, integer edges
  ``round(10 ** (k / estimate_bins))`` (duplicates removed), from 1 s;
* actual runtime: binned by the fraction of the estimate it used,
  ``q = runtime / estimate``, on a scale that is log-spaced towards each end
  with ``runtime_bins`` bins per decade: ``q = 0``; ``q`` in
  ``[0.5 * 10**(-k/B), 0.5 * 10**(-(k-1)/B))`` (short runs);
  ``1 - q`` in the mirrored bins (runs that stop just before their
  estimate); ``q = 1``; ``q - 1`` in log-spaced bins (runs past the
  estimate).  Binning by the fraction keeps the relation between runtime
  and estimate — a job that ran 99.9 % of its estimate, or past it, is
  generated as such — which absolute runtime bins lose (docs/reference/models.md
  has the measurements).

**Within a bin** the generator draws widths and estimates from the
empirical histogram of the values that fell into that bin (so the model
keeps the users' round estimates, Streit's Fig. 1 staircase, and the exact
minimum and maximum), and the runtime fraction log-uniformly within its
bin on the bin's own scale (``q``, ``1 - q`` or ``q - 1``).

The model is small (a few thousand non-empty cells) and is saved as JSON
(gzip-compressed when the file name ends in ``.gz``).
"""

from __future__ import annotations

import decimal
import gzip
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload

if TYPE_CHECKING:
    from schedlab.workload.stats import TraceStatistics, WeibullMethod

FORMAT_NAME = "schedlab-streit-model"
FORMAT_VERSION = 1
DEFAULT_ESTIMATE_BINS = 4       # bins per decade of the estimate
DEFAULT_RUNTIME_BINS = 6        # bins per decade of the runtime fraction scale
DEFAULT_JOBS = 10_000           # Streit 2002, §4: "synthetic job sets with 10 000 jobs each"
WidthBinning = Literal["pow2", "exact"]

# Kinds of runtime-fraction bins, in the order they appear on the axis.
ZERO, SHORT, NEAR, EQUAL, OVER = "zero", "short", "near", "equal", "over"
RATIO_KINDS = (ZERO, SHORT, NEAR, EQUAL, OVER)

#: Built-in parameter files: name -> (file in models/data, job-set name, source trace).
#: The files are the analyzer's output (default options) for the traces in the
#: Parallel Workloads Archive named here (docs/reference/models.md: how to rebuild them).
BUILTIN_PARAMETERS: dict[str, tuple[str, str, str]] = {
    "kth": ("kth.json", "KTH_syn", "KTH-SP2-1996-2.1-cln.swf.gz"),
    "sdscblue": ("sdscblue.json", "SDSCBLUE_syn", "SDSC-BLUE-2000-4.2-cln.swf.gz"),
    "nasa": ("nasa.json", "NASA_syn", "NASA-iPSC-1993-3.1-cln.swf.gz"),
    "lublin256": ("lublin256.json", "LUBLIN256_syn", "lublin_256.swf.gz"),
}


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class BinnedValues:
    """One integer axis of the matrix: bins ``[edges[i], edges[i+1])`` and, per bin,
    the distinct values that fell into it with their job counts (Streit 2002, §4)."""

    edges: np.ndarray
    values: tuple[np.ndarray, ...]
    counts: tuple[np.ndarray, ...]

    @property
    def n_bins(self) -> int:
        """Number of bins (one fewer than edges)."""
        return len(self.edges) - 1

    def totals(self) -> np.ndarray:
        """Jobs per bin."""
        return np.array([int(c.sum()) for c in self.counts], dtype=np.int64)

    def draw(self, bins: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The value of each job: inverse CDF of its bin's histogram at the uniform ``u``."""
        flat_values = np.concatenate(self.values)
        cumulative = np.cumsum(np.concatenate(self.counts))
        last = np.cumsum([len(v) for v in self.values]) - 1
        before = np.concatenate([[0], np.cumsum(self.totals())])[:-1]
        target = before[bins] + u * self.totals()[bins]
        index = np.searchsorted(cumulative, target, side="right")
        return flat_values[np.minimum(index, last[bins])]


@dataclass(frozen=True)
class RatioBins:
    """The runtime axis: bins of ``q = runtime / estimate`` (see the module docstring).

    ``kinds[i]`` is one of :data:`RATIO_KINDS`; ``low[i]``/``high[i]`` bound
    ``q`` (``[low, high)``; both 0 for ``zero``, both 1 for ``equal``).
    """

    kinds: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray

    @property
    def n_bins(self) -> int:
        """Number of runtime bins."""
        return len(self.kinds)

    def assign(self, fraction: np.ndarray) -> np.ndarray:
        """The bin of each runtime fraction ``q``."""
        kinds = np.array(self.kinds)
        result = np.empty(len(fraction), dtype=np.int64)
        groups = ((fraction == 0, (ZERO,)), (fraction == 1, (EQUAL,)),
                  ((fraction > 0) & (fraction < 1), (SHORT, NEAR)), (fraction > 1, (OVER,)))
        for selected, group in groups:
            candidates = np.flatnonzero(np.isin(kinds, group))   # increasing lower bounds
            position = np.searchsorted(self.low[candidates], fraction[selected], side="right") - 1
            result[selected] = candidates[np.clip(position, 0, len(candidates) - 1)]
        return result

    def runtimes(self, bins: np.ndarray, estimate: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Runtimes for jobs with these fraction bins and estimates, drawn with the uniforms ``u``.

        The fraction is log-uniform on the bin's own scale: ``q`` for short
        runs, ``1 - q`` for runs near the estimate, ``q - 1`` past it.  A run
        below the estimate takes ``floor(estimate * q)`` kept within
        ``[1, estimate - 1]`` (0 when the estimate is 1 s); a run past it
        ``ceil(estimate * q)``, at least ``estimate + 1``.
        """
        kinds = np.array(self.kinds)[bins]
        low, high = self.low[bins], self.high[bins]
        fraction = np.ones(len(bins))
        short = kinds == SHORT
        fraction[short] = _log_uniform(low[short], high[short], u[short])
        near = kinds == NEAR
        fraction[near] = 1 - _log_uniform(1 - high[near], 1 - low[near], 1 - u[near])
        over = kinds == OVER
        fraction[over] = 1 + _log_uniform(low[over] - 1, high[over] - 1, u[over])
        scaled = estimate * fraction
        below = np.maximum(np.minimum(np.maximum(np.floor(scaled), 1), estimate - 1), 0)
        past = np.maximum(np.ceil(scaled), estimate + 1)
        runtime = np.where(short | near, below, np.where(over, past, estimate))
        return np.where(kinds == ZERO, 0, runtime).astype(np.int64)


def _log_uniform(low: np.ndarray, high: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``low * (high / low) ** u``: log-uniform on ``[low, high)`` (all > 0)."""
    return low * (high / low) ** u


@dataclass(frozen=True)
class StreitModel:
    """The output of Streit's trace analyzer (Streit 2002, §4, Table 2).

    ``cells`` holds the non-empty cells of the 3-D matrix as rows (width
    class, estimate bin, runtime bin) and ``counts`` the jobs in each; the
    probability of a cell is its share of all jobs (:meth:`probabilities`).
    ``statistics`` are the Table 2 rows of the analysed trace
    (:class:`~schedlab.workload.stats.TraceStatistics` fields; NaN as None),
    kept so that a generated set can be compared with its source without
    the trace.
    """

    source: str
    processors: int
    weibull_alpha: float
    weibull_beta: float
    weibull_method: str
    widths: BinnedValues
    estimates: BinnedValues
    runtimes: RatioBins
    cells: np.ndarray
    counts: np.ndarray
    statistics: Mapping[str, float | int | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Built-in models are cached and shared: make their arrays read-only.
        for array in (self.cells, self.counts, self.runtimes.low, self.runtimes.high,
                      self.widths.edges, self.estimates.edges, *self.widths.values,
                      *self.widths.counts, *self.estimates.values, *self.estimates.counts):
            array.setflags(write=False)

    @property
    def shape(self) -> tuple[int, int, int]:
        """(width classes, estimate bins, runtime bins)."""
        return self.widths.n_bins, self.estimates.n_bins, self.runtimes.n_bins

    @property
    def max_width(self) -> int:
        """The widest job the model can generate."""
        return max(int(v.max()) for v in self.widths.values if len(v))

    def probabilities(self) -> np.ndarray:
        """The dense 3-D probability matrix (width class x estimate bin x runtime bin)."""
        matrix = np.zeros(self.shape)
        matrix[tuple(self.cells.T)] = self.counts / self.counts.sum()
        return matrix

    def source_statistics(self) -> TraceStatistics:
        """The source trace's Table 2 rows as a TraceStatistics."""
        from schedlab.workload.stats import TraceStatistics  # scipy: loaded only when needed

        rows: dict[str, Any] = {key: math.nan if value is None else value
                                for key, value in self.statistics.items()}
        try:
            return TraceStatistics(**rows)
        except TypeError as err:
            raise InputError(f"model '{self.source}': the source statistics do not hold the "
                             f"rows of Table 2 ({err})", field="statistics") from None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the model (format described in docs/reference/models.md)."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "source": self.source,
            "processors": self.processors,
            "interarrival": {"distribution": "weibull", "alpha": self.weibull_alpha,
                             "beta": self.weibull_beta, "method": self.weibull_method},
            "width": _binned_dict(self.widths),
            "estimate": _binned_dict(self.estimates),
            "runtime": {"kind": list(self.runtimes.kinds), "low": self.runtimes.low.tolist(),
                        "high": self.runtimes.high.tolist()},
            "cells": {"width": self.cells[:, 0].tolist(), "estimate": self.cells[:, 1].tolist(),
                      "runtime": self.cells[:, 2].tolist(), "count": self.counts.tolist()},
            "statistics": dict(self.statistics),
        }


def _binned_dict(axis: BinnedValues) -> dict[str, list]:
    """One integer axis as JSON lists."""
    return {"edges": axis.edges.tolist(), "values": [v.tolist() for v in axis.values],
            "counts": [c.tolist() for c in axis.counts]}


# --------------------------------------------------------------------------- the analyzer


def analyze_trace(workload: Workload, *, width_bins: WidthBinning = "pow2",
                  estimate_bins: int = DEFAULT_ESTIMATE_BINS,
                  runtime_bins: int = DEFAULT_RUNTIME_BINS,
                  weibull_method: WeibullMethod = "moments") -> StreitModel:
    """Streit's trace analyzer (Streit 2002, §4): Weibull interarrivals + the 3-D matrix.

    The Weibull parameters come from :func:`~schedlab.workload.stats.fit_weibull`
    with ``weibull_method`` — by default the moment fit, because it keeps
    the mean interarrival time (hence the offered load, Table 2/3 row
    "interarrival time avg") exactly; maximum likelihood on KTH gives a mean
    15 % too short (docs/reference/workloads.md).  ``width_bins``, ``estimate_bins``
    and ``runtime_bins`` (bins per decade) set the binning described in the
    module docstring.  Estimates must be >= 1 s (as :func:`read_swf` makes them).
    """
    from schedlab.workload.stats import fit_weibull, trace_statistics

    _check_bins_per_decade("estimate_bins", estimate_bins)
    _check_bins_per_decade("runtime_bins", runtime_bins)
    columns = _checked_columns(workload)
    width, estimate, runtime = columns["width"], columns["estimate"], columns["runtime"]
    alpha, beta = fit_weibull(np.diff(columns["submit"]), method=weibull_method)
    if not (math.isfinite(alpha) and math.isfinite(beta)):
        raise InputError(f"workload '{workload.name}': the interarrival times do not determine "
                         "a Weibull fit (need at least 3 jobs with different gaps)")
    widths = _binned(width, _width_edges(int(width.max()), width_bins))
    estimates = _binned(estimate, _log_edges(int(estimate.max()), estimate_bins))
    fraction = runtime / estimate
    ratios = _ratio_bins(int(estimate.max()), float(fraction.max()), runtime_bins)
    shape = (widths.n_bins, estimates.n_bins, ratios.n_bins)
    flat = np.ravel_multi_index((np.searchsorted(widths.edges, width, side="right") - 1,
                                 np.searchsorted(estimates.edges, estimate, side="right") - 1,
                                 ratios.assign(fraction)), shape)
    occupied, counts = np.unique(flat, return_counts=True)
    cells = np.stack(np.unravel_index(occupied, shape), axis=1)
    statistics = trace_statistics(workload, weibull_method=weibull_method)
    return StreitModel(
        source=workload.name, processors=int(workload.processors),
        weibull_alpha=float(alpha), weibull_beta=float(beta), weibull_method=weibull_method,
        widths=widths, estimates=estimates, runtimes=ratios,
        cells=cells.astype(np.int64), counts=counts.astype(np.int64),
        statistics={key: (None if isinstance(value, float) and math.isnan(value) else value)
                    for key, value in vars(statistics).items()})


def _check_bins_per_decade(name: str, value: int) -> None:
    """Bins per decade must be a whole number from 1 to 100."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 100:
        raise InputError(f"The '{name}' parameter of analyze_trace must be an integer from 1 "
                         f"to 100 (bins per decade). Got {value!r} instead.", field=name)


def _checked_columns(workload: Workload) -> dict[str, np.ndarray]:
    """The job columns, after checking what the analyzer needs: widths and estimates >= 1."""
    if len(workload) < 3:
        raise InputError(f"workload '{workload.name}' has {len(workload)} jobs; the analyzer "
                         "needs at least 3 (two interarrival times)")
    columns = workload.to_arrays()
    for name in ("width", "estimate"):
        bad = np.flatnonzero(columns[name] < 1)
        if bad.size:
            raise InputError(f"workload '{workload.name}': job {columns['id'][bad[0]]} has "
                             f"{name} {columns[name][bad[0]]}; the analyzer needs {name} >= 1",
                             field=name)
    return columns


def _width_edges(max_width: int, binning: WidthBinning) -> np.ndarray:
    """Class edges: power-of-two classes 1, 2, 3-4, 5-8, ... or one class per width."""
    if binning == "exact":
        return np.arange(1, max_width + 2, dtype=np.int64)
    if binning != "pow2":
        raise InputError(f"The 'width_bins' parameter of analyze_trace must be 'pow2' or "
                         f"'exact'. Got {binning!r} instead.", field="width_bins")
    edges = [1, 2]
    while edges[-1] <= max_width:
        edges.append(2 * edges[-1] - 1)
    return np.array(edges, dtype=np.int64)


def _log_edges(max_value: int, per_decade: int) -> np.ndarray:
    """Integer edges ``round(10 ** (k / per_decade))`` from 1 to the first edge above ``max_value``."""
    top = math.ceil(math.log10(max_value + 1) * per_decade) + 1
    edges = np.unique(np.round(10.0 ** (np.arange(top + 1) / per_decade)).astype(np.int64))
    return edges[: np.searchsorted(edges, max_value, side="right") + 1]


def _ratio_bins(max_estimate: int, max_fraction: float, per_decade: int) -> RatioBins:
    """The runtime-fraction axis for a trace (module docstring).

    ``K`` bins per side reach down to ``0.5 * 10**(-K/B) < 1 / max_estimate``,
    the smallest fraction (and distance from 1) a positive integer runtime
    can have; the bins past the estimate reach beyond ``max_fraction``.
    """
    depth = max(0, math.floor(per_decade * math.log10(max_estimate / 2)) + 1)
    steps = [_half_ten_power(-k, per_decade) for k in range(depth, -1, -1)]   # ..., 0.5
    kinds = [ZERO] + [SHORT] * depth + [NEAR] * depth + [EQUAL]
    low = [0.0, *steps[:-1], *(1 - step for step in steps[::-1][:-1]), 1.0]
    high = [0.0, *steps[1:], *(1 - step for step in steps[::-1][1:]), 1.0]
    if max_fraction > 1:
        height = math.floor(per_decade * math.log10(2 * (max_fraction - 1))) + 1
        past = [1 + _half_ten_power(k, per_decade) for k in range(-depth, height + 1)]
        kinds += [OVER] * (len(past) - 1)
        low += past[:-1]
        high += past[1:]
    return RatioBins(tuple(kinds), np.array(low), np.array(high))


def _half_ten_power(k: int, per_decade: int) -> float:
    """``0.5 * 10 ** (k / per_decade)`` rounded once to the nearest float.

    Computed in decimal arithmetic with the exact exponent, so every machine
    gets the same bits: a vectorised float power differs in the last bit
    between CPUs (SIMD variants), which would make the analyzer's output, and
    the built-in parameter files checked against it, machine-dependent.
    """
    with decimal.localcontext() as context:
        context.prec = 40
        return float(decimal.Decimal(10) ** (decimal.Decimal(k) / per_decade) / 2)


def _binned(values: np.ndarray, edges: np.ndarray) -> BinnedValues:
    """The distinct values in each bin with their counts."""
    distinct, counts = np.unique(values, return_counts=True)
    split = np.searchsorted(distinct, edges[1:-1], side="left")
    return BinnedValues(edges, tuple(np.split(distinct.astype(np.int64), split)),
                        tuple(np.split(counts.astype(np.int64), split)))


# --------------------------------------------------------------------------- the generator


def generate_streit(model: StreitModel, n_jobs: int = DEFAULT_JOBS,
                    seed: int | np.random.Generator = 0, *, processors: int | None = None,
                    name: str | None = None) -> Workload:
    """A synthetic job set of ``n_jobs`` jobs from an analyzed trace (Streit 2002, §4).

    As in the paper: the interarrival time from the Weibull distribution,
    then "another three random numbers and the probability matrix" for
    width, estimate and runtime — here four uniforms per job: the cell, then
    the width, the estimate and the runtime within the cell's bins.  The
    first job is submitted at 0; submit times are the running sum of the
    real-valued gaps, truncated to whole seconds (so rounding does not
    accumulate).  Jobs get ids 1..n; ``processors`` overrides the machine
    size (at least the widest job of the model); the name defaults to
    ``<source>_syn``.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise InputError(f"expected a number of jobs >= 1, got {n_jobs!r}", field="n_jobs")
    machine = model.processors if processors is None else processors
    if machine < model.max_width:
        raise InputError(f"the model '{model.source}' has jobs of width {model.max_width}; "
                         f"expected a machine of at least that many processors, got {machine}",
                         field="processors")
    rng = np.random.default_rng(seed)
    submit = _submit_times(model, n_jobs, rng)
    u = rng.random((4, n_jobs))
    cell = model.cells[_draw_cells(model.counts, u[0])]
    width = model.widths.draw(cell[:, 0], u[1])
    estimate = model.estimates.draw(cell[:, 1], u[2])
    runtime = model.runtimes.runtimes(cell[:, 2], estimate, u[3])
    jobs = tuple(Job(i + 1, s, r, e, w) for i, (s, r, e, w) in enumerate(
        zip(submit.tolist(), runtime.tolist(), estimate.tolist(), width.tolist())))
    return Workload(jobs=jobs, processors=int(machine), name=name or f"{model.source}_syn",
                    skipped={})


def _submit_times(model: StreitModel, n_jobs: int, rng: np.random.Generator) -> np.ndarray:
    """0, then the truncated running sum of ``n_jobs - 1`` Weibull(alpha, beta) gaps."""
    gaps = model.weibull_beta * rng.weibull(model.weibull_alpha, n_jobs - 1)
    return np.floor(np.concatenate([[0.0], np.cumsum(gaps)])).astype(np.int64)


def _draw_cells(counts: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Cell index of each job: inverse CDF of the cell counts at the uniform ``u``."""
    cumulative = np.cumsum(counts)
    index = np.searchsorted(cumulative, u * cumulative[-1], side="right")
    return np.minimum(index, len(counts) - 1)


def synthetic_job_set(key: str, n_jobs: int = DEFAULT_JOBS, processors: int | None = None,
                      seed: int = 0) -> Workload:
    """The built-in job set of parameter file ``key`` (``KTH_syn`` for ``"kth"``, ...)."""
    _, set_name, _ = BUILTIN_PARAMETERS[key]
    return generate_streit(load_builtin_model(key), n_jobs, seed, processors=processors,
                           name=set_name)


# --------------------------------------------------------------------------- files


def save_model(model: StreitModel, path: str | Path) -> None:
    """Write the model as JSON (gzip when the name ends in ``.gz``), atomically."""
    from schedlab.atomic import atomic_write_bytes

    document = model.to_dict()
    lines = [f"  {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}"
             for key, value in document.items()]
    payload = ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")
    if str(path).lower().endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    atomic_write_bytes(path, payload)


def load_model(path: str | Path) -> StreitModel:
    """Read a model file written by :func:`save_model` (plain or gzip JSON)."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the model file: {err.strerror or err}",
                         file=source) from None
    return model_from_bytes(data, source)


@cache
def load_builtin_model(key: str) -> StreitModel:
    """A built-in parameter file (:data:`BUILTIN_PARAMETERS`), read once per process."""
    if key not in BUILTIN_PARAMETERS:
        known = ", ".join(sorted(BUILTIN_PARAMETERS))
        raise InputError(f"unknown built-in Streit parameters {key!r}; expected one of: {known}",
                         field="--from")
    filename = BUILTIN_PARAMETERS[key][0]
    data = resources.files("schedlab.workload.models").joinpath("data", filename).read_bytes()
    return model_from_bytes(data, filename)


def resolve_model(source: str, **analyzer_options: Any) -> StreitModel:
    """A model from a model file (``.json``/``.json.gz``), an SWF trace (analysed with
    ``analyzer_options``: ``width_field``, ``missing_estimate`` for the reader and
    the :func:`analyze_trace` keywords) or a built-in parameter name (``kth``, ...)."""
    path = Path(source)
    if path.is_file():
        if is_model_file(source):
            return load_model(path)
        from schedlab.workload.swf import read_swf

        reader_keys = ("width_field", "missing_estimate")
        reader = {k: v for k, v in analyzer_options.items() if k in reader_keys}
        analyzer = {k: v for k, v in analyzer_options.items() if k not in reader_keys}
        return analyze_trace(read_swf(path, **reader), **analyzer)
    if source.lower() in BUILTIN_PARAMETERS:
        return load_builtin_model(source.lower())
    known = ", ".join(sorted(BUILTIN_PARAMETERS))
    raise InputError(f"no such file, and not a built-in Streit parameter name "
                     f"(expected one of: {known})", file=source)


def is_model_file(name: str) -> bool:
    """A model file is named ``*.json`` or ``*.json.gz``."""
    return name.lower().endswith((".json", ".json.gz"))


def model_from_bytes(data: bytes, source: str) -> StreitModel:
    """Parse and check a model document; every problem is an InputError naming the field."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as err:
            raise InputError(f"truncated or corrupt gzip data ({err})", file=source) from None
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        line = getattr(err, "lineno", None)
        raise InputError(f"not a JSON document ({getattr(err, 'msg', err)})", file=source,
                         line=line) from None
    return _ModelReader(document, source).model()


class _ModelReader:
    """Builds a :class:`StreitModel` from a parsed JSON document, checking every field."""

    def __init__(self, document: Any, source: str) -> None:
        self.document = document
        self.source = source

    def fail(self, field_name: str, expected: str, got: Any) -> InputError:
        """The error for one field: what was expected and what the file holds."""
        shown = json.dumps(got)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return InputError(f"expected {expected}, got {shown}", file=self.source,
                          field=field_name)

    def get(self, path: str) -> Any:
        """The value at a dotted path, e.g. ``interarrival.alpha``."""
        node = self.document
        walked: list[str] = []
        for key in path.split("."):
            if not isinstance(node, dict) or key not in node:
                where = ".".join(walked) or "the document"
                raise InputError(f"missing key {key!r} in {where}", file=self.source, field=path)
            node = node[key]
            walked.append(key)
        return node

    def integers(self, path: str, value: Any = None, *, minimum: int = 0) -> np.ndarray:
        """A list of integers >= ``minimum``."""
        value = self.get(path) if value is None else value
        if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value):
            raise self.fail(path, f"a list of integers >= {minimum}", value)
        return np.array(value, dtype=np.int64)

    def number(self, path: str) -> float:
        """A finite number > 0."""
        value = self.get(path)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value <= 0:
            raise self.fail(path, "a finite number > 0", value)
        return float(value)

    def model(self) -> StreitModel:
        """The whole model."""
        if not isinstance(self.document, dict) or self.document.get("format") != FORMAT_NAME:
            raise InputError(f"not a Streit model file (expected \"format\": \"{FORMAT_NAME}\")",
                             file=self.source, field="format")
        if self.get("version") != FORMAT_VERSION:
            raise self.fail("version", f"format version {FORMAT_VERSION}", self.get("version"))
        processors = self.get("processors")
        if isinstance(processors, bool) or not isinstance(processors, int) or processors < 1:
            raise self.fail("processors", "an integer >= 1", processors)
        widths, estimates = self.binned("width"), self.binned("estimate")
        runtimes = self.ratio_bins()
        cells, counts = self.cells((widths, estimates, runtimes))
        model = StreitModel(
            source=str(self.get("source")), processors=processors,
            weibull_alpha=self.number("interarrival.alpha"),
            weibull_beta=self.number("interarrival.beta"),
            weibull_method=str(self.get("interarrival.method")),
            widths=widths, estimates=estimates, runtimes=runtimes, cells=cells, counts=counts,
            statistics=self.statistics())
        if model.max_width > processors:
            raise self.fail("processors", f"at least the widest job ({model.max_width})",
                            processors)
        return model

    def binned(self, axis: str) -> BinnedValues:
        """An integer axis: increasing edges >= 1 and, per bin, increasing values inside it."""
        edges = self.integers(f"{axis}.edges", minimum=1)
        if len(edges) < 2 or np.any(np.diff(edges) <= 0):
            raise self.fail(f"{axis}.edges", "at least 2 strictly increasing edges",
                            edges.tolist())
        values, counts = self.get(f"{axis}.values"), self.get(f"{axis}.counts")
        for name, lists in (("values", values), ("counts", counts)):
            if not isinstance(lists, list) or len(lists) != len(edges) - 1:
                raise self.fail(f"{axis}.{name}", f"one list per bin ({len(edges) - 1})", lists)
        value_arrays, count_arrays = [], []
        for i, (bin_values, bin_counts) in enumerate(zip(values, counts)):
            v = self.integers(f"{axis}.values", bin_values, minimum=edges[i])
            c = self.integers(f"{axis}.counts", bin_counts)
            if len(v) != len(c) or np.any(np.diff(v) <= 0) or np.any(v >= edges[i + 1]):
                raise self.fail(f"{axis}.values", f"increasing values in [{edges[i]}, "
                                f"{edges[i + 1]}) with one count each (bin {i})", bin_values)
            value_arrays.append(v)
            count_arrays.append(c)
        return BinnedValues(edges, tuple(value_arrays), tuple(count_arrays))

    def ratio_bins(self) -> RatioBins:
        """The runtime-fraction bins: known kinds, bounds in the order of the axis."""
        kinds = self.get("runtime.kind")
        if not isinstance(kinds, list) or not all(k in RATIO_KINDS for k in kinds) or not kinds:
            raise self.fail("runtime.kind", f"a list of {', '.join(RATIO_KINDS)}", kinds)
        bounds = []
        for name in ("low", "high"):
            value = self.get(f"runtime.{name}")
            if not isinstance(value, list) or len(value) != len(kinds) or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) for v in value):
                raise self.fail(f"runtime.{name}", f"{len(kinds)} finite numbers", value)
            bounds.append(np.array(value, dtype=np.float64))
        low, high = bounds
        expected = {ZERO: (low == 0) & (high == 0), EQUAL: (low == 1) & (high == 1),
                    SHORT: (low > 0) & (low < high) & (high <= 1),
                    NEAR: (low > 0) & (low < high) & (high < 1),
                    OVER: (low > 1) & (low < high)}
        for i, kind in enumerate(kinds):
            if not expected[kind][i]:
                raise self.fail("runtime.low", f"bounds that fit a '{kind}' bin (bin {i})",
                                [low[i], high[i]])
        return RatioBins(tuple(kinds), low, high)

    def cells(self, axes: tuple) -> tuple[np.ndarray, np.ndarray]:
        """Cell indices within the axes, counts >= 0 with a positive total; empty cells dropped."""
        names = ("width", "estimate", "runtime")
        columns = [self.integers(f"cells.{name}") for name in names]
        counts = self.integers("cells.count")
        if len({len(c) for c in (*columns, counts)}) != 1:
            raise self.fail("cells.count", "as many counts as cells", len(counts))
        for name, column, axis in zip(names, columns, axes):
            if np.any(column >= axis.n_bins):
                raise self.fail(f"cells.{name}", f"bin indices below {axis.n_bins}",
                                int(column.max()))
        keep = counts > 0
        if not keep.any():
            raise self.fail("cells.count", "at least one positive count", counts.tolist()[:5])
        cells = np.stack(columns, axis=1)[keep]
        for name, column, axis in zip(names[:2], cells.T, axes[:2]):
            if np.any(axis.totals()[column] == 0):
                raise self.fail(f"{name}.counts", "a value in every bin a cell uses",
                                int(column[axis.totals()[column] == 0][0]))
        return cells, counts[keep]

    def statistics(self) -> dict[str, float | int | None]:
        """The source's Table 2 rows: a mapping of row name to number (or null)."""
        value = self.get("statistics")
        if not isinstance(value, dict) or not all(
                v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                for v in value.values()):
            raise self.fail("statistics", "an object of numbers", value)
        return value
