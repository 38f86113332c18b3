"""The experiment: w0 … w8 under gang Strategies 1-3 at every slot length and fcfs+easy
(Zhou, Goscinski, Brent 2003, §4-§5), full and reduced, as the mapping ``schedlab reproduce``
sweeps.
"""

from __future__ import annotations

from typing import Any

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
#: The backfilling rule of the recipe's gang runs (docs/background/reproductions/gang.md, "Which
#: backfilling rule"), and the order of the workloads' service distribution (None: the
#: shipped order 1; docs/reference/models.md, "The order").  Other readings: the recipes
#: ``gang-first-fit`` and ``gang-order2``.
BACKFILL = "reservation"
ORDER: int | None = None
#: When Strategy 3's short jobs start (docs/reference/policies/gang.md, rule 4): at once
#: on the running slot's free processors, §5's "immediately executed"; named in the runs'
#: parameters so that results of the other reading are never taken for these.
EXPRESS_START = "arrival"


def workloads_of(reduced: bool) -> tuple[str, ...]:
    """The workloads of the full or the reduced form."""
    return REDUCED_WORKLOADS if reduced else WORKLOADS


def slots_of(reduced: bool) -> tuple[int, ...]:
    """The slot lengths of the full or the reduced form."""
    return REDUCED_SLOTS if reduced else SLOTS


def policy_entries(reduced: bool, backfill: str = BACKFILL) -> list[dict[str, Any]]:
    """Gang with every strategy at every slot length (§5), and the EASY baseline."""
    return [{"name": "gang", "params": {"backfill": backfill, "express_start": EXPRESS_START},
             "grid": {"strategy": list(STRATEGIES), "slot": list(slots_of(reduced))}},
            {"name": BASELINE}]


def workload_entries(reduced: bool, order: int | None = ORDER) -> list[dict[str, Any]]:
    """w0 … w8 (or the reduced pair), of service order ``order``: a workload of another
    order than the shipped one (``w3-order2``) is labelled by its family name (``w3``),
    so that the tables and findings read it as the paper's workload."""
    jobs = REDUCED_JOBS if reduced else FULL_JOBS
    suffix = "" if order is None else f"-order{order}"
    return [{"source": name + suffix, "jobs": jobs, **({"label": name} if suffix else {})}
            for name in workloads_of(reduced)]


def experiment(reduced: bool, backfill: str = BACKFILL,
               order: int | None = ORDER) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced reproduction (docs/how-to/experiments.md),
    with the gang runs' ``backfill`` rule and the workloads' service ``order``."""
    reading = "".join([f"-{backfill}" if backfill != BACKFILL else "",
                       f"-order{order}" if order is not None else ""])
    return {
        "name": "gang" + reading + ("-reduced" if reduced else ""),
        "description": "Zhou, Goscinski, Brent 2003: gang scheduling, Strategies 1-3 against "
                       "the slot length on w0..w8, and fcfs+easy on the same workloads",
        "seeds": [0],
        "overrun": "kill",
        "workloads": workload_entries(reduced, order),
        "policies": policy_entries(reduced, backfill),
    }
