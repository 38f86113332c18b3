"""Tables 1-10 side by side with the paper, gang against fcfs+easy, and the run times."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.recipes.gang.design import BASELINE, STRATEGIES
from schedlab.experiments.recipes.gang.paper import (
    PAPER_BY_SLOT,
    PAPER_SHARES_S1,
    PAPER_SHARES_S2,
    PAPER_SHARES_S3,
    PAPER_SLOTS_MEAN,
    PAPER_SLOTS_MEAN_S3,
    PAPER_SLOWDOWN,
    PAPER_SLOWDOWN_SHORT,
    paper_shares,
    paper_value,
    weighted_mean,
)
from schedlab.experiments.recipes.gang.runs import slots, value, workloads
from schedlab.experiments.recipes.report import write_rows


def cell(number: float | None) -> str:
    """A number printed with three significant digits as the paper prints them; ``—``
    when absent."""
    if number is None or number != number:
        return "—"
    return f"{number:.3g}" if abs(number) < 1000 else f"{number:,.0f}"


def share_cell(number: float | None) -> str:
    return "—" if number is None or number != number else f"{number:.1f}"


def side_by_side(runs, label: str, paper_rows, ours, fmt=cell) -> list[dict[str, str]]:
    """Rows "X (paper)" and "X (ours)" for each X of ``paper_rows`` (X -> workload -> value
    function of the paper, or None) and ``ours`` (X -> workload -> our value or None)."""
    rows = []
    for key, paper in paper_rows.items():
        for source, get in (("paper", paper), ("ours", ours[key])):
            row = {label: f"{key} ({source})"}
            row.update({w: fmt(get(w)) for w in workloads(runs)})
            rows.append(row)
    return rows


def slowdown_rows(runs, column: str, paper: dict[int, tuple]) -> list[dict[str, str]]:
    """Tables 1 and 2: Strategy 1 and 2 at l = 1, paper and ours; and the baseline."""
    rows = side_by_side(
        runs, "strategy",
        {f"Strategy {k}": (lambda w, r=row: paper_value(r, w)) for k, row in paper.items()},
        {f"Strategy {k}": (lambda w, k=k: value(runs, w, k, 1, column)) for k in paper})
    rows.append({"strategy": f"{BASELINE} (ours)",
                 **{w: cell(value(runs, w, 0, 0, column)) for w in workloads(runs)}})
    return rows


def shares_rows(runs, strategy: int, slot: int, paper: dict[int, tuple], table: str,
                paper_mean: tuple | None) -> list[dict[str, str]]:
    """Tables 3, 4 and 10: percent of time with k slots, paper and ours, then the
    average row (Table 5 or Table 10's last row) and the identity Σ k·share(k)."""
    rows = side_by_side(
        runs, "slots",
        {str(k): (lambda w, k=k: paper_shares(paper, w, table)[k]) for k in paper},
        {str(k): (lambda w, k=k: value(runs, w, strategy, slot, f"pct_{k}")) for k in paper},
        fmt=share_cell)
    identity = {"slots": "Σ k·share(k)/100 (paper)"}
    identity.update({w: f"{weighted_mean(paper_shares(paper, w, table)):.3f}"
                     for w in workloads(runs)})
    rows.append(identity)
    if paper_mean is not None:
        rows.append({"slots": "average (paper)",
                     **{w: f"{paper_value(paper_mean, w):.2f}" for w in workloads(runs)}})
    rows.append({"slots": "average (ours)",
                 **{w: share_mean_cell(value(runs, w, strategy, slot, "slots_mean"))
                    for w in workloads(runs)}})
    return rows


def share_mean_cell(number: float | None) -> str:
    return "—" if number is None else f"{number:.2f}"


def by_slot_rows(runs, strategy: int, kind: str) -> list[dict[str, str]]:
    """Tables 6-9: slowdown (all or short jobs) against the slot length, paper and ours."""
    column = "slowdown" if kind == "all" else "slowdown_short"
    paper = PAPER_BY_SLOT[(strategy, kind)]
    return side_by_side(
        runs, "slot length",
        {str(l): (lambda w, r=paper[l]: paper_value(r, w)) for l in slots(runs) if l in paper},
        {str(l): (lambda w, l=l: value(runs, w, strategy, l, column))
         for l in slots(runs) if l in paper})


def versus_rows(runs) -> list[dict[str, str]]:
    """Gang against fcfs+easy per workload: slowdown of all and short jobs of the
    baseline, of every strategy at the shortest and the longest slot, and utilization."""
    rows = []
    shortest, longest = slots(runs)[0], slots(runs)[-1]
    lines = [(BASELINE, 0, 0)] + [(f"Strategy {k}, l = {l}", k, l) for k in STRATEGIES
                                   for l in dict.fromkeys((shortest, longest))]
    for column in ("slowdown", "slowdown_short", "utilization"):
        for label, strategy, slot in lines:
            row = {"line": f"{label}: {column.replace('_', ' ')}"}
            row.update({w: cell(value(runs, w, strategy, slot, column))
                        for w in workloads(runs)})
            rows.append(row)
    return rows


def write_tables(runs, out) -> dict[str, Path]:
    """Tables 1-10 side by side with the paper, gang against fcfs+easy, and the run times
    (``NAME.csv`` and ``NAME.md`` each)."""
    longest = slots(runs)[-1]
    named = [("table1_slowdown_all", slowdown_rows(runs, "slowdown", PAPER_SLOWDOWN)),
             ("table2_slowdown_short",
              slowdown_rows(runs, "slowdown_short", PAPER_SLOWDOWN_SHORT)),
             ("table3_5_slots_s1",
              shares_rows(runs, 1, 1, PAPER_SHARES_S1, "table3", PAPER_SLOTS_MEAN[1])),
             ("table4_5_slots_s2",
              shares_rows(runs, 2, 1, PAPER_SHARES_S2, "table4", PAPER_SLOTS_MEAN[2]))]
    named += [(f"table{number}_s{strategy}_{kind}_by_slot", by_slot_rows(runs, strategy, kind))
              for number, (strategy, kind) in zip((6, 7, 8, 9), PAPER_BY_SLOT)]
    named += [("table10_slots_s3",
               shares_rows(runs, 3, longest, PAPER_SHARES_S3, "table10",
                           PAPER_SLOTS_MEAN_S3 if longest == 200 else None)),
              ("gang_vs_easy", versus_rows(runs)), ("run_times", speed_rows(runs))]
    tables: dict[str, Path] = {}
    for name, rows in named:
        tables.update(write_rows(rows, out, name))
    return tables


def speed_rows(runs) -> list[dict[str, Any]]:
    """Wall time and rounds of every gang run of the heaviest workload run."""
    heaviest = workloads(runs)[-1]
    mine = runs[(runs["workload"] == heaviest) & (runs["strategy"] > 0)]
    return [{"workload": heaviest, "strategy": int(r.strategy), "slot length": int(r.slot),
             "rounds": f"{int(r.rounds):,}", "seconds": f"{r.wall_time:.2f}"}
            for r in mine.sort_values(["strategy", "slot"]).itertuples()]
