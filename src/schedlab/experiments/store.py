"""The result store of an experiment directory: SQLite for runs, Parquet for tables.

``EXP_DIR/results.sqlite`` holds one row per run in table ``runs`` (full
spec, status, metrics, policy statistics, wall time, schedlab version,
error text, time stored, convenience columns workload, policy, seed,
transforms_json, params_json, and ``files_json``: the size and SHA-256 of
each table file as written); ``EXP_DIR/jobs/<run_id>.parquet`` and
``EXP_DIR/series/<run_id>.parquet`` hold a finished run's job table and its
utilization/queue series; ``EXP_DIR/rows/<run_id>.json`` is a copy of the
run's row, from which a damaged database is rebuilt (:meth:`ResultStore.repair`).

Crash safety, in the order :meth:`ResultStore.write` follows:

1. the two Parquet files are written to temporary names and renamed into
   place (a reader sees no file or a whole file);
2. the row's copy ``rows/<run_id>.json`` likewise;
3. then the row is inserted in one transaction.

A run counts as done only when its row exists, so a crash between the steps
leaves at most orphan files that the next sweep overwrites.  The
row is inserted with upsert semantics: a finished row is never replaced (no
duplicates, nothing recomputed overwrites it); a failed row is replaced by
the outcome of a retry.  The database runs in WAL mode so that readers
(``schedlab results``, a report) never block the sweep writing to it.

Integrity: a finished run is complete only while its files are as written.
A resumed sweep checks the size and checksum of every stored run's tables
(:meth:`ResultStore.check_runs`) and runs the damaged ones again; readers
check a table before parsing it.  A damaged database (truncated, overwritten)
is reported as such with the command that rebuilds it.

Only one sweep writes to an experiment directory at a time: it holds an
exclusive ``flock`` on ``EXP_DIR/.lock`` (and writes its process id there,
which a refused second sweep names), which the operating system releases
even when the sweep is killed with ``kill -9``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.experiments.runner import FAILED, FINISHED, RunRecord
from schedlab.experiments.spec import Experiment, canonical_json
from schedlab.experiments.spec.runs import OUTAGE_COLUMNS
from schedlab.output import atomic_write_bytes, atomic_write_text

DATABASE = "results.sqlite"
SPEC_COPY = "experiment.toml"
LOCK_FILE = ".lock"
JOBS_DIR, SERIES_DIR, ROWS_DIR = "jobs", "series", "rows"
#: The table files of a finished run, by the key ``files_json`` records them under.
TABLES = ("jobs", "series")
#: What a damaged database is renamed to by a repair (a number follows when taken).
DAMAGED_SUFFIX = ".damaged"
#: SQLite's primary result codes for a damaged file and for a full disk.
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_NOTADB = 11, 13, 26
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
    params_json TEXT,
    files_json TEXT
)
"""

COLUMNS = ("run_id", "spec_json", "status", "metrics_json", "policy_stats_json", "wall_time",
           "schedlab_version", "error", "finished_at", "workload", "policy", "seed",
           "transforms_json", "params_json", "files_json")
#: Columns added since the first stores: an older database gets them when a sweep opens it.
ADDED_COLUMNS = ("files_json",)

# A finished row is final; a failed row gives way to the outcome of a retry.
UPSERT = (f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
          f"ON CONFLICT(run_id) DO UPDATE SET "
          + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
          + " WHERE runs.status = 'failed'")


def jobs_path(exp_dir: str | Path, run_id: str) -> Path:
    return Path(exp_dir) / JOBS_DIR / f"{run_id}.parquet"


def series_path(exp_dir: str | Path, run_id: str) -> Path:
    return Path(exp_dir) / SERIES_DIR / f"{run_id}.parquet"


def table_path(exp_dir: str | Path, run_id: str, table: str) -> Path:
    """The file of one of a run's :data:`TABLES`."""
    return jobs_path(exp_dir, run_id) if table == "jobs" else series_path(exp_dir, run_id)


def row_copy_path(exp_dir: str | Path, run_id: str) -> Path:
    return Path(exp_dir) / ROWS_DIR / f"{run_id}.json"


