"""The grid-fb reproduction (Pasquali thesis §4.1 and §4.3.1): the reduced recipe end to end
on the sweep runner, its runs, resuming, and every finding on made-up tables, holding and
failing."""

from __future__ import annotations

import shutil
import sqlite3

import pandas as pd
import pytest

from schedlab.experiments import run_sweep
from schedlab.experiments.recipes import get_recipe, reproduce
from schedlab.experiments.recipes import grid_fb as recipe
from schedlab.experiments.recipes.grid_fb import findings as checks
from schedlab.experiments.recipes.grid_fb.design import (
    CASES,
    SECTIONS,
    experiment,
    meta_scheduler_parts,
    runs,
)
from schedlab.experiments.runner import simulate_run
from schedlab.experiments.store import load_results


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    """The reduced recipe run once, in this process: (experiment dir, Reproduction)."""
    out = tmp_path_factory.mktemp("grid-fb") / "reduced"
    return out, reproduce("grid-fb", out, reduced=True, executor="serial")


def test_the_runs_are_pinned():
    small, full = runs(True), runs(False)
    # reduced: 3 Ta x 2 repetitions x 4 policies, plus 2 more licence ratios at Ta 4; §4.3.1:
    # 3 Ta x 2 repetitions x 3 configurations
    assert len(small) == 3 * 2 * 4 + 2 * 2 * 4 + 3 * 2 * 3
    assert (small[0].run.run_id, small[0].label) == ("ff29a22e8c8d2c9d", "FCFS")
    assert (small[-1].run.run_id, small[-1].label) == ("cb86cf809a72fa47", "NO heuristics")
    # full: 5 Ta x 20 x 4, plus 2 licence ratios x 20 x 4 (the third is Table 1's, shared);
    # §4.3.1: 4 Ta x 20 x 3
    assert len(full) == 5 * 20 * 4 + 2 * 20 * 4 + 4 * 20 * 3
    assert [s.name for s in SECTIONS] == ["4.1-interarrival", "4.1-licence-ratio",
                                          "4.3.1-meta-scheduler"]
    assert [r.run_id for r in experiment(True).runs] == [r.run.run_id for r in small]
    assert get_recipe("grid-fb") is recipe.RECIPE


def test_the_three_configurations_of_section_4_3_1():
    ms, ls, no = meta_scheduler_parts(False)
    assert [p.policies[0].label for p in (ms, ls, no)] == list(CASES)
    assert (ms.preset, ms.jobs, ms.allocation, ms.tas) == ("thesis-4.3", 5000, "shared",
                                                           (0, 5, 10, 15))
    run = ms.runs(ms.policies[0])[0]
    assert (run.policy, dict(run.params)) == ("bf-fcfs", {"order": "priority"})
    assert (run.grid.dispatch, dict(run.grid.dispatch_params)) == ("ms-heuristics", {})
    run = ls.runs(ls.policies[0])[0]
    assert (run.policy, dict(run.params)) == ("bf-unmod", {"deadline_k": 2.0})
    assert dict(run.grid.dispatch_params) == {"classify": False}
    run = no.runs(no.policies[0])[0]
    assert (run.policy, dict(run.params), dict(run.grid.dispatch_params)) == (
        "bf-fcfs", {}, {"classify": False})
    assert len(ms.runs(ms.policies[0])) == 4 * 20
    assert sum(len(p.runs(p.policies[0])) for p in meta_scheduler_parts(True)) <= 20


class Count:
    """A sweep observer keeping what the sweep found pending and already stored."""

    def started(self, pending: int, done_before: int) -> None:
        self.pending, self.done_before = pending, done_before

    def recorded(self, record) -> None:
        pass


def test_reduced_run_writes_every_table_figure_and_finding(reduced):
    out, reproduction = reduced
    stored = load_results(out)
    assert sorted(stored["run_id"]) == sorted(r.run.run_id for r in runs(True))
    assert (stored["status"] == "finished").all()
    assert len(reproduction.findings) == len(checks.FINDINGS)
    for name in ("fig16", "fig17", "fig18", "table2", "table3", "findings", "fig25", "fig26",
                 "fig27", "fig28", "fig29", "ms_over_ta"):
        assert reproduction.tables[name].is_file()
    for name in ("fig16", "fig17", "fig18", "fig25", "fig26", "fig27", "fig28", "fig29",
                 "ms_over_ta"):
        assert reproduction.figures[name].is_file()
    table3 = reproduction.tables["table3"].read_text()
    assert "| 30% - 50% | thesis | 95.6 | 78.9 | 74.5 | 73.5 |" in table3
    assert table3.count("| schedlab |") == 3
    fig25 = reproduction.tables["fig25.md"].read_text()
    assert "| optimum (machine share) |  | 53.3 | 26.7 | 13.3 | 6.7 |" in fig25
    assert fig25.count("| MS heuristics |") == 3          # Ta 0, 5, 15
    fig27 = reproduction.tables["fig27.md"].read_text()
    assert "| configuration | c1 | c2 | c3 | c4 | platform |" in fig27
    assert all(f"| {case} |" in fig27 for case in CASES)
    again = Count()
    reproduce("grid-fb", out, reduced=True, executor="serial", observer=again)
    assert (again.pending, again.done_before) == (0, len(runs(True)))


