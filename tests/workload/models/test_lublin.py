"""The Lublin-Feitelson generator against the model's own distributions and the authors' trace.

Expected values are worked out from the model's definition (closed forms or
one-dimensional integrals of its gamma and uniform laws), not from the
generator; tolerances are several standard deviations of the sample
statistic, far below the gap a wrong rule would open.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from real_traces import trace_path
from schedlab.errors import InputError
from schedlab.workload.models import BUILTIN_MODELS, generate_builtin
from schedlab.workload.models.lublin import (
    BATCH,
    MAX_LOG_INTERARRIVAL,
    MAX_LOG_RUNTIME,
    SECONDS_PER_BUCKET,
    WHOLE_SAMPLE,
    LublinParameters,
    daily_cycle_weights,
    generate_lublin,
    sample_log_interarrivals,
    warp_through_day,
)
from schedlab.workload.swf import read_swf

TRACE = trace_path("lublin_256.swf.gz")


@pytest.fixture(scope="module")
def whole_128() -> dict[str, np.ndarray]:
    """20,000 jobs of the default parameter set on 128 processors."""
    return generate_lublin(20_000, 128, seed=11, estimates=False).to_arrays()


@pytest.fixture(scope="module")
def batch_128() -> dict[str, np.ndarray]:
    """20,000 jobs of the batch parameter set on 128 processors."""
    return generate_lublin(20_000, 128, seed=12, estimates=False, params=BATCH).to_arrays()


def _size_bounds(params: LublinParameters, processors: int) -> tuple[float, float, float]:
    """(u_low, u_med, u_hi) of the two-stage uniform for this machine."""
    u_hi = math.log2(processors)
    return params.u_low, u_hi - params.u_hi_offset, u_hi


def _log_size_probability(params: LublinParameters, processors: int, lo: float, hi: float) -> float:
    """P(lo <= log2 size < hi) for the two-stage uniform of a parallel job."""
    low, med, high = _size_bounds(params, processors)

    def overlap(a: float, b: float) -> float:
        return max(0.0, min(hi, b) - max(lo, a)) / (b - a)

    return params.u_prob * overlap(low, med) + (1 - params.u_prob) * overlap(med, high)


def _width_band_fraction(params: LublinParameters, processors: int, w_lo: int, w_hi: int) -> float:
    """Expected fraction of all jobs with w_lo <= width <= w_hi (w_lo >= 2).

    Power-of-two jobs have width 2**round(x): x in [k - 0.5, k + 0.5).  The
    others have width round(2**x): x in [log2(w - 0.5), log2(w + 0.5)).
    """
    pow2 = sum(_log_size_probability(params, processors, k - 0.5, k + 0.5)
               for k in range(1, 20) if w_lo <= 2 ** k <= w_hi)
    other = _log_size_probability(params, processors, math.log2(w_lo - 0.5), math.log2(w_hi + 0.5))
    return params.pow2_prob * pow2 + (1 - params.serial_prob - params.pow2_prob) * other


def _power_of_two_fraction(params: LublinParameters, processors: int) -> float:
    """Expected fraction of parallel jobs whose width is a power of two."""
    rounded_other = sum(_log_size_probability(params, processors, math.log2(2 ** k - 0.5),
                                              math.log2(2 ** k + 0.5)) for k in range(1, 20))
    non_serial = 1 - params.serial_prob
    return (params.pow2_prob + (non_serial - params.pow2_prob) * rounded_other) / non_serial


def _short_runtime_fraction(params: LublinParameters, widths: np.ndarray, cut: float) -> float:
    """Expected P(ln runtime < cut) over these widths under the truncated hyper-gamma."""
    p = np.clip(params.pa * widths + params.pb, 0, 1)

    def cdf(x: float) -> np.ndarray:
        return (p * stats.gamma.cdf(x, params.a1, scale=params.b1)
                + (1 - p) * stats.gamma.cdf(x, params.a2, scale=params.b2))

    return float(np.mean(cdf(cut) / cdf(MAX_LOG_RUNTIME)))


def _mean_interarrival(params: LublinParameters) -> float:
    """E[exp(X) | X <= 13] for X ~ gamma(a_arr * arar, b_arr): seconds between jobs."""
    law = stats.gamma(params.a_arr * params.arar, scale=params.b_arr)
    tail, _ = integrate.quad(lambda x: math.exp(x) * law.pdf(x), 0, MAX_LOG_INTERARRIVAL,
                             limit=200)
    return tail / law.cdf(MAX_LOG_INTERARRIVAL)


# --- shape of the output ----------------------------------------------------------------


def test_same_seed_gives_identical_jobs_and_other_seeds_differ():
    first = generate_lublin(2_000, 128, seed=5)
    again = generate_lublin(2_000, 128, seed=5)
    other = generate_lublin(2_000, 128, seed=6)
    assert first.jobs == again.jobs
    assert first.jobs != other.jobs
    assert [j.submit for j in first][:50] != [j.submit for j in other][:50]


def test_workload_metadata_ids_order_and_ranges():
    workload = generate_lublin(3_000, 128, seed=3)
    arrays = workload.to_arrays()
    assert workload.name == "lublin-128p-3000j-s3"
    assert workload.processors == 128
    assert workload.header["MaxProcs"] == "128"
    assert arrays["id"].tolist() == list(range(1, 3_001))
    assert np.all(np.diff(arrays["submit"]) >= 0)
    assert arrays["submit"][0] > 0  # the first job arrives one gap after midnight
    assert arrays["width"].min() == 1 and arrays["width"].max() <= 128
    assert arrays["runtime"].min() >= 1
    assert arrays["runtime"].max() <= math.exp(MAX_LOG_RUNTIME)
    assert arrays["estimate"].min() >= 1
    assert all(isinstance(j.submit, int) and isinstance(j.runtime, int) for j in workload.jobs[:10])


def test_batch_parameter_set_names_its_workloads():
    assert generate_lublin(10, 64, seed=1, params=BATCH).name == "lublin-batch-64p-10j-s1"


def test_estimates_are_never_below_runtime_and_perfect_when_disabled():
    modelled = generate_lublin(5_000, 128, seed=4).to_arrays()
    assert np.all(modelled["estimate"] >= modelled["runtime"])
    assert np.mean(modelled["estimate"] == 48 * 3600) == pytest.approx(0.2173, abs=0.005)
    perfect = generate_lublin(500, 128, seed=4, estimates=False).to_arrays()
    assert np.array_equal(perfect["estimate"], perfect["runtime"])


def test_machine_size_that_is_not_a_power_of_two_bounds_widths():
    widths = generate_lublin(5_000, 100, seed=2, estimates=False).to_arrays()["width"]
    assert widths.max() == 100  # rounded powers of two above 100 are clipped to the machine
    assert widths.min() == 1


@pytest.mark.parametrize("field, kwargs", [
    ("n_jobs", {"n_jobs": 0}),
    ("processors", {"processors": 0}),
    ("n_jobs", {"n_jobs": 2.5}),
])
def test_bad_arguments_raise_input_error(field, kwargs):
    with pytest.raises(InputError) as err:
        generate_lublin(**kwargs)
    assert err.value.field == field


# --- job sizes --------------------------------------------------------------------------


@pytest.mark.parametrize("fixture, params", [("whole_128", WHOLE_SAMPLE), ("batch_128", BATCH)])
def test_serial_and_power_of_two_fractions_match_the_model(request, fixture, params):
    widths = request.getfixturevalue(fixture)["width"]
    assert np.mean(widths == 1) == pytest.approx(params.serial_prob, abs=0.015)
    parallel = widths[widths > 1]
    is_pow2 = (parallel & (parallel - 1)) == 0
    assert np.mean(is_pow2) == pytest.approx(_power_of_two_fraction(params, 128), abs=0.015)


@pytest.mark.parametrize("fixture, params", [("whole_128", WHOLE_SAMPLE), ("batch_128", BATCH)])
@pytest.mark.parametrize("w_lo, w_hi", [(2, 3), (4, 15), (16, 31), (32, 63), (64, 128)])
def test_width_bands_follow_the_two_stage_uniform(request, fixture, params, w_lo, w_hi):
    widths = request.getfixturevalue(fixture)["width"]
    observed = np.mean((widths >= w_lo) & (widths <= w_hi))
    assert observed == pytest.approx(_width_band_fraction(params, 128, w_lo, w_hi), abs=0.012)


# --- runtimes ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixture, params", [("whole_128", WHOLE_SAMPLE), ("batch_128", BATCH)])
@pytest.mark.parametrize("w_lo, w_hi", [(1, 1), (2, 15), (16, 63), (64, 128)])
def test_short_job_share_falls_with_width_as_the_hyper_gamma_says(request, fixture, params,
                                                                   w_lo, w_hi):
    jobs = request.getfixturevalue(fixture)
    band = (jobs["width"] >= w_lo) & (jobs["width"] <= w_hi)
    observed = np.mean(np.log(jobs["runtime"][band] + 1) < 7.0)
    # floor() then +1 keeps ln(runtime + 1) within one second of the real draw.
    expected = _short_runtime_fraction(params, jobs["width"][band], 7.0)
    assert observed == pytest.approx(expected, abs=0.035)


def test_median_runtime_of_serial_jobs_matches_the_model(whole_128):
    params = WHOLE_SAMPLE
    p = params.pa * 1 + params.pb

    def cdf(x: float) -> float:
        return (p * stats.gamma.cdf(x, params.a1, scale=params.b1)
                + (1 - p) * stats.gamma.cdf(x, params.a2, scale=params.b2))

    median_log = optimize.brentq(lambda x: cdf(x) / cdf(MAX_LOG_RUNTIME) - 0.5, 0.0, 12.0)
    serial = whole_128["runtime"][whole_128["width"] == 1]
    assert math.log(np.median(serial)) == pytest.approx(median_log, abs=0.15)


def test_wide_jobs_run_longer_than_serial_jobs_on_average(whole_128):
    runtime, width = whole_128["runtime"], whole_128["width"]
    assert np.mean(runtime[width >= 64]) > 2.5 * np.mean(runtime[width == 1])


# --- arrivals ---------------------------------------------------------------------------


def test_warp_spends_each_bucket_at_its_weight_per_1800_seconds():
    weights = np.array([1.5, 0.5])  # a two-bucket "day" of 3600 s costing 2 points
    points = np.array([0.75, 1.5, 1.75, 2.0, 2.75])
    assert warp_through_day(points, weights).tolist() == [900.0, 1800.0, 2700.0, 3600.0, 4500.0]


@pytest.mark.parametrize("params, peak, trough", [(WHOLE_SAMPLE, 27, 10), (BATCH, 26, 9)])
def test_daily_cycle_weights_have_mean_one_and_an_early_afternoon_peak(params, peak, trough):
    weights = daily_cycle_weights(params)
    assert weights.shape == (48,)
    assert weights.mean() == pytest.approx(1.0)
    assert int(np.argmax(weights)) == peak  # 13:30 and 13:00
    # The quietest half hour sits where the model's day wraps (04:30-05:30):
    # bucket 9 ends the gamma density's range, bucket 10 starts it.
    assert int(np.argmin(weights)) == trough
    assert weights[10] < weights[11]


def test_arrivals_per_bucket_follow_the_daily_cycle():
    jobs = generate_lublin(50_000, 128, seed=21, estimates=False).to_arrays()
    buckets = (jobs["submit"] % 86_400) // SECONDS_PER_BUCKET
    observed = np.bincount(buckets, minlength=48) / len(buckets)
    expected = daily_cycle_weights(WHOLE_SAMPLE) / 48
    assert np.max(np.abs(observed - expected)) < 0.004
    busy, quiet = np.arange(24, 32), np.arange(4, 12)  # 12:00-16:00 against 02:00-06:00
    assert observed[busy].sum() > 4 * observed[quiet].sum()


@pytest.mark.parametrize("params", [WHOLE_SAMPLE, BATCH])
def test_log_interarrivals_are_the_truncated_gamma(params):
    draws = sample_log_interarrivals(40_000, params, np.random.default_rng(8))
    law = stats.gamma(params.a_arr * params.arar, scale=params.b_arr)
    mean, _ = integrate.quad(lambda x: x * law.pdf(x), 0, MAX_LOG_INTERARRIVAL)
    assert draws.max() <= MAX_LOG_INTERARRIVAL
    assert draws.mean() == pytest.approx(mean / law.cdf(MAX_LOG_INTERARRIVAL), abs=0.03)


def test_mean_interarrival_matches_the_model():
    submits = generate_lublin(50_000, 128, seed=9, estimates=False).to_arrays()["submit"]
    # The daily cycle moves arrivals within a day only, so over 50,000 jobs the
    # mean gap is the mean of exp(X); its sample error here is about 3%.
    assert submits[-1] / len(submits) == pytest.approx(_mean_interarrival(WHOLE_SAMPLE), rel=0.15)


def test_offered_load_on_128_processors_is_a_busy_machine(whole_128):
    area = np.sum(whole_128["width"] * whole_128["runtime"])
    span = whole_128["submit"][-1] - whole_128["submit"][0]
    assert 0.6 <= area / (128 * span) <= 0.9


# --- registry ---------------------------------------------------------------------------


def test_builtin_models_and_their_defaults():
    assert {"lublin", "lublin256"} <= set(BUILTIN_MODELS)
    default = generate_builtin("lublin", n_jobs=200)
    assert default.processors == 128 and len(default) == 200
    assert default.jobs == generate_lublin(200, 128, 0).jobs
    wide = generate_builtin("lublin256", n_jobs=50, seed=3)
    assert wide.processors == 256 and wide.name == "lublin-256p-50j-s3"
    assert generate_builtin("lublin", n_jobs=50, processors=64, seed=1).processors == 64


def test_unknown_builtin_model_raises_input_error_listing_the_known_ones():
    with pytest.raises(InputError, match="lublin, lublin256") as err:
        generate_builtin("feitelson96")
    assert "'feitelson96'" in str(err.value)


# --- the authors' own trace ---------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_trace() -> dict[str, np.ndarray]:
    """lublin_256.swf: 10,000 jobs from the authors' generator (whole-sample set, 256 nodes)."""
    if not TRACE.exists():
        pytest.skip(f"{TRACE} is not present")
    trace = read_swf(TRACE)
    assert len(trace) == 10_000 and trace.processors == 256
    return trace.to_arrays()


