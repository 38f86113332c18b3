"""The schedule-based against the queue-based local policies: thesis §5.2.3 (Table 13).

Pasquali's thesis compares EG-EDF and EG-EDF + Tabu search with FCFS, EASY
backfilling and its own Flexible Backfilling on one cluster of 150 machines
(1-16 CPUs, ratings 200-600) and streams of 3000 jobs (estimates 500-3000 s,
1-8 CPUs, 70 % with a deadline) arriving with exponential interarrival
times, 20 streams per setting.  It reports the jobs missing their deadline,
the system usage, the slowdown and the scheduling time per event.

:func:`compare_schedule_based` is that experiment in one function (the
grid reproduction recipe calls it): per seed it draws the ``thesis-5.2``
platform and job stream, runs every policy of :func:`compared_policies` on
them, and returns one row per run.  :func:`summarize` averages the rows per
policy and interarrival time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schedlab.execution import execute
from schedlab.metrics import compute_metrics
from schedlab.platform.generator import PRESETS as PLATFORMS
from schedlab.platform.generator import generate_platform
from schedlab.policies.grid import LOCAL_POLICIES
from schedlab.run import RunSpec
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import THESIS_RUNS, generate_grid

#: The experiment's preset (platform and jobs): thesis §5.2.3, Table 13.
PRESET = "thesis-5.2"
#: The metrics of Figures 39 and 40, as compute_metrics names them, and the run's time.
METRICS = ("deadline_missed_pct", "system_usage", "nondeadline_avg_slowdown", "avg_slowdown")
#: Flexible Backfilling variants compared when they are registered.
FLEXIBLE_BACKFILLING = ("bf-unmod", "bf-mod")


def compared_policies() -> dict[str, dict[str, Any]]:
    """Label -> local policy spec: FCFS, EASY (bf-fcfs), Flexible Backfilling (each
    registered variant), EG-EDF alone (no Tabu iteration) and EG-EDF + Tabu search."""
    policies: dict[str, dict[str, Any]] = {"fcfs": {"name": "grid-fcfs"},
                                           "bf-fcfs": {"name": "bf-fcfs"}}
    for name in FLEXIBLE_BACKFILLING:
        if name in LOCAL_POLICIES:
            policies[name] = {"name": name}
    policies["eg-edf"] = {"name": "eg-edf", "iterations": 0}
    policies["eg-edf+tabu"] = {"name": "eg-edf"}
    return policies


def compare_schedule_based(n_jobs: int | None = None,
                           interarrivals: Sequence[float] | None = None,
                           seeds: Iterable[int] = range(1, 21),
                           policies: Mapping[str, Mapping[str, Any]] | None = None
                           ) -> list[dict[str, Any]]:
    """Run the §5.2.3 comparison; one row per (interarrival, seed, policy) with the
    :data:`METRICS` and ``scheduling_time_per_event_us``.

    Defaults: the thesis' 3000 jobs at ``Ta = 5`` s, 20 seeds (seed ``s``
    draws both the platform and the jobs), the policies of
    :func:`compared_policies`.
    """
    run = THESIS_RUNS[PRESET]
    n_jobs = run.jobs if n_jobs is None else n_jobs
    interarrivals = run.interarrivals if interarrivals is None else tuple(interarrivals)
    policies = compared_policies() if policies is None else dict(policies)
    rows = []
    for ta in interarrivals:
        for seed in seeds:
            platform = generate_platform(PLATFORMS[PRESET], seed)
            grid = generate_grid(platform, JOBS[PRESET], n_jobs, ta, seed)
            for label, spec in policies.items():
                result = execute(RunSpec(grid, dict(spec), platform=platform, seed=seed))
                metrics = compute_metrics(result)
                rows.append({"policy": label, "interarrival": ta, "seed": seed,
                             "jobs": n_jobs, **{m: metrics[m] for m in METRICS},
                             "scheduling_time_per_event_us":
                                 result.meta["scheduling_time_per_event_us"]})
    return rows


def summarize(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The mean of every metric per (policy, interarrival), in the rows' order."""
    groups: dict[tuple[str, float], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["policy"], row["interarrival"]), []).append(row)
    summary = []
    for (policy, ta), members in groups.items():
        means = {m: sum(r[m] for r in members) / len(members)
                 for m in (*METRICS, "scheduling_time_per_event_us")}
        summary.append({"policy": policy, "interarrival": ta, "runs": len(members), **means})
    return summary


__all__ = ["METRICS", "PRESET", "compare_schedule_based", "compared_policies", "summarize"]
