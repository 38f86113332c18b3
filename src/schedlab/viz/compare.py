"""The figure of ``schedlab compare``: key metrics side by side, one bar per policy."""

from __future__ import annotations

import io
from pathlib import Path

PANELS = (
    ("avg_wait", "average wait [h]", 1 / 3600),
    ("avg_bsld_60", "average bounded slowdown (τ = 60 s)", 1.0),
    ("artww", "ARTwW [h] (Streit)", 1 / 3600),
    ("utilization", "utilization (Streit)", 1.0),
)


def comparison_figure(rows: dict[str, dict], title: str, path: str | Path) -> Path:
    """Write a 2x2 bar chart of wait, bounded slowdown, ARTwW and utilization per policy.

    The image is written to a temporary name and moved into place, like every output.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from schedlab.output import atomic_write_bytes

    policies = list(rows)
    colors = plt.get_cmap("tab10").colors
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), constrained_layout=True)
    for ax, (metric, label, scale) in zip(axes.flat, PANELS):
        values = [(rows[p].get(metric) or 0.0) * scale for p in policies]
        bars = ax.bar(range(len(policies)), values, color=[colors[k % 10] for k in range(len(policies))])
        ax.bar_label(bars, fmt="%.3g", fontsize=8)
        ax.set_xticks(range(len(policies)), policies, rotation=25, ha="right", fontsize=9)
        positive = [v for v in values if v > 0]
        if positive and max(positive) > 20 * min(positive):
            ax.set_yscale("log")          # one policy far off would flatten the others
            label += " (log scale)"
        ax.set_title(label, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle(title)
    path = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=path.suffix.lstrip(".") or "png", dpi=120)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path
