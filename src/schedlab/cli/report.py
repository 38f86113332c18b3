"""``schedlab report``: one self-contained HTML file for an experiment directory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

import typer

from schedlab.cli.consoles import console


def report(
    exp_dir: Annotated[Path, typer.Argument(
        help="An experiment directory (written by 'schedlab sweep'), or grid run "
             "directories (a directory of 'simulate --platform --out' outputs).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The HTML file to write (default: EXP_DIR/report.html).")] = None,
    fmt: Annotated[Literal["svg", "png"], typer.Option(
        "--format", "-f", case_sensitive=False,
        help="Format of the embedded figures: svg is sharp at any zoom.")]
        = "svg",
) -> None:
    """Write an HTML report: runs table, failed runs, figures, experiment file, versions."""
    from schedlab.experiments.report import write_report

    target = out if out is not None else exp_dir / "report.html"
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    from schedlab.cli.plotgrid import grid_runs, holds_runs, run_directories

    if not (exp_dir / "results.sqlite").is_file() and holds_runs(exp_dir):
        from schedlab.viz.gridreport import write_grid_report

        runs = dict(zip((path.name for path in run_directories(exp_dir)), grid_runs(exp_dir)))
        write_grid_report(exp_dir, runs, target, generated=generated, fmt=fmt)
    else:
        write_report(exp_dir, target, generated=generated, fmt=fmt)
    console.print(f"wrote {target}")
