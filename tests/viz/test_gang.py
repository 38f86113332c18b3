"""Figures of a gang run: the matrix over time and the slots of a round (viz/gang.py),
their tables (metrics/gang.py), the files simulate --out writes and ``plot --kind
matrix|slots``.

The hand-worked run is that of docs/reference/policies/gang.md: A (25 s) and B (15 s), both
machine-wide on 2 processors, slot 10 s; A in row 0 from 0 to its end at 40, B in row 1
until its end at 35; two slots over [0, 35), one over [35, 40), none after.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.metrics.gang import matrix_table, parse_processors, processors_text, slots_table
from schedlab.viz.gang import (
    Place,
    matrix_figure,
    matrix_places,
    row_bands,
    slots_figure,
    window_steps,
)
from schedlab.viz.style import figure_bytes
from schedlab.workload.job import Job, Workload

PNG = b"\x89PNG\r\n\x1a\n"
runner = CliRunner()


@pytest.fixture(scope="module")
def worked():
    workload = Workload((Job(1, 0, 25, 25, 2), Job(2, 0, 15, 15, 2)), 2)
    return schedlab.simulate(workload, {"name": "gang", "slot": 10})


def test_tables_of_the_worked_run(worked):
    matrix = matrix_table(worked)
    assert matrix.values.tolist() == [[0, "place", 1, 0, "0-1"], [0, "place", 2, 1, "0-1"],
                                      [35, "leave", 2, 1, "0-1"], [40, "leave", 1, 0, "0-1"]]
    slots = slots_table(worked)
    assert list(zip(slots["time"], slots["slots"])) == [(0, 2), (35, 1), (40, 0)]


def test_processor_ranges_round_trip():
    ranges = ((0, 4), (8, 9), (10, 12))
    assert processors_text(ranges) == "0-3 8 10-11"
    assert parse_processors("0-3 8 10-11") == ranges


def test_places_own_guest_and_express_from_a_log():
    log = pd.DataFrame([(0, "place", 1, 0, "0-1"), (0, "place", 2, 1, "0"),
                        (0, "guest", 2, 0, "0"),   # not possible beside job 1; only a log
                        (10, "unguest", 2, 0, "0"), (12, "express", 3, -1, "1"),
                        (20, "move", 2, 0, "0"), (30, "leave", 2, 0, "0")],
                       columns=["time", "kind", "job_id", "row", "processors"])
    places = matrix_places(log, ends={3: 15}, until=50)
    assert sorted(places, key=lambda p: (p.job_id, p.start, p.kind)) == [
        Place(1, 0, 0, 50, ((0, 2),), "own"),
        Place(2, 0, 0, 10, ((0, 1),), "guest"), Place(2, 1, 0, 20, ((0, 1),), "own"),
        Place(2, 0, 20, 30, ((0, 1),), "own"),
        Place(3, -1, 12, 15, ((1, 2),), "express")]


def test_rows_whose_lifetimes_do_not_overlap_share_a_band():
    places = [Place(1, 0, 0, 10, ((0, 1),), "own"), Place(2, 1, 0, 5, ((0, 1),), "own"),
              Place(3, 2, 5, 9, ((0, 1),), "own"), Place(4, 3, 8, 12, ((0, 1),), "own")]
    assert row_bands(places) == {0: 0, 1: 1, 2: 1, 3: 2}


def test_window_steps_and_the_mean_of_the_slots_figure(worked):
    slots = slots_table(worked)
    t, c = window_steps(slots["time"].to_numpy(), slots["slots"].to_numpy(), 30, 38)
    assert t.tolist() == [30, 35] and c.tolist() == [2, 1]
    figure = slots_figure(slots, limit=5, window=(0, 40))
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "mean while busy: 1.88" in labels        # (2·35 + 1·5) / 40 = 1.875
    assert figure_bytes(figure).startswith(PNG)


def test_matrix_figure_draws_one_band_per_row(worked):
    jobs = pd.DataFrame({"job_id": [1, 2], "end": [40, 35]})
    figure = matrix_figure(matrix_table(worked), jobs, 2, window=(0, 40))
    labelled = [ax.get_ylabel() for ax in figure.axes if ax.get_ylabel()]
    assert labelled == ["row 2", "row 1"]           # row 1 at the bottom
    assert figure_bytes(figure).startswith(PNG)
    with pytest.raises(InputError, match="no job held a place"):
        matrix_figure(matrix_table(worked), jobs, 2, window=(100, 200))


def test_simulate_writes_the_tables_and_plot_draws_them(tmp_path):
    out = tmp_path / "run"
    done = runner.invoke(app, ["simulate", "w3", "--jobs", "200", "--policy", "gang",
                               "--param", "strategy=3", "--param", "slot=100", "--out",
                               str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "matrix.csv").read_text().startswith("time,kind,job_id,row,processors\n")
    assert (out / "slots.csv").read_text().startswith("time,slots\n")
    for kind in ("matrix", "slots"):
        image = tmp_path / f"{kind}.png"
        done = runner.invoke(app, ["plot", str(out), "--kind", kind, "--window", "0:7200",
                                   "--out", str(image)])
        assert done.exit_code == 0, done.output
        assert image.read_bytes().startswith(PNG)


def test_plot_matrix_of_a_space_sharing_run_is_a_clear_error(tmp_path):
    out = tmp_path / "easy"
    done = runner.invoke(app, ["simulate", "w3", "--jobs", "50", "--policy", "fcfs+easy",
                               "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert not (out / "matrix.csv").exists()
    done = runner.invoke(app, ["plot", str(out), "--kind", "matrix"])
    assert done.exit_code == 2
    assert "needs the matrix.csv of a gang run" in done.output


def test_report_of_a_gang_sweep_draws_slowdown_against_the_slot_length(tmp_path):
    from schedlab.experiments import run_sweep
    from schedlab.experiments.report import build_report

    spec = {"name": "gang-slots", "workloads": [{"source": "w3", "jobs": 150}],
            "policies": [{"name": "gang", "grid": {"slot": [1, 100]}}]}
    assert run_sweep(spec, tmp_path / "exp", executor="serial").complete
    html = build_report(tmp_path / "exp", generated="today", fmt="png")
    assert "<h3>average slowdown, short jobs against slot length l [s]</h3>" in html
    assert "<h3>average time slots in a round against slot length l [s]</h3>" in html


def test_timeseries_of_a_gang_run_is_the_engines_series_never_above_the_machine(tmp_path):
    """Adding up the widths of the jobs in the matrix counts a processor once per row
    (the w3 run below reached 250 %); plot reads the engine's series.csv instead."""
    from schedlab.cli.plot import gang_series

    out = tmp_path / "run"
    done = runner.invoke(app, ["simulate", "w3", "--jobs", "200", "--policy", "gang",
                               "--param", "slot=100", "--out", str(out)])
    assert done.exit_code == 0, done.output
    result = schedlab.simulate(schedlab.load_workload("w3", jobs=200),
                               {"name": "gang", "slot": 100})
    processors = json.loads((out / "metrics.json").read_text())["processors"]
    series = gang_series(out, processors)
    assert series.time.tolist() == result.series_time.tolist()
    assert series.busy.tolist() == result.series_busy.tolist()
    assert series.queue.tolist() == result.series_queue.tolist()
    assert series.busy.max() <= processors
    image = tmp_path / "series.png"
    done = runner.invoke(app, ["plot", str(out), "--kind", "timeseries", "--out", str(image)])
    assert done.exit_code == 0, done.output
    assert image.read_bytes().startswith(PNG)


@pytest.mark.parametrize("damage, expected", [
    (None, "expected the engine's series.csv"),
    ("time,busy,queue\n0,1,0\n10,x,0\n", "field busy: expected a whole number in row 2"),
    ("time,busy,queue\n0,1,0\n0,2,0\n", "field time: the times must increase"),
    ("time,busy\n0,1\n", "lacks the column(s) queue"),
])
def test_timeseries_of_a_gang_run_without_a_sound_series_is_a_clear_error(tmp_path, damage,
                                                                          expected):
    out = tmp_path / "run"
    done = runner.invoke(app, ["simulate", "w3", "--jobs", "30", "--policy", "gang",
                               "--out", str(out)])
    assert done.exit_code == 0, done.output
    if damage is None:
        (out / "series.csv").unlink()
    else:
        (out / "series.csv").write_text(damage)
    done = runner.invoke(app, ["plot", str(out), "--kind", "timeseries", "--out",
                               str(tmp_path / "series.png")])
    assert done.exit_code == 2
    assert expected in " ".join(done.output.split())
    assert "series.csv" in done.output