def connect(database: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL journal.

    ``synchronous=NORMAL`` in WAL mode survives the crash of the process
    (only a power failure may lose the last rows, which a rerun recomputes).
    """
    with database_errors(database.parent):
        connection = sqlite3.connect(database, timeout=60.0, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
    return connection


# --------------------------------------------------------------------------- damage


@contextmanager
def database_errors(exp_dir: str | Path) -> Iterator[None]:
    """SQLite's errors for a damaged database or a full disk as one-line InputErrors.

    A truncated or overwritten ``results.sqlite`` raises ``DatabaseError``
    ("database disk image is malformed", "file is not a database") at
    whichever statement first reads the damaged pages; the user is told
    which file it is and how to rebuild it (:func:`damaged_database`).
    """
    try:
        yield
    except sqlite3.DatabaseError as err:
        code = (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
        database = Path(exp_dir) / DATABASE
        if code == SQLITE_FULL:
            raise InputError("no space left on the device; the runs stored so far are kept: "
                             "free some space and run the command again",
                             file=str(database)) from None
        if code in (SQLITE_CORRUPT, SQLITE_NOTADB) or type(err) is sqlite3.DatabaseError:
            raise damaged_database(exp_dir, str(err)) from None
        raise


class DamagedStore(InputError):
    """The database of an experiment directory is damaged (truncated, overwritten)."""


def damaged_database(exp_dir: str | Path, what: str) -> DamagedStore:
    """The error naming a damaged database and the command that rebuilds it."""
    return DamagedStore(f"the result store is damaged ({what}); rebuild it with "
                      f"'{sweep_command(exp_dir)} --repair' (it keeps every run whose files "
                      f"are intact and runs the others again)",
                      file=str(Path(exp_dir) / DATABASE))


def sweep_command(exp_dir: str | Path) -> str:
    """``schedlab sweep FILE --out EXP_DIR``, the file read from the first line of the copy
    a sweep keeps (``experiment.toml``), or a placeholder when there is none."""
    origin = "EXPERIMENT.toml"
    try:
        with open(Path(exp_dir) / SPEC_COPY, encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        first = ""
    prefix = "# schedlab sweep of "
    if first.startswith(prefix) and ";" in first:
        origin = first[len(prefix):first.index(";")]
    return f"schedlab sweep {origin} --out {exp_dir}"


def file_record(data: bytes) -> list[Any]:
    """``[size, sha256]`` of a file's bytes, as ``files_json`` records each table."""
    return [len(data), hashlib.sha256(data).hexdigest()]


def table_problem(data: bytes | None, recorded: list[Any] | None) -> str | None:
    """What is wrong with a table file's bytes (``None``: not a file), or ``None`` if intact.

    With a recorded ``[size, sha256]`` the bytes must match it; a row stored
    before sizes were recorded has none, and then the file must at least
    end in a Parquet footer (a truncated file does not).
    """
    if data is None:
        return "the file is missing"
    if recorded is None:
        return None if data[-4:] == b"PAR1" and data[:4] == b"PAR1" else "not a whole Parquet file"
    size, digest = recorded
    if len(data) != size:
        return f"{len(data)} bytes, {size} when written"
    if hashlib.sha256(data).hexdigest() != digest:
        return "its checksum differs from the one recorded when it was written"
    return None


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def run_problem(exp_dir: str | Path, run_id: str, files_json: str | None) -> str | None:
    """The first table of a finished run that is not as written (its path and what is
    wrong), or ``None`` when both are intact."""
    recorded = json.loads(files_json) if files_json else {}
    for table in TABLES:
        path = table_path(exp_dir, run_id, table)
        problem = table_problem(_bytes_or_none(path), recorded.get(table))
        if problem is not None:
            return f"{path}: {problem}"
    return None


def files_json_of(exp_dir: str | Path, run_id: str) -> str:
    """``files_json`` for a run's table files as they are on disk."""
    return canonical_json({table: file_record(table_path(exp_dir, run_id, table).read_bytes())
                           for table in TABLES})


def row_copy_text(row: dict[str, Any]) -> str:
    """The text of ``rows/<run_id>.json``: the row, every column of :data:`COLUMNS`."""
    return json.dumps({name: row[name] for name in COLUMNS}, sort_keys=True) + "\n"


@dataclass
class Repair:
    """What :meth:`ResultStore.repair` did: whether it ``rebuilt`` the database (not when it
    was intact), the damaged one moved ``aside`` (``None`` when there was none), the runs
    ``restored``, and the ``lost`` ones (row copy or tables damaged: they run again),
    run_id -> what was wrong."""

    rebuilt: bool
    aside: Path | None
    restored: int
    lost: dict[str, str] = field(default_factory=dict)


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
    takes the lock and removes temporary files left by a killed sweep.  A
    damaged database is an :class:`InputError` naming it; with ``repair`` it
    is moved aside and rebuilt from the row copies instead (:meth:`repair`,
    the outcome in ``repaired``).
    """

    def __init__(self, exp_dir: str | Path, *, repair: bool = False) -> None:
        self.exp_dir = Path(exp_dir)
        self.repair_asked = repair
        self.repaired: Repair | None = None
        self._lock: int | None = None
        self._db: sqlite3.Connection | None = None

    def __enter__(self) -> ResultStore:
        self._open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open(self) -> None:
        make_experiment_directory(self.exp_dir, JOBS_DIR, SERIES_DIR, ROWS_DIR)
        self._take_lock()
        try:
            remove_temporary_files(self.exp_dir)
            if self.repair_asked:
                self.repaired = self.repair()
            else:
                self._db = self._checked_database()
        except BaseException:
            self.close()
            raise

    def _take_lock(self) -> None:
        """The exclusive ``flock`` on ``.lock``, with this process's id written in it; a
        second sweep is refused with the holder's id."""
        path = self.exp_dir / LOCK_FILE
        try:
            self._lock = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise InputError(f"cannot write the experiment directory: {err.strerror or err}",
                             file=str(self.exp_dir)) from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._lock, 32, 0).decode("ascii", "replace").strip()
            self.close()
            who = f" (process {holder})" if holder.isdigit() else ""
            raise InputError(f"another sweep{who} is writing to this experiment directory; "
                             f"wait for it to end, or stop it", file=str(self.exp_dir)) from None
        try:
            os.ftruncate(self._lock, 0)
            os.pwrite(self._lock, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError:     # a full disk: the lock holds all the same, unnamed
            pass

    def _checked_database(self, *, rebuilding: bool = False) -> sqlite3.Connection:
        """The database, its schema up to date, read through once (a damaged one raises; one
        without its table while ``rows/`` holds runs is damaged too, unless ``rebuilding``)."""
        database = self.exp_dir / DATABASE
        db = connect(database)
        try:
            with database_errors(self.exp_dir):
                problem = integrity_problem(db)
                if (problem is None and not rebuilding and not table_columns(db)
                        and holds_row_copies(self.exp_dir)):
                    problem = "it has no table of runs, but rows/ holds stored runs"
                if problem is not None:
                    raise damaged_database(self.exp_dir, problem)
                db.execute(SCHEMA)
                present = table_columns(db)
                for name in ADDED_COLUMNS:
                    if name not in present:
                        db.execute(f"ALTER TABLE runs ADD COLUMN {name} TEXT")
        except BaseException:
            db.close()
            raise
        return db

    def repair(self) -> Repair:
        """Rebuild a damaged or missing database from the row copies (``rows/*.json``).

        An intact database is kept as it is (nothing restored, nothing lost).
        A damaged one is renamed ``results.sqlite.damaged`` (with its WAL
        files; a number follows when the name is taken), and a new one gets
        the row of every copy that reads whole and, for a finished run, whose
        tables match the size and checksum recorded in it.  The other runs are
        missing from the new database, so the sweep runs them again.
        """
        database = self.exp_dir / DATABASE
        if database.exists():
            try:
                self._db = self._checked_database()
                return Repair(rebuilt=False, aside=None, restored=0)
            except DamagedStore:
                aside = move_aside(database)
        else:
            aside = None
        self._db = self._checked_database(rebuilding=True)
        restored, lost = 0, {}
        for copy in sorted((self.exp_dir / ROWS_DIR).glob("*.json")):
            row, problem = read_row_copy(self.exp_dir, copy)
            if row is None:
                lost[copy.stem] = problem
                continue
            self._insert(row)
            restored += 1
        copied = set(self.statuses())
        for row in salvaged_rows(aside) if aside is not None else ():
            if row["run_id"] in copied:
                continue
            damage = (run_problem(self.exp_dir, row["run_id"], row["files_json"])
                      if row["status"] == FINISHED else None)
            if damage is not None:
                lost[row["run_id"]] = damage
                continue
            if row["status"] == FINISHED and row["files_json"] is None:
                row["files_json"] = files_json_of(self.exp_dir, row["run_id"])
            self._insert(row)
            atomic_write_text(row_copy_path(self.exp_dir, row["run_id"]), row_copy_text(row))
            restored += 1
        return Repair(rebuilt=True, aside=aside, restored=restored, lost=lost)

    def _insert(self, row: dict[str, Any]) -> None:
        """Insert a row in one transaction (an existing finished row stays)."""
        db = self._connection()
        with database_errors(self.exp_dir):
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(UPSERT, tuple(row[name] for name in COLUMNS))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:       # a failed COMMIT (disk full) has rolled back
                    db.execute("ROLLBACK")
                raise

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
        with database_errors(self.exp_dir):
            return dict(self._connection().execute("SELECT run_id, status FROM runs"))

    def check_runs(self, run_ids: Iterable[str]) -> dict[str, str]:
        """Check the stored runs among ``run_ids``; forget the damaged ones so they run again.

        A finished run is intact when both its tables have the size and
        SHA-256 recorded when they were written (a row stored before they were
        recorded: when both are whole Parquet files; they are then recorded).
        The row of a damaged run and its copy are deleted, so the sweep runs
        it again.  A missing or stale row copy is written anew from the row.
        Returns run_id -> what is wrong, for every damaged run.
        """
        wanted = set(run_ids)
        db = self._connection()
        damaged: dict[str, str] = {}
        with database_errors(self.exp_dir):
            rows = [dict(zip(COLUMNS, values)) for values in
                    db.execute(f"SELECT {', '.join(COLUMNS)} FROM runs")]
        for row in rows:
            run_id = row["run_id"]
            if run_id not in wanted:
                continue
            if row["status"] == FINISHED:
                problem = run_problem(self.exp_dir, run_id, row["files_json"])
                if problem is not None:
                    damaged[run_id] = problem
                    continue
                if row["files_json"] is None:
                    row["files_json"] = files_json_of(self.exp_dir, run_id)
                    with database_errors(self.exp_dir):
                        db.execute("UPDATE runs SET files_json = ? WHERE run_id = ?",
                                   (row["files_json"], run_id))
            self._keep_row_copy(row)
        if damaged:
            with database_errors(self.exp_dir):
                db.executemany("DELETE FROM runs WHERE run_id = ?", [(r,) for r in damaged])
            for run_id in damaged:
                row_copy_path(self.exp_dir, run_id).unlink(missing_ok=True)
        return damaged

    def _keep_row_copy(self, row: dict[str, Any]) -> None:
        """Write ``rows/<run_id>.json`` unless it already holds the row."""
        path = row_copy_path(self.exp_dir, row["run_id"])
        text = row_copy_text(row)
        try:
            if path.read_text(encoding="utf-8") == text:
                return
        except (OSError, UnicodeDecodeError):
            pass
        atomic_write_text(path, text)

    def write(self, record: RunRecord) -> bool:
        """Store a run: Parquet files first, then the row's copy (each atomic), then its row
        (one transaction).

        Returns False, writing nothing, when the run is already stored as
        finished.
        """
        db = self._connection()
        with database_errors(self.exp_dir):
            stored = db.execute("SELECT status FROM runs WHERE run_id = ?",
                                (record.run_id,)).fetchone()
        if stored is not None and stored[0] == FINISHED:
            return False
        files = None
        if record.status == FINISHED:
            # a finished record has both tables (runner.execute_run)
            assert record.jobs_parquet is not None and record.series_parquet is not None
            atomic_write_bytes(jobs_path(self.exp_dir, record.run_id), record.jobs_parquet)
            atomic_write_bytes(series_path(self.exp_dir, record.run_id), record.series_parquet)
            files = canonical_json({"jobs": file_record(record.jobs_parquet),
                                    "series": file_record(record.series_parquet)})
        row = dict(zip(COLUMNS, row_of(record, files)))
        atomic_write_text(row_copy_path(self.exp_dir, record.run_id), row_copy_text(row))
        self._insert(row)
        return True

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the result store is not open")
        return self._db


def row_of(record: RunRecord, files_json: str | None) -> tuple[Any, ...]:
    """The ``runs`` row of a record, in :data:`COLUMNS` order (``files_json``: the sizes and
    checksums of its tables, :func:`file_record`)."""
    run = record.run
    finished = record.status == FINISHED
    return (record.run_id, canonical_json(run.to_dict()), record.status,
            json.dumps(record.metrics) if finished else None,
            json.dumps(record.policy_stats) if finished else None,
            record.wall_time, record.schedlab_version, record.error,
            datetime.now(UTC).isoformat(timespec="milliseconds"),
            run.workload.label, run.policy, run.seed,
            canonical_json(dict(run.transforms)), canonical_json(dict(run.params)), files_json)


def remove_temporary_files(exp_dir: Path) -> None:
    """Delete what atomic writers of a killed sweep left behind (``.NAME.XXXX.tmp``)."""
    for sub in (JOBS_DIR, SERIES_DIR, ROWS_DIR, ""):
        for leftover in (exp_dir / sub).glob(".*.tmp"):
            leftover.unlink(missing_ok=True)


def integrity_problem(db: sqlite3.Connection) -> str | None:
    """SQLite's ``quick_check`` of the whole file: ``None`` when it is sound, else its
    first complaint."""
    found = db.execute("PRAGMA quick_check(1)").fetchone()
    return None if found is None or found[0] == "ok" else str(found[0])


def holds_row_copies(exp_dir: Path) -> bool:
    """Whether ``rows/`` holds a row copy (so runs were stored here)."""
    return any((exp_dir / ROWS_DIR).glob("*.json"))


def table_columns(db: sqlite3.Connection) -> set[str]:
    """The columns table ``runs`` has (an older store lacks :data:`ADDED_COLUMNS`)."""
    return {info[1] for info in db.execute("PRAGMA table_info(runs)")}


def move_aside(database: Path) -> Path:
    """Rename a damaged database (and its WAL files) to ``NAME.damaged`` (or ``.damaged.N``)."""
    aside = database.with_name(database.name + DAMAGED_SUFFIX)
    number = 1
    while aside.exists():
        aside = database.with_name(f"{database.name}{DAMAGED_SUFFIX}.{number}")
        number += 1
    os.replace(database, aside)
    for ending in ("-wal", "-shm"):
        companion = database.with_name(database.name + ending)
        if companion.exists():
            os.replace(companion, aside.with_name(aside.name + ending))
    return aside


def salvaged_rows(database: Path) -> Iterator[dict[str, Any]]:
    """The rows a damaged database still gives, read in order until the first damaged page
    (rows of a store older than the row copies are restored this way)."""
    try:
        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return
    try:
        cursor = db.execute(f"SELECT {_selected_columns(db)} FROM runs")
        for values in cursor:
            yield dict(zip(COLUMNS, values))
    except sqlite3.DatabaseError:
        return
    finally:
        db.close()


def read_row_copy(exp_dir: Path, path: Path) -> tuple[dict[str, Any] | None, str]:
    """A row copy as a row, or ``None`` and what is wrong: the copy does not read as a
    row, or (a finished run) its tables are not as recorded."""
    try:
        row = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None, f"{path}: not a whole row copy"
    if not isinstance(row, dict) or set(row) != set(COLUMNS) or row["run_id"] != path.stem:
        return None, f"{path}: not a whole row copy"
    if row["status"] == FINISHED:
        problem = run_problem(exp_dir, row["run_id"], row["files_json"])
        if problem is not None:
            return None, problem
    return row, ""


# --------------------------------------------------------------------------- reading


def _open_for_reading(exp_dir: str | Path) -> sqlite3.Connection:
    database = Path(exp_dir) / DATABASE
    if not database.is_file():
        raise InputError(f"not an experiment directory (no {DATABASE}); run "
                         f"'schedlab sweep' first", file=str(exp_dir))
    with database_errors(exp_dir):
        db = sqlite3.connect(database, timeout=60.0)
        try:
            present = table_columns(db)
        except BaseException:
            db.close()
            raise
    if not present:         # emptied, or its sweep killed before it made the table
        db.close()
        raise damaged_database(exp_dir, "it has no table of runs")
    return db


def _selected_columns(db: sqlite3.Connection) -> str:
    """:data:`COLUMNS` for a SELECT; those an older store lacks read as NULL."""
    present = table_columns(db)
    return ", ".join(name if name in present or name not in ADDED_COLUMNS
                     else f"NULL AS {name}" for name in COLUMNS)


def stored_rows(exp_dir: str | Path) -> Iterator[dict[str, Any]]:
    """Every row of ``runs`` as a dict, ordered by workload, policy, transforms, params, seed."""
    db = _open_for_reading(exp_dir)
    try:
        with database_errors(exp_dir):
            cursor = db.execute(f"SELECT {_selected_columns(db)} FROM runs ORDER BY workload, "
                                f"policy, transforms_json, params_json, seed, run_id")
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
    finished_at``, every metric under its flat name (docs/reference/metrics.md) and
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
        k for k in found if k.startswith(DISPATCH_PARAM_PREFIX)] + [
        k for k in OUTAGE_COLUMNS if k in found]
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
    flat.update(outage_columns(spec))
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


