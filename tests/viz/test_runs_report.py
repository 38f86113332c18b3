"""``schedlab report`` on the outputs of ``compare`` and ``simulate``: the README's main
workflow ends in a report, summary first, then the figures of every run."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from schedlab.cli.app import app

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_a_compare_output_gets_a_report_with_every_run(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    done = invoke("compare", "lublin", "-n", "300", "--policies",
                  "fcfs+easy,dynp[metric=slowdown],gang", "--out", out)
    assert done.exit_code == 0, done.output
    # each policy's directory holds what simulate --out writes, a gang run's tables too
    assert sorted(p.name for p in (out / "gang").iterdir()) == [
        "jobs.csv", "matrix.csv", "metrics.json", "series.csv", "slots.csv"]
    reported = invoke("report", out, "--format", "png")
    assert reported.exit_code == 0, reported.output
    page = (out / "report.html").read_text()
    assert page.index("<h2>Summary</h2>") < page.index("<h2>Figures</h2>")
    rows = re.findall(r"<tr><td>([^<]*)</td>", page[:page.index("<h2>Figures</h2>")])
    assert rows == ["dynp[metric=slowdown]", "fcfs+easy", "gang"]
    captions = re.findall(r"<figcaption>Figure \d+\. ([^<]*)", page)
    assert captions[0].startswith("Wait, bounded slowdown, ARTwW and utilization")
    # the class bars of every run, and a schedule for each space-shared one (not gang's)
    assert sum("every run" in caption for caption in captions) == 2
    assert len(re.findall(r"schedule of (dynp\[metric=slowdown\]|fcfs\+easy)<", page)) == 2
    assert "schedule of gang" not in page
    assert page.count("data:image/png;base64,") == len(captions)


def test_a_simulate_output_gets_a_report_and_grid_and_other_runs_do_not_mix(
        tmp_path: Path) -> None:
    one = tmp_path / "runs" / "easy"
    assert invoke("simulate", "lublin", "-n", "200", "--out", one).exit_code == 0
    reported = invoke("report", one, "--out", tmp_path / "one.html")
    assert reported.exit_code == 0, reported.output
    assert "fcfs+easy" in (tmp_path / "one.html").read_text()
    grid = tmp_path / "runs" / "grid"
    jobs = tmp_path / "small.swf"
    assert invoke("generate", "grid", "--platform", "examples/platforms/two-sites.toml",
                  "--preset", "thesis-4.1", "-n", "40", "--seed", "1", "-o", jobs).exit_code == 0
    assert invoke("simulate", jobs, "--platform", "examples/platforms/two-sites.toml",
                  "--out", grid).exit_code == 0
    mixed = invoke("report", tmp_path / "runs")
    assert mixed.exit_code == 2
    assert "expected runs of one kind: grid runs (simulate --platform) and runs on one " \
        "machine do not share a report" in " ".join(mixed.output.split())


def test_runs_planned_on_predictions_report_their_accuracy_and_corrections(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    done = invoke("compare", "lublin", "-n", "300", "--policies",
                  "fcfs+easy,fcfs+easy[predictor=oracle]", "--out", out)
    assert done.exit_code == 0, done.output
    assert invoke("report", out).exit_code == 0
    page = (out / "report.html").read_text()
    summary = page[page.index("<h2>Summary</h2>"):page.index("<h2>Figures</h2>")]
    assert "<th>prediction accuracy min(p, a) / max(p, a)</th>" in summary
    assert "<th>reservations broken by corrections</th>" in summary
    plain = tmp_path / "plain"
    assert invoke("compare", "lublin", "-n", "300", "--policies", "fcfs+easy,sjf+easy",
                  "--out", plain).exit_code == 0
    assert invoke("report", plain).exit_code == 0
    assert "prediction accuracy" not in (plain / "report.html").read_text()
