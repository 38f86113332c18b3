"""The grid-run machinery shared by the grid recipes: grid experiments as sweep runs (their
ids, labels and order), reading the stored runs back, the results of the earlier layout,
and the stored tasks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedlab.experiments import run_sweep
from schedlab.experiments.recipes.grid_runs import (
    GridPart,
    LabelledPolicy,
    Section,
    execute_stored,
    labelled_runs,
    old_runs_notice,
    read_stored,
    recipe_experiment,
    run_table,
    spelled,
    workload_profile,
)
from schedlab.tomlio import parse_toml

FCFS, CS = LabelledPolicy("FCFS", "grid-fcfs"), LabelledPolicy(
    "CS", "cs", (("incremental", False),))
LOCAL = GridPart("thesis-4.2", (0.55, 0.65), (4, 10), (0, 1), 30, (FCFS, CS))
MS = GridPart("thesis-4.3", (0.5, 0.7), (5,), (0,), 40, (LabelledPolicy("MS", "bf-fcfs"),),
              allocation="shared", dispatch="ms-heuristics",
              dispatch_params=(("classify", False),))


def test_a_part_is_a_grid_experiment_whose_runs_have_pinned_ids():
    runs = LOCAL.runs(CS)
    assert len(runs) == 2 * 2
    run = runs[0]
    assert (run.policy, dict(run.params), run.seed) == ("cs", {"incremental": False}, 0)
    assert run.workload.identity() == {"kind": "grid-model", "name": "grid", "label": "grid",
                                       "options": {"jobs": 30, "preset": "thesis-4.2",
                                                   "ta": 4.0}}
    assert run.grid.identity()["platform"] == {"preset": "thesis-4.2",
                                               "label": "thesis-4.2-ratio0.55-0.65",
                                               "settings": {"ratio": [0.55, 0.65]}}
    assert run.grid.allocation == "exclusive"
    assert run.run_id == RUN_ID
    dispatched = MS.runs(MS.policies[0])[0]
    assert (dispatched.grid.dispatch, dict(dispatched.grid.dispatch_params)) == (
        "ms-heuristics", {"classify": False})
    assert spelled("cs", (("incremental", False),)) == "cs.incremental=false"


#: The id of LOCAL's first CS run: a grid recipe's run ids change only with what they run.
RUN_ID = "559c620db55cdbd9"


def sections():
    """Two sections sharing LOCAL's Ta 4 FCFS runs under another label."""
    shared = GridPart("thesis-4.2", (0.55, 0.65), (4,), (0, 1), 30,
                      (LabelledPolicy("again", "grid-fcfs"),))
    return [Section("a", "A", lambda reduced: [LOCAL]),
            Section("b", "B", lambda reduced: [shared, MS])]


