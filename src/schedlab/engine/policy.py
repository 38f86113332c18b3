"""The interfaces every engine drives: one parameterised base and its three kinds.

They live in the engine layer because the engines call policies through
them; policies import them from :mod:`schedlab.policies.base` and
:mod:`schedlab.policies.grid.base` (docs/architecture.md, "Layers").

:class:`PolicyBase` holds what every kind shares: a ``name``, parameters
(:meth:`~PolicyBase.get_params`, :meth:`~PolicyBase.set_params`,
:meth:`~PolicyBase.param_names`), a fresh copy (:meth:`~PolicyBase.clone`)
and ``statistics`` for the result.  Its subclasses are siblings, one per
set of reactions an engine calls:

* :class:`Policy` -- the space-sharing event loop (:mod:`schedlab.engine.simulator`);
* :class:`LocalPolicy` -- one cluster of the grid engine (:mod:`schedlab.engine.grid`);
* :class:`Dispatcher` -- the grid's meta-scheduler, choosing each job's cluster.

(The time-sharing engine's :class:`~schedlab.engine.timesharing.TimeSharingPolicy`
is the fourth.)  Each names the engine it needs in ``execution_model``; the
run layer picks the engine from it (:data:`schedlab.execution.MODELS`).

A space-sharing policy reacts to three calls from the engine
(ARCHITECTURE.md, "Policy"): ``on_submit`` (may reject the job),
``on_finish`` and ``schedule`` -- the latter once per instant, after all
finishes and submissions of that instant.  A fourth,
``on_reservation_request``, hands it an advance-reservation request (Margo
et al.; docs/reference/reservations.md).  It acts only through the
:class:`~schedlab.engine.context.Context`.

Parameters follow one convention: they are keyword arguments of
``__init__`` stored under the same name, so that :meth:`PolicyBase.get_params`
can report them to results and sweeps and :meth:`PolicyBase.clone` can
build the same policy again.  A group of parameters a whole kind of policy
shares (the reservation parameters of the policies with Catalina semantics)
is declared once in ``shared_params`` and taken by ``__init__`` as
``**keywords``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

from schedlab.errors import InputError, did_you_mean

if TYPE_CHECKING:
    from collections.abc import Sequence

    from schedlab.engine.context import Context
    from schedlab.engine.grid import GridContext, GridTask, MetaView
    from schedlab.engine.outages import OutageEvent
    from schedlab.workload.job import Job
    from schedlab.workload.reservations import Reservation

#: Why the base policy refuses every reservation request.
UNSUPPORTED = "unsupported"


#: The execution model of the event loop in :mod:`schedlab.engine.simulator`: jobs
#: space-share one homogeneous machine, each on its own processors until it ends.
SPACE_SHARING = "space-sharing"
#: The execution model of :func:`schedlab.engine.grid.run_grid` (:data:`schedlab.execution.MODELS`):
#: jobs dispatched to the clusters of a heterogeneous platform, each scheduled by its cluster's
#: policy.  Named here, with the other models' names, so that a space-sharing run does not
#: import the grid engine.
GRID = "grid"


class PolicyBase:
    """What every policy and dispatcher shares: a name, parameters, statistics.

    Each kind below sets the ``execution_model`` its engine runs.
    """

    name = "policy"
    #: The engine this kind of policy needs (:data:`schedlab.execution.MODELS`).
    execution_model: ClassVar[str]
    #: Parameters ``__init__`` takes as ``**keywords``, with their defaults.
    shared_params: ClassVar[dict[str, Any]] = {}
    #: Numeric parameters whose values name alternatives, not quantities (Zhou et al.'s
    #: Strategies 1-3): figures draw them as categories, not along a number line.  Text
    #: and boolean parameters are categories without being listed.
    categorical_parameters: ClassVar[tuple[str, ...]] = ()

    def statistics(self) -> dict[str, Any]:
        """Policy-specific statistics reported with the result (e.g. dynP's switches)."""
        return {}

    @classmethod
    def param_names(cls) -> list[str]:
        """Names of the keyword parameters of ``__init__``, then the shared ones."""
        return list(cls.param_defaults())

    @classmethod
    def param_defaults(cls) -> dict[str, Any]:
        """Default value of every parameter: those of ``__init__``, then ``shared_params``."""
        signature = inspect.signature(cls.__init__)
        own = {p.name: p.default for p in signature.parameters.values()
               if p.name != "self" and p.kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                      inspect.Parameter.VAR_KEYWORD)}
        shared = getattr(cls, "shared_params", {})
        return {**own, **{k: v for k, v in shared.items() if k not in own}}

    def get_params(self) -> dict[str, Any]:
        """The parameters this policy was built with."""
        return {name: getattr(self, name) for name in self.param_names()}

    def clone(self, **changes: Any) -> Self:
        """A new instance built from :meth:`get_params`, with ``changes`` applied.

        The one way to get a fresh policy: an engine refuses an instance a
        run has used (it keeps that run's state, docs/reference/engine.md, "Policy
        lifecycle"), and every cluster of a grid needs its own.  The new
        instance runs ``__init__``, so its parameters are checked again.
        """
        check_param_names(f"policy {self.name!r}", changes, self.param_names())
        return type(self)(**{**self.get_params(), **changes})

    def set_params(self, **changes: Any) -> Self:
        """Change parameters in place; the instance becomes a fresh one (:meth:`clone`).

        Every parameter is checked by ``__init__`` before anything changes;
        the state of an earlier run is dropped with the old parameters.
        """
        fresh = self.clone(**changes)
        vars(self).clear()
        vars(self).update(vars(fresh))
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class RuntimePlanner(Protocol):
    """The runtimes a space-sharing policy plans with, when not the users' estimates.

    Tsafrir, Etsion & Feitelson (IEEE TPDS 18(6), 2007) backfill on
    system-generated predictions; the engine keeps the two apart: a job is
    still killed at its estimate, while the policy sees, in every job of
    ``ctx.waiting`` and ``ctx.running``, the planned runtime in place of
    the estimate, and expected ends follow it.  When a running job reaches
    its planned end and still runs, the engine asks for a correction at that
    instant and runs a scheduling pass (docs/reference/predictions.md).  A
    policy offers one in ``runtime_planner``; the engine calls it as below.  A
    planner whose prediction is a function of the job's user and estimate
    alone, and whose news of an end is the user's runtime, may also offer
    ``per_user = (predict_user, observe_user)`` (else None or no such
    attribute): the engine then calls ``predict_user(job.user,
    job.estimate)`` for ``planned`` and, at a job's finish, ``observe_user(user,
    end - start)`` for ``ended`` (a job of unknown user, -1, is told to no one),
    one call fewer per job (:class:`~schedlab.policies.predicting.PredictorPlanner`).
    """

    def begin(self, jobs: Sequence[Job]) -> None:
        """The run starts with ``jobs`` (an oracle learns their runtimes here, no other)."""

    def planned(self, job: Job) -> int:
        """The runtime to plan ``job`` with, at its submission (whole seconds >= 1)."""
        ...

    def corrected(self, job: Job, planned: int, elapsed: int) -> int:
        """A new planned runtime for a job still running ``elapsed`` seconds after its
        start, that was planned to run ``planned`` (always > ``elapsed``)."""
        ...

    def ended(self, job: Job, start: int, end: int, status: int) -> None:
        """``job`` left the machine (finished or killed)."""


