"""User runtime estimates: the Tsafrir-Etsion-Feitelson model.

D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling User Runtime
Estimates", JSSPP 2005, LNCS 3834, pp. 1-35.  Real users pick their
requested times from a small set of round values ("5 minutes", "1 hour",
the site's maximum), and the maximal allowed estimate is the most popular
of all.  The model, in its autonomous mode (given only the number of jobs
and the maximal estimate), works in two steps:

1. **The estimate histogram.**  The number of distinct estimate values grows
   with the number of jobs.  The 20 most popular values (the *head*) are
   the maximum, the round values common to all four traces the authors
   studied, and round multiples below the maximum; their popularity decays
   exponentially with popularity rank, and the pairing of time order with
   popularity order follows the four traces.  The remaining values (the
   *tail*) are spread below the maximum by a hyperbolic time model and get
   power-law popularities summing to 11% of the jobs.
2. **The assignment.**  Taking jobs from the longest runtime down, each job
   receives an estimate drawn uniformly from the still unassigned estimates
   that are at least its runtime, so estimates are never below runtimes.

Every constant and rule is that of the authors' reference implementation
distributed with the paper (``est_model.hh`` / ``est_model.cc``, D. Tsafrir);
each is named at its definition.  The random choices are the same kind of
choice made with a numpy Generator, so the distribution is the model's while
the random stream is not the reference's.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.errors import InputError

MINUTE = 60
HOUR = 3600

#: Maximal estimate the built-in workloads use: 48 hours.  The model takes it
#: as the site's limit; 48 h is the smallest whole number of days above the
#: longest runtime the Lublin-Feitelson model can produce (e^12 s ~ 45.2 h),
#: so no job there runs past its estimate.  This is schedlab's choice, not a
#: published constant.
DEFAULT_MAX_ESTIMATE = 48 * HOUR

#: Number of estimate values in the head of the histogram (``TOP``).
HEAD_SIZE = 20
#: Percent of all jobs whose estimate is a head value (``binsiz_head_sum``).
HEAD_PERCENT = 89.0
#: Head popularity ``size(r) = a * exp(b * r) + c`` percent for popularity
#: ranks r = 2..20 (``binsiz_head_params``); rank 1 gets what is left of 89%.
HEAD_SIZE_A, HEAD_SIZE_B, HEAD_SIZE_C = 14.0491, -0.177531, 0.462513
#: Tail popularity ``size(r) = a * r ** b`` for ranks r >= 21, scaled to
#: 100 - 89 = 11% (``binsiz_tail_params``).
TAIL_SIZE_A, TAIL_SIZE_B = 795.6, -2.267
#: Tail times ``y = (a - 1) x / (a - x)`` with ``a = 1 + p * K ** q``, K the
#: number of estimate values (``bintim_param`` default in ``est_gen_dist``).
TAIL_TIME_P, TAIL_TIME_Q = 12.1039, -0.6026
#: Offsets (s) tried in turn when a tail time collides with another value
#: (``OFFSET`` in ``gen_tail_bintim``).
TAIL_TIME_OFFSETS = (0, 30, -30, 20, -20, 10, -10)

#: The 15 round estimates found in the top 20 of all four traces
#: (``EST_JOINT``).
JOINT_ESTIMATES = (5 * MINUTE, 15 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE,
                   1 * HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR, 5 * HOUR, 6 * HOUR,
                   8 * HOUR, 10 * HOUR, 12 * HOUR, 18 * HOUR)
#: Round units whose multiples below the maximum complete the head, tried in
#: this order (``EST_ROUND``).
ROUND_UNITS = (200 * HOUR, 100 * HOUR, 50 * HOUR, 10 * HOUR, 5 * HOUR, 2 * HOUR,
               1 * HOUR, 20 * MINUTE, 10 * MINUTE, 5 * MINUTE)

#: Number of distinct estimate values as a piecewise-linear function of the
#: number of jobs, through these (jobs, values) points; constant beyond the
#: last (``BINUM_LINEAR``, the default "linear model").
BIN_COUNT_POINTS = ((0, 0), (20, 10), (200, 20), (1_000, 35), (10_000, 90),
                    (70_000, 340), (250_000, 565))

#: Popularity rank (1 = most popular) of the estimate with time rank t
#: (row t; row 0 is the maximal estimate, rows 1..19 the other head values in
#: increasing time) in the traces SDSC SP2, CTC SP2, KTH SP2 and SDSC Blue
#: (columns) - ``TIMRNK_TO_POPRNK``.
TIME_RANK_TO_POPULARITY_RANK = np.array([
    [3, 1, 1, 1], [1, 3, 4, 6], [4, 4, 10, 5], [17, 2, 14, 3], [13, 12, 20, 7],
    [7, 9, 2, 2], [8, 8, 3, 18], [18, 18, 7, 19], [2, 6, 12, 4], [6, 7, 6, 11],
    [16, 11, 19, 20], [10, 20, 5, 9], [5, 16, 18, 10], [15, 5, 16, 14], [14, 14, 9, 13],
    [19, 13, 17, 16], [11, 10, 15, 15], [12, 15, 13, 17], [9, 17, 8, 8], [20, 19, 11, 12],
])

#: The model needs a maximal estimate of at least one hour
#: (``gen_head_bintim``); schedlab asks for two, which guarantees 20
#: distinct head values (there are at least 24 multiples of 5 minutes).
MIN_MAX_ESTIMATE = 2 * HOUR


def add_estimates(runtimes: np.ndarray, rng: np.random.Generator, *,
                  max_estimate: int = DEFAULT_MAX_ESTIMATE) -> np.ndarray:
    """User estimates (int seconds, 1..max_estimate) for jobs with these runtimes.

    Generates the model's estimate histogram for ``len(runtimes)`` jobs and
    assigns it (:func:`assign_estimates`).  A job whose runtime exceeds
    ``max_estimate`` gets ``max_estimate``, as at a site whose limit it hits
    (the reference truncates such runtimes to the maximum before assigning);
    every other job gets an estimate >= its runtime.
    """
    runtimes = np.asarray(runtimes, dtype=np.int64)
    if runtimes.size == 0:
        return np.zeros(0, dtype=np.int64)
    times, counts = estimate_histogram(runtimes.size, max_estimate, rng)
    return assign_estimates(runtimes, times, counts, rng)


def estimate_histogram(n_jobs: int, max_estimate: int,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The model's estimate values (ascending seconds) and how many jobs use each.

    The counts add up to ``n_jobs`` exactly (``est_gen_dist``): percentages
    become ``max(1, round(percent * n / 100))`` jobs and the rounding error is
    then removed by :func:`equalize_counts`.  A value may end with 0 jobs when
    there are fewer jobs than values.
    """
    _check_max_estimate(max_estimate)
    n_values = estimate_value_count(n_jobs)
    head_times, head_percent = head_histogram(max_estimate, rng)
    tail_times = tail_estimate_times(max_estimate, n_values - HEAD_SIZE, set(head_times.tolist()))
    tail_percent = rng.permutation(tail_percentages(len(tail_times)))
    times = np.concatenate((head_times, tail_times))
    percent = np.concatenate((head_percent, tail_percent))
    order = np.argsort(times)
    times, percent = times[order], percent[order]
    counts = np.maximum(1, np.floor(percent * n_jobs / 100.0 + 0.5)).astype(np.int64)
    return times, equalize_counts(times, counts, n_jobs)