def test_a_partly_stored_run_resumes_with_only_the_missing_runs(reduced, tmp_path):
    """A sweep killed mid-way leaves some rows: the resumed one runs only the others."""
    out, _ = reduced
    partial = tmp_path / "partial"
    shutil.copytree(out, partial)
    lost = [r.run.run_id for r in runs(True) if r.part.dispatch and r.run.seed == 1][:2]
    with sqlite3.connect(partial / "results.sqlite") as db:
        db.executemany("DELETE FROM runs WHERE run_id = ?", [(run_id,) for run_id in lost])
    for run_id in lost:
        (partial / "rows" / f"{run_id}.json").unlink()
    count = Count()
    summary = run_sweep(experiment(True), partial, executor="serial", observer=count)
    assert (count.pending, summary.finished) == (2, 2)
    before, after = (load_results(d).set_index("run_id") for d in (out, partial))
    deterministic = [c for c in before.columns if c not in NOT_DETERMINISTIC]
    pd.testing.assert_frame_equal(after.loc[before.index, deterministic], before[deterministic])


#: Wall-clock measurements and times of a stored run.
NOT_DETERMINISTIC = {"scheduling_time_per_event_us", "wall_time", "finished_at"}


def test_a_stored_run_is_the_simulation_of_its_run(reduced):
    out, _ = reduced
    stored = load_results(out).set_index("run_id")
    for labelled in (runs(True)[5], runs(True)[-2]):
        _, fresh = simulate_run(labelled.run)
        for key in ("deadline_missed_pct", "system_usage", "licence_usage", "avg_slowdown",
                    "machine_usage"):
            assert stored.loc[labelled.run.run_id, key] == fresh[key]
    table = recipe.run_table(out, True)
    ls = table[table["label"] == "LS heuristics"].iloc[0]
    assert ls["cluster_share_optimum.c1"] == pytest.approx(120 / 225)
    assert sum(ls[f"cluster_work_share.c{k}"] for k in range(1, 5)) == pytest.approx(1)
    assert sum(ls[f"cluster_jobs.c{k}"] for k in range(1, 5)) == ls["jobs"]


def test_reduced_form_shows_backfilling_beating_fcfs(reduced):
    _out, reproduction = reduced
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["Backfilling raises system usage over FCFS at the highest contention"]
    assert held["Backfilling at least halves FCFS's average slowdown at Ta 4"]


def test_reduced_form_shows_the_meta_scheduler_findings(reduced):
    _, reproduction = reduced
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["At Ta 0 every cluster gets 25 % of the work within 3 points under MS "
                "heuristics"]
    assert held["At Ta 5 the slowdown of jobs without deadline grows from the largest cluster "
                "to the smallest, in every configuration"]
    assert held["At Ta 5 MS and LS heuristics miss fewer deadlines than NO heuristics"]


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


def ms_frames(**changes) -> dict[str, pd.DataFrame]:
    """§4.3.1's tables shaped as the thesis describes them (every finding holds): equal work
    shares at Ta 0, the machine shares at Ta 5; ``changes`` sets cells as for
    :func:`frames`: ``{"fig27": {("MS heuristics", "platform"): 50.0}}``."""
    clusters = ["c1", "c2", "c3", "c4"]
    optimum = pd.Series([53.3, 26.7, 13.3, 6.7], index=clusters)
    by_ta = {0: [25, 25, 25, 25], 5: [50, 27, 15, 8], 15: [60, 25, 10, 5]}
    shares = pd.DataFrame([[float(v) for v in by_ta[ta]] for case in CASES for ta in by_ta],
                          index=pd.MultiIndex.from_tuples([(c, ta) for c in CASES for ta in by_ta],
                                                          names=["configuration", "Ta"]),
                          columns=clusters)
    per_cluster = {  # rows MS, LS, NO; columns c1..c4, all
        "fig26": [[1.1, 1.5, 2.0, 3.0, 1.4], [1.1, 1.4, 1.9, 2.8, 1.3], [1.2, 1.6, 2.2, 3.1, 1.5]],
        "fig27": [[20, 25, 30, 35, 24], [20, 24, 29, 34, 23], [30, 35, 40, 45, 34]],
        "fig28": [[90, 85, 80, 70, 86], [91, 85, 79, 70, 87], [90, 84, 78, 69, 86]],
        "fig29": [[80, 75, 70, 60, 76], [81, 76, 70, 60, 77], [80, 74, 69, 59, 75]],
    }
    out = {"fig25": shares, "fig25_optimum": optimum}
    for name, rows in per_cluster.items():
        out[name] = pd.DataFrame([[float(v) for v in row] for row in rows],
                                 index=pd.Index(CASES, name="configuration"),
                                 columns=clusters + ["platform"])
    over_ta = pd.DataFrame(
        {"deadline_missed_pct": [40.0, 41.0, 50.0, 24.0, 23.0, 34.0, 10.0, 11.0, 15.0],
         "scheduling_time_per_event_us": [100.0, 300.0, 90.0] * 3},
        index=pd.MultiIndex.from_tuples([(ta, c) for ta in by_ta for c in CASES],
                                        names=["Ta", "configuration"]))
    out["ms_over_ta"] = over_ta
    for name, cells in changes.items():
        for (row, column), value in cells.items():
            out[name].loc[row, column] = value
    return out


