"""Experiment files (TOML) -> the list of runs they describe.

An experiment names workloads, transforms, policies with parameter grids,
seeds, machine sizes and overrun modes; its runs are the cartesian product
of all of them (docs/experiments.md has a complete example).  Transforms
may also come as several grids (``[[transforms]]``), each restricted to some
workloads and policies; the runs are then the union of the products of the
grids, a run that two grids give counted once.  Everything is
checked here, before any run starts: an unknown key, a value of the wrong
type, an unknown policy or parameter (every combination is built once with
:func:`~schedlab.policies.registry.make_policy`) or a missing workload file
raises :class:`~schedlab.errors.InputError` naming the file, the key path
(``policies[2].grid.k[1]``; indices count from 0) and what was expected.

A run's identity is the canonical JSON of its :class:`RunSpec` without the
location of its trace file; ``run_id`` is a hash of it, so rerunning a
sweep finds the runs it has already done, and moving a trace or the
experiment file does not change it.  A trace file is identified by its name
and the SHA-256 of its content.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from schedlab.errors import InputError
from schedlab.tomlio import parse_toml, to_toml
from schedlab.workload.pipeline import LOAD_METHODS

TOP_KEYS = ("name", "description", "workloads", "transforms", "policies", "seeds",
            "processors", "overrun", "reservations")
WORKLOAD_KEYS = ("source", "label", "jobs", "window", "seeds", "width_field",
                 "missing_estimate", "strict")
#: Reader options that only an SWF file understands.
FILE_ONLY_KEYS = ("width_field", "missing_estimate", "strict")
#: Transforms in the order they are applied (the order of ``schedlab simulate``).
TRANSFORM_KEYS = ("split", "shrink", "perfect_estimates", "load", "load_method", "stringency",
                  "deadline_fraction", "relaxation")
#: Keys of a transform table that say where its grid applies (workload labels, policy names).
SELECTOR_KEYS = ("workloads", "policies")
POLICY_KEYS = ("name", "params", "grid", "label")
WIDTH_FIELDS = ("requested", "allocated")
MISSING_ESTIMATE_RULES = ("use-runtime", "drop")
OVERRUN_MODES = ("kill", "extend")
RUN_ID_LENGTH = 16
#: Keys of ``[reservations]`` (docs/experiments.md, "Advance reservations").
GENERATOR_KEYS = ("per_week", "nodes", "hours", "notice_hours", "node_size", "days",
                  "compress")
RESERVATION_KEYS = ("file", *GENERATOR_KEYS, "seed", "baseline", "tick",
                    "max_queued_per_user", "rules")
RULE_KEYS = ("placement", "throttle", "cap", "cap_hours", "window", "min_duration",
             "min_notice")
COMPRESS_KEYS = ("from_days", "into_days")


@dataclass(frozen=True)
class WorkloadSource:
    """Where a run's jobs come from: a built-in model or an SWF file, with reader options.

    ``source`` is the model name or the file's absolute path; ``digest`` is the
    SHA-256 of a file's content (``None`` for a model); ``options`` are the
    sorted ``(key, value)`` pairs of ``jobs``, ``window`` and the SWF reader
    options that were given.
    """

    kind: str
    source: str
    label: str
    digest: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def is_file(self) -> bool:
        return self.kind == "file"

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def identity(self) -> dict[str, Any]:
        """What the workload is, independent of where its file lives."""
        name = Path(self.source).name if self.is_file else self.source
        ident: dict[str, Any] = {"kind": self.kind, "name": name, "label": self.label,
                                 "options": _plain(dict(self.options))}
        if self.digest is not None:
            ident["sha256"] = self.digest
        return ident

    def to_dict(self) -> dict[str, Any]:
        """The identity plus the file's location."""
        return {**self.identity(), "source": self.source}


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a sweep: workload, transforms, policy, seed, machine, overrun.

    ``transforms`` are ``(name, value)`` pairs in the order they are applied;
    ``params`` the policy parameters given in the experiment file, sorted by
    name; ``seed`` is ``None`` when the workload is a trace (nothing random);
    ``processors`` is ``None`` for the workload's own machine size;
    ``reservations`` is the run's advance-reservation setting, ``None`` when
    the experiment has no ``[reservations]`` table.
    """

    workload: WorkloadSource
    transforms: tuple[tuple[str, Any], ...]
    policy: str
    params: tuple[tuple[str, Any], ...]
    seed: int | None
    processors: int | None
    overrun: str
    reservations: ReservationSetting | None = None
    run_id: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_id", run_id_of(self.identity()))

    def identity(self) -> dict[str, Any]:
        """The fields that define the run (hashed into ``run_id``).

        ``reservations`` is part of it only when set, so that the runs of an
        experiment without reservations keep the ids they always had.
        """
        ident = {"workload": self.workload.identity(),
                 "transforms": _plain(dict(self.transforms)),
                 "policy": self.policy, "params": _plain(dict(self.params)),
                 "seed": self.seed, "processors": self.processors, "overrun": self.overrun}
        if self.reservations is not None:
            ident["reservations"] = self.reservations.identity()
        return ident

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to redo the run (stored as ``spec_json``)."""
        spec = {**self.identity(), "workload": self.workload.to_dict(), "run_id": self.run_id}
        if self.reservations is not None:
            spec["reservations"] = self.reservations.to_dict()
        return spec


