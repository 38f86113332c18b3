"""Figs. 16–18 of §4.1: one line per policy over the mean inter-arrival time Ta."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.grid_fb.tables import FIGURE_METRICS
from schedlab.experiments.recipes.report import lines_figure, write_figure

TITLES = {"fig16": "Fig. 16: jobs missing their deadline",
          "fig17": "Fig. 17: system usage",
          "fig18": "Fig. 18: slowdown"}


def interarrival_figure(frame, name: str):
    """One figure: ``frame`` (rows Ta, columns policies) as lines, Ta on a log axis."""
    return lines_figure(frame, title=TITLES[name], xlabel="mean job inter-arrival time Ta",
                        ylabel=FIGURE_METRICS[name][2], log_x=True)


def write_figures(frames: dict[str, object], out: Path) -> dict[str, Path]:
    """fig16.png, fig17.png, fig18.png (and SVG) in ``out``."""
    written: dict[str, Path] = {}
    for name in FIGURE_METRICS:
        written.update(write_figure(interarrival_figure(frames[name], name), out, name))
    return written
