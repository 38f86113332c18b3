"""The grid runs of the grid recipes (``grid-fb``, ``grid-cs``): run points, stored and resumed.

A grid run needs a platform, which the sweep does not describe, so a grid
recipe simulates its points here, in the calling process, and stores each
finished one as ``EXP_DIR/runs/RUN_ID.json`` (written atomically).  Running
the recipe again skips what is stored, as a sweep does; points go
repetition by repetition, so a run stopped early leaves complete
repetitions, which the summary can already use.  Work that is not one
simulation (the knapsack instances of the thesis' Table 5, the ADH
experiment) is stored the same way by :func:`execute_stored`.

A recipe is a list of :class:`Section`; each names its points.  A point is
one simulation (:class:`Point`), identified by what it simulates
(:attr:`Point.run_id`), so two sections asking for the same simulation
share it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import InputError

#: A policy's or a dispatcher's parameters: ``(("incremental", False), ...)``.
Params = tuple[tuple[str, Any], ...]
#: The metrics kept for every run (docs/metrics.md, "Grid runs"), besides those of
#: :func:`machine_usage` and :func:`jobs_in_system`.
METRICS = ("deadline_missed_pct", "system_usage", "licence_usage", "avg_slowdown",
           "nondeadline_avg_slowdown", "deadline_jobs")
RUNS_DIR = "runs"
#: Bins of the stored jobs-in-system series (the thesis' Fig. 19).
WORKLOAD_BINS = 40


def spelled(name: str, params: Params) -> str:
    """``cs.incremental=false``: a name and its parameters, file-name safe."""
    return name + "".join(f".{key}={_spelled_value(value)}" for key, value in params)


def _spelled_value(value: Any) -> str:
    """A parameter value as the CLI writes it: ``true``/``false`` for booleans."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Point:
    """One simulation: ``jobs`` jobs with mean inter-arrival ``ta`` on a platform of
    ``preset`` with licence ratio ``ratio``, both drawn with seed ``rep``, scheduled by
    ``policy`` with ``params`` (and ``dispatch`` with ``dispatch_params`` on a platform of
    several clusters; the run's seed is ``rep`` too).  ``label`` names it in the tables;
    it is not part of what is simulated."""

    preset: str
    ta: float
    ratio: tuple[float, float]
    rep: int
    policy: str
    jobs: int
    allocation: str = "exclusive"
    dispatch: str | None = None
    params: Params = ()
    dispatch_params: Params = ()
    label: str = ""

    @property
    def run_id(self) -> str:
        """A file-name-safe name of exactly what is simulated."""
        where = f"-{spelled(self.dispatch, self.dispatch_params)}" if self.dispatch else ""
        return (f"{self.preset}-n{self.jobs}-ta{self.ta:g}-ratio{self.ratio[0]:g}-"
                f"{self.ratio[1]:g}-{self.allocation}-rep{self.rep}-"
                f"{spelled(self.policy, self.params)}{where}")

    @property
    def ratio_label(self) -> str:
        """``30% - 50%``, as the thesis' tables write a licence ratio."""
        return f"{self.ratio[0] * 100:.0f}% - {self.ratio[1] * 100:.0f}%"

    def policy_spec(self) -> str | dict[str, Any]:
        """The local policy as :func:`schedlab.simulate` takes it."""
        return {"name": self.policy, **dict(self.params)} if self.params else self.policy

    def dispatch_spec(self) -> str | dict[str, Any] | None:
        """The dispatcher as :func:`schedlab.simulate` takes it (None: none)."""
        if self.dispatch is None or not self.dispatch_params:
            return self.dispatch
        return {"name": self.dispatch, **dict(self.dispatch_params)}


@dataclass(frozen=True)
class Section:
    """A part of the thesis' evaluation: a name, what it reproduces, its run points."""

    name: str
    title: str
    points: Callable[[bool], list[Point]]


def distinct_points(sections: Iterable[Section], reduced: bool) -> list[Point]:
    """Every distinct run point of every section, in section order."""
    seen: dict[str, Point] = {}
    for section in sections:
        for point in section.points(reduced):
            seen.setdefault(point.run_id, point)
    return list(seen.values())


