"""The HTML report: its contents, its determinism, and how headless Chromium renders it.

The rendering test needs Debian's ``chromium``.  The ``chromium`` fixture
installs it with apt-get when it is missing and the tests run as root;
otherwise the test is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.experiments.report import (
    build_report,
    machine_size,
    middle_window,
    sweep_points,
    write_report,
)

from .helpers import SMALL_EXPERIMENT, SWEEP_EXPERIMENT, sweep

GENERATED = "2024-05-01 12:00 UTC"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--enable-logging=stderr",
                  "--v=0")


@pytest.fixture(scope="module")
def small_exp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sweep(SMALL_EXPERIMENT, tmp_path_factory.mktemp("small"))


@pytest.fixture(scope="module")
def sweep_exp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sweep(SWEEP_EXPERIMENT, tmp_path_factory.mktemp("sweep"))


@pytest.fixture(scope="module")
def small_html(small_exp: Path) -> str:
    """The report of the small experiment, built once for the module."""
    return build_report(small_exp, generated=GENERATED)


@pytest.fixture(scope="module")
def sweep_report(sweep_exp: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the sweep, built once for the module."""
    return write_report(sweep_exp, tmp_path_factory.mktemp("report") / "report.html",
                        generated=GENERATED)


@pytest.fixture(scope="module")
def compare_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of ``compare`` over three policies (the README's workflow)."""
    out = tmp_path_factory.mktemp("compare") / "cmp"
    for args in (["compare", "lublin", "-n", "300", "--policies",
                  "fcfs+easy,fcfs+conservative,sjf+easy", "--out", str(out)],
                 ["report", str(out)]):
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
    return out / "report.html"


@pytest.fixture(scope="module")
def grid_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a grid run (two sites with a licence, thesis §4.1 jobs)."""
    root = tmp_path_factory.mktemp("grid")
    platform = "examples/platforms/two-sites.toml"
    for args in (["generate", "grid", "--platform", platform, "--preset", "thesis-4.1",
                  "-n", "200", "--seed", "1", "-o", str(root / "jobs.swf")],
                 ["simulate", str(root / "jobs.swf"), "--platform", platform, "--out",
                  str(root / "run")],
                 ["report", str(root / "run")]):
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
    return root / "run" / "report.html"


def images(html: str) -> list[str]:
    return re.findall(r'<img src="(data:[^"]+)"', html)


def test_the_report_lists_runs_failures_spec_and_versions(small_html: str) -> None:
    html = small_html
    assert "<title>small &lt;report&gt; — schedlab report</title>" in html
    assert "<p>Two policies &amp; a broken trace</p>" in html
    assert "4 runs: 2 finished, 2 failed." in html
    assert f"Generated {GENERATED} by schedlab" in html
    runs = html.split('<section id="runs">')[1].split("</section>")[0]
    assert runs.startswith("<h2>Runs</h2>\n<details><summary>4 runs, one row each")
    assert runs.count("<tr>") == 1 + 4
    assert "<td>finished</td>" in runs and "<td>failed</td>" in runs
    failed = html.split('<section id="failed">')[1].split("</section>")[0]
    assert failed.count("<tr>") == 1 + 2
    assert re.search(r"<td>InputError: [^<]*broken\.swf:7: ", failed)
    spec = html.split('<section id="spec">')[1].split("</section>")[0]
    assert 'name = &quot;small &lt;report&gt;&quot;' in spec
    versions = html.split('<section id="versions">')[1].split("</section>")[0]
    for package in ("python", "schedlab", "numpy", "pandas", "matplotlib", "pyarrow"):
        assert f"<td>{package}</td>" in versions


def test_the_figures_follow_what_the_experiment_varies(small_html: str,
                                                       sweep_report: Path) -> None:
    titles = re.findall(r"<figure><h3>([^<]+)</h3>", small_html)
    assert titles == ["small: wait by width class", "small: bounded slowdown by run-time class",
                      "small: utilization and queue length", "small: schedule of fcfs"]
    swept = sweep_report.read_text(encoding="utf-8")
    titles = re.findall(r"<figure><h3>([^<]+)</h3>", swept)
    assert titles[:3] == ["ARTwW [h] against shrinking factor",
                          "SLDwW₆₀ against shrinking factor",
                          "utilization against shrinking factor"]
    per_point = ["lublin: wait by width class", "lublin: bounded slowdown by run-time class",
                 "lublin: utilization and queue length", "lublin: schedule of fcfs+easy"]
    assert titles[3:] == per_point * 2           # both shrinking factors, each said
    captions = re.findall(r"Figure (\d+)\. [^<]*Setting: shrink = ([\d.]+), seed = 0 "
                          r"\(one run of 2 seeds\)\.</figcaption>", swept)
    assert captions == [(str(k), "0.8") for k in range(4, 8)] + [(str(k), "1")
                                                                  for k in range(8, 12)]


def test_the_report_is_self_contained_and_the_same_for_the_same_experiment(
        sweep_exp: Path, sweep_report: Path) -> None:
    first = sweep_report.read_text(encoding="utf-8")
    assert first == build_report(sweep_exp, generated=GENERATED)
    assert all(uri.startswith("data:image/svg+xml;base64,") for uri in images(first))
    assert not re.search(r'(src|href)="(https?:|file:|//)', first)
    assert "<script" not in first and "<link" not in first


def test_the_machine_size_comes_from_the_run_or_from_streits_utilization() -> None:
    """Jobs 0-100 on 2 and 50-150 on 3 processors from submits at 0: area 500, span 150.
    A utilization of 500 / (8 x 150) means 8 processors."""
    jobs = pd.DataFrame({"submit": [0, 0, 0], "start": [0, 50, None], "end": [100, 150, None],
                         "width": [2, 3, 9], "status": ["finished", "finished", "rejected"]})
    assert machine_size({"processors": pd.NA, "utilization": 500 / 1200}, jobs) == 8
    assert machine_size({"processors": 16, "utilization": 500 / 1200}, jobs) == 16
    assert machine_size({"processors": None, "utilization": 0.0}, jobs) == 9


def test_a_sweep_point_fixes_every_sweep_column_but_keeps_other_policies() -> None:
    """dynp runs k = 2 and 4 at shrink 0.8, fcfs (no k) at 0.8 and 1.0: the points are
    (k = 2, 0.8), (k = 4, 0.8) and fcfs alone at 1.0, each at seed 0; fcfs at 0.8 is in
    both points of 0.8."""
    runs = pd.DataFrame({
        "run_id": list("abcdef"), "policy": ["dynp", "dynp", "dynp", "fcfs", "fcfs", "fcfs"],
        "seed": [0, 0, 1, 0, 1, 0], "param.k": [4, 2, 2, np.nan, np.nan, np.nan],
        "transform.shrink": [0.8, 0.8, 0.8, 0.8, 0.8, 1.0]})
    assert [point["run_id"].tolist() for point in sweep_points(runs)] == [
        ["b", "d"], ["a", "d"], ["f"]]


def test_the_gantt_window_holds_the_middle_jobs() -> None:
    starts = np.arange(0, 1000, 10)                    # 100 jobs starting every 10 s
    jobs = pd.DataFrame({"start": starts, "end": starts + 5, "status": "finished"})
    assert middle_window(jobs, count=10) == (450.0, 540.0)
    assert middle_window(jobs.head(5), count=10) == (0.0, 45.0)


# --------------------------------------------------------------------------- headless Chromium


@pytest.fixture(scope="session")
def chromium() -> str:
    """The chromium executable, installed with apt-get if missing and possible."""
    found = shutil.which("chromium")
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("Debian's chromium is not installed and cannot be installed here "
                    "(needs apt-get as root): apt-get install -y chromium")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            pytest.skip(f"chromium is not installed and '{' '.join(command)}' failed: "
                        f"{done.stderr.strip().splitlines()[-1:]}")
    found = shutil.which("chromium")
    if not found:
        pytest.skip("apt-get installed chromium but it is not on PATH")
    return found


#: Added to a copy of a report: after the page has loaded, writes what the browser shows
#: into the DOM: every image decoded and laid out, every table's rows, size, overflow and
#: place, the first figure's place, and the widths of the page and the window.
PROBE = """<script>
window.addEventListener("load", function () {
  var box = function (e) { var r = e.getBoundingClientRect(); return [r.width, r.height]; };
  var top = function (e) { return e.getBoundingClientRect().top + window.scrollY; };
  var figure = document.querySelector("figure");
  var report = {
    images: Array.prototype.map.call(document.images, function (i) {
      return {complete: i.complete, natural: [i.naturalWidth, i.naturalHeight], shown: box(i)};
    }),
    tables: Array.prototype.map.call(document.querySelectorAll("table"), function (t) {
      return {section: t.closest("section").id, rows: t.rows.length, shown: box(t),
              top: top(t), overflow: t.scrollWidth - t.clientWidth,
              visible: t.checkVisibility()};
    }),
    first_figure: figure ? top(figure) : null,
    page_width: document.documentElement.scrollWidth,
    window_width: window.innerWidth
  };
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
});
</script>"""


def run_chromium(chromium: str, page: Path, profile: Path,
                 *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra,
                           page.as_uri()], capture_output=True, text=True, timeout=120)


def console_messages(stderr: str) -> list[str]:
    """Lines Chromium logs for the page's console (JavaScript errors, failed loads)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def seen_in_chromium(chromium: str, report: Path, tmp_path: Path, width: int = 1280) -> dict:
    """What headless Chromium shows of ``report`` in a window ``width`` pixels wide."""
    probed = tmp_path / "probed.html"
    probed.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                      encoding="utf-8")
    done = run_chromium(chromium, probed, tmp_path / "profile", f"--window-size={width},900",
                        "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found, "the page did not finish loading"
    return json.loads(found.group(1).replace("&quot;", '"'))


def assert_a_reader_sees_summary_then_figures(seen: dict, figures: int) -> None:
    """The first table is the summary and stands above the first figure; every figure is
    decoded and laid out at a readable size; the page does not scroll sideways and
    neither does the summary table."""
    summary = seen["tables"][0]
    assert summary["rows"] > 1 and min(summary["shown"]) > 0
    assert seen["first_figure"] is not None and summary["top"] < seen["first_figure"]
    assert summary["overflow"] <= 0, f"the summary scrolls sideways by {summary['overflow']} px"
    assert seen["page_width"] <= seen["window_width"]
    assert len(seen["images"]) == figures
    for image in seen["images"]:
        assert image["complete"] and min(image["natural"]) > 100 and min(image["shown"]) > 100


def test_chromium_shows_a_sweep_summary_first_every_figure_and_no_sideways_scroll(
        chromium: str, sweep_report: Path, tmp_path: Path) -> None:
    seen = seen_in_chromium(chromium, sweep_report, tmp_path)
    assert_a_reader_sees_summary_then_figures(seen, figures=11)
    summary, runs, versions = seen["tables"]
    assert summary["section"] == "summary" and summary["rows"] == 1 + 4   # 2 policies x 2
    assert runs["section"] == "runs" and runs["rows"] == 1 + 8
    assert not runs["visible"] and summary["visible"]   # folded until the reader opens it
    assert versions["rows"] == 1 + 6 and min(versions["shown"]) > 0


def test_chromium_shows_a_compare_report_summary_first_without_sideways_scroll(
        chromium: str, compare_report: Path, tmp_path: Path) -> None:
    seen = seen_in_chromium(chromium, compare_report, tmp_path)
    assert_a_reader_sees_summary_then_figures(seen, figures=6)   # comparison, 2 class
    # bars, a schedule per run
    assert seen["tables"][0]["rows"] == 1 + 3


def test_chromium_shows_a_grid_report_summary_first_without_sideways_scroll(
        chromium: str, grid_report: Path, tmp_path: Path) -> None:
    seen = seen_in_chromium(chromium, grid_report, tmp_path)
    assert_a_reader_sees_summary_then_figures(seen, figures=len(seen["images"]))
    assert len(seen["images"]) >= 2
    assert [t["section"] for t in seen["tables"]][:2] == ["runs", "clusters"]


def test_chromium_paints_the_figures(chromium: str, sweep_report: Path, tmp_path: Path) -> None:
    """A screenshot of the report's first screens holds the first curve: many pixels of
    the palette's blue (#0072B2) and vermillion (#D55E00), the colours of the two
    policies."""
    import matplotlib.image

    shot = tmp_path / "shot.png"
    done = run_chromium(chromium, sweep_report, tmp_path / "profile", "--window-size=1280,1600",
                        "--hide-scrollbars", f"--screenshot={shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    pixels = (matplotlib.image.imread(shot)[:, :, :3] * 255).round().astype(int)
    for colour in ((0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00)):
        close = np.all(np.abs(pixels - np.array(colour)) <= 8, axis=2)
        assert close.sum() > 200, f"too few pixels of {colour}"


def test_the_runs_table_shows_the_rejected_shares_and_a_dash_for_a_missing_metric() -> None:
    from schedlab.experiments.report import runs_table

    frame = pd.DataFrame({"run_id": ["r1", "r2"], "workload": ["w", "w"],
                          "policy": ["fcfs+easy", "qops"], "seed": [0, 0],
                          "status": ["finished", "finished"], "wall_time": [1.0, 2.0],
                          "rejected_pct": [0.0, 74.0], "rejected_area_pct": [0.0, 81.5],
                          "avg_wait": [3600.0, 1200.0],
                          "avg_bsld_60": [3.0, float("nan")]})    # qops ran no job: missing
    table = runs_table(frame)
    headers = re.findall(r"<th>([^<]*)</th>", table)
    assert headers.index("rejected_pct") + 1 == headers.index("rejected_area_pct") \
        < headers.index("avg_wait")
    assert "<td class=\"num\">74</td><td class=\"num\">81.5</td>" in table
    assert table.count("—") == 1
