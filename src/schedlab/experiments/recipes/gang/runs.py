"""The stored runs as one table (a row per workload, policy, strategy and slot length),
and the look-ups the tables and findings make in it."""

from __future__ import annotations

from schedlab.experiments.recipes.gang.design import WORKLOADS

#: Columns of the run table besides workload, policy, strategy and slot.
RUN_METRICS = {"slowdown": "gang_slowdown", "slowdown_short": "gang_slowdown_short",
               "slots_mean": "gang_slots_mean", "utilization": "utilization"}
#: The share columns every run table has at least (Table 10 prints 1 … 6 slots); a run with
#: more slots in a round (Strategy 3: express slots beside five regular ones) adds its own.
MAX_SLOTS = 6
SHARE_PREFIX = "gang_slots_pct_"


def slot_counts(frame) -> range:
    """1 … the largest number of slots with a share column in the stored results (at
    least :data:`MAX_SLOTS`), so that no run's shares are cut off."""
    stored = [int(c[len(SHARE_PREFIX):]) for c in frame.columns if c.startswith(SHARE_PREFIX)]
    return range(1, max([MAX_SLOTS, *stored]) + 1)


def run_table(exp_dir):
    """The finished runs, one row each: workload, policy, strategy and slot (0 for the
    baseline), slowdown of all and short jobs, slots mean and shares ``pct_1`` …
    ``pct_K`` (:func:`slot_counts`), utilization, rounds and wall time.

    The baseline's slowdowns are computed from its job table with the same
    definitions (turnaround / runtime, short = estimate below 150 s).
    """
    import pandas as pd

    from schedlab.experiments import load_jobs, load_results

    frame = load_results(exp_dir)
    frame = frame[frame["status"] == "finished"].reset_index(drop=True)
    counts = slot_counts(frame)
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
        for k in counts:
            value = run.get(f"{SHARE_PREFIX}{k}")
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
    """A run's percent of time with k slots, for every k of the run table."""
    return {int(name[len("pct_"):]): float(run[name]) for name in run.index
            if name.startswith("pct_")}
