"""The offered load of a grid job stream and its licence cap (thesis §4.3.2, Figs. 30–32),
hand-checked, and the numbers the findings page states for Table 7's stream."""

from __future__ import annotations

import pytest

from grid.helpers import grid_workload
from schedlab.experiments.recipes.grid_cs.offered_load import (
    licence_concurrency,
    offered_load,
    unit_readings,
)
from schedlab.platform import Cluster, Licence, Machine, Platform
from schedlab.platform.generator import generate_platform, preset
from schedlab.workload.models.grid import PRESETS, generate_grid


def hand_case():
    """One cluster: 4 CPUs at rating 100 and 4 at 300 (1,600 rating-CPUs per second);
    licence A, 1 floating copy.  Three jobs over a span of 20 s, each 40,000
    rating-CPU-seconds: 2 CPUs x 100 s at rating 200 (deadline), 1 x 400 s at 100 (none),
    2 x 50 s at 400 needing A (deadline)."""
    platform = Platform((Cluster("c", (Machine("a", 4, 100), Machine("b", 4, 300)),
                                 (Licence("A", 1, ("a", "b")),)),), name="hand")
    grid = grid_workload([(0, 100, 100, 2, (), 200, 500), (10, 400, 400, 1, (), 100),
                          (20, 50, 50, 2, ("A",), 400, 500)])
    return grid, platform


def test_offered_load_and_licence_cap_by_hand():
    grid, platform = hand_case()
    found = offered_load(grid, platform)
    assert found.load == pytest.approx(120_000 / (20 * 1_600))           # 3.75
    assert found.deadline_load == pytest.approx(80_000 / (20 * 1_600))   # 2.5
    # a third of the jobs need A, 1 copy: 3 jobs at once, of 5/3 CPUs: 5 of the 8 CPUs
    assert licence_concurrency(grid, platform).tolist() == [pytest.approx(3.0)]
    assert found.concurrent_jobs == pytest.approx(3.0)
    assert found.licence_cap == pytest.approx(5 / 8)


def test_the_unit_readings_rescale_the_load_by_hand():
    grid, platform = hand_case()
    rows = {row["reading"].split(":")[0].split(",")[0]: row
            for row in unit_readings(grid, platform)}
    assert rows["ours"]["load"] == pytest.approx(3.75)
    # Ta in minutes: the span is 60 times longer
    assert rows["Ta in minutes"]["load"] == pytest.approx(3.75 / 60)
    # runtimes at rating 100: 2x100x100 + 1x400x100 + 2x50x100 = 70,000
    assert rows["Estimated at the slowest rating (100)"]["load"] == pytest.approx(
        70_000 / 32_000)
    assert [row["fits under the cap"] for row in rows.values()] == [False, False, True]


def test_a_stream_submitted_at_once_offers_an_infinite_load():
    _grid, platform = hand_case()
    at_once = grid_workload([(0, 100, 100, 2, (), 200)])
    assert offered_load(at_once, platform).load == float("inf")


def test_table_7_stream_at_ta_5_offers_twice_the_platform_and_the_copies_cap_it_below_half():
    """The findings page's numbers: 5,000 jobs of Table 7 at Ta = 5 s on ``thesis-4.3``
    (seed 1, as the recipe's first repetition of Figs. 30–32 draws them)."""
    platform = generate_platform(preset("thesis-4.3", ratio=(0.5, 0.7)), seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.3"], n_jobs=5000, interarrival=5, seed=1)
    found = offered_load(grid, platform)
    assert found.load == pytest.approx(2.00, abs=0.005)
    assert found.deadline_load == pytest.approx(1.41, abs=0.005)
    assert found.licence_cap == pytest.approx(0.423, abs=0.0005)
    assert found.load / found.licence_cap > 4.7
