"""The load of w0 … w8 calibrated against the paper's slot occupancy (Zhou et al. 2003, Tables 3, 5).

The paper gives no offered load for its workloads, but it publishes how many
slots Strategy 1 (slot length l = 1) keeps in use: 4.57 on average on w0
and 4.98 from w1 on (Table 5; Table 3: five slots 78 % and 99 % of the time).
Slot occupancy rises with the load, so it fixes the load, our reading
(docs/reference/models.md, "Calibrated against the paper's slot occupancy"):

1. w0's arrival scale: bisection on w0's expected offered load until
   Strategy 1 at l = 1 averages :data:`W0_SLOTS` slots (:func:`calibrate_load`).
2. The equal step between wi (§4: a higher mean service time at a fixed arrival
   rate): bisection on w1's offered load until the same run averages
   :data:`W1_SLOTS` slots; the step is w1's load minus w0's.

Each point is the mean of a few seeded runs (:func:`strategy1_slots`), so a
calibration is deterministic; the shipped result is ``BASE_LOAD`` and
``LOAD_STEP`` in :mod:`schedlab.workload.models.hypererlang` and is checked on
the full 10,000 jobs by the tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from schedlab.errors import InputError

#: Table 5, Strategy 1 at l = 1: average slots in a round on w0 and on w1.
W0_SLOTS = 4.57
W1_SLOTS = 4.98
#: The paper's machine, strategy and slot length of Tables 3 and 5.
CALIBRATION_POLICY = {"name": "gang", "strategy": 1, "slot": 1}


@dataclass(frozen=True)
class Calibration:
    """A bisection's outcome: the load found, the slots there, and every point tried."""

    load: float
    slots: float
    tried: tuple[tuple[float, float], ...]


def strategy1_slots(load: float, *, index: int = 0, base_load: float | None = None,
                    jobs: int = 10_000, seeds: Sequence[int] = (0,)) -> float:
    """Strategy 1's mean slots at l = 1 on ``w<index>`` whose offered load is ``load``.

    For ``index`` 0 the load is w0's (``base_load`` is ignored); for ``index``
    > 0 it is wi's, with w0 at ``base_load`` (the step is then
    ``(load - base_load) / index``).  The mean over ``seeds`` of ``jobs`` jobs each.
    """
    from schedlab.api import simulate
    from schedlab.metrics.gang import gang_metrics
    from schedlab.workload.models.hypererlang import (
        FAMILY_PROCESSORS,
        family_model,
        generate_hyper_erlang,
    )

    base = load if index == 0 else base_load
    if base is None:
        raise InputError("a workload above w0 needs w0's load (base_load)", field="base_load")
    step = 0.0 if index == 0 else (load - base) / index
    model = family_model(index, base, step)
    means = []
    for seed in seeds:
        workload = generate_hyper_erlang(model, jobs, seed, processors=FAMILY_PROCESSORS,
                                         name=f"w{index}")
        slots = gang_metrics(simulate(workload, dict(CALIBRATION_POLICY)))["gang_slots_mean"]
        # None only when no slot was ever busy; the workload has >= 1 job of >= 1 s.
        assert slots is not None
        means.append(slots)
    return sum(means) / len(means)


def calibrate_load(target: float, low: float, high: float, *, index: int = 0,
                   base_load: float | None = None, jobs: int = 10_000,
                   seeds: Sequence[int] = (0,), tolerance: float = 0.005) -> Calibration:
    """Bisection on the offered load of ``w<index>`` in ``[low, high]`` until Strategy 1's
    mean slots at l = 1 (:func:`strategy1_slots`) is ``target``, to ``tolerance`` in load.

    The slots mean rises with the load; ``target`` outside the slots at ``low`` and
    ``high`` is an :class:`InputError` naming both.
    """
    def slots_at(load: float) -> float:
        return strategy1_slots(load, index=index, base_load=base_load, jobs=jobs, seeds=seeds)

    tried = [(low, slots_at(low)), (high, slots_at(high))]
    if not tried[0][1] <= target <= tried[1][1]:
        raise InputError(f"Strategy 1 averages {tried[0][1]:.3f} slots at load {low} and "
                         f"{tried[1][1]:.3f} at {high}: {target} is not between them",
                         field="target")
    while high - low > tolerance:
        middle = (low + high) / 2
        tried.append((middle, slots_at(middle)))
        if tried[-1][1] < target:
            low = middle
        else:
            high = middle
    load = (low + high) / 2
    return Calibration(load=load, slots=slots_at(load), tried=tuple(tried))
