"""The figure of ``schedlab compare``: key metrics side by side, one bar per policy."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from schedlab.viz.style import new_figure, paper_style, policy_styles, save_figure

PANELS = (
    ("avg_wait", "average wait [h]", 1 / 3600),
    ("avg_bsld_60", "average bounded slowdown (τ = 60 s)", 1.0),
    ("artww", "ARTwW [h] (Streit)", 1 / 3600),
    ("utilization", "utilization (Streit)", 1.0),
)


def comparison_figure(rows: dict[str, dict], title: str) -> Figure:
    """A 2x2 bar chart of wait, bounded slowdown, ARTwW and utilization per policy.

    A panel switches to a log scale when one policy is more than 20 times
    another, so that a far-off baseline (FCFS without backfilling) does not
    flatten the others.
    """
    policies = list(rows)
    styles = policy_styles(policies)
    colors = [styles[p].color for p in policies]
    with paper_style():
        figure = new_figure(10, 7)
        axes = figure.subplots(2, 2)
        for ax, (metric, label, scale) in zip(axes.flat, PANELS):
            values = [(rows[p].get(metric) or 0.0) * scale for p in policies]
            bars = ax.bar(range(len(policies)), values, color=colors)
            ax.bar_label(bars, fmt="%.3g", fontsize=8)
            ax.set_xticks(range(len(policies)), policies, rotation=25, ha="right", fontsize=9)
            positive = [v for v in values if v > 0]
            if positive and max(positive) > 20 * min(positive):
                ax.set_yscale("log")
                label += " (log scale)"
            ax.set_title(label, fontsize=10)
            ax.grid(axis="y", alpha=0.3)
            ax.set_axisbelow(True)
        figure.suptitle(title)
    return figure


def write_comparison_figure(rows: dict[str, dict], title: str, path: str | Path) -> Path:
    """Build the comparison figure and write it atomically (PNG or SVG by suffix)."""
    return save_figure(comparison_figure(rows, title), path)
