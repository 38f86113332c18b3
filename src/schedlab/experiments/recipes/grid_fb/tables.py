"""The §4.1 tables: Figs. 16–18 as numbers (mean over repetitions per Ta and policy) and
Tables 2–3 beside the thesis'."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.grid_fb.design import (LICENCE_RATIOS, POLICIES, PRESET,
                                                         TABLE_INTERARRIVAL)
from schedlab.experiments.recipes.grid_fb.paper import TABLE2, TABLE3
from schedlab.experiments.recipes.grid_runs import mean_table
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


def tables(runs) -> dict[str, object]:
    """Every table as a DataFrame, by name: fig16–fig18, table2, table3."""
    out = {name: by_interarrival(runs, metric, scale)
           for name, (metric, scale, _) in FIGURE_METRICS.items()}
    out["table2"] = by_licence_ratio(runs, "licence_usage", 100.0)
    out["table3"] = by_licence_ratio(runs, "deadline_missed_pct")
    return out


def write_tables(frames: dict[str, object], out: Path) -> dict[str, Path]:
    """The figures' numbers as CSV and Markdown; Tables 2–3 beside the thesis'."""
    written: dict[str, Path] = {}
    for name in FIGURE_METRICS:
        written.update(write_frame(frames[name], out, name, digits=2))
    written.update(write_rows(beside_paper(frames["table2"], TABLE2), out, "table2"))
    written.update(write_rows(beside_paper(frames["table3"], TABLE3), out, "table3"))
    return written
