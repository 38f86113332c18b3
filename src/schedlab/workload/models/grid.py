"""The grid workload generator of Pasquali's thesis, and the enrichment of real traces.

Thesis ch. 4: jobs arrive with exponential interarrival times of mean
``Ta`` ("a negative exponential distribution"); every job attribute is
drawn "according to a uniform distribution in the ranges" of Tables 1, 4,
6, 7 and 13; 30 % of the jobs have no deadline (§4.2, §4.3.1); the others
have ``deadline = submit + estimate + margin`` (the Margin of §3.1.1,
Fig. 9).  :class:`JobSettings` holds the ranges, :data:`PRESETS` those of
each experiment (the platform side is :mod:`schedlab.platform.generator`,
same preset names), :data:`THESIS_RUNS` the job counts and ``Ta`` values.

:func:`generate_grid` draws a whole job stream; :func:`enrich_workload`
gives the jobs of any workload (an SWF trace) the grid attributes by the
same rules, keeping their submit times, runtimes, estimates and widths.
Our readings where the thesis is silent (docs/reference/models.md):

* times are integer seconds; job ``k`` (0-based) is submitted at
  ``floor(sum of the first k gaps)``, so the first job arrives at 0; ``Ta = 0``
  submits every job at 0 (§4.3: "all jobs are submitted at the same time");
* the runtime equals the estimate (the thesis gives only "Estimated");
  ``runtime_ratio = (lo, hi)`` draws ``runtime = ceil(estimate x U(lo, hi))``;
* each licence of the platform is needed independently with probability
  ``licence_need`` ("the probability that a job needs a licence");
* exactly ``round(no_deadline x n)`` jobs, chosen at random, have no deadline;
* ``margin_schedule`` (the job streams of §5.1.5, Tables 10-12, are
  :data:`MARGIN_SCHEDULES`): successive sub-streams of ``jobs`` jobs with
  margins uniform in ``[lo, hi]``, taken in turn and started again from the
  first when a stream is longer than the schedule; it replaces ``margin``;
* user class uniform over Regular, Silver, Gold unless ``classes`` weights
  say otherwise; owner priority uniform in 0..3;
* a job's CPUs are drawn from ``cpus`` capped at the largest machine, and a
  licence set that no machine with enough CPUs can activate is drawn again
  (the thesis' jobs all run); the number of redraws is reported;
* enriching a trace: a job wider than every machine is skipped and counted
  under ``wider than any machine`` (like the SWF reader's skips).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from schedlab.errors import InputError
from schedlab.limits import MAX_TIME, TIME_BOUND, check_jobs
from schedlab.platform.generator import check_range
from schedlab.platform.model import Platform
from schedlab.workload.grid import OWNER_PRIORITIES, USER_CLASSES, GridWorkload, runnable
from schedlab.workload.job import Job, Workload
from schedlab.workload.transforms import NAME_SEPARATOR

#: Skip reason of :func:`enrich_workload` for a job no machine has the CPUs for.
TOO_WIDE = "wider than any machine"
#: Attempts at a runnable licence set per job before giving up.
MAX_REDRAWS = 1000


@dataclass(frozen=True)
class JobSettings:
    """Ranges job attributes are drawn from (closed intervals, uniform; times in seconds)."""

    estimate: tuple[int, int] = (500, 3000)
    rating: tuple[int, int] = (100, 500)
    margin: tuple[int, int] = (30, 250)
    cpus: tuple[int, int] = (1, 8)
    licence_need: float = 0.3
    no_deadline: float = 0.3
    input_size: tuple[int, int] = (0, 0)
    runtime_ratio: tuple[float, float] = (1.0, 1.0)
    classes: tuple[float, float, float] = (1.0, 1.0, 1.0)
    #: (jobs, lo, hi) sub-streams of margins in turn (§5.1.5); empty: ``margin`` for all.
    margin_schedule: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        check_range(self.estimate, "estimate", low=1, integer=True)
        check_range(self.rating, "rating", low=1, integer=True)
        check_range(self.margin, "margin", low=0, integer=True)
        check_range(self.cpus, "cpus", low=1, integer=True)
        check_range(self.input_size, "input_size", low=0, integer=True)
        check_range(self.runtime_ratio, "runtime_ratio", low=0)
        for name in ("licence_need", "no_deadline"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0 <= value <= 1:
                raise InputError(f"expected a probability in [0, 1], got {value!r}", field=name)
        for segment in self.margin_schedule:
            if len(segment) != 3 or segment[0] < 1:
                raise InputError(f"expected sub-streams (jobs >= 1, lo, hi), got {segment!r}",
                                 field="margin_schedule")
            check_range(tuple(segment[1:]), "margin_schedule", low=0, integer=True)
        if len(self.classes) != len(USER_CLASSES) or any(w < 0 for w in self.classes) \
                or sum(self.classes) <= 0:
            raise InputError(f"expected three weights >= 0 (regular, silver, gold), not all 0, "
                             f"got {self.classes!r}", field="classes")


@dataclass(frozen=True)
class ThesisRun:
    """Jobs per stream and the mean interarrival times ``Ta`` of an experiment."""

    jobs: int
    interarrivals: tuple[float, ...] = field(default_factory=tuple)


#: The job settings of each experiment of the thesis.
PRESETS: dict[str, JobSettings] = {
    "thesis-4.1": JobSettings((500, 3000), (100, 500), (30, 250), (1, 8), 0.3),
    "thesis-4.2": JobSettings((500, 3000), (200, 600), (25, 150), (1, 8), 0.2,
                              input_size=(100, 800)),
    "thesis-4.2-mkp": JobSettings((500, 3000), (200, 600), (25, 150), (1, 8), 0.2,
                                  input_size=(100, 800)),
    "thesis-4.3": JobSettings((8000, 10000), (100, 500), (1500, 5500), (1, 8), 0.3),
    "thesis-5.2": JobSettings((500, 3000), (200, 600), (25, 150), (1, 8), 0.0),
}
#: Job counts and interarrival means of each experiment (§4.1, §4.2, §4.3, §5.2.3).
THESIS_RUNS: dict[str, ThesisRun] = {
    "thesis-4.1": ThesisRun(1000, (4, 6, 12, 24, 48)),
    "thesis-4.2": ThesisRun(1500, (10,)),
    "thesis-4.2-mkp": ThesisRun(1000, (10,)),
    "thesis-4.3": ThesisRun(5000, (0, 5, 10, 15)),
    "thesis-5.2": ThesisRun(3000, (5,)),
}
DEFAULT_PRESET = "thesis-4.3"
#: The margin streams of §5.1.5 (``margin_schedule`` values): Tables 10, 11 and 12.
MARGIN_SCHEDULES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "adh-uniform": ((2000, 0, 200),),
    "adh-changing": ((400, 2000, 4000), (550, 0, 200), (350, 2000, 4000), (700, 100, 200)),
    "adh-hotspots": ((500, 3000, 4000), (500, 100, 200), (500, 500, 700), (500, 100, 200)),
}


def preset(name: str, **changes) -> JobSettings:
    """The job settings of preset ``name`` with some fields changed."""
    if name not in PRESETS:
        raise InputError(f"unknown grid workload preset {name!r}; expected one of: "
                         f"{', '.join(PRESETS)}", field="preset")
    try:
        return replace(PRESETS[name], **changes)
    except TypeError:
        known = ", ".join(JobSettings.__dataclass_fields__)
        raise InputError(f"unknown job setting among {sorted(changes)}; expected: {known}",
                         field="settings") from None


#: The largest mean span of the submissions, ``ta x jobs``: 2**48 s, so that the drawn span
#: (exponential gaps) stays within MAX_TIME = 2**53 s with room to spare.
MAX_MEAN_SPAN = 2**48


def check_interarrival(interarrival: float, n_jobs: int) -> float:
    """A mean interarrival time: finite, >= 0, and ``interarrival x n_jobs`` at most
    :data:`MAX_MEAN_SPAN` (a larger one made submit times beyond int64: garbage)."""
    if not interarrival >= 0 or interarrival == float("inf"):
        raise InputError(f"expected a mean interarrival time >= 0, got {interarrival!r}",
                         field="ta")
    if interarrival * n_jobs > MAX_MEAN_SPAN:
        raise InputError(f"expected a mean interarrival time x jobs of at most 2**48 s, so "
                         f"that submit times stay within 2**53 s, got {interarrival:g} x "
                         f"{n_jobs}", field="ta")
    return interarrival


def generate_grid(platform: Platform, settings: JobSettings, n_jobs: int,
                  interarrival: float, seed: int = 0, *, name: str | None = None) -> GridWorkload:
    """``n_jobs`` jobs arriving with mean interarrival ``interarrival`` s, for ``platform``.

    Rules in the module docstring; the same arguments give the same jobs.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise InputError(f"expected a number of jobs >= 1, got {n_jobs!r}", field="jobs")
    check_jobs(n_jobs, field="jobs")
    check_interarrival(interarrival, n_jobs)
    arrivals, sizes, attributes = (np.random.default_rng(s)
                                   for s in np.random.SeedSequence(seed).spawn(3))
    gaps = arrivals.exponential(interarrival, n_jobs - 1) if interarrival > 0 \
        else np.zeros(n_jobs - 1)
    if gaps.sum() > MAX_TIME:       # a drawn span far above the mean (ta x jobs <= 2**48)
        raise InputError(f"the submissions drawn span {gaps.sum():.0f} s; expected at most "
                         f"{TIME_BOUND}", field="ta")
    submit = np.floor(np.concatenate(([0.0], np.cumsum(gaps)))).astype(np.int64)
    estimate = sizes.integers(settings.estimate[0], settings.estimate[1], n_jobs, endpoint=True)
    runtime = _runtimes(estimate, settings.runtime_ratio, sizes)
    top = min(settings.cpus[1], platform.max_cpus)
    width = sizes.integers(min(settings.cpus[0], top), top, n_jobs, endpoint=True)
    jobs = tuple(Job(k + 1, s, r, e, w) for k, (s, r, e, w) in
                 enumerate(zip(submit.tolist(), runtime.tolist(), estimate.tolist(),
                               width.tolist())))
    label = name or f"grid-ta{interarrival:g}-seed{seed}"
    workload = Workload(jobs, processors=platform.total_cpus, name=label,
                        header={"Note": f"schedlab grid generator (Pasquali thesis ch. 4), "
                                        f"Ta={interarrival:g}, seed={seed}"})
    return _with_attributes(workload, platform, settings, attributes)


