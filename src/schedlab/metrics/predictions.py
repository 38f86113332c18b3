"""How well a run's planned runtimes predicted the jobs, and what their errors cost.

For a run of a policy that takes a ``predictor`` (docs/reference/predictions.md):
the error measures of the first prediction each job was planned with
against ``a = min(runtime, estimate)`` — the time it really held its
processors — over the jobs that ran (the measures of
:func:`schedlab.predictors.accuracy.error_measures`), the corrections the
engine made when jobs outlived their predictions, and the reservations
they broke (a policy statistic, ``broken_reservations``).  Under the
default ``predictor="estimate"`` the predictions are the estimates: the
same measures describe the users' estimates, the baseline of Tsafrir,
Etsion & Feitelson (2007).
"""

from __future__ import annotations

from schedlab.engine.result import Result
from schedlab.predictors.accuracy import error_measures

#: Metric names (docs/reference/metrics.md, "Predictions"), in the order they are reported.
PREDICTION_METRIC_DOCS: dict[str, str] = {
    "prediction_mae": "mean |p - a| over the jobs that ran, seconds (p: the first planned "
                      "runtime, a: min(runtime, estimate))",
    "prediction_mre": "mean |p - a| / max(a, 1)",
    "prediction_accuracy": "mean min(p, a) / max(p, a): 1 for exact predictions",
    "underpredicted_pct": "percentage of the jobs that ran with p < a",
    "overprediction_factor": "mean p / a over the jobs with p > a",
    "underprediction_factor": "mean a / p over the jobs with p < a",
    "prediction_corrections": "corrections made because a running job outlived its "
                              "planned runtime",
    "broken_reservations": "reservations those corrections moved later (EASY: the first "
                           "waiting job's shadow time; conservative and admission control: "
                           "every booked start)",
}

#: The name of each measure of :func:`~schedlab.predictors.accuracy.error_measures`.
MEASURE_NAMES = {"mean_absolute_error": "prediction_mae",
                 "mean_relative_error": "prediction_mre",
                 "mean_accuracy": "prediction_accuracy",
                 "underpredicted": "underpredicted_pct",
                 "overprediction_factor": "overprediction_factor",
                 "underprediction_factor": "underprediction_factor"}


def prediction_metrics(result: Result) -> dict[str, float | int | None]:
    """The prediction metrics of a run whose policy takes a ``predictor``; empty for any
    other run.  A measure over no jobs is None (docs/reference/metrics.md, "Empty
    groups")."""
    if "predictor" not in result.params:
        return {}
    ran = result.accepted
    predicted = result.estimate if result.predicted is None else result.predicted
    actual = (result.end - result.start)[ran]
    measures = error_measures(predicted[ran], actual)
    metrics: dict[str, float | int | None] = {}
    for name, value in measures.items():
        shown = value * 100 if name == "underpredicted" else value
        metrics[MEASURE_NAMES[name]] = None if value != value else shown     # NaN: none
    metrics["prediction_corrections"] = (0 if result.corrections is None
                                         else int(result.corrections.sum()))
    metrics["broken_reservations"] = int(result.stats.get("broken_reservations", 0))
    return metrics
