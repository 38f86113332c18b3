"""The figure of the ADH experiment (Pasquali's thesis §5.1.5, Figs. 35 and 37).

One column per job stream: on top the jobs' margins and ADH's ``base``
over the stream (Fig. 35: "Margin ... compared with the behavior of the
base value"), below the distance of the recent priorities from the
exponential target for the static heuristic and for ADH, with the deadlines
missed per block of jobs in the grid runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from schedlab.errors import InputError
from schedlab.viz.style import figure_legend, new_figure, paper_style, policy_styles


def adh_figure(runs: Sequence[Any], *, title: str | None = None) -> Figure:
    """``base`` and distance over time for the runs of
    :func:`schedlab.experiments.adh.run_adh_experiment`."""
    if not runs:
        raise InputError("no ADH run to draw", field="runs")
    streams = list(dict.fromkeys(run.stream for run in runs))
    styles = policy_styles(run.classifier for run in runs)
    with paper_style():
        figure = new_figure(4.2 * len(streams) + 1.2, 6.4)
        axes = figure.subplots(3, len(streams), squeeze=False, sharex="col")
        for column, stream in enumerate(streams):
            top, middle, bottom = axes[:, column]
            chosen = [run for run in runs if run.stream == stream]
            jobs = np.arange(1, len(chosen[0].margin) + 1)
            top.scatter(jobs, chosen[0].margin, s=2, color="#999999", label="margin")
            top.set_title(stream)
            top.set_ylabel("margin [s]" if column == 0 else "")
            right = top.twinx()
            for run in chosen:
                if run.classifier == "adaptive":
                    right.plot(jobs, run.base, color=styles[run.classifier].color, label="base")
            right.set_ylabel("ADH base" if column == len(streams) - 1 else "")
            for run in chosen:
                style = styles[run.classifier]
                middle.plot(jobs, run.distance, color=style.color, linestyle=style.linestyle,
                            label=run.classifier)
                block = len(jobs) / max(len(run.missed_per_block), 1)
                centers = (np.arange(len(run.missed_per_block)) + 0.5) * block
                bottom.plot(centers, run.missed_per_block, color=style.color,
                            marker=style.marker, linestyle=style.linestyle, label=run.classifier)
            middle.set_ylabel("distance to target" if column == 0 else "")
            bottom.set_ylabel("deadlines missed\nper block" if column == 0 else "")
            bottom.set_xlabel("job (submission order)")
        figure_legend(figure, axes[1, 0])
        figure.suptitle(title or "Static Deadline heuristic and ADH (thesis §5.1.5)")
    return figure
