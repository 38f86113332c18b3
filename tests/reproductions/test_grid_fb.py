"""The grid-fb reproduction (Pasquali thesis §4.1): the reduced recipe end to end, its run
points, and every finding on made-up tables, holding and failing."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from schedlab.experiments.recipes import get_recipe, reproduce
from schedlab.experiments.recipes import grid_fb as recipe
from schedlab.experiments.recipes.grid_fb import findings as checks
from schedlab.experiments.recipes.grid_fb.design import SECTIONS, points
from schedlab.experiments.recipes.grid_fb.runs import RUNS_DIR, execute, simulate_point


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    """The reduced recipe run once, in this process: (experiment dir, Reproduction)."""
    out = tmp_path_factory.mktemp("grid-fb") / "reduced"
    return out, reproduce("grid-fb", out, reduced=True)


def test_the_run_points_are_pinned():
    small, full = points(True), points(False)
    # reduced: 3 Ta x 2 repetitions x 4 policies, plus 2 more licence ratios at Ta 4
    assert len(small) == 3 * 2 * 4 + 2 * 2 * 4
    assert small[0].run_id == "thesis-4.1-n300-ta4-ratio0.5-0.7-exclusive-rep0-grid-fcfs"
    assert small[-1].run_id == "thesis-4.1-n300-ta4-ratio0.4-0.6-exclusive-rep1-bf-mod"
    # full: 5 Ta x 20 x 4, plus 2 licence ratios x 20 x 4 (the third is Table 1's, shared)
    assert len(full) == 5 * 20 * 4 + 2 * 20 * 4
    assert [s.name for s in SECTIONS] == ["4.1-interarrival", "4.1-licence-ratio"]
    assert get_recipe("grid-fb") is recipe.RECIPE


def test_reduced_run_writes_every_table_figure_and_finding(reduced):
    out, reproduction = reduced
    stored = sorted((out / RUNS_DIR).glob("*.json"))
    assert len(stored) == len(points(True))
    assert len(reproduction.findings) == len(checks.FINDINGS)
    for name in ("fig16", "fig17", "fig18", "table2", "table3", "findings"):
        assert reproduction.tables[name].is_file()
    for name in ("fig16", "fig17", "fig18"):
        assert reproduction.figures[name].is_file()
    table3 = reproduction.tables["table3"].read_text()
    assert "| 30% - 50% | thesis | 95.6 | 78.9 | 74.5 | 73.5 |" in table3
    assert table3.count("| schedlab |") == 3
    assert execute(out, True) == 0            # a second run finds every run stored


def test_a_stored_run_is_the_simulation_of_its_point(reduced):
    out, _ = reduced
    point = points(True)[5]
    stored = json.loads((out / RUNS_DIR / f"{point.run_id}.json").read_text())
    fresh = simulate_point(point)
    for key in ("deadline_missed_pct", "system_usage", "licence_usage", "avg_slowdown"):
        assert stored[key] == fresh[key]


def test_reduced_form_shows_backfilling_beating_fcfs(reduced):
    out, reproduction = reduced
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["Backfilling raises system usage over FCFS at the highest contention"]
    assert held["Backfilling at least halves FCFS's average slowdown at Ta 4"]


# ------------------------------------------------------------ findings on made-up tables
def frames(**changes) -> dict[str, pd.DataFrame]:
    """Tables shaped as the thesis reports them (every finding holds); ``changes`` sets
    cells: ``{"fig16": {("BF_MOD", 4): 99.0}}``."""
    policies = ["FCFS", "BF_FCFS", "BF_UNMOD", "BF_MOD"]
    ratios = ["30% - 50%", "40% - 60%", "50% - 70%"]
    data = {
        "fig16": ([4, 48], [[95, 30], [80, 12], [70, 11], [69, 11]]),
        "fig17": ([4, 48], [[50, 90], [80, 95], [82, 96], [82, 96]]),
        "fig18": ([4, 48], [[10, 1.2], [3, 1.0], [3, 1.0], [3, 1.0]]),
        "table2": (ratios, [[55, 52, 49], [78, 76, 75], [80, 75, 72], [80, 76, 72]]),
        "table3": (ratios, [[95, 95, 95], [79, 75, 75], [74, 69, 66], [73, 69, 66]]),
    }
    out = {}
    for name, (index, columns) in data.items():
        frame = pd.DataFrame({p: [float(v) for v in col] for p, col in zip(policies, columns)},
                             index=index)
        for (policy, row), value in changes.get(name, {}).items():
            frame.loc[row, policy] = value
        out[name] = frame
    return out


BREAKS = {
    checks.finding_flexible_misses_fewer: {"fig16": {("BF_UNMOD", 48): 12.0}},
    checks.finding_backfilling_usage: {"fig17": {("BF_FCFS", 4): 50.0}},
    checks.finding_flexible_usage_over_bf_fcfs: {"fig17": {("BF_MOD", 48): 94.0}},
    checks.finding_slowdown: {"fig18": {("BF_MOD", 4): 6.0}},
    checks.finding_table3_order: {"table3": {("BF_FCFS", "30% - 50%"): 96.0}},
    checks.finding_table3_ratio_trend: {"table3": {("BF_UNMOD", "40% - 60%"): 75.0}},
    checks.finding_table2_licence_gain: {"table2": {("BF_UNMOD", "30% - 50%"): 70.0,
                                                    ("BF_MOD", "30% - 50%"): 70.0}},
    checks.finding_unmod_like_mod: {"fig16": {("BF_MOD", 4): 60.0}},
    checks.finding_bf_fcfs_close_at_low_contention: {"fig16": {("BF_FCFS", 48): 20.0}},
}


def test_every_finding_is_checked_both_ways():
    assert set(BREAKS) == set(checks.FINDINGS)


@pytest.mark.parametrize("check", checks.FINDINGS, ids=lambda f: f.__name__)
def test_a_finding_holds_on_thesis_like_tables_and_fails_when_broken(check):
    assert check(frames()).holds is True
    assert check(frames(**BREAKS[check])).holds is False


@pytest.mark.slow
def test_full_form(tmp_path):
    """The whole §4.1 evaluation (560 runs, minutes): backfilling beats FCFS as in the thesis."""
    reproduction = reproduce("grid-fb", tmp_path / "full")
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["Backfilling raises system usage over FCFS at the highest contention"]
    assert held["BF_UNMOD and BF_MOD miss fewer deadlines as the licence ratio grows"]