def running_jobs(result) -> np.ndarray:
    """Jobs running at each instant of ``result.series_time`` (started, not yet ended)."""
    ran = result.start >= 0
    starts, ends = np.sort(result.start[ran]), np.sort(result.end[ran])
    times = result.series_time
    return (np.searchsorted(starts, times, side="right")
            - np.searchsorted(ends, times, side="right"))


def machine_runs(result) -> np.ndarray:
    """Every run of every job as ``(machine, start, end)`` rows: ``result.grid.runs`` (each
    run on the machine it ran on, the runs cut by a preemption included), or for a result
    without them one run per job from its start to its end on its machine.

    A job preempted or migrated has several runs; its first start, last end and last
    machine alone would put it on its last machine from its first start, and leave the
    machine it left idle meanwhile (thesis §4.2, Fig. 22, for the preemptive versions)."""
    runs = getattr(result.grid, "runs", None)
    if runs is None:
        rows = np.column_stack((result.grid.machine, result.start, result.end))
    else:
        rows = np.asarray(runs, dtype=np.int64).reshape(-1, 5)[:, 1:4]
    return rows[(rows[:, 0] >= 0) & (rows[:, 1] >= 0) & (rows[:, 2] > rows[:, 1])]


def active_machines(result) -> np.ndarray:
    """Machines running at least one job at each instant of ``result.series_time``, from
    every run of every job (:func:`machine_runs`)."""
    rows = machine_runs(result)
    if len(rows) == 0:
        return np.zeros(len(result.series_time), dtype=np.int64)
    machine = rows[:, 0]
    # Events (time, +1 start / -1 end, machine); at one instant ends come before starts.
    times = np.concatenate((rows[:, 1], rows[:, 2]))
    steps = np.concatenate((np.ones(len(rows), np.int64), -np.ones(len(rows), np.int64)))
    machines = np.concatenate((machine, machine))
    order = np.lexsort((steps, times))
    per_machine = [0] * (int(machine.max()) + 1)
    active, count = np.empty(len(order), dtype=np.int64), 0
    for k, (step, where) in enumerate(zip(steps[order].tolist(), machines[order].tolist())):
        before = per_machine[where]
        per_machine[where] = before + step
        count += int(before == 0 and step > 0) - int(before + step == 0 and step < 0)
        active[k] = count
    index = np.searchsorted(times[order], result.series_time, side="right") - 1
    return np.where(index >= 0, active[np.maximum(index, 0)], 0)


def jobs_in_system(result) -> np.ndarray:
    """Jobs waiting or running at each instant of ``result.series_time``: the thesis'
    "system workload" (§4.2, Fig. 19)."""
    return np.asarray(result.series_queue) + running_jobs(result)


def machine_usage(result, window: tuple[int, int]) -> float:
    """Machine usage (thesis §4.2, Fig. 22): the time average over ``window`` of
    active machines / min(machines, jobs in the system), where jobs are in the system."""
    from schedlab.metrics.grid import usage_average

    machines = len(result.grid.machine_names)
    bound = np.minimum(machines, jobs_in_system(result))
    return usage_average(result.series_time, active_machines(result), bound, *window)


def workload_profile(result, window: tuple[int, int], bins: int = WORKLOAD_BINS) -> list[float]:
    """The mean jobs in the system over ``bins`` equal parts of ``window`` (Fig. 19)."""
    from schedlab.metrics.series import bin_means

    t0, t1 = window
    if t1 <= t0:
        return []
    _, means = bin_means(result.series_time, jobs_in_system(result), (t1 - t0) / bins, t0, t1)
    return [round(float(v), 3) for v in means[:bins]]


