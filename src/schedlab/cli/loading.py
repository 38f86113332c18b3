"""Loading a workload as the command-line options describe, with the warnings the user must see."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.cli import freeze_long_lived
from schedlab.cli.consoles import console, err_console
from schedlab.cli.options import option_name
from schedlab.cli.progress import DelayedProgress
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.api import RunSpec
    from schedlab.policies.registry import DispatcherSpec, PolicySpec
    from schedlab.workload.grid import GridWorkload


def run_spec(workload: str, policy: PolicySpec = "fcfs+easy", *, procs: int | None,
             width_field: str = "requested", missing_estimate: str = "use-runtime",
             strict: bool = False, cancellations: str = "ignore", jobs: int | None = None,
             seed: int = 0,
             shrink: float | None = None, perfect_estimates: bool = False,
             split: int | None = None, window: tuple[int, int] | None = None,
             load_factor: float | None = None, load_method: str = "duplicate",
             deadlines: str | None = None, stringency: float | None = None,
             deadline_fraction: float = 1.0, relaxation: float | None = None,
             overrun: str = "kill", reservations: str | None = None, tick: int = 0,
             max_queued: int | None = None, failures: str | None = None,
             maintenance: str | None = None, platform: str | None = None,
             dispatch: DispatcherSpec = "round-robin", allocation: str = "shared",
             preemption_overhead: int = 0) -> RunSpec:
    """The run the command-line options describe (:class:`~schedlab.run.RunSpec`).

    Transform order: time window, first N jobs, width split, shrinking,
    perfect estimates, load scaling, deadlines (QoPS §4.2: the trace is
    scaled first, then scheduled with EASY, then given deadlines).
    """
    from schedlab.api import RunSpec, Transforms

    steps = Transforms(window=window, split=split, shrink=shrink,
                       perfect_estimates=perfect_estimates, load=load_factor,
                       load_method=load_method, deadlines=deadlines, stringency=stringency,
                       deadline_fraction=deadline_fraction, relaxation=relaxation)
    return RunSpec(workload, policy, processors=procs, width_field=width_field,
                   missing_estimate=missing_estimate, strict=strict,
                   cancellations=cancellations, jobs=jobs, seed=seed, transforms=steps,
                   overrun=overrun, reservations=reservations, tick=tick,
                   max_queued_per_user=max_queued, failures=failures,
                   maintenance=maintenance, platform=platform, dispatch=dispatch,
                   allocation=allocation, preemption_overhead=preemption_overhead)


def prepare(spec: RunSpec) -> Workload | GridWorkload:
    """The spec's input as its execution model reads it (a workload loaded and transformed,
    or a grid workload on its platform), with the warnings the user must see.

    Option names in errors are the command line's (``--load-method``).

    The cycle collector rests while the input is read: its jobs (tens of thousands of
    tuples) would set off collections that walk them, in search of cycles a reader never
    makes (on KTH-SP2 about 0.008 s of CPU).  In the command's own process the input,
    which lives as long as the command, is then moved out of the collector's reach with
    the start-up objects (:func:`schedlab.cli.freeze_long_lived`).
    """
    from schedlab.api import prepare_workload
    from schedlab.engine.kernel import cyclic_gc_paused

    source = spec.workload
    name = source.name if isinstance(source, Workload) else Path(str(source)).name
    bar = DelayedProgress(f"EASY for deadlines on {name}")
    try:
        with cyclic_gc_paused():
            loaded: Workload | GridWorkload = prepare_workload(spec, label=option_name,
                                                               progress=bar)
            freeze_long_lived()
    finally:
        bar.close()
    if isinstance(loaded, Workload):
        report_guesses(loaded)
        steps = spec.transforms
        if steps.deadlines is not None or steps.stringency is not None:
            report_unreachable_deadlines(loaded, from_stringency=steps.stringency is not None)
    return loaded


def jobs_of(prepared: Workload | GridWorkload) -> Workload:
    """The jobs of a prepared input: the workload, or a grid workload's jobs."""
    return prepared if isinstance(prepared, Workload) else prepared.workload


def load(workload: str, **options: Any) -> Workload:
    """Load a workload and apply the transforms asked for on the command line
    (the keyword arguments of :func:`run_spec`)."""
    return jobs_of(prepare(run_spec(workload, **options)))


