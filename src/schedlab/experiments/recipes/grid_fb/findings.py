"""The claims of thesis §4.1 checked against our tables (each a function of the tables of
:func:`~.tables.tables`, so that it can be tested on small made-up ones)."""

from __future__ import annotations

from schedlab.experiments.recipes import Finding
from schedlab.experiments.recipes.grid_fb.design import BACKFILLING, BASELINES, FLEXIBLE
from schedlab.experiments.recipes.grid_fb.paper import FIGURE_TEXT, TABLE2, TABLE3

#: Points of percentage within which two policies count as "about the same".
CLOSE = 2.0


def _row(frame, key, columns) -> str:
    return ", ".join(f"{c} {frame.loc[key, c]:.1f}" for c in columns)


def finding_flexible_misses_fewer(frames) -> Finding:
    """Fig. 16: BF_UNMOD and BF_MOD miss fewer deadlines than FCFS and BF_FCFS at every Ta."""
    fig = frames["fig16"]
    holds = all(fig.loc[ta, list(FLEXIBLE)].max() < fig.loc[ta, list(BASELINES)].min()
                for ta in fig.index)
    return Finding(
        claim="BF_UNMOD and BF_MOD miss fewer deadlines than FCFS and BF_FCFS at every Ta "
              "(Fig. 16)",
        paper=FIGURE_TEXT["fig16"],
        ours="; ".join(f"Ta {ta:g}: {_row(fig, ta, fig.columns)}" for ta in fig.index),
        holds=holds, note="% of deadline jobs finishing late, mean over repetitions; a tie "
                          "is not fewer")


def finding_backfilling_usage(frames) -> Finding:
    """Fig. 17: the three backfilling policies use the system more than FCFS at the highest
    contention (the smallest Ta)."""
    fig = frames["fig17"]
    ta = fig.index.min()
    holds = all(fig.loc[ta, p] > fig.loc[ta, "FCFS"] for p in BACKFILLING)
    return Finding(
        claim=f"Backfilling raises system usage over FCFS at the highest contention (Ta {ta:g}, "
              f"Fig. 17)",
        paper=FIGURE_TEXT["fig17"], ours=f"Ta {ta:g}: {_row(fig, ta, fig.columns)} %",
        holds=holds)


def finding_flexible_usage_over_bf_fcfs(frames) -> Finding:
    """§4.1's conclusion: BF_UNMOD and BF_MOD use the system more than BF_FCFS, at every Ta."""
    fig = frames["fig17"]
    holds = all(fig.loc[ta, p] >= fig.loc[ta, "BF_FCFS"] for ta in fig.index for p in FLEXIBLE)
    return Finding(
        claim="BF_UNMOD and BF_MOD give a system usage at least that of BF_FCFS at every Ta",
        paper="'Both BF_UNMOD and BF_MOD outperforms FCFS and BF_FCFS in term of system usage'",
        ours="; ".join(f"Ta {ta:g}: {_row(fig, ta, fig.columns)} %" for ta in fig.index),
        holds=holds)


def finding_slowdown(frames) -> Finding:
    """Fig. 18: backfilling at least halves FCFS's slowdown at the highest contention."""
    fig = frames["fig18"]
    ta = fig.index.min()
    holds = all(fig.loc[ta, p] <= fig.loc[ta, "FCFS"] / 2 for p in BACKFILLING)
    return Finding(
        claim=f"Backfilling at least halves FCFS's average slowdown at Ta {ta:g} (Fig. 18)",
        paper=FIGURE_TEXT["fig18"], ours=f"Ta {ta:g}: {_row(fig, ta, fig.columns)}",
        holds=holds, note="'drastically' read as at least a factor 2")


