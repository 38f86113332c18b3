"""Streit's self-tuning dynP scheduler family, §4–§5 reproduced (Figs. 2–8, Tables 4–6).

A. Streit, "A Self-Tuning Job Scheduler Family with Dynamic Policy
Switching", JSSPP 2002.  The paper simulates four synthetic job sets of
10,000 jobs (§4: CTC_syn, KTH_syn, PC2_syn, SDSC_syn) with the shrinking
factor lowered to raise the load (§5), under FCFS, SJF and LJF on the
planning-based CCS scheduler, basic dynP (7200 s / 9000 s), and
self-tuning dynP with the simple and the advanced decider and the quality
metrics MS, ART and ARTwW; Fig. 6 repeats Fig. 4 with perfect estimates.

Job sets (docs/background/reproductions/dynp.md gives the reasons): ``KTH_syn`` is
Streit's KTH_syn made by our generator from the same (cleaned) trace;
``SDSCBLUE_syn`` stands in for CTC_syn, ``NASA_syn`` for PC2_syn and
``LUBLIN256_syn`` for SDSC_syn.  Each set runs over the paper's range of
the set it stands for, as offered load (:class:`JobSet`), in a transform
table of its own; perfect estimates (Fig. 6) are run only for the lines of
Fig. 6 and the conservative policies, on the sets that have user estimates.

Besides the paper's policies the recipe runs both deciders with ARTwW
measured on the first job to start only: the test of why the deciders
differ in the paper and not here (docs/background/reproductions/dynp.md).  The
summary (:func:`summarize`) writes Figs. 2–8, Tables 4–6 and the findings
into ``EXP_DIR/reproduction/``.

Modules: design (the experiment), paper (its numbers), runs (the stored runs as a
table), tables, figures, findings; :func:`summarize` writes them all.
The names tests and notebooks use are imported here: import them from the package.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.dynp.design import (
    JOB_SETS,
    REDUCED_JOBS,
    REDUCED_SET,
    REDUCED_SHRINK,
    experiment,
)
from schedlab.experiments.recipes.dynp.figures import (
    FIGURES,
    axis_places,
    curve_diagrams,
    line_styles,
    reference_points,
    write_figures,
)
from schedlab.experiments.recipes.dynp.findings import (
    FINDINGS,
    at_reference,
    finding_basic,
    finding_sjf_best_perfect,
    finding_sld300,
)
from schedlab.experiments.recipes.dynp.paper import TABLE6, TABLE6_TOTALS
from schedlab.experiments.recipes.dynp.runs import (
    ADVANCED_LINE,
    BASIC_LINE,
    CONSERVATIVE_LINES,
    DYNP_LINES,
    FIRST_JOB_LINES,
    PLAN_FCFS_LINES,
    PLAN_FCFS_SUFFIX,
    SINGLE_LINES,
    line_label,
    pick,
    run_table,
    started_share,
    value,
)
from schedlab.experiments.recipes.dynp.tables import table6_counts, with_summary_rows, write_tables
from schedlab.experiments.recipes.report import reproduction_dir


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Figs. 2–8, Tables 4–6 and the findings, written to ``EXP_DIR/reproduction/``."""
    exp_dir = Path(exp_dir)
    out = reproduction_dir(exp_dir)
    runs = run_table(exp_dir)
    return Reproduction(findings=[finding(runs) for finding in FINDINGS],
                        tables=write_tables(runs, out), figures=write_figures(runs, out))


RECIPE = Recipe(
    name="dynp",
    paper="A. Streit, A Self-Tuning Job Scheduler Family with Dynamic Policy Switching, "
          "JSSPP 2002",
    description="KTH_syn, SDSCBLUE_syn (for CTC_syn), NASA_syn (for PC2_syn), "
                "LUBLIN256_syn (for SDSC_syn), each over the paper's range of shrinking "
                "factors: FCFS/SJF/LJF planning and conservative, basic dynP, self-tuning "
                "dynP (simple/advanced x ARTwW/ART/MS), perfect estimates; Figs. 2-8, "
                "Tables 4-6",
    experiment=experiment,
    summarize=summarize,
)


__all__ = [
    "ADVANCED_LINE", "BASIC_LINE", "CONSERVATIVE_LINES", "DYNP_LINES", "FIGURES", "FINDINGS",
    "FIRST_JOB_LINES", "JOB_SETS", "PLAN_FCFS_LINES", "PLAN_FCFS_SUFFIX", "RECIPE",
    "REDUCED_JOBS", "REDUCED_SET", "REDUCED_SHRINK", "SINGLE_LINES", "TABLE6", "TABLE6_TOTALS",
    "at_reference", "axis_places", "curve_diagrams", "experiment", "finding_basic",
    "finding_sjf_best_perfect", "finding_sld300", "line_label", "line_styles", "pick",
    "reference_points", "run_table", "started_share", "summarize", "table6_counts", "value",
    "with_summary_rows",
]
