"""The grid keys of an experiment: platforms, dispatchers, allocation, preemption overhead,
and the grid workloads (docs/how-to/experiments.md, "Grid experiments").

An experiment with a ``platforms`` key is a grid experiment: every run is a
grid run (docs/reference/policies/grid.md) on one of its platforms, with one of its
dispatchers, allocations and preemption overheads (the cartesian product,
:func:`parse_grid_axes`); its workloads are grid workloads
(:func:`parse_grid_workload`) and its policies grid local policies.  What
cannot mix is refused here, naming the key: a grid key without
``platforms``, machine sizes, transforms or reservations with them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.experiments.spec.checks import Checker, describe_value
from schedlab.experiments.spec.runs import (
    GRID_FILE,
    GRID_MODEL,
    GridSetting,
    PlatformSource,
    WorkloadSource,
    file_digest,
)
from schedlab.experiments.spec.sections import (
    GRID_MODEL_SOURCE,
    PolicyEntry,
    WorkloadEntry,
    parse_policy,
)
from schedlab.limits import check_jobs, check_seed

#: Top-level keys that only a grid experiment has; ``platforms`` makes one.
GRID_KEYS = ("platforms", "dispatchers", "allocation", "preemption_overhead")
PLATFORM_KEYS = ("source", "label", "settings")
DISPATCHER_KEYS = ("name", "params", "grid")
ALLOCATIONS = ("shared", "exclusive")
GRID_MODEL_KEYS = ("source", "label", "preset", "jobs", "ta", "settings", "seeds")
GRID_FILE_KEYS = ("source", "label", "cancellations")
DEFAULT_DISPATCHER = "round-robin"


def check_grid_keys(data: Mapping[str, Any], check: Checker) -> bool:
    """Whether the experiment is a grid one (it has ``platforms``); a key that cannot mix
    with that (or, without platforms, a grid key) is an error naming it."""
    if "platforms" in data:
        from schedlab.engine.policy import GRID
        from schedlab.execution import MODELS
        from schedlab.run import RunSpec

        grid = MODELS[GRID]
        for key in data:
            if key in RunSpec.__dataclass_fields__ and not grid.takes(key):
                raise check.error(key, f"a grid experiment (with 'platforms') takes no "
                                  f"{key!r}: {grid.refusal}")
        return True
    for key in GRID_KEYS:
        if key in data:
            raise check.error(key, "applies to grid experiments only; give the platforms "
                              "the runs use in a 'platforms' key (docs/how-to/experiments.md, "
                              "\"Grid experiments\")")
    return False


def parse_grid_axes(data: Mapping[str, Any], base_dir: Path,
                    check: Checker) -> list[GridSetting]:
    """Platforms x dispatcher settings x allocations x preemption overheads, in that order.

    Each key takes one value or a list (a platform or a dispatcher: a table, or a string
    for its ``source`` or ``name``)."""
    platforms = [parse_platform(entry, path, base_dir, check)
                 for path, entry in _values(data["platforms"], "platforms", check)]
    _unique_platform_labels(platforms, check)
    dispatchers = [combo for path, entry in _values(data.get("dispatchers", DEFAULT_DISPATCHER),
                                                    "dispatchers", check)
                   for combo in parse_dispatcher(entry, path, check).combos]
    allocations = check.choice_list(data.get("allocation", ALLOCATIONS[0]), "allocation",
                                    ALLOCATIONS)
    overheads = check.int_list(data.get("preemption_overhead", 0), "preemption_overhead", low=0)
    settings = [GridSetting(platform, combo.name, combo.params, allocation, overhead)
                for (_, platform), combo, allocation, overhead
                in itertools.product(platforms, dispatchers, allocations, overheads)]
    _refuse_repeated_settings(settings, check)
    return settings


def parse_platform(entry: Any, path: str, base_dir: Path,
                   check: Checker) -> tuple[str, PlatformSource]:
    """One ``platforms`` entry (a table, or a bare string: its ``source``) -> its key path and
    source: a platform TOML file (relative to the experiment file; read now, so that a bad
    file is reported before any run) or a preset with optional ``settings``."""
    from schedlab.platform import read_platform
    from schedlab.platform.generator import PRESETS, PlatformSettings, preset

    if isinstance(entry, str):
        entry = {"source": entry}
    check.keys(entry, path, PLATFORM_KEYS)
    if "source" not in entry:
        raise check.error(f"{path}.source", f"expected the platform's 'source': a platform "
                          f"TOML file or a preset ({', '.join(PRESETS)})")
    source = check.text(entry["source"], f"{path}.source")
    file = (base_dir / source).resolve()
    if file.is_file():
        if "settings" in entry:
            raise check.error(f"{path}.settings", "applies to platform presets only, and "
                              f"{source!r} is a platform file")
        read_platform(file)
        label = check.text(entry.get("label", file.stem), f"{path}.label")
        return path, PlatformSource("file", str(file), label, file_digest(file))
    if source not in PRESETS:
        what = "a directory" if file.is_dir() else "no such file"
        raise check.error(f"{path}.source", f"expected a platform TOML file or a preset "
                          f"({', '.join(PRESETS)}); {what}: {file}")
    settings = check.table(entry.get("settings", {}), f"{path}.settings")
    check.keys(settings, f"{path}.settings", tuple(PlatformSettings.__dataclass_fields__))
    changes = {key: _tuples(value) for key, value in settings.items()}
    _built(lambda: preset(source, **changes), f"{path}.settings", check)
    label = check.text(entry.get("label", source), f"{path}.label")
    return path, PlatformSource("preset", source, label, None, tuple(sorted(changes.items())))


def parse_dispatcher(entry: Any, path: str, check: Checker) -> PolicyEntry:
    """One ``dispatchers`` entry: a name, fixed ``params`` and a ``grid`` to sweep, like a
    policy entry (every combination built once with ``make_dispatcher``)."""
    from schedlab.policies.grid import make_dispatcher

    return parse_policy(entry, path, check, build=lambda spec: make_dispatcher(spec).name,
                        keys=DISPATCHER_KEYS)


def grid_policy(spec: Mapping[str, Any]) -> str:
    """The canonical name of a grid local policy (a space-sharing one is refused)."""
    from schedlab.policies.registry import make_local_policy

    return make_local_policy(spec).name


def parse_grid_workload(entry: Any, path: str, base_dir: Path, check: Checker) -> WorkloadEntry:
    """One workload of a grid experiment: ``source = "grid"``, the job streams of ``schedlab
    generate grid`` (``preset``, ``jobs``, ``ta`` swept, ``settings``, ``seeds``), or an SWF
    file with its ``.grid.csv`` side file, read as it is."""
    if isinstance(entry, str):
        entry = {"source": entry}
    if not isinstance(entry, Mapping) or "source" not in entry:
        check.keys(entry, path, GRID_MODEL_KEYS)
        raise check.error(f"{path}.source", f"expected the workload's 'source': "
                          f"{GRID_MODEL_SOURCE!r} (generated grid jobs) or an SWF file with "
                          f"its .grid.csv side file")
    source = check.text(entry["source"], f"{path}.source")
    if source == GRID_MODEL_SOURCE and not (base_dir / source).exists():
        return _grid_model(entry, path, check)
    return _grid_file(entry, source, path, base_dir, check)


def _grid_model(entry: Mapping[str, Any], path: str, check: Checker) -> WorkloadEntry:
    """A generated grid workload; its ``ta`` values are the entry's variants."""
    from schedlab.workload.models.grid import (
        DEFAULT_PRESET,
        PRESETS,
        THESIS_RUNS,
        JobSettings,
        preset,
    )

    check.keys(entry, path, GRID_MODEL_KEYS)
    name = check.choice(entry.get("preset", DEFAULT_PRESET), f"{path}.preset", list(PRESETS))
    jobs = check.bounded(check_jobs, entry.get("jobs", THESIS_RUNS[name].jobs), f"{path}.jobs",
                         low=1)
    tas = [_interarrival(v, p, jobs, check) for p, v in _values(entry.get(
        "ta", THESIS_RUNS[name].interarrivals[0]), f"{path}.ta", check)]
    if len(set(tas)) < len(tas):
        raise check.error(f"{path}.ta", f"a value is given twice: {tas}")
    settings = check.table(entry.get("settings", {}), f"{path}.settings")
    check.keys(settings, f"{path}.settings", tuple(JobSettings.__dataclass_fields__))
    changes = {key: _tuples(value) for key, value in settings.items()}
    _built(lambda: preset(name, **changes), f"{path}.settings", check)
    seeds = (tuple(check.bounded(check_seed, v, p, low=0)
                   for p, v in check.items(entry["seeds"], f"{path}.seeds"))
             if "seeds" in entry else None)
    label = check.text(entry.get("label", GRID_MODEL_SOURCE), f"{path}.label")
    options: dict[str, Any] = {"jobs": jobs, "preset": name}
    if changes:
        options["settings"] = tuple(sorted(changes.items()))
    source = WorkloadSource(GRID_MODEL, GRID_MODEL_SOURCE, label, None,
                            tuple(sorted(options.items())))
    return WorkloadEntry(source, seeds, path,
                         tuple(_with_option(source, "ta", ta) for ta in tas))


