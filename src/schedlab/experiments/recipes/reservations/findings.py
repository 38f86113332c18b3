"""The paper's claims (§6, §8) and the future work's questions (§7-8), checked against the
runs.
"""

from __future__ import annotations

from schedlab.experiments.recipes import Finding
from schedlab.experiments.recipes.reservations.design import (
    MIN_DURATION_HOURS,
    MIN_NOTICE_HOURS,
    MINIMUMS,
    PLACEMENTS,
    SCENARIO_LABELS,
)
from schedlab.experiments.recipes.reservations.paper import paper_range
from schedlab.experiments.recipes.reservations.tables import (
    has_setting,
    readings_table,
    rule_variant,
)


def _pairs(means, metric: str, a: str, b: str):
    """Per workload and policy: (value in scenario a, value in scenario b)."""
    table = means[metric].unstack("scenario")
    return [(index, row[a], row[b]) for index, row in table.iterrows()]


def _text(pairs, digits: int = 2) -> str:
    return "; ".join(f"{w} {p.split('+')[1]}: {x:.{digits}f} -> {y:.{digits}f}"
                     for (w, p), x, y in pairs)


def paper_findings(runs, means, classes, large) -> list[Finding]:
    """The paper's claims (§6, §8) checked against the means of the runs of its three
    scenarios (``runs``: :func:`papers_runs`)."""
    out = [sharp_increase(means), recovery(means), beats_baseline(runs),
           medium_suffer(classes), large_jobs(classes, large), queue_depth(means),
           utilization(means)]
    if (runs["limit"] > 0).any():
        out.append(queue_limit(runs))
    return out


def future_findings(table) -> list[Finding]:
    """What the future work's policies (Margo §7-8) and the earliest placement do, for
    the settings that were run (:func:`rule_table`)."""
    out = [minimum_rule(table, "reservations", minimums) for minimums in MINIMUMS[1:]
           if has_setting(table, "reservations", "exact", minimums)]
    throttled = [m for m in MINIMUMS[1:] if has_setting(table, "throttled", "exact", m)]
    if throttled:
        out.append(minimum_rule(table, "throttled", throttled[-1]))
    if has_setting(table, "reservations", "earliest", "none"):
        out.append(placement_reading(readings_table(table)))
        out.append(earliest_placement(table))
        minimums = [m for m in MINIMUMS[1:] if has_setting(table, "reservations", "earliest", m)]
        if minimums:
            out.append(earliest_with_minimums(table, minimums[-1]))
    return out


def _short(workload: str, policy: str) -> str:
    """``KTH-SP2 d120 C``: a workload and the initial of its backfilling."""
    return f"{workload} {policy.split('+')[1][0].upper()}"


def rise_per_point(table, scenario: str, placement: str, minimums: str):
    """Margo eq. 2's expansion factor above the baseline per percentage point of machine
    time reserved, per workload and policy: what a reserved node-hour costs the batch jobs
    (the cost the future work's policies try to lower, §7)."""
    base = rule_variant(table, "baseline", "-", "none", "expansion_factor_weighted")
    ef = rule_variant(table, scenario, placement, minimums, "expansion_factor_weighted")
    reserved = rule_variant(table, scenario, placement, minimums, "utilization_reserved")
    return (ef - base) / (100 * reserved)


def minimum_rule(table, scenario: str, minimums: str) -> Finding:
    """A minimum duration and/or notice against the same scenario without it (Margo §7-8).

    The paper predicts only the minimum duration's direction (§8: "the
    effects of allowing reservations can be moved towards the positive by
    policies that have a minimum duration requirement"): judged as a lower
    expansion-factor rise per point of machine time reserved in most
    workloads and policies.  The other rules are shown, not judged.
    """
    names = {"duration": f"duration >= {MIN_DURATION_HOURS} h",
             "notice": f"notice >= {MIN_NOTICE_HOURS} h",
             "duration+notice": f"duration >= {MIN_DURATION_HOURS} h and notice >= "
                                f"{MIN_NOTICE_HOURS} h"}
    ef = [rule_variant(table, scenario, "exact", m, "expansion_factor_weighted")
          for m in ("none", minimums)]
    granted = [rule_variant(table, scenario, "exact", m, "reservations_granted")
               for m in ("none", minimums)]
    rise = [rise_per_point(table, scenario, "exact", m) for m in ("none", minimums)]
    text = "; ".join(f"{_short(w, p)}: EF {ef[0][w, p]:.2f} -> {ef[1][w, p]:.2f}, granted "
                     f"{granted[0][w, p]:.1f} -> {granted[1][w, p]:.1f}, EF rise per "
                     f"reserved % {rise[0][w, p]:.2f} -> {rise[1][w, p]:.2f}"
                     for w, p in ef[0].index)
    lower = (rise[1] < rise[0]).sum()
    judged = minimums == "duration" and scenario == "reservations"
    return Finding(f"{SCENARIO_LABELS[scenario]}, minimum {names[minimums]} "
                   "(future work, §7-8)",
                   "predicted towards the positive (§8), no numbers" if judged
                   else "postulated (§7), no numbers",
                   text, bool(lower * 2 > len(rise[0])) if judged else None,
                   f"holds = lower EF rise per reserved % of machine time in {lower} of "
                   f"{len(rise[0])}" if judged else
                   f"EF rise per reserved % lower in {lower} of {len(rise[0])}")


