"""``schedlab predictors`` and ``schedlab analyze --predict``: runtime predictors.

``predictors`` lists every predictor with its parameters (default, allowed
values, meaning); ``analyze TRACE --predict NAME[...]`` prints how well each
predicts the trace, beside the user estimates (docs/reference/predictions.md).
Both reach the predictors through :mod:`schedlab.api`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.api import PredictionAccuracy
    from schedlab.workload.job import Workload


def predictors() -> None:
    """List the runtime predictors (`analyze --predict NAME[KEY=VALUE,...]`) with their
    parameters, defaults and allowed values."""
    from schedlab.api import predictors as registered
    from schedlab.predictors.base import CORRECTION_RULES

    table = Table(title="runtime predictors (analyze TRACE --predict NAME[KEY=VALUE,...]; "
                        "docs/reference/predictions.md)", caption=CORRECTION_RULES)
    table.add_column("name", style="bold")
    table.add_column("what it predicts")
    table.add_column("parameters: default, allowed values, meaning")
    table.add_column("from")
    for name, entry in registered().items():
        params = "\n".join(f"{key}={param.default} {param.range_text()}"
                           + ("" if key == "correction" else f": {param.help}")
                           for key, param in entry.parameters().items())
        table.add_row(escape(name), escape(entry.summary), escape(params), entry.source)
    console.print(table)


def complete_predictor(incomplete: str) -> list[str]:
    """Shell completion of ``--predict``: every predictor name starting with what is typed."""
    from schedlab.api import predictors as registered

    return sorted(name for name in registered() if name.startswith(incomplete))


def check_predictors(specs: list[str]) -> list[str]:
    """The specs, each built once to refuse a bad one before the trace is read; a label
    given twice is refused."""
    from schedlab.api import make_predictor

    labels: list[str] = []
    for spec in specs:
        label = make_predictor(spec).label
        if label in labels:
            raise InputError(f"predictor {label!r} is given twice; give each setting once",
                             field="--predict")
        labels.append(label)
    return labels


def print_accuracy(trace: str, workload: Workload, specs: list[str], out: str | None) -> None:
    """The accuracy table of every predictor of ``specs`` on ``workload`` (read from
    ``trace``), beside the estimates; the per-job predictions as CSV to ``out``."""
    from schedlab.api import prediction_accuracy, trace_record
    from schedlab.predictors.accuracy import METRIC_LABELS

    record = trace_record(trace, workload)
    results = [prediction_accuracy(workload, spec, record=record) for spec in specs]
    source = ("the trace's own schedule" if record.source == "trace"
              else "a schedule starting every job at its submission (no recorded waits)")
    jobs = f"{len(workload):,} job{'' if len(workload) == 1 else 's'}"
    table = Table(title=f"Runtime predictions on {escape(workload.name)}: {jobs}, each "
                        f"predicted from the jobs ended by its submission in {source}; "
                        f"against a = min(runtime, estimate)")
    table.add_column("metric")
    table.add_column("estimate (baseline)", justify="right")
    for result in results:
        flag = " (looks ahead)" if result.looks_ahead else ""
        table.add_column(escape(result.predictor + flag), justify="right")
    baseline = results[0].baseline.as_dict()
    rows = [result.metrics.as_dict() for result in results]
    for key, label in METRIC_LABELS.items():
        table.add_row(escape(label), _number(baseline[key]), *(_number(row[key]) for row in rows))
    table.add_row("µs per job (predict + observe)", "-",
                  *(f"{result.seconds / max(len(workload), 1) * 1e6:.1f}" for result in results))
    console.print(table)
    console.print(f"{results[0].overran:,} jobs ran past their estimate (a is their estimate); "
                  f"relative errors divide by max(a, 1) s.", highlight=False)
    if out is not None:
        _write_predictions(out, results)
        console.print(f"per-job predictions: {escape(out)}", highlight=False)


def _number(value: float) -> str:
    if value == 0:
        return "0"
    if isinstance(value, int) or (math.isfinite(value) and float(value).is_integer()
                                  and abs(value) >= 1):
        return f"{int(value):,}"
    if value != value:
        return "n/a"
    return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.3f}"


def _write_predictions(out: str, results: list[PredictionAccuracy]) -> None:
    """``job_id,actual,estimate,<label>...``: one row per job, in submission order."""
    import numpy as np

    from schedlab.atomic import atomic_write_text

    first = results[0]
    header = ["job_id", "actual", "estimate", *(result.predictor for result in results)]
    columns = np.column_stack([first.ids, first.actual, first.estimate,
                               *(result.predicted for result in results)])
    lines = [",".join(header)] + [",".join(map(str, row)) for row in columns.tolist()]
    atomic_write_text(out, "\n".join(lines) + "\n")
