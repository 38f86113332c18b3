"""``schedlab simulate --platform``: a grid run (docs/reference/policies/grid.md).

The grid part of ``schedlab simulate``: the workload is an SWF file with its
``.grid.csv`` side file, run on a platform file or preset by a local policy
per cluster and a dispatcher.
"""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from schedlab.cli.conventions import GRID_PANEL

PlatformOpt = Annotated[str | None, typer.Option(
    "--platform", help="Run on a grid platform: a TOML file or a preset (thesis-4.3, ...; "
    "drawn with --seed). The workload is then an SWF file with its .grid.csv side file; "
    "docs: reference/platform.md and reference/policies/grid.md", rich_help_panel=GRID_PANEL)]
DispatchOpt = Annotated[str, typer.Option(
    "--dispatch", help="With --platform: the meta-scheduler's dispatcher (round-robin, "
    "random, least-work, proportional, ms-heuristics; see 'schedlab policies').",
    rich_help_panel=GRID_PANEL)]
DispatchParamOpt = Annotated[list[str] | None, typer.Option(
    "--dispatch-param", help="A dispatcher parameter as KEY=VALUE (repeatable).",
    rich_help_panel=GRID_PANEL)]
AllocationOpt = Annotated[Literal["shared", "exclusive"], typer.Option(
    "--allocation", help="With --platform: jobs share a machine's CPUs, or one job per "
    "machine.", rich_help_panel=GRID_PANEL)]

PreemptionOverheadOpt = Annotated[int, typer.Option(
    "--preemption-overhead", metavar="SECONDS", help="With --platform: seconds added to "
    "every resumption of a job the local policy preempted, e.g. --policy cs --param "
    "preemption=true; docs: reference/policies/grid.md", rich_help_panel=GRID_PANEL)]