def nested_by_cluster(metrics: dict[str, float],
                      names: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """Per-cluster metrics ``{"cluster_work_share.c1": 0.4, ...}`` nested as
    ``{"cluster_work_share": {"c1": 0.4, ...}, ...}``: those of ``names`` (each present,
    empty when the run has none), or every ``<metric>.<cluster>`` when ``names`` is None."""
    nested: dict[str, dict[str, float]] = {name: {} for name in names or ()}
    for key, value in metrics.items():
        name, dot, cluster = key.partition(".")
        if dot and (names is None or name in nested):
            nested.setdefault(name, {})[cluster] = _number(value)
    return nested


def _number(value) -> float:
    """A metric as stored: a float, NaN for one that is undefined (None)."""
    return float("nan") if value is None else float(value)


#: The local policy's operation counts kept per scheduling event (``cs``'s matchings;
#: thesis Figs. 23–24 in operations, docs/policies/convergent.md).
MATCHING_WORK = ("matching_augmenting_paths", "matching_entries_touched")


def matching_work_per_event(result) -> dict[str, float]:
    """``{"<count>_per_event": ...}`` for each of :data:`MATCHING_WORK` the run's local
    policy counted, over the run's scheduling events (submissions and job ends); empty for
    a policy that counts none."""
    events = result.meta["scheduling_events"]
    return {f"{name}_per_event": float(result.stats[name]) / events if events else 0.0
            for name in MATCHING_WORK if name in result.stats}


def scheduling_time_per_event_us(result) -> float:
    """The policy's wall-clock time per scheduling event [µs], less the time a policy spent
    counting its own work (``matching_count_seconds``: ``cs count_work=true`` solving each
    MFS again to count it), which is not part of scheduling."""
    events = result.meta["scheduling_events"]
    counting = float(result.stats.get("matching_count_seconds", 0.0))
    if not events:
        return 0.0
    return max(0.0, float(result.meta["scheduling_time_s"]) - counting) * 1e6 / events


def draw_point(point: Point):
    """The point's platform and job stream, both drawn with seed = repetition."""
    from schedlab.platform.generator import generate_platform
    from schedlab.platform.generator import preset as platform_preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(platform_preset(point.preset, ratio=point.ratio),
                                 seed=point.rep)
    grid = generate_grid(platform, PRESETS[point.preset], n_jobs=point.jobs,
                         interarrival=point.ta, seed=point.rep)
    return platform, grid


def simulate_point(point: Point, label: str | None = None) -> dict[str, Any]:
    """Draw the point's platform and jobs (seed = repetition) and simulate; its metrics
    (:data:`METRICS`, machine usage, jobs in the system, scheduling time, each cluster's
    share of the work and of the machines; with a dispatcher also
    :func:`~schedlab.metrics.grid.cluster_metrics`, each per cluster as
    ``{metric: {cluster: value}}``), labelled ``label`` (default: the point's label, else
    its policy)."""
    import schedlab
    from schedlab.metrics.grid import cluster_metrics
    from schedlab.metrics.series import time_weighted_mean

    platform, grid = draw_point(point)
    dispatch = point.dispatch_spec()
    result = schedlab.simulate(grid, point.policy_spec(), platform=platform,
                               allocation=point.allocation, seed=point.rep,
                               **({"dispatch": dispatch} if dispatch else {}))
    metrics = schedlab.compute_metrics(result)
    clusters = nested_by_cluster(metrics, ("cluster_work_share", "cluster_share_optimum"))
    if dispatch:
        clusters.update(nested_by_cluster(cluster_metrics(result, platform)))
    window = (int(result.submit.min()), int(max(result.end.max(), result.submit.max())))
    return {"run_id": point.run_id, "preset": point.preset, "ta": point.ta,
            "ratio": point.ratio_label, "rep": point.rep, "policy": point.policy,
            "params": spelled(point.policy, point.params),
            "label": label or point.label or point.policy, "jobs": point.jobs,
            "dispatch": spelled(point.dispatch, point.dispatch_params) if point.dispatch else "",
            **{name: _number(metrics[name]) for name in METRICS},
            "machine_usage": machine_usage(result, window),
            "mean_jobs_in_system": time_weighted_mean(result.series_time,
                                                      jobs_in_system(result), *window),
            "workload_profile": workload_profile(result, window),
            **clusters,
            **matching_work_per_event(result),
            "scheduling_time_per_event_us": scheduling_time_per_event_us(result),
            "wall_time_s": float(result.meta["wall_time_s"]),
            "reservation_holders": int(result.stats.get("reservation_holders", 0))}


def execute_stored(folder: Path, work: Sequence[tuple[str, Callable[[], dict[str, Any]]]],
                   progress: Callable[[int, int], None] | None = None) -> int:
    """Compute every ``(key, compute)`` of ``work`` whose ``folder/KEY.json`` is missing, in
    order, storing each result as it comes; returns how many were computed.  A result
    stored meanwhile (by another process on the same folder) is not computed again."""
    from schedlab.output import atomic_write_text

    folder.mkdir(parents=True, exist_ok=True)
    todo = [(key, compute) for key, compute in work if not (folder / f"{key}.json").is_file()]
    computed = 0
    for done, (key, compute) in enumerate(todo, 1):
        if not (folder / f"{key}.json").is_file():
            atomic_write_text(folder / f"{key}.json", json.dumps(compute(), indent=1) + "\n")
            computed += 1
        if progress is not None:
            progress(done, len(todo))
    return computed


def repetition_round(points: Sequence[Point]) -> dict[str, int]:
    """Run id -> the rank of the point's repetition among those of its platform preset
    (0 for the first), so that every section's first repetition runs before any second
    one, whatever its seeds."""
    reps: dict[str, list[int]] = {}
    for point in points:
        reps.setdefault(point.preset, []).append(point.rep)
    rank = {preset: {rep: k for k, rep in enumerate(sorted(set(found)))}
            for preset, found in reps.items()}
    return {point.run_id: rank[point.preset][point.rep] for point in points}


def execute_points(exp_dir: str | Path, points: Sequence[Point],
                   label: Callable[[Point], str] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> int:
    """Simulate every point not stored yet in ``exp_dir/runs/``, repetition by repetition
    (a stopped run leaves whole ones; :func:`repetition_round`); returns how many ran.
    ``label`` names a point in the tables (default: its label, else its policy)."""
    rounds = repetition_round(points)
    ordered = sorted(points, key=lambda p: rounds[p.run_id])
    work = [(p.run_id, lambda p=p: simulate_point(p, label(p) if label else None))
            for p in ordered]
    return execute_stored(Path(exp_dir) / RUNS_DIR, work, progress)


def read_stored(folder: Path, wanted: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """The stored results of ``folder`` (only the keys ``wanted`` if given), by key, in
    file-name order."""
    keys = None if wanted is None else set(wanted)
    return {path.stem: _stored_result(path) for path in sorted(folder.glob("*.json"))
            if keys is None or path.stem in keys}


def _stored_result(path: Path) -> dict[str, Any]:
    """One stored result; a damaged file (runs are written atomically, so only a change from
    outside damages one) is an error naming it and the way to recompute it."""
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"a stored result that is not valid JSON ({err}); delete the file "
                         f"and run the same command again to compute it anew",
                         file=str(path)) from None


def read_runs(exp_dir: str | Path, points: Sequence[Point] | None = None):
    """The stored runs as a DataFrame (one row per run); with ``points``, only theirs."""
    import pandas as pd

    wanted = None if points is None else [p.run_id for p in points]
    return pd.DataFrame(list(read_stored(Path(exp_dir) / RUNS_DIR, wanted).values()))


def mean_table(runs, index: str, metric: str, scale: float = 1.0,
               labels: Sequence[str] | None = None, index_name: str | None = None):
    """Mean of ``metric`` × ``scale`` over the repetitions of ``runs``: rows ``index``
    (named ``index_name``), columns the labels (in the order of ``labels`` if given)."""
    frame = runs.pivot_table(index=index, columns="label", values=metric, aggfunc="mean")
    frame.index.name = index_name or index
    order = list(labels) if labels is not None else list(frame.columns)
    return (frame * scale).reindex(columns=[c for c in order if c in frame.columns])
