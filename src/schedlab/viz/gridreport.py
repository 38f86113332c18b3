"""One self-contained HTML report of grid runs (thesis §4.3): ``schedlab report RUNS``.

``RUNS`` is a grid run directory or a directory of them (one per
configuration and interarrival time, as written by ``schedlab simulate
--platform ... --out``), read by the command (``schedlab.cli.plotgrid``)
and given here as :class:`~schedlab.viz.grid.GridRun` objects.  The report
has the shape of an experiment's, from the same pieces
(:mod:`schedlab.viz.html`): a table of the runs with the thesis' metrics,
their metrics per cluster, the figures of :mod:`schedlab.viz.grid` -- work per cluster against the
machine shares, the metrics against Ta when the runs have several, the
per-machine schedule of the first run -- and the versions that made it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from schedlab.output import atomic_write_text
from schedlab.viz.curves import metric_label
from schedlab.viz.grid import (
    TA_METRICS,
    GridRun,
    interarrival_figure,
    machine_gantt_figure,
    share_figure,
)
from schedlab.viz.html import ReportFigure, data_uri, figure_html, html_page, html_table
from schedlab.viz.style import check_format

#: Metrics of the runs table (thesis §4.3: Out Deadline, usage, slowdown, shares).
GRID_TABLE_METRICS = ("jobs", "deadline_missed_pct", "system_usage", "licence_usage",
                      "nondeadline_avg_slowdown", "cluster_share_deviation")


def runs_frame(runs: Mapping[str, GridRun]) -> pd.DataFrame:
    """One row per run: its directory's name, label, Ta and the table metrics."""
    rows = []
    for name, run in runs.items():
        rows.append({"run": name, "configuration": run.label,
                     "Ta [s]": round(run.interarrival, 2),
                     **{metric_label(m): run.metrics.get(m) for m in GRID_TABLE_METRICS}})
    return pd.DataFrame(rows)


#: Columns of the per-cluster table: each whole-platform metric restricted to one cluster's
#: jobs, CPUs and licence copies (thesis §4.3.1, Figs. 26-29;
#: schedlab.metrics.grid.CLUSTER_METRIC_DOCS), as ``<metric>.<cluster>`` in metrics.json.
CLUSTER_TABLE_METRICS = ("cluster_jobs", "cluster_deadline_missed_pct",
                         "cluster_nondeadline_avg_slowdown", "cluster_system_usage",
                         "cluster_licence_usage")


def clusters_frame(runs: Mapping[str, GridRun]) -> pd.DataFrame:
    """One row per run and cluster with the run's per-cluster metrics (none for a run
    whose metrics.json has no ``cluster_jobs.<cluster>``)."""
    rows = []
    for name, run in runs.items():
        clusters = [key.split(".", 1)[1] for key in run.metrics
                    if key.startswith("cluster_jobs.")]
        rows += [{"run": name, "cluster": cluster,
                  **{cluster_header(metric): run.metrics.get(f"{metric}.{cluster}")
                     for metric in CLUSTER_TABLE_METRICS}} for cluster in clusters]
    return pd.DataFrame(rows)


def cluster_header(metric: str) -> str:
    """The heading of a per-cluster column: the whole-platform metric's label."""
    return metric_label(metric.removeprefix("cluster_"))


def grid_figures(runs: list[GridRun], fmt: str) -> list[ReportFigure]:
    """Shares, metrics against Ta (several Ta only), the first run's machine schedule."""
    figures = [ReportFigure(
        "Workload per cluster",
        "Each cluster's share of the dispatched estimated work (width x estimate x job "
        "rating), one bar per run, beside its share of the machines (Pasquali §4.3, Fig. 25).",
        data_uri(share_figure(runs), fmt))]
    if len(runs) > 1 and len({round(r.interarrival, 1) for r in runs}) > 1:
        figures.append(ReportFigure(
            "Against the interarrival time",
            "Jobs missing their deadline, system and licence usage against the mean "
            "interarrival time Ta measured from the jobs (§4.3, Figs. 27-29).",
            data_uri(interarrival_figure(runs, TA_METRICS), fmt)))
    first = runs[0]
    figures.append(ReportFigure(
        f"Schedule per machine: {first.label}",
        "One row per machine, grouped by cluster; each job on the CPUs it held (first fit "
        "within its machine), coloured by whether it met its deadline.",
        data_uri(machine_gantt_figure(first.jobs), fmt)))
    return figures


def build_grid_report(source: str | Path, runs: Mapping[str, GridRun], *, generated: str,
                      fmt: str = "svg") -> str:
    """The HTML report of the grid runs read from ``source`` (keyed by their directories'
    names) as text."""
    fmt = check_format(fmt)
    source = Path(source)
    frame = runs_frame(runs)
    numeric = {"Ta [s]", *map(metric_label, GRID_TABLE_METRICS)}
    figures = "".join(figure_html(f, k)
                      for k, f in enumerate(grid_figures(list(runs.values()), fmt), 1))
    title = html.escape(f"Grid runs: {source.name}")
    header = (f'<p class="meta">{len(runs)} grid runs. Generated {html.escape(generated)} by '
              f'schedlab from\n<code>{html.escape(str(source))}</code>.</p>')
    clusters = clusters_frame(runs)
    per_cluster = ([("clusters", "Per cluster", html_table(
        clusters, numeric=set(map(cluster_header, CLUSTER_TABLE_METRICS))))]
        if len(clusters) else [])
    return html_page(title, header, [("runs", "Runs", html_table(frame, numeric=numeric)),
                                     *per_cluster, ("figures", "Figures", figures)])


def write_grid_report(source: str | Path, runs: Mapping[str, GridRun], out: str | Path, *,
                      generated: str, fmt: str = "svg") -> Path:
    """Write the report atomically to ``out`` and return its path."""
    out = Path(out)
    atomic_write_text(out, build_grid_report(source, runs, generated=generated, fmt=fmt))
    return out
