"""Timing whole simulations in interleaved rounds: the one timing loop of the benches.

Every configuration runs once per round, the rounds one after another, so that
load from elsewhere on a shared machine spreads over all configurations instead
of falling on one.  CPU seconds (``time.process_time``) of ``schedlab.api.run``
only: building the policy is outside the timed span.  Used by
bench/predictor_bench.py, bench/slurm_bench.py and bench/outage_bench.py.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any


def interleaved_rounds(workload: Any, configurations: Mapping[str, Mapping[str, Any]],
                       repeat: int, options: Mapping[str, Mapping[str, Any]] | None = None,
                       results: dict[str, Any] | None = None) -> dict[str, list[float]]:
    """label -> the CPU seconds of each of ``repeat`` whole runs of ``workload`` under the
    policy spec of that label (``make_policy`` specs), rounds interleaved.  ``options``
    are the keyword arguments of ``run`` by label (failures, reservations ...); each
    label's last result is kept in ``results`` when given."""
    from schedlab.api import run
    from schedlab.policies.registry import make_policy

    times: dict[str, list[float]] = {label: [] for label in configurations}
    for _ in range(repeat):
        for label, spec in configurations.items():
            policy = make_policy(dict(spec))
            began = time.process_time()
            result = run(workload, policy, **(options or {}).get(label, {}))
            times[label].append(time.process_time() - began)
            if results is not None:
                results[label] = result
    return times
