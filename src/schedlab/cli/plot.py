"""``schedlab plot``: one figure from a run directory or an experiment directory.

A run directory is what ``schedlab simulate --out`` writes (jobs.csv and
metrics.json); an experiment directory is what ``schedlab sweep`` writes
(results.sqlite, jobs/, series/).  The figures are those of
:mod:`schedlab.viz` (docs/how-to/figures.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from schedlab.cli.consoles import console
from schedlab.cli.parsing import parse_window
from schedlab.cli.plotgrid import (
    GRID_GANTT_BY,
    GRID_KINDS,
    grid_figure,
    is_grid_jobs,
    machine_gantt,
)
from schedlab.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from schedlab.viz.timeseries import Series

#: A classes figure from a whole experiment shows at most this many runs.
MAX_CLASS_RUNS = 12


class Kind(StrEnum):
    """The figures ``plot`` draws."""

    curve = "curve"
    gantt = "gantt"
    timeseries = "timeseries"
    classes = "classes"
    matrix = "matrix"
    slots = "slots"
    shares = "shares"
    ta_curve = "ta-curve"


def plot(
    source: Annotated[Path, typer.Argument(
        help="A run directory (written by 'schedlab simulate --out') or an experiment "
             "directory (written by 'schedlab sweep').")],
    kind: Annotated[Kind, typer.Option(
        "--kind", help="curve: a metric against a sweep column, one line per policy; "
                       "gantt: the schedule; timeseries: utilization and queue length; "
                       "classes: bars per width or run-time class; matrix: the Ousterhout matrix of a "
                       "gang run over a window; slots: time slots in its rounds over time; "
                       "shares: work per cluster against the machine shares and ta-curve: "
                       "metrics against the interarrival time, of grid runs.")],
    metric: Annotated[str | None, typer.Option(
        "--metric", "-m", help="Metric of a curve (default artww) or of class bars "
                                "(default avg_wait).")] = None,
    x: Annotated[str, typer.Option(
        "--x", help="Sweep column on the x axis of a curve.")] = "transform.shrink",
    run: Annotated[list[str] | None, typer.Option(
        "--run", help="Run id in an experiment (repeatable for timeseries and classes; "
                      "see 'schedlab results').")] = None,
    window: Annotated[str | None, typer.Option(
        help="Time window START:END in seconds since the trace start (gantt, timeseries).")]
        = None,
    by: Annotated[Literal["status", "width", "runtime", "deadline", "licences"] | None,
                  typer.Option(
        "--by", help="Classes by width or runtime (classes); colour jobs by status or width "
                     "(gantt), on a grid run by deadline or licences.")] = None,
    step: Annotated[float | None, typer.Option(
        help="Resample a time series to means over bins of this many seconds.")] = None,
    reference: Annotated[Path | None, typer.Option(
        help="CSV of a paper's values drawn over a curve: columns policy, x, value and "
             "optionally workload.")]
        = None,
    invert_x: Annotated[bool, typer.Option(
        "--invert-x", help="Draw the x axis of a curve decreasing.")] = False,
    title: Annotated[str | None, typer.Option(help="Figure title.")] = None,
    fmt: Annotated[Literal["png", "svg", "pdf"] | None, typer.Option(
        "--format", "-f", case_sensitive=False,
        help="Image format (default: the suffix of --out, else png).")]
        = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Image file to write (default: out/KIND.FORMAT).")] = None,
) -> None:
    """Draw one figure from a run or an experiment and write it as PNG, SVG or PDF."""
    from schedlab.viz.style import save_figure

    kind_name = kind.value
    target, chosen = output_path(kind_name, out, fmt)
    options = PlotOptions(metric=metric, x=x, runs=list(run or []), window=parse_window(window),
                          by=by or "", step=step, reference=reference, invert_x=invert_x,
                          title=title)
    check_options(kind_name, options)
    if kind_name in GRID_KINDS:
        figure = grid_figure(source, kind_name, options)
    elif is_experiment(source):
        figure = experiment_figure(source, kind_name, options)
    elif is_run_directory(source):
        figure = run_figure(source, kind_name, options)
    else:
        raise InputError("expected a run directory (jobs.csv and metrics.json, from 'schedlab "
                         "simulate --out') or an experiment directory (results.sqlite, from "
                         "'schedlab sweep')", file=str(source))
    save_figure(figure, target, chosen)
    console.print(f"wrote {target}")


@dataclass(frozen=True)
class PlotOptions:
    """The options of one ``plot`` call, after parsing."""

    metric: str | None
    x: str
    runs: list[str]
    window: tuple[int, int] | None
    by: str
    step: float | None
    reference: Path | None
    invert_x: bool
    title: str | None


#: Which kinds each option applies to (an option given to another kind is a mistake).
APPLIES_TO = {"metric": ("curve", "classes", "ta-curve"),
              "window": ("gantt", "timeseries", "matrix", "slots"),
              "by": ("gantt", "classes"), "step": ("timeseries",), "reference": ("curve",),
              "invert_x": ("curve",)}
FLAG = {"metric": "--metric", "window": "--window", "by": "--by", "step": "--step",
        "reference": "--reference", "invert_x": "--invert-x"}
BY_CHOICES = {"gantt": ("status", "width") + GRID_GANTT_BY, "classes": ("width", "runtime")}
#: Figures of a gang run, drawn from the matrix.csv and slots.csv of its run directory.
GANG_KINDS = ("matrix", "slots")


def check_options(kind: str, options: PlotOptions) -> None:
    """Refuse an option the figure kind does not use, and a --by value it does not know."""
    for name, kinds in APPLIES_TO.items():
        if getattr(options, name) not in (None, "", False) and kind not in kinds:
            raise InputError(f"applies to --kind {' or '.join(kinds)}, not {kind}",
                             field=FLAG[name])
    if options.by and options.by not in BY_CHOICES[kind]:
        raise InputError(f"expected {' or '.join(BY_CHOICES[kind])} for --kind {kind}, "
                         f"got {options.by!r}", field="--by")


def output_path(kind: str, out: Path | None, fmt: str | None) -> tuple[Path, str]:
    """The image file and its format, from --out and --format (which must agree)."""
    from schedlab.viz.style import check_format

    chosen = check_format(fmt) if fmt is not None else None
    if out is None:
        chosen = chosen or "png"
        return Path("out", f"{kind}.{chosen}"), chosen
    if not out.suffix:
        chosen = chosen or "png"
        return out.with_name(f"{out.name}.{chosen}"), chosen
    from_suffix = check_format(out.suffix)
    if chosen is not None and chosen != from_suffix:
        raise InputError(f"--format {chosen} does not match the file suffix {out.suffix}",
                         field="--format")
    return out, from_suffix


def is_experiment(source: Path) -> bool:
    return (source / "results.sqlite").is_file()


def is_run_directory(source: Path) -> bool:
    return (source / "jobs.csv").is_file()


# --------------------------------------------------------------------------- a run directory


def read_csv_table(path: Path, what: str) -> pd.DataFrame:
    """A CSV file as a DataFrame; a file pandas cannot parse is an InputError naming it."""
    import pandas as pd

    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read {what}: {err}", file=str(path)) from None


def read_run_directory(source: Path) -> tuple[Any, dict[str, Any]]:
    """jobs.csv as a DataFrame and metrics.json as a dict."""
    metrics_file = source / "metrics.json"
    if not metrics_file.is_file():
        raise InputError("the run directory has no metrics.json (written by 'schedlab "
                         "simulate --out')", file=str(metrics_file))
    try:
        document = json.loads(metrics_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON: {err.msg}", file=str(metrics_file),
                         line=err.lineno) from None
    for key in ("processors", "metrics"):
        if key not in document:
            raise InputError("expected the metrics.json of 'schedlab simulate'",
                             file=str(metrics_file), field=key)
    jobs = read_csv_table(source / "jobs.csv", "the jobs table")
    check_jobs_table(jobs, document, source / "jobs.csv")
    return jobs, document


#: Columns every jobs.csv has, always whole numbers (docs/how-to/interop.md).
INTEGER_JOB_COLUMNS = ("job_id", "submit", "width", "estimate", "runtime")


def check_jobs_table(jobs: pd.DataFrame, document: dict[str, Any], file: Path) -> None:
    """InputError unless jobs.csv is whole: one row per job of metrics.json, integer columns.

    A jobs.csv cut short (a copy interrupted, a disk full) or edited by hand
    would otherwise be drawn as if it were the run.
    """
    import pandas as pd

    expected = document["metrics"].get("jobs")
    if isinstance(expected, int) and len(jobs) != expected:
        raise InputError(f"expected {expected} jobs (metrics.json), found {len(jobs)} rows; "
                         f"the file is cut short or not of this run", file=str(file))
    for column in INTEGER_JOB_COLUMNS:
        if column not in jobs.columns:
            raise InputError("expected the jobs.csv of 'schedlab simulate --out'",
                             file=str(file), field=column)
        values = pd.to_numeric(jobs[column], errors="coerce")
        bad = values.isna() | (values != values.round())
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise InputError(f"expected an integer, got {jobs[column].iloc[row]!r}",
                             file=str(file), line=row + 2, field=column)
        jobs[column] = values.astype("int64")


def run_figure(source: Path, kind: str, options: PlotOptions) -> Figure:
    """A figure of the one run of a run directory."""
    from schedlab.viz.classes import classes_figure
    from schedlab.viz.gantt import gantt_figure
    from schedlab.viz.timeseries import series_from_jobs, timeseries_figure

    if kind == "curve":
        raise InputError("a curve needs several runs: give an experiment directory "
                         "(written by 'schedlab sweep')", file=str(source))
    if options.runs:
        raise InputError("--run selects a run of an experiment; this is a run directory",
                         file=str(source), field="--run")
    jobs, document = read_run_directory(source)
    label = str(document.get("policy", source.name))
    processors = int(document["processors"])
    if kind in GANG_KINDS:
        return gang_figure(source, kind, jobs, document, options)
    if kind == "gantt" and is_grid_jobs(jobs):
        return machine_gantt(source, jobs, document, options)
    if kind == "gantt" and (source / "matrix.csv").is_file():
        raise InputError("a gang run time-shares its processors, so its jobs overlap on "
                         "them: --kind gantt cannot draw it; expected --kind matrix or --kind "
                         "slots", file=str(source), field="--kind")
    if options.by in GRID_GANTT_BY:
        raise InputError(f"--by {options.by} colours the Gantt chart of a grid run "
                         f"(simulate --platform)", file=str(source), field="--by")
    if kind == "gantt":
        return gantt_figure(jobs, processors, window=options.window,
                            color_by=options.by or "status",
                            title=options.title or f"{label} on {document.get('workload', '')}",
                            uses=read_processors_table(source))
    if kind == "timeseries":
        series = (gang_series(source, processors) if (source / "matrix.csv").is_file()
                  else with_capacity(series_from_jobs(jobs, processors), source))
        return timeseries_figure({label: series}, step=options.step, window=options.window,
                                 title=options.title)
    return classes_figure({label: document["metrics"]}, options.by or "width",
                          options.metric or "avg_wait", title=options.title,
                          processors=processors)


def with_capacity(series: Series, source: Path) -> Series:
    """``series`` with the processors out of service of a run with failures or windows
    (its capacity.csv; as it is without one)."""
    from dataclasses import replace

    import pandas as pd

    path = source / "capacity.csv"
    if not path.is_file():
        return series
    try:
        table = pd.read_csv(path)
        times = table["time"].to_numpy("int64")
        down = table["down"].to_numpy("int64")
    except (ValueError, KeyError, pd.errors.ParserError) as err:
        raise InputError(f"expected the capacity.csv a run writes (columns time, down): "
                         f"{err}", file=str(path)) from None
    return replace(series, down_time=times, down=down)


def read_processors_table(source: Path) -> pd.DataFrame | None:
    """The processors.csv of a run with failures or windows (None without one): every
    use of the processors, for the Gantt chart (docs/reference/events.md)."""
    import pandas as pd

    path = source / "processors.csv"
    if not path.is_file():
        return None
    columns = ["kind", "job_id", "first", "count", "start", "end"]
    try:
        table = pd.read_csv(path, dtype={"job_id": "Int64"})
    except (ValueError, pd.errors.ParserError) as err:
        raise InputError(f"expected the processors.csv a run writes: {err}",
                         file=str(path)) from None
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise InputError(f"expected the columns {', '.join(columns)}; missing {missing[0]}",
                         file=str(path), field=missing[0])
    return table


def gang_series(source: Path, processors: int) -> Series:
    """The engine's series of a gang run directory (its series.csv).

    A gang run time-shares its processors: jobs.csv says when each job
    entered and left the matrix, and adding up their widths would count a
    processor once per row holding a job (utilization above 100 %).  The
    engine's series counts the processors allocated in any row, so it is
    read as written, not recomputed.
    """
    from schedlab.viz.timeseries import series_from_frame

    path = source / "series.csv"
    if not path.is_file():
        raise InputError("a gang run time-shares its processors, so its utilization cannot "
                         "be recomputed from jobs.csv; expected the engine's series.csv "
                         "beside it (written by 'schedlab simulate --policy gang --out' since "
                         "it was added: run it again)", file=str(path))
    table = read_csv_table(path, "the series")
    try:
        return series_from_frame(table, processors)
    except InputError as err:
        raise InputError(err.reason, file=str(path), field=err.field) from None


def gang_figure(source: Path, kind: str, jobs: pd.DataFrame, document: dict[str, Any],
                options: PlotOptions) -> Figure:
    """The matrix or slots figure of a gang run directory (docs/how-to/figures.md)."""
    from schedlab.viz.gang import matrix_figure, slots_figure

    name = "matrix.csv" if kind == "matrix" else "slots.csv"
    path = source / name
    if not path.is_file():
        raise InputError(f"--kind {kind} needs the {name} of a gang run (written by "
                         f"'schedlab simulate --policy gang --out'); this run directory has "
                         f"none (policy {document.get('policy', '?')!r})", file=str(path))
    table = read_csv_table(path, "the table")
    processors = int(document["processors"])
    if kind == "matrix":
        return matrix_figure(table, jobs, processors, window=options.window,
                             title=options.title)
    limit = (document.get("params") or {}).get("slots", 5)
    return slots_figure(table, limit=limit, window=options.window, title=options.title)


# --------------------------------------------------------------------------- an experiment


def experiment_figure(source: Path, kind: str, options: PlotOptions) -> Figure:
    """A figure of an experiment: a curve over its runs, or a figure of chosen runs."""
    from schedlab.experiments import load_results

    results = load_results(source)
    if kind == "curve":
        return experiment_curve(results, options)
    if kind in GANG_KINDS:
        raise InputError(f"--kind {kind} draws one gang run: give its run directory (written "
                         f"by 'schedlab simulate --policy gang --out')", file=str(source))
    runs = chosen_runs(results, options.runs, source)
    if kind == "gantt":
        return experiment_gantt(source, runs, options)
    if kind == "timeseries":
        return experiment_timeseries(source, runs, options)
    return experiment_classes(runs, options)


def experiment_curve(results: pd.DataFrame, options: PlotOptions) -> Figure:
    from schedlab.viz.curves import curve_figure

    reference = read_reference(options.reference) if options.reference else None
    return curve_figure(results, options.metric or "artww", options.x, reference=reference,
                        reference_label=f"reference ({options.reference.name})"
                        if options.reference else "paper",
                        invert_x=options.invert_x, title=options.title)


def read_reference(path: Path) -> pd.DataFrame:
    """The reference points file: CSV with policy, x, value and optionally workload."""
    import pandas as pd

    from schedlab.viz.curves import check_reference

    if not path.is_file():
        raise InputError("no such reference file", file=str(path), field="--reference")
    frame = read_csv_table(path, "the reference points")
    try:
        check_reference(frame)
    except InputError as err:
        raise InputError(err.reason, file=str(path), field=err.field) from None
    for column in ("x", "value"):
        numbers = pd.to_numeric(frame[column], errors="coerce")
        bad = numbers.isna()
        if bad.any():
            line = int(bad.to_numpy().nonzero()[0][0]) + 2      # + header line, 1-based
            raise InputError(f"expected a number, got {frame[column][bad].iloc[0]!r}",
                             file=str(path), line=line, field=column)
        frame[column] = numbers
    return frame


def chosen_runs(results: pd.DataFrame, run_ids: list[str], source: Path) -> pd.DataFrame:
    """The finished runs named with --run (all finished runs when none is named)."""
    from schedlab.viz.curves import finished_runs

    if not run_ids:
        return finished_runs(results)
    known = dict(zip(results["run_id"], results["status"]))
    for run_id in run_ids:
        if run_id not in known:
            raise InputError(f"no run {run_id!r} in this experiment (see 'schedlab results')",
                             file=str(source), field="--run")
        if known[run_id] != "finished":
            raise InputError(f"run {run_id} failed: it has nothing to plot", file=str(source),
                             field="--run")
    order = {run_id: k for k, run_id in enumerate(run_ids)}
    selected = results[results["run_id"].isin(order)]
    return selected.sort_values("run_id", key=lambda ids: ids.map(order))


def run_labels(runs: pd.DataFrame) -> list[str]:
    """Policy (and varying setting) per run; the run id is added where labels repeat."""
    from schedlab.viz.curves import line_labels

    labels = line_labels(runs).tolist()
    return [f"{label} [{run_id}]" if labels.count(label) > 1 else label
            for label, run_id in zip(labels, runs["run_id"])]


def one_run(runs: pd.DataFrame, source: Path, kind: str) -> pd.Series:
    """The single run a figure is drawn for (--run is required and unique)."""
    if len(runs) != 1:
        raise InputError(f"--kind {kind} draws one run: choose it with --run RUN_ID "
                         f"(see 'schedlab results')", file=str(source), field="--run")
    return runs.iloc[0]


def experiment_gantt(source: Path, runs: pd.DataFrame, options: PlotOptions) -> Figure:
    """The Gantt chart of one run of an experiment; a grid run's has a row per machine."""
    from schedlab.experiments import load_jobs
    from schedlab.experiments.report import machine_size
    from schedlab.viz.gantt import gantt_figure
    from schedlab.viz.grid import machine_gantt_figure

    run = one_run(runs, source, "gantt")
    jobs = load_jobs(source, run["run_id"])
    if is_grid_jobs(jobs):
        return machine_gantt_figure(jobs, window=options.window,
                                    color_by=options.by or "deadline",
                                    title=options.title or f"{run['policy']} on "
                                    f"{run['workload']} [{run['run_id']}]")
    if options.by in GRID_GANTT_BY:
        raise InputError(f"--by {options.by} colours the Gantt chart of a grid run",
                         file=str(source), field="--by")
    return gantt_figure(jobs, machine_size(run.to_dict(), jobs), window=options.window,
                        color_by=options.by or "status",
                        title=options.title or f"{run['policy']} on {run['workload']} "
                                               f"[{run['run_id']}]")


