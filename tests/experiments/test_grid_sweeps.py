"""Grid experiments: platforms, dispatchers, allocation and preemption overhead as sweep axes.

The runs of a grid experiment are counted by hand from the file; each is the
run ``schedlab simulate --platform`` makes of the same jobs (the stored
metrics equal those of its metrics.json); the sweep resumes after an
interruption without recomputing; what cannot mix is refused with the key
that says so, before anything runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiments.helpers import comparable
from schedlab.cli.app import app
from schedlab.experiments import load_experiment, load_jobs, load_results, run_sweep
from schedlab.experiments.spec import run_id_of

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

#: 2 Ta x 2 platforms x 2 dispatchers x (bf-fcfs, cs without and with preemption) x 2 seeds.
GENERATED = """\
name = "grid-generated"
seeds = [0, 1]
platforms = ["two-sites.toml",
             { source = "thesis-4.3", label = "mini", settings = { clusters = [2, 1] } }]
dispatchers = ["round-robin", { name = "least-work" }]
[[workloads]]
source = "grid"
jobs = 15
ta = [50, 200]
[[policies]]
name = "bf-fcfs"
[[policies]]
name = "cs"
grid = { preemption = [false, true] }
"""
GENERATED_RUNS = 2 * 2 * 2 * 3 * 2

#: A grid SWF file on a platform file: round-robin draws nothing (one run, no seed),
#: the random dispatcher one run per seed.
FILE_ON_FILE = """\
seeds = [0, 1, 2]
platforms = "two-sites.toml"
dispatchers = ["round-robin", "random"]
workloads = ["jobs.swf"]
policies = ["bf-fcfs"]
"""


def invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The platform file, a grid SWF file drawn for it, and the experiments."""
    base = tmp_path_factory.mktemp("grid")
    shutil.copy(ROOT / "examples" / "platforms" / "two-sites.toml", base / "two-sites.toml")
    made = invoke("generate", "grid", "--platform", str(base / "two-sites.toml"), "--ta", "100",
                  "--seed", "3", "-n", "15", "-o", str(base / "jobs.swf"))
    assert made.exit_code == 0, made.output
    (base / "generated.toml").write_text(GENERATED)
    (base / "file.toml").write_text(FILE_ON_FILE)
    return base


@pytest.fixture(scope="module")
def generated(workdir: Path) -> Path:
    """The generated experiment, swept once in this process."""
    summary = run_sweep(workdir / "generated.toml", workdir / "out-generated", executor="serial")
    assert (summary.total, summary.finished, summary.failed) == (GENERATED_RUNS,
                                                                 GENERATED_RUNS, 0)
    return workdir / "out-generated"


def test_the_runs_are_the_product_of_the_grid_axes(workdir: Path) -> None:
    runs = load_experiment(workdir / "generated.toml").runs
    assert len(runs) == GENERATED_RUNS == len({run.run_id for run in runs})
    first = runs[0]
    assert first.to_dict()["grid"] == {
        "platform": {"file": "two-sites.toml", "label": "two-sites",
                     "sha256": first.grid.platform.digest,
                     "path": str((workdir / "two-sites.toml").resolve())},
        "dispatch": "round-robin", "dispatch_params": {}, "allocation": "shared",
        "preemption_overhead": 0}
    assert dict(first.workload.options) == {"jobs": 15, "preset": "thesis-4.3", "ta": 50.0}
    assert {(run.workload.option("ta"), run.grid.platform.label, run.grid.dispatch, run.policy,
             dict(run.params).get("preemption"), run.seed) for run in runs} == {
        (ta, platform, dispatch, policy, preemption, seed)
        for ta in (50.0, 200.0) for platform in ("two-sites", "mini")
        for dispatch in ("round-robin", "least-work")
        for policy, preemption in (("bf-fcfs", None), ("cs", False), ("cs", True))
        for seed in (0, 1)}


def test_a_grid_file_has_a_seed_only_where_something_is_drawn(workdir: Path) -> None:
    runs = load_experiment(workdir / "file.toml").runs
    assert [(run.grid.dispatch, run.seed) for run in runs] == [
        ("round-robin", None), ("random", 0), ("random", 1), ("random", 2)]
    assert runs[0].workload.kind == "grid-file"
    assert dict(runs[0].workload.options)["side_sha256"]   # the side file is part of the id


