"""Margo, Yoshimoto, Kovatch, Andrews: "Impact of Reservations on Production Job
Scheduling" (SDSC), §5–6 reproduced.

The paper replays one month of DataStar's production log (March 2006 and
March 2007, ~720 jobs each on 256 batch nodes) in three scenarios (§5):
the baseline, baseline + reservations (a year of TeraGrid requests, 60,
compressed into the month: 15 a week, 8–128 nodes, 4–18 h) and baseline +
reservations + the throttling policy (at most 256 nodes x 12 h of
reservations in any sliding 7 days, §2).  Catalina schedules every 15
minutes (§3).  The results (§6, Graphs 4–13): node-seconds-weighted
expansion factor and wait (eq. 2–3), utilization and queue depth over
time, and both metrics by size class (1, 2–64, 65–256 nodes).

Stand-ins (docs/reproductions/reservations.md): DataStar's log is not
public.  The full form uses two busy 30-day windows of each real trace at
hand — **KTH-SP2** (100 nodes, one processor each) and **SDSC-BLUE** (Blue
Horizon, 1,152 processors = 144 nodes x 8; every job asks for whole nodes,
so requests and size classes are in nodes of 8 processors) — and the
paper's request stream, generated (the TeraGrid requests are not public).
The reduced form (CI) uses the built-in Lublin model.

Beyond the paper, both forms run the policies its future work postulates
(§7: reservations "as a function of reservation size, duration, and advance
notice"; §8: "policies that have a minimum duration requirement") — a
minimum duration and a minimum notice, alone, together and with the
throttle — and the ``earliest`` placement next to Catalina's exact one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.recipes import Finding, Recipe, Reproduction, trace_file

DAY = 86400
HOUR = 3600
#: Margo §5: "In 2006, TeraGrid users requested reservations for 60 co-scheduled jobs."
REQUESTS_PER_YEAR = 60
#: Margo §5: nodes and hours of the requests.
REQUEST_NODES = (8, 128)
REQUEST_HOURS = (4, 18)
#: Catalina's scheduling iteration (Margo §3).
TICK = 900
#: Margo §2: the cap is "all unshared batch nodes in the system for half a day each week".
CAP_HOURS = 12
#: DataStar's per-user limit of queued jobs (Margo §6), an extra setting of the full form.
DATASTAR_QUEUE_LIMIT = 6
#: The minimum duration of the postulated policy (Margo §8: the "trailing edge" helps more
#: the longer a reservation lasts, its "leading edge" costs the same): half a day, the time
#: unit of the paper's own throttle (§2), which refuses the shorter 8 of the 14 hours of the
#: requests' 4-18 h.
MIN_DURATION_HOURS = 12
#: The minimum advance notice of the postulated policy (Margo §7): three days, the first
#: whole number of days beyond the longest wall-clock limit of every machine here (DataStar
#: 18 h, §5; SDSC-BLUE 36 h; KTH-SP2 60 h), so that no job started before the request is
#: known can still hold nodes when the reservation begins (§8: "the machine must be drained").
MIN_NOTICE_HOURS = 72
#: Two readings of where a request goes (docs/reservations.md, "Placement"): Margo §2 says
#: requests are placed after every eligible job has its reservation, not what happens to
#: one whose time is taken.  ``exact`` (our reading, the default) refuses it; ``earliest``
#: moves it to the earliest fit, closer to §5's "we injected 15 reservations during each week".
PLACEMENTS = ("exact", "earliest")
#: Which minimum rules a setting has, in table order (Margo §7-8).
MINIMUMS = ("none", "duration", "notice", "duration+notice")
POLICIES = ("fcfs+easy", "fcfs+conservative")
#: Catalina gives every eligible job a reservation (Margo §2): conservative backfilling.
CATALINA_LIKE = "fcfs+conservative"
SCENARIOS = ("baseline", "reservations", "throttled")
SCENARIO_LABELS = {"baseline": "baseline", "reservations": "+ reservations",
                   "throttled": "+ reservations + policy"}
SCENARIO_COLORS = {"baseline": "#0072B2", "reservations": "#D55E00", "throttled": "#009E73"}
#: Margo §6: "small jobs are one-node jobs, the medium jobs are 2-64 nodes and the large
#: are 65-256".
SIZE_CLASSES = (("1", 1, 1), ("2-64", 2, 64), ("65-256", 65, 256))

#: The full form's windows: (label, catalog name, file, first day, nodes, processors per node).
#: The busiest 30-day windows by offered load (docs/reproductions/reservations.md).
WINDOWS = (
    ("KTH-SP2 d120", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", 120, 100, 1),
    ("KTH-SP2 d240", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", 240, 100, 1),
    ("SDSC-BLUE d780", "SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", 780, 144, 8),
    ("SDSC-BLUE d840", "SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", 840, 144, 8),
)
WINDOW_DAYS = 30
FULL_REQUEST_SEEDS = (0, 1, 2, 3, 4)

#: The reduced form: ~1500 Lublin jobs on 128 processors span ~13 days.
REDUCED_MODEL = "lublin"
REDUCED_JOBS = 1500
REDUCED_NODES = 128
REDUCED_DAYS = 14
REDUCED_SEEDS = (0, 1, 2)
REDUCED_REQUEST_SEEDS = (0, 1)
REDUCED_POLICIES = ("fcfs+easy",)
#: The reduced form's minimum durations (hours): the minimum duration runs in the full form only.
REDUCED_MIN_DURATIONS = (0,)

#: The paper's numbers (§6): scenario -> (weighted wait in hours, expansion factor).
PAPER = {"2006": {"baseline": (6.03, 2.05), "reservations": (74.0, 7.35),
                  "throttled": (4.44, 1.70)},
         "2007": {"baseline": (13.7, 2.53), "reservations": (107.0, 9.35),
                  "throttled": (44.0, 5.21)}}


def paper_range(scenario: str, ratio: bool = False) -> str:
    """The paper's two months (§6) for one scenario: its expansion factors ``7.35-9.35``,
    or (``ratio``) the factor over the month's baseline, ``x3.59-3.70``."""
    values = sorted(months[scenario][1] / (months["baseline"][1] if ratio else 1)
                    for months in PAPER.values())
    prefix = "x" if ratio else ""
    return f"{prefix}{values[0]:.2f}-{values[-1]:.2f}"


