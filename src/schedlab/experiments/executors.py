"""Where the runs of a sweep execute: in this process, a local process pool, or Dask.

Every executor takes runs and yields one :class:`~schedlab.experiments.runner.RunRecord`
per run, in completion order; the sweep stores each as it arrives.  Runs are
deterministic, so the records do not depend on the executor or the number
of workers (only the wall-clock times do: ``wall_time``, and a grid run's
``scheduling_time_per_event_us``).

* :class:`SerialExecutor` — one run after the other, in this process.
* :class:`PoolExecutor` — ``concurrent.futures.ProcessPoolExecutor`` with
  the ``forkserver`` start method (safe with the threads of the progress
  display; the server imports what a run needs while the sweep reads its
  experiment file, and workers forked from it start ready).  At
  most two runs per worker are in flight.  If a worker process dies (killed,
  out of memory) the pool breaks: the runs that were in flight go to a new
  pool, and a run that was in flight at :data:`MAX_WORKER_DEATHS` breaks is
  recorded as failed.  Each worker watches the sweep and exits as soon as
  the sweep process is gone, even killed with SIGKILL
  (:func:`exit_with_the_sweep`); the fork server and the resource tracker
  then see their last client go and exit too, so no process outlives the sweep.
* :class:`DaskExecutor` — ``dask.distributed``: connects to a running
  scheduler (``tcp://HOST:PORT``) or starts a ``LocalCluster`` of worker
  processes on the loopback interface.  Dask itself moves the tasks of a
  worker that dies to another one; a task that kills three workers comes
  back as ``KilledWorker`` and is recorded as failed.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections import Counter, deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from schedlab.errors import InputError
from schedlab.experiments.runner import (
    WORKER_MODULES,
    RunRecord,
    describe_error,
    execute_run,
    failed_record,
)
from schedlab.experiments.spec import SweepRun
from schedlab.limits import check_workers

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

EXECUTORS = ("serial", "pool", "dask")
#: Runs queued per pool worker: one running, one waiting, so no worker idles.
RUNS_PER_WORKER = 2
#: A run in flight when this many pool workers died is recorded as failed.
MAX_WORKER_DEATHS = 3
DASK_CONNECT_TIMEOUT = "10s"


def default_workers() -> int:
    """The number of cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else (os.cpu_count() or 1)


class SerialExecutor:
    """Runs one after the other in the calling process."""

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def records(self, runs: Sequence[SweepRun]) -> Iterator[RunRecord]:
        for run in runs:
            yield execute_run(run)


