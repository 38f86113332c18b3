"""The thesis' Table 5: the greedy knapsack against the exact one, per licence ratio.

Pasquali thesis §4.2 compares its greedy MKP with a branch and bound "on the
same job streams instances" for four ranges of the *Licence ratio* (copies
per suitable machine), on 100 machines, 40 licences and 1000 jobs: average
time, and the smallest, average and best licence usage over the instances.

Our instances (the thesis gives no more detail; docs/reference/policies/convergent.md):
a platform drawn from the ``thesis-4.2-mkp`` preset with the ratio range,
jobs drawn from the same preset, and the cluster seen at the submission of
the last of ``n_jobs`` jobs with every job queued (a congested moment: the
jobs in the system).  The Job-Machine matrix of that state (default
weights) gives the knapsack values; :func:`~.knapsack.prematch` runs with
each method.  *Licence usage* is the copies the kept jobs use of the
critical licences over those licences' copies.  Times are wall-clock, so
they vary from run to run; everything else is deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.platform.generator import generate_platform
from schedlab.platform.generator import preset as platform_preset
from schedlab.policies.grid.convergent.knapsack import METHODS, prematch, unit_values
from schedlab.policies.grid.convergent.matrix import ClusterState, job_machine_matrix
from schedlab.workload.models.grid import PRESETS as JOB_PRESETS
from schedlab.workload.models.grid import generate_grid

#: The thesis' licence ratio ranges of Table 5.
TABLE5_RATIOS = ((0.40, 0.45), (0.45, 0.50), (0.50, 0.55), (0.55, 0.60))
PRESET = "thesis-4.2-mkp"


@dataclass(frozen=True)
class Table5Row:
    """One row: a ratio range and a method; usage as fractions (1.0 = every copy used)."""

    ratio: tuple[float, float]
    method: str
    instances: int
    time_ms: float
    smallest: float
    average: float
    best: float
    value_vs_exact: float
    unproven: int = 0


def licence_usage(needs: np.ndarray, copies: np.ndarray, kept: np.ndarray,
                  critical: np.ndarray) -> float:
    """Copies of the critical licences the kept jobs use, over those licences' copies.

    1.0 when no licence is critical (nothing is contended).
    """
    if not critical.any():
        return 1.0
    used = np.minimum(needs[kept][:, critical].sum(axis=0), copies[critical])
    return float(used.sum() / copies[critical].sum())


def table5(ratios: Sequence[tuple[float, float]] = TABLE5_RATIOS, instances: int = 20,
           n_jobs: int = 250, seed: int = 0, time_limit: float | None = 60.0
           ) -> list[Table5Row]:
    """Greedy and exact pre-matching on ``instances`` random instances per ratio range.

    Instance ``k`` of every range uses seed ``seed + k`` for the platform and
    the jobs.  ``value_vs_exact`` is the mean over the instances of the
    knapsack value kept (sum of the kept jobs' ``c-bar``) over the exact one;
    ``unproven`` counts the instances where the exact solver stopped at
    ``time_limit`` seconds (its best solution is then used).
    """
    rows = []
    for low, high in ratios:
        ratio = (low, high)
        settings = platform_preset(PRESET, ratio=ratio)
        results: dict[str, list[tuple[float, float, float, bool]]] = {m: [] for m in METHODS}
        for k in range(instances):
            platform = generate_platform(settings, seed=seed + k)
            grid = generate_grid(platform, JOB_PRESETS[PRESET], n_jobs=n_jobs, interarrival=10,
                                 seed=seed + k)
            now = grid.workload.jobs[-1].submit
            state = ClusterState.from_grid(grid, platform, 0, now, range(n_jobs))
            matrix = job_machine_matrix(state)
            item_values = unit_values(matrix)
            for method in METHODS:
                began = time.perf_counter()
                outcome = prematch(matrix, state.needs, state.copies, method,
                                   time_limit=time_limit)
                elapsed = time.perf_counter() - began
                usage = licence_usage(state.needs, state.copies, outcome.kept, outcome.critical)
                results[method].append((elapsed, usage,
                                        float(item_values[outcome.kept].sum()),
                                        outcome.proven))
        exact_values = np.array([v for _, _, v, _ in results["exact"]])
        for method in METHODS:
            times, usages, value, proven = (np.array(c) for c in zip(*results[method]))
            ratio_to_exact = np.divide(value, exact_values, out=np.ones_like(value),
                                       where=exact_values > 0)
            rows.append(Table5Row(ratio, method, instances, 1000 * float(times.mean()),
                                  float(usages.min()), float(usages.mean()), float(usages.max()),
                                  float(ratio_to_exact.mean()), int((~proven).sum())))
    return rows


def table5_markdown(rows: Sequence[Table5Row]) -> str:
    """The rows as a markdown table, as in the thesis (usage in %)."""
    lines = ["| licence ratio | method | instances | time (ms) | Sml (%) | Avg (%) | Bst (%) "
             "| value / exact | unproven |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| [{r.ratio[0]:.0%} - {r.ratio[1]:.0%}] | {r.method} | {r.instances} "
                     f"| {r.time_ms:.2f} | {100 * r.smallest:.1f} | {100 * r.average:.1f} "
                     f"| {100 * r.best:.1f} | {r.value_vs_exact:.4f} | {r.unproven} |")
    return "\n".join(lines)


__all__ = ["TABLE5_RATIOS", "Table5Row", "licence_usage", "table5", "table5_markdown"]
