"""The QoPS reproduction (Islam et al., §4-§5): the reduced recipe end to end, and its helpers.

The reduced form runs QoPS, MSB, MRT and EASY on 800 jobs of the built-in
Lublin model (3 seeds, loads 1.0 and 1.6 by duplication, s = 0.2, exact
estimates), so CI needs no trace.
"""

from __future__ import annotations

import pandas as pd
import pytest

from real_traces import trace_path
from schedlab.errors import InputError
from schedlab.experiments import load_results
from schedlab.experiments.recipes import get_recipe, reproduce, trace_file
from schedlab.experiments.recipes import qops as recipe
from schedlab.experiments.spec import experiment_from_mapping

TRACES = trace_path(".")


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    """The reduced recipe run once, in this process: (experiment dir, Reproduction)."""
    out = tmp_path_factory.mktemp("qops") / "reduced"
    return out, reproduce("qops", out, reduced=True, executor="serial")


def finding(reproduction, start: str):
    matches = [f for f in reproduction.findings if f.claim.startswith(start)]
    assert len(matches) == 1, [f.claim for f in reproduction.findings]
    return matches[0]


def test_no_admitted_job_misses_its_deadline_while_easy_misses_many(reduced):
    _out, reproduction = reduced
    assert finding(reproduction, "No admitted job misses").holds is True
    table = pd.read_csv(reproduction.tables["guarantee"]).set_index("policy")
    assert list(table.index) == ["qops", "msb", "mrt", "fcfs+easy"]
    assert (table.loc[["qops", "msb", "mrt"], "missed"] == 0).all()
    assert (table.loc[["qops", "msb", "mrt"], "runs"] == 6).all()
    assert table.loc["fcfs+easy", "runs_with_misses"] == 6
    assert table.loc["fcfs+easy", "missed"] > 1000
    assert (table["unfinished"] == 0).all()          # exact estimates: nobody is killed


def test_jobs_killed_unfinished_break_the_guarantee_without_a_miss():
    runs = pd.DataFrame({"policy": ["qops", "qops", "fcfs+easy"], "run_id": ["a", "b", "c"],
                         "deadline_missed": [0.0, 0.0, 9.0], "deadline_missed_pct": [0, 0, 30],
                         "deadline_max_lateness": [0.0, 0.0, 50.0],
                         "deadline_unfinished": [3.0, 0.0, 1.0]})
    table = recipe.guarantee_table(runs)
    assert table.loc["qops", ["missed", "unfinished", "runs_with_unfinished"]].tolist() == \
        [0, 3, 1]
    outcome = recipe.guarantee_finding(runs)
    assert outcome.holds is False
    assert "0 misses and 3 deadline jobs killed unfinished in 2 QoPS/MSB/MRT runs" in outcome.ours


def test_qops_leaves_fewer_jobs_unadmitted_than_msb_at_high_load_for_every_seed(reduced):
    out, reproduction = reduced
    assert finding(reproduction, "QoPS leaves fewer jobs unadmitted than MSB").holds is True
    runs = load_results(out)
    high = runs[runs["transform.load"] == 1.6].pivot_table(
        index="seed", columns="policy", values="deadline_rejected_pct")
    assert list(high.index) == [0, 1, 2]
    assert (high["qops"] < high["msb"]).all()
    assert (high["fcfs+easy"] == 0).all()


def test_unadmitted_processor_seconds_fall_with_the_load_for_every_scheme_and_seed(reduced):
    # QoPS §5.1: deadlines come from EASY responses, which grow fastest for heavy jobs
    out, reproduction = reduced
    assert finding(reproduction, "Unadmitted processor-seconds fall").holds is True
    runs = load_results(out)
    area = runs[runs.policy.isin(["qops", "msb", "mrt"])].pivot_table(
        index=["policy", "seed"], columns="transform.load", values="deadline_rejected_area_pct")
    assert len(area) == 9
    assert (area[1.6] < area[1.0]).all()


def test_admission_control_costs_utilization_at_every_point(reduced):
    out, _ = reduced
    runs = load_results(out)
    table = runs.pivot_table(index=["seed", "transform.load"], columns="policy",
                             values="utilization")
    assert len(table) == 6
    assert (table["fcfs+easy"] > table["qops"]).all()


