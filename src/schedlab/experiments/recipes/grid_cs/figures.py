"""The grid-cs figures: Figs. 19–24 (§4.2), 30–32 (§4.3.2), the ADH trajectories (§5.1.5,
Figs. 35–38) and Figs. 39–40 (§5.2.3), each drawn from its table; a table left empty
(a section not run) draws nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from schedlab.experiments.recipes.grid_cs.tables import CS_FIGURES, EGEDF_FIGURES, MS_FIGURES
from schedlab.experiments.recipes.report import lines_figure, write_figure

TITLES = {"fig19": "Fig. 19: jobs in the system (time average)",
          "fig20": "Fig. 20: jobs missing their deadline",
          "fig21": "Fig. 21: slowdown of jobs without deadline",
          "fig22": "Fig. 22: machine usage",
          "fig23": "Fig. 23: scheduling time per event",
          "fig31": "Fig. 31: jobs missing their deadline (MS + LS)",
          "fig32": "Fig. 32: slowdown of jobs without deadline (MS + LS)",
          "fig39": "Fig. 39 (left): jobs missing their deadline",
          "fig39-usage": "Fig. 39 (right): system usage",
          "fig40": "Fig. 40 (left): scheduling time per event",
          "fig40-slowdown": "Fig. 40 (right): average slowdown"}
TA = "mean job inter-arrival time Ta"


def scalability_figure(frame):
    """Fig. 24: scheduling time per event against the jobs in the system, one line per
    policy through its runs (one point per Ta)."""
    import pandas as pd

    lines = {policy: pd.Series(group["ms per event"].to_numpy(),
                               index=group["jobs in system"].to_numpy()).sort_index()
             for policy, group in frame.reset_index().groupby("policy", sort=False)}
    return lines_figure(lines, title="Fig. 24: scalability",
                        xlabel="jobs in the system (time average of a run)",
                        ylabel="scheduling time per event [ms]", log_y=True,
                        ticks_at_index=False)


def profile_figure(frame):
    """Fig. 19: jobs in the system through the run, one line per Ta."""
    return lines_figure(frame, title="Fig. 19: system workload through the run",
                        xlabel=f"part of the run (1/{len(frame)})", ylabel="jobs in the system",
                        ticks_at_index=False)


def adh_trajectory_figure(frame_rows: list[dict[str, Any]]):
    """Figs. 35–38: the margins, ADH's ``base`` and the distance to the target per job
    (:func:`schedlab.viz.adh.adh_figure`) for the first seed stored."""
    from schedlab.viz.adh import adh_figure

    seed = min(run["seed"] for run in frame_rows)
    runs = [SimpleNamespace(stream=r["stream"], classifier=r["classifier"],
                            margin=np.array(r["margin"]), base=np.array(r["base"]),
                            distance=np.array([np.nan if d is None else d
                                               for d in r["distance"]]),
                            missed_per_block=np.array(r["missed_per_block"]))
            for r in frame_rows if r["seed"] == seed]
    return adh_figure(runs, title=f"Static Deadline heuristic and ADH (thesis §5.1.5), "
                                  f"seed {seed}")


def write_figures(frames: dict[str, Any], tasks: dict[str, dict[str, Any]],
                  out: Path) -> dict[str, Path]:
    """Every figure whose table is not empty, as PNG and SVG in ``out``."""
    from schedlab.viz.curves import is_share

    written: dict[str, Path] = {}
    for name, (metric, _, ylabel) in {**CS_FIGURES, **MS_FIGURES, **EGEDF_FIGURES}.items():
        if not frames[name].empty:
            written.update(write_figure(lines_figure(frames[name], title=TITLES[name],
                                                     xlabel=TA, ylabel=ylabel,
                                                     share=is_share(metric)), out, name))
    if not frames["fig19-profile"].empty:
        written.update(write_figure(profile_figure(frames["fig19-profile"]), out,
                                    "fig19-profile"))
    if not frames["fig24"].empty:
        written.update(write_figure(scalability_figure(frames["fig24"]), out, "fig24"))
    if not frames["fig30"].empty:
        written.update(write_figure(
            lines_figure(frames["fig30"].T, title="Fig. 30: average clusters load",
                         xlabel="cluster", ylabel="share of the work [%]",
                         ticks_at_index=False, share=True), out, "fig30"))
    adh_rows = [run for key, result in tasks.items() if key.startswith("adh")
                for run in result.get("runs", [])]
    if adh_rows:
        written.update(write_figure(adh_trajectory_figure(adh_rows), out, "adh-trajectory"))
    return written
