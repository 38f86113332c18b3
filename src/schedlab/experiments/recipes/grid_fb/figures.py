"""Figs. 16–18 of §4.1: one line per policy over the mean inter-arrival time Ta."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.grid_fb.tables import FIGURE_METRICS, LABELS
from schedlab.experiments.recipes.report import write_figure

TITLES = {"fig16": "Fig. 16: jobs missing their deadline",
          "fig17": "Fig. 17: system usage",
          "fig18": "Fig. 18: slowdown"}


def interarrival_figure(frame, name: str):
    """One figure: ``frame`` (rows Ta, columns policies) as lines, Ta on a log axis."""
    from schedlab.viz.style import new_figure, paper_style, policy_styles

    styles = policy_styles(LABELS)
    with paper_style():
        figure = new_figure(5.0, 3.4)
        axes = figure.add_subplot()
        for label in frame.columns:
            style = styles[label]
            axes.plot(frame.index, frame[label], label=label, color=style.color,
                      marker=style.marker, linestyle=style.linestyle)
        axes.set_xscale("log")
        axes.set_xticks(list(frame.index), [f"{t:g}" for t in frame.index])
        axes.minorticks_off()
        axes.set_xlabel("mean job inter-arrival time Ta")
        axes.set_ylabel(FIGURE_METRICS[name][2])
        axes.set_title(TITLES[name])
        axes.legend()
    return figure


def write_figures(frames: dict[str, object], out: Path) -> dict[str, Path]:
    """fig16.png, fig17.png, fig18.png (and SVG) in ``out``."""
    written: dict[str, Path] = {}
    for name in FIGURE_METRICS:
        written.update(write_figure(interarrival_figure(frames[name], name), out, name))
    return written