def test_run_ids_are_stable_and_pinned(workdir: Path) -> None:
    """The same file gives the same ids twice, and these ids (a change is a new store)."""
    first = [run.run_id for run in load_experiment(workdir / "generated.toml").runs]
    again = [run.run_id for run in load_experiment(workdir / "generated.toml").runs]
    assert first == again
    # On the preset, drawn with the run's seed, the identity holds no file digest.
    mini = next(run for run in load_experiment(workdir / "generated.toml").runs
            if run.grid.platform.label == "mini")
    identity = {
        "workload": {"kind": "grid-model", "name": "grid", "label": "grid",
                     "options": {"jobs": 15, "preset": "thesis-4.3", "ta": 50.0}},
        "transforms": {}, "policy": "bf-fcfs", "params": {}, "seed": 0, "processors": None,
        "overrun": "kill",
        "grid": {"platform": {"preset": "thesis-4.3", "label": "mini",
                              "settings": {"clusters": [2, 1]}},
                 "dispatch": "round-robin", "dispatch_params": {}, "allocation": "shared",
                 "preemption_overhead": 0}}
    assert mini.identity() == identity
    assert mini.run_id == run_id_of(identity) == "ee7388890737bf72"


def assert_stored_as_simulated(stored, expected: dict) -> None:
    """The stored row has simulate's metrics; one over no jobs (None in metrics.json,
    docs/reference/metrics.md "Empty groups") is missing (NaN) in the results too.  The
    policy's wall-clock time per event differs from run to run (docs/reference/metrics.md,
    "Grid runs"): both have it, and it is not compared."""
    wall_clock = "scheduling_time_per_event_us"
    assert stored[wall_clock] > 0 and expected.pop(wall_clock) > 0
    missing = {name for name, value in expected.items() if value is None}
    assert all(pd.isna(stored[name]) for name in missing)
    assert {name: stored[name] for name in expected if name not in missing} == pytest.approx(
        {name: value for name, value in expected.items() if name not in missing}, rel=1e-12)


def test_the_stored_metrics_are_those_of_simulate_on_the_platform(
        workdir: Path, generated: Path, tmp_path: Path) -> None:
    """Generated jobs (ta 200, seed 1) on the platform file with least-work and cs with
    preemption: `generate grid` + `simulate --platform` give the same metrics and jobs."""
    jobs = tmp_path / "jobs-ta200.swf"
    assert invoke("generate", "grid", "--platform", str(workdir / "two-sites.toml"), "--ta",
                  "200", "--seed", "1", "-n", "15", "-o", str(jobs)).exit_code == 0
    simulated = invoke("simulate", str(jobs), "--platform", str(workdir / "two-sites.toml"),
                       "--policy", "cs", "--param", "preemption=true", "--dispatch",
                       "least-work", "--seed", "1", "--out", str(tmp_path / "run"))
    assert simulated.exit_code == 0, simulated.output
    expected = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]
    results = load_results(generated)
    row = results[(results.platform == "two-sites") & (results.ta == 200) & (results.seed == 1)
                  & (results.dispatch == "least-work") & (results.policy == "cs")
                  & (results["param.preemption"] == True)]          # noqa: E712
    assert len(row) == 1
    stored = row.iloc[0]
    assert_stored_as_simulated(stored, expected)
    assert stored["deadline_missed_pct"] == expected["deadline_missed_pct"]
    # The per-cluster metrics (docs/reference/metrics.md) are columns too.
    assert stored["cluster_jobs.pisa"] + stored["cluster_jobs.venezia"] == expected["jobs"]
    csv = pd.read_csv(tmp_path / "run" / "jobs.csv")
    table = load_jobs(generated, stored["run_id"])
    assert table["start"].tolist() == csv["start"].tolist()
    assert table["end"].tolist() == csv["end"].tolist()


