"""Figs. 16–18 of §4.1: one line per policy over the mean inter-arrival time Ta; Figs. 25–29
of §4.3.1: bars per cluster, and the three configurations' Out Deadline over Ta."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.recipes.grid_fb.design import CASES, MS_FIGURE_INTERARRIVAL
from schedlab.experiments.recipes.grid_fb.tables import CLUSTER_FIGURES, FIGURE_METRICS
from schedlab.experiments.recipes.report import lines_figure, write_figure

TITLES = {"fig16": "Fig. 16: jobs missing their deadline",
          "fig17": "Fig. 17: system usage",
          "fig18": "Fig. 18: slowdown",
          "fig25": "Fig. 25: work per cluster, MS heuristics",
          "fig26": f"Fig. 26: slowdown of jobs without deadline, Ta = {MS_FIGURE_INTERARRIVAL}",
          "fig27": f"Fig. 27: jobs missing their deadline, Ta = {MS_FIGURE_INTERARRIVAL}",
          "fig28": f"Fig. 28: system usage, Ta = {MS_FIGURE_INTERARRIVAL}",
          "fig29": f"Fig. 29: licence usage, Ta = {MS_FIGURE_INTERARRIVAL}",
          "ms_over_ta": "§4.3.1: jobs missing their deadline over Ta"}


def interarrival_figure(frame, name: str, metric: str, ylabel: str, *, log: bool = True):
    """One figure: ``frame`` (rows Ta, columns policies or configurations) as lines of
    ``metric``, Ta on a log axis when ``log``, a share's axis from zero."""
    from schedlab.viz.curves import is_share

    return lines_figure(frame, title=TITLES[name], xlabel="mean job inter-arrival time Ta",
                        ylabel=ylabel, log_x=log, share=is_share(metric))


def cluster_bars(frame, name: str, ylabel: str):
    """One figure of grouped bars: a group per cluster (``frame``'s columns), a bar per row
    (a configuration in its colour of the line figures)."""
    import numpy as np

    from schedlab.viz.style import PALETTE, figure_legend, new_figure, paper_style, policy_styles

    styles = policy_styles(CASES)

    width = 0.84 / len(frame.index)
    x = np.arange(len(frame.columns))
    with paper_style():
        figure = new_figure(8.0, 3.6)
        axes = figure.add_subplot()
        for k, (label, values) in enumerate(frame.iterrows()):
            axes.bar(x - 0.42 + width * (k + 0.5), values.to_numpy(dtype=float), width,
                     label=str(label), edgecolor="#333333", linewidth=0.5,
                     color=styles[label].color if label in styles else PALETTE[k % len(PALETTE)])
        axes.set_xticks(x, list(frame.columns))
        axes.set_xlabel("cluster")
        axes.set_ylabel(ylabel)
        axes.grid(axis="x", visible=False)
        axes.set_title(TITLES[name])
        figure_legend(figure, axes, fontsize="small")
    return figure


def meta_scheduler_figures(frames: dict[str, Any], out: Path) -> dict[str, Path]:
    """fig25–fig29 and ms_over_ta (PNG and SVG) in ``out``."""
    import pandas as pd

    shares = frames["fig25"].loc[CASES[0]]
    bars = pd.concat([frames["fig25_optimum"].to_frame("optimum (machine share)").T,
                      shares.set_axis([f"Ta = {ta:g}" for ta in shares.index], axis=0)])
    written = write_figure(cluster_bars(bars, "fig25", "share of the dispatched work [%]"),
                           out, "fig25")
    for name, (_, _, _, ylabel) in CLUSTER_FIGURES.items():
        written.update(write_figure(cluster_bars(frames[name], name, ylabel), out, name))
    missed = frames["ms_over_ta"]["deadline_missed_pct"].unstack("configuration")[list(CASES)]
    written.update(write_figure(interarrival_figure(
        missed, "ms_over_ta", "deadline_missed_pct", CLUSTER_FIGURES["fig27"][3], log=False),
        out, "ms_over_ta"))
    return written


def write_figures(frames: dict[str, Any], out: Path) -> dict[str, Path]:
    """fig16.png, fig17.png, fig18.png (and SVG) in ``out``; fig25–fig29 and ms_over_ta when
    the §4.3.1 tables are there."""
    written: dict[str, Path] = {}
    for name, (metric, _, ylabel) in FIGURE_METRICS.items():
        written.update(write_figure(interarrival_figure(frames[name], name, metric, ylabel),
                                    out, name))
    if "fig25" in frames:
        written.update(meta_scheduler_figures(frames, out))
    return written