def test_summary_tables_agree_with_the_stored_runs_and_figures_are_written(reduced):
    out, reproduction = reduced
    runs = load_results(out)
    admittance = pd.read_csv(reproduction.tables["admittance"])
    for load in (1.0, 1.6):
        row = admittance[admittance["load"] == load].iloc[0]
        stored = runs[(runs["transform.load"] == load) & (runs.policy == "qops")]
        assert row["qops jobs %"] == pytest.approx(stored["deadline_rejected_pct"].mean())
        assert row["fcfs+easy util"] == pytest.approx(
            runs[(runs["transform.load"] == load)
                 & (runs.policy == "fcfs+easy")]["utilization"].mean())
    assert set(reproduction.figures) == {"admittance_duplicate_s0.2_deadline100"}
    png = reproduction.figures["admittance_duplicate_s0.2_deadline100"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.with_suffix(".svg").is_file()
    findings_md = (out / "reproduction" / "findings.md").read_text()
    assert "QoPS leaves fewer jobs unadmitted than MSB" in findings_md
    # a cell holding "|" would split the Markdown table
    assert all(line.count("|") == 6 for line in findings_md.splitlines())


def test_at_utilization_interpolates_within_the_curve_only():
    curve = pd.DataFrame({"utilization": [0.7, 0.5], "value": [30.0, 10.0]})
    assert recipe.at_utilization(curve, 0.6) == pytest.approx(20.0)
    assert recipe.at_utilization(curve, 0.5) == pytest.approx(10.0)
    assert recipe.at_utilization(curve, 0.8) is None


def test_equal_utilization_wins_compares_qops_with_interpolated_references():
    # EASY: (0.6, 100) and (0.8, 300); QoPS at 0.7 has 150 < 200 (a win), at 0.75 has
    # 260 > 250 (a loss), at 0.9 lies beyond EASY's range (not comparable).
    point = {"workload": "w", "method": "duplicate", "s": 0.2, "fraction": 0.2, "R": 5.0}
    rows = [(1.0, "fcfs+easy", 0.6, 100.0), (1.6, "fcfs+easy", 0.8, 300.0),
            (1.0, "qops", 0.7, 150.0), (1.2, "qops", 0.75, 260.0), (1.6, "qops", 0.9, 1.0)]
    means = pd.DataFrame([{**point, "load": load, "policy": policy, "utilization": u,
                           "nondeadline_avg_response": value}
                          for load, policy, u, value in rows])
    assert recipe.equal_utilization_wins(means, "nondeadline_avg_response",
                                         ("fcfs+easy",)) == (1, 2)


def test_main_runs_drop_the_copies_of_full_deadline_runs_under_other_r():
    runs = pd.DataFrame({"fraction": [1.0, 1.0, 1.0, 0.2, 0.2, 1.0],
                         "R": [2.0, 5.0, 10.0, 5.0, 10.0, 0.0]})
    assert list(recipe.main_runs(runs).index) == [1, 3, 5]


def test_missing_traces_name_the_variable_and_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_TRACES", str(tmp_path / "none"))
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(InputError) as caught:
        recipe.full_experiment()
    message = str(caught.value)
    assert "SCHEDLAB_TRACES" in message and "schedlab traces fetch KTH-SP2" in message
    assert "KTH-SP2-1996-2.1-cln.swf.gz" in message


def test_traces_are_found_in_the_directory_the_variable_names(tmp_path, monkeypatch):
    (tmp_path / "KTH-SP2-1996-2.1-cln.swf.gz").write_bytes(b"")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(tmp_path))
    assert trace_file("QoPS", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz") == \
        (tmp_path / "KTH-SP2-1996-2.1-cln.swf.gz").resolve()


def test_the_full_form_is_the_papers_grid_on_both_stand_in_traces(monkeypatch):
    if not (TRACES / "KTH-SP2-1996-2.1-cln.swf.gz").is_file() or \
            not (TRACES / "SDSC-BLUE-2000-4.2-cln.swf.gz").is_file():
        pytest.skip(f"the KTH-SP2 and SDSC-BLUE traces are not in {TRACES}")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(TRACES))
    runs = experiment_from_mapping(get_recipe("qops").experiment(False)).runs
    # 2 traces x 4 loads x 2 methods x 2 s x (100 % at R = 5, 80 and 20 % x 3 R) x 6 policies
    assert len(runs) == 2 * 4 * 2 * 2 * (1 + 2 * 3) * 6
    assert {r.workload.label for r in runs} == {"KTH-SP2", "SDSC-BLUE"}
    assert {r.workload.option("jobs") for r in runs} == {5000}
    settings = {tuple(sorted(dict(r.transforms).items())) for r in runs}
    assert (("deadline_fraction", 0.2), ("load", 1.6), ("load_method", "expand"),
            ("perfect_estimates", True), ("relaxation", 10.0),
            ("stringency", 0.5)) in settings
    assert {r.policy for r in runs} == {"qops", "msb", "mrt", "edf", "fcfs+easy",
                                        "fcfs+conservative"}
    assert len(settings) == 4 * 2 * 2 * (1 + 2 * 3)
    # a 100 % deadline workload ignores R: it runs once, under the R the summaries use
    assert {dict(s)["relaxation"] for s in settings if dict(s)["deadline_fraction"] == 1.0} \
        == {recipe.MAIN_RELAXATION}
    # the single grid of earlier versions gave every one of these runs, with the same id
    single = {**get_recipe("qops").experiment(False),
              "transforms": {"perfect_estimates": [True], "load": list(recipe.LOADS),
                             "load_method": list(recipe.LOAD_METHODS),
                             "stringency": list(recipe.STRINGENCIES),
                             "deadline_fraction": list(recipe.DEADLINE_FRACTIONS),
                             "relaxation": list(recipe.RELAXATIONS)}}
    before = {r.run_id for r in experiment_from_mapping(single).runs}
    assert len(before) == 1728 and {r.run_id for r in runs} < before
