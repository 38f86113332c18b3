"""The result store of an experiment directory: SQLite for runs, Parquet for tables.

``EXP_DIR/results.sqlite`` holds one row per run in table ``runs`` (full
spec, status, metrics, policy statistics, wall time, schedlab version,
error text, time stored, and convenience columns workload, policy, seed,
transforms_json, params_json); ``EXP_DIR/jobs/<run_id>.parquet`` and
``EXP_DIR/series/<run_id>.parquet`` hold a finished run's job table and its
utilization/queue series.

Crash safety, in the order :meth:`ResultStore.write` follows:

1. the two Parquet files are written to temporary names and renamed into
   place (a reader sees no file or a whole file);
2. then the row is inserted in one transaction.

A run counts as done only when its row exists, so a crash between the steps
leaves at most an orphan Parquet file that the next sweep overwrites.  The
row is inserted with upsert semantics: a finished row is never replaced (no
duplicates, nothing recomputed overwrites it); a failed row is replaced by
the outcome of a retry.  The database runs in WAL mode so that readers
(``schedlab results``, a report) never block the sweep writing to it.

Only one sweep writes to an experiment directory at a time: it holds an
exclusive ``flock`` on ``EXP_DIR/.lock``, which the operating system
releases even when the sweep is killed with ``kill -9``.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from schedlab.errors import InputError
from schedlab.experiments.runner import FAILED, FINISHED, RunRecord
from schedlab.experiments.spec import Experiment, canonical_json
from schedlab.output import atomic_write_bytes, atomic_write_text

DATABASE = "results.sqlite"
SPEC_COPY = "experiment.toml"
LOCK_FILE = ".lock"
JOBS_DIR, SERIES_DIR = "jobs", "series"
#: Columns of :func:`load_results` that only grid runs have (:func:`grid_columns`).
GRID_COLUMNS = ("platform", "dispatch", "allocation", "preemption_overhead", "ta")
DISPATCH_PARAM_PREFIX = "dispatch."

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    spec_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('finished', 'failed')),
    metrics_json TEXT,
    policy_stats_json TEXT,
    wall_time REAL,
    schedlab_version TEXT,
    error TEXT,
    finished_at TEXT,
    workload TEXT,
    policy TEXT,
    seed INTEGER,
    transforms_json TEXT,
    params_json TEXT
)
"""

COLUMNS = ("run_id", "spec_json", "status", "metrics_json", "policy_stats_json", "wall_time",
           "schedlab_version", "error", "finished_at", "workload", "policy", "seed",
           "transforms_json", "params_json")

# A finished row is final; a failed row gives way to the outcome of a retry.
UPSERT = (f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
          f"ON CONFLICT(run_id) DO UPDATE SET "
          + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
          + " WHERE runs.status = 'failed'")


def jobs_path(exp_dir: str | Path, run_id: str) -> Path:
    return Path(exp_dir) / JOBS_DIR / f"{run_id}.parquet"


def series_path(exp_dir: str | Path, run_id: str) -> Path:
    return Path(exp_dir) / SERIES_DIR / f"{run_id}.parquet"


