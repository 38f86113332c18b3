"""Sweeps with advance reservations: the [reservations] table, run identity and runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from experiments.helpers import SMALL_SWF
from schedlab.errors import InputError
from schedlab.experiments import experiment_from_mapping, load_results, load_series, run_sweep
from schedlab.experiments.runner import run_requests
from schedlab.experiments.spec import RequestSource
from schedlab.policies.reservations import PAPER_CAP, WEEK
from schedlab.workload.models import generate_builtin

#: Two requests on SMALL_SWF's 4 processors (fcfs+easy ends its last job at 170):
#: request 1 (4 x [500, 600), 400 node-seconds) fits; request 2 (1 x [550, 560))
#: collides with it.
REQUESTS = "id,created,start,duration,nodes\n1,0,500,100,4\n2,0,550,10,1\n"

PLAIN = {"workloads": [{"source": "lublin", "jobs": 300}], "seeds": [0, 1],
         "transforms": {"shrink": [0.8]},
         "policies": ["fcfs+easy", {"name": "fcfs+conservative"}]}
#: The run ids of PLAIN computed before reservations existed in sweeps.
PLAIN_RUN_IDS = ["ebfef3f052ff90cb", "b2b5c212b5e599ca", "7be556a4c13c5c53", "263aad7755b19422"]


def small(tmp_path: Path, reservations: dict) -> dict:
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    (tmp_path / "requests.csv").write_text(REQUESTS)
    return {"workloads": [str(tmp_path / "small.swf")], "policies": ["fcfs+easy"],
            "reservations": reservations}


def test_an_experiment_without_reservations_keeps_its_run_ids() -> None:
    runs = experiment_from_mapping(PLAIN).runs
    assert [run.run_id for run in runs] == PLAIN_RUN_IDS
    assert all("reservations" not in run.identity() for run in runs)


def test_baseline_and_a_throttle_grid_expand_to_distinct_settings() -> None:
    mapping = {**PLAIN, "seeds": [0], "policies": ["fcfs+easy"],
               "reservations": {"per_week": 15, "baseline": True, "tick": [0, 900],
                                "rules": {"throttle": [False, True], "cap": [100, 200]}}}
    runs = experiment_from_mapping(mapping).runs
    settings = [run.identity()["reservations"] for run in runs]
    # baseline, throttle off (the caps collapse), throttle with cap 100 and 200; x 2 ticks
    assert len(runs) == 8
    assert [(s["requests"] is None, (s["rules"] or {}).get("cap"), s["tick"])
            for s in settings] == [(True, None, 0), (True, None, 900),
                                   (False, None, 0), (False, None, 900),
                                   (False, 100, 0), (False, 100, 900),
                                   (False, 200, 0), (False, 200, 900)]
    assert settings[4]["rules"] == {"placement": "exact", "cap": 100, "window": WEEK,
                                    "min_duration": 0, "min_notice": 0}
    assert len({run.run_id for run in runs}) == 8


def test_machine_relative_caps_and_node_sizes_are_resolved_per_workload(tmp_path: Path) -> None:
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    mapping = {"workloads": [str(tmp_path / "small.swf"), {"source": "lublin", "jobs": 50}],
               "policies": ["fcfs+easy"],
               "reservations": {"per_week": 15, "node_size": {"small": 2},
                                "rules": {"throttle": True, "cap_hours": 12}}}
    small_run, model_run = experiment_from_mapping(mapping, base_dir=tmp_path).runs
    assert small_run.reservations.requests.option("node_size") == 2
    assert model_run.reservations.requests.option("node_size") is None
    assert dict(small_run.reservations.rules)["cap_hours"] == 12
    from schedlab.experiments.runner import prepared_workload, run_description
    workload = prepared_workload(small_run.workload, None, None, ())
    description = run_description(small_run, workload)
    assert description.policy["reservation_cap"] == 4 * 12 * 3600      # 4 processors x 12 h
    assert all(r.width % 2 == 0 for r in description.reservations)


def test_the_default_throttle_cap_is_the_papers() -> None:
    mapping = {**PLAIN, "seeds": [0], "policies": ["fcfs+easy"],
               "reservations": {"per_week": 15, "rules": {"throttle": True}}}
    (run,) = experiment_from_mapping(mapping).runs
    assert run.reservations.rules and dict(run.reservations.rules)["cap"] == PAPER_CAP


@pytest.mark.parametrize("reservations, field", [
    ({"per_week": 15, "rules": {"thrott": True}}, "reservations.rules.thrott"),
    ({"per_wek": 15}, "reservations.per_wek"),
    ({"per_week": 15, "compress": {"from_days": 365}}, "reservations.compress.into_days"),
    ({"per_week": 15, "compress": {"from_days": 365, "into": 30}}, "reservations.compress.into"),
    ({"per_week": 15, "nodes": [128, 8]}, "reservations.nodes"),
    ({"per_week": 15, "rules": {"placement": "late"}}, "reservations.rules.placement"),
    ({"per_week": 15, "tick": [900, -1]}, "reservations.tick[1]"),
    ({"file": "requests.csv", "seed": 3}, "reservations.seed"),
    ({"file": "missing.csv"}, "reservations.file"),
    ({"per_week": 15, "rules": {"cap": 1, "cap_hours": 1}}, "reservations.rules.cap_hours"),
    ({"per_week": 15, "node_size": {"small": 0}}, "reservations.node_size.small"),
    ({"tick": 900, "rules": {"throttle": True}}, "reservations.rules"),
])
def test_bad_reservation_tables_name_the_key_path(tmp_path: Path, reservations: dict,
                                                  field: str) -> None:
    with pytest.raises(InputError) as caught:
        experiment_from_mapping(small(tmp_path, reservations), base_dir=tmp_path,
                                file="exp.toml")
    assert caught.value.field == field
    assert caught.value.file == "exp.toml"


def test_a_request_file_is_granted_and_refused_as_worked_by_hand(tmp_path: Path) -> None:
    mapping = small(tmp_path, {"file": "requests.csv", "baseline": True,
                               "rules": {"throttle": [False, True], "cap": 400}})
    summary = run_sweep(experiment_from_mapping(mapping, base_dir=tmp_path), tmp_path / "out",
                        executor="serial")
    assert summary.complete and summary.finished == 3
    frame = load_results(tmp_path / "out").set_index("run_id")
    runs = experiment_from_mapping(mapping, base_dir=tmp_path).runs
    baseline, plain, throttled = (frame.loc[run.run_id] for run in runs)
    assert pd.isna(baseline["reservations_granted"])      # no requests in the baseline
    assert (plain["reservations_granted"], plain["reservations_rejected.busy"]) == (1, 1)
    # 400 + 10 node-seconds in one week break a cap of 400: refused before the busy check
    assert (throttled["reservations_granted"], throttled["reservations_rejected.over_cap"]) \
        == (1, 1)
    series = load_series(tmp_path / "out", runs[1].run_id)
    reserved = dict(zip(series["time"], series["reserved"]))
    assert (reserved[500], reserved[600]) == (4, 0)
    assert "reserved" not in load_series(tmp_path / "out", runs[0].run_id)


def test_a_year_of_generated_requests_is_compressed_into_the_span() -> None:
    workload = generate_builtin("lublin", n_jobs=200, processors=128, seed=0)
    first = workload.jobs[0].submit
    source = RequestSource("generate", options=(
        ("compress", {"from_days": 364, "into_days": 14}), ("node_size", 2),
        ("nodes", [8, 32]), ("per_week", 60 / 52), ("seed", 4)))
    requests = run_requests(source, workload, 128)
    assert len(requests) == 60          # 60 a year (Margo §5), round(60 / 52 x 52)
    assert all(first <= r.start < first + 14 * 86400 for r in requests)
    assert all(16 <= r.width <= 64 and r.width % 2 == 0 for r in requests)
    assert all(4 * 3600 <= r.duration <= 18 * 3600 for r in requests)
