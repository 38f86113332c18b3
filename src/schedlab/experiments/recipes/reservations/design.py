"""The experiment: the paper's settings (Margo §2-§5), the stand-in windows and the reduced
form, as the mapping ``schedlab reproduce`` sweeps.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.recipes import trace_file

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
#: Two readings of where a request goes (docs/reference/reservations.md, "Placement"): Margo §2 says
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

#: Margo §6: "small jobs are one-node jobs, the medium jobs are 2-64 nodes and the large
#: are 65-256".
SIZE_CLASSES = (("1", 1, 1), ("2-64", 2, 64), ("65-256", 65, 256))

#: The full form's windows: (label, catalog name, file, first day, nodes, processors per node).
#: The busiest 30-day windows by offered load (docs/background/reproductions/reservations.md).
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
