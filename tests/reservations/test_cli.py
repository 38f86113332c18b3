"""``schedlab generate reservations`` and ``--reservations`` in simulate and compare."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from real_traces import trace_path
from schedlab.cli.app import app
from schedlab.workload.reservations import read_reservations

runner = CliRunner()

#: 4 processors; job 1 uses 2 of them [0, 100) (file lines 3 and 4).
SWF = """; MaxProcs: 4
; UnixStartTime: 1000000000
1 0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1
2 10 -1 10 4 -1 -1 4 10 -1 1 1 -1 -1 -1 -1 -1 -1
"""
#: Request 1 gets [50, 80) on the 2 free processors; request 2 (2 more on [60, 70)) is
#: busy in the plan; request 3, given as Unix times, asks for [200, 210).
REQUESTS = "id,created,start,duration,nodes,owner\n1,0,50,30,2,ann\n2,0,60,10,2,bob\n"
UNIX_REQUESTS = "id,created_unix,start_unix,duration,nodes\n3,1000000005,1000000200,10,4\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    trace = tmp_path / "small.swf"
    trace.write_text(SWF)
    asked = tmp_path / "requests.csv"
    asked.write_text(REQUESTS)
    return trace, asked


def test_simulate_with_reservations_writes_their_fate(files, tmp_path):
    trace, asked = files
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(trace), "--reservations", str(asked),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 reservation requests, 1 granted (0 moved), 1 rejected (busy: 1)" in result.output
    rows = list(csv.DictReader((out / "reservations.csv").open()))
    assert [(r["id"], r["start"], r["end"], r["status"], r["reason"], r["owner"])
            for r in rows] == [("1", "50", "80", "granted", "", "ann"),
                               ("2", "", "", "rejected", "busy", "bob")]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["metrics"]["reservations_granted"] == 1
    assert metrics["meta"]["reservation_rules"]["placement"] == "exact"
    # job 2 (4 wide) must wait for job 1 (100) and the reservation (80): it runs at 100
    jobs = list(csv.DictReader((out / "jobs.csv").open()))
    assert jobs[1]["start"] == "100"


def test_unix_request_times_use_the_traces_start(files, tmp_path):
    trace, _ = files
    asked = tmp_path / "unix.csv"
    asked.write_text(UNIX_REQUESTS)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(trace), "--reservations", str(asked),
                                 "--out", str(out), "--reservation-placement", "earliest"])
    assert result.exit_code == 0, result.output
    (row,) = csv.DictReader((out / "reservations.csv").open())
    assert (row["created"], row["start"]) == ("5", "200")


@pytest.mark.parametrize("text, where", [
    ("id,created,start,nodes\n1,0,5,2\n", "requests.csv:1: field duration: missing column"),
    ("id,created,start,duration,nodes\n1,0,5,-1,2\n", "requests.csv:2: field duration:"),
    ("id,created,start,duration,nodes\n1,0,5,10,8\n",
     "requests.csv:2: field nodes: 8 nodes asked for on a 4-processor machine"),
    ("id,created,start,duration,nodes\n1,9,5,10,2\n", "requests.csv:2: field start:"),
])
def test_a_malformed_request_file_exits_2_naming_file_line_and_field(files, text, where):
    trace, asked = files
    asked.write_text(text)
    result = runner.invoke(app, ["simulate", str(trace), "--reservations", str(asked)])
    assert result.exit_code == 2
    assert where in result.output


def test_throttling_options_need_a_request_file(files):
    trace, _ = files
    result = runner.invoke(app, ["simulate", str(trace), "--throttle"])
    assert result.exit_code == 2
    assert "need --reservations FILE" in result.output


def test_compare_applies_the_requests_to_every_policy(files, tmp_path):
    trace, asked = files
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", str(trace), "--policies",
                                 "fcfs,fcfs+easy,fcfs+conservative", "--reservations",
                                 str(asked), "--throttle", "--reservation-cap", "50",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    easy = list(csv.DictReader((out / "fcfs_easy" / "reservations.csv").open()))
    # request 1 holds 60 node-seconds, over the cap of 50; request 2 (20) then fits
    assert [r["reason"] for r in easy] == ["over_cap", ""]
    plain = list(csv.DictReader((out / "fcfs" / "reservations.csv").open()))
    assert [r["reason"] for r in plain] == ["unsupported", "unsupported"]


def test_generate_reservations_with_the_papers_defaults(tmp_path):
    out = tmp_path / "r.csv"
    result = runner.invoke(app, ["generate", "reservations", "--span", "0:2419200",
                                 "--procs", "100", "--seed", "4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    asked = read_reservations(out)
    assert len(asked) == 60                        # four weeks at 15 per week
    assert max(r.width for r in asked) <= 100 and min(r.width for r in asked) >= 8
    assert all(4 * 3600 <= r.duration <= 18 * 3600 for r in asked)


def test_generate_reservations_with_ranges_and_compression(tmp_path):
    out = tmp_path / "r.csv"
    result = runner.invoke(app, ["generate", "reservations", "--span", "0:604800",
                                 "--per-week", "10", "--nodes", "2:3", "--hours", "1:1.5",
                                 "--notice-hours", "0:0", "--into", "0:60480", "-o", str(out)])
    assert result.exit_code == 0, result.output
    asked = read_reservations(out)
    assert len(asked) == 10
    assert all(2 <= r.width <= 3 and 3600 <= r.duration <= 5400 for r in asked)
    assert all(r.start < 60480 and r.notice == 0 for r in asked)
    again = tmp_path / "again.csv"
    result = runner.invoke(app, ["generate", "reservations", "--from", str(out), "--span",
                                 "0:60480", "--into", "0:6048", "-o", str(again)])
    assert result.exit_code == 0, result.output
    assert [r.start for r in read_reservations(again)] == [r.start // 10 for r in asked]


@pytest.mark.parametrize("args, field", [
    (["generate", "reservations", "-o", "x.csv"], "--span"),
    (["generate", "reservations", "--span", "0:10", "--nodes", "4", "-o", "x.csv"], "--nodes"),
    (["generate", "lublin", "--per-week", "3", "-o", "x.swf"], "--per-week"),
])
def test_generate_reservations_option_mistakes_exit_2(tmp_path, args, field):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"field {field}" in result.output


KTH = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")
DOC = Path(__file__).resolve().parents[2] / "docs" / "reference" / "reservations.md"


@pytest.mark.skipif(not KTH.exists(), reason="KTH-SP2 trace not in ../shared/workloads")
def test_the_python_example_of_the_docs_runs(monkeypatch, tmp_path):
    """The example reads ../shared/workloads/ from the project root (tests/test_docs_commands.py)."""
    import re

    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "workloads").symlink_to(KTH.parent)
    (tmp_path / "root").mkdir()
    monkeypatch.chdir(tmp_path / "root")
    scope: dict = {}
    exec(compile(code, str(DOC), "exec"), scope)
    assert len(scope["requests"]) == 60
    assert all(r.start < 31 * 86400 for r in scope["requests"])
    assert scope["result"].reservations.granted.sum() > 0
