"""The ``[[workloads]]``, ``[transforms]`` and ``[[policies]]`` sections of an experiment.

Each parser checks its section (naming the key path of a bad value) and
returns plain entries that :mod:`.expand` multiplies into runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.experiments.spec.checks import Checker, describe_value
from schedlab.experiments.spec.runs import WorkloadSource, file_digest
from schedlab.limits import check_jobs, check_seed
from schedlab.pipeline import LOAD_METHODS, Transforms, check_transforms
from schedlab.workload.swf import CANCELLATION_RULES, MISSING_ESTIMATE_RULES, WIDTH_FIELDS

WORKLOAD_KEYS = ("source", "label", "jobs", "window", "seeds", "width_field",
                 "missing_estimate", "strict", "cancellations")
#: Reader options that only an SWF file understands.
FILE_ONLY_KEYS = ("width_field", "missing_estimate", "strict", "cancellations")
#: Transforms in the order they are applied (the order of ``schedlab simulate``).
TRANSFORM_KEYS = ("split", "shrink", "perfect_estimates", "load", "load_method", "stringency",
                  "deadline_fraction", "relaxation")
#: Keys of a transform table that say where its grid applies (workload labels, policy names).
SELECTOR_KEYS = ("workloads", "policies")
POLICY_KEYS = ("name", "params", "grid", "label")
#: The ``source`` of generated grid jobs, a workload of grid experiments only (.grid_section).
GRID_MODEL_SOURCE = "grid"


@dataclass(frozen=True)
class WorkloadEntry:
    """One ``[[workloads]]`` entry: its source, its own seeds, its key path, and the sources
    its runs use when it has several (the ``ta`` values of a generated grid workload)."""

    source: WorkloadSource
    seeds: tuple[int, ...] | None
    path: str
    variants: tuple[WorkloadSource, ...] = ()

    def sources(self) -> tuple[WorkloadSource, ...]:
        return self.variants or (self.source,)


@dataclass(frozen=True)
class PolicyCombo:
    name: str
    params: tuple[tuple[str, Any], ...]
    path: str


@dataclass(frozen=True)
class PolicyEntry:
    """One ``[[policies]]`` entry: its name as written, its label, one combo per grid point.

    The name and the label are what transform selectors match; neither is
    part of a run's identity (the canonical name and the parameters are).
    """

    name: str
    label: str | None
    path: str
    combos: tuple[PolicyCombo, ...]


@dataclass(frozen=True)
class TransformTable:
    """One transform grid and where it applies.

    ``grid`` holds every combination of the table's transform values, in
    application order; ``workloads`` the labels and ``policies`` the indices
    of the ``[[policies]]`` entries it selects (``None``: all of them).
    """

    grid: tuple[tuple[tuple[str, Any], ...], ...]
    workloads: frozenset[str] | None
    policies: frozenset[int] | None

    def selects_workload(self, entry: WorkloadEntry) -> bool:
        return self.workloads is None or entry.source.label in self.workloads

    def selects_policy(self, index: int) -> bool:
        return self.policies is None or index in self.policies


def parse_workload(entry: Any, path: str, base_dir: Path, check: Checker) -> WorkloadEntry:
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
        options["jobs"] = check.bounded(check_jobs, entry["jobs"], f"{path}.jobs", low=1)
    if "window" in entry:
        options["window"] = check.window(entry["window"], f"{path}.window")
    is_model = source in BUILTIN_MODELS and not (base_dir / source).exists()
    if is_model:
        for key in FILE_ONLY_KEYS:
            if key in entry:
                raise check.error(f"{path}.{key}", f"applies to SWF files only, and "
                                  f"{source!r} is a built-in model")
        seeds = (tuple(check.bounded(check_seed, v, p, low=0)
                       for p, v in check.items(entry["seeds"], f"{path}.seeds"))
                 if "seeds" in entry else None)
        label = check.text(entry.get("label", source), f"{path}.label")
        return WorkloadEntry(WorkloadSource("model", source, label, None,
                                             tuple(sorted(options.items()))), seeds, path)
    if source == GRID_MODEL_SOURCE and not (base_dir / source).exists():
        raise check.error(f"{path}.source", f"{source!r} generates grid jobs, which run on a "
                          f"platform; give the experiment a 'platforms' key (docs/how-to/experiments.md, "
                          f"\"Grid experiments\")")
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
    if "cancellations" in entry:
        options["cancellations"] = check.choice(entry["cancellations"], f"{path}.cancellations",
                                                CANCELLATION_RULES)
    label = check.text(entry.get("label", trace_label(file)), f"{path}.label")
    return WorkloadEntry(WorkloadSource("file", str(file), label, file_digest(file),
                                         tuple(sorted(options.items()))), None, path)


def _workload_file(source: str, base_dir: Path, path: str, check: Checker) -> Path:
    """The absolute path of a workload file, or of the cached file of a catalog trace.

    A missing file is named in the error; a catalog trace that is not cached
    says how to fetch it (docs/how-to/traces.md).
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


