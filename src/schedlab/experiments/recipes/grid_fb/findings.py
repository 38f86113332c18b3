"""The claims of thesis §4.1 and §4.3.1 checked against our tables (each a function of the
tables of :func:`~.tables.tables`, so that it can be tested on small made-up ones)."""

from __future__ import annotations

from schedlab.experiments.recipes import Finding
from schedlab.experiments.recipes.grid_fb.design import (
    BACKFILLING,
    BASELINES,
    CASES,
    FLEXIBLE,
    MS_FIGURE_INTERARRIVAL,
)
from schedlab.experiments.recipes.grid_fb.paper import FIGURE_TEXT, MS_FIGURE_TEXT, TABLE2, TABLE3
from schedlab.experiments.recipes.grid_fb.tables import ALL

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


# ---------------------------------------------------------------------------- §4.3.1
MS, LS, NO = CASES
#: Points of percentage within which every cluster's work share counts as "the same amount
#: of workload" (Fig. 25, Ta = 0).
EQUAL_SHARE = 3.0
#: Points of percentage within which the three configurations' usages count as "similar"
#: (Figs. 28–29).
SIMILAR_USAGE = 5.0
FIG = MS_FIGURE_INTERARRIVAL


def _cells(values, digits: int = 1) -> str:
    return ", ".join(f"{k} {v:.{digits}f}" for k, v in values.items())


def _deviation(shares, optimum) -> float:
    """Half the sum of |share - optimum| over the clusters, points of %."""
    return float((shares - optimum).abs().sum() / 2)


def finding_equal_shares_at_ta0(frames) -> Finding:
    """Fig. 25: with every job submitted at once (Ta = 0), the MS gives every cluster the
    same amount of work."""
    shares = frames["fig25"].loc[(MS, 0)]
    equal = 100.0 / len(shares)
    gap = (shares - equal).abs().max()
    return Finding(
        claim=f"At Ta 0 every cluster gets {equal:g} % of the work within {EQUAL_SHARE:g} "
              f"points under MS heuristics (Fig. 25)",
        paper=MS_FIGURE_TEXT["fig25_ta0"], ours=f"Ta 0: {_cells(shares)} %",
        holds=bool(gap <= EQUAL_SHARE), note="work = width x estimate x job rating")


def finding_larger_clusters_gain_with_ta(frames) -> Finding:
    """Fig. 25: as Ta grows, the clusters that keep their queue short get more work -- the
    largest cluster's share grows from Ta 0 to the largest Ta."""
    shares = frames["fig25"].loc[MS]
    first = shares.columns[0]
    low, high = shares.index.min(), shares.index.max()
    return Finding(
        claim=f"The largest cluster ({first}) gets a larger share of the work at Ta {high:g} "
              f"than at Ta {low:g} under MS heuristics (Fig. 25)",
        paper=MS_FIGURE_TEXT["fig25_ta"],
        ours=", ".join(f"Ta {ta:g}: {shares.loc[ta, first]:.1f} %" for ta in shares.index),
        holds=bool(shares.loc[high, first] > shares.loc[low, first]))


def finding_ta5_nearest_optimum(frames) -> Finding:
    """Fig. 25: of the Ta studied, Ta = 5 gives the work distribution nearest the
    machine-count optimum."""
    shares, optimum = frames["fig25"].loc[MS], frames["fig25_optimum"]
    deviation = {ta: _deviation(shares.loc[ta], optimum) for ta in shares.index}
    nearest = min(deviation, key=deviation.__getitem__)
    return Finding(
        claim=f"Of every Ta, Ta {FIG:g} gives the work shares nearest the machine-count "
              f"optimum under MS heuristics (Fig. 25)",
        paper=MS_FIGURE_TEXT["fig25_ta5"] + f" (optimum {_cells(optimum)} %)",
        ours="deviation " + ", ".join(f"Ta {ta:g}: {d:.1f}" for ta, d in deviation.items()),
        holds=bool(nearest == FIG), note="deviation = half the sum over clusters of "
                                         "|share - optimum|, points of %")


def _falls_by_cluster(frame, case) -> bool:
    """Whether the row ``case`` is non-increasing over the clusters (largest first)."""
    return bool(frame.loc[case].drop(ALL).is_monotonic_decreasing)


def _rises_by_cluster(frame, case) -> bool:
    return bool(frame.loc[case].drop(ALL).is_monotonic_increasing)


def finding_slowdown_by_cluster_power(frames) -> Finding:
    """Fig. 26: the slowdown of jobs without deadline grows as the cluster gets smaller, in
    every configuration."""
    fig = frames["fig26"]
    return Finding(
        claim=f"At Ta {FIG:g} the slowdown of jobs without deadline grows from the largest "
              f"cluster to the smallest, in every configuration (Fig. 26)",
        paper=MS_FIGURE_TEXT["fig26"],
        ours="; ".join(f"{case}: {_cells(fig.loc[case].drop(ALL), 2)}" for case in fig.index),
        holds=all(_rises_by_cluster(fig, case) for case in fig.index),
        note="clusters listed largest first (120, 60, 30, 15 machines)")


