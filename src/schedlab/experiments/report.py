"""One self-contained HTML report of an experiment directory.

The report is a single file a centre administrator can mail or archive: it
loads nothing from the network or the disk.  Every figure is embedded as a
``data:`` URI (SVG by default, PNG on request), styles are inline, and
there is no script.  It holds, in order: what the experiment is and how
many runs finished or failed; the summary, one row per setting with the
mean and 95 % confidence interval over its seeds of the key metrics (the
numbers ``schedlab results`` prints); the figures; the failed runs with
their errors; every run in a folded table; the experiment file as written;
the versions of schedlab and of the libraries that produced it.

Figures, chosen from what the experiment varies:

* for every sweep column with several values that is a quantity (a
  shrinking factor, a policy parameter), the metrics of Streit 2002 (§5.1,
  Figs. 4, 5, 8) and QoPS (§5.2, Fig. 4) against it, one line per policy
  (:mod:`.curves`), and for gang runs the slowdowns and slots of Zhou et al.
  2003 (Tables 5-10); a sweep of categories only (a gang strategy) is drawn
  against its categories;
* at every point of the sweep (every sweep column fixed, the first seed), or
  at its first and last when it has more than :data:`MAX_DRAWN_POINTS`, per
  workload: wait by width class (Margo et al., §6, Graph 12), bounded
  slowdown by run-time class (Streit 2002, §5.2), utilization and queue
  length over time (Margo et al., §6, Graphs 6–9), and a Gantt chart of a
  few hundred jobs from the middle of the schedule (not for gang runs; a row
  per machine for grid runs); each caption names its setting;
* for grid runs (a ``platform`` column), also Out Deadline, system and licence
  usage (Pasquali thesis §4.3, Figs. 27-29) in the tables and the curves.

The generation date is an argument, so that the same experiment gives the
same bytes (the tests compare two builds).
"""

from __future__ import annotations

import html
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.experiments.summary import (
    CI_PREFIX,
    label_columns,
    mean_text,
    natural_order,
    summary_frame,
    varying_labels,
)
from schedlab.metrics.defaults import PREDICTION_METRICS, REJECTION_METRICS, default_metrics
from schedlab.output import atomic_write_text
from schedlab.viz.classes import classes_figure
from schedlab.viz.curves import (
    AXIS_COLUMNS,
    AXIS_PREFIXES,
    categorical_axis,
    curve_figure,
    finished_runs,
    line_labels,
    metric_label,
    metric_scale,
    setting_text,
    varying_axes,
    x_label,
)
from schedlab.viz.gantt import gantt_figure
from schedlab.viz.grid import machine_gantt_figure
from schedlab.viz.html import ReportFigure, data_uri, figure_html, html_page, html_table
from schedlab.viz.style import LineStyle, check_format, natural_key, policy_styles
from schedlab.viz.timeseries import series_from_frame, timeseries_figure

#: Metrics of the runs table, in this order, when the experiment has them: the rejected
#: shares of jobs and of processor-seconds beside the wait and slowdown of the jobs kept
#: (an admission policy's means are over the jobs it accepted).  A metric over no jobs
#: shows as a dash (docs/reference/metrics.md, "Empty groups").
TABLE_METRICS = ("jobs", "killed", "rejected_pct", "rejected_area_pct", "avg_wait",
                 "avg_bsld_60", "artww", "sldww_60", "utilization", "loss_of_capacity",
                 "makespan")
#: Shown in the summary besides ``schedlab results``' metrics when the runs have them:
#: the offered load (a saturated setting's waits depend on the trace length) and gang
#: slowdowns (Zhou et al. 2003, Tables 6-9).
REPORT_EXTRA_METRICS = ("offered_load", "gang_slowdown")
#: Metrics drawn against every numeric sweep column.
CURVE_METRICS = ("artww", "sldww_60", "utilization")
#: In the runs table and against every sweep column when the experiment has grid runs
#: (Pasquali thesis §4.3, Figs. 27-29: Out Deadline, system and licence usage).
GRID_METRICS = ("deadline_missed_pct", "system_usage", "licence_usage")
#: About this many jobs are drawn in the Gantt chart.
GANTT_JOBS = 300
#: Sweeps with up to this many points get class bars, series and schedules at every point;
#: larger ones at their first and last (:func:`shown_points`).
MAX_DRAWN_POINTS = 3


