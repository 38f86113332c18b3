"""``schedlab transform``: apply workload transforms and write the result as SWF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from schedlab.cli.common import (JobsOpt, MissingEstimateOpt, PerfectOpt, ProcsOpt, SeedOpt,
                                 ShrinkOpt, StrictOpt, WidthFieldOpt, WorkloadArg, console, load,
                                 parse_window, report_skips)


def transform(
    workload: WorkloadArg,
    output: Annotated[Path, typer.Argument(help="The SWF file to write (.gz compresses).")],
    shrink: ShrinkOpt = None,
    perfect_estimates: PerfectOpt = False,
    split: Annotated[Optional[int], typer.Option(
        help="Split jobs wider than this into parts of at most this width (Streit 2002, §4).")]
        = None,
    jobs: JobsOpt = None,
    window: Annotated[Optional[str], typer.Option(
        help="Keep jobs submitted in [START, END) seconds since the trace start: START:END.")]
        = None,
    procs: ProcsOpt = None,
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    strict: StrictOpt = False,
    seed: SeedOpt = 0,
) -> None:
    """Transform a workload (docs/workloads.md) and write it as an SWF trace."""
    from schedlab.workload.swf import write_swf

    loaded = load(workload, procs=procs, width_field=width_field,
                  missing_estimate=missing_estimate, strict=strict, jobs=jobs, seed=seed,
                  shrink=shrink, perfect_estimates=perfect_estimates, split=split,
                  window=parse_window(window))
    report_skips(loaded)
    write_swf(loaded, output)
    console.print(f"wrote {output}: {len(loaded)} jobs ({loaded.name}) "
                  f"on {loaded.processors} processors")