def enrich_workload(workload: Workload, platform: Platform, settings: JobSettings,
                    seed: int = 0) -> GridWorkload:
    """Give the jobs of ``workload`` licences, deadlines, ratings, classes (module rules).

    Submit times, runtimes, estimates and widths stay; deadlines are
    ``submit + estimate + margin`` (overwriting any the jobs had); jobs wider
    than every machine of ``platform`` are skipped and counted.  The estimate
    and runtime of a trace were measured on its own machine: the drawn
    ``rating`` says how powerful that machine is taken to be.
    """
    fits = [job for job in workload.jobs if job.width <= platform.max_cpus]
    skipped = dict(workload.skipped)
    if len(fits) < len(workload):
        skipped[TOO_WIDE] = skipped.get(TOO_WIDE, 0) + len(workload) - len(fits)
    base = workload.with_jobs(fits, skipped=skipped,
                              name=f"{workload.name}{NAME_SEPARATOR}grid-seed{seed}")
    return _with_attributes(base, platform, settings, np.random.default_rng(seed))


def _runtimes(estimate: np.ndarray, ratio: tuple[float, float],
              rng: np.random.Generator) -> np.ndarray:
    if ratio[0] == ratio[1] == 1:
        return estimate.copy()
    return np.ceil(estimate * rng.uniform(ratio[0], ratio[1], len(estimate))).astype(np.int64)


