"""The figure families of QoPS §5: admittance, non-deadline jobs and the relaxation R, one
figure per setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schedlab.experiments.recipes.qops.design import ADMISSION, BASELINES
from schedlab.experiments.recipes.qops.paper import PAPER_FIGURES
from schedlab.experiments.recipes.report import write_figure


@dataclass(frozen=True)
class Panel:
    """One diagram of a figure row: ``metric`` against ``x`` for ``policies``."""

    metric: str
    x: str
    policies: tuple[str, ...]


def setting_text(method: str, s: float, fraction: float) -> str:
    """``s = 0.2, 80 % deadline jobs, load by duplication``."""
    return (f"s = {s:g}, {fraction * 100:.0f} % deadline jobs, load by "
            f"{'duplication' if method == 'duplicate' else 'expansion'}")


def panel_points(runs, panel: Panel, line: str):
    """Mean and 95 % interval half-width of the panel's metric per (line, x) over seeds, in
    drawing order.

    ``line`` is the column naming a run's line (``policy``, or ``R`` as text).
    """
    import pandas as pd

    from schedlab.metrics.confidence import ci_half_width

    data = runs[runs["policy"].isin(panel.policies)]
    table = pd.DataFrame({"line": data[line].astype(str), "x": data[panel.x],
                          "value": data[panel.metric]}).dropna()
    grouped = table.groupby(["line", "x"], sort=True)["value"]
    return grouped.agg(["mean", ci_half_width, "count"]).reset_index().rename(
        columns={"ci_half_width": "ci", "count": "runs"})


def grid_figure(runs, panels: list[Panel], line: str, styles: dict, title: str):
    """One row per workload, one column per panel (the (a), (b) parts of the paper's
    figures side by side), one line per value of ``line``; times in hours, shares from
    zero."""
    from schedlab.viz.curves import (
        curve_legend,
        draw_workload,
        is_share,
        metric_label,
        scaled_points,
        x_label,
    )
    from schedlab.viz.style import (
        LEGEND_PLACE,
        NUMBER_FORMATTER,
        honest_limits,
        new_figure,
        paper_style,
    )

    workloads = sorted(runs["workload"].unique())
    drawn: set[str] = set()
    most_runs = 1
    with paper_style():
        figure = new_figure(3.6 * len(panels) + 1.9, 2.9 * len(workloads) + 0.7)
        axes = figure.subplots(len(workloads), len(panels), squeeze=False)
        for row, workload in enumerate(workloads):
            for column, panel in enumerate(panels):
                ax = axes[row][column]
                points = scaled_points(panel_points(runs[runs["workload"] == workload], panel,
                                                    line), panel.metric)
                draw_workload(ax, points, styles)
                drawn.update(points["line"])
                most_runs = max([most_runs, *points["runs"]])
                ax.set_title(f"({chr(97 + column)}) {workload}")
                ax.set_xlabel(x_label(panel.x))
                ax.set_ylabel(metric_label(panel.metric))
                ax.yaxis.set_major_formatter(NUMBER_FORMATTER)
                if is_share(panel.metric):
                    honest_limits(ax, points["mean"])
        lines = [name for name in styles if name in drawn]
        figure.legend(handles=curve_legend(lines, styles, int(most_runs), None),
                      loc=LEGEND_PLACE)
        figure.suptitle(title)
    return figure


def admittance_figures(runs, styles: dict, out: Path) -> dict[str, Path]:
    """Unadmitted jobs, unadmitted processor-seconds and utilization against the load,
    one figure per (method, s, fraction) (QoPS Figs. 4-24, 37-42)."""
    panels = [Panel("deadline_rejected_pct", "load", ADMISSION),
              Panel("deadline_rejected_area_pct", "load", ADMISSION),
              Panel("utilization", "load", ADMISSION + BASELINES)]
    return figures_per_setting(runs, "admittance", "Admission", panels, "policy", styles, out)


def nondeadline_figures(runs, styles: dict, out: Path) -> dict[str, Path]:
    """Average response and slowdown of the non-deadline jobs against the load and against
    the achieved utilization (QoPS Figs. 25-36 and 43-54), mixed workloads only."""
    every = ADMISSION + BASELINES
    panels = [Panel("nondeadline_avg_response", "load", every),
              Panel("nondeadline_avg_slowdown", "load", every),
              Panel("nondeadline_avg_response", "utilization", every),
              Panel("nondeadline_avg_slowdown", "utilization", every)]
    return figures_per_setting(runs[runs["fraction"] < 1.0], "nondeadline", "Non-deadline jobs",
                               panels, "policy", styles, out)


def relaxation_figures(runs, out: Path) -> dict[str, Path]:
    """QoPS's non-deadline response and slowdown against the load for R = 2, 5, 10
    (QoPS §5.3, Figs. 55-58), one figure per (method, s, fraction)."""
    from schedlab.viz.style import policy_styles

    mixed = runs[(runs["fraction"] < 1.0) & (runs["policy"] == "qops")].copy()
    mixed["relaxation"] = mixed["R"].map(lambda r: f"R = {r:g}")
    styles = policy_styles(sorted(mixed["relaxation"].unique(),
                                  key=lambda text: float(text.split("=")[1])))
    panels = [Panel("nondeadline_avg_response", "load", ("qops",)),
              Panel("nondeadline_avg_slowdown", "load", ("qops",))]
    return figures_per_setting(mixed, "relaxation", "QoPS against R", panels, "relaxation",
                               styles, out)


def figures_per_setting(runs, kind: str, heading: str, panels: list, hue: str, styles: dict,
                        out: Path) -> dict[str, Path]:
    """One figure of ``panels`` per (method, s, fraction), named ``KIND_METHOD_sS_deadlineF``
    and titled with the paper's figure number where there is one."""
    figures = {}
    for (method, s, fraction), group in runs.groupby(["method", "s", "fraction"]):
        name = f"{kind}_{method}_s{s:g}_deadline{fraction * 100:.0f}"
        paper = PAPER_FIGURES.get((kind, method, s, fraction), "")
        title = f"{heading}, {setting_text(method, s, fraction)}" + (
            f" — QoPS {paper}" if paper else "")
        figure = grid_figure(group, panels, hue, styles, title)
        figures.update(write_figure(figure, out, name))
    return figures
