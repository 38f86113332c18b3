"""Damaged experiment directories: each way a store is damaged, and what schedlab does.

The scenarios (docs/how-to/experiments.md, "Reliability"):

* a truncated ``results.sqlite`` — every command names the file and the
  command that rebuilds it (exit 2, one line); ``sweep --repair`` rebuilds it
  from the row copies (``rows/``) or, for a store without them, from what
  the damaged file still gives, keeps every intact run untouched and runs
  only the others again;
* a truncated table (``jobs/<run>.parquet``) — reading it names the file;
  a resumed sweep finds it by size and checksum, says so, and runs that one
  run again;
* a full disk — one line naming the path and "no space left", what was
  stored before stays readable, and the sweep resumes once there is room
  (a fast test with the write failing as on a full disk, and one on a real
  tmpfs when run as root);
* two sweeps into one directory — the second is refused with one line that
  names the first one's process id, and the first goes on undisturbed.

The fourth scenario, ``kill -9`` during a sweep and then resuming, is
tests/experiments/test_reliability.py: nothing stored before the kill is
recomputed (same ``finished_at``) and the results equal an uninterrupted
sweep's.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import schedlab.atomic
from experiments.helpers import (
    MEDIUM_EXPERIMENT,
    MEDIUM_RUNS,
    QUICK_EXPERIMENT,
    QUICK_RUNS,
    SMALL_SWF,
    comparable,
    leftover_temporaries,
    stored_rows,
    wait_for_rows,
    write_files,
)
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.experiments import load_jobs, load_results, load_series, run_sweep
from schedlab.experiments.store import (
    ResultStore,
    database_errors,
    jobs_path,
    row_copy_path,
    series_path,
)

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def quick(tmp_path: Path) -> Path:
    """The 12 quick runs, swept serially into ``tmp_path / "out"``; returns the experiment."""
    path = write_files(tmp_path, QUICK_EXPERIMENT)
    run_sweep(path, tmp_path / "out", executor="serial")
    return path


@pytest.fixture
def reference(quick: Path, tmp_path: Path) -> Path:
    """The same sweep into a second, untouched directory."""
    run_sweep(quick, tmp_path / "reference", executor="serial")
    return tmp_path / "reference"


def finished_at(exp_dir: Path) -> dict[str, str]:
    return {run_id: when for run_id, _, when in stored_rows(exp_dir)}


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("schedlab: error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def assert_same_results(out: Path, reference: Path) -> None:
    assert comparable(load_results(out)).equals(comparable(load_results(reference)))
    for run_id in load_results(reference)["run_id"]:
        assert load_jobs(out, run_id).equals(load_jobs(reference, run_id))
        assert load_series(out, run_id).equals(load_series(reference, run_id))


# --------------------------------------------------------------------- truncated database


def test_a_truncated_database_is_named_with_the_command_that_rebuilds_it(
        quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    os.truncate(out / "results.sqlite", 5000)
    repair = f"'schedlab sweep {quick.resolve()} --out {out} --repair'"
    for args in (("results", out), ("sweep", quick, "--out", out, "-j", "1"),
                 ("plot", out, "--kind", "curve", "--x", "transform.shrink")):
        assert_one_line_error(invoke(*args), f"{out / 'results.sqlite'}: the result store is "
                                             f"damaged (", repair)


def test_an_emptied_database_is_damaged_too_and_repair_restores_every_run(
        quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = finished_at(out)
    os.truncate(out / "results.sqlite", 0)
    assert_one_line_error(invoke("results", out), "damaged (it has no table of runs)")
    assert_one_line_error(invoke("sweep", quick, "--out", out, "-j", "1"),
                          "damaged (it has no table of runs, but rows/ holds stored runs)")
    summary = run_sweep(quick, out, executor="serial", repair=True)
    assert (summary.repaired.restored, summary.finished) == (QUICK_RUNS, 0)
    assert finished_at(out) == before


def test_repair_keeps_every_intact_run_and_runs_only_the_others_again(
        quick: Path, reference: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = finished_at(out)
    damaged = sorted(before)[0]
    os.truncate(jobs_path(out, damaged), 100)
    os.truncate(out / "results.sqlite", 5000)

    result = invoke("sweep", quick, "--out", out, "-j", "1", "--repair")
    assert result.exit_code == 0, result.output
    assert (f"repair: results.sqlite rebuilt (the damaged one kept as "
            f"{out / 'results.sqlite.damaged'}): {QUICK_RUNS - 1} runs restored intact, "
            f"1 damaged beyond it; the runs it lacks run again") in result.stderr
    assert f"{QUICK_RUNS - 1} runs already stored, skipped" in result.stderr
    assert f"{QUICK_RUNS} runs: 1 finished and 0 failed now, {QUICK_RUNS - 1} finished " \
           f"before" in result.stdout
    after = finished_at(out)
    assert {r: after[r] for r in before if r != damaged} == \
        {r: before[r] for r in before if r != damaged}          # restored, not recomputed
    assert after[damaged] != before[damaged]
    assert (out / "results.sqlite.damaged").stat().st_size == 5000
    assert_same_results(out, reference)


def test_repair_of_a_store_without_row_copies_keeps_the_rows_the_damaged_file_gives(
        quick: Path, reference: Path, tmp_path: Path) -> None:
    """A store written before the row copies: the table itself still reads, its primary-key
    index (one zeroed page) does not."""
    out = tmp_path / "out"
    before = finished_at(out)
    for copy in (out / "rows").iterdir():
        copy.unlink()
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("UPDATE runs SET files_json = NULL")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        index_page = db.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index'"
                                ).fetchone()[0]
    db.close()
    with open(out / "results.sqlite", "r+b") as handle:
        handle.seek((index_page - 1) * page_size)
        handle.write(bytes(page_size))
    with pytest.raises(InputError, match="the result store is damaged"):
        run_sweep(quick, out, executor="serial")

    summary = run_sweep(quick, out, executor="serial", repair=True)
    assert (summary.repaired.restored, summary.repaired.lost) == (QUICK_RUNS, {})
    assert (summary.already_finished, summary.finished) == (QUICK_RUNS, 0)
    assert finished_at(out) == before
    assert len(list((out / "rows").iterdir())) == QUICK_RUNS
    assert_same_results(out, reference)


def test_repair_after_moving_the_database_aside_by_hand_restores_every_run(
        quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = finished_at(out)
    (out / "results.sqlite").rename(tmp_path / "kept.sqlite")
    summary = run_sweep(quick, out, executor="serial", repair=True)
    assert (summary.repaired.rebuilt, summary.repaired.aside, summary.repaired.restored) == \
        (True, None, QUICK_RUNS)
    assert summary.finished == 0 and finished_at(out) == before


def test_repair_of_an_intact_store_changes_nothing(quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = finished_at(out)
    summary = run_sweep(quick, out, executor="serial", repair=True)
    assert (summary.repaired.rebuilt, summary.repaired.aside, summary.repaired.restored) == \
        (False, None, 0)
    assert finished_at(out) == before and not (out / "results.sqlite.damaged").exists()


# ------------------------------------------------------------------------ truncated table


def test_a_truncated_table_is_named_on_reading_and_run_again_on_resume(
        quick: Path, reference: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = finished_at(out)
    damaged = sorted(before)[3]
    written = jobs_path(out, damaged).stat().st_size
    os.truncate(jobs_path(out, damaged), 100)
    message = f"the table of run {damaged} is damaged (100 bytes, {written} when written)"
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_jobs(out, damaged)
    assert_one_line_error(invoke("plot", out, "--run", damaged, "--kind", "gantt", "--out",
                                 tmp_path / "g.png"), f"{jobs_path(out, damaged)}: {message}")

    result = invoke("sweep", quick, "--out", out, "-j", "1")
    assert result.exit_code == 0, result.output
    assert (f"1 stored runs are damaged and run again:\n  damaged {damaged}: "
            f"{jobs_path(out, damaged)}: 100 bytes, {written} when written\n"
            f"{QUICK_RUNS - 1} runs already stored, skipped\n") in result.stderr
    assert f"1 finished and 0 failed now (1 damaged runs done again), {QUICK_RUNS - 1} " \
           f"finished before" in result.stdout
    after = finished_at(out)
    assert {r: after[r] for r in before if r != damaged} == \
        {r: before[r] for r in before if r != damaged}
    assert jobs_path(out, damaged).stat().st_size == written
    assert_same_results(out, reference)


def test_an_altered_table_of_the_same_size_is_found_by_its_checksum(
        quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_id = sorted(finished_at(out))[5]
    data = bytearray(series_path(out, run_id).read_bytes())
    data[len(data) // 2] ^= 0xFF
    series_path(out, run_id).write_bytes(bytes(data))
    with pytest.raises(InputError, match="its checksum differs from the one recorded"):
        load_series(out, run_id)
    summary = run_sweep(quick, out, executor="serial")
    assert list(summary.damaged) == [run_id] and summary.finished == 1
    load_series(out, run_id)


def test_a_store_from_before_the_checksums_is_checked_and_gets_them_on_resume(
        quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("UPDATE runs SET files_json = NULL")
    db.close()
    for copy in (out / "rows").iterdir():
        copy.unlink()
    damaged = sorted(finished_at(out))[2]
    os.truncate(series_path(out, damaged), 100)
    with pytest.raises(InputError, match="not a whole Parquet file"):
        load_series(out, damaged)

    summary = run_sweep(quick, out, executor="serial")
    assert summary.damaged == {damaged: f"{series_path(out, damaged)}: not a whole Parquet file"}
    with sqlite3.connect(out / "results.sqlite") as db:
        recorded = dict(db.execute("SELECT run_id, files_json FROM runs"))
    db.close()
    assert all(recorded.values()) and len(recorded) == QUICK_RUNS
    sizes = json.loads(recorded[damaged])
    assert sizes["series"][0] == series_path(out, damaged).stat().st_size
    assert sorted(p.stem for p in (out / "rows").iterdir()) == sorted(recorded)


def test_a_damaged_row_copy_is_written_again_on_resume(quick: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_id = sorted(finished_at(out))[0]
    whole = row_copy_path(out, run_id).read_text()
    os.truncate(row_copy_path(out, run_id), 10)
    summary = run_sweep(quick, out, executor="serial")
    assert (summary.damaged, summary.finished) == ({}, 0)
    assert row_copy_path(out, run_id).read_text() == whole


# ------------------------------------------------------------------------------ full disk


class FullDisk:
    """Writes through :mod:`schedlab.atomic` fail with ENOSPC after ``room`` good files."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.real = os.fdopen

    def fdopen(self, fd, *args, **kwargs):
        handle = self.real(fd, *args, **kwargs)
        if self.room > 0:
            self.room -= 1
            return handle

        class Full:
            def __enter__(inner):
                return inner

            def __exit__(inner, *exc):
                handle.close()

            def write(inner, data):
                raise OSError(errno.ENOSPC, "No space left on device")
        return Full()


