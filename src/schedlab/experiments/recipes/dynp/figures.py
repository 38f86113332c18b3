"""Figs. 2-8 in the paper's form: one diagram per job set, a metric against the shrinking
factor, with the paper's values where it prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from schedlab.experiments.recipes.dynp.design import DECIDERS
from schedlab.experiments.recipes.dynp.paper import CTC_SJF_ARTWW, PAPER_SET, TABLE4
from schedlab.experiments.recipes.dynp.runs import (
    ADVANCED_LINE,
    BASIC_LINE,
    CONSERVATIVE_LINES,
    DYNP_LINES,
    FIRST_JOB_LINES,
    FIRST_JOB_SUFFIX,
    METRIC_NAMES,
    PLAN_FCFS_SUFFIX,
    SINGLE_LINES,
    reference,
    title,
    workloads,
)
from schedlab.experiments.recipes.report import write_figure


@dataclass(frozen=True)
class FigureSpec:
    """One of the paper's figures: a metric against the shrinking factor for some lines."""

    name: str
    paper: str
    metric: str
    lines: tuple[str, ...]
    perfect: bool = False


#: Figure titles by metric (the paper's names).
FIGURE_TITLES = {"artww": "ARTwW", "sldww_60": "SLDwW₆₀", "sldww_300": "SLDwW₃₀₀",
                 "utilization": "utilization"}

FIGURES = (
    FigureSpec("fig2_artww_deciders", "Fig. 2", "artww", DYNP_LINES),
    FigureSpec("fig2b_artww_deciders_first_job", "Fig. 2 (quality of the first job only)",
               "artww", ("simple ARTwW", ADVANCED_LINE) + FIRST_JOB_LINES),
    FigureSpec("fig3_sldww60_deciders", "Fig. 3", "sldww_60", DYNP_LINES),
    FigureSpec("fig4_artww", "Fig. 4", "artww", SINGLE_LINES + (BASIC_LINE, ADVANCED_LINE)),
    FigureSpec("fig4b_artww_plan_vs_conservative", "Fig. 4 (planning vs conservative)",
               "artww", SINGLE_LINES + CONSERVATIVE_LINES),
    FigureSpec("fig5_sldww60", "Fig. 5", "sldww_60",
               SINGLE_LINES + (BASIC_LINE, ADVANCED_LINE)),
    FigureSpec("fig6_artww_perfect", "Fig. 6", "artww", SINGLE_LINES + (ADVANCED_LINE,),
               perfect=True),
    FigureSpec("fig7_sldww300", "Fig. 7", "sldww_300",
               SINGLE_LINES + (BASIC_LINE, ADVANCED_LINE)),
    FigureSpec("fig8_utilization", "Fig. 8", "utilization",
               SINGLE_LINES + (BASIC_LINE, ADVANCED_LINE)),
)


def curve_frame(runs, spec: FigureSpec):
    """The runs of one figure shaped for :func:`schedlab.viz.curves.curve_figure`: the line
    label as ``policy``, the diagram title as ``workload``, the factor as ``transform.shrink``."""
    import pandas as pd

    chosen = runs[runs["line"].isin(spec.lines) & (runs["perfect"] == spec.perfect)]
    return pd.DataFrame({"workload": chosen["workload"].map(title),
                         "policy": chosen["line"],
                         "transform.shrink": chosen["shrink"],
                         "status": "finished",
                         spec.metric: chosen[spec.metric]})


def reference_points(spec: FigureSpec, present: list[str]):
    """The paper's numbers for one figure (policy = our line label, x, value, workload).

    Table 4 gives every self-tuning line at factor 1.00 (Figs. 2, 4, 8; drawn
    at the stand-in's :func:`reference` factor), §5.2
    gives SJF on CTC_syn at 1.00 and 0.70 with real and perfect estimates
    (Figs. 4, 6).  A stand-in's diagram carries the numbers of the set it
    stands for.
    """
    import pandas as pd

    rows = []
    for workload in present:
        paper = PAPER_SET.get(workload)
        table4 = {} if paper is None else TABLE4.get(paper, {})
        for (decider, metric), numbers in table4.items():
            line = f"{decider} {METRIC_NAMES[metric]}"
            if line not in spec.lines or spec.perfect:
                continue
            if spec.metric == "artww":
                rows.append((title(workload), line, reference(workload), numbers[0]))
            elif spec.metric == "utilization":
                rows.append((title(workload), line, reference(workload), numbers[1] / 100))
        if paper == "CTC_syn" and spec.metric == "artww" and "SJF" in spec.lines:
            for shrink, (real, perfect) in CTC_SJF_ARTWW.items():
                rows.append((title(workload), "SJF", shrink, perfect if spec.perfect else real))
    if not rows:
        return None
    return pd.DataFrame(rows, columns=["workload", "policy", "x", "value"])


