"""What every recipe writes into ``EXP_DIR/reproduction/``, written one way for all of them.

Tables go out as CSV (for programs) and Markdown (for people), figures as
PNG and SVG, the findings as one Markdown table.  A recipe's summary step
builds its own tables and figures from the stored runs and hands them to
these helpers; it reads the runs with :func:`finished_results` (or, for
the settings of each run, the store's rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedlab.experiments.recipes import Reproduction

#: How a float cell is written: ``(value, digits) -> text``.
NumberFormat = Callable[[float, int], str]


#: The folder of an experiment directory a recipe writes its tables, figures and findings to.
REPRODUCTION_DIR = "reproduction"


def reproduction_dir(exp_dir: str | Path) -> Path:
    """``EXP_DIR/reproduction/``, created if missing: where a recipe's summary goes."""
    out = Path(exp_dir) / REPRODUCTION_DIR
    out.mkdir(parents=True, exist_ok=True)
    return out


def grouped_number(value: float, digits: int) -> str:
    """``1,234.50``: thousands separated; an empty cell for NaN."""
    return "" if value != value else f"{value:,.{digits}f}"


def plain_number(value: float, digits: int) -> str:
    """``1234.50``: no separators; NaN as ``nan``."""
    return f"{value:.{digits}f}"


def finished_results(exp_dir: str | Path):
    """The stored results (:func:`~schedlab.experiments.load_results`) of the finished runs,
    indexed from 0."""
    from schedlab.experiments import load_results

    frame = load_results(exp_dir)
    return frame[frame["status"] == "finished"].reset_index(drop=True)


def markdown_rows(columns: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown pipe table: a header of ``columns``, then one line per row of cells."""
    lines = ["| " + " | ".join(map(str, columns)) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def markdown_table(frame, digits: int = 2, number: NumberFormat = grouped_number) -> str:
    """A DataFrame (index included) as a Markdown table, floats written by ``number`` to
    ``digits`` decimals."""
    flat = frame.reset_index()
    return markdown_rows(flat.columns, ([number(v, digits) if isinstance(v, float) else v
                                         for v in row] for row in flat.itertuples(index=False)))


def write_frame(frame, out: Path, name: str, digits: int = 2,
                number: NumberFormat = grouped_number) -> dict[str, Path]:
    """``out/NAME.csv`` and ``out/NAME.md`` of a DataFrame (index included); returns both,
    under ``NAME`` and ``NAME.md``."""
    from schedlab.output import atomic_write_text

    csv_path, md_path = out / f"{name}.csv", out / f"{name}.md"
    atomic_write_text(csv_path, frame.reset_index().to_csv(index=False))
    atomic_write_text(md_path, markdown_table(frame, digits, number))
    return {name: csv_path, f"{name}.md": md_path}


def write_rows(rows: list[dict[str, Any]], out: Path, name: str) -> dict[str, Path]:
    """``rows`` (dicts with the same keys, values as printed) as ``out/NAME.csv`` and
    ``out/NAME.md``; returns the Markdown file under ``NAME``."""
    import csv
    import io

    from schedlab.output import atomic_write_text

    columns = list(rows[0]) if rows else ["empty"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / f"{name}.csv", buffer.getvalue())
    atomic_write_text(out / f"{name}.md",
                      markdown_rows(columns, ([r[c] for c in columns] for r in rows)))
    return {name: out / f"{name}.md"}


def write_figure(figure, out: Path, name: str) -> dict[str, Path]:
    """``out/NAME.png`` and ``out/NAME.svg``; returns the PNG under ``NAME``."""
    from schedlab.viz.style import save_png_and_svg

    png, _ = save_png_and_svg(figure, out / name)
    return {name: png}


def lines_figure(lines, *, title: str, xlabel: str, ylabel: str, log_x: bool = False,
                 log_y: bool = False, ticks_at_index: bool = True, share: bool = False):
    """One line per column of ``lines`` (a DataFrame, or a mapping of name -> Series) over
    its index, marked at every value and skipping missing ones, styled per name
    (:func:`schedlab.viz.style.policy_styles`), the legend right of the diagram;
    ``ticks_at_index`` labels the x axis at the index values only; the value axis of a
    ``share`` (usage, a percentage of jobs) starts at zero."""
    from schedlab.viz.style import (
        figure_legend,
        honest_limits,
        new_figure,
        paper_style,
        policy_styles,
    )

    series = {name: values.dropna() for name, values in lines.items()}
    styles = policy_styles(list(series))
    with paper_style():
        figure = new_figure(5.0 + legend_inches(series), 3.4)
        axes = figure.add_subplot()
        for name, values in series.items():
            style = styles[name]
            axes.plot(values.index, values.to_numpy(), label=name, color=style.color,
                      marker=style.marker, linestyle=style.linestyle)
        if log_x:
            axes.set_xscale("log")
        if log_y:
            axes.set_yscale("log")
        if ticks_at_index:
            ticks = sorted({x for values in series.values() for x in values.index})
            axes.set_xticks(ticks, [f"{t:g}" for t in ticks])
            axes.minorticks_off()
        if share:
            honest_limits(axes, [v for values in series.values() for v in values])
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        figure_legend(figure, axes, fontsize="small")
    return figure


def legend_inches(names) -> float:
    """Room for a legend right of a diagram: its key and its longest name."""
    from schedlab.viz.curves import LEGEND_INCHES_PER_CHARACTER

    return 0.6 + LEGEND_INCHES_PER_CHARACTER * max((len(str(name)) for name in names), default=0)


def findings_markdown(reproduction: Reproduction) -> str:
    """The findings as a Markdown table: claim | paper | ours | holds."""
    marks = {True: "yes", False: "no", None: "n/a"}
    return markdown_rows(("finding", "paper", "schedlab", "same?", "note"),
                         ((f.claim, f.paper, f.ours, marks[f.holds], f.note)
                          for f in reproduction.findings))
