"""What a runtime predictor sees, what it answers, and how its parameters are declared.

A predictor (Tsafrir, Etsion & Feitelson, "Backfilling Using System-Generated
Predictions Rather Than User Runtime Estimates", IEEE TPDS 18(6), 2007) is
asked for a job's runtime when the scheduler plans with it, and hears about
every job that ends.  Two calls carry everything, and what they carry makes
the no-look-ahead rule structural:

* :meth:`Predictor.predict` receives a :class:`PredictionQuery`: the job as
  submitted (id, submit, width, estimate, user, group, queue, application),
  a record that *has no runtime field*;
* :meth:`Predictor.observe` receives an :class:`EndedJob` when a job ends:
  the query's fields plus when it started and ended, the runtime it had
  (``end - start``) and its status.  It is the only way a runtime reaches a
  predictor.

The one exception is the ``oracle`` (the upper bound of any predictor): its
class says ``looks_ahead = True`` and it is told the truth through a separate
call, :meth:`Oracle.reveal`, which whoever drives it must make.

A prediction is whole seconds, at least 1 and (for every built-in predictor)
at most the job's estimate: the job is still killed at its estimate, the
prediction is only what backfilling plans with.  When a running job outlives
its prediction, :meth:`Predictor.corrected` gives the new one
(docs/reference/predictions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple, Self

from schedlab.engine.policy import check_choice, check_number, check_param_names
from schedlab.errors import InputError
from schedlab.outcomes import FINISHED
from schedlab.specs import spec_text
from schedlab.workload.job import Job

#: An unknown user, group, queue or application (SWF's -1).
UNKNOWN = -1


class PredictionQuery(NamedTuple):
    """A job as a predictor may see it before it ends: no runtime, by construction.

    ``app`` is the SWF executable (application) number, -1 when unknown (the
    engine's :class:`~schedlab.workload.job.Job` does not carry it yet; the
    trace analysis reads it from the SWF).  A named tuple: built in C, as
    cheap as the job it is made from.
    """

    id: int
    submit: int
    width: int
    estimate: int
    user: int = UNKNOWN
    group: int = UNKNOWN
    queue: int = UNKNOWN
    app: int = UNKNOWN


class EndedJob(NamedTuple):
    """A job that has ended, as :meth:`Predictor.observe` hears of it.

    ``runtime`` is the time it held its processors, ``end - start`` (a job
    killed at its estimate ran for its estimate); ``status`` is a code of
    :mod:`schedlab.outcomes` (finished or killed).
    """

    id: int
    submit: int
    width: int
    estimate: int
    user: int
    group: int
    queue: int
    app: int
    start: int
    end: int
    runtime: int
    status: int = FINISHED


#: The fields of an engine :class:`~schedlab.workload.job.Job` a query carries, in the
#: query's order (all but ``app``): one C call reads them, never the runtime.
_SUBMITTED = itemgetter(*(Job._fields.index(name) for name in PredictionQuery._fields[:-1]))


def query_of(job: Job, app: int = UNKNOWN) -> PredictionQuery:
    """The :class:`PredictionQuery` of an engine job: its fields without the runtime.

    Built with ``tuple.__new__`` from one ``itemgetter`` call: a named tuple's
    own constructor is a Python function, three times slower, and a query is
    made for every job the engine plans.
    """
    return tuple.__new__(PredictionQuery, _SUBMITTED(job) + (app,))


def ended_job(job: Job, start: int, end: int, status: int = FINISHED,
              app: int = UNKNOWN) -> EndedJob:
    """The :class:`EndedJob` of an engine job that ran from ``start`` to ``end`` (built as
    :func:`query_of` builds a query)."""
    return tuple.__new__(EndedJob, _SUBMITTED(job) + (app, start, end, end - start, status))


def asking(predict: Callable[[PredictionQuery], int]) -> Callable[[Job], int]:
    """``predict`` asked about an engine job: ``job -> predict(query_of(job))`` in one
    frame (the engine's planner calls it at every submission)."""
    new, submitted, no_app = tuple.__new__, _SUBMITTED, (UNKNOWN,)

    def planned(job: Job) -> int:
        return predict(new(PredictionQuery, submitted(job) + no_app))

    return planned


def telling(observe: Callable[[EndedJob], None]) -> Callable[[Job, int, int, int], None]:
    """``observe`` told of an engine job that ended: ``(job, start, end, status) ->
    observe(ended_job(job, start, end, status))`` in one frame (the engine's planner
    calls it at every end)."""
    new, submitted = tuple.__new__, _SUBMITTED

    def ended(job: Job, start: int, end: int, status: int) -> None:
        observe(new(EndedJob, submitted(job) + (UNKNOWN, start, end, end - start, status)))

    return ended


def user_calls(predictor: Predictor) -> tuple[Callable[[int, int], int],
                                              Callable[[int, int], None]] | None:
    """``(predict_user, observe_user)`` of a :class:`UserHistoryPredictor` that keeps the
    base ``predict`` and ``observe`` (its answers are those of the two numbers, the
    job's user and estimate, and of the users' runtimes told at their ends); None for
    any other predictor, which is asked and told by query."""
    kind = type(predictor)
    if (isinstance(predictor, UserHistoryPredictor)
            and kind.predict is UserHistoryPredictor.predict
            and kind.observe is UserHistoryPredictor.observe):
        return predictor.predict_user, predictor.observe_user
    return None


def planner_calls(predictor: Predictor) -> tuple[Callable[[Job], int],
                                                 Callable[[Job, int, int, int], None]]:
    """The engine planner's two per-job calls to ``predictor``: the prediction of a
    submitted job, and the news of one that ended (``RuntimePlanner.planned`` and
    ``ended``).

    A per-user predictor (:func:`user_calls`) is handed the job's user and
    estimate, and at its end its user and runtime (``end - start``), directly;
    any other is asked and told through :func:`asking` and :func:`telling`.
    Both give the same answers (a hypothesis property of the tests).
    """
    per_user = user_calls(predictor)
    if per_user is not None:
        predict_user, observe_user = per_user

        def planned(job: Job) -> int:
            return predict_user(job.user, job.estimate)

        def ended(job: Job, start: int, end: int, status: int) -> None:
            user = job.user
            if user != UNKNOWN:
                observe_user(user, end - start)

        return planned, ended
    return asking(predictor.predict), telling(predictor.observe)


@dataclass(frozen=True)
class Param:
    """One parameter of a predictor: default, type, allowed values, one-line meaning.

    Numbers lie in ``[low, high]``, or in ``(low, high)`` with ``open=True``;
    a parameter with ``choices`` takes one of them; one with ``at_most`` is
    at most the value of that other parameter (``k`` of ``window``).  The
    declaration is the one place the check, the defaults and ``schedlab
    predictors`` read.
    """

    default: Any
    kind: type
    help: str
    low: float = float("-inf")
    high: float = float("inf")
    open: bool = False
    choices: tuple[Any, ...] = ()
    at_most: str | None = None

    def check(self, owner: str, name: str, value: Any) -> None:
        """Raise :class:`InputError` (one line) unless ``value`` is allowed."""
        if self.choices:
            check_choice(owner, name, value, self.choices)
        elif not self.open:
            check_number(owner, name, value, self.kind, self.low, self.high)
        elif not (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and (self.kind is float or isinstance(value, self.kind))
                  and self.low < value < self.high):
            raise InputError(f"The {name!r} parameter of {owner} must be a "
                             f"{self.kind.__name__} in {self.range_text()}. Got {value!r} "
                             f"instead.", field=name)

    def range_text(self) -> str:
        """The allowed values as ``schedlab predictors`` shows them: ``[1, inf)``,
        ``(0, 1)``, ``estimate|graded``."""
        if self.choices:
            return "|".join(map(str, self.choices))
        high = "inf" if self.high == float("inf") else _number(self.high)
        left, right = ("(", ")") if self.open else ("[", ")" if high == "inf" else "]")
        return f"{left}{_number(self.low)}, {high}{right}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


#: How a prediction that a running job outlived is corrected (every predictor has it).
CORRECTIONS = ("estimate", "graded")
CORRECTION = Param("estimate", str, "how a prediction a running job outlives is corrected",
                   choices=CORRECTIONS)
#: The correction rules in one line (``schedlab predictors`` prints it under the table).
CORRECTION_RULES = ("correction: when a running job outlives its prediction, 'estimate' raises "
                    "it to the estimate (Tsafrir et al.), 'graded' doubles it, capped by the "
                    "estimate (our reading)")


class Predictor:
    """Base of every runtime predictor: parameters, the two calls, the correction rule.

    A subclass sets ``name``, ``summary`` (one line) and ``param_specs`` (its
    own :class:`Param` declarations; ``correction`` is added to every
    predictor), and implements :meth:`predict` and, if it learns,
    :meth:`observe` and :meth:`reset`.  Parameters are keyword arguments,
    checked against the declarations and stored as attributes of the same
    name.  A predictor keeps the history of one run: :meth:`clone` gives a
    fresh one.
    """

    name: ClassVar[str] = "predictor"
    summary: ClassVar[str] = ""
    param_specs: ClassVar[Mapping[str, Param]] = {}
    #: Whether it is given the truth (only the oracle): it is no real predictor.
    looks_ahead: ClassVar[bool] = False
    correction: str

    def __init__(self, **params: Any) -> None:
        owner = f"predictor {self.name!r}"
        declared = self.parameters()
        check_param_names(owner, params, declared)
        for key, param in declared.items():
            value = params.get(key, param.default)
            param.check(owner, key, value)
            setattr(self, key, value)
        for key, param in declared.items():
            if param.at_most is not None and getattr(self, key) > getattr(self, param.at_most):
                raise InputError(f"The {key!r} parameter of {owner} must be at most its "
                                 f"{param.at_most} ({getattr(self, param.at_most)}). Got "
                                 f"{getattr(self, key)!r} instead.", field=key)
        self.reset()

    @classmethod
    def parameters(cls) -> dict[str, Param]:
        """Every parameter's declaration: the class's own, then ``correction``."""
        return {**cls.param_specs, "correction": CORRECTION}

    def reset(self) -> None:
        """Forget all history (called by ``__init__``)."""

    def predict(self, query: PredictionQuery) -> int:
        """The predicted runtime of ``query`` in whole seconds, >= 1."""
        raise NotImplementedError

    def observe(self, ended: EndedJob) -> None:
        """A job ended; the only way a runtime reaches the predictor."""

    def reveal(self, runtimes: Mapping[int, int]) -> None:
        """The separate channel of the truth, for a predictor that ``looks_ahead`` only:
        job id -> real runtime, told before the job is predicted.  Any other predictor
        refuses it."""
        raise TypeError(f"predictor {self.name!r} does not look ahead: it is told runtimes "
                        f"only by observe()")

    def corrected(self, query: PredictionQuery, predicted: int, elapsed: int) -> int:
        """A new prediction for a running job that reached its prediction ``predicted``
        after running ``elapsed`` seconds; always > ``elapsed``.

        ``correction="estimate"`` (Tsafrir et al., EASY++): the estimate.
        ``correction="graded"`` (our reading of a gradual correction, not the
        paper's): twice the prediction, at least ``elapsed + 1``, capped by the
        estimate.  A job past its estimate (only under ``overrun="extend"``)
        gets ``elapsed + 1``: "soon", as the engine's expected end says.
        """
        return correction_rule(self.correction)(query, predicted, elapsed)

    def get_params(self) -> dict[str, Any]:
        """The parameters this predictor was built with."""
        return {key: getattr(self, key) for key in self.parameters()}

    def clone(self, **changes: Any) -> Self:
        """A fresh predictor (no history) with the same parameters, ``changes`` applied."""
        return type(self)(**{**self.get_params(), **changes})

    @property
    def label(self) -> str:
        """``NAME[KEY=VALUE,...]`` with the parameters that differ from their defaults
        (``easy++[correction=graded]``): the one spec syntax of policies and predictors."""
        declared = self.parameters()
        return spec_text(self.name, {key: value for key, value in self.get_params().items()
                                     if value != declared[key].default})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class UserHistoryPredictor(Predictor):
    """A predictor whose answer is a function of the job's user and estimate and of the
    runtimes of that user's ended jobs, in end order (``easy++``, ``last``,
    ``user-quantile``).

    A subclass implements :meth:`predict_user` and :meth:`observe_user`; the
    query protocol hands them those fields (:meth:`predict`, :meth:`observe`;
    an ended job of unknown user is no one's history), and the engine's
    planner calls them with the two numbers directly
    (:class:`~schedlab.policies.predicting.PredictorPlanner`), building no
    query and no ended record per job.  The runtime reaches it only through
    :meth:`observe_user`, when the job has ended.
    """

    def predict(self, query: PredictionQuery) -> int:
        return self.predict_user(query.user, query.estimate)

    def observe(self, ended: EndedJob) -> None:
        if ended.user != UNKNOWN:
            self.observe_user(ended.user, ended.runtime)

    def predict_user(self, user: int, estimate: int) -> int:
        """The predicted runtime of a job of ``user`` with ``estimate``, >= 1."""
        raise NotImplementedError

    def observe_user(self, user: int, runtime: int) -> None:
        """A job of ``user`` (never :data:`UNKNOWN`) ended after ``runtime`` seconds."""


def _to_estimate(job: Job | PredictionQuery, predicted: int, elapsed: int) -> int:
    estimate = job.estimate
    return estimate if elapsed < estimate else elapsed + 1


def _graded(job: Job | PredictionQuery, predicted: int, elapsed: int) -> int:
    estimate = job.estimate
    if elapsed >= estimate:
        return elapsed + 1
    return min(estimate, max(2 * predicted, elapsed + 1))


_RULES = {"estimate": _to_estimate, "graded": _graded}


def correction_rule(correction: str) -> Callable[[Job | PredictionQuery, int, int], int]:
    """:meth:`Predictor.corrected` by the rule ``correction`` (:data:`CORRECTIONS`) as one
    function of the job (an engine job or a query: only its estimate is read), the
    prediction it outlived and the seconds it has run.  The engine's planner calls it
    at every correction of a predictor that keeps the rule, without building a query:
    one call, as a job's end is."""
    return _RULES[correction]


def clamp(value: int, estimate: int) -> int:
    """``value`` within ``[1, estimate]``: a built-in prediction never exceeds the estimate."""
    if value < 1:
        return 1
    return estimate if value > estimate else value

