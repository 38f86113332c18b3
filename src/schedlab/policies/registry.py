"""Every policy and dispatcher by name, tagged by execution model and kind; plug-ins.

One registry for every engine.  Each :class:`PolicyEntry` is tagged by the
execution model its policies run on (:attr:`PolicyEntry.model`: space
sharing, time sharing or grid, the class's ``execution_model``) and by its
kind (:attr:`PolicyEntry.kind`: a :data:`POLICY` or a grid
:data:`DISPATCHER`); :func:`entries` lists them, ``schedlab policies``
prints them.

A space-sharing policy is named ``ORDER+BACKFILL`` (``sjf+easy``,
``ljf+conservative``) or just ``ORDER`` for no backfilling; ``easy`` and
``conservative`` alias the FCFS ones.  A spec is a name, a mapping
``{"name": ..., **params}``, or a ready policy.  :func:`make_policy` builds
the policies of one machine (space or time sharing);
:func:`make_local_policy` and :func:`make_dispatcher` the two kinds of grid
policy (Pasquali's thesis; docs/reference/policies/grid.md), which are imported only
when first asked for: they pull in scipy, which a space-sharing run does not
need.

Third-party packages register policies under the ``schedlab.policies``
entry-point group: the entry point's name is the policy name and it must load
a policy class (or a callable taking the parameters as keywords and
returning a policy).  The class's ``execution_model`` and base class tag the
entry: a :class:`~schedlab.policies.base.Policy` subclass runs on space
sharing, a :class:`~schedlab.engine.policy.LocalPolicy` subclass on a grid
platform, a :class:`~schedlab.engine.policy.Dispatcher` subclass is a grid
dispatcher.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from schedlab.engine.policy import GRID, SPACE_SHARING, Dispatcher, LocalPolicy
from schedlab.engine.timesharing import TIME_SHARING
from schedlab.errors import InputError, did_you_mean
from schedlab.policies.base import PolicyBase, check_param_names
from schedlab.policies.orderings import ORDERINGS
from schedlab.policies.planning import PLAN_ORDERINGS
from schedlab.specs import spec_text

ENTRY_POINT_GROUP = "schedlab.policies"
#: The kinds of entry: a policy schedules jobs on machines; a dispatcher chooses the
#: cluster of each job of a grid (Pasquali's meta-scheduler, thesis §3.1.2).
POLICY, DISPATCHER = "policy", "dispatcher"
PolicySpec: TypeAlias = str | Mapping[str, Any] | PolicyBase
LocalPolicySpec: TypeAlias = str | Mapping[str, Any] | LocalPolicy
DispatcherSpec: TypeAlias = str | Mapping[str, Any] | Dispatcher


@dataclass(frozen=True)
class PolicyEntry:
    """One registered name: how to build it, what it is, and where it comes from.

    ``target`` is the factory, or for a built-in policy ``"module:class"`` under
    :mod:`schedlab.policies`, imported when the entry is first asked what it is or
    builds one: a run imports its own policy's module, not every policy's.
    """

    name: str
    target: Callable[..., PolicyBase] | str
    fixed: Mapping[str, Any]
    summary: str
    source: str = "schedlab"

    @property
    def factory(self) -> Callable[..., PolicyBase]:
        """The class (or callable) that builds the policy."""
        if isinstance(self.target, str):
            return _imported(self.target)
        return self.target

    @property
    def model(self) -> str:
        """The execution model its policies run on: the factory's ``execution_model``
        (a plug-in factory that is no class: space sharing)."""
        return str(getattr(self.factory, "execution_model", SPACE_SHARING))

    @property
    def kind(self) -> str:
        """:data:`DISPATCHER` for a grid dispatcher, else :data:`POLICY`."""
        return DISPATCHER if _subclass(self.factory, Dispatcher) else POLICY

    @property
    def time_sharing(self) -> bool:
        """Whether the policy time-shares processors (runs on the time-sharing engine)."""
        return self.model == TIME_SHARING

    def parameters(self) -> dict[str, Any]:
        """The parameters a user may set, with their defaults."""
        if not _subclass(self.factory, PolicyBase):
            return {}
        cls = cast("type[PolicyBase]", self.factory)
        return {k: v for k, v in cls.param_defaults().items() if k not in self.fixed}

    @property
    def categorical_parameters(self) -> tuple[str, ...]:
        """The numeric parameters whose values are categories
        (:attr:`~schedlab.engine.policy.PolicyBase.categorical_parameters`)."""
        return tuple(getattr(self.factory, "categorical_parameters", ()))

    def build(self, params: Mapping[str, Any], what: str = "policy") -> PolicyBase:
        """A new policy with ``params``; a built-in one refuses a parameter it lacks."""
        if self.source == "schedlab":
            check_param_names(f"{what} {self.name!r}", params, self.parameters())
        return self.factory(**self.fixed, **params)


def _subclass(factory: object, base: type) -> bool:
    return isinstance(factory, type) and issubclass(factory, base)


@functools.cache
def _imported(reference: str) -> Callable[..., PolicyBase]:
    """The class ``"module:class"`` of :mod:`schedlab.policies` names."""
    module, _, attribute = reference.partition(":")
    return cast("Callable[..., PolicyBase]",
                getattr(importlib.import_module(f"schedlab.policies.{module}"), attribute))


_FAMILIES = {
    "none": ("backfilling:NoBackfilling", "no backfilling: jobs start strictly in queue order"),
    "easy": ("backfilling:EasyBackfilling",
             "EASY backfilling: the first waiting job gets a reservation"),
    "conservative": ("backfilling:ConservativeBackfilling",
                     "conservative backfilling: every job gets a reservation at arrival"),
}
_ALIASES = {"easy": "fcfs+easy", "conservative": "fcfs+conservative"}


def _builtin_entries() -> dict[str, PolicyEntry]:
    entries = {}
    for order in ORDERINGS:
        for family, (cls, summary) in _FAMILIES.items():
            name = order if family == "none" else f"{order}+{family}"
            entries[name] = PolicyEntry(name, cls, {"order": order}, f"{order.upper()}, {summary}")
    for order in PLAN_ORDERINGS:
        name = f"{order}+plan"
        entries[name] = PolicyEntry(name, "planning:PlanningScheduler", {"order": order},
                                    f"{order.upper()}, planning-based: full schedule rebuilt "
                                    f"at every job end (Streit 2002, §5)")
    entries["dynp-basic"] = PolicyEntry("dynp-basic", "dynp:BasicDynP", {},
                                        "basic dynP: the queue's average estimate picks "
                                        "SJF/FCFS/LJF at each submission (Streit 2002, §3.1)")
    entries["dynp"] = PolicyEntry("dynp", "dynp:SelfTuningDynP", {},
                                  "self-tuning dynP: plans with the policy whose full schedule "
                                  "is best (Streit 2002, §3.2)")
    entries.update(_deadline_entries())
    entries["slurm"] = PolicyEntry("slurm", "slurm:SlurmScheduling", {},
                                   "Slurm's main and backfill schedulers, from a slurm.conf "
                                   "(docs/reference/policies/slurm.md)")
    entries["gang"] = PolicyEntry("gang", "gang:GangScheduler", {},
                                  "gang scheduling (time sharing) on an Ousterhout matrix: "
                                  "re-packing, slot limit, backfilling; strategy 1-3 (Zhou, "
                                  "Goscinski, Brent 2003)")
    return entries


def _deadline_entries() -> dict[str, PolicyEntry]:
    """Deadline guarantees (Islam et al., QoPS; docs/reference/policies/deadlines.md)."""
    return {
        "qops": PolicyEntry("qops", "deadline:QoPS", {}, "QoPS admission control: log N insertion points, "
                            "K repairs (Islam et al., §3)"),
        "msb": PolicyEntry("msb", "deadline:ModifiedSlackBased", {}, "modified slack-based admission "
                           "control: every insertion position, cheapest plan (Islam et al., "
                           "§2.2.1)"),
        "mrt": PolicyEntry("mrt", "deadline:ModifiedRealTime", {}, "modified real-time admission control: "
                           "strongly feasible plans, bounded backtracking (Islam et al., "
                           "§2.2.2)"),
        "edf": PolicyEntry("edf", "deadline:EarliestDeadlineFirst", {}, "earliest deadline first with EASY "
                           "backfilling, no admission control"),
    }


_BUILTIN = _builtin_entries()

#: The grid's local policies, then its dispatchers (Pasquali's thesis, paper 003):
#: name -> ("module:class" in :mod:`schedlab.policies.grid`, one-line summary).  Each
#: cluster runs its own local policy; a dispatcher chooses every job's cluster.
_GRID: dict[str, tuple[str, str]] = {
    "grid-fcfs": ("local:GridFCFS", "FCFS on the fastest machine with room, no backfilling "
                                    "(Pasquali thesis §4.1 'FCFS')"),
    "bf-fcfs": ("local:BackfillingFCFS", "EASY backfilling on heterogeneous machines and "
                                         "licences (Pasquali thesis §4.1 'BF_FCFS')"),
    "eg-edf": ("egedf:EarliestGapEDF", "schedule-based: earliest gap / EDF insertion, Tabu "
                                       "(§5.2)"),
    "bf-unmod": ("flexible:FlexibleBackfillingUnmod", "Flexible Backfilling by heuristic "
                 "priorities, the reservation kept until its job starts (Pasquali thesis "
                 "§3.2.1 'BF_UNMOD')"),
    "bf-mod": ("flexible:FlexibleBackfillingMod", "Flexible Backfilling by heuristic "
               "priorities, the reservation to the highest priority at every event (Pasquali "
               "thesis §3.2.1 'BF_MOD')"),
    "grid-edf": ("flexible:GridEDF", "earliest deadline first on the fastest machine with "
                                     "room, no reservation (Pasquali thesis §4.2 'EDF')"),
    "cs": ("convergent.policy:ConvergentScheduling", "Convergent Scheduling; preemption=true: "
           "running jobs preempted and migrated by the plan (Pasquali thesis §3.2.2, §4.2)"),
    "round-robin": ("dispatch:RoundRobin", "clusters in turn (skipping those that cannot run "
                                           "the job)"),
    "random": ("dispatch:RandomDispatch", "an eligible cluster at random, seeded with the "
                                          "run's seed"),
    "least-work": ("dispatch:LeastWork", "the cluster with the least estimated work per unit "
                                         "of power"),
    "proportional": ("dispatch:Proportional", "jobs in proportion to machine count or rating "
                                              "sum"),
    "ms-heuristics": ("meta:MetaScheduler", "Deadline, Licence and User heuristics into a "
                                            "priority, then Load and Ordering (Pasquali thesis "
                                            "§3.1)"),
}


def _grid_entries() -> dict[str, PolicyEntry]:
    """The entries of :data:`_GRID`, their classes imported on the first call."""
    return {name: _grid_entry(name) for name in _GRID}


@functools.cache
def _grid_entry(name: str) -> PolicyEntry:
    """The entry of :data:`_GRID` ``name``, its module alone imported on the first call."""
    reference, summary = _GRID[name]
    module, _, attribute = reference.partition(":")
    cls = getattr(importlib.import_module(f"schedlab.policies.grid.{module}"), attribute)
    return PolicyEntry(name, cls, {}, summary)


def _plugin_entries() -> dict[str, PolicyEntry]:
    from importlib.metadata import entry_points  # 25 ms to import: only when needed

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        factory = ep.load()
        doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
        found[ep.name] = PolicyEntry(ep.name, factory, {}, doc[0] if doc else "",
                                     source=ep.value)
    return found


def entries(*, model: str | None = None, kind: str | None = None) -> dict[str, PolicyEntry]:
    """Every registered name -- built in, grid, plug-in -- or those of one execution
    model and kind; a plug-in does not replace a built-in name."""
    found = {**_BUILTIN, **_grid_entries()}
    found.update((name, entry) for name, entry in _plugin_entries().items() if name not in found)
    return {name: entry for name, entry in found.items()
            if model in (None, entry.model) and kind in (None, entry.kind)}


def available_policies() -> dict[str, PolicyEntry]:
    """Every policy name that :func:`make_policy` accepts (aliases excluded): the
    policies of one machine, space or time sharing, built in or plug-in."""
    return {**_BUILTIN, **{name: entry for name, entry in _plugin_entries().items()
                           if name not in _BUILTIN and _runs_on_one_machine(entry)}}


def _runs_on_one_machine(entry: PolicyEntry) -> bool:
    return entry.kind == POLICY and entry.model != GRID


def canonical_name(name: str) -> str:
    """A name as registered: lower case; ``easy`` -> ``fcfs+easy``, ``sjf+none`` ->
    ``sjf``; ``_`` read as ``-`` in a built-in name (``BF_MOD`` is ``bf-mod``, as the
    thesis writes it); other names unchanged."""
    name = str(name).strip().lower()
    name = _ALIASES.get(name, name).removesuffix("+none")
    dashed = name.replace("_", "-")
    return dashed if dashed in _BUILTIN or dashed in _GRID else name


def make_policy(spec: PolicySpec) -> PolicyBase:
    """A policy of one machine from a name, a ``{"name": ..., **params}`` mapping or a
    policy (returned as it is); a grid policy is refused: it needs a platform."""
    if isinstance(spec, LocalPolicy):
        raise needs_platform(spec.name)
    if isinstance(spec, PolicyBase) and not isinstance(spec, Dispatcher):
        return spec
    name, params = _name_and_params(spec, "policy")
    key = canonical_name(name)
    entry = _BUILTIN.get(key) or _plugin_entries().get(key)
    if entry is not None and _runs_on_one_machine(entry):
        return entry.build(params)
    if key in _GRID or entry is not None:
        raise needs_platform(name)
    known = sorted(available_policies())
    raise InputError(f"unknown policy {name!r}{did_you_mean(name, known)} (known: "
                     f"{', '.join(known)})", field="policy")


def is_grid_policy(name: str) -> bool:
    """Whether ``name`` is a grid local policy, built in or plug-in, and no policy of one
    machine (a space-sharing name is answered without importing the grid policies)."""
    key = canonical_name(name)
    if key in _BUILTIN:
        return False
    return key in _GRID or key in entries(model=GRID, kind=POLICY)


def needs_platform(name: str) -> InputError:
    """The error for a grid policy asked to run on one machine."""
    return InputError(f"policy {name!r} is a grid policy: it needs a platform (--platform "
                      f"FILE, docs/reference/policies/grid.md)", field="policy")


def make_local_policy(spec: LocalPolicySpec) -> LocalPolicy:
    """A fresh grid local policy from a name, a ``{"name": ..., **params}`` mapping or an
    instance (cloned: every cluster needs its own); the name of a policy of one machine
    is refused: it does not run on a platform."""
    if isinstance(spec, LocalPolicy):
        return spec.clone()
    return cast(LocalPolicy, _make_grid(spec, POLICY, "grid policy", "policy"))


def make_dispatcher(spec: DispatcherSpec) -> Dispatcher:
    """A dispatcher from a name, a ``{"name": ..., **params}`` mapping or an instance
    (returned as it is)."""
    if isinstance(spec, Dispatcher):
        return spec
    return cast(Dispatcher, _make_grid(spec, DISPATCHER, "dispatcher", "dispatch"))


def _make_grid(spec: str | Mapping[str, Any], kind: str, what: str, field: str
               ) -> PolicyBase:
    """Build ``spec`` from the grid entries of ``kind``; ``what`` and ``field`` name it in
    errors."""
    name, params = _name_and_params(spec, what)
    key = canonical_name(name)
    # a built-in name is found without scanning the installed plug-ins (each cluster
    # builds its own policy); a plug-in does not replace a built-in name
    entry = _grid_entry(key) if key in _GRID else None
    if entry is not None and entry.model == GRID and entry.kind == kind:
        return entry.build(params, what)
    table = entries(model=GRID, kind=kind)
    entry = table.get(key)
    if entry is not None:
        return entry.build(params, what)
    if kind == POLICY and key in available_policies():
        raise InputError(f"policy {name!r} is not a grid policy: a run on a platform needs "
                         f"one of {', '.join(table)} (docs/reference/policies/grid.md)", field=field)
    raise InputError(f"unknown {what} {name!r}{did_you_mean(name, table)} (known: "
                     f"{', '.join(table)})", field=field)


def _name_and_params(spec: object, what: str) -> tuple[str, dict[str, Any]]:
    """The name and parameters of a spec that is a name or a ``{"name": ...}`` mapping."""
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        if "name" not in spec:
            raise InputError(f"a {what} mapping needs a 'name' key", field="name")
        return str(spec["name"]), {k: v for k, v in spec.items() if k != "name"}
    raise InputError(f"a {what} is a name or a mapping, got {type(spec).__name__}",
                     field="policy")


def policy_label(spec: PolicySpec, policy: PolicyBase) -> str:
    """How a comparison names a policy: its name, then the parameters the spec sets.

    ``"sjf+easy"`` -> ``sjf+easy``; ``{"name": "qops", "k": 3}`` ->
    ``qops[k=3]`` (the parameters as given, in their order).  A ready
    :class:`~schedlab.policies.base.PolicyBase` shows the parameters that differ from its class's
    defaults, except those its registered name implies (the ``order`` of
    ``sjf+easy``).  The same policy with different parameters thus gets
    different labels, and results keyed by label do not overwrite each other.
    """
    if isinstance(spec, Mapping):
        params = {key: value for key, value in spec.items() if key != "name"}
    elif isinstance(spec, PolicyBase):
        entry = _BUILTIN.get(policy.name)
        implied = entry.fixed if entry is not None else {}
        defaults = type(policy).param_defaults()
        params = {key: value for key, value in policy.get_params().items()
                  if key not in implied and value != defaults.get(key)}
    else:
        params = {}
    return spec_text(policy.name, params)


def add_labelled(chosen: dict[str, PolicyBase], spec: PolicySpec, policy: PolicyBase, *,
                 field: str = "policies") -> None:
    """Add ``policy`` to ``chosen`` under its :func:`policy_label`; a label given twice is
    an error (the two runs would be the same)."""
    label = policy_label(spec, policy)
    if label in chosen:
        raise InputError(f"policy {label!r} is given twice; give each setting once",
                         field=field)
    chosen[label] = policy


def labelled_policies(specs: Iterable[PolicySpec]) -> dict[str, PolicyBase]:
    """The policies of ``specs`` built and keyed by their unique :func:`policy_label`."""
    chosen: dict[str, PolicyBase] = {}
    for spec in specs:
        add_labelled(chosen, spec, make_policy(spec))
    return chosen
