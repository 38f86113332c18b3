"""``schedlab platform show|generate`` and ``schedlab generate grid``: platforms and grid jobs.

A thin layer over :mod:`schedlab.platform` and
:mod:`schedlab.workload.models.grid` (docs/reference/platform.md, docs/reference/models.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.cli.options import ThesisPreset
from schedlab.cli.parsing import parse_pair
from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.platform.model import Platform


def platform_app(guard: Callable[[Callable[..., None]], Callable[..., None]]) -> typer.Typer:
    """The ``platform`` command group, each command wrapped by the CLI's error ``guard``."""
    group = typer.Typer(name="platform", no_args_is_help=True,
                        help="Inspect and generate grid platforms (clusters, machines, licences).")
    group.command("show", cls=SchedlabCommand)(guard(show_platform))
    group.command("generate", cls=SchedlabCommand)(guard(generate_platform_file))
    return group


def show_platform(
    file: Annotated[Path, typer.Argument(help="A platform file (TOML, docs/reference/platform.md).")],
    machines: Annotated[bool, typer.Option(
        "--machines", help="Also list every machine.")] = False,
    workload: Annotated[Path | None, typer.Option(
        "--workload", help="A grid workload (SWF with its .grid.csv side file) to check "
                           "against the platform: every job must fit some machine.")] = None,
) -> None:
    """Check a platform file and show its clusters, machines and licences."""
    from schedlab.platform import read_platform

    platform = read_platform(file)
    if workload is not None:
        _show_jobs_on(platform, workload)
        return
    console.print(f"platform {platform.name}: {len(platform.clusters)} clusters, "
                  f"{len(platform.machines)} machines, {platform.total_cpus} CPUs, "
                  f"{len(platform.licence_names)} licences", markup=False, highlight=False)
    table = Table(title="Clusters")
    for header in ("cluster", "machines", "CPUs", "CPUs per machine", "rating",
                   "floating licences"):
        table.add_column(header, justify="left" if header == "cluster" else "right")
    for cluster in platform.clusters:
        cpus = [m.cpus for m in cluster.machines]
        ratings = [m.rating for m in cluster.machines]
        table.add_row(cluster.name, str(len(cluster.machines)), str(cluster.cpus),
                      _span(cpus), _span(ratings), str(len(cluster.licences)))
    console.print(table)
    if platform.licence_names:
        console.print(_licence_table(platform))
    if machines:
        listing = Table(title="Machines")
        for header in ("machine", "cluster", "CPUs", "rating", "features"):
            listing.add_column(header)
        for cluster in platform.clusters:
            for m in cluster.machines:
                listing.add_row(m.name, cluster.name, str(m.cpus), str(m.rating),
                                " ".join(sorted(m.features)))
        console.print(listing)


def _show_jobs_on(platform: Platform, jobs: Path) -> None:
    """Check a grid workload against the platform; show where its jobs can run."""
    import numpy as np

    from schedlab.workload.grid import read_grid_workload

    grid = read_grid_workload(jobs, platform=platform)
    columns = grid.licence_columns(platform)
    widths = np.fromiter((j.width for j in grid.workload.jobs), np.int64, len(grid))
    blocked = grid.needs.astype(np.int64) @ (~platform.usable[columns]).astype(np.int64)
    eligible = ((blocked == 0) & (platform.cpus[None, :] >= widths[:, None])).sum(axis=1)
    console.print(f"{jobs}: {len(grid)} jobs fit platform {platform.name}; machines a job "
                  f"can run on: min {eligible.min()}, median {int(np.median(eligible))}, "
                  f"max {eligible.max()} of {len(platform.machines)}",
                  markup=False, highlight=False)
    table = Table(title="Licence demand (jobs needing it / copies in the platform)")
    for header in ("licence", "jobs", "copies"):
        table.add_column(header, justify="left" if header == "licence" else "right")
    for column, l in enumerate(columns.tolist()):
        table.add_row(platform.licence_names[l], str(int(grid.needs[:, column].sum())),
                      str(int(platform.copies[:, l].sum()) or "-"))
    console.print(table)