class PoolExecutor:
    """A local process pool of ``workers`` processes (``forkserver`` start method).

    Entering starts the fork server, which imports what runs need while the
    sweep reads its experiment file and its result store; the pool's workers
    are then forked from it, ready to run.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._context = multiprocessing.get_context("forkserver")
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> PoolExecutor:
        from multiprocessing import forkserver

        # The preload list takes effect when this process starts its fork server;
        # ensure_running returns at once, the server imports in the background.
        self._context.set_forkserver_preload(list(WORKER_MODULES))
        forkserver.ensure_running()
        return self

    def __exit__(self, exc_type: type | None, *exc_info: object) -> None:
        """Wait for the pool after a normal end; on Ctrl-C or an error, drop queued runs."""
        if self._pool is not None:
            self._pool.shutdown(wait=exc_type is None, cancel_futures=exc_type is not None)
            self._pool = None

    def records(self, runs: Sequence[SweepRun]) -> Iterator[RunRecord]:
        """Records in completion order; a broken pool is replaced by a new one."""
        queue = deque(runs)
        deaths: Counter[str] = Counter()
        while queue:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                                 mp_context=self._context,
                                                 initializer=exit_with_the_sweep)
            broken = yield from self._drain(self._pool, queue, deaths)
            if broken:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def _drain(self, pool: ProcessPoolExecutor, queue: deque[SweepRun],
               deaths: Counter[str]) -> Generator[RunRecord, None, bool]:
        """Feed the pool from ``queue`` until it is empty (returns False) or the pool
        breaks (returns True)."""
        in_flight: dict[Future, SweepRun] = {}
        while queue or in_flight:
            while queue and len(in_flight) < RUNS_PER_WORKER * self.workers:
                run = queue.popleft()
                try:
                    future = pool.submit(execute_run, run)
                except BrokenProcessPool:       # a worker died since the last wait
                    queue.appendleft(run)
                    yield from self._requeue(in_flight, queue, deaths)
                    return True
                in_flight[future] = run
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                if isinstance(future.exception(), BrokenProcessPool):
                    yield from self._requeue(in_flight, queue, deaths)
                    return True
                yield outcome(future, in_flight.pop(future))
        return False

    @staticmethod
    def _requeue(in_flight: dict[Future, SweepRun], queue: deque[SweepRun],
                 deaths: Counter[str]) -> Iterator[RunRecord]:
        """After a worker died: keep what finished, retry the rest, give up on repeat victims."""
        for future, run in sorted(in_flight.items(), key=lambda item: item[1].run_id,
                                  reverse=True):
            if future.done() and not isinstance(future.exception(), BrokenProcessPool):
                yield outcome(future, run)
                continue
            deaths[run.run_id] += 1
            if deaths[run.run_id] >= MAX_WORKER_DEATHS:
                yield failed_record(run, f"WorkerDied: a worker process died while this run "
                                         f"was in flight, {MAX_WORKER_DEATHS} times (killed, "
                                         f"or out of memory)")
            else:
                queue.appendleft(run)
        in_flight.clear()


def exit_with_the_sweep() -> None:
    """Pool-worker initializer: end this worker the moment the sweep process dies.

    A worker otherwise outlives a sweep killed with SIGKILL (or by the OOM
    killer): it holds a write end of its own task queue, so it never sees
    end-of-file and waits for tasks forever, and it keeps the fork server
    and the resource tracker alive with it.  ``parent_process().sentinel`` is
    a pipe the sweep alone holds open (also under the forkserver start
    method, where the worker's parent in the process tree is the fork
    server): it becomes readable when the sweep is gone, whichever way it
    died.  A daemon thread waits on it, so the check costs nothing while
    the sweep lives.
    """
    parent = multiprocessing.parent_process()
    if parent is None:                      # not started by multiprocessing
        return
    threading.Thread(target=_exit_when_ready, args=(parent.sentinel,), daemon=True,
                     name="schedlab-exit-with-the-sweep").start()


def _exit_when_ready(sentinel: int) -> None:
    from multiprocessing.connection import wait as wait_ready

    wait_ready([sentinel])
    os._exit(1)     # no cleanup: the run in progress is lost anyway, and nobody waits


def outcome(future, run: SweepRun) -> RunRecord:
    """The record a finished future holds; a run whose record could not come back (an
    error outside the run itself, e.g. in moving it between processes) is a failed record.

    Ctrl-C in a worker (``KeyboardInterrupt``) is no outcome: it propagates.
    """
    try:
        return future.result()
    except Exception as err:
        return failed_record(run, describe_error(err))


class DaskExecutor:
    """Runs as tasks of a ``dask.distributed`` cluster.

    ``address`` is a scheduler address (``tcp://HOST:PORT``), or ``None`` to
    start a ``LocalCluster`` of ``workers`` single-threaded worker processes
    listening on 127.0.0.1 only.  Workers must be able to import schedlab
    and read the workload files at the same paths.
    """

    def __init__(self, address: str | None, workers: int | None) -> None:
        self.address = address
        self.workers = workers
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None

    def __enter__(self) -> DaskExecutor:
        return self

    def _connect(self) -> None:
        """Start the LocalCluster, or connect to the scheduler (only when runs are due)."""
        from distributed import Client, LocalCluster

        if self.address is None:
            # The cluster's own logs stay quiet (CRITICAL): a run that fails reaches the
            # user as a failed record, and a worker's heartbeat that meets the scheduler
            # closing after Ctrl-C is no news to the user either.
            self._cluster = LocalCluster(
                n_workers=self.workers or default_workers(), threads_per_worker=1,
                processes=True, host="127.0.0.1", dashboard_address=None,
                silence_logs=logging.CRITICAL, preload=[__name__])
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.address, timeout=DASK_CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as err:
                raise InputError(f"cannot connect to the Dask scheduler at {self.address!r}: "
                                 f"{err}", field="--dask") from None

    def __exit__(self, *exc_info: object) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def records(self, runs: Sequence[SweepRun]) -> Iterator[RunRecord]:
        """Submit every run, then yield records as tasks complete."""
        from distributed import as_completed

        if self._client is None:
            self._connect()
        assert self._client is not None     # _connect sets it or raises
        by_key = {}
        futures = []
        for run in runs:
            future = self._client.submit(execute_run, run, key=f"schedlab-run-{run.run_id}",
                                         pure=False)
            by_key[future.key] = run
            futures.append(future)
        try:
            for future in as_completed(futures):
                record = outcome(future, by_key[future.key])    # KilledWorker: failed
                future.release()
                yield record
        finally:
            pending = [f for f in futures if not f.done()]
            if pending:
                # The sweep stopped (Ctrl-C, an error): the scheduler's complaints about the
                # tasks it is told to forget ("Couldn't gather keys") are no news to the user,
                # who is told what is stored and how to resume.
                logging.getLogger("distributed").setLevel(logging.CRITICAL)
                self._client.cancel(pending)


def dask_setup(worker) -> None:
    """Dask preload hook, run in each worker process of the LocalCluster a sweep starts.

    The workers ignore SIGINT: Ctrl-C in a terminal reaches the whole process
    group, and only the sweep should react to it (it stops, then closes the
    cluster), not every worker with a traceback of its own.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def make_executor(kind: str, *, jobs: int | None = None, dask_address: str | None = None):
    """The executor named ``kind`` (serial, pool, dask), checked for sensible options.

    ``jobs`` is the number of pool workers, or of ``LocalCluster`` workers
    (default: every core); a remote Dask cluster has its own workers.
    """
    if kind not in EXECUTORS:
        raise InputError(f"expected one of {', '.join(EXECUTORS)}, got {kind!r}",
                         field="executor")
    if jobs is not None:
        check_workers(jobs)
    if kind == "dask":
        address = None if dask_address in (None, "local") else dask_address
        if address is not None and jobs is not None:
            raise InputError("--workers sets the size of a local cluster; a running Dask cluster "
                             "has its own workers", field="--workers")
        return DaskExecutor(address, jobs)
    if dask_address is not None:
        raise InputError(f"a Dask address applies to the dask executor, not {kind!r}",
                         field="--dask")
    if kind == "serial":
        return SerialExecutor()
    return PoolExecutor(jobs or default_workers())
