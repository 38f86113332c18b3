"""Bars per width or run-time class, read from flat metric names."""

from __future__ import annotations

import math

import pytest

from schedlab.errors import InputError
from schedlab.metrics import compute_metrics
from schedlab.metrics.classes import WIDTH_CLASSES
from schedlab.viz.classes import (
    class_tick,
    class_values,
    classes_figure,
    range_label,
    rows_from_results,
    width_class_label,
)

from .helpers import small_result


def flat(counts: dict[str, int], waits: dict[str, float]) -> dict[str, float]:
    """Flat per-class metrics with the given job counts and average waits (others 0)."""
    row: dict[str, float] = {}
    for job_class in WIDTH_CLASSES:
        row[f"{job_class.name}.jobs"] = counts.get(job_class.name, 0)
        row[f"{job_class.name}.avg_wait"] = waits.get(job_class.name, 0.0)
    return row


ROWS = {"fcfs": flat({"width_1": 3, "width_2_64": 5}, {"width_1": 1800.0, "width_2_64": 36000.0}),
        "sjf": flat({"width_1": 3, "width_2_64": 4}, {"width_1": 900.0, "width_2_64": 72000.0})}


def test_classes_without_jobs_anywhere_are_left_out() -> None:
    classes, values, counts = class_values(ROWS, "width", "avg_wait")
    assert [c.label for c in classes] == ["1", "2-64"]
    assert values == {"fcfs": [1800.0, 36000.0], "sjf": [900.0, 72000.0]}
    assert counts == [[3, 3], [5, 4]]


def test_the_tick_says_how_many_jobs_a_class_holds() -> None:
    assert class_tick("1", [3, 3]) == "1\nn = 3"
    assert class_tick("2-64", [5, 4]) == "2-64\nn = 4–5"
    assert class_tick("2-64", [1200]) == "2-64\nn = 1,200"


def test_bars_have_the_values_in_hours_and_each_label_its_colour() -> None:
    figure = classes_figure(ROWS, "width", "avg_wait")
    ax = figure.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == [0.5, 10.0, 0.25, 20.0]          # fcfs bars, then sjf bars, in hours
    colours = {bar.get_facecolor() for bar in ax.patches[:2]}
    assert len(colours) == 1
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1\nn = 3", "2-64\nn = 4–5"]
    assert ax.get_ylabel() == "mean wait [h]"
    assert figure.get_suptitle() == "mean wait [h] by width class"
    assert [t.get_text() for t in ax.texts] == ["0.5", "10", "0.25", "20"]


WIDE = {"fcfs": flat({"width_1": 3, "width_65_256": 2}, {"width_1": 3600.0,
                                                         "width_65_256": 7200.0})}


def test_width_classes_end_at_the_machine_size() -> None:
    """On 100 processors the large class is 65-100: no class is labelled beyond the machine."""
    ticks = [t.get_text() for t in
             classes_figure(WIDE, processors=100).axes[0].get_xticklabels()]
    assert ticks == ["1\nn = 3", "65-100\nn = 2"]
    assert not any("256" in tick for tick in ticks)
    unknown = classes_figure(WIDE).axes[0].get_xticklabels()         # machine size unknown
    assert [t.get_text() for t in unknown] == ["1\nn = 3", "65-256\nn = 2"]


def test_a_width_class_above_the_machine_is_not_drawn() -> None:
    ticks = [t.get_text() for t in classes_figure(WIDE, processors=64).axes[0].get_xticklabels()]
    assert ticks == ["1\nn = 3"]
    assert range_label(65, 256, 100) == "65-100"
    assert range_label(257, math.inf, 1152) == "257-1152"
    assert range_label(257, math.inf, 256) is None
    assert range_label(1, 1, 4) == "1" and range_label(2, 64, 2) == "2"
    assert [width_class_label(c, 4) for c in WIDTH_CLASSES] == ["1", "2-4", None, None]


def test_a_result_gives_its_breakdown_by_run_time() -> None:
    """fcfs+easy on the small trace: run times 100, 50, 100 (killed at its estimate), 20 s,
    all <= 5 min; waits 0, 110, 0, 0 -> mean 27.5."""
    rows = rows_from_results({"fcfs+easy": small_result()})
    classes, values, counts = class_values(rows, "runtime", "avg_wait")
    assert [c.label for c in classes] == ["<=5m"]
    assert values == {"fcfs+easy": [27.5]} and counts == [[4]]
    assert rows["fcfs+easy"] == {k: v for k, v in compute_metrics(small_result()).items()
                                 if k.startswith(("width_", "runtime_"))}


def test_bad_choices_are_user_mistakes() -> None:
    with pytest.raises(InputError, match="field by: expected classes by width or runtime"):
        classes_figure(ROWS, "user")
    with pytest.raises(InputError, match="field metric: expected a class metric"):
        classes_figure(ROWS, "width", "artww")
    with pytest.raises(InputError, match=r"run 'x' has no metric 'width_1.jobs'"):
        classes_figure({"x": {"avg_wait": 1.0}})
    with pytest.raises(InputError, match="no run to draw"):
        classes_figure({})
    with pytest.raises(InputError, match="no job ran in any class"):
        classes_figure({"x": flat({}, {})})


def test_a_log_scale_on_request() -> None:
    assert classes_figure(ROWS, log=True).axes[0].get_yscale() == "log"


def test_a_class_one_run_has_no_job_in_has_no_bar_for_it_not_a_zero() -> None:
    # sjf ran no job wider than 64; its width_65_256 metrics are missing (None)
    rows = {"fcfs": flat({"width_1": 3, "width_65_256": 2}, {"width_1": 10.0,
                                                             "width_65_256": 90.0}),
            "sjf": {**flat({"width_1": 3}, {"width_1": 5.0}), "width_65_256.avg_wait": None}}
    classes, values, _counts = class_values(rows, "width", "avg_wait")
    assert [c.label for c in classes] == ["1", "65-256"]
    assert values["fcfs"] == [10.0, 90.0]
    assert values["sjf"][0] == 5.0 and values["sjf"][1] != values["sjf"][1]     # NaN
    figure = classes_figure(rows, "width", "avg_wait")
    figure.canvas.draw()
    labels = [text.get_text() for text in figure.axes[0].texts]
    assert "nan" not in labels and "0" not in labels
