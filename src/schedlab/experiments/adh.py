"""The experiment of Pasquali's thesis §5.1.5: the static Deadline heuristic against ADH.

The thesis classifies job streams whose margins change over time (Tables
10-12: the margin schedules ``adh-uniform``, ``adh-changing``, ``adh-hotspots``
of :data:`schedlab.workload.models.grid.MARGIN_SCHEDULES`) with the Deadline heuristic alone, five
priorities, and compares the priority distribution with the exponential
target of eq. 3.2 (Figs. 34-38).  :func:`run_adh_experiment` does that, and
also schedules each stream on a grid (the meta-scheduler with Deadline as
its only heuristic, BF_FCFS ordered by priority in each cluster) to count
the deadlines missed over time, which the thesis does not measure.

Per stream and classifier it reports:

* the classification alone (:func:`~schedlab.policies.grid.adaptive.
  replay_classification`, jobs in submission order): ``base`` and the
  distance of the last ``repository`` priorities from the target, per job;
  their mean once the repository is full; the distance of the whole
  stream's priority histogram from the target; the reconfigurations;
* the grid run: deadlines missed in all, and per block of ``block`` jobs in
  submission order.

It is a piece the grid reproduction (``grid-cs``) calls; it can run alone
(docs/reference/policies/grid.md, "Self-optimizing Deadline classifier (ADH)").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.grid.adaptive import (
    AdaptiveDeadline,
    exponential_target,
    priority_distribution,
    replay_classification,
)

#: The job streams of Tables 10, 11 and 12.
STREAMS = ("adh-uniform", "adh-changing", "adh-hotspots")
CLASSIFIERS = ("static", "adaptive")
#: Five priority classes (§5.1.5: "the possible priority values ... are in [0, 4]"; ours 1..5).
MAX_PRIORITY = 5
#: The platform the streams are scheduled on (our choice: the thesis' multi-cluster one).
PLATFORM = "thesis-4.3"
#: The local policy of every cluster.
LOCAL_POLICY = {"name": "bf-fcfs", "order": "priority"}
#: Jobs per block of the deadline misses over time.
BLOCK = 200
#: The job attributes besides the margins (the thesis gives only these): thesis-4.1's, every
#: job with a deadline, a job every 12 s on average (our choices).
JOB_PRESET = "thesis-4.1"
INTERARRIVAL = 12.0


@dataclass(frozen=True)
class ADHRun:
    """One classifier on one stream: the trajectory and the summary numbers."""

    stream: str
    classifier: str
    margin: np.ndarray           # per classified job, in submission order
    base: np.ndarray             # base used for each job
    distance: np.ndarray         # distance of the repository before each job (NaN: empty)
    mean_distance: float         # mean of ``distance`` once the repository is full
    histogram_distance: float    # distance of the whole stream's priorities from the target
    reconfigurations: int
    deadline_missed: int         # in the grid run
    missed_per_block: np.ndarray  # deadlines missed per block of BLOCK jobs (submission order)

    def row(self) -> dict[str, object]:
        """The summary as a table row."""
        return {"stream": self.stream, "classifier": self.classifier,
                "mean_distance": round(self.mean_distance, 4),
                "histogram_distance": round(self.histogram_distance, 4),
                "reconfigurations": self.reconfigurations,
                "final_base": round(float(self.base[-1]), 4),
                "deadline_missed": self.deadline_missed}


def stream_settings(stream: str, jobs: int | None):
    """The job settings of a stream, its sub-streams scaled to ``jobs`` in all (Tables 10-12
    keep their proportions; at least one job each)."""
    from schedlab.workload.models.grid import MARGIN_SCHEDULES, preset

    settings = preset(JOB_PRESET, no_deadline=0.0, margin_schedule=MARGIN_SCHEDULES[stream])
    total = sum(count for count, _, _ in settings.margin_schedule)
    if jobs is None or jobs == total:
        return settings, total
    schedule = tuple((max(1, round(count * jobs / total)), lo, hi)
                     for count, lo, hi in settings.margin_schedule)
    return replace(settings, margin_schedule=schedule), sum(c for c, _, _ in schedule)


def classifier(kind: str, window: int, delta: float, repository: int,
               base_step: float) -> AdaptiveDeadline:
    """ADH, or the static heuristic under the same observation (``reconfigure=False``)."""
    return AdaptiveDeadline(MAX_PRIORITY, window, delta=delta, repository=repository,
                            base_step=base_step, reconfigure=kind == "adaptive")


def run_adh_experiment(out: str | Path | None = None, *, streams=STREAMS, jobs: int | None = None,
                       ta: float | None = None, seed: int = 0, window: int = 100,
                       delta: float = 0.1, repository: int = 100,
                       base_step: float = 1.0) -> list[ADHRun]:
    """Static Deadline against ADH on the streams of §5.1.5 (module docstring).

    ``jobs`` shrinks (or stretches) each stream keeping its sub-streams'
    proportions; ``ta`` is the mean interarrival time (default 12 s); the
    platform ``thesis-4.3`` is drawn with ``seed``.  With ``out``,
    writes ``out/adh.csv`` (one row per run) and the figure
    ``out/adh-trajectory.png`` (:func:`schedlab.viz.adh.adh_figure`).
    """
    from schedlab.api import load_platform, simulate_grid
    from schedlab.workload.models.grid import generate_grid

    unknown = [s for s in streams if s not in STREAMS]
    if unknown:
        raise InputError(f"unknown ADH stream {unknown[0]!r}; expected some of "
                         f"{', '.join(STREAMS)}", field="streams")
    platform, _ = load_platform(PLATFORM, seed=seed)
    runs = []
    for stream in streams:
        settings, count = stream_settings(stream, jobs)
        interarrival = INTERARRIVAL if ta is None else ta
        grid = generate_grid(platform, settings, count, interarrival, seed, name=stream)
        with_deadline = [j for j in grid.workload.jobs if j.deadline is not None]
        margins = [j.deadline - j.estimate - j.submit for j in grid.workload.jobs
                   if j.deadline is not None]
        for kind in CLASSIFIERS:
            observed = classifier(kind, window, delta, repository, base_step)
            priorities = replay_classification(margins, [j.estimate for j in with_deadline],
                                               observed)
            result = simulate_grid(grid, LOCAL_POLICY, platform=platform, seed=seed, dispatch={
                "name": "ms-heuristics", "max_priority": MAX_PRIORITY, "window": window,
                "w_licence": 0, "w_user": 0, "deadline": kind, "delta": delta,
                "repository": repository, "base_step": base_step})
            runs.append(_summary(stream, kind, np.array(margins), observed, priorities,
                                 repository, result))
    if out is not None:
        write_outputs(runs, Path(out))
    return runs


def deadline_misses_per_block(result, block: int = BLOCK) -> np.ndarray:
    """Deadlines missed (ended after the deadline, or never ran) per block of ``block`` jobs
    in submission order."""
    deadline = np.asarray(result.deadline)
    order = np.argsort(result.submit, kind="stable")
    missed = ((deadline >= 0) & ((result.end < 0) | (result.end > deadline)))[order]
    blocks = -(-len(missed) // block)
    return np.array([int(missed[k * block:(k + 1) * block].sum()) for k in range(blocks)])


def _summary(stream: str, kind: str, margins: np.ndarray, observed: AdaptiveDeadline,
             priorities: list[int], repository: int, result) -> ADHRun:
    distance = np.array(observed.trajectory["distance"], dtype=float)
    target = exponential_target(MAX_PRIORITY)
    histogram = priority_distribution(priorities, MAX_PRIORITY)
    per_block = deadline_misses_per_block(result)
    return ADHRun(stream, kind, margins, np.array(observed.trajectory["base"]), distance,
                  float(np.nanmean(distance[repository:])) if len(distance) > repository
                  else float("nan"),
                  float(np.linalg.norm(histogram - target)), observed.reconfigurations,
                  int(per_block.sum()), per_block)


def write_outputs(runs: list[ADHRun], out: Path) -> None:
    """``adh.csv`` (one row per run) and ``adh-trajectory.png``."""
    import csv

    from schedlab.viz.adh import adh_figure
    from schedlab.viz.style import save_figure

    out.mkdir(parents=True, exist_ok=True)
    rows = [run.row() for run in runs]
    with open(out / "adh.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    save_figure(adh_figure(runs), out / "adh-trajectory.png")