@dataclass(frozen=True)
class ExperimentView:
    """What the report reads from an experiment directory."""

    exp_dir: Path
    name: str
    description: str
    spec_text: str
    results: pd.DataFrame


def read_experiment(exp_dir: str | Path) -> ExperimentView:
    """The experiment file and the results table of ``exp_dir``."""
    from schedlab.experiments import load_results

    exp_dir = Path(exp_dir)
    results = load_results(exp_dir)
    spec_file = exp_dir / "experiment.toml"
    spec_text = spec_file.read_text(encoding="utf-8") if spec_file.is_file() else ""
    try:
        spec = tomllib.loads(spec_text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"the experiment file is not valid TOML: {err}",
                         file=str(spec_file)) from None
    return ExperimentView(exp_dir, str(spec.get("name") or exp_dir.name),
                          str(spec.get("description") or ""), spec_text, results)


def machine_size(run: Mapping[str, Any], jobs: pd.DataFrame) -> int:
    """The number of processors a run was simulated on.

    The results table gives it when the experiment set it (a grid run: its
    platform's CPUs, ``platform_cpus``); otherwise the
    workload's own size is recovered from Streit's UTIL (2002, §5.1),
    utilization = sum(width x run) / (N x (last end - first submit)), whose
    terms the job table holds exactly (space sharing: no suspension).  A run
    where no job held processors falls back to its widest job.
    """
    for given in (run.get("processors"), run.get("platform_cpus")):   # a grid run's CPUs
        if given is not None and not pd.isna(given):
            return int(given)
    ran = jobs[jobs["status"].astype(str) != "rejected"]
    start, end = ran["start"].to_numpy(np.int64), ran["end"].to_numpy(np.int64)
    area = float(np.sum(ran["width"].to_numpy(np.int64) * (end - start)))
    span = float(end.max() - ran["submit"].to_numpy(np.int64).min()) if len(ran) else 0.0
    utilization = float(run.get("utilization") or 0.0)
    if area > 0 and span > 0 and utilization > 0:
        return round(area / (utilization * span))
    return int(jobs["width"].max()) if len(jobs) else 1


#: Drawn when the experiment has gang runs: Zhou et al. 2003's slowdowns (Tables 6-9) and
#: the average slots in a round (Tables 5, 10), e.g. against the slot length.
GANG_METRICS = ("gang_slowdown", "gang_slowdown_short", "gang_slots_mean")


def curve_axes(runs: pd.DataFrame) -> list[str]:
    """The x axes of the curves: the sweep columns with several values that are
    quantities (a shrinking factor, a slot length); only when the sweep varies no
    quantity, its categorical columns (a gang strategy, perfect estimates or not), drawn
    as categories (:func:`~schedlab.viz.curves.categorical_axis`).  Against a quantity,
    every category already has a line of its own."""
    axes = varying_axes(runs)
    quantities = [c for c in axes if not categorical_axis(runs, c)]
    return quantities or axes


def curve_metrics(runs: pd.DataFrame) -> list[str]:
    """The metrics to draw against each axis: Streit's, and the rejections if there are any."""
    chosen = [m for m in CURVE_METRICS if m in runs.columns]
    if "rejected" in runs.columns and runs["rejected"].fillna(0).gt(0).any():
        chosen += [m for m in REJECTION_METRICS if m in runs.columns]
    chosen += [m for m in GANG_METRICS if m in runs.columns and runs[m].notna().any()]
    if has_grid_runs(runs):
        chosen += [m for m in GRID_METRICS if m in runs.columns]
    return chosen


def has_grid_runs(runs: pd.DataFrame) -> bool:
    """Whether the results hold grid runs (they have a platform, schedlab.experiments.store)."""
    return "platform" in runs.columns and runs["platform"].notna().any()


def curve_figures(runs: pd.DataFrame, styles: dict[str, LineStyle],
                  fmt: str) -> list[ReportFigure]:
    """Every curve metric against every numeric sweep column."""
    figures = []
    for axis in curve_axes(runs):
        for metric in curve_metrics(runs):
            figure = curve_figure(runs, metric, axis, styles=styles)
            figures.append(ReportFigure(
                f"{metric_label(metric)} against {x_label(axis)}",
                f"One point per setting; lines join runs of one policy; bars span the "
                f"seeds where there are several. Column {axis}.", data_uri(figure, fmt)))
    return figures


