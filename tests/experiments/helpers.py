"""Shared pieces of the experiment tests: small traces, experiment files, store queries.

``SMALL_SWF`` is the hand-worked trace of tests/cli/test_cli.py (4
processors, 4 jobs).  Its schedules, worked out by hand there:

* fcfs+easy — starts 0, 120, 20, 30; job 3 killed at its estimate (120);
  waits 0, 110, 0, 0 (mean 27.5); makespan 170; utilization 520 / 680.
* fcfs — starts 0, 100, 150, 150; waits 0, 90, 130, 120 (mean 85);
  makespan 250; utilization 520 / 1000.
* On 2 processors the run fails: job 2 is 4 processors wide.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import numpy as np

SMALL_SWF = """\
; Version: 2.2
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 -1 300 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
4 30 -1 20 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1
"""

#: Hand-worked per-run values on SMALL_SWF (module docstring).
EASY_STARTS = [0, 120, 20, 30]
FCFS_STARTS = [0, 100, 150, 150]

SMALL_EXPERIMENT = """\
name = "small"
[[workloads]]
source = "small.swf"
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "fcfs"
"""


def synthetic_swf(n_jobs: int, processors: int, seed: int) -> str:
    """An SWF trace of ``n_jobs`` random jobs (offered load about 0.7 on ``processors``).

    Interarrival times exponential (mean 500 s), widths powers of two, runtimes
    log-normal, estimates 1-5 times the runtime; one numpy Generator per seed.
    """
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(500.0, n_jobs)).astype(np.int64)
    width = 2 ** rng.integers(0, int(np.log2(processors)) + 1, n_jobs)
    runtime = np.maximum(1, rng.lognormal(6.0, 1.5, n_jobs)).astype(np.int64)
    estimate = runtime * rng.integers(1, 6, n_jobs)
    lines = ["; Version: 2.2", f"; MaxProcs: {processors}"]
    lines += [f"{i + 1} {submit[i]} -1 {runtime[i]} {width[i]} -1 -1 {width[i]} {estimate[i]} "
              f"-1 1 1 1 -1 1 -1 -1 -1" for i in range(n_jobs)]
    return "\n".join(lines) + "\n"


#: 16 runs of about 0.2 s each (3,000 jobs under conservative backfilling): long enough
#: to stop a sweep midway even on a loaded machine, where the test may see the stored
#: rows late.
MEDIUM_EXPERIMENT = """\
name = "medium"
[[workloads]]
source = "medium.swf"
[transforms]
shrink = [0.6, 0.7, 0.8, 0.9]
perfect_estimates = [false, true]
[[policies]]
name = "sjf+conservative"
[[policies]]
name = "fcfs+conservative"
"""
MEDIUM_RUNS = 16

#: 12 runs of a few milliseconds.
QUICK_EXPERIMENT = """\
name = "quick"
[[workloads]]
source = "quick.swf"
[transforms]
shrink = [0.8, 1.0]
perfect_estimates = [false, true]
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "sjf+conservative"
[[policies]]
name = "fcfs"
"""
QUICK_RUNS = 12


def write_files(directory: Path, experiment: str, name: str = "experiment.toml") -> Path:
    """The experiment file and the traces small.swf, quick.swf, medium.swf in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "small.swf").write_text(SMALL_SWF)
    (directory / "quick.swf").write_text(synthetic_swf(150, 64, seed=1))
    (directory / "medium.swf").write_text(synthetic_swf(3000, 64, seed=2))
    path = directory / name
    path.write_text(experiment)
    return path


def stored_rows(exp_dir: Path) -> list[tuple[str, str, str]]:
    """(run_id, status, finished_at) of every row, straight from SQLite."""
    with sqlite3.connect(exp_dir / "results.sqlite") as db:
        return db.execute("SELECT run_id, status, finished_at FROM runs ORDER BY run_id").fetchall()


def row_count(exp_dir: Path) -> int:
    """Rows stored so far (0 while the database does not exist yet)."""
    if not (exp_dir / "results.sqlite").exists():
        return 0
    try:
        with sqlite3.connect(exp_dir / "results.sqlite", timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:   # the table is not created yet
        return 0


def wait_for_rows(exp_dir: Path, n: int, timeout: float = 60.0) -> int:
    """Poll until at least ``n`` rows are stored; returns the count seen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = row_count(exp_dir)
        if count >= n:
            return count
        time.sleep(0.01)
    raise AssertionError(f"fewer than {n} runs stored after {timeout} s")


#: The columns of stored results that differ between executions: wall-clock times, and
#: when the run was stored.
TIMINGS = ("wall_time", "finished_at", "scheduling_time_per_event_us")


def comparable(frame):
    """Results without what legitimately differs between executions (:data:`TIMINGS`)."""
    return frame.drop(columns=[c for c in TIMINGS if c in frame.columns]) \
        .sort_values("run_id").reset_index(drop=True)


def descendant_pids(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc), children before grandchildren."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        children = [c for p in frontier for c in parents.get(p, [])]
        found.extend(children)
        frontier = children
    return found


def session_pids(session: int) -> list[int]:
    """Every living process of the session ``session`` (Linux /proc), zombies excluded."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, _, _, sid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:4]
        except (OSError, ValueError):
            continue
        if int(sid) == session and state != "Z":
            found.append(int(entry.name))
    return found


def leftover_temporaries(exp_dir: Path) -> list[Path]:
    """Temporary files of the atomic writers left in an experiment directory."""
    return [p for p in exp_dir.rglob(".*.tmp")]
