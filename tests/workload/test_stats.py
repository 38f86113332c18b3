"""Trace statistics (Streit 2002, §4, Table 2) and the analyze command."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import typer
from scipy import stats as scipy_stats
from typer.testing import CliRunner

from real_traces import trace_path
from schedlab.cli.analyze import analyze, format_value
from schedlab.errors import InputError
from schedlab.workload.job import Job, Workload
from schedlab.workload.stats import (
    STREIT_TABLE2,
    TraceStatistics,
    compare_to_reference,
    fit_weibull,
    trace_statistics,
)
from schedlab.workload.swf import read_swf

SMALL = Path(__file__).parent / "data" / "small.swf"
KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")

# submits 0, 0, 10, 40 -> interarrivals 0, 10, 30
HAND = Workload(jobs=(), processors=8, name="hand").with_jobs([
    Job(1, 0, 5, 10, 1),
    Job(2, 0, 25, 20, 2),    # runtime > estimate
    Job(3, 10, 30, 30, 3),
    Job(4, 40, 50, 40, 6),   # runtime > estimate
])


def test_statistics_of_a_hand_workload():
    s = trace_statistics(HAND)
    assert (s.jobs, s.max_width, s.machine_width, s.avg_width) == (4, 6, 8, 3.0)
    assert (s.estimate_avg, s.estimate_min, s.estimate_max) == (25.0, 10, 40)
    assert (s.runtime_avg, s.runtime_min, s.runtime_max) == (27.5, 5, 50)
    assert (s.overrun_jobs, s.overrun_percent) == (2, 50.0)
    assert s.interarrival_avg == pytest.approx(40 / 3)
    assert (s.interarrival_min, s.interarrival_max) == (0.0, 30.0)


def test_moment_fit_reproduces_mean_and_coefficient_of_variation():
    s = trace_statistics(HAND)
    fitted = scipy_stats.weibull_min(s.weibull_alpha, scale=s.weibull_beta)
    sample = np.array([0.0, 10.0, 30.0])
    assert fitted.mean() == pytest.approx(sample.mean(), rel=1e-9)
    assert fitted.std() == pytest.approx(sample.std(), rel=1e-9)


def test_moment_fit_of_a_sample_with_cv_one_is_the_exponential():
    # mean 1, population standard deviation 1: alpha = 1, beta = 1 / Gamma(2) = 1
    alpha, beta = fit_weibull(np.array([0.0, 2.0]))
    assert alpha == pytest.approx(1.0, abs=1e-9)
    assert beta == pytest.approx(1.0, abs=1e-9)


def test_mle_fit_recovers_known_parameters_and_ignores_zeros():
    rng = np.random.default_rng(7)
    sample = scipy_stats.weibull_min(0.5, scale=300).rvs(20000, random_state=rng)
    alpha, beta = fit_weibull(sample, method="mle")
    assert alpha == pytest.approx(0.5, rel=0.03)
    assert beta == pytest.approx(300, rel=0.05)
    assert fit_weibull(np.concatenate([sample, np.zeros(50)]), method="mle") == (alpha, beta)


@pytest.mark.parametrize("sample", [[], [5.0], [3.0, 3.0, 3.0], [0.0, 0.0]])
def test_fit_without_information_is_nan(sample):
    for method in ("moments", "mle"):
        assert all(math.isnan(v) for v in fit_weibull(np.array(sample), method=method))


def test_fit_rejects_unknown_methods():
    with pytest.raises(InputError, match="'method' parameter of fit_weibull"):
        fit_weibull(np.array([1.0, 2.0]), method="least-squares")


def test_single_job_has_no_interarrival_times():
    s = trace_statistics(Workload(jobs=(Job(1, 0, 5, 10, 1),), processors=4))
    assert math.isnan(s.interarrival_avg) and math.isnan(s.weibull_alpha)


def test_empty_workload_cannot_be_analysed():
    with pytest.raises(InputError, match="has no jobs"):
        trace_statistics(Workload(jobs=(), processors=4, name="none"))


def test_rows_follow_table_2_order():
    labels = [label for label, _ in trace_statistics(HAND).rows()]
    assert labels[:4] == ["number of jobs", "maximum job width", "width of machine",
                          "average requested resources"]
    assert labels[-2:] == ["Weibull alpha (shape)", "Weibull beta (scale) (s)"]
    assert len(labels) == 17


def test_reference_percentages_match_the_papers_printed_ones():
    # Table 2 prints the share of jobs with actual > estimated runtime: a check
    # of the transcribed job counts and overrun counts.
    printed = {"ctc": 9.05, "kth": 1.68, "pc2": 0.0, "sdsc": 6.39}
    for trace, percent in printed.items():
        assert round(STREIT_TABLE2[trace].overrun_percent, 2) == percent


def test_compare_to_reference_gives_relative_differences():
    ours = trace_statistics(HAND)
    paper = TraceStatistics(jobs=5, max_width=6, machine_width=8, avg_width=2.5,
                            estimate_avg=25.0, estimate_min=0, estimate_max=40,
                            runtime_avg=27.5, runtime_min=5, runtime_max=50, overrun_jobs=0,
                            interarrival_avg=10.0, interarrival_min=0, interarrival_max=30,
                            weibull_alpha=1.0, weibull_beta=1.0)
    rows = {label: (mine, theirs, diff)
            for label, mine, theirs, diff in compare_to_reference(ours, paper)}
    assert rows["number of jobs"] == (4, 5, pytest.approx(-0.2))
    assert rows["average requested resources"] == (3.0, 2.5, pytest.approx(0.2))
    assert rows["estimated runtime min (s)"] == (10, 0, None)       # paper 0: undefined
    assert rows["interarrival time min (s)"] == (0.0, 0, 0.0)       # both 0
    assert rows["jobs with actual > estimated runtime"][2] is None


def test_kth_averages_agree_with_streit_within_five_percent():
    if not KTH.exists():
        pytest.skip(f"trace {KTH} is not available")
    ours = trace_statistics(read_swf(KTH))
    paper = STREIT_TABLE2["kth"]
    for name in ("avg_width", "estimate_avg", "runtime_avg", "interarrival_avg"):
        assert getattr(ours, name) == pytest.approx(getattr(paper, name), rel=0.05), name


def test_kth_moment_fit_is_closer_to_streit_than_maximum_likelihood():
    if not KTH.exists():
        pytest.skip(f"trace {KTH} is not available")
    workload = read_swf(KTH)
    paper = STREIT_TABLE2["kth"]
    moments = trace_statistics(workload)
    mle = trace_statistics(workload, weibull_method="mle")
    assert (moments.weibull_alpha, moments.weibull_beta) == (
        pytest.approx(0.3893, abs=1e-4), pytest.approx(286.40, abs=0.01))
    assert abs(moments.weibull_alpha - paper.weibull_alpha) < \
        abs(mle.weibull_alpha - paper.weibull_alpha)
    assert abs(moments.weibull_beta - paper.weibull_beta) < \
        abs(mle.weibull_beta - paper.weibull_beta)


# --------------------------------------------------------------------------- CLI


def cli() -> typer.Typer:
    app = typer.Typer()
    app.command("analyze")(analyze)

    @app.callback()
    def main() -> None:
        """Test application with subcommands."""

    return app


def test_analyze_prints_table_2_rows_and_skip_counts():
    result = CliRunner().invoke(cli(), ["analyze", str(SMALL)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    # small.swf keeps jobs of widths 4, 2, 6, 8 -> average 5
    row = next(line for line in result.output.splitlines()
               if "average requested resources" in line)
    assert row.split("│")[2].strip() == "5"
    for reason, count in (("runtime < 0", 1), ("width <= 0", 1), ("no estimate", 0),
                          ("width > machine", 1)):
        line = next(line for line in result.output.splitlines() if reason in line)
        assert line.split("│")[2].strip() == str(count)


def test_analyze_compares_with_a_paper_column():
    result = CliRunner().invoke(cli(), ["analyze", str(SMALL), "--compare", "kth",
                                        "--missing-estimate", "drop"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "Streit KTH" in result.output
    # 2 jobs (1 and 7) against Streit's 28490
    row = next(line for line in result.output.splitlines() if "number of jobs" in line)
    assert [cell.strip() for cell in row.split("│")[2:5]] == ["2", "28490", "-100.0%"]


def test_analyze_lets_input_errors_through_for_the_application():
    result = CliRunner().invoke(cli(), ["analyze", str(SMALL), "--strict"])
    assert isinstance(result.exception, InputError)
    assert result.exception.line == 13


@pytest.mark.parametrize("value, text", [(3, "3"), (2.0, "2"), (13463.1987, "13463.2"),
                                         (0.38929, "0.389"), (math.nan, "n/a")])
def test_format_value(value, text):
    assert format_value(value) == text