def _grid_file(entry: Mapping[str, Any], source: str, path: str, base_dir: Path,
               check: Checker) -> WorkloadEntry:
    """An SWF file and its side file; both digests are part of the runs' identity, with
    what becomes of its cancelled records (``cancellations``, docs/reference/events.md)."""
    from schedlab.experiments.spec.sections import trace_label
    from schedlab.workload.grid import side_path
    from schedlab.workload.swf import CANCELLATION_RULES

    for key in entry:
        if key not in GRID_FILE_KEYS:
            why = ("generated grid workloads (source = \"grid\")" if key in GRID_MODEL_KEYS
                   else "no grid workload")
            raise check.error(f"{path}.{key}", f"applies to {why}: a grid SWF file is read "
                              f"with its side file as it is (keys: {', '.join(GRID_FILE_KEYS)})")
    file = (base_dir / source).resolve()
    if not file.is_file() and _is_space_sharing_model(source):
        raise check.error(f"{path}.source", f"{source!r} is a model of jobs for one "
                          f"homogeneous machine; a grid experiment needs {GRID_MODEL_SOURCE!r} "
                          f"(generated grid jobs) or an SWF file with its .grid.csv side file")
    if not file.is_file():
        what = "a directory" if file.is_dir() else "no such file"
        raise check.error(f"{path}.source", f"expected {GRID_MODEL_SOURCE!r} (generated grid "
                          f"jobs) or an SWF file with its .grid.csv side file; {what}: {file}")
    try:
        side = side_path(file)
    except InputError as err:
        raise check.error(f"{path}.source", err.reason) from None
    if not side.is_file():
        raise check.error(f"{path}.source", f"a grid workload needs the grid attributes of "
                          f"its jobs: no side file {side} (docs/reference/platform.md)")
    label = check.text(entry.get("label", trace_label(file)), f"{path}.label")
    options: dict[str, Any] = {"side_sha256": file_digest(side)}
    if "cancellations" in entry:
        options["cancellations"] = check.choice(entry["cancellations"], f"{path}.cancellations",
                                                CANCELLATION_RULES)
    return WorkloadEntry(WorkloadSource(GRID_FILE, str(file), label, file_digest(file),
                                        tuple(sorted(options.items()))), None, path)


