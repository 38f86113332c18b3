"""Figures of grid runs (thesis §4.3): boxes, bars and lines checked against their data;
``schedlab plot`` on grid run directories."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.cli.plotgrid import run_labels
from schedlab.errors import InputError
from schedlab.viz.grid import (
    DEADLINE_COLORS,
    GridRun,
    MachineRows,
    deadline_status,
    interarrival_figure,
    licence_class,
    machine_gantt_figure,
    share_figure,
)
from schedlab.viz.style import OUTAGE_COLORS

from .helpers import SMALL_SWF

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def jobs_table():
    return pd.DataFrame({
        "job_id": [1, 2, 3], "submit": [0, 0, 0], "start": [0, 0, 5], "end": [10, 5, 10],
        "width": [2, 2, 2], "status": ["finished"] * 3, "deadline": [20, None, 8],
        "machine": ["m1", "m1", "m2"], "cluster": ["c1", "c1", "c2"],
        "licences": ["a;b;c", "", "a"]})


def test_machine_gantt_puts_each_job_on_its_machines_cpus_by_first_fit():
    rows = MachineRows(["m1", "m2"], ["c1", "c2"], [4, 2])
    figure = machine_gantt_figure(jobs_table(), rows)
    boxes = figure.axes[0].collections[0]
    spans = [(round(p.vertices[:, 1].min(), 3), round(p.vertices[:, 1].max(), 3))
             for p in boxes.get_paths()]
    # m1 is the top row [1, 2): job 1 on CPUs 0-1 (the top half), job 2 on CPUs 2-3
    # (placed after job 1: same start, table order); m2 is [0, 1), job 3 on both CPUs
    assert sorted(spans) == [(0.0, 1.0), (1.0, 1.5), (1.5, 2.0)]
    faces = [to_hex(c) for c in boxes.get_facecolors()]
    by_span = dict(zip(spans, faces))
    assert by_span[(1.5, 2.0)] == DEADLINE_COLORS["met"].lower()
    assert by_span[(1.0, 1.5)] == DEADLINE_COLORS["none"].lower()
    assert by_span[(0.0, 1.0)] == DEADLINE_COLORS["missed"].lower()


def test_machine_gantt_draws_failures_and_windows_over_their_machines_rows():
    """m2's CPUs follow m1's four: a failure of CPUs 4-5 covers m2's row [0, 1), a window
    of CPUs 0-3 m1's row [1, 2)."""
    rows = MachineRows(["m1", "m2"], ["c1", "c2"], [4, 2])
    outages = pd.DataFrame({"kind": ["failure", "window"], "job_id": [None, None],
                            "first": [4, 0], "count": [2, 4], "start": [2, 6], "end": [6, 8]})
    figure = machine_gantt_figure(jobs_table(), rows, outages=outages)
    drawn = {to_hex(c.get_facecolors()[0]): [(round(p.vertices[:, 1].min(), 3),
                                             round(p.vertices[:, 1].max(), 3))
                                            for p in c.get_paths()]
             for c in figure.axes[0].collections[1:]}
    assert drawn == {to_hex(OUTAGE_COLORS["failure"]): [(0.0, 1.0)],
                     to_hex(OUTAGE_COLORS["window"]): [(1.0, 2.0)]}
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "failure (1)" in labels and "window (1)" in labels


def test_deadline_status_and_licence_classes():
    jobs = jobs_table()
    assert deadline_status(jobs).tolist() == ["met", "none", "missed"]
    assert licence_class(jobs).tolist() == ["3-5", "0", "1-2"]


def test_machine_gantt_refuses_a_space_sharing_jobs_table_and_an_unknown_colouring():
    with pytest.raises(InputError, match="machine column"):
        machine_gantt_figure(jobs_table().drop(columns="machine"))
    with pytest.raises(InputError, match="deadline or licences"):
        machine_gantt_figure(jobs_table(), color_by="width")


def grid_run(label, ta, shares):
    jobs = pd.DataFrame({"submit": [0, ta, 2 * ta]})
    metrics = {"cluster_share_optimum.c1": 2 / 3, "cluster_share_optimum.c2": 1 / 3,
               "cluster_work_share.c1": shares[0], "cluster_work_share.c2": shares[1],
               "deadline_missed_pct": 10.0 + ta, "system_usage": 0.5,
               "licence_usage": 0.25}
    return GridRun(label, jobs, metrics)


def test_share_bars_are_the_work_shares_beside_the_optimum():
    figure = share_figure([grid_run("ms", 5, (0.6, 0.4)), grid_run("ms", 0, (0.5, 0.5))])
    heights = [round(p.get_height(), 6) for p in figure.axes[0].patches]
    # optimum, then the runs by Ta: Ta 0, Ta 5; per bar series one bar per cluster
    assert heights == [round(100 * 2 / 3, 6), round(100 / 3, 6), 50.0, 50.0, 60.0, 40.0]


