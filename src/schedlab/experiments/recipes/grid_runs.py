"""The grid runs of the grid recipes (``grid-fb``, ``grid-cs``) as one sweep, and their tasks.

A grid recipe is a list of :class:`Section`; each gives its :class:`GridPart` s.  A part
is a grid experiment (docs/how-to/experiments.md, "Grid experiments"): one platform preset at
one licence ratio, one dispatcher and allocation, the job streams of the ``grid`` model
at some mean inter-arrival times Ta, repetitions as seeds (each draws the platform and
the jobs, and seeds the run), and local policies, each with the label the tables name it
by.  The recipe's experiment is the union of the parts' runs (:func:`recipe_experiment`),
which :func:`~schedlab.experiments.run_sweep` runs, stores and resumes like any sweep:
on any executor (a Dask cluster among them), each run stored once under its run id
(:mod:`schedlab.experiments.store`), so two sections asking for the same simulation share
it.  Runs go repetition by repetition (:func:`repetition_round`): a sweep stopped early
leaves whole repetitions, which the summary can already use.  :func:`run_table` reads
the stored runs back as the recipes' table, one row per run.

Work that is not one simulation (the knapsack instances of the thesis' Table 5, the ADH
experiment) is stored as one JSON file per task by :func:`execute_stored`.

Grid results of an earlier schedlab (``EXP_DIR/runs/RUN_ID.json``, one file per run) are
not read: :func:`old_runs_notice` says so, and the runs are computed again into the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.errors import InputError
from schedlab.experiments.spec import Experiment, SweepRun, experiment_from_mapping, to_toml

if TYPE_CHECKING:
    import pandas as pd

#: A policy's or a dispatcher's parameters: ``(("incremental", False), ...)``.
Params = tuple[tuple[str, Any], ...]
#: Where an earlier schedlab stored one JSON file per grid run (no longer read).
OLD_RUNS_DIR = "runs"
#: Bins of the jobs-in-system profile (the thesis' Fig. 19).
WORKLOAD_BINS = 40


def spelled(name: str, params: Params) -> str:
    """``cs.incremental=false``: a name and its parameters, as the tables show them."""
    return name + "".join(f".{key}={_spelled_value(value)}" for key, value in params)


def _spelled_value(value: Any) -> str:
    """A parameter value as the CLI writes it: ``true``/``false`` for booleans."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def ratio_label(ratio: tuple[float, float]) -> str:
    """``30% - 50%``, as the thesis' tables write a licence ratio."""
    return f"{ratio[0] * 100:.0f}% - {ratio[1] * 100:.0f}%"


@dataclass(frozen=True)
class LabelledPolicy:
    """A local policy with ``params``, named ``label`` in the tables (the thesis' name)."""

    label: str
    policy: str
    params: Params = ()


@dataclass(frozen=True)
class GridPart:
    """A grid experiment: ``policies`` on the ``preset`` platform with licence ratio
    ``ratio``, ``jobs`` jobs of the preset's stream at each Ta of ``tas``, one run per seed
    of ``seeds``; ``dispatch`` (with ``dispatch_params``) on a platform of several
    clusters (None: one cluster, no dispatcher)."""

    preset: str
    ratio: tuple[float, float]
    tas: tuple[float, ...]
    seeds: tuple[int, ...]
    jobs: int
    policies: tuple[LabelledPolicy, ...]
    allocation: str = "exclusive"
    dispatch: str | None = None
    dispatch_params: Params = ()

    @property
    def platform_label(self) -> str:
        """The platform's label (part of the runs' identity): the preset and the ratio."""
        return f"{self.preset}-ratio{self.ratio[0]:g}-{self.ratio[1]:g}"

    def mapping(self, policy: LabelledPolicy) -> dict[str, Any]:
        """The part's experiment for one of its policies, as an experiment file holds it."""
        dispatcher = ({"name": self.dispatch, "params": dict(self.dispatch_params)}
                      if self.dispatch else {"name": "round-robin"})
        return {"platforms": [{"source": self.preset, "label": self.platform_label,
                               "settings": {"ratio": list(self.ratio)}}],
                "dispatchers": [dispatcher], "allocation": self.allocation,
                "workloads": [{"source": "grid", "preset": self.preset, "jobs": self.jobs,
                               "ta": list(self.tas), "seeds": list(self.seeds)}],
                "policies": [{"name": policy.policy, "params": dict(policy.params)}]}

    def runs(self, policy: LabelledPolicy) -> tuple[SweepRun, ...]:
        """The runs of :meth:`mapping`, checked as an experiment file is."""
        return experiment_from_mapping(self.mapping(policy)).runs