def placement_reading(readings) -> Finding:
    """Which reading of the placement comes nearer the paper's unthrottled expansion factors
    (§6: 7.35 and 9.35, x3.59 and x3.70 the baseline); :func:`readings_table`."""
    rows = readings.xs("reservations", level="scenario")
    parts = [f"{_short(w, p)}: exact {r['exact']:.2f} (x{r['exact_x']:.2f}), earliest "
             f"{r['earliest']:.2f} (x{r['earliest_x']:.2f})" for (w, p), r in rows.iterrows()]
    return Finding("+ reservations under each reading of the placement (Margo §2, §5): "
                   "exact (ours: a taken time is refused) and earliest (every request placed)",
                   f"EF {paper_range('reservations')} ({paper_range('reservations', True)} "
                   "the baseline); the paper says every request was injected (§5), not "
                   "whether one whose time was taken was refused or moved",
                   "; ".join(parts), None,
                   "table readings; the paper's own placement is unknown, so not judged")


def earliest_placement(table) -> Finding:
    """The earliest placement against the exact one (our reading), unthrottled and
    throttled."""
    parts = []
    for scenario in ("reservations", "throttled"):
        ef = [rule_variant(table, scenario, p, "none", "expansion_factor_weighted")
              for p in PLACEMENTS]
        granted = [rule_variant(table, scenario, p, "none", "reservations_granted")
                   for p in PLACEMENTS]
        moved = rule_variant(table, scenario, "earliest", "none", "reservations_moved")
        parts.append(f"{SCENARIO_LABELS[scenario]}: " + "; ".join(
            f"{_short(w, p)}: granted {granted[0][w, p]:.1f} -> {granted[1][w, p]:.1f} "
            f"({moved[w, p]:.1f} moved), EF {ef[0][w, p]:.2f} -> {ef[1][w, p]:.2f}"
            for w, p in ef[0].index))
    return Finding("earliest placement instead of the exact time (exact -> earliest)",
                   "not said: §2 places requests after the jobs' reservations, §5 injects "
                   "15 a week; what became of a request whose time was taken is not given",
                   " / ".join(parts), None)


def earliest_with_minimums(table, minimums: str) -> Finding:
    """With the earliest placement every request is granted unless a rule refuses it: the
    minimum rules are then the only limit (Margo §7)."""
    ef = [rule_variant(table, "reservations", "earliest", m, "expansion_factor_weighted")
          for m in ("none", minimums)]
    granted = [rule_variant(table, "reservations", "earliest", m, "reservations_granted")
               for m in ("none", minimums)]
    text = "; ".join(f"{_short(w, p)}: granted {granted[0][w, p]:.1f} -> "
                     f"{granted[1][w, p]:.1f}, EF {ef[0][w, p]:.2f} -> {ef[1][w, p]:.2f}"
                     for w, p in ef[0].index)
    return Finding(f"earliest placement, unthrottled, with the minimum rules ({minimums})",
                   "postulated (§7), no numbers", text, None)


def sharp_increase(means) -> Finding:
    """Reservations raise the weighted expansion factor and wait sharply (Graphs 4-5)."""
    ef = _pairs(means, "expansion_factor_weighted", "baseline", "reservations")
    wait = _pairs(means, "wait_h", "baseline", "reservations")
    holds = all(y > 1.5 * x for _, x, y in ef) and all(y > 1.5 * x for _, x, y in wait)
    return Finding("reservations raise the expansion factor and wait sharply (Graphs 4-5)",
                   "EF 2.05 -> 7.35, wait 6.03 -> 74.0 h (2006); EF 2.53 -> 9.35, "
                   "wait 13.7 -> 107 h (2007)",
                   f"EF {_text(ef)}; wait (h) {_text(wait, 1)}", holds,
                   "holds = at least x1.5 in every workload and policy")


def recovery(means) -> Finding:
    """Throttling recovers most of the increase (share of EF increase undone >= 1/2)."""
    table = means["expansion_factor_weighted"].unstack("scenario")
    share = ((table["reservations"] - table["throttled"])
             / (table["reservations"] - table["baseline"]))
    text = "; ".join(f"{w} {p.split('+')[1]}: {v:.0%}" for (w, p), v in share.items())
    return Finding("throttling recovers most of the increase (share of the EF increase undone)",
                   "2006: 107 % (EF 7.35 -> 1.70, below the baseline 2.05); "
                   "2007: 61 % (9.35 -> 5.21, baseline 2.53)",
                   text, bool((share >= 0.5).all()), "holds = at least 50 % everywhere")


