"""The two kinds of grid policy: a cluster's local policy and the meta-scheduler's dispatcher.

Pasquali's thesis schedules a grid in two levels (§3.1, §3.2): the
meta-scheduler sends each submitted job to a cluster; each cluster's
local scheduler places its jobs on its machines.  The grid engine
(:mod:`schedlab.engine.grid`) gives every cluster its own
:class:`LocalPolicy` instance and calls one :class:`Dispatcher`.  Both are
siblings of the space-sharing :class:`~schedlab.policies.base.Policy` under
:class:`~schedlab.engine.policy.PolicyBase`, and live beside it in the
engine layer; this module is where grid policies import them.  Writing a
new one is one subclass plus a line in :mod:`schedlab.policies.registry`
(docs/reference/policies/grid.md, "Writing a grid policy").
"""

from schedlab.engine.policy import Dispatcher, LocalPolicy

__all__ = ["Dispatcher", "LocalPolicy"]
