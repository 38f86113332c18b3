"""Margo, Yoshimoto, Kovatch, Andrews: "Impact of Reservations on Production Job
Scheduling" (SDSC), §5–6 reproduced.

The paper replays one month of DataStar's production log (March 2006 and
March 2007, ~720 jobs each on 256 batch nodes) in three scenarios (§5):
the baseline, baseline + reservations (a year of TeraGrid requests, 60,
compressed into the month: 15 a week, 8–128 nodes, 4–18 h) and baseline +
reservations + the throttling policy (at most 256 nodes x 12 h of
reservations in any sliding 7 days, §2).  Catalina schedules every 15
minutes (§3).  The results (§6, Graphs 4–13): node-seconds-weighted
expansion factor and wait (eq. 2–3), utilization and queue depth over
time, and both metrics by size class (1, 2–64, 65–256 nodes).

Stand-ins (docs/background/reproductions/reservations.md): DataStar's log is not
public.  The full form uses two busy 30-day windows of each real trace at
hand — **KTH-SP2** (100 nodes, one processor each) and **SDSC-BLUE** (Blue
Horizon, 1,152 processors = 144 nodes x 8; every job asks for whole nodes,
so requests and size classes are in nodes of 8 processors) — and the
paper's request stream, generated (the TeraGrid requests are not public).
The reduced form (CI) uses the built-in Lublin model.

Beyond the paper, both forms run the policies its future work postulates
(§7: reservations "as a function of reservation size, duration, and advance
notice"; §8: "policies that have a minimum duration requirement") — a
minimum duration and a minimum notice, alone, together and with the
throttle — and the ``earliest`` placement next to Catalina's exact one.

Modules: design (the experiment), paper (its numbers), runs (the stored runs as a
table), tables, figures, findings; :func:`summarize` writes them all.
The names tests and notebooks use are imported here: import them from the package.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.report import (
    plain_number,
    reproduction_dir,
    write_figure,
    write_frame,
)
from schedlab.experiments.recipes.reservations.design import (
    CATALINA_LIKE,
    DATASTAR_QUEUE_LIMIT,
    MIN_NOTICE_HOURS,
    SCENARIOS,
    WINDOWS,
    experiment,
    machine_sizes,
    node_sizes,
    reduced_experiment,
    rule_grid,
)
from schedlab.experiments.recipes.reservations.figures import (
    bar_figure,
    class_figure,
    requests_figure,
    rules_figure,
    timeseries_figure,
)
from schedlab.experiments.recipes.reservations.findings import (
    future_findings,
    minimum_rule,
    paper_findings,
    placement_reading,
    rise_per_point,
)
from schedlab.experiments.recipes.reservations.paper import paper_table
from schedlab.experiments.recipes.reservations.runs import (
    is_papers,
    minimums_of,
    papers_runs,
    run_table,
)
from schedlab.experiments.recipes.reservations.tables import (
    class_metrics,
    class_table,
    earlier_large_jobs,
    has_setting,
    readings_table,
    rejection_table,
    rule_table,
    scenario_means,
)


def summarize(exp_dir: Path, reduced: bool) -> Reproduction:
    """Figures, tables and findings of a finished sweep, in ``EXP_DIR/reproduction``."""
    exp_dir = Path(exp_dir)
    out = reproduction_dir(exp_dir)
    sizes, machines = node_sizes(reduced), machine_sizes(reduced)
    every = run_table(exp_dir)
    runs = papers_runs(every)
    means = scenario_means(runs)
    classes = class_table(exp_dir, runs, sizes)
    large = earlier_large_jobs(exp_dir, runs, sizes)
    rules = rule_table(every)
    reproduction = Reproduction(findings=paper_findings(runs, means, classes, large)
                                + future_findings(rules))
    tables = {"scenarios": means, "size_classes": classes, "requests": rejection_table(runs),
              "large_jobs_earlier": large, "paper": paper_table(), "rules": rules,
              "readings": readings_table(rules)}
    if (runs["limit"] > 0).any():
        tables["queue_limit"] = scenario_means(runs, DATASTAR_QUEUE_LIMIT)
    for name, table in tables.items():
        reproduction.tables.update(write_frame(table, out, name, number=plain_number))
    figures = {
        "expansion_factor": bar_figure(means, "expansion_factor_weighted",
                                       "Average expansion factor, all jobs (Graph 4)"),
        "wait": bar_figure(means, "wait_h", "Average wait, all jobs (Graph 5)"),
        "requests_granted": requests_figure(rejection_table(runs)),
    }
    policy = CATALINA_LIKE if CATALINA_LIKE in set(runs["policy"]) else runs["policy"].iloc[0]
    figures["rules_expansion_factor"] = rules_figure(rules, policy)
    nodes = {workload: processors // sizes.get(workload, 1)
             for workload, processors in machines.items()}
    figures["classes_expansion_factor"] = class_figure(
        classes, "expansion_factor", policy, "Expansion factor by job size (Graphs 10-11)",
        nodes)
    figures["classes_wait"] = class_figure(classes, "wait_h", policy,
                                           "Wait by job size (Graphs 12-13)", nodes)
    for workload in dict.fromkeys(runs["workload"]):
        slug = workload.replace(" ", "_")
        for column in ("utilization", "queue"):
            figures[f"{column}_{slug}"] = timeseries_figure(exp_dir, runs, workload, policy,
                                                            column, machines[workload])
    for name, figure in figures.items():
        reproduction.figures.update(write_figure(figure, out, name))
    return reproduction


RECIPE = Recipe(
    name="reservations",
    paper="Margo, Yoshimoto, Kovatch, Andrews: Impact of Reservations on Production Job "
          "Scheduling",
    description="baseline / + reservations / + reservations + throttling (256 nodes x 12 h "
                "per sliding week) with EASY and conservative backfilling on 30-day windows "
                "of KTH-SP2 and SDSC-BLUE, a year of requests compressed into the month; "
                "and the future work's minimum duration (12 h) and notice (72 h), alone, "
                "together and throttled, with exact and earliest placement",
    experiment=experiment,
    summarize=summarize,
)


__all__ = [
    "MIN_NOTICE_HOURS", "RECIPE", "SCENARIOS", "WINDOWS", "class_metrics", "experiment",
    "has_setting", "is_papers", "minimum_rule", "minimums_of", "papers_runs",
    "placement_reading", "readings_table", "reduced_experiment", "rejection_table",
    "rise_per_point", "rule_grid", "rule_table", "run_table", "summarize",
]