@dataclass(frozen=True)
class RequestSource:
    """Where a run's reservation requests come from (Margo et al., §5; docs/reservations.md).

    ``kind`` is ``"file"`` (``path`` a request CSV, ``digest`` its SHA-256)
    or ``"generate"`` (``options``: the sorted generator settings, among
    them the ``seed``).
    """

    kind: str
    path: str | None = None
    digest: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def identity(self) -> dict[str, Any]:
        """What the requests are, independent of where their file lives."""
        if self.kind == "file":
            return {"file": Path(self.path or "").name, "sha256": self.digest}
        return {"generate": _plain(dict(self.options))}

    def to_dict(self) -> dict[str, Any]:
        ident = self.identity()
        return {**ident, "path": self.path} if self.kind == "file" else ident


@dataclass(frozen=True)
class ReservationSetting:
    """One point of the reservation axis: requests, Catalina rules, tick, queue limit.

    ``requests`` is ``None`` for a baseline run (no requests, but the same
    tick and queue limit); ``rules`` are the sorted keyword arguments of
    :class:`~schedlab.policies.reservations.ReservationRules` (``None`` for
    a baseline run); ``tick`` is the scheduling period (Catalina: 900 s,
    Margo §3; 0 = at every event); ``max_queued_per_user`` DataStar's
    per-user queue limit (Margo §6; ``None`` = no limit).
    """

    requests: RequestSource | None
    rules: tuple[tuple[str, Any], ...] | None
    tick: int = 0
    max_queued_per_user: int | None = None

    def identity(self) -> dict[str, Any]:
        return {"requests": None if self.requests is None else self.requests.identity(),
                "rules": None if self.rules is None else _plain(dict(self.rules)),
                "tick": self.tick, "max_queued_per_user": self.max_queued_per_user}

    def to_dict(self) -> dict[str, Any]:
        return {**self.identity(),
                "requests": None if self.requests is None else self.requests.to_dict()}

    def for_workload(self, label: str) -> ReservationSetting:
        """The setting with a per-workload ``node_size`` table resolved to the workload's."""
        sizes = None if self.requests is None else self.requests.option("node_size")
        if not isinstance(sizes, Mapping):
            return self
        options = {**dict(self.requests.options), "node_size": sizes.get(label, 1)}
        if options["node_size"] == 1:
            del options["node_size"]
        requests = RequestSource(self.requests.kind, self.requests.path, self.requests.digest,
                                 tuple(sorted(options.items())))
        return ReservationSetting(requests, self.rules, self.tick, self.max_queued_per_user)


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment file and its runs in expansion order."""

    path: Path | None
    text: str
    name: str
    description: str
    runs: tuple[RunSpec, ...]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same data always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def run_id_of(identity: Mapping[str, Any]) -> str:
    """The first 16 hex digits of the SHA-256 of the canonical JSON of a run's identity."""
    return hashlib.sha256(canonical_json(identity).encode("utf-8")).hexdigest()[:RUN_ID_LENGTH]


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, so that identities are JSON as written."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------- loading


