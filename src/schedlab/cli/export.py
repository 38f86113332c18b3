"""``schedlab export``: a run's jobs in another tool's format (docs/how-to/interop.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from schedlab.cli.consoles import console
from schedlab.errors import InputError

ExportFormat = Literal["evalys"]
#: Formats and the file name written when no --out is given.
EXPORT_FORMATS: dict[ExportFormat, str] = {"evalys": "out_jobs.csv"}


def export(
    run: Annotated[Path, typer.Argument(
        help="A run directory written by 'schedlab simulate --out', or its jobs.csv.")],
    format: Annotated[ExportFormat, typer.Option(
        "--format", "-f", help="Output format: evalys is Batsim's out_jobs.csv columns.")
    ] = "evalys",
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="File to write (default: out_jobs.csv in the run directory).")
    ] = None,
    procs: Annotated[int | None, typer.Option(
        "--procs", help="Machine size, when the run has no metrics.json.")] = None,
) -> None:
    """Export the jobs of a run, e.g. for evalys.jobset.JobSet.from_csv."""
    from schedlab.interop import load_run, write_evalys_jobs_csv

    if procs is not None and procs <= 0:
        raise InputError(f"expected a number of processors >= 1, got {procs}", field="--procs")
    result = load_run(run, processors=procs)
    target = out if out is not None else (
        (run if run.is_dir() else run.parent) / EXPORT_FORMATS[format])
    write_evalys_jobs_csv(result, target)
    console.print(f"wrote {target} ({len(result)} jobs, {format} format)", markup=False,
                  highlight=False, soft_wrap=True)