def outage_columns(spec: dict[str, Any]) -> dict[str, Any]:
    """The outage setting of a stored run spec as columns (none for a run of an experiment
    without ``failures`` or ``maintenance``): the ``--failures`` text and the maintenance
    file's name, ``none`` where the run had none."""
    outages = spec.get("outages")
    if outages is None:
        return {}
    maintenance = outages.get("maintenance")
    return {"outages.failures": outages["failures"] or "none",
            "outages.maintenance": "none" if maintenance is None else maintenance["file"]}


def _cell(value: Any) -> Any:
    """A list or table value fits a DataFrame cell as its canonical JSON text."""
    return canonical_json(value) if isinstance(value, (list, dict)) else value


def _finished_row(exp_dir: str | Path, run_id: str) -> dict[str, Any]:
    """The row of a finished run; a clear error for an unknown or failed run."""
    db = _open_for_reading(exp_dir)
    try:
        with database_errors(exp_dir):
            found = db.execute(f"SELECT {_selected_columns(db)} FROM runs WHERE run_id = ?",
                               (run_id,)).fetchone()
    finally:
        db.close()
    if found is None:
        raise InputError(f"no run {run_id!r} in this experiment", file=str(exp_dir))
    row = dict(zip(COLUMNS, found))
    if row["status"] == FAILED:
        first = (row["error"] or "").split("\n", 1)[0]
        raise InputError(f"run {run_id} failed, it has no tables: {first}", file=str(exp_dir))
    return row