def test_a_run_two_sections_give_is_one_run_with_its_first_label_and_runs_go_by_repetition():
    runs = labelled_runs(sections(), True)
    assert len(runs) == len({r.run.run_id for r in runs}) == 2 * 2 * 2 + 1
    assert {r.label for r in runs} == {"FCFS", "CS", "MS"}
    seeds = [r.run.seed for r in runs]
    assert seeds == sorted(seeds)             # every first repetition before any second
    experiment = recipe_experiment("x", "two sections", sections(), True)
    assert [r.run_id for r in experiment.runs] == [r.run.run_id for r in runs]
    parts = parse_toml(experiment.text, "experiment.toml")["parts"]
    assert [(p["section"], p["label"]) for p in parts] == [
        ("a", "FCFS"), ("a", "CS"), ("b", "again"), ("b", "MS")]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The runs of :func:`sections` swept into a store: (experiment dir, labelled runs)."""
    out = tmp_path_factory.mktemp("grid-runs") / "exp"
    summary = run_sweep(recipe_experiment("x", "", sections(), True), out, executor="serial")
    assert summary.complete
    return out, labelled_runs(sections(), True)


def test_the_run_table_describes_each_run_beside_its_metrics(swept):
    out, runs = swept
    table = run_table(out, runs)
    assert table["run_id"].tolist() == [r.run.run_id for r in runs]
    local = table[table["preset"] == "thesis-4.2"]
    assert set(local["ratio"]) == {"55% - 65%"} and set(local["ta"]) == {4, 10}
    assert set(local["params"]) == {"grid-fcfs", "cs.incremental=false"}
    assert (local["dispatch"] == "").all()
    ms = table[table["preset"] == "thesis-4.3"].iloc[0]
    assert ms["dispatch"] == "ms-heuristics.classify=false" and ms["label"] == "MS"
    assert ms["cluster_share_optimum.c1"] == pytest.approx(120 / 225)
    assert sum(ms[f"cluster_jobs.c{k}"] for k in range(1, 5)) == 40
    for metric in ("machine_usage", "mean_jobs_in_system", "scheduling_time_per_event_us",
                   "deadline_missed_pct", "system_usage", "licence_usage"):
        assert table[metric].notna().all(), metric


def test_stored_machine_metrics_and_profile_are_those_of_the_simulation(swept):
    from schedlab.experiments.runner import simulate_run
    from schedlab.metrics.grid import jobs_in_system, run_window
    from schedlab.metrics.series import bin_means

    out, runs = swept
    table = run_table(out, runs).set_index("run_id")
    for labelled in (runs[1], runs[-1]):
        result, metrics = simulate_run(labelled.run)
        stored = table.loc[labelled.run.run_id]
        assert stored["machine_usage"] == metrics["machine_usage"]
        assert stored["mean_jobs_in_system"] == metrics["mean_jobs_in_system"]
        t0, t1 = run_window(result)
        _, means = bin_means(result.series_time, jobs_in_system(result), (t1 - t0) / 40, t0, t1)
        assert workload_profile(out, labelled.run.run_id) == [round(float(v), 3)
                                                              for v in means[:40]]
    assert np.isfinite(workload_profile(out, runs[0].run.run_id)).all()


def test_results_of_the_earlier_layout_are_named_in_one_line(tmp_path):
    assert old_runs_notice(tmp_path) is None
    (tmp_path / "runs").mkdir()
    assert old_runs_notice(tmp_path) is None
    (tmp_path / "runs" / "thesis-4.1-n300-ta4-rep0-bf-fcfs.json").write_text("{}")
    notice = old_runs_notice(tmp_path)
    assert "\n" not in notice and "computed again" in notice and str(tmp_path / "runs") in notice


def test_stored_work_resumes_after_a_failure(tmp_path):
    calls = []

    def work(key, fail=False):
        def compute():
            calls.append(key)
            if fail:
                raise RuntimeError("stopped")
            return {"key": key}
        return key, compute

    with pytest.raises(RuntimeError):
        execute_stored(tmp_path, [work("a"), work("b"), work("c", fail=True), work("d")])
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == ["a", "b"]
    assert execute_stored(tmp_path, [work("a"), work("b"), work("c"), work("d")]) == 2
    assert calls == ["a", "b", "c", "c", "d"]
    assert read_stored(tmp_path, ["d", "a"]) == {"a": {"key": "a"}, "d": {"key": "d"}}
    assert json.loads((tmp_path / "c.json").read_text()) == {"key": "c"}


def test_work_stored_meanwhile_by_another_process_is_not_done_again(tmp_path):
    calls = []

    def first():
        calls.append("a")
        (tmp_path / "b.json").write_text('{"by": "the other process"}')   # as another run would
        return {"key": "a"}

    def second():
        calls.append("b")
        return {"key": "b"}

    assert execute_stored(tmp_path, [("a", first), ("b", second)]) == 1
    assert calls == ["a"]
    assert read_stored(tmp_path, ["b"]) == {"b": {"by": "the other process"}}


def test_a_damaged_stored_result_is_an_error_naming_the_file(tmp_path):
    from schedlab.errors import InputError

    (tmp_path / "good.json").write_text('{"x": 1}\n')
    (tmp_path / "bad.json").write_text('{"run_id": ')
    assert read_stored(tmp_path, ["good"]) == {"good": {"x": 1}}
    with pytest.raises(InputError, match=r"not valid JSON.*delete the file") as err:
        read_stored(tmp_path)
    assert err.value.file == str(tmp_path / "bad.json")