def sweep_points(runs: pd.DataFrame) -> list[pd.DataFrame]:
    """The runs of every point of the sweep, at its first seed, in natural order.

    A point fixes every varying sweep column (:func:`varying_axes`); a run
    without a value in a column (another policy's parameter, NaN) belongs
    to every point, so that every point shows the policies it does not
    parameterise beside those it does.
    """
    columns = varying_axes(runs)
    if "seed" in runs.columns and runs["seed"].notna().any():
        runs = runs[runs["seed"] == runs["seed"].min()]
    if not columns:
        return [runs]
    combos = natural_order(runs[columns].drop_duplicates(), columns)
    rows = [combo for _, combo in combos.iterrows()]
    points = []
    for combo in rows:
        if any(covers(other, combo) for other in rows if other is not combo):
            continue                    # a run without a value joins the points that have it
        chosen = pd.Series(True, index=runs.index)
        for column in columns:
            if not pd.isna(combo[column]):
                chosen &= runs[column].isna() | (runs[column] == combo[column])
        points.append(runs[chosen])
    return points


def covers(specific: pd.Series, general: pd.Series) -> bool:
    """Whether ``specific`` fixes every column ``general`` fixes, to the same value, and
    more."""
    fixed = general.notna()
    return bool(specific[fixed].equals(general[fixed]) and specific.notna().sum() > fixed.sum())


def shown_points(points: list[pd.DataFrame]) -> tuple[list[pd.DataFrame], str]:
    """The points whose class bars, series and schedules the report draws, and why those:
    every point up to :data:`MAX_DRAWN_POINTS`, else the first and the last of the sweep
    (its ends, where the settings differ most)."""
    if len(points) <= MAX_DRAWN_POINTS:
        return points, ""
    return [points[0], points[-1]], (
        f"Drawn for 2 of the sweep's {len(points)} points: its first and last in order, "
        f"where the settings differ most; `schedlab plot` draws any run.")


def point_description(runs: pd.DataFrame, point: pd.DataFrame) -> str:
    """Which setting a point's figures show, in words, with its seed when there are
    several."""
    columns = varying_axes(runs) + (["seed"] if "seed" in runs.columns
                                    and runs["seed"].dropna().nunique() > 1 else [])
    parts = []
    for column in columns:
        values = point[column].dropna().unique()
        if len(values) == 1:
            parts.append(f"{column.split('.', 1)[-1]} = {setting_text(values[0])}")
    if "seed" in columns:
        parts[-1] += f" (one run of {runs['seed'].dropna().nunique()} seeds)"
    return ("Setting: " + ", ".join(parts) + ".") if parts else ""


def point_figures(view: ExperimentView, runs: pd.DataFrame, styles: dict[str, LineStyle],
                  fmt: str) -> list[ReportFigure]:
    """Class bars, time series and a Gantt chart per workload at the sweep's points
    (:func:`shown_points`), each captioned with its setting."""
    points, why = shown_points(sweep_points(runs))
    figures = []
    for point in points:
        setting = " ".join(filter(None, (point_description(runs, point), why)))
        figures += setting_figures(view, point, setting, styles, fmt)
    return figures


def setting_figures(view: ExperimentView, point: pd.DataFrame, setting: str,
                    styles: dict[str, LineStyle], fmt: str) -> list[ReportFigure]:
    """The figures of one sweep point, per workload: wait by width class, bounded slowdown
    by run-time class, utilization and queue over time, and the schedule of its first
    space-shared run."""
    from schedlab.experiments import load_jobs, load_series

    figures = []
    for workload, group in point.groupby("workload", sort=True):
        records = first_run_per_line(group.assign(label=line_labels(group)).sort_values(
            "label", key=lambda labels: labels.map(natural_key)).to_dict("records"))
        rows = {record["label"]: record for record in records}
        jobs = {record["label"]: load_jobs(view.exp_dir, record["run_id"]) for record in records}
        processors = max(machine_size(record, jobs[record["label"]]) for record in records)
        figures.append(ReportFigure(
            f"{workload}: wait by width class",
            f"Average wait of the jobs of each width class (Margo et al. §6). {setting}",
            data_uri(classes_figure(rows, "width", "avg_wait", styles=styles,
                                    processors=processors), fmt)))
        figures.append(ReportFigure(
            f"{workload}: bounded slowdown by run-time class",
            f"Average bounded slowdown (τ = 60 s) per class of actual run time "
            f"(Streit 2002 §5.2). {setting}",
            data_uri(classes_figure(rows, "runtime", "avg_bsld_60", styles=styles), fmt)))
        series = {record["label"]: series_from_frame(
                      load_series(view.exp_dir, record["run_id"]),
                      machine_size(record, jobs[record["label"]])) for record in records}
        figures.append(ReportFigure(
            f"{workload}: utilization and queue length",
            f"Fraction of processors in use and number of waiting jobs over time "
            f"(Margo et al. §6). {setting}",
            data_uri(timeseries_figure(series, styles=styles), fmt)))
        drawable = [record for record in records if not time_sharing(record["policy"])]
        if drawable:          # a Gantt chart of a time-shared run would stack its jobs
            figures.append(gantt_entry(drawable[0], jobs[drawable[0]["label"]], workload,
                                       setting, fmt))
    return figures