def connect(database: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL journal.

    ``synchronous=NORMAL`` in WAL mode survives the crash of the process
    (only a power failure may lose the last rows, which a rerun recomputes).
    """
    connection = sqlite3.connect(database, timeout=60.0, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def make_experiment_directory(exp_dir: Path, *subdirectories: str) -> None:
    """Create ``exp_dir`` (and its ``subdirectories``); InputError if it is a file or cannot be.

    The first thing a command writing an experiment does with its ``--out``.
    """
    if exp_dir.exists() and not exp_dir.is_dir():
        raise InputError("expected an experiment directory, found a file", file=str(exp_dir))
    try:
        for sub in ("", *subdirectories):
            (exp_dir / sub).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot write the experiment directory: {err.strerror or err}",
                         file=str(exp_dir)) from None


class ResultStore:
    """The writing side of an experiment directory, held by one sweep at a time.

    Use as a context manager: entering creates the directory and the schema,
    takes the lock and removes temporary files left by a killed sweep.
    """

    def __init__(self, exp_dir: str | Path) -> None:
        self.exp_dir = Path(exp_dir)
        self._lock: int | None = None
        self._db: sqlite3.Connection | None = None

    def __enter__(self) -> "ResultStore":
        self._open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open(self) -> None:
        make_experiment_directory(self.exp_dir, JOBS_DIR, SERIES_DIR)
        try:
            self._lock = os.open(self.exp_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise InputError(f"cannot write the experiment directory: {err.strerror or err}",
                             file=str(self.exp_dir)) from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.close()
            raise InputError("another sweep is writing to this experiment directory; wait "
                             "for it to end", file=str(self.exp_dir)) from None
        remove_temporary_files(self.exp_dir)
        self._db = connect(self.exp_dir / DATABASE)
        self._db.execute(SCHEMA)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            os.close(self._lock)   # closing the descriptor releases the flock
            self._lock = None

    def save_experiment(self, experiment: Experiment) -> None:
        """Keep the experiment file beside its results (``experiment.toml``).

        A first comment line says where the original was, since relative
        workload paths are relative to it.
        """
        origin = (f"# schedlab sweep of {experiment.path.resolve()}; relative workload paths "
                  f"are relative to that file's directory\n" if experiment.path else "")
        atomic_write_text(self.exp_dir / SPEC_COPY, origin + experiment.text)

    def statuses(self) -> dict[str, str]:
        """run_id -> status of every stored run."""
        return dict(self._connection().execute("SELECT run_id, status FROM runs"))

    def write(self, record: RunRecord) -> bool:
        """Store a run: Parquet files first (atomic), then its row (one transaction).

        Returns False, writing nothing, when the run is already stored as
        finished.
        """
        db = self._connection()
        stored = db.execute("SELECT status FROM runs WHERE run_id = ?",
                            (record.run_id,)).fetchone()
        if stored is not None and stored[0] == FINISHED:
            return False
        if record.status == FINISHED:
            atomic_write_bytes(jobs_path(self.exp_dir, record.run_id), record.jobs_parquet)
            atomic_write_bytes(series_path(self.exp_dir, record.run_id), record.series_parquet)
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(UPSERT, row_of(record))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the result store is not open")
        return self._db


def row_of(record: RunRecord) -> tuple[Any, ...]:
    """The ``runs`` row of a record, in :data:`COLUMNS` order."""
    run = record.run
    finished = record.status == FINISHED
    return (record.run_id, canonical_json(run.to_dict()), record.status,
            json.dumps(record.metrics) if finished else None,
            json.dumps(record.policy_stats) if finished else None,
            record.wall_time, record.schedlab_version, record.error,
            datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            run.workload.label, run.policy, run.seed,
            canonical_json(dict(run.transforms)), canonical_json(dict(run.params)))


def remove_temporary_files(exp_dir: Path) -> None:
    """Delete what atomic writers of a killed sweep left behind (``.NAME.XXXX.tmp``)."""
    for sub in (JOBS_DIR, SERIES_DIR, ""):
        for leftover in (exp_dir / sub).glob(".*.tmp"):
            leftover.unlink(missing_ok=True)


# --------------------------------------------------------------------------- reading


def _open_for_reading(exp_dir: str | Path) -> sqlite3.Connection:
    database = Path(exp_dir) / DATABASE
    if not database.is_file():
        raise InputError(f"not an experiment directory (no {DATABASE}); run "
                         f"'schedlab sweep' first", file=str(exp_dir))
    return sqlite3.connect(database, timeout=60.0)


def stored_rows(exp_dir: str | Path) -> Iterator[dict[str, Any]]:
    """Every row of ``runs`` as a dict, ordered by workload, policy, transforms, params, seed."""
    db = _open_for_reading(exp_dir)
    try:
        cursor = db.execute(f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY workload, policy, "
                            f"transforms_json, params_json, seed, run_id")
        for values in cursor:
            yield dict(zip(COLUMNS, values))
    finally:
        db.close()


def load_results(exp_dir: str | Path):
    """One row per stored run as a pandas DataFrame.

    Columns: ``run_id, workload, policy, seed, processors, overrun``, for
    grid runs ``platform, dispatch, allocation, preemption_overhead, ta``
    (:func:`grid_columns`) and every dispatcher parameter as
    ``dispatch.<name>``, every policy parameter as ``param.<name>``, every transform as
    ``transform.<name>``, ``status, wall_time, error, schedlab_version,
    finished_at``, every metric under its flat name (docs/metrics.md) and
    every policy statistic as ``stat.<name>``.  Metrics of failed runs are
    missing (NaN, or ``<NA>`` in integer columns): integer columns with gaps
    are pandas' nullable ``Int64`` — ``seed`` is ``<NA>`` for a trace,
    ``processors`` for the workload's own machine size.
    """
    import pandas as pd

    records = [flat_row(row) for row in stored_rows(exp_dir)]
    found = list(dict.fromkeys(k for r in records for k in r))
    base = ["run_id", "workload", "policy", "seed", "processors", "overrun"]
    grid = [k for k in GRID_COLUMNS if k in found] + [
        k for k in found if k.startswith(DISPATCH_PARAM_PREFIX)]
    middle = ["status", "wall_time", "error", "schedlab_version", "finished_at"]
    params = [k for k in found if k.startswith("param.")]
    transforms = [k for k in found if k.startswith("transform.")]
    stats = [k for k in found if k.startswith("stat.")]
    metrics = [k for k in found
               if k not in {*base, *grid, *middle, *params, *transforms, *stats}]
    columns = base + grid + params + transforms + middle + metrics + stats
    typed = {*grid, *params, *transforms, *metrics, *stats}

    def column(name: str):
        values = [r.get(name) for r in records]
        if name in ("seed", "processors"):
            return pd.Series(values, dtype="Int64")
        return typed_column(values) if name in typed else pd.Series(values, dtype=object)

    return pd.DataFrame({name: column(name) for name in columns}, columns=columns)


def typed_column(values: list[Any]):
    """A column keeping integers integral where some rows have no value.

    Integers (and only integers) with gaps become pandas' nullable ``Int64``
    (``<NA>`` where missing); everything else gets pandas' usual type
    (floats with NaN, booleans or text as objects).
    """
    import pandas as pd

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="Int64")
    return pd.Series(values, dtype=object).infer_objects()


def flat_row(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row flattened into the columns of :func:`load_results`."""
    spec = json.loads(row["spec_json"])
    flat: dict[str, Any] = {
        "run_id": row["run_id"], "workload": row["workload"], "policy": row["policy"],
        "seed": row["seed"], "processors": spec.get("processors"),
        "overrun": spec.get("overrun")}
    flat.update(grid_columns(spec))
    flat.update({f"param.{k}": _cell(v) for k, v in json.loads(row["params_json"]).items()})
    flat.update({f"transform.{k}": v for k, v in json.loads(row["transforms_json"]).items()})
    flat.update({"status": row["status"], "wall_time": row["wall_time"], "error": row["error"],
                 "schedlab_version": row["schedlab_version"],
                 "finished_at": row["finished_at"]})
    flat.update(json.loads(row["metrics_json"] or "{}"))
    flat.update({f"stat.{k}": _cell(v)
                 for k, v in json.loads(row["policy_stats_json"] or "{}").items()})
    return flat


def grid_columns(spec: dict[str, Any]) -> dict[str, Any]:
    """The grid setting of a stored run spec as columns (none for a run on one machine):
    the platform's label, the dispatcher and its parameters, the allocation, the
    preemption overhead, and the mean interarrival time ``ta`` of generated grid jobs."""
    grid = spec.get("grid")
    if grid is None:
        return {}
    columns = {"platform": grid["platform"]["label"], "dispatch": grid["dispatch"],
               "allocation": grid["allocation"],
               "preemption_overhead": grid["preemption_overhead"]}
    columns.update({f"{DISPATCH_PARAM_PREFIX}{k}": _cell(v)
                    for k, v in grid["dispatch_params"].items()})
    ta = spec["workload"]["options"].get("ta")
    if ta is not None:
        columns["ta"] = ta
    return columns


def _cell(value: Any) -> Any:
    """A list or table value fits a DataFrame cell as its canonical JSON text."""
    return canonical_json(value) if isinstance(value, (list, dict)) else value


def _finished_file(exp_dir: str | Path, run_id: str, path: Path) -> Path:
    """The file of a finished run; a clear error for an unknown or failed run."""
    db = _open_for_reading(exp_dir)
    try:
        found = db.execute("SELECT status, error FROM runs WHERE run_id = ?",
                           (run_id,)).fetchone()
    finally:
        db.close()
    if found is None:
        raise InputError(f"no run {run_id!r} in this experiment", file=str(exp_dir))
    if found[0] == FAILED:
        first = (found[1] or "").split("\n", 1)[0]
        raise InputError(f"run {run_id} failed, it has no tables: {first}", file=str(exp_dir))
    if not path.is_file():
        raise InputError(f"the table of finished run {run_id} is missing", file=str(path))
    return path


def _read_parquet(path: Path):
    """A Parquet file as a DataFrame with nullable integers (``<NA>`` where empty)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    mapping = {pa.int64(): pd.Int64Dtype(), pa.string(): pd.StringDtype()}
    return pq.read_table(path).to_pandas(types_mapper=mapping.get)


def load_jobs(exp_dir: str | Path, run_id: str):
    """A finished run's job table: the columns of ``jobs.csv`` (docs/architecture.md).

    ``start``, ``end`` and ``wait`` are ``<NA>`` for rejected jobs,
    ``planned_start`` where the policy promised no start.
    """
    return _read_parquet(_finished_file(exp_dir, run_id, jobs_path(exp_dir, run_id)))


def load_series(exp_dir: str | Path, run_id: str):
    """A finished run's step functions: ``time, busy, queue`` (docs/metrics.md, "Series")."""
    return _read_parquet(_finished_file(exp_dir, run_id, series_path(exp_dir, run_id)))
