"""The reduced Margo et al. reservation recipe end to end: the three scenarios on Lublin,
the future work's minimum notice and the earliest placement; the recipe's helpers."""

from __future__ import annotations

import hashlib

import pytest

from real_traces import trace_path
from schedlab.experiments.recipes import reproduce
from schedlab.experiments.recipes import reservations as recipe
from schedlab.experiments.recipes.reservations import (
    MIN_NOTICE_HOURS,
    SCENARIOS,
    class_metrics,
    papers_runs,
    reduced_experiment,
    run_table,
)
from schedlab.experiments.runner import prepared_workload, run_requests
from schedlab.experiments.spec import experiment_from_mapping

TRACES = trace_path(".")
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
    every = run_table(out)
    assert len(every) == 51       # 3 seeds x (1 + 2 streams x 2 throttles x 2 placements x 2)
    runs = papers_runs(every)
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
                   "utilization_lublin", "queue_lublin", "requests_granted",
                   "rules_expansion_factor"):
        assert reproduction.figures[figure].is_file()
        assert reproduction.figures[figure].with_suffix(".svg").is_file()
    scenarios = (out / "reproduction" / "scenarios.csv").read_text().splitlines()
    assert [line.split(",")[2] for line in scenarios[1:]] == list(SCENARIOS)
    # the paper's reasons only: the minimum notice's refusals are in the rules table
    requests = (out / "reproduction" / "requests.csv").read_text().splitlines()[0]
    assert requests.endswith("reservations_rejected.busy,reservations_rejected.over_cap")
    rules = (out / "reproduction" / "rules.csv").read_text().splitlines()
    assert len(rules) == 1 + 1 + 2 * 2 * 2        # baseline + throttle x placement x notice
    assert rules[0].split(",")[:6] == ["workload", "policy", "limit", "scenario", "placement",
                                       "minimums"]
    future = [f for f in reproduction.findings if "future work" in f.claim or
              "earliest" in f.claim]
    assert [f.holds for f in future] == [None] * 5     # the paper has no numbers for them
    assert "minimum notice >= 72 h" in future[0].claim and "granted" in future[0].ours


def test_the_reduced_form_keeps_the_papers_request_density() -> None:
    table = reduced_experiment()["reservations"]
    # 60 a year -> 30 in 182 days, compressed into 14 days: 15 a week (Margo §5)
    weeks = table["compress"]["from_days"] / 7
    assert round(table["per_week"] * weeks) == 30
    assert table["compress"]["into_days"] == 14 and table["tick"] == 900


def test_size_classes_are_in_nodes_and_weighted_by_node_seconds() -> None:
    import pandas as pd

    # Blue Horizon-like: 8 processors per node.  Widths 8, 16, 600 processors are
    # 1, 2 and 75 nodes.  Job 2: wait 100, estimate 100 -> factor 2, held 10 s; job 3 was
    # killed at its estimate: its trace runtime is 90 s but it held its processors 50 s,
    # so the class weighs 16 x 10 and 16 x 50 node-seconds (the weights of the overall
    # expansion_factor_weighted, docs/reference/metrics.md), not 16 x 10 and 16 x 90.
    jobs = pd.DataFrame({"width": [8, 16, 16, 600, 8], "runtime": [50, 10, 90, 100, 5],
                         "estimate": [100, 100, 50, 200, 5], "submit": [0, 0, 0, 0, 0],
                         "start": [0, 100, 0, 200, 0], "end": [50, 110, 50, 300, 0],
                         "wait": [0, 100, 0, 200, 0],
                         "status": ["finished", "finished", "killed", "finished", "rejected"]})
    classes = class_metrics(jobs, 8)
    assert [classes[c]["jobs"] for c in ("1", "2-64", "65-256")] == [1, 2, 1]
    assert classes["2-64"]["expansion_factor"] == pytest.approx((2 * 160 + 1 * 800) / 960)
    assert classes["2-64"]["wait_h"] == pytest.approx(100 * 160 / 960 / 3600)
    assert classes["65-256"]["expansion_factor"] == pytest.approx(2.0)
    assert classes["1"]["expansion_factor"] == pytest.approx(1.0)


