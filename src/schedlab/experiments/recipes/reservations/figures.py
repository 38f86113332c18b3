"""The figures: Graphs 4-5 (bars per scenario), 10-13 (size classes), utilization and queue
over time, the requests, and the rule settings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schedlab.experiments.recipes.reservations.design import (
    DAY,
    HOUR,
    MIN_DURATION_HOURS,
    MIN_NOTICE_HOURS,
    MINIMUMS,
    SCENARIO_LABELS,
    SCENARIOS,
    SIZE_CLASSES,
)

SCENARIO_COLORS = {"baseline": "#0072B2", "reservations": "#D55E00", "throttled": "#009E73"}

#: The metric each table column the figures draw holds, in the unit figures show (the
#: tables' waits are already in hours): the key of its axis label.
COLUMN_METRICS = {"wait_h": "wait_weighted", "expansion_factor": "expansion_factor_weighted"}


def column_label(column: str) -> str:
    """The axis label of a table column: its metric's (:func:`schedlab.viz.curves.metric_label`)."""
    from schedlab.viz.curves import metric_label

    return metric_label(COLUMN_METRICS.get(column, column))


def scenario_bars(ax, table, width: float = 0.27) -> None:
    """Three bars (the scenarios, in their colours) per row of ``table`` (columns: scenarios)."""
    x = np.arange(len(table))
    for k, scenario in enumerate(SCENARIOS):
        ax.bar(x + (k - 1) * width, table[scenario], width, color=SCENARIO_COLORS[scenario],
               label=SCENARIO_LABELS[scenario])


def bar_figure(means, column: str, title: str):
    """Graphs 4-5: one group of three bars (scenarios) per workload, a panel per policy on
    one shared value axis, the legend right of the panels."""
    from schedlab.viz.style import figure_legend, new_figure, paper_style

    policies = list(dict.fromkeys(means.index.get_level_values("policy")))
    with paper_style():
        figure = new_figure(3.2 * len(policies) + 2.6, 3.8)
        axes = figure.subplots(1, len(policies), squeeze=False, sharey=True)[0]
        for ax, policy in zip(axes, policies):
            table = means.xs(policy, level="policy")[column].unstack("scenario")
            scenario_bars(ax, table)
            ax.set_xticks(np.arange(len(table)), table.index, rotation=20, ha="right",
                          rotation_mode="anchor")
            ax.set_title(policy)
        axes[0].set_ylabel(column_label(column))
        figure_legend(figure, axes[0])
        figure.suptitle(title)
    return figure


def machine_classes(nodes: int) -> list[tuple[str, str]]:
    """(class, tick) of the size classes a machine of ``nodes`` can run, labelled up to its
    size (``65-100 nodes`` on KTH's 100; none that starts above it)."""
    from schedlab.viz.classes import range_label

    labels = [(name, range_label(low, high, nodes)) for name, low, high in SIZE_CLASSES]
    return [(name, f"{label} node{'' if label == '1' else 's'}") for name, label in labels
            if label is not None]


def class_figure(classes, column: str, policy: str, title: str, nodes: dict[str, int]):
    """Graphs 10-13: per workload, the size classes its machine (``nodes`` per workload)
    can run, with three bars each."""
    from schedlab.viz.style import figure_legend, new_figure, paper_style

    table = classes.xs(policy, level="policy")[column]
    workloads = list(dict.fromkeys(table.index.get_level_values("workload")))
    with paper_style():
        figure = new_figure(3.0 * len(workloads) + 2.2, 3.2)
        axes = figure.subplots(1, len(workloads), squeeze=False)[0]
        for ax, workload in zip(axes, workloads):
            part = table.xs(workload, level="workload").unstack("scenario")
            shown = machine_classes(nodes[workload])
            part = part.reindex([name for name, _ in shown])
            scenario_bars(ax, part)
            ax.set_xticks(np.arange(len(part)), [tick for _, tick in shown])
            ax.set_title(workload)
        axes[0].set_ylabel(column_label(column))
        figure_legend(figure, axes[0])
        figure.suptitle(f"{title} ({policy})")
    return figure


#: The bars of :func:`rules_figure`: (scenario, placement, color).
RULE_BARS = (("reservations", "exact", "#D55E00"), ("reservations", "earliest", "#E69F00"),
             ("throttled", "exact", "#009E73"), ("throttled", "earliest", "#56B4E9"))


