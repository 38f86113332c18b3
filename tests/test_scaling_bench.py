"""bench/scaling_bench.py: the quick sweep runs end to end; timeouts and slopes are honest."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "scaling_bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("scaling_bench", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_sweep_writes_every_run_the_fits_and_the_figure(tmp_path: Path, bench) -> None:
    """qops: the policy with the most options (exact estimates, stringency deadlines)."""
    out = tmp_path / "scaling.json"
    figure = tmp_path / "scaling.png"
    process = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--policies", "qops", "--timeout", "120",
         "--json", str(out), "--figure", str(figure)],
        capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    saved = json.loads(out.read_text())
    rows = saved["rows"]
    assert [(r["sweep"], r["n"]) for r in rows] == (
        [("jobs", n) for n in bench.QUICK_JOB_COUNTS]
        + [("bounded", n) for n in bench.QUICK_JOB_COUNTS]
        + [("queue", n) for n in bench.QUICK_QUEUE_JOB_COUNTS])
    for row in rows:
        assert row["status"] == "ok", row
        assert row["jobs"] == row["n"]
        assert len(row["checksum"]) == 16
        assert row["args"][-4:] == ["qops", "--perfect-estimates", "--stringency", "0.2"]
        assert row["longest_queue"] >= row["mean_queue"] > 0
        assert row["cpu_s"] > row["baseline_cpu_s"] - 1      # a noisy baseline, not a wrong one
        assert row["peak_rss_kib"] > 0 and "bytes_per_job" in row and "us_per_job" in row
    assert all(r["shrink"] == bench.QUEUE_SHRINK for r in rows if r["sweep"] == "queue")
    assert all(r["shrink"] == bench.BOUNDED_SHRINK for r in rows if r["sweep"] == "bounded")
    assert all("shrink" not in r for r in rows if r["sweep"] == "jobs")
    [fit] = saved["fits"]
    assert fit["policy"] == "qops"
    assert fit["largest_n"] == fit["largest_n_bounded"] == bench.QUICK_JOB_COUNTS[-1]
    assert fit["slope_fitted_on_bounded"] == list(bench.QUICK_JOB_COUNTS)
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| jobs | lublin 500 | qops | 500 |" in process.stdout
    assert f"| bounded | lublin 500, shrink {bench.BOUNDED_SHRINK} | qops | 500 |" in process.stdout
    assert "slope: time vs jobs" in process.stdout
    assert f"| slope, shrink {bench.BOUNDED_SHRINK} |" in process.stdout


def test_a_grid_policy_runs_on_grid_jobs_of_its_platform(tmp_path: Path, bench) -> None:
    """The grid jobs are written once per size and Ta (each sweep's own), then simulated."""
    workloads = bench.Workloads(tmp_path)
    args = workloads.args("bf-fcfs", 300, "queue")
    assert args[0] == str(tmp_path / "grid-300-ta5.swf")
    assert args[1:] == ["--platform", str(tmp_path / "thesis-4.3.toml"), "-p", "bf-fcfs",
                        "--dispatch", "least-work"]
    assert (tmp_path / "grid-300-ta5.grid.csv").exists()
    written = (tmp_path / "grid-300-ta5.swf").stat().st_mtime_ns
    assert workloads.args("grid-edf", 300, "queue")[0] == args[0]
    assert (tmp_path / "grid-300-ta5.swf").stat().st_mtime_ns == written
    run = bench.simulate(args, timeout=300)
    assert run["status"] == "ok", run
    assert run["jobs"] == 300 and run["longest_queue"] >= run["mean_queue"]
    assert bench.Workloads.varied("bf-fcfs", "queue") == {"ta": 5.0}
    assert bench.describe({"policy": "bf-fcfs", "n": 300, "ta": 5.0}) == (
        "thesis-4.3 grid 300, Ta 5")
    assert bench.Workloads.varied("msb", "bounded") == {"shrink": bench.BOUNDED_SHRINK}
    assert bench.Workloads.varied("msb", "jobs") == {}
    assert workloads.args("msb", 300, "jobs") == [
        "lublin", "-n", "300", "-p", "msb", "--perfect-estimates", "--stringency", "0.2"]


def test_a_run_past_its_timeout_is_recorded_as_a_timeout(bench) -> None:
    run = bench.simulate(["lublin", "-n", "2000", "-p", "fcfs"], timeout=0.05)
    assert run["status"] == "timeout"
    assert "checksum" not in run


def test_a_policy_that_timed_out_is_skipped_on_more_jobs(bench, monkeypatch) -> None:
    calls = []

    def fake_simulate(args, timeout):
        calls.append(args[2])
        return {"args": args, "cpu_s": 9.0, "wall_s": 9.0, "peak_rss_kib": 1,
                "status": "timeout", "error": "stopped"}

    monkeypatch.setattr(bench, "simulate", fake_simulate)
    baselines = bench.Baselines(1.0, bench.Workloads(Path("unused")))
    rows = list(bench.sweep("jobs", (10, 20, 30), ["fcfs"], 1.0, baselines))
    assert calls == ["200", "200", "10"]            # the baseline (twice: warm-up), then 10 jobs
    assert [r["status"] for r in rows] == ["timeout", "skipped", "skipped"]
    assert rows[1]["error"] == "timed out at 10 jobs"


def test_log_log_slope(bench) -> None:
    assert bench.slope([1e4, 1e5, 1e6], [1.0, 10.0, 100.0]) == pytest.approx(1.0)
    assert bench.slope([10, 100], [1.0, 100.0]) == pytest.approx(2.0)
    assert bench.slope([10], [1.0]) is None
    assert bench.slope([10, 100], [1.0, -1.0]) is None     # no log of a negative time


def test_per_job_counts_only_the_jobs_beyond_the_baseline(bench) -> None:
    """1,200 jobs against a 200-job baseline: 1,000 jobs' worth of CPU and memory."""
    baseline = {"status": "ok", "jobs": 200, "cpu_s": 1.0, "peak_rss_kib": 100_000}
    run = {"status": "ok", "jobs": 1200, "cpu_s": 1.5, "peak_rss_kib": 101_000}
    assert bench.per_job(run, baseline) == {
        "baseline_cpu_s": 1.0, "baseline_rss_kib": 100_000,
        "us_per_job": 500.0, "bytes_per_job": 1024}
    assert bench.per_job(run, {**baseline, "status": "timeout"}) == {}
