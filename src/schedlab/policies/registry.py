"""Policies by name: built-in compositions, parameters, and third-party plug-ins.

A policy is named ``ORDER+BACKFILL`` (``sjf+easy``, ``ljf+conservative``) or
just ``ORDER`` for no backfilling; ``easy`` and ``conservative`` alias the
FCFS ones.  A spec is a name, a mapping ``{"name": ..., **params}``, or a
ready :class:`~schedlab.policies.base.Policy`.

Third-party packages register policies under the ``schedlab.policies``
entry-point group: the entry point's name is the policy name and it must load
a :class:`Policy` subclass (or a callable taking the parameters as keywords
and returning a policy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from schedlab.engine.timesharing import TimeSharingPolicy
from schedlab.errors import InputError
from schedlab.policies.backfilling import ConservativeBackfilling, EasyBackfilling, NoBackfilling
from schedlab.policies.base import Policy
from schedlab.policies.deadline import (
    EarliestDeadlineFirst,
    ModifiedRealTime,
    ModifiedSlackBased,
    QoPS,
)
from schedlab.policies.dynp import BasicDynP, SelfTuningDynP
from schedlab.policies.gang import GangScheduler
from schedlab.policies.orderings import ORDERINGS
from schedlab.policies.planning import PLAN_ORDERINGS, PlanningScheduler

ENTRY_POINT_GROUP = "schedlab.policies"
PolicySpec = str | Mapping[str, Any] | Policy


@dataclass(frozen=True)
class PolicyEntry:
    """One registered policy name: how to build it and what it is."""

    name: str
    factory: Callable[..., Policy]
    fixed: Mapping[str, Any]
    summary: str
    source: str = "schedlab"

    def parameters(self) -> dict[str, Any]:
        """The parameters a user may set, with their defaults."""
        cls = self.factory if isinstance(self.factory, type) else None
        if cls is None or not issubclass(cls, Policy):
            return {}
        return {k: v for k, v in cls.param_defaults().items() if k not in self.fixed}

    @property
    def time_sharing(self) -> bool:
        """Whether the policy time-shares processors (runs on the time-sharing engine)."""
        return isinstance(self.factory, type) and issubclass(self.factory, TimeSharingPolicy)

    def build(self, params: Mapping[str, Any]) -> Policy:
        allowed = self.parameters()
        for key in params:
            if key not in allowed and self.source == "schedlab":
                known = ", ".join(allowed) or "none"
                raise InputError(f"policy {self.name!r} has no parameter {key!r} "
                                 f"(parameters: {known})", field=key)
        return self.factory(**self.fixed, **params)


_FAMILIES = {
    "none": (NoBackfilling, "no backfilling: jobs start strictly in queue order"),
    "easy": (EasyBackfilling, "EASY backfilling: the first waiting job gets a reservation"),
    "conservative": (ConservativeBackfilling,
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
        entries[name] = PolicyEntry(name, PlanningScheduler, {"order": order},
                                    f"{order.upper()}, planning-based: full schedule rebuilt "
                                    f"at every job end (Streit 2002, §5)")
    entries["dynp-basic"] = PolicyEntry("dynp-basic", BasicDynP, {},
                                        "basic dynP: the queue's average estimate picks "
                                        "SJF/FCFS/LJF at each submission (Streit 2002, §3.1)")
    entries["dynp"] = PolicyEntry("dynp", SelfTuningDynP, {},
                                  "self-tuning dynP: plans with the policy whose full schedule "
                                  "is best (Streit 2002, §3.2)")
    entries.update(_deadline_entries())
    entries["gang"] = PolicyEntry("gang", GangScheduler, {},
                                  "gang scheduling (time sharing) on an Ousterhout matrix: "
                                  "re-packing, slot limit, backfilling; strategy 1-3 (Zhou, "
                                  "Goscinski, Brent 2003)")
    return entries


def _deadline_entries() -> dict[str, PolicyEntry]:
    """Deadline guarantees (Islam et al., QoPS; docs/policies/deadlines.md)."""
    return {
        "qops": PolicyEntry("qops", QoPS, {}, "QoPS admission control: log N insertion points, "
                            "K repairs (Islam et al., §3)"),
        "msb": PolicyEntry("msb", ModifiedSlackBased, {}, "modified slack-based admission "
                           "control: every insertion position, cheapest plan (Islam et al., "
                           "§2.2.1)"),
        "mrt": PolicyEntry("mrt", ModifiedRealTime, {}, "modified real-time admission control: "
                           "strongly feasible plans, bounded backtracking (Islam et al., "
                           "§2.2.2)"),
        "edf": PolicyEntry("edf", EarliestDeadlineFirst, {}, "earliest deadline first with EASY "
                           "backfilling, no admission control"),
    }


_BUILTIN = _builtin_entries()


def _plugin_entries() -> dict[str, PolicyEntry]:
    from importlib.metadata import entry_points  # 25 ms to import: only when needed

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        factory = ep.load()
        doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
        found[ep.name] = PolicyEntry(ep.name, factory, {}, doc[0] if doc else "",
                                     source=ep.value)
    return found


def available_policies() -> dict[str, PolicyEntry]:
    """Every policy name that :func:`make_policy` accepts (aliases excluded)."""
    return {**_BUILTIN, **_plugin_entries()}


def canonical_name(name: str) -> str:
    """``easy`` -> ``fcfs+easy``, ``sjf+none`` -> ``sjf``; other names unchanged."""
    name = name.strip().lower()
    name = _ALIASES.get(name, name)
    if name.endswith("+none"):
        name = name[: -len("+none")]
    return name


def make_policy(spec: PolicySpec) -> Policy:
    """Build a policy from a name, a ``{"name": ..., **params}`` mapping or a Policy."""
    if isinstance(spec, Policy):
        return spec
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, Mapping):
        if "name" not in spec:
            raise InputError("a policy mapping needs a 'name' key", field="name")
        params = {k: v for k, v in spec.items() if k != "name"}
        name = spec["name"]
    else:
        raise InputError(f"a policy is a name or a mapping, got {type(spec).__name__}",
                         field="policy")
    key = canonical_name(name)
    entry = _BUILTIN.get(key) or _plugin_entries().get(key)
    if entry is None:
        known = ", ".join(sorted(available_policies()))
        raise InputError(f"unknown policy {name!r} (known: {known})", field="policy")
    return entry.build(params)


def policy_label(spec: PolicySpec, policy: Policy) -> str:
    """How a comparison names a policy: its name, then the parameters the spec sets.

    ``"sjf+easy"`` -> ``sjf+easy``; ``{"name": "qops", "k": 3}`` ->
    ``qops[k=3]`` (the parameters as given, in their order).  A ready
    :class:`Policy` shows the parameters that differ from its class's
    defaults, except those its registered name implies (the ``order`` of
    ``sjf+easy``).  The same policy with different parameters thus gets
    different labels, and results keyed by label do not overwrite each other.
    """
    if isinstance(spec, Mapping):
        params = {key: value for key, value in spec.items() if key != "name"}
    elif isinstance(spec, Policy):
        entry = _BUILTIN.get(policy.name)
        implied = entry.fixed if entry is not None else {}
        defaults = type(policy).param_defaults()
        params = {key: value for key, value in policy.get_params().items()
                  if key not in implied and value != defaults.get(key)}
    else:
        params = {}
    if not params:
        return policy.name
    return f"{policy.name}[{','.join(f'{k}={_label_value(v)}' for k, v in params.items())}]"


def _label_value(value: Any) -> str:
    """A parameter value as typed on the command line (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def add_labelled(chosen: dict[str, Policy], spec: PolicySpec, policy: Policy, *,
                 field: str = "policies") -> None:
    """Add ``policy`` to ``chosen`` under its :func:`policy_label`; a label given twice is
    an error (the two runs would be the same)."""
    label = policy_label(spec, policy)
    if label in chosen:
        raise InputError(f"policy {label!r} is given twice; give each setting once",
                         field=field)
    chosen[label] = policy


def labelled_policies(specs: Iterable[PolicySpec]) -> dict[str, Policy]:
    """The policies of ``specs`` built and keyed by their unique :func:`policy_label`."""
    chosen: dict[str, Policy] = {}
    for spec in specs:
        add_labelled(chosen, spec, make_policy(spec))
    return chosen
