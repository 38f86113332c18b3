"""Per-job metrics: one value per job that ran, as numpy vectors.

Every function here takes an :class:`AcceptedJobs` (the columns of the jobs
that finished or were killed; rejected jobs never ran and have no times) and
returns a vector aligned with it.  Times are integer seconds; ratios are
float64.

Definitions (see docs/reference/metrics.md for the full list with sources):

* wait = start - submit, response = end - submit, run = end - start -
  suspended (the time the job really held its processors: shorter than the
  trace runtime when it was killed at its estimate, and without the time a
  gang scheduler kept it suspended) — Streit 2002, §5.1; Zhou et al., §4.
* slowdown = response / run (Zhou et al., §4: s_i = t_i^r / t_i^e), with
  both clamped below at the 1-second time resolution so that a job of run
  time 0 has a finite slowdown: max(response, 1) / max(run, 1).
* bounded slowdown = max(1, response / max(run, tau)) (Feitelson et al.
  1997).  It is equal to Streit's max(response, tau) / max(run, tau)
  (Streit 2002, §5.1) because response >= run >= 0.
* expansion factor = (wait + requested) / requested with the estimate as the
  requested wall-clock time (Margo et al., §4), the estimate clamped below at
  1 second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.engine.result import Result
from schedlab.errors import InputError

#: Time resolution of the simulation in seconds: the smallest run time or
#: estimate a ratio divides by.
TIME_RESOLUTION = 1

#: Metrics by name, as metrics.json holds them: a number, or None for a metric over no
#: jobs (docs/reference/metrics.md, "Empty groups").
Metrics = dict[str, float | int | None]


@dataclass(frozen=True, slots=True)
class AcceptedJobs:
    """Columns (int64) of the jobs that ran — finished or killed — in workload order.

    ``suspended`` is the time each job spent suspended between its start and
    its end (0 without gang scheduling).
    """

    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    width: np.ndarray
    estimate: np.ndarray
    suspended: np.ndarray

    def __len__(self) -> int:
        return len(self.submit)

    def subset(self, mask: np.ndarray) -> AcceptedJobs:
        """The jobs selected by a boolean mask aligned with these columns."""
        return AcceptedJobs(self.submit[mask], self.start[mask], self.end[mask],
                            self.width[mask], self.estimate[mask], self.suspended[mask])


def accepted_jobs(result: Result) -> AcceptedJobs:
    """Extract the jobs that ran from a result; rejected jobs are left out.

    The estimate is the one of the machine the job ran on: in a grid run the
    ``estimate`` column is measured at the job's own rating and the machine
    scales it (Pasquali thesis, eq. 3.9), so the expansion factor divides by
    ``Result.grid.machine_estimate`` — the same seconds as the job's run
    time ``end - start - suspended`` (docs/reference/metrics.md, "Grid runs").
    """
    keep = result.accepted
    suspended = (np.zeros(len(result), dtype=np.int64) if result.suspended is None
                 else np.asarray(result.suspended, dtype=np.int64))
    return AcceptedJobs(
        submit=np.asarray(result.submit, dtype=np.int64)[keep],
        start=np.asarray(result.start, dtype=np.int64)[keep],
        end=np.asarray(result.end, dtype=np.int64)[keep],
        width=np.asarray(result.width, dtype=np.int64)[keep],
        estimate=np.asarray(machine_estimates(result), dtype=np.int64)[keep],
        suspended=suspended[keep],
    )


def machine_estimates(result: Result) -> np.ndarray:
    """Every job's estimate in seconds on the machine it ran on: ``Result.estimate``,
    except in a grid run, where it is ``Result.grid.machine_estimate`` (eq. 3.9)."""
    grid = result.grid
    if grid is None or grid.machine_estimate is None:
        return result.estimate
    return grid.machine_estimate


def wait_time(jobs: AcceptedJobs) -> np.ndarray:
    """Queue wait: start - submit (Streit 2002, §5.1; Margo et al., §4)."""
    return jobs.start - jobs.submit


def response_time(jobs: AcceptedJobs) -> np.ndarray:
    """Response (turnaround) time: end - submit (Streit 2002, §5.1)."""
    return jobs.end - jobs.submit


def run_time(jobs: AcceptedJobs) -> np.ndarray:
    """Time the job held its processors: end - start - suspended.

    Streit 2002, §5.1 defines j.RunTime = j.EndTime - j.StartTime; under gang
    scheduling the time spent suspended is taken out, so that the run time is
    the service time t_i^e of Zhou et al., §4.
    """
    return jobs.end - jobs.start - jobs.suspended


def node_seconds(jobs: AcceptedJobs) -> np.ndarray:
    """Processor-seconds used: width x run time (Margo et al., §4, job_node_seconds)."""
    return jobs.width * run_time(jobs)


def slowdown(jobs: AcceptedJobs) -> np.ndarray:
    """Plain slowdown response / run (Zhou et al., §4), clamped at the time resolution.

    Both terms are floored at :data:`TIME_RESOLUTION` so that a job with run
    time 0 gets a finite value (1.0 when it did not wait, its wait in seconds
    otherwise); for run >= 1 s this is exactly response / run.
    """
    response = np.maximum(response_time(jobs), TIME_RESOLUTION)
    return response / np.maximum(run_time(jobs), TIME_RESOLUTION)


def bounded_slowdown(jobs: AcceptedJobs, tau: float) -> np.ndarray:
    """Bounded slowdown max(1, response / max(run, tau)) (Feitelson et al. 1997).

    Streit 2002, §5.1 writes the same quantity as
    max(response, tau) / max(run, tau); the two agree because
    response >= run.  ``tau`` is the bound in seconds (Streit uses 60 s and
    300 s, Feitelson et al. 10 s).
    """
    if not tau > 0:
        raise InputError(f"expected a bound in seconds > 0, got {tau!r}", field="tau")
    ratio = response_time(jobs) / np.maximum(run_time(jobs), tau)
    return np.maximum(ratio, 1.0)


def expansion_factor(jobs: AcceptedJobs) -> np.ndarray:
    """Expansion factor (wait + requested) / requested (Margo et al., §4).

    The requested wall-clock time is the job's estimate, floored at
    :data:`TIME_RESOLUTION` so that a missing (0) estimate does not divide by 0;
    in a grid run the estimate on the job's machine (:func:`accepted_jobs`), so
    that wait and estimate are seconds of the same machine.  It is never below
    1: the wait is >= 0.
    """
    requested = np.maximum(jobs.estimate, TIME_RESOLUTION)
    return (wait_time(jobs) + requested) / requested


def mean(values: np.ndarray) -> float | None:
    """Arithmetic mean of a per-job vector; ``None`` for an empty vector.

    A mean over no jobs is missing, not 0 (docs/reference/metrics.md, "Empty groups"):
    it becomes ``null`` in metrics.json, an empty CSV cell and ``—`` in
    tables, and is left out of means over runs.
    """
    return float(np.mean(values)) if len(values) else None


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> float | None:
    """Sum(weights x values) / sum(weights); ``None`` when the weights sum to 0.

    The form of Streit's ARTwW / SLDwW (weights = widths, Streit 2002, §5.1)
    and of Margo's eq. 2–3 (weights = node-seconds).  Weights summing to 0
    (no jobs, or jobs that held no processor-seconds) leave the mean
    undefined: missing, as :func:`mean` over no jobs.
    """
    weights = np.asarray(weights, dtype=np.float64)
    total = float(np.sum(weights))
    if total == 0.0:
        return None
    return float(np.sum(weights * values)) / total


def percent(part: int, whole: int) -> float | None:
    """100 x part / whole; ``None`` when ``whole`` is 0 (a share of no jobs is missing)."""
    return 100.0 * part / whole if whole else None


def requested_area(result: Result) -> np.ndarray:
    """Every job's requested processor-seconds: width x trace runtime (QoPS §5.1).

    A rejected job never ran, so this is all that is known of its size.  In a
    grid run the runtime is measured at the job's own rating (Pasquali thesis,
    eq. 3.9) and ratings differ from job to job: the area is then width x
    runtime x rating, processor-seconds at rating 1, the work
    ``cluster_work_share`` weighs by.
    """
    area = np.asarray(result.width, dtype=np.float64) * np.asarray(result.runtime)
    grid = result.grid
    return area if grid is None or grid.rating is None else area * grid.rating


def area_percent(area: np.ndarray, chosen: np.ndarray) -> float | None:
    """100 x the area of the ``chosen`` jobs / the area of all; ``None`` when it is 0."""
    total = float(np.sum(area))
    return 100.0 * float(np.sum(area[chosen])) / total if total else None


def largest(values: np.ndarray) -> int | None:
    """The largest value of an integer per-job vector; ``None`` for an empty vector."""
    return int(values.max()) if len(values) else None
