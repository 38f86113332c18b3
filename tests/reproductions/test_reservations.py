"""The reduced Margo et al. reservation recipe end to end: the three scenarios on Lublin."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from schedlab.experiments.recipes import reproduce
from schedlab.experiments.recipes import reservations as recipe
from schedlab.experiments.recipes.reservations import (
    SCENARIOS, class_metrics, reduced_experiment, run_table)
from schedlab.experiments.spec import experiment_from_mapping

TRACES = Path(__file__).resolve().parents[3] / "shared" / "workloads"
#: The run ids of the reduced form's three scenarios (baseline, + reservations,
#: + reservations + throttle), as the recipe first built them.
REDUCED_RUN_IDS = [
    "0e068a21d3e99761", "200b72230557f31b", "294a0486c150202c", "3dd089d3bc06b0e3",
    "434384f715613e05", "58aeabfcd086d8c7", "5fb62ad6483672d9", "6fc141b89f3c4c99",
    "72ce96292fde2b31", "785e9bacfc5c272d", "7d339307ffac4909", "9044602e5839f1f2",
    "a6d15e061cbd424b", "ec9e39c1c504acb5", "f81d47f378af05fe"]
#: The full form's 176 runs of the three scenarios: SHA-256 (first 16 hex digits) of
#: their sorted run ids joined by commas.
FULL_RUNS, FULL_RUN_IDS_DIGEST = 176, "a91301e3c4abd947"


def papers_scenarios(runs) -> list[str]:
    """Sorted run ids of the runs of the paper's three scenarios (Margo §5): no requests,
    or requests with exact placement and no minimum duration or notice."""
    plain = {"placement": "exact", "min_duration": 0, "min_notice": 0}
    ids = []
    for run in runs:
        rules = run.identity()["reservations"]["rules"]
        if rules is None or all(rules[key] == value for key, value in plain.items()):
            ids.append(run.run_id)
    return sorted(ids)


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("reservations")
    return out, reproduce("reservations", out, reduced=True, executor="serial")


def test_reservations_raise_the_expansion_factor_and_throttling_lowers_it(reduced) -> None:
    out, _ = reduced
    runs = run_table(out)
    assert len(runs) == 15                                   # 3 seeds x (1 + 2 streams x 2)
    ef = runs.pivot_table(index=["seed", "request_seed"], columns="scenario",
                          values="expansion_factor_weighted")
    base = runs[runs["scenario"] == "baseline"].set_index("seed")["expansion_factor_weighted"]
    for (seed, stream), row in ef.dropna(subset=["reservations"]).iterrows():
        assert row["reservations"] > base[seed], (seed, stream)      # Margo Graph 4
        assert row["throttled"] < row["reservations"], (seed, stream)
    throttled = runs[runs["scenario"] == "throttled"]
    plain = runs[runs["scenario"] == "reservations"]
    assert (throttled["reservations_rejected.over_cap"] > 0).all()
    assert throttled["reserved_node_seconds"].sum() < plain["reserved_node_seconds"].sum()


def test_the_summary_writes_figures_tables_and_the_key_findings(reduced) -> None:
    out, reproduction = reduced
    names = {f.claim.split(" (")[0]: f for f in reproduction.findings}
    assert names["throttling recovers most of the increase"].holds is True
    assert names["the queue grows much deeper with reservations; throttled it stays near "
                 "the baseline"].holds is True
    for figure in ("expansion_factor", "wait", "classes_expansion_factor", "classes_wait",
                   "utilization_lublin", "queue_lublin", "requests_granted"):
        assert reproduction.figures[figure].is_file()
        assert reproduction.figures[figure].with_suffix(".svg").is_file()
    scenarios = (out / "reproduction" / "scenarios.csv").read_text().splitlines()
    assert [line.split(",")[2] for line in scenarios[1:]] == list(SCENARIOS)


def test_the_reduced_form_keeps_the_papers_request_density() -> None:
    table = reduced_experiment()["reservations"]
    # 60 a year -> 30 in 182 days, compressed into 14 days: 15 a week (Margo §5)
    weeks = table["compress"]["from_days"] / 7
    assert round(table["per_week"] * weeks) == 30
    assert table["compress"]["into_days"] == 14 and table["tick"] == 900


def test_size_classes_are_in_nodes_and_weighted_by_node_seconds() -> None:
    import pandas as pd

    # Blue Horizon-like: 8 processors per node.  Widths 8, 16, 600 processors are
    # 1, 2 and 75 nodes.  Job 2: wait 100, estimate 100 -> factor 2; job 3 (killed
    # at its estimate) and job 4 (same class) weigh 16 x 10 and 16 x 30 node-seconds.
    jobs = pd.DataFrame({"width": [8, 16, 16, 600, 8], "runtime": [50, 10, 30, 100, 5],
                         "estimate": [100, 100, 50, 200, 5], "wait": [0, 100, 0, 200, 0],
                         "status": ["finished", "finished", "killed", "finished", "rejected"]})
    classes = class_metrics(jobs, 8)
    assert [classes[c]["jobs"] for c in ("1", "2-64", "65-256")] == [1, 2, 1]
    assert classes["2-64"]["expansion_factor"] == pytest.approx((2 * 160 + 1 * 480) / 640)
    assert classes["2-64"]["wait_h"] == pytest.approx(100 * 160 / 640 / 3600)
    assert classes["65-256"]["expansion_factor"] == pytest.approx(2.0)
    assert classes["1"]["expansion_factor"] == pytest.approx(1.0)


def test_the_papers_scenarios_keep_their_run_ids_in_the_reduced_form() -> None:
    """A directory swept by an earlier version of the recipe is resumed, not redone."""
    runs = experiment_from_mapping(recipe.experiment(True)).runs
    assert papers_scenarios(runs) == REDUCED_RUN_IDS


def test_the_papers_scenarios_keep_their_run_ids_in_the_full_form(monkeypatch) -> None:
    if not all((TRACES / file).is_file() for _, _, file, *_ in recipe.WINDOWS):
        pytest.skip(f"the KTH-SP2 and SDSC-BLUE traces are not in {TRACES}")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(TRACES))
    ids = papers_scenarios(experiment_from_mapping(recipe.experiment(False)).runs)
    assert len(ids) == FULL_RUNS
    assert hashlib.sha256(",".join(ids).encode()).hexdigest()[:16] == FULL_RUN_IDS_DIGEST
