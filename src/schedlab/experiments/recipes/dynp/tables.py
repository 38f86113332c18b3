"""Tables 4-6 analogues, the case mix against the load and the numbers of every curve."""

from __future__ import annotations

from typing import Any

from schedlab.experiments.recipes.dynp.design import DECIDERS, QUALITY_METRICS, SINGLE
from schedlab.experiments.recipes.dynp.paper import (
    DIFFERS_FROM_SIMPLE,
    KEEPS_CURRENT,
    PAPER_SET,
    TABLE4,
    TABLE5,
    TABLE5_ROWS,
    TABLE6,
    TABLE6_TOTALS,
)
from schedlab.experiments.recipes.dynp.runs import (
    ADVANCED_LINE,
    METRIC_NAMES,
    PLAN_FCFS_SUFFIX,
    pick,
    reference,
    shrinks,
    started_share,
    title,
    workloads,
)
from schedlab.experiments.recipes.report import write_rows


def cell(number: float | None, digits: int = 0) -> str:
    """A number as printed in the tables: thousands separated, ``—`` when absent."""
    if number is None or number != number:
        return "—"
    return f"{number:,.{digits}f}"


def started(row, policy: str) -> int | None:
    """Jobs started while ``policy`` was dynP's current policy (Tables 4, 5)."""
    return None if row is None or row["jobs_started"] is None else \
        int(row["jobs_started"].get(policy, 0))


def table4_rows(runs) -> list[dict[str, Any]]:
    """Table 4: simple vs advanced decider, three quality metrics, factor 1.00, ours / paper."""
    measures = (("ARTwW [s]", lambda r: cell(r["artww"]), 0, 0),
                ("UTIL [%]", lambda r: cell(100 * r["utilization"], 2), 1, 2),
                ("LOC", lambda r: cell(r["loss_of_capacity"], 5), 2, 5),
                ("jobs started with SJF", lambda r: cell(started(r, "sjf")), 3, 0),
                ("jobs started with FCFS", lambda r: cell(started(r, "fcfs")), 4, 0),
                ("jobs started with LJF", lambda r: cell(started(r, "ljf")), 5, 0))
    rows = []
    for workload in workloads(runs):
        paper = TABLE4.get(PAPER_SET[workload], {})
        factor = reference(workload)
        for measure, ours, index, digits in measures:
            row: dict[str, Any] = {"job set": title(workload), "measure": measure}
            for decider in DECIDERS:
                for metric in QUALITY_METRICS:
                    run = pick(runs, workload, f"{decider} {METRIC_NAMES[metric]}", factor)
                    numbers = paper.get((decider, metric))
                    row[f"{decider} {METRIC_NAMES[metric]}"] = (
                        f"{'—' if run is None else ours(run)} / "
                        f"{'—' if numbers is None else cell(numbers[index], digits)}")
            rows.append(row)
    return rows


def table5_values(row) -> tuple[float | None, ...]:
    """Our numbers for the rows of Table 5 from the advanced ARTwW run at factor 1.00."""
    decisions = row["decisions"] or 0
    switches = row["switches"] or {}
    def share(n):
        return (100 * n / decisions if decisions else None)
    return (row["avg_response"] - row["avg_wait"], row["avg_wait"], row["avg_response"],
            row["artww"], 100 * row["utilization"], row["loss_of_capacity"],
            started(row, "sjf"), started(row, "fcfs"), started(row, "ljf"), decisions,
            share(switches.get("sjf", 0)), share(switches.get("fcfs", 0)),
            share(switches.get("ljf", 0)), share(row["same_policy"] or 0), row["avg_backlog"])


TABLE5_DIGITS = (0, 0, 0, 0, 2, 5, 0, 0, 0, 0, 2, 2, 2, 2, 2)


def table5_rows(runs) -> list[dict[str, Any]]:
    """Table 5: the advanced decider with ARTwW at factor 1.00 in detail, ours and paper."""
    columns = {}
    for workload in workloads(runs):
        run = pick(runs, workload, ADVANCED_LINE, reference(workload))
        if run is not None:
            columns[workload] = (table5_values(run), TABLE5.get(PAPER_SET[workload]))
    rows = []
    for k, name in enumerate(TABLE5_ROWS):
        row: dict[str, Any] = {"measure": name}
        for workload, (ours, paper) in columns.items():
            row[f"{workload} (ours)"] = cell(ours[k], TABLE5_DIGITS[k])
            row[f"{PAPER_SET[workload]} (paper)"] = \
                "—" if paper is None else cell(paper[k], TABLE5_DIGITS[k])
        rows.append(row)
    return rows


def table6_counts(cases: dict[str, int]) -> dict[str, int]:
    """Our case counts grouped into the rows of Table 6 (``deciders.TABLE6_ROWS``)."""
    from schedlab.policies.deciders import TABLE6_ROWS

    return {row: sum(cases.get(label, 0) for label in labels)
            for row, labels in TABLE6_ROWS.items()}


def with_summary_rows(counts: dict[str, int], total: int | None = None) -> dict[str, int]:
    """Table 6's rows plus its total, 'differences to the simple decider' and 'taking the
    current policy' (§5.2).  ``total`` defaults to the sum of the rows (the number of
    decisions); the paper's printed totals are :data:`TABLE6_TOTALS`."""
    return {**counts, "total": sum(counts.values()) if total is None else total,
            "differences to the simple decider (1+6b+8c+10c)":
                sum(counts[c] for c in DIFFERS_FROM_SIMPLE),
            "taking the current policy (1+5+6a+6b+8a+8c+10b+10c)":
                sum(counts[c] for c in KEEPS_CURRENT)}


