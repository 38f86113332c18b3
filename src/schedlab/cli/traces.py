"""``schedlab traces list|fetch``: the Parallel Workloads Archive traces schedlab knows.

A thin layer over :mod:`schedlab.workload.catalog` (docs/how-to/traces.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.cli.progress import DelayedProgress

if TYPE_CHECKING:
    from rich.console import JustifyMethod

CacheDirOpt = Annotated[Path | None, typer.Option(
    "--cache-dir", help="Cache directory (default: $SCHEDLAB_CACHE, else "
    "~/.cache/schedlab/traces).")]
CatalogOpt = Annotated[Path | None, typer.Option(
    "--catalog", help="Another catalog file in the format of schedlab's traces.toml "
    "(e.g. a local mirror).")]

_CACHE_WORDS = {"absent": "-", "verified": "yes", "unverified": "yes (unverified)",
                "corrupt": "CORRUPT"}


def traces_app(guard: Callable[[Callable[..., None]], Callable[..., None]]) -> typer.Typer:
    """The ``traces`` command group, each command wrapped by the CLI's error ``guard``."""
    group = typer.Typer(name="traces", no_args_is_help=True,
                        help="List and download Parallel Workloads Archive traces.")
    group.command("list", cls=SchedlabCommand)(guard(list_traces))
    group.command("fetch", cls=SchedlabCommand)(guard(fetch_trace))
    return group


def list_traces(catalog: CatalogOpt = None, cache_dir: CacheDirOpt = None) -> None:
    """Show every trace of the catalog: machine, size, jobs, checksum and cache state."""
    from schedlab.workload.catalog import cache_state, default_cache_dir, load_catalog

    traces = load_catalog(catalog)
    table = Table(title="Traces (schedlab traces fetch NAME)")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("name", "left"), ("machine", "left"), ("procs", "right"), ("jobs", "right"),
        ("sha256", "left"), ("cached", "left"))
    for header, justify in columns:
        table.add_column(header, justify=justify, style="bold" if header == "name" else None)
    for trace in traces.values():
        state, _ = cache_state(trace, cache_dir)
        table.add_row(trace.name, trace.machine, f"{trace.processors:,}", f"{trace.jobs:,}",
                      "known" if trace.sha256 else "unknown", _CACHE_WORDS[state])
    console.print(table)
    console.print(f"cache directory: {cache_dir or default_cache_dir()}", markup=False,
                  highlight=False, soft_wrap=True)


def fetch_trace(
    name: Annotated[str, typer.Argument(help="Trace name, as in 'schedlab traces list'.")],
    cache_dir: CacheDirOpt = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Download again even when a sound copy is cached.")] = False,
    catalog: CatalogOpt = None,
    timeout: Annotated[float, typer.Option(
        help="Seconds to wait for the server before giving up.")] = 60.0,
) -> None:
    """Download a trace into the cache and verify its SHA-256 (no download if cached)."""
    from schedlab.workload.catalog import fetch, find_trace, load_catalog

    trace = find_trace(name, load_catalog(catalog))
    bar = DelayedProgress(f"downloading {trace.name}")
    try:
        fetched = fetch(trace, cache_dir, force=force, timeout=timeout, progress=bar)
    finally:
        bar.close()
    action = f"downloaded {trace.url} to" if fetched.downloaded else "already cached:"
    console.print(f"{trace.name}: {action} {fetched.path}", markup=False, highlight=False,
                  soft_wrap=True)
    if fetched.verified:
        console.print(f"sha256 verified: {fetched.sha256}", markup=False, highlight=False,
                  soft_wrap=True)
    else:
        console.print(f"checksum unknown: the catalog has no sha256 for {trace.name}; "
                      f"this file's sha256 is {fetched.sha256}", markup=False, highlight=False,
                      soft_wrap=True)