@pytest.fixture(scope="module")
def generated_256() -> dict[str, np.ndarray]:
    return generate_lublin(10_000, 256, seed=0, estimates=False).to_arrays()


def test_trace_sizes_agree_with_the_generator(reference_trace, generated_256):
    for jobs in (reference_trace, generated_256):
        assert jobs["width"].max() == 256
    ours, theirs = generated_256["width"], reference_trace["width"]
    assert np.mean(ours == 1) == pytest.approx(np.mean(theirs == 1), abs=0.02)
    ours_par, theirs_par = ours[ours > 1], theirs[theirs > 1]
    assert np.mean((ours_par & (ours_par - 1)) == 0) == pytest.approx(
        np.mean((theirs_par & (theirs_par - 1)) == 0), abs=0.02)
    assert ours.mean() == pytest.approx(theirs.mean(), rel=0.1)
    # u_med = u_hi - 2.5 = 5.5 on 256 nodes: 14% of parallel jobs above 2**5.5.
    assert np.mean(ours_par > 45) == pytest.approx(np.mean(theirs_par > 45), abs=0.02)


def test_trace_runtimes_agree_with_the_generator(reference_trace, generated_256):
    for w_lo, w_hi in [(1, 1), (2, 31), (32, 127), (128, 256)]:
        shares = []
        for jobs in (reference_trace, generated_256):
            band = (jobs["width"] >= w_lo) & (jobs["width"] <= w_hi)
            shares.append(np.mean(np.log(jobs["runtime"][band]) < 7.0))
        assert shares[0] == pytest.approx(shares[1], abs=0.06), (w_lo, w_hi)
    assert math.log(np.median(generated_256["runtime"])) == pytest.approx(
        math.log(np.median(reference_trace["runtime"])), abs=0.25)


def test_trace_arrivals_agree_with_the_generator(reference_trace, generated_256):
    gaps = [np.diff(jobs["submit"]) for jobs in (reference_trace, generated_256)]
    assert np.median(gaps[1]) == pytest.approx(np.median(gaps[0]), rel=0.1)
    # The trace's hour-of-day profile follows this implementation's daily
    # cycle as closely as its own samples do (0.96-0.99 over 30 seeds).
    hourly_weights = daily_cycle_weights(WHOLE_SAMPLE).reshape(24, 2).sum(axis=1)
    trace_hours = np.bincount((reference_trace["submit"] % 86_400) // 3600, minlength=24)
    assert np.corrcoef(trace_hours, hourly_weights)[0, 1] > 0.95