def test_size_classes_use_the_weights_of_the_overall_metric() -> None:
    """One class holding every job gives exactly the run's expansion_factor_weighted and
    wait_weighted (one definition of node-seconds: width x time held)."""
    import io

    import pandas as pd

    import schedlab
    from schedlab.output import jobs_csv_text
    from schedlab.workload.job import Workload

    model = schedlab.load_workload("lublin", jobs=300)
    # every third job needs twice its estimate: killed at the estimate, it holds its
    # processors for the estimate, not for its trace runtime
    jobs = tuple(job._replace(runtime=2 * job.estimate) if job.id % 3 == 0 else job
                 for job in model.jobs)
    result = schedlab.simulate(Workload(jobs, model.processors), "fcfs+easy")
    metrics = schedlab.compute_metrics(result)
    assert metrics["killed"] > 0                 # some jobs hold less than their runtime
    jobs = pd.read_csv(io.StringIO(jobs_csv_text(result)))
    whole = class_metrics(jobs, 10_000)["1"]
    assert whole["expansion_factor"] == pytest.approx(metrics["expansion_factor_weighted"])
    assert whole["wait_h"] == pytest.approx(metrics["wait_weighted"] / 3600)


def test_the_papers_scenarios_keep_their_run_ids_in_the_reduced_form() -> None:
    """A directory swept by an earlier version of the recipe is resumed, not redone."""
    runs = experiment_from_mapping(recipe.experiment(True)).runs
    assert papers_scenarios(runs) == REDUCED_RUN_IDS


def test_the_papers_scenarios_keep_their_run_ids_in_the_full_form(monkeypatch) -> None:
    if not all((TRACES / file).is_file() for _, _, file, *_ in recipe.WINDOWS):
        pytest.skip(f"the KTH-SP2 and SDSC-BLUE traces are not in {TRACES}")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(TRACES))
    runs = experiment_from_mapping(recipe.experiment(False)).runs
    # 4 windows x 2 policies x (1 + 5 streams x 16 rule settings) x 2 queue limits
    assert len(runs) == 4 * 2 * (1 + 5 * 16) * 2
    ids = papers_scenarios(runs)
    assert len(ids) == FULL_RUNS
    assert hashlib.sha256(",".join(ids).encode()).hexdigest()[:16] == FULL_RUN_IDS_DIGEST


def requests_by_run(reduced: bool = True) -> dict[str, tuple]:
    """The requests of every run with requests, by run id, as the runner builds them."""
    out = {}
    for run in experiment_from_mapping(recipe.experiment(reduced)).runs:
        if run.reservations.requests is not None:
            workload = prepared_workload(run.workload, run.seed, run.processors, run.transforms)
            out[run.run_id] = run_requests(run.reservations.requests, workload,
                                           run.processors or workload.processors)
    return out


def test_the_minimum_notice_refuses_exactly_the_short_notice_requests(reduced) -> None:
    """Margo §7's advance notice as a rule: every request made less than 72 h ahead is
    refused for it, and the rest meet the other rules as before."""
    out, _ = reduced
    runs = run_table(out).set_index("run_id")
    requests = requests_by_run()
    noticed = runs[runs["minimums"] == "notice"]
    assert len(noticed) == 3 * 2 * 2 * 2
    for run_id, row in noticed.iterrows():
        short = sum(r.notice < MIN_NOTICE_HOURS * 3600 for r in requests[run_id])
        assert 0 < short < len(requests[run_id])
        assert row["reservations_rejected.short_notice"] == short, run_id
        if row["placement"] == "earliest" and row["scenario"] == "reservations":
            # unthrottled, earliest placement grants every request no rule refuses
            assert row["reservations_granted"] == len(requests[run_id]) - short


def test_the_minimum_notice_never_grants_more_than_the_unthrottled_scenario(reduced) -> None:
    """Unthrottled, refusing the short-notice requests never lets more through (checked
    beforehand on 8 seeds x 2 streams: it held in all 32 pairs; throttled it does not
    always, a refused request can leave room in the cap for a later one)."""
    out, _ = reduced
    runs = run_table(out)
    free = runs[runs["scenario"] == "reservations"]
    granted = free.pivot_table(index=["seed", "request_seed", "placement"],
                               columns="minimums", values="reservations_granted")
    assert len(granted) == 3 * 2 * 2
    assert (granted["notice"] <= granted["none"]).all()
    assert (granted["notice"] < granted["none"]).any()


