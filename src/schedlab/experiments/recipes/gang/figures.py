"""Slowdown of all and of short jobs against the slot length, with the paper's Tables 6-9."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.recipes.gang.paper import PAPER_BY_SLOT, paper_value
from schedlab.experiments.recipes.gang.runs import workloads
from schedlab.experiments.recipes.report import write_figure


def reference_points(runs):
    """The paper's Tables 6-9 as reference points of the curve figures (policy = our line
    label ``gang (strategy=K)``, x = slot length, value, workload, metric)."""
    import pandas as pd

    rows = []
    for (strategy, kind), table in PAPER_BY_SLOT.items():
        metric = "gang_slowdown" if kind == "all" else "gang_slowdown_short"
        for slot, row in table.items():
            for w in workloads(runs):
                rows.append({"policy": f"gang (strategy={strategy})", "x": slot,
                             "value": paper_value(row, w), "workload": w, "metric": metric})
    return pd.DataFrame(rows)


def write_figures(exp_dir, runs, out) -> dict[str, Path]:
    """Slowdown of all and of short jobs against the slot length, one diagram per
    workload, a line per strategy, the paper's Tables 6-9 as hollow markers (PNG and SVG)."""
    from schedlab.experiments import load_results
    from schedlab.viz.curves import curve_figure

    results = load_results(exp_dir)
    results = results[results["policy"] == "gang"]
    reference = reference_points(runs)
    figures = {}
    for metric, name, what in (("gang_slowdown", "fig_slowdown_by_slot", "all jobs"),
                               ("gang_slowdown_short", "fig_slowdown_short_by_slot",
                                "short jobs")):
        figure = curve_figure(results, metric, "param.slot",
                              reference=reference[reference["metric"] == metric],
                              reference_label="Zhou et al. 2003, Tables 6-9",
                              title=f"Average slowdown of {what} against the slot length")
        figures.update(write_figure(figure, out, name))
    return figures
