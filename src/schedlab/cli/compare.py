"""``schedlab compare``: several policies on one workload, one table and one figure."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from schedlab.cli.common import (SUMMARY_FORMATS, CapOpt, CapWindowOpt, DeadlineFractionOpt,
                                 DeadlinesOpt, DelayedProgress, JobsOpt, LoadMethodOpt, LoadOpt,
                                 MaxQueuedOpt, MinDurationOpt, MinNoticeOpt, MissingEstimateOpt,
                                 OverrunOpt, PerfectOpt, PlacementOpt, ProcsOpt, RelaxationOpt,
                                 ReservationsOpt, SeedOpt, ShrinkOpt, StrictOpt, StringencyOpt,
                                 ThrottleOpt, TickOpt, WidthFieldOpt, WorkloadArg, console, load,
                                 metrics_table, report_reservations, report_skips,
                                 reservation_options, summary_metrics)
from schedlab.errors import InputError

DEFAULT_POLICIES = "fcfs,fcfs+easy,fcfs+conservative,sjf+conservative,ljf+conservative"


def compare(
    workload: WorkloadArg,
    policies: Annotated[str, typer.Option(
        "--policies", help="Comma-separated policy names.")] = DEFAULT_POLICIES,
    procs: ProcsOpt = None,
    out: Annotated[Path, typer.Option(
        help="Directory for the figure, the table (CSV) and one sub-directory per policy.")]
        = Path("schedlab-compare"),
    overrun: OverrunOpt = "kill",
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    strict: StrictOpt = False,
    jobs: JobsOpt = None,
    seed: SeedOpt = 0,
    shrink: ShrinkOpt = None,
    perfect_estimates: PerfectOpt = False,
    load_factor: LoadOpt = None,
    load_method: LoadMethodOpt = "duplicate",
    deadlines: DeadlinesOpt = None,
    stringency: StringencyOpt = None,
    deadline_fraction: DeadlineFractionOpt = 1.0,
    relaxation: RelaxationOpt = None,
    reservations: ReservationsOpt = None,
    reservation_placement: PlacementOpt = "exact",
    throttle: ThrottleOpt = False,
    reservation_cap: CapOpt = None,
    reservation_window: CapWindowOpt = 604800,
    min_reservation_duration: MinDurationOpt = 0,
    min_reservation_notice: MinNoticeOpt = 0,
    tick: TickOpt = 0,
    max_queued_per_user: MaxQueuedOpt = None,
) -> None:
    """Simulate several policies on one workload; print one table, write one figure."""
    from schedlab.api import run
    from schedlab.metrics import compute_metrics
    from schedlab.output import (atomic_directory, atomic_write_text, write_jobs_csv,
                                 write_metrics_json)
    from schedlab.workload.reservations import write_outcomes
    from schedlab.policies.registry import make_policy
    from schedlab.viz.compare import write_comparison_figure

    names = [p.strip() for p in policies.split(",") if p.strip()]
    if not names:
        raise InputError("give at least one policy name", field="--policies")
    chosen = [make_policy(name) for name in names]
    loaded = load(workload, procs=procs, width_field=width_field,
                  missing_estimate=missing_estimate, strict=strict, jobs=jobs, seed=seed,
                  shrink=shrink, perfect_estimates=perfect_estimates,
                  load_factor=load_factor, load_method=load_method, deadlines=deadlines,
                  stringency=stringency, deadline_fraction=deadline_fraction,
                  relaxation=relaxation)
    report_skips(loaded)
    options = reservation_options(
        loaded, procs=procs, reservations=reservations, placement=reservation_placement,
        throttle=throttle, cap=reservation_cap, window=reservation_window,
        min_duration=min_reservation_duration, min_notice=min_reservation_notice, tick=tick,
        max_queued=max_queued_per_user)
    rows: dict[str, dict] = {}
    results = {}
    with atomic_directory(out) as staging:
        for policy in chosen:
            bar = DelayedProgress(f"{policy.name} on {loaded.name}")
            try:
                result = run(loaded, policy, processors=procs, overrun=overrun, progress=bar,
                             **options)
            finally:
                bar.close()
            rows[policy.name] = compute_metrics(result)
            results[policy.name] = result
            write_jobs_csv(result, staging / _safe(policy.name) / "jobs.csv")
            write_metrics_json(result, rows[policy.name],
                               staging / _safe(policy.name) / "metrics.json")
            if result.reservations is not None:
                write_outcomes(result.reservations,
                               staging / _safe(policy.name) / "reservations.csv")
        machine = next(iter(results.values())).processors
        title = f"{loaded.name}: {len(loaded)} jobs on {machine} processors"
        atomic_write_text(staging / "metrics.csv", _metrics_csv(rows))
        offered = loaded.offered_load(machine)
        write_comparison_figure(rows, title, staging / "comparison.png",
                                offered_loads=[] if offered is None else [offered])
    console.print(metrics_table(title, rows, summary_metrics(rows), SUMMARY_FORMATS))
    for result in results.values():
        report_reservations(result)
    console.print(f"wrote {out / 'comparison.png'}, {out / 'metrics.csv'} and per-policy "
                  f"results in {out}/")


def _safe(name: str) -> str:
    return name.replace("+", "_").replace("/", "_")


def _metrics_csv(rows: dict[str, dict]) -> str:
    names = sorted({k for metrics in rows.values() for k in metrics})
    lines = [",".join(["policy", *names])]
    for policy, metrics in rows.items():
        lines.append(",".join([policy, *("" if metrics.get(n) is None else str(metrics[n])
                                          for n in names)]))
    return "\n".join(lines) + "\n"
