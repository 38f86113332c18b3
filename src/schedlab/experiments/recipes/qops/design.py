"""The experiment: the paper's grid (QoPS §4) on the stand-in traces, and the reduced form,
as the mapping ``schedlab reproduce`` sweeps.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.recipes import trace_file

#: Paper trace -> (label, catalog name, file name) of the trace standing in for it.
STAND_INS = {
    "CTC": ("KTH-SP2", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz"),
    "SDSC": ("SDSC-BLUE", "SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz"),
}

#: Jobs of each trace subset (QoPS §4.1: "5000-job subsets").
SUBSET_JOBS = 5000

ADMISSION = ("qops", "msb", "mrt")
BASELINES = ("edf", "fcfs+easy", "fcfs+conservative")
LOADS = (1.0, 1.2, 1.4, 1.6)
LOAD_METHODS = ("duplicate", "expand")
STRINGENCIES = (0.2, 0.5)
DEADLINE_FRACTIONS = (1.0, 0.8, 0.2)
RELAXATIONS = (2.0, 5.0, 10.0)
#: Non-deadline runs of mixed workloads are drawn with this R (QoPS §5.2 does not say
#: which R its Figs. 13-54 use; 5 is the middle of the paper's 2, 5 and 10).
MAIN_RELAXATION = 5.0

#: The reduced form: a built-in model, so that CI needs no trace.
REDUCED_MODEL = "lublin"
REDUCED_JOBS = 800
REDUCED_SEEDS = (0, 1, 2)
REDUCED_LOADS = (1.0, 1.6)
REDUCED_POLICIES = ("qops", "msb", "mrt", "fcfs+easy")


def full_experiment() -> dict[str, Any]:
    """The paper's grid on the two stand-in traces (QoPS §4–§5).

    Every combination of load, load method, stringency and deadline
    fraction, for every policy, on both traces; the mixed workloads (80 and
    20 % deadline jobs) under each relaxation R, the 100 % deadline ones,
    which ignore R, under R = 5 only (:func:`deadline_tables`):
    2 traces x 16 x (1 + 2 x 3) x 6 policies = 1,344 runs.  Exact estimates
    throughout (§6: "the simulation studies reported in this paper assumed
    accurate user estimates").
    """
    workloads = [{"source": str(trace_file("QoPS", catalog, file)), "label": label, "jobs": SUBSET_JOBS}
                 for label, catalog, file in STAND_INS.values()]
    return {
        "name": "qops",
        "description": "QoPS, MSB, MRT against EDF, EASY and conservative backfilling: "
                       "deadline admission on KTH-SP2 and SDSC-BLUE (QoPS §4-§5)",
        "workloads": workloads,
        "transforms": deadline_tables(),
        "policies": [{"name": name} for name in ADMISSION + BASELINES],
    }


def deadline_tables() -> list[dict[str, Any]]:
    """The full form's two transform grids: 100 % deadline jobs with R = 5, mixed ones with
    every R.

    R sets the artificial deadlines of the non-deadline jobs (QoPS §4.2), so
    a workload without them runs once, under :data:`MAIN_RELAXATION`, the R
    the summaries pick for it; its run ids are those the single grid of
    earlier versions gave it, so a sweep stored with that grid is resumed.
    """
    common = {"perfect_estimates": [True], "load": list(LOADS),
              "load_method": list(LOAD_METHODS), "stringency": list(STRINGENCIES)}
    mixed = [f for f in DEADLINE_FRACTIONS if f < 1.0]
    return [{**common, "deadline_fraction": [1.0], "relaxation": [MAIN_RELAXATION]},
            {**common, "deadline_fraction": mixed, "relaxation": list(RELAXATIONS)}]


def reduced_experiment() -> dict[str, Any]:
    """The CI form: the built-in Lublin model, every job with a deadline, s = 0.2.

    800 jobs on 128 processors, three seeds, loads 1.0 and 1.6 by
    duplication, QoPS, MSB, MRT and EASY: 24 runs of a few seconds.
    """
    return {
        "name": "qops-reduced",
        "description": "QoPS, MSB, MRT and EASY on the Lublin model, s = 0.2 (QoPS §5.1)",
        "seeds": list(REDUCED_SEEDS),
        "workloads": [{"source": REDUCED_MODEL, "jobs": REDUCED_JOBS}],
        "transforms": {"perfect_estimates": [True], "load": list(REDUCED_LOADS),
                       "load_method": ["duplicate"], "stringency": [0.2]},
        "policies": [{"name": name} for name in REDUCED_POLICIES],
    }


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced form."""
    return reduced_experiment() if reduced else full_experiment()