@dataclass(frozen=True)
class Section:
    """A part of the thesis' evaluation: a name, what it reproduces, its grid experiments."""

    name: str
    title: str
    parts: Callable[[bool], list[GridPart]]


@dataclass(frozen=True)
class LabelledRun:
    """A run of a recipe, the part it comes from and the label its policy has there."""

    run: SweepRun
    part: GridPart
    label: str


def labelled_runs(sections: Iterable[Section], reduced: bool) -> list[LabelledRun]:
    """Every distinct run of every section, in section order, repetition by repetition
    (:func:`repetition_round`); a run two sections give keeps its first label."""
    seen: dict[str, LabelledRun] = {}
    for section in sections:
        for part in section.parts(reduced):
            for policy in part.policies:
                for run in part.runs(policy):
                    seen.setdefault(run.run_id, LabelledRun(run, part, policy.label))
    found = list(seen.values())
    rounds = repetition_round(found)
    return sorted(found, key=lambda labelled: rounds[labelled.run.run_id])


def repetition_round(runs: Sequence[LabelledRun]) -> dict[str, int]:
    """Run id -> the rank of the run's seed among those of its platform preset (0 for the
    first), so that every section's first repetition runs before any second one,
    whatever its seeds."""
    seeds: dict[str, set[int]] = {}
    for labelled in runs:
        seeds.setdefault(labelled.part.preset, set()).add(_seed(labelled.run))
    rank = {preset: {seed: k for k, seed in enumerate(sorted(found))}
            for preset, found in seeds.items()}
    return {labelled.run.run_id: rank[labelled.part.preset][_seed(labelled.run)]
            for labelled in runs}


def _seed(run: SweepRun) -> int:
    """A grid recipe's run always has a seed (its repetition)."""
    return 0 if run.seed is None else run.seed


def recipe_experiment(name: str, description: str, sections: Sequence[Section],
                      reduced: bool) -> Experiment:
    """The recipe as one experiment: the runs of :func:`labelled_runs`, its text every
    section's parts (``experiment.toml`` beside the results), one experiment per policy."""
    parts = [{"section": section.name, "label": policy.label,
              "experiment": part.mapping(policy)}
             for section in sections for part in section.parts(reduced)
             for policy in part.policies]
    text = to_toml({"name": name, "description": description, "parts": parts})
    runs = tuple(labelled.run for labelled in labelled_runs(sections, reduced))
    return Experiment(path=None, text=text, name=name, description=description, runs=runs)


# ------------------------------------------------------------------ reading the runs back
#: The columns :func:`run_table` describes each run with (the rest are its metrics).
DESCRIPTION = ("run_id", "preset", "ta", "ratio", "rep", "policy", "params", "label", "jobs",
               "dispatch")


def described(labelled: LabelledRun) -> dict[str, Any]:
    """A run's :data:`DESCRIPTION`: what it simulates, as the tables read it."""
    run, part = labelled.run, labelled.part
    ta = float(run.workload.option("ta"))
    return {"run_id": run.run_id, "preset": part.preset,
            "ta": int(ta) if ta.is_integer() else ta, "ratio": ratio_label(part.ratio),
            "rep": _seed(run), "policy": run.policy, "params": spelled(run.policy, run.params),
            "label": labelled.label, "jobs": part.jobs,
            "dispatch": spelled(part.dispatch, part.dispatch_params) if part.dispatch else ""}


def run_table(exp_dir: str | Path, runs: Sequence[LabelledRun]) -> pd.DataFrame:
    """The finished runs among ``runs`` stored in ``exp_dir``, one row each: its
    :data:`DESCRIPTION`, then its metrics (docs/reference/metrics.md, "Grid runs"; a per-cluster
    metric as ``<metric>.<cluster>``), in the order of ``runs``."""
    import pandas as pd

    from schedlab.experiments.runner import FINISHED
    from schedlab.experiments.store import load_results

    results = load_results(exp_dir)
    results = results[results["status"] == FINISHED]
    descriptions = pd.DataFrame([described(labelled) for labelled in runs],
                                columns=list(DESCRIPTION))
    metrics = results.drop(columns=[c for c in results.columns
                                    if c in DESCRIPTION[1:] or c in NOT_METRICS])
    return descriptions.merge(metrics, on="run_id", how="inner")