# --------------------------------------------------------------------------- experiments


def reservation_table(node_sizes: dict[str, int], *, into_days: float,
                      request_seeds: tuple[int, ...], limits: tuple[int, ...],
                      min_durations: tuple[int, ...]) -> dict[str, Any]:
    """The ``[reservations]`` table of the three scenarios (Margo §5) and the future work's.

    A year of requests (60, at the paper's sizes, in nodes of each
    workload's ``node_size``) generated and compressed into ``into_days``;
    the baseline runs without them; the throttled scenario caps any sliding
    week at the whole machine for 12 hours (§2: 256 nodes x 12 h on
    DataStar).  Catalina's 15-minute tick in all.  The rules are a grid
    (:func:`rule_grid`) whose exact placement without minimums (our reading of the
    paper's placement) gives the paper's scenarios.
    """
    return {"per_week": REQUESTS_PER_YEAR * 7 / 364, "nodes": list(REQUEST_NODES),
            "hours": list(REQUEST_HOURS), "node_size": dict(node_sizes),
            "compress": {"from_days": 364, "into_days": into_days},
            "seed": list(request_seeds), "baseline": True, "tick": TICK,
            "max_queued_per_user": list(limits), "rules": rule_grid(min_durations)}


def rule_grid(min_durations: tuple[int, ...]) -> dict[str, Any]:
    """``[reservations.rules]``: the throttle off and on (Margo §2) x both placements x the
    minimum durations given (hours) x no minimum notice and :data:`MIN_NOTICE_HOURS` (§7-8).

    The paper's two reservation scenarios are, in our reading, the exact
    placement without minimums; their settings, and so their run ids, are those of the grid
    of the throttle alone (the rules' defaults are part of the identity).
    """
    return {"throttle": [False, True], "cap_hours": CAP_HOURS, "placement": list(PLACEMENTS),
            "min_duration": [hours * HOUR for hours in min_durations],
            "min_notice": [0, MIN_NOTICE_HOURS * HOUR]}


