"""``schedlab generate``: write a synthetic workload from a built-in model as SWF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from schedlab.cli.common import console


def generate(
    model: Annotated[str, typer.Argument(help="A built-in model (docs/models.md), e.g. 'lublin'.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The SWF file to write.")],
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-n", help="Number of jobs.")] = None,
    procs: Annotated[Optional[int], typer.Option("--procs", help="Machine size.")] = None,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same jobs.")] = 0,
) -> None:
    """Generate a synthetic workload and write it as an SWF trace."""
    from schedlab.workload.models import generate_builtin
    from schedlab.workload.swf import write_swf

    workload = generate_builtin(model, n_jobs=jobs, processors=procs, seed=seed)
    write_swf(workload, output)
    console.print(f"wrote {output}: {len(workload)} jobs ({workload.name}) "
                  f"on {workload.processors} processors")