def _is_space_sharing_model(name: str) -> bool:
    from schedlab.workload.models import BUILTIN_MODELS

    return name in BUILTIN_MODELS


def grid_policy_entries(policies: Sequence[Any], check: Checker) -> list[PolicyEntry]:
    """The ``[[policies]]`` of a grid experiment: grid local policies, with their grids."""
    return [parse_policy(entry, f"policies[{i}]", check, build=grid_policy)
            for i, entry in enumerate(check.nonempty_list(policies, "policies"))]


def _values(value: Any, path: str, check: Checker) -> list[tuple[str, Any]]:
    """A value or a non-empty list of values, each with its key path."""
    if isinstance(value, list):
        return [(f"{path}[{i}]", v) for i, v in enumerate(check.nonempty_list(value, path))]
    return [(path, value)]


def _interarrival(value: Any, path: str, jobs: int, check: Checker) -> float:
    """A mean interarrival time in seconds: a finite number >= 0 (0: every job at once), as
    the generator checks it for ``jobs`` jobs (:func:`schedlab.workload.models.grid.
    check_interarrival`)."""
    from schedlab.workload.models.grid import check_interarrival

    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0:
        raise check.error(path, f"expected a mean interarrival time in seconds, a finite "
                          f"number >= 0, got {describe_value(value)}")
    try:
        return check_interarrival(float(value), jobs)
    except InputError as err:
        raise check.error(path, err.reason) from None


def _with_option(source: WorkloadSource, key: str, value: Any) -> WorkloadSource:
    options = tuple(sorted({**dict(source.options), key: value}.items()))
    return WorkloadSource(source.kind, source.source, source.label, source.digest, options)


def _built(build, path: str, check: Checker) -> None:
    """Build settings once, so that a value the generator refuses names its key."""
    try:
        build()
    except InputError as err:
        field = f"{path}.{err.field}" if err.field else path
        raise check.error(field, err.reason) from None
    except (TypeError, ValueError) as err:
        raise check.error(path, f"expected the generator's settings (numbers, or arrays of "
                          f"them), which it refused: {err}") from None


def _tuples(value: Any) -> Any:
    """TOML arrays as the tuples the generators' settings hold."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _unique_platform_labels(platforms: Sequence[tuple[str, PlatformSource]],
                            check: Checker) -> None:
    first: dict[str, str] = {}
    for path, platform in platforms:
        if platform.label in first:
            raise check.error(f"{path}.label", f"label {platform.label!r} is already used by "
                              f"{first[platform.label]}; give each platform its own 'label'")
        first[platform.label] = path


def _refuse_repeated_settings(settings: Sequence[GridSetting], check: Checker) -> None:
    """Two dispatcher entries that are the same dispatcher would run everything twice."""
    seen: set[str] = set()
    for setting in settings:
        key = repr(setting.identity())
        if key in seen:
            raise check.error("dispatchers", f"describes the dispatcher {setting.dispatch} "
                              f"{dict(setting.dispatch_params)} twice; remove the repetition")
        seen.add(key)

