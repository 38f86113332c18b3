"""The grid-cs tasks, executed and stored by the recipe, and its runs read back.

The tasks (Table 5's knapsack instances, the ADH experiment) are stored as
``EXP_DIR/tasks/KEY.json`` (:func:`~schedlab.experiments.recipes.grid_runs.execute_stored`)
and run before the sweep (they are the quickest); the grid runs are the recipe's sweep
(:func:`~.design.experiment`).  Running the recipe again skips what is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.experiments.recipes.grid_cs.design import profile_label
from schedlab.experiments.recipes.grid_cs.design import runs as labelled_runs
from schedlab.experiments.recipes.grid_cs.design import tasks as design_tasks
from schedlab.experiments.recipes.grid_runs import (
    execute_stored,
    old_runs_notice,
    read_stored,
    workload_profile,
)
from schedlab.experiments.recipes.grid_runs import run_table as stored_runs

TASKS_DIR = "tasks"


def execute_tasks(exp_dir: str | Path, reduced: bool,
                  progress: Callable[[int, int], None] | None = None) -> int:
    """Compute every task not stored yet; returns how many ran."""
    return execute_stored(Path(exp_dir) / TASKS_DIR,
                          [(task.key, task.run) for task in design_tasks(reduced)], progress)


def run_table(exp_dir: str | Path, reduced: bool):
    """The stored runs of the form as a DataFrame (one row per run); the runs of
    :func:`profile_label` with their ``workload_profile`` (Fig. 19, from their tables)."""
    frame = stored_runs(exp_dir, labelled_runs(reduced))
    shown = frame["label"] == profile_label()
    frame["workload_profile"] = [workload_profile(exp_dir, run_id) if show else None
                                 for run_id, show in zip(frame["run_id"], shown)]
    return frame


def task_results(exp_dir: str | Path, reduced: bool) -> dict[str, dict[str, Any]]:
    """The stored task results of the form, by key (those computed so far)."""
    return read_stored(Path(exp_dir) / TASKS_DIR, [task.key for task in design_tasks(reduced)])


__all__ = ["TASKS_DIR", "execute_tasks", "old_runs_notice", "run_table", "task_results"]
