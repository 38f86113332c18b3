"""One run, described once and executed one way: :class:`RunSpec` and :func:`execute`.

A :class:`RunSpec` holds everything that makes a simulation: where the jobs
come from and how they are read, the transforms applied to them, the policy
and its parameters (reservation placement and throttling among them,
docs/reservations.md), the engine options (overrun, reservation requests,
scheduling tick, per-user queue limit) and the platform.  :func:`execute`
loads, transforms, builds a fresh policy, picks the engine the policy needs
and runs it.  ``schedlab.simulate``/``compare``, the ``simulate`` and
``compare`` commands and the experiment runner all build a RunSpec and call
:func:`execute`, so the same description gives the same schedule everywhere.

The engine is chosen in one place, :data:`ENGINES`, by the policy's
``execution_model`` (docs/architecture.md, "Choosing the engine").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from schedlab.engine.policy import SPACE_SHARING
from schedlab.engine.result import Result
from schedlab.engine.simulator import ProgressCallback
from schedlab.engine.timesharing import TIME_SHARING
from schedlab.errors import InputError
from schedlab.pipeline import Label, Transforms, apply_transforms
from schedlab.policies.registry import PolicySpec, make_policy
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.engine.policy import Policy
    from schedlab.platform.model import Platform
    from schedlab.workload.reservations import Reservation

#: Reservation requests as a CSV file (docs/reservations.md) or as records.
ReservationSource = str | Path | Iterable["Reservation"]


@dataclass(frozen=True)
class RunSpec:
    """A complete description of one simulation.

    Workload: ``workload`` is an SWF or sacct file, a built-in model name,
    the name of a cached catalog trace, or a :class:`Workload` already
    loaded; ``width_field``, ``missing_estimate`` and ``strict`` are the SWF
    reader's options (docs/workloads.md); ``jobs`` is the number of jobs of
    a model, or for a trace the first N kept; ``seed`` seeds a model and the
    random transforms; ``processors`` is the machine size (``None``: the
    trace header's or the model's).  ``transforms`` are applied in the
    order of :mod:`schedlab.pipeline` (their ``first`` is ``jobs``).

    Policy: a name, a ``{"name": ..., **params}`` mapping or a policy
    object (which can run only once).

    Engine: ``overrun`` (``"kill"`` or ``"extend"``), ``reservations``
    (requests: a CSV file read with the workload's machine size and
    UnixStartTime, or records), ``tick`` (schedule only every ``tick``
    seconds; 0 = at every event), ``max_queued_per_user`` (hold back a
    user's jobs beyond that many waiting ones).  ``platform``: ``None`` for
    one homogeneous machine of ``processors``.
    """

    workload: str | Path | Workload
    policy: PolicySpec = "fcfs+easy"
    processors: int | None = None
    width_field: str = "requested"
    missing_estimate: str = "use-runtime"
    strict: bool = False
    jobs: int | None = None
    seed: int = 0
    transforms: Transforms = Transforms()
    overrun: str = "kill"
    reservations: ReservationSource | None = None
    tick: int = 0
    max_queued_per_user: int | None = None
    platform: Platform | None = None


Engine = Callable[[Workload, "Policy", RunSpec, "tuple[Reservation, ...] | None",
                   "ProgressCallback | None"], Result]


def _space_sharing(workload: Workload, policy: Policy, spec: RunSpec,
                   requests: tuple[Reservation, ...] | None,
                   progress: ProgressCallback | None) -> Result:
    """The event loop of :mod:`schedlab.engine.simulator`: one homogeneous machine."""
    from schedlab.engine.simulator import run

    if spec.platform is not None:
        raise InputError(f"policy {policy.name!r} schedules one homogeneous machine; give "
                         f"processors, not a platform", field="platform")
    return run(workload, policy, processors=spec.processors, overrun=spec.overrun,
               progress=progress, reservations=requests, tick=spec.tick,
               max_queued_per_user=spec.max_queued_per_user)


def _time_sharing(workload: Workload, policy: Policy, spec: RunSpec,
                  requests: tuple[Reservation, ...] | None,
                  progress: ProgressCallback | None) -> Result:
    """The gang-scheduling engine of :mod:`schedlab.engine.timesharing` (docs/policies/gang.md)."""
    from schedlab.engine.timesharing import run_timesharing

    unsupported = [name for name, value in (("reservations", requests), ("tick", spec.tick),
                                            ("max_queued_per_user", spec.max_queued_per_user),
                                            ("platform", spec.platform))
                   if value]
    if unsupported:
        raise InputError(f"policy {policy.name!r} time-shares the machine; it does not "
                         f"take the option {unsupported[0]!r} (space sharing only)",
                         field=unsupported[0])
    return run_timesharing(workload, policy, processors=spec.processors, overrun=spec.overrun,
                           progress=progress)


#: The engine of each execution model a policy declares (``policy.execution_model``;
#: a policy without one is space-sharing).  A new engine plugs in here: its execution
#: model name, and a function taking the prepared workload, the fresh policy, the run
#: description, the reservation requests and the progress callback.
ENGINES: dict[str, Engine] = {SPACE_SHARING: _space_sharing, TIME_SHARING: _time_sharing}


def engine_for(policy: Policy) -> Engine:
    """The engine that runs ``policy`` (:data:`ENGINES`)."""
    model = getattr(policy, "execution_model", SPACE_SHARING)
    engine = ENGINES.get(model)
    if engine is None:
        raise InputError(f"policy {policy.name!r} needs the {model!r} engine, which this "
                         f"schedlab does not have (engines: {', '.join(sorted(ENGINES))})",
                         field="policy")
    return engine


def execute(spec: RunSpec, progress: ProgressCallback | None = None, *,
            workload: Workload | None = None) -> Result:
    """Simulate the run ``spec`` describes and return its :class:`Result`.

    ``workload`` is the spec's workload already prepared
    (:func:`prepare_workload`), for callers that run several policies on it
    (``compare``) or keep it in a cache (sweeps).  ``progress(done, total)``
    is called now and then.
    """
    prepared = prepare_workload(spec) if workload is None else workload
    policy = make_policy(spec.policy)
    requests = load_reservations(spec.reservations, prepared, processors=spec.processors)
    return engine_for(policy)(prepared, policy, spec, requests, progress)


def with_reservation_params(policy: Mapping[str, Any], params: Mapping[str, Any]
                            ) -> dict[str, Any]:
    """``policy`` (``{"name": ..., **params}``) with reservation parameters added, when the
    policy takes reservation requests; the others refuse every request, so the
    parameters mean nothing to them (docs/reservations.md)."""
    if params and set(params) <= set(make_policy(str(policy["name"])).param_names()):
        return {**policy, **params}
    return dict(policy)


# --------------------------------------------------------------------------- workloads


def prepare_workload(spec: RunSpec, *, label: Label = str) -> Workload:
    """The spec's workload read (:func:`read_workload`) and transformed (:func:`transform`).

    ``label`` turns an option name into the name the user wrote, for error
    messages (``--load-method`` on the command line).
    """
    return transform(read_workload(spec, label=label), spec, label=label)


def read_workload(spec: RunSpec, *, label: Label = str) -> Workload:
    """The workload as read or generated, cut to its time window and its first ``jobs``.

    For a built-in model ``jobs`` is the number of jobs generated; for a
    trace, the first ``jobs`` jobs are kept (after the time window).
    """
    if spec.processors is not None and spec.processors <= 0:
        raise InputError(f"expected a number of processors >= 1, got {spec.processors}",
                         field=label("processors"))
    source = spec.workload
    is_model = not isinstance(source, Workload) and not Path(source).exists() \
        and _is_builtin_model(str(source))
    loaded = load_workload(source, width_field=spec.width_field,
                           missing_estimate=spec.missing_estimate, strict=spec.strict,
                           processors=spec.processors, seed=spec.seed,
                           jobs=spec.jobs if is_model else None)
    steps = Transforms(window=spec.transforms.window, first=None if is_model else spec.jobs)
    return apply_transforms(loaded, steps, label=label)


def transform(workload: Workload, spec: RunSpec, *, label: Label = str) -> Workload:
    """``workload`` (read by :func:`read_workload`) with the spec's other transforms applied.

    Raises :class:`InputError` when no job is left to simulate.
    """
    steps = replace(spec.transforms, window=None, first=None)
    workload = apply_transforms(workload, steps, seed=spec.seed, label=label)
    if len(workload) == 0:
        source = spec.workload.name if isinstance(spec.workload, Workload) else str(spec.workload)
        raise InputError("the workload has no job left to simulate", file=source)
    return workload


def _is_builtin_model(name: str) -> bool:
    """Whether ``name`` is a built-in model (the models, and scipy, load only if asked)."""
    from schedlab.workload.models import BUILTIN_MODELS

    return name in BUILTIN_MODELS


def load_workload(source: str | Path | Workload, *, width_field: str = "requested",
                  missing_estimate: str = "use-runtime", strict: bool = False,
                  processors: int | None = None, seed: int = 0,
                  jobs: int | None = None) -> Workload:
    """A workload from an SWF file (plain or gzip), a Slurm sacct file, a built-in
    model name or the name of a cached catalog trace.

    A file whose first line starts with ``JobID|`` is read as ``sacct
    --parsable2`` output (``docs/interop.md``).  A name that is not an existing
    file is looked up among the built-in models (``lublin``, …; see
    ``docs/models.md``), generated with ``seed``, ``jobs`` and ``processors``,
    then among the traces of ``schedlab traces list``, read from the cache
    (``docs/traces.md``).  SWF options are described in ``docs/workloads.md``.
    """
    if isinstance(source, Workload):
        return source
    path = Path(source)
    if path.exists():
        if path.is_dir():
            raise InputError("expected an SWF file, got a directory", file=str(path))
        from schedlab.interop import is_sacct_file, read_sacct
        if is_sacct_file(path):
            return read_sacct(path, missing_estimate=missing_estimate, processors=processors)
        from schedlab.workload.swf import read_swf
        return read_swf(path, width_field=width_field, missing_estimate=missing_estimate,
                        strict=strict, processors=processors)
    from schedlab.workload.models import BUILTIN_MODELS, generate_builtin
    if str(source) in BUILTIN_MODELS:
        return generate_builtin(str(source), n_jobs=jobs, processors=processors, seed=seed)
    from schedlab.workload.catalog import cached_trace
    cached = cached_trace(str(source))
    if cached is not None:
        return load_workload(cached, width_field=width_field, missing_estimate=missing_estimate,
                             strict=strict, processors=processors)
    raise InputError(f"no such file, not a built-in model "
                     f"(models: {', '.join(sorted(BUILTIN_MODELS))}) and not a trace of "
                     f"`schedlab traces list`", file=str(source))


def load_reservations(source: ReservationSource | None, workload: Workload, *,
                      processors: int | None = None) -> tuple[Reservation, ...] | None:
    """Reservation requests from a CSV file or records, checked against the workload's machine.

    A file is read with :func:`~schedlab.workload.reservations.read_reservations`,
    Unix times converted with the workload's UnixStartTime.  ``None`` stays
    ``None`` (a run without reservations).
    """
    if source is None:
        return None
    if isinstance(source, (str, Path)):
        from schedlab.workload.reservations import read_reservations

        return read_reservations(source, processors=processors or workload.processors,
                                 unix_start_time=workload.unix_start_time)
    return tuple(source)