def experiment_timeseries(source: Path, runs: pd.DataFrame, options: PlotOptions) -> Figure:
    from schedlab.experiments import load_jobs, load_series
    from schedlab.experiments.report import machine_size
    from schedlab.viz.timeseries import series_from_frame, timeseries_figure

    if not options.runs and len(runs) != 1:
        raise InputError("--kind timeseries draws the runs chosen with --run RUN_ID "
                         "(repeatable; see 'schedlab results')", file=str(source), field="--run")
    series = {}
    for label, record in zip(run_labels(runs), runs.to_dict("records")):
        jobs = load_jobs(source, record["run_id"])
        series[label] = series_from_frame(load_series(source, record["run_id"]),
                                          machine_size(record, jobs))
    return timeseries_figure(series, step=options.step, window=options.window,
                             title=options.title)


def experiment_classes(runs: pd.DataFrame, options: PlotOptions) -> Figure:
    from schedlab.viz.classes import classes_figure

    if len(runs) > MAX_CLASS_RUNS:
        raise InputError(f"{len(runs)} runs are too many bars for one figure: choose up to "
                         f"{MAX_CLASS_RUNS} with --run (see 'schedlab results')", field="--run")
    rows = dict(zip(run_labels(runs), runs.to_dict("records")))
    return classes_figure(rows, options.by or "width", options.metric or "avg_wait",
                          title=options.title, processors=largest_machine(runs))


def largest_machine(runs: pd.DataFrame) -> int | None:
    """The largest machine the runs name (their ``processors`` column), else ``None``: the
    width classes of a classes figure end there."""
    import pandas as pd

    if "processors" not in runs.columns:
        return None
    sizes = pd.to_numeric(runs["processors"], errors="coerce").dropna()
    return int(sizes.max()) if len(sizes) else None
