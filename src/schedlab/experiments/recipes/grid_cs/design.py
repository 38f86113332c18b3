"""What the grid-cs recipe runs: the thesis' Convergent Scheduling experiments and chapter 5.

Pasquali's thesis:

* §4.2, Table 5: the greedy multidimensional knapsack (MKP) of CS's
  pre-matching against an exact one, per licence ratio range
  (:func:`~schedlab.policies.grid.convergent.table5.table5`);
* §4.2, Figs. 19–24: the CS versions (CS_i_p, CS_i_np, CS_ni_p, CS_ni_np)
  against BF_FCFS (EASY), BF_UNMOD, BF_MOD and EDF on one cluster of 150
  machines with 20 licences (``thesis-4.2``), 1500 jobs, one job per
  machine, Ta = 4, 6, 8, 10, 12, 16, 20, 20 repetitions;
* §4.3.2, Figs. 30–32: a space-sharing CS under the meta-scheduler on the
  four clusters of ``thesis-4.3`` against FCFS, EASY and Flexible
  Backfilling, 5000 jobs, Ta = 0, 5, 10, 15;
* §5.1.5: the static Deadline heuristic against ADH on the job streams of
  Tables 10–12 (:func:`~schedlab.experiments.adh.run_adh_experiment`);
* §5.2.3, Figs. 39–40: EG-EDF and EG-EDF + Tabu search against FCFS, EASY
  and Flexible Backfilling (:func:`~schedlab.experiments.egedf.compared_policies`)
  on ``thesis-5.2``, 3000 jobs.

Grid simulations are grid experiments (:class:`~..grid_runs.GridPart`),
whose union the recipe's sweep runs (:func:`experiment`); Table 5 and ADH
are stored tasks (:data:`TASK_SECTIONS`).  A policy variant the
installed schedlab does not offer yet (CS with preemption, the
space-sharing CS) stays in the design as a :class:`Variant`; its runs are
left out, and the tables and findings say so, until it exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from schedlab.experiments.recipes.grid_runs import (
    GridPart,
    LabelledPolicy,
    LabelledRun,
    Section,
    labelled_runs,
    recipe_experiment,
)
from schedlab.experiments.spec import Experiment


@dataclass(frozen=True)
class Variant(LabelledPolicy):
    """A local policy as the thesis names it (``label``): ``policy`` with ``params``.
    ``needs`` says what must exist for it to run (empty: it always can)."""

    needs: str = ""

    def available(self) -> bool:
        """Whether this schedlab accepts the policy with these parameters."""
        from schedlab.errors import InputError
        from schedlab.policies.grid import make_local_policy

        try:
            make_local_policy({"name": self.policy, **dict(self.params)})
        except InputError:
            return False
        return True


_PREEMPTION = "`cs preemption=true` (preemption and migration in the grid engine)"

# ---------------------------------------------------------------- §4.2, Figs. 19–24
#: The local policies of Figs. 19–24, in the thesis' names.  ``cs`` takes footnote 2's
#: Overhead minimization Δ for the version by itself: 8 with preemption, 800 without.
#: The versions from scratch count their matchings' work (``count_work``, Figs. 23–24 in
#: operations; the counting's time is left out of their scheduling time).
CS_VARIANTS: tuple[Variant, ...] = (
    Variant("CS_i_p", "cs", (("incremental", True), ("preemption", True)), needs=_PREEMPTION),
    Variant("CS_i_np", "cs", (("incremental", True),)),
    Variant("CS_ni_p", "cs", (("incremental", False), ("preemption", True),
                              ("count_work", True)), needs=_PREEMPTION),
    Variant("CS_ni_np", "cs", (("incremental", False), ("count_work", True))),
)
BASELINES: tuple[Variant, ...] = (
    Variant("BF_FCFS", "bf-fcfs"), Variant("BF_UNMOD", "bf-unmod"),
    Variant("BF_MOD", "bf-mod"), Variant("EDF", "grid-edf"),
)
CS_LABELS = tuple(v.label for v in CS_VARIANTS)
BASELINE_LABELS = tuple(v.label for v in BASELINES)
#: Incremental and non-incremental versions, paired (Fig. 23, Fig. 24).
INCREMENTAL_PAIRS = (("CS_i_p", "CS_ni_p"), ("CS_i_np", "CS_ni_np"))
PRESET = "thesis-4.2"
RATIO = (0.55, 0.65)                    # Table 4's licence ratio
INTERARRIVALS = (4, 6, 8, 10, 12, 16, 20)
FULL_JOBS, FULL_REPETITIONS = 1500, 20
REDUCED_JOBS, REDUCED_REPETITIONS, REDUCED_INTERARRIVALS = 100, 1, (4, 10, 20)

# ---------------------------------------------------------------- §4.3.2, Figs. 30–32
#: The space-sharing CS of §4.3.2 with the footnote-4 weights (Δ = 800: not preemptive):
#: matchings over machine slots (``sharing=slots``, docs/reference/policies/convergent.md).
SPACE_SHARING_CS = Variant("CS", "cs", (("sharing", "slots"),),
                           needs="a space-sharing CS (`cs sharing=slots`)")
#: What §4.3.2 compares it with, under the same meta-scheduler.  Flexible Backfilling
#: with footnote 5's Deadline k = 2 (its other weights are the policy's defaults).
MS_BASELINES: tuple[Variant, ...] = (
    Variant("FCFS", "grid-fcfs"), Variant("EASY", "bf-fcfs"),
    Variant("Flexible BF", "bf-unmod", (("deadline_k", 2.0),)),
)
MS_PRESET, MS_RATIO, MS_DISPATCH = "thesis-4.3", (0.5, 0.7), "ms-heuristics"
MS_INTERARRIVALS = (0, 5, 10, 15)
#: The Ta of Figs. 31–32 ("we show the results obtained by using Ta = 5").
MS_FIGURE_INTERARRIVAL = 5
MS_FULL_JOBS, MS_FULL_REPETITIONS = 5000, 20
MS_REDUCED_JOBS, MS_REDUCED_REPETITIONS, MS_REDUCED_INTERARRIVALS = 150, 1, (5,)

# ---------------------------------------------------------------- §5.2.3, Figs. 39–40
#: compare_schedule_based's labels -> the thesis' names.
EGEDF_LABELS = {"fcfs": "FCFS", "bf-fcfs": "Easy BF", "bf-unmod": "Flex. BF (UNMOD)",
                "bf-mod": "Flex. BF (MOD)", "eg-edf": "EG-EDF", "eg-edf+tabu": "Tabu Search"}
FLEX_BF = ("Flex. BF (UNMOD)", "Flex. BF (MOD)")
EGEDF_PRESET, EGEDF_RATIO = "thesis-5.2", (0.5, 0.7)
#: Ta = 5 s is the preset's (the thesis' "low contention" point); 8 s is the lightest
#: load at which our platform keeps up (docs/reference/policies/grid.md).
EGEDF_INTERARRIVALS = (5, 8)
#: compare_schedule_based's seeds: 1..20.
EGEDF_FULL_JOBS, EGEDF_FULL_SEEDS = 3000, tuple(range(1, 21))
EGEDF_REDUCED_JOBS, EGEDF_REDUCED_SEEDS, EGEDF_REDUCED_INTERARRIVALS = 300, (1,), (5, 8)

# ---------------------------------------------------------------- Table 5 and §5.1.5
#: Table 5: instances per ratio range and jobs per instance.  The thesis draws 1000 jobs
#: on 100 machines; with every job queued at once that many makes one exact knapsack
#: take minutes, so our full form queues 250 (bench/CS.md).
TABLE5_FULL = {"instances": 20, "n_jobs": 250}
TABLE5_REDUCED = {"instances": 2, "n_jobs": 200}
#: ADH: jobs per stream (None: Tables 10–12's 2000) and seeds (docs/reference/policies/grid.md).
ADH_FULL: dict[str, Any] = {"jobs": None, "seeds": (1, 2, 3)}
ADH_REDUCED: dict[str, Any] = {"jobs": 300, "seeds": (1,)}


def cs_variants() -> tuple[Variant, ...]:
    """Every local policy of Figs. 19–24 (CS versions first)."""
    return CS_VARIANTS + BASELINES


def available(variants) -> list[Variant]:
    """The variants this schedlab can run."""
    return [v for v in variants if v.available()]


def left_out(variants) -> list[Variant]:
    """The variants this schedlab cannot run yet."""
    return [v for v in variants if not v.available()]


def profile_label() -> str:
    """The policy whose jobs-in-system profile Fig. 19 shows: the first CS version run."""
    return next((v.label for v in available(CS_VARIANTS)), "")


def cs_parts(reduced: bool) -> list[GridPart]:
    """§4.2, Figs. 19–24: every runnable variant at every Ta on ``thesis-4.2``."""
    jobs, reps, tas = ((REDUCED_JOBS, REDUCED_REPETITIONS, REDUCED_INTERARRIVALS) if reduced
                       else (FULL_JOBS, FULL_REPETITIONS, INTERARRIVALS))
    return [GridPart(PRESET, RATIO, tas, tuple(range(reps)), jobs,
                     tuple(available(cs_variants())))]


def ms_parts(reduced: bool) -> list[GridPart]:
    """§4.3.2, Figs. 30–32: the space-sharing CS and the baselines under the
    meta-scheduler; none while the space-sharing CS does not exist (nothing to compare)."""
    if not SPACE_SHARING_CS.available():
        return []
    jobs, reps, tas = ((MS_REDUCED_JOBS, MS_REDUCED_REPETITIONS, MS_REDUCED_INTERARRIVALS)
                       if reduced else (MS_FULL_JOBS, MS_FULL_REPETITIONS, MS_INTERARRIVALS))
    return [GridPart(MS_PRESET, MS_RATIO, tas, tuple(range(reps)), jobs,
                     (SPACE_SHARING_CS, *MS_BASELINES), allocation="shared",
                     dispatch=MS_DISPATCH)]


def egedf_parts(reduced: bool) -> list[GridPart]:
    """§5.2.3, Figs. 39–40: the runs of :func:`~schedlab.experiments.egedf.
    compare_schedule_based` (the seed draws platform and jobs)."""
    from schedlab.experiments.egedf import compared_policies

    jobs, seeds, tas = ((EGEDF_REDUCED_JOBS, EGEDF_REDUCED_SEEDS, EGEDF_REDUCED_INTERARRIVALS)
                        if reduced else (EGEDF_FULL_JOBS, EGEDF_FULL_SEEDS, EGEDF_INTERARRIVALS))
    policies = tuple(LabelledPolicy(EGEDF_LABELS.get(name, name), spec["name"],
                                    tuple((k, v) for k, v in spec.items() if k != "name"))
                     for name, spec in compared_policies().items())
    return [GridPart(EGEDF_PRESET, EGEDF_RATIO, tas, seeds, jobs, policies,
                     allocation="shared")]


#: The sections made of grid runs, run in this order.
SECTIONS: list[Section] = [
    Section("4.2-cs", "§4.2 Figs. 19–24: CS versions against BF_FCFS, BF_UNMOD, BF_MOD, EDF "
            "over Ta", cs_parts),
    Section("4.3.2-ms-cs", "§4.3.2 Figs. 30–32: space-sharing CS under the meta-scheduler",
            ms_parts),
    Section("5.2-eg-edf", "§5.2.3 Figs. 39–40: EG-EDF and Tabu search against FCFS, EASY and "
            "Flexible Backfilling", egedf_parts),
]


@dataclass(frozen=True)
class Task:
    """Stored work that is not one simulation: ``key`` names its file, ``run`` computes it."""

    key: str
    run: Callable[[], dict[str, Any]]


def table5_tasks(reduced: bool) -> list[Task]:
    """Table 5: one task per licence ratio range (both methods on the same instances)."""
    from schedlab.policies.grid.convergent.table5 import TABLE5_RATIOS

    size = TABLE5_REDUCED if reduced else TABLE5_FULL
    return [Task(f"table5-ratio{lo:g}-{hi:g}-i{size['instances']}-n{size['n_jobs']}",
                 partial(_table5_rows, (lo, hi), **size))
            for lo, hi in TABLE5_RATIOS]


def _table5_rows(ratio: tuple[float, float], instances: int, n_jobs: int) -> dict[str, Any]:
    from dataclasses import asdict

    from schedlab.policies.grid.convergent.table5 import table5

    return {"rows": [asdict(row) for row in table5([ratio], instances, n_jobs)]}


def adh_tasks(reduced: bool) -> list[Task]:
    """§5.1.5: one task per job stream and seed (static Deadline and ADH on it)."""
    from schedlab.experiments.adh import STREAMS

    size = ADH_REDUCED if reduced else ADH_FULL
    jobs = size["jobs"]
    return [Task(f"{stream}-n{jobs or 'table'}-seed{seed}", partial(_adh_runs, stream, jobs, seed))
            for stream in STREAMS for seed in size["seeds"]]


def _adh_runs(stream: str, jobs: int | None, seed: int) -> dict[str, Any]:
    from schedlab.experiments.adh import run_adh_experiment

    runs = run_adh_experiment(streams=(stream,), jobs=jobs, seed=seed)
    return {"seed": seed, "runs": [
        {**run.row(), "seed": seed, "margin": run.margin.tolist(), "base": run.base.tolist(),
         "distance": [None if d != d else float(d) for d in run.distance.tolist()],
         "missed_per_block": run.missed_per_block.tolist()} for run in runs]}


#: The sections that are stored tasks: name -> (title, tasks).
TASK_SECTIONS: dict[str, tuple[str, Callable[[bool], list[Task]]]] = {
    "4.2-table5": ("§4.2 Table 5: greedy MKP against the exact knapsack", table5_tasks),
    "5.1-adh": ("§5.1.5 Figs. 34–38: the static Deadline heuristic against ADH", adh_tasks),
}


def runs(reduced: bool) -> list[LabelledRun]:
    """Every distinct grid run of every section, labelled, repetition by repetition."""
    return labelled_runs(SECTIONS, reduced)


def tasks(reduced: bool) -> list[Task]:
    """Every stored task, in section order."""
    return [task for _, make in TASK_SECTIONS.values() for task in make(reduced)]


DESCRIPTION = ("Pasquali thesis §4.2 (Convergent Scheduling), §4.3.2 and chapter 5 (ADH, "
               "EG-EDF + Tabu search)")


def experiment(reduced: bool) -> Experiment:
    """The recipe's sweep: the union of its sections' grid experiments (the tasks and the
    variants left out, :func:`left_out`, are not in it)."""
    return recipe_experiment("grid-cs" + ("-reduced" if reduced else ""), DESCRIPTION,
                             SECTIONS, reduced)
