"""``schedlab plot`` on grid runs (docs/how-to/figures.md, "Grid runs").

A grid run directory is what ``schedlab simulate --platform ... --out``
writes: its jobs.csv has ``machine``, ``cluster`` and ``licences`` columns.
``--kind gantt`` on one draws a row per machine (:func:`machine_gantt`);
``--kind shares`` and ``--kind ta-curve`` take a run directory or a
directory of run directories (one run per subdirectory, e.g. one per
configuration and interarrival time) and draw the figures of
:mod:`schedlab.viz.grid`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from schedlab.cli.plot import PlotOptions
    from schedlab.platform.model import Platform
    from schedlab.viz.grid import GridRun

#: Figure kinds drawn from one or several grid runs.
GRID_KINDS = ("shares", "ta-curve")
#: --by of a grid run's Gantt chart.
GRID_GANTT_BY = ("deadline", "licences")


def is_grid_jobs(jobs: pd.DataFrame) -> bool:
    """Whether a jobs table is a grid run's (it names the machine each job ran on)."""
    return "machine" in jobs.columns


def holds_runs(source: Path) -> bool:
    """Whether ``source`` is a run directory or a directory holding some."""
    return (source / "jobs.csv").is_file() or (source.is_dir() and any(
        (p / "jobs.csv").is_file() for p in source.iterdir()))


def run_directories(source: Path) -> list[Path]:
    """``source`` if it is a run directory, else its subdirectories that are, by name."""
    if (source / "jobs.csv").is_file():
        return [source]
    found = sorted(p for p in source.iterdir() if (p / "jobs.csv").is_file()) \
        if source.is_dir() else []
    if not found:
        raise InputError("expected a run directory (from 'schedlab simulate --out') or a "
                         "directory of them ('compare --out', grid runs of 'simulate "
                         "--platform --out')", file=str(source))
    return found


def grid_runs(source: Path) -> list[GridRun]:
    """The grid runs under ``source``, labelled by policy and the parameters that differ."""
    from schedlab.cli.plot import read_run_directory
    from schedlab.viz.grid import GridRun

    loaded = []
    for path in run_directories(source):
        jobs, document = read_run_directory(path)
        if not is_grid_jobs(jobs):
            raise InputError("not a grid run: its jobs.csv has no machine column (simulate "
                             "--platform)", file=str(path / "jobs.csv"))
        loaded.append((jobs, document))
    labels = run_labels([document for _, document in loaded])
    return [GridRun(label, jobs, document["metrics"])
            for label, (jobs, document) in zip(labels, loaded)]


def run_labels(documents: list[dict[str, Any]]) -> list[str]:
    """Each run's policy, plus the parameters every run has whose values differ (not the
    dispatcher's name: a grid policy's name, ``LOCAL@DISPATCHER``, says it)."""
    params = [document.get("params", {}) for document in documents]
    keys = sorted(set.intersection(*(set(p) for p in params)) - {"dispatch"}) if params else []
    varying = [key for key in keys if len({repr(p.get(key)) for p in params}) > 1]
    from schedlab.policies.registry import spec_text

    return [spec_text(str(document.get("policy", "?")), {key: p.get(key) for key in varying})
            for document, p in zip(documents, params)]


def grid_figure(source: Path, kind: str, options: PlotOptions) -> Figure:
    """A figure of the grid runs under ``source``: cluster shares or metrics against Ta."""
    from schedlab.viz.grid import interarrival_figure, share_figure

    runs = grid_runs(source)
    if kind == "shares":
        return share_figure(runs, title=options.title)
    metrics = [options.metric] if options.metric else None
    if metrics:
        return interarrival_figure(runs, metrics, title=options.title)
    return interarrival_figure(runs, title=options.title)


def machine_gantt(source: Path, jobs: pd.DataFrame, document: dict[str, Any],
                  options: PlotOptions) -> Figure:
    """The per-machine Gantt chart of a grid run, rows from its platform when it can be
    read again (file or preset and seed in metrics.json), else the machines jobs ran on."""
    from schedlab.cli.plot import read_processors_table
    from schedlab.viz.grid import machine_gantt_figure, rows_from_platform

    platform = run_platform(source, document)
    rows = rows_from_platform(platform) if platform is not None else None
    label = document.get("policy", source.name)
    return machine_gantt_figure(jobs, rows, window=options.window,
                                color_by=options.by or "deadline",
                                title=options.title or f"{label} on {document.get('workload', '')}",
                                outages=read_processors_table(source) if rows else None)


def run_platform(source: Path, document: dict[str, Any]) -> Platform | None:
    """The platform a run used (its file, tried from here and beside the run directory, or
    its preset and seed); None when it cannot be found."""
    from schedlab.api import load_platform

    made = document.get("meta", {}).get("platform") or {}
    if "preset" in made:
        return load_platform(made["preset"], seed=int(made.get("seed", 0)))[0]
    if "file" in made:
        for path in (Path(made["file"]), source.parent / made["file"]):
            if path.is_file():
                return load_platform(path)[0]
    return None