def report_guesses(workload: Workload) -> None:
    """Warn on stderr where the reader guessed what the trace does not say (docs/reference/workloads.md).

    A machine sized by the widest job, and estimates taken from runtimes
    (perfect estimates, which flatter backfilling), change every result:
    the user must know, and learn how to set them.
    """
    for line in guess_warnings(workload):
        err_console.print(f"warning: {line}", markup=False, highlight=False)


def guess_warnings(workload: Workload, *, machine_size: bool = True) -> list[str]:
    """The warnings of :func:`report_guesses`, one sentence each.

    ``machine_size=False`` leaves out a guessed machine size (a trace enriched for a grid
    platform runs on the platform's machines, not on its own).
    """
    from schedlab.workload.job import (
        ESTIMATES_PARTLY_RUNTIME,
        ESTIMATES_RUNTIME,
        GUESSED_MACHINE_SOURCES,
        MACHINE_FROM_WIDEST_JOB,
    )
    from schedlab.workload.swf import FRACTIONAL_TIMES

    facts = workload.provenance
    lines = []
    source = facts.get("machine_size_source")
    if machine_size and source in GUESSED_MACHINE_SOURCES:
        lacking, basis = (("has no MaxProcs or MaxNodes header", "the widest job")
                          if source == MACHINE_FROM_WIDEST_JOB
                          else ("does not give the machine size", "the peak of CPUs in use"))
        lines.append(f"{workload.name} {lacking}: the machine size is guessed as "
                     f"{workload.processors} processors ({basis}); if the real machine is "
                     f"larger, jobs queue behind a machine it is not and waits (and every "
                     f"metric built on them) are meaningless: give the real size with --procs")
    fractional = facts.get(FRACTIONAL_TIMES)
    if fractional:
        lines.append(f"{workload.name}: {fractional} records have fractional times (fields "
                     f"2, 4 or 9), truncated to whole seconds (docs/reference/workloads.md)")
    estimates = facts.get("estimates_source")
    if estimates == ESTIMATES_RUNTIME:
        lines.append(f"{workload.name} has no requested times: every job's estimate "
                     f"is its runtime, i.e. perfect estimates, which flatter backfilling")
    elif estimates == ESTIMATES_PARTLY_RUNTIME:
        lines.append(f"{workload.name}: {facts['estimates_from_runtime']} jobs have no "
                     f"requested time: their estimate is their runtime "
                     f"(--missing-estimate drop skips them instead)")
    return lines


def report_unreachable_deadlines(workload: Workload, *, from_stringency: bool) -> None:
    """Warn when jobs have deadlines that even an immediate start cannot meet by their estimates.

    Admission control plans by estimates, so such a job is always refused.
    Deadlines from ``--stringency`` assume exact estimates (QoPS §4.1, §6):
    on a trace with real estimates most of them are out of reach, and the
    hint names the option that makes them reachable.
    """
    with_deadline = [(job, job.deadline) for job in workload.jobs if job.deadline is not None]
    unreachable = [(job, deadline) for job, deadline in with_deadline
                   if job.submit + job.estimate > deadline]
    if not unreachable:
        return
    # A perfect estimate is the runtime, at least 1 s (a job that runs 0 s keeps the
    # least estimate): only the jobs whose deadline that meets are helped by one.
    helped = sum(1 for job, deadline in unreachable if job.submit + max(job.runtime, 1) <= deadline)
    hint = ""
    if from_stringency and helped:
        hint = (f" Deadlines from --stringency assume exact estimates (QoPS §4.1): "
                f"--perfect-estimates makes {helped} of them reachable.")
    if helped < len(unreachable):
        hint += (f" {len(unreachable) - helped} of them cannot meet it even with an exact "
                 f"estimate (their runtime, at least 1 s): no estimate helps.")
    err_console.print(f"note: {len(unreachable)} of {len(with_deadline)} jobs with a deadline cannot "
                      f"meet it by their estimate even if started at once; admission control will "
                      f"refuse them.{hint}", markup=False, highlight=False)


def report_skips(workload: Workload) -> None:
    """Always say how many records were skipped and why (SPEC §1.1), and how many
    cancellations are replayed (docs/reference/events.md)."""
    total = sum(workload.skipped.values())
    if not workload.skipped:
        return
    parts = ", ".join(f"{reason}: {count}" for reason, count in workload.skipped.items())
    replayed = sum(job.cancel_after is not None for job in workload.jobs)
    cancelled = f"; {replayed} cancellations replayed" if replayed else ""
    console.print(f"[dim]{workload.name}: {len(workload)} jobs; skipped {total} ({parts})"
                  f"{cancelled}[/dim]")
