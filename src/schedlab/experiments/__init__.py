"""Experiments: sweeps of many simulations, run anywhere, stored once.

::

    from schedlab.experiments import run_sweep, load_results, load_jobs
    summary = run_sweep("examples/sweep-small.toml", "out/sweep-small", executor="pool", jobs=2)
    frame = load_results("out/sweep-small")          # one row per run, metrics as columns
    jobs = load_jobs("out/sweep-small", frame.run_id[0])

The experiment file format, the executors, the layout of an experiment
directory and its crash-safety rules are described in docs/how-to/experiments.md.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from schedlab.experiments.executors import EXECUTORS, make_executor
from schedlab.experiments.runner import FAILED, FINISHED, RunRecord, execute_run
from schedlab.experiments.spec import (
    Experiment,
    SweepRun,
    WorkloadSource,
    experiment_from_mapping,
    load_experiment,
)
from schedlab.experiments.store import Repair, ResultStore, load_jobs, load_results, load_series


class SweepObserver(Protocol):
    """Told what a sweep is doing (the command line draws a progress bar with it)."""

    def started(self, pending: int, done_before: int) -> None:
        """``pending`` runs will execute; ``done_before`` are already stored and skipped."""

    def recorded(self, record: RunRecord) -> None:
        """A run finished or failed and is now stored."""

    def checked(self, repaired: Repair | None, damaged: dict[str, str]) -> None:
        """Before ``started``: what a repair did (``None`` when none was asked for), and the
        stored runs whose files were damaged, run_id -> what was wrong (they run again).
        Optional: an observer without it is not told."""


@dataclass
class SweepSummary:
    """What one call of :func:`run_sweep` did.

    ``total`` runs are in the experiment; ``already_finished`` and
    ``already_failed`` were stored before and skipped (failed ones are
    retried with ``retry_failed=True``); ``finished`` and ``failed`` ran
    now.  ``failures`` maps the run id of every failed run of the experiment
    (new or skipped) to the first line of its error.  ``damaged`` maps the
    run id of every stored run found damaged (a table not as written) to
    what was wrong: it was run again, and counts among ``finished`` or
    ``failed``.  ``repaired`` is what ``repair=True`` did, else ``None``.
    """

    exp_dir: Path
    total: int
    already_finished: int
    already_failed: int
    finished: int
    failed: int
    wall_time: float
    failures: dict[str, str] = field(default_factory=dict)
    damaged: dict[str, str] = field(default_factory=dict)
    repaired: Repair | None = None

    @property
    def complete(self) -> bool:
        """Every run of the experiment is stored as finished."""
        return self.already_finished + self.finished == self.total


def run_sweep(spec_or_path: str | Path | Experiment | Mapping[str, Any], exp_dir: str | Path, *,
              executor: str = "pool", jobs: int | None = None,
              dask_address: str | None = None, retry_failed: bool = False,
              repair: bool = False, observer: SweepObserver | None = None) -> SweepSummary:
    """Run every run of an experiment not yet stored in ``exp_dir``; store each as it ends.

    ``spec_or_path`` is an experiment file, an :class:`Experiment` or a
    mapping shaped like the TOML file (relative paths are then relative to
    the current directory); it is fully
    validated before anything runs.  ``executor`` is ``"serial"``, ``"pool"``
    (``jobs`` processes, default every core) or ``"dask"`` (``dask_address``
    ``tcp://HOST:PORT`` of a running scheduler, or ``None``/``"local"`` for a
    LocalCluster of ``jobs`` processes).  Finished runs are never recomputed;
    failed runs only with ``retry_failed``.  A run that raises is stored as
    failed and the sweep goes on.  A stored run whose tables are not as
    written is run again (``SweepSummary.damaged``).  A damaged database is
    an :class:`~schedlab.errors.InputError`; ``repair`` rebuilds it from the
    row copies first (:meth:`ResultStore.repair`).
    """
    chosen = make_executor(executor, jobs=jobs, dask_address=dask_address)
    began = time.perf_counter()
    with chosen:            # a process pool starts its workers while the rest gets ready
        experiment = as_experiment(spec_or_path)
        with ResultStore(exp_dir, repair=repair) as store:
            store.save_experiment(experiment)
            damaged = store.check_runs(run.run_id for run in experiment.runs)
            stored = store.statuses()
            pending = pending_runs(experiment.runs, stored, retry_failed)
            before = {status: sum(1 for r in experiment.runs if stored.get(r.run_id) == status)
                      for status in (FINISHED, FAILED)}
            if observer is not None:
                if hasattr(observer, "checked"):
                    observer.checked(store.repaired, damaged)
                observer.started(len(pending), len(experiment.runs) - len(pending))
            counts = {FINISHED: 0, FAILED: 0}
            if pending:
                for record in chosen.records(pending):
                    store.write(record)
                    counts[record.status] += 1
                    if observer is not None:
                        observer.recorded(record)
    return SweepSummary(
        exp_dir=Path(exp_dir), total=len(experiment.runs),
        already_finished=before[FINISHED],
        already_failed=0 if retry_failed else before[FAILED],
        finished=counts[FINISHED], failed=counts[FAILED],
        wall_time=time.perf_counter() - began,
        failures=experiment_failures(exp_dir, experiment.runs), damaged=damaged,
        repaired=store.repaired)


def as_experiment(spec_or_path: str | Path | Experiment | Mapping[str, Any]) -> Experiment:
    """An experiment from a file path, a mapping, or as it is."""
    if isinstance(spec_or_path, Experiment):
        return spec_or_path
    if isinstance(spec_or_path, Mapping):
        return experiment_from_mapping(spec_or_path)
    return load_experiment(spec_or_path)


def pending_runs(runs: Sequence[SweepRun], stored: dict[str, str],
                 retry_failed: bool) -> list[SweepRun]:
    """Runs without a stored row, plus failed ones when retrying."""
    return [run for run in runs
            if run.run_id not in stored or (retry_failed and stored[run.run_id] == FAILED)]


def experiment_failures(exp_dir: str | Path, runs: Sequence[SweepRun]) -> dict[str, str]:
    """run_id -> first error line of every failed run among ``runs``."""
    from schedlab.experiments.store import stored_rows

    wanted = {run.run_id for run in runs}
    return {row["run_id"]: (row["error"] or "").split("\n", 1)[0]
            for row in stored_rows(exp_dir)
            if row["run_id"] in wanted and row["status"] == FAILED}


__all__ = [
    "EXECUTORS", "Experiment", "RunRecord", "SweepObserver", "SweepRun", "SweepSummary",
    "WorkloadSource", "execute_run", "experiment_from_mapping", "load_experiment", "load_jobs",
    "load_results", "load_series", "run_sweep",
]
