"""Pasquali's thesis (paper 003), Flexible Backfilling: §4.1 (Figs. 16–18, Tables 2–3) and
§4.3.1 (Figs. 25–29) reproduced.

§4.1: one cluster of 100 heterogeneous machines with 20 floating licences,
1000 jobs from Table 1's ranges at mean inter-arrival times Ta = 4 … 48, one
job per machine; FCFS (``grid-fcfs``), BF_FCFS (``bf-fcfs``), BF_UNMOD
(``bf-unmod``) and BF_MOD (``bf-mod``) with the footnote's weights, 20
repetitions with new machines and jobs; the licence ratio varied for
Tables 2–3.  §4.3.1: the meta-scheduler (``ms-heuristics``) above local
backfilling on four clusters of 120, 60, 30, 15 machines with space
sharing, 5000 jobs at Ta = 0, 5, 10, 15, the jobs classified by the
meta-scheduler, by the local Flexible Backfilling, or not at all.  The runs
are grid runs, which the recipe's sweep runs and stores like any sweep
(:mod:`.runs`); the sections of the evaluation are listed in
:data:`~.design.SECTIONS`.
docs/background/reproductions/grid.md compares the thesis with our numbers.

Modules: design (sections and their grid experiments), paper (its numbers), runs
(reading the runs back), tables, figures, findings.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.grid_fb.design import POLICIES, SECTIONS, experiment, runs
from schedlab.experiments.recipes.grid_fb.figures import write_figures
from schedlab.experiments.recipes.grid_fb.findings import FINDINGS, FINDINGS_41, FINDINGS_431
from schedlab.experiments.recipes.grid_fb.runs import old_runs_notice, run_table
from schedlab.experiments.recipes.grid_fb.tables import tables, write_tables
from schedlab.experiments.recipes.report import reproduction_dir


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Figs. 16–18, Tables 2–3, Figs. 25–29 and the findings, written to
    ``EXP_DIR/reproduction/`` (§4.3.1's only once some of its runs are stored)."""
    exp_dir = Path(exp_dir)
    out = reproduction_dir(exp_dir)
    frames = tables(run_table(exp_dir, reduced))
    checks = FINDINGS_41 + (FINDINGS_431 if "fig25" in frames else [])
    return Reproduction(findings=[finding(frames) for finding in checks],
                        tables=write_tables(frames, out), figures=write_figures(frames, out))


RECIPE = Recipe(
    name="grid-fb",
    paper="M. Pasquali, thesis (paper 003), §4.1 and §4.3.1: Flexible Backfilling, alone and "
          "under the meta-scheduler",
    description="one cluster of 100 machines, 20 licences, 1000 jobs at Ta 4-48 and licence "
                "ratios 30-70 %: FCFS, BF_FCFS, BF_UNMOD, BF_MOD; Figs. 16-18, Tables 2-3. "
                "Four clusters of 120/60/30/15 machines, 5000 jobs at Ta 0-15: MS, LS and NO "
                "heuristics; Figs. 25-29",
    experiment=experiment,
    summarize=summarize,
    stale=old_runs_notice,
)

__all__ = ["FINDINGS", "POLICIES", "RECIPE", "SECTIONS", "experiment", "run_table", "runs",
           "summarize", "tables"]
