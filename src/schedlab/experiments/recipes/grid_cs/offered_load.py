"""How much work a grid job stream offers its platform, and how much of it the licence copies
let run at once (Pasquali thesis §4.3.2, Table 7, Figs. 30–32).

Figs. 31–32 show CS keeping "almost the 97%" of the jobs within their
deadline on the ``thesis-4.3`` grid at Ta = 5.  Two numbers of a stream say
whether any local policy could:

* the **rating-weighted offered load**: the work the jobs bring, ``width x
  runtime x BM_job`` (rating-CPU-seconds: the runtime is measured at the
  job's own rating and a machine of rating ``BM_m`` runs it in ``runtime x
  BM_job / BM_m`` seconds, eq. 3.9), per second of the arrival span, over
  what the platform does per second, ``sum over machines of CPUs x BM_m``;
  and the part of it from the jobs with a deadline.  Above 1 the queues grow
  whatever the scheduler does;
* the **licence cap**: with the stream's licence mix, a licence needed by
  a share ``s_l`` of the jobs and with ``c_l`` floating copies in a cluster
  lets at most ``c_l / s_l`` jobs run there at once (our reading: a mean-field
  bound, the running jobs having the stream's mix); the smallest over the
  cluster's licences, times the mean job width, is the CPUs the copies let
  be busy, as a share of the platform's CPUs.

:func:`unit_readings` gives the load under other readings of the units the
thesis does not state, to name one that would make its figures consistent
with its own Table 7 (docs/background/reproductions/grid.md, "Figs. 30–32: the offered
load").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.metrics.grid import platform_capacity
from schedlab.platform import Platform
from schedlab.workload.grid import GridWorkload


@dataclass(frozen=True)
class OfferedLoad:
    """A job stream on a platform: ``load`` and ``deadline_load`` (the part from jobs with a
    deadline) are rating-weighted offered loads (1 = the whole platform busy);
    ``licence_cap`` is the share of the platform's CPUs the licence copies let be busy at
    once (``concurrent_jobs`` jobs of the stream's mean width)."""

    load: float
    deadline_load: float
    licence_cap: float
    concurrent_jobs: float


def _arrays(grid: GridWorkload) -> tuple[np.ndarray, ...]:
    jobs = grid.workload.jobs
    submit = np.array([job.submit for job in jobs], dtype=np.int64)
    width = np.array([job.width for job in jobs], dtype=np.float64)
    runtime = np.array([job.runtime for job in jobs], dtype=np.float64)
    deadline = np.array([job.deadline is not None for job in jobs], dtype=bool)
    return submit, width, runtime, deadline


def offered_load(grid: GridWorkload, platform: Platform, *, interarrival_unit: float = 1.0,
                 reference_rating: float | None = None) -> OfferedLoad:
    """The offered load of ``grid`` on ``platform`` and its licence cap (module doc).

    The arrival span is the last submission less the first, times
    ``interarrival_unit`` (seconds per unit of the submission times: 60
    reads the stream's Ta in minutes).  ``reference_rating``: the rating the
    runtimes are measured at, instead of each job's own (e.g. 100, the
    slowest machine).  A stream submitted at one instant offers an infinite
    load.
    """
    submit, width, runtime, deadline = _arrays(grid)
    rating = (np.asarray(grid.rating, dtype=np.float64) if reference_rating is None
              else np.full(len(submit), float(reference_rating)))
    work = width * runtime * rating
    capacity = platform_capacity(platform)
    span = float(submit.max() - submit.min()) * interarrival_unit if len(submit) else 0.0
    per_second = capacity * span
    load = float(work.sum()) / per_second if per_second > 0 else float("inf")
    deadline_load = float(work[deadline].sum()) / per_second if per_second > 0 \
        else float("inf")
    jobs = licence_concurrency(grid, platform)
    busy = np.minimum(jobs * width.mean(), [cluster.cpus for cluster in platform.clusters])
    return OfferedLoad(load=load, deadline_load=deadline_load,
                       licence_cap=float(busy.sum()) / platform.total_cpus,
                       concurrent_jobs=float(jobs.sum()))


def licence_concurrency(grid: GridWorkload, platform: Platform) -> np.ndarray:
    """Per cluster, the jobs of the stream's licence mix its floating copies let run at
    once: the smallest ``copies / share of jobs needing the licence`` over the licences
    the stream needs and the cluster has copies of (infinite when none binds)."""
    share = np.asarray(grid.needs, dtype=np.float64).mean(axis=0)
    index = {name: l for l, name in enumerate(platform.licence_names)}
    bound = np.full(len(platform.clusters), np.inf)
    for k, name in enumerate(grid.licence_names):
        if share[k] <= 0 or name not in index:
            continue
        copies = platform.copies[:, index[name]].astype(np.float64)
        has = copies > 0
        bound[has] = np.minimum(bound[has], copies[has] / share[k])
    return bound


#: The unit readings :func:`unit_readings` tries: name -> keyword arguments of
#: :func:`offered_load`.
READINGS: dict[str, dict[str, float]] = {
    "ours: Ta and Estimated in seconds, Estimated at the job's own rating": {},
    "Estimated at the slowest rating (100), not the job's": {"reference_rating": 100.0},
    "Ta in minutes, Estimated in seconds": {"interarrival_unit": 60.0},
}


def unit_readings(grid: GridWorkload, platform: Platform) -> list[dict[str, object]]:
    """Per reading of :data:`READINGS`: the loads, the licence cap, and whether the stream
    could then keep about all its jobs within their deadline: the whole offered load
    below the licence cap (a necessary condition, not a sufficient one)."""
    rows = []
    for name, kwargs in READINGS.items():
        found = offered_load(grid, platform, **kwargs)
        rows.append({"reading": name, "load": found.load, "deadline load": found.deadline_load,
                     "licence cap": found.licence_cap,
                     "fits under the cap": found.load <= found.licence_cap})
    return rows


__all__ = ["READINGS", "OfferedLoad", "licence_concurrency", "offered_load", "unit_readings"]
