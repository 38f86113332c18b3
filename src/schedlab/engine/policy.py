"""The policy interface and parameter checking shared by every policy.

It lives in the engine layer because the engine calls policies through it;
policies import it from :mod:`schedlab.policies.base` (docs/architecture.md).

A policy reacts to three calls from the engine (ARCHITECTURE.md, "Policy"):
``on_submit`` (may reject the job), ``on_finish`` and ``schedule`` — the
latter once per instant, after all finishes and submissions of that instant.
A fourth, ``on_reservation_request``, hands it an advance-reservation
request (Margo et al.; docs/reservations.md).  It acts only through the
:class:`~schedlab.engine.context.Context`.

Parameters follow one convention: they are keyword arguments of
``__init__`` stored under the same name, without logic, so that
:meth:`Policy.get_params` can report them to results and sweeps.  A group of
parameters a whole kind of policy shares (the reservation parameters of the
policies with Catalina semantics) is declared once in ``shared_params`` and
taken by ``__init__`` as ``**keywords``.

A policy may name the engine it needs in ``execution_model`` (the run
layer picks the engine from it, :data:`schedlab.run.ENGINES`); without it,
the policy runs on this package's space-sharing event loop
(:data:`SPACE_SHARING`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.workload.job import Job
    from schedlab.workload.reservations import Reservation

#: Why the base policy refuses every reservation request.
UNSUPPORTED = "unsupported"


#: The execution model of the event loop in :mod:`schedlab.engine.simulator`: jobs
#: space-share one homogeneous machine, each on its own processors until it ends.
SPACE_SHARING = "space-sharing"


class Policy:
    """Base class of every scheduling policy; the default reactions do nothing."""

    name = "policy"
    #: Parameters ``__init__`` takes as ``**keywords``, with their defaults.
    shared_params: ClassVar[dict[str, Any]] = {}

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

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def check_choice(policy: str, param: str, value: Any, choices: Iterable[str]) -> None:
    """Raise :class:`InputError` unless ``value`` is one of ``choices``."""
    choices = list(choices)
    if value not in choices:
        raise InputError(f"The {param!r} parameter of {policy} must be one of "
                         f"{', '.join(map(repr, choices))}. Got {value!r} instead.",
                         field=param)


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
