"""Gang scheduling through every door: Python API, CLI, sweeps, metrics, bad input."""

from __future__ import annotations

import ast
import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.api import run
from schedlab.cli.app import app
from schedlab.engine.timesharing import run_timesharing
from schedlab.errors import InputError
from schedlab.metrics import compute_metrics
from schedlab.metrics.gang import GANG_METRIC_DOCS, gang_metrics, service_table
from schedlab.policies.gang import GangScheduler
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload

DOCS = Path(__file__).resolve().parents[2] / "docs"
ENGINE = Path(schedlab.__file__).parent / "engine"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def small() -> Workload:
    return Workload((Job(1, 0, 25, 25, 2), Job(2, 0, 15, 15, 2)), 2, name="small")


def test_api_simulate_dispatches_gang_to_the_time_sharing_engine():
    workload = schedlab.load_workload("lublin", jobs=300)
    result = schedlab.simulate(workload, {"name": "gang", "strategy": 2, "slot": 100})
    assert result.timesharing is not None and result.meta["engine"] == "time-sharing"
    again = run_timesharing(workload, GangScheduler(strategy=2, slot=100))
    assert np.array_equal(result.start, again.start) and np.array_equal(result.end, again.end)
    check_invariants(result, workload)
    space = schedlab.simulate(workload, "fcfs+easy")
    assert space.timesharing is None


def test_compare_runs_gang_beside_backfilling():
    results = schedlab.compare("lublin", ["gang", "fcfs+easy"])
    assert set(results) == {"gang", "fcfs+easy"}
    assert results["gang"].timesharing is not None


def test_gang_refuses_space_sharing_only_options():
    with pytest.raises(InputError, match="tick"):
        run(small(), GangScheduler(), tick=900)


def test_the_space_sharing_engine_refuses_a_gang_policy_clearly():
    from schedlab.engine.simulator import run as space_run
    with pytest.raises(schedlab.PolicyError, match="time-sharing engine"):
        space_run(small(), GangScheduler())


def test_metrics_of_a_hand_checked_run():
    # A 0-40, B 10-35 (test_schedules): two slots from 0 to 35, then one to 40.
    result = run(small(), GangScheduler(slot=10))
    metrics = compute_metrics(result)
    assert metrics["gang_slowdown"] == pytest.approx((40 / 25 + 35 / 15) / 2)
    assert metrics["gang_slowdown_short"] == metrics["gang_slowdown"]   # both < 150 s
    assert metrics["gang_jobs_short"] == 2 and metrics["gang_jobs_long"] == 0
    assert metrics["gang_slots_mean"] == pytest.approx((2 * 35 + 1 * 5) / 40)
    assert metrics["gang_slots_pct_2"] == pytest.approx(100 * 35 / 40)
    assert metrics["gang_slots_pct_1"] == pytest.approx(100 * 5 / 40)
    assert metrics["gang_idle_pct"] == 0.0
    assert metrics["gang_service_fraction"] == pytest.approx((25 / 40 + 15 / 25) / 2)
    # the existing metrics read the service as the run time
    assert metrics["avg_slowdown"] == pytest.approx(metrics["gang_slowdown"])
    assert metrics["utilization"] == pytest.approx((2 * 25 + 2 * 15) / (2 * 40))
    table = service_table(result)
    assert table["service"].tolist() == [25, 15] and table["wall"].tolist() == [40, 25]


def test_idle_time_is_reported_apart_from_the_slots_average():
    workload = Workload((Job(1, 0, 10, 10, 1), Job(2, 30, 10, 10, 1)), 1)
    metrics = gang_metrics(run(workload, GangScheduler(slot=5)))
    assert metrics["gang_slots_mean"] == 1.0
    assert metrics["gang_idle_pct"] == pytest.approx(100 * 20 / 40)


def test_every_gang_metric_is_documented():
    text = (DOCS / "reference" / "metrics.md").read_text(encoding="utf-8")
    for name in GANG_METRIC_DOCS:
        assert f"`{name}`" in text, name