def test_a_full_disk_during_a_sweep_is_one_error_and_the_sweep_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_files(tmp_path, QUICK_EXPERIMENT)
    out = tmp_path / "out"
    disk = FullDisk(room=1 + 3 * 4)     # experiment.toml, then four runs of three files
    monkeypatch.setattr(schedlab.atomic.os, "fdopen", disk.fdopen)
    with pytest.raises(InputError, match="no space left on the device") as raised:
        run_sweep(path, out, executor="serial")
    assert raised.value.file.startswith(str(out / "jobs"))
    assert len(stored_rows(out)) == 4 and leftover_temporaries(out) == []
    for run_id in finished_at(out):
        load_jobs(out, run_id)
        load_series(out, run_id)

    monkeypatch.setattr(schedlab.atomic.os, "fdopen", disk.real)
    summary = run_sweep(path, out, executor="serial")
    assert (summary.already_finished, summary.finished, summary.damaged) == \
        (4, QUICK_RUNS - 4, {})
    run_sweep(path, tmp_path / "reference", executor="serial")
    assert_same_results(out, tmp_path / "reference")


def test_a_full_disk_under_simulate_out_is_one_line_naming_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    monkeypatch.setattr(schedlab.atomic.os, "fdopen", FullDisk(room=0).fdopen)
    result = invoke("simulate", tmp_path / "small.swf", "--out", tmp_path / "run")
    assert_one_line_error(result, f"{tmp_path / 'run' / 'jobs.csv'}: no space left on the "
                                  f"device; nothing was half-written")
    assert list((tmp_path / "run").iterdir()) == []        # no file, whole or half


