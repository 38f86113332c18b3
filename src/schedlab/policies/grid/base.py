"""The two kinds of grid policy: a cluster's local policy and the meta-scheduler's dispatcher.

Pasquali's thesis schedules a grid in two levels (§3.1, §3.2): the
meta-scheduler sends each submitted job to a cluster; each cluster's local
scheduler places its jobs on its machines.  The grid engine
(:mod:`schedlab.engine.grid`) gives every cluster its own
:class:`LocalPolicy` instance and calls one :class:`Dispatcher`.  Writing a
new one is one subclass plus a line in :mod:`schedlab.policies.grid`
(docs/policies/grid.md, "Writing a grid policy").

Parameters follow the convention of :class:`~schedlab.policies.base.Policy`:
keyword arguments of ``__init__`` stored under the same name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedlab.engine.grid import GRID
from schedlab.policies.base import Policy

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask, MetaView


class LocalPolicy(Policy):
    """A cluster's local scheduler: hears its cluster's submissions and job ends, and
    starts jobs on the cluster's machines through the :class:`GridContext`.

    ``schedule`` is called once per instant at which the cluster had an event
    (after every end and submission of that instant) or a requested wake-up.
    """

    name = "grid-local"
    #: The engine this policy needs (:data:`schedlab.run.ENGINES`): the grid engine.
    execution_model = GRID
    #: Whether it may preempt running jobs (``ctx.preempt``): the run then reports
    #: preemptions, migrations and time off machines even if none happened.
    preemptive = False

    def on_submit(self, ctx: GridContext, task: GridTask) -> None:
        """A job reached this cluster (it is in ``ctx.waiting``); may ``ctx.reject`` it."""

    def on_finish(self, ctx: GridContext, task: GridTask) -> None:
        """A job of this cluster ended (finished or killed at its scaled estimate)."""

    def schedule(self, ctx: GridContext) -> None:
        """Decide what starts now, with ``ctx.start(task, machine)`` (and what stops, with
        ``ctx.preempt(task)``, for a preemptive policy)."""


class Dispatcher:
    """The meta-scheduler: chooses a cluster for each submitted job (thesis §3.1.2).

    It sees only a :class:`~schedlab.engine.grid.MetaView`: the platform's
    static description and the jobs it sent that have not ended.
    """

    name = "dispatcher"

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        """The index of the cluster ``task`` goes to (one of ``view.eligible_clusters(task)``)."""
        raise NotImplementedError

    def on_finish(self, view: MetaView, task: GridTask) -> None:
        """A job this dispatcher sent has ended (it is no longer in ``view.outstanding``)."""

    param_names = classmethod(Policy.param_names.__func__)
    param_defaults = classmethod(Policy.param_defaults.__func__)
    get_params = Policy.get_params
    __repr__ = Policy.__repr__

    def statistics(self) -> dict[str, Any]:
        return {}
