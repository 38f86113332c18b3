"""Gang scheduling with time slots, Zhou, Goscinski and Brent 2003, §5 reproduced (Tables 1-10).

B. B. Zhou, A. Goscinski, R. P. Brent, "Concerning the Length of Time Slots
for Efficient Gang Scheduling", IEICE Trans. Inf. & Syst., 2003
(``papers/001_…``).  The paper simulates nine hyper-Erlang workloads w0 … w8
of 10,000 jobs on 256 processors (§4) under three strategies (§5): Strategy 1
(re-packing, at most 5 slots, backfilling), Strategy 2 (no two long jobs on
one processor), Strategy 3 (short jobs in express slots); Tables 1-5 at slot
length l = 1, Tables 6-9 over l = 1 … 200, Table 10 at l = 200.

Our w0 … w8 are our own hyper-Erlang fit of SDSC-BLUE (docs/models.md): the
paper's Blue-Pacific parameters are not published, so only the shape of the
results can be compared.  Besides the paper's runs, the recipe runs every
strategy at every slot length (figures of slowdown against l) and
``fcfs+easy`` on the same workloads: when does time sharing win?

The pieces are separate so that they can move into a package: the experiment
(:func:`experiment`), the paper's numbers (``PAPER_*``), the run table
(:func:`run_table`), the tables (:func:`write_tables`), the figures
(:func:`write_figures`) and the findings (``finding_*``, each a pure function
of small tables so that it is tested to pass and to fail).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.recipes import Finding, Recipe, Reproduction

# --------------------------------------------------------------------------- the experiment

WORKLOADS = tuple(f"w{i}" for i in range(9))
SLOTS = (1, 10, 50, 100, 150, 200)
STRATEGIES = (1, 2, 3)
FULL_JOBS = 10_000
#: The reduced form: the lightest and the heaviest workload, the two ends of the slot range.
REDUCED_WORKLOADS = ("w0", "w8")
REDUCED_SLOTS = (1, 200)
REDUCED_JOBS = 1_500
#: The space-sharing baseline run on the same workloads.
BASELINE = "fcfs+easy"


def workloads_of(reduced: bool) -> tuple[str, ...]:
    """The workloads of the full or the reduced form."""
    return REDUCED_WORKLOADS if reduced else WORKLOADS


def slots_of(reduced: bool) -> tuple[int, ...]:
    """The slot lengths of the full or the reduced form."""
    return REDUCED_SLOTS if reduced else SLOTS


def policy_entries(reduced: bool) -> list[dict[str, Any]]:
    """Gang with every strategy at every slot length (§5), and the EASY baseline."""
    return [{"name": "gang", "grid": {"strategy": list(STRATEGIES),
                                      "slot": list(slots_of(reduced))}},
            {"name": BASELINE}]


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced reproduction (docs/experiments.md)."""
    jobs = REDUCED_JOBS if reduced else FULL_JOBS
    return {
        "name": "gang" + ("-reduced" if reduced else ""),
        "description": "Zhou, Goscinski, Brent 2003: gang scheduling, Strategies 1-3 against "
                       "the slot length on w0..w8, and fcfs+easy on the same workloads",
        "seeds": [0],
        "overrun": "kill",
        "workloads": [{"source": name, "jobs": jobs} for name in workloads_of(reduced)],
        "policies": policy_entries(reduced),
    }


# --------------------------------------------------------------------------- the paper's numbers

PAPER_WORKLOADS = WORKLOADS