def first_run_per_line(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first run of each line label: a point's figures draw one run per line, and a
    label has several runs when they differ only in a workload option the setting leaves
    out (the test episodes of :func:`schedlab.gym.evaluate`, windows of one workload)."""
    first: dict[str, dict[str, Any]] = {}
    for record in records:
        first.setdefault(record["label"], record)
    return list(first.values())


def time_sharing(policy: str) -> bool:
    """Whether ``policy`` time-shares processors (gang): its jobs overlap on processors."""
    from schedlab.policies.registry import available_policies, canonical_name

    entry = available_policies().get(canonical_name(str(policy)))
    return entry is not None and entry.time_sharing


def middle_window(jobs: pd.DataFrame, count: int = GANTT_JOBS) -> tuple[float, float]:
    """A window holding about ``count`` job starts from the middle of the schedule."""
    ran = jobs[jobs["status"].astype(str) != "rejected"]
    starts = np.sort(ran["start"].to_numpy(np.int64))
    ends = ran["end"].to_numpy(np.int64)
    if len(starts) <= count:
        return float(starts[0]), float(max(ends.max(), starts[0] + 1))
    first = (len(starts) - count) // 2
    low, high = float(starts[first]), float(starts[first + count - 1])
    return low, high if high > low else low + 1.0


def gantt_entry(record: Mapping[str, Any], jobs: pd.DataFrame, workload: str, setting: str,
                fmt: str) -> ReportFigure:
    """The Gantt chart of one run over :func:`middle_window`."""
    window = middle_window(jobs)
    label = record["label"]
    title = f"{label}: {window[0]:,.0f} s to {window[1]:,.0f} s"
    if "machine" in jobs.columns:         # a grid run: a row per machine
        figure = machine_gantt_figure(jobs, window=window, title=title)
        how = ("each job is drawn on the machine it ran on (its last one under preemption), "
               "coloured by whether it met its deadline.")
    else:
        figure = gantt_figure(jobs, machine_size(record, jobs), window=window, title=title)
        how = "each job is drawn on a block of processors chosen by first fit."
    return ReportFigure(
        f"{workload}: schedule of {label}",
        f"About {GANTT_JOBS} jobs from the middle of the schedule; {how} {setting}",
        data_uri(figure, fmt))


def runs_table(results: pd.DataFrame) -> str:
    """One row per run: identity, setting, status, wall time and the key metrics."""
    setting = [c for c in results.columns if c.startswith(AXIS_PREFIXES) or c in AXIS_COLUMNS]
    setting = [c for c in setting if results[c].notna().any()]
    metrics = [m for m in TABLE_METRICS + (GRID_METRICS if has_grid_runs(results) else ())
               if m in results.columns]
    columns = ["run_id", "workload", "policy", "seed", *setting, "status", "wall_time", *metrics]
    frame = results[[c for c in columns if c in results.columns]]
    headers = [c.split(".", 1)[-1] if c in setting else c for c in frame.columns]
    return html_table(frame, headers, numeric={"seed", "wall_time", *metrics, *setting})


def failed_table(results: pd.DataFrame) -> str:
    """The failed runs and the first line of their errors ('' when none failed)."""
    failed = results[results["status"] != "finished"]
    if failed.empty:
        return ""
    frame = pd.DataFrame({"run_id": failed["run_id"], "workload": failed["workload"],
                          "policy": failed["policy"],
                          "error": failed["error"].fillna("").str.split("\n").str[0]})
    return html_table(frame)


def summary_table(results: pd.DataFrame) -> str:
    """The first table of the report: per setting, the mean and 95 % confidence interval
    over its seeds of the key metrics (as ``schedlab results`` prints them), with the
    labels every row shares said once above it."""
    finished = finished_runs(results)
    if finished.empty:
        return "<p>No run has finished: no summary.</p>"
    names = [m for m in default_metrics(finished) + list(REPORT_EXTRA_METRICS)
             if m in finished.columns and finished[m].notna().any()]
    summary = summary_frame(finished, names)
    for name in names:                      # in the unit the header states (hours for times)
        summary[[name, CI_PREFIX + name]] *= metric_scale(name)
    labels = varying_labels(summary, names)
    constant = [c for c in label_columns(summary, names) if c not in labels]
    shared = ", ".join(f"{c.split('.', 1)[-1]} = {setting_text(summary.iloc[0][c])}"
                       for c in constant if not pd.isna(summary.iloc[0][c]))
    frame = pd.DataFrame({c.split(".", 1)[-1]: summary[c].map(setting_text) for c in labels})
    for name in names:
        frame[metric_label(name)] = [mean_text(row, name) for _, row in summary.iterrows()]
    seeds = int(summary["n"].max())
    note = (f"Mean ± 95 % confidence interval over each setting's seeds (Student's t; up to "
            f"{seeds} seeds)" if summary[[CI_PREFIX + n for n in names]].notna().any().any()
            else "One run per setting (no interval without several seeds)")
    return (f"<p>{html.escape(note)}{'; every row: ' + html.escape(shared) if shared else ''}."
            f"</p>\n" + html_table(frame, numeric={"n", *map(metric_label, names)}))


def render(view: ExperimentView, figures: list[ReportFigure], generated: str) -> str:
    """The whole HTML document: summary, figures, failures, then every run folded."""
    results = view.results
    finished = int((results["status"] == "finished").sum())
    failed = len(results) - finished
    title = html.escape(view.name)
    description = f"<p>{html.escape(view.description)}</p>" if view.description else ""
    figures_html = ("".join(figure_html(f, k) for k, f in enumerate(figures, start=1))
                    or "<p>No finished run: no figure.</p>")
    header = (f"{description}\n<p class=\"meta\">{len(results)} runs: {finished} finished, "
              f"{failed} failed.\nGenerated {html.escape(generated)} by schedlab from\n"
              f"<code>{html.escape(str(view.exp_dir))}</code>.</p>")
    failures = failed_table(results)
    runs = (f"<details><summary>{len(results)} runs, one row each: setting, status, wall "
            f"time, metrics</summary>\n{runs_table(results)}</details>")
    sections = [("summary", "Summary", summary_table(results)),
                ("figures", "Figures", figures_html),
                *([("failed", "Failed runs", failures)] if failures else []),
                ("runs", "Runs", runs),
                ("spec", "Experiment file",
                 f"<pre>{html.escape(view.spec_text) or '(experiment.toml is missing)'}</pre>")]
    return html_page(title, header, sections)


def build_report(exp_dir: str | Path, *, generated: str, fmt: str = "svg") -> str:
    """The HTML report of an experiment directory as text.

    ``generated`` is the date (or any text) printed as the generation
    time; ``fmt`` is the embedded image format, ``svg`` or ``png``.
    """
    fmt = check_format(fmt)
    view = read_experiment(exp_dir)
    runs = finished_runs(view.results)
    figures: list[ReportFigure] = []
    if not runs.empty:
        labels = set(runs["policy"].astype(str))
        for axis in curve_axes(runs):
            labels |= set(line_labels(runs, axis))
        styles = policy_styles(labels)
        figures = curve_figures(runs, styles, fmt) + point_figures(view, runs, styles, fmt)
    return render(view, figures, generated)


def write_report(exp_dir: str | Path, out: str | Path, *, generated: str,
                 fmt: str = "svg") -> Path:
    """Write the report atomically to ``out`` and return its path."""
    out = Path(out)
    atomic_write_text(out, build_report(exp_dir, generated=generated, fmt=fmt))
    return out


# ------------------------------------------------------------------ simulate and compare runs
@dataclass(frozen=True)
class RunOutput:
    """One run directory of ``simulate --out`` or ``compare``: its label, jobs and
    metrics.json."""

    label: str
    jobs: pd.DataFrame
    document: Mapping[str, Any]


def runs_summary(runs: list[RunOutput]) -> str:
    """One row per run: its label, offered load and the key metrics, headed by their
    names in words (times in hours); the rejected shares only where a run rejected jobs, the
    prediction measures where a run planned with a predictor, a metric over no jobs as
    missing."""
    metrics = [run.document["metrics"] for run in runs]
    rejected = any((m.get("rejected") or 0) > 0 for m in metrics)
    predicted = any("predictor=" in run.label for run in runs)
    columns = [name for name in ("offered_load", *TABLE_METRICS)
               if rejected or name not in REJECTION_METRICS]
    columns += list(PREDICTION_METRICS) if predicted else []
    frame = pd.DataFrame([{"run": run.label, **{metric_label(name): shown_value(m, name)
                                                for name in columns}}
                          for run, m in zip(runs, metrics)])
    return html_table(frame, numeric={metric_label(name) for name in columns})


def shown_value(metrics: Mapping[str, Any], name: str) -> float | None:
    """A run's metric in the unit of its label (:func:`~schedlab.viz.curves.metric_scale`)."""
    value = metrics.get(name)
    return None if value is None else float(value) * metric_scale(name)


def runs_figures(runs: list[RunOutput], fmt: str) -> list[ReportFigure]:
    """The comparison of the runs' key metrics, their class bars, and the schedule of every
    space-shared run (a gang run's jobs share processors: ``schedlab plot RUN --kind
    matrix`` draws it)."""
    from schedlab.viz.compare import comparison_figure

    rows = {run.label: run.document["metrics"] for run in runs}
    styles = policy_styles(rows)
    offered = [load for run in runs
               if (load := run.document["metrics"].get("offered_load")) is not None]
    figures = [
        ReportFigure("Comparison",
                     "Wait, bounded slowdown, ARTwW and utilization of each run (and the "
                     "shares it rejected, where one did).",
                     data_uri(comparison_figure(rows, "", offered_loads=offered[:1]), fmt)),
        ReportFigure("Wait by width class",
                     "Average wait of the jobs of each width class (Margo et al. §6), "
                     "every run.",
                     data_uri(classes_figure(rows, "width", "avg_wait", styles=styles), fmt)),
        ReportFigure("Bounded slowdown by run-time class",
                     "Average bounded slowdown (τ = 60 s) per class of actual run time "
                     "(Streit 2002 §5.2), every run.",
                     data_uri(classes_figure(rows, "runtime", "avg_bsld_60", styles=styles),
                              fmt))]
    for run in runs:
        if "service" not in run.jobs.columns:
            figures.append(gantt_entry({"label": run.label, "processors":
                                        run.document["processors"]}, run.jobs,
                                       str(run.document.get("workload", "")), "", fmt))
    return figures


def build_runs_report(source: str | Path, runs: list[RunOutput], *, generated: str,
                      fmt: str = "svg") -> str:
    """The HTML report of the run directories of ``simulate --out`` or ``compare`` read
    from ``source``: the summary table first, then the figures, every run in each."""
    fmt = check_format(fmt)
    source = Path(source)
    figures = "".join(figure_html(f, k) for k, f in enumerate(runs_figures(runs, fmt), 1))
    workloads = sorted({str(run.document.get("workload", "?")) for run in runs})
    header = (f'<p class="meta">{len(runs)} runs on {html.escape(", ".join(workloads))}. '
              f'Generated {html.escape(generated)} by schedlab from\n'
              f'<code>{html.escape(str(source))}</code>.</p>')
    return html_page(html.escape(f"Runs: {source.name}"), header,
                     [("summary", "Summary", runs_summary(runs)),
                      ("figures", "Figures", figures)])


def write_runs_report(source: str | Path, runs: list[RunOutput], out: str | Path, *,
                      generated: str, fmt: str = "svg") -> Path:
    """Write the report atomically to ``out`` and return its path."""
    out = Path(out)
    atomic_write_text(out, build_runs_report(source, runs, generated=generated, fmt=fmt))
    return out
