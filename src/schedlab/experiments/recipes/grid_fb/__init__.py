"""Pasquali's thesis (paper 003), Flexible Backfilling: §4.1 reproduced (Figs. 16–18, Tables 2–3).

One cluster of 100 heterogeneous machines with 20 floating licences, 1000
jobs from Table 1's ranges at mean inter-arrival times Ta = 4 … 48, one job
per machine; FCFS (``grid-fcfs``), BF_FCFS (``bf-fcfs``), BF_UNMOD
(``bf-unmod``) and BF_MOD (``bf-mod``) with the footnote's weights, 20
repetitions with new machines and jobs; the licence ratio varied for
Tables 2–3.  The runs are grid runs, which the recipe executes itself
(:mod:`.runs`); the sections of the evaluation are listed in
:data:`~.design.SECTIONS` (the §4.3.1 meta-scheduler experiment is to join
them).  docs/reproductions/grid.md compares the thesis with our numbers.

Modules: design (sections and run points), paper (its numbers), runs
(executing and reading the runs), tables, figures, findings.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.grid_fb.design import (POLICIES, SECTIONS, Point, Section,
                                                         experiment, points)
from schedlab.experiments.recipes.grid_fb.figures import write_figures
from schedlab.experiments.recipes.grid_fb.findings import FINDINGS
from schedlab.experiments.recipes.grid_fb.runs import execute, run_table
from schedlab.experiments.recipes.grid_fb.tables import tables, write_tables


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Figs. 16–18, Tables 2–3 and the findings, written to ``EXP_DIR/reproduction/``."""
    exp_dir = Path(exp_dir)
    out = exp_dir / "reproduction"
    out.mkdir(parents=True, exist_ok=True)
    frames = tables(run_table(exp_dir, reduced))
    return Reproduction(findings=[finding(frames) for finding in FINDINGS],
                        tables=write_tables(frames, out), figures=write_figures(frames, out))


RECIPE = Recipe(
    name="grid-fb",
    paper="M. Pasquali, thesis (paper 003), §4.1: Flexible Backfilling",
    description="one cluster of 100 machines, 20 licences, 1000 jobs at Ta 4-48 and licence "
                "ratios 30-70 %: FCFS, BF_FCFS, BF_UNMOD, BF_MOD; Figs. 16-18, Tables 2-3",
    experiment=experiment,
    summarize=summarize,
    execute=execute,
)

__all__ = ["FINDINGS", "POLICIES", "RECIPE", "SECTIONS", "Point", "Section", "execute",
           "experiment", "points", "run_table", "summarize", "tables"]
