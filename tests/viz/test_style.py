"""The shared look and the savers: policy styles, units, tick labels, formats, no leaks."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from schedlab.errors import InputError
from schedlab.viz.style import (
    MARKERS,
    PALETTE,
    check_format,
    figure_bytes,
    figure_legend,
    honest_limits,
    new_figure,
    paper_style,
    policy_styles,
    readable_number,
    save_figure,
    save_png_and_svg,
    time_unit,
)


def small_figure():
    with paper_style():
        figure = new_figure(3, 2)
        figure.add_subplot().plot([0, 1, 2], [1, 3, 2], label="line")
    return figure


def test_a_policy_keeps_its_style_whatever_the_order_or_company() -> None:
    one = policy_styles(["sjf+easy", "fcfs+easy", "ljf+easy"])
    other = policy_styles(["ljf+easy", "fcfs+easy", "sjf+easy", "fcfs+easy"])
    assert one == other
    # sorted order: fcfs+easy, ljf+easy, sjf+easy get the first three colours and markers
    assert [one[p].color for p in ("fcfs+easy", "ljf+easy", "sjf+easy")] == list(PALETTE[:3])
    assert [one[p].marker for p in ("fcfs+easy", "ljf+easy", "sjf+easy")] == list(MARKERS[:3])


def test_beyond_eight_policies_colours_repeat_with_another_marker_and_a_dashed_line() -> None:
    names = [f"p{k:02d}" for k in range(10)]
    styles = policy_styles(names)
    assert styles["p08"].color == styles["p00"].color
    assert styles["p08"].marker == MARKERS[1] and styles["p08"].linestyle == "--"
    assert styles["p07"].linestyle == "-"
    assert len({(s.color, s.marker, s.linestyle) for s in styles.values()}) == 10


@pytest.mark.parametrize("span, unit", [(599, ("s", 1.0)), (600, ("min", 60.0)),
                                        (35_999, ("min", 60.0)), (36_000, ("h", 3600.0)),
                                        (863_999, ("h", 3600.0)), (864_000, ("days", 86_400.0))])
def test_time_unit_keeps_tick_labels_short(span: float, unit: tuple[str, float]) -> None:
    assert time_unit(span) == unit


@pytest.mark.parametrize("value, text", [(0, "0"), (0.76470588, "0.765"), (27.5, "27.5"),
                                         (999.4, "999"), (12_345.6, "12,346"),
                                         (-2500.0, "-2,500")])
def test_readable_number(value: float, text: str) -> None:
    assert readable_number(value) == text


def test_only_png_svg_and_pdf_are_formats() -> None:
    assert check_format(".SVG") == "svg" and check_format("png") == "png"
    assert check_format("PDF") == "pdf"
    with pytest.raises(InputError, match="field format: expected an image format png, svg or "
                                         "pdf, got 'eps'"):
        check_format("eps")


def test_the_same_figure_gives_the_same_bytes_and_the_svg_has_no_date() -> None:
    first, second = figure_bytes(small_figure(), "svg"), figure_bytes(small_figure(), "svg")
    assert first == second
    assert b"<dc:date>" not in first
    assert figure_bytes(small_figure(), "png") == figure_bytes(small_figure(), "png")
    assert figure_bytes(small_figure(), "png").startswith(b"\x89PNG\r\n\x1a\n")
    pdf = figure_bytes(small_figure(), "pdf")
    assert pdf.startswith(b"%PDF-") and pdf == figure_bytes(small_figure(), "pdf")
    assert b"/CreationDate" not in pdf and b"/Producer" not in pdf


def test_save_writes_the_format_of_the_suffix_and_leaves_no_temporary_file(
        tmp_path: Path) -> None:
    png, svg = save_png_and_svg(small_figure(), tmp_path / "out" / "figure")
    assert png.read_bytes().startswith(b"\x89PNG")
    assert svg.read_bytes().lstrip().startswith(b"<?xml")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["figure.png", "figure.svg"]
    forced = save_figure(small_figure(), tmp_path / "figure.img", "svg")
    assert b"<svg" in forced.read_bytes()


def test_save_into_a_path_below_a_file_is_a_user_mistake(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="cannot write the file"):
        save_figure(small_figure(), tmp_path / "file" / "figure.png")


def test_figures_leave_no_global_state_behind() -> None:
    import matplotlib.pyplot as plt

    before = dict(matplotlib.rcParams)
    figure = small_figure()
    figure_bytes(figure, "png")
    assert dict(matplotlib.rcParams) == before
    assert plt.get_fignums() == []           # never registered with pyplot
    assert matplotlib.get_backend().lower() == before["backend"].lower()


def test_labels_sort_as_a_reader_counts() -> None:
    from schedlab.viz.style import natural_key

    labels = ["gang[slot=200]", "gang[slot=25]", "gang[slot=1]", "gang[slot=100]", "fcfs"]
    assert sorted(labels, key=natural_key) == [
        "fcfs", "gang[slot=1]", "gang[slot=25]", "gang[slot=100]", "gang[slot=200]"]
    assert sorted(["x=0.5", "x=0.25", "x=1"], key=natural_key) == ["x=0.25", "x=0.5", "x=1"]
    styles = policy_styles(labels)
    assert list(styles)[:3] == ["fcfs", "gang[slot=1]", "gang[slot=25]"]


def line_axes(values, log=False):
    """A diagram of one line through ``values``, drawn (limits settled)."""
    with paper_style():
        figure = new_figure(3, 2)
        ax = figure.add_subplot()
        ax.plot(range(len(values)), values, label="line")
        if log:
            ax.set_yscale("log")
    return ax


def test_a_share_axis_starts_at_zero_and_keeps_its_top() -> None:
    ax = line_axes([0.76, 0.80, 0.84])
    top = ax.get_ylim()[1]
    honest_limits(ax, [0.76, 0.80, 0.84])
    assert ax.get_ylim() == (0, top)
    sideways = line_axes([1, 2])
    honest_limits(sideways, [0.5, 0.6], axis="x")
    assert sideways.get_xlim()[0] == 0


def test_no_zero_for_a_log_axis_or_values_below_zero() -> None:
    log = line_axes([0.1, 10.0], log=True)
    before = log.get_ylim()
    honest_limits(log, [0.1, 10.0])
    assert log.get_ylim() == before
    negative = line_axes([-0.2, 0.5])
    before = negative.get_ylim()
    honest_limits(negative, [-0.2, 0.5])
    assert negative.get_ylim() == before


def test_the_figure_legend_sits_outside_the_diagrams_once_per_label() -> None:
    with paper_style():
        figure = new_figure(6, 3)
        axes = figure.subplots(1, 2)
        for ax in axes:
            ax.bar([0, 1], [3, 4], label="bars")
        legend = figure_legend(figure, axes[0])
        figure.canvas.draw()
    assert [t.get_text() for t in legend.get_texts()] == ["bars"]
    box = legend.get_window_extent()
    assert all(not box.overlaps(ax.get_window_extent()) for ax in axes)
