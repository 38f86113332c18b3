"""Backfilling on runtime predictions: the ``predictor`` parameter every planning policy takes.

Tsafrir, Etsion & Feitelson ("Backfilling Using System-Generated
Predictions Rather Than User Runtime Estimates", IEEE TPDS 18(6), 2007)
keep the two roles of a user's estimate apart: the job is still killed at
its estimate, but the scheduler plans with a prediction.  The engine does
the keeping apart once, for every space-sharing policy
(:class:`~schedlab.engine.policy.RuntimePlanner`): the policy sees each job
with its planned runtime in place of its estimate, expected ends follow the
plan, and a job that outlives its plan is corrected at that instant, an
event followed by a scheduling pass.  So EASY, conservative backfilling,
``+plan``, dynP and the deadline policies plan with predictions without a
line of their own; this module only turns the ``predictor`` parameter into
the engine's planner.

With the default ``predictor="estimate"`` no planner is made: the run is
the one it always was, on the engine's fastest loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedlab.predictors import (
    DEFAULT_PREDICTOR,
    Predictor,
    PredictorSpec,
    make_predictor,
    query_of,
)
from schedlab.predictors.base import correction_rule, planner_calls, user_calls

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from schedlab.engine.policy import RuntimePlanner
    from schedlab.workload.job import Job


class PredictorPlanner:
    """A :class:`~schedlab.predictors.Predictor` as the engine's runtime planner.

    The predictor sees a job as submitted, without its runtime
    (:func:`~schedlab.predictors.base.asking`: the job's
    :func:`~schedlab.predictors.query_of`), and hears of it again only when
    it ends (:func:`~schedlab.predictors.base.telling`: its
    :func:`~schedlab.predictors.ended_job`); a per-user predictor is handed
    just the fields it reads (:func:`~schedlab.predictors.base.planner_calls`),
    and offers its two calls to the engine as ``per_user``
    (:func:`~schedlab.predictors.base.user_calls`).  Only the oracle, which
    says it looks ahead, is told the runtimes when the run begins.  A
    predictor that keeps :meth:`Predictor.corrected
    <schedlab.predictors.Predictor.corrected>` as it is (every built-in one)
    is corrected by its rule directly
    (:func:`~schedlab.predictors.base.correction_rule`), no query built.
    """

    __slots__ = ("corrected", "ended", "per_user", "planned", "predictor")

    def __init__(self, predictor: Predictor) -> None:
        self.predictor = predictor
        #: The prediction of a submitted job (``RuntimePlanner.planned``), and an ended job
        #: told to the predictor (``RuntimePlanner.ended``).
        self.planned, self.ended = planner_calls(predictor)
        #: ``(predict_user, observe_user)`` of a per-user predictor, None for any other:
        #: what ``planned`` and ``ended`` call, for the engine to call without them
        #: (``RuntimePlanner``).
        self.per_user = user_calls(predictor)
        #: A running job's new planned runtime (``RuntimePlanner.corrected``).
        self.corrected = (correction_rule(predictor.correction)
                          if type(predictor).corrected is Predictor.corrected
                          else asked_correction(predictor))

    def begin(self, jobs: Sequence[Job]) -> None:
        if self.predictor.looks_ahead:
            self.predictor.reveal({job.id: job.runtime for job in jobs})


def asked_correction(predictor: Predictor) -> Callable[[Job, int, int], int]:
    """``predictor.corrected`` asked about an engine job (its query), for a predictor with a
    correction of its own."""
    corrected = predictor.corrected

    def asked(job: Job, planned: int, elapsed: int) -> int:
        return corrected(query_of(job), planned, elapsed)

    return asked


class PredictedRuntimes:
    """Mixin of the policies that plan with runtimes: the ``predictor`` parameter.

    ``__init__`` takes ``predictor`` (a name or ``NAME[KEY=VALUE,...]``,
    :func:`~schedlab.predictors.make_predictor`; checked at once, so a
    mistake is an :class:`~schedlab.errors.InputError` before any run) and
    hands it to :meth:`init_predictor`.
    """

    predictor: str
    runtime_planner: RuntimePlanner | None

    def init_predictor(self, predictor: PredictorSpec) -> None:
        """Check ``predictor``, keep its label as the parameter, make the planner."""
        built = make_predictor(predictor)
        self.predictor = built.label
        self.runtime_planner = (None if built.label == DEFAULT_PREDICTOR
                                else PredictorPlanner(built))
