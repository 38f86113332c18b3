"""``schedlab policies``: every registered name with its model, summary and parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from schedlab.cli.consoles import console

if TYPE_CHECKING:
    from schedlab.policies.registry import PolicyEntry


def policies() -> None:
    """List every name `simulate` accepts, one table per execution model and kind, with
    parameters and defaults."""
    from schedlab.policies.registry import entries

    groups: dict[tuple[str, str], list[PolicyEntry]] = {}
    for entry in entries().values():
        groups.setdefault((entry.model, entry.kind), []).append(entry)
    titles = _titles()
    for (model, kind), members in groups.items():
        console.print(_table(titles.get((model, kind), f"{model} {kind}s"), members))


def _titles() -> dict[tuple[str, str], str]:
    """The title of each (execution model, kind) table: what it holds and how to run it."""
    from schedlab.engine.policy import GRID, SPACE_SHARING
    from schedlab.engine.timesharing import TIME_SHARING
    from schedlab.policies.registry import DISPATCHER, POLICY

    return {
        (SPACE_SHARING, POLICY): "space-sharing policies (simulate --policy NAME; aliases: "
                                 "easy = fcfs+easy, conservative = fcfs+conservative)",
        (TIME_SHARING, POLICY): "time-sharing policies (simulate --policy NAME; "
                                "docs/reference/policies/gang.md)",
        (GRID, POLICY): "grid local policies (simulate --platform P.toml --policy NAME; "
                        "docs/reference/policies/grid.md)",
        (GRID, DISPATCHER): "grid dispatchers (simulate --platform P.toml --dispatch NAME)",
    }


def _table(title: str, members: list[PolicyEntry]) -> Table:
    """One group of entries: name, summary, parameters with defaults, where it comes from."""
    table = Table(title=title)
    table.add_column("name", style="bold")
    table.add_column("what it does")
    table.add_column("parameters (default)")
    table.add_column("from")
    for entry in sorted(members, key=lambda entry: entry.name):
        params = ", ".join(f"{k}={v!r}" for k, v in entry.parameters().items()) or "-"
        table.add_row(entry.name, entry.summary, params, entry.source)
    return table
