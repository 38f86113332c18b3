"""Grid runs from the CLI and the Python API; bad input exits 2 naming the file and field;
the example policy of docs/reference/policies/grid.md keeps the rules (tests/test_docs_commands.py
runs the page's commands)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.api import simulate_grid
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.platform import read_platform
from schedlab.workload.grid import read_grid_workload, write_grid_workload

from .helpers import grid_workload

ROOT = Path(__file__).resolve().parents[2]
TWO_SITES = "examples/platforms/two-sites.toml"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def small_jobs(project) -> str:
    result = run("generate", "grid", "--platform", TWO_SITES, "--preset", "thesis-4.1", "-n",
                 "60", "--seed", "1", "-o", "small.swf")
    assert result.exit_code == 0, result.output
    return "small.swf"


def test_simulate_on_a_platform_writes_machines_clusters_and_the_platform(project):
    jobs = small_jobs(project)
    result = run("simulate", jobs, "--platform", TWO_SITES, "--policy", "bf-fcfs",
                 "--dispatch", "least-work", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "system_usage" in result.output and "bf-fcfs@least-work" in result.output
    per_cluster = result.output[result.output.index("per cluster"):]
    assert "pisa" in per_cluster and "venezia" in per_cluster
    assert "cluster_deadline_missed_pct" in per_cluster and "cluster_system_usage" in per_cluster
    lines = Path("out/jobs.csv").read_text().splitlines()
    assert lines[0].endswith(",machine,cluster,licences,priority,machine_runtime,"
                             "machine_estimate")
    clusters = {line.split(",")[-5] for line in lines[1:]}
    assert clusters <= {"pisa", "venezia"} and clusters
    document = json.loads(Path("out/metrics.json").read_text())
    assert document["meta"]["platform"] == {"name": "two-sites", "file": TWO_SITES}
    assert document["meta"]["allocation"] == "shared"
    assert document["params"]["dispatch"] == "least-work"
    assert 0 < document["metrics"]["system_usage"] <= 1
    # the grid model's metrics: per cluster, the machines', the policy's cost per event
    metrics = document["metrics"]
    assert metrics["platform_cpus"] == document["processors"]
    assert metrics["cluster_jobs.pisa"] + metrics["cluster_jobs.venezia"] == 60
    assert 0 < metrics["machine_usage"] <= 1 and metrics["mean_jobs_in_system"] > 0
    assert "scheduling_time_per_event_us" in metrics


def test_a_preset_platform_is_recorded_with_its_seed(project):
    assert run("platform", "generate", "--preset", "thesis-4.1", "--seed", "2",
               "-o", "P.toml").exit_code == 0
    assert run("generate", "grid", "--platform", "P.toml", "-n", "30", "--seed", "1",
               "-o", "jobs.swf").exit_code == 0
    result = run("simulate", "jobs.swf", "--platform", "thesis-4.1", "--seed", "2",
                 "--policy", "grid-fcfs", "--allocation", "exclusive", "--out", "out")
    assert result.exit_code == 0, result.output
    meta = json.loads(Path("out/metrics.json").read_text())["meta"]
    assert meta["platform"]["preset"] == "thesis-4.1" and meta["platform"]["seed"] == 2
    from_file = simulate_grid("jobs.swf", "grid-fcfs", platform="P.toml",
                              allocation="exclusive")
    lines = Path("out/jobs.csv").read_text().splitlines()
    assert [int(line.split(",")[2]) for line in lines[1:]] == from_file.start.tolist()


def test_a_job_wider_than_every_machine_exits_2_naming_the_swf_file(project):
    grid = grid_workload([(0, 10, 10, 32, (), 100)])
    write_grid_workload(grid, "wide.swf")
    result = run("simulate", "wide.swf", "--platform", TWO_SITES, "--policy", "bf-fcfs")
    assert result.exit_code == 2
    assert ("wide.swf: field requested processors: job 1 asks for 32 CPUs, more than any "
            "machine of platform 'two-sites' has (16)") in " ".join(result.output.split())


def test_a_licence_no_cluster_has_exits_2_naming_the_side_file_line(project):
    grid = grid_workload([(0, 10, 10, 1, (), 100), (0, 10, 10, 1, ("ansys",), 100)])
    write_grid_workload(grid, "lic.swf")
    result = run("simulate", "lic.swf", "--platform", TWO_SITES, "--policy", "bf-fcfs")
    assert result.exit_code == 2
    assert "lic.grid.csv:3: field licences: job 2 needs licence 'ansys'" in \
        " ".join(result.output.split())


@pytest.mark.parametrize("args, message", [
    (["--policy", "easy"], "policy 'easy' is not a grid policy"),
    (["--policy", "bf-fcfs", "--shrink", "0.5"],
     "a grid run takes no --shrink: it reads the workload and its side file as they are"),
    (["--dispatch", "nearest"], "unknown dispatcher 'nearest'"),
    (["--policy", "bf-fcfs", "--param", "reserve_by=soon"], "'reserve_by' parameter"),
    (["--allocation", "half"], "expected one of shared, exclusive"),
])
def test_bad_grid_options_exit_2(project, args, message):
    jobs = small_jobs(project)
    result = run("simulate", jobs, "--platform", TWO_SITES, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def test_a_grid_policy_without_a_platform_exits_2(project):
    result = run("simulate", "lublin", "-n", "10", "--policy", "bf-fcfs")
    assert result.exit_code == 2
    assert "it needs a platform" in result.output


def test_a_missing_side_file_or_platform_exits_2(project):
    from schedlab.workload.swf import write_swf

    write_swf(grid_workload([(0, 10, 10, 1, (), 100)]).workload, "plain.swf")
    result = run("simulate", "plain.swf", "--platform", TWO_SITES)
    assert result.exit_code == 2 and "no side file" in result.output
    result = run("simulate", "plain.swf", "--platform", "nowhere.toml")
    assert result.exit_code == 2 and "no such platform file" in result.output


def test_api_simulate_with_a_platform_is_the_grid_run(project):
    platform = read_platform(TWO_SITES)
    grid = read_grid_workload(small_jobs(project), platform=platform)
    via_simulate = schedlab.simulate(grid, "bf-fcfs", platform=platform, dispatch="random",
                                     seed=5)
    direct = simulate_grid(grid, "bf-fcfs", platform=platform, dispatch="random", seed=5)
    assert np.array_equal(via_simulate.start, direct.start)
    assert np.array_equal(via_simulate.grid.machine, direct.grid.machine)
    with pytest.raises(InputError, match="needs the grid attributes"):
        schedlab.simulate(grid.workload, "bf-fcfs", platform=platform)
    with pytest.raises(InputError, match="it needs a platform"):
        schedlab.simulate(grid.workload, "bf-fcfs")
    from schedlab.api import run
    from schedlab.policies.grid import BackfillingFCFS

    with pytest.raises(InputError, match="it needs a platform"):
        run(grid.workload, BackfillingFCFS())


def test_docs_python_examples_run_and_the_example_policy_keeps_the_rules(project):
    from schedlab.engine.grid import run_grid
    from schedlab.testing import check_grid_invariants

    text = (ROOT / "docs" / "reference" / "policies" / "grid.md").read_text()
    namespace: dict = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        exec(compile(block, "grid.md", "exec"), namespace)
    policy = namespace["ShortestFirst"]
    grid, platform = namespace["grid"], namespace["platform"]
    from schedlab.policies.grid import RoundRobin

    result = run_grid(grid, platform, [policy(), policy()], RoundRobin())
    check_grid_invariants(result, grid, platform)