def full_experiment() -> dict[str, Any]:
    """Two busy 30-day windows of KTH-SP2 and of SDSC-BLUE, a year of requests in each.

    Both policies, five request streams, with and without DataStar's limit
    of six queued jobs per user, 16 rule settings (throttle x placement x
    minimum duration x minimum notice): 4 windows x 2 policies x (1 + 5 x
    16) settings x 2 limits = 1,296 runs (the paper's three scenarios: 176).
    """
    workloads = [{"source": str(trace_file("reservations", catalog, file)), "label": label,
                  "window": [day * DAY, (day + WINDOW_DAYS) * DAY]}
                 for label, catalog, file, day, _, _ in WINDOWS]
    return {
        "name": "reservations",
        "description": "Margo et al.: baseline, + reservations, + reservations + throttling "
                       "on 30-day windows of KTH-SP2 and SDSC-BLUE (§5-6)",
        "workloads": workloads,
        "policies": list(POLICIES),
        "reservations": reservation_table(
            {label: size for label, *_, size in WINDOWS}, into_days=WINDOW_DAYS,
            request_seeds=FULL_REQUEST_SEEDS, limits=(0, DATASTAR_QUEUE_LIMIT),
            min_durations=(0, MIN_DURATION_HOURS)),
    }


def reduced_experiment() -> dict[str, Any]:
    """The CI form: 1500 Lublin jobs (~2 weeks on 128 nodes), three seeds, EASY.

    Half a year of requests (30) compressed into the two weeks keeps the
    paper's density of 15 a week.  The rules: throttle x placement x
    minimum notice (no minimum duration, to keep it fast): 3 seeds x (1 + 2
    x 8) = 51 runs (the paper's three scenarios: 15).
    """
    return {
        "name": "reservations-reduced",
        "description": "Margo et al.'s three scenarios on the Lublin model (§5-6)",
        "seeds": list(REDUCED_SEEDS),
        "workloads": [{"source": REDUCED_MODEL, "jobs": REDUCED_JOBS}],
        "policies": list(REDUCED_POLICIES),
        "reservations": {**reservation_table({}, into_days=REDUCED_DAYS,
                                             request_seeds=REDUCED_REQUEST_SEEDS, limits=(0,),
                                             min_durations=REDUCED_MIN_DURATIONS),
                         "compress": {"from_days": 182, "into_days": REDUCED_DAYS}},
    }


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced form."""
    return reduced_experiment() if reduced else full_experiment()


def node_sizes(reduced: bool) -> dict[str, int]:
    """Processors per node of every workload label (1 when not listed)."""
    return {} if reduced else {label: size for label, *_, size in WINDOWS}


def machine_sizes(reduced: bool) -> dict[str, int]:
    """Processors of every workload label."""
    if reduced:
        return {REDUCED_MODEL: REDUCED_NODES}
    return {label: nodes * size for label, _, _, _, nodes, size in WINDOWS}


# --------------------------------------------------------------------------- runs


def scenario_of(setting: dict[str, Any]) -> str:
    """``baseline``, ``reservations`` or ``throttled`` from a stored reservation setting."""
    if setting["requests"] is None:
        return "baseline"
    return "throttled" if "cap_hours" in (setting["rules"] or {}) else "reservations"


def minimums_of(rules: dict[str, Any] | None) -> str:
    """Which minimum rules of the future work (Margo §7-8) a stored setting has: ``none``,
    ``duration``, ``notice`` or ``duration+notice`` (:data:`MINIMUMS`)."""
    rules = rules or {}
    named = [name for name, key in (("duration", "min_duration"), ("notice", "min_notice"))
             if rules.get(key, 0)]
    return "+".join(named) or "none"


def is_papers(rules: dict[str, Any] | None) -> bool:
    """Whether a stored setting is one of the paper's three scenarios (Margo §5): no
    requests, or requests at their exact time without minimum rules."""
    return rules is None or (rules.get("placement", "exact") == "exact"
                             and minimums_of(rules) == "none")


def run_table(exp_dir: Path):
    """One row per finished run: workload, policy, seed, scenario, placement, minimum rules,
    whether the run is one of the paper's scenarios, request seed, queue limit, run_id and
    its metrics (docs/metrics.md)."""
    import pandas as pd

    from schedlab.experiments.store import stored_rows

    rows = []
    for row in stored_rows(exp_dir):
        if row["status"] != "finished":
            continue
        setting = json.loads(row["spec_json"])["reservations"]
        requests = setting["requests"]
        rules = setting["rules"]
        rows.append({"workload": row["workload"], "policy": row["policy"],
                     "seed": -1 if row["seed"] is None else row["seed"],
                     "scenario": scenario_of(setting),
                     "placement": (rules or {}).get("placement", ""),
                     "minimums": minimums_of(rules), "papers": is_papers(rules),
                     "request_seed": -1 if requests is None else requests["generate"]["seed"],
                     "limit": setting["max_queued_per_user"] or 0, "run_id": row["run_id"],
                     **json.loads(row["metrics_json"])})
    return pd.DataFrame(rows)


def papers_runs(runs):
    """The runs of the paper's three scenarios (Margo §5), which its findings are about."""
    return runs[runs["papers"]]


