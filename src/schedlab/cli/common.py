"""Pieces every command shares: option types, workload loading, progress, tables."""

from __future__ import annotations

import time
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from schedlab.errors import InputError
from schedlab.workload.job import Workload

console = Console()
err_console = Console(stderr=True, soft_wrap=True)   # an error stays on one line

WorkloadArg = Annotated[str, typer.Argument(
    help="An SWF trace (plain or .gz) or a built-in model name (e.g. 'lublin').")]
ProcsOpt = Annotated[Optional[int], typer.Option(
    "--procs", help="Machine size in processors (default: the trace header / the model's).")]
OverrunOpt = Annotated[str, typer.Option(
    help="A job still running at its estimate is killed ('kill', default) or runs on ('extend').")]
WidthFieldOpt = Annotated[str, typer.Option(
    "--width-field", help="Which SWF field gives a job's width: 'requested' (field 8, else 5) "
    "or 'allocated' (field 5, else 8).")]
MissingEstimateOpt = Annotated[str, typer.Option(
    "--missing-estimate", help="Jobs without a requested time: 'use-runtime' or 'drop'.")]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Stop at the first record that cannot be simulated instead of skipping it.")]
JobsOpt = Annotated[Optional[int], typer.Option(
    "--jobs", "-n", help="Number of jobs for a built-in model; for a trace, keep the first N.")]
SeedOpt = Annotated[int, typer.Option(help="Seed of a built-in model.")]
ShrinkOpt = Annotated[Optional[float], typer.Option(
    "--shrink", help="Shrinking factor: multiply every interarrival time (Streit 2002, §5).")]
PerfectOpt = Annotated[bool, typer.Option(
    "--perfect-estimates", help="Replace every estimate by the job's runtime.")]


def load(workload: str, *, procs: int | None, width_field: str, missing_estimate: str,
         strict: bool, jobs: int | None, seed: int, shrink: float | None,
         perfect_estimates: bool, split: int | None = None,
         window: tuple[int, int] | None = None) -> Workload:
    """Load a workload and apply the transforms asked for on the command line.

    Order: time window, first N jobs, width split, shrinking, perfect estimates.
    """
    from pathlib import Path

    from schedlab.api import load_workload
    from schedlab.workload import transforms

    if procs is not None and procs <= 0:
        raise InputError(f"expected a number of processors >= 1, got {procs}",
                         field="--procs")
    from schedlab.workload.models import BUILTIN_MODELS

    is_model = workload in BUILTIN_MODELS and not Path(workload).exists()
    loaded = load_workload(workload, width_field=width_field, missing_estimate=missing_estimate,
                           strict=strict, processors=procs, seed=seed,
                           jobs=jobs if is_model else None)
    if window is not None:
        loaded = transforms.time_window(loaded, *window)
    if not is_model and jobs is not None:
        loaded = transforms.first_jobs(loaded, jobs)
    if split is not None:
        loaded = transforms.split_wide_jobs(loaded, split)
    if shrink is not None:
        loaded = transforms.shrink(loaded, shrink)
    if perfect_estimates:
        loaded = transforms.perfect_estimates(loaded)
    if len(loaded) == 0:
        raise InputError("the workload has no job left to simulate", file=workload)
    return loaded


def report_skips(workload: Workload) -> None:
    """Always say how many records were skipped and why (SPEC §1.1)."""
    total = sum(workload.skipped.values())
    if not workload.skipped:
        return
    parts = ", ".join(f"{reason}: {count}" for reason, count in workload.skipped.items())
    console.print(f"[dim]{workload.name}: {len(workload)} jobs; skipped {total} ({parts})[/dim]")


class DelayedProgress:
    """A progress bar that appears only once a run has taken longer than ``delay`` seconds."""

    def __init__(self, label: str, delay: float = 2.0) -> None:
        self.label = label
        self.delay = delay
        self.began = time.perf_counter()
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if time.perf_counter() - self.began < self.delay or done >= total:
                return
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeRemainingColumn(),
                                console=err_console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def metrics_table(title: str, rows: dict[str, dict[str, float]], names: list[str],
                  formats: dict[str, str]) -> Table:
    """A rich table: one row per metric, one column per run (policy).

    Metrics run down the side so that several policies fit an 80-column terminal.
    """
    table = Table(title=title)
    table.add_column("metric", style="bold")
    for label in rows:
        table.add_column(label.replace("+", "+\n"), justify="right", overflow="fold")
    for name in names:
        cells = []
        for metrics in rows.values():
            value = metrics.get(name)
            cells.append("-" if value is None else format(value, formats.get(name, ".2f")))
        table.add_row(name, *cells)
    return table


def parse_window(text: str | None) -> tuple[int, int] | None:
    """``"START:END"`` in seconds since the trace start -> ``(START, END)``."""
    if text is None:
        return None
    start, sep, end = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return int(start), int(end)
    except ValueError:
        raise InputError(f"expected START:END in whole seconds, got {text!r}",
                         field="--window") from None


SUMMARY_METRICS = ["jobs", "killed", "rejected", "avg_wait", "avg_response", "avg_bsld_60",
                   "artww", "sldww_60", "utilization", "makespan"]
SUMMARY_FORMATS = {"jobs": "d", "killed": "d", "rejected": "d", "avg_wait": ".0f",
                   "avg_response": ".0f", "artww": ".0f", "utilization": ".3f", "makespan": "d"}

