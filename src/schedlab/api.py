"""The public Python API: load a workload, pick a policy, simulate, compare.

Every function here describes its runs as :class:`~schedlab.run.RunSpec`
and executes them with :func:`~schedlab.execution.execute`, as the CLI and the
experiment runner do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from schedlab.engine.result import Result
from schedlab.engine.simulator import ProgressCallback
from schedlab.execution import MODELS, execute, model_of, prepare_workload, refuse_options
from schedlab.pipeline import Transforms
from schedlab.policies.base import Policy
from schedlab.policies.registry import PolicySpec, labelled_policies
from schedlab.predictors import (
    PredictionAccuracy,
    PredictorEntry,
    PredictorSpec,
    TraceRecord,
    available_predictors,
    make_predictor,
)
from schedlab.predictors import prediction_accuracy as replay_accuracy
from schedlab.run import (
    ReservationSource,
    RunSpec,
    load_grid_workload,
    load_platform,
    load_reservations,
    load_workload,
    with_reservation_params,
)
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    import pandas as pd

    from schedlab.platform.model import Platform
    from schedlab.policies.grid import DispatcherSpec
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.outages import FailureSpec, Window

__all__ = [
    "COMPILED_POLICIES",
    "MODELS",
    "PredictionAccuracy",
    "ReservationSource",
    "RunSpec",
    "Transforms",
    "compare",
    "execute",
    "jobs_frame",
    "load_grid_workload",
    "load_platform",
    "load_reservations",
    "load_workload",
    "make_predictor",
    "metrics_frame",
    "model_of",
    "precompile",
    "prediction_accuracy",
    "predictors",
    "prepare_workload",
    "refuse_options",
    "run",
    "simulate",
    "simulate_grid",
    "trace_record",
    "with_reservation_params",
]


def run(workload: Workload, policy: Policy, *, processors: int | None = None,
        overrun: str = "kill", progress: ProgressCallback | None = None,
        reservations: ReservationSource | None = None, tick: int = 0,
        max_queued_per_user: int | None = None, failures: str | FailureSpec | None = None,
        maintenance: str | Path | tuple[Window, ...] | None = None) -> Result:
    """Simulate a loaded workload under a built policy on the engine the policy needs.

    :func:`~schedlab.execution.execute` of the run these arguments describe; the
    engine is chosen by the policy's execution model (:data:`schedlab.execution.MODELS`).
    A grid policy needs a platform and a grid workload: :func:`simulate_grid`.
    """
    return execute(RunSpec(workload, policy, processors=processors, overrun=overrun,
                           reservations=reservations, tick=tick,
                           max_queued_per_user=max_queued_per_user, failures=failures,
                           maintenance=maintenance), progress,
                   workload=workload)


def simulate(workload: str | Path | Workload | GridWorkload, policy: PolicySpec = "fcfs+easy", *,
             processors: int | None = None, overrun: str = "kill",
             progress: ProgressCallback | None = None,
             reservations: ReservationSource | None = None, tick: int = 0,
             max_queued_per_user: int | None = None,
             failures: str | FailureSpec | None = None,
             maintenance: str | Path | tuple[Window, ...] | None = None,
             platform: str | Path | Platform | None = None,
             dispatch: DispatcherSpec = "round-robin", allocation: str = "shared",
             seed: int = 0, preemption_overhead: int = 0) -> Result:
    """Simulate one policy on one workload and return the per-job :class:`Result`.

    ``policy`` is a name (``"sjf+easy"``), a mapping with ``name`` and
    parameters, or a :class:`~schedlab.policies.base.Policy`.  A workload
    given as a path or model name is loaded with default options; for the
    reader options and transforms, describe the run with
    :class:`~schedlab.run.RunSpec` and call :func:`~schedlab.execution.execute`.

    Advance reservations (docs/reference/reservations.md): ``reservations`` is a
    request file (read with the workload's machine size and UnixStartTime)
    or a sequence of :class:`~schedlab.workload.reservations.Reservation`;
    placement and throttling are parameters of the policy
    (``{"name": "fcfs+easy", "reservation_placement": "earliest"}``);
    ``tick`` > 0 makes the policy schedule every ``tick`` seconds only
    (Catalina: 900); ``max_queued_per_user`` is DataStar's per-user queue limit.

    Failures and maintenance (docs/reference/events.md): ``failures`` is a
    ``--failures`` text (``"mtbf=7d,repair=4h,fate=checkpoint"``, or a failure
    file with keys after it) or a :class:`~schedlab.workload.outages.FailureSpec`;
    ``maintenance`` a maintenance file or windows.

    With a ``platform`` the run is a grid run (:func:`simulate_grid`:
    ``dispatch``, ``allocation``, ``seed``, ``preemption_overhead``); without, one
    homogeneous machine.
    """
    return execute(RunSpec(workload, policy, processors=processors, overrun=overrun,
                           reservations=reservations, tick=tick,
                           max_queued_per_user=max_queued_per_user, failures=failures,
                           maintenance=maintenance, platform=platform,
                           dispatch=dispatch, allocation=allocation, seed=seed,
                           preemption_overhead=preemption_overhead), progress)


def compare(workload: str | Path | Workload, policies: Iterable[PolicySpec], *,
            processors: int | None = None, overrun: str = "kill",
            reservations: ReservationSource | None = None, tick: int = 0,
            max_queued_per_user: int | None = None, failures: str | FailureSpec | None = None,
            maintenance: str | Path | tuple[Window, ...] | None = None
            ) -> dict[str, Result]:
    """Simulate several policies on the same workload; results keyed by policy label.

    The label is the policy name, followed by the parameters a spec sets
    (``{"name": "qops", "k": 3}`` -> ``"qops[k=3]"``; see
    :func:`~schedlab.policies.registry.policy_label`), so one policy under
    several settings gives one result each; a label given twice is an
    :class:`~schedlab.errors.InputError`.  The workload is loaded once; the
    engine options are those of :func:`simulate`, the same for every policy.
    """
    chosen = labelled_policies(policies)
    base = RunSpec(workload, processors=processors, overrun=overrun, reservations=reservations,
                   tick=tick, max_queued_per_user=max_queued_per_user, failures=failures,
                   maintenance=maintenance)
    loaded = prepare_workload(base)
    base = replace(base, workload=loaded,
                   reservations=load_reservations(reservations, loaded, processors=processors))
    return {label: execute(replace(base, policy=policy), workload=loaded)
            for label, policy in chosen.items()}


# ------------------------------------------------------------------ grid runs
def simulate_grid(workload: str | Path | GridWorkload, policy: PolicySpec = "bf-fcfs", *,
                  platform: str | Path | Platform, dispatch: DispatcherSpec = "round-robin",
                  allocation: str = "shared", overrun: str = "kill", seed: int = 0,
                  preemption_overhead: int = 0, failures: str | FailureSpec | None = None,
                  maintenance: str | Path | tuple[Window, ...] | None = None,
                  cancellations: str = "ignore") -> Result:
    """Simulate a grid workload on a platform (docs/reference/policies/grid.md): :func:`execute` of
    a :class:`RunSpec` with a ``platform``, which runs on the grid engine.

    Each cluster gets its own instance of the local ``policy`` (``grid-fcfs``,
    ``bf-fcfs``, ...); ``dispatch`` (``round-robin``, ``random``,
    ``least-work``, ``proportional``, or a mapping with parameters) sends
    each job to a cluster; a platform of one cluster needs none.
    ``allocation``: ``"shared"`` (jobs share a machine's CPUs) or
    ``"exclusive"`` (one job per machine).  ``seed`` draws a preset
    platform and seeds the ``random`` dispatcher.  ``preemption_overhead``
    (seconds >= 0) is added to every resumption of a job the local policy
    preempted (``{"name": "cs", "preemption": True}``; docs/reference/policies/grid.md,
    "Preemption").  ``failures`` (a ``--failures`` text or a FailureSpec, node ids being
    machine indices), ``maintenance`` (a file or windows of whole machines) and
    ``cancellations`` (what becomes of an SWF file's cancelled records) are the events
    of docs/reference/events.md, "Grid runs".
    """
    return execute(RunSpec(workload, policy, platform=platform, dispatch=dispatch,
                           allocation=allocation, overrun=overrun, seed=seed,
                           preemption_overhead=preemption_overhead, failures=failures,
                           maintenance=maintenance, cancellations=cancellations))


# ------------------------------------------------------------------ compiled loops
#: The policies whose hot loops are compiled (numba): conservative backfilling's compression
#: and the profile kernels, planning's rebuild and dynP's self-tuning step, the admission
#: searches of QoPS, MSB and MRT, the slurm policy's backfill pass.  One small run of each
#: compiles every kernel they call.
COMPILED_POLICIES = ("fcfs+conservative", "fcfs+plan", "dynp", "qops", "msb", "mrt", "slurm")
#: The precompile runs' jobs get deadlines (QoPS §4.2: from an EASY schedule), which the
#: admission policies need and the others ignore.
_PRECOMPILE_DEADLINES = Transforms(stringency=0.5)


def precompile(policies: Iterable[str] = COMPILED_POLICIES) -> dict[str, float]:
    """Compile the hot loops of ``policies`` now and return the wall seconds each took.

    numba compiles a kernel the first time a run calls it and caches the
    machine code on disk (next to the package, or in ``NUMBA_CACHE_DIR``),
    so only the first run on a machine pays: about 10 s for planning,
    more for all of them.  One run of each policy on 400 jobs of the
    built-in ``lublin`` model, with deadlines (the admission policies need
    them, the others ignore them), calls every kernel the policy uses, under both overrun modes (a job that
    outlives its estimate takes other paths), and once more with every fifth job
    cancelled by its user (a withdrawn booking takes others again); with a warm
    cache it only loads them.  Plain FCFS's run in arrival order
    (:mod:`schedlab.engine.arrival_order`) is compiled by one ``fcfs`` run (entry
    ``fcfs``), whose schedule is then written as jobs.csv and as SWF and read back, which
    compiles the writer's and the SWF reader's loops (:mod:`schedlab.output_kernels`,
    :mod:`schedlab.workload.swf_kernels`).  The processor map of runs with failures and windows
    (:mod:`schedlab.engine.processors`), which every policy uses, is compiled too, by one
    run with failures (entry ``processor map``), and so is the ``knn`` predictor's search
    (:mod:`schedlab.predictors.knn_kernel`), by one run planning with it (entry ``knn
    predictor``), and so are the ``cs`` pass's Job-Machine matrix and knapsack
    (:mod:`schedlab.policies.grid.convergent.kernels`), by one ``cs`` grid run and one
    knapsack (entry ``convergent scheduling``), and so are the grid EASY pass's
    reservation and admissions (:mod:`schedlab.policies.grid.easy_kernels`) and Flexible
    Backfilling's priority order (:mod:`schedlab.policies.grid.flexible_kernels`), by one
    ``bf-fcfs`` and one ``bf-mod`` grid run (entry ``grid backfilling``).

    For every policy (the default), the kernels those runs compiled are then built ahead
    of time into an extension module (:func:`schedlab.compiled.build`, entry
    ``ahead-of-time extension``), which later runs load without importing numba; when
    that extension is already current (:func:`schedlab.compiled.extension_is_current`:
    built from every module that declares kernels, none changed since), nothing is run
    (an empty result).  A build that
    fails (no C compiler) is a warning: runs then compile with numba, as the first one
    did.  ``make`` runs it after installing and before the tests (``schedlab
    precompile``).
    """
    import time
    import warnings

    from schedlab import compiled

    every = set(policies) == set(COMPILED_POLICIES)
    if every:
        if compiled.extension_is_current():
            return {}
        compiled.use_jit()
    compiled.quiet_compiles()
    lublin = load_workload("lublin", jobs=400, seed=1)
    cancelling = lublin.with_jobs([job._replace(cancel_after=600) if k % 5 == 0 else job
                                   for k, job in enumerate(lublin.jobs)])
    taken = {}
    for name in policies:
        began = time.perf_counter()
        for overrun in ("kill", "extend"):
            execute(RunSpec("lublin", name, jobs=400, seed=1,
                            transforms=_PRECOMPILE_DEADLINES, overrun=overrun))
        execute(RunSpec(cancelling, name))
        taken[name] = time.perf_counter() - began
    began = time.perf_counter()
    _write_and_read_back(execute(RunSpec(lublin, "fcfs")))
    taken["fcfs"] = time.perf_counter() - began
    began = time.perf_counter()
    execute(RunSpec(lublin, "fcfs", failures="mtbf=1d,fate=requeue"))
    taken["processor map"] = time.perf_counter() - began
    began = time.perf_counter()
    execute(RunSpec(lublin, {"name": "fcfs+easy", "predictor": "knn"}))
    taken["knn predictor"] = time.perf_counter() - began
    began = time.perf_counter()
    _compile_convergent_scheduling()
    taken["convergent scheduling"] = time.perf_counter() - began
    began = time.perf_counter()
    _compile_grid_backfilling()
    taken["grid backfilling"] = time.perf_counter() - began
    if every:
        began = time.perf_counter()
        try:
            compiled.build()
        except Exception as error:  # any failure to build leaves the JIT path
            warnings.warn(f"the hot loops were not compiled ahead of time ({error}); runs "
                          "compile them with numba instead", stacklevel=2)
        else:
            taken["ahead-of-time extension"] = time.perf_counter() - began
    return taken


def _write_and_read_back(result: Result) -> None:
    """Compile the SWF reader's number scan (:mod:`schedlab.workload.swf_kernels`) and
    jobs.csv's writer (:mod:`schedlab.output_kernels`): ``result`` written as jobs.csv and
    as an SWF schedule, which is read back."""
    import tempfile

    from schedlab.output import write_jobs_csv
    from schedlab.workload.swf import read_swf, write_swf

    with tempfile.TemporaryDirectory(prefix="schedlab-precompile-") as folder:
        write_jobs_csv(result, Path(folder) / "jobs.csv")
        write_swf(result, Path(folder) / "schedule.swf")
        read_swf(Path(folder) / "schedule.swf")


def _compile_convergent_scheduling() -> None:
    """Compile the ``cs`` pass's kernels (:mod:`schedlab.policies.grid.convergent.kernels`):
    one ``cs`` run of 100 jobs on the ``thesis-4.2`` cluster (the Job-Machine matrix, the
    knapsack's values, IMFS), one greedy knapsack where two jobs want one copy (its walk)
    and one MFS from scratch (its costs)."""
    import numpy as np

    from schedlab.engine.grid import run_grid
    from schedlab.platform.generator import generate_platform
    from schedlab.platform.generator import preset as platform_preset
    from schedlab.policies.grid import make_local_policy
    from schedlab.policies.grid.convergent.knapsack import greedy_knapsack
    from schedlab.policies.grid.convergent.matching import mfs
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(platform_preset("thesis-4.2"), seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.2"], n_jobs=100, interarrival=1, seed=1)
    run_grid(grid, platform, [make_local_policy({"name": "cs"})], allocation="exclusive")
    greedy_knapsack([1.0, 2.0], [[True], [True]], [1])
    mfs(np.array([[1.0], [2.0]]))


def _compile_grid_backfilling() -> None:
    """Compile the grid EASY pass's kernels (:mod:`schedlab.policies.grid.easy_kernels`,
    :mod:`schedlab.policies.grid.flexible_kernels`): one ``bf-fcfs`` and one ``bf-mod`` run
    of 100 jobs on the ``thesis-4.2`` cluster (their reservations, the admissions behind
    them, BF_MOD's priority order)."""
    from schedlab.engine.grid import run_grid
    from schedlab.platform.generator import generate_platform
    from schedlab.platform.generator import preset as platform_preset
    from schedlab.policies.grid import make_local_policy
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(platform_preset("thesis-4.2"), seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.2"], n_jobs=100, interarrival=1, seed=1)
    for name in ("bf-fcfs", "bf-mod"):
        run_grid(grid, platform, [make_local_policy(name)])


# ------------------------------------------------------------------ as tables
def jobs_frame(result: Result) -> pd.DataFrame:
    """The per-job table of ``result`` as a pandas DataFrame: the columns and values of its
    jobs.csv (docs/reference/metrics.md), read from the same writer, so that the two never
    differ; an empty cell (a rejected job's start) is missing."""
    import io

    import pandas as pd

    from schedlab.output import jobs_csv_text

    return pd.read_csv(io.StringIO(jobs_csv_text(result)))


def metrics_frame(results: Result | Mapping[str, Result]) -> pd.DataFrame:
    """The metrics of one result, or of several (``compare``'s labels), as a DataFrame: one
    row per result, indexed by its label (the policy's name for one result), one column per
    metric of :func:`~schedlab.metrics.compute_metrics`.  A metric over no jobs is missing
    (NaN), as in a sweep's results, never 0."""
    import pandas as pd

    from schedlab.metrics import compute_metrics

    named = {results.policy: results} if isinstance(results, Result) else dict(results)
    rows = {label: compute_metrics(result) for label, result in named.items()}
    frame = pd.DataFrame.from_dict(rows, orient="index", dtype="float64")
    frame.index.name = "policy"
    return frame


# ------------------------------------------------------------------ runtime predictors
def predictors() -> dict[str, PredictorEntry]:
    """Every runtime predictor :func:`make_predictor` accepts, built in and plug-in
    (docs/reference/predictions.md)."""
    return available_predictors()


def trace_record(trace: str | Path, workload: Workload) -> TraceRecord:
    """The schedule an SWF trace records for the jobs of ``workload`` (read from it):
    start = submit + wait, end = start + runtime, the status and the executable.  A file
    that is no SWF trace (a Slurm export) records nothing here: every job is taken to
    start at its submission."""
    from schedlab.interop import is_sacct_file
    from schedlab.workload.swf import read_swf_schedule

    path = Path(trace)
    if not path.is_file() or is_sacct_file(path):
        return TraceRecord.without_waits(workload)
    columns = read_swf_schedule(path, workload.to_arrays()["id"])
    return TraceRecord.from_swf_columns(workload, columns["wait"], columns["status"],
                                        columns["executable"])


def prediction_accuracy(workload: str | Path | Workload, predictor: PredictorSpec = "easy++",
                        *, record: TraceRecord | None = None, width_field: str = "requested",
                        missing_estimate: str = "use-runtime", strict: bool = False,
                        processors: int | None = None) -> PredictionAccuracy:
    """How well ``predictor`` predicts the runtimes of a trace, without scheduling it.

    The trace is replayed in its own recorded schedule: at each submission the
    predictor has observed the jobs that ended by then (:func:`trace_record`;
    a workload given as a :class:`Workload` without ``record`` is taken to have
    started every job at its submission).  The predictions are measured, and the
    user estimates beside them, against the time each job holds its processors,
    ``min(runtime, estimate)`` (docs/reference/predictions.md).  ``predictor`` is
    a name, ``NAME[KEY=VALUE,...]``, a mapping or a
    :class:`~schedlab.predictors.Predictor` (a fresh
    copy of it is replayed).
    """
    built = make_predictor(predictor)
    if not isinstance(workload, Workload):
        loaded = load_workload(workload, width_field=width_field,
                               missing_estimate=missing_estimate, strict=strict,
                               processors=processors)
        record = record or trace_record(workload, loaded)
        workload = loaded
    return replay_accuracy(workload, built, record)
