"""Grid policies (Pasquali's thesis, paper 003): local policies and dispatchers by name.

Local policies (:data:`LOCAL_POLICIES`) run one instance per cluster in the
grid engine (:mod:`schedlab.engine.grid`); dispatchers (the meta-scheduler,
§3.1.2) are listed in :data:`DISPATCHERS`.  Both are kept apart from the
space-sharing registry: they run only on a platform.  ``schedlab policies``
lists them in tables of their own.  Adding one
is a class in this package and a line in :data:`LOCAL_POLICIES` or
:data:`DISPATCHERS` (docs/policies/grid.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedlab.errors import InputError
from schedlab.policies.grid.base import Dispatcher, LocalPolicy
from schedlab.policies.grid.convergent.policy import ConvergentScheduling
from schedlab.policies.grid.dispatch import LeastWork, Proportional, RandomDispatch, RoundRobin
from schedlab.policies.grid.egedf import EarliestGapEDF
from schedlab.policies.grid.flexible import (
    FlexibleBackfillingMod,
    FlexibleBackfillingUnmod,
    GridEDF,
)
from schedlab.policies.grid.local import BackfillingFCFS, GridFCFS
from schedlab.policies.grid.meta import MetaScheduler

#: name -> (class, one-line summary) of the grid local policies.
LOCAL_POLICIES: dict[str, tuple[type[LocalPolicy], str]] = {
    "grid-fcfs": (GridFCFS, "FCFS on the fastest machine with room, no backfilling "
                            "(Pasquali thesis §4.1 'FCFS')"),
    "bf-fcfs": (BackfillingFCFS, "EASY backfilling on heterogeneous machines and licences "
                                 "(Pasquali thesis §4.1 'BF_FCFS')"),
    "eg-edf": (EarliestGapEDF, "schedule-based: earliest gap / EDF insertion, Tabu (§5.2)"),
    "bf-unmod": (FlexibleBackfillingUnmod, "Flexible Backfilling by heuristic priorities, the "
                                           "reservation kept until its job starts (Pasquali "
                                           "thesis §3.2.1 'BF_UNMOD')"),
    "bf-mod": (FlexibleBackfillingMod, "Flexible Backfilling by heuristic priorities, the "
                                       "reservation to the highest priority at every event "
                                       "(Pasquali thesis §3.2.1 'BF_MOD')"),
    "grid-edf": (GridEDF, "earliest deadline first on the fastest machine with room, no "
                          "reservation (Pasquali thesis §4.2 'EDF')"),
    "cs": (ConvergentScheduling, "Convergent Scheduling; preemption=true: running jobs "
                                 "preempted and migrated by the plan (Pasquali thesis "
                                 "§3.2.2, §4.2)"),
}

#: name -> (class, one-line summary) of the meta-scheduler's dispatchers.
DISPATCHERS: dict[str, tuple[type[Dispatcher], str]] = {
    "round-robin": (RoundRobin, "clusters in turn (skipping those that cannot run the job)"),
    "random": (RandomDispatch, "an eligible cluster at random, seeded with the run's seed"),
    "least-work": (LeastWork, "the cluster with the least estimated work per unit of power"),
    "proportional": (Proportional, "jobs in proportion to machine count or rating sum"),
    "ms-heuristics": (MetaScheduler, "Deadline, Licence and User heuristics into a priority, "
                                     "then Load and Ordering (Pasquali thesis §3.1)"),
}

DispatcherSpec = str | Mapping[str, Any] | Dispatcher
LocalPolicySpec = str | Mapping[str, Any] | LocalPolicy


def canonical_name(name: str) -> str:
    """A grid policy or dispatcher name as registered: lower case, ``_`` read as ``-``
    (``BF_MOD`` is ``bf-mod``)."""
    return str(name).strip().lower().replace("_", "-")


def make_dispatcher(spec: DispatcherSpec) -> Dispatcher:
    """A fresh dispatcher from a name, a ``{"name": ..., **params}`` mapping or an instance."""
    if isinstance(spec, Dispatcher):
        return spec
    return _build(spec, DISPATCHERS, "dispatcher")


def make_local_policy(spec: LocalPolicySpec) -> LocalPolicy:
    """A fresh grid local policy from a name, a ``{"name": ..., **params}`` mapping or an
    instance (copied by its parameters: every cluster needs its own)."""
    if isinstance(spec, LocalPolicy):
        return type(spec)(**spec.get_params())
    return _build(spec, LOCAL_POLICIES, "grid policy")


def _build(spec, table: Mapping[str, tuple[type, str]], kind: str):
    """Look ``spec``'s name up in ``table`` and build it with its parameters, checked."""
    if isinstance(spec, Mapping):
        if "name" not in spec:
            raise InputError(f"a {kind} mapping needs a 'name' key", field="name")
        name, params = str(spec["name"]), {k: v for k, v in spec.items() if k != "name"}
    else:
        name, params = str(spec), {}
    entry = table.get(canonical_name(name))
    if entry is None:
        raise InputError(f"unknown {kind} {name!r} (known: {', '.join(table)})",
                         field="dispatch" if kind == "dispatcher" else "policy")
    cls = entry[0]
    allowed = cls.param_defaults()
    for key in params:
        if key not in allowed:
            raise InputError(f"{kind} {name!r} has no parameter {key!r} (parameters: "
                             f"{', '.join(allowed) or 'none'})", field=key)
    return cls(**params)


__all__ = ["DISPATCHERS", "LOCAL_POLICIES", "BackfillingFCFS", "Dispatcher",
           "FlexibleBackfillingMod", "FlexibleBackfillingUnmod", "GridEDF", "GridFCFS",
           "LeastWork", "LocalPolicy", "MetaScheduler", "Proportional", "RandomDispatch",
           "RoundRobin", "canonical_name", "make_dispatcher", "make_local_policy"]
