"""One run described once: :class:`RunSpec`, and the readers of its inputs.

A :class:`RunSpec` holds everything that makes a simulation: where the jobs
come from and how they are read, the transforms applied to them, the policy
and its parameters (reservation placement and throttling among them,
docs/reference/reservations.md), the engine options (overrun, reservation requests,
scheduling tick, per-user queue limit) and the platform.  The readers here
load a workload (SWF, sacct, a built-in model, a cached trace), transform
it, and read platforms, grid workloads and reservation requests.
:func:`schedlab.execution.execute` runs a RunSpec on the execution model it
needs; ``schedlab.simulate``/``compare``, the ``simulate`` and ``compare``
commands and the experiment runner all build a RunSpec and call it, so the
same description gives the same schedule everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from schedlab.engine.simulator import ProgressCallback
from schedlab.errors import InputError, did_you_mean
from schedlab.limits import check_jobs, check_processors, check_seed
from schedlab.pipeline import Label, Transforms, apply_transforms
from schedlab.policies.registry import PolicySpec, make_policy
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.platform.model import Platform
    from schedlab.policies.grid import DispatcherSpec
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.outages import FailureSpec, Window
    from schedlab.workload.reservations import Reservation

#: Reservation requests as a CSV file (docs/reference/reservations.md) or as records.
ReservationSource = str | Path | Iterable["Reservation"]


@dataclass(frozen=True)
class RunSpec:
    """A complete description of one simulation.

    Workload: ``workload`` is an SWF or sacct file, a built-in model name,
    the name of a cached catalog trace, or a :class:`Workload` already
    loaded; ``width_field``, ``missing_estimate`` and ``strict`` are the SWF
    reader's options (docs/reference/workloads.md); ``jobs`` is the number of jobs of
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
    user's jobs beyond that many waiting ones), ``failures`` (a
    ``--failures`` text such as ``mtbf=7d,fate=requeue``, or a
    :class:`~schedlab.workload.outages.FailureSpec`; drawn failures take
    ``seed`` unless the text names one) and ``maintenance`` (a maintenance
    file or windows; docs/reference/events.md).

    Platform: ``None`` for one homogeneous machine of ``processors``; else
    a TOML platform file, a preset name (drawn with ``seed``) or a
    :class:`~schedlab.platform.model.Platform`, and the run is a grid run
    (docs/reference/policies/grid.md): ``workload`` is an SWF file with its
    ``.grid.csv`` side file or a GridWorkload, read as it is (no
    transforms); ``policy`` is a grid local policy (one instance per
    cluster); ``dispatch`` chooses each job's cluster (a platform of one
    cluster needs none); ``allocation`` is ``"shared"`` or ``"exclusive"``;
    ``seed`` also seeds the ``random`` dispatcher; ``preemption_overhead``
    (seconds >= 0) is added to every resumption of a job a local policy
    preempted (docs/reference/policies/grid.md, "Preemption").
    """

    workload: str | Path | Workload | GridWorkload
    policy: PolicySpec = "fcfs+easy"
    processors: int | None = None
    width_field: str = "requested"
    missing_estimate: str = "use-runtime"
    strict: bool = False
    cancellations: str = "ignore"
    jobs: int | None = None
    seed: int = 0
    transforms: Transforms = field(default_factory=Transforms)
    overrun: str = "kill"
    reservations: ReservationSource | None = None
    tick: int = 0
    max_queued_per_user: int | None = None
    failures: str | FailureSpec | None = None
    maintenance: str | Path | tuple[Window, ...] | None = None
    platform: str | Path | Platform | None = None
    dispatch: DispatcherSpec = "round-robin"
    allocation: str = "shared"
    preemption_overhead: int = 0


def schedule_horizon(workload: Workload, requests: Iterable[Reservation] | None = None,
                     tick: int = 0) -> int:
    """A time by which any schedule of ``workload`` that never idles while a job waits has
    ended: the last submission or reservation end, plus every job's longest time (runtime or
    estimate) and a scheduling tick per job.  Only its size matters (:func:`check_capacity`)."""
    columns = workload.to_arrays()
    submit, longest = columns["submit"], np.maximum(columns["runtime"], columns["estimate"])
    latest = max([int(submit[-1]) if len(submit) else 0,
                  *(request.end for request in requests or ())])
    return latest + sum(longest.tolist()) + tick * len(longest)


def with_reservation_params(policy: Mapping[str, Any], params: Mapping[str, Any]
                            ) -> dict[str, Any]:
    """``policy`` (``{"name": ..., **params}``) with reservation parameters added, when the
    policy takes reservation requests; the others refuse every request, so the
    parameters mean nothing to them (docs/reference/reservations.md)."""
    if params and set(params) <= set(make_policy(str(policy["name"])).param_names()):
        return {**policy, **params}
    return dict(policy)


# --------------------------------------------------------------------------- workloads


def prepare_one_machine(spec: RunSpec, *, label: Label = str,
                        progress: ProgressCallback | None = None) -> Workload:
    """The workload of a run on one machine: read (:func:`read_workload`) and transformed
    (:func:`transform`).

    ``label`` turns an option name into the name the user wrote, for error
    messages (``--load-method`` on the command line).  ``progress`` follows
    the EASY run of deadlines from a stringency.
    """
    check_seed(spec.seed, field=label("seed"))
    return transform(read_workload(spec, label=label), spec, label=label, progress=progress)


def read_grid_run_workload(spec: RunSpec) -> GridWorkload:
    """The grid workload of a grid run (an SWF file and its side file, or a GridWorkload),
    checked on its platform; read as it is (the side file is per job)."""
    check_seed(spec.seed, field="seed")
    platform, _ = load_platform(spec.platform, seed=spec.seed)  # type: ignore[arg-type]
    return load_grid_workload(spec.workload, platform,  # type: ignore[arg-type]
                              cancellations=spec.cancellations)


def read_workload(spec: RunSpec, *, label: Label = str) -> Workload:
    """The workload as read or generated, cut to its time window and its first ``jobs``.

    For a built-in model ``jobs`` is the number of jobs generated; for a
    trace, the first ``jobs`` jobs are kept (after the time window).
    """
    if spec.processors is not None and spec.processors <= 0:
        raise InputError(f"expected a number of processors >= 1, got {spec.processors}",
                         field=label("processors"))
    if spec.processors is not None:
        check_processors(spec.processors, field=label("processors"))
    if spec.jobs is not None:
        check_jobs(spec.jobs, field=label("jobs"))
    source = spec.workload
    if not isinstance(source, (str, Path, Workload)):
        raise InputError("a grid workload (licences, ratings) runs on a platform: give one",
                         field=label("platform"))
    is_model = not isinstance(source, Workload) and not Path(source).exists() \
        and _is_builtin_model(str(source))
    loaded = load_workload(source, width_field=spec.width_field,
                           missing_estimate=spec.missing_estimate, strict=spec.strict,
                           processors=spec.processors, seed=spec.seed,
                           jobs=spec.jobs if is_model else None,
                           cancellations=spec.cancellations)
    steps = Transforms(window=spec.transforms.window, first=None if is_model else spec.jobs)
    return apply_transforms(loaded, steps, label=label)


def transform(workload: Workload, spec: RunSpec, *, label: Label = str,
              progress: ProgressCallback | None = None) -> Workload:
    """``workload`` (read by :func:`read_workload`) with the spec's other transforms applied.

    Raises :class:`InputError` when no job is left to simulate.  ``progress``
    follows the EASY run of deadlines from a stringency.
    """
    steps = replace(spec.transforms, window=None, first=None)
    workload = apply_transforms(workload, steps, seed=spec.seed, label=label, progress=progress)
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
                  jobs: int | None = None, cancellations: str = "ignore") -> Workload:
    """A workload from an SWF file (plain or gzip), a Slurm sacct file, a built-in
    model name or the name of a cached catalog trace.

    A file whose first line starts with ``JobID|`` is read as ``sacct
    --parsable2`` output (``docs/how-to/interop.md``).  A name that is not an existing
    file is looked up among the built-in models (``lublin``, …; see
    ``docs/reference/models.md``), generated with ``seed``, ``jobs`` and ``processors``,
    then among the traces of ``schedlab traces list``, read from the cache
    (``docs/how-to/traces.md``).  SWF options are described in ``docs/reference/workloads.md``;
    ``cancellations`` (what becomes of SWF status 5) in ``docs/reference/events.md``.
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
        from schedlab.workload.swf import Cancellations, MissingEstimate, WidthField, read_swf

        # read_swf checks the choices and names a bad one
        return read_swf(path, width_field=cast(WidthField, width_field),
                        missing_estimate=cast(MissingEstimate, missing_estimate),
                        strict=strict, processors=processors,
                        cancellations=cast(Cancellations, cancellations))
    from schedlab.workload.models import BUILTIN_MODELS, generate_builtin
    if str(source) in BUILTIN_MODELS:
        return generate_builtin(str(source), n_jobs=jobs, processors=processors, seed=seed)
    from schedlab.workload.catalog import cached_trace
    cached = cached_trace(str(source))
    if cached is not None:
        return load_workload(cached, width_field=width_field, missing_estimate=missing_estimate,
                             strict=strict, processors=processors, cancellations=cancellations)
    raise InputError(f"no such file, not a built-in model "
                     f"(models: {', '.join(sorted(BUILTIN_MODELS))}) and not a trace of "
                     f"`schedlab traces list`{did_you_mean(str(source), BUILTIN_MODELS)}",
                     file=str(source))