def rules_figure(table, policy: str):
    """The future work's policies (Margo §7-8): per workload, the weighted expansion factor
    under each minimum rule, a bar per throttle and placement, the baseline as a line."""
    from schedlab.viz.style import figure_legend, new_figure, paper_style

    part = table.xs((policy, 0), level=["policy", "limit"])["expansion_factor_weighted"]
    workloads = list(dict.fromkeys(part.index.get_level_values("workload")))
    with paper_style():
        figure = new_figure(3.4 * len(workloads) + 2.8, 4.0)
        axes = figure.subplots(1, len(workloads), squeeze=False)[0]
        for ax, workload in zip(axes, workloads):
            rows = part.xs(workload, level="workload")
            minimums = [m for m in MINIMUMS if ("reservations", "exact", m) in rows.index]
            x = np.arange(len(minimums))
            for k, (scenario, placement, color) in enumerate(RULE_BARS):
                ax.bar(x + (k - 1.5) * 0.2, [rows[scenario, placement, m] for m in minimums],
                       0.2, color=color, label=f"{SCENARIO_LABELS[scenario]}, {placement}")
            ax.axhline(rows["baseline", "-", "none"], color=SCENARIO_COLORS["baseline"],
                       linestyle="--", label="baseline")
            ax.set_xticks(x, [f"min {m}" if m != "none" else "no minimum" for m in minimums],
                          rotation=20, ha="right", rotation_mode="anchor")
            ax.set_title(workload)
        axes[0].set_ylabel(column_label("expansion_factor_weighted"))
        figure_legend(figure, axes[0])
        figure.suptitle(f"Minimum duration {MIN_DURATION_HOURS} h / notice {MIN_NOTICE_HOURS} h "
                        f"and the placement (future work, §7-8; {policy})")
    return figure


def timeseries_figure(exp_dir: Path, runs, workload: str, policy: str, column: str,
                      processors: int):
    """Graphs 6-9: utilization (reserved nodes counted as used) or queue length over
    time, one line per scenario (seed and request stream 0; 6-hour means)."""
    from schedlab.experiments import load_series
    from schedlab.metrics.series import bin_means
    from schedlab.viz.style import figure_legend, honest_limits, new_figure, paper_style

    chosen = runs[(runs["workload"] == workload) & (runs["policy"] == policy)
                  & (runs["limit"] == 0) & (runs["request_seed"] <= 0)]
    chosen = chosen[chosen["seed"] == chosen["seed"].min()]
    with paper_style():
        figure = new_figure(7.6, 3.0)
        ax = figure.subplots()
        drawn: list[float] = []
        for scenario in SCENARIOS:
            row = chosen[chosen["scenario"] == scenario].iloc[0]
            series = load_series(exp_dir, row.run_id)
            times = series["time"].to_numpy(dtype=float)
            values = series["busy"].to_numpy(dtype=float)
            if column == "utilization":
                if "reserved" in series:
                    values = values + series["reserved"].to_numpy(dtype=float)
                values = values / processors
            else:
                values = series["queue"].to_numpy(dtype=float)
            t0 = times[0]
            bins, means = bin_means(times, values, 6 * HOUR, t0, times[-1])
            ax.step((bins - t0) / DAY, means, where="post", color=SCENARIO_COLORS[scenario],
                    label=SCENARIO_LABELS[scenario])
            drawn.extend(means)
        ax.set_xlabel("time since the window's start [days]")
        ax.set_ylabel("utilization, reserved nodes counted\n(6-hour means)"
                      if column == "utilization" else "waiting jobs (6-hour means)")
        honest_limits(ax, drawn)
        ax.set_title(f"{workload}, {policy}")
        figure_legend(figure, ax)
    return figure


def requests_figure(table):
    """Requests granted and rejected by reason, per workload, policy and scenario."""
    from schedlab.viz.style import PALETTE, figure_legend, new_figure, paper_style

    columns = ["reservations_granted"] + [c for c in table.columns
                                          if c.startswith("reservations_rejected.")]
    labels = [" / ".join((w, p.split("+")[1], "res" if s == "reservations" else "thr"))
              for w, p, s in table.index]
    with paper_style():
        figure = new_figure(max(4.0, 0.55 * len(table) + 1.5) + 1.8, 3.4)
        ax = figure.subplots()
        bottom = np.zeros(len(table))
        for k, column in enumerate(columns):
            values = table[column].to_numpy(dtype=float)
            ax.bar(np.arange(len(table)), values, bottom=bottom, color=PALETTE[k % len(PALETTE)],
                   label=request_label(column))
            bottom += values
        ax.set_xticks(np.arange(len(table)), labels, rotation=35, ha="right")
        ax.set_ylabel("requests (mean per stream)")
        ax.set_title("Reservation requests granted and rejected")
        figure_legend(figure, ax)
    return figure


def request_label(column: str) -> str:
    """``reservations_rejected.over_cap`` -> ``rejected: over cap``; ``granted``."""
    return column.replace("reservations_", "").replace("rejected.", "rejected: ").replace(
        "_", " ")