MS, LS, NO = CASES
MS_BREAKS = {
    checks.finding_equal_shares_at_ta0: {"fig25": {((MS, 0), "c1"): 35.0}},
    checks.finding_larger_clusters_gain_with_ta: {"fig25": {((MS, 15), "c1"): 20.0}},
    checks.finding_ta5_nearest_optimum: {"fig25": {((MS, 15), "c1"): 53.0,
                                                   ((MS, 15), "c2"): 27.0,
                                                   ((MS, 15), "c3"): 13.0,
                                                   ((MS, 15), "c4"): 7.0}},
    checks.finding_slowdown_by_cluster_power: {"fig26": {(NO, "c4"): 2.0}},
    checks.finding_heuristics_miss_fewer: {"fig27": {(LS, "platform"): 35.0}},
    checks.finding_ms_as_good_as_ls: {"fig27": {(MS, "platform"): 26.0}},
    checks.finding_ms_cheaper_than_ls: {"ms_over_ta": {((5, MS), "scheduling_time_per_event_us"):
                                                       400.0}},
    checks.finding_ms_misses_fewer_at_every_ta: {"ms_over_ta": {((15, MS), "deadline_missed_pct"):
                                                                16.0}},
    checks.finding_usage_similar: {"fig29": {(NO, "platform"): 70.0}},
    checks.finding_usage_falls_with_cluster_size: {"fig28": {(LS, "c3"): 86.0}},
}

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
    assert set(BREAKS) == set(checks.FINDINGS_41)
    assert set(MS_BREAKS) == set(checks.FINDINGS_431)
    assert checks.FINDINGS == checks.FINDINGS_41 + checks.FINDINGS_431


@pytest.mark.parametrize("check", checks.FINDINGS_41, ids=lambda f: f.__name__)
def test_a_finding_holds_on_thesis_like_tables_and_fails_when_broken(check):
    assert check(frames()).holds is True
    assert check(frames(**BREAKS[check])).holds is False


@pytest.mark.parametrize("check", checks.FINDINGS_431, ids=lambda f: f.__name__)
def test_a_meta_scheduler_finding_holds_as_the_thesis_says_and_fails_when_broken(check):
    assert check(ms_frames()).holds is True
    assert check(ms_frames(**MS_BREAKS[check])).holds is False


def test_the_findings_read_the_tables_the_recipe_writes(reduced):
    """The made-up tables have the shape of the real ones (index, columns)."""
    out, _ = reduced
    real = recipe.tables(recipe.run_table(out, True))
    fake = ms_frames()
    for name in ("fig25", "fig26", "fig27", "fig28", "fig29"):
        assert list(real[name].columns) == list(fake[name].columns)
        assert real[name].index.names == fake[name].index.names
        assert real[name].index.get_level_values(0).unique().tolist() == list(CASES)
    assert set(fake["ms_over_ta"].columns) <= set(real["ms_over_ta"].columns)
    assert real["ms_over_ta"].index.names == fake["ms_over_ta"].index.names
    assert list(real["fig25_optimum"].index) == list(fake["fig25_optimum"].index)


@pytest.mark.slow
def test_full_form(tmp_path):
    """The whole §4.1 and §4.3.1 evaluation (800 runs, about an hour): backfilling beats FCFS,
    and the meta-scheduler shares the work equally at Ta 0, as in the thesis."""
    reproduction = reproduce("grid-fb", tmp_path / "full")
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["Backfilling raises system usage over FCFS at the highest contention"]
    assert held["BF_UNMOD and BF_MOD miss fewer deadlines as the licence ratio grows"]
    assert held["At Ta 0 every cluster gets 25 % of the work within 3 points under MS "
                "heuristics"]
