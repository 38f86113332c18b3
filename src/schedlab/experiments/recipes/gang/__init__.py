"""Gang scheduling with time slots, Zhou, Goscinski and Brent 2003, §5 reproduced (Tables 1-10).

B. B. Zhou, A. Goscinski, R. P. Brent, "Concerning the Length of Time Slots
for Efficient Gang Scheduling", IEICE Trans. Inf. & Syst., 2003
(``papers/001_…``).  The paper simulates nine hyper-Erlang workloads w0 … w8
of 10,000 jobs on 256 processors (§4) under three strategies (§5): Strategy 1
(re-packing, at most 5 slots, backfilling), Strategy 2 (no two long jobs on
one processor), Strategy 3 (short jobs in express slots); Tables 1-5 at slot
length l = 1, Tables 6-9 over l = 1 … 200, Table 10 at l = 200.

Our w0 … w8 are our own hyper-Erlang fit of SDSC-BLUE (docs/reference/models.md): the
paper's Blue-Pacific parameters are not published, so only the shape of the
results can be compared.  Besides the paper's runs, the recipe runs every
strategy at every slot length (figures of slowdown against l) and
``fcfs+easy`` on the same workloads: when does time sharing win?

Other readings are recipes of their own: ``gang-first-fit`` (first-fit
backfilling instead of the reservation for the queue's head) and
``gang-order2`` (w0 … w8 with service times of order 2; modules
``recipes.gang_first_fit`` and ``recipes.gang_order2``).

Modules: design (the experiment), paper (its numbers), runs (the stored runs as a
table), tables, figures, findings; :func:`summarize` writes them all.
The names tests and notebooks use are imported here: import them from the package.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes import Recipe, Reproduction
from schedlab.experiments.recipes.gang.design import (
    BACKFILL,
    BASELINE,
    FULL_JOBS,
    ORDER,
    REDUCED_JOBS,
    REDUCED_SLOTS,
    REDUCED_WORKLOADS,
    SLOTS,
    STRATEGIES,
    WORKLOADS,
    experiment,
)
from schedlab.experiments.recipes.gang.figures import reference_points, write_figures
from schedlab.experiments.recipes.gang.findings import (
    FINDINGS,
    finding_short_grow_with_slot,
    finding_slots_identity,
    finding_slots_in_use,
    finding_strategy2_far_below,
    finding_strategy3_not_worse,
    finding_strategy3_short,
    finding_versus_easy,
    identity_misses,
    paper_identity_columns,
)
from schedlab.experiments.recipes.gang.paper import (
    PAPER_BY_SLOT,
    PAPER_SHARES_S1,
    PAPER_SHARES_S2,
    PAPER_SHARES_S3,
    PAPER_SLOTS_MEAN,
    PAPER_SLOTS_MEAN_S3,
    PAPER_SLOWDOWN,
    PAPER_SLOWDOWN_SHORT,
    paper_shares,
    paper_value,
    weighted_mean,
)
from schedlab.experiments.recipes.gang.runs import (
    MAX_SLOTS,
    pick,
    run_table,
    slot_counts,
    space_sharing_slowdowns,
    value,
)
from schedlab.experiments.recipes.gang.tables import (
    by_slot_rows,
    shares_rows,
    slowdown_rows,
    versus_rows,
    write_tables,
)
from schedlab.experiments.recipes.report import reproduction_dir


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Tables 1-10, gang against fcfs+easy, the figures and the findings, written to
    ``EXP_DIR/reproduction/``."""
    exp_dir = Path(exp_dir)
    out = reproduction_dir(exp_dir)
    runs = run_table(exp_dir)
    return Reproduction(findings=[finding(runs) for finding in FINDINGS],
                        tables=write_tables(runs, out),
                        figures=write_figures(exp_dir, runs, out))


def make_recipe(name: str, reading: str = "", backfill: str = BACKFILL,
                order: int | None = ORDER) -> Recipe:
    """The recipe under one reading: the gang runs' ``backfill`` rule and the workloads'
    service ``order`` (``reading`` says which, in the description)."""
    return Recipe(
        name=name,
        paper="B. B. Zhou, A. Goscinski, R. P. Brent, Concerning the Length of Time Slots for "
              "Efficient Gang Scheduling, IEICE Trans. Inf. & Syst., 2003",
        description="w0..w8 (hyper-Erlang, SDSC-BLUE fit): gang Strategies 1-3 at slot "
                    "lengths 1-200 and fcfs+easy; Tables 1-10, slowdown against slot length"
                    + reading,
        experiment=lambda reduced: experiment(reduced, backfill, order),
        summarize=summarize,
    )


RECIPE = make_recipe("gang")


__all__ = [
    "BACKFILL", "BASELINE", "FINDINGS", "FULL_JOBS", "MAX_SLOTS", "ORDER", "PAPER_BY_SLOT",
    "PAPER_SHARES_S1", "PAPER_SHARES_S2", "PAPER_SHARES_S3", "PAPER_SLOTS_MEAN",
    "PAPER_SLOTS_MEAN_S3", "PAPER_SLOWDOWN", "PAPER_SLOWDOWN_SHORT", "RECIPE", "REDUCED_JOBS",
    "REDUCED_SLOTS", "REDUCED_WORKLOADS", "SLOTS", "STRATEGIES", "WORKLOADS", "by_slot_rows",
    "experiment", "finding_short_grow_with_slot", "finding_slots_identity",
    "finding_slots_in_use", "finding_strategy2_far_below", "finding_strategy3_not_worse",
    "finding_strategy3_short", "finding_versus_easy", "identity_misses", "make_recipe",
    "paper_identity_columns", "paper_shares", "paper_value", "pick", "reference_points",
    "run_table", "shares_rows", "slot_counts", "slowdown_rows", "space_sharing_slowdowns",
    "summarize", "value", "versus_rows", "weighted_mean", "write_figures", "write_tables",
]