def test_ta_curve_has_one_line_per_label_over_the_measured_interarrival():
    runs = [grid_run("a", 10, (0.5, 0.5)), grid_run("a", 0, (0.5, 0.5)),
            grid_run("b", 5, (0.5, 0.5))]
    figure = interarrival_figure(runs, ["deadline_missed_pct"])
    lines = {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()))
             for line in figure.axes[0].lines}
    assert lines == {"a": ([0.0, 10.0], [10.0, 20.0]), "b": ([5.0], [15.0])}
    with pytest.raises(InputError, match="no metric 'artww'"):
        interarrival_figure(runs, ["artww"])


def test_a_ta_curve_of_a_metric_missing_in_every_run_draws_no_point():
    # a platform without licences has no licence usage (None, docs/reference/metrics.md)
    runs = [dataclasses.replace(run, metrics={**run.metrics, "licence_usage": None})
            for run in (grid_run("a", 10, (0.5, 0.5)), grid_run("a", 0, (0.5, 0.5)))]
    figure = interarrival_figure(runs, ["licence_usage"])
    (line,) = figure.axes[0].lines
    assert np.isnan(np.asarray(line.get_ydata(), dtype=float)).all()


def test_run_labels_name_the_parameters_that_differ():
    documents = [{"policy": "bf-fcfs@ms-heuristics", "params": {"order": "priority", "x": 1}},
                 {"policy": "bf-fcfs@ms-heuristics", "params": {"order": "arrival", "x": 1}}]
    assert run_labels(documents) == ["bf-fcfs@ms-heuristics[order=priority]",
                                     "bf-fcfs@ms-heuristics[order=arrival]"]
    documents.append({"policy": "bf-fcfs@round-robin", "params": {"order": "arrival"}})
    assert run_labels(documents)[2] == "bf-fcfs@round-robin[order=arrival]"


# ------------------------------------------------------------------ schedlab plot
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def grid_runs(tmp_path_factory) -> Path:
    """Two Ta and two dispatchers on the two-sites platform: runs/<dispatch>-ta<Ta>."""
    base = tmp_path_factory.mktemp("grid")
    platform = ROOT / "examples" / "platforms" / "two-sites.toml"
    for ta in (2, 20):
        done = invoke("generate", "grid", "--platform", platform, "--preset", "thesis-4.1",
                      "-n", "60", "--ta", ta, "--seed", "1", "-o", base / f"ta{ta}.swf")
        assert done.exit_code == 0, done.output
        for dispatch in ("ms-heuristics", "round-robin"):
            done = invoke("simulate", base / f"ta{ta}.swf", "--platform", platform,
                          "--dispatch", dispatch, "--out", base / "runs" / f"{dispatch}-ta{ta}")
            assert done.exit_code == 0, done.output
    return base / "runs"


@pytest.mark.parametrize("source, args", [
    ("", ["--kind", "shares"]),
    ("", ["--kind", "ta-curve"]),
    ("", ["--kind", "ta-curve", "--metric", "nondeadline_avg_slowdown"]),
    ("ms-heuristics-ta2", ["--kind", "gantt", "--by", "licences", "--window", "0:500"]),
    ("ms-heuristics-ta2", ["--kind", "gantt"]),
    ("ms-heuristics-ta2", ["--kind", "shares"]),
])
def test_plot_draws_grid_figures(grid_runs, tmp_path, source, args):
    out = tmp_path / "figure.png"
    done = invoke("plot", grid_runs / source, *args, "--out", out)
    assert done.exit_code == 0, done.output
    assert out.read_bytes().startswith(PNG)


def test_plot_refuses_what_a_grid_figure_cannot_draw(grid_runs, tmp_path):
    one = invoke("plot", grid_runs / "round-robin-ta2", "--kind", "ta-curve")
    assert one.exit_code == 2 and "at least two runs" in one.output
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    assert invoke("simulate", tmp_path / "small.swf", "--policy", "fcfs", "--out",
                  tmp_path / "plain").exit_code == 0
    plain = invoke("plot", tmp_path / "plain", "--kind", "shares")
    assert plain.exit_code == 2 and "not a grid run" in plain.output
    by = invoke("plot", tmp_path / "plain", "--kind", "gantt", "--by", "licences")
    assert by.exit_code == 2 and "grid run" in by.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = invoke("plot", empty, "--kind", "shares")
    assert nothing.exit_code == 2 and "directory of them" in " ".join(nothing.output.split())
    shutil.rmtree(empty)


def test_report_of_grid_runs_has_the_runs_table_and_the_three_figures(grid_runs, tmp_path):
    out = tmp_path / "report.html"
    done = invoke("report", grid_runs, "--out", out, "--format", "png")
    assert done.exit_code == 0, done.output
    text = out.read_text()
    assert text.count("<figure>") == 3 and text.count("data:image/png;base64,") == 3
    for run in ("ms-heuristics-ta2", "ms-heuristics-ta20", "round-robin-ta2"):
        assert f"<td>{run}</td>" in text
    assert "Workload per cluster" in text and "Schedule per machine" in text
    single = invoke("report", grid_runs / "round-robin-ta20", "--out", tmp_path / "one.html")
    assert single.exit_code == 0 and (tmp_path / "one.html").read_text().count("<figure>") == 2
