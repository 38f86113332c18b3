"""The built-in runtime predictors: estimate, easy++, last, user-quantile, knn, oracle.

Each sees only what :mod:`schedlab.predictors.base` hands it: queries
without runtimes, and the jobs that have ended (the oracle, flagged
``looks_ahead``, is told the truth by :meth:`Oracle.reveal`).  Every
prediction is whole seconds in ``[1, estimate]``.  A job without a user
(SWF's -1) has no per-user history: ``easy++``, ``last`` and
``user-quantile`` give it its estimate, and ``knn`` never counts it as the
same user as another.  docs/reference/predictions.md states each rule.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np

from schedlab.predictors.base import (
    UNKNOWN,
    EndedJob,
    Param,
    PredictionQuery,
    Predictor,
    UserHistoryPredictor,
    clamp,
)


class EstimatePredictor(Predictor):
    """The user's estimate: what backfilling plans with today (the default)."""

    name = "estimate"
    summary = "the user's estimate: what backfilling uses without predictions (the default)"

    def predict(self, query: PredictionQuery) -> int:
        return query.estimate


class EasyPlusPlus(UserHistoryPredictor):
    """Tsafrir et al.'s EASY++ prediction: the mean runtime of the user's last two ended jobs.

    The mean of the runtimes of the two jobs of the same user that ended last
    (rounded up to a whole second), capped by the job's estimate and at least
    1; the estimate while the user has fewer than two ended jobs.
    """

    name = "easy++"
    summary = ("mean runtime of the user's last two ended jobs, capped by the estimate; the "
               "estimate before two (Tsafrir et al. 2007)")

    def reset(self) -> None:
        #: user -> (runtime of the job before the last, runtime of the last); the first is
        #: -1 while the user has one ended job.
        self._last_two: dict[int, tuple[int, int]] = {}

    def predict_user(self, user: int, estimate: int) -> int:
        pair = self._last_two.get(user)
        if pair is None or pair[0] < 0:
            return estimate
        mean = (pair[0] + pair[1] + 1) // 2
        if mean < 1:
            return 1
        return estimate if mean > estimate else mean

    def observe_user(self, user: int, runtime: int) -> None:
        pair = self._last_two.get(user)
        self._last_two[user] = (-1 if pair is None else pair[1], runtime)


class LastPredictor(UserHistoryPredictor):
    """The runtime of the user's last ended job, capped by the estimate; the estimate
    before the user has one."""

    name = "last"
    summary = "runtime of the user's last ended job, capped by the estimate"

    def reset(self) -> None:
        self._last: dict[int, int] = {}

    def predict_user(self, user: int, estimate: int) -> int:
        last = self._last.get(user)
        return estimate if last is None else clamp(last, estimate)

    def observe_user(self, user: int, runtime: int) -> None:
        self._last[user] = runtime


class UserQuantile(UserHistoryPredictor):
    """A per-user running quantile: the ``q`` quantile of the runtimes of the user's last
    ``window`` ended jobs (nearest rank: the ``ceil(q n)``-th smallest of ``n``), capped
    by the estimate; the estimate while the user has fewer than ``min_jobs``."""

    name = "user-quantile"
    summary = ("q quantile of the runtimes of the user's last `window` ended jobs, capped by "
               "the estimate")
    param_specs: ClassVar[Mapping[str, Param]] = {
        "q": Param(0.5, float, "the quantile", low=0, high=1, open=True),
        "window": Param(20, int, "ended jobs of the user kept", low=1, high=100_000),
        "min_jobs": Param(2, int, "fewer ended jobs of the user: the estimate", low=1,
                          high=100_000, at_most="window"),
    }
    q: float
    window: int
    min_jobs: int

    def reset(self) -> None:
        #: user -> (runtimes in end order, the same runtimes sorted)
        self._history: dict[int, tuple[deque[int], list[int]]] = {}

    def predict_user(self, user: int, estimate: int) -> int:
        history = self._history.get(user)
        if history is None or len(history[1]) < self.min_jobs:
            return estimate
        ordered = history[1]
        rank = min(max(math.ceil(self.q * len(ordered)), 1), len(ordered))
        return clamp(ordered[rank - 1], estimate)

    def observe_user(self, user: int, runtime: int) -> None:
        history = self._history.get(user)
        if history is None:
            history = self._history[user] = (deque(), [])
        recent, ordered = history
        if len(recent) == self.window:
            del ordered[bisect_left(ordered, recent.popleft())]
        recent.append(runtime)
        insort(ordered, runtime)


#: knn's tie-breaker per position: far below any real difference of squared log2 distances.
_LATER = -1e-9
#: The columns of knn's window table: log2 width, log2 estimate, |point|^2, |point|^2 with
#: the tie-breaker of the row's position, user, runtime.
KNN_X, KNN_Y, KNN_NORM, KNN_NORM_LATER, KNN_USER, KNN_RUNTIME = range(6)