#: The columns of :func:`~schedlab.experiments.store.load_results` that describe a run
#: (:func:`described` says it as the tables read it).
NOT_METRICS = ("workload", "seed", "processors", "overrun", "platform", "allocation",
               "preemption_overhead", "status", "error", "schedlab_version", "finished_at")


def clusters_of(runs: pd.DataFrame) -> list[str]:
    """The clusters of the first of ``runs``, in the platform's order (from its
    ``cluster_share_optimum.<cluster>`` metrics)."""
    import pandas as pd

    prefix = "cluster_share_optimum."
    if runs.empty:
        return []
    first = runs.iloc[0]
    return [c[len(prefix):] for c in runs.columns
            if c.startswith(prefix) and pd.notna(first[c])]


def cluster_columns(runs: pd.DataFrame, clusters: Sequence[str], metric: str) -> pd.DataFrame:
    """``runs``' per-cluster ``metric`` (``<metric>.<cluster>``): a column per cluster."""
    frame = runs[[f"{metric}.{cluster}" for cluster in clusters]].astype(float)
    frame.columns = list(clusters)
    return frame


def workload_profile(exp_dir: str | Path, run_id: str, bins: int = WORKLOAD_BINS) -> list[float]:
    """The mean jobs in the system (:func:`~schedlab.metrics.grid.jobs_in_system`) over
    ``bins`` equal parts of a stored run (Fig. 19), from its job table and series."""
    from schedlab.experiments.store import load_jobs, load_series
    from schedlab.metrics.grid import running_jobs
    from schedlab.metrics.series import bin_means

    jobs, series = load_jobs(exp_dir, run_id), load_series(exp_dir, run_id)
    start, end = (jobs[name].fillna(-1).to_numpy(np.int64) for name in ("start", "end"))
    submit = jobs["submit"].to_numpy(np.int64)
    times = series["time"].to_numpy(np.int64)
    in_system = series["queue"].to_numpy(np.int64) + running_jobs(start, end, times)
    t0, t1 = int(submit.min()), int(max(end.max(), submit.max()))
    if t1 <= t0:
        return []
    _, means = bin_means(times, in_system, (t1 - t0) / bins, t0, t1)
    return [round(float(v), 3) for v in means[:bins]]


def draw(run: SweepRun):
    """A grid run's platform and job stream, drawn as the run draws them."""
    from schedlab.experiments.runner import grid_workload, run_platform

    assert run.grid is not None
    return (run_platform(run.grid.platform, run.seed),
            grid_workload(run.workload, run.seed, run.grid.platform))


def mean_table(runs: pd.DataFrame, index: str, metric: str, scale: float = 1.0,
               labels: Sequence[str] | None = None, index_name: str | None = None):
    """Mean of ``metric`` × ``scale`` over the repetitions of ``runs``: rows ``index``
    (named ``index_name``), columns the labels (in the order of ``labels`` if given)."""
    frame = runs.pivot_table(index=index, columns="label", values=metric, aggfunc="mean")
    frame.index.name = index_name or index
    order = list(labels) if labels is not None else list(frame.columns)
    return (frame * scale).reindex(columns=[c for c in order if c in frame.columns])


def old_runs_notice(exp_dir: str | Path) -> str | None:
    """One line when ``exp_dir`` holds grid results of an earlier schedlab (one JSON file
    per run in :data:`OLD_RUNS_DIR`), which are not read: the runs are computed again."""
    folder = Path(exp_dir) / OLD_RUNS_DIR
    if not folder.is_dir() or not any(folder.glob("*.json")):
        return None
    return (f"{folder}: grid results of an earlier schedlab (one JSON file per run) are not "
            f"read; the runs are computed again into the result store (docs/how-to/experiments.md, "
            f"\"Grid recipes: results of the earlier layout\")")


# ------------------------------------------------------------------ tasks
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


def read_stored(folder: Path, wanted: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """The stored results of ``folder`` (only the keys ``wanted`` if given), by key, in
    file-name order."""
    keys = None if wanted is None else set(wanted)
    return {path.stem: _stored_result(path) for path in sorted(folder.glob("*.json"))
            if keys is None or path.stem in keys}


def _stored_result(path: Path) -> dict[str, Any]:
    """One stored result; a damaged file (results are written atomically, so only a change
    from outside damages one) is an error naming it and the way to recompute it."""
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"a stored result that is not valid JSON ({err}); delete the file "
                         f"and run the same command again to compute it anew",
                         file=str(path)) from None
