"""The tables of the summary: means per scenario, size classes (Margo §6, Graphs 10-13), large
jobs started earlier, requests granted and refused, and every rule setting against its
baseline (§7-8).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import cast

import numpy as np

from schedlab.experiments.recipes.reservations.design import (
    HOUR,
    MINIMUMS,
    PLACEMENTS,
    SIZE_CLASSES,
)
from schedlab.experiments.recipes.reservations.paper import paper_range


def scenario_means(runs, limit: int = 0):
    """Mean of the main metrics per workload, policy and scenario (over seeds and request
    streams), for runs with queue limit ``limit``; waits in hours."""
    chosen = runs[runs["limit"] == limit].copy()
    chosen["wait_h"] = chosen["wait_weighted"] / HOUR
    columns = ["expansion_factor_weighted", "wait_h", "utilization_margo",
               "utilization_margo_reserved", "avg_queue", "max_queue",
               "reservations_granted", "reservations_rejected"]
    if limit:
        chosen["wait_queued_h"] = chosen["wait_weighted_queued"] / HOUR
        columns += ["expansion_factor_weighted_queued", "wait_queued_h"]
    columns = [c for c in columns if c in chosen]
    return chosen.groupby(["workload", "policy", "scenario"])[columns].mean()


def class_table(exp_dir: Path, runs, sizes: dict[str, int]):
    """Weighted expansion factor and wait (h) per size class in nodes (Margo §6, Graphs
    10-13), mean over seeds and request streams, runs without a queue limit."""
    import pandas as pd

    from schedlab.experiments import load_jobs

    rows = []
    for run in runs[runs["limit"] == 0].itertuples():
        jobs = load_jobs(exp_dir, run.run_id)
        for name, values in class_metrics(jobs, sizes.get(run.workload, 1)).items():
            rows.append({"workload": run.workload, "policy": run.policy,
                         "scenario": run.scenario, "class": name, **values})
    frame = pd.DataFrame(rows)
    return frame.groupby(["workload", "policy", "scenario", "class"]).mean()


def class_metrics(jobs, node_size: int) -> dict[str, dict[str, float | None]]:
    """Margo eq. 2-3 per size class: node-seconds-weighted expansion factor and wait.

    A job's nodes are ``ceil(width / node_size)``.  Weights, expansion
    factor and wait are those of the overall ``expansion_factor_weighted``
    and ``wait_weighted`` (:mod:`schedlab.metrics.jobs`, docs/reference/metrics.md):
    node-seconds are width x the time the job held its processors
    (end - start; a job killed at its estimate weighs its estimate, not its
    trace runtime), the expansion factor is (wait + estimate) / estimate —
    Margo §4: "the ratio of the sum of requested wall-clock time and queue
    wait time divided by the requested wall-clock time".  Rejected jobs are
    left out; an empty class has NaN.
    """
    from schedlab.metrics.jobs import (
        AcceptedJobs,
        expansion_factor,
        node_seconds,
        wait_time,
        weighted_mean,
    )

    ran = jobs[jobs["status"] != "rejected"]
    columns = {name: ran[name].to_numpy(dtype=np.int64)
               for name in ("submit", "start", "end", "width", "estimate")}
    held = AcceptedJobs(**columns, suspended=np.zeros(len(ran), dtype=np.int64))
    weights, factor, wait = node_seconds(held), expansion_factor(held), wait_time(held)
    nodes = -(-held.width // node_size)
    out: dict[str, dict[str, float | None]] = {}
    for name, low, high in SIZE_CLASSES:
        inside = (nodes >= low) & (nodes <= high)
        some = bool(inside.any())
        # The weighted means are None for a class whose jobs held no node-seconds; the wait's
        # division then fails, as it always has (the cast is for mypy only).
        out[name] = {"jobs": int(inside.sum()),
                     "expansion_factor": weighted_mean(factor[inside], weights[inside])
                     if some else math.nan,
                     "wait_h": cast(float, weighted_mean(wait[inside], weights[inside])) / HOUR
                     if some else math.nan}
    return out


def earlier_large_jobs(exp_dir: Path, runs, sizes: dict[str, int]):
    """Per workload, policy and scenario: large jobs (65+ nodes) that start earlier than in
    the baseline, summed over the request streams, and the number compared (Margo §6:
    two wide reservations "created a space in the schedule for a 256-node job")."""
    import pandas as pd

    from schedlab.experiments import load_jobs

    main = runs[runs["limit"] == 0]
    rows = []
    for (workload, policy, _seed), group in main.groupby(["workload", "policy", "seed"]):
        base = group[group["scenario"] == "baseline"]
        if base.empty:
            continue
        before = load_jobs(exp_dir, base["run_id"].iloc[0]).set_index("job_id")
        size = sizes.get(workload, 1)
        large = before.index[-(-before["width"].to_numpy(dtype=np.int64) // size) > 64]
        for run in group[group["scenario"] != "baseline"].itertuples():
            after = load_jobs(exp_dir, run.run_id).set_index("job_id")
            earlier = (after.loc[large, "start"] < before.loc[large, "start"]).sum()
            rows.append({"workload": workload, "policy": policy, "scenario": run.scenario,
                         "large_jobs": len(large), "earlier": int(earlier)})
    return pd.DataFrame(rows).groupby(["workload", "policy", "scenario"]).sum()


def reason_columns(runs) -> list[str]:
    """The refusal reasons (metrics ``reservations_rejected.<reason>``) that occur in
    ``runs``, sorted."""
    return sorted(c for c in runs.columns
                  if c.startswith("reservations_rejected.") and (runs[c] > 0).any())


def with_reasons_counted(runs):
    """``runs`` with every refusal reason counted in every run with requests: a run's
    metrics name only the reasons it gave, so a missing one is 0 there (and a mean over the
    request streams must count it so)."""
    out = runs.copy()
    reasons = [c for c in out.columns if c.startswith("reservations_rejected.")]
    with_requests = out["scenario"] != "baseline"
    out.loc[with_requests, reasons] = out.loc[with_requests, reasons].fillna(0)
    return out


def rejection_table(runs):
    """Requests granted and rejected by reason, mean per request stream (no queue limit);
    the reasons that occur in these runs."""
    main = with_reasons_counted(runs[(runs["limit"] == 0) & (runs["scenario"] != "baseline")])
    columns = ["reservations", "reservations_granted"] + reason_columns(main)
    return main.groupby(["workload", "policy", "scenario"])[columns].mean()


#: The columns of :func:`rule_table`, in order.
RULE_COLUMNS = ("expansion_factor_weighted", "wait_h", "utilization_margo",
                "utilization_margo_reserved", "utilization_reserved", "reservations_granted",
                "reservations_moved")


def rule_table(runs):
    """Every reservation setting against its baseline (Margo §7-8, beyond the paper): mean
    over seeds and request streams per workload, policy, queue limit, scenario (throttle
    off or on), placement and minimum rules of the weighted expansion factor and wait (h,
    eq. 2-3), utilization (eq. 1; with reserved nodes counted; reserved alone), requests
    granted, moved and refused by reason.  The baseline rows have placement ``-``."""
    import pandas as pd

    chosen = with_reasons_counted(runs)
    chosen["wait_h"] = chosen["wait_weighted"] / HOUR
    chosen["placement"] = chosen["placement"].replace("", "-")
    chosen["placement"] = pd.Categorical(chosen["placement"], ["-", *PLACEMENTS], ordered=True)
    chosen["minimums"] = pd.Categorical(chosen["minimums"], MINIMUMS, ordered=True)
    columns = [c for c in RULE_COLUMNS if c in chosen] + reason_columns(chosen)
    keys = ["workload", "policy", "limit", "scenario", "placement", "minimums"]
    return chosen.groupby(keys, observed=True)[columns].mean()


#: The levels of :func:`rule_table` that name a setting.
SETTING_LEVELS = ["limit", "scenario", "placement", "minimums"]


def readings_table(table):
    """The paper's expansion factors beside each reading of the placement (Margo §2, §5-6).

    Per workload, policy and reservation scenario (no minimums, no queue
    limit): the baseline's weighted expansion factor (eq. 2), the factor
    under the exact placement (our reading: a request whose time is taken
    is refused) and under ``earliest`` (every request placed, at its first
    fit), each also as a multiple of the baseline, the requests granted,
    and the paper's two months as text (``paper``, ``paper_x``).
    """
    import pandas as pd

    base = rule_variant(table, "baseline", "-", "none", "expansion_factor_weighted")
    parts = []
    for scenario in ("reservations", "throttled"):
        if not all(has_setting(table, scenario, p, "none") for p in PLACEMENTS):
            continue
        part = pd.DataFrame({"baseline": base})
        for placement in PLACEMENTS:
            ef = rule_variant(table, scenario, placement, "none", "expansion_factor_weighted")
            part[placement] = ef
            part[f"{placement}_x"] = ef / base
            part[f"{placement}_granted"] = rule_variant(table, scenario, placement, "none",
                                                        "reservations_granted")
        part["paper"] = paper_range(scenario)
        part["paper_x"] = paper_range(scenario, ratio=True)
        parts.append(part.assign(scenario=scenario).set_index("scenario", append=True))
    return pd.concat(parts)


def has_setting(table, scenario: str, placement: str, minimums: str) -> bool:
    """Whether :func:`rule_table` holds the setting (without a queue limit)."""
    settings = table.index.droplevel(["workload", "policy"])
    return (0, scenario, placement, minimums) in set(settings)


def rule_variant(table, scenario: str, placement: str, minimums: str, column: str):
    """One column of :func:`rule_table` for one setting without a queue limit, indexed by
    workload and policy."""
    return table[column].xs((0, scenario, placement, minimums), level=SETTING_LEVELS)