def test_cli_simulate_writes_the_usual_files(tmp_path):
    out = tmp_path / "out"
    result = invoke("simulate", "w3", "--jobs", "300", "--policy",
                    "gang", "--param", "strategy=3", "--param", "slot=200", "--out", str(out))
    assert result.exit_code == 0, result.output
    with open(out / "jobs.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 300 and all(int(r["start"]) >= int(r["submit"]) for r in rows)
    assert all(int(r["service"]) == min(int(r["runtime"]), int(r["estimate"])) for r in rows)
    assert any(int(r["end"]) - int(r["start"]) > int(r["service"]) for r in rows)
    document = json.loads((out / "metrics.json").read_text())
    assert document["params"]["strategy"] == 3 and document["params"]["slot"] == 200
    assert document["metrics"]["gang_jobs_short"] > 0
    assert document["policy_stats"]["express_slots"] > 0
    # the summary names every file written, the gang run's tables included
    assert f"wrote {out / 'jobs.csv'}, {out / 'metrics.json'}, {out / 'matrix.csv'}, " \
        f"{out / 'slots.csv'} and {out / 'series.csv'}" in " ".join(result.output.split())


def test_cli_compare_and_policies_list_gang(tmp_path):
    result = invoke("compare", "lublin", "--jobs", "200", "--policies", "gang,fcfs+easy",
                    "--out", str(tmp_path / "cmp"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "cmp" / "gang" / "metrics.json").exists()
    listing = invoke("policies")
    assert "gang" in listing.output and "strategy=1" in listing.output


@pytest.mark.parametrize("param,fragment", [
    ("slot=0", "slot"), ("slot=-5", "slot"), ("slots=0", "slots"), ("strategy=4", "strategy"),
    ("strategy=fast", "strategy"), ("context_switch=-1", "context_switch"),
    ("packing=buddy", "packing"), ("classify_by=size", "classify_by"),
])
def test_bad_parameters_exit_2_naming_the_parameter(param, fragment):
    result = invoke("simulate", "lublin", "--jobs", "20", "--policy", "gang", "--param", param)
    assert result.exit_code == 2, result.output
    assert f"field --param {fragment}:" in result.stderr and "Traceback" not in result.output


def test_a_job_wider_than_the_machine_is_an_input_error():
    workload = Workload((Job(1, 0, 10, 10, 4),), 4)
    with pytest.raises(InputError, match="wider than the 2-processor machine") as error:
        run(workload, GangScheduler(), processors=2)
    assert error.value.field == "processors"


def test_a_sweep_runs_gang_settings_by_name(tmp_path):
    spec = tmp_path / "gang.toml"
    spec.write_text('name = "gang"\n[[workloads]]\nsource = "lublin"\njobs = 150\n'
                    '[[policies]]\nname = "gang"\ngrid = { strategy = [1, 3], slot = [1, 50] }\n'
                    '[[policies]]\nname = "fcfs+easy"\n')
    result = invoke("sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "5 finished" in result.output


def test_the_engine_imports_nothing_above_it():
    for path in ENGINE.glob("timesharing.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = [node.module for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.module]
        modules += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names]
        assert not [m for m in modules if m.startswith("schedlab.")
                    and not m.startswith(("schedlab.engine", "schedlab.errors", "schedlab.workload"))
                    and m != "schedlab"], path


def test_a_policy_placing_a_job_twice_or_one_not_waiting_is_stopped():
    from schedlab.engine.timesharing import Matrix

    class Careless(GangScheduler):
        def arrange(self, matrix: Matrix, waiting, now):
            super().arrange(matrix, waiting, now)
            if now == 0:
                ghost = Job(99, 0, 5, 5, 1)
                matrix.place(ghost, len(matrix), 1)

    with pytest.raises(schedlab.PolicyError, match=r"job 99 .* not waiting"):
        run(Workload((Job(1, 0, 5, 5, 1),), 2), Careless(slot=1))
    matrix = Matrix(2)
    matrix.place(Job(1, 0, 5, 5, 1), 0, 1)
    with pytest.raises(schedlab.PolicyError, match="already in the matrix"):
        matrix.place(Job(1, 0, 5, 5, 1), 0, 2)
    with pytest.raises(schedlab.PolicyError, match="taken in row 0"):
        matrix.place(Job(2, 0, 5, 5, 1), 0, 1)
    with pytest.raises(schedlab.PolicyError, match="needs 2 of the 2 processors"):
        matrix.place(Job(3, 0, 5, 5, 2), 1, 1)
