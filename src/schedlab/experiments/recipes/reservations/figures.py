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


def bar_figure(means, metric: str, ylabel: str, title: str):
    """Graphs 4-5: one group of three bars (scenarios) per workload, a panel per policy."""
    from schedlab.viz.style import new_figure, paper_style

    policies = list(dict.fromkeys(means.index.get_level_values("policy")))
    with paper_style():
        figure = new_figure(3.2 * len(policies) + 1.0, 3.2)
        axes = figure.subplots(1, len(policies), squeeze=False)[0]
        for ax, policy in zip(axes, policies):
            table = means.xs(policy, level="policy")[metric].unstack("scenario")
            x = np.arange(len(table))
            for k, scenario in enumerate(SCENARIOS):
                ax.bar(x + (k - 1) * 0.27, table[scenario], 0.27,
                       color=SCENARIO_COLORS[scenario], label=SCENARIO_LABELS[scenario])
            ax.set_xticks(x, table.index, rotation=20, ha="right")
            ax.set_title(policy)
            ax.set_ylabel(ylabel)
        axes[0].legend()
        figure.suptitle(title)
    return figure


def class_figure(classes, metric: str, ylabel: str, policy: str, title: str):
    """Graphs 10-13: per workload, the size classes with three bars each."""
    from schedlab.viz.style import new_figure, paper_style

    table = classes.xs(policy, level="policy")[metric]
    workloads = list(dict.fromkeys(table.index.get_level_values("workload")))
    with paper_style():
        figure = new_figure(3.0 * len(workloads) + 0.5, 3.2)
        axes = figure.subplots(1, len(workloads), squeeze=False)[0]
        for ax, workload in zip(axes, workloads):
            part = table.xs(workload, level="workload").unstack("scenario")
            part = part.reindex([name for name, *_ in SIZE_CLASSES])
            x = np.arange(len(part))
            for k, scenario in enumerate(SCENARIOS):
                ax.bar(x + (k - 1) * 0.27, part[scenario], 0.27,
                       color=SCENARIO_COLORS[scenario], label=SCENARIO_LABELS[scenario])
            ax.set_xticks(x, [f"{name} nodes" for name in part.index])
            ax.set_title(workload)
            ax.set_ylabel(ylabel)
        axes[0].legend()
        figure.suptitle(f"{title} ({policy})")
    return figure


#: The bars of :func:`rules_figure`: (scenario, placement, color).
RULE_BARS = (("reservations", "exact", "#D55E00"), ("reservations", "earliest", "#E69F00"),
             ("throttled", "exact", "#009E73"), ("throttled", "earliest", "#56B4E9"))


def rules_figure(table, policy: str):
    """The future work's policies (Margo §7-8): per workload, the weighted expansion factor
    under each minimum rule, a bar per throttle and placement, the baseline as a line."""
    from schedlab.viz.style import new_figure, paper_style

    part = table.xs((policy, 0), level=["policy", "limit"])["expansion_factor_weighted"]
    workloads = list(dict.fromkeys(part.index.get_level_values("workload")))
    with paper_style():
        figure = new_figure(3.4 * len(workloads) + 0.5, 3.4)
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
                          rotation=20, ha="right")
            ax.set_title(workload)
            ax.set_ylabel("expansion factor (weighted)")
        axes[0].legend(fontsize="small")
        figure.suptitle(f"Minimum duration {MIN_DURATION_HOURS} h / notice {MIN_NOTICE_HOURS} h "
                        f"and the placement (future work, §7-8; {policy})")
    return figure


def timeseries_figure(exp_dir: Path, runs, workload: str, policy: str, column: str,
                      processors: int):
    """Graphs 6-9: utilization (reserved nodes counted as used) or queue length over
    time, one line per scenario (seed and request stream 0; 6-hour means)."""
    from schedlab.experiments import load_series
    from schedlab.metrics.series import bin_means
    from schedlab.viz.style import new_figure, paper_style

    chosen = runs[(runs["workload"] == workload) & (runs["policy"] == policy)
                  & (runs["limit"] == 0) & (runs["request_seed"] <= 0)]
    chosen = chosen[chosen["seed"] == chosen["seed"].min()]
    with paper_style():
        figure = new_figure(6.0, 3.0)
        ax = figure.subplots()
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
        ax.set_xlabel("days")
        ax.set_ylabel("utilization (reserved counted)" if column == "utilization"
                      else "waiting jobs")
        ax.set_title(f"{workload}, {policy}")
        ax.legend()
    return figure


def requests_figure(table):
    """Requests granted and rejected by reason, per workload, policy and scenario."""
    from schedlab.viz.style import PALETTE, new_figure, paper_style

    columns = ["reservations_granted"] + [c for c in table.columns
                                          if c.startswith("reservations_rejected.")]
    labels = [" / ".join((w, p.split("+")[1], "res" if s == "reservations" else "thr"))
              for w, p, s in table.index]
    with paper_style():
        figure = new_figure(max(4.0, 0.55 * len(table) + 1.5), 3.4)
        ax = figure.subplots()
        bottom = np.zeros(len(table))
        for k, column in enumerate(columns):
            values = table[column].to_numpy(dtype=float)
            ax.bar(np.arange(len(table)), values, bottom=bottom, color=PALETTE[k % len(PALETTE)],
                   label=column.replace("reservations_", "").replace("rejected.", "rejected: "))
            bottom += values
        ax.set_xticks(np.arange(len(table)), labels, rotation=35, ha="right")
        ax.set_ylabel("requests (mean per stream)")
        ax.set_title("Reservation requests granted and rejected")
        ax.legend()
    return figure
