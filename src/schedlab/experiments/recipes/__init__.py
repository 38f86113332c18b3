"""Paper reproductions: one runnable recipe per source paper.

A recipe is an experiment (the same mapping an experiment TOML file holds)
plus a summary step that turns the stored results into the paper's tables
and figures, side by side with the paper's published numbers.  Every recipe
has a full form (the paper's ranges) and a reduced form small enough for
CI, which must still show the paper's qualitative findings.

    schedlab reproduce list
    schedlab reproduce run dynp --out out/dynp            # the full evaluation
    schedlab reproduce run dynp --out out/dynp --reduced  # the CI-sized one

A recipe is a package (``recipes/dynp/``: design, paper, runs, tables,
figures, findings) whose ``__init__`` defines ``RECIPE`` (:class:`Recipe`);
it is found by name in :data:`RECIPE_MODULES`, filled by :func:`register`
at the end of this module.  Every recipe writes its tables, figures and
findings through :mod:`schedlab.experiments.recipes.report`
(docs/how-to/experiments.md, "Adding a paper reproduction").
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.experiments.recipes.report import REPRODUCTION_DIR, findings_markdown
from schedlab.experiments.spec import Experiment

#: Recipe name -> module (imported only when the recipe is used).
RECIPE_MODULES: dict[str, str] = {}
#: The variable naming the directory of the real traces recipes run on.
TRACES_ENV = "SCHEDLAB_TRACES"
DEFAULT_TRACES = Path("..") / "shared" / "workloads"


@dataclass(frozen=True)
class Finding:
    """One claim of a paper checked against our results.

    ``paper`` and ``ours`` are short texts with the numbers; ``holds`` says
    whether our results show the same thing (None when it cannot be judged
    from the runs made, e.g. in the reduced form).
    """

    claim: str
    paper: str
    ours: str
    holds: bool | None
    note: str = ""


@dataclass
class Reproduction:
    """What a recipe's summary step produced (files are inside the experiment directory)."""

    findings: list[Finding] = field(default_factory=list)
    tables: dict[str, Path] = field(default_factory=dict)     # name -> CSV or Markdown file
    figures: dict[str, Path] = field(default_factory=dict)    # name -> PNG file


@dataclass(frozen=True)
class Recipe:
    """A paper's evaluation as an experiment plus a summary step."""

    name: str
    paper: str
    description: str
    #: reduced -> the experiment: a mapping shaped like an experiment file, or built
    #: (a grid recipe's union of grid experiments, :mod:`.grid_runs`).
    experiment: Callable[[bool], Mapping[str, Any] | Experiment]
    summarize: Callable[[Path, bool], Reproduction]        # (experiment dir, reduced)
    #: Work that is not a simulation (the thesis' Table 5 knapsack, the ADH experiment):
    #: ``tasks(exp_dir, reduced)`` computes and stores what is missing, before the sweep.
    tasks: Callable[[Path, bool], Any] | None = None
    #: ``stale(exp_dir)``: one line on what the directory holds that this schedlab no
    #: longer reads (results of an earlier layout), or None.
    stale: Callable[[Path], str | None] | None = None
    #: Jobs taken from each trace a user adds (``reproduce run NAME --trace PATH``); None:
    #: the recipe runs on its own traces only.
    extra_trace_jobs: int | None = None


def traces_dir() -> Path:
    """The directory of the real traces: ``$SCHEDLAB_TRACES``, else ``../shared/workloads``."""
    return Path(os.environ.get(TRACES_ENV) or DEFAULT_TRACES)


def trace_file(recipe: str, catalog_name: str, file_name: str) -> Path:
    """A trace a recipe needs: its file in :func:`traces_dir`, else its copy in the trace cache.

    Neither present is an :class:`InputError` naming the recipe, where the
    trace was looked for and how to fetch it (docs/how-to/traces.md).
    """
    from schedlab.workload.catalog import cached_trace

    local = traces_dir() / file_name
    if local.is_file():
        return local.resolve()
    try:
        cached = cached_trace(catalog_name)
    except InputError:
        cached = None
    if cached is not None:
        return Path(cached).resolve()
    raise InputError(f"the {recipe} recipe needs the trace {file_name}: not in {traces_dir()} "
                     f"(set {TRACES_ENV} to the directory holding it) nor in the trace cache; "
                     f"run `schedlab traces fetch {catalog_name}`", file=str(local),
                     field=TRACES_ENV)


