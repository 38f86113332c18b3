"""Executors: identical results whatever the executor and worker count, surviving dead workers.

Real process pools and a real ``distributed.LocalCluster`` (worker processes on
127.0.0.1); workers are killed with SIGKILL in the middle of a sweep.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from experiments.helpers import (
    QUICK_EXPERIMENT,
    QUICK_RUNS,
    comparable,
    descendant_pids,
    write_files,
)
from schedlab.errors import InputError
from schedlab.experiments import executors, load_jobs, load_results, run_sweep
from schedlab.experiments.executors import make_executor


@pytest.fixture(scope="module")
def quick_serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The quick experiment run serially: the reference for the other executors."""
    base = tmp_path_factory.mktemp("quick")
    path = write_files(base, QUICK_EXPERIMENT)
    assert run_sweep(path, base / "serial", executor="serial").finished == QUICK_RUNS
    return path, base / "serial"


def assert_same_results(exp_dir: Path, reference: Path) -> None:
    """Same rows, metrics and job tables as the reference experiment."""
    mine, theirs = load_results(exp_dir), load_results(reference)
    assert comparable(mine).equals(comparable(theirs))
    for run_id in theirs["run_id"]:
        assert load_jobs(exp_dir, run_id).equals(load_jobs(reference, run_id))


def test_a_pool_of_one_worker_gives_the_serial_results(
        quick_serial: tuple[Path, Path], tmp_path: Path) -> None:
    path, reference = quick_serial
    summary = run_sweep(path, tmp_path / "pool1", executor="pool", jobs=1)
    assert (summary.finished, summary.failed) == (QUICK_RUNS, 0)
    assert_same_results(tmp_path / "pool1", reference)


def pool_worker_pids() -> list[int]:
    """Pids of this process's pool workers: the children of its forkserver."""
    def cmdline(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return ""

    def parent(pid: int) -> int:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

    forked = {p for p in descendant_pids(os.getpid()) if "multiprocessing.forkserver" in cmdline(p)}
    return [p for p in forked if parent(p) in forked]      # the server's children


class KillOnce:
    """A sweep observer that kills a worker once ``after`` runs are stored."""

    def __init__(self, after: int, pick_victim) -> None:
        self.after = after
        self.pick_victim = pick_victim
        self.stored = 0
        self.pending = 0
        self.killed: int | None = None
        self.left_when_killed = 0

    def started(self, pending: int, done_before: int) -> None:
        self.pending = pending

    def recorded(self, record) -> None:
        self.stored += 1
        if self.stored == self.after:
            self.killed = self.pick_victim()
            os.kill(self.killed, signal.SIGKILL)
            self.left_when_killed = self.pending - self.stored


def test_a_pool_of_two_with_a_worker_killed_midway_completes_with_the_serial_results(
        quick_serial: tuple[Path, Path], tmp_path: Path) -> None:
    path, reference = quick_serial
    killer = KillOnce(2, lambda: pool_worker_pids()[0])
    summary = run_sweep(path, tmp_path / "pool", executor="pool", jobs=2, observer=killer)
    assert killer.killed is not None and killer.left_when_killed > 0
    assert (summary.finished, summary.failed) == (QUICK_RUNS, 0)
    assert_same_results(tmp_path / "pool", reference)


def dask_busy_worker_pid() -> int:
    """The pid of a LocalCluster worker that is running a task right now."""
    from distributed import default_client

    client = default_client()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        if busy:
            return client.run(os.getpid, workers=busy[:1])[busy[0]]
        time.sleep(0.01)
    raise AssertionError("no Dask worker was busy")


def test_a_local_dask_cluster_survives_a_killed_worker_with_the_serial_results(
        quick_serial: tuple[Path, Path], tmp_path: Path) -> None:
    path, reference = quick_serial
    killer = KillOnce(2, dask_busy_worker_pid)
    summary = run_sweep(path, tmp_path / "dask", executor="dask", jobs=2, observer=killer)
    assert killer.killed is not None and killer.left_when_killed > 0
    assert (summary.finished, summary.failed) == (QUICK_RUNS, 0)
    assert_same_results(tmp_path / "dask", reference)


def test_an_unreachable_dask_scheduler_is_an_input_error(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors, "DASK_CONNECT_TIMEOUT", "0.5s")
    path = write_files(tmp_path, QUICK_EXPERIMENT)
    with pytest.raises(InputError, match=r"cannot connect to the Dask scheduler at "
                                         "'tcp://127.0.0.1:9'"):
        run_sweep(path, tmp_path / "out", executor="dask", dask_address="tcp://127.0.0.1:9")


@pytest.mark.parametrize("kind, options, field, reason", [
    ("threads", {}, "executor", "expected one of serial, pool, dask, got 'threads'"),
    ("pool", {"jobs": 0}, "--workers", "expected an integer >= 1, got 0"),
    ("pool", {"jobs": 5000}, "--workers", "expected an integer <= 1024 worker processes"),
    ("dask", {"jobs": 2, "dask_address": "tcp://127.0.0.1:8786"}, "--workers",
     "a running Dask cluster has its own workers"),
    ("serial", {"dask_address": "local"}, "--dask", "applies to the dask executor"),
])
def test_executor_options_are_checked(kind: str, options: dict, field: str, reason: str) -> None:
    with pytest.raises(InputError) as caught:
        make_executor(kind, **options)
    assert caught.value.field == field
    assert reason in caught.value.reason


def test_executor_choice_builds_the_named_executor() -> None:
    assert isinstance(make_executor("serial"), executors.SerialExecutor)
    assert make_executor("pool", jobs=3).workers == 3
    assert make_executor("pool").workers == executors.default_workers()
    local = make_executor("dask", dask_address="local", jobs=2)
    assert (local.address, local.workers) == (None, 2)
    assert make_executor("dask", dask_address="tcp://h:1").address == "tcp://h:1"


class BreaksOnSubmit:
    """A stand-in pool whose worker died before the next run could be handed over."""

    def submit(self, *args: object) -> None:
        from concurrent.futures.process import BrokenProcessPool

        raise BrokenProcessPool("a child process terminated abruptly")


def test_a_pool_that_breaks_as_a_run_is_handed_over_gets_the_run_back_uncounted() -> None:
    from collections import Counter, deque

    pool = executors.PoolExecutor(2)
    queue, deaths = deque(["run-a", "run-b"]), Counter()
    drain = pool._drain(BreaksOnSubmit(), queue, deaths)
    with pytest.raises(StopIteration) as stopped:
        next(drain)
    assert stopped.value.value is True          # broken: the caller starts a new pool
    assert list(queue) == ["run-a", "run-b"] and not deaths
