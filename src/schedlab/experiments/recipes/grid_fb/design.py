"""What the grid-fb recipe runs: the thesis' Flexible Backfilling experiments, section by section.

Pasquali's thesis §4.1: one cluster of 100 machines, 20 licences and 1000
jobs drawn from Table 1's ranges (the ``thesis-4.1`` presets of the
platform and job generators), one job per machine (no space sharing),
inter-arrival times Ta = 4, 6, 12, 24, 48; each simulation repeated 20
times with new jobs and machines; FCFS, BF_FCFS, BF_UNMOD and BF_MOD
(Figs. 16–18), and the licence ratio varied over 30–50, 40–60, 50–70 %
(Tables 2–3).

The recipe is a list of :data:`SECTIONS`; each names its run points
(:class:`~schedlab.experiments.recipes.grid_runs.Point`, shared with the
other grid recipes), so two sections asking for the same simulation share
it.  A later section (§4.3.1, the meta-scheduler with Flexible Backfilling
on the ``thesis-4.3`` grid) is one more :class:`Section` appended to
:data:`SECTIONS`, with a dispatcher in its points.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.recipes.grid_runs import Point, Section, distinct_points

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


#: The recipe's sections, run in this order (§4.3.1 is to be appended).
SECTIONS: list[Section] = [
    Section("4.1-interarrival", "§4.1 Figs. 16–18: FCFS, BF_FCFS, BF_UNMOD, BF_MOD over Ta",
            interarrival_points),
    Section("4.1-licence-ratio", "§4.1 Tables 2–3: the same over the licence ratio",
            licence_ratio_points),
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
    return {
        "name": "grid-fb" + ("-reduced" if reduced else ""),
        "description": "Pasquali thesis §4.1: Flexible Backfilling on one cluster of 100 "
                       "heterogeneous machines with 20 licences",
        "workloads": [{"model": "grid", "preset": PRESET, "jobs": jobs, "interarrival": ta,
                       "repetitions": reps} for ta in tas],
        "policies": list(POLICIES),
        "sections": [{"name": s.name, "title": s.title, "runs": len(s.points(reduced))}
                     for s in SECTIONS],
    }
