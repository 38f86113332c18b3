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
from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from schedlab.errors import InputError
from schedlab.predictors.base import (
    UNKNOWN,
    EndedJob,
    Param,
    PredictionQuery,
    Predictor,
    clamp,
)


class EstimatePredictor(Predictor):
    """The user's estimate: what backfilling plans with today (the default)."""

    name = "estimate"
    summary = "the user's estimate: what backfilling uses without predictions (the default)"

    def predict(self, query: PredictionQuery) -> int:
        return query.estimate


class EasyPlusPlus(Predictor):
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

    def predict(self, query: PredictionQuery) -> int:
        pair = self._last_two.get(query.user)
        if pair is None or pair[0] < 0:
            return query.estimate
        mean = (pair[0] + pair[1] + 1) // 2
        estimate = query.estimate
        if mean < 1:
            return 1
        return estimate if mean > estimate else mean

    def observe(self, ended: EndedJob) -> None:
        user = ended.user
        if user == UNKNOWN:
            return
        pair = self._last_two.get(user)
        self._last_two[user] = (-1 if pair is None else pair[1], ended.runtime)


class LastPredictor(Predictor):
    """The runtime of the user's last ended job, capped by the estimate; the estimate
    before the user has one."""

    name = "last"
    summary = "runtime of the user's last ended job, capped by the estimate"

    def reset(self) -> None:
        self._last: dict[int, int] = {}

    def predict(self, query: PredictionQuery) -> int:
        last = self._last.get(query.user)
        return query.estimate if last is None else clamp(last, query.estimate)

    def observe(self, ended: EndedJob) -> None:
        if ended.user != UNKNOWN:
            self._last[ended.user] = ended.runtime


class UserQuantile(Predictor):
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
                          high=100_000),
    }
    q: float
    window: int
    min_jobs: int

    def check_together(self) -> None:
        if self.min_jobs > self.window:
            raise InputError(f"The 'min_jobs' parameter of predictor {self.name!r} must be at "
                             f"most its window ({self.window}). Got {self.min_jobs!r} instead.",
                             field="min_jobs")

    def reset(self) -> None:
        #: user -> (runtimes in end order, the same runtimes sorted)
        self._history: dict[int, tuple[deque[int], list[int]]] = {}

    def predict(self, query: PredictionQuery) -> int:
        history = self._history.get(query.user)
        if history is None or len(history[1]) < self.min_jobs:
            return query.estimate
        ordered = history[1]
        rank = min(max(math.ceil(self.q * len(ordered)), 1), len(ordered))
        return clamp(ordered[rank - 1], query.estimate)

    def observe(self, ended: EndedJob) -> None:
        if ended.user == UNKNOWN:
            return
        history = self._history.get(ended.user)
        if history is None:
            history = self._history[ended.user] = (deque(), [])
        recent, ordered = history
        if len(recent) == self.window:
            del ordered[bisect_left(ordered, recent.popleft())]
        recent.append(ended.runtime)
        insort(ordered, ended.runtime)


class NearestNeighbours(Predictor):
    """The mean runtime of the ``k`` ended jobs nearest to the query (numpy only).

    Among the last ``window`` ended jobs, the distance of a past job to the
    query is ``user_weight`` if their users differ (or either is unknown),
    plus ``|log2 width ratio|`` plus ``|log2 estimate ratio|``; ties go to the
    job that ended later.  The prediction is the mean of the ``k`` nearest
    runtimes (all of them while fewer have ended), rounded up, capped by the
    estimate; the estimate before any job has ended.
    """

    name = "knn"
    summary = ("mean runtime of the k ended jobs nearest on user, log width and log estimate, "
               "capped by the estimate")
    param_specs: ClassVar[Mapping[str, Param]] = {
        "k": Param(5, int, "neighbours averaged", low=1, high=10_000),
        "window": Param(1000, int, "last ended jobs searched", low=1, high=1_000_000),
        "user_weight": Param(2.0, float, "distance between two users (log2 units)", low=0),
    }
    k: int
    window: int
    user_weight: float

    def check_together(self) -> None:
        if self.k > self.window:
            raise InputError(f"The 'k' parameter of predictor {self.name!r} must be at most "
                             f"its window ({self.window}). Got {self.k!r} instead.", field="k")

    def reset(self) -> None:
        size = self.window
        self._user = np.full(size, UNKNOWN, dtype=np.int64)
        self._log_width = np.zeros(size)
        self._log_estimate = np.zeros(size)
        self._runtime = np.zeros(size)
        self._age = np.zeros(size)          # the order of observation, for ties
        self._seen = 0

    def predict(self, query: PredictionQuery) -> int:
        filled = min(self._seen, self.window)
        if filled == 0:
            return query.estimate
        distance = np.abs(self._log_width[:filled] - math.log2(query.width))
        distance += np.abs(self._log_estimate[:filled] - math.log2(query.estimate))
        if self.user_weight:
            other = self._user[:filled] != query.user
            if query.user == UNKNOWN:
                other[:] = True
            distance += self.user_weight * other
        # ties to the later job: its age counts for less than any real difference
        distance -= self._age[:filled] * 1e-12
        if filled > self.k:
            nearest = np.argpartition(distance, self.k - 1)[:self.k]
            mean = float(self._runtime[nearest].mean())
        else:
            mean = float(self._runtime[:filled].mean())
        return clamp(math.ceil(mean), query.estimate)

    def observe(self, ended: EndedJob) -> None:
        slot = self._seen % self.window
        self._user[slot] = ended.user
        self._log_width[slot] = math.log2(max(ended.width, 1))
        self._log_estimate[slot] = math.log2(max(ended.estimate, 1))
        self._runtime[slot] = ended.runtime
        self._age[slot] = self._seen
        self._seen += 1


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
