"""The stored runs as one table (a line label per policy setting, metrics, dynP statistics)
and lookups into it.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.recipes.dynp.design import (
    DECIDERS,
    FIRST_JOB,
    JOB_SETS,
    PLAN_FCFS,
    QUALITY_METRICS,
)
from schedlab.experiments.recipes.dynp.paper import PAPER_SET
from schedlab.experiments.recipes.report import finished_results

METRIC_NAMES = {"artww": "ARTwW", "art": "ART", "ms": "MS"}
SINGLE_NAMES = {"fcfs": "FCFS", "sjf": "SJF", "ljf": "LJF"}

#: The lines of the paper's figures (our line labels).
SINGLE_LINES = tuple(SINGLE_NAMES.values())
CONSERVATIVE_LINES = tuple(f"{name} cons." for name in SINGLE_NAMES.values())
BASIC_LINE = "basic dynP"
ADVANCED_LINE = "advanced ARTwW"
DYNP_LINES = tuple(f"{d} {METRIC_NAMES[m]}" for d in DECIDERS for m in QUALITY_METRICS)
FIRST_JOB_SUFFIX = " (1st job)"
FIRST_JOB_LINES = tuple(f"{d} ARTwW{FIRST_JOB_SUFFIX}" for d in DECIDERS)
PLAN_FCFS_SUFFIX = " (plan-order FCFS)"
PLAN_FCFS_LINES = tuple(f"{d} ARTwW{PLAN_FCFS_SUFFIX}" for d in DECIDERS)

#: Columns of the run table besides the metrics.
METRICS = ("artww", "avg_response", "avg_wait", "sldww_60", "sldww_300", "utilization",
           "loss_of_capacity")
STATS = ("jobs_started", "decisions", "switches", "same_policy", "avg_backlog", "cases")


def line_label(policy: str, decider: Any, metric: Any, future_jobs: Any = None,
               fcfs_order: Any = None) -> str:
    """The legend label of a run: ``SJF``, ``LJF cons.``, ``basic dynP``, ``advanced ARTwW``,
    ``simple ARTwW (1st job)``, ``advanced ARTwW (plan-order FCFS)``."""
    order, _, mode = policy.partition("+")
    if mode == "plan":
        return SINGLE_NAMES[order]
    if mode == "conservative":
        return f"{SINGLE_NAMES[order]} cons."
    if policy == "dynp-basic":
        return BASIC_LINE
    first = FIRST_JOB_SUFFIX if future_jobs == FIRST_JOB["future_jobs"] else ""
    plan = PLAN_FCFS_SUFFIX if fcfs_order == PLAN_FCFS["fcfs_order"] else ""
    return f"{decider} {METRIC_NAMES[metric]}{first}{plan}"


def optional_column(frame, name: str):
    """``frame[name]`` with None where a run has no value, or all None when no run has it."""
    import pandas as pd

    if name not in frame:
        return pd.Series([None] * len(frame), dtype=object)
    column = frame[name].astype(object)
    return column.where(frame[name].notna(), None)


def run_table(exp_dir):
    """The finished runs: workload, line, shrink, perfect, :data:`METRICS`, wall_time and the
    policy statistics of dynP runs (:data:`STATS`, JSON decoded; None for other policies)."""
    import json

    import pandas as pd

    frame = finished_results(exp_dir)
    table = pd.DataFrame({
        "workload": frame["workload"].astype(str),
        "line": [line_label(*labels) for labels in
                 zip(frame["policy"], optional_column(frame, "param.decider"),
                     optional_column(frame, "param.metric"),
                     optional_column(frame, "param.future_jobs"),
                     optional_column(frame, "param.fcfs_order"))],
        "shrink": frame["transform.shrink"].astype(float),
        "perfect": frame["transform.perfect_estimates"].astype(bool),
        "wall_time": frame["wall_time"].astype(float),
    })
    for metric in METRICS:
        table[metric] = pd.to_numeric(frame[metric], errors="coerce").astype(float)
    for stat in STATS:
        values = optional_column(frame, f"stat.{stat}")
        table[stat] = [json.loads(v) if isinstance(v, str) else v for v in values]
    return table


def pick(runs, workload: str, line: str, shrink: float, perfect: bool = False):
    """The run of one point (a row), or None when it was not run."""
    found = runs[(runs["workload"] == workload) & (runs["line"] == line)
                 & (runs["shrink"] == shrink) & (runs["perfect"] == perfect)]
    return None if found.empty else found.iloc[0]


def value(runs, workload: str, line: str, shrink: float, metric: str,
          perfect: bool = False) -> float | None:
    """One metric of one point, or None when the point was not run."""
    row = pick(runs, workload, line, shrink, perfect)
    return None if row is None else float(row[metric])


def shrinks(runs, workload: str) -> list[float]:
    """The shrinking factors run on a job set, largest (lightest load) first."""
    return sorted(runs.loc[runs["workload"] == workload, "shrink"].unique(), reverse=True)


def workloads(runs) -> list[str]:
    """Our job sets in the order of :data:`JOB_SETS` (KTH_syn first)."""
    present = set(runs["workload"])
    return [s.ours for s in JOB_SETS if s.ours in present]


def reference(workload: str) -> float:
    """The factor of a job set's Tables 4–6 and findings "at 1.00" (:class:`JobSet`)."""
    return next(s.reference for s in JOB_SETS if s.ours == workload)


def title(workload: str) -> str:
    """A diagram title: our job set and, for a stand-in, the paper's set it stands for."""
    paper = PAPER_SET.get(workload, workload)
    return workload if paper == workload else f"{workload} (for {paper})"


def started_share(run, policy: str) -> float:
    total = sum(run["jobs_started"].values())
    return run["jobs_started"].get(policy, 0) / total if total else 0.0
