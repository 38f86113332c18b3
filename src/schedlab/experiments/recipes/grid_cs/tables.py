"""The grid-cs tables: Table 5 beside the thesis', the figures of §4.2, §4.3.2, §5.1.5 and
§5.2.3 as numbers (means over repetitions), and what was left out.

Every table is a DataFrame in the dict :func:`tables` returns; a section
not run (a variant this schedlab lacks) gives an empty one, which the
findings read as "not measured".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedlab.experiments.recipes.grid_cs import design
from schedlab.experiments.recipes.grid_cs.paper import TABLE5_EXACT, TABLE5_GREEDY
from schedlab.experiments.recipes.grid_runs import (
    GridPart,
    LabelledPolicy,
    cluster_columns,
    clusters_of,
    draw,
    mean_table,
)
from schedlab.experiments.recipes.report import write_frame, write_rows

#: §4.2 figure -> (metric, scale, what it shows).
CS_FIGURES: dict[str, tuple[str, float, str]] = {
    "fig19": ("mean_jobs_in_system", 1.0, "jobs in the system (time average)"),
    "fig20": ("deadline_missed_pct", 1.0, "jobs that miss their deadline [%]"),
    "fig21": ("nondeadline_avg_slowdown", 1.0, "slowdown of jobs without deadline"),
    "fig22": ("machine_usage", 100.0, "machine usage [%]"),
    "fig23": ("scheduling_time_per_event_us", 1e-3, "scheduling time per event [ms]"),
}
#: §4.3.2 figure -> (metric, scale, what it shows), at every Ta.
MS_FIGURES: dict[str, tuple[str, float, str]] = {
    "fig31": ("deadline_missed_pct", 1.0, "jobs that miss their deadline [%]"),
    "fig32": ("nondeadline_avg_slowdown", 1.0, "slowdown of jobs without deadline"),
}
#: §5.2.3 figure -> (metric, scale, what it shows).
EGEDF_FIGURES: dict[str, tuple[str, float, str]] = {
    "fig39": ("deadline_missed_pct", 1.0, "jobs that miss their deadline [%]"),
    "fig39-usage": ("system_usage", 100.0, "system usage [%]"),
    "fig40": ("scheduling_time_per_event_us", 1e-3, "scheduling time per event [ms]"),
    "fig40-slowdown": ("avg_slowdown", 1.0, "average slowdown"),
}
#: The policies of Fig. 24 (the thesis: CS-incr, CS-noincr and EDF).
SCALABILITY = (*design.CS_LABELS, "EDF")
ADH_COLUMNS = ("mean_distance", "histogram_distance", "reconfigurations", "final_base",
               "deadline_missed")


def _section(runs, preset: str):
    """The runs on ``preset`` (an empty frame when there are none)."""
    if runs.empty:
        return runs
    return runs[runs["preset"] == preset]


def _by_ta(runs, metric: str, scale: float, labels) -> pd.DataFrame:
    if runs.empty:
        return pd.DataFrame()
    return mean_table(runs, "ta", metric, scale, labels, "Ta")


#: The matching's operations per scheduling event (stored by ``grid_runs``) -> column.
OPERATIONS = {"matching_augmenting_paths_per_event": "augmenting paths per event",
              "matching_entries_touched_per_event": "entries touched per event"}


def _per_policy_and_ta(runs, labels, columns: dict[str, str]) -> pd.DataFrame:
    """Means over repetitions per (policy, Ta) of ``columns`` (stored name -> column; a
    name no run stored is left out), policies in the order of ``labels``; scheduling time
    in ms."""
    cs = _section(runs, design.PRESET)
    if cs.empty:
        return pd.DataFrame()
    cs = cs[cs["label"].isin(labels)]
    present = {name: column for name, column in columns.items() if name in cs.columns}
    frame = cs.groupby(["label", "ta"])[list(present)].mean()
    if "scheduling_time_per_event_us" in frame:
        frame["scheduling_time_per_event_us"] *= 1e-3
    frame.columns = list(present.values())
    frame.index.names = ["policy", "Ta"]
    order = {label: k for k, label in enumerate(labels)}
    return frame.sort_index(key=lambda level: level.map(order) if level.name == "policy"
                            else level)


def scalability(runs) -> pd.DataFrame:
    """Fig. 24: per policy and Ta, the mean jobs in the system, the matching's operations
    per event (CS only) and the scheduling time per event [ms]: how the work grows with
    the jobs the scheduler sees."""
    return _per_policy_and_ta(runs, SCALABILITY, {"mean_jobs_in_system": "jobs in system",
                                                  **OPERATIONS,
                                                  "scheduling_time_per_event_us":
                                                      "ms per event"})


def operations(runs) -> pd.DataFrame:
    """Figs. 23–24 in operations: per CS version and Ta, the matching's augmenting paths
    and matrix entries touched per scheduling event (IMFS counted as it runs, MFS from
    scratch by :func:`~schedlab.policies.grid.convergent.matching.scratch_work`), then the
    wall-clock scheduling time per event [ms] (both matchers compiled, so it measures
    the implementations as much as the algorithms; the operations answer the thesis'
    question)."""
    frame = _per_policy_and_ta(runs, design.CS_LABELS, {
        **OPERATIONS, "scheduling_time_per_event_us": "ms per event"})
    if frame.empty or not set(OPERATIONS.values()) & set(frame.columns):
        return pd.DataFrame()
    return frame


def workload_profiles(runs, label: str) -> pd.DataFrame:
    """Fig. 19: the jobs in the system over the run (:data:`~..grid_runs.WORKLOAD_BINS`
    equal parts of it), mean over repetitions, one column per Ta, for policy ``label``."""
    cs = _section(runs, design.PRESET)
    if cs.empty or label not in set(cs["label"]):
        return pd.DataFrame()
    chosen = cs[cs["label"] == label]
    columns = {f"Ta {ta:g}": np.mean(np.array(list(group["workload_profile"])), axis=0)
               for ta, group in chosen.groupby("ta")}
    frame = pd.DataFrame(columns)
    frame.index.name = "part of the run"
    return frame


def cluster_load(runs) -> pd.DataFrame:
    """Fig. 30: the share of the estimated work the meta-scheduler sent to each cluster,
    per Ta (mean over repetitions) for the space-sharing CS, and the optimum (the
    clusters' share of the machines)."""
    ms = _section(runs, design.MS_PRESET)
    if ms.empty:
        return pd.DataFrame()
    cs = ms[ms["label"] == design.SPACE_SHARING_CS.label]
    clusters = clusters_of(cs)
    rows = {f"Ta {ta:g}": cluster_columns(group, clusters, "cluster_work_share").mean()
            for ta, group in cs.groupby("ta")}
    rows["Optimal"] = cluster_columns(cs, clusters, "cluster_share_optimum").mean()
    frame = pd.DataFrame(rows).T * 100
    frame.index.name = "work share [%]"
    return frame


def offered_load_frame(runs) -> pd.DataFrame:
    """Figs. 30–32: the offered load of the streams run at Ta = 5 (Figs. 31–32) and their
    licence cap, under each unit reading of
    :data:`~schedlab.experiments.recipes.grid_cs.offered_load.READINGS` (means over the
    repetitions run; the streams are drawn again, as the runs drew them)."""
    from schedlab.experiments.recipes.grid_cs.offered_load import unit_readings

    ms = _section(runs, design.MS_PRESET)
    if ms.empty:
        return pd.DataFrame()
    at = ms[ms["ta"] == design.MS_FIGURE_INTERARRIVAL]
    rows = []
    for jobs, rep in sorted(set(zip(at["jobs"].tolist(), at["rep"].tolist()))):
        part = GridPart(design.MS_PRESET, design.MS_RATIO, (design.MS_FIGURE_INTERARRIVAL,),
                        (int(rep),), int(jobs), ())
        platform, grid = draw(part.runs(LabelledPolicy("", "grid-fcfs"))[0])
        rows += [{**row, "jobs": int(jobs), "rep": int(rep)}
                 for row in unit_readings(grid, platform)]
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    table = frame.groupby("reading", sort=False)[["load", "deadline load",
                                                  "licence cap"]].mean()
    table["fits under the cap"] = frame.groupby("reading", sort=False)[
        "fits under the cap"].all()
    table["streams"] = frame.groupby("reading", sort=False)["rep"].nunique()
    return table


def table5_frame(results: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Table 5 from the stored tasks: rows (licence ratio, method), usage in %."""
    rows = [row for result in results.values() if "rows" in result for row in result["rows"]]
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame([{
        "licence ratio": f"[{r['ratio'][0]:.0%} - {r['ratio'][1]:.0%}]", "method": r["method"],
        "instances": r["instances"], "time (ms)": r["time_ms"], "Sml (%)": 100 * r["smallest"],
        "Avg (%)": 100 * r["average"], "Bst (%)": 100 * r["best"],
        "value / exact": r["value_vs_exact"], "unproven": r["unproven"]} for r in rows])
    return frame.set_index(["licence ratio", "method"]).sort_index()


def adh_frame(results: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """§5.1.5: per stream and classifier, the means over the seeds of the ADH summary."""
    rows = [run for result in results.values() if "runs" in result for run in result["runs"]]
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    summary = frame.groupby(["stream", "classifier"], sort=False)[list(ADH_COLUMNS)].mean()
    summary["seeds"] = frame.groupby(["stream", "classifier"], sort=False)["seed"].nunique()
    return summary


def left_out_frame() -> pd.DataFrame:
    """The variants of the design this schedlab cannot run yet, and what they need."""
    rows = [{"policy": v.label, "section": section, "needs": v.needs}
            for section, variants in (("4.2-cs", design.cs_variants()),
                                      ("4.3.2-ms-cs", (design.SPACE_SHARING_CS,)))
            for v in design.left_out(variants)]
    return pd.DataFrame(rows, columns=["policy", "section", "needs"]).set_index("policy")


def tables(runs, tasks: dict[str, dict[str, Any]]) -> dict[str, pd.DataFrame]:
    """Every table as a DataFrame, by name (empty where the section was not run)."""
    cs_labels = [v.label for v in design.cs_variants()]
    ms_labels = [v.label for v in (design.SPACE_SHARING_CS, *design.MS_BASELINES)]
    egedf_labels = list(design.EGEDF_LABELS.values())
    cs, ms, egedf = (_section(runs, p) for p in (design.PRESET, design.MS_PRESET,
                                                  design.EGEDF_PRESET))
    out = {name: _by_ta(cs, metric, scale, cs_labels)
           for name, (metric, scale, _) in CS_FIGURES.items()}
    out["fig19-profile"] = workload_profiles(runs, design.profile_label())
    out["fig23-ops"] = operations(runs)
    out["fig24"] = scalability(runs)
    out["fig30"] = cluster_load(runs)
    out["offered-load"] = offered_load_frame(runs)
    out.update({name: _by_ta(ms, metric, scale, ms_labels)
                for name, (metric, scale, _) in MS_FIGURES.items()})
    out.update({name: _by_ta(egedf, metric, scale, egedf_labels)
                for name, (metric, scale, _) in EGEDF_FIGURES.items()})
    out["table5"] = table5_frame({k: v for k, v in tasks.items() if k.startswith("table5")})
    out["adh"] = adh_frame({k: v for k, v in tasks.items() if k.startswith("adh")})
    out["left-out"] = left_out_frame()
    return out


def table5_beside_paper(ours: pd.DataFrame) -> list[dict[str, str]]:
    """Rows ``licence ratio, method, source, time, Sml, Avg, Bst``: the thesis' row, then
    ours, per ratio and method (the thesis' branch & bound is our exact MILP)."""
    rows = []
    for method, paper in (("exact", TABLE5_EXACT), ("greedy", TABLE5_GREEDY)):
        for ratio, (time_ms, sml, avg, bst) in paper.items():
            rows.append({"licence ratio": ratio, "method": method, "source": "thesis",
                         "time (ms)": f"{time_ms:.2f}", "Sml (%)": f"{100 * sml:.0f}",
                         "Avg (%)": "illegible" if avg is None else f"{100 * avg:.0f}",
                         "Bst (%)": f"{100 * bst:.0f}", "value / exact": ""})
            if (ratio, method) in ours.index:
                r = ours.loc[(ratio, method)]
                rows.append({"licence ratio": ratio, "method": method, "source": "schedlab",
                             "time (ms)": f"{r['time (ms)']:.2f}",
                             "Sml (%)": f"{r['Sml (%)']:.1f}", "Avg (%)": f"{r['Avg (%)']:.1f}",
                             "Bst (%)": f"{r['Bst (%)']:.1f}",
                             "value / exact": f"{r['value / exact']:.4f}"})
    return rows


def write_tables(frames: dict[str, pd.DataFrame], out: Path) -> dict[str, Path]:
    """Every non-empty table as CSV and Markdown; Table 5 beside the thesis'."""
    written: dict[str, Path] = {}
    for name, frame in frames.items():
        if name == "table5" or frame.empty:
            continue
        written.update(write_frame(frame, out, name, digits=3 if name == "adh" else 2))
    if not frames["table5"].empty:
        written.update(write_frame(frames["table5"], out, "table5-schedlab", digits=2))
    written.update(write_rows(table5_beside_paper(frames["table5"]), out, "table5"))
    return written