def register(name: str, module: str) -> None:
    """Make the recipe ``RECIPE`` of ``module`` known under ``name``."""
    RECIPE_MODULES[name] = module


def get_recipe(name: str) -> Recipe:
    """The recipe called ``name``; an :class:`InputError` naming the known ones otherwise."""
    module = RECIPE_MODULES.get(name)
    if module is None:
        known = ", ".join(sorted(RECIPE_MODULES)) or "none"
        raise InputError(f"unknown recipe {name!r} (recipes: {known})", field="recipe")
    return importlib.import_module(module).RECIPE


def reproduce(name: str, out: str | Path, *, reduced: bool = False, executor: str = "pool",
              jobs: int | None = None, dask_address: str | None = None,
              observer: Any = None, notice: Callable[[str], None] | None = None,
              traces: Sequence[str | Path] = ()) -> Reproduction:
    """Run (or resume) a recipe's sweep in ``out``, then write its tables and figures.

    A recipe's ``tasks`` (work that is not a simulation) run first, in this
    process.  ``executor``, ``jobs``, ``dask_address`` and ``observer`` are
    those of :func:`~schedlab.experiments.run_sweep`.  ``notice`` is told what
    ``out`` holds that is no longer read (default: a warning).  The findings
    table is written to ``out/reproduction/findings.md``.  A run that fails
    stops the summary with an :class:`InputError` listing it (its error is in
    the store).  ``traces`` are more traces to run the recipe on, each cut to the
    recipe's ``extra_trace_jobs`` first jobs (:func:`with_traces`).
    """
    from schedlab.experiments import run_sweep

    recipe = get_recipe(name)
    experiment = with_traces(recipe, recipe.experiment(reduced), traces)
    out = Path(out)
    stale = recipe.stale(out) if recipe.stale is not None else None
    if stale is not None:
        (notice or _warn)(stale)
    if recipe.tasks is not None:
        from schedlab.experiments.store import make_experiment_directory

        make_experiment_directory(out)
        recipe.tasks(out, reduced)
    summary = run_sweep(experiment, out, executor=executor, jobs=jobs,
                        dask_address=dask_address, observer=observer)
    if summary.failures:
        first, error = next(iter(summary.failures.items()))
        raise InputError(f"{len(summary.failures)} run(s) of recipe {name!r} failed "
                         f"(first: {first}: {error})", file=str(out))
    return _with_findings(recipe.summarize(out, reduced), out)


def with_traces(recipe: Recipe, experiment: Mapping[str, Any] | Experiment,
                traces: Sequence[str | Path]) -> Mapping[str, Any] | Experiment:
    """The recipe's experiment with a workload for each of ``traces`` (its first
    ``extra_trace_jobs`` jobs, labelled by the file's name); refused for a recipe that
    takes no trace of the user's, and for a file that is not there."""
    if not traces:
        return experiment
    if recipe.extra_trace_jobs is None or not isinstance(experiment, Mapping):
        raise InputError(f"recipe {recipe.name!r} runs on its own traces only: it takes no "
                         f"--trace", field="--trace")
    added = []
    for trace in traces:
        path = Path(trace)
        if not path.is_file():
            raise InputError("no such trace file", file=str(path), field="--trace")
        added.append({"source": str(path.resolve()), "label": path.name.split(".")[0],
                      "jobs": recipe.extra_trace_jobs})
    return {**experiment, "workloads": [*experiment["workloads"], *added]}


def _warn(message: str) -> None:
    import warnings

    warnings.warn(message, stacklevel=3)


def _with_findings(reproduction: Reproduction, out: Path) -> Reproduction:
    """Write ``out/reproduction/findings.md`` and list it among the tables."""
    from schedlab.output import atomic_write_text

    path = out / REPRODUCTION_DIR / "findings.md"
    atomic_write_text(path, findings_markdown(reproduction))
    reproduction.tables.setdefault("findings", path)
    return reproduction
register("qops", "schedlab.experiments.recipes.qops")
register("dynp", "schedlab.experiments.recipes.dynp")
register("reservations", "schedlab.experiments.recipes.reservations")
register("gang", "schedlab.experiments.recipes.gang")
register("gang-first-fit", "schedlab.experiments.recipes.gang_first_fit")
register("gang-order2", "schedlab.experiments.recipes.gang_order2")
register("grid-fb", "schedlab.experiments.recipes.grid_fb")
register("grid-cs", "schedlab.experiments.recipes.grid_cs")
register("predictions", "schedlab.experiments.recipes.predictions")