def line_styles() -> dict[str, Any]:
    """One look per line in every figure: a colour per single policy (planning solid,
    conservative dashed), a colour per quality metric (advanced solid, simple dashed)."""
    from schedlab.viz.style import LineStyle

    colours = {"FCFS": "#0072B2", "SJF": "#D55E00", "LJF": "#009E73",
               "ARTwW": "#000000", "ART": "#CC79A7", "MS": "#E69F00"}
    markers = {"FCFS": "o", "SJF": "s", "LJF": "^", "ARTwW": "*", "ART": "P", "MS": "v"}
    styles = {BASIC_LINE: LineStyle("#7F7F7F", "D", "-")}
    for name in SINGLE_LINES:
        styles[name] = LineStyle(colours[name], markers[name], "-")
        styles[f"{name} cons."] = LineStyle(colours[name], markers[name], "--")
    for decider in DECIDERS:
        dash: Literal["-", "--"] = "-" if decider == "advanced" else "--"
        for metric in METRIC_NAMES.values():
            styles[f"{decider} {metric}"] = LineStyle(colours[metric], markers[metric], dash)
        styles[f"{decider} ARTwW{FIRST_JOB_SUFFIX}"] = LineStyle("#56B4E9", "X", dash)
        styles[f"{decider} ARTwW{PLAN_FCFS_SUFFIX}"] = LineStyle("#F0E442", "h", dash)
    return styles


def axis_places(factors: list[float]) -> dict[float, float]:
    """Where each factor of one diagram is drawn on its x-axis.

    A lightest factor far from the others (LUBLIN256_syn: 3.4, then 2.0–1.0)
    would squeeze them into a corner of a linear axis, so it is drawn past an
    axis break, one and a half steps of the others beyond the next factor
    (:func:`curve_diagrams` marks the break and leaves the line open there).
    Every other factor is drawn where it is.
    """
    ordered = sorted(set(factors), reverse=True)
    places = {f: f for f in ordered}
    if len(ordered) >= 3:
        rest = ordered[1:]
        step = (rest[0] - rest[-1]) / (len(rest) - 1)
        if ordered[0] - rest[0] > 3 * step:
            places[ordered[0]] = rest[0] + 1.5 * step
    return places


def curve_diagrams(runs, spec: FigureSpec, styles: dict[str, Any]):
    """One figure of the paper: a diagram per job set in the order of :data:`JOB_SETS`, each
    with ticks at its own factors, x decreasing (load grows to the right), the paper's
    numbers as hollow markers (:func:`reference_points`), a break before a far factor
    (:func:`axis_places`); times in hours, utilization from zero."""
    from schedlab.viz.curves import (
        curve_legend,
        curve_points,
        draw_reference,
        draw_workload,
        facet_axes,
        is_share,
        metric_label,
        metric_scale,
        scaled_points,
        x_label,
    )
    from schedlab.viz.style import (
        LEGEND_PLACE,
        NUMBER_FORMATTER,
        honest_limits,
        paper_style,
        readable_number,
    )

    points = scaled_points(curve_points(curve_frame(runs, spec), spec.metric,
                                        "transform.shrink"), spec.metric)
    present = [w for w in workloads(runs) if title(w) in set(points["workload"])]
    reference = reference_points(spec, present)
    if reference is not None:
        reference = reference.assign(value=reference["value"] * metric_scale(spec.metric))
    lines = sorted(points["line"].unique())
    with paper_style():
        figure, axes = facet_axes(len(present), max(len(line) for line in lines))
        for ax, workload in zip(axes, present):
            mine = points[points["workload"] == title(workload)]
            factors = sorted(mine["x"].unique(), reverse=True)
            places = axis_places(factors)
            moved = mine.assign(x=mine["x"].map(places))
            far = [f for f in factors if places[f] != f]
            draw_workload(ax, moved[~mine["x"].isin(far)], styles)
            if far:
                draw_workload(ax, moved[mine["x"].isin(far)], styles)
                gap = (places[far[0]] + max(f for f in factors if f not in far)) / 2
                ax.axvline(gap, color="#999999", linestyle=(0, (1, 3)), linewidth=0.8)
                ax.text(gap, 0, "//", transform=ax.get_xaxis_transform(), ha="center",
                        va="center", backgroundcolor="white", fontsize=9)
            if reference is not None:
                mark = reference[reference["workload"] == title(workload)]
                draw_reference(ax, mark.assign(x=mark["x"].map(lambda x, places=places: places.get(x, x))),
                               styles)
            ax.set_xticks([places[f] for f in factors], [readable_number(f) for f in factors])
            ax.invert_xaxis()
            ax.set_title(title(workload) if len(present) > 1 else "")
            ax.set_xlabel(x_label("transform.shrink")
                          + (" (axis broken)" if far else ""))
            ax.set_ylabel(metric_label(spec.metric))
            ax.yaxis.set_major_formatter(NUMBER_FORMATTER)
            if is_share(spec.metric):
                honest_limits(ax, mine["mean"])
        for ax in axes[len(present):]:
            ax.set_visible(False)
        figure.legend(handles=curve_legend(lines, styles, int(points["runs"].max()),
                                           None if reference is None else "Streit 2002"),
                      loc=LEGEND_PLACE)
        figure.suptitle(f"{spec.paper}: {FIGURE_TITLES[spec.metric]}"
                        + (" (perfect estimates)" if spec.perfect else ""))
    return figure


def write_figures(runs, out) -> dict[str, Any]:
    """Figs. 2–8 in the paper's form (PNG and SVG), one diagram per job set."""
    styles = line_styles()
    written = {}
    for spec in FIGURES:
        if curve_frame(runs, spec).empty:
            continue
        written.update(write_figure(curve_diagrams(runs, spec, styles), out, spec.name))
    return written
