"""``schedlab policies``: every policy name with its parameters."""

from __future__ import annotations

from rich.table import Table

from schedlab.cli.consoles import console


def policies() -> None:
    """List the policy names `simulate --policy` accepts, with parameters and defaults."""
    from schedlab.policies.registry import available_policies

    table = Table(title="schedlab policies (aliases: easy = fcfs+easy, "
                        "conservative = fcfs+conservative)")
    table.add_column("name", style="bold")
    table.add_column("what it does")
    table.add_column("parameters (default)")
    table.add_column("from")
    for name, entry in sorted(available_policies().items()):
        params = ", ".join(f"{k}={v!r}" for k, v in entry.parameters().items()) or "-"
        table.add_row(name, entry.summary, params, entry.source)
    console.print(table)
    from schedlab.policies.grid import DISPATCHERS, LOCAL_POLICIES

    console.print(_grid_table("grid local policies (simulate --platform P.toml --policy NAME; "
                              "docs/policies/grid.md)", LOCAL_POLICIES))
    console.print(_grid_table("grid dispatchers (simulate --platform P.toml --dispatch NAME)",
                              DISPATCHERS))


def _grid_table(title: str, entries: dict) -> Table:
    """Grid policies or dispatchers: name, summary, parameters with defaults."""
    table = Table(title=title)
    table.add_column("name", style="bold")
    table.add_column("what it does")
    table.add_column("parameters (default)")
    for name, (cls, summary) in entries.items():
        params = ", ".join(f"{k}={v!r}" for k, v in cls.param_defaults().items()) or "-"
        table.add_row(name, summary, params)
    return table