def finding_heuristics_miss_fewer(frames) -> Finding:
    """Fig. 27: MS and LS heuristics miss fewer deadlines than no heuristics (EASY)."""
    fig = frames["fig27"][ALL]
    return Finding(
        claim=f"At Ta {FIG:g} MS and LS heuristics miss fewer deadlines than NO heuristics "
              f"(Fig. 27)",
        paper=MS_FIGURE_TEXT["fig27"], ours=f"Ta {FIG:g}: {_cells(fig)} %",
        holds=bool(max(fig[MS], fig[LS]) < fig[NO]), note="the whole platform")


def finding_ms_as_good_as_ls(frames) -> Finding:
    """Fig. 27: classifying at the MS alone misses no more deadlines than LS heuristics
    (within :data:`CLOSE` points)."""
    fig = frames["fig27"][ALL]
    return Finding(
        claim=f"At Ta {FIG:g} MS heuristics miss at most {CLOSE:g} points more deadlines than "
              f"LS heuristics (Fig. 27)",
        paper=MS_FIGURE_TEXT["fig27_ms"], ours=f"MS {fig[MS]:.1f} %, LS {fig[LS]:.1f} %",
        holds=bool(fig[MS] <= fig[LS] + CLOSE),
        note="'comparable' read as: not worse by more than the margin")


def finding_ms_cheaper_than_ls(frames) -> Finding:
    """Fig. 27's text: MS heuristics cost less scheduling time than LS heuristics, which
    recompute every queued job's priority at every event."""
    cost = frames["ms_over_ta"]["scheduling_time_per_event_us"].xs(FIG, level="Ta")
    return Finding(
        claim=f"At Ta {FIG:g} MS heuristics spend less scheduling time per event than LS "
              f"heuristics",
        paper=MS_FIGURE_TEXT["fig27_ms"],
        ours=f"Ta {FIG:g}: {_cells(cost, 0)} µs per event",
        holds=bool(cost[MS] < cost[LS]),
        note="wall-clock time of the policy and dispatcher calls: it depends on the machine")


def finding_ms_misses_fewer_at_every_ta(frames) -> Finding:
    """Fig. 27 at every Ta (our extension: the thesis shows Ta = 5): MS heuristics miss fewer
    deadlines than NO heuristics at every Ta."""
    missed = frames["ms_over_ta"]["deadline_missed_pct"].unstack("configuration")[list(CASES)]
    return Finding(
        claim="MS heuristics miss fewer deadlines than NO heuristics at every Ta "
              "(Fig. 27 over Ta)",
        paper=MS_FIGURE_TEXT["fig27"] + " (shown at Ta 5 only)",
        ours="; ".join(f"Ta {ta:g}: {_cells(missed.loc[ta])}" for ta in missed.index),
        holds=bool((missed[MS] < missed[NO]).all()))


def finding_usage_similar(frames) -> Finding:
    """Figs. 28–29: the three configurations reach similar system and licence usage."""
    usage = {name: frames[name][ALL] for name in ("fig28", "fig29")}
    spread = max(float(u.max() - u.min()) for u in usage.values())
    return Finding(
        claim=f"At Ta {FIG:g} the three configurations' system and licence usage are within "
              f"{SIMILAR_USAGE:g} points of each other (Figs. 28–29)",
        paper=MS_FIGURE_TEXT["fig28_29"],
        ours=f"system {_cells(usage['fig28'])} %; licences {_cells(usage['fig29'])} %",
        holds=bool(spread <= SIMILAR_USAGE))


def finding_usage_falls_with_cluster_size(frames) -> Finding:
    """Figs. 28–29: the smaller the cluster, the lower its system and licence usage, in every
    configuration."""
    figs = [frames["fig28"], frames["fig29"]]
    return Finding(
        claim=f"At Ta {FIG:g} system and licence usage fall from the largest cluster to the "
              f"smallest, in every configuration (Figs. 28–29)",
        paper=MS_FIGURE_TEXT["fig28_29_clusters"],
        ours="; ".join(f"{what} {case}: {_cells(fig.loc[case].drop(ALL))}"
                       for what, fig in zip(("system", "licences"), figs) for case in fig.index),
        holds=all(_falls_by_cluster(fig, case) for fig in figs for case in fig.index),
        note="usage in %; clusters largest first")


#: §4.1's checks.
FINDINGS_41 = [finding_flexible_misses_fewer, finding_backfilling_usage,
               finding_flexible_usage_over_bf_fcfs, finding_slowdown, finding_table3_order,
               finding_table3_ratio_trend, finding_table2_licence_gain, finding_unmod_like_mod,
               finding_bf_fcfs_close_at_low_contention]
#: §4.3.1's checks.
FINDINGS_431 = [finding_equal_shares_at_ta0, finding_larger_clusters_gain_with_ta,
                finding_ta5_nearest_optimum, finding_slowdown_by_cluster_power,
                finding_heuristics_miss_fewer, finding_ms_as_good_as_ls,
                finding_ms_cheaper_than_ls, finding_ms_misses_fewer_at_every_ta,
                finding_usage_similar, finding_usage_falls_with_cluster_size]
FINDINGS = FINDINGS_41 + FINDINGS_431