def scenario_means(runs, limit: int = 0):
    """Mean of the main metrics per workload, policy and scenario (over seeds and request
    streams), for runs with queue limit ``limit``; waits in hours."""
    chosen = runs[runs["limit"] == limit].copy()
    chosen["wait_h"] = chosen["wait_weighted"] / HOUR
    columns = ["expansion_factor_weighted", "wait_h", "utilization_margo",
               "utilization_margo_reserved", "avg_queue", "max_queue",
               "reservations_granted", "reservations_rejected"]
    if limit:
        chosen["wait_queued_h"] = chosen["wait_weighted_queued"] / HOUR
        columns += ["expansion_factor_weighted_queued", "wait_queued_h"]
    columns = [c for c in columns if c in chosen]
    return chosen.groupby(["workload", "policy", "scenario"])[columns].mean()


def class_table(exp_dir: Path, runs, sizes: dict[str, int]):
    """Weighted expansion factor and wait (h) per size class in nodes (Margo §6, Graphs
    10-13), mean over seeds and request streams, runs without a queue limit."""
    import pandas as pd

    from schedlab.experiments import load_jobs

    rows = []
    for run in runs[runs["limit"] == 0].itertuples():
        jobs = load_jobs(exp_dir, run.run_id)
        for name, values in class_metrics(jobs, sizes.get(run.workload, 1)).items():
            rows.append({"workload": run.workload, "policy": run.policy,
                         "scenario": run.scenario, "class": name, **values})
    frame = pd.DataFrame(rows)
    return frame.groupby(["workload", "policy", "scenario", "class"]).mean()


