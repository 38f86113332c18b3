"""Figures a researcher publishes from: words and units on the axes, legends clear of the
data, size classes of the machine drawn, share axes from zero.

Hand-made tables in the shape of the reservations recipe's (Margo et al.):
scenario means per workload and policy, and the size-class table, on KTH's
100 nodes and Blue Horizon's 144.
"""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from schedlab.experiments.recipes.report import lines_figure
from schedlab.experiments.recipes.reservations.design import SCENARIOS, SIZE_CLASSES
from schedlab.experiments.recipes.reservations.figures import (
    bar_figure,
    class_figure,
    machine_classes,
)
from schedlab.viz.curves import HOUR_METRICS, METRIC_LABELS, is_share, metric_label, metric_scale

WORKLOADS = ("KTH-SP2 d120", "SDSC-BLUE d780")
POLICIES = ("fcfs+easy", "fcfs+conservative")
NODES = {"KTH-SP2 d120": 100, "SDSC-BLUE d780": 144}


def scenario_means() -> pd.DataFrame:
    """Expansion factors rising from baseline to + reservations, tallest bar 4.0: the
    bars a legend in the upper corner of the first panel would cover."""
    index = pd.MultiIndex.from_product([WORKLOADS, POLICIES, SCENARIOS],
                                       names=["workload", "policy", "scenario"])
    values = [1.5 + 0.5 * k for k in range(len(index))]
    return pd.DataFrame({"expansion_factor_weighted": [v % 4.0 + 1 for v in values],
                         "wait_h": values}, index=index)


def size_classes() -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples(
        list(itertools.product(WORKLOADS, POLICIES, SCENARIOS, [n for n, *_ in SIZE_CLASSES])),
        names=["workload", "policy", "scenario", "class"])
    return pd.DataFrame({"expansion_factor": 2.0, "wait_h": 3.0}, index=index)


def test_the_expansion_factor_legend_covers_no_bar() -> None:
    """Graph 4: the legend once stood over the first panel's '+ reservations' bar."""
    figure = bar_figure(scenario_means(), "expansion_factor_weighted", "Graph 4")
    figure.canvas.draw()
    assert len(figure.legends) == 1
    legend = figure.legends[0].get_window_extent()
    bars = [bar.get_window_extent() for ax in figure.axes for bar in ax.patches]
    assert len(bars) == len(WORKLOADS) * len(POLICIES) * len(SCENARIOS)
    assert not any(legend.overlaps(bar) for bar in bars)
    assert not any(legend.overlaps(ax.get_window_extent()) for ax in figure.axes)
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        "baseline", "+ reservations", "+ reservations + policy"]


def test_bar_axes_are_labelled_in_words_with_the_unit() -> None:
    figure = bar_figure(scenario_means(), "expansion_factor_weighted", "Graph 4")
    assert figure.axes[0].get_ylabel() == "expansion factor (node-seconds weighted)"
    wait = bar_figure(scenario_means(), "wait_h", "Graph 5")
    assert wait.axes[0].get_ylabel() == "wait weighted by node-seconds [h]"


def test_size_classes_are_those_of_each_machine() -> None:
    figure = class_figure(size_classes(), "wait_h", "fcfs+easy", "Graphs 12-13", NODES)
    kth, blue = ([t.get_text() for t in ax.get_xticklabels()] for ax in figure.axes)
    assert kth == ["1 node", "2-64 nodes", "65-100 nodes"]
    assert blue == ["1 node", "2-64 nodes", "65-144 nodes"]
    assert machine_classes(48) == [("1", "1 node"), ("2-64", "2-48 nodes")]


def test_a_share_drawn_as_lines_starts_at_zero_and_its_legend_is_outside() -> None:
    usage = pd.DataFrame({"EASY": [76.0, 80.0, 84.0], "FCFS": [77.0, 79.0, 83.0]},
                         index=[2.0, 4.0, 8.0])
    figure = lines_figure(usage, title="t", xlabel="Ta", ylabel="system usage [%]", share=True)
    figure.canvas.draw()
    ax = figure.axes[0]
    assert ax.get_ylim()[0] == 0
    assert not figure.legends[0].get_window_extent().overlaps(ax.get_window_extent())
    assert ax.get_legend() is None


def test_one_unit_of_time_and_a_word_for_every_time_metric() -> None:
    assert metric_scale("avg_wait") == pytest.approx(1 / 3600)
    assert metric_scale("avg_bsld_60") == 1.0
    assert {m for m, label in METRIC_LABELS.items() if label.endswith("[h]")} == HOUR_METRICS
    assert not any("[s]" in label for label in METRIC_LABELS.values())
    assert metric_label("avg_bsld_60") == "mean bounded slowdown (τ = 60 s)"
    assert is_share("utilization") and not is_share("avg_wait")