def _licence_table(platform: Platform) -> Table:
    """Per licence and cluster: copies / suitable machines; features: machines holding it."""
    table = Table(title="Licences (floating: copies/suitable machines; feature: machines)")
    table.add_column("licence")
    for cluster in platform.clusters:
        table.add_column(cluster.name, justify="right")
    for l, name in enumerate(platform.licence_names):
        row = [name]
        for c in range(len(platform.clusters)):
            in_cluster = platform.cluster_of == c
            suitable = int(platform.floating[l, in_cluster].sum())
            held = int(platform.feature[l, in_cluster].sum())
            cell = f"{platform.copies[c, l]}/{suitable}" if suitable else "-"
            if held:
                cell = f"feature on {held}" if cell == "-" else f"{cell}, feature on {held}"
            row.append(cell)
        table.add_row(*row)
    return table


def _span(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}-{high}"


def generate_platform_file(
    out: Annotated[Path, typer.Option("--out", "-o", help="The TOML file to write.")],
    preset: Annotated[ThesisPreset, typer.Option(
        "--preset", help="Thesis setting to draw from.")] = "thesis-4.3",
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same platform.")] = 0,
    clusters: Annotated[str | None, typer.Option(
        help="Machines per cluster, e.g. '120,60,30,15'.")] = None,
    cpus: Annotated[str | None, typer.Option(help="LO:HI CPUs per machine.")] = None,
    rating: Annotated[str | None, typer.Option(help="LO:HI benchmark rating.")] = None,
    licences: Annotated[int | None, typer.Option(help="Number of licence types.")] = None,
    suitability: Annotated[float | None, typer.Option(
        help="Probability that a licence can be activated on a machine.")] = None,
    ratio: Annotated[str | None, typer.Option(
        help="LO:HI copies per suitable machine of a licence.")] = None,
    name: Annotated[str | None, typer.Option(help="Platform name.")] = None,
) -> None:
    """Draw a platform from the ranges of a thesis setting (docs/reference/platform.md) and write it."""
    from schedlab.limits import check_seed
    from schedlab.platform import write_platform
    from schedlab.platform.generator import generate_platform
    from schedlab.platform.generator import preset as settings_of

    check_seed(seed, field="--seed")
    settings = settings_of(preset, clusters=_counts(clusters),
                           cpus=parse_pair(cpus, "--cpus", int),
                           rating=parse_pair(rating, "--rating", int), licences=licences,
                           suitability=suitability, ratio=parse_pair(ratio, "--ratio", float))
    platform = generate_platform(settings, seed, name=name or f"{preset}-seed{seed}")
    write_platform(platform, out, comment=f"schedlab platform generate --preset {preset} "
                                             f"--seed {seed}\n{settings}")
    console.print(f"wrote {out}: {len(platform.clusters)} clusters, "
                  f"{len(platform.machines)} machines, {platform.total_cpus} CPUs, "
                  f"{len(platform.licence_names)} licences", markup=False, highlight=False)


