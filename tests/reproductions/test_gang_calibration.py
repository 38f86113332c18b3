"""The load calibration of w0 … w8 against the paper's slot occupancy (Zhou et al. 2003,
Table 5): the bisection on a known monotone curve, its errors, and the shipped load checked
on the full 10,000 jobs."""

from __future__ import annotations

import pytest

from schedlab.errors import InputError
from schedlab.experiments.recipes.gang import calibration
from schedlab.workload.models import hypererlang as he


@pytest.fixture
def linear_slots(monkeypatch):
    """Slots = 1 + 4 x load (capped at 5): the bisection must find load = (target - 1) / 4."""
    calls = []

    def fake(load, **options):
        calls.append((load, options))
        return min(5.0, 1.0 + 4.0 * load)

    monkeypatch.setattr(calibration, "strategy1_slots", fake)
    return calls


def test_bisection_finds_the_load_of_the_target(linear_slots):
    found = calibration.calibrate_load(4.57, 0.5, 1.0, jobs=100, seeds=(0, 1), tolerance=1e-4)
    assert found.load == pytest.approx(0.8925, abs=1e-4)
    assert found.slots == pytest.approx(4.57, abs=4e-4)
    assert found.tried[:2] == ((0.5, 3.0), (1.0, 5.0))
    # the points tried halve the interval: 2 ends + ceil(log2(0.5 / 1e-4)) = 13 midpoints
    assert len(found.tried) == 2 + 13
    assert all(opts == {"index": 0, "base_load": None, "jobs": 100, "seeds": (0, 1)}
               for _, opts in linear_slots)


def test_a_target_outside_the_range_names_both_ends(linear_slots):
    with pytest.raises(InputError, match=r"3.000 slots at load 0.5 and 3.400 at 0.6"):
        calibration.calibrate_load(4.57, 0.5, 0.6)


def test_a_workload_above_w0_needs_w0s_load():
    with pytest.raises(InputError, match="base_load"):
        calibration.strategy1_slots(1.0, index=1, jobs=10)


def test_strategy1_slots_rises_with_the_load():
    light = calibration.strategy1_slots(0.3, jobs=300)
    heavy = calibration.strategy1_slots(1.2, jobs=300)
    assert 1.0 <= light < heavy <= 5.0


@pytest.mark.slow
def test_shipped_w0_fills_the_slots_as_the_papers_w0():
    """Table 5: Strategy 1 at l = 1 averages 4.57 slots on w0; ours on the full 10,000 jobs."""
    slots = calibration.strategy1_slots(he.BASE_LOAD, jobs=10_000, seeds=(0,))
    assert slots == pytest.approx(calibration.W0_SLOTS, abs=0.1)
