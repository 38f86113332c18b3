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


#: The 95 % interval of fcfs at 1.0 over its seeds (100, 140): t(0.975, 1) = 12.706 times
#: the standard deviation 28.28 over sqrt(2), i.e. 12.706 x 20.
FCFS_CI = 12.7062047 * 20


def test_points_average_the_seeds_and_leave_failed_runs_out() -> None:
    points = curve_points(RUNS, "artww", "transform.shrink")
    assert points.drop(columns="ci").to_dict("records") == [
        {"workload": "ctc", "line": "fcfs", "x": 0.8, "mean": 300.0, "runs": 1},
        {"workload": "ctc", "line": "fcfs", "x": 1.0, "mean": 120.0, "runs": 2},
        {"workload": "ctc", "line": "sjf", "x": 0.8, "mean": 200.0, "runs": 1},
        {"workload": "ctc", "line": "sjf", "x": 1.0, "mean": 90.0, "runs": 1},
    ]
    assert points["ci"].tolist()[1] == pytest.approx(FCFS_CI)
    assert points["ci"].isna().tolist() == [True, False, True, True]     # one run: no interval


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
    assert lines["fcfs"].get_ydata().tolist() == [300 / 3600, 120 / 3600]      # hours
    assert lines["sjf"].get_ydata().tolist() == [200 / 3600, 90 / 3600]
    assert ax.get_xlabel() == "shrinking factor" and ax.get_ylabel() == "ARTwW [h]"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.8", "1"]
    (bars,) = ax.collections                           # interval bars: fcfs at 1.0 only
    (segment,) = bars.get_segments()
    assert segment.ravel().tolist() == pytest.approx([1.0, (120.0 - FCFS_CI) / 3600,
                                                      1.0, (120.0 + FCFS_CI) / 3600])
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["fcfs", "sjf", "95 % confidence interval, up to 2 seeds"]
    assert figure._suptitle.get_text() == "ARTwW [h] against shrinking factor"


def test_reference_points_are_hollow_markers_in_the_policys_colour() -> None:
    reference = pd.DataFrame({"policy": ["fcfs", "fcfs", "dynp"], "x": [1.0, 0.8, 1.0],
                              "value": [110.0, 250.0, 80.0]})
    figure = curve_figure(RUNS, "artww", reference=reference, reference_label="Streit Fig. 4")
    ax = figure.axes[0]
    ours, = [line for line in ax.get_lines() if line.get_label() == "fcfs"]
    paper, = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert paper.get_xdata().tolist() == [0.8, 1.0] and paper.get_ydata().tolist() == [250 / 3600, 110 / 3600]
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


def test_a_categorical_parameter_is_drawn_as_categories_without_joining_lines() -> None:
    """Gang Strategies 1-3 name alternatives (the policy declares ``strategy``
    categorical): three evenly spaced labelled places, markers side by side, no line."""
    frame = pd.DataFrame({"workload": "w", "policy": "gang", "seed": 0, "status": "finished",
                          "param.strategy": [1, 2, 3, 1, 2, 3],
                          "param.slot": [10, 10, 10, 100, 100, 100],
                          "gang_slowdown": [5.0, 4.0, 3.0, 2.0, 1.5, 1.2]})
    figure = curve_figure(frame, "gang_slowdown", "param.strategy")
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"gang[slot=10]", "gang[slot=100]"}
    assert all(line.get_linestyle() == "None" for line in lines.values())
    assert lines["gang[slot=10]"].get_xdata().tolist() == pytest.approx([-0.3, 0.7, 1.7])
    assert lines["gang[slot=100]"].get_xdata().tolist() == pytest.approx([0.3, 1.3, 2.3])
    assert {h.get_linestyle() for h in figure.legends[0].legend_handles} == {"None"}
    numeric = curve_figure(frame, "gang_slowdown", "param.slot").axes[0]
    assert {line.get_linestyle() for line in numeric.get_lines()} == {"-"}
