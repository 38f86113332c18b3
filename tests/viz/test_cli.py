"""``schedlab plot`` and ``schedlab report``: figures from runs and experiments, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.viz.gantt import gantt_figure
from schedlab.viz.style import figure_bytes
from schedlab.viz.timeseries import series_from_result, timeseries_figure

from .helpers import SMALL_EXPERIMENT, SMALL_SWF, SWEEP_EXPERIMENT, small_result, sweep

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``schedlab simulate small.swf --policy fcfs+easy --out run``."""
    base = tmp_path_factory.mktemp("run")
    (base / "small.swf").write_text(SMALL_SWF)
    done = invoke("simulate", base / "small.swf", "--policy", "fcfs+easy", "--out", base / "run")
    assert done.exit_code == 0, done.output
    return base / "run"


@pytest.fixture(scope="module")
def experiments(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("experiments")
    return sweep(SMALL_EXPERIMENT, base, "small"), sweep(SWEEP_EXPERIMENT, base, "sweep")


def run_ids(exp_dir: Path, status: str = "finished") -> list[str]:
    from schedlab.experiments import load_results

    frame = load_results(exp_dir)
    return frame[frame["status"] == status]["run_id"].tolist()


def test_a_gantt_chart_from_jobs_csv_is_the_one_of_the_result(run_dir: Path,
                                                               tmp_path: Path) -> None:
    done = invoke("plot", run_dir, "--kind", "gantt", "--out", tmp_path / "g.svg")
    assert done.exit_code == 0, done.output
    assert f"wrote {tmp_path / 'g.svg'}" in done.output
    expected = figure_bytes(gantt_figure(small_result(), title="fcfs+easy on small"), "svg")
    assert (tmp_path / "g.svg").read_bytes() == expected


def test_a_time_series_from_jobs_csv_is_the_one_the_engine_recorded(run_dir: Path,
                                                                    tmp_path: Path) -> None:
    done = invoke("plot", run_dir, "--kind", "timeseries", "--format", "svg",
                  "--out", tmp_path / "ts")
    assert done.exit_code == 0, done.output
    expected = timeseries_figure({"fcfs+easy": series_from_result(small_result())})
    assert (tmp_path / "ts.svg").read_bytes() == figure_bytes(expected, "svg")


def test_class_bars_from_a_run_directory_default_to_a_png_under_out(
        run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    done = invoke("plot", run_dir, "--kind", "classes", "--by", "runtime")
    assert done.exit_code == 0, done.output
    assert (tmp_path / "out" / "classes.png").read_bytes().startswith(PNG)


def test_figures_of_an_experiment(experiments: tuple[Path, Path], tmp_path: Path) -> None:
    small, swept = experiments
    reference = tmp_path / "streit.csv"
    reference.write_text("policy,x,value\nfcfs+easy,1.0,20000\nfcfs+easy,0.8,30000\n")
    first, second = run_ids(swept)[:2]
    for args in (["--kind", "curve", "--metric", "sldww_60", "--reference", reference,
                  "--invert-x"],
                 ["--kind", "gantt", "--run", first, "--by", "width", "--window", "0:200000"],
                 ["--kind", "timeseries", "--run", first, "--run", second, "--step", "3600"],
                 ["--kind", "classes", "--run", first, "--run", second, "--metric",
                  "avg_bsld_60"]):
        out = tmp_path / f"{args[1]}.png"
        done = invoke("plot", swept, *args, "--out", out)
        assert done.exit_code == 0, done.output
        assert out.read_bytes().startswith(PNG)
    done = invoke("plot", small, "--kind", "classes", "--out", tmp_path / "all.svg")
    assert done.exit_code == 0, done.output         # both finished runs, failed ones left out


def test_a_figure_for_a_paper_is_a_pdf(run_dir: Path, tmp_path: Path) -> None:
    done = invoke("plot", run_dir, "--kind", "gantt", "--out", tmp_path / "gantt.pdf")
    assert done.exit_code == 0, done.output
    assert (tmp_path / "gantt.pdf").read_bytes().startswith(b"%PDF-")


@pytest.mark.parametrize("args, message", [
    (["--kind", "curve"], "a curve needs several runs: give an experiment directory"),
    (["--kind", "gantt", "--run", "abc"], "field --run: --run selects a run of an experiment"),
    (["--kind", "gantt", "--step", "60"], "field --step: applies to --kind timeseries, not gantt"),
    (["--kind", "classes", "--by", "status"],
     "field --by: expected width or runtime for --kind classes, got 'status'"),
    (["--kind", "gantt", "--format", "svg", "--out", "x.png"],
     "field --format: --format svg does not match the file suffix .png"),
    (["--kind", "gantt", "--out", "x.eps"],
     "field format: expected an image format png, svg or pdf"),
    (["--kind", "gantt", "--window", "5"], "field --window: expected START:END"),
    (["--kind", "classes", "--metric", "artww"], "field metric: expected a class metric"),
])
def test_bad_plot_options_exit_with_2(run_dir: Path, args: list[str], message: str,
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    done = invoke("plot", run_dir, *args)
    assert done.exit_code == 2
    assert message in done.output
    assert list(tmp_path.iterdir()) == []


def test_bad_experiment_choices_exit_with_2(experiments: tuple[Path, Path],
                                            tmp_path: Path) -> None:
    small, swept = experiments
    (failed,) = run_ids(small, "failed")[:1]
    cases = [
        (["plot", swept, "--kind", "gantt"], "--kind gantt draws one run: choose it with --run"),
        (["plot", swept, "--kind", "timeseries"], "--kind timeseries draws the runs chosen"),
        (["plot", swept, "--kind", "gantt", "--run", "nope"], "no run 'nope' in this experiment"),
        (["plot", small, "--kind", "gantt", "--run", failed],
         f"run {failed} failed: it has nothing to plot"),
        (["plot", swept, "--kind", "curve", "--x", "param.k"], "field x: no column 'param.k'"),
        (["plot", tmp_path, "--kind", "gantt"], "expected a run directory (jobs.csv and "
                                                "metrics.json"),
    ]
    for args, message in cases:
        done = invoke(*args)
        assert done.exit_code == 2, done.output
        assert message in done.output


def test_a_bad_reference_file_is_named_with_its_line(experiments: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    reference = tmp_path / "ref.csv"
    reference.write_text("policy,x,value\nfcfs+easy,1.0,20000\nfcfs+easy,0.8,lots\n")
    done = invoke("plot", experiments[1], "--kind", "curve", "--reference", reference,
                  "--out", tmp_path / "c.png")
    assert done.exit_code == 2
    assert f"{reference}:3: field value: expected a number, got 'lots'" in done.output
    reference.write_text("policy,value\nfcfs+easy,1\n")
    done = invoke("plot", experiments[1], "--kind", "curve", "--reference", reference)
    assert done.exit_code == 2
    assert "need the columns policy, x, value (missing: x)" in done.output


def test_a_run_directory_without_metrics_json_is_refused(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "jobs.csv").write_bytes((run_dir / "jobs.csv").read_bytes())
    done = invoke("plot", copy, "--kind", "gantt")
    assert done.exit_code == 2 and "the run directory has no metrics.json" in done.output
    (copy / "metrics.json").write_text("{not json")
    done = invoke("plot", copy, "--kind", "gantt")
    assert done.exit_code == 2 and f"{copy / 'metrics.json'}:1: not valid JSON" in done.output
    (copy / "metrics.json").write_text(json.dumps({"metrics": {}}))
    done = invoke("plot", copy, "--kind", "gantt")
    assert done.exit_code == 2 and "field processors: expected the metrics.json" in done.output


def test_report_writes_into_the_experiment_or_where_asked(experiments: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    small = experiments[0]
    done = invoke("report", small)
    assert done.exit_code == 0, done.output
    html = (small / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "4 runs: 2 finished, 2 failed." in html
    done = invoke("report", small, "--out", tmp_path / "deep" / "r.html", "--format", "png")
    assert done.exit_code == 0, done.output
    images = re.findall(r'<img src="([^"]+)"', (tmp_path / "deep" / "r.html").read_text())
    assert len(images) == 4
    assert all(uri.startswith("data:image/png;base64,iVBORw0KGgo") for uri in images)
    assert [p.name for p in (tmp_path / "deep").iterdir()] == ["r.html"]   # no temporary file
    done = invoke("report", tmp_path)
    assert done.exit_code == 2 and "not an experiment directory" in done.output
    done = invoke("report", small, "--format", "gif", "--out", tmp_path / "g.html")
    assert done.exit_code == 2
    assert "field --format: expected one of svg, png, got 'gif'" in done.output