def _with_attributes(workload: Workload, platform: Platform, settings: JobSettings,
                     rng: np.random.Generator) -> GridWorkload:
    """Draw every grid attribute of the workload's jobs (order of draws is fixed)."""
    n = len(workload)
    rating = rng.integers(settings.rating[0], settings.rating[1], n, endpoint=True)
    low, high = margin_ranges(settings, n)
    margin = rng.integers(low, high, n, endpoint=True)
    without = np.zeros(n, dtype=bool)
    without[rng.permutation(n)[:int(np.floor(settings.no_deadline * n + 0.5))]] = True
    weights = np.asarray(settings.classes, dtype=float)
    user_class = rng.choice(len(USER_CLASSES), n, p=weights / weights.sum())
    owner = rng.integers(OWNER_PRIORITIES[0], OWNER_PRIORITIES[-1], n, endpoint=True)
    size = rng.integers(settings.input_size[0], settings.input_size[1], n, endpoint=True)
    needs, redraws = _licence_needs(workload, platform, settings.licence_need, rng)
    jobs = [job._replace(deadline=None if no else job.submit + job.estimate + int(m),
                         artificial_deadline=False)
            for job, no, m in zip(workload.jobs, without.tolist(), margin.tolist())]
    header = dict(workload.header)
    if redraws:
        header["GridLicenceRedraws"] = str(redraws)
    grid = GridWorkload(workload.with_jobs(jobs, header=header), platform.licence_names, needs,
                        rating, user_class, owner, size)
    return grid


def margin_ranges(settings: JobSettings, n: int) -> tuple[int | np.ndarray, int | np.ndarray]:
    """The margin range of each of ``n`` jobs: ``settings.margin`` for all, or the ranges of
    ``settings.margin_schedule`` sub-stream after sub-stream, in a cycle (§5.1.5)."""
    if not settings.margin_schedule:
        return settings.margin
    counts = np.array([jobs for jobs, _, _ in settings.margin_schedule])
    segment = np.searchsorted(np.cumsum(counts), np.arange(n) % counts.sum(), side="right")
    ranges = np.array([(lo, hi) for _, lo, hi in settings.margin_schedule])[segment]
    return ranges[:, 0], ranges[:, 1]


def _licence_needs(workload: Workload, platform: Platform, probability: float,
                   rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Each licence needed with ``probability``; rows no machine can serve drawn again."""
    n, count = len(workload), len(platform.licence_names)
    needs = rng.random((n, count)) < probability
    redraws = 0
    for _ in range(MAX_REDRAWS):
        probe = GridWorkload(workload, platform.licence_names, needs, np.ones(n, np.int64),
                             np.zeros(n, np.int8), np.zeros(n, np.int8), np.zeros(n, np.int64))
        bad = np.flatnonzero(~runnable(probe, platform))
        if not bad.size:
            return needs, redraws
        redraws += bad.size
        needs = needs.copy()
        needs[bad] = rng.random((bad.size, count)) < probability
    job = workload.jobs[int(bad[0])]
    raise InputError(f"after {MAX_REDRAWS} draws, job {job.id} ({job.width} CPUs) still needs "
                     f"a licence set no machine of platform {platform.name!r} can activate; "
                     f"lower licence_need or use a platform with more suitable machines",
                     field="licence_need")
