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
