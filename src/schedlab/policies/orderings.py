"""Queue orderings: which waiting job comes first (SPEC §4.1).

An ordering is a key function over jobs; backfilling takes the ordering as an
argument, so "SJF with EASY" is a composition, not a class of its own.
Ties are broken by submit time and then by job id, so every ordering is total
and every run deterministic.

* ``fcfs`` — first come, first served: (submit, id).
* ``sjf`` — shortest job first by estimate: (estimate, submit, id).
* ``ljf`` — longest job first by estimate: (-estimate, submit, id).

Streit 2002, §2 defines FCFS, SJF and LJF on the users' estimates, which
is what a scheduler knows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from schedlab.workload.job import Job

OrderKey = Callable[[Job], tuple]


def fcfs_key(job: Job) -> tuple:
    return (job.submit, job.id)


def sjf_key(job: Job) -> tuple:
    return (job.estimate, job.submit, job.id)


def ljf_key(job: Job) -> tuple:
    return (-job.estimate, job.submit, job.id)


ORDERINGS: dict[str, OrderKey] = {"fcfs": fcfs_key, "sjf": sjf_key, "ljf": ljf_key}


def in_order(jobs: Iterable[Job], order: str) -> list[Job]:
    """The jobs as a new list in the named order.

    The waiting queue is kept in arrival order, which is already FCFS order,
    so ``fcfs`` needs no sort.
    """
    if order == "fcfs":
        return list(jobs)
    return sorted(jobs, key=ORDERINGS[order])


# Orderings that depend on the time of the pass (for the planning-based
# policies and dynP's candidate set, Streit 2002 §6 "more scheduling policies").

def lxf_key_at(now: int) -> OrderKey:
    """Largest expansion factor first at time ``now``: (-XF, submit, id).

    The expansion factor of a waiting job is ``(now - submit + estimate) /
    estimate``: what its slowdown would be if it started now, by the
    estimate a scheduler knows (Margo et al., expansion factor).  The order
    changes with time (a short job's factor grows fastest), so the key is
    built for one instant.  Equal factors are equal floats (one correctly
    rounded division of the same integers), so ties fall to submit, then id.
    """
    def lxf_key(job: Job) -> tuple:
        return (-(now - job.submit + job.estimate) / job.estimate, job.submit, job.id)
    return lxf_key


TIMED_ORDERINGS: dict[str, Callable[[int], OrderKey]] = {"lxf": lxf_key_at}


def in_order_at(jobs: Iterable[Job], order: str, now: int) -> list[Job]:
    """The jobs as a new list in the named order at time ``now``.

    Accepts every ordering: the static ones of :data:`ORDERINGS` (which
    ignore ``now``) and the time-dependent ones of :data:`TIMED_ORDERINGS`.
    """
    if order in TIMED_ORDERINGS:
        return sorted(jobs, key=TIMED_ORDERINGS[order](now))
    return in_order(jobs, order)
