"""The stored runs as one table (settings and metrics), the runs of the main setting, and the
means over seeds.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.qops.design import ADMISSION, BASELINES, MAIN_RELAXATION
from schedlab.experiments.recipes.report import finished_results

#: Transform columns of the results -> short names used below.
SETTING_COLUMNS = {"transform.load": "load", "transform.load_method": "method",
                   "transform.stringency": "s", "transform.deadline_fraction": "fraction",
                   "transform.relaxation": "R"}
#: Values of settings the reduced form does not sweep (R = 0: no artificial deadlines).
SETTING_DEFAULTS = {"load": 1.0, "method": "duplicate", "s": 0.0, "fraction": 1.0, "R": 0.0}
#: What identifies a point of the paper's figures (besides the policy).
POINT = ["workload", "method", "s", "fraction", "R", "load"]

METRICS = ("deadline_rejected_pct", "deadline_rejected_area_pct", "utilization",
           "deadline_missed", "deadline_missed_pct", "deadline_max_lateness",
           "deadline_unfinished",
           "nondeadline_avg_response", "nondeadline_avg_slowdown", "nondeadline_rejected")


def run_table(exp_dir: Path):
    """The finished runs with columns workload, policy, seed, run_id, wall_time, the
    settings (load, method, s, fraction, R) and :data:`METRICS`."""
    import pandas as pd

    frame = finished_results(exp_dir)
    table = pd.DataFrame({"workload": frame["workload"].astype(str),
                          "policy": frame["policy"].astype(str),
                          "seed": frame["seed"], "run_id": frame["run_id"],
                          "wall_time": frame["wall_time"].astype(float)})
    for column, name in SETTING_COLUMNS.items():
        if column in frame:
            table[name] = frame[column]
        else:
            table[name] = SETTING_DEFAULTS[name]
    for name in ("load", "s", "fraction", "R"):
        table[name] = pd.to_numeric(table[name]).astype(float)
    for metric in METRICS:
        table[metric] = (pd.to_numeric(frame[metric], errors="coerce").astype(float)
                         if metric in frame else float("nan"))
    return table.reset_index(drop=True)


def main_runs(runs):
    """One run per setting: R = :data:`MAIN_RELAXATION` (or 0 in the reduced form).

    Picks the mixed runs of Figs. 13-54.  A 100 % deadline workload ignores
    R: the full form runs it under R = 5 only, but a directory swept with the
    single grid of earlier versions also holds equal copies under R = 2 and
    10, which this drops.
    """
    return runs[(runs["R"] == 0.0) | (runs["R"] == MAIN_RELAXATION)]


def point_means(runs):
    """Mean of every metric over seeds, one row per (point, policy)."""
    return runs.groupby(POINT + ["policy"])[list(METRICS)].mean().reset_index()


def pivot(means, metric: str, policies=ADMISSION + BASELINES):
    """``metric`` per point (rows) and policy (columns), only policies that ran."""
    table = means.pivot_table(index=POINT, columns="policy", values=metric)
    return table[[p for p in policies if p in table.columns]]
