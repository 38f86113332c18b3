"""The execution models, one table: how each kind of machine runs a :class:`~schedlab.run.RunSpec`.

An :class:`ExecutionModel` declares everything a run of its kind needs:
the RunSpec fields it takes (:attr:`ExecutionModel.options`; every other
field set away from its default is refused, naming the option the user
wrote), how it builds a fresh policy, how it reads its input, how it runs,
the metrics its runs report, and the conformance cases and invariants a policy of its kind is checked
against (:func:`schedlab.testing.check_policy`).  :data:`MODELS` holds
space sharing, time sharing (gang scheduling) and the grid; a fourth model
is one more entry (docs/how-to/writing-an-execution-model.md).

:func:`execute` is the one way a run is executed: ``schedlab.simulate``,
``compare``, the ``simulate`` and ``compare`` commands, the sweep runner
and the conformance suite all describe a run with a RunSpec and call it.
A RunSpec with a platform is a grid run; any other runs on the model its
policy declares (``policy.execution_model``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, cast

from schedlab.conformance import (
    Case,
    check_grid_run,
    check_one_machine_run,
    grid_cases,
    space_sharing_cases,
    time_sharing_cases,
)
from schedlab.engine.policy import GRID, SPACE_SHARING, Policy
from schedlab.engine.result import Result
from schedlab.engine.simulator import ProgressCallback
from schedlab.engine.timesharing import TIME_SHARING
from schedlab.errors import InputError
from schedlab.limits import check_capacity
from schedlab.pipeline import Label, Transforms
from schedlab.policies.registry import (
    LocalPolicySpec,
    make_dispatcher,
    make_local_policy,
    make_policy,
)
from schedlab.run import (
    RunSpec,
    load_outages,
    load_platform,
    load_reservations,
    prepare_one_machine,
    read_grid_run_workload,
    schedule_horizon,
)
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.workload.grid import GridWorkload

#: The RunSpec fields every model takes: the jobs, the policy, the seed and the overrun mode.
COMMON_OPTIONS = frozenset({"workload", "policy", "seed", "overrun"})
#: The fields that read a workload file or model for one machine, and its transforms.
ONE_MACHINE_INPUT = frozenset({"processors", "width_field", "missing_estimate", "strict",
                               "jobs", "transforms"})

Prepared = Any                  # a Workload, or a GridWorkload for the grid
Metrics = dict[str, Any]


@dataclass(frozen=True)
class ExecutionModel:
    """One kind of machine and the engine that runs it.

    ``name`` is the ``execution_model`` its policies declare; ``title``
    names its runs in messages; ``chosen_by`` is the RunSpec field whose
    presence selects the model (``platform``), or None for a model chosen
    by its policy.  ``options`` are the RunSpec fields beyond
    :data:`COMMON_OPTIONS` it takes, and ``refusal`` says why it takes no
    other.  ``make_policy`` builds a fresh policy from ``spec.policy``,
    ``prepare`` reads the input (the spec, a label for option names in
    errors, a progress callback), ``run`` simulates (the prepared input,
    the policy, the spec, a progress callback).  ``metrics`` are those
    of one result (the result, the spec; docs/reference/metrics.md).  ``cases`` are its
    conformance runs and ``check`` the rules each result must keep (the
    result, the prepared input, the spec).
    """

    name: str
    title: str
    chosen_by: str | None
    options: frozenset[str]
    refusal: str
    make_policy: Callable[[RunSpec], Policy]
    prepare: Callable[[RunSpec, Label, ProgressCallback | None], Prepared]
    run: Callable[[Prepared, Policy, RunSpec, ProgressCallback | None], Result]
    metrics: Callable[[Result, RunSpec], Metrics]
    cases: Callable[[], Sequence[Case]]
    check: Callable[[Result, Prepared, RunSpec], None]

    def takes(self, option: str) -> bool:
        """Whether a run of this model takes the RunSpec field ``option``."""
        return option in COMMON_OPTIONS or option in self.options


# ------------------------------------------------------------------ the three models

def _one_machine_policy(spec: RunSpec) -> Policy:
    """A policy of one machine (a grid policy's name is refused: it needs a platform)."""
    return make_policy(spec.policy)  # type: ignore[return-value]


def _prepare_one_machine(spec: RunSpec, label: Label,
                         progress: ProgressCallback | None) -> Workload:
    """The workload, after checking the run's failures and maintenance windows (so that a
    mistake in them is reported before any run, under the option's name)."""
    load_outages(spec, label=label)
    return prepare_one_machine(spec, label=label, progress=progress)


def _prepare_grid(spec: RunSpec, label: Label, progress: ProgressCallback | None) -> GridWorkload:
    """The grid workload, after checking the run's failures and maintenance windows."""
    load_outages(spec, label=label)
    return read_grid_run_workload(spec)


def _space_sharing(workload: Workload, policy: Policy, spec: RunSpec,
                   progress: ProgressCallback | None) -> Result:
    """The event loop of :mod:`schedlab.engine.simulator`: one homogeneous machine, with
    advance reservations, a scheduling tick and a per-user queue limit."""
    from schedlab.engine.simulator import run

    requests = load_reservations(spec.reservations, workload, processors=spec.processors)
    failures, windows = load_outages(spec)
    check_capacity(spec.processors or workload.processors,
                   schedule_horizon(workload, requests, spec.tick), field="processors")
    return run(workload, policy, processors=spec.processors, overrun=spec.overrun,
               progress=progress, reservations=requests, tick=spec.tick,
               max_queued_per_user=spec.max_queued_per_user, failures=failures,
               windows=windows)


def _time_sharing(workload: Workload, policy: Policy, spec: RunSpec,
                  progress: ProgressCallback | None) -> Result:
    """The gang-scheduling engine of :mod:`schedlab.engine.timesharing`
    (docs/reference/policies/gang.md), with failures, maintenance windows and replayed
    cancellations (docs/reference/events.md, "Gang runs")."""
    from schedlab.engine.timesharing import run_timesharing

    failures, windows = load_outages(spec)
    check_capacity(spec.processors or workload.processors, schedule_horizon(workload),
                   field="processors")
    return run_timesharing(workload, policy, processors=spec.processors,  # type: ignore[arg-type]
                           overrun=spec.overrun, progress=progress, failures=failures,
                           windows=windows)


def _grid(workload: GridWorkload, policy: Policy, spec: RunSpec,
          progress: ProgressCallback | None) -> Result:
    """The grid engine of :mod:`schedlab.engine.grid` (docs/reference/policies/grid.md):
    ``policy`` schedules the first cluster, a fresh one from ``spec.policy`` each other
    cluster, and the dispatcher chooses each job's cluster (one cluster needs none)."""
    from schedlab.engine.grid import run_grid

    platform, made = load_platform(spec.platform, seed=spec.seed)  # type: ignore[arg-type]
    clusters = len(platform.clusters)
    locals_ = [policy, *(_grid_policy(spec) for _ in range(clusters - 1))]
    dispatcher = make_dispatcher(spec.dispatch) if clusters > 1 else None
    failures, windows = load_outages(spec)
    result = run_grid(workload, platform, locals_, dispatcher,  # type: ignore[arg-type]
                      allocation=spec.allocation, overrun=spec.overrun, seed=spec.seed,
                      preemption_overhead=spec.preemption_overhead, failures=failures,
                      windows=windows)
    result.meta["platform"] = made
    return result


def _one_machine_metrics(result: Result, spec: RunSpec) -> Metrics:
    """The metrics of docs/reference/metrics.md."""
    from schedlab.metrics import compute_metrics

    return compute_metrics(result)


def _grid_metrics(result: Result, spec: RunSpec) -> Metrics:
    """Those of every run, the rating-weighted offered load (on the platform), the
    platform's CPUs (``platform_cpus``: the machine size of its
    utilization and series), the per-cluster ones (:func:`~schedlab.metrics.grid.cluster_metrics`),
    the machines' (:func:`~schedlab.metrics.grid.machine_metrics`) and the local policy's cost
    per scheduling event (:func:`~schedlab.metrics.grid.scheduling_cost`; its time is the one
    metric that depends on the machine), docs/reference/metrics.md "Grid runs"."""
    from schedlab.metrics import compute_metrics
    from schedlab.metrics.grid import (
        cluster_metrics,
        licence_offered_load,
        machine_metrics,
        rating_weighted_load,
        scheduling_cost,
    )

    platform, _ = load_platform(spec.platform, seed=spec.seed)  # type: ignore[arg-type]
    return {**compute_metrics(result), "offered_load": rating_weighted_load(result, platform),
            **licence_offered_load(result, platform), "platform_cpus": result.processors,
            **cluster_metrics(result, platform), **machine_metrics(result),
            **scheduling_cost(result)}


def _grid_policy(spec: RunSpec) -> Policy:
    """A fresh grid local policy (a policy of one machine is refused: it needs none)."""
    return cast(Policy, make_local_policy(cast(LocalPolicySpec, spec.policy)))


#: Every execution model by name; a new one is one more entry.
MODELS: dict[str, ExecutionModel] = {model.name: model for model in (
    ExecutionModel(
        SPACE_SHARING, "a space-sharing run", None,
        ONE_MACHINE_INPUT | {"reservations", "tick", "max_queued_per_user", "cancellations",
                             "failures", "maintenance"},
        "a run on one machine has no dispatcher, machines or preemption",
        _one_machine_policy, _prepare_one_machine, _space_sharing, _one_machine_metrics,
        space_sharing_cases, check_one_machine_run),
    ExecutionModel(
        TIME_SHARING, "a time-sharing run", None,
        ONE_MACHINE_INPUT | {"cancellations", "failures", "maintenance"},
        "ticks, queue limits and advance reservations belong to space sharing",
        _one_machine_policy, _prepare_one_machine, _time_sharing, _one_machine_metrics,
        time_sharing_cases, check_one_machine_run),
    ExecutionModel(
        GRID, "a grid run", "platform",
        frozenset({"platform", "dispatch", "allocation", "preemption_overhead",
                   "cancellations", "failures", "maintenance"}),
        "it reads the workload and its side file as they are, and the platform gives "
        "the machines",
        _grid_policy, _prepare_grid, _grid, _grid_metrics, grid_cases, check_grid_run),
)}


# ------------------------------------------------------------------ choosing and refusing

def model_named(name: str, policy: str = "") -> ExecutionModel:
    """The model called ``name``; an InputError naming ``policy`` when there is none."""
    model = MODELS.get(name)
    if model is None:
        raise InputError(f"policy {policy!r} needs the {name!r} execution model, which this "
                         f"schedlab does not have (models: {', '.join(sorted(MODELS))})",
                         field="policy")
    return model


def model_of_policy(policy: Policy) -> ExecutionModel:
    """The model ``policy`` declares (``execution_model``; none: space sharing)."""
    return model_named(getattr(policy, "execution_model", SPACE_SHARING), policy.name)


def model_of(spec: RunSpec) -> ExecutionModel:
    """The model that runs ``spec``: the one a field of the spec selects (a platform makes
    a grid run), else the one its policy declares."""
    for model in MODELS.values():
        if model.chosen_by is not None and getattr(spec, model.chosen_by) is not None:
            return model
    return model_of_policy(_one_machine_policy(spec))


def given_options(spec: RunSpec) -> list[str]:
    """The RunSpec fields set away from their defaults, in field order; a transform counts
    under its own name (``shrink``), as the user gave it."""
    default = RunSpec(spec.workload)
    given = []
    for item in fields(RunSpec):
        value = getattr(spec, item.name)
        if item.name == "transforms":
            given += [name for name in Transforms.names()
                      if getattr(value, name) != getattr(default.transforms, name)]
        elif value != getattr(default, item.name):
            given.append(item.name)
    return given


def refuse_options(spec: RunSpec, model: ExecutionModel, label: Label = str) -> None:
    """InputError for the first option ``spec`` sets that ``model`` does not take: it names
    the option as the user wrote it (``label``), why the model refuses it, and which
    models take it."""
    for option in given_options(spec):
        field = option if option in RunSpec.__dataclass_fields__ else "transforms"
        if model.takes(field):
            continue
        takers = [other for other in MODELS.values() if other.takes(field)]
        ways = [f"{other.title} (give {label(other.chosen_by)})" if other.chosen_by
                else f"{other.title} (a {other.name} policy)" for other in takers]
        raise InputError(f"{model.title} takes no {label(option)}: {model.refusal}; "
                         f"{' or '.join(ways)} does", field=label(option))


# ------------------------------------------------------------------ one run

def prepare_workload(spec: RunSpec, *, label: Label = str,
                     progress: ProgressCallback | None = None) -> Prepared:
    """The input of the run ``spec`` describes, read as its model reads it, after refusing
    the options the model does not take.

    ``label`` turns an option name into the name the user wrote, for error
    messages (``--load-method`` on the command line).  ``progress`` follows
    the EASY run of deadlines from a stringency.
    """
    model = model_of(spec)
    refuse_options(spec, model, label)
    return model.prepare(spec, label, progress)


def execute(spec: RunSpec, progress: ProgressCallback | None = None, *,
            workload: Prepared | None = None) -> Result:
    """Simulate the run ``spec`` describes and return its :class:`Result`.

    ``workload`` is the spec's input already prepared
    (:func:`prepare_workload`), for callers that run several policies on it
    (``compare``) or keep it in a cache (sweeps).  ``progress(done, total)``
    is called now and then.
    """
    model = model_of(spec)
    refuse_options(spec, model)
    policy = model.make_policy(spec)
    prepared = model.prepare(spec, str, None) if workload is None else workload
    return model.run(prepared, policy, spec, progress)
