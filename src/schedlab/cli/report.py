"""``schedlab report``: one self-contained HTML file for an experiment directory."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Optional

import typer

from schedlab.cli.common import console


def report(
    exp_dir: Annotated[Path, typer.Argument(
        help="An experiment directory (written by 'schedlab sweep').")],
    out: Annotated[Optional[Path], typer.Option(
        help="The HTML file to write (default: EXP_DIR/report.html).")] = None,
    fmt: Annotated[str, typer.Option(
        "--format", help="Format of the embedded figures: svg (sharp at any zoom) or png.")]
        = "svg",
) -> None:
    """Write an HTML report: runs table, failed runs, figures, experiment file, versions."""
    from schedlab.experiments.report import write_report

    target = out if out is not None else exp_dir / "report.html"
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    write_report(exp_dir, target, generated=generated, fmt=fmt)
    console.print(f"wrote {target}")
