"""Hyper-Erlang distributions of common order and the w0..w8 workloads (Jann et al. 1997;
Zhou, Goscinski, Brent §4-§5)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload
from schedlab.workload.models import BUILTIN_MODELS
from schedlab.workload.models import hypererlang as he
from schedlab.workload.swf import read_swf, write_swf

WORKLOADS = Path("/work/shared/workloads")
DATA = Path(__file__).parents[3] / "src" / "schedlab" / "workload" / "models" / "data"
runner = CliRunner()


# --- the closed-form fit ---------------------------------------------------------------


def test_fit_recovers_an_order_two_hyper_erlang_from_its_moments():
    known = he.HyperErlang(order=2, p=0.3, rate1=0.001, rate2=0.05)
    fitted = he.fit_hyper_erlang(*(known.moment(k) for k in (1, 2, 3)))
    # order 1 is infeasible for these moments (its SCV 1.86 is fine, but the third
    # moment is too small for a hyperexponential), so the smallest feasible order is 2
    assert fitted.order == 2
    assert fitted.p == pytest.approx(0.3, rel=1e-9)
    assert fitted.rate1 == pytest.approx(0.001, rel=1e-9)
    assert fitted.rate2 == pytest.approx(0.05, rel=1e-9)


@pytest.mark.parametrize("known", [he.HyperErlang(1, 0.1, 1e-4, 1e-2),
                                   he.HyperErlang(3, 0.6, 0.02, 0.5),
                                   he.HyperErlang(1, 0.5, 1.0, 1.0 + 1e-3)])
def test_fit_reproduces_the_three_moments_exactly(known):
    moments = [known.moment(k) for k in (1, 2, 3)]
    fitted = he.fit_hyper_erlang(*moments)
    assert fitted.order <= known.order
    for k, m in zip((1, 2, 3), moments):
        assert fitted.moment(k) == pytest.approx(m, rel=1e-9)


def test_hand_computed_hyperexponential_fit():
    # H2 with p = 1/2, means 1 and 3: m1 = 2, m2 = 2 (1 + 9) / 2 = 10, m3 = 6 (1 + 27) / 2 = 84
    fitted = he.fit_hyper_erlang(2.0, 10.0, 84.0)
    assert (fitted.order, fitted.p, 1 / fitted.rate1, 1 / fitted.rate2) == \
        pytest.approx((1, 0.5, 3.0, 1.0), rel=1e-12)


def test_near_exponential_moments_are_reproduced():
    # just above Exp(1)'s moments 1, 2, 6, where order 1 is a nearly degenerate mixture
    fitted = he.fit_hyper_erlang(1.0, 2.0 + 1e-6, 6.0 + 1e-5)
    assert [fitted.moment(k) for k in (1, 2, 3)] == pytest.approx([1.0, 2.0 + 1e-6, 6.0 + 1e-5])


def test_infeasible_moments_give_a_clear_error():
    # SCV 0.001 < 1/100: no order up to the cap can have it
    with pytest.raises(InputError, match=r"no hyper-Erlang of common order 1\.\.100.*"
                                         r"squared coefficient of variation 0\.001"):
        he.fit_hyper_erlang(1.0, 1.001, 1.003003)
    with pytest.raises(InputError, match="finite positive moments"):
        he.fit_hyper_erlang(1.0, -1.0, 2.0)


def test_sampler_moments_converge():
    dist = he.HyperErlang(order=2, p=0.3, rate1=0.01, rate2=0.5)
    x = dist.sample(400_000, np.random.default_rng(7))
    # mean 62.8, sd 118.6: relative standard error of the sample mean 0.3 %, so 1 % is
    # over 3 standard errors; the second moment's (sd of x^2 about 57,000) is 0.5 %,
    # so 3 % is 6 standard errors (and the seed makes the test deterministic)
    assert x.mean() == pytest.approx(dist.mean, rel=0.01)
    assert np.mean(x ** 2) == pytest.approx(dist.moment(2), rel=0.03)
    # an empirical CDF value has binomial sd below 0.0008 here; 0.004 is 5 sd
    assert float(dist.cdf(dist.mean)) == pytest.approx(np.mean(x <= dist.mean), abs=0.004)


# --- the workload model ----------------------------------------------------------------


def small_trace(n_per_range: int = 40) -> Workload:
    """Jobs of widths 1 and 3-4, interleaved arrivals, varied runtimes."""
    rng = np.random.default_rng(1)
    jobs, t = [], 0
    for i in range(2 * n_per_range):
        t += int(rng.integers(1, 600))
        width = 1 if i % 2 == 0 else 3 + i % 4 // 2
        runtime = int(rng.lognormal(6, 1.5)) + 1
        jobs.append(Job(i + 1, t, runtime, runtime, width))
    return Workload(jobs=(), processors=8, name="small").with_jobs(jobs)


def test_fit_workload_splits_power_of_two_ranges():
    model = he.fit_workload(small_trace())
    assert [(r.low, r.high, r.jobs) for r in model.ranges] == [(1, 1, 40), (3, 4, 40)]
    assert model.ranges[1].widths == (3, 4) and sum(model.ranges[1].counts) == 40
    assert he.power_of_two_edges(256) == [1, 2, 3, 5, 9, 17, 33, 65, 129]
    assert model.processors == 8


def test_range_with_too_few_jobs_is_an_error():
    trace = small_trace()
    jobs = list(trace.jobs) + [Job(999, 10**6, 10, 10, 8)]
    with pytest.raises(InputError, match=r"size range 5-8 has 1 jobs; a fit needs at least 30"):
        he.fit_workload(trace.with_jobs(jobs))


def test_generated_jobs_and_model_file_round_trip(tmp_path):
    model = he.fit_workload(small_trace())
    path = tmp_path / "m.json"
    he.save_model(model, path)
    loaded = he.load_model(path)
    assert loaded == model
    a = he.generate_hyper_erlang(model, 500, seed=4)
    b = he.generate_hyper_erlang(loaded, 500, seed=4)
    assert a.jobs == b.jobs
    assert [j.id for j in a] == list(range(1, 501))
    assert all(j.estimate == j.runtime >= 1 for j in a)
    assert {j.width for j in a} <= {1, 3, 4}
    assert all(x.submit <= y.submit for x, y in zip(a.jobs, a.jobs[1:]))


def test_bad_model_file_names_the_field(tmp_path):
    document = he.fit_workload(small_trace()).to_dict()
    document["ranges"][0]["service"]["p"] = 1.5
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match=r"bad\.json: field ranges\[0\]\.service\.p: "
                                         r"expected a probability"):
        he.load_model(path)


# --- w0..w8 ------------------------------------------------------------------------------


def test_family_is_registered_wherever_lublin_is():
    assert {f"w{i}" for i in range(9)} <= set(BUILTIN_MODELS)
    assert schedlab.load_workload("w3", jobs=50).name == "w3"


def test_family_calibration():
    shares = []
    for i in range(9):
        workload = schedlab.load_workload(f"w{i}")
        columns = workload.to_arrays()
        runtime, width = columns["runtime"], columns["width"]
        assert len(workload) == 10_000 and workload.processors == 256
        assert width.min() >= 1 and width.max() <= 256
        shares.append(((runtime < 150).mean(), (runtime > 6000).mean(), runtime.mean()))
    short0, long0, _ = shares[0]
    # 10,000 jobs: the binomial sd of a 25 % share is 0.0043; 0.02 is over 4 sd
    assert short0 == pytest.approx(0.25, abs=0.02) and long0 == pytest.approx(0.25, abs=0.02)
    means = [m for _, _, m in shares]
    assert all(a < b for a, b in itertools.pairwise(means))
    # equal steps of offered load: mean service of wi = w0's x (0.965 + 0.05 i) / 0.965
    assert means[8] / means[0] == pytest.approx(1.365 / 0.965, rel=0.01)


def test_family_model_hits_the_targets_exactly():
    model = he.family_baseline()
    assert model.share_below(150) == pytest.approx(0.25, abs=1e-9)
    assert 1 - model.share_below(6000) == pytest.approx(0.25, abs=1e-9)
    # calibrated against Table 5 (Strategy 1, l = 1, 4.57 slots on w0), no longer 0.6
    assert model.offered_load(256) == pytest.approx(0.965, rel=1e-9)
    assert model.calibration["offered_load"] == he.BASE_LOAD == 0.965
    assert model.ranges[0].service.order == 1


def test_family_is_deterministic_and_shares_arrivals():
    a = schedlab.load_workload("w2", seed=5, jobs=300)
    b = schedlab.load_workload("w2", seed=5, jobs=300)
    c = schedlab.load_workload("w6", seed=5, jobs=300)
    assert a.jobs == b.jobs
    assert [(j.submit, j.width) for j in a] == [(j.submit, j.width) for j in c]
    assert schedlab.load_workload("w2", seed=6, jobs=300).jobs != a.jobs


def test_family_model_scales_arrivals_to_the_load_and_services_by_the_step():
    shipped = he.family_baseline()
    assert he.family_model(0) == shipped                # the shipped w0: an arrival scale of 1
    lighter = he.family_model(0, base_load=0.5)
    assert lighter.offered_load(256) == pytest.approx(0.5, rel=1e-9)
    assert lighter.mean_service() == pytest.approx(shipped.mean_service(), rel=1e-12)
    w4 = he.family_model(4, base_load=0.5, load_step=0.1)
    assert w4.offered_load(256) == pytest.approx(0.9, rel=1e-9)
    assert [r.rate for r in w4.ranges] == pytest.approx([r.rate for r in lighter.ranges])
    with pytest.raises(InputError, match="base load"):
        he.family_model(0, base_load=0.0)


def test_family_order_is_a_parameter_with_the_same_targets_and_load():
    # Orders 1 and 2 both meet the three conditions (25 % below 150 s, 25 % above 6000 s,
    # the trace's mean); order 1, the smallest, is shipped; order 3 is infeasible.
    shipped = he.family_baseline()
    two = he.family_model(0, order=2)
    assert {r.service.order for r in two.ranges} == {2}
    assert two.share_below(150) == pytest.approx(0.25, abs=1e-9)
    assert 1 - two.share_below(6000) == pytest.approx(0.25, abs=1e-9)
    assert two.offered_load(256) == pytest.approx(shipped.offered_load(256), rel=1e-9)
    assert he.family_model(0, order=1) == shipped
    # the point of order 2: few very short jobs (order 1 is exponential near 0)
    assert shipped.share_below(10) / 0.25 == pytest.approx(0.093, abs=0.001)
    assert two.share_below(10) / 0.25 == pytest.approx(0.0096, abs=0.001)
    with pytest.raises(InputError, match="order 3"):
        he.family_model(0, order=3)


def test_family_of_order_two_is_registered_and_keeps_arrivals_and_widths():
    assert {f"w{i}-order2" for i in range(9)} <= set(BUILTIN_MODELS)
    one, two = schedlab.load_workload("w3", jobs=400), schedlab.load_workload("w3-order2",
                                                                              jobs=400)
    assert two.name == "w3-order2"
    assert [(j.submit, j.width) for j in one] == [(j.submit, j.width) for j in two]
    runtimes = np.array([j.runtime for j in two])
    assert runtimes.tolist() != [j.runtime for j in one]
    assert he.gang_workload(3, 400, order=2).jobs == two.jobs


@pytest.mark.skipif(not (WORKLOADS / he.FAMILY_TRACE).exists(), reason="needs the trace")
def test_shipped_baseline_is_the_calibration_of_the_trace():
    rebuilt = he.build_family_baseline(read_swf(WORKLOADS / he.FAMILY_TRACE))
    shipped = he.family_baseline()
    assert len(rebuilt.ranges) == len(shipped.ranges)
    for ours, theirs in zip(rebuilt.ranges, shipped.ranges):
        assert (ours.low, ours.high, ours.widths, ours.counts) == \
            (theirs.low, theirs.high, theirs.widths, theirs.counts)
        for x, y in ((ours.interarrival, theirs.interarrival), (ours.service, theirs.service)):
            assert x.order == y.order
            assert (x.p, x.rate1, x.rate2) == pytest.approx((y.p, y.rate1, y.rate2), rel=1e-6)


# --- the command line --------------------------------------------------------------------


def test_cli_fits_saves_and_generates(tmp_path):
    trace = tmp_path / "t.swf"
    write_swf(small_trace(), trace)
    result = runner.invoke(app, ["generate", "hyper-erlang", "--from", str(trace),
                                 "--save-model", str(tmp_path / "m.json"),
                                 "-o", str(tmp_path / "out.swf"), "-n", "200", "--seed", "2"])
    assert result.exit_code == 0, result.output
    out = read_swf(tmp_path / "out.swf")
    assert len(out) == 200 and {j.width for j in out} <= {1, 3, 4}
    again = runner.invoke(app, ["generate", "hyper-erlang", "--from", str(tmp_path / "m.json"),
                                "-o", str(tmp_path / "again.swf"), "-n", "200", "--seed", "2"])
    assert again.exit_code == 0, again.output
    assert read_swf(tmp_path / "again.swf").jobs == out.jobs


def test_cli_bad_input_exits_2(tmp_path):
    trace = tmp_path / "t.swf"
    write_swf(small_trace(n_per_range=20), trace)
    result = runner.invoke(app, ["generate", "hyper-erlang", "--from", str(trace),
                                 "-o", str(tmp_path / "o.swf")])
    assert result.exit_code == 2
    assert "size range 1-1 has 20 jobs; a fit needs at least 30" in result.output
    missing = runner.invoke(app, ["generate", "hyper-erlang", "-o", str(tmp_path / "o.swf")])
    assert missing.exit_code == 2 and "needs --from" in missing.output
    edges = runner.invoke(app, ["generate", "hyper-erlang", "--from", str(trace),
                                "--size-edges", "2,4", "-o", str(tmp_path / "o.swf")])
    assert edges.exit_code == 2 and "starting at 1" in edges.output


def test_cli_generates_w3(tmp_path):
    result = runner.invoke(app, ["generate", "w3", "-o", str(tmp_path / "w3.swf"), "-n", "100"])
    assert result.exit_code == 0, result.output
    assert read_swf(tmp_path / "w3.swf").jobs == schedlab.load_workload("w3", jobs=100).jobs
