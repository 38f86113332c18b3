"""Curves of a metric against a sweep column: points, lines, reference values, facets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schedlab.errors import InputError
from schedlab.viz.curves import curve_figure, curve_points, line_labels, varying_axes


def results(rows: list[tuple]) -> pd.DataFrame:
    """A results table: (workload, policy, seed, shrink, status, artww) per run."""
    return pd.DataFrame(rows, columns=["workload", "policy", "seed", "transform.shrink",
                                       "status", "artww"])


RUNS = results([
    ("ctc", "fcfs", 0, 1.0, "finished", 100.0),
    ("ctc", "fcfs", 1, 1.0, "finished", 140.0),
    ("ctc", "fcfs", 0, 0.8, "finished", 300.0),
    ("ctc", "fcfs", 1, 0.8, "failed", np.nan),
    ("ctc", "sjf", 0, 1.0, "finished", 90.0),
    ("ctc", "sjf", 0, 0.8, "finished", 200.0),
])


def test_points_average_the_seeds_and_leave_failed_runs_out() -> None:
    points = curve_points(RUNS, "artww", "transform.shrink")
    assert points.to_dict("records") == [
        {"workload": "ctc", "line": "fcfs", "x": 0.8, "mean": 300.0, "min": 300.0, "max": 300.0,
         "runs": 1},
        {"workload": "ctc", "line": "fcfs", "x": 1.0, "mean": 120.0, "min": 100.0, "max": 140.0,
         "runs": 2},
        {"workload": "ctc", "line": "sjf", "x": 0.8, "mean": 200.0, "min": 200.0, "max": 200.0,
         "runs": 1},
        {"workload": "ctc", "line": "sjf", "x": 1.0, "mean": 90.0, "min": 90.0, "max": 90.0,
         "runs": 1},
    ]


def test_a_parameter_grid_gives_one_line_per_setting() -> None:
    frame = RUNS.assign(**{"param.k": [2, 2, 2, 2, np.nan, np.nan]})
    frame.loc[1, "param.k"] = 4
    assert varying_axes(frame) == ["transform.shrink", "param.k"]
    assert line_labels(frame, "transform.shrink").tolist() == [
        "fcfs[k=2]", "fcfs[k=4]", "fcfs[k=2]", "fcfs[k=2]", "sjf", "sjf"]
    assert line_labels(RUNS, "transform.shrink").tolist() == RUNS["policy"].tolist()


def test_the_figure_draws_one_line_per_policy_through_the_means() -> None:
    figure = curve_figure(RUNS, "artww")
    ax = figure.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert lines["fcfs"].get_xdata().tolist() == [0.8, 1.0]
    assert lines["fcfs"].get_ydata().tolist() == [300.0, 120.0]
    assert lines["sjf"].get_ydata().tolist() == [200.0, 90.0]
    assert ax.get_xlabel() == "shrinking factor" and ax.get_ylabel() == "ARTwW [s]"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.8", "1"]
    (bars,) = ax.collections                           # min-max bars: fcfs at 1.0 only
    assert [segment.tolist() for segment in bars.get_segments()] == [[[1.0, 100.0],
                                                                     [1.0, 140.0]]]
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["fcfs", "sjf", "min–max over up to 2 seeds"]
    assert figure._suptitle.get_text() == "ARTwW [s] against shrinking factor"


def test_reference_points_are_hollow_markers_in_the_policys_colour() -> None:
    reference = pd.DataFrame({"policy": ["fcfs", "fcfs", "dynp"], "x": [1.0, 0.8, 1.0],
                              "value": [110.0, 250.0, 80.0]})
    figure = curve_figure(RUNS, "artww", reference=reference, reference_label="Streit Fig. 4")
    ax = figure.axes[0]
    ours, = [line for line in ax.get_lines() if line.get_label() == "fcfs"]
    paper, = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert paper.get_xdata().tolist() == [0.8, 1.0] and paper.get_ydata().tolist() == [250, 110]
    assert paper.get_color() == ours.get_color() and paper.get_markerfacecolor() == "white"
    assert figure.legends[0].get_texts()[-1].get_text() == "Streit Fig. 4"


def test_one_diagram_per_workload() -> None:
    two = pd.concat([RUNS, RUNS.assign(workload="kth")])
    figure = curve_figure(two, "artww", invert_x=True)
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["ctc", "kth"]
    assert visible[0].xaxis_inverted()
    unlabelled = pd.DataFrame({"policy": ["fcfs"], "x": [1.0], "value": [1.0]})
    with pytest.raises(InputError, match="reference points need a workload column"):
        curve_figure(two, "artww", reference=unlabelled)


def test_missing_or_non_numeric_columns_are_user_mistakes() -> None:
    with pytest.raises(InputError, match=r"field x: no column 'param.k' in the results "
                                         r"\(numeric columns: artww, seed, transform.shrink\)"):
        curve_figure(RUNS, "artww", "param.k")
    with pytest.raises(InputError, match="field metric: column 'policy' holds no number"):
        curve_figure(RUNS, "policy")
    with pytest.raises(InputError, match="no finished run to plot"):
        curve_figure(RUNS.assign(status="failed"), "artww")
    with pytest.raises(InputError, match="need the columns policy, x, value"):
        curve_figure(RUNS, "artww", reference=pd.DataFrame({"policy": ["fcfs"], "x": [1.0]}))