def beats_baseline(runs) -> Finding:
    """Throttled runs with a lower weighted expansion factor than their baseline."""
    main = runs[runs["limit"] == 0]
    base = main[main["scenario"] == "baseline"].set_index(["workload", "policy", "seed"])
    throttled = main[main["scenario"] == "throttled"]
    better = [row.expansion_factor_weighted
              < base.loc[(row.workload, row.policy, row.seed), "expansion_factor_weighted"]
              for row in throttled.itertuples()]
    return Finding("with throttling the expansion factor can even beat the baseline",
                   "2006 yes (1.70 < 2.05); 2007 no (5.21 > 2.53)",
                   f"{sum(better)} of {len(better)} throttled runs below their baseline",
                   any(better), "holds = in at least one run")


def medium_suffer(classes) -> Finding:
    """The class whose weighted expansion factor rises most with reservations."""
    ef = classes["expansion_factor"].unstack("scenario")
    rise = (ef["reservations"] - ef["baseline"]).unstack("class")
    worst = rise.idxmax(axis=1)
    text = "; ".join(f"{w} {p.split('+')[1]}: {c} (+{rise.loc[(w, p), c]:.1f})"
                     for (w, p), c in worst.items())
    return Finding("medium jobs (2-64 nodes) suffer most (Graphs 10-13)",
                   "2006: medium EF rises most; 2007: medium and large both suffer",
                   f"class with the largest EF rise: {text}",
                   bool((worst == "2-64").sum() * 2 > len(worst)),
                   "holds = medium in most workloads and policies")


def large_jobs(classes, large) -> Finding:
    """Wide reservations can open room for large jobs: large jobs better off than without."""
    ef = classes["expansion_factor"].unstack("scenario").xs("65-256", level="class")
    better = ef[(ef["throttled"] < ef["baseline"]) | (ef["reservations"] < ef["baseline"])]
    moved = large.xs("throttled", level="scenario")
    text = (f"large-class EF below the baseline in {len(better)} of {len(ef)} "
            f"workload/policy pairs; large jobs starting earlier than in the baseline "
            f"(throttled): {int(moved['earlier'].sum())} of {int(moved['large_jobs'].sum())}")
    return Finding("wide reservations can open room for large jobs",
                   "2006: two reservations (130 and 128 nodes) let a 256-node job start earlier",
                   text, len(better) > 0, "holds = the large class does better somewhere")


def queue_depth(means) -> Finding:
    """Queue depth: far higher with reservations, near the baseline when throttled."""
    table = means["max_queue"].unstack("scenario")
    text = "; ".join(f"{w} {p.split('+')[1]}: {r.baseline:.0f} / {r.reservations:.0f} / "
                     f"{r.throttled:.0f}" for (w, p), r in table.iterrows())
    holds = bool(((table["reservations"] > table["baseline"])
                  & (table["throttled"] < table["reservations"])).all())
    return Finding("the queue grows much deeper with reservations; throttled it stays near "
                   "the baseline (Graphs 8-9; max waiting jobs, base / res / throttled)",
                   "baseline and throttled within ~90 (2006) / ~150 (2007); "
                   "+ reservations almost 400", text, holds)


def utilization(means) -> Finding:
    """Utilization counting reserved nodes as used stays high (Graphs 6-7)."""
    table = means.unstack("scenario")
    text = "; ".join(
        f"{w} {p.split('+')[1]}: {r[('utilization_margo', 'baseline')]:.2f} / "
        f"{r[('utilization_margo_reserved', 'reservations')]:.2f} / "
        f"{r[('utilization_margo_reserved', 'throttled')]:.2f}"
        for (w, p), r in table.iterrows())
    holds = bool((table[("utilization_margo_reserved", "reservations")]
                  >= table[("utilization_margo", "baseline")] - 0.02).all())
    return Finding("counting reserved nodes as used, utilization is not worse "
                   "(base / res / throttled)",
                   "remains high; some periods lower, \"not the rule\"", text, holds,
                   "holds = within 0.02 of the baseline or above")


def queue_limit(runs) -> Finding:
    """DataStar's limit of 6 queued jobs per user and the expansion factor (§6)."""
    res = runs[runs["scenario"] == "reservations"]
    free = res[res["limit"] == 0].groupby("workload")["expansion_factor_weighted"].mean()
    held = res[res["limit"] > 0].groupby("workload")["expansion_factor_weighted_queued"].mean()
    text = "; ".join(f"{w}: {free[w]:.2f} -> {held[w]:.2f}" for w in free.index)
    return Finding("a limit of 6 queued jobs per user would lower the expansion factor "
                   "(+ reservations; EF from queue entry)",
                   "not simulated; expected (\"you wouldn't see the poor expansion factor\")",
                   text, bool((held < free).all()))
