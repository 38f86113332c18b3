"""The comparison figure of ``schedlab compare``: points per policy, one value axis each.

Hand-made metric rows: values chosen so that the wait and slowdown panels
need a log axis (a far-off FCFS) and utilization does not.
"""

from __future__ import annotations

import matplotlib.patches
import pytest

from schedlab.viz.compare import comparison_figure

HOUR = 3600.0
ROWS = {
    "fcfs": {"avg_wait": 226 * HOUR, "avg_bsld_60": 7175.6, "artww": 227 * HOUR,
             "utilization": 0.594},
    "fcfs+easy": {"avg_wait": 10.9 * HOUR, "avg_bsld_60": 213.7, "artww": 25.9 * HOUR,
                  "utilization": 0.688},
    "sjf+conservative": {"avg_wait": 14.5 * HOUR, "avg_bsld_60": 254.5, "artww": 33.9 * HOUR,
                         "utilization": 0.685},
}


def drawn(figure):
    figure.canvas.draw()
    return figure


def test_values_are_points_not_bars():
    figure = drawn(comparison_figure(ROWS, "t", offered_loads=[0.7]))
    for ax in figure.axes:
        assert not [p for p in ax.patches if isinstance(p, matplotlib.patches.Rectangle)]
        xs = sorted(x for line in ax.lines for x in line.get_xdata())
        assert len(xs) == len(ROWS)


def test_every_panel_lists_the_policies_in_the_given_order():
    figure = drawn(comparison_figure(ROWS, "t", offered_loads=[0.7]))
    labelled = [ax for ax in figure.axes
                if any(t.get_visible() and t.get_text() for t in ax.get_yticklabels())]
    assert len(labelled) == 1   # one shared policy axis, named once
    names = [t.get_text() for t in labelled[0].get_yticklabels()]
    assert names == list(ROWS)
    positions = {tuple(ax.get_yticks()) for ax in figure.axes}
    assert len(positions) == 1


def test_log_and_linear_panels_use_the_same_plain_tick_labels():
    figure = drawn(comparison_figure(ROWS, "t", offered_loads=[0.7]))
    scales = [ax.get_xscale() for ax in figure.axes]
    assert scales == ["log", "log", "linear", "linear"]   # ARTwW spans less than 20x
    for ax in figure.axes:
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert labels
        assert not any("$" in text or "times" in text or "e+" in text for text in labels)
    wait = figure.axes[0]
    shown = [t.get_text() for t in wait.get_xticklabels()
             if t.get_text() and wait.get_xlim()[0] <= t.get_position()[0] <= wait.get_xlim()[1]]
    assert "100" in shown and "10" in shown


def test_the_title_states_the_offered_load():
    figure = comparison_figure(ROWS, "lublin: 10000 jobs on 128 processors",
                               offered_loads=[0.7004])
    assert figure.get_suptitle().splitlines() == [
        "lublin: 10000 jobs on 128 processors", "offered load 0.70"]


def test_subtitle_of_several_seeds_gives_the_range_and_what_the_bars_mean():
    from schedlab.viz.compare import subtitle

    assert subtitle([0.606, 0.77, 0.70], runs=3) == (
        "offered load 0.69 (0.61–0.77 over 3 workloads); points: mean of 3 runs, "
        "bars: min–max")
    assert subtitle([], runs=1) == ""


def test_several_runs_per_policy_show_their_mean_and_min_max():
    runs = {"fcfs+easy": [{"utilization": 0.60}, {"utilization": 0.70}, {"utilization": 0.80}],
            "sjf+easy": [{"utilization": 0.50}, {"utilization": 0.55}, {"utilization": 0.75}]}
    figure = drawn(comparison_figure(runs, "t", offered_loads=[0.7, 0.7, 0.7]))
    utilization = figure.axes[3]
    means = sorted(x for line in utilization.lines for x in line.get_xdata()
                   if line.get_marker() not in (None, "None", "", "|"))
    assert means == pytest.approx([0.60, 0.70])
    spans = sorted(tuple(sorted(segment[:, 0])) for collection in utilization.collections
                   for segment in collection.get_segments())
    assert spans == [pytest.approx((0.5, 0.75)), pytest.approx((0.6, 0.8))]


def test_a_missing_metric_leaves_the_policy_without_a_point():
    rows = {"a": {"avg_wait": 3600.0, "utilization": 0.5}, "b": {"utilization": 0.6}}
    figure = drawn(comparison_figure(rows, "t", offered_loads=[]))
    wait = figure.axes[0]
    assert sorted(x for line in wait.lines for x in line.get_xdata()) == [1.0]


def test_rejections_get_their_panels_when_a_policy_rejected_jobs():
    rows = {"fcfs+easy": {**ROWS["fcfs+easy"], "rejected": 0, "rejected_pct": 0.0,
                          "rejected_area_pct": 0.0},
            "qops": {**ROWS["sjf+conservative"], "rejected": 74, "rejected_pct": 74.0,
                     "rejected_area_pct": 81.5}}
    figure = drawn(comparison_figure(rows, "t", offered_loads=[]))
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[-2:] == ["rejected jobs [%]", "rejected processor-seconds [%]"]
    jobs = figure.axes[-2]
    assert sorted(x for line in jobs.lines for x in line.get_xdata()) == [0.0, 74.0]
    without = drawn(comparison_figure(ROWS, "t", offered_loads=[]))
    assert len(without.axes) == 4                           # nobody rejected: no panel


def test_a_mean_over_fewer_runs_than_the_policy_has_says_over_how_many():
    rows = {"a": [{"avg_bsld_60": 2.0}, {"avg_bsld_60": 3.0}, {"avg_bsld_60": None}]}
    figure = drawn(comparison_figure(rows, "t", offered_loads=[]))
    slowdown = figure.axes[1]
    assert [text.get_text() for text in slowdown.texts] == ["2.5 (2 of 3 runs)"]


def test_panels_are_titled_in_words_with_times_in_hours():
    figure = drawn(comparison_figure(ROWS, "t", offered_loads=[0.7]))
    assert [ax.get_title() for ax in figure.axes] == [
        "mean wait [h]", "mean bounded slowdown (τ = 60 s)", "ARTwW [h]", "utilization"]
    artww = figure.axes[2]
    assert sorted(x for line in artww.lines for x in line.get_xdata()) == [25.9, 33.9, 227.0]


def test_a_narrow_utilization_axis_starts_at_zero():
    """0.76 against 0.84 drawn from 0.75 would look ten times apart: the axis starts at 0."""
    rows = {"a": {**ROWS["fcfs+easy"], "utilization": 0.76},
            "b": {**ROWS["sjf+conservative"], "utilization": 0.84}}
    utilization = drawn(comparison_figure(rows, "t")).axes[3]
    low, high = utilization.get_xlim()
    assert low == 0 and high > 0.84
