"""``schedlab sweep`` and ``schedlab results``: outputs, exit codes, progress, bad input.

The hand-worked values of SMALL_SWF (helpers.py): mean wait 27.5 s under
fcfs+easy and 85 s under fcfs.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

import schedlab.cli.sweep as cli_sweep
from experiments.helpers import SMALL_EXPERIMENT, SMALL_SWF, write_files
from schedlab.cli.app import app
from schedlab.experiments import run_sweep
from schedlab.experiments.summary import setting_policy, summary_frame

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding small.swf and experiment.toml."""
    write_files(tmp_path, SMALL_EXPERIMENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sweep_runs_every_run_then_skips_them_on_a_rerun(workdir: Path) -> None:
    first = invoke("sweep", "experiment.toml", "--out", "out", "--workers", "1")
    assert first.exit_code == 0, first.output
    assert "2 runs: 2 finished and 0 failed now, 0 finished before (" in first.stdout
    assert first.stdout.rstrip().endswith("-> out")
    again = invoke("sweep", "experiment.toml", "--out", "out", "--workers", "1")
    assert again.exit_code == 0
    assert "2 runs already stored, skipped" in again.stderr
    assert "2 runs: 0 finished and 0 failed now, 2 finished before (" in again.stdout


def test_sweep_writes_to_the_experiment_name_by_default(workdir: Path) -> None:
    assert invoke("sweep", "experiment.toml", "-j", "1").exit_code == 0
    assert (workdir / "experiment" / "results.sqlite").is_file()


def test_results_prints_run_counts_and_means_and_exports_csv(workdir: Path) -> None:
    assert invoke("sweep", "experiment.toml", "--out", "out", "-j", "1").exit_code == 0
    shown = invoke("results", "out", "--metric", "avg_wait", "--metric", "makespan",
                   "--csv", "all.csv")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert any(line.split() == ["│", "finished", "│", "2", "│"] for line in lines)
    easy = next(line for line in lines if "fcfs+easy" in line).replace("│", " ").split()
    fcfs = next(line for line in lines if "fcfs " in line).replace("│", " ").split()
    assert easy == ["fcfs+easy", "1", "27.5", "170.0"]
    assert fcfs == ["fcfs", "1", "85.0", "250.0"]
    assert "every row: workload=small" in shown.stdout
    assert "wrote 2 runs to all.csv" in shown.stdout
    rows = list(csv.DictReader(io.StringIO((workdir / "all.csv").read_text())))
    assert sorted((r["policy"], r["avg_wait"], r["status"]) for r in rows) == [
        ("fcfs", "85.0", "finished"), ("fcfs+easy", "27.5", "finished")]
    assert list(rows[0])[:6] == ["run_id", "workload", "policy", "seed", "processors", "overrun"]


def test_a_failed_run_makes_the_sweep_exit_with_1_and_is_listed(workdir: Path) -> None:
    (workdir / "broken.swf").write_text(SMALL_SWF + "5 40 -1 -1 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1\n")
    (workdir / "experiment.toml").write_text(
        'workloads = ["small.swf", {source = "broken.swf", strict = true}]\npolicies = ["fcfs"]\n')
    result = invoke("sweep", "experiment.toml", "--out", "out", "-j", "1")
    assert result.exit_code == 1
    assert "2 runs: 1 finished and 1 failed now" in result.stdout
    assert "  failed " in result.stdout and ": InputError: " in result.stdout
    assert "rerun with --retry-failed" in result.stdout
    shown = invoke("results", "out")
    assert any(line.split() == ["│", "failed", "│", "1", "│"] for line in shown.stdout.splitlines())


@pytest.mark.parametrize("args, message", [
    (["sweep", "bad.toml"], "schedlab: error: bad.toml: field policies[1].name: unknown policy "
                            "'fifo'"),
    (["sweep", "nope.toml"], "schedlab: error: nope.toml: no such experiment file"),
    (["sweep", "experiment.toml", "--dask", "host:1"],
     "schedlab: error: field --dask: expected 'local' or tcp://HOST:PORT, got 'host:1'"),
    (["sweep", "experiment.toml", "--workers", "0"],
     "schedlab: error: field --workers: expected an integer >= 1, got 0"),
    (["sweep", "experiment.toml", "--dask", "tcp://127.0.0.1:9", "--workers", "2"],
     "schedlab: error: field --workers: --workers sets the size of a local cluster"),
    (["results", "."], "schedlab: error: .: not an experiment directory (no results.sqlite)"),
])
def test_bad_input_exits_with_2_and_one_line(workdir: Path, args: list[str],
                                             message: str) -> None:
    (workdir / "bad.toml").write_text('workloads = ["small.swf"]\npolicies = ["fcfs", "fifo"]\n')
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert not (workdir / "bad").exists() and not (workdir / "experiment").exists()


def test_results_rejects_an_unknown_metric(workdir: Path) -> None:
    assert invoke("sweep", "experiment.toml", "--out", "out", "-j", "1").exit_code == 0
    result = invoke("results", "out", "--metric", "avg_weight")
    assert result.exit_code == 2
    assert result.stderr.startswith("schedlab: error: field --metric: no metric 'avg_weight' in "
                                    "these results (did you mean 'avg_wait'?) (metrics: jobs, "
                                    "finished, killed,")


def test_the_progress_bar_shows_counts_on_a_terminal_and_nothing_elsewhere(
        workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(cli_sweep, "err_console",
                        Console(file=screen, force_terminal=True, width=120))
    progress = cli_sweep.SweepProgress("small")
    run_sweep(workdir / "experiment.toml", workdir / "out", executor="serial", observer=progress)
    progress.close()
    assert (progress.finished, progress.failed) == (2, 0)
    drawn = screen.getvalue()
    assert "2/2" in drawn and "2 finished" in drawn and "0 failed" in drawn and "ETA" in drawn

    piped = invoke("sweep", "experiment.toml", "--out", "out2", "-j", "1")
    assert piped.stderr == ""                                   # no bar when not a terminal


def test_means_run_over_seeds_per_policy_with_its_parameters() -> None:
    frame = pd.DataFrame({
        "workload": ["w", "w", "w", "w"], "policy": ["dynp", "dynp", "dynp", "fcfs"],
        "param.k": pd.Series([2, 2, 4, None], dtype="Int64"),
        "transform.shrink": [0.5, 0.5, 0.5, 0.5],
        "seed": [0, 1, 0, 0], "processors": [None] * 4, "overrun": ["kill"] * 4,
        "avg_wait": [10.0, 20.0, 7.0, 3.0]})
    assert [setting_policy(row) for _, row in frame.iterrows()] == \
        ["dynp[k=2]", "dynp[k=2]", "dynp[k=4]", "fcfs"]
    summary = summary_frame(frame, ["avg_wait"])
    assert summary[["policy", "n", "avg_wait"]].values.tolist() == [
        ["dynp[k=2]", 2, 15.0], ["dynp[k=4]", 1, 7.0], ["fcfs", 1, 3.0]]


def test_results_of_an_experiment_with_no_finished_run_show_its_runs_without_metrics(
        workdir: Path) -> None:
    """Every run fails (a strict read of a trace with a negative runtime on line 7); no
    --metric was given, so none is complained about."""
    (workdir / "broken.swf").write_text(SMALL_SWF + "5 40 -1 -1 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 "
                                                    "-1 -1\n")
    (workdir / "failing.toml").write_text(
        (workdir / "experiment.toml").read_text().replace('source = "small.swf"\n',
                                                         'source = "broken.swf"\n'
                                                         'strict = true\n'))
    assert invoke("sweep", "failing.toml", "--out", "out", "-j", "1").exit_code == 1
    result = invoke("results", "out")
    assert result.exit_code == 0, result.output
    assert "│ failed │    2 │" in result.stdout
    assert "no run has finished yet: no metrics to show" in result.stdout
    assert "--metric" not in result.output


def test_settings_are_listed_with_their_numbers_read_as_numbers() -> None:
    frame = pd.DataFrame({
        "workload": ["w"] * 4, "policy": ["gang"] * 4,
        "param.slot": pd.Series([200, 25, 1, 100], dtype="Int64"),
        "seed": [0] * 4, "processors": [None] * 4, "overrun": ["kill"] * 4,
        "avg_wait": [4.0, 2.0, 1.0, 3.0]})
    summary = summary_frame(frame, ["avg_wait"])
    assert summary["policy"].tolist() == ["gang[slot=1]", "gang[slot=25]", "gang[slot=100]",
                                          "gang[slot=200]"]
    assert summary["avg_wait"].tolist() == [1.0, 2.0, 3.0, 4.0]
