"""The grid-fb runs: executed by the recipe itself, one JSON file of metrics per run.

The sweep describes runs on one machine; a grid run needs a platform, so
the recipe simulates its points (:data:`~.design.SECTIONS`) here, in this
process, and stores each finished run as ``EXP_DIR/runs/RUN_ID.json``
(written atomically).  Running the recipe again skips the stored runs, as a
sweep does; runs go repetition by repetition, so a run stopped early leaves
complete repetitions, which the summary can already use.  :func:`run_table` reads them back as one table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from schedlab.experiments.recipes.grid_fb.design import POLICIES, Point, points

#: The metrics kept for every run (docs/metrics.md, "Grid runs").
METRICS = ("deadline_missed_pct", "system_usage", "licence_usage", "avg_slowdown",
           "nondeadline_avg_slowdown", "deadline_jobs")
RUNS_DIR = "runs"


def simulate_point(point: Point) -> dict[str, Any]:
    """Draw the point's platform and jobs (seed = repetition) and simulate; its metrics."""
    import schedlab
    from schedlab.platform.generator import generate_platform, preset as platform_preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(platform_preset(point.preset, ratio=point.ratio),
                                 seed=point.rep)
    grid = generate_grid(platform, PRESETS[point.preset], n_jobs=point.jobs,
                         interarrival=point.ta, seed=point.rep)
    result = schedlab.simulate(grid, point.policy, platform=platform,
                               allocation=point.allocation,
                               **({"dispatch": point.dispatch} if point.dispatch else {}))
    metrics = schedlab.compute_metrics(result)
    return {"run_id": point.run_id, "preset": point.preset, "ta": point.ta,
            "ratio": point.ratio_label, "rep": point.rep, "policy": point.policy,
            "label": POLICIES.get(point.policy, point.policy), "jobs": point.jobs,
            "dispatch": point.dispatch or "",
            **{name: float(metrics[name]) for name in METRICS},
            "scheduling_time_per_event_us": float(result.meta["scheduling_time_per_event_us"]),
            "wall_time_s": float(result.meta["wall_time_s"]),
            "reservation_holders": int(result.stats.get("reservation_holders", 0))}


def execute(exp_dir: str | Path, reduced: bool,
            progress: Callable[[int, int], None] | None = None) -> int:
    """Simulate every point not stored yet in ``exp_dir/runs/``; returns how many ran."""
    from schedlab.output import atomic_write_text

    folder = Path(exp_dir) / RUNS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    todo = [p for p in points(reduced) if not (folder / f"{p.run_id}.json").is_file()]
    todo.sort(key=lambda p: p.rep)     # repetition by repetition: a stopped run leaves whole ones
    for done, point in enumerate(todo, 1):
        row = simulate_point(point)
        atomic_write_text(folder / f"{point.run_id}.json", json.dumps(row, indent=1) + "\n")
        if progress is not None:
            progress(done, len(todo))
    return len(todo)


def run_table(exp_dir: str | Path, reduced: bool | None = None):
    """The stored runs as a DataFrame (one row per run); with ``reduced`` given, only the
    runs of that form's points."""
    import pandas as pd

    folder = Path(exp_dir) / RUNS_DIR
    wanted = None if reduced is None else {p.run_id for p in points(reduced)}
    rows = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))
            if wanted is None or path.stem in wanted]
    return pd.DataFrame(rows)
