"""The tables of the summary: admittance, non-deadline jobs, relaxation, sizes of the
rejected jobs, the guarantee and the wall time.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.qops.design import ADMISSION, BASELINES
from schedlab.experiments.recipes.qops.runs import POINT, pivot, point_means


def admittance_table(means):
    """Per point: unadmitted deadline jobs and processor-seconds (%) of each admission
    scheme, and the utilization of every policy (QoPS Figs. 4-24, 37-42)."""
    import pandas as pd

    parts = [pivot(means, "deadline_rejected_pct", ADMISSION).add_suffix(" jobs %"),
             pivot(means, "deadline_rejected_area_pct", ADMISSION).add_suffix(" proc-s %"),
             pivot(means, "utilization").add_suffix(" util")]
    return pd.concat(parts, axis=1)


def nondeadline_table(means):
    """Per mixed point: non-deadline response, slowdown and utilization of every policy
    (QoPS Figs. 25-36, 43-54)."""
    import pandas as pd

    mixed = means[means["fraction"] < 1.0]
    parts = [pivot(mixed, "nondeadline_avg_response").add_suffix(" response"),
             pivot(mixed, "nondeadline_avg_slowdown").add_suffix(" slowdown"),
             pivot(mixed, "utilization").add_suffix(" util")]
    return pd.concat(parts, axis=1)


def relaxation_table(runs):
    """QoPS non-deadline response and slowdown per R (QoPS §5.3, Figs. 55-58)."""
    import pandas as pd

    qops = point_means(runs[(runs["fraction"] < 1.0) & (runs["policy"] == "qops")])
    index = ["workload", "method", "s", "fraction", "load"]
    parts = [qops.pivot_table(index=index, columns="R", values=metric)
             .rename(columns=lambda r, short=short: f"R={r:g} {short}")
             for metric, short in (("nondeadline_avg_response", "response"),
                                   ("nondeadline_avg_slowdown", "slowdown"))]
    return pd.concat(parts, axis=1)


def rejected_sizes_table(runs, exp_dir: Path):
    """Who is rejected, 100 % deadline jobs: the rejected share of the small and of the
    large jobs (processor-seconds below / above the run's median), and the mean
    processor-seconds of a rejected job relative to the mean job.

    This is what separates "unadmitted jobs" from "unadmitted processor-seconds"
    (QoPS §5.1 reports both).
    """
    import pandas as pd

    from schedlab.experiments import load_jobs

    rows = []
    chosen = runs[(runs["fraction"] == 1.0) & runs["policy"].isin(ADMISSION)]
    for run in chosen.itertuples(index=False):
        jobs = load_jobs(exp_dir, run.run_id)
        area = (jobs["width"].astype(float) * jobs["runtime"].astype(float)).to_numpy()
        rejected = (jobs["status"] == "rejected").to_numpy()
        large = area > pd.Series(area).median()
        rows.append({**{k: getattr(run, k) for k in POINT}, "policy": run.policy,
                     "rejected %": 100 * rejected.mean(),
                     "small rejected %": 100 * rejected[~large].mean(),
                     "large rejected %": 100 * rejected[large].mean(),
                     "rejected size / mean size": (area[rejected].mean() / area.mean()
                                                   if rejected.any() else 0.0)})
    table = pd.DataFrame(rows)
    return table.groupby(POINT + ["policy"]).mean(numeric_only=True)


def guarantee_table(runs):
    """Per policy: runs, runs with a missed deadline, missed deadlines, largest lateness,
    and the admitted deadline jobs killed at their estimate before their deadline
    (``deadline_unfinished``: not late, not done either; empty for runs stored before
    schedlab measured it)."""
    grouped = runs.groupby("policy")
    table = grouped.agg(runs=("run_id", "count"),
                        runs_with_misses=("deadline_missed", lambda m: int((m > 0).sum())),
                        missed=("deadline_missed", "sum"),
                        mean_missed_pct=("deadline_missed_pct", "mean"),
                        max_lateness_s=("deadline_max_lateness", "max"),
                        runs_with_unfinished=("deadline_unfinished",
                                              lambda m: int((m > 0).sum())),
                        unfinished=("deadline_unfinished", lambda m: m.sum(min_count=len(m))))
    table = table.astype({"missed": int, "max_lateness_s": int,
                          "unfinished": "Int64" if table["unfinished"].isna().any() else int})
    return table.reindex([p for p in ADMISSION + BASELINES if p in table.index])


def wall_time_table(runs):
    """Per workload and policy: runs and their total, mean and largest wall time [s]."""
    return runs.groupby(["workload", "policy"])["wall_time"].agg(
        ["count", "sum", "mean", "max"]).rename(columns={"count": "runs", "sum": "total s",
                                                         "mean": "mean s", "max": "max s"})
