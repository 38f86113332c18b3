"""The compiled (numba) search of ``knn``: the ``k`` nearest of a window of ended jobs.

:class:`~schedlab.predictors.builtin.NearestNeighbours` keeps its window as
rows of one float table (columns ``KNN_X`` ... ``KNN_RUNTIME``); :func:`nearest_total` measures
every row's distance to the query and sums the runtimes of the ``k``
nearest in one crossing into compiled code, where numpy took about eight
calls per prediction (bench/PREDICTORS.md).  It computes each distance as
numpy did, ``(x qx + y qy + norm_later) - user_weight``, and keeps the ``k``
smallest (the tie-breaker in ``norm_later`` leaves no two equal).

This module imports numba, so it is imported only when a ``knn`` predictor
first predicts; ``cache=True`` keeps the machine code on disk and
``schedlab precompile`` compiles it ahead.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit
from schedlab.predictors.builtin import KNN_NORM_LATER, KNN_RUNTIME, KNN_USER, KNN_X, KNN_Y


@njit(cache=True, nogil=True)
def nearest_total(table: np.ndarray, lo: int, hi: int, qx: float, qy: float, user: float,
                  user_weight: float, k: int) -> float:
    """The sum of the runtimes of the ``k`` rows of ``table[lo:hi]`` (``hi - lo > k``)
    nearest to the query point ``(qx, qy)`` (each -2 log2 of the query's width and
    estimate: the distance less the query's own |q|^2), ``user_weight`` nearer when
    their user is ``user`` (pass a user no row has for none)."""
    best = np.empty(k)                 # the k smallest distances so far, ascending
    runtime = np.empty(k)
    filled = 0
    for row in range(lo, hi):
        distance = (table[row, KNN_X] * qx + table[row, KNN_Y] * qy
                    + table[row, KNN_NORM_LATER])
        if table[row, KNN_USER] == user:
            distance -= user_weight
        if filled == k and distance >= best[k - 1]:
            continue
        slot = filled if filled < k else k - 1
        while slot > 0 and best[slot - 1] > distance:
            best[slot] = best[slot - 1]
            runtime[slot] = runtime[slot - 1]
            slot -= 1
        best[slot] = distance
        runtime[slot] = table[row, KNN_RUNTIME]
        if filled < k:
            filled += 1
    total = 0.0
    for slot in range(k):
        total += runtime[slot]
    return total