def test_a_grid_file_on_a_preset_with_every_grid_option_is_simulate_on_it(
        tmp_path: Path) -> None:
    """A grid SWF file on the thesis-4.3 preset drawn with seed 1, exclusive allocation, a
    preemption overhead: the same metrics as `simulate --platform thesis-4.3 --seed 1`."""
    assert invoke("platform", "generate", "--preset", "thesis-4.3", "--seed", "1", "-o",
                  str(tmp_path / "p.toml")).exit_code == 0
    assert invoke("generate", "grid", "--platform", str(tmp_path / "p.toml"), "--ta", "20",
                  "--seed", "1", "-n", "30", "-o", str(tmp_path / "j.swf")).exit_code == 0
    (tmp_path / "exp.toml").write_text(
        'seeds = 1\nplatforms = "thesis-4.3"\ndispatchers = "least-work"\n'
        'allocation = "exclusive"\npreemption_overhead = 30\nworkloads = ["j.swf"]\n'
        '[[policies]]\nname = "cs"\nparams = { preemption = true }\n')
    assert run_sweep(tmp_path / "exp.toml", tmp_path / "out", executor="serial").finished == 1
    simulated = invoke("simulate", str(tmp_path / "j.swf"), "--platform", "thesis-4.3",
                       "--seed", "1", "--policy", "cs", "--param", "preemption=true",
                       "--dispatch", "least-work", "--allocation", "exclusive",
                       "--preemption-overhead", "30", "--out", str(tmp_path / "run"))
    assert simulated.exit_code == 0, simulated.output
    expected = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]
    stored = load_results(tmp_path / "out").iloc[0]
    assert (stored.platform, stored.allocation, stored.preemption_overhead) == (
        "thesis-4.3", "exclusive", 30)
    assert_stored_as_simulated(stored, expected)


class StopAfter:
    """A sweep observer that interrupts the sweep after ``n`` stored runs (as Ctrl-C does)."""

    def __init__(self, n: int) -> None:
        self.n, self.seen = n, 0

    def started(self, pending: int, done_before: int) -> None:
        pass

    def recorded(self, record) -> None:
        self.seen += 1
        if self.seen == self.n:
            raise KeyboardInterrupt