def finding_table3_order(frames) -> Finding:
    """Table 3: at every licence ratio BF_UNMOD, BF_MOD < BF_FCFS < FCFS in missed deadlines."""
    table = frames["table3"]
    holds = all(table.loc[r, list(FLEXIBLE)].max() < table.loc[r, "BF_FCFS"]
                < table.loc[r, "FCFS"] for r in table.index)
    return Finding(
        claim="At every licence ratio, BF_UNMOD and BF_MOD miss fewer deadlines than BF_FCFS, "
              "which misses fewer than FCFS (Table 3)",
        paper="; ".join(f"{r}: {', '.join(f'{p} {v}' for p, v in row.items())}"
                        for r, row in TABLE3.items()),
        ours="; ".join(f"{r}: {_row(table, r, table.columns)}" for r in table.index),
        holds=holds)


def finding_table3_ratio_trend(frames) -> Finding:
    """Table 3: BF_UNMOD and BF_MOD miss fewer deadlines as licences get less scarce."""
    table = frames["table3"].sort_index()
    holds = all(table[p].is_monotonic_decreasing for p in FLEXIBLE)
    return Finding(
        claim="BF_UNMOD and BF_MOD miss fewer deadlines as the licence ratio grows (Table 3)",
        paper="BF_UNMOD 74.5, 69.4, 66.2; BF_MOD 73.5, 69.0, 66.2",
        ours="; ".join(f"{p} " + ", ".join(f"{v:.1f}" for v in table[p]) for p in FLEXIBLE),
        holds=holds)


def finding_table2_licence_gain(frames) -> Finding:
    """Table 2: Flexible Backfilling's licence usage gain over BF_FCFS is largest when licences
    are scarcest (it is even a loss at 50–70 % in the thesis)."""
    table = frames["table2"].sort_index()
    gain = table[list(FLEXIBLE)].mean(axis=1) - table["BF_FCFS"]
    holds = bool(gain.iloc[0] > gain.iloc[-1])
    paper_gain = {r: (row["BF_UNMOD"] + row["BF_MOD"]) / 2 - row["BF_FCFS"]
                  for r, row in TABLE2.items()}
    return Finding(
        claim="The licence usage of BF_UNMOD/BF_MOD over BF_FCFS is higher at the scarcest "
              "licence ratio than at the most plentiful (Table 2)",
        paper=", ".join(f"{r}: {v:+.1f}" for r, v in paper_gain.items()),
        ours=", ".join(f"{r}: {v:+.1f}" for r, v in gain.items()), holds=holds,
        note="gain = mean of BF_UNMOD and BF_MOD minus BF_FCFS, points of %")


def finding_unmod_like_mod(frames) -> Finding:
    """§4.1: no measurable difference between BF_UNMOD and BF_MOD (missed deadlines)."""
    fig = frames["fig16"]
    gap = (fig["BF_UNMOD"] - fig["BF_MOD"]).abs()
    return Finding(
        claim=f"BF_UNMOD and BF_MOD miss deadlines within {CLOSE:g} points of each other at "
              f"every Ta",
        paper="'We were not able to measure any difference between BF_UNMOD and BF_MOD'",
        ours=f"largest gap {gap.max():.2f} points (Ta {gap.idxmax():g})",
        holds=bool(gap.max() <= CLOSE))


def finding_bf_fcfs_close_at_low_contention(frames) -> Finding:
    """§4.1: at the largest Ta BF_FCFS performs about as well as the two FB variants."""
    fig = frames["fig16"]
    ta = fig.index.max()
    gap = abs(fig.loc[ta, "BF_FCFS"] - fig.loc[ta, list(FLEXIBLE)].mean())
    return Finding(
        claim=f"At the lowest contention (Ta {ta:g}) BF_FCFS misses within {CLOSE:g} points of "
              f"BF_UNMOD/BF_MOD",
        paper="'With higher inter-arrival times ... BF_FCFS shows a performance similar to our "
              "two strategies'",
        ours=f"Ta {ta:g}: {_row(fig, ta, fig.columns)}", holds=bool(gap <= CLOSE))


FINDINGS = [finding_flexible_misses_fewer, finding_backfilling_usage,
            finding_flexible_usage_over_bf_fcfs, finding_slowdown, finding_table3_order,
            finding_table3_ratio_trend, finding_table2_licence_gain, finding_unmod_like_mod,
            finding_bf_fcfs_close_at_low_contention]