def test_earliest_placement_grants_every_request_and_raises_the_expansion_factor(
        reduced) -> None:
    """``earliest`` moves a busy request instead of refusing it: unthrottled, all 30 are
    granted and the weighted expansion factor exceeds the exact placement's in every run
    (held in 16 of 16 on 8 seeds x 2 streams); throttled, it grants more on average."""
    out, _ = reduced
    runs = run_table(out)
    plain = runs[(runs["minimums"] == "none") & (runs["scenario"] != "baseline")]
    table = plain.pivot_table(index=["seed", "request_seed", "scenario"], columns="placement",
                              values=["reservations_granted", "reservations_moved",
                                      "expansion_factor_weighted"])
    free = table.xs("reservations", level="scenario")
    assert (free["reservations_granted", "earliest"] == 30).all()
    assert (free["reservations_moved", "earliest"] > 0).all()
    assert (free["reservations_moved", "exact"] == 0).all()
    assert (free["reservations_granted", "exact"] < 30).all()
    assert (free["expansion_factor_weighted", "earliest"]
            > free["expansion_factor_weighted", "exact"]).all()
    throttled = table.xs("throttled", level="scenario")["reservations_granted"].mean()
    assert throttled["earliest"] >= throttled["exact"]


def test_the_rule_grid_adds_the_future_works_rules_to_the_papers_settings() -> None:
    grid = recipe.rule_grid((0, 12))
    assert grid == {"throttle": [False, True], "cap_hours": 12,
                    "placement": ["exact", "earliest"], "min_duration": [0, 43200],
                    "min_notice": [0, 259200]}
    # 72 h of notice is beyond the longest wall-clock limit of every machine (60 h, KTH-SP2)
    assert recipe.MIN_NOTICE_HOURS * 3600 > 60 * 3600


@pytest.mark.parametrize("rules, minimums, papers", [
    (None, "none", True),
    ({"placement": "exact", "min_duration": 0, "min_notice": 0}, "none", True),
    ({"placement": "exact", "cap_hours": 12, "window": 604800, "min_duration": 0,
      "min_notice": 0}, "none", True),
    ({"placement": "earliest", "min_duration": 0, "min_notice": 0}, "none", False),
    ({"placement": "exact", "min_duration": 43200, "min_notice": 0}, "duration", False),
    ({"placement": "exact", "min_duration": 0, "min_notice": 259200}, "notice", False),
    ({"placement": "earliest", "min_duration": 43200, "min_notice": 259200},
     "duration+notice", False),
])
def test_settings_are_named_by_their_minimum_rules(rules, minimums, papers) -> None:
    assert recipe.minimums_of(rules) == minimums
    assert recipe.is_papers(rules) is papers


def test_the_rules_table_and_the_expansion_factor_rise_per_reserved_point() -> None:
    import pandas as pd

    # one workload: baseline EF 2; + reservations EF 6 with 10 % of the machine reserved,
    # minimum duration EF 4 with 8 % reserved (two request streams averaged)
    runs = pd.DataFrame([
        {"scenario": "baseline", "placement": "", "minimums": "none",
         "expansion_factor_weighted": 2.0, "utilization_reserved": float("nan")},
        {"scenario": "reservations", "placement": "exact", "minimums": "none",
         "expansion_factor_weighted": 5.0, "utilization_reserved": 0.08,
         "reservations_granted": 5, "reservations_rejected.busy": 3.0},
        {"scenario": "reservations", "placement": "exact", "minimums": "none",
         "expansion_factor_weighted": 7.0, "utilization_reserved": 0.12,
         "reservations_granted": 8, "reservations_rejected.busy": float("nan")},
        {"scenario": "reservations", "placement": "exact", "minimums": "duration",
         "expansion_factor_weighted": 4.0, "utilization_reserved": 0.08,
         "reservations_granted": 4, "reservations_rejected.busy": 1.0}])
    runs = runs.assign(workload="w", policy="fcfs+easy", limit=0, wait_weighted=3600.0)
    table = recipe.rule_table(runs)
    assert list(table.index.get_level_values("placement")) == ["-", "exact", "exact"]
    assert table["reservations_rejected.busy"].tolist()[1:] == [1.5, 1.0]  # NaN is none
    assert recipe.has_setting(table, "reservations", "exact", "duration")
    assert not recipe.has_setting(table, "throttled", "exact", "none")
    rise = recipe.rise_per_point(table, "reservations", "exact", "none")
    assert rise["w", "fcfs+easy"] == pytest.approx((6 - 2) / 10)
    finding = recipe.minimum_rule(table, "reservations", "duration")
    assert finding.holds is True               # 0.4 -> 0.25 per reserved point (§8)
    assert finding.ours == ("w E: EF 6.00 -> 4.00, granted 6.5 -> 4.0, EF rise per "
                            "reserved % 0.40 -> 0.25")


