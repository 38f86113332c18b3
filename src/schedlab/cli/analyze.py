"""``schedlab analyze``: trace statistics in the form of Streit's Table 2.

The command loads an SWF trace, prints the rows of Streit's trace analyzer
(Streit 2002, §4, Table 2) as a table — optionally beside one of Streit's
published columns with the relative difference — and the skip counts of the
reader.  It is registered by the application with
``app.command("analyze")(analyze)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from schedlab.workload.swf import read_swf

if TYPE_CHECKING:
    from schedlab.workload.stats import TraceStatistics


def analyze(
    trace: Annotated[str, typer.Argument(help="SWF trace file (plain or gzip).")],
    width_field: Annotated[Literal["requested", "allocated"], typer.Option(
        help="Width from requested processors (field 8, else 5) or allocated "
             "(field 5, else 8).")] = "requested",
    missing_estimate: Annotated[Literal["use-runtime", "drop"], typer.Option(
        help="Jobs without a requested time: use the runtime as estimate, or drop them.")
    ] = "use-runtime",
    processors: Annotated[Optional[int], typer.Option(
        help="Machine size; overrides the header's MaxProcs/MaxNodes.")] = None,
    strict: Annotated[bool, typer.Option(
        help="Fail on the first record that cannot be simulated instead of skipping it.")
    ] = False,
    compare: Annotated[Optional[Literal["ctc", "kth", "pc2", "sdsc"]], typer.Option(
        help="Print this column of Streit's Table 2 beside ours, with the relative "
             "difference.")] = None,
    weibull: Annotated[Literal["moments", "mle"], typer.Option(
        help="Weibull fit of the interarrival times.")] = "moments",
) -> None:
    """Print trace statistics (Streit 2002, Table 2) and the reader's skip counts."""
    from schedlab.workload.stats import trace_statistics   # scipy: loaded only when needed

    workload = read_swf(trace, width_field=width_field, missing_estimate=missing_estimate,
                        strict=strict, processors=processors)
    statistics = trace_statistics(workload, weibull_method=weibull)
    console = Console()
    console.print(_statistics_table(workload.name, statistics, compare))
    console.print(_skip_table(workload.skipped))


def _statistics_table(name: str, statistics: TraceStatistics,
                      compare: str | None) -> Table:
    """Our Table 2 rows, with the paper's column and the difference when asked."""
    table = Table(title=f"Trace statistics of {escape(name)} (Streit 2002, Table 2)")
    table.add_column("row")
    table.add_column("value", justify="right")
    if compare is None:
        for label, value in statistics.rows():
            table.add_row(label, format_value(value))
        return table
    from schedlab.workload.stats import STREIT_TABLE2, compare_to_reference

    table.add_column(f"Streit {compare.upper()}", justify="right")
    table.add_column("rel. difference", justify="right")
    for label, ours, paper, difference in compare_to_reference(statistics,
                                                               STREIT_TABLE2[compare]):
        shown = "n/a" if difference is None else f"{difference:+.1%}"
        table.add_row(label, format_value(ours), format_value(paper), shown)
    return table


def _skip_table(skipped: dict[str, int]) -> Table:
    """Records the reader skipped, by reason (always every reason)."""
    table = Table(title="Skipped records")
    table.add_column("reason")
    table.add_column("records", justify="right")
    for reason, count in skipped.items():
        table.add_row(reason, str(count))
    return table


def format_value(value: float) -> str:
    """Integers as integers; other numbers with 1 decimal from 100 up, else 3; NaN as n/a."""
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value)}"
    if value != value:
        return "n/a"
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3f}"
