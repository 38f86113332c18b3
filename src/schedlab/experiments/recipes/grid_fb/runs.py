"""The grid-fb runs read back: the recipe's sweep stores them (:func:`~.design.experiment`,
:mod:`schedlab.experiments.recipes.grid_runs`); :func:`run_table` reads them as one table."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.grid_fb.design import runs
from schedlab.experiments.recipes.grid_runs import old_runs_notice
from schedlab.experiments.recipes.grid_runs import run_table as stored_runs


def run_table(exp_dir: str | Path, reduced: bool):
    """The stored runs of the form as a DataFrame (one row per run)."""
    return stored_runs(exp_dir, runs(reduced))


__all__ = ["old_runs_notice", "run_table"]
