"""What the grid-fb recipe runs: the thesis' Flexible Backfilling experiments, section by section.

Pasquali's thesis §4.1: one cluster of 100 machines, 20 licences and 1000
jobs drawn from Table 1's ranges (the ``thesis-4.1`` presets of the
platform and job generators), one job per machine (no space sharing),
inter-arrival times Ta = 4, 6, 12, 24, 48; each simulation repeated 20
times with new jobs and machines; FCFS, BF_FCFS, BF_UNMOD and BF_MOD
(Figs. 16–18), and the licence ratio varied over 30–50, 40–60, 50–70 %
(Tables 2–3).

Pasquali's thesis §4.3.1: the meta-scheduler (MS) above local schedulers
(LS) on the ``thesis-4.3`` grid, 4 clusters of 120, 60, 30, 15 machines
with space sharing, 5000 jobs at Ta = 0, 5, 10, 15, 20 repetitions; three
configurations (:data:`CONFIGURATIONS`): the jobs classified by the MS
(MS heuristics), by the LS' Flexible Backfilling (LS heuristics), or not
at all (NO heuristics) (Figs. 25–29).

The recipe is a list of :data:`SECTIONS`; each gives its grid experiments
(:class:`~schedlab.experiments.recipes.grid_runs.GridPart`, shared with the
other grid recipes), whose union the sweep runs (:func:`experiment`), so two
sections asking for the same simulation share it.  §4.3.1's parts carry a
dispatcher, one part per configuration, labelled by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.experiments.recipes.grid_runs import (
    GridPart,
    LabelledPolicy,
    LabelledRun,
    Params,
    Section,
    labelled_runs,
    recipe_experiment,
)
from schedlab.experiments.spec import Experiment

#: The local policies of §4.1, as the thesis labels them.
POLICIES: dict[str, str] = {"grid-fcfs": "FCFS", "bf-fcfs": "BF_FCFS",
                            "bf-unmod": "BF_UNMOD", "bf-mod": "BF_MOD"}
#: The Flexible Backfilling variants (the thesis' own) and the baselines.
FLEXIBLE = ("BF_UNMOD", "BF_MOD")
BASELINES = ("FCFS", "BF_FCFS")
BACKFILLING = ("BF_FCFS", "BF_UNMOD", "BF_MOD")

INTERARRIVALS = (4, 6, 12, 24, 48)
#: Licence ratios of Tables 2–3 (Table 1's own is 50–70 %).
LICENCE_RATIOS = ((0.3, 0.5), (0.4, 0.6), (0.5, 0.7))
#: Ta of Tables 2–3.  The thesis does not say; our reading: the highest contention,
#: Ta = 4, where FCFS misses about 95 % of the deadlines as in its Table 3.
TABLE_INTERARRIVAL = 4
FULL_JOBS, FULL_REPETITIONS = 1000, 20
REDUCED_JOBS, REDUCED_REPETITIONS = 300, 2
REDUCED_INTERARRIVALS = (4, 12, 48)
PRESET = "thesis-4.1"


#: §4.3.1: the grid, its mean inter-arrival times and sizes.
MS_PRESET = "thesis-4.3"
MS_RATIO = (0.5, 0.7)
MS_INTERARRIVALS = (0, 5, 10, 15)
#: The Ta at which the thesis shows Figs. 26–29 ("we show the results obtained by using
#: Ta = 5 concerning the other studied metrics").
MS_FIGURE_INTERARRIVAL = 5
MS_FULL_JOBS, MS_FULL_REPETITIONS = 5000, 20
MS_REDUCED_JOBS, MS_REDUCED_REPETITIONS = 800, 2
MS_REDUCED_INTERARRIVALS = (0, 5, 15)


@dataclass(frozen=True)
class Configuration:
    """One of §4.3.1's three cases: the local policy and the dispatcher, with parameters."""

    label: str
    policy: str
    dispatch: str
    params: Params = ()
    dispatch_params: Params = ()