class NearestNeighbours(Predictor):
    """The mean runtime of the ``k`` ended jobs nearest to the query.

    Among the last ``window`` ended jobs, a past job's distance to the query
    is the squared Euclidean distance of their points (log2 width, log2
    estimate) plus ``user_weight`` if their users differ (or the past job's
    user is unknown; a query without a user is as far from every job); ties go
    to the job that ended later.  The prediction is the mean of the ``k``
    nearest runtimes (all of them while fewer have ended), rounded up, capped
    by the estimate; the estimate before any job has ended.  The search is
    one compiled call (:func:`schedlab.predictors.knn_kernel.nearest_total`).
    """

    name = "knn"
    summary = ("mean runtime of the k ended jobs nearest on user, log width and log estimate, "
               "capped by the estimate")
    param_specs: ClassVar[Mapping[str, Param]] = {
        "k": Param(5, int, "neighbours averaged", low=1, high=10_000, at_most="window"),
        "window": Param(128, int, "last ended jobs searched", low=1, high=1_000_000),
        "user_weight": Param(4.0, float, "squared distance between two users (a width or "
                             "estimate 4x apart is 4)", low=0),
    }
    k: int
    window: int
    user_weight: float

    def reset(self) -> None:
        # The last `window` ended jobs in end order, rows [lo, hi) of a table twice that
        # long (columns KNN_X ... KNN_RUNTIME): an observation writes row hi; when the table
        # is full the newest window - 1 rows move to the front (one copy every `window`
        # observations).  |point|^2 with the tie-breaker is |point|^2 less a little per row:
        # a later row counts for less than any real difference, so ties go to the job that
        # ended later.
        size = 2 * self.window
        self._table = np.empty((size, KNN_RUNTIME + 1))
        self._later = np.arange(size) * _LATER
        self._nearest: Callable[..., float] | None = None
        self._lo = self._hi = 0

    def predict(self, query: PredictionQuery) -> int:
        lo, hi = self._lo, self._hi
        if hi == lo:
            return query.estimate
        k = self.k
        if hi - lo > k:
            nearest = self._nearest
            if nearest is None:
                from schedlab.predictors.knn_kernel import nearest_total
                nearest = self._nearest = nearest_total
            # |p - q|^2 = |p|^2 - 2 p.q + |q|^2, the last the same for every job
            user = (float(query.user) if self.user_weight and query.user != UNKNOWN
                    else math.nan)
            total = nearest(self._table, lo, hi, -2 * math.log2(query.width),
                            -2 * math.log2(query.estimate), user, self.user_weight, k)
        else:
            k = hi - lo
            total = float(self._table[lo:hi, KNN_RUNTIME].sum())
        return clamp(math.ceil(total / k), query.estimate)

    def observe(self, ended: EndedJob) -> None:
        table = self._table
        hi = self._hi
        if hi == len(table):
            keep, lo = self.window - 1, hi - (self.window - 1)
            table[:keep] = table[lo:hi]
            table[:keep, KNN_NORM_LATER] = table[:keep, KNN_NORM] + self._later[:keep]
            self._lo, hi = 0, keep
        x = math.log2(max(ended.width, 1))
        y = math.log2(max(ended.estimate, 1))
        norm = x * x + y * y
        table[hi] = (x, y, norm, norm + hi * _LATER, ended.user, ended.runtime)
        self._hi = hi + 1
        if self._hi - self._lo > self.window:
            self._lo += 1


class Oracle(Predictor):
    """The real runtime, capped by the estimate: the upper bound, not a predictor.

    It looks ahead (``looks_ahead = True``): whoever drives it tells it the
    runtimes with :meth:`reveal` before asking; asking for a job it was not
    told about is an error.
    """

    name = "oracle"
    summary = "the real runtime capped by the estimate (looks ahead: the upper bound)"
    looks_ahead = True

    def reset(self) -> None:
        self._truth: dict[int, int] = {}

    def reveal(self, runtimes: Mapping[int, int]) -> None:
        """The separate channel of the truth: job id -> real runtime."""
        self._truth.update(runtimes)

    def predict(self, query: PredictionQuery) -> int:
        try:
            runtime = self._truth[query.id]
        except KeyError:
            raise RuntimeError(f"the oracle was not told the runtime of job {query.id}: call "
                               f"reveal() first") from None
        return clamp(runtime, query.estimate)


BUILTIN_PREDICTORS: tuple[type[Predictor], ...] = (
    EstimatePredictor, EasyPlusPlus, LastPredictor, UserQuantile, NearestNeighbours, Oracle)
