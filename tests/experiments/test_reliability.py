"""Stopping a real ``schedlab sweep`` process midway, then resuming it.

The sweep runs as a child process with two workers.  It is first stopped
with Ctrl-C (SIGINT to its whole process group, as a terminal does) while it
runs on a local Dask cluster, then started again on a process pool and
killed with SIGKILL (the sweep, its fork server and its workers), and
finally resumed.  Every run must end up stored
exactly once, the rows stored before each stop untouched, the tables whole
and equal to those of an uninterrupted serial sweep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments.helpers import (
    MEDIUM_EXPERIMENT,
    MEDIUM_RUNS,
    comparable,
    leftover_temporaries,
    session_pids,
    stored_rows,
    wait_for_rows,
    write_files,
)
from schedlab.experiments import load_jobs, load_results, run_sweep


def start_sweep(path: Path, out: Path, *options: str) -> subprocess.Popen:
    """``python -m schedlab sweep`` with two workers, in a process group of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "schedlab", "sweep", str(path), "--out", str(out), "--workers", "2",
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def stop(process: subprocess.Popen, sig: signal.Signals) -> tuple[str, str]:
    os.killpg(process.pid, sig)
    return process.communicate(timeout=60)


def test_a_sweep_stopped_by_ctrl_c_and_by_kill_9_resumes_with_every_run_exactly_once(
        tmp_path: Path) -> None:
    path = write_files(tmp_path, MEDIUM_EXPERIMENT)
    out = tmp_path / "out"

    process = start_sweep(path, out, "--dask", "local")
    wait_for_rows(out, 2)
    _, stderr = stop(process, signal.SIGINT)
    assert process.returncode == 130, stderr
    after_interrupt = stored_rows(out)
    assert 2 <= len(after_interrupt) < MEDIUM_RUNS
    assert stderr == (f"schedlab: interrupted; {len(after_interrupt)} runs are stored in {out}. "
                      f"Run the same command again to resume.\n")     # no worker tracebacks

    process = start_sweep(path, out)
    wait_for_rows(out, len(after_interrupt) + 2)
    stop(process, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    after_kill = stored_rows(out)
    assert len(after_kill) < MEDIUM_RUNS
    assert set(after_interrupt) <= set(after_kill)           # nothing redone, nothing lost

    summary = run_sweep(path, out, executor="pool", jobs=2)
    assert (summary.already_finished, summary.finished, summary.failed) == \
        (len(after_kill), MEDIUM_RUNS - len(after_kill), 0)
    rows = stored_rows(out)
    assert len(rows) == len({run_id for run_id, _, _ in rows}) == MEDIUM_RUNS
    assert {status for _, status, _ in rows} == {"finished"}
    assert set(after_kill) <= set(rows)
    assert leftover_temporaries(out) == []

    run_sweep(path, tmp_path / "reference", executor="serial")
    assert comparable(load_results(out)).equals(comparable(load_results(tmp_path / "reference")))
    for run_id, _, _ in rows:
        assert load_jobs(out, run_id).equals(load_jobs(tmp_path / "reference", run_id))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("options", [(), ("--dask", "local")], ids=["pool", "dask"])
def test_no_process_of_a_sweep_outlives_it_when_it_is_killed(tmp_path: Path,
                                                             options: tuple[str, ...]) -> None:
    """Only the sweep gets SIGKILL (as the OOM killer sends it); its helpers must follow:
    the pool's workers, fork server and resource tracker, or the Dask workers."""
    path = write_files(tmp_path, MEDIUM_EXPERIMENT)
    process = start_sweep(path, tmp_path / "out", *options)
    wait_for_rows(tmp_path / "out", 1)
    helpers = set(session_pids(process.pid)) - {process.pid}
    assert len(helpers) >= 2
    process.kill()
    process.wait(timeout=60)       # not communicate: orphans would hold its pipes open
    deadline = time.monotonic() + 15
    while session_pids(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = session_pids(process.pid)
    for pid in left:                          # leave no orphans behind the test either
        os.kill(pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert left == []