def test_an_interrupted_grid_sweep_resumes_without_rerunning(
        workdir: Path, generated: Path, tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        run_sweep(workdir / "generated.toml", tmp_path / "out", executor="serial",
                  observer=StopAfter(5))
    before = load_results(tmp_path / "out").set_index("run_id")["finished_at"]
    assert len(before) == 5
    summary = run_sweep(workdir / "generated.toml", tmp_path / "out", executor="serial")
    assert (summary.already_finished, summary.finished, summary.failed) == (
        5, GENERATED_RUNS - 5, 0)
    after = load_results(tmp_path / "out")
    assert after.set_index("run_id").loc[before.index, "finished_at"].equals(before)  # not again
    assert comparable(after).equals(comparable(load_results(generated)))


@pytest.fixture(scope="module")
def file_runs(workdir: Path) -> Path:
    """The grid-file experiment (4 runs), swept once in this process."""
    assert run_sweep(workdir / "file.toml", workdir / "out-file", executor="serial").finished == 4
    return workdir / "out-file"


@pytest.mark.parametrize("executor", ["pool", "dask"])
def test_a_pool_and_a_local_dask_cluster_give_the_serial_grid_results(
        workdir: Path, file_runs: Path, tmp_path: Path, executor: str) -> None:
    summary = run_sweep(workdir / "file.toml", tmp_path / executor, executor=executor, jobs=2)
    assert (summary.finished, summary.failed) == (4, 0)
    serial = load_results(file_runs)
    assert comparable(load_results(tmp_path / executor)).equals(comparable(serial))
    for run_id in serial["run_id"]:
        assert load_jobs(tmp_path / executor, run_id).equals(load_jobs(file_runs, run_id))


def test_results_report_and_curve_take_the_grid_columns(generated: Path, tmp_path: Path
                                                       ) -> None:
    shown = invoke("results", str(generated), "--metric", "deadline_missed_pct")
    assert shown.exit_code == 0, shown.output
    header = next(line for line in shown.stdout.splitlines() if line.startswith("ta "))
    assert header.split() == ["ta", "policy", "platform", "dispatch", "n",
                              "deadline_missed_pct"]
    assert "every row: workload=grid" in shown.stdout
    plotted = invoke("plot", str(generated), "--kind", "curve", "--x", "ta", "--metric",
                     "deadline_missed_pct", "--out", str(tmp_path / "curve.svg"))
    assert plotted.exit_code == 0, plotted.output
    svg = (tmp_path / "curve.svg").read_text()
    assert "dispatch=least-work" in svg and "platform=mini" in svg   # lines never averaged
    reported = invoke("report", str(generated), "--out", str(tmp_path / "report.html"))
    assert reported.exit_code == 0, reported.output
    page = (tmp_path / "report.html").read_text()
    assert "jobs missing their deadline [%] against mean interarrival time Ta [s]" in page
    assert "each job is drawn on the machine it ran on" in page   # a row per machine


def test_a_grid_run_keeps_its_machines_and_its_gantt_chart_has_a_row_per_machine(
        generated: Path, tmp_path: Path) -> None:
    results = load_results(generated)
    run = results[(results.platform == "two-sites") & (results.policy == "cs")
                  & (results["param.preemption"] == True)].iloc[0]      # noqa: E712
    jobs = load_jobs(generated, run.run_id)
    assert list(jobs.columns[-10:]) == ["deadline", "machine", "cluster", "licences",
                                        "priority", "machine_runtime", "machine_estimate",
                                        "last_start", "preemptions", "migrations"]
    assert set(jobs["cluster"].dropna()) <= {"pisa", "venezia"}
    assert set(jobs["machine"].dropna()) <= {"pisa-1", "pisa-2", "pisa-3", "venezia-1",
                                             "venezia-2"}
    assert run["platform_cpus"] == 8 + 4 + 4 + 16 + 2    # two-sites.toml
    drawn = invoke("plot", str(generated), "--kind", "gantt", "--run", run.run_id, "--out",
                   str(tmp_path / "gantt.svg"))
    assert drawn.exit_code == 0, drawn.output
    assert "pisa-1" in (tmp_path / "gantt.svg").read_text()


GRID_HEAD = 'platforms = ["two-sites.toml"]\nworkloads = [{ source = "grid", jobs = 5 }]\n'
ERRORS = [
    ('platforms = "two-sites.toml"\nworkloads = ["jobs.swf"]\npolicies = ["fcfs+easy"]\n',
     "field policies[0].name: policy 'fcfs+easy' is not a grid policy: a run on a platform "
     "needs one of grid-fcfs, bf-fcfs,"),
    ('workloads = ["jobs.swf"]\npolicies = ["bf-fcfs"]\n',
     "field policies[0].name: policy 'bf-fcfs' is a grid policy: it needs a platform; give "
     "the experiment a 'platforms' key"),
    (GRID_HEAD + 'policies = ["bf-fcfs"]\n[transforms]\nshrink = [0.8]\n',
     "field transforms: a grid experiment (with 'platforms') takes no 'transforms': it "
     "reads the workload and its side file as they are"),
    (GRID_HEAD + 'processors = 64\npolicies = ["bf-fcfs"]\n',
     "field processors: a grid experiment (with 'platforms') takes no 'processors': it "
     "reads the workload and its side file as they are, and the platform gives the machines"),
    (GRID_HEAD + 'policies = ["bf-fcfs"]\n[reservations]\ntick = 900\n',
     "field reservations: a grid experiment (with 'platforms') takes no 'reservations'"),
    ('dispatchers = ["least-work"]\nworkloads = ["jobs.swf"]\npolicies = ["fcfs"]\n',
     "field dispatchers: applies to grid experiments only; give the platforms the runs use "
     "in a 'platforms' key"),
    ('workloads = [{ source = "grid" }]\npolicies = ["fcfs"]\n',
     "field workloads[0].source: 'grid' generates grid jobs, which run on a platform; give "
     "the experiment a 'platforms' key"),
    ('platforms = "two-sites.toml"\nworkloads = ["lublin"]\npolicies = ["bf-fcfs"]\n',
     "field workloads[0].source: 'lublin' is a model of jobs for one homogeneous machine; a "
     "grid experiment needs 'grid' (generated grid jobs) or an SWF file with its .grid.csv "
     "side file"),
    ('platforms = "two-sites.toml"\nworkloads = ["plain.swf"]\npolicies = ["bf-fcfs"]\n',
     "field workloads[0].source: a grid workload needs the grid attributes of its jobs: no "
     "side file"),
    ('platforms = "two-sites.toml"\nworkloads = [{ source = "jobs.swf", jobs = 10 }]\n'
     'policies = ["bf-fcfs"]\n',
     "field workloads[0].jobs: applies to generated grid workloads (source = \"grid\"): a grid "
     "SWF file is read with its side file as it is"),
    ('platforms = "thesis-9"\nworkloads = ["jobs.swf"]\npolicies = ["bf-fcfs"]\n',
     "field platforms.source: expected a platform TOML file or a preset (thesis-4.1, "),
    ('platforms = [{ source = "thesis-4.3", settings = { machines = 3 } }]\n'
     'workloads = ["jobs.swf"]\npolicies = ["bf-fcfs"]\n',
     "field platforms[0].settings.machines: unknown key 'machines'; expected one of: "
     "clusters, cpus,"),
    ('platforms = [{ source = "thesis-4.3", settings = { ratio = [0.7, 0.2] } }]\n'
     'workloads = ["jobs.swf"]\npolicies = ["bf-fcfs"]\n',
     "field platforms[0].settings.ratio: "),
    ('platforms = "two-sites.toml"\nworkloads = [{ source = "grid", ta = [10, -1] }]\n'
     'policies = ["bf-fcfs"]\n',
     "field workloads[0].ta[1]: expected a mean interarrival time in seconds, a finite "
     "number >= 0, got integer -1"),
    (GRID_HEAD + 'dispatchers = [{ name = "least-work", params = { speed = 2 } }]\n'
     'policies = ["bf-fcfs"]\n',
     "field dispatchers[0].params.speed: dispatcher 'least-work' has no parameter 'speed'"),
    (GRID_HEAD + 'dispatchers = ["fastest"]\npolicies = ["bf-fcfs"]\n',
     "field dispatchers[0].name: unknown dispatcher 'fastest' (known: round-robin, "),
    (GRID_HEAD + 'policies = [{ name = "cs", grid = { preemption = [false, "x"] } }]\n',
     "field policies[0].grid.preemption[1]: The 'preemption' parameter of cs must be true or "
     "false."),
    (GRID_HEAD + 'allocation = "private"\npolicies = ["bf-fcfs"]\n',
     "field allocation: expected one of 'shared', 'exclusive', got string 'private'"),
    (GRID_HEAD + 'preemption_overhead = [0, -5]\npolicies = ["bf-fcfs"]\n',
     "field preemption_overhead[1]: expected an integer >= 0, got -5"),
]


@pytest.mark.parametrize("text, message", ERRORS)
def test_what_cannot_mix_exits_with_2_naming_the_key(workdir: Path, tmp_path: Path, text: str,
                                                     message: str) -> None:
    for name in ("two-sites.toml", "jobs.swf", "jobs.grid.csv"):
        shutil.copy(workdir / name, tmp_path / name)
    shutil.copy(workdir / "jobs.swf", tmp_path / "plain.swf")
    (tmp_path / "bad.toml").write_text(text)
    result = invoke("sweep", str(tmp_path / "bad.toml"), "--out", str(tmp_path / "out"),
                    "--workers", "1")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"schedlab: error: {tmp_path / 'bad.toml'}: {message}"), \
        result.stderr
    assert not (tmp_path / "out").exists()


def test_results_of_a_grid_experiment_show_the_grid_measures_by_default(generated: Path
                                                                        ) -> None:
    """The classic defaults (avg_wait, bounded slowdown, ...) say little of a grid run;
    Ta is shown as the whole number it was given (200, not 200.0)."""
    shown = invoke("results", str(generated))
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    header = next(line for line in lines if line.startswith("ta "))
    assert header.split()[-4:] == ["deadline_missed_pct", "nondeadline_avg_slowdown",
                                   "system_usage", "licence_usage"]
    assert any(line.startswith("200 ") for line in lines)
    assert "200.0" not in shown.stdout
