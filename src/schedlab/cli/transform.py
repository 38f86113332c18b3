"""``schedlab transform``: apply workload transforms and write the result as SWF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.consoles import console, err_console
from schedlab.cli.conventions import OUTPUT_PANEL, WORKLOAD_PANEL, deprecation_warning
from schedlab.cli.loading import load, report_skips
from schedlab.cli.options import (
    JobsOpt,
    MissingEstimateOpt,
    PerfectOpt,
    ProcsOpt,
    SeedOpt,
    ShrinkOpt,
    StrictOpt,
    WidthFieldOpt,
    WorkloadArg,
)
from schedlab.cli.parsing import parse_window
from schedlab.errors import InputError


def transform(
    workload: WorkloadArg,
    legacy_output: Annotated[Path | None, typer.Argument(
        metavar="OUTPUT", show_default=False, hidden=True,
        help="Deprecated: the file to write, now given with --out.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The SWF file to write (.gz compresses).",
        rich_help_panel=OUTPUT_PANEL)] = None,
    shrink: ShrinkOpt = None,
    perfect_estimates: PerfectOpt = False,
    split: Annotated[int | None, typer.Option(
        "--split", help="Split jobs wider than this into parts of at most this width "
        "(Streit 2002, §4).", rich_help_panel=WORKLOAD_PANEL)] = None,
    jobs: JobsOpt = None,
    window: Annotated[str | None, typer.Option(
        "--window", help="Keep jobs submitted in [START, END) seconds since the trace start: "
        "START:END.", rich_help_panel=WORKLOAD_PANEL)] = None,
    procs: ProcsOpt = None,
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    strict: StrictOpt = False,
    seed: SeedOpt = 0,
) -> None:
    """Transform a workload (docs/reference/workloads.md) and write it as an SWF trace."""
    from schedlab.workload.swf import write_swf

    output = output_file(out, legacy_output)
    loaded = load(workload, procs=procs, width_field=width_field,
                  missing_estimate=missing_estimate, strict=strict, jobs=jobs, seed=seed,
                  shrink=shrink, perfect_estimates=perfect_estimates, split=split,
                  window=parse_window(window))
    report_skips(loaded)
    write_swf(loaded, output)
    console.print(f"wrote {output}: {len(loaded)} jobs ({loaded.name}) "
                  f"on {loaded.processors} processors")


def output_file(out: Path | None, legacy_output: Path | None) -> Path:
    """The file to write: ``--out``, or the positional OUTPUT of the earlier release (with a
    deprecation warning)."""
    if legacy_output is not None:
        if out is not None:
            raise InputError("give the file to write once, with --out", field="--out")
        err_console.print(deprecation_warning("transform", "WORKLOAD OUTPUT",
                                              "WORKLOAD --out OUTPUT"),
                          markup=False, highlight=False)
        return legacy_output
    if out is None:
        raise InputError("expected the SWF file to write (--out/-o)", field="--out")
    return out
