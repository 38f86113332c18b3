"""A run's summary: the metrics table, the metric names and formats it shows, the reservation line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedlab.cli.consoles import console, err_console, plain_table

if TYPE_CHECKING:
    from rich.table import Table

    from schedlab.engine.result import Result

SUMMARY_METRICS = ["offered_load", "jobs", "killed", "rejected", "avg_wait", "avg_response", "avg_bsld_60",
                   "artww", "sldww_60", "utilization", "makespan"]
SUMMARY_FORMATS = {"offered_load": ".2f", "jobs": "d", "killed": "d", "rejected": "d", "avg_wait": ".0f",
                   "avg_response": ".0f", "artww": ".0f", "utilization": ".3f", "makespan": "d",
                   "deadline_missed": "d", "deadline_unfinished": "d",
                   "nondeadline_avg_response": ".0f"}
#: Added to the summary when the workload has deadlines (docs/reference/metrics.md, "Deadlines").
DEADLINE_SUMMARY_METRICS = ["deadline_rejected_pct", "deadline_rejected_area_pct",
                            "deadline_missed", "deadline_unfinished",
                            "nondeadline_avg_response", "nondeadline_avg_slowdown"]
#: Added when the run had reservation requests (Margo et al., §4 eq. 1–3).
RESERVATION_SUMMARY_METRICS = ["reservations_granted", "reservations_rejected",
                               "wait_weighted", "expansion_factor_weighted",
                               "utilization_margo_reserved"]
SUMMARY_FORMATS.update({"reservations_granted": "d", "reservations_rejected": "d",
                        "wait_weighted": ".0f", "expansion_factor_weighted": ".2f",
                        "utilization_margo_reserved": ".3f"})


#: Added for a grid run (docs/reference/metrics.md, "Grid runs").
GRID_SUMMARY_METRICS = ["system_usage", "licence_usage", "cluster_share_deviation"]
SUMMARY_FORMATS.update({name: ".3f" for name in GRID_SUMMARY_METRICS})


#: Beside ``rejected`` when some run rejected jobs: the shares of jobs and of processor-seconds
#: refused (QoPS §5.1), so that an admission policy's wait and slowdown over the jobs it
#: kept are read with what it turned away (docs/reference/metrics.md).
REJECTION_SUMMARY_METRICS = ["rejected_pct", "rejected_area_pct"]
#: Added when users cancelled jobs (docs/reference/events.md).
CANCELLATION_SUMMARY_METRICS = ["cancelled", "withdrawn"]
SUMMARY_FORMATS.update({"cancelled": "d", "withdrawn": "d"})
#: Added when a run planned with a runtime predictor (docs/reference/predictions.md): how
#: well it predicted, and the corrections and broken reservations its errors caused.
PREDICTION_SUMMARY_METRICS = ["prediction_accuracy", "underpredicted_pct",
                              "prediction_corrections", "broken_reservations"]
SUMMARY_FORMATS.update({"prediction_accuracy": ".3f", "underpredicted_pct": ".1f",
                        "prediction_corrections": "d", "broken_reservations": "d"})


def summary_metrics(rows: Mapping[str, Mapping[str, float | None]]) -> list[str]:
    """The metric names of the summary table, with the rejection, deadline and reservation
    ones if any, and the prediction ones when a run (its label) names a predictor."""
    names = list(SUMMARY_METRICS)
    if any(metrics.get("rejected") for metrics in rows.values()):
        at = names.index("rejected") + 1
        names[at:at] = REJECTION_SUMMARY_METRICS
    if any("cancelled" in metrics for metrics in rows.values()):
        at = names.index("killed") + 1
        names[at:at] = CANCELLATION_SUMMARY_METRICS
    if any("deadline_missed" in metrics for metrics in rows.values()):
        names += DEADLINE_SUMMARY_METRICS
    if any("reservations" in metrics for metrics in rows.values()):
        names += RESERVATION_SUMMARY_METRICS
    if any("system_usage" in metrics for metrics in rows.values()):
        names += GRID_SUMMARY_METRICS
    if any("predictor=" in label for label in rows):
        names += PREDICTION_SUMMARY_METRICS
    return names


#: Jobs a run needs before its offered load speaks of a steady state: a handful of jobs in a
#: burst asks for more than the machine while it arrives, and says nothing by that.
SATURATION_MIN_JOBS = 100


def warn_if_saturated(rows: Mapping[str, Mapping[str, float | None]]) -> None:
    """A warning on stderr when a run of at least :data:`SATURATION_MIN_JOBS` jobs has an
    offered load above 1 — of its processors, or for a grid run of a floating licence's
    copies: the jobs ask for more than the machine does while they arrive, so the queue
    grows without bound and the waits depend on how long the trace is, not only on the
    policy."""
    runs = [m for m in rows.values() if (m.get("jobs") or 0) >= SATURATION_MIN_JOBS]
    cpus = [load for m in runs if (load := m.get("offered_load")) is not None and load > 1]
    licences = {name.split(".", 1)[1]: load for m in runs for name, load in m.items()
                if name.startswith("licence_offered_load.") and load is not None and load > 1}
    said = []
    if cpus:
        said.append(f"offered load {max(cpus):.2f} > 1")
    if licences:
        name, load = max(licences.items(), key=lambda item: item[1])
        said.append(f"licence {name!r} offered load {load:.2f} > 1")
    if said:
        err_console.print(f"warning: {' and '.join(said)}: the jobs ask for more than the "
                          f"machine can do while they arrive, so the queue grows without "
                          f"bound and waits depend on the trace's length "
                          f"(docs/reference/metrics.md, offered_load)", markup=False,
                          highlight=False)


#: The per-cluster metrics a grid run's summary shows (docs/reference/metrics.md, "Per
#: cluster"), with their formats.
CLUSTER_SUMMARY_FORMATS = {"cluster_jobs": "d", "cluster_deadline_missed_pct": ".1f",
                           "cluster_nondeadline_avg_slowdown": ".2f",
                           "cluster_system_usage": ".3f", "cluster_licence_usage": ".3f"}


def cluster_table(metrics: Mapping[str, float | None]) -> MetricsTable | None:
    """A grid run's per-cluster metrics, one column per cluster; None for a run with none."""
    clusters = [name.split(".", 1)[1] for name in metrics if name.startswith("cluster_jobs.")]
    if not clusters:
        return None
    rows = {cluster: {name: metrics.get(f"{name}.{cluster}") for name in CLUSTER_SUMMARY_FORMATS}
            for cluster in clusters}
    return metrics_table("per cluster", rows, list(CLUSTER_SUMMARY_FORMATS),
                         CLUSTER_SUMMARY_FORMATS)


