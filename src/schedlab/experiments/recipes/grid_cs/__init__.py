"""Pasquali's thesis (paper 003): Convergent Scheduling (§4.2), CS under the meta-scheduler
(§4.3.2) and chapter 5 (ADH, EG-EDF + Tabu search) reproduced.

Table 5 (the greedy knapsack of CS's pre-matching against an exact one),
Figs. 19–24 (the CS versions against BF_FCFS, BF_UNMOD, BF_MOD and EDF on
one cluster of 150 machines with 20 licences), Figs. 30–32 (a
space-sharing CS under the meta-scheduler on four clusters), the ADH
experiment of §5.1.5 and the EG-EDF + Tabu search comparison of §5.2.3.
The sections are listed in :mod:`.design`; variants this schedlab does not
offer yet stay in the design and are reported as left out.  The runs are
grid runs, which the recipe's sweep runs and stores like any sweep, and
stored tasks, which the recipe computes itself first (:mod:`.runs`).
docs/background/reproductions/grid.md compares the thesis with our numbers.

Modules: design (sections, their grid experiments, tasks), paper (its numbers), runs
(executing and reading them), tables, figures, findings.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.grid_cs.design import SECTIONS, experiment, runs, tasks
from schedlab.experiments.recipes.grid_cs.figures import write_figures
from schedlab.experiments.recipes.grid_cs.findings import FINDINGS
from schedlab.experiments.recipes.grid_cs.runs import (
    execute_tasks,
    old_runs_notice,
    run_table,
    task_results,
)
from schedlab.experiments.recipes.grid_cs.tables import tables, write_tables
from schedlab.experiments.recipes.report import reproduction_dir


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Table 5, Figs. 19–24, 30–32, 39–40, the ADH table and the findings, written to
    ``EXP_DIR/reproduction/``."""
    exp_dir = Path(exp_dir)
    out = reproduction_dir(exp_dir)
    stored = task_results(exp_dir, reduced)
    frames = tables(run_table(exp_dir, reduced), stored)
    return Reproduction(findings=[finding(frames) for finding in FINDINGS],
                        tables=write_tables(frames, out),
                        figures=write_figures(frames, stored, out))


RECIPE = Recipe(
    name="grid-cs",
    paper="M. Pasquali, thesis (paper 003), §4.2, §4.3.2, chapter 5: Convergent Scheduling, "
          "ADH, EG-EDF + Tabu search",
    description="Table 5 (greedy vs exact knapsack); CS versions vs BF_FCFS, BF_UNMOD, BF_MOD, "
                "EDF on 150 machines at Ta 4-20 (Figs. 19-24); CS under the meta-scheduler "
                "(Figs. 30-32); ADH (§5.1.5); EG-EDF + Tabu vs backfilling (Figs. 39-40)",
    experiment=experiment,
    summarize=summarize,
    tasks=execute_tasks,
    stale=old_runs_notice,
)

__all__ = ["FINDINGS", "RECIPE", "SECTIONS", "execute_tasks", "experiment", "run_table", "runs",
           "summarize", "tables", "tasks"]
