"""Flexible Backfilling's priority order compiled (Pasquali thesis §3.2.1, P(i)).

:func:`candidates_order` gives, in one call over the queue, the order that
:meth:`~.flexible.FlexibleBackfilling.priority_terms` and a stable sort of
the negated row sums give with about twenty numpy calls, kept to the jobs a
pass can use (all of them, for the whole queue's order).  The operations on
each job's values are numpy's, in numpy's order (elementwise; the row sum
adds the four terms left to right, as ``sum(axis=1)`` does over four
columns), so the priorities are the same bits and the order is the same;
the two products of the licence term stay numpy's (BLAS orders its own
additions) and come in as arguments.  tests/grid/test_flexible.py compares
it with the numpy terms over random queues.

``cache=True`` keeps the machine code on disk and ``schedlab precompile``
compiles it ahead (one BF_MOD grid run).
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit


@njit(cache=True)
def candidates_order(now: int, at: np.ndarray, rows: np.ndarray, plain: np.ndarray,
                     heavy: np.ndarray, needs: np.ndarray, critical: np.ndarray,
                     age_factor: float, low: float, high: float, weight: float,
                     boost: float, width: np.ndarray, largest: int, blocked: np.ndarray,
                     skip: int) -> np.ndarray:
    """The jobs of the queue (workload positions ``at``, queue order) a pass can start or
    give the reservation to, in priority order, highest first, ties in queue order (a
    stable sort of :func:`priority_keys`; indices into ``at``): those
    that may start now -- no wider (``width``, the run's column) than the ``largest``
    room, needing no ``blocked`` licence (:meth:`GridContext.may_start`) -- and the
    first by priority of the others.  Index ``skip`` (the job BF_UNMOD puts first; -1:
    none) is left out.

    A job that may not start now stays so for the whole pass (starts only take CPUs and
    copies): of those, only the first in priority order matters, as the head when
    every job before it starts; the others are passed over.  The order of the jobs
    kept is their order in the whole queue: a stable sort of the same keys
    (:func:`priority_keys`) over fewer jobs.
    """
    key = priority_keys(now, at, rows, plain, heavy, needs, critical, age_factor, low, high,
                        weight, boost)
    n_licences = needs.shape[1]
    kept = np.empty(len(at) + 1, dtype=np.intp)
    count, first = 0, -1
    for q in range(len(at)):
        if q == skip:
            continue
        row = at[q]
        may = width[row] <= largest
        if may:
            for lic in range(n_licences):
                if blocked[lic] and needs[row, lic]:
                    may = False
                    break
        if may:
            kept[count] = q
            count += 1
        elif first < 0 or _before(key[q], key[first]):
            first = q
    if first >= 0:                      # in its place by queue index
        place = count
        while place > 0 and kept[place - 1] > first:
            kept[place] = kept[place - 1]
            place -= 1
        kept[place] = first
        count += 1
    chosen = kept[:count]
    order: np.ndarray = chosen[np.argsort(key[chosen], kind="mergesort")]
    return order


@njit(cache=True)
def _before(a: float, b: float) -> bool:
    """Whether key ``a`` sorts strictly before key ``b`` (NaN last, as argsort puts it)."""
    return a < b or (b != b and a == a)


@njit(cache=True, error_model="numpy")
def priority_keys(now: int, at: np.ndarray, rows: np.ndarray, plain: np.ndarray,
                  heavy: np.ndarray, needs: np.ndarray, critical: np.ndarray,
                  age_factor: float, low: float, high: float, weight: float,
                  boost: float) -> np.ndarray:
    """Minus the priority of each job of the queue (workload positions ``at``), the same
    bits as ``-terms.sum(axis=1)`` of :meth:`~.flexible.FlexibleBackfilling.priority_terms`.

    ``rows``: per job of the run, submit, estimate, deadline, the deadline line's
    threshold and span (:func:`~.flexible.deadline_line`) and the estimate at least 1
    (:class:`~.flexible._Static`); ``plain`` and ``heavy``: per queued job, the
    products of its licence needs with the pressures of its non-critical and
    critical licences (:func:`~.flexible.licence_sums`); ``needs``: the run's
    licence matrix; ``critical``: the licences of pressure above 1.  The terms are
    Anti-Aging, Deadline (Min ``low``, Max ``high``), Licence (W ``weight``) and
    Wait Minimization (``boost``), as :func:`~.flexible.anti_aging`,
    :func:`~.flexible.deadline_score`, :func:`~.flexible.licence_term` and
    :func:`~.flexible.wait_score` compute them.
    """
    n = len(at)
    shortest = np.inf
    for q in range(n):
        shortest = min(shortest, rows[at[q], 5])
    lift = boost * shortest
    rise = high - low
    heavy_licences = np.flatnonzero(critical)
    key = np.empty(n)
    for q in range(n):
        row = at[q]
        estimate, deadline, threshold = rows[row, 1], rows[row, 2], rows[row, 3]
        aging = (now - rows[row, 0]) * age_factor
        extime = now + estimate
        score = 0.0                           # past the deadline, or none (NaN)
        if extime <= deadline:
            score = low if extime <= threshold else \
                rise * (extime - threshold) / rows[row, 4] + low
        count = 0.0
        for lic in heavy_licences:
            if needs[row, lic]:
                count += 1.0
        licence = weight * (plain[q] + max(count, 1.0) * heavy[q])
        key[q] = -(((aging + score) + licence) + lift / rows[row, 5])
    return key
