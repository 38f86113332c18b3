"""Runtime predictors: backfilling on system-generated predictions (EASY++ and its family).

Tsafrir, Etsion & Feitelson, "Backfilling Using System-Generated Predictions
Rather Than User Runtime Estimates", IEEE TPDS 18(6), 2007.  A predictor
(:class:`Predictor`) answers ``predict(query)`` from the jobs it was told
had ended (``observe(ended)``) and corrects a prediction a running job
outlived (``corrected``); :func:`make_predictor` builds one by name;
:func:`prediction_accuracy` replays a trace to measure one.
docs/reference/predictions.md states the semantics.

This layer sits between the engine and the policies: a policy may use a
predictor, and a predictor knows nothing of policies.
"""

from schedlab.predictors.accuracy import (
    AccuracyMetrics,
    PredictionAccuracy,
    TraceRecord,
    prediction_accuracy,
)
from schedlab.predictors.base import (
    CORRECTIONS,
    EndedJob,
    Param,
    PredictionQuery,
    Predictor,
    ended_job,
    query_of,
)
from schedlab.predictors.builtin import (
    EasyPlusPlus,
    EstimatePredictor,
    LastPredictor,
    NearestNeighbours,
    Oracle,
    UserQuantile,
)
from schedlab.predictors.registry import (
    DEFAULT_PREDICTOR,
    ENTRY_POINT_GROUP,
    PredictorEntry,
    PredictorSpec,
    available_predictors,
    make_predictor,
)

__all__ = [
    "CORRECTIONS", "DEFAULT_PREDICTOR", "ENTRY_POINT_GROUP", "AccuracyMetrics", "EasyPlusPlus",
    "EndedJob", "EstimatePredictor", "LastPredictor", "NearestNeighbours", "Oracle", "Param",
    "PredictionAccuracy", "PredictionQuery", "Predictor", "PredictorEntry",
    "PredictorSpec",
    "TraceRecord", "UserQuantile", "available_predictors", "ended_job", "make_predictor",
    "prediction_accuracy", "query_of",
]
