"""The ``schedlab`` command line: outputs, agreement with the Python API, exit codes.

Most tests drive the typer application in-process with ``CliRunner`` (fast);
a few run the installed ``schedlab`` executable to see the true exit code and
the bytes that reach a pipe.

The hand-written trace ``SMALL_SWF`` (4 processors; file lines 3-6):

    job 1  submit  0  width 2  estimate 200  runtime 100
    job 2  submit 10  width 4  estimate 100  runtime  50
    job 3  submit 20  width 1  estimate 100  runtime 300  (killed at its estimate)
    job 4  submit 30  width 1  estimate  40  runtime  20

Schedules worked out by hand (Streit 2002, §2 for FCFS/EASY):

* fcfs+easy — job 1 runs 0-100.  Job 2 (4 wide) must wait; its reservation
  is at job 1's *estimated* end, 200.  Jobs 3 (ends by 120) and 4 (ends by
  70) finish before 200, so they backfill at once.  Job 1 really ends at 100
  but job 3 still holds one processor; job 3 is killed at 120 and job 2 runs
  120-170.  Waits 0, 110, 0, 0 (mean 27.5); makespan 170; busy area
  2*100 + 4*50 + 1*100 + 1*20 = 520, utilization 520 / (4*170) = 0.765.
* fcfs — no backfilling: job 2 runs 100-150, then jobs 3 and 4 start at
  150 (job 3 killed at 250, job 4 ends at 170).  Waits 0, 90, 130, 120
  (mean 85); makespan 250; utilization 520 / 1000 = 0.520.
* sjf+easy and fcfs+conservative give the fcfs+easy schedule here.
* fcfs+easy on 8 processors: every job starts at its submit time.
* fcfs+easy with perfect estimates: job 2's reservation moves to 100 (job 1's
  estimate is now its runtime); job 3 (300 s) no longer fits before it,
  job 4 (20 s) does: starts 0, 100, 150, 30 and nobody is killed.
* fcfs+easy with shrinking factor 0.5: submits 0, 5, 10, 15; job 3 is
  killed at 110, so job 2 starts at 110: starts 0, 110, 10, 15.
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import os
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

import schedlab
import schedlab.cli.simulate as cli_simulate
from real_traces import trace_path
from schedlab.cli.analyze import format_value
from schedlab.cli.app import app
from schedlab.cli.progress import DelayedProgress
from schedlab.policies import registry
from schedlab.policies.backfilling import EasyBackfilling
from schedlab.policies.base import Policy
from schedlab.policies.deadline import QoPS
from schedlab.workload.stats import trace_statistics
from schedlab.workload.swf import read_swf

KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")
SCHEDLAB_EXE = Path(sys.executable).with_name("schedlab")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CONTRACT_COLUMNS = ["job_id", "submit", "start", "end", "width", "estimate", "runtime", "status"]
BUILTIN_POLICIES = {"fcfs", "fcfs+easy", "fcfs+conservative", "sjf", "sjf+easy",
                    "sjf+conservative", "ljf", "ljf+easy", "ljf+conservative"}

SMALL_SWF = """\
; Version: 2.2
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 -1 300 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
4 30 -1 20 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1
"""

#: jobs.csv of fcfs+easy on SMALL_SWF, contract columns and wait (see the module docstring).
EASY_ROWS = [
    ["1", "0", "0", "100", "2", "200", "100", "finished", "0"],
    ["2", "10", "120", "170", "4", "100", "50", "finished", "110"],
    ["3", "20", "20", "120", "1", "100", "300", "killed", "0"],
    ["4", "30", "30", "50", "1", "40", "20", "finished", "0"],
]


# --------------------------------------------------------------------------- helpers


def record(job: int, submit: int, runtime: str = "100") -> str:
    """One 18-field SWF record: width 2, estimate 200."""
    return f"{job} {submit} -1 {runtime} 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1"


def invoke(*args: str, env: dict[str, str] | None = None):
    """Run the schedlab application in-process; stdout and stderr are kept apart."""
    return CliRunner().invoke(app, list(args), env=env)


def run_exe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the installed ``schedlab`` executable with stdout and stderr on pipes."""
    if not SCHEDLAB_EXE.exists():
        pytest.skip(f"{SCHEDLAB_EXE} is not installed")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run([str(SCHEDLAB_EXE), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def read_jobs_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a jobs.csv."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def columns(rows: list[dict[str, str]], *names: str) -> list[list[str]]:
    """The given columns of every row, as text."""
    return [[row[name] for name in names] for row in rows]


def int_column(rows: list[dict[str, str]], name: str) -> list[int]:
    return [int(row[name]) for row in rows]


def plain(value):
    """A metric as metrics.json holds it: Python numbers, non-finite floats as null."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def assert_matches_api(out: Path, result: schedlab.Result) -> None:
    """jobs.csv and metrics.json in ``out`` say what the Python API's ``result`` says."""
    _, rows = read_jobs_csv(out / "jobs.csv")
    assert len(rows) == len(result)
    for name in ("job_id", "submit", "width", "estimate", "runtime"):
        assert int_column(rows, name) == getattr(result, name).tolist(), name
    accepted = result.accepted.tolist()
    for name in ("start", "end"):
        expected = [str(v) if ok else "" for v, ok in zip(getattr(result, name).tolist(),
                                                          accepted)]
        assert [row[name] for row in rows] == expected, name
    assert [row["status"] for row in rows] == result.status_names()
    document = json.loads((out / "metrics.json").read_text())
    assert document["policy"] == result.policy
    assert document["processors"] == result.processors
    assert document["metrics"] == plain(schedlab.compute_metrics(result))


def table_rows(text: str) -> dict[str, list[str]]:
    """Body rows of the rich tables in ``text``: first cell -> the other cells."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("│"):
            cells = [cell.strip() for cell in line.split("│")[1:-1]]
            if cells[0]:
                rows[cells[0]] = cells[1:]
    return rows


def table_header(text: str) -> list[str]:
    """Column titles of the first rich table in ``text``, multi-line titles joined."""
    titles: list[str] = []
    for line in text.splitlines():
        if line.startswith("┡"):
            break
        if line.startswith("┃"):
            cells = [cell.strip() for cell in line.split("┃")[1:-1]]
            titles = [a + b for a, b in zip(titles, cells)] if titles else cells
    return titles


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` (relative path -> content)."""
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def temp_files(directory: Path) -> list[str]:
    """Leftover temporary files of the atomic writers (``.NAME.XXXX.tmp``)."""
    return [str(p) for p in directory.rglob(".*.tmp")]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding small.swf; paths in messages stay short and relative."""
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- simulate


def test_simulate_small_trace_writes_the_hand_worked_schedule(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--policy", "fcfs+easy", "--out", "out")
    assert result.exit_code == 0, result.output
    header, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert header[:8] == CONTRACT_COLUMNS
    assert columns(rows, *CONTRACT_COLUMNS, "wait") == EASY_ROWS
    document = json.loads((workdir / "out" / "metrics.json").read_text())
    assert document["policy"] == "fcfs+easy"
    assert document["processors"] == 4
    assert document["metrics"]["avg_wait"] == 27.5
    assert document["metrics"]["makespan"] == 170
    assert document["metrics"]["utilization"] == pytest.approx(520 / 680)
    assert document["skipped"] == {"submit < 0": 0, "runtime < 0": 0, "width <= 0": 0,
                                   "no estimate": 0, "width > machine": 0}
    assert document["meta"]["workload"] == {"machine_size_source": "header MaxProcs",
                                            "estimates_source": "requested time",
                                            "estimates_from_runtime": 0}
    assert result.stderr == ""


#: A trace with the defects of real archive traces: no MaxProcs/MaxNodes header and no
#: requested times (METACENTRUM-2009-2), and a placeholder record of -1s (LLNL-Thunder).
GUESSED_SWF = """\
1 0 -1 100 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 3 -1 -1 3 -1 -1 1 2 1 -1 1 -1 -1 -1
-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
"""


def test_simulate_warns_about_a_guessed_machine_and_estimates(workdir: Path) -> None:
    (workdir / "guessed.swf").write_text(GUESSED_SWF)
    result = invoke("simulate", "guessed.swf", "--out", "out")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "warning: guessed has no MaxProcs or MaxNodes header: the machine size is guessed as "
        "3 processors (the widest job); if the real machine is larger, jobs queue behind a "
        "machine it is not and waits (and every metric built on them) are meaningless: give "
        "the real size with --procs",
        "warning: guessed has no requested times: every job's estimate is its "
        "runtime, i.e. perfect estimates, which flatter backfilling"]
    document = json.loads((workdir / "out" / "metrics.json").read_text())
    assert document["processors"] == 3
    assert document["skipped"]["submit < 0"] == 1
    assert document["meta"]["workload"] == {
        "machine_size_source": "widest job (guessed)",
        "estimates_source": "runtime (no requested times in the trace)",
        "estimates_from_runtime": 2}


def test_given_machine_size_and_perfect_estimates_silence_the_warnings(workdir: Path) -> None:
    (workdir / "guessed.swf").write_text(GUESSED_SWF)
    result = invoke("simulate", "guessed.swf", "--procs", "8", "--perfect-estimates",
                    "--out", "out")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    document = json.loads((workdir / "out" / "metrics.json").read_text())
    assert document["meta"]["workload"] == {"machine_size_source": "--procs",
                                            "estimates_source": "runtime (perfect estimates)",
                                            "estimates_from_runtime": 2}


def test_placeholder_records_stop_only_a_strict_run(workdir: Path) -> None:
    (workdir / "guessed.swf").write_text(GUESSED_SWF)
    assert invoke("simulate", "guessed.swf", "--procs", "4").exit_code == 0
    result = invoke("simulate", "guessed.swf", "--procs", "4", "--strict")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("schedlab: error: guessed.swf:3: field 2 (submit time): "
                                     "expected a submit time >= 0, got -1 (strict mode)")


def test_a_duplicate_job_number_is_bad_input_naming_file_and_lines(workdir: Path) -> None:
    (workdir / "twice.swf").write_text(SMALL_SWF + "2 40 -1 20 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1\n")
    result = invoke("simulate", "twice.swf")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("schedlab: error: twice.swf:7: field 1 (job number): job "
                                     "number 2 appears twice (first on line 4); job numbers "
                                     "must be unique")


def test_random_bytes_are_not_an_swf_text_file(workdir: Path) -> None:
    (workdir / "noise.swf").write_bytes(bytes(range(256)) * 8)
    result = invoke("simulate", "noise.swf")
    assert result.exit_code == 2
    assert "noise.swf: not an SWF text file" in result.stderr


def test_simulate_prints_the_summary_table(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--policy", "fcfs")
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert rows["jobs"] == ["4"]
    assert rows["killed"] == ["1"]
    assert rows["rejected"] == ["0"]
    assert rows["avg_wait"] == ["85"]
    assert rows["makespan"] == ["250"]
    assert rows["utilization"] == ["0.520"]
    assert table_header(result.stdout) == ["metric", "fcfs"]
    assert not (workdir / "jobs.csv").exists()


@pytest.mark.parametrize("policy", ["fcfs", "fcfs+easy", "sjf+easy", "ljf+conservative"])
def test_simulate_agrees_with_the_python_api(workdir: Path, policy: str) -> None:
    result = invoke("simulate", "small.swf", "--policy", policy, "--out", "out")
    assert result.exit_code == 0, result.output
    assert_matches_api(workdir / "out", schedlab.simulate("small.swf", policy))


def test_simulate_builtin_model_agrees_with_the_python_api(workdir: Path) -> None:
    result = invoke("simulate", "lublin", "--jobs", "300", "--policy", "sjf+easy",
                    "--out", "out")
    assert result.exit_code == 0, result.output
    header, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert header[:8] == CONTRACT_COLUMNS
    assert len(rows) == 300
    assert {row["status"] for row in rows} <= {"finished", "killed"}
    workload = schedlab.load_workload("lublin", jobs=300)
    assert_matches_api(workdir / "out", schedlab.simulate(workload, "sjf+easy"))


def test_simulate_procs_overrides_the_header(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--procs", "8", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "start") == [0, 10, 20, 30]
    assert json.loads((workdir / "out" / "metrics.json").read_text())["processors"] == 8
    assert_matches_api(workdir / "out", schedlab.simulate("small.swf", "fcfs+easy",
                                                          processors=8))


def test_simulate_smaller_procs_skips_wider_jobs_and_says_so(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--procs", "2", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "job_id") == [1, 3, 4]
    document = json.loads((workdir / "out" / "metrics.json").read_text())
    assert document["skipped"]["width > machine"] == 1
    assert "skipped 1" in result.stdout


def test_simulate_swf_output_reads_back(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--swf", "--out", "out")
    assert result.exit_code == 0, result.output
    schedule = read_swf(workdir / "out" / "schedule.swf")
    assert schedule.processors == 4
    assert [j.id for j in schedule.jobs] == [1, 2, 3, 4]
    assert [j.submit for j in schedule.jobs] == [0, 10, 20, 30]
    assert [j.width for j in schedule.jobs] == [2, 4, 1, 1]
    assert [j.estimate for j in schedule.jobs] == [200, 100, 100, 40]
    # The schedule's run time is the time a job held its processors: job 3 was killed.
    assert [j.runtime for j in schedule.jobs] == [100, 50, 100, 20]


def test_simulate_shrink_scales_interarrival_times(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--shrink", "0.5", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "submit") == [0, 5, 10, 15]
    assert int_column(rows, "start") == [0, 110, 10, 15]


def test_simulate_perfect_estimates_use_the_runtimes(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--perfect-estimates", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "estimate") == [100, 50, 300, 20]
    assert int_column(rows, "start") == [0, 100, 150, 30]
    assert [row["status"] for row in rows] == ["finished"] * 4


def test_simulate_jobs_keeps_the_first_jobs_of_a_trace(workdir: Path) -> None:
    result = invoke("simulate", "small.swf", "--jobs", "2", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "job_id") == [1, 2]
    assert int_column(rows, "start") == [0, 100]


def test_policy_aliases_run_the_fcfs_policies(workdir: Path) -> None:
    for alias, name in (("easy", "fcfs+easy"), ("conservative", "fcfs+conservative")):
        result = invoke("simulate", "small.swf", "--policy", alias, "--out", alias)
        assert result.exit_code == 0, result.output
        assert json.loads((workdir / alias / "metrics.json").read_text())["policy"] == name


class RejectWide(Policy):
    """Reject jobs wider than ``limit``; start any waiting job that fits, in arrival order."""

    name = "reject-wide"

    def __init__(self, limit: int = 2) -> None:
        self.limit = limit

    def on_submit(self, ctx, job) -> None:
        if job.width > self.limit:
            ctx.reject(job, f"wider than {self.limit}")

    def schedule(self, ctx) -> None:
        for job in list(ctx.waiting.values()):
            if job.width <= ctx.free:
                ctx.start(job)


class Greedy(Policy):
    """The README's plug-in example: start any waiting job that fits, in arrival order."""

    name = "greedy"

    def schedule(self, ctx) -> None:
        for job in list(ctx.waiting.values()):
            if job.width <= ctx.free:
                ctx.start(job)


def register_plugin(monkeypatch: pytest.MonkeyPatch, name: str, cls: type[Policy]) -> None:
    """Make ``cls`` a plug-in policy as if a package registered it as an entry point."""
    entry = registry.PolicyEntry(name, cls, {}, cls.__doc__.splitlines()[0], source="tests")
    monkeypatch.setattr(registry, "_plugin_entries", lambda: {name: entry})


def test_rejected_jobs_have_empty_start_and_end(workdir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Job 2 (4 wide) is rejected; job 3 starts at 20 and is killed at 120."""
    register_plugin(monkeypatch, "reject-wide", RejectWide)
    result = invoke("simulate", "small.swf", "--policy", "reject-wide", "--out", "out")
    assert result.exit_code == 0, result.output
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert columns(rows, "job_id", "start", "end", "status") == [
        ["1", "0", "100", "finished"], ["2", "", "", "rejected"],
        ["3", "20", "120", "killed"], ["4", "30", "50", "finished"]]
    assert_matches_api(workdir / "out", schedlab.simulate("small.swf", RejectWide()))


def test_plugin_policy_without_init_runs(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's ``Greedy`` (no ``__init__``) registered as a plug-in runs from the CLI.

    Same schedule as fcfs+easy on SMALL_SWF: jobs 3 and 4 start on arrival,
    job 2 when job 3 is killed at 120.
    """
    register_plugin(monkeypatch, "greedy", Greedy)
    result = invoke("simulate", "small.swf", "--policy", "greedy", "--out", "out")
    assert result.exit_code == 0, result.stderr
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert int_column(rows, "start") == [0, 120, 20, 30]


def test_output_files_are_shared_readable(workdir: Path) -> None:
    """Every output file is 0644, like the schedule write_swf writes (not mkstemp's 0600)."""
    assert invoke("simulate", "small.swf", "--out", "sim").exit_code == 0
    assert invoke("compare", "small.swf", "--policies", "fcfs", "--out", "cmp").exit_code == 0
    for path in ("sim/jobs.csv", "sim/metrics.json", "cmp/metrics.csv", "cmp/comparison.png",
                 "cmp/fcfs/jobs.csv"):
        assert stat.S_IMODE((workdir / path).stat().st_mode) == 0o644, path


# --------------------------------------------------------------------------- compare


def test_compare_writes_table_figure_csv_and_subdirectories(workdir: Path) -> None:
    names = ["fcfs", "sjf+easy", "fcfs+conservative"]
    result = invoke("compare", "small.swf", "--policies", ",".join(names), "--out", "cmp")
    assert result.exit_code == 0, result.output
    assert table_header(result.stdout) == ["metric", *names]
    assert table_rows(result.stdout)["avg_wait"] == ["85", "28", "28"]
    out = workdir / "cmp"
    assert (out / "comparison.png").read_bytes()[:8] == PNG_MAGIC
    with open(out / "metrics.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [row["policy"] for row in table] == names
    assert [float(row["avg_wait"]) for row in table] == [85.0, 27.5, 27.5]
    for name, directory in zip(names, ["fcfs", "sjf_easy", "fcfs_conservative"]):
        assert_matches_api(out / directory, schedlab.simulate("small.swf", name))


def test_compare_api_labels_one_policy_with_two_parameter_settings_apart(workdir: Path) -> None:
    results = schedlab.compare("small.swf", ["fcfs", {"name": "qops", "k": 3},
                                            {"name": "qops", "k": 5}, QoPS(k=2)])
    assert list(results) == ["fcfs", "qops[k=3]", "qops[k=5]", "qops[k=2]"]
    assert [results[label].params.get("k") for label in results] == [None, 3, 5, 2]


def test_compare_api_refuses_the_same_label_twice(workdir: Path) -> None:
    with pytest.raises(schedlab.InputError, match="'qops\\[k=3\\]' is given twice"):
        schedlab.compare("small.swf", [{"name": "qops", "k": 3},
                                       {"name": "qops", "k": 3}])


def test_compare_takes_parameters_per_policy_and_labels_table_csv_and_directories(
        workdir: Path) -> None:
    result = invoke("compare", "small.swf", "--policies",
                    "qops[k=3],qops[k=5, heuristic=edf],fcfs+easy", "--out", "cmp")
    assert result.exit_code == 0, result.output
    labels = ["qops[k=3]", "qops[k=5,heuristic=edf]", "fcfs+easy"]
    assert table_header(result.stdout) == ["metric", *labels]
    with open(workdir / "cmp" / "metrics.csv", newline="") as handle:
        assert [row["policy"] for row in csv.DictReader(handle)] == labels
    for spec, directory in zip([{"name": "qops", "k": 3}, {"name": "qops", "k": 5}, "fcfs+easy"],
                               ["qops_k=3", "qops_k=5_heuristic=edf", "fcfs_easy"]):
        assert_matches_api(workdir / "cmp" / directory, schedlab.simulate("small.swf", spec))
        report = json.loads((workdir / "cmp" / directory / "metrics.json").read_text())
        assert report["params"] == schedlab.simulate("small.swf", spec).params


@pytest.mark.parametrize("spec, fragments", [
    ("qops[k=3", ("'qops[k=3'", "]")),
    ("qops[k3]", ("'qops[k3]'", "KEY=VALUE", "'k3'")),
    ("qops[depth=3]", ("'qops[depth=3]'", "no parameter 'depth'")),
    ("qops[k=-1]", ("'qops[k=-1]'", "'k'", "-1")),
    ("qops[]x", ("'qops[]x'",)),
    ("fcfs,qops[k=3],qops[k=3]", ("'qops[k=3]'", "twice")),
])
def test_compare_malformed_policy_spec_exits_2_naming_it(workdir: Path, spec: str,
                                                         fragments: tuple[str, ...]) -> None:
    result = invoke("compare", "small.swf", "--policies", spec, "--out", "cmp")
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert message.startswith("schedlab: error: field --policies: ")
    for fragment in fragments:
        assert fragment in message
    assert not (workdir / "cmp").exists()


# --------------------------------------------------------------------------- analyze

SMALL_TABLE2 = {
    "number of jobs": "4", "maximum job width": "4", "width of machine": "4",
    "average requested resources": "2", "estimated runtime avg (s)": "110",
    "estimated runtime min (s)": "40", "estimated runtime max (s)": "200",
    "actual runtime avg (s)": "117.5", "actual runtime min (s)": "20",
    "actual runtime max (s)": "300", "jobs with actual > estimated runtime": "1",
    "jobs with actual > estimated runtime (%)": "25", "interarrival time avg (s)": "10",
    "interarrival time min (s)": "10", "interarrival time max (s)": "10",
}


def test_analyze_small_trace_prints_table2_rows(workdir: Path) -> None:
    """Values worked out from SMALL_SWF (widths 2,4,1,1; estimates 200,100,100,40; ...)."""
    result = invoke("analyze", "small.swf", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    for label, value in SMALL_TABLE2.items():
        assert rows[label] == [value], label
    assert "Weibull alpha (shape)" in rows and "Weibull beta (scale) (s)" in rows
    for reason in ("submit < 0", "runtime < 0", "width <= 0", "no estimate",
                   "width > machine"):
        assert rows[reason] == ["0"]
    assert rows["machine size"] == ["4", "header MaxProcs"]
    assert result.stderr == ""


def test_analyze_counts_the_jobs_given_their_runtime_as_estimate(workdir: Path) -> None:
    (workdir / "guessed.swf").write_text(GUESSED_SWF)
    result = invoke("analyze", "guessed.swf", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert rows["submit < 0"] == ["1"]
    assert rows["machine size"] == ["3", "widest job (guessed)"]
    assert rows["jobs with their runtime as estimate"] == [
        "2", "runtime (no requested times in the trace)"]
    assert "give the real size with --procs" in result.stderr
    assert "has no requested times" in result.stderr
    assert table_rows(invoke("analyze", "guessed.swf", "--procs", "6",
                             env={"COLUMNS": "200"}).stdout)["machine size"] == ["6", "--procs"]


def test_analyze_kth_prints_every_table2_row() -> None:
    if not KTH.exists():
        pytest.skip(f"{KTH} is absent")
    result = invoke("analyze", str(KTH), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    statistics = trace_statistics(read_swf(KTH))
    for label, value in statistics.rows():
        assert rows[label] == [format_value(value)], label
    assert rows["width of machine"] == ["100"]


# --------------------------------------------------------------------------- policies


def test_policies_lists_every_builtin_name_and_the_aliases() -> None:
    result = invoke("policies")
    assert result.exit_code == 0, result.output
    listed = set(table_rows(result.stdout))
    assert listed >= BUILTIN_POLICIES
    from schedlab.policies.grid import DISPATCHERS, LOCAL_POLICIES

    assert listed == set(schedlab.available_policies()) | set(LOCAL_POLICIES) | set(DISPATCHERS)
    assert table_rows(result.stdout)["bf-fcfs"][1] == "reserve_by='start', order='arrival'"
    text = " ".join(result.stdout.split())
    assert "easy = fcfs+easy" in text
    assert "conservative = fcfs+conservative" in text


# --------------------------------------------------------------------------- bad input


@dataclass(frozen=True)
class BadInput:
    """A user mistake: files to create, the command line, what the message must name."""

    command: str
    args: tuple[str, ...]
    fragments: tuple[str, ...]
    files: dict[str, bytes] = field(default_factory=dict)

    def make_files(self, directory: Path) -> None:
        for name, content in self.files.items():
            if content is DIRECTORY:
                (directory / name).mkdir()
            else:
                (directory / name).write_bytes(content)


DIRECTORY = b"<a directory>"
HEADER = "; MaxProcs: 4\n"
SEVENTEEN_FIELDS = HEADER + record(1, 0) + "\n" + record(2, 5).rsplit(" ", 1)[0] + "\n"
BAD_FILES = {
    "wrong-field-count": ({"bad.swf": SEVENTEEN_FIELDS.encode()},
                          ("bad.swf:3:", "field 18", "expected 18 fields, got 17")),
    "non-numeric": ({"bad.swf": (HEADER + record(1, 0) + "\n" + record(2, 5, "abc")).encode()},
                    ("bad.swf:3:", "field 4 (run time)", "'abc'")),
    "duplicate-job": ({"bad.swf": (HEADER + record(1, 0) + "\n" + record(1, 5)).encode()},
                      ("bad.swf:3:", "field 1 (job number)", "first on line 2")),
    "binary": ({"bad.swf": bytes(range(256)) * 4}, ("bad.swf:", "not an SWF text file")),
    "unsorted-submit": ({"bad.swf": (HEADER + record(1, 10) + "\n" + record(2, 5)).encode()},
                        ("bad.swf:3:", "field 2 (submit time)", "must not decrease")),
    "truncated-gzip": ({"bad.swf.gz": gzip.compress(SMALL_SWF.encode())[:60]},
                       ("bad.swf.gz:", "gzip")),
    "empty-file": ({"bad.swf": b""}, ("bad.swf:", "no job records")),
}

CASES: dict[str, BadInput] = {}
for _key, (_files, _fragments) in BAD_FILES.items():
    _name = next(iter(_files))
    CASES[f"simulate-{_key}"] = BadInput("simulate", (_name,), _fragments, _files)
CASES.update({
    "simulate-unknown-policy": BadInput("simulate", ("small.swf", "--policy", "nope"),
                                        ("policy", "'nope'")),
    "simulate-unknown-parameter": BadInput("simulate", ("small.swf", "--param", "depth=3"),
                                           ("field --param depth", "no parameter 'depth'")),
    "simulate-procs-zero": BadInput("simulate", ("small.swf", "--procs", "0"),
                                    ("processors", "0")),
    "simulate-procs-negative": BadInput("simulate", ("small.swf", "--procs", "-3"),
                                        ("processors", "-3")),
    "simulate-missing-path": BadInput("simulate", ("missing.swf",),
                                      ("missing.swf", "no such file")),
    "simulate-directory": BadInput("simulate", ("adir",), ("adir", "directory"),
                                   {"adir": DIRECTORY}),
    "simulate-strict-too-wide": BadInput("simulate", ("small.swf", "--procs", "2", "--strict"),
                                         ("small.swf:4:", "field 8 (requested processors)",
                                          "strict")),
    "simulate-strict-negative-submit": BadInput(
        "simulate", ("bad.swf", "--strict"), ("bad.swf:3:", "field 2 (submit time)", "-5"),
        {"bad.swf": (HEADER + record(1, 0) + "\n" + record(2, -5)).encode()}),
    "compare-wrong-field-count": BadInput("compare", ("bad.swf",),
                                          BAD_FILES["wrong-field-count"][1],
                                          BAD_FILES["wrong-field-count"][0]),
    "compare-unknown-policy": BadInput("compare", ("small.swf", "--policies", "fcfs,nope"),
                                       ("policy", "'nope'")),
    "compare-procs-zero": BadInput("compare", ("small.swf", "--procs", "0"),
                                   ("processors", "0")),
    "compare-directory": BadInput("compare", ("adir",), ("adir", "directory"),
                                  {"adir": DIRECTORY}),
    "analyze-wrong-field-count": BadInput("analyze", ("bad.swf",),
                                          BAD_FILES["wrong-field-count"][1],
                                          BAD_FILES["wrong-field-count"][0]),
    "analyze-missing-path": BadInput("analyze", ("missing.swf",), ("missing.swf",)),
    "analyze-directory": BadInput("analyze", ("adir",), ("adir",), {"adir": DIRECTORY}),
})
WRITING_CASES = {key: case for key, case in CASES.items() if case.command != "analyze"}


def run_bad(case: BadInput, directory: Path, *extra: str):
    case.make_files(directory)
    return invoke(case.command, *case.args, *extra)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_exits_2_naming_file_line_and_field(workdir: Path, case: BadInput) -> None:
    result = run_bad(case, workdir)
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert message.startswith("schedlab: error: ")
    for fragment in case.fragments:
        assert fragment in message
    assert "Traceback" not in result.output


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_message_is_a_single_line(workdir: Path, case: BadInput) -> None:
    result = run_bad(case, workdir)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr


@pytest.mark.parametrize("case", WRITING_CASES.values(), ids=WRITING_CASES.keys())
def test_bad_input_writes_nothing(workdir: Path, case: BadInput) -> None:
    result = run_bad(case, workdir, "--out", "out")
    assert result.exit_code == 2
    assert not (workdir / "out").exists() or snapshot(workdir / "out") == {}
    assert temp_files(workdir) == []


def good_output(case: BadInput, directory: Path) -> Path:
    """A complete output directory of a successful earlier run of the same command."""
    args = ("--policies", "fcfs,fcfs+easy") if case.command == "compare" else ()
    result = invoke(case.command, "small.swf", *args, "--out", "out")
    assert result.exit_code == 0, result.output
    return directory / "out"


@pytest.mark.parametrize("case", WRITING_CASES.values(), ids=WRITING_CASES.keys())
def test_bad_input_leaves_an_earlier_output_intact(workdir: Path, case: BadInput) -> None:
    out = good_output(case, workdir)
    before = snapshot(out)
    result = run_bad(case, workdir, "--out", "out")
    assert result.exit_code == 2
    assert snapshot(out) == before
    assert temp_files(workdir) == []


def test_output_path_that_is_a_file_is_bad_input(workdir: Path) -> None:
    """``--out`` naming an existing file is a user mistake (exit 2), not an internal error."""
    result = invoke("simulate", "small.swf", "--out", "small.swf")
    assert result.exit_code == 2, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "small.swf" in result.stderr
    assert "Traceback" not in result.stderr
    assert (workdir / "small.swf").read_text() == SMALL_SWF


def test_unknown_option_is_a_usage_error() -> None:
    result = invoke("simulate", "lublin", "--no-such-option")
    assert result.exit_code == 2


# --------------------------------------------------------------------------- internal errors


def explode(self, ctx) -> None:
    raise RuntimeError("scheduling exploded")


def test_internal_error_exits_1_and_says_so(workdir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EasyBackfilling, "schedule", explode)
    result = invoke("simulate", "small.swf", "--policy", "fcfs+easy", "--out", "out")
    assert result.exit_code == 1
    assert "internal error" in result.stderr
    assert "RuntimeError: scheduling exploded" in result.stderr
    assert not (workdir / "out").exists()


def test_internal_error_in_compare_leaves_an_earlier_output_intact(
        workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compare run that fails at its second policy must not half-replace a good directory.

    The second run differs from the first (``--shrink 0.5``), so a rewritten
    ``fcfs/jobs.csv`` would no longer match the old metrics.csv and figure.
    """
    args = ("compare", "small.swf", "--policies", "fcfs,fcfs+easy", "--out", "out")
    assert invoke(*args).exit_code == 0
    before = snapshot(workdir / "out")
    monkeypatch.setattr(EasyBackfilling, "schedule", explode)
    result = invoke(*args, "--shrink", "0.5")
    assert result.exit_code == 1
    assert snapshot(workdir / "out") == before
    assert temp_files(workdir) == []


# --------------------------------------------------------------------------- progress


def test_progress_bar_does_not_disturb_piped_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bar forced on at once, stdout is exactly what it is without a bar."""
    args = ("simulate", "lublin", "--jobs", "300")
    quiet = invoke(*args)
    bars: list[DelayedProgress] = []

    class Immediate(DelayedProgress):
        def __init__(self, label: str) -> None:
            super().__init__(label, delay=0.0)
            bars.append(self)

    monkeypatch.setattr(cli_simulate, "DelayedProgress", Immediate)
    shown = invoke(*args)
    assert shown.exit_code == 0, shown.output
    assert bars and bars[0].bar is not None
    assert shown.stdout == quiet.stdout
    assert "\x1b" not in shown.stdout + shown.stderr
    assert shown.stderr.strip() == ""


# --------------------------------------------------------------------------- real process


def test_installed_command_succeeds_with_plain_piped_output(workdir: Path) -> None:
    process = run_exe("simulate", "small.swf", "--out", "out", cwd=workdir)
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""
    assert "\x1b" not in process.stdout
    assert table_rows(process.stdout)["avg_wait"] == ["28"]
    _, rows = read_jobs_csv(workdir / "out" / "jobs.csv")
    assert columns(rows, *CONTRACT_COLUMNS, "wait") == EASY_ROWS


def test_installed_command_bad_input_prints_one_line_and_exits_2(workdir: Path) -> None:
    (workdir / "bad.swf").write_text(SEVENTEEN_FIELDS)
    process = run_exe("simulate", "bad.swf", "--out", "out", cwd=workdir)
    assert process.returncode == 2
    assert process.stderr.splitlines() == [
        "schedlab: error: bad.swf:3: field 18 (think time from preceding job): "
        "expected 18 fields, got 17"]
    assert not (workdir / "out").exists()


def test_installed_command_truncated_gzip_exits_2(workdir: Path) -> None:
    (workdir / "cut.swf.gz").write_bytes(gzip.compress(SMALL_SWF.encode())[:60])
    process = run_exe("analyze", "cut.swf.gz", cwd=workdir)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert " ".join(process.stderr.split()).startswith(
        "schedlab: error: cut.swf.gz: truncated or corrupt gzip data")


def test_progress_shows_the_rate_on_a_terminal_and_nothing_when_piped(monkeypatch) -> None:
    from types import SimpleNamespace

    from schedlab.cli import progress

    column = progress.rate_column("jobs")
    assert column.render(SimpleNamespace(finished_speed=None, speed=12345.6)).plain == \
        "12,346 jobs/s"
    assert column.render(SimpleNamespace(finished_speed=None, speed=None)).plain == ""
    piped = DelayedProgress("run", delay=0.0)
    piped(1, 10)
    assert piped.bar.disable          # CliRunner / a pipe: not a terminal
    piped.close()


def _terminal_lines(stream) -> list[str]:
    """What a terminal shows of a progress bar's output: the lines without ANSI codes."""
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())
    return [line for line in re.split(r"[\r\n]", text) if line.strip()]


def _narrow_terminal():
    import io

    from rich.console import Console

    stream = io.StringIO()
    return stream, Console(file=stream, width=80, force_terminal=True, color_system=None)


def test_a_run_progress_line_keeps_count_rate_and_time_left_on_an_80_column_terminal(
        monkeypatch) -> None:
    """A long label gives way (cut with an ellipsis); the count, rate and time left stay whole."""
    import time

    from schedlab.cli import progress

    stream, terminal = _narrow_terminal()
    monkeypatch.setattr(progress, "err_console", terminal)
    bar = DelayedProgress("fcfs+conservative on SDSC-BLUE-2000-4.2-cln~first100000~perfect~s0.2",
                          delay=0.0)
    bar(1, 232562)
    time.sleep(0.05)
    bar(122014, 232562)
    bar.bar.refresh()
    bar.close()
    shown = [line for line in _terminal_lines(stream) if "122014" in line][-1]
    assert len(shown) <= 80
    assert shown.startswith("fcfs+conservative on SDSC")
    assert "…" in shown
    assert "122014/232562" in shown
    assert shown.rstrip().split()[-3:-1][1] == "jobs/s"     # rate, then the time left
    assert shown.rstrip().endswith(("0:00:00", "0:00:01", "0:00:02", "0:00:03"))


def test_a_sweep_progress_line_fits_an_80_column_terminal(monkeypatch) -> None:
    import time
    from types import SimpleNamespace

    from schedlab.cli import sweep

    stream, terminal = _narrow_terminal()
    monkeypatch.setattr(sweep, "err_console", terminal)
    progress = sweep.SweepProgress("reservations (reduced)")
    progress.started(51, 0)
    progress.recorded(SimpleNamespace(status="finished"))
    time.sleep(0.05)
    progress.recorded(SimpleNamespace(status="failed"))
    progress.bar.refresh()
    progress.close()
    shown = [line for line in _terminal_lines(stream) if " 2/51 " in line][-1]
    assert len(shown) <= 80
    assert shown.startswith("reservation")
    assert "1 finished 1 failed" in shown
    assert "runs/s" in shown and "ETA 0:00:" in shown


def test_the_easy_run_behind_stringency_deadlines_has_a_progress_bar(monkeypatch) -> None:
    """--stringency schedules the workload with EASY before the run (QoPS §4.1): a bar follows it."""
    from schedlab.cli import loading

    bars: list[DelayedProgress] = []

    class Recorded(DelayedProgress):
        def __init__(self, label: str) -> None:
            super().__init__(label, delay=0.0)
            self.calls: list[tuple[int, int]] = []
            bars.append(self)

        def __call__(self, done: int, total: int) -> None:
            self.calls.append((done, total))
            super().__call__(done, total)

    monkeypatch.setattr(loading, "DelayedProgress", Recorded)
    result = invoke("simulate", "lublin", "--jobs", "300", "--perfect-estimates",
                    "--stringency", "0.2", "-p", "qops")
    assert result.exit_code == 0, result.output
    assert [bar.label for bar in bars] == ["EASY for deadlines on lublin"]
    assert bars[0].calls[-1] == (300, 300)
    assert "\x1b" not in result.stdout + result.stderr
