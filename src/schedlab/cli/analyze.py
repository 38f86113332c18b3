"""``schedlab analyze``: trace statistics in the form of Streit's Table 2.

The command loads an SWF trace, prints the rows of Streit's trace analyzer
(Streit 2002, §4, Table 2) as a table — optionally beside one of Streit's
published columns with the relative difference, or, for a synthetic job set,
beside the trace it was generated from (Table 3 vs Table 2) — and the skip
counts of the reader.  It is registered by the application with
``app.command("analyze")(analyze)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.cli.loading import report_guesses
from schedlab.cli.options import MissingEstimateOpt, StrictOpt, WidthFieldOpt
from schedlab.cli.predictors import check_predictors, complete_predictor, print_accuracy
from schedlab.errors import InputError
from schedlab.workload.swf import MissingEstimate, WidthField, read_swf

if TYPE_CHECKING:
    from schedlab.workload.job import Workload
    from schedlab.workload.stats import TraceStatistics, WeibullMethod


def analyze(
    trace: Annotated[str, typer.Argument(help="SWF trace file (plain or gzip).")],
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    procs: Annotated[int | None, typer.Option(
        "--procs", help="Machine size; overrides the header's MaxProcs/MaxNodes.")] = None,
    strict: StrictOpt = False,
    compare: Annotated[Literal["ctc", "kth", "pc2", "sdsc"] | None, typer.Option(
        help="Print this column of Streit's Table 2 beside ours, with the relative "
             "difference.")] = None,
    weibull: Annotated[Literal["moments", "mle"], typer.Option(
        help="Weibull fit of the interarrival times.")] = "moments",
    compare_trace: Annotated[str | None, typer.Option(
        "--compare-trace",
        help="The source of a synthetic set (an SWF trace, a Streit model file or a built-in "
             "parameter name such as 'kth'): print its Table 2 rows beside ours (Table 3) "
             "with the relative difference; with --compare also Streit's Table 2 and 3 "
             "columns.")] = None,
    predict: Annotated[list[str] | None, typer.Option(
        "--predict", metavar="NAME[KEY=VALUE,...]", autocompletion=complete_predictor,
        help="Instead of the statistics: how well this runtime predictor (`schedlab "
             "predictors`) predicts the trace; repeat to compare.")] = None,
    out: Annotated[str | None, typer.Option(
        "--out", "-o", help="With --predict: the predictions as CSV.")] = None,
) -> None:
    """Print trace statistics (Streit 2002, Table 2), the reader's skip counts and where
    the machine size and estimates came from (warning on stderr when guessed); with
    --predict, the accuracy of runtime predictors instead of the statistics."""
    if out is not None and not predict:
        raise InputError("--out writes the predictions of --predict: give --predict too",
                         field="--out")
    if predict:
        if compare is not None or compare_trace is not None:
            raise InputError("--predict prints prediction accuracy instead of the statistics: "
                             "--compare and --compare-trace do not go with it", field="--predict")
        check_predictors(predict)
    workload = read_swf(trace, width_field=width_field, missing_estimate=missing_estimate,
                        strict=strict, processors=procs)
    report_guesses(workload)
    if predict:
        print_accuracy(trace, workload, predict, out)
        console.print(_skip_table(workload.skipped))
        console.print(_provenance_table(workload))
        return
    from schedlab.workload.stats import trace_statistics  # scipy: loaded only when needed

    statistics = trace_statistics(workload, weibull_method=weibull)
    if compare_trace is None:
        console.print(_statistics_table(workload.name, statistics, compare))
    else:
        source_name, source = _source_statistics(compare_trace, weibull, width_field,
                                                 missing_estimate)
        console.print(_generated_table(workload.name, statistics, source_name, source, compare))
    console.print(_skip_table(workload.skipped))
    console.print(_provenance_table(workload))


def _source_statistics(source: str, weibull: WeibullMethod, width_field: WidthField,
                       missing_estimate: MissingEstimate) -> tuple[str, TraceStatistics]:
    """Table 2 rows of the source of a synthetic set: from its trace (read with the same
    options) or, for a model file or built-in parameter name, as stored in the model."""
    from pathlib import Path

    from schedlab.workload.models.streit import is_model_file, resolve_model
    from schedlab.workload.stats import trace_statistics

    if Path(source).is_file() and not is_model_file(source):
        workload = read_swf(source, width_field=width_field, missing_estimate=missing_estimate)
        return workload.name, trace_statistics(workload, weibull_method=weibull)
    model = resolve_model(source)
    return model.source, model.source_statistics()


def _generated_table(name: str, statistics: TraceStatistics, source_name: str,
                     source: TraceStatistics, compare: str | None) -> Table:
    """A synthetic set beside its source (Streit 2002, Table 3 vs Table 2), and Streit's
    own pair of columns when ``compare`` names one of his traces."""
    from schedlab.workload.stats import STREIT_TABLE2, STREIT_TABLE3, compare_to_reference

    table = Table(title=f"{escape(name)} (generated, Table 3) vs {escape(source_name)} "
                        "(source, Table 2)")
    for header in ("row", "source", "generated", "rel. difference"):
        table.add_column(header, justify="left" if header == "row" else "right")
    rows = [[label, format_value(theirs), format_value(ours), _difference_text(difference)]
            for label, ours, theirs, difference in compare_to_reference(statistics, source)]
    if compare is not None:
        for header in (f"Streit {compare.upper()}_trace", f"Streit {compare.upper()}_syn",
                       "Streit rel. difference"):
            table.add_column(header, justify="right")
        paper = compare_to_reference(STREIT_TABLE3[compare], STREIT_TABLE2[compare])
        for row, (_, synthetic, trace, difference) in zip(rows, paper):
            row += [format_value(trace), format_value(synthetic), _difference_text(difference)]
    for row in rows:
        table.add_row(*row)
    return table


def _difference_text(difference: float | None) -> str:
    """A relative difference as a signed percentage; n/a where it is undefined."""
    if difference is None or difference != difference:
        return "n/a"
    return f"{difference:+.1%}"


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
        table.add_row(label, format_value(ours), format_value(paper),
                      _difference_text(difference))
    return table


def _skip_table(skipped: Mapping[str, int]) -> Table:
    """Records the reader skipped, by reason (always every reason)."""
    table = Table(title="Skipped records")
    table.add_column("reason")
    table.add_column("records", justify="right")
    for reason, count in skipped.items():
        table.add_row(reason, str(count))
    return table


def _provenance_table(workload: Workload) -> Table:
    """Where the reader took the machine size and the estimates from (docs/reference/workloads.md)."""
    facts = workload.provenance
    table = Table(title="Machine size and estimates")
    table.add_column("item")
    table.add_column("value", justify="right")
    table.add_column("from")
    table.add_row("machine size", str(workload.processors), str(facts["machine_size_source"]))
    table.add_row("jobs with their runtime as estimate", str(facts["estimates_from_runtime"]),
                  str(facts["estimates_source"]))
    return table


def format_value(value: float) -> str:
    """Integers as integers; other numbers with 1 decimal from 100 up, else 3; NaN as n/a."""
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value)}"
    if value != value:
        return "n/a"
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3f}"
