"""Utilization and queue length: the series recomputed from jobs, resampling, the figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import schedlab
from schedlab.errors import InputError
from schedlab.viz.timeseries import (
    EXACT_LIMIT,
    Series,
    choose_step,
    duration_text,
    nice_step,
    series_from_frame,
    series_from_jobs,
    series_from_result,
    steps_in_window,
    timeseries_figure,
)

from .helpers import SERIES_BUSY, SERIES_QUEUE, SERIES_TIME, jobs_frame, small_result


def result_table(result) -> pd.DataFrame:
    """The jobs table of a result, as jobs.csv has it (no start/end for rejected jobs)."""
    names = result.status_names()
    rows = [(int(i), int(s), None if n == "rejected" else int(b),
             None if n == "rejected" else int(e), int(w), n)
            for i, s, b, e, w, n in zip(result.job_id, result.submit, result.start, result.end,
                                        result.width, names)]
    return jobs_frame(rows)


def test_the_series_recomputed_from_jobs_is_the_hand_worked_one() -> None:
    series = series_from_jobs(result_table(small_result()), 4)
    assert series.time.tolist() == SERIES_TIME
    assert series.busy.tolist() == SERIES_BUSY
    assert series.queue.tolist() == SERIES_QUEUE
    assert series.processors == 4


def test_the_series_recomputed_from_jobs_is_exactly_the_engines() -> None:
    result = schedlab.simulate(schedlab.load_workload("lublin", jobs=400), "sjf+easy")
    recomputed = series_from_jobs(result_table(result), result.processors)
    engine = series_from_result(result)
    assert np.array_equal(recomputed.time, engine.time)
    assert np.array_equal(recomputed.busy, engine.busy)
    assert np.array_equal(recomputed.queue, engine.queue)


def test_rejected_jobs_never_wait_and_never_hold_processors() -> None:
    table = jobs_frame([(1, 0, 0, 10, 2, "finished"), (2, 5, None, None, 3, "rejected")])
    series = series_from_jobs(table, 4)
    assert (series.time.tolist(), series.busy.tolist(), series.queue.tolist()) == \
        ([0, 10], [2, 0], [0, 0])


def test_a_job_that_ran_needs_its_times() -> None:
    with pytest.raises(InputError, match="field start: a job that ran has no submit, start"):
        series_from_jobs(jobs_frame([(1, 0, None, 10, 2, "finished")]), 4)


def test_a_stored_series_table_needs_its_three_columns() -> None:
    frame = pd.DataFrame({"time": [0, 5], "busy": [1, 0], "queue": [0, 0]})
    assert series_from_frame(frame, 8).busy.tolist() == [1, 0]
    with pytest.raises(InputError, match="field queue: the series table lacks the column"):
        series_from_frame(frame.drop(columns="queue"), 8)


def test_steps_in_a_window_start_with_the_value_then_in_force() -> None:
    x, y = steps_in_window(np.array(SERIES_TIME), np.array(SERIES_BUSY), (25.0, 110.0))
    assert x.tolist() == [25, 30, 50, 100, 110]
    assert y.tolist() == [3, 4, 3, 1, 1]


@pytest.mark.parametrize("span, step", [(100, 1.0), (1_000, 5.0), (86_400, 600.0),
                                        (330 * 86_400, 172_800.0), (10**9, 604_800.0)])
def test_nice_step_is_the_smallest_giving_at_most_250_bins(span: float, step: float) -> None:
    assert nice_step(span) == step


@pytest.mark.parametrize("seconds, text", [(45, "45 s"), (100, "100 s"), (2.5, "2.5 s"),
                                           (600, "10 min"), (10_800, "3 h"), (86_400, "1 day"),
                                           (172_800, "2 days"), (90_000, "25 h")])
def test_bin_lengths_are_written_in_the_largest_dividing_unit(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


def test_short_series_are_drawn_exactly_and_long_ones_resampled() -> None:
    short = {"a": Series(np.arange(10), np.ones(10), np.zeros(10), 4)}
    assert choose_step(short, (0, 9), None) is None
    long = {"a": Series(np.arange(EXACT_LIMIT + 1), np.ones(EXACT_LIMIT + 1),
                        np.zeros(EXACT_LIMIT + 1), 4)}
    assert choose_step(long, (0, EXACT_LIMIT), None) == 10.0      # 2000 s / 250 bins -> 10 s
    assert choose_step(short, (0, 9), 3) == 3.0
    with pytest.raises(InputError, match="field step: expected a resampling step"):
        choose_step(short, (0, 9), 0)


def test_the_figure_draws_utilization_above_and_queue_below() -> None:
    series = {"fcfs+easy": series_from_result(small_result())}
    figure = timeseries_figure(series)
    top, bottom = figure.axes
    (utilization,), (queue,) = top.get_lines(), bottom.get_lines()
    # the default window ends at the last change (170): the last step drawn is 120-170
    assert utilization.get_xdata().tolist() == SERIES_TIME
    assert utilization.get_ydata().tolist() == [b / 4 for b in SERIES_BUSY[:-1]] + [1.0]
    assert queue.get_ydata().tolist() == SERIES_QUEUE
    assert figure._suptitle.get_text() == "Utilization and queue length (exact)"


def test_resampling_draws_the_bin_means() -> None:
    """Busy over [0, 100): 2x20 + 3x10 + 4x20 + 3x50 = 300 -> mean 3, utilization 0.75;
    over [100, 200): 1x20 + 4x50 + 0x30 = 220 -> 2.2, utilization 0.55."""
    figure = timeseries_figure({"run": series_from_result(small_result())}, step=100,
                               window=(0, 200))
    line = figure.axes[0].get_lines()[0]
    assert line.get_xdata().tolist() == [0, 100, 200]
    assert line.get_ydata() == pytest.approx([0.75, 0.55, 0.55])
    assert figure._suptitle.get_text() == "Utilization and queue length (means over 100 s bins)"


def test_several_runs_get_one_line_each_in_their_policy_colour() -> None:
    result = small_result()
    figure = timeseries_figure({"b": series_from_result(result), "a": series_from_result(result)})
    colours = [line.get_color() for line in figure.axes[0].get_lines()]
    assert colours == ["#D55E00", "#0072B2"]       # sorted names: a first, b second
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["b", "a"]


def test_empty_input_and_bad_windows_are_user_mistakes() -> None:
    with pytest.raises(InputError, match="no series to draw"):
        timeseries_figure({})
    empty = Series(np.array([], dtype=np.int64), np.array([]), np.array([]), 4)
    with pytest.raises(InputError, match="the series are empty"):
        timeseries_figure({"a": empty})
    with pytest.raises(InputError, match="field window"):
        timeseries_figure({"a": series_from_result(small_result())}, window=(10, 5))
