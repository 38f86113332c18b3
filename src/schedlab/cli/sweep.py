"""``schedlab sweep``: run every run of an experiment file, resumably, with a progress bar."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from schedlab.cli.consoles import console, err_console, rich_console
from schedlab.cli.options import DaskOpt, WorkersOpt
from schedlab.cli.progress import fit_progress_line, rate_column
from schedlab.errors import InputError

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

#: Exit code of a sweep stopped with Ctrl-C (128 + SIGINT, the shell convention).
EXIT_INTERRUPTED = 130
#: Failed runs listed at the end of a sweep (all of them are in ``schedlab results``).
FAILURES_SHOWN = 10


class SweepProgress:
    """A rich progress bar on stderr: runs done, finished and failed counts, rate, ETA.

    Drawn only when stderr is a terminal, so piped output and logs stay clean,
    in one line of the terminal's width (:func:`fit_progress_line`).
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.finished = 0
        self.failed = 0
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def checked(self, repaired, damaged: dict[str, str]) -> None:
        """Say what a repair did and which stored runs were damaged (they run again)."""
        if repaired is not None:
            say(repair_line(repaired))
            for run_id, problem in list(repaired.lost.items())[:FAILURES_SHOWN]:
                say(f"  not restored {run_id}: {problem}")
        if damaged:
            say(f"{len(damaged)} stored runs are damaged and run again:")
            for run_id, problem in list(damaged.items())[:FAILURES_SHOWN]:
                say(f"  damaged {run_id}: {problem}")
            if len(damaged) > FAILURES_SHOWN:
                say(f"  ... and {len(damaged) - FAILURES_SHOWN} more")

    def started(self, pending: int, done_before: int) -> None:
        from rich.markup import escape
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if done_before:
            err_console.print(f"{done_before} runs already stored, skipped", markup=False,
                              highlight=False)
        others = len(f"{pending}/{pending} {pending} finished 0 failed 1,000 runs/s "
                     f"0:00:00 ETA 0:00:00 ")
        label, bar_width = fit_progress_line(self.label, others, err_console.width)
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(bar_width), MofNCompleteColumn(),
            TextColumn("[green]{task.fields[finished]} finished[/] "
                       "[red]{task.fields[failed]} failed[/]"),
            rate_column("runs"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=rich_console(err_console), disable=not err_console.is_terminal)
        self.bar.start()
        self.task = self.bar.add_task(escape(label), total=pending, finished=0, failed=0)

    def recorded(self, record) -> None:
        if record.status == "finished":
            self.finished += 1
        else:
            self.failed += 1
        assert self.bar is not None and self.task is not None     # started before any record
        self.bar.update(self.task, advance=1, finished=self.finished, failed=self.failed)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def say(text: str) -> None:
    """One plain line on stderr (no markup, kept whole however wide)."""
    err_console.print(text, markup=False, highlight=False, soft_wrap=True)


def sweep(
    experiment: Annotated[Path, typer.Argument(
        help="The experiment file (TOML; format in docs/how-to/experiments.md).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Experiment directory for the results (default: the file's name "
        "without .toml, in the current directory).")] = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    retry_failed: Annotated[bool, typer.Option(
        "--retry-failed", help="Run again the runs stored as failed.")] = False,
    repair: Annotated[bool, typer.Option(
        "--repair", help="Rebuild a damaged results.sqlite from the runs' files (the "
        "damaged one is kept as results.sqlite.damaged), then go on.")] = False,
) -> None:
    """Run an experiment: every combination of its workloads, transforms, policies and seeds
    (with several transform tables, the combinations each table selects).

    Runs already stored in the experiment directory are skipped, so rerunning
    after a crash or Ctrl-C resumes; a stored run whose files are damaged runs
    again.  Exit code 1 when some run failed.
    """
    from schedlab.experiments import run_sweep

    exp_dir = out if out is not None else Path(experiment.name.removesuffix(".toml"))
    executor, pool_size = choose_executor(workers, dask)
    progress = SweepProgress(experiment.stem)
    try:
        summary = run_sweep(experiment, exp_dir, executor=executor, jobs=pool_size,
                            dask_address=dask, retry_failed=retry_failed, repair=repair,
                            observer=progress)
    except KeyboardInterrupt:
        progress.close()
        err_console.print(f"schedlab: interrupted; {stored_runs(exp_dir)} runs are stored in "
                          f"{exp_dir}. Run the same command again to resume.",
                          markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    progress.close()
    report(summary)
    if summary.failures:
        raise typer.Exit(1)


def stored_runs(exp_dir: Path) -> int:
    """Runs stored in the experiment directory (0 when the sweep stopped before creating it)."""
    import sqlite3

    from schedlab.experiments.store import DATABASE, stored_rows

    if not (exp_dir / DATABASE).is_file():
        return 0
    try:
        return sum(1 for _ in stored_rows(exp_dir))
    except (sqlite3.OperationalError, InputError):  # stopped before its table was made
        return 0


def repair_line(repaired) -> str:
    """One line: what ``--repair`` did to the database."""
    if not repaired.rebuilt:
        return "repair: results.sqlite is intact, nothing to rebuild"
    where = f"the damaged one kept as {repaired.aside}" if repaired.aside is not None \
        else "there was none"
    lost = f", {len(repaired.lost)} damaged beyond it" if repaired.lost else ""
    return (f"repair: results.sqlite rebuilt ({where}): {repaired.restored} runs restored "
            f"intact{lost}; the runs it lacks run again")


def choose_executor(workers: int | None, dask: str | None) -> tuple[str, int | None]:
    """``--dask`` -> dask; ``--workers 1`` -> serial; otherwise the process pool."""
    if workers is not None:
        from schedlab.limits import check_workers

        check_workers(workers)
    if dask is not None:
        if not (dask == "local" or dask.startswith("tcp://")):
            raise InputError(f"expected 'local' or tcp://HOST:PORT, got {dask!r}",
                             field="--dask")
        return "dask", workers
    if workers == 1:
        return "serial", None
    return "pool", workers


def report(summary) -> None:
    """One line of counts, then the first failed runs with their errors."""
    console.print(f"{summary.total} runs: {summary.finished} finished and {summary.failed} "
                  f"failed now"
                  + (f" ({len(summary.damaged)} damaged runs done again)"
                     if summary.damaged else "")
                  + f", {summary.already_finished} finished before"
                  + (f", {summary.already_failed} failed before (not retried)"
                     if summary.already_failed else "")
                  + f" ({summary.wall_time:.1f} s) -> {summary.exp_dir}",
                  markup=False, highlight=False, soft_wrap=True)
    failures = list(summary.failures.items())
    for run_id, error in failures[:FAILURES_SHOWN]:
        console.print(f"  failed {run_id}: {error}", markup=False, highlight=False,
                      soft_wrap=True)
    if len(failures) > FAILURES_SHOWN:
        console.print(f"  ... and {len(failures) - FAILURES_SHOWN} more", markup=False)
    if failures:
        console.print(f"see 'schedlab results {summary.exp_dir}'; rerun with --retry-failed "
                      f"to run them again", markup=False, highlight=False, soft_wrap=True)
