"""Per-class breakdowns: by job width (Margo et al.) and by run time (Streit).

Width classes follow Margo et al., §6 (Graphs 10–13): small = 1 node,
medium = 2–64 nodes, large = 65–256 nodes; a fourth class > 256 holds the
jobs of machines larger than DataStar.  A node of the paper is a processor
of our space-shared model (the job's width).

Run-time classes follow Streit 2002, §5.2: <= 5 min, <= 10 min, <= 1 h,
<= 12 h and > 12 h of *actual* run time (end - start; the converted text
reads ">= 12h" for the last class, taken as "> 12 h" so the classes do not
overlap).

Only jobs that ran are classified (a rejected job has no run time).  Every
class gives: jobs, avg_wait, avg_response, avg_bsld_60, wait_weighted and
expansion_factor_weighted (Margo eq. 2–3); an empty class has 0 jobs and
every other value missing (``None``: docs/reference/metrics.md, "Empty groups") — a
class no job fell into has no mean wait, not a wait of 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import inf

import numpy as np

from schedlab.engine.result import Result
from schedlab.metrics.jobs import (
    AcceptedJobs,
    accepted_jobs,
    bounded_slowdown,
    expansion_factor,
    mean,
    node_seconds,
    response_time,
    run_time,
    wait_time,
    weighted_mean,
)


@dataclass(frozen=True, slots=True)
class JobClass:
    """A class of jobs: those whose key value v satisfies lower < v <= upper."""

    name: str
    label: str
    lower: float
    upper: float

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the values inside this class."""
        return (values > self.lower) & (values <= self.upper)


#: Margo et al., §6: small / medium / large, plus the jobs wider than 256.
WIDTH_CLASSES = (
    JobClass("width_1", "1", 0, 1),
    JobClass("width_2_64", "2-64", 1, 64),
    JobClass("width_65_256", "65-256", 64, 256),
    JobClass("width_gt_256", ">256", 256, inf),
)

#: Streit 2002, §5.2: classes of actual run time in seconds.
RUNTIME_CLASSES = (
    JobClass("runtime_le_5m", "<=5m", -inf, 300),
    JobClass("runtime_le_10m", "<=10m", 300, 600),
    JobClass("runtime_le_1h", "<=1h", 600, 3600),
    JobClass("runtime_le_12h", "<=12h", 3600, 43200),
    JobClass("runtime_gt_12h", ">12h", 43200, inf),
)

#: Column order of :meth:`ClassStats.row` and of :func:`breakdown_table`.
TABLE_COLUMNS = ("class", "jobs", "avg_wait", "avg_response", "avg_bsld_60",
                 "wait_weighted", "expansion_factor_weighted")


@dataclass(frozen=True, slots=True)
class ClassStats:
    """The metrics of one class of jobs."""

    job_class: JobClass
    jobs: int
    avg_wait: float | None
    avg_response: float | None
    avg_bsld_60: float | None
    wait_weighted: float | None
    expansion_factor_weighted: float | None

    def flat(self) -> dict[str, float | int | None]:
        """Flat metrics.json names, e.g. ``width_2_64.avg_wait``."""
        prefix = self.job_class.name
        return {f"{prefix}.{column}": value
                for column, value in zip(TABLE_COLUMNS[1:], self.row()[1:])}

    def row(self) -> tuple[str, int, float | None, float | None, float | None, float | None,
                           float | None]:
        """One table row in :data:`TABLE_COLUMNS` order, the class label first."""
        return (self.job_class.label, self.jobs, self.avg_wait, self.avg_response,
                self.avg_bsld_60, self.wait_weighted, self.expansion_factor_weighted)


def class_stats(jobs: AcceptedJobs, job_class: JobClass) -> ClassStats:
    """Metrics of the jobs of one class (``jobs`` already restricted to it)."""
    weights = node_seconds(jobs)
    return ClassStats(
        job_class=job_class,
        jobs=len(jobs),
        avg_wait=mean(wait_time(jobs)),
        avg_response=mean(response_time(jobs)),
        avg_bsld_60=mean(bounded_slowdown(jobs, 60)),
        wait_weighted=weighted_mean(wait_time(jobs), weights),
        expansion_factor_weighted=weighted_mean(expansion_factor(jobs), weights),
    )


def breakdown(jobs: AcceptedJobs, keys: np.ndarray,
              job_classes: tuple[JobClass, ...]) -> list[ClassStats]:
    """Split jobs by a per-job key into the given classes and measure each."""
    return [class_stats(jobs.subset(job_class.contains(keys)), job_class)
            for job_class in job_classes]


def breakdown_by_width(result: Result) -> list[ClassStats]:
    """Metrics per width class 1 / 2–64 / 65–256 / >256 (Margo et al., §6)."""
    jobs = accepted_jobs(result)
    return breakdown(jobs, jobs.width, WIDTH_CLASSES)


def breakdown_by_runtime(result: Result) -> list[ClassStats]:
    """Metrics per actual run-time class <=5m / <=10m / <=1h / <=12h / >12h (Streit 2002, §5.2)."""
    jobs = accepted_jobs(result)
    return breakdown(jobs, run_time(jobs), RUNTIME_CLASSES)


def flat_breakdowns(result: Result) -> dict[str, float | int | None]:
    """Both breakdowns under flat names (``width_1.jobs``, ``runtime_le_1h.avg_wait`` …)."""
    flat: dict[str, float | int | None] = {}
    for stats in breakdown_by_width(result) + breakdown_by_runtime(result):
        flat.update(stats.flat())
    return flat


def breakdown_table(stats: list[ClassStats]) -> tuple[tuple[str, ...], list[tuple]]:
    """Header and rows of a breakdown, unformatted, for a terminal table."""
    return TABLE_COLUMNS, [entry.row() for entry in stats]
