"""The metrics a summary shows when none is asked for (``schedlab results``, the report).

Kept apart from :mod:`schedlab.experiments.summary`, which computes the
summaries, so that the command line can name these defaults in its help
without loading the experiment machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Metrics shown when none is asked for (names of docs/reference/metrics.md).
DEFAULT_METRICS = ("avg_wait", "avg_bsld_60", "sldww_60", "utilization")
#: The same for a grid experiment: the measures of Pasquali's thesis (§4.1, docs/reference/metrics.md).
GRID_DEFAULT_METRICS = ("deadline_missed_pct", "nondeadline_avg_slowdown", "system_usage",
                        "licence_usage")
#: Added to the default metrics when some run rejected jobs (admission control): the shares
#: of jobs and of processor-seconds refused, beside the wait and slowdown of the jobs kept.
REJECTION_METRICS = ("rejected_pct", "rejected_area_pct")
#: Added when some run planned with a runtime predictor (docs/reference/predictions.md).
PREDICTION_METRICS = ("prediction_accuracy", "prediction_corrections", "broken_reservations")


def default_metrics(frame: pd.DataFrame) -> list[str]:
    """The grid measures when the experiment's runs are on a platform, else the classic ones;
    with the rejected shares when some run rejected jobs, and the prediction measures when
    some run planned with a predictor."""
    grid = "platform" in frame.columns and frame["platform"].notna().any()
    names = list(GRID_DEFAULT_METRICS if grid else DEFAULT_METRICS)
    if "rejected" in frame.columns and frame["rejected"].fillna(0).gt(0).any():
        names += list(REJECTION_METRICS)
    if "param.predictor" in frame.columns and \
            frame["param.predictor"].dropna().ne("estimate").any():
        names += list(PREDICTION_METRICS)
    return names
