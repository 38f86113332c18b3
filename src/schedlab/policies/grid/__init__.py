"""Grid policies (Pasquali's thesis, paper 003): cluster-local policies and dispatchers.

Local policies run one instance per cluster in the grid engine
(:mod:`schedlab.engine.grid`); dispatchers are the meta-scheduler (§3.1.2).
They are named in :mod:`schedlab.policies.registry`, tagged with the grid
execution model, and built with :func:`make_local_policy` and
:func:`make_dispatcher`; ``schedlab policies`` lists them in tables of their
own.  Adding one is a class in this package and a line in the registry
(docs/reference/policies/grid.md, "Writing a grid policy").
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from schedlab.engine.policy import GRID
from schedlab.policies.grid.base import Dispatcher, LocalPolicy
from schedlab.policies.registry import (
    DISPATCHER,
    POLICY,
    DispatcherSpec,
    LocalPolicySpec,
    canonical_name,
    entries,
    make_dispatcher,
    make_local_policy,
)

if TYPE_CHECKING:
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

#: The registry's grid entries of each kind, as ``name -> (class, summary)`` tables
#: (:data:`LOCAL_POLICIES`, :data:`DISPATCHERS`), read from it on each access.
_TABLES = {"LOCAL_POLICIES": POLICY, "DISPATCHERS": DISPATCHER}
#: The policy classes by the module that defines them, imported when first read: a run
#: imports only its own policy's module.
_CLASSES = {"ConvergentScheduling": "convergent.policy", "LeastWork": "dispatch",
            "Proportional": "dispatch", "RandomDispatch": "dispatch", "RoundRobin": "dispatch",
            "EarliestGapEDF": "egedf", "FlexibleBackfillingMod": "flexible",
            "FlexibleBackfillingUnmod": "flexible", "GridEDF": "flexible",
            "BackfillingFCFS": "local", "GridFCFS": "local", "MetaScheduler": "meta"}


def __getattr__(name: str) -> Any:
    """:data:`LOCAL_POLICIES` and :data:`DISPATCHERS` (PEP 562: built when read), and the
    policy classes (their module imported when first read)."""
    if name in _CLASSES:
        return getattr(importlib.import_module(f"{__name__}.{_CLASSES[name]}"), name)
    if name not in _TABLES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return {key: (entry.factory, entry.summary)
            for key, entry in entries(model=GRID, kind=_TABLES[name]).items()}


__all__ = ["DISPATCHERS", "LOCAL_POLICIES", "BackfillingFCFS", "ConvergentScheduling",
           "Dispatcher", "DispatcherSpec", "EarliestGapEDF", "FlexibleBackfillingMod",
           "FlexibleBackfillingUnmod", "GridEDF", "GridFCFS", "LeastWork", "LocalPolicy",
           "LocalPolicySpec", "MetaScheduler", "Proportional", "RandomDispatch", "RoundRobin",
           "canonical_name", "make_dispatcher", "make_local_policy"]