def count_and_share(count: int, total: int) -> str:
    return f"{count:,} ({100 * count / total:.1f} %)" if total else f"{count:,}"


def table6_rows(runs) -> list[dict[str, Any]]:
    """Table 6: how often each case of Table 1 occurred (advanced, ARTwW, factor 1.00)."""
    columns: dict[str, dict[str, int] | None] = {}
    for workload in workloads(runs):
        run = pick(runs, workload, ADVANCED_LINE, reference(workload))
        if run is not None and run["cases"]:
            columns[f"{workload} (ours)"] = with_summary_rows(table6_counts(run["cases"]))
            kept = pick(runs, workload, ADVANCED_LINE + PLAN_FCFS_SUFFIX, reference(workload))
            if kept is not None and kept["cases"]:
                columns[f"{workload} (ours, plan-order FCFS)"] = \
                    with_summary_rows(table6_counts(kept["cases"]))
            paper = TABLE6.get(PAPER_SET[workload])
            columns[f"{PAPER_SET[workload]} (paper)"] = None if paper is None else \
                with_summary_rows(paper, TABLE6_TOTALS[PAPER_SET[workload]])
    counted = [counts for counts in columns.values() if counts is not None]
    if not counted:
        return []
    rows = []
    for name in counted[0]:
        row: dict[str, Any] = {"case": name}
        for label, counts in columns.items():
            row[label] = "—" if counts is None else count_and_share(counts[name],
                                                                    counts["total"])
        rows.append(row)
    return rows


def cases_by_shrink_rows(runs) -> list[dict[str, Any]]:
    """The share of each Table 6 row against the shrinking factor (advanced, ARTwW):
    how the case mix moves with the load, beyond the paper's single factor 1.00."""
    rows = []
    for workload in workloads(runs):
        for shrink in shrinks(runs, workload):
            run = pick(runs, workload, ADVANCED_LINE, shrink)
            if run is None or not run["cases"]:
                continue
            counts = table6_counts(run["cases"])
            total = sum(counts.values())
            row: dict[str, Any] = {"job set": workload, "shrinking factor": shrink,
                                   "decisions": total,
                                   "average backlog": cell(run["avg_backlog"], 1)}
            row.update({name: f"{100 * n / total:.1f}" if total else "—"
                        for name, n in counts.items()})
            rows.append(row)
    return rows


def curve_rows(runs) -> list[dict[str, Any]]:
    """Every run's figure metrics, the numbers behind Figs. 2–8."""
    ordered = runs.sort_values(["workload", "perfect", "line", "shrink"],
                               ascending=[True, True, True, False])
    return [{"job set": r.workload, "policy": r.line, "shrinking factor": r.shrink,
             "perfect estimates": bool(r.perfect), "ARTwW [s]": round(r.artww),
             "SLDwW_60": round(r.sldww_60, 2), "SLDwW_300": round(r.sldww_300, 2),
             "utilization": round(r.utilization, 4), "LOC": round(r.loss_of_capacity, 4),
             "avg backlog": "" if r.avg_backlog is None else round(r.avg_backlog, 1),
             "wall time [s]": round(r.wall_time, 2)}
            for r in ordered.itertuples()]


def fcfs_reading_rows(runs) -> list[dict[str, Any]]:
    """Both readings of the FCFS candidate side by side (``fcfs_order``,
    docs/background/reproductions/dynp.md): per job set, factor and decider (ARTwW), the
    share of jobs started under each policy, the most frequent Table 6 row and case 6b's
    share of the decisions, ARTwW."""
    rows = []
    for workload in workloads(runs):
        for shrink in shrinks(runs, workload):
            for decider in DECIDERS:
                for reading, suffix in (("submit", ""), ("plan", PLAN_FCFS_SUFFIX)):
                    run = pick(runs, workload, f"{decider} ARTwW{suffix}", shrink)
                    if run is None or not run["cases"]:
                        continue
                    counts = table6_counts(run["cases"])
                    total = sum(counts.values())
                    top = max(counts, key=counts.__getitem__)
                    rows.append({
                        "job set": workload, "shrinking factor": shrink, "decider": decider,
                        "FCFS candidate": reading,
                        **{f"started {p.upper()} [%]": cell(100 * started_share(run, p), 1)
                           for p in SINGLE},
                        "most frequent case": f"{top} ({cell(100 * counts[top] / total, 1)} %)"
                        if total else "—",
                        "6b [%]": cell(100 * counts["6b"] / total, 1) if total else "—",
                        "ARTwW [s]": cell(run["artww"])})
    return rows


def write_tables(runs, out) -> dict[str, Any]:
    """Tables 4–6 analogues, the case mix against the load and the numbers of every curve."""
    written: dict[str, Any] = {}
    for name, rows in (("table4_deciders", table4_rows(runs)),
                       ("table5_advanced_artww", table5_rows(runs)),
                       ("table6_cases", table6_rows(runs)),
                       ("cases_by_shrink", cases_by_shrink_rows(runs)),
                       ("fcfs_readings", fcfs_reading_rows(runs)),
                       ("curves", curve_rows(runs))):
        if rows:
            written.update(write_rows(rows, out, name))
    return written
