"""``schedlab simulate --platform``: a grid run (docs/reference/policies/grid.md).

The grid part of ``schedlab simulate``: the workload is an SWF file with its
``.grid.csv`` side file, run on a platform file or preset by a local policy
per cluster and a dispatcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from schedlab.cli.consoles import console
from schedlab.cli.conventions import GRID_PANEL
from schedlab.cli.summary import SUMMARY_FORMATS, metrics_table, summary_metrics
from schedlab.errors import InputError

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

#: Grid metrics added to the summary table (docs/reference/metrics.md, "Grid runs").
GRID_SUMMARY_METRICS = ["system_usage", "licence_usage", "cluster_share_deviation"]


def first_given(options: dict[str, tuple[object, object]]) -> str | None:
    """The first option set away from its default; ``options`` maps a name to (value, default)."""
    return next((name for name, (value, default) in options.items() if value != default), None)


def refuse_unsupported(options: dict[str, tuple[object, object]]) -> None:
    """InputError for a workload or run option a grid run does not take."""
    name = first_given(options)
    if name is not None:
        raise InputError(f"{name} is not supported with --platform: a grid run reads the "
                         f"workload and its side file as they are", field=name)


def refuse_grid_only(options: dict[str, tuple[object, object]]) -> None:
    """InputError for a grid option given without ``--platform`` (it would do nothing)."""
    name = first_given(options)
    if name is not None:
        raise InputError(f"{name} needs --platform: only grid runs have a dispatcher "
                         f"and machines", field=name)


def simulate_on_platform(workload: str, policy: str, params: dict, platform: str,
                         dispatch: str, dispatch_params: dict, allocation: str, overrun: str,
                         seed: int, out: Path | None, swf: bool,
                         preemption_overhead: int = 0) -> None:
    """Run, print the summary, write OUT/jobs.csv and OUT/metrics.json."""
    from schedlab.api import simulate_grid
    from schedlab.metrics import compute_metrics
    from schedlab.output import write_jobs_csv, write_metrics_json

    result = simulate_grid(workload, {"name": policy, **params}, platform=platform,
                           dispatch={"name": dispatch, **dispatch_params},
                           allocation=allocation, overrun=overrun, seed=seed,
                           preemption_overhead=preemption_overhead)
    metrics = compute_metrics(result)
    if out is not None:
        write_jobs_csv(result, out / "jobs.csv")
        write_metrics_json(result, metrics, out / "metrics.json")
        if swf:
            from schedlab.workload.swf import write_swf
            write_swf(result, out / "schedule.swf")
    grid = result.grid
    title = (f"{result.workload} on {grid.platform}: {len(grid.cluster_names)} clusters, "
             f"{len(grid.machine_names)} machines, {result.processors} CPUs ({allocation})")
    rows = {result.policy: metrics}
    console.print(metrics_table(title, rows, summary_metrics(rows) + GRID_SUMMARY_METRICS,
                                {**SUMMARY_FORMATS, **{m: ".3f" for m in GRID_SUMMARY_METRICS}}))
    console.print(f"scheduling time per event: "
                  f"{result.meta['scheduling_time_per_event_us']:.1f} us "
                  f"({result.meta['scheduling_events']} events)", markup=False)
    if out is not None:
        console.print(f"wrote {out / 'jobs.csv'} and {out / 'metrics.json'}")
