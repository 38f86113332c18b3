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

from typing import Callable, Iterable

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