def test_sqlite_s_full_disk_error_is_one_line_naming_the_database(tmp_path: Path) -> None:
    err = sqlite3.OperationalError("database or disk is full")
    err.sqlite_errorcode = 13           # SQLITE_FULL
    with pytest.raises(InputError, match=r"results.sqlite: no space left on the device; the "
                                         "runs stored so far are kept"), database_errors(tmp_path):
        raise err


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A 384 KiB tmpfs mounted for the test (root only), unmounted afterwards: room for a
    run or two of the medium experiment, not for all."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=384k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        gc.collect()        # SQLite connections the helpers leave to the collector
        if subprocess.run(["umount", str(mount)]).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=True)


def test_a_real_full_disk_is_one_line_and_what_was_stored_stays_readable(
        tmpfs: Path, tmp_path: Path) -> None:
    result = invoke("simulate", "lublin", "-n", "20000", "--policy", "fcfs+easy", "--out",
                    tmpfs / "run")
    assert_one_line_error(result, f"{tmpfs / 'run' / 'jobs.csv'}: no space left on the device")

    path = write_files(tmp_path / "files", MEDIUM_EXPERIMENT)
    result = invoke("sweep", path, "--out", tmpfs / "exp", "-j", "1")
    assert_one_line_error(result, "no space left on the device")
    assert str(tmpfs / "exp") in result.stderr
    stored = finished_at(tmpfs / "exp")
    assert 0 < len(stored) < MEDIUM_RUNS
    for run_id in stored:
        load_jobs(tmpfs / "exp", run_id)
    assert leftover_temporaries(tmpfs / "exp") == []


# ------------------------------------------------------------------------ two sweeps at once


def test_a_second_sweep_is_refused_with_the_first_one_s_process_id(tmp_path: Path) -> None:
    path = write_files(tmp_path, MEDIUM_EXPERIMENT)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "schedlab", "sweep", str(path), "--out",
                              str(out), "--workers", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_rows(out, 1)
        second = subprocess.run([sys.executable, "-m", "schedlab", "sweep", str(path), "--out",
                                 str(out), "--workers", "1"], capture_output=True, text=True)
        assert second.returncode == 2
        assert second.stderr == (f"schedlab: error: {out}: another sweep (process {first.pid}) "
                                 f"is writing to this experiment directory; wait for it to "
                                 f"end, or stop it\n")
        _, stderr = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, stderr
    rows = stored_rows(out)
    assert len(rows) == MEDIUM_RUNS and {status for _, status, _ in rows} == {"finished"}
    with ResultStore(out) as store:     # the lock is free again
        assert store.check_runs(run_id for run_id, _, _ in rows) == {}
