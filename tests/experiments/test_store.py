"""The result store: what a sweep writes, what the API reads back, resume and failure rules.

Values are those worked out by hand for SMALL_SWF (see helpers.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

import schedlab
from experiments.helpers import (
    EASY_STARTS,
    FCFS_STARTS,
    SMALL_EXPERIMENT,
    SMALL_SWF,
    leftover_temporaries,
    stored_rows,
    write_files,
)
from schedlab.errors import InputError
from schedlab.experiments import load_experiment, load_jobs, load_results, load_series, run_sweep
from schedlab.experiments.runner import execute_run
from schedlab.experiments.store import ResultStore
from schedlab.output import jobs_csv_text
from schedlab.policies.backfilling import EasyBackfilling


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return write_files(tmp_path, SMALL_EXPERIMENT)


def test_a_sweep_stores_the_hand_worked_schedules(small: Path, tmp_path: Path) -> None:
    summary = run_sweep(small, tmp_path / "out", executor="serial")
    assert (summary.total, summary.finished, summary.failed) == (2, 2, 0)
    assert summary.complete
    frame = load_results(tmp_path / "out").set_index("policy")
    assert frame.loc["fcfs+easy", "avg_wait"] == 27.5
    assert frame.loc["fcfs", "avg_wait"] == 85.0
    assert frame.loc["fcfs+easy", "makespan"] == 170
    assert frame.loc["fcfs", "utilization"] == 520 / 1000
    assert frame.loc["fcfs+easy", "killed"] == 1
    assert list(frame["workload"]) == ["small", "small"]
    assert frame["seed"].isna().all() and frame["processors"].isna().all()
    assert set(frame["status"]) == {"finished"}
    easy = load_jobs(tmp_path / "out", frame.loc["fcfs+easy", "run_id"])
    assert easy["start"].tolist() == EASY_STARTS
    assert easy["status"].tolist() == ["finished", "finished", "killed", "finished"]
    assert easy["wait"].tolist() == [0, 110, 0, 0]
    fcfs = load_jobs(tmp_path / "out", frame.loc["fcfs", "run_id"])
    assert fcfs["start"].tolist() == FCFS_STARTS


def test_stored_tables_and_metrics_equal_those_of_the_public_api(small: Path,
                                                                  tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    frame = load_results(tmp_path / "out").set_index("policy")
    result = schedlab.simulate(tmp_path / "small.swf", "fcfs+easy")
    metrics = schedlab.compute_metrics(result)
    stored = frame.loc["fcfs+easy"]
    assert {name: stored[name] for name in metrics} == metrics
    jobs = load_jobs(tmp_path / "out", stored["run_id"])
    as_csv = jobs.astype(object).where(jobs.notna(), "").to_csv(index=False, lineterminator="\n")
    assert as_csv == jobs_csv_text(result)
    series = load_series(tmp_path / "out", stored["run_id"])
    assert series["time"].tolist() == result.series_time.tolist()
    assert series["busy"].tolist() == result.series_busy.tolist()
    assert series["queue"].tolist() == result.series_queue.tolist()


def test_the_database_row_holds_spec_version_and_convenience_columns(small: Path,
                                                                     tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM runs WHERE policy = 'fcfs'").fetchone()
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    spec = json.loads(row["spec_json"])
    assert spec["run_id"] == row["run_id"]
    assert spec["workload"]["source"] == str(tmp_path / "small.swf")
    assert (row["status"], row["workload"], row["seed"], row["params_json"],
            row["transforms_json"], row["schedlab_version"], row["error"]) == \
        ("finished", "small", None, "{}", "{}", schedlab.__version__, None)
    assert json.loads(row["metrics_json"])["avg_wait"] == 85.0
    assert row["wall_time"] > 0
    copy = (tmp_path / "out" / "experiment.toml").read_text()
    assert copy == f"# schedlab sweep of {small}; relative workload paths are relative to " \
                   f"that file's directory\n" + SMALL_EXPERIMENT


def test_rerunning_skips_finished_runs_and_recomputes_nothing(small: Path,
                                                              tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    first = stored_rows(tmp_path / "out")
    again = run_sweep(small, tmp_path / "out", executor="serial")
    assert (again.already_finished, again.finished, again.failed) == (2, 0, 0)
    assert stored_rows(tmp_path / "out") == first          # same rows, same finished_at


def test_growing_an_experiment_runs_only_the_new_runs(small: Path, tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    small.write_text(SMALL_EXPERIMENT + '[[policies]]\nname = "sjf+easy"\n')
    summary = run_sweep(small, tmp_path / "out", executor="serial")
    assert (summary.total, summary.already_finished, summary.finished) == (3, 2, 1)
    assert sorted(load_results(tmp_path / "out")["policy"]) == ["fcfs", "fcfs+easy", "sjf+easy"]


BROKEN_SWF = SMALL_SWF + "5 40 -1 -1 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1\n"


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path: Path) -> None:
    """With strict = true the record of line 7 (runtime -1) stops the reader of broken.swf."""
    path = write_files(tmp_path, SMALL_EXPERIMENT.replace(
        'source = "small.swf"\n', 'source = "small.swf"\n[[workloads]]\n'
                                   'source = "broken.swf"\nstrict = true\n'))
    (tmp_path / "broken.swf").write_text(BROKEN_SWF)
    summary = run_sweep(path, tmp_path / "out", executor="serial")
    assert (summary.finished, summary.failed) == (2, 2)
    assert not summary.complete
    frame = load_results(tmp_path / "out")
    failed = frame[frame["status"] == "failed"]
    assert failed["workload"].tolist() == ["broken", "broken"]
    (first_line,) = set(summary.failures.values())
    assert first_line.startswith(f"InputError: {tmp_path / 'broken.swf'}:7: ")
    assert all(e.startswith(first_line + "\n\nTraceback") for e in failed["error"])
    assert failed["avg_wait"].isna().all() and failed["jobs"].isna().all()
    assert str(frame["jobs"].dtype) == "Int64" and frame["avg_wait"].dtype == float
    with pytest.raises(InputError, match="failed, it has no tables: InputError"):
        load_jobs(tmp_path / "out", failed["run_id"].iloc[0])
    assert len(list((tmp_path / "out" / "jobs").iterdir())) == 2


def test_failed_runs_are_skipped_unless_retried_and_a_retry_replaces_them(
        small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(self, ctx):
        raise RuntimeError("policy exploded")

    monkeypatch.setattr(EasyBackfilling, "schedule", explode)     # fcfs+easy fails, fcfs not
    first = run_sweep(small, tmp_path / "out", executor="serial")
    assert (first.finished, first.failed) == (1, 1)
    monkeypatch.undo()
    skipped = run_sweep(small, tmp_path / "out", executor="serial")
    assert (skipped.already_finished, skipped.already_failed, skipped.finished,
            skipped.failed) == (1, 1, 0, 0)
    assert list(skipped.failures.values()) == ["RuntimeError: policy exploded"]
    retried = run_sweep(small, tmp_path / "out", executor="serial", retry_failed=True)
    assert (retried.already_failed, retried.finished, retried.failed, retried.failures) == \
        (0, 1, 0, {})
    frame = load_results(tmp_path / "out").set_index("policy")
    assert list(frame["status"]) == ["finished", "finished"]
    assert frame["error"].isna().all()
    assert frame.loc["fcfs+easy", "avg_wait"] == 27.5


def test_a_finished_row_is_never_replaced(small: Path, tmp_path: Path) -> None:
    run = load_experiment(small).runs[0]
    with ResultStore(tmp_path / "out") as store:
        assert store.write(execute_run(run)) is True
        assert store.write(execute_run(run)) is False
    assert len(stored_rows(tmp_path / "out")) == 1


def test_orphan_tables_and_temporary_files_of_a_killed_sweep_are_never_read(
        small: Path, tmp_path: Path) -> None:
    """A sweep killed after writing a table but before its row, or in the middle of a write."""
    out = tmp_path / "out"
    run = load_experiment(small).runs[0]
    (out / "jobs").mkdir(parents=True)
    (out / "jobs" / f"{run.run_id}.parquet").write_bytes(b"half a parquet file")
    (out / "jobs" / f".{run.run_id}.parquet.k3j2.tmp").write_bytes(b"PAR1")
    assert run_sweep(small, out, executor="serial").finished == 2
    assert leftover_temporaries(out) == []
    assert load_jobs(out, run.run_id)["start"].tolist() == EASY_STARTS


def test_results_of_an_experiment_without_runs_read_as_an_empty_frame(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "out"):
        pass
    frame = load_results(tmp_path / "out")
    assert len(frame) == 0
    assert list(frame.columns) == ["run_id", "workload", "policy", "seed", "processors",
                                   "overrun", "status", "wall_time", "error",
                                   "schedlab_version", "finished_at"]


def test_parameters_and_transforms_become_columns(tmp_path: Path) -> None:
    path = write_files(tmp_path, SMALL_EXPERIMENT + "[transforms]\nshrink = [0.5, 1.0]\n"
                                                    "perfect_estimates = true\n")
    run_sweep(path, tmp_path / "out", executor="serial")
    frame = load_results(tmp_path / "out")
    assert sorted(zip(frame["policy"], frame["transform.shrink"])) == [
        ("fcfs", 0.5), ("fcfs", 1.0), ("fcfs+easy", 0.5), ("fcfs+easy", 1.0)]
    assert frame["transform.perfect_estimates"].tolist() == [True] * 4
    # fcfs+easy, shrink 0.5, perfect estimates, by hand: submits 0, 5, 10, 15; job 1 runs
    # 0-100; job 2 (4 wide) waits for 100; job 3 (300 s) would pass 100 and no processor is
    # spare then, so it waits; job 4 (20 s) ends by 35 and backfills at 15; job 2 runs
    # 100-150, then job 3 starts at 150.
    run_id = frame[(frame["policy"] == "fcfs+easy") & (frame["transform.shrink"] == 0.5)
                   ]["run_id"].iloc[0]
    assert load_jobs(tmp_path / "out", run_id)["start"].tolist() == [0, 100, 150, 15]


def test_a_second_sweep_on_the_same_directory_is_refused_naming_the_holder(
        small: Path, tmp_path: Path) -> None:
    refused = pytest.raises(InputError, match=rf"another sweep \(process {os.getpid()}\) is "
                                              rf"writing to this experiment directory")
    with ResultStore(tmp_path / "out"), refused:
        run_sweep(small, tmp_path / "out", executor="serial")


@pytest.mark.parametrize("call", [load_results, lambda d: load_jobs(d, "0" * 16)])
def test_reading_a_directory_that_is_no_experiment_is_an_input_error(tmp_path: Path,
                                                                     call) -> None:
    with pytest.raises(InputError, match="not an experiment directory"):
        call(tmp_path)


def test_an_unknown_run_is_an_input_error(small: Path, tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    with pytest.raises(InputError, match="no run 'ffffffffffffffff' in this experiment"):
        load_series(tmp_path / "out", "f" * 16)


def test_results_are_a_pandas_frame_with_nullable_integers(small: Path, tmp_path: Path) -> None:
    run_sweep(small, tmp_path / "out", executor="serial")
    frame = load_results(tmp_path / "out")
    assert isinstance(frame, pd.DataFrame)
    assert str(frame["seed"].dtype) == "Int64"
    jobs = load_jobs(tmp_path / "out", frame["run_id"].iloc[0])
    assert str(jobs["start"].dtype) == "Int64"
    assert jobs["planned_start"].isna().all()
