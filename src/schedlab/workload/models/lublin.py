"""The Lublin-Feitelson model of rigid parallel jobs.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", J. Parallel Distrib. Comput.
63(11), 2003.  The model has three parts:

* **job size** - a job is serial with probability ``serial_prob``; otherwise
  ``log2(size)`` follows a *two-stage uniform* distribution (uniform on
  ``[u_low, u_med]`` with probability ``u_prob``, else on ``[u_med, u_hi]``,
  ``u_hi = log2(machine size)``), rounded to an integer exponent (a power of
  two) with probability ``pow2_prob``;
* **runtime** - ``ln(runtime)`` follows a *hyper-gamma* distribution (a
  mixture of gamma(a1, b1) and gamma(a2, b2)) whose mixing probability
  ``p = pa * size + pb`` falls linearly with the job size, so wide jobs run
  longer;
* **arrivals** - ``ln(interarrival)`` is gamma distributed, and a daily cycle
  (48 half-hour buckets weighted by a gamma density) stretches time in quiet
  hours and compresses it in the peak hours.

Every constant below is the published default as distributed by the authors
with the model in the Parallel Workloads Archive (program ``m_lublin99.c``,
"A Workload Model for Parallel Computer Systems", Lublin & Feitelson); the
comment on each names the symbol it carries there.  The program is also the
reference for the details the paper leaves to the reader (rejection of
overlong values, the bucket arithmetic of the daily cycle), and the trace
``lublin_256.swf`` produced by it is what the tests compare against.

Times are integer seconds, as everywhere in schedlab: submit times and
runtimes are the model's real values truncated to whole seconds, as the
reference program does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammainc

from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload
from schedlab.workload.models.estimates import DEFAULT_MAX_ESTIMATE, add_estimates

# --- daily cycle and rejection limits (m_lublin99.c, CONSTANTS section) -----------------

#: Half-hour buckets in a day (``BUCKETS``).
BUCKETS_PER_DAY = 48
#: Seconds in one bucket (``SECONDS_IN_BUCKET`` = 86400 / 48).
SECONDS_PER_BUCKET = 86_400 // BUCKETS_PER_DAY
#: First bucket index of the model's day (``CYCLIC_DAY_START``): the gamma
#: density of the daily cycle is evaluated at bucket indices 11..58 and wrapped
#: back onto the 48 buckets of a day.
CYCLIC_DAY_START = 11
#: ``ln(runtime)`` above this is rejected and redrawn (``TOO_MUCH_TIME``:
#: runtimes stay below e^12 s, about 45.2 hours).
MAX_LOG_RUNTIME = 12.0
#: ``ln(interarrival)`` above this is rejected and redrawn
#: (``TOO_MUCH_ARRIVE_TIME``: gaps stay below e^13 s, about 5.1 days).
MAX_LOG_INTERARRIVAL = 13.0


@dataclass(frozen=True)
class LublinParameters:
    """One parameter set of the model (sizes, runtimes, arrivals).

    ``u_hi`` is not stored: it is ``log2(processors)`` of the machine being
    modelled.  ``u_med`` follows it at the published distance
    ``u_hi_offset = UHI - UMED`` (the program's advice: "UMed = UHi - 2.5",
    "UMed should be in [UHi-1.5, UHi-3.5]").  The arrival gamma's shape is
    ``a_arr * arar``: ``(a_arr, b_arr)`` fit the peak hours and the
    arrive-rush-to-all ratio ``arar`` widens them to the whole day.
    ``name`` starts the names of the workloads generated with the set.
    """

    name: str
    serial_prob: float
    pow2_prob: float
    u_low: float
    u_hi_offset: float
    u_prob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    a_arr: float
    b_arr: float
    a_num: float
    b_num: float
    arar: float


#: Batch jobs (m_lublin99.c: SERIAL_PROB_BATCH 0.2927, POW2_PROB_BATCH 0.6686,
#: ULOW_BATCH 1.2, UMED_BATCH 5 with UHI_BATCH 7, UPROB_BATCH 0.875;
#: A1_BATCH 6.57, B1_BATCH 0.823, A2_BATCH 639.1, B2_BATCH 0.0156,
#: PA_BATCH -0.003, PB_BATCH 0.6986; AARR_BATCH 6.0415, BARR_BATCH 0.8531,
#: ANUM_BATCH 6.1271, BNUM_BATCH 5.2740, ARAR_BATCH 1.0519).
BATCH = LublinParameters(
    name="lublin-batch",
    serial_prob=0.2927, pow2_prob=0.6686, u_low=1.2, u_hi_offset=7 - 5, u_prob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    a_arr=6.0415, b_arr=0.8531, a_num=6.1271, b_num=5.2740, arar=1.0519,
)

#: All jobs as one class, batch and interactive together (m_lublin99.c, the
#: "typeless" set used when INCLUDE_JOBS_TYPE is 0: SERIAL_PROB 0.244,
#: POW2_PROB 0.576, ULOW 0.8, UMED 4.5 with UHI 7, UPROB 0.86; A1 4.2, B1 0.94,
#: A2 312, B2 0.03, PA -0.0054, PB 0.78; AARR 10.2303, BARR 0.4871,
#: ANUM 8.1737, BNUM 3.9631, ARAR 1.0225).  The archive's ``lublin_256``
#: trace was generated with this set, and it is schedlab's default: it gives
#: an offered load of about 0.7 on 128 processors, the batch set only about
#: 0.36 (docs/reference/models.md).
WHOLE_SAMPLE = LublinParameters(
    name="lublin",
    serial_prob=0.244, pow2_prob=0.576, u_low=0.8, u_hi_offset=7 - 4.5, u_prob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    a_arr=10.2303, b_arr=0.4871, a_num=8.1737, b_num=3.9631, arar=1.0225,
)


def generate_lublin(n_jobs: int = 10_000, processors: int = 128, seed: int = 0, *,
                    estimates: bool = True,
                    params: LublinParameters = WHOLE_SAMPLE) -> Workload:
    """Generate ``n_jobs`` jobs of the Lublin-Feitelson model on ``processors``.

    Uses one ``numpy.random.default_rng(seed)`` for everything, so the same
    arguments always give the same workload.  With ``estimates=True`` the
    user estimates come from the Tsafrir-Etsion-Feitelson model
    (:func:`~schedlab.workload.models.estimates.add_estimates`, maximal
    estimate 48 h, above the model's longest runtime); with ``False`` every
    estimate equals the runtime (perfect estimates).  Jobs get ids 1..n in
    submission order.  ``params`` chooses the published parameter set:
    :data:`WHOLE_SAMPLE` (all jobs, the default) or :data:`BATCH`.
    """
    _check_arguments(n_jobs, processors)
    rng = np.random.default_rng(seed)
    submits = sample_submit_times(n_jobs, params, rng)
    widths = sample_widths(n_jobs, processors, params, rng)
    runtimes = sample_runtimes(widths, params, rng)
    requested = add_estimates(runtimes, rng) if estimates else runtimes
    jobs = tuple(Job(id=i + 1, submit=s, runtime=r, estimate=e, width=w)
                 for i, (s, r, e, w) in enumerate(zip(submits.tolist(), runtimes.tolist(),
                                                      requested.tolist(), widths.tolist())))
    return Workload(jobs=jobs, processors=processors,
                    name=f"{params.name}-{processors}p-{n_jobs}j-s{seed}",
                    header=_header(n_jobs, processors, seed, params, estimates))


def _header(n_jobs: int, processors: int, seed: int, params: LublinParameters,
            estimates: bool) -> dict[str, str]:
    """SWF-style header fields saying what was generated and how."""
    estimate_model = (f"Tsafrir 2005 estimates (max {DEFAULT_MAX_ESTIMATE} s)" if estimates
                      else "perfect estimates")
    return {
        "MaxJobs": str(n_jobs),
        "MaxProcs": str(processors),
        "Note": f"Lublin-Feitelson 2003 model ({params.name}), {estimate_model}, seed {seed}",
    }


def _check_arguments(n_jobs: int, processors: int) -> None:
    """Reject job counts and machine sizes the model cannot produce."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise InputError(f"expected an integer >= 1, got {n_jobs!r}", field="n_jobs")
    if isinstance(processors, bool) or not isinstance(processors, (int, np.integer)) \
            or processors < 1:
        raise InputError(f"expected an integer >= 1, got {processors!r}", field="processors")


# --- job size -------------------------------------------------------------------------


def sample_widths(n: int, processors: int, params: LublinParameters,
                  rng: np.random.Generator) -> np.ndarray:
    """Job sizes: serial, power-of-two or any, via a two-stage uniform log2 size.

    One uniform ``u`` per job picks the class, as in ``calc_number_of_nodes``
    of m_lublin99.c: ``u <= serial_prob`` gives a serial job;
    ``u <= serial_prob + pow2_prob`` a job whose log2 size is rounded to an
    integer; the rest keep the real log2 size.  The size is ``round(2**x)``.
    ``u_hi = log2(processors)`` and ``u_med = u_hi - u_hi_offset``, both kept
    inside ``[u_low, u_hi]`` so that small machines stay valid; sizes are
    finally clipped to ``[1, processors]`` (only a rounded power of two on a
    machine whose size is not one can exceed it).
    """
    u_hi = float(np.log2(processors))
    u_low = min(params.u_low, u_hi)
    u_med = min(max(u_hi - params.u_hi_offset, u_low), u_hi)
    kind = rng.random(n)
    log_size = two_stage_uniform(n, u_low, u_med, u_hi, params.u_prob, rng)
    pow2 = kind <= params.serial_prob + params.pow2_prob
    log_size = np.where(pow2, np.floor(log_size + 0.5), log_size)
    widths = np.floor(np.exp2(log_size) + 0.5).astype(np.int64)
    widths[kind <= params.serial_prob] = 1
    return np.clip(widths, 1, processors)


def two_stage_uniform(n: int, low: float, med: float, high: float, prob: float,
                      rng: np.random.Generator) -> np.ndarray:
    """Draw from uniform(low, med) with probability ``prob``, else uniform(med, high).

    The distribution of log2 job sizes (Lublin & Feitelson 2003; function
    ``two_stage_uniform`` of m_lublin99.c).
    """
    first = rng.random(n) <= prob
    start = np.where(first, low, med)
    stop = np.where(first, med, high)
    return start + rng.random(n) * (stop - start)


# --- runtime --------------------------------------------------------------------------


def sample_runtimes(widths: np.ndarray, params: LublinParameters,
                    rng: np.random.Generator) -> np.ndarray:
    """Runtimes (int seconds >= 1) from the size-dependent hyper-gamma model.

    ``ln(runtime)`` is gamma(a1, b1) with probability ``p`` and gamma(a2, b2)
    otherwise, where ``p = pa * width + pb`` clipped to [0, 1] (linear in the
    number of processors itself, as in ``time_from_nodes`` of m_lublin99.c;
    the authors' lublin_256 trace shows the same dependence).  Draws above
    ``MAX_LOG_RUNTIME`` are rejected and the whole mixture redrawn; the
    runtime is ``exp`` of the draw truncated to whole seconds, hence >= 1.
    """
    p = np.clip(params.pa * widths + params.pb, 0.0, 1.0)
    log_runtime = np.empty(len(widths))
    todo = np.arange(len(widths))
    while todo.size:
        first = rng.random(todo.size) <= p[todo]
        draws = rng.gamma(np.where(first, params.a1, params.a2),
                          np.where(first, params.b1, params.b2))
        accepted = draws <= MAX_LOG_RUNTIME
        log_runtime[todo[accepted]] = draws[accepted]
        todo = todo[~accepted]
    return np.floor(np.exp(log_runtime)).astype(np.int64)


# --- arrivals -------------------------------------------------------------------------


def daily_cycle_weights(params: LublinParameters) -> np.ndarray:
    """Relative arrival rate of each half-hour bucket of the day, mean 1.

    Bucket indices ``i = 11..58`` (``CYCLIC_DAY_START`` onwards) get the mass
    of gamma(a_num, b_num) on ``[i - 0.5, i + 0.5]`` and land on bucket
    ``(i - 1) mod 48`` of the day that starts at midnight (``arrive_init`` of
    m_lublin99.c).  Normalising to mean 1 makes a whole day cost exactly 48
    points, so the daily cycle moves arrivals within the day without changing
    the long-run arrival rate.
    """
    index = np.arange(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS_PER_DAY)
    mass = gamma_cdf(index + 0.5, params.a_num, params.b_num) \
        - gamma_cdf(index - 0.5, params.a_num, params.b_num)
    weights = np.empty(BUCKETS_PER_DAY)
    weights[(index - 1) % BUCKETS_PER_DAY] = mass
    return weights / weights.mean()


def gamma_cdf(x: np.ndarray, shape: float, scale: float) -> np.ndarray:
    """CDF of gamma(shape, scale) at ``x`` > 0: the regularized lower incomplete gamma.

    The same numbers as ``scipy.stats.gamma.cdf``, from ``scipy.special``,
    whose import costs a third of ``scipy.stats``'s (0.26 s against 0.67 s
    here): every run on a built-in model pays it.
    """
    return gammainc(shape, x / scale)


def sample_log_interarrivals(n: int, params: LublinParameters,
                             rng: np.random.Generator) -> np.ndarray:
    """``ln(interarrival)`` ~ gamma(a_arr * arar, b_arr), redrawn above ``MAX_LOG_INTERARRIVAL``.

    The "points" a job spends before the next arrives (``calc_next_arrive``
    of m_lublin99.c) before the daily cycle is applied.
    """
    values = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        draws = rng.gamma(params.a_arr * params.arar, params.b_arr, size=todo.size)
        accepted = draws <= MAX_LOG_INTERARRIVAL
        values[todo[accepted]] = draws[accepted]
        todo = todo[~accepted]
    return values


def sample_submit_times(n: int, params: LublinParameters,
                        rng: np.random.Generator) -> np.ndarray:
    """Submit times (int seconds, non-decreasing), the simulation starting at midnight.

    Interarrival gaps ``exp(x)`` are accumulated in bucket units (one bucket
    = 1800 s) and mapped through the daily cycle (:func:`warp_through_day`).
    The first job arrives one gap after time 0, as in the reference program.
    """
    gaps = np.exp(sample_log_interarrivals(n, params, rng))
    points = np.cumsum(gaps) / SECONDS_PER_BUCKET
    seconds = warp_through_day(points, daily_cycle_weights(params))
    return np.floor(seconds).astype(np.int64)


def warp_through_day(points: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Map cumulative points to seconds: bucket ``b`` costs ``weights[b]`` points.

    Crossing a bucket takes 1800 s however many points it costs, so a bucket
    of weight 2 holds twice the arrivals of one of weight 1 (the point
    accounting of ``calc_next_arrive`` in m_lublin99.c, with the remainder
    carried across jobs).  Time starts at bucket 0; the day repeats every
    ``len(weights)`` buckets and costs ``sum(weights)`` points.
    """
    bounds = np.concatenate(([0.0], np.cumsum(weights)))
    per_day = bounds[-1]
    days = np.floor(points / per_day)
    within = points - days * per_day
    bucket = np.clip(np.searchsorted(bounds, within, side="right") - 1, 0, len(weights) - 1)
    fraction = (within - bounds[bucket]) / weights[bucket]
    return (days * len(weights) + bucket + fraction) * SECONDS_PER_BUCKET
