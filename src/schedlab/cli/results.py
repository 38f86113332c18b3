"""``schedlab results``: what an experiment directory holds, as tables or CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.errors import InputError, did_you_mean
from schedlab.metrics.defaults import DEFAULT_METRICS, GRID_DEFAULT_METRICS, default_metrics
from schedlab.output import MISSING_CELL

#: Column headers shortened so that a summary fits 80 columns.
SHORT_HEADERS = {"transform.perfect_estimates": "perfect", "processors": "procs",
                 "preemption_overhead": "overhead"}
#: Columns that say which run a row is, apart from the metrics.
SPEC_COLUMNS = ("workload", "policy", "seed", "processors", "overrun")


def results(
    exp_dir: Annotated[Path, typer.Argument(help="An experiment directory made by "
                                                 "'schedlab sweep'.")],
    csv: Annotated[Path | None, typer.Option(
        "--csv", help="Write every run with every column (spec, status, metrics) to this CSV "
                      "file.")] = None,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", "-m", help="A metric to show (repeatable; default: "
                               f"{', '.join(DEFAULT_METRICS)}; for a grid experiment "
                               f"{', '.join(GRID_DEFAULT_METRICS)}).")] = None,
) -> None:
    """Summarize an experiment: runs by status, then the mean of key metrics per setting.

    A setting is a policy (with its parameters) on a workload under one
    combination of transforms; the mean runs over its seeds.
    """
    from schedlab.experiments import load_results
    from schedlab.output import atomic_write_text

    frame = load_results(exp_dir)
    finished = frame[frame["status"] == "finished"]
    if metric:
        names = list(metric)
        check_metrics(frame, names)
    else:           # no finished run has no metric columns: nothing to check then
        names = [name for name in default_metrics(frame) if name in frame.columns]
    console.print(status_table(frame))
    if len(finished):
        from schedlab.experiments.summary import summary_frame

        console.print(means_table(summary_frame(finished, names), names))
    else:
        console.print("no run has finished yet: no metrics to show", markup=False,
                      highlight=False)
    if csv is not None:
        atomic_write_text(csv, frame.to_csv(index=False))
        console.print(f"wrote {len(frame)} runs to {csv}", markup=False, highlight=False)


def check_metrics(frame, names: list[str]) -> None:
    """Every requested metric must be a column of the results."""
    known = [c for c in frame.columns if c not in metric_exclusions(frame)]
    for name in names:
        if name not in known:
            shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            raise InputError(f"no metric {name!r} in these results{did_you_mean(name, known)} "
                             f"(metrics: {shown or 'none, no run finished'})", field="--metric")


def metric_exclusions(frame) -> set[str]:
    """Columns of :func:`load_results` that are not metrics."""
    from schedlab.experiments.summary import GRID_SETTING_COLUMNS

    return {c for c in frame.columns
            if c.startswith(("param.", "transform.", "stat.", "dispatch."))} | {
        "run_id", *SPEC_COLUMNS, *GRID_SETTING_COLUMNS, "ta", "status", "wall_time", "error",
        "schedlab_version", "finished_at"}


def status_table(frame) -> Table:
    """Runs per status."""
    table = Table(title=f"{len(frame)} runs")
    table.add_column("status")
    table.add_column("runs", justify="right")
    for status, count in frame["status"].value_counts().sort_index().items():
        table.add_row(str(status), str(count))
    return table


def means_table(summary, names: list[str]) -> Table:
    """The per-setting means as a rich table; labels that are the same on every row are
    said once, in the caption."""
    from schedlab.experiments.summary import (
        RUNS_PREFIX,
        label_columns,
        mean_text,
        varying_labels,
    )

    table = Table(title="mean ± 95 % confidence interval over seeds (finished runs)",
                  box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0))
    labels = varying_labels(summary, names)
    constant = [c for c in label_columns(summary, names) if c not in labels]
    captions = []
    if constant:
        first = summary.iloc[0]
        captions.append("every row: " + ", ".join(
            f"{SHORT_HEADERS.get(c, c.removeprefix('transform.'))}={_cell(first[c])}"
            for c in constant))
    if any((summary[RUNS_PREFIX + n] < summary["n"]).any() for n in names
           if RUNS_PREFIX + n in summary.columns):
        captions.append("(k/n): mean of the k of n runs where the metric is defined "
                        f"({MISSING_CELL}: in none)")
    if captions:
        table.caption = "\n".join(captions)
    for column in labels:
        header = SHORT_HEADERS.get(column, column.removeprefix("transform."))
        table.add_column(header, no_wrap=True, justify="right" if column == "n" else "left")
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)
    for _, row in summary.iterrows():
        table.add_row(*[_cell(row[c]) for c in labels], *[mean_text(row, n) for n in names])
    return table


def _missing(value) -> bool:
    """None, NaN or pandas' NA."""
    import pandas as pd
    return bool(pd.isna(value))


def _cell(value) -> str:
    """A label: ``-`` when missing, a whole float without its ``.0`` (Ta 400, not 400.0)."""
    if _missing(value):
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

