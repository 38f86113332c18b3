"""Sweeps with failures and maintenance windows: the keys, run identity and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.helpers import SMALL_SWF
from schedlab.errors import InputError
from schedlab.experiments import experiment_from_mapping, load_results, run_sweep

PLAIN = {"workloads": [{"source": "lublin", "jobs": 300}], "seeds": [0, 1],
         "transforms": {"shrink": [0.8]},
         "policies": ["fcfs+easy", {"name": "fcfs+conservative"}]}
#: The run ids of PLAIN computed before failures existed in sweeps.
PLAIN_RUN_IDS = ["ebfef3f052ff90cb", "b2b5c212b5e599ca", "7be556a4c13c5c53", "263aad7755b19422"]
FAILURES = "time,nodes,duration\n15,0,30\n"
WINDOWS = "notice,start,end,nodes\n0,100,200,2\n"


def small(tmp_path: Path, **keys) -> dict:
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    (tmp_path / "failures.csv").write_text(FAILURES)
    (tmp_path / "maintenance.csv").write_text(WINDOWS)
    return {"workloads": [str(tmp_path / "small.swf")], "policies": ["fcfs+easy"], **keys}


def test_an_experiment_without_failures_keeps_its_run_ids() -> None:
    runs = experiment_from_mapping(PLAIN).runs
    assert [run.run_id for run in runs] == PLAIN_RUN_IDS
    assert all("outages" not in run.identity() for run in runs)


def test_failures_and_maintenance_make_an_axis(tmp_path: Path) -> None:
    mapping = small(tmp_path, seeds=[0, 1],
                    failures=["none", "failures.csv,fate=requeue", "mtbf=1d,fate=kill"],
                    maintenance=["none", "maintenance.csv"])
    runs = experiment_from_mapping(mapping, base_dir=tmp_path).runs
    settings = [(run.outages.failures, run.outages.maintenance is not None, run.seed)
                for run in runs]
    # a trace runs once, except where drawn failures take the seeds
    assert settings == [(None, False, None), (None, True, None),
                        ("failures.csv,fate=requeue", False, None),
                        ("failures.csv,fate=requeue", True, None),
                        ("mtbf=1d,fate=kill", False, 0), ("mtbf=1d,fate=kill", False, 1),
                        ("mtbf=1d,fate=kill", True, 0), ("mtbf=1d,fate=kill", True, 1)]
    assert len({run.run_id for run in runs}) == 8
    identity = runs[3].identity()["outages"]
    assert identity["maintenance"]["file"] == "maintenance.csv"
    assert len(identity["failure_sha256"]) == 64


def test_a_changed_failure_file_changes_the_run_id(tmp_path: Path) -> None:
    mapping = small(tmp_path, failures="failures.csv")
    first = experiment_from_mapping(mapping, base_dir=tmp_path).runs[0].run_id
    (tmp_path / "failures.csv").write_text("time,nodes,duration\n16,0,30\n")
    assert experiment_from_mapping(mapping, base_dir=tmp_path).runs[0].run_id != first


def test_the_runs_replay_the_outages_and_results_show_them(tmp_path: Path) -> None:
    mapping = small(tmp_path, failures=["none", "failures.csv,fate=kill"],
                    maintenance="maintenance.csv")
    run_sweep(experiment_from_mapping(mapping, base_dir=tmp_path), tmp_path / "out",
              executor="serial")
    frame = load_results(tmp_path / "out").set_index("outages.failures")
    assert list(frame["status"]) == ["finished", "finished"]
    assert list(frame["outages.maintenance"]) == ["maintenance.csv"] * 2
    assert frame.loc["failures.csv,fate=kill", "failures"] == 1
    assert frame.loc["none", "maintenance_windows"] == 1


@pytest.mark.parametrize(("keys", "message"), [
    ({"failures": "mtbf=0"}, "field failures mtbf: expected a duration > 0"),
    ({"failures": ["none", "mtbf=1d,fate=boom"]},
     r"field failures\[1\] fate: expected one of kill, requeue, checkpoint"),
    ({"failures": "missing.csv"}, "no such failure file"),
    ({"maintenance": "missing.csv"}, "no such maintenance file"),
    ({"failures": 3}, "field failures: expected a string"),
])
def test_bad_keys_name_their_path(tmp_path: Path, keys, message) -> None:
    with pytest.raises(InputError, match=message):
        experiment_from_mapping(small(tmp_path, **keys), base_dir=tmp_path)
