"""Metrics of a simulation :class:`~schedlab.engine.result.Result`.

Metrics read only a Result.  ``compute_metrics(result)`` gives the flat dict
written to ``metrics.json`` (names documented in docs/reference/metrics.md and
:data:`METRIC_DOCS`); the per-job vectors, class breakdowns and time series
are available for analysis and plots.
"""

from schedlab.metrics.aggregates import (
    METRIC_DOCS,
    compute_metrics,
    loss_of_capacity,
    observation_window,
    utilization_margo,
    utilization_streit,
)
from schedlab.metrics.classes import (
    RUNTIME_CLASSES,
    WIDTH_CLASSES,
    ClassStats,
    breakdown_by_runtime,
    breakdown_by_width,
    breakdown_table,
    flat_breakdowns,
)
from schedlab.metrics.jobs import (
    AcceptedJobs,
    accepted_jobs,
    bounded_slowdown,
    expansion_factor,
    response_time,
    run_time,
    slowdown,
    wait_time,
)
from schedlab.metrics.series import (
    queue_series,
    reserved_series,
    time_weighted_mean,
    utilization_series,
)

__all__ = [
    "METRIC_DOCS",
    "RUNTIME_CLASSES",
    "WIDTH_CLASSES",
    "AcceptedJobs",
    "ClassStats",
    "accepted_jobs",
    "bounded_slowdown",
    "breakdown_by_runtime",
    "breakdown_by_width",
    "breakdown_table",
    "compute_metrics",
    "expansion_factor",
    "flat_breakdowns",
    "loss_of_capacity",
    "observation_window",
    "queue_series",
    "reserved_series",
    "response_time",
    "run_time",
    "slowdown",
    "time_weighted_mean",
    "utilization_margo",
    "utilization_series",
    "utilization_streit",
    "wait_time",
]
