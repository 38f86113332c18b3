"""Confidence intervals of a mean over independent runs (seeds).

Seeds are independent replications of one setting, so the interval of their
mean is Student's t interval, mean ± t(0.975, n-1) · s / sqrt(n), with s the
sample standard deviation of the n values (NaN left out: a metric over no
jobs is missing, not 0).  One value gives no interval.  The summary of
``schedlab results``, the report's tables and the curves' bars all use it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

#: The confidence level of the intervals.
CONFIDENCE = 0.95


@lru_cache(maxsize=256)
def t_quantile(runs: int) -> float:
    """Student's t quantile for a two-sided :data:`CONFIDENCE` interval over ``runs`` runs."""
    from scipy.stats import t

    return float(t.ppf(0.5 + CONFIDENCE / 2, runs - 1))


def ci_half_width(values: Iterable[float]) -> float:
    """The half-width of the confidence interval of the mean of ``values`` (NaN left
    out); NaN with fewer than two values."""
    present = [float(v) for v in values if not math.isnan(float(v))]
    runs = len(present)
    if runs < 2:
        return math.nan
    mean = math.fsum(present) / runs
    deviation = math.sqrt(math.fsum((v - mean) ** 2 for v in present) / (runs - 1))
    return t_quantile(runs) * deviation / math.sqrt(runs)
