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

The recipe is a list of :data:`SECTIONS`; each names its run points
(:class:`~schedlab.experiments.recipes.grid_runs.Point`, shared with the
other grid recipes), so two sections asking for the same simulation share
it.  §4.3.1's points carry a dispatcher and the configuration's label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedlab.experiments.recipes.grid_runs import Params, Point, Section, distinct_points, spelled

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


#: §4.3.1's three cases (docs/policies/grid.md, "Reproducing §4.3.1").  LS heuristics:
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


def interarrival_points(reduced: bool) -> list[Point]:
    """§4.1, Figs. 16–18: every policy at every Ta, Table 1's licence ratio."""
    jobs, reps = _sizes(reduced)
    tas = REDUCED_INTERARRIVALS if reduced else INTERARRIVALS
    return [Point(PRESET, ta, LICENCE_RATIOS[-1], rep, policy, jobs)
            for ta in tas for rep in range(reps) for policy in POLICIES]


def licence_ratio_points(reduced: bool) -> list[Point]:
    """§4.1, Tables 2–3: every policy at every licence ratio, Ta = :data:`TABLE_INTERARRIVAL`."""
    jobs, reps = _sizes(reduced)
    return [Point(PRESET, TABLE_INTERARRIVAL, ratio, rep, policy, jobs)
            for ratio in LICENCE_RATIOS for rep in range(reps) for policy in POLICIES]


def _ms_sizes(reduced: bool) -> tuple[int, int, tuple[float, ...]]:
    if reduced:
        return MS_REDUCED_JOBS, MS_REDUCED_REPETITIONS, MS_REDUCED_INTERARRIVALS
    return MS_FULL_JOBS, MS_FULL_REPETITIONS, MS_INTERARRIVALS


def meta_scheduler_points(reduced: bool) -> list[Point]:
    """§4.3.1, Figs. 25–29: the three configurations at every Ta on the four clusters."""
    jobs, reps, tas = _ms_sizes(reduced)
    return [Point(MS_PRESET, ta, MS_RATIO, rep, c.policy, jobs, allocation="shared",
                  dispatch=c.dispatch, params=c.params, dispatch_params=c.dispatch_params,
                  label=c.label)
            for ta in tas for rep in range(reps) for c in CONFIGURATIONS]


#: The recipe's sections, run in this order.
SECTIONS: list[Section] = [
    Section("4.1-interarrival", "§4.1 Figs. 16–18: FCFS, BF_FCFS, BF_UNMOD, BF_MOD over Ta",
            interarrival_points),
    Section("4.1-licence-ratio", "§4.1 Tables 2–3: the same over the licence ratio",
            licence_ratio_points),
    Section("4.3.1-meta-scheduler", "§4.3.1 Figs. 25–29: MS, LS and NO heuristics on four "
            "clusters over Ta", meta_scheduler_points),
]


def points(reduced: bool) -> list[Point]:
    """Every distinct run point of every section, in section order."""
    return distinct_points(SECTIONS, reduced)


def experiment(reduced: bool) -> dict[str, Any]:
    """The design as a mapping (what ``schedlab reproduce list`` and the tests read): its
    workloads, policies and sections.  The runs themselves are grid runs, which the
    recipe executes itself (:func:`~.runs.execute`)."""
    jobs, reps = _sizes(reduced)
    tas = REDUCED_INTERARRIVALS if reduced else INTERARRIVALS
    ms_jobs, ms_reps, ms_tas = _ms_sizes(reduced)
    return {
        "name": "grid-fb" + ("-reduced" if reduced else ""),
        "description": "Pasquali thesis §4.1: Flexible Backfilling on one cluster of 100 "
                       "heterogeneous machines with 20 licences; §4.3.1: the meta-scheduler "
                       "with it on four clusters",
        "workloads": [{"model": "grid", "preset": PRESET, "jobs": jobs, "interarrival": ta,
                       "repetitions": reps} for ta in tas]
                     + [{"model": "grid", "preset": MS_PRESET, "jobs": ms_jobs, "interarrival": ta,
                         "repetitions": ms_reps} for ta in ms_tas],
        "policies": list(POLICIES),
        "configurations": {c.label: {"policy": spelled(c.policy, c.params),
                                     "dispatch": spelled(c.dispatch, c.dispatch_params)}
                           for c in CONFIGURATIONS},
        "sections": [{"name": s.name, "title": s.title, "runs": len(s.points(reduced))}
                     for s in SECTIONS],
    }