class Policy(PolicyBase):
    """Base class of every space-sharing scheduling policy; the default reactions do nothing."""

    execution_model = SPACE_SHARING
    #: What the policy plans runtimes with; ``None``: the users' estimates.
    runtime_planner: RuntimePlanner | None = None
    #: Seconds a running job may outlive its estimate before the engine kills it, under
    #: ``overrun="kill"`` (Slurm's OverTimeLimit: the estimate is a soft limit); the policy
    #: still sees and plans with the estimate.  0: killed at the estimate.
    kill_grace: int = 0

    def starts_in_arrival_order(self) -> bool:
        """Whether every pass starts the waiting jobs strictly in arrival order, each as soon
        as it fits, and the policy does nothing else (rejects nothing, keeps no state,
        reports no statistics).

        The engine then makes a run without reservations, ticks, queue limit,
        cancellations, outages or planned runtimes in one compiled call over the
        job arrays, without calling the policy (:mod:`schedlab.engine.arrival_order`).
        Plain FCFS says True; a subclass that changes any reaction says False.
        """
        return False

    def on_cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job was cancelled by its user (it has left ``ctx.waiting``; it never
        runs, docs/reference/events.md): a policy that keeps plans drops it.  A running
        job cancelled is an early end: ``on_finish``."""

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        """A node failure, a repair, or a maintenance window or drain announced, started or
        ended (:class:`~schedlab.engine.outages.OutageEvent`; docs/reference/events.md).
        The jobs a failure hit have been heard of already: ``on_finish`` for each, then
        ``on_submit`` for those queued again.  A scheduling pass follows; a policy that
        keeps a plan made on the capacity it had plans again."""

    def on_correction(self, ctx: Context, job: Job, previous_end: int) -> None:
        """A running job outlived its planned runtime: ``job`` carries the corrected one
        (its expected end moved from ``previous_end`` to ``ctx.expected_end(job)``); a
        scheduling pass follows at once.  Only with a :attr:`runtime_planner`.
        ``ctx.corrections_only`` says whether nothing but corrections happened since the
        last pass (EASY then counts a broken reservation from the one that pass left)."""

    def idle_after_corrections(self, ctx: Context) -> bool:
        """Whether the pass at an instant of nothing but corrections would start nothing.

        Asked by the engine when only corrections of planned runtimes happened
        since the last pass, in a run whose jobs are killed at their estimates
        (no grace, no outages), so that every running job is expected to end
        after now; True skips the pass.  A policy says True only when it has
        proved it (:meth:`EasyBackfilling.idle_after_corrections
        <schedlab.policies.backfilling.EasyBackfilling.idle_after_corrections>`);
        the default, False, keeps every pass.
        """
        return False

    def on_submit(self, ctx: Context, job: Job) -> None:
        """A job arrived (it is already in ``ctx.waiting``); may ``ctx.reject`` it."""

    def on_finish(self, ctx: Context, job: Job) -> None:
        """A job left the machine (finished or killed at its estimate)."""

    def schedule(self, ctx: Context) -> None:
        """Decide what starts now; called once per instant after all its events."""

    def on_reservation_request(self, ctx: Context, request: Reservation) -> None:
        """A reservation request arrived (it is in ``ctx.pending_requests``).

        The policy must ``ctx.grant(request, start)`` or ``ctx.refuse(request,
        reason)`` here or in the scheduling pass that follows.  By default it
        is refused with the reason ``"unsupported"``.
        """
        ctx.refuse(request, UNSUPPORTED)


class LocalPolicy(PolicyBase):
    """A grid cluster's local scheduler: hears its cluster's submissions and job ends, and
    starts jobs on the cluster's machines through the :class:`~schedlab.engine.grid.GridContext`.

    Pasquali's thesis schedules a grid in two levels (§3.1, §3.2); the grid
    engine gives every cluster its own instance.  ``schedule`` is called
    once per instant at which the cluster had an event (after every end and
    submission of that instant) or a requested wake-up.
    """

    name = "grid-local"
    execution_model = GRID
    #: Whether it may preempt running jobs (``ctx.preempt``): the run then reports
    #: preemptions, migrations and time off machines even if none happened.
    preemptive = False

    def on_submit(self, ctx: GridContext, task: GridTask) -> None:
        """A job reached this cluster (it is in ``ctx.waiting``); may ``ctx.reject`` it."""

    def on_finish(self, ctx: GridContext, task: GridTask) -> None:
        """A job of this cluster ended (finished or killed at its scaled estimate), or left
        it otherwise (docs/reference/events.md, "Grid runs"): cancelled running or withdrawn
        waiting by its user (``start`` -1), or its run ended by a machine failure (killed;
        or queued again, and then heard by :meth:`on_submit` too)."""

    def on_outage(self, ctx: GridContext, event: OutageEvent) -> None:
        """A machine of this cluster failed or came back, or a maintenance window took or
        gave back machines of it (after the ``on_finish``/``on_submit`` calls of the jobs a
        failure hit, before the scheduling pass; docs/reference/events.md, "Grid runs")."""

    def schedule(self, ctx: GridContext) -> None:
        """Decide what starts now, with ``ctx.start(task, machine)`` (and what stops, with
        ``ctx.preempt(task)``, for a preemptive policy)."""


class Dispatcher(PolicyBase):
    """The grid's meta-scheduler: chooses a cluster for each submitted job (thesis §3.1.2).

    It sees only a :class:`~schedlab.engine.grid.MetaView`: the platform's
    static description and the jobs it sent that have not ended.
    """

    name = "dispatcher"
    execution_model = GRID

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        """The index of the cluster ``task`` goes to (one of ``view.eligible_clusters(task)``)."""
        raise NotImplementedError

    def on_finish(self, view: MetaView, task: GridTask) -> None:
        """A job this dispatcher sent has ended (it is no longer in ``view.outstanding``)."""


def check_param_names(owner: str, given: Iterable[str], allowed: Iterable[str]) -> None:
    """Raise :class:`InputError` for the first name of ``given`` not in ``allowed``.

    ``owner`` names what takes the parameters (``policy 'fcfs+easy'``).
    """
    allowed = list(allowed)
    for key in given:
        if key not in allowed:
            raise InputError(f"{owner} has no parameter {key!r}{did_you_mean(key, allowed)} "
                             f"(parameters: {', '.join(allowed) or 'none'})", field=key)


def check_choice(policy: str, param: str, value: Any, choices: Iterable[Any]) -> None:
    """Raise :class:`InputError` unless ``value`` is one of ``choices``."""
    choices = list(choices)
    if value not in choices:
        raise InputError(f"The {param!r} parameter of {policy} must be one of "
                         f"{', '.join(map(repr, choices))}. Got {value!r} instead.",
                         field=param)


def check_bool(policy: str, param: str, value: Any) -> None:
    """Raise :class:`InputError` unless ``value`` is ``True`` or ``False`` (not 0 or 1, not
    the string ``"false"``, which would read as true)."""
    if not isinstance(value, bool):
        raise InputError(f"The {param!r} parameter of {policy} must be true or false. "
                         f"Got {value!r} instead.", field=param)


#: Largest integer parameter (a time or a count): the bound of SWF times, exact in float64.
MAX_INT_PARAM = 2**53


def check_number(policy: str, param: str, value: Any, kind: type, low: float,
                 high: float = float("inf")) -> None:
    """Raise :class:`InputError` unless ``value`` is a ``kind`` in ``[low, high]``.

    An unbounded range is ``[low, inf)``: infinity itself (and NaN) is refused, as it
    would turn every score computed from the parameter into NaN or inf.
    """
    valid_type = isinstance(value, kind) and not isinstance(value, bool)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        valid_type = True
    if not valid_type or not (low <= value <= high) or value == float("inf"):
        bound = "inf)" if high == float("inf") else f"{high}]"
        article = "an" if kind.__name__[0] in "aeiou" else "a"
        raise InputError(f"The {param!r} parameter of {policy} must be {article} "
                         f"{kind.__name__} in [{low}, {bound}. Got {value!r} instead.",
                         field=param)
    if kind is int and abs(value) > MAX_INT_PARAM:
        raise InputError(f"The {param!r} parameter of {policy} must be at most 2**53 (times "
                         f"and counts beyond overflow the int64 schedule). Got {value!r} "
                         f"instead.", field=param)