def test_a_refusal_reason_a_run_did_not_give_counts_as_none_in_the_means() -> None:
    import pandas as pd

    # two throttled request streams: 3 refused busy in the first, none in the second (its
    # metrics have no busy key); no request was refused for short notice anywhere
    runs = pd.DataFrame({"workload": "w", "policy": "fcfs+easy", "limit": 0,
                         "scenario": ["baseline", "throttled", "throttled"],
                         "reservations": [float("nan"), 60, 60],
                         "reservations_granted": [float("nan"), 10, 12],
                         "reservations_rejected.busy": [float("nan"), 3, float("nan")],
                         "reservations_rejected.over_cap": [float("nan"), 47, 48],
                         "reservations_rejected.short_notice": [float("nan")] * 3})
    table = recipe.rejection_table(runs)
    assert list(table.columns) == ["reservations", "reservations_granted",
                                   "reservations_rejected.busy",
                                   "reservations_rejected.over_cap"]
    assert table.loc[("w", "fcfs+easy", "throttled")].tolist() == [60, 11, 1.5, 47.5]


def test_the_papers_expansion_factors_stand_beside_each_reading_of_the_placement() -> None:
    import pandas as pd

    # one workload: baseline EF 2; unthrottled exact 6 (3 granted), earliest 10 (all 8);
    # throttled exact 3 and earliest 4
    rows = [("baseline", "", 2.0, float("nan")), ("reservations", "exact", 6.0, 3),
            ("reservations", "earliest", 10.0, 8), ("throttled", "exact", 3.0, 2),
            ("throttled", "earliest", 4.0, 2)]
    runs = pd.DataFrame([{"scenario": s, "placement": p, "minimums": "none",
                          "expansion_factor_weighted": ef, "reservations_granted": granted}
                         for s, p, ef, granted in rows])
    runs = runs.assign(workload="w", policy="fcfs+conservative", limit=0, wait_weighted=0.0)
    readings = recipe.readings_table(recipe.rule_table(runs))
    unthrottled = readings.loc[("w", "fcfs+conservative", "reservations")]
    assert unthrottled[["baseline", "exact", "exact_x", "earliest", "earliest_x"]].tolist() \
        == [2.0, 6.0, 3.0, 10.0, 5.0]
    assert unthrottled[["exact_granted", "earliest_granted"]].tolist() == [3, 8]
    # Margo §6: 7.35 (2006, baseline 2.05) and 9.35 (2007, baseline 2.53)
    assert unthrottled["paper"] == "7.35-9.35" and unthrottled["paper_x"] == "x3.59-3.70"
    assert readings.loc[("w", "fcfs+conservative", "throttled"), "paper"] == "1.70-5.21"
    finding = recipe.placement_reading(readings)
    assert finding.holds is None and finding.ours == "w C: exact 6.00 (x3.00), earliest " \
                                                     "10.00 (x5.00)"


def test_the_reduced_form_writes_the_readings_table(reduced) -> None:
    out, reproduction = reduced
    lines = (out / "reproduction" / "readings.csv").read_text().splitlines()
    assert lines[0] == ("workload,policy,scenario,baseline,exact,exact_x,exact_granted,"
                        "earliest,earliest_x,earliest_granted,paper,paper_x")
    assert [line.split(",")[2] for line in lines[1:]] == ["reservations", "throttled"]
    assert any(f.claim.startswith("+ reservations under each reading of the placement")
               for f in reproduction.findings)