#: Tables 1 and 2 (l = 1): average slowdown of all jobs and of short jobs, per strategy.
PAPER_SLOWDOWN = {
    1: (29.6, 89.2, 156, 179, 252, 307, 368, 357, 405),
    2: (9.62, 15.4, 19.5, 24.6, 29.6, 34.6, 39.7, 44.2, 49.8),
}
PAPER_SLOWDOWN_SHORT = {
    1: (67.4, 223, 236, 368, 548, 686, 852, 765, 919),
    2: (4.02, 4.34, 3.68, 3.42, 2.76, 2.61, 2.52, 2.41, 2.37),
}
#: Table 3 (Strategy 1, l = 1): percent of time with k slots.  w8's 5-slot cell is printed
#: "0.995", a typo for 99.5 (the column then adds up to 100, and Table 5 says 4.99).
PAPER_SHARES_S1 = {
    1: (2.9, 0.1, 0.2, 0.1, 0.1, 0.1, 0.2, 0.1, 0.0),
    2: (3.5, 0.2, 0.1, 0.3, 0.1, 0.1, 0.1, 0.1, 0.1),
    3: (6.1, 0.3, 0.2, 0.3, 0.2, 0.2, 0.2, 0.2, 0.3),
    4: (9.5, 0.4, 0.5, 0.2, 0.2, 0.1, 0.1, 0.2, 0.1),
    5: (78.0, 99.0, 99.0, 99.1, 99.4, 99.5, 99.4, 99.4, 0.995),
}
#: The typo of Table 3 (slots, workload) and the value the rest of the paper implies.
PAPER_TYPOS = {("table3", 5, "w8"): 99.5}
#: Table 4 (Strategy 2, l = 1).
PAPER_SHARES_S2 = {
    1: (13.9, 21.4, 26.7, 32.2, 37.0, 40.5, 44.4, 47.9, 50.3),
    2: (28.3, 25.3, 29.5, 26.0, 27.0, 27.2, 28.0, 28.6, 27.7),
    3: (27.1, 26.6, 24.5, 24.3, 23.1, 21.0, 19.1, 16.2, 15.7),
    4: (17.0, 15.2, 11.1, 10.4, 8.0, 7.5, 6.2, 5.1, 4.7),
    5: (13.7, 15.5, 8.2, 7.1, 4.9, 3.8, 2.3, 2.2, 1.6),
}
#: Table 5 (l = 1): average slots in a round.
PAPER_SLOTS_MEAN = {
    1: (4.57, 4.98, 4.98, 4.98, 4.99, 4.99, 4.99, 4.99, 4.99),
    2: (2.88, 2.70, 2.45, 2.34, 2.17, 2.07, 1.94, 1.85, 1.80),
}
#: Tables 6-9: slowdown against the slot length, (strategy, all or short) -> l -> row.
PAPER_BY_SLOT = {
    (2, "all"): {1: (9.62, 15.4, 19.5, 24.6, 29.6, 34.6, 39.7, 44.2, 49.8),
                 10: (10.0, 14.7, 20.5, 25.2, 29.6, 35.3, 39.5, 44.5, 49.8),
                 50: (11.7, 16.7, 21.1, 27.5, 31.3, 36.7, 40.6, 46.3, 50.1),
                 100: (14.1, 19.4, 23.4, 26.9, 34.2, 38.2, 44.5, 49.1, 52.3),
                 150: (17.4, 22.4, 26.2, 30.9, 35.7, 41.1, 45.4, 49.9, 55.3),
                 200: (20.2, 24.9, 29.1, 34.8, 39.0, 43.6, 47.6, 53.0, 56.3)},
    (2, "short"): {1: (4.02, 4.34, 3.68, 3.42, 2.76, 2.61, 2.52, 2.41, 2.37),
                   10: (4.61, 4.12, 3.88, 3.57, 3.01, 3.02, 2.76, 2.70, 2.66),
                   50: (8.63, 8.50, 7.74, 7.92, 6.94, 6.66, 6.35, 6.19, 5.84),
                   100: (14.5, 14.7, 13.3, 13.5, 12.9, 11.9, 11.3, 11.2, 11.1),
                   150: (21.4, 21.2, 19.3, 19.0, 18.1, 17.1, 16.3, 15.9, 16.1),
                   200: (28.1, 28.3, 27.0, 26.5, 24.6, 23.3, 22.0, 21.6, 21.1)},
    (3, "all"): {1: (8.40, 13.4, 19.1, 23.9, 28.9, 34.9, 40.3, 43.5, 48.8),
                 10: (8.66, 13.7, 19.8, 24.8, 29.9, 34.2, 39.7, 44.2, 49.0),
                 50: (9.11, 14.0, 19.6, 24.3, 30.1, 35.2, 40.7, 44.4, 49.0),
                 100: (8.97, 14.6, 19.8, 25.0, 30.8, 34.2, 41.1, 44.8, 50.0),
                 150: (9.93, 15.7, 20.7, 25.4, 30.9, 36.5, 40.6, 46.3, 50.6),
                 200: (11.3, 16.5, 21.7, 26.1, 31.2, 37.6, 42.1, 47.8, 52.0)},
    (3, "short"): {1: (1.10, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05),
                   10: (1.06, 1.05, 1.05, 1.06, 1.06, 1.06, 1.06, 1.06, 1.06),
                   50: (1.26, 1.28, 1.25, 1.22, 1.24, 1.23, 1.23, 1.21, 1.20),
                   100: (2.06, 2.10, 2.03, 1.97, 1.94, 1.84, 1.75, 1.67, 1.72),
                   150: (3.28, 3.40, 3.22, 3.12, 2.86, 2.88, 2.77, 2.77, 2.45),
                   200: (5.03, 4.74, 4.87, 4.64, 4.36, 4.34, 4.00, 3.81, 3.69)},
}
#: Table 10 (Strategy 3, l = 200): percent of time with k slots, and the average row.
PAPER_SHARES_S3 = {
    1: (15.3, 21.7, 27.5, 32.0, 37.3, 40.9, 44.4, 48.1, 51.0),
    2: (24.5, 23.9, 25.1, 24.3, 23.4, 25.1, 25.3, 24.4, 26.2),
    3: (26.3, 24.9, 24.7, 24.0, 23.4, 21.5, 19.8, 18.3, 15.6),
    4: (17.5, 15.2, 11.6, 12.2, 10.1, 8.8, 6.9, 6.6, 5.1),
    5: (16.3, 14.3, 11.1, 7.5, 5.8, 3.7, 3.6, 2.6, 2.1),
    6: (0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
}
PAPER_SLOTS_MEAN_S3 = (2.95, 2.77, 2.54, 2.39, 2.24, 2.09, 2.00, 1.91, 1.81)


def paper_value(row: tuple[float, ...], workload: str) -> float:
    """The paper's number for one workload of a table row."""
    return float(row[PAPER_WORKLOADS.index(workload)])


def paper_shares(shares: dict[int, tuple[float, ...]], workload: str,
                 table: str = "") -> dict[int, float]:
    """One workload's column of a share table (percent of time with k slots), typos fixed."""
    return {k: PAPER_TYPOS.get((table, k, workload), paper_value(row, workload))
            for k, row in shares.items()}


# --------------------------------------------------------------------------- our runs

#: Columns of the run table besides workload, policy, strategy and slot.
RUN_METRICS = {"slowdown": "gang_slowdown", "slowdown_short": "gang_slowdown_short",
               "slots_mean": "gang_slots_mean", "utilization": "utilization"}
MAX_SLOTS = 6


def run_table(exp_dir):
    """The finished runs, one row each: workload, policy, strategy and slot (0 for the
    baseline), slowdown of all and short jobs, slots mean and shares ``pct_1`` …
    ``pct_6``, utilization, rounds and wall time.

    The baseline's slowdowns are computed from its job table with the same
    definitions (turnaround / runtime, short = estimate below 150 s).
    """
    import pandas as pd

    from schedlab.experiments import load_jobs, load_results

    frame = load_results(exp_dir)
    frame = frame[frame["status"] == "finished"].reset_index(drop=True)
    rows = []
    for _, run in frame.iterrows():
        gang = run["policy"] == "gang"
        row = {"workload": str(run["workload"]), "policy": str(run["policy"]),
               "strategy": int(run["param.strategy"]) if gang else 0,
               "slot": int(run["param.slot"]) if gang else 0,
               "wall_time": float(run["wall_time"]),
               "rounds": int(run["stat.rounds"]) if gang else 0}
        for name, metric in RUN_METRICS.items():
            row[name] = float(run[metric]) if metric in run and pd.notna(run[metric]) else None
        for k in range(1, MAX_SLOTS + 1):
            value = run.get(f"gang_slots_pct_{k}")
            row[f"pct_{k}"] = float(value) if gang and pd.notna(value) else (0.0 if gang
                                                                              else None)
        if not gang:
            row["slowdown"], row["slowdown_short"] = space_sharing_slowdowns(
                load_jobs(exp_dir, run["run_id"]))
        rows.append(row)
    return pd.DataFrame(rows)


def space_sharing_slowdowns(jobs, short: int = 150) -> tuple[float, float]:
    """Mean turnaround / runtime over all jobs and over the short ones (estimate below
    ``short``), as the gang metrics define them (§4), for a space-sharing job table."""
    ran = jobs[(jobs["runtime"] > 0) & jobs["end"].notna()]
    slowdown = (ran["end"] - ran["submit"]).astype(float) / ran["runtime"].astype(float)
    is_short = ran["estimate"] < short
    return float(slowdown.mean()), float(slowdown[is_short].mean())


def pick(runs, workload: str, strategy: int, slot: int):
    """The run of one point (a row), or None."""
    found = runs[(runs["workload"] == workload) & (runs["strategy"] == strategy)
                 & (runs["slot"] == slot)]
    return None if found.empty else found.iloc[0]


def value(runs, workload: str, strategy: int, slot: int, column: str) -> float | None:
    """One number of one point, or None when the point was not run."""
    row = pick(runs, workload, strategy, slot)
    return None if row is None or row[column] is None else float(row[column])


def workloads(runs) -> list[str]:
    """The workloads run, w0 first."""
    return [w for w in WORKLOADS if w in set(runs["workload"])]


def slots(runs) -> list[int]:
    """The slot lengths run, shortest first."""
    return sorted(int(s) for s in runs.loc[runs["strategy"] > 0, "slot"].unique())


def shares_of(run) -> dict[int, float]:
    """A run's percent of time with k slots, k = 1 … 6."""
    return {k: float(run[f"pct_{k}"]) for k in range(1, MAX_SLOTS + 1)}


# --------------------------------------------------------------------------- tables


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
    """Tables 1-10 side by side with the paper, and gang against fcfs+easy."""
    from schedlab.experiments.recipes.report import write_rows as write_table

    tables: dict[str, Path] = {}
    longest = slots(runs)[-1]
    tables.update(write_table(slowdown_rows(runs, "slowdown", PAPER_SLOWDOWN), out,
                              "table1_slowdown_all"))
    tables.update(write_table(slowdown_rows(runs, "slowdown_short", PAPER_SLOWDOWN_SHORT),
                              out, "table2_slowdown_short"))
    tables.update(write_table(shares_rows(runs, 1, 1, PAPER_SHARES_S1, "table3",
                                          PAPER_SLOTS_MEAN[1]), out, "table3_5_slots_s1"))
    tables.update(write_table(shares_rows(runs, 2, 1, PAPER_SHARES_S2, "table4",
                                          PAPER_SLOTS_MEAN[2]), out, "table4_5_slots_s2"))
    for number, (strategy, kind) in zip((6, 7, 8, 9), PAPER_BY_SLOT):
        tables.update(write_table(by_slot_rows(runs, strategy, kind), out,
                                  f"table{number}_s{strategy}_{kind}_by_slot"))
    tables.update(write_table(shares_rows(runs, 3, longest, PAPER_SHARES_S3, "table10",
                                          PAPER_SLOTS_MEAN_S3 if longest == 200 else None),
                              out, "table10_slots_s3"))
    tables.update(write_table(versus_rows(runs), out, "gang_vs_easy"))
    tables.update(write_table(speed_rows(runs), out, "run_times"))
    return tables


def speed_rows(runs) -> list[dict[str, str]]:
    """Wall time and rounds of every gang run of the heaviest workload run."""
    heaviest = workloads(runs)[-1]
    mine = runs[(runs["workload"] == heaviest) & (runs["strategy"] > 0)]
    return [{"workload": heaviest, "strategy": int(r.strategy), "slot length": int(r.slot),
             "rounds": f"{int(r.rounds):,}", "seconds": f"{r.wall_time:.2f}"}
            for r in mine.sort_values(["strategy", "slot"]).itertuples()]


# --------------------------------------------------------------------------- figures


def reference_points(runs):
    """The paper's Tables 6-9 as reference points of the curve figures (policy = our line
    label ``gang (strategy=K)``, x = slot length, value, workload, metric)."""
    import pandas as pd

    rows = []
    for (strategy, kind), table in PAPER_BY_SLOT.items():
        metric = "gang_slowdown" if kind == "all" else "gang_slowdown_short"
        for slot, row in table.items():
            for w in workloads(runs):
                rows.append({"policy": f"gang (strategy={strategy})", "x": slot,
                             "value": paper_value(row, w), "workload": w, "metric": metric})
    return pd.DataFrame(rows)


def write_figures(exp_dir, runs, out) -> dict[str, Path]:
    """Slowdown of all and of short jobs against the slot length, one diagram per
    workload, a line per strategy, the paper's Tables 6-9 as hollow markers."""
    from schedlab.experiments import load_results
    from schedlab.viz.curves import curve_figure
    from schedlab.viz.style import save_figure

    results = load_results(exp_dir)
    results = results[results["policy"] == "gang"]
    reference = reference_points(runs)
    figures = {}
    for metric, name, what in (("gang_slowdown", "fig_slowdown_by_slot", "all jobs"),
                               ("gang_slowdown_short", "fig_slowdown_short_by_slot",
                                "short jobs")):
        figure = curve_figure(results, metric, "param.slot",
                              reference=reference[reference["metric"] == metric],
                              reference_label="Zhou et al. 2003, Tables 6-9",
                              title=f"Average slowdown of {what} against the slot length")
        figures[name] = save_figure(figure, out / f"{name}.png")
    return figures


# --------------------------------------------------------------------------- findings

#: "Far below": Strategy 2's slowdown at most this share of Strategy 1's (paper: 0.11-0.32
#: for all jobs, 0.003-0.06 for short jobs).
FAR_BELOW = 0.5
#: "Several-fold": short jobs' slowdown under Strategy 2 at the longest slot over the
#: shortest at least this (paper: 6.5-9.0).
SEVERAL_FOLD = 3.0
#: Strategy 3's short jobs: "near 1" at l <= 10, "within a few" at l = 200 (paper: at most
#: 1.10 and 3.7-5.0).
NEAR_ONE, WITHIN_A_FEW = 1.5, 10.0
#: Slots: Strategy 1 "almost always 5" as a mean of at least this; Strategy 2 and 3 in
#: this range (paper: 4.57-4.99; 1.80-2.95).
S1_SLOTS, S23_SLOTS = 4.5, (1.5, 3.5)
#: The identity Σ k·share(k)/100 = average holds within the rounding of printed tables
#: (shares to 0.1 %, averages to 0.01).
IDENTITY_TOLERANCE = 0.015


def weighted_mean(shares: dict[int, float]) -> float:
    """Σ k·share(k) / 100: the average number of slots a share table implies (§4)."""
    return sum(k * share for k, share in shares.items()) / 100.0


def finding_strategy2_far_below(runs) -> Finding:
    """Tables 1, 2: at l = 1 Strategy 2's slowdown is far below Strategy 1's, for all jobs
    and for short jobs."""
    ratios, misses = [], []
    for w in workloads(runs):
        for column in ("slowdown", "slowdown_short"):
            s1, s2 = value(runs, w, 1, 1, column), value(runs, w, 2, 1, column)
            if s1 is None or s2 is None:
                continue
            ratios.append(s2 / s1)
            if s2 > FAR_BELOW * s1:
                misses.append(f"{w} {column} ({s2:.3g} vs {s1:.3g})")
    return Finding(
        claim="Strategy 2 gives a far lower slowdown than Strategy 1 (all and short jobs, l = 1)",
        paper="Tables 1, 2: S2/S1 0.11-0.32 (all), 0.003-0.06 (short)",
        ours=(f"S2/S1 {min(ratios):.3f}-{max(ratios):.3f} over {len(ratios)} points"
              + (f"; not at {', '.join(misses)}" if misses else "")) if ratios else "not run",
        holds=bool(ratios) and not misses,
        note=f"rule: S2 at most {FAR_BELOW:g} x S1 at every workload, all and short jobs")


def finding_short_grow_with_slot(runs) -> Finding:
    """Table 7: under Strategy 2 short jobs' slowdown grows several-fold from the shortest
    slot length to the longest."""
    lengths = slots(runs)
    factors, misses = {}, []
    for w in workloads(runs):
        first = value(runs, w, 2, lengths[0], "slowdown_short")
        last = value(runs, w, 2, lengths[-1], "slowdown_short")
        if first and last is not None and lengths[-1] > lengths[0]:
            factors[w] = last / first
            if factors[w] < SEVERAL_FOLD:
                misses.append(f"{w} ({factors[w]:.2f})")
    span = f"l = {lengths[0]} to {lengths[-1]}"
    return Finding(
        claim=f"Under Strategy 2, short jobs' slowdown grows several-fold from {span}",
        paper="Table 7: x6.5 (w1) to x9.0 (w7) from l = 1 to 200",
        ours=(f"x{min(factors.values()):.1f} to x{max(factors.values()):.1f}"
              + (f"; not at {', '.join(misses)}" if misses else "")) if factors else "not run",
        holds=bool(factors) and not misses,
        note=f"rule: at least x{SEVERAL_FOLD:g} on every workload")


def finding_strategy3_short(runs) -> Finding:
    """Table 9: under Strategy 3 short jobs' slowdown stays near 1 at small slot lengths
    and within a few at l = 200, below Strategy 2's."""
    small, large, misses = [], [], []
    longest = slots(runs)[-1]
    for w in workloads(runs):
        for l in slots(runs):
            s3 = value(runs, w, 3, l, "slowdown_short")
            if s3 is None:
                continue
            if l <= 10:
                small.append(s3)
                if s3 > NEAR_ONE:
                    misses.append(f"{w} l={l} ({s3:.2f})")
            if l == longest:
                large.append(s3)
                s2 = value(runs, w, 2, l, "slowdown_short")
                if s3 > WITHIN_A_FEW or (s2 is not None and s3 >= s2):
                    misses.append(f"{w} l={l} ({s3:.2f}, S2 {s2})")
    return Finding(
        claim="Under Strategy 3 short jobs' slowdown stays near 1 at small l and within a few "
              "at the longest slot",
        paper="Table 9: 1.05-1.10 at l <= 10; 3.69-5.03 at l = 200 (Strategy 2: 21-28)",
        ours=(f"{min(small):.2f}-{max(small):.2f} at l <= 10; "
              f"{min(large):.2f}-{max(large):.2f} at l = {longest}"
              + (f"; not at {', '.join(misses)}" if misses else ""))
        if small and large else "not run",
        holds=bool(small) and bool(large) and not misses,
        note=f"rule: at most {NEAR_ONE:g} at l <= 10; at most {WITHIN_A_FEW:g} and below "
             f"Strategy 2 at the longest slot")


def finding_slots_in_use(runs) -> Finding:
    """Tables 3-5, 10: Strategy 1 runs with about 5 slots almost all the time, Strategies
    2 and 3 with 2-3 on average."""
    longest = slots(runs)[-1]
    s1, s23, misses = [], [], []
    for w in workloads(runs):
        mean1 = value(runs, w, 1, 1, "slots_mean")
        if mean1 is not None:
            s1.append(mean1)
            if mean1 < S1_SLOTS:
                misses.append(f"S1 {w} ({mean1:.2f})")
        for strategy, slot in ((2, 1), (3, longest)):
            mean = value(runs, w, strategy, slot, "slots_mean")
            if mean is not None:
                s23.append(mean)
                if not S23_SLOTS[0] <= mean <= S23_SLOTS[1]:
                    misses.append(f"S{strategy} {w} ({mean:.2f})")
    return Finding(
        claim="Strategy 1 runs with about 5 slots; Strategies 2 and 3 with 2-3 on average",
        paper="Table 5: S1 4.57-4.99; S2 1.80-2.88 (l = 1); Table 10: S3 1.81-2.95 (l = 200)",
        ours=(f"S1 {min(s1):.2f}-{max(s1):.2f}; S2/S3 {min(s23):.2f}-{max(s23):.2f}"
              + (f"; not at {', '.join(misses)}" if misses else "")) if s1 and s23 else "not run",
        holds=bool(s1) and bool(s23) and not misses,
        note=f"rule: S1 mean at least {S1_SLOTS:g}; S2 (l = 1), S3 (longest l) means in "
             f"[{S23_SLOTS[0]:g}, {S23_SLOTS[1]:g}]")


def identity_misses(columns: dict[str, tuple[dict[int, float], float]]) -> list[str]:
    """The columns (name -> (shares in percent, stated average)) whose average differs from
    Σ k·share(k)/100 by more than :data:`IDENTITY_TOLERANCE`."""
    return [f"{name} ({weighted_mean(shares):.3f} vs {mean:.2f})"
            for name, (shares, mean) in columns.items()
            if abs(weighted_mean(shares) - mean) > IDENTITY_TOLERANCE]


def paper_identity_columns(typos_fixed: bool = True) -> dict[str, tuple[dict[int, float],
                                                                          float]]:
    """Every column of the paper's share tables with the average it states (Tables 3, 4
    with Table 5; Table 10 with its last row)."""
    columns = {}
    for table, shares, means in (("table3", PAPER_SHARES_S1, PAPER_SLOTS_MEAN[1]),
                                 ("table4", PAPER_SHARES_S2, PAPER_SLOTS_MEAN[2]),
                                 ("table10", PAPER_SHARES_S3, PAPER_SLOTS_MEAN_S3)):
        for w in PAPER_WORKLOADS:
            column = paper_shares(shares, w, table if typos_fixed else "")
            columns[f"{table} {w}"] = (column, paper_value(means, w))
    return columns


def finding_slots_identity(runs) -> Finding:
    """§4: the average number of slots is Σ k·share(k): the paper's tables satisfy it (once
    Table 3's w8 typo is read as 99.5), and so must ours, at every point."""
    ours = {f"{w} S{r.strategy} l={r.slot}": (shares_of(r), float(r.slots_mean))
            for w in workloads(runs)
            for _, r in runs[(runs["workload"] == w) & (runs["strategy"] > 0)].iterrows()}
    paper_columns = paper_identity_columns()
    paper_misses = identity_misses(paper_columns)
    typo = identity_misses({k: v for k, v in paper_identity_columns(typos_fixed=False).items()
                            if k not in dict.fromkeys(m.split(" (")[0] for m in paper_misses)
                            and k.startswith("table3")})
    our_misses = identity_misses(ours)
    return Finding(
        claim="The average-slots row equals Σ k·share(k) of the share table",
        paper=f"holds in {len(paper_columns) - len(paper_misses)} of {len(paper_columns)} "
              f"columns of Tables 3/5, 4/5, 10 (w0: 2.883 -> 2.88, 2.953 -> 2.95), reading "
              f"Table 3's w8 '0.995' as 99.5 (as printed: {', '.join(typo) or 'holds'})"
              + (f"; not at {', '.join(paper_misses)}" if paper_misses else ""),
        ours=f"holds at {len(ours) - len(our_misses)} of {len(ours)} runs"
             + (f"; not at {', '.join(our_misses)}" if our_misses else ""),
        holds=bool(ours) and not our_misses,
        note=f"rule: |Σ k·share(k)/100 - average| <= {IDENTITY_TOLERANCE} (printed rounding)")


def finding_strategy3_not_worse(runs) -> Finding:
    """Tables 6, 8: Strategy 3 does not degrade the others: its slowdown over all jobs is
    no worse than Strategy 2's (the paper: "a little better")."""
    pairs, misses = 0, []
    for w in workloads(runs):
        for l in slots(runs):
            s2, s3 = value(runs, w, 2, l, "slowdown"), value(runs, w, 3, l, "slowdown")
            if s2 is None or s3 is None:
                continue
            pairs += 1
            if s3 > 1.1 * s2:
                misses.append(f"{w} l={l} ({s3:.3g} vs {s2:.3g})")
    return Finding(
        claim="Strategy 3 keeps the slowdown of all jobs at or below Strategy 2's",
        paper="Tables 6, 8: S3 below S2 at 49 of 54 points, at most 1.5 % above",
        ours=f"S3 within 10 % of or below S2 at {pairs - len(misses)} of {pairs} points"
             + (f"; not at {', '.join(misses)}" if misses else ""),
        holds=pairs > 0 and not misses,
        note="rule: S3 at most 1.1 x S2 at every workload and slot length")


def finding_versus_easy(runs) -> Finding:
    """Our question, not the paper's: does time sharing (Strategy 3 at the shortest slot)
    beat space sharing with EASY backfilling on the same jobs?"""
    shortest = slots(runs)[0]
    wins_all, wins_short, total = [], [], 0
    for w in workloads(runs):
        easy = pick(runs, w, 0, 0)
        gang = pick(runs, w, 3, shortest)
        if easy is None or gang is None:
            continue
        total += 1
        if gang["slowdown"] < easy["slowdown"]:
            wins_all.append(w)
        if gang["slowdown_short"] < easy["slowdown_short"]:
            wins_short.append(w)
    return Finding(
        claim=f"Strategy 3 (l = {shortest}) gives short jobs a lower slowdown than fcfs+easy",
        paper="not in the paper",
        ours=(f"short jobs: lower on {len(wins_short)} of {total} workloads; all jobs: lower "
              f"on {', '.join(wins_all) or 'none'}") if total else "not run",
        holds=total > 0 and len(wins_short) == total,
        note="rule: lower on every workload; the table gang_vs_easy has the numbers")


FINDINGS = (finding_strategy2_far_below, finding_short_grow_with_slot,
            finding_strategy3_short, finding_slots_in_use, finding_slots_identity,
            finding_strategy3_not_worse, finding_versus_easy)


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Tables 1-10, gang against fcfs+easy, the figures and the findings, written to
    ``EXP_DIR/reproduction/``."""
    exp_dir = Path(exp_dir)
    out = exp_dir / "reproduction"
    out.mkdir(parents=True, exist_ok=True)
    runs = run_table(exp_dir)
    return Reproduction(findings=[finding(runs) for finding in FINDINGS],
                        tables=write_tables(runs, out),
                        figures=write_figures(exp_dir, runs, out))


RECIPE = Recipe(
    name="gang",
    paper="B. B. Zhou, A. Goscinski, R. P. Brent, Concerning the Length of Time Slots for "
          "Efficient Gang Scheduling, IEICE Trans. Inf. & Syst., 2003",
    description="w0..w8 (hyper-Erlang, SDSC-BLUE fit): gang Strategies 1-3 at slot lengths "
                "1-200 and fcfs+easy; Tables 1-10, slowdown against slot length",
    experiment=experiment,
    summarize=summarize,
)
