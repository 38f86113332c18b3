"""The ``[reservations]`` section: the reservation axis of a sweep (Margo et al., §5–6).

docs/how-to/experiments.md, "Advance reservations", describes its keys.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schedlab.experiments.spec.checks import Checker
from schedlab.experiments.spec.runs import (
    RequestSource,
    ReservationSetting,
    canonical_json,
    file_digest,
)
from schedlab.limits import JOBS_BOUND, MAX_JOBS, MAX_PROCESSORS, MAX_TIME, TIME_BOUND
from schedlab.workload.reservations import PAPER_PER_WEEK

#: Keys of ``[reservations]`` (docs/how-to/experiments.md, "Advance reservations").
GENERATOR_KEYS = ("per_week", "nodes", "hours", "notice_hours", "node_size", "days",
                  "compress")
RESERVATION_KEYS = ("file", *GENERATOR_KEYS, "seed", "baseline", "tick",
                    "max_queued_per_user", "rules")
RULE_KEYS = ("placement", "throttle", "cap", "cap_hours", "window", "min_duration",
             "min_notice")
COMPRESS_KEYS = ("from_days", "into_days")


def parse_reservations(section: Any, base_dir: Path,
                       check: Checker) -> list[ReservationSetting]:
    """``[reservations]`` -> the reservation axis of the sweep (Margo et al., §5–6).

    The requests come from ``file`` or from the generator keys; ``seed``,
    ``tick``, ``max_queued_per_user`` and every key of ``rules`` take a
    value or a list of values, and the settings are their cartesian product
    (settings that give the same rules, such as several caps with throttling
    off, count once).  ``baseline = true`` adds, for every tick and queue
    limit, a run without requests.
    """
    check.keys(section, "reservations", RESERVATION_KEYS)
    ticks = check.int_list(section.get("tick", 0), "reservations.tick", low=0)
    limits = [limit or None for limit in check.int_list(
        section.get("max_queued_per_user", 0), "reservations.max_queued_per_user", low=0)]
    sources = _request_sources(section, base_dir, check)
    if not sources and "rules" in section:
        raise check.error("reservations.rules", "rules need requests: give 'file' or the "
                          "generator keys (per_week, nodes, hours, ...)")
    rules = _rule_settings(section.get("rules", {}), check) if sources else []
    baseline = check.boolean(section.get("baseline", not sources), "reservations.baseline")
    points: list[tuple[RequestSource | None, tuple[tuple[str, Any], ...] | None]] = []
    if baseline:
        points.append((None, None))
    points += list(itertools.product(sources, rules))
    return [ReservationSetting(requests, rule, tick, limit)
            for requests, rule in points for tick in ticks for limit in limits]


def _request_sources(section: Mapping[str, Any], base_dir: Path,
                     check: Checker) -> list[RequestSource]:
    """The request file, or one generator setting per seed; none when neither is given."""
    generator = [key for key in GENERATOR_KEYS if key in section]
    if "file" in section:
        if generator or "seed" in section:
            key = generator[0] if generator else "seed"
            raise check.error(f"reservations.{key}", "applies to generated requests, and "
                              "'file' is given; use either a request file or the generator")
        return [_request_file(section["file"], base_dir, check)]
    if not generator:
        if "seed" in section:
            raise check.error("reservations.seed", "applies to generated requests; give "
                              "the generator keys (per_week, nodes, hours, ...)")
        return []
    options = _generator_options(section, check)
    seeds = check.int_list(section.get("seed", 0), "reservations.seed", low=0)
    return [RequestSource("generate", options=tuple(sorted({**options, "seed": seed}.items())))
            for seed in seeds]


def _request_file(value: Any, base_dir: Path, check: Checker) -> RequestSource:
    """A request CSV, relative to the experiment file; read and checked by the runs."""
    file = (base_dir / check.text(value, "reservations.file")).resolve()
    if not file.is_file():
        raise check.error("reservations.file", f"expected a reservation-request CSV file "
                          f"(docs/reference/reservations.md); no such file: {file}")
    return RequestSource("file", str(file), file_digest(file))


def _generator_options(section: Mapping[str, Any], check: Checker) -> dict[str, Any]:
    """The generator keys given, checked (defaults are applied by the runner)."""
    options: dict[str, Any] = {}
    if "per_week" in section:
        value = section["per_week"]
        options["per_week"] = value if value == 0 else check.number(value,
                                                                    "reservations.per_week")
        if options["per_week"] > MAX_JOBS:   # more requests than jobs on a span of a week
            raise check.error("reservations.per_week", f"expected at most {MAX_JOBS} requests "
                              f"per week ({JOBS_BOUND} in all), got {value}")
    # Widths up to the largest machine; hours whose seconds stay within MAX_TIME.
    for key, low, high in (("nodes", 1, MAX_PROCESSORS), ("hours", 1, MAX_TIME // 3600),
                           ("notice_hours", 0, MAX_TIME // 3600)):
        if key in section:
            options[key] = list(check.range_pair(section[key], f"reservations.{key}", low=low,
                                                 high=high))
    if "node_size" in section:
        options["node_size"] = _node_sizes(section["node_size"], check)
    if "days" in section and "compress" in section:
        raise check.error("reservations.days", "give either 'days' (the span generated over) "
                          "or 'compress' (from_days generated, into_days simulated)")
    if "days" in section:
        options["days"] = _days(section["days"], "reservations.days", options, check)
    if "compress" in section:
        compress = section["compress"]
        check.keys(compress, "reservations.compress", COMPRESS_KEYS)
        for key in COMPRESS_KEYS:
            if key not in compress:
                raise check.error(f"reservations.compress.{key}",
                                  "expected both from_days and into_days")
        options["compress"] = {key: _days(compress[key], f"reservations.compress.{key}",
                                          options, check) for key in COMPRESS_KEYS}
    return options


def _days(value: Any, path: str, options: Mapping[str, Any], check: Checker) -> float:
    """A span in days (> 0) whose seconds stay within MAX_TIME, and over which the rate
    ``per_week`` draws at most MAX_JOBS requests (the generator's own bound, checked here
    before the first run)."""
    days = check.number(value, path)
    if days * 86_400 > MAX_TIME:
        raise check.error(path, f"expected at most {MAX_TIME // 86_400} days ({TIME_BOUND}), "
                          f"got {value}")
    rate = options.get("per_week", PAPER_PER_WEEK)
    if rate * days / 7 > MAX_JOBS:
        raise check.error(path, f"{rate:g} requests per week over {days:g} days make "
                          f"{rate * days / 7:.0f} requests; expected at most {MAX_JOBS} "
                          f"(2**22, as many as jobs)")
    return days


def _node_sizes(value: Any, check: Checker) -> Any:
    """Processors per node: an integer, or a table workload label -> integer (default 1)."""
    path = "reservations.node_size"
    if isinstance(value, Mapping):
        return {label: check.integer(size, f"{path}.{label}", low=1)
                for label, size in value.items()}
    return check.integer(value, path, low=1)


def _rule_settings(section: Any, check: Checker) -> list[tuple[tuple[str, Any], ...]]:
    """``[reservations.rules]`` -> the distinct ReservationRules settings of its grid.

    ``throttle`` switches the sliding-window cap on (``cap`` in node-seconds,
    default the paper's 256 nodes x 12 h, Margo §2; or ``cap_hours``: the
    whole machine for that many hours, set by the runner from the run's
    machine size — §2, "all unshared batch nodes in the system for half a
    day each week"); with it off, ``cap`` and ``window`` do not matter and
    are left out.  Each setting is built once with
    :class:`~schedlab.policies.reservations.ReservationRules`.
    """
    from schedlab.policies.reservations import PAPER_CAP, PLACEMENTS, WEEK, ReservationRules

    check.keys(section, "reservations.rules", RULE_KEYS)
    path = "reservations.rules"
    if "cap" in section and "cap_hours" in section:
        raise check.error(f"{path}.cap_hours", "give either 'cap' (node-seconds) or "
                          "'cap_hours' (hours of the whole machine)")
    caps = (check.int_list(section["cap_hours"], f"{path}.cap_hours", low=0)
            if "cap_hours" in section else
            check.int_list(section.get("cap", PAPER_CAP), f"{path}.cap", low=0))
    cap_key = "cap_hours" if "cap_hours" in section else "cap"
    axes: dict[str, list[Any]] = {
        "placement": check.choice_list(section.get("placement", "exact"), f"{path}.placement",
                                       PLACEMENTS),
        "throttle": check.bool_list(section.get("throttle", False), f"{path}.throttle"),
        cap_key: caps,
        "window": check.int_list(section.get("window", WEEK), f"{path}.window", low=1),
        "min_duration": check.int_list(section.get("min_duration", 0), f"{path}.min_duration",
                                       low=0),
        "min_notice": check.int_list(section.get("min_notice", 0), f"{path}.min_notice", low=0),
    }
    settings: dict[str, tuple[tuple[str, Any], ...]] = {}
    for point in itertools.product(*axes.values()):
        chosen = dict(zip(axes, point))
        throttle = chosen.pop("throttle")
        if not throttle:
            chosen.pop(cap_key)
            chosen.pop("window")
        ReservationRules(**{k: v for k, v in chosen.items() if k != "cap_hours"})
        rule = tuple(sorted(chosen.items()))
        settings.setdefault(canonical_json(dict(rule)), rule)
    return list(settings.values())
