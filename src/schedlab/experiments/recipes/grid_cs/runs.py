"""The grid-cs runs and tasks: executed by the recipe itself, stored, resumed.

Grid runs are stored as ``EXP_DIR/runs/RUN_ID.json`` and the tasks (Table
5's knapsack instances, the ADH experiment) as ``EXP_DIR/tasks/KEY.json``
(:mod:`schedlab.experiments.recipes.grid_runs`); running the recipe again
skips what is stored.  The tasks run first (they are the quickest), then
the runs repetition by repetition.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.experiments.recipes.grid_cs.design import points, tasks
from schedlab.experiments.recipes.grid_runs import (
    RUNS_DIR,
    execute_points,
    execute_stored,
    read_runs,
    read_stored,
)

TASKS_DIR = "tasks"


def execute(exp_dir: str | Path, reduced: bool,
            progress: Callable[[int, int], None] | None = None) -> int:
    """Compute every task and simulate every point not stored yet; returns how many ran."""
    done = execute_stored(Path(exp_dir) / TASKS_DIR,
                          [(task.key, task.run) for task in tasks(reduced)], progress)
    return done + execute_points(exp_dir, points(reduced), progress=progress)


def run_table(exp_dir: str | Path, reduced: bool):
    """The stored runs of the form's points as a DataFrame (one row per run)."""
    return read_runs(exp_dir, points(reduced))


def task_results(exp_dir: str | Path, reduced: bool) -> dict[str, dict[str, Any]]:
    """The stored task results of the form, by key (those computed so far)."""
    return read_stored(Path(exp_dir) / TASKS_DIR, [task.key for task in tasks(reduced)])


__all__ = ["RUNS_DIR", "TASKS_DIR", "execute", "run_table", "task_results"]
