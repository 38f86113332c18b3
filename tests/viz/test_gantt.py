"""Gantt charts: first-fit placement worked out by hand, windows, colours, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from schedlab.errors import InputError
from schedlab.viz.gantt import (
    gantt_figure,
    jobs_from_result,
    jobs_from_table,
    peak_width,
    place_jobs,
)

from .helpers import EASY_ENDS, EASY_STARTS, jobs_frame, small_result


def arrays(*rows: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    start, end, width = (np.array(column, dtype=np.int64) for column in zip(*rows))
    return start, end, width


def boxes(figure) -> list[np.ndarray]:
    """The corner arrays of every box drawn, in drawing order."""
    ax = figure.axes[0]
    return [path.vertices for c in ax.collections if isinstance(c, PolyCollection)
            for path in c.get_paths()]


def test_first_fit_gives_each_job_the_lowest_block_wide_enough() -> None:
    # A [0,10) w2 -> 0-1; B [0,5) w1 -> 2; C [5,10) w2: at 5 B has left, free 2-3 -> 2-3.
    placed = place_jobs(*arrays((0, 10, 2), (0, 5, 1), (5, 10, 2)), processors=4)
    assert placed == [[(0, 2)], [(2, 1)], [(2, 2)]]


def test_a_job_finishing_frees_its_processors_for_a_job_starting_at_that_instant() -> None:
    # A [0,5) w4 fills the machine; B starts at 5 exactly when A ends.
    assert place_jobs(*arrays((0, 5, 4), (5, 9, 4)), processors=4) == [[(0, 4)], [(0, 4)]]


def test_ties_at_one_start_time_follow_the_table_order() -> None:
    assert place_jobs(*arrays((0, 9, 1), (0, 3, 2)), processors=4) == [[(0, 1)], [(1, 2)]]
    assert place_jobs(*arrays((0, 3, 2), (0, 9, 1)), processors=4) == [[(0, 2)], [(2, 1)]]


def test_a_job_with_no_contiguous_block_is_split_over_the_lowest_free_processors() -> None:
    # A, B, C take processors 0, 1, 2; B leaves at 5, so free are 1 and 3: D (2 wide) is split.
    placed = place_jobs(*arrays((0, 10, 1), (0, 5, 1), (0, 10, 1), (5, 10, 2)), processors=4)
    assert placed[3] == [(1, 1), (3, 1)]


def test_a_schedule_wider_than_the_machine_names_the_instant() -> None:
    with pytest.raises(InputError, match="at time 3 the jobs use more than 4 processors"):
        place_jobs(*arrays((0, 10, 3), (3, 6, 2)), processors=4)


def test_peak_width_counts_ends_before_starts_at_one_instant() -> None:
    assert peak_width(*arrays((0, 5, 3), (5, 8, 3), (2, 6, 1))) == 4
    assert peak_width(*arrays((0, 5, 3), (5, 5, 9))) == 3          # zero length: holds nothing


def test_the_small_schedule_is_drawn_box_by_box() -> None:
    """fcfs+easy on the small trace: jobs 1 (0-100, 2 wide), 3 (20-120), 4 (30-50), then 2.

    Placement by start: job 1 -> 0-1, job 3 -> 2, job 4 -> 3; at 120 job 3
    and job 1 are gone, job 4 too, so job 2 takes 0-3.  The window is the
    whole schedule, 0-170 s, drawn in seconds.
    """
    result = small_result()
    assert result.start.tolist() == EASY_STARTS and result.end.tolist() == EASY_ENDS
    figure = gantt_figure(result)
    drawn = sorted((v[:, 0].min(), v[:, 0].max(), v[:, 1].min(), v[:, 1].max())
                   for v in boxes(figure))
    assert drawn == [(0, 100, 0, 2), (20, 120, 2, 3), (30, 50, 3, 4), (120, 170, 0, 4)]
    ax = figure.axes[0]
    assert ax.get_xlim() == (0, 170)
    assert ax.get_xlabel() == "time since trace start [s]"
    legend = figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["finished (3)", "killed (1)"]
    assert legend.get_title().get_text() == "4 jobs"


def test_a_window_keeps_the_jobs_inside_and_cuts_their_boxes() -> None:
    figure = gantt_figure(small_result(), window=(40, 110))
    drawn = sorted((v[:, 0].min(), v[:, 0].max()) for v in boxes(figure))
    assert drawn == [(40, 50), (40, 100), (40, 110)]     # jobs 4, 1, 3; job 2 starts at 120
    assert figure.axes[0].get_xlim() == (40, 110)


def test_colour_by_width_class_counts_each_class_and_names_it_on_the_machine() -> None:
    figure = gantt_figure(small_result(), color_by="width")
    texts = [t.get_text() for t in figure.legends[0].get_texts()]
    assert texts == ["width 1 (2)", "width 2-4 (2)"]          # 4 processors: no "2-64"
    with pytest.raises(InputError, match="expected a colouring by status or width"):
        gantt_figure(small_result(), color_by="user")


def test_a_jobs_table_leaves_rejected_jobs_out_and_defaults_to_the_peak_width() -> None:
    table = jobs_frame([(1, 0, 0, 10, 3, "finished"), (2, 0, None, None, 8, "rejected"),
                        (3, 5, 10, 20, 2, "killed")])
    jobs = jobs_from_table(table)
    assert jobs.job_id.tolist() == [1, 3] and jobs.status.tolist() == ["finished", "killed"]
    figure = gantt_figure(table)
    assert figure.axes[0].get_ylabel() == "processors (peak in use)"
    assert figure.axes[0].get_ylim() == (0, 3 * 1.02)
    assert len(boxes(figure)) == 2


def test_the_result_and_its_table_give_the_same_jobs() -> None:
    result = small_result()
    from_result = jobs_from_result(result)
    table = jobs_frame([(int(i), int(s), int(b), int(e), int(w), status) for i, s, b, e, w, status
                        in zip(result.job_id, result.submit, result.start, result.end,
                               result.width, result.status_names())])
    from_table = jobs_from_table(table)
    for name in ("job_id", "start", "end", "width", "status"):
        assert getattr(from_result, name).tolist() == getattr(from_table, name).tolist()


def test_bad_tables_and_windows_are_user_mistakes() -> None:
    with pytest.raises(InputError, match="field width: the jobs table lacks the column"):
        gantt_figure(jobs_frame([(1, 0, 0, 5, 1, "finished")]).drop(columns="width"))
    with pytest.raises(InputError, match=r"field window: expected a window START:END with END > "
                                         "START, got 50.0:50.0"):
        gantt_figure(small_result(), window=(50.0, 50.0))
    with pytest.raises(InputError, match="field status: job 1: expected a status finished, "
                                         "killed, rejected, cancelled, withdrawn, failed, got "
                                         "'running'"):
        gantt_figure(jobs_frame([(1, 0, 0, 5, 1, "running")]))
    with pytest.raises(InputError, match="no job held processors"):
        gantt_figure(jobs_frame([(1, 0, None, None, 1, "rejected")]))


def test_job_ids_are_written_in_big_boxes_only() -> None:
    figure = gantt_figure(small_result())
    assert sorted(t.get_text() for t in figure.axes[0].texts) == ["1", "2", "3", "4"]
    # job 2 lasts 20 s of a 1000 s window: too narrow for its id
    table = jobs_frame([(1, 0, 0, 1000, 3, "finished"), (2, 0, 0, 20, 1, "finished")])
    labelled = [t.get_text() for t in gantt_figure(table, 4).axes[0].texts]
    assert labelled == ["1"]
