"""The stored runs as one table: the scenario, placement and minimum rules of each run read
back from its stored reservation setting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def scenario_of(setting: dict[str, Any]) -> str:
    """``baseline``, ``reservations`` or ``throttled`` from a stored reservation setting."""
    if setting["requests"] is None:
        return "baseline"
    return "throttled" if "cap_hours" in (setting["rules"] or {}) else "reservations"


def minimums_of(rules: dict[str, Any] | None) -> str:
    """Which minimum rules of the future work (Margo §7-8) a stored setting has: ``none``,
    ``duration``, ``notice`` or ``duration+notice`` (:data:`MINIMUMS`)."""
    rules = rules or {}
    named = [name for name, key in (("duration", "min_duration"), ("notice", "min_notice"))
             if rules.get(key, 0)]
    return "+".join(named) or "none"


def is_papers(rules: dict[str, Any] | None) -> bool:
    """Whether a stored setting is one of the paper's three scenarios (Margo §5): no
    requests, or requests at their exact time without minimum rules."""
    return rules is None or (rules.get("placement", "exact") == "exact"
                             and minimums_of(rules) == "none")


def run_table(exp_dir: Path):
    """One row per finished run: workload, policy, seed, scenario, placement, minimum rules,
    whether the run is one of the paper's scenarios, request seed, queue limit, run_id and
    its metrics (docs/reference/metrics.md)."""
    import pandas as pd

    from schedlab.experiments.store import stored_rows

    rows = []
    for row in stored_rows(exp_dir):
        if row["status"] != "finished":
            continue
        setting = json.loads(row["spec_json"])["reservations"]
        requests = setting["requests"]
        rules = setting["rules"]
        rows.append({"workload": row["workload"], "policy": row["policy"],
                     "seed": -1 if row["seed"] is None else row["seed"],
                     "scenario": scenario_of(setting),
                     "placement": (rules or {}).get("placement", ""),
                     "minimums": minimums_of(rules), "papers": is_papers(rules),
                     "request_seed": -1 if requests is None else requests["generate"]["seed"],
                     "limit": setting["max_queued_per_user"] or 0, "run_id": row["run_id"],
                     **json.loads(row["metrics_json"])})
    return pd.DataFrame(rows)


def papers_runs(runs):
    """The runs of the paper's three scenarios (Margo §5), which its findings are about."""
    return runs[runs["papers"]]