#: §4.3.1's three cases (docs/reference/policies/grid.md, "Reproducing §4.3.1").  LS heuristics:
#: the Flexible Backfilling of §3.2.1 (BF_UNMOD) with the footnote's weights, k = 2 (its
#: other weights are the policy's defaults); the meta-scheduler still balances by Load,
#: without classifying (every job priority 1).
CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration("MS heuristics", "bf-fcfs", "ms-heuristics", params=(("order", "priority"),)),
    Configuration("LS heuristics", "bf-unmod", "ms-heuristics", params=(("deadline_k", 2.0),),
                  dispatch_params=(("classify", False),)),
    Configuration("NO heuristics", "bf-fcfs", "ms-heuristics",
                  dispatch_params=(("classify", False),)),
)
CASES = tuple(c.label for c in CONFIGURATIONS)


def _sizes(reduced: bool) -> tuple[int, int]:
    return (REDUCED_JOBS, REDUCED_REPETITIONS) if reduced else (FULL_JOBS, FULL_REPETITIONS)


#: The policies of §4.1 with their thesis labels.
LOCAL_POLICIES = tuple(LabelledPolicy(label, name) for name, label in POLICIES.items())


def interarrival_parts(reduced: bool) -> list[GridPart]:
    """§4.1, Figs. 16–18: every policy at every Ta, Table 1's licence ratio."""
    jobs, reps = _sizes(reduced)
    tas = REDUCED_INTERARRIVALS if reduced else INTERARRIVALS
    return [GridPart(PRESET, LICENCE_RATIOS[-1], tas, tuple(range(reps)), jobs,
                     LOCAL_POLICIES)]


def licence_ratio_parts(reduced: bool) -> list[GridPart]:
    """§4.1, Tables 2–3: every policy at every licence ratio, Ta = :data:`TABLE_INTERARRIVAL`."""
    jobs, reps = _sizes(reduced)
    return [GridPart(PRESET, ratio, (TABLE_INTERARRIVAL,), tuple(range(reps)), jobs,
                     LOCAL_POLICIES) for ratio in LICENCE_RATIOS]


def _ms_sizes(reduced: bool) -> tuple[int, int, tuple[float, ...]]:
    if reduced:
        return MS_REDUCED_JOBS, MS_REDUCED_REPETITIONS, MS_REDUCED_INTERARRIVALS
    return MS_FULL_JOBS, MS_FULL_REPETITIONS, MS_INTERARRIVALS


def meta_scheduler_parts(reduced: bool) -> list[GridPart]:
    """§4.3.1, Figs. 25–29: the three configurations at every Ta on the four clusters."""
    jobs, reps, tas = _ms_sizes(reduced)
    return [GridPart(MS_PRESET, MS_RATIO, tas, tuple(range(reps)), jobs,
                     (LabelledPolicy(c.label, c.policy, c.params),), allocation="shared",
                     dispatch=c.dispatch, dispatch_params=c.dispatch_params)
            for c in CONFIGURATIONS]


#: The recipe's sections, run in this order.
SECTIONS: list[Section] = [
    Section("4.1-interarrival", "§4.1 Figs. 16–18: FCFS, BF_FCFS, BF_UNMOD, BF_MOD over Ta",
            interarrival_parts),
    Section("4.1-licence-ratio", "§4.1 Tables 2–3: the same over the licence ratio",
            licence_ratio_parts),
    Section("4.3.1-meta-scheduler", "§4.3.1 Figs. 25–29: MS, LS and NO heuristics on four "
            "clusters over Ta", meta_scheduler_parts),
]
DESCRIPTION = ("Pasquali thesis §4.1: Flexible Backfilling on one cluster of 100 heterogeneous "
               "machines with 20 licences; §4.3.1: the meta-scheduler with it on four clusters")


def runs(reduced: bool) -> list[LabelledRun]:
    """Every distinct run of every section, labelled, repetition by repetition."""
    return labelled_runs(SECTIONS, reduced)


def experiment(reduced: bool) -> Experiment:
    """The recipe's sweep: the union of its sections' grid experiments."""
    return recipe_experiment("grid-fb" + ("-reduced" if reduced else ""), DESCRIPTION,
                             SECTIONS, reduced)
