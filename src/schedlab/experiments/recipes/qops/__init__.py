"""QoPS (Islam, Balaji, Sadayappan, Panda): deadline admission control, §4–§5 reproduced.

The paper's evaluation (§4, §5, Figs. 4–58): 5000-job subsets of the CTC
and SDSC traces with exact estimates; the offered load raised from 1.0 to
1.6 by duplication and by expansion (§4.2); deadlines from the EASY
schedule with stringency s = 0.2 and 0.5 (§4.1); 100 %, 80 % and 20 %
deadline jobs, the others with artificial deadlines max(24 h, R x runtime),
R = 2, 5, 10 (§4.2); QoPS against MSB and MRT, with EASY and conservative
backfilling as deadline-blind references.  schedlab adds ``edf`` (EDF with
EASY backfilling, no admission control).

Stand-ins (docs/background/reproductions/qops.md): the CTC and SDSC traces are not in
``SCHEDLAB_TRACES``; **KTH-SP2** stands in for CTC (the same machine type,
an IBM SP2 of 1996, with the same kind of EASY-scheduled batch workload)
and **SDSC-BLUE** for SDSC (the SDSC trace at hand: a larger IBM SP, 1,152
processors, where queues grow longest).

The figures are drawn from the stored results by :func:`summarize`; the
findings compare the directions the paper reports, since its figures carry
no printed values.

Modules: design (the experiment), paper (where the paper shows what), runs (the stored
runs as a table), tables, figures, findings; :func:`summarize` writes them all.
The names tests and notebooks use are imported here: import them from the package.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.qops.design import (
    ADMISSION,
    BASELINES,
    DEADLINE_FRACTIONS,
    LOAD_METHODS,
    LOADS,
    MAIN_RELAXATION,
    RELAXATIONS,
    STRINGENCIES,
    experiment,
    full_experiment,
)
from schedlab.experiments.recipes.qops.figures import (
    admittance_figures,
    nondeadline_figures,
    relaxation_figures,
)
from schedlab.experiments.recipes.qops.findings import (
    at_utilization,
    equal_utilization_wins,
    guarantee_finding,
    paper_findings,
)
from schedlab.experiments.recipes.qops.runs import main_runs, point_means, run_table
from schedlab.experiments.recipes.qops.tables import (
    admittance_table,
    guarantee_table,
    nondeadline_table,
    rejected_sizes_table,
    relaxation_table,
    wall_time_table,
)
from schedlab.experiments.recipes.report import reproduction_dir, write_frame


def summarize(exp_dir: Path, reduced: bool) -> Reproduction:
    """Figures, tables and findings of a finished sweep, in ``EXP_DIR/reproduction``."""
    from schedlab.viz.style import policy_styles

    out = reproduction_dir(exp_dir)
    runs = run_table(Path(exp_dir))
    main = main_runs(runs)
    means = point_means(main)
    styles = policy_styles(ADMISSION + BASELINES)
    reproduction = Reproduction(findings=paper_findings(runs, means))
    reproduction.figures.update(admittance_figures(main, styles, out))
    reproduction.figures.update(nondeadline_figures(main, styles, out))
    reproduction.figures.update(relaxation_figures(runs, out))
    tables = {"admittance": admittance_table(means), "guarantee": guarantee_table(runs),
              "rejected_sizes": rejected_sizes_table(main, Path(exp_dir)),
              "wall_time": wall_time_table(runs)}
    if (means["fraction"] < 1.0).any():
        tables["nondeadline"] = nondeadline_table(means)
        tables["relaxation"] = relaxation_table(runs)
    for name, table in tables.items():
        reproduction.tables.update(write_frame(table, out, name))
    return reproduction


RECIPE = Recipe(
    name="qops",
    paper="Islam, Balaji, Sadayappan, Panda: QoPS (deadline admission control)",
    description="QoPS, MSB, MRT, EDF, EASY, conservative: unadmitted jobs and "
                "processor-seconds, utilization, non-deadline jobs against load 1.0-1.6 "
                "(duplication, expansion), s = 0.2/0.5, 100/80/20 % deadline jobs, "
                "R = 2/5/10; KTH-SP2 for CTC, SDSC-BLUE for SDSC",
    experiment=experiment,
    summarize=summarize,
)


__all__ = [
    "DEADLINE_FRACTIONS",
    "LOADS",
    "LOAD_METHODS",
    "MAIN_RELAXATION",
    "RECIPE",
    "RELAXATIONS",
    "STRINGENCIES",
    "at_utilization",
    "equal_utilization_wins",
    "experiment",
    "full_experiment",
    "guarantee_finding",
    "guarantee_table",
    "main_runs",
    "run_table",
    "summarize",
]
