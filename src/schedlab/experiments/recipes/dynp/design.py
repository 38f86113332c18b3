"""The experiment: the job sets, the policies of Figs. 2-8 and the transform tables (Streit
2002, §4-§5), full and reduced, as the mapping ``schedlab reproduce`` sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JobSet:
    """One of Streit's job sets (§4) and ours standing in for it.

    ``shrink`` are the factors run on it: the paper's range for the set
    (§5.2), at the same offered loads (docs/background/reproductions/dynp.md).
    ``reference`` is the factor of Tables 4–6 and of every finding "at
    1.00": the offered load of the paper's set at 1.00.  ``estimates`` is
    False for a set whose estimates are its runtimes already (its trace has
    none), which therefore gets no perfect-estimate runs.
    """

    paper: str
    ours: str
    jobs: int
    shrink: tuple[float, ...]
    reference: float = 1.0
    estimates: bool = True


#: The full form's job sets, KTH_syn first.  CTC_syn's range is 1.00–0.65; PC2_syn's
#: 0.80–0.40 is an offered load of 0.53–1.06, NASA_syn's at 0.90–0.45 (its 1.00 is kept
#: for the tables); SDSC_syn's 0.60–0.30 (0.52–1.04) is LUBLIN256_syn's 2.0–1.0, and
#: SDSC_syn at 1.00 (0.31) is LUBLIN256_syn at 3.4.
JOB_SETS = (
    JobSet("KTH_syn", "KTH_syn", 10_000, (1.0, 0.9, 0.8, 0.75, 0.7, 0.65, 0.6)),
    JobSet("CTC_syn", "SDSCBLUE_syn", 5_000, (1.0, 0.9, 0.8, 0.75, 0.7, 0.65)),
    JobSet("PC2_syn", "NASA_syn", 10_000, (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.45),
           estimates=False),
    JobSet("SDSC_syn", "LUBLIN256_syn", 10_000, (3.4, 2.0, 1.8, 1.6, 1.4, 1.2, 1.0),
           reference=3.4, estimates=False),
)

#: The reduced form: KTH_syn only, fewer jobs and factors (CI).
REDUCED_JOBS = 3000
REDUCED_SHRINK = (1.0, 0.8, 0.6)
REDUCED_SET = JobSet("KTH_syn", "KTH_syn", REDUCED_JOBS, REDUCED_SHRINK)

#: The three single policies of §3 (planning-based, Streit §5) and the basic dynP bounds (§3.1).
SINGLE = ("fcfs", "sjf", "ljf")
BASIC_BOUNDS = {"threshold": 5, "lower": 7200, "upper": 9000}
DECIDERS = ("simple", "advanced")
QUALITY_METRICS = ("artww", "art", "ms")
#: Our test of why the deciders differ in the paper: ARTwW measured on the first job to
#: start only (the ``future_jobs`` option, Streit §6 "reduced future"), so that a tie can
#: be between different schedules.
FIRST_JOB = {"metric": "artww", "future_jobs": 1}
#: The other reading of the FCFS candidate (``fcfs_order="plan"``, docs/reference/policies/dynp.md): the
#: current plan's order with new jobs appended instead of the re-sort by submission.  Its own
#: entries, so that the runs of the literal reading keep their run ids.
PLAN_FCFS = {"metric": "artww", "fcfs_order": "plan"}
#: The label of the self-tuning entry of Figs. 4–8 (advanced decider, ARTwW), by which
#: the perfect-estimate tables select it alone among the dynP entries.
ADVANCED_ENTRY = "advanced-artww"


def policy_entries(reduced: bool) -> list[dict[str, Any]]:
    """The policies of the sweep: single policies, basic dynP, self-tuning dynP (§3, §5.2).

    The full form adds ``+conservative`` for comparison with ``+plan`` and
    the ART quality metric; the reduced form keeps what the findings of the
    test need.  Both add the two deciders with ARTwW on the first job only
    (:data:`FIRST_JOB`), our explanation of the gap between the deciders,
    and the two deciders with ARTwW under the plan-order reading of the
    FCFS candidate (:data:`PLAN_FCFS`).
    The advanced decider with ARTwW is an entry of its own
    (:data:`ADVANCED_ENTRY`), the other deciders and metrics a grid.
    """
    entries: list[dict[str, Any]] = [{"name": f"{p}+plan"} for p in SINGLE]
    if not reduced:
        entries += [{"name": f"{p}+conservative"} for p in SINGLE]
    entries.append({"name": "dynp-basic", "params": dict(BASIC_BOUNDS)})
    metrics = ["artww", "ms"] if reduced else list(QUALITY_METRICS)
    entries.append({"name": "dynp", "label": ADVANCED_ENTRY,
                    "params": {"decider": "advanced", "metric": "artww"}})
    entries.append({"name": "dynp", "params": {"decider": "advanced"},
                    "grid": {"metric": [m for m in metrics if m != "artww"]}})
    entries.append({"name": "dynp", "params": {"decider": "simple"},
                    "grid": {"metric": metrics}})
    entries.append({"name": "dynp", "params": dict(FIRST_JOB),
                    "grid": {"decider": list(DECIDERS)}})
    entries.append({"name": "dynp", "params": dict(PLAN_FCFS),
                    "grid": {"decider": list(DECIDERS)}})
    return entries


def perfect_policies(reduced: bool) -> list[str]:
    """What runs with perfect estimates: the lines of Fig. 6 (FCFS, SJF, LJF, advanced
    ARTwW), and in the full form the conservative policies, to compare with planning."""
    names = [f"{p}+plan" for p in SINGLE] + [ADVANCED_ENTRY]
    return names + ([] if reduced else [f"{p}+conservative" for p in SINGLE])


def transform_tables(sets: tuple[JobSet, ...], reduced: bool) -> list[dict[str, Any]]:
    """One transform table per job set over its own factors, real estimates, every policy;
    one more per set with user estimates: perfect estimates for :func:`perfect_policies`.

    ``perfect_estimates = false`` is written out so that these runs keep the
    run ids of the single grid of earlier versions.
    """
    tables: list[dict[str, Any]] = []
    for job_set in sets:
        grid = {"workloads": [job_set.ours], "shrink": list(job_set.shrink)}
        tables.append({**grid, "perfect_estimates": [False]})
        if job_set.estimates:
            tables.append({**grid, "perfect_estimates": [True],
                           "policies": perfect_policies(reduced)})
    return tables


def job_sets(reduced: bool) -> tuple[JobSet, ...]:
    """The job sets of the full or the reduced form."""
    return (REDUCED_SET,) if reduced else JOB_SETS


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced reproduction (docs/how-to/experiments.md)."""
    sets = job_sets(reduced)
    return {
        "name": "dynp" + ("-reduced" if reduced else ""),
        "description": "Streit 2002: FCFS/SJF/LJF, basic and self-tuning dynP against the "
                       "shrinking factor, with real and perfect estimates",
        "seeds": [0],
        "overrun": "kill",
        "workloads": [{"source": s.ours, "jobs": s.jobs} for s in sets],
        "transforms": transform_tables(sets, reduced),
        "policies": policy_entries(reduced),
    }