def _read_table(exp_dir: str | Path, run_id: str, table: str):
    """One of a finished run's tables as a DataFrame with nullable integers (``<NA>`` where
    empty), checked against the size and checksum recorded when it was written."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = _finished_row(exp_dir, run_id)
    path = table_path(exp_dir, run_id, table)
    data = _bytes_or_none(path)
    if data is None:
        raise InputError(f"the table of finished run {run_id} is missing; run "
                         f"'{sweep_command(exp_dir)}' to compute it again", file=str(path))
    recorded = json.loads(row["files_json"]) if row["files_json"] else {}
    problem = table_problem(data, recorded.get(table))
    if problem is None:
        try:
            arrow = pq.read_table(pa.BufferReader(data))
        except (pa.ArrowException, OSError) as err:
            problem = f"not a readable Parquet file: {err}"
    if problem is not None:
        raise InputError(f"the table of run {run_id} is damaged ({problem}); run "
                         f"'{sweep_command(exp_dir)}' to compute it again", file=str(path))
    mapping = {pa.int64(): pd.Int64Dtype(), pa.string(): pd.StringDtype()}
    return arrow.to_pandas(types_mapper=mapping.get)


def load_jobs(exp_dir: str | Path, run_id: str):
    """A finished run's job table: the columns of ``jobs.csv`` (docs/architecture.md).

    ``start``, ``end`` and ``wait`` are ``<NA>`` for rejected jobs,
    ``planned_start`` where the policy promised no start.  A table that is
    not as written (truncated, altered) is an :class:`InputError` naming it.
    """
    return _read_table(exp_dir, run_id, "jobs")


def load_series(exp_dir: str | Path, run_id: str):
    """A finished run's step functions: ``time, busy, queue`` (docs/reference/metrics.md, "Series")."""
    return _read_table(exp_dir, run_id, "series")
