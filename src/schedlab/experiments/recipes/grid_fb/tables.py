"""The §4.1 tables: Figs. 16–18 as numbers (mean over repetitions per Ta and policy) and
Tables 2–3 beside the thesis'; the §4.3.1 tables: Figs. 25–29 as numbers (mean over
repetitions) and the three configurations over every Ta."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.recipes.grid_fb.design import (
    CASES,
    LICENCE_RATIOS,
    MS_FIGURE_INTERARRIVAL,
    MS_PRESET,
    POLICIES,
    PRESET,
    TABLE_INTERARRIVAL,
)
from schedlab.experiments.recipes.grid_fb.paper import TABLE2, TABLE3
from schedlab.experiments.recipes.grid_runs import cluster_columns, clusters_of, mean_table
from schedlab.experiments.recipes.report import write_frame, write_rows

#: Figure -> (metric, scale, what it shows).
FIGURE_METRICS: dict[str, tuple[str, float, str]] = {
    "fig16": ("deadline_missed_pct", 1.0, "jobs that miss their deadline [%]"),
    "fig17": ("system_usage", 100.0, "system usage [%]"),
    "fig18": ("avg_slowdown", 1.0, "average slowdown"),
}
LABELS = tuple(POLICIES.values())


def _local(runs):
    """The runs of §4.1 (one cluster, no dispatcher)."""
    return runs[(runs["preset"] == PRESET) & (runs["dispatch"] == "")]


def by_interarrival(runs, metric: str, scale: float = 1.0):
    """Mean of ``metric`` × ``scale`` over repetitions: rows Ta, columns the policies
    (Table 1's licence ratio)."""
    table1 = f"{LICENCE_RATIOS[-1][0] * 100:.0f}% - {LICENCE_RATIOS[-1][1] * 100:.0f}%"
    data = _local(runs)
    return mean_table(data[data["ratio"] == table1], "ta", metric, scale, LABELS, "Ta")


def by_licence_ratio(runs, metric: str, scale: float = 1.0):
    """Mean of ``metric`` × ``scale`` over repetitions: rows the licence ratio, columns the
    policies, at Ta = :data:`TABLE_INTERARRIVAL`."""
    data = _local(runs)
    return mean_table(data[data["ta"] == TABLE_INTERARRIVAL], "ratio", metric, scale, LABELS,
                      "licence ratio")


def beside_paper(ours, paper: dict[str, dict[str, float]]) -> list[dict[str, str]]:
    """Rows ``licence ratio, source, FCFS, ...``: the thesis' row, then ours, per ratio."""
    rows = []
    for ratio, values in paper.items():
        rows.append({"licence ratio": ratio, "source": "thesis",
                     **{p: f"{values[p]:.1f}" for p in LABELS}})
        if ratio in ours.index:
            rows.append({"licence ratio": ratio, "source": "schedlab",
                         **{p: f"{ours.loc[ratio, p]:.1f}" if p in ours.columns else ""
                            for p in LABELS}})
    return rows


# ------------------------------------------------------------------------ §4.3.1
#: Figs. 26–29 (per cluster, at Ta = 5) -> (per-cluster metric, whole-platform metric, scale,
#: what it shows).
CLUSTER_FIGURES: dict[str, tuple[str, str, float, str]] = {
    "fig26": ("cluster_nondeadline_avg_slowdown", "nondeadline_avg_slowdown", 1.0,
              "average slowdown of jobs without deadline"),
    "fig27": ("cluster_deadline_missed_pct", "deadline_missed_pct", 1.0,
              "jobs that miss their deadline [%]"),
    "fig28": ("cluster_system_usage", "system_usage", 100.0, "system usage [%]"),
    "fig29": ("cluster_licence_usage", "licence_usage", 100.0, "licence usage [%]"),
}
#: The columns of ``ms_over_ta``: metric -> (scale, header).
MS_TA_METRICS: dict[str, tuple[float, str]] = {
    "deadline_missed_pct": (1.0, "Out Deadline [%]"),
    "system_usage": (100.0, "system usage [%]"),
    "licence_usage": (100.0, "licence usage [%]"),
    "nondeadline_avg_slowdown": (1.0, "slowdown, no deadline"),
    "share_deviation": (100.0, "work share deviation [%]"),
    "scheduling_time_per_event_us": (1.0, "scheduling time per event [µs]"),
}
#: The column of the whole platform's metric in the per-cluster tables (not a mean of the
#: clusters': e.g. its system usage counts a cluster's idle CPUs against jobs queued elsewhere).
ALL = "platform"


def _meta(runs):
    """The runs of §4.3.1 (the four clusters, a dispatcher), with the clusters' names (in
    the order the runs store them)."""
    data = runs[(runs["preset"] == MS_PRESET) & (runs["dispatch"] != "")]
    return data, clusters_of(data)


def work_shares(runs):
    """Fig. 25: each cluster's share of the dispatched work [%], mean over repetitions; rows
    (configuration, Ta), columns the clusters."""
    data, clusters = _meta(runs)
    shares = cluster_columns(data, clusters, "cluster_work_share") * 100.0
    shares[["configuration", "Ta"]] = data[["label", "ta"]]
    frame = shares.groupby(["configuration", "Ta"]).mean()
    return frame.reindex([c for c in CASES if c in frame.index.get_level_values(0)], level=0)


def share_optimum(runs):
    """Fig. 25's *Optimal*: each cluster's share of the machines [%]."""
    data, clusters = _meta(runs)
    return cluster_columns(data, clusters, "cluster_share_optimum").iloc[0] * 100.0


def by_cluster(runs, name: str):
    """One of Figs. 26–29 at Ta = :data:`MS_FIGURE_INTERARRIVAL`: mean over repetitions,
    rows the configurations, columns the clusters and the whole platform (:data:`ALL`)."""
    metric, whole, scale, _ = CLUSTER_FIGURES[name]
    data, clusters = _meta(runs)
    data = data[data["ta"] == MS_FIGURE_INTERARRIVAL]
    frame = cluster_columns(data, clusters, metric)
    frame[ALL] = data[whole]
    frame["configuration"] = data["label"]
    frame = frame.groupby("configuration").mean() * scale
    return frame.reindex([c for c in CASES if c in frame.index])


def over_interarrival(runs):
    """The three configurations at every Ta (the thesis shows Figs. 26–29 at Ta = 5 only):
    rows (Ta, configuration), columns :data:`MS_TA_METRICS`, mean over repetitions.
    ``share_deviation`` is half the sum over clusters of |work share - machine share|."""
    data, clusters = _meta(runs)
    data = data.assign(share_deviation=(
        cluster_columns(data, clusters, "cluster_work_share")
        - cluster_columns(data, clusters, "cluster_share_optimum")).abs().sum(axis=1) / 2)
    frame = data.groupby(["ta", "label"])[list(MS_TA_METRICS)].mean()
    frame = frame * [scale for scale, _ in MS_TA_METRICS.values()]
    frame.index.names = ["Ta", "configuration"]
    order = {c: k for k, c in enumerate(CASES)}
    return frame.sort_index(key=lambda level: level.map(order) if level.name ==
                            "configuration" else level)


def meta_scheduler_tables(runs) -> dict[str, Any]:
    """§4.3.1's tables by name: fig25 (with fig25_optimum), fig26–fig29, ms_over_ta; none
    when the runs hold no §4.3.1 run."""
    if not _meta(runs)[1]:
        return {}
    out = {"fig25": work_shares(runs), "fig25_optimum": share_optimum(runs)}
    out.update({name: by_cluster(runs, name) for name in CLUSTER_FIGURES})
    out["ms_over_ta"] = over_interarrival(runs)
    return out


def fig25_printed(frames):
    """Fig. 25 as printed: the optimum first, then each configuration at each Ta; rows
    (configuration, Ta) with Ta as text, the shares in %."""
    import pandas as pd

    optimum = frames["fig25_optimum"].to_frame().T
    optimum.index = pd.MultiIndex.from_tuples([("optimum (machine share)", "")])
    shares = frames["fig25"].copy()
    shares.index = pd.MultiIndex.from_tuples([(case, f"{ta:g}") for case, ta in shares.index])
    frame = pd.concat([optimum, shares])
    frame.index.names = ["configuration", "Ta"]
    return frame


def tables(runs) -> dict[str, Any]:
    """Every table as a DataFrame, by name: fig16–fig18, table2, table3 (§4.1); fig25–fig29,
    ms_over_ta (§4.3.1)."""
    out = {name: by_interarrival(runs, metric, scale)
           for name, (metric, scale, _) in FIGURE_METRICS.items()}
    out["table2"] = by_licence_ratio(runs, "licence_usage", 100.0)
    out["table3"] = by_licence_ratio(runs, "deadline_missed_pct")
    out.update(meta_scheduler_tables(runs))
    return out


def write_tables(frames: dict[str, Any], out: Path) -> dict[str, Path]:
    """The figures' numbers as CSV and Markdown; Tables 2–3 beside the thesis'."""
    written: dict[str, Path] = {}
    for name in FIGURE_METRICS:
        written.update(write_frame(frames[name], out, name, digits=2))
    written.update(write_rows(beside_paper(frames["table2"], TABLE2), out, "table2"))
    written.update(write_rows(beside_paper(frames["table3"], TABLE3), out, "table3"))
    if "fig25" in frames:
        written.update(write_frame(fig25_printed(frames), out, "fig25", digits=1))
        for name in CLUSTER_FIGURES:
            written.update(write_frame(frames[name], out, name, digits=2))
        headers = {metric: header for metric, (_, header) in MS_TA_METRICS.items()}
        written.update(write_frame(frames["ms_over_ta"].rename(columns=headers), out,
                                   "ms_over_ta", digits=2))
    return written
