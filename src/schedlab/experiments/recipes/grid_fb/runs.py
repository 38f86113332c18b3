"""The grid-fb runs: executed by the recipe itself, one JSON file of metrics per run
(:mod:`schedlab.experiments.recipes.grid_runs`: stored as ``EXP_DIR/runs/RUN_ID.json``,
skipped when stored, repetition by repetition).  :func:`run_table` reads them back as
one table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from schedlab.experiments.recipes.grid_fb.design import POLICIES, points
from schedlab.experiments.recipes.grid_runs import (
    METRICS,
    RUNS_DIR,
    Point,
    execute_points,
    read_runs,
)
from schedlab.experiments.recipes.grid_runs import simulate_point as simulate_grid_point


def label(point: Point) -> str:
    """How the tables name a point's policy: its thesis name (``BF_FCFS``)."""
    return point.label or POLICIES.get(point.policy, point.policy)


def simulate_point(point: Point) -> dict:
    """Simulate one point (:func:`~..grid_runs.simulate_point`), labelled by :func:`label`."""
    return simulate_grid_point(point, label(point))


def execute(exp_dir: str | Path, reduced: bool,
            progress: Callable[[int, int], None] | None = None) -> int:
    """Simulate every point not stored yet in ``exp_dir/runs/``; returns how many ran."""
    return execute_points(exp_dir, points(reduced), label, progress)


def run_table(exp_dir: str | Path, reduced: bool | None = None):
    """The stored runs as a DataFrame (one row per run); with ``reduced`` given, only the
    runs of that form's points."""
    return read_runs(exp_dir, None if reduced is None else points(reduced))


__all__ = ["METRICS", "RUNS_DIR", "execute", "label", "run_table", "simulate_point"]