def load_platform(source: str | Path | Platform, *, seed: int = 0) -> tuple[Platform, dict]:
    """A platform from a TOML file, a preset name (drawn with ``seed``) or a Platform,
    and how it was made (recorded in metrics.json: file, or preset and seed)."""
    from schedlab.platform import Platform, read_platform
    from schedlab.platform.generator import PRESETS, generate_platform, preset

    if isinstance(source, Platform):
        return source, {"name": source.name}
    path = Path(source)
    if not path.exists() and str(source) in PRESETS:
        platform = generate_platform(preset(str(source)), seed, name=f"{source}-seed{seed}")
        return platform, {"name": platform.name, "preset": str(source), "seed": seed}
    if not path.exists() and not str(source).endswith(".toml"):
        raise InputError(f"no such platform file, nor a platform preset (presets: "
                         f"{', '.join(PRESETS)})", file=str(source))
    stat = path.stat() if path.is_file() else None
    platform = read_platform(path) if stat is None else \
        _read_platform_file(path, (stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size))
    return platform, {"name": platform.name, "file": str(path)}


@lru_cache(maxsize=8)
def _read_platform_file(path: Path, version: tuple[int, int, int, int]) -> Platform:
    """The platform in the TOML file ``path``, read once while the file is the same
    (``version``: its device, inode, modification time and size): a grid run reads its
    platform for the workload's checks, the run and the metrics.  A Platform is
    immutable."""
    from schedlab.platform import read_platform

    return read_platform(path)