def generate_grid_jobs(output: Path | None, *, platform_file: Path | None, preset: str | None,
                       jobs: int | None, ta: float | None, seed: int, source: str | None,
                       settings: list[str], swf_options: dict[str, Any]) -> None:
    """``schedlab generate grid``: draw a job stream, or enrich the trace ``source``, and write.

    Writes ``OUTPUT`` (SWF) and its side file ``OUTPUT-stem.grid.csv``.
    """
    from schedlab.platform import read_platform
    from schedlab.workload.grid import side_path, write_grid_workload
    from schedlab.workload.models.grid import (
        DEFAULT_PRESET,
        THESIS_RUNS,
        enrich_workload,
        generate_grid,
    )
    from schedlab.workload.models.grid import preset as settings_of

    if output is None:
        raise InputError("expected the SWF file to write (--out/-o); the side file "
                         "goes beside it", field="--out")
    side_path(output)                     # a bad name is refused before anything is drawn
    if platform_file is None:
        raise InputError("'grid' needs --platform FILE (make one with 'schedlab platform "
                         "generate')", field="--platform")
    platform = read_platform(platform_file)
    name = preset or DEFAULT_PRESET
    job_settings = settings_of(name, **dict(_setting(text) for text in settings))
    if source is not None:
        if jobs is not None or ta is not None:
            raise InputError("--from enriches a trace: its jobs keep their arrivals, so "
                             "--jobs and --ta do not apply", field="--from")
        from schedlab.cli.consoles import err_console
        from schedlab.cli.loading import guess_warnings
        from schedlab.workload.swf import read_swf

        trace = read_swf(source, **swf_options)
        for line in guess_warnings(trace, machine_size=False):  # estimates become the SWF's
            err_console.print(f"warning: {line}", markup=False, highlight=False)
        grid = enrich_workload(trace, platform, job_settings, seed)
    else:
        run = THESIS_RUNS[name]
        grid = generate_grid(platform, job_settings, run.jobs if jobs is None else jobs,
                             run.interarrivals[0] if ta is None else ta, seed)
    side = write_grid_workload(grid, output)
    skipped = {reason: count for reason, count in grid.workload.skipped.items() if count}
    redraws = grid.workload.header.get("GridLicenceRedraws", "0")
    console.print(f"wrote {output} and {side}: {len(grid)} jobs ({grid.name}) for platform "
                  f"{platform.name}; {sum(j.deadline is None for j in grid.workload)} without "
                  f"deadline; {redraws} licence sets drawn again"
                  + "".join(f"; {count} trace jobs skipped ({reason})"
                            for reason, count in skipped.items()), markup=False, highlight=False)


#: ``--set`` keys of ``generate grid`` and how their values are read.
_SETTING_KINDS = {"estimate": "pair", "rating": "pair", "margin": "pair", "cpus": "pair",
                  "input_size": "pair", "runtime_ratio": "fpair", "licence_need": "float",
                  "no_deadline": "float", "classes": "triple", "margin_schedule": "schedule"}


def _segment(text: str) -> tuple[int, int, int]:
    """``JOBSxLO:HI`` of ``--set margin_schedule=...``: one sub-stream (§5.1.5)."""
    jobs, sep, bounds = text.strip().partition("x")
    lo, colon, hi = bounds.partition(":")
    if not sep or not colon:
        raise ValueError(text)
    return int(jobs), int(lo), int(hi)


def _setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set`` as a JobSettings field and value."""
    key, sep, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or key not in _SETTING_KINDS:
        raise InputError(f"expected KEY=VALUE with KEY one of {', '.join(_SETTING_KINDS)}, "
                         f"got {text!r}", field="--set")
    kind = _SETTING_KINDS[key]
    try:
        if kind == "pair":
            return key, parse_pair(value, f"--set {key}", int)
        if kind == "fpair":
            return key, parse_pair(value, f"--set {key}", float)
        if kind == "schedule":
            from schedlab.workload.models.grid import MARGIN_SCHEDULES

            if value.strip() in MARGIN_SCHEDULES:
                return key, MARGIN_SCHEDULES[value.strip()]
            return key, tuple(_segment(part) for part in value.split(","))
        if kind == "triple":
            weights = tuple(float(v) for v in value.split(","))
            if len(weights) != 3:
                raise ValueError
            return key, weights
        return key, float(value)
    except ValueError:
        expected = {"triple": "three weights W,W,W", "float": "a number",
                    "schedule": "sub-streams JOBSxLO:HI,JOBSxLO:HI,... or one of "
                                "adh-uniform, adh-changing, adh-hotspots"}.get(kind, "LO:HI")
        raise InputError(f"expected {expected}, got {value!r}", field=f"--set {key}") from None


def _counts(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise InputError(f"expected machine counts such as '120,60,30,15', got {text!r}",
                         field="--clusters") from None
