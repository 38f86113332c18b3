"""The grid-cs reproduction (Pasquali thesis §4.2, §4.3.2, chapter 5): the reduced recipe end
to end on the sweep runner, resuming, its runs and tasks, and every finding on made-up
tables, holding and failing."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from schedlab.experiments.egedf import compare_schedule_based
from schedlab.experiments.recipes import get_recipe, reproduce
from schedlab.experiments.recipes import grid_cs as recipe
from schedlab.experiments.recipes.grid_cs import design
from schedlab.experiments.recipes.grid_cs import findings as checks
from schedlab.experiments.recipes.grid_cs.runs import TASKS_DIR, execute_tasks
from schedlab.experiments.recipes.grid_runs import repetition_round
from schedlab.experiments.runner import simulate_run
from schedlab.experiments.store import load_results


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    """The reduced recipe run once, in this process: (experiment dir, Reproduction)."""
    out = tmp_path_factory.mktemp("grid-cs") / "reduced"
    reproduction = reproduce("grid-cs", out, reduced=True, executor="serial")
    return out, reproduction


def section_runs(name: str, reduced: bool) -> list:
    """The runs of one section of the design."""
    [section] = [s for s in design.SECTIONS if s.name == name]
    return [run for part in section.parts(reduced) for policy in part.policies
            for run in part.runs(policy)]


def test_the_runs_and_tasks_are_pinned():
    runnable = len(design.available(design.cs_variants()))
    small, full = design.runs(True), design.runs(False)
    # reduced: 3 Ta x 1 repetition x the runnable §4.2 variants, 2 Ta x 1 seed x 6 for §5.2
    ms_small = len(section_runs("4.3.2-ms-cs", True))
    assert len(small) == 3 * runnable + ms_small + 2 * 6
    assert small[0].label == "CS_i_p"
    assert (small[0].run.run_id, small[-1].run.run_id) == ("f3b6730295418d56",
                                                           "45bda23c114f135d")
    assert small[-1].label == "Tabu Search"
    assert len(full) == 7 * 20 * runnable + len(section_runs("4.3.2-ms-cs", False)) + 2 * 20 * 6
    assert [t.key for t in design.tasks(True)] == [
        "table5-ratio0.4-0.45-i2-n200", "table5-ratio0.45-0.5-i2-n200",
        "table5-ratio0.5-0.55-i2-n200", "table5-ratio0.55-0.6-i2-n200",
        "adh-uniform-n300-seed1", "adh-changing-n300-seed1", "adh-hotspots-n300-seed1"]
    assert len(design.tasks(False)) == 4 + 3 * 3
    assert [s.name for s in design.SECTIONS] == ["4.2-cs", "4.3.2-ms-cs", "5.2-eg-edf"]
    assert get_recipe("grid-cs") is recipe.RECIPE


def test_a_variant_is_available_only_if_the_policy_takes_its_parameters():
    assert design.Variant("x", "cs", (("incremental", False),)).available()
    assert not design.Variant("x", "cs", (("no_such_parameter", 1),)).available()
    assert not design.Variant("x", "no-such-policy").available()
    left = {v.label for v in design.left_out((*design.cs_variants(), design.SPACE_SHARING_CS))}
    assert not {"CS_i_np", "CS_ni_np", "BF_FCFS", "EDF"} & left


def test_every_section_gets_its_first_repetition_before_any_second():
    full = design.runs(False)
    rounds = repetition_round(full)
    first_egedf = next(r for r in full if r.part.preset == design.EGEDF_PRESET)
    assert first_egedf.run.seed == 1 and rounds[first_egedf.run.run_id] == 0
    assert {rounds[r.run.run_id] for r in full if r.run.seed == 0} == {0}
    seen = [rounds[r.run.run_id] for r in full]
    assert seen == sorted(seen)


def test_reduced_run_writes_every_table_figure_and_finding(reduced):
    out, reproduction = reduced
    assert sorted(load_results(out)["run_id"]) == sorted(r.run.run_id
                                                         for r in design.runs(True))
    assert len(list((out / TASKS_DIR).glob("*.json"))) == len(design.tasks(True))
    assert len(reproduction.findings) == len(checks.FINDINGS)
    for name in ("table5", "table5-schedlab", "fig19", "fig19-profile", "fig20", "fig21",
                 "fig22", "fig23", "fig23-ops", "fig24", "offered-load", "adh", "fig39",
                 "fig39-usage", "fig40", "fig40-slowdown", "findings"):
        assert reproduction.tables[name].is_file(), name
    load = reproduction.tables["offered-load"].read_text()
    assert "Ta in minutes" in load and "licence cap" in load
    for name in ("fig19", "fig19-profile", "fig20", "fig21", "fig22", "fig23", "fig24",
                 "adh-trajectory", "fig39", "fig39-usage", "fig40", "fig40-slowdown"):
        assert reproduction.figures[name].is_file(), name
    table5 = reproduction.tables["table5"].read_text()
    assert "| [40% - 45%] | exact | thesis | 496.53 | 57 | 87 | 100 |  |" in table5
    assert table5.count("| schedlab |") == 8
    findings = reproduction.tables["findings"].read_text()
    for finding in reproduction.findings:
        assert finding.claim in findings


def test_what_is_left_out_is_listed_and_its_findings_not_judged(reduced):
    _out, reproduction = reduced
    left = design.left_out((*design.cs_variants(), design.SPACE_SHARING_CS))
    by_claim = {f.claim: f for f in reproduction.findings}
    if left:
        listed = reproduction.tables["left-out"].read_text()
        assert all(v.label in listed and v.needs in listed for v in left)
    if not design.SPACE_SHARING_CS.available():
        ms = [f for claim, f in by_claim.items() if "meta-scheduler" in claim]
        assert len(ms) == 2 and all(f.holds is None and f.ours == "not run" for f in ms)


class Count:
    """A sweep observer keeping what the sweep found pending."""

    def started(self, pending: int, done_before: int) -> None:
        self.pending = pending

    def recorded(self, record) -> None:
        pass


def test_running_again_runs_nothing_and_a_lost_run_is_run_again(reduced):
    out, _ = reduced
    assert execute_tasks(out, True) == 0
    lost = design.runs(True)[1].run.run_id
    stored = recipe.run_table(out, True).set_index("run_id").loc[lost]
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("DELETE FROM runs WHERE run_id = ?", (lost,))
    (out / "rows" / f"{lost}.json").unlink()
    count = Count()
    reproduce("grid-cs", out, reduced=True, executor="serial", observer=count)
    assert count.pending == 1
    again = recipe.run_table(out, True).set_index("run_id").loc[lost]
    for key in ("deadline_missed_pct", "machine_usage", "mean_jobs_in_system", "label"):
        assert again[key] == stored[key]
    assert again["workload_profile"] == stored["workload_profile"]


def test_a_stored_eg_edf_run_is_compare_schedule_based_s(reduced):
    out, _ = reduced
    labelled = next(r for r in design.runs(True) if r.label == "Tabu Search")
    stored = load_results(out).set_index("run_id").loc[labelled.run.run_id]
    ta = labelled.run.workload.option("ta")
    [row] = compare_schedule_based(labelled.part.jobs, [ta], [labelled.run.seed],
                                   {"eg-edf+tabu": {"name": "eg-edf"}})
    for key in ("deadline_missed_pct", "system_usage", "nondeadline_avg_slowdown",
                "avg_slowdown"):
        assert stored[key] == pytest.approx(row[key])
    assert simulate_run(labelled.run)[1]["deadline_missed_pct"] == stored["deadline_missed_pct"]


# ------------------------------------------------------------ findings on made-up tables
CS = ["CS_i_np", "CS_ni_np"]
BASE = ["BF_FCFS", "BF_UNMOD", "BF_MOD", "EDF"]
EGEDF = ["FCFS", "Easy BF", "Flex. BF (UNMOD)", "Flex. BF (MOD)", "EG-EDF", "Tabu Search"]
RATIOS = ["[40% - 45%]", "[45% - 50%]", "[50% - 55%]", "[55% - 60%]"]


def _frame(index, columns, rows) -> pd.DataFrame:
    return pd.DataFrame([[float(v) for v in row] for row in rows], index=index, columns=columns)


def frames(**changes) -> dict[str, pd.DataFrame]:
    """Tables shaped as the thesis reports them (every judged finding holds); ``changes``
    sets cells: ``{"fig20": {(4, "CS_i_np"): 99.0}}`` (row, column)."""
    tas = [4, 10, 20]
    table5 = pd.DataFrame(
        [{"licence ratio": r, "method": m, "time (ms)": t, "Avg (%)": a, "value / exact": v}
         for r, vg in zip(RATIOS, (0.97, 0.98, 0.99, 1.0))
         for m, t, a, v in (("exact", 400.0, 88.0, 1.0), ("greedy", 10.0, 85.0, vg))]
    ).set_index(["licence ratio", "method"])
    scal = pd.DataFrame(
        [{"policy": p, "Ta": ta, "jobs in system": jobs, "ms per event": ms}
         for p, grow in (("CS_i_np", 2.0), ("CS_ni_np", 8.0), ("EDF", 1.0))
         for ta, jobs, ms in ((20, 100, 1.0), (4, 900, grow))]).set_index(["policy", "Ta"])
    ops = pd.DataFrame(
        [{"policy": p, "Ta": ta, "augmenting paths per event": paths,
          "entries touched per event": entries, "ms per event": 1.0}
         for p, paths, entries in (("CS_i_np", 2.0, 3e4), ("CS_ni_np", 75.0, 4e4))
         for ta in tas]).set_index(["policy", "Ta"])
    adh = pd.DataFrame(
        [{"stream": s, "classifier": c, "mean_distance": d, "reconfigurations": n}
         for s in ("adh-uniform", "adh-changing", "adh-hotspots")
         for c, d, n in (("static", 0.3, 0), ("adaptive", 0.2, 0 if s == "adh-uniform" else 9))]
    ).set_index(["stream", "classifier"])
    out = {
        "table5": table5, "fig24": scal, "fig23-ops": ops, "adh": adh,
        "fig20": _frame(tas, CS + BASE, [[60, 61, 80, 75, 75, 85], [20, 20, 40, 30, 30, 45],
                                         [5, 5, 10, 8, 8, 12]]),
        "fig21": _frame(tas, CS + BASE, [[3, 3, 2, 2, 2, 2], [1.05, 1.0, 1, 1, 1, 1],
                                         [1, 1, 1, 1, 1, 1]]),
        "fig22": _frame(tas, CS + BASE, [[99, 99, 95, 96, 96, 94], [100, 100, 97, 97, 97, 96],
                                         [100, 100, 99, 99, 99, 99]]),
        "fig23": _frame(tas, CS + BASE, [[5, 9, 1, 1, 1, 0.1], [3, 6, 1, 1, 1, 0.1],
                                         [1, 2, 1, 1, 1, 0.1]]),
        "fig31": _frame([5], ["CS", "FCFS", "EASY", "Flexible BF"], [[3, 30, 20, 10]]),
        "fig32": _frame([5], ["CS", "FCFS", "EASY", "Flexible BF"], [[9, 2, 1.5, 1.6]]),
        "fig39": _frame([5, 8], EGEDF, [[80, 60, 55, 55, 40, 38], [20, 20, 18, 18, 10, 10]]),
        "fig40-slowdown": _frame([5, 8], EGEDF, [[3, 2, 1.9, 1.9, 1.95, 1.92],
                                                 [1, 1, 1, 1, 1, 1]]),
    }
    for name, cells in changes.items():
        for (row, column), value in cells.items():
            out[name].loc[row, column] = value
    return out


BREAKS = {
    checks.finding_greedy_near_exact: {"table5": {(("[40% - 45%]", "greedy"), "value / exact"):
                                                  0.80}},
    checks.finding_greedy_much_faster: {"table5": {(("[40% - 45%]", "greedy"), "time (ms)"):
                                                   390.0,
                                                   (("[45% - 50%]", "greedy"), "time (ms)"):
                                                   390.0}},
    checks.finding_greedy_closer_with_less_contention: {
        "table5": {(("[55% - 60%]", "greedy"), "value / exact"): 0.96}},
    checks.finding_cs_fewer_misses: {"fig20": {(20, "CS_ni_np"): 8.0}},
    checks.finding_cs_beats_easy_at_high_load: {"fig20": {(4, "CS_i_np"): 85.0}},
    checks.finding_incremental_same_quality: {"fig20": {(10, "CS_i_np"): 23.0}},
    checks.finding_cs_slowdown_near_one: {"fig21": {(20, "CS_ni_np"): 1.3}},
    checks.finding_cs_machines_busy: {"fig22": {(4, "CS_i_np"): 90.0}},
    checks.finding_incremental_cheaper: {"fig23": {(20, "CS_i_np"): 2.5}},
    checks.finding_incremental_fewer_operations: {"fig23-ops": {
        (("CS_i_np", 10), "entries touched per event"): 5e4}},
    checks.finding_incremental_scales_better: {"fig24": {(("CS_i_np", 4), "ms per event"):
                                                         9.0}},
    checks.finding_ms_cs_fewer_misses: {"fig31": {(5, "CS"): 15.0}},
    checks.finding_ms_cs_slows_nondeadline: {"fig32": {(5, "CS"): 1.0}},
    checks.finding_adh_idle_on_uniform: {"adh": {(("adh-uniform", "adaptive"),
                                                  "reconfigurations"): 2.0}},
    checks.finding_adh_closer_to_target: {"adh": {(("adh-hotspots", "adaptive"),
                                                   "mean_distance"): 0.4}},
    checks.finding_schedule_based_fewer_misses: {"fig39": {(8, "EG-EDF"): 18.0}},
    checks.finding_tabu_best: {"fig39": {(5, "Tabu Search"): 41.0}},
    checks.finding_tabu_slowdown_near_flexible: {"fig40-slowdown": {(5, "Tabu Search"): 2.5}},
}
#: Findings that need runs made-up tables do not have (the preemptive CS versions).
UNJUDGED = {checks.finding_preemption_costlier}


def test_every_finding_is_checked_both_ways():
    assert set(BREAKS) | UNJUDGED == set(checks.FINDINGS)


@pytest.mark.parametrize("check", list(BREAKS), ids=lambda f: f.__name__)
def test_a_finding_holds_on_thesis_like_tables_and_fails_when_broken(check):
    assert check(frames()).holds is True
    assert check(frames(**BREAKS[check])).holds is False


def test_the_preemption_finding_is_judged_once_the_preemptive_versions_ran():
    assert checks.finding_preemption_costlier(frames()).holds is None
    tables = frames()
    tables["fig23"]["CS_i_p"] = tables["fig23"]["CS_i_np"] * 2
    tables["fig23"]["CS_ni_p"] = tables["fig23"]["CS_ni_np"] * 2
    assert checks.finding_preemption_costlier(tables).holds is True
    tables["fig23"].loc[10, "CS_ni_p"] = 1.0
    assert checks.finding_preemption_costlier(tables).holds is False


def test_a_section_not_run_is_not_judged():
    empty = {name: pd.DataFrame() for name in frames()}
    empty["fig40-slowdown"] = pd.DataFrame()
    for check in checks.FINDINGS:
        finding = check(empty)
        assert finding.holds is None and finding.ours == "not run", check.__name__


@pytest.mark.slow
def test_full_form(tmp_path):
    """The whole evaluation (hours): Table 5's greedy is near the exact knapsack."""
    reproduction = reproduce("grid-cs", tmp_path / "full")
    held = {f.claim.split(" (")[0]: f.holds for f in reproduction.findings}
    assert held["The greedy MKP gets closer to the optimum as the licence ratio grows"]
