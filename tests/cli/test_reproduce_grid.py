"""``schedlab reproduce run`` of the grid recipes on the sweep runner: killed with SIGKILL
mid-way it resumes computing only the runs not stored, and ``--dask ADDRESS`` spreads the
runs over a Dask cluster; results of the earlier layout are named in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.experiments.recipes import reproduce
from schedlab.experiments.recipes.grid_cs import design as grid_cs
from schedlab.experiments.recipes.grid_fb import design as grid_fb
from schedlab.experiments.runner import simulate_run
from schedlab.experiments.store import load_results

ROOT = Path(__file__).resolve().parents[2]
#: Row copies (``rows/*.json``) the killed process must have written before it is killed.
STORED_BEFORE_KILL = 4


class Count:
    """A sweep observer keeping what the sweep found pending and already stored."""

    def started(self, pending: int, done_before: int) -> None:
        self.pending, self.done_before = pending, done_before

    def recorded(self, record) -> None:
        pass


def stored_rows(exp_dir: Path) -> int:
    return len(list((exp_dir / "rows").glob("*.json")))


def test_a_recipe_killed_mid_way_resumes_computing_only_what_is_missing(tmp_path: Path):
    out = tmp_path / "grid-fb"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "thesis-4.1-n300-ta4-ratio0.5-0.7-exclusive-rep0-bf-fcfs.json").write_text(
        '{"deadline_missed_pct": 1.0}\n')              # the earlier layout's results
    process = subprocess.Popen(
        [sys.executable, "-m", "schedlab", "reproduce", "run", "grid-fb", "--reduced",
         "-j", "1", "--out", str(out)], cwd=ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while stored_rows(out) < STORED_BEFORE_KILL and process.poll() is None:
            assert time.monotonic() < deadline, "no run stored in time"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    first = process.stderr.read().splitlines()[0]
    assert first.startswith(f"schedlab: {out / 'runs'}: grid results of an earlier schedlab")
    assert "computed again" in first
    stored = load_results(out)
    total = len(grid_fb.runs(True))
    # A row's copy is written before its row (the store's crash order), so with one worker
    # the last copy the test saw may have no row yet: that run is computed again.
    assert STORED_BEFORE_KILL - 1 <= len(stored) < total
    count = Count()
    with pytest.warns(UserWarning, match="earlier schedlab"):     # the library's notice
        reproduce("grid-fb", out, reduced=True, executor="serial", observer=count)
    assert (count.pending, count.done_before) == (total - len(stored), len(stored))
    after = load_results(out).set_index("run_id")
    assert after.loc[stored["run_id"], "finished_at"].tolist() == stored["finished_at"].tolist()


@pytest.fixture
def dask_cluster():
    """A LocalCluster of 2 worker processes on the loopback interface."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_dask_address_spreads_the_grid_runs_over_the_cluster(dask_cluster, tmp_path: Path):
    out = tmp_path / "grid-cs"
    done = CliRunner().invoke(app, ["reproduce", "run", "grid-cs", "--reduced", "--dask",
                                    dask_cluster, "--out", str(out)])
    assert done.exit_code == 0, done.output
    stored = load_results(out).set_index("run_id")
    runs = grid_cs.runs(True)
    assert sorted(stored.index) == sorted(r.run.run_id for r in runs)
    assert (stored["status"] == "finished").all()
    for labelled in (runs[0], runs[-1]):
        _, metrics = simulate_run(labelled.run)
        for key in ("deadline_missed_pct", "machine_usage", "avg_slowdown"):
            assert stored.loc[labelled.run.run_id, key] == metrics[key]
    assert (out / "reproduction" / "findings.md").is_file()
