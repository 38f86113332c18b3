"""``schedlab policies``: every policy name with its parameters."""

from __future__ import annotations

from rich.table import Table

from schedlab.cli.common import console


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