def class_metrics(jobs, node_size: int) -> dict[str, dict[str, float]]:
    """Margo eq. 2-3 per size class: node-seconds-weighted expansion factor and wait.

    A job's nodes are ``ceil(width / node_size)``.  Weights, expansion
    factor and wait are those of the overall ``expansion_factor_weighted``
    and ``wait_weighted`` (:mod:`schedlab.metrics.jobs`, docs/metrics.md):
    node-seconds are width x the time the job held its processors
    (end - start; a job killed at its estimate weighs its estimate, not its
    trace runtime), the expansion factor is (wait + estimate) / estimate —
    Margo §4: "the ratio of the sum of requested wall-clock time and queue
    wait time divided by the requested wall-clock time".  Rejected jobs are
    left out; an empty class has NaN.
    """
    from schedlab.metrics.jobs import (AcceptedJobs, expansion_factor, node_seconds,
                                       wait_time, weighted_mean)

    ran = jobs[jobs["status"] != "rejected"]
    columns = {name: ran[name].to_numpy(dtype=np.int64)
               for name in ("submit", "start", "end", "width", "estimate")}
    held = AcceptedJobs(**columns, suspended=np.zeros(len(ran), dtype=np.int64))
    weights, factor, wait = node_seconds(held), expansion_factor(held), wait_time(held)
    nodes = -(-held.width // node_size)
    out = {}
    for name, low, high in SIZE_CLASSES:
        inside = (nodes >= low) & (nodes <= high)
        some = bool(inside.any())
        out[name] = {"jobs": int(inside.sum()),
                     "expansion_factor": weighted_mean(factor[inside], weights[inside])
                     if some else math.nan,
                     "wait_h": weighted_mean(wait[inside], weights[inside]) / HOUR
                     if some else math.nan}
    return out


def earlier_large_jobs(exp_dir: Path, runs, sizes: dict[str, int]):
    """Per workload, policy and scenario: large jobs (65+ nodes) that start earlier than in
    the baseline, summed over the request streams, and the number compared (Margo §6:
    two wide reservations "created a space in the schedule for a 256-node job")."""
    import pandas as pd

    from schedlab.experiments import load_jobs

    main = runs[runs["limit"] == 0]
    rows = []
    for (workload, policy, seed), group in main.groupby(["workload", "policy", "seed"]):
        base = group[group["scenario"] == "baseline"]
        if base.empty:
            continue
        before = load_jobs(exp_dir, base["run_id"].iloc[0]).set_index("job_id")
        size = sizes.get(workload, 1)
        large = before.index[-(-before["width"].to_numpy(dtype=np.int64) // size) > 64]
        for run in group[group["scenario"] != "baseline"].itertuples():
            after = load_jobs(exp_dir, run.run_id).set_index("job_id")
            earlier = (after.loc[large, "start"] < before.loc[large, "start"]).sum()
            rows.append({"workload": workload, "policy": policy, "scenario": run.scenario,
                         "large_jobs": len(large), "earlier": int(earlier)})
    return pd.DataFrame(rows).groupby(["workload", "policy", "scenario"]).sum()


def reason_columns(runs) -> list[str]:
    """The refusal reasons (metrics ``reservations_rejected.<reason>``) that occur in
    ``runs``, sorted."""
    return sorted(c for c in runs.columns
                  if c.startswith("reservations_rejected.") and (runs[c] > 0).any())


def with_reasons_counted(runs):
    """``runs`` with every refusal reason counted in every run with requests: a run's
    metrics name only the reasons it gave, so a missing one is 0 there (and a mean over the
    request streams must count it so)."""
    out = runs.copy()
    reasons = [c for c in out.columns if c.startswith("reservations_rejected.")]
    with_requests = out["scenario"] != "baseline"
    out.loc[with_requests, reasons] = out.loc[with_requests, reasons].fillna(0)
    return out


def rejection_table(runs):
    """Requests granted and rejected by reason, mean per request stream (no queue limit);
    the reasons that occur in these runs."""
    main = with_reasons_counted(runs[(runs["limit"] == 0) & (runs["scenario"] != "baseline")])
    columns = ["reservations", "reservations_granted"] + reason_columns(main)
    return main.groupby(["workload", "policy", "scenario"])[columns].mean()


#: The columns of :func:`rule_table`, in order.
RULE_COLUMNS = ("expansion_factor_weighted", "wait_h", "utilization_margo",
                "utilization_margo_reserved", "utilization_reserved", "reservations_granted",
                "reservations_moved")


def rule_table(runs):
    """Every reservation setting against its baseline (Margo §7-8, beyond the paper): mean
    over seeds and request streams per workload, policy, queue limit, scenario (throttle
    off or on), placement and minimum rules of the weighted expansion factor and wait (h,
    eq. 2-3), utilization (eq. 1; with reserved nodes counted; reserved alone), requests
    granted, moved and refused by reason.  The baseline rows have placement ``-``."""
    import pandas as pd

    chosen = with_reasons_counted(runs)
    chosen["wait_h"] = chosen["wait_weighted"] / HOUR
    chosen["placement"] = chosen["placement"].replace("", "-")
    chosen["placement"] = pd.Categorical(chosen["placement"], ["-", *PLACEMENTS], ordered=True)
    chosen["minimums"] = pd.Categorical(chosen["minimums"], MINIMUMS, ordered=True)
    columns = [c for c in RULE_COLUMNS if c in chosen] + reason_columns(chosen)
    keys = ["workload", "policy", "limit", "scenario", "placement", "minimums"]
    return chosen.groupby(keys, observed=True)[columns].mean()


#: The levels of :func:`rule_table` that name a setting.
SETTING_LEVELS = ["limit", "scenario", "placement", "minimums"]


def readings_table(table):
    """The paper's expansion factors beside each reading of the placement (Margo §2, §5-6).

    Per workload, policy and reservation scenario (no minimums, no queue
    limit): the baseline's weighted expansion factor (eq. 2), the factor
    under the exact placement (our reading: a request whose time is taken
    is refused) and under ``earliest`` (every request placed, at its first
    fit), each also as a multiple of the baseline, the requests granted,
    and the paper's two months as text (``paper``, ``paper_x``).
    """
    import pandas as pd

    base = rule_variant(table, "baseline", "-", "none", "expansion_factor_weighted")
    parts = []
    for scenario in ("reservations", "throttled"):
        if not all(has_setting(table, scenario, p, "none") for p in PLACEMENTS):
            continue
        part = pd.DataFrame({"baseline": base})
        for placement in PLACEMENTS:
            ef = rule_variant(table, scenario, placement, "none", "expansion_factor_weighted")
            part[placement] = ef
            part[f"{placement}_x"] = ef / base
            part[f"{placement}_granted"] = rule_variant(table, scenario, placement, "none",
                                                        "reservations_granted")
        part["paper"] = paper_range(scenario)
        part["paper_x"] = paper_range(scenario, ratio=True)
        parts.append(part.assign(scenario=scenario).set_index("scenario", append=True))
    return pd.concat(parts)


def has_setting(table, scenario: str, placement: str, minimums: str) -> bool:
    """Whether :func:`rule_table` holds the setting (without a queue limit)."""
    settings = table.index.droplevel(["workload", "policy"])
    return (0, scenario, placement, minimums) in set(settings)


def rule_variant(table, scenario: str, placement: str, minimums: str, column: str):
    """One column of :func:`rule_table` for one setting without a queue limit, indexed by
    workload and policy."""
    return table[column].xs((0, scenario, placement, minimums), level=SETTING_LEVELS)


# --------------------------------------------------------------------------- findings


def _pairs(means, metric: str, a: str, b: str):
    """Per workload and policy: (value in scenario a, value in scenario b)."""
    table = means[metric].unstack("scenario")
    return [(index, row[a], row[b]) for index, row in table.iterrows()]


def _text(pairs, digits: int = 2) -> str:
    return "; ".join(f"{w} {p.split('+')[1]}: {x:.{digits}f} -> {y:.{digits}f}"
                     for (w, p), x, y in pairs)


def findings(runs, means, classes, large) -> list[Finding]:
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


# --------------------------------------------------------------------------- figures


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


# --------------------------------------------------------------------------- summary


def markdown_table(frame, digits: int = 2) -> str:
    """A DataFrame (index included) as a Markdown table, numbers to ``digits`` places."""
    flat = frame.reset_index()
    lines = ["| " + " | ".join(map(str, flat.columns)) + " |",
             "|" + " --- |" * len(flat.columns)]
    for row in flat.itertuples(index=False):
        cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_table(frame, out: Path, name: str) -> dict[str, Path]:
    """``out/NAME.csv`` and ``out/NAME.md``."""
    from schedlab.output import atomic_write_text

    csv_path, md_path = out / f"{name}.csv", out / f"{name}.md"
    atomic_write_text(csv_path, frame.reset_index().to_csv(index=False))
    atomic_write_text(md_path, markdown_table(frame))
    return {name: csv_path, f"{name}.md": md_path}


def write_figure(figure, out: Path, name: str) -> dict[str, Path]:
    """``out/NAME.png`` and ``out/NAME.svg``; the PNG under ``NAME``."""
    from schedlab.viz.style import save_png_and_svg

    png, _ = save_png_and_svg(figure, out / name)
    return {name: png}


def paper_table():
    """The paper's numbers (§6) as a table: month x scenario."""
    import pandas as pd

    rows = [{"month": month, "scenario": scenario, "wait_h": wait, "expansion_factor": ef}
            for month, values in PAPER.items() for scenario, (wait, ef) in values.items()]
    return pd.DataFrame(rows).set_index(["month", "scenario"])


def summarize(exp_dir: Path, reduced: bool) -> Reproduction:
    """Figures, tables and findings of a finished sweep, in ``EXP_DIR/reproduction``."""
    exp_dir = Path(exp_dir)
    out = exp_dir / "reproduction"
    sizes, machines = node_sizes(reduced), machine_sizes(reduced)
    every = run_table(exp_dir)
    runs = papers_runs(every)
    means = scenario_means(runs)
    classes = class_table(exp_dir, runs, sizes)
    large = earlier_large_jobs(exp_dir, runs, sizes)
    rules = rule_table(every)
    reproduction = Reproduction(findings=findings(runs, means, classes, large)
                                + future_findings(rules))
    tables = {"scenarios": means, "size_classes": classes, "requests": rejection_table(runs),
              "large_jobs_earlier": large, "paper": paper_table(), "rules": rules,
              "readings": readings_table(rules)}
    if (runs["limit"] > 0).any():
        tables["queue_limit"] = scenario_means(runs, DATASTAR_QUEUE_LIMIT)
    for name, table in tables.items():
        reproduction.tables.update(write_table(table, out, name))
    figures = {
        "expansion_factor": bar_figure(means, "expansion_factor_weighted",
                                       "expansion factor (weighted)",
                                       "Average expansion factor, all jobs (Graph 4)"),
        "wait": bar_figure(means, "wait_h", "wait (h, weighted)",
                           "Average wait, all jobs (Graph 5)"),
        "requests_granted": requests_figure(rejection_table(runs)),
    }
    policy = CATALINA_LIKE if CATALINA_LIKE in set(runs["policy"]) else runs["policy"].iloc[0]
    figures["rules_expansion_factor"] = rules_figure(rules, policy)
    figures["classes_expansion_factor"] = class_figure(
        classes, "expansion_factor", "expansion factor", policy,
        "Expansion factor by job size (Graphs 10-11)")
    figures["classes_wait"] = class_figure(classes, "wait_h", "wait (h)", policy,
                                           "Wait by job size (Graphs 12-13)")
    for workload in dict.fromkeys(runs["workload"]):
        slug = workload.replace(" ", "_")
        for column in ("utilization", "queue"):
            figures[f"{column}_{slug}"] = timeseries_figure(exp_dir, runs, workload, policy,
                                                            column, machines[workload])
    for name, figure in figures.items():
        reproduction.figures.update(write_figure(figure, out, name))
    return reproduction


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


RECIPE = Recipe(
    name="reservations",
    paper="Margo, Yoshimoto, Kovatch, Andrews: Impact of Reservations on Production Job "
          "Scheduling",
    description="baseline / + reservations / + reservations + throttling (256 nodes x 12 h "
                "per sliding week) with EASY and conservative backfilling on 30-day windows "
                "of KTH-SP2 and SDSC-BLUE, a year of requests compressed into the month; "
                "and the future work's minimum duration (12 h) and notice (72 h), alone, "
                "together and throttled, with exact and earliest placement",
    experiment=experiment,
    summarize=summarize,
)