def parse_transform_tables(value: Any, workloads: Sequence[WorkloadEntry],
                           policies: Sequence[PolicyEntry],
                           check: Checker) -> list[TransformTable]:
    """``[transforms]`` (one grid) or ``[[transforms]]`` (several) -> the transform tables.

    A single table keeps the key paths ``transforms.KEY``; in an array they
    are ``transforms[i].KEY``.  No ``transforms`` key is one empty grid (no
    transform) for every workload and policy.
    """
    if isinstance(value, Mapping):
        return [parse_transform_table(value, "transforms", workloads, policies, check)]
    if not isinstance(value, list):
        raise check.error("transforms", f"expected a table [transforms] or an array of tables "
                          f"[[transforms]], got {describe_value(value)}")
    return [parse_transform_table(table, f"transforms[{i}]", workloads, policies, check)
            for i, table in enumerate(check.nonempty_list(value, "transforms"))]


def parse_transform_table(section: Any, path: str, workloads: Sequence[WorkloadEntry],
                          policies: Sequence[PolicyEntry],
                          check: Checker) -> TransformTable:
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
    return TransformTable(tuple(parse_transforms(section, path, check)), chosen_workloads,
                           chosen_policies)


def parse_transforms(section: Mapping[str, Any], table_path: str,
                     check: Checker) -> list[tuple[tuple[str, Any], ...]]:
    """The transform keys of one table -> every combination of their values, in application
    order (the selector keys are not transforms and are left out)."""
    axes: list[list[tuple[str, int, Any]]] = []
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
        elif key in ("stringency", "deadline_fraction"):   # in [0, 1]: check_transforms
            values = check.number_list(section[key], path, positive=False)
        else:
            values = check.number_list(section[key], path)
        axes.append([(key, i, value) for i, value in enumerate(values)])
    combos = list(itertools.product(*axes))
    for combo in combos:
        _check_combination(combo, section, table_path, check)
    return [tuple((key, value) for key, _, value in combo) for combo in combos]


def _check_combination(combo: Sequence[tuple[str, int, Any]], section: Mapping[str, Any],
                       table_path: str, check: Checker) -> None:
    """The checks a single run makes of its transforms (:func:`schedlab.pipeline.check_transforms`),
    made here for every combination, so a value no run can take fails before the first run;
    the error names the key path of the value (``transforms.stringency[1]``)."""
    paths = {key: f"{table_path}.{key}" + (f"[{i}]" if isinstance(section[key], list) else "")
             for key, i, _ in combo}
    try:
        check_transforms(Transforms(**{key: value for key, _, value in combo}),
                         label=lambda name: paths.get(name, f"{table_path}.{name}"))
    except InputError as err:
        raise check.error(err.field or table_path, err.reason) from None


def check_every_entry_runs(tables: Sequence[TransformTable],
                           workloads: Sequence[WorkloadEntry],
                           policies: Sequence[PolicyEntry], check: Checker) -> None:
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
    for index, policy in enumerate(policies):
        if not any(table.selects_policy(index) for table in tables):
            raise check.error(policy.path, f"policy {policy.name!r} is selected by no transform "
                              f"table, so it would have no runs; name it (or its label) in the "
                              f"'policies' of a [[transforms]] table, or remove it")


def space_sharing_policy(spec: Mapping[str, Any]) -> str:
    """The canonical name of the policy ``spec`` (``{"name": ..., **params}``) builds with
    ``make_policy``; a grid policy is refused: it needs the experiment's platforms."""
    from schedlab.policies.registry import is_grid_policy, make_policy

    if is_grid_policy(spec["name"]):
        raise InputError(f"policy {spec['name']!r} is a grid policy: it needs a platform; "
                         f"give the experiment a 'platforms' key (docs/how-to/experiments.md, "
                         f"\"Grid experiments\")", field="policy")
    return make_policy(spec).name


def parse_policy(entry: Any, path: str, check: Checker,
                 build: Callable[[Mapping[str, Any]], str] = space_sharing_policy,
                 keys: Sequence[str] = POLICY_KEYS) -> PolicyEntry:
    """One policy entry -> its name, label and one combination per point of its grid.

    ``params`` holds fixed values, ``grid`` lists of values to sweep; every
    combination is built once with ``build`` (default: a space-sharing
    policy by ``make_policy``; a grid local policy or a dispatcher in a grid
    experiment), which returns its canonical name, so that an unknown policy
    or parameter, or a value the policy refuses, is reported before any run.
    ``label`` is an optional second name by which transform selectors pick
    this entry alone (entries may share a policy name).
    """
    if isinstance(entry, str):
        entry = {"name": entry}
    check.keys(entry, path, keys)
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
        policy_name = _validated_policy(name, params, path, point, check, build)
        combos.append(PolicyCombo(policy_name, tuple(sorted(params.items())), path))
    return PolicyEntry(name, label, path, tuple(combos))


def _validated_policy(name: str, params: dict[str, Any], path: str,
                      point: Sequence[tuple[str, int, Any]], check: Checker,
                      build: Callable[[Mapping[str, Any]], str]) -> str:
    """Build the policy once; return its canonical name or raise naming the key path."""
    try:
        return build({"name": name, **params})
    except InputError as err:
        raise check.error(_param_path(err.field, path, point), err.reason) from None
    except TypeError as err:
        raise check.error(f"{path}.params", f"policy {name!r} refused its parameters: {err}") \
            from None


def _param_path(param: str | None, path: str, point: Sequence[tuple[str, int, Any]]) -> str:
    """Key path of the value a policy refused: its grid entry, its params entry or the name."""
    if param is None or param in ("policy", "name", "dispatch"):
        return f"{path}.name"
    for key, index, _ in point:
        if key == param:
            return f"{path}.grid.{key}[{index}]"
    return f"{path}.params.{param}"