def run_title(result: Result) -> str:
    """What ran on what: the workload and the machine, or for a grid run the platform, its
    clusters, machines, CPUs and allocation."""
    grid = result.grid
    if grid is None:
        return f"{result.workload} on {result.processors} processors"
    return (f"{result.workload} on {grid.platform}: {len(grid.cluster_names)} clusters, "
            f"{len(grid.machine_names)} machines, {result.processors} CPUs ({grid.allocation})")


def report_scheduling_cost(result: Result) -> None:
    """The policy's wall-clock time per scheduling event, where the engine measured it
    (grid runs: docs/reference/metrics.md, "Grid runs")."""
    if "scheduling_time_per_event_us" in result.meta:
        console.print(f"scheduling time per event: "
                      f"{result.meta['scheduling_time_per_event_us']:.1f} us "
                      f"({result.meta['scheduling_events']} events)", markup=False)


@dataclass(frozen=True)
class MetricsTable:
    """A summary table: one row per metric, one column per run (policy), as
    :func:`metrics_table` makes it; rich draws it (:meth:`__rich__`), and on a pipe the
    console may write the same bytes itself (:meth:`plain_text`)."""

    title: str
    labels: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]      # the metric's name, then its cell for each run

    def __rich__(self) -> Table:
        """The rich table.  Metrics run down the side so that several policies fit an
        80-column terminal; there a policy name breaks after each ``+``, on a pipe it
        stays whole.  Labels are shown as they are (``qops[k=3]`` is no rich markup)."""
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=self.title)
        table.add_column("metric", style="bold")
        for label in self.labels:
            header = escape(label)
            header = header.replace("+", "+\n") if console.is_terminal else header
            table.add_column(header, justify="right", overflow="fold")
        for row in self.rows:
            table.add_row(*row)
        return table

    def plain_text(self) -> str | None:
        """The table as rich prints it on a pipe (:func:`~schedlab.cli.consoles.plain_table`),
        or None when only rich can tell."""
        return plain_table(self.title, [("metric", *self.labels), *self.rows])


def metrics_table(title: str, rows: Mapping[str, Mapping[str, float | None]], names: list[str],
                  formats: dict[str, str]) -> MetricsTable:
    """The summary table of ``rows`` (run label: its metrics), the metrics ``names`` in
    ``formats`` (default ``.2f``).  A missing metric (one over no jobs,
    docs/reference/metrics.md) shows as ``—``.
    """
    from schedlab.output import MISSING_CELL

    cells = tuple((name, *(MISSING_CELL if (value := metrics.get(name)) is None
                           else format(value, formats.get(name, ".2f"))
                           for metrics in rows.values()))
                  for name in names)
    return MetricsTable(title, tuple(rows), cells)


def report_outages(metrics: Mapping[str, Any], label: str) -> None:
    """One line on the failures and windows of a run and what they cost
    (docs/reference/events.md); nothing for a run without them."""
    if "failures" not in metrics:
        return
    fates = ", ".join(f"{metrics[name]:,} {name}" for name in ("failed", "requeued", "restarted")
                      if metrics[name])
    availability = metrics["availability"]
    shown = "-" if availability is None else f"{availability:.1%}"
    console.print(f"{label}: {metrics['failures']:,} failures, {metrics['maintenance_windows']:,} "
                  f"maintenance windows or drains; {metrics['jobs_hit']:,} attempts hit"
                  + (f" ({fates})" if fates else "")
                  + f"; lost work {metrics['lost_work']:,} processor-s, availability {shown}",
                  markup=False)


def report_reservations(result: Result, label: str | None = None) -> None:
    """One line on what became of the reservation requests, rejections by reason.

    ``label`` names the run (default: the policy name).
    """
    table = result.reservations
    if table is None:
        return
    granted = table.granted
    moved = int((granted & (table.start != table.requested_start)).sum())
    reasons: dict[str, int] = {}
    for reason, ok in zip(table.reason, granted):
        if not ok:
            reasons[reason] = reasons.get(reason, 0) + 1
    detail = ", ".join(f"{reason}: {count}" for reason, count in sorted(reasons.items()))
    console.print(f"{label or result.policy}: {len(table)} reservation requests, "
                  f"{int(granted.sum())} granted ({moved} moved), {len(table) - int(granted.sum())} rejected"
                  + (f" ({detail})" if detail else ""))