def load_grid_workload(source: str | Path | GridWorkload, platform: Platform, *,
                       cancellations: str = "ignore") -> GridWorkload:
    """A grid workload (an SWF file with its ``.grid.csv`` side file, docs/reference/platform.md),
    checked to run on ``platform``; ``cancellations`` is what becomes of the SWF file's
    cancelled records (docs/reference/events.md; a GridWorkload keeps its jobs' own)."""
    from schedlab.workload.grid import GridWorkload, read_grid_workload

    if isinstance(source, GridWorkload):
        source.check_on(platform)
        return source
    if isinstance(source, Workload):
        raise InputError("a grid run needs the grid attributes of the jobs (licences, "
                         "ratings): give a GridWorkload or an SWF file with its .grid.csv "
                         "side file (docs/reference/platform.md)", field="workload")
    return read_grid_workload(source, platform=platform, cancellations=cancellations)


def load_outages(spec: RunSpec, *, label: Label = str
                 ) -> tuple[FailureSpec | None, tuple[Window, ...]]:
    """The failures and the maintenance windows and drains of a run (docs/reference/events.md):
    a ``--failures`` text parsed (its drawn failures seeded by the run's seed unless it
    names one), a maintenance file read."""
    failures = spec.failures
    if isinstance(failures, str):
        from schedlab.workload.outages import parse_failure_spec

        failures = parse_failure_spec(failures, field=label("failures"), seed=spec.seed)
    windows = spec.maintenance
    if isinstance(windows, (str, Path)):
        from schedlab.workload.outages import read_windows

        windows = read_windows(str(windows))
    return failures, tuple(windows or ())


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
