"""The public Python API: load a workload, pick a policy, simulate, compare.

The CLI and the experiment layer are thin wrappers over these functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from schedlab.engine.result import Result
from schedlab.engine.simulator import ProgressCallback
from schedlab.engine.simulator import run as run_space_sharing
from schedlab.engine.timesharing import TimeSharingPolicy, run_timesharing
from schedlab.errors import InputError
from schedlab.policies.base import Policy
from schedlab.policies.registry import PolicySpec, labelled_policies, make_policy
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.platform.model import Platform
    from schedlab.policies.grid import DispatcherSpec
    from schedlab.policies.reservations import ReservationRules
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.reservations import Reservation

#: Reservation requests as a CSV file (docs/reservations.md) or as records.
ReservationSource = str | Path | Iterable["Reservation"]


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


def run(workload: Workload, policy: Policy, *, processors: int | None = None,
        overrun: str = "kill", progress: ProgressCallback | None = None,
        reservations: Iterable[Reservation] | None = None,
        reservation_rules: ReservationRules | None = None, tick: int = 0,
        max_queued_per_user: int | None = None) -> Result:
    """Simulate a loaded workload under a built policy on the engine the policy needs.

    The one place that chooses the engine: a time-sharing policy (gang
    scheduling, docs/policies/gang.md) runs on
    :func:`~schedlab.engine.timesharing.run_timesharing`, every other one on
    the space-sharing event loop (:func:`~schedlab.engine.simulator.run`).
    The CLI, :func:`simulate`, :func:`compare` and sweeps all come here.
    A grid policy needs a platform and a grid workload: :func:`simulate_grid`.
    """
    refuse_grid_policy(policy)
    if isinstance(policy, TimeSharingPolicy):
        unsupported = [name for name, value in (("reservations", reservations), ("tick", tick),
                                                ("max_queued_per_user", max_queued_per_user))
                       if value]
        if unsupported:
            raise InputError(f"policy {policy.name!r} time-shares the machine; it does not "
                             f"take the option {unsupported[0]!r} (space sharing only)",
                             field=unsupported[0])
        return run_timesharing(workload, policy, processors=processors, overrun=overrun,
                               progress=progress)
    return run_space_sharing(workload, policy, processors=processors, overrun=overrun,
                             progress=progress, reservations=reservations,
                             reservation_rules=reservation_rules, tick=tick,
                             max_queued_per_user=max_queued_per_user)


def simulate(workload: str | Path | Workload, policy: PolicySpec = "fcfs+easy", *,
             processors: int | None = None, overrun: str = "kill",
             progress: ProgressCallback | None = None,
             reservations: ReservationSource | None = None,
             reservation_rules: ReservationRules | None = None, tick: int = 0,
             max_queued_per_user: int | None = None,
             platform: str | Path | Platform | None = None,
             dispatch: DispatcherSpec = "round-robin", allocation: str = "shared",
             seed: int = 0) -> Result:
    """Simulate one policy on one workload and return the per-job :class:`Result`.

    ``policy`` is a name (``"sjf+easy"``), a mapping with ``name`` and
    parameters, or a :class:`~schedlab.policies.base.Policy`.  A workload
    given as a path or model name is loaded with default options.

    Advance reservations (docs/reservations.md): ``reservations`` is a
    request file (read with the workload's machine size and UnixStartTime)
    or a sequence of :class:`~schedlab.workload.reservations.Reservation`;
    ``reservation_rules`` sets placement and throttling; ``tick`` > 0 makes
    the policy schedule every ``tick`` seconds only (Catalina: 900);
    ``max_queued_per_user`` is DataStar's per-user queue limit.

    With a ``platform`` the run is a grid run (:func:`simulate_grid`:
    ``dispatch``, ``allocation``, ``seed``); without, one homogeneous machine.
    """
    if platform is not None:
        return simulate_grid(workload, policy, platform=platform, dispatch=dispatch,
                             allocation=allocation, overrun=overrun, seed=seed)
    refuse_grid_policy(policy)
    loaded = load_workload(workload, processors=processors)
    return run(loaded, make_policy(policy), processors=processors, overrun=overrun,
               progress=progress,
               reservations=load_reservations(reservations, loaded, processors=processors),
               reservation_rules=reservation_rules, tick=tick,
               max_queued_per_user=max_queued_per_user)


def compare(workload: str | Path | Workload, policies: Iterable[PolicySpec], *,
            processors: int | None = None, overrun: str = "kill",
            reservations: ReservationSource | None = None,
            reservation_rules: ReservationRules | None = None, tick: int = 0,
            max_queued_per_user: int | None = None) -> dict[str, Result]:
    """Simulate several policies on the same workload; results keyed by policy label.

    The label is the policy name, followed by the parameters a spec sets
    (``{"name": "qops", "k": 3}`` -> ``"qops[k=3]"``; see
    :func:`~schedlab.policies.registry.policy_label`), so one policy under
    several settings gives one result each; a label given twice is an
    :class:`~schedlab.errors.InputError`.  The reservation options are those
    of :func:`simulate`, the same for every policy.
    """
    chosen = labelled_policies(policies)
    loaded = load_workload(workload, processors=processors)
    requests = load_reservations(reservations, loaded, processors=processors)
    return {label: run(loaded, policy, processors=processors, overrun=overrun,
                       reservations=requests, reservation_rules=reservation_rules, tick=tick,
                       max_queued_per_user=max_queued_per_user)
            for label, policy in chosen.items()}


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


# ------------------------------------------------------------------ grid runs
def load_platform(source: str | Path | Platform, *, seed: int = 0) -> tuple[Platform, dict]:
    """A platform from a TOML file, a preset name (drawn with ``seed``) or a Platform,
    and how it was made (recorded in metrics.json: file, or preset and seed)."""
    from schedlab.platform import Platform, read_platform
    from schedlab.platform.generator import PRESETS, generate_platform, preset

    if isinstance(source, Platform):
        return source, {"name": source.name}
    path = Path(source)
    if not path.exists() and str(source) in PRESETS:
        platform = generate_platform(preset(str(source)), seed)
        return platform, {"name": platform.name, "preset": str(source), "seed": seed}
    if not path.exists() and not str(source).endswith(".toml"):
        raise InputError(f"no such platform file, nor a platform preset (presets: "
                         f"{', '.join(PRESETS)})", file=str(source))
    platform = read_platform(path)
    return platform, {"name": platform.name, "file": str(path)}


def load_grid_workload(source: str | Path | GridWorkload, platform: Platform) -> GridWorkload:
    """A grid workload (an SWF file with its ``.grid.csv`` side file, docs/platform.md),
    checked to run on ``platform``."""
    from schedlab.workload.grid import GridWorkload, read_grid_workload

    if isinstance(source, GridWorkload):
        source.check_on(platform)
        return source
    if isinstance(source, Workload):
        raise InputError("a grid run needs the grid attributes of the jobs (licences, "
                         "ratings): give a GridWorkload or an SWF file with its .grid.csv "
                         "side file (docs/platform.md)", field="workload")
    return read_grid_workload(source, platform=platform)


def simulate_grid(workload: str | Path | GridWorkload, policy: PolicySpec = "bf-fcfs", *,
                  platform: str | Path | Platform, dispatch: DispatcherSpec = "round-robin",
                  allocation: str = "shared", overrun: str = "kill", seed: int = 0) -> Result:
    """Simulate a grid workload on a platform (docs/policies/grid.md).

    Each cluster gets its own instance of the local ``policy`` (``grid-fcfs``,
    ``bf-fcfs``, ...); ``dispatch`` (``round-robin``, ``random``,
    ``least-work``, ``proportional``, or a mapping with parameters) sends
    each job to a cluster; a platform of one cluster needs none.
    ``allocation``: ``"shared"`` (jobs share a machine's CPUs) or
    ``"exclusive"`` (one job per machine).  ``seed`` draws a preset
    platform and seeds the ``random`` dispatcher.
    """
    from schedlab.engine.grid import run_grid
    from schedlab.policies.grid import make_dispatcher, make_local_policy

    chosen, made = load_platform(platform, seed=seed)
    grid = load_grid_workload(workload, chosen)
    locals_ = [_local_policy(policy) for _ in chosen.clusters]
    dispatcher = make_dispatcher(dispatch) if len(chosen.clusters) > 1 else None
    result = run_grid(grid, chosen, locals_, dispatcher, allocation=allocation,
                      overrun=overrun, seed=seed)
    result.meta["platform"] = made
    return result


def _local_policy(spec: PolicySpec):
    """A fresh grid local policy; a space-sharing policy's name gets a clear error."""
    from schedlab.policies.grid import (LOCAL_POLICIES, LocalPolicy, canonical_name,
                                        make_local_policy)

    name = spec.get("name") if isinstance(spec, dict) else getattr(spec, "name", spec)
    if not isinstance(spec, LocalPolicy) and canonical_name(name) not in LOCAL_POLICIES:
        raise InputError(f"policy {name!r} is not a grid policy: a run on a platform needs "
                         f"one of {', '.join(LOCAL_POLICIES)} (docs/policies/grid.md)",
                         field="policy")
    return make_local_policy(spec)


def refuse_grid_policy(spec: PolicySpec) -> None:
    """InputError for a grid policy asked to run without a platform."""
    from schedlab.policies.grid import LOCAL_POLICIES, LocalPolicy, canonical_name

    name = spec.get("name") if isinstance(spec, dict) else getattr(spec, "name", spec)
    if isinstance(spec, LocalPolicy) or canonical_name(name) in LOCAL_POLICIES:
        raise InputError(f"policy {name!r} is a grid policy: it needs a platform (--platform "
                         f"FILE, docs/policies/grid.md)", field="policy")