def load_experiment(path: str | Path) -> Experiment:
    """Read, validate and expand an experiment file.

    Relative workload paths are relative to the file's directory.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such experiment file", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the experiment file: {err}", file=str(path)) from None
    data = parse_toml(text, str(path))
    return experiment_from_mapping(data, base_dir=path.resolve().parent, file=str(path),
                                   text=text)


def experiment_from_mapping(data: Mapping[str, Any], *, base_dir: str | Path = ".",
                            file: str = "<experiment>", text: str | None = None) -> Experiment:
    """Validate an experiment given as a mapping (the parsed TOML) and expand its runs.

    ``text`` is the experiment as the user wrote it (kept with the results);
    without it the mapping is written out as TOML.
    """
    check = _Checker(file)
    check.keys(data, "", TOP_KEYS)
    name = check.text(data.get("name", ""), "name")
    description = check.text(data.get("description", ""), "description")
    seeds = check.int_list(data.get("seeds", [0]), "seeds", low=0)
    processors = check.int_list(data.get("processors", [None]), "processors", low=1,
                                allow_none=True)
    overrun = check.choice_list(data.get("overrun", ["kill"]), "overrun", OVERRUN_MODES)
    if "workloads" not in data:
        raise check.error("workloads", "expected at least one workload, found no 'workloads' key")
    workloads = [parse_workload(entry, f"workloads[{i}]", Path(base_dir), check)
                 for i, entry in enumerate(check.nonempty_list(data["workloads"], "workloads"))]
    check.unique_labels(workloads)
    settings = (parse_reservations(data["reservations"], Path(base_dir), check)
                if "reservations" in data else [None])
    if "policies" not in data:
        raise check.error("policies", "expected at least one policy, found no 'policies' key")
    policies = [parse_policy(entry, f"policies[{i}]", check) for i, entry in
                enumerate(check.nonempty_list(data["policies"], "policies"))]
    tables = parse_transform_tables(data.get("transforms", {}), workloads, policies, check)
    check_every_entry_runs(tables, workloads, policies, check)
    runs = expand(workloads, tables, policies, seeds, processors, overrun, check, settings)
    if text is None:
        text = to_toml(data)
    return Experiment(path=None if file == "<experiment>" else Path(file), text=text,
                      name=name, description=description, runs=tuple(runs))


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class _WorkloadEntry:
    source: WorkloadSource
    seeds: tuple[int, ...] | None
    path: str


@dataclass(frozen=True)
class _PolicyCombo:
    name: str
    params: tuple[tuple[str, Any], ...]
    path: str


@dataclass(frozen=True)
class _PolicyEntry:
    """One ``[[policies]]`` entry: its name as written, its label, one combo per grid point.

    The name and the label are what transform selectors match; neither is
    part of a run's identity (the canonical name and the parameters are).
    """

    name: str
    label: str | None
    path: str
    combos: tuple[_PolicyCombo, ...]


@dataclass(frozen=True)
class _TransformTable:
    """One transform grid and where it applies.

    ``grid`` holds every combination of the table's transform values, in
    application order; ``workloads`` the labels and ``policies`` the indices
    of the ``[[policies]]`` entries it selects (``None``: all of them).
    """

    grid: tuple[tuple[tuple[str, Any], ...], ...]
    workloads: frozenset[str] | None
    policies: frozenset[int] | None

    def selects_workload(self, entry: _WorkloadEntry) -> bool:
        return self.workloads is None or entry.source.label in self.workloads

    def selects_policy(self, index: int) -> bool:
        return self.policies is None or index in self.policies


def parse_workload(entry: Any, path: str, base_dir: Path, check: "_Checker") -> _WorkloadEntry:
    """One ``[[workloads]]`` entry (or a bare string: the source) -> a WorkloadSource."""
    from schedlab.workload.models import BUILTIN_MODELS

    if isinstance(entry, str):
        entry = {"source": entry}
    check.keys(entry, path, WORKLOAD_KEYS)
    if "source" not in entry:
        raise check.error(f"{path}.source", "expected the workload's 'source': a built-in "
                          f"model ({', '.join(sorted(BUILTIN_MODELS))}), an SWF or sacct file, "
                          f"or a trace of 'schedlab traces list'")
    source = check.text(entry["source"], f"{path}.source")
    options: dict[str, Any] = {}
    if "jobs" in entry:
        options["jobs"] = check.integer(entry["jobs"], f"{path}.jobs", low=1)
    if "window" in entry:
        options["window"] = check.window(entry["window"], f"{path}.window")
    is_model = source in BUILTIN_MODELS and not (base_dir / source).exists()
    if is_model:
        for key in FILE_ONLY_KEYS:
            if key in entry:
                raise check.error(f"{path}.{key}", f"applies to SWF files only, and "
                                  f"{source!r} is a built-in model")
        seeds = (tuple(check.int_list(entry["seeds"], f"{path}.seeds", low=0))
                 if "seeds" in entry else None)
        label = check.text(entry.get("label", source), f"{path}.label")
        return _WorkloadEntry(WorkloadSource("model", source, label, None,
                                             tuple(sorted(options.items()))), seeds, path)
    file = _workload_file(source, base_dir, f"{path}.source", check)
    if "seeds" in entry:
        raise check.error(f"{path}.seeds", "applies to built-in models only: a trace file "
                          "has nothing random")
    if "width_field" in entry:
        options["width_field"] = check.choice(entry["width_field"], f"{path}.width_field",
                                              WIDTH_FIELDS)
    if "missing_estimate" in entry:
        options["missing_estimate"] = check.choice(
            entry["missing_estimate"], f"{path}.missing_estimate", MISSING_ESTIMATE_RULES)
    if "strict" in entry:
        options["strict"] = check.boolean(entry["strict"], f"{path}.strict")
    label = check.text(entry.get("label", trace_label(file)), f"{path}.label")
    return _WorkloadEntry(WorkloadSource("file", str(file), label, file_digest(file),
                                         tuple(sorted(options.items()))), None, path)


def _workload_file(source: str, base_dir: Path, path: str, check: "_Checker") -> Path:
    """The absolute path of a workload file, or of the cached file of a catalog trace.

    A missing file is named in the error; a catalog trace that is not cached
    says how to fetch it (docs/traces.md).
    """
    from schedlab.workload.catalog import cached_trace
    from schedlab.workload.models import BUILTIN_MODELS

    file = (base_dir / source).resolve()
    if file.is_file():
        return file
    try:
        cached = cached_trace(source)
    except InputError as err:
        raise check.error(path, err.reason) from None
    if cached is not None:
        return Path(cached).resolve()
    what = "a directory" if file.is_dir() else "no such file"
    raise check.error(path, f"expected an SWF or sacct file, a built-in model "
                      f"({', '.join(sorted(BUILTIN_MODELS))}) or a trace of 'schedlab traces "
                      f"list'; {what}: {file}")


def trace_label(file: Path) -> str:
    """``KTH-SP2-1996-2.1-cln.swf.gz`` -> ``KTH-SP2-1996-2.1-cln``."""
    name = file.name
    for suffix in (".gz", ".swf"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def file_digest(file: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(file, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def parse_transform_tables(value: Any, workloads: Sequence[_WorkloadEntry],
                           policies: Sequence[_PolicyEntry],
                           check: "_Checker") -> list[_TransformTable]:
    """``[transforms]`` (one grid) or ``[[transforms]]`` (several) -> the transform tables.

    A single table keeps the key paths ``transforms.KEY``; in an array they
    are ``transforms[i].KEY``.  No ``transforms`` key is one empty grid (no
    transform) for every workload and policy.
    """
    if isinstance(value, Mapping):
        return [parse_transform_table(value, "transforms", workloads, policies, check)]
    if not isinstance(value, list):
        raise check.error("transforms", f"expected a table [transforms] or an array of tables "
                          f"[[transforms]], got {_kind(value)}")
    return [parse_transform_table(table, f"transforms[{i}]", workloads, policies, check)
            for i, table in enumerate(check.nonempty_list(value, "transforms"))]


def parse_transform_table(section: Any, path: str, workloads: Sequence[_WorkloadEntry],
                          policies: Sequence[_PolicyEntry],
                          check: "_Checker") -> _TransformTable:
    """One transform table -> its grid and the workloads and policy entries it selects.

    ``workloads`` names workload labels; ``policies`` names policy entries by
    the name written in ``[[policies]]`` or by their ``label``, and selects
    every entry that carries it.  An unknown one is reported with the known
    values, so that a typo cannot silently drop runs.
    """
    check.keys(section, path, TRANSFORM_KEYS + SELECTOR_KEYS)
    chosen_workloads = chosen_policies = None
    if "workloads" in section:
        labels = [entry.source.label for entry in workloads]
        chosen_workloads = frozenset(check.names(section["workloads"], f"{path}.workloads",
                                                 labels, "workload label"))
    if "policies" in section:
        names = list(dict.fromkeys(name for entry in policies
                                   for name in (entry.name, entry.label) if name is not None))
        wanted = set(check.names(section["policies"], f"{path}.policies", names, "policy"))
        chosen_policies = frozenset(i for i, entry in enumerate(policies)
                                    if entry.name in wanted or entry.label in wanted)
    return _TransformTable(tuple(parse_transforms(section, path, check)), chosen_workloads,
                           chosen_policies)


def parse_transforms(section: Mapping[str, Any], table_path: str,
                     check: "_Checker") -> list[tuple[tuple[str, Any], ...]]:
    """The transform keys of one table -> every combination of their values, in application
    order (the selector keys are not transforms and are left out)."""
    axes: list[list[tuple[str, Any]]] = []
    for key in TRANSFORM_KEYS:
        if key not in section:
            continue
        path = f"{table_path}.{key}"
        if key == "split":
            values: list[Any] = check.int_list(section[key], path, low=1)
        elif key == "perfect_estimates":
            values = check.bool_list(section[key], path)
        elif key == "load_method":
            values = check.choice_list(section[key], path, LOAD_METHODS)
        else:
            values = check.number_list(section[key], path)
        axes.append([(key, value) for value in values])
    return [tuple(combo) for combo in itertools.product(*axes)]


def check_every_entry_runs(tables: Sequence[_TransformTable],
                           workloads: Sequence[_WorkloadEntry],
                           policies: Sequence[_PolicyEntry], check: "_Checker") -> None:
    """Every workload and every policy entry must be selected by some transform table.

    A workload-policy pair that no table selects has no runs, which is what
    selectors are for; an entry that gets no run at all is a mistake (a
    forgotten or misspelt selector) and is reported rather than dropped.
    """
    for entry in workloads:
        if not any(table.selects_workload(entry) for table in tables):
            raise check.error(entry.path, f"workload {entry.source.label!r} is selected by no "
                              f"transform table, so it would have no runs; name it in the "
                              f"'workloads' of a [[transforms]] table, or remove it")
    for index, entry in enumerate(policies):
        if not any(table.selects_policy(index) for table in tables):
            raise check.error(entry.path, f"policy {entry.name!r} is selected by no transform "
                              f"table, so it would have no runs; name it (or its label) in the "
                              f"'policies' of a [[transforms]] table, or remove it")


def parse_policy(entry: Any, path: str, check: "_Checker") -> _PolicyEntry:
    """One policy entry -> its name, label and one combination per point of its grid.

    ``params`` holds fixed values, ``grid`` lists of values to sweep; every
    combination is built once with ``make_policy`` so that an unknown policy
    or parameter, or a value the policy refuses, is reported before any run.
    ``label`` is an optional second name by which transform selectors pick
    this entry alone (entries may share a policy name).
    """
    if isinstance(entry, str):
        entry = {"name": entry}
    check.keys(entry, path, POLICY_KEYS)
    if "name" not in entry:
        raise check.error(f"{path}.name", "expected the policy's 'name' (see 'schedlab policies')")
    name = check.text(entry["name"], f"{path}.name")
    label = check.text(entry["label"], f"{path}.label") if "label" in entry else None
    fixed = check.table(entry.get("params", {}), f"{path}.params")
    grid = check.table(entry.get("grid", {}), f"{path}.grid")
    for key, value in fixed.items():
        check.json_value(value, f"{path}.params.{key}")
    both = sorted(set(fixed) & set(grid))
    if both:
        raise check.error(f"{path}.grid.{both[0]}", "is also set in 'params'; give a parameter "
                          "either a fixed value (params) or values to sweep (grid)")
    axes = []
    for key, values in grid.items():
        values = check.nonempty_list(values, f"{path}.grid.{key}")
        for i, value in enumerate(values):
            check.json_value(value, f"{path}.grid.{key}[{i}]")
        axes.append([(key, i, value) for i, value in enumerate(values)])
    combos = []
    for point in itertools.product(*axes):
        params = {**fixed, **{key: value for key, _, value in point}}
        policy_name = _validated_policy(name, params, path, point, check)
        combos.append(_PolicyCombo(policy_name, tuple(sorted(params.items())), path))
    return _PolicyEntry(name, label, path, tuple(combos))


def _validated_policy(name: str, params: dict[str, Any], path: str,
                      point: Sequence[tuple[str, int, Any]], check: "_Checker") -> str:
    """Build the policy once; return its canonical name or raise naming the key path."""
    from schedlab.policies.registry import make_policy

    try:
        return make_policy({"name": name, **params}).name
    except InputError as err:
        raise check.error(_param_path(err.field, path, point), err.reason) from None
    except TypeError as err:
        raise check.error(f"{path}.params", f"policy {name!r} refused its parameters: {err}") \
            from None


def _param_path(param: str | None, path: str, point: Sequence[tuple[str, int, Any]]) -> str:
    """Key path of the value a policy refused: its grid entry, its params entry or the name."""
    if param is None or param in ("policy", "name"):
        return f"{path}.name"
    for key, index, _ in point:
        if key == param:
            return f"{path}.grid.{key}[{index}]"
    return f"{path}.params.{param}"


def parse_reservations(section: Any, base_dir: Path,
                       check: "_Checker") -> list[ReservationSetting]:
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
                     check: "_Checker") -> list[RequestSource]:
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


def _request_file(value: Any, base_dir: Path, check: "_Checker") -> RequestSource:
    """A request CSV, relative to the experiment file; read and checked by the runs."""
    file = (base_dir / check.text(value, "reservations.file")).resolve()
    if not file.is_file():
        raise check.error("reservations.file", f"expected a reservation-request CSV file "
                          f"(docs/reservations.md); no such file: {file}")
    return RequestSource("file", str(file), file_digest(file))


def _generator_options(section: Mapping[str, Any], check: "_Checker") -> dict[str, Any]:
    """The generator keys given, checked (defaults are applied by the runner)."""
    options: dict[str, Any] = {}
    if "per_week" in section:
        value = section["per_week"]
        options["per_week"] = value if value == 0 else check.number(value,
                                                                    "reservations.per_week")
    for key, low in (("nodes", 1), ("hours", 1), ("notice_hours", 0)):
        if key in section:
            options[key] = list(check.range_pair(section[key], f"reservations.{key}", low=low))
    if "node_size" in section:
        options["node_size"] = _node_sizes(section["node_size"], check)
    if "days" in section and "compress" in section:
        raise check.error("reservations.days", "give either 'days' (the span generated over) "
                          "or 'compress' (from_days generated, into_days simulated)")
    if "days" in section:
        options["days"] = check.number(section["days"], "reservations.days")
    if "compress" in section:
        compress = section["compress"]
        check.keys(compress, "reservations.compress", COMPRESS_KEYS)
        for key in COMPRESS_KEYS:
            if key not in compress:
                raise check.error(f"reservations.compress.{key}",
                                  "expected both from_days and into_days")
        options["compress"] = {key: check.number(compress[key], f"reservations.compress.{key}")
                               for key in COMPRESS_KEYS}
    return options


def _node_sizes(value: Any, check: "_Checker") -> Any:
    """Processors per node: an integer, or a table workload label -> integer (default 1)."""
    path = "reservations.node_size"
    if isinstance(value, Mapping):
        return {label: check.integer(size, f"{path}.{label}", low=1)
                for label, size in value.items()}
    return check.integer(value, path, low=1)


def _rule_settings(section: Any, check: "_Checker") -> list[tuple[tuple[str, Any], ...]]:
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
    axes = {
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


# --------------------------------------------------------------------------- expansion


def expand(workloads: Sequence[_WorkloadEntry], tables: Sequence[_TransformTable],
           policies: Sequence[_PolicyEntry], seeds: Sequence[int],
           processors: Sequence[int | None], overrun: Sequence[str],
           check: "_Checker",
           settings: Sequence[ReservationSetting | None] = (None,)) -> list[RunSpec]:
    """The union over the transform tables of their cartesian products, workload-major so
    that runs of one workload are adjacent.

    For each workload, table by table in file order: the table's grid x the
    combos of the policy entries it selects x reservation settings x seeds x
    machine sizes x overrun modes (``settings`` is the reservation axis,
    ``[None]`` without a ``[reservations]`` table).  With a single table that
    selects everything this is the plain cartesian product of earlier
    versions, in the same order.

    Seeds multiply the runs of built-in models only (a trace run has seed
    ``None``).  A run that an earlier table already gave is counted once;
    two entries that give the same run within one table are a mistake,
    reported with both key paths.
    """
    runs: list[RunSpec] = []
    seen: set[str] = set()
    for entry in workloads:
        entry_seeds: list[int | None] = (
            [None] if entry.source.is_file else list(entry.seeds or seeds))
        for table in tables:
            if not table.selects_workload(entry):
                continue
            combos = [combo for index, policy in enumerate(policies)
                      if table.selects_policy(index) for combo in policy.combos]
            for run in table_runs(entry, table, combos, entry_seeds, processors, overrun,
                                  settings, check):
                if run.run_id not in seen:
                    seen.add(run.run_id)
                    runs.append(run)
    return runs


def table_runs(entry: _WorkloadEntry, table: _TransformTable, combos: Sequence[_PolicyCombo],
               seeds: Sequence[int | None], processors: Sequence[int | None],
               overrun: Sequence[str], settings: Sequence[ReservationSetting | None],
               check: "_Checker") -> list[RunSpec]:
    """The runs of one workload under one transform table: the cartesian product.

    A run given twice here (``shrink = [1, 1.0]``, or two policy entries
    that are the same policy) is reported with both key paths.
    """
    runs: list[RunSpec] = []
    seen: dict[str, str] = {}
    for combo, policy, setting, seed, machine, mode in itertools.product(
            table.grid, combos, settings, seeds, processors, overrun):
        run = RunSpec(entry.source, combo, policy.name, policy.params, seed, machine, mode,
                      setting and setting.for_workload(entry.source.label))
        where = f"{entry.path} with {policy.path}"
        if run.run_id in seen:
            raise check.error(policy.path, f"describes a run twice ({seen[run.run_id]} and "
                              f"{where}: {run.policy} {dict(run.params)} "
                              f"{dict(run.transforms)}); remove the repetition")
        seen[run.run_id] = where
        runs.append(run)
    return runs


# --------------------------------------------------------------------------- checks


class _Checker:
    """Type checks that raise InputError naming the experiment file and the key path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, path: str, message: str) -> InputError:
        return InputError(message, file=self.file, field=path or "(top level)")

    def keys(self, table: Any, path: str, allowed: Sequence[str]) -> None:
        if not isinstance(table, Mapping):
            raise self.error(path, f"expected a table, got {_kind(table)}")
        for key in table:
            if key not in allowed:
                where = f"{path}.{key}" if path else key
                raise self.error(where, f"unknown key {key!r}; expected one of: "
                                 f"{', '.join(allowed)}")

    def table(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise self.error(path, f"expected a table of parameters, got {_kind(value)}")
        return dict(value)

    def text(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected a string, got {_kind(value)}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(path, f"expected true or false, got {_kind(value)}")
        return value

    def integer(self, value: Any, path: str, *, low: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, f"expected an integer >= {low}, got {_kind(value)}")
        if value < low:
            raise self.error(path, f"expected an integer >= {low}, got {value}")
        return value

    def number(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value <= 0:
            raise self.error(path, f"expected a finite number > 0, got {_kind(value)}")
        return float(value)

    def choice(self, value: Any, path: str, choices: Sequence[str]) -> str:
        if value not in choices or not isinstance(value, str):
            raise self.error(path, f"expected one of {', '.join(map(repr, choices))}, "
                             f"got {_kind(value)}")
        return value

    def window(self, value: Any, path: str) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise self.error(path, f"expected [START, END] in whole seconds, got {_kind(value)}")
        if value[1] <= value[0]:
            raise self.error(path, f"expected END > START, got {value}")
        return value[0], value[1]

    def range_pair(self, value: Any, path: str, *, low: int) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise self.error(path, f"expected [LOW, HIGH] integers, got {_kind(value)}")
        if not low <= value[0] <= value[1]:
            raise self.error(path, f"expected {low} <= LOW <= HIGH, got {value}")
        return value[0], value[1]

    def json_value(self, value: Any, path: str) -> None:
        """A parameter value must be plain data: string, number, boolean, list or table."""
        if isinstance(value, Mapping):
            for key, item in value.items():
                self.json_value(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.json_value(item, f"{path}[{i}]")
        elif isinstance(value, float) and not math.isfinite(value):
            raise self.error(path, f"expected a finite number, got {value}")
        elif not isinstance(value, (str, int, float, bool)):
            raise self.error(path, f"expected a string, number, boolean, list or table, "
                             f"got {_kind(value)}")

    def nonempty_list(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(path, f"expected a list, got {_kind(value)}")
        if not value:
            raise self.error(path, "expected a non-empty list")
        return value

    def _scalar_or_list(self, value: Any, path: str) -> list[tuple[str, Any]]:
        """A single value is a one-element list; each element comes with its key path."""
        if isinstance(value, list):
            return [(f"{path}[{i}]", v) for i, v in enumerate(self.nonempty_list(value, path))]
        return [(path, value)]

    def int_list(self, value: Any, path: str, *, low: int,
                 allow_none: bool = False) -> list[Any]:
        if allow_none and value == [None]:
            return [None]
        return [self.integer(v, p, low=low) for p, v in self._scalar_or_list(value, path)]

    def number_list(self, value: Any, path: str) -> list[float]:
        return [self.number(v, p) for p, v in self._scalar_or_list(value, path)]

    def bool_list(self, value: Any, path: str) -> list[bool]:
        return [self.boolean(v, p) for p, v in self._scalar_or_list(value, path)]

    def choice_list(self, value: Any, path: str, choices: Sequence[str]) -> list[str]:
        return [self.choice(v, p, choices) for p, v in self._scalar_or_list(value, path)]

    def names(self, value: Any, path: str, known: Sequence[str], what: str) -> list[str]:
        """A name or a list of names of things the experiment defines (``what`` they are)."""
        chosen = []
        for p, v in self._scalar_or_list(value, path):
            if self.text(v, p) not in known:
                raise self.error(p, f"unknown {what} {v!r} (known: {', '.join(known)})")
            chosen.append(v)
        return chosen

    def unique_labels(self, workloads: Sequence[_WorkloadEntry]) -> None:
        first: dict[str, str] = {}
        for entry in workloads:
            label = entry.source.label
            if label in first:
                raise self.error(f"{entry.path}.label", f"label {label!r} is already used by "
                                 f"{first[label]}; give each workload its own 'label'")
            first[label] = entry.path


def _kind(value: Any) -> str:
    """A value as an error message shows it: its TOML type and the value itself."""
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
             dict: "table"}
    kind = next((n for t, n in names.items() if type(value) is t), type(value).__name__)
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return f"{kind} {shown}"