def _check_max_estimate(max_estimate: int) -> None:
    """The model needs a limit of at least two hours (see ``MIN_MAX_ESTIMATE``)."""
    if isinstance(max_estimate, bool) or not isinstance(max_estimate, (int, np.integer)) \
            or max_estimate < MIN_MAX_ESTIMATE:
        raise InputError(f"expected an integer number of seconds >= {MIN_MAX_ESTIMATE}, "
                         f"got {max_estimate!r}", field="max_estimate")


def estimate_value_count(n_jobs: int) -> int:
    """How many distinct estimate values ``n_jobs`` jobs use (``get_binnum``, linear model).

    Piecewise-linear through ``BIN_COUNT_POINTS``, rounded half up, and
    constant past 250,000 jobs: 90 values for 10,000 jobs.
    """
    jobs, values = zip(*BIN_COUNT_POINTS)
    return math.floor(float(np.interp(n_jobs, jobs, values)) + 0.5)


# --- head: the 20 most popular values ---------------------------------------------------


def head_histogram(max_estimate: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The 20 head values (index 0 the maximum, then ascending) and their percentages.

    The value of time rank ``t`` gets the popularity of the rank drawn for
    it by :func:`popularity_ranks` (``gen_head_map``).
    """
    times = head_estimate_times(max_estimate)
    sizes = head_percentages()
    ranks = popularity_ranks(rng)
    return times, sizes[ranks - 1]


def head_estimate_times(max_estimate: int) -> np.ndarray:
    """The head values: the maximum, joint round values below it, then round multiples.

    After the maximum and the ``JOINT_ESTIMATES`` below it, multiples of each
    ``ROUND_UNITS`` unit are taken downwards from the maximum until there are
    20 distinct values (``gen_head_bintim``).  Returned with the maximum
    first and the rest ascending.
    """
    chosen = [max_estimate] + [t for t in JOINT_ESTIMATES if t < max_estimate]
    for unit in ROUND_UNITS:
        value = (max_estimate // unit) * unit
        while value > 0 and len(chosen) < HEAD_SIZE:
            if value not in chosen:
                chosen.append(value)
            value -= unit
    return np.array([chosen[0]] + sorted(chosen[1:HEAD_SIZE]), dtype=np.int64)


def head_percentages() -> np.ndarray:
    """Percent of jobs at popularity ranks 1..20 (``gen_head_binsiz``).

    Ranks 2..20 follow ``a * exp(b * r) + c``; rank 1 takes the rest of the
    89% (21.73%).
    """
    ranks = np.arange(2, HEAD_SIZE + 1)
    rest = HEAD_SIZE_A * np.exp(HEAD_SIZE_B * ranks) + HEAD_SIZE_C
    return np.concatenate(([HEAD_PERCENT - rest.sum()], rest))


def popularity_ranks(rng: np.random.Generator) -> np.ndarray:
    """Draw the popularity rank of each head value by time rank (``gen_head_timrnk_poprnk_map``).

    Time rank 0 (the maximum) is always rank 1.  For later time ranks: the
    ranks seen so far in ``TIME_RANK_TO_POPULARITY_RANK`` form a pool (with
    repetition across traces); a rank that no trace places at a later time
    rank is due and the most popular due rank is taken; otherwise two pool
    entries are drawn and the more popular kept ("favour small").
    """
    table = TIME_RANK_TO_POPULARITY_RANK
    last_time_rank = {int(rank): int(t) for t in range(HEAD_SIZE) for rank in table[t]}
    chosen: list[int] = []
    pool: list[int] = []
    for t in range(HEAD_SIZE):
        pool.extend(int(rank) for rank in table[t] if rank not in chosen)
        due = [r for r in range(1, HEAD_SIZE + 1) if last_time_rank[r] <= t and r not in chosen]
        if t == 0:
            rank = 1
        elif due:
            rank = due[0]
        else:
            picks = rng.integers(len(pool), size=2)
            rank = min(pool[picks[0]], pool[picks[1]])
        chosen.append(rank)
        pool = [r for r in pool if r != rank]
    return np.array(chosen, dtype=np.int64)


# --- tail: the less popular values ------------------------------------------------------


def tail_estimate_times(max_estimate: int, n_values: int, taken: set[int]) -> np.ndarray:
    """Up to ``n_values`` tail values below the maximum, ascending (``gen_tail_bintim``).

    Value ``i`` of ``n`` is ``y * max_estimate`` rounded to whole minutes, with
    ``x = i / n`` and ``y = (a - 1) x / (a - x)``, ``a = 1 + 12.1039 * K **
    -0.6026`` (K = head + tail values); a value that collides with one
    already taken, or is not strictly between 0 and the maximum, is moved by
    the first of the ``TAIL_TIME_OFFSETS`` that frees it, or dropped.
    """
    if n_values <= 0:
        return np.zeros(0, dtype=np.int64)
    a = 1.0 + TAIL_TIME_P * (n_values + HEAD_SIZE) ** TAIL_TIME_Q
    used = set(taken)
    times = []
    for i in range(1, n_values + 1):
        x = i / n_values
        seconds = math.floor((a - 1.0) * x / (a - x) * max_estimate / MINUTE + 0.5) * MINUTE
        for offset in TAIL_TIME_OFFSETS:
            candidate = seconds + offset
            if 0 < candidate < max_estimate and candidate not in used:
                used.add(candidate)
                times.append(candidate)
                break
    return np.array(sorted(times), dtype=np.int64)


def tail_percentages(n_values: int) -> np.ndarray:
    """Percent of jobs for tail ranks 21.., power law scaled to sum to 11% (``gen_tail_binsiz``)."""
    if n_values <= 0:
        return np.zeros(0)
    sizes = TAIL_SIZE_A * np.arange(HEAD_SIZE + 1, HEAD_SIZE + 1 + n_values, dtype=float) \
        ** TAIL_SIZE_B
    return sizes * (100.0 - HEAD_PERCENT) / sizes.sum()


# --- from percentages to job counts -----------------------------------------------------


def equalize_counts(times: np.ndarray, counts: np.ndarray, n_jobs: int) -> np.ndarray:
    """Make the counts add up to ``n_jobs`` (``adjust_njobs``).

    Passes over the values from the most used down, until the difference is
    gone: first each count changes in proportion to its size (rounded up),
    then by one, then (when removing jobs) counts drop to one, then to zero.
    Counts stay >= 1 in every pass but the last.
    """
    counts = counts.copy()
    total = int(counts.sum())
    diff = abs(n_jobs - total)
    sign = 1 if n_jobs > total else -1
    proportion = diff / total
    passes = ("proportional", "one", "to_one", "to_zero")
    for step in passes:
        if diff == 0:
            break
        order = sorted(range(len(counts)), key=lambda k: (-counts[k], times[k]))
        for k in order:
            current = int(counts[k])
            if current == 0:
                continue
            change = {"proportional": math.ceil(proportion * current), "one": 1,
                      "to_one": current - 1, "to_zero": current}[step]
            if sign < 0:
                change = min(change, current)
                if change == current and step != "to_zero":
                    change -= 1
            change = min(change, diff)
            counts[k] += sign * change
            diff -= change
            if diff == 0:
                break
    return counts


# --- assignment -------------------------------------------------------------------------


def assign_estimates(runtimes: np.ndarray, times: np.ndarray, counts: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """Give each job one estimate of the histogram, never below its runtime (``est_assign``).

    Runtimes above the largest estimate count as that estimate.  Going from
    the longest runtime down, each job draws uniformly among the unassigned
    estimates that are at least its runtime.  Raises InputError when the
    histogram cannot cover the runtimes (too many long jobs for the maximal
    estimate), as the reference does.
    """
    runtimes = np.asarray(runtimes, dtype=np.int64)
    ascending = np.repeat(times, counts)
    capped = np.minimum(runtimes, ascending[-1])
    order = np.argsort(-capped, kind="stable")
    eligible = len(ascending) - np.searchsorted(ascending, capped[order], side="left")
    if np.any(eligible < np.arange(1, len(order) + 1)):
        raise InputError(f"the estimate model cannot cover these runtimes: too many jobs run "
                         f"close to the maximal estimate {int(ascending[-1])} s; use a larger one",
                         field="max_estimate")
    descending = ascending[::-1].tolist()
    draws = rng.random(len(order)).tolist()
    pool: list[int] = []
    added = 0
    assigned = np.empty(len(order), dtype=np.int64)
    for job, limit, u in zip(order.tolist(), eligible.tolist(), draws):
        pool.extend(descending[added:limit])
        added = limit
        pick = int(u * len(pool))
        assigned[job] = pool[pick]
        pool[pick] = pool[-1]
        pool.pop()
    return assigned
