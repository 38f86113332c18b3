"""``schedlab results``: what an experiment directory holds, as tables or CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.errors import InputError, did_you_mean
from schedlab.output import MISSING_CELL

#: Metrics shown when none is asked for (names of docs/reference/metrics.md).
DEFAULT_METRICS = ("avg_wait", "avg_bsld_60", "sldww_60", "utilization")
#: The same for a grid experiment: the measures of Pasquali's thesis (§4.1, docs/reference/metrics.md).
GRID_DEFAULT_METRICS = ("deadline_missed_pct", "nondeadline_avg_slowdown", "system_usage",
                        "licence_usage")
#: Added to the default metrics when some run rejected jobs (admission control): the shares
#: of jobs and of processor-seconds refused, beside the wait and slowdown of the jobs kept.
REJECTION_METRICS = ("rejected_pct", "rejected_area_pct")
#: The columns of :func:`summary_frame` that count, per metric, the runs it is defined in.
RUNS_PREFIX = "runs."
#: Column headers shortened so that a summary fits 80 columns.
SHORT_HEADERS = {"transform.perfect_estimates": "perfect", "processors": "procs",
                 "preemption_overhead": "overhead"}
#: Columns that say which run a row is, apart from the metrics.
SPEC_COLUMNS = ("workload", "policy", "seed", "processors", "overrun")
#: The columns of grid runs (schedlab.experiments.store.GRID_COLUMNS; dispatcher parameters
#: are ``dispatch.<name>``), in the order a summary shows them.
GRID_SETTING_COLUMNS = ("platform", "dispatch", "allocation", "preemption_overhead")


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
        console.print(means_table(summary_frame(finished, names), names))
    else:
        console.print("no run has finished yet: no metrics to show", markup=False,
                      highlight=False)
    if csv is not None:
        atomic_write_text(csv, frame.to_csv(index=False))
        console.print(f"wrote {len(frame)} runs to {csv}", markup=False, highlight=False)


def default_metrics(frame) -> list[str]:
    """The grid measures when the experiment's runs are on a platform, else the classic ones;
    with the rejected shares when some run rejected jobs."""
    grid = "platform" in frame.columns and frame["platform"].notna().any()
    names = list(GRID_DEFAULT_METRICS if grid else DEFAULT_METRICS)
    if "rejected" in frame.columns and frame["rejected"].fillna(0).gt(0).any():
        names += list(REJECTION_METRICS)
    return names


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


def setting_columns(frame) -> list[str]:
    """What makes a setting: workload (and the interarrival time of generated grid jobs),
    transforms, policy label; the grid setting (platform, dispatcher and its parameters,
    allocation, preemption overhead), machine size and overrun mode when they vary."""
    columns = ["workload"] + [c for c in frame.columns
                              if c == "ta" or c.startswith("transform.")]
    columns.append("setting")
    grid = [c for c in frame.columns
            if c in GRID_SETTING_COLUMNS or c.startswith("dispatch.")]
    columns += [c for c in (*grid, "processors", "overrun")
                if frame[c].nunique(dropna=False) > 1]
    return columns


def varying(summary, names: list[str]) -> list[str]:
    """The label columns worth showing: those that differ between rows (policy and n always)."""
    labels = [c for c in summary.columns
              if c not in names and not c.startswith(RUNS_PREFIX)]
    if len(summary) < 2:
        return labels
    return [c for c in labels
            if c in ("policy", "n") or summary[c].nunique(dropna=False) > 1]


def policy_label(row) -> str:
    """``sjf+easy`` or ``dynp[k=4]``: the policy with the parameters of the run, in the
    syntax ``--policy`` takes (:func:`~schedlab.policies.registry.spec_text`)."""
    from schedlab.policies.registry import spec_text

    return spec_text(row["policy"], {c.removeprefix("param."): row[c] for c in row.index
                                     if c.startswith("param.") and not _missing(row[c])})


def summary_frame(finished, names: list[str]):
    """Mean of each metric per setting over its seeds, with the number of runs ``n``.

    A metric missing in a run (one over no jobs, docs/reference/metrics.md "Empty
    groups") is left out of the mean, not counted as 0; ``runs.<metric>``
    says over how many of the ``n`` runs each mean is taken.
    """
    import pandas as pd

    frame = finished.copy()
    frame["setting"] = frame.apply(policy_label, axis=1) if len(frame) else []
    for name in names:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
    keys = setting_columns(frame)
    grouped = frame.groupby(keys, dropna=False, sort=True)
    means = grouped[names].mean()
    counts = grouped[names].count()
    means.insert(0, "n", grouped.size())
    for name in names:
        means[RUNS_PREFIX + name] = counts[name]
    return natural_order(means.reset_index(), keys).rename(columns={"setting": "policy"})


def natural_order(frame, keys: list[str]):
    """``frame`` sorted by ``keys``, text read with its numbers as numbers
    (``dynp[k=4]`` before ``dynp[k=16]``; :func:`~schedlab.viz.style.natural_key`)."""
    from schedlab.viz.style import natural_key

    def readable(column):
        numeric = column.dtype.kind in "biuf"          # numbers sort as they are
        return column if numeric else column.map(natural_key)

    return frame.sort_values(keys, key=readable, kind="stable").reset_index(drop=True)


def means_table(summary, names: list[str]) -> Table:
    """The per-setting means as a rich table; labels that are the same on every row are
    said once, in the caption."""
    table = Table(title="mean over seeds (finished runs)", box=box.SIMPLE_HEAD,
                  show_edge=False, padding=(0, 0))
    labels = varying(summary, names)
    constant = [c for c in summary.columns if c not in names and c not in labels
                and not c.startswith(RUNS_PREFIX)]
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
        table.add_row(*[_cell(row[c]) for c in labels], *[_mean_cell(row, n) for n in names])
    return table


def _mean_cell(row, name: str) -> str:
    """A mean over runs, with ``(k/n)`` when only k of the setting's n runs define it."""
    text = _number(row[name])
    runs = row.get(RUNS_PREFIX + name)
    if runs is not None and 0 < runs < row["n"]:
        text += f" ({int(runs)}/{int(row['n'])})"
    return text


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


def _number(value) -> str:
    if _missing(value):
        return MISSING_CELL
    if abs(value) < 10:
        return f"{value:.3f}"
    return f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"
