"""``schedlab simulate``: one policy on one workload, results written to a directory."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.consoles import console
from schedlab.cli.conventions import OUTPUT_PANEL, POLICY_PANEL
from schedlab.cli.gridsim import (
    AllocationOpt,
    DispatchOpt,
    DispatchParamOpt,
    PlatformOpt,
    PreemptionOverheadOpt,
)
from schedlab.cli.loading import jobs_of, prepare, report_skips, run_spec
from schedlab.cli.options import (
    CancellationsOpt,
    CapOpt,
    CapWindowOpt,
    DeadlineFractionOpt,
    DeadlinesOpt,
    FailuresOpt,
    JobsOpt,
    LoadMethodOpt,
    LoadOpt,
    MaintenanceOpt,
    MaxQueuedOpt,
    MinDurationOpt,
    MinNoticeOpt,
    MissingEstimateOpt,
    OverrunOpt,
    PerfectOpt,
    PlacementOpt,
    ProcsOpt,
    RelaxationOpt,
    ReservationsOpt,
    SeedOpt,
    ShrinkOpt,
    SlurmAssocOpt,
    SlurmQosOpt,
    StrictOpt,
    StringencyOpt,
    ThrottleOpt,
    TickOpt,
    WidthFieldOpt,
    WorkloadArg,
    complete_policy,
    option_name,
    reservation_params,
)
from schedlab.cli.parsing import parse_params, parse_policy_spec
from schedlab.cli.progress import DelayedProgress
from schedlab.cli.summary import (
    SUMMARY_FORMATS,
    cluster_table,
    metrics_table,
    report_outages,
    report_reservations,
    report_scheduling_cost,
    run_title,
    summary_metrics,
    warn_if_saturated,
)
from schedlab.errors import InputError
from schedlab.specs import spec_text


def simulate(
    workload: WorkloadArg,
    procs: ProcsOpt = None,
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    cancellations: CancellationsOpt = "ignore",
    strict: StrictOpt = False,
    jobs: JobsOpt = None,
    seed: SeedOpt = 0,
    shrink: ShrinkOpt = None,
    perfect_estimates: PerfectOpt = False,
    load_factor: LoadOpt = None,
    load_method: LoadMethodOpt = "duplicate",
    policy: Annotated[str | None, typer.Option(
        "--policy", "-p", help="Policy name, e.g. 'sjf+easy' (see 'schedlab policies'), or "
        "NAME[KEY=VALUE,...] with parameters, e.g. 'dynp\\[metric=slowdown]'; default fcfs+easy, "
        "with --platform bf-fcfs.", rich_help_panel=POLICY_PANEL,
        autocompletion=complete_policy)] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", help="A policy parameter as KEY=VALUE (repeatable): the long form of "
        "NAME[KEY=VALUE].",
        rich_help_panel=POLICY_PANEL)] = None,
    slurm_conf: Annotated[Path | None, typer.Option(
        "--slurm-conf", help="A slurm.conf whose scheduling parameters the 'slurm' policy "
        "takes (the default policy then); keys it does not model are warned about by "
        "name.", rich_help_panel=POLICY_PANEL)] = None,
    slurm_qos: SlurmQosOpt = None,
    slurm_assoc: SlurmAssocOpt = None,
    overrun: OverrunOpt = "kill",
    tick: TickOpt = 0,
    max_queued_per_user: MaxQueuedOpt = None,
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
    failures: FailuresOpt = None,
    maintenance: MaintenanceOpt = None,
    platform: PlatformOpt = None,
    dispatch: DispatchOpt = "round-robin",
    dispatch_param: DispatchParamOpt = None,
    allocation: AllocationOpt = "shared",
    preemption_overhead: PreemptionOverheadOpt = 0,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Directory for jobs.csv and metrics.json (default: no files).",
        rich_help_panel=OUTPUT_PANEL)] = None,
    swf: Annotated[bool, typer.Option(
        "--swf", help="Also write the schedule as OUT/schedule.swf.",
        rich_help_panel=OUTPUT_PANEL)] = False,
) -> None:
    """Simulate one policy; print a summary and write OUT/jobs.csv and OUT/metrics.json."""
    from schedlab.api import execute, model_of, refuse_options, with_reservation_params
    from schedlab.output import write_run_directory

    tables = {"--slurm-qos": slurm_qos, "--slurm-assoc": slurm_assoc}
    slurm_files = slurm_conf is not None or any(tables.values())
    if slurm_files and policy is None:
        policy = "slurm"
    inline = parse_policy_spec(policy or ("fcfs+easy" if platform is None else "bf-fcfs"),
                               field="--policy")
    policy = str(inline.pop("name"))
    conf_params: dict[str, object] = {}
    if slurm_files:     # their readers are imported only for a run that gives them
        from schedlab.cli.slurmconf import slurm_conf_params, slurm_table_params

        if slurm_conf is not None:
            conf_params, conf_procs = slurm_conf_params(slurm_conf, policy)
            procs = procs if procs is not None else conf_procs
        for option, path in tables.items():
            if path is not None and policy != "slurm":
                raise InputError(f"{option} configures the 'slurm' policy, not {policy!r}",
                                 field=option)
        conf_params.update(slurm_table_params(slurm_qos, slurm_assoc))
    dispatch_params = parse_params(dispatch_param, field="--dispatch-param")
    asked = run_spec(workload, policy, procs=procs, width_field=width_field,
                     missing_estimate=missing_estimate, strict=strict,
                     cancellations=cancellations, jobs=jobs, seed=seed,
                     shrink=shrink, perfect_estimates=perfect_estimates,
                     load_factor=load_factor, load_method=load_method, deadlines=deadlines,
                     stringency=stringency, deadline_fraction=deadline_fraction,
                     relaxation=relaxation, overrun=overrun, reservations=reservations,
                     tick=tick, max_queued=max_queued_per_user, failures=failures,
                     maintenance=maintenance, platform=platform,
                     dispatch={"name": dispatch, **dispatch_params} if dispatch_params
                     else dispatch, allocation=allocation,
                     preemption_overhead=preemption_overhead)
    model = model_of(asked)
    refuse_options(asked, model, lambda name: "--dispatch-param" if name == "dispatch"
                   and dispatch == "round-robin" else option_name(name))
    reservation = reservation_params(
        reservations, placement=reservation_placement, throttle=throttle, cap=reservation_cap,
        window=reservation_window, min_duration=min_reservation_duration,
        min_notice=min_reservation_notice)
    params = parse_params(param)
    twice = sorted(set(inline) & set(params))
    if twice:
        raise InputError(f"parameter {twice[0]!r} is given in --policy and in --param: give it "
                         f"once", field="--param")
    try:
        chosen = model.make_policy(replace(asked, policy=with_reservation_params(
            {"name": policy, **conf_params, **inline, **params}, reservation)))
    except InputError as err:
        if err.field in params:
            raise InputError(err.reason, field=f"--param {err.field}") from None
        if err.field in inline:
            raise InputError(err.reason, field="--policy") from None
        raise
    spec = replace(asked, policy=chosen)
    loaded = prepare(spec)
    if slurm_files:
        from schedlab.cli.slurmconf import fitted_to_workload

        chosen = fitted_to_workload(chosen, jobs_of(loaded), str(workload),
                                    given={**inline, **params})
        spec = replace(spec, policy=chosen)
    report_skips(jobs_of(loaded))
    bar = DelayedProgress(f"{chosen.name} on {jobs_of(loaded).name}")
    try:
        result = execute(spec, bar, workload=loaded)
    finally:
        bar.close()
    metrics = model.metrics(result, spec)
    written = [] if out is None else write_run_directory(result, metrics, out, swf=swf)
    rows = {spec_text(result.policy, {**inline, **params}): metrics}
    console.print(metrics_table(run_title(result), rows, summary_metrics(rows), SUMMARY_FORMATS))
    clusters = cluster_table(metrics)
    if clusters is not None:
        console.print(clusters)
    warn_if_saturated(rows)
    report_reservations(result)
    report_outages(metrics, result.policy)
    if result.stats:
        console.print("policy statistics: " + ", ".join(f"{k}={v}" for k, v in result.stats.items()))
    report_scheduling_cost(result)
    if written:
        console.print(f"wrote {', '.join(str(path) for path in written[:-1])} and "
                      f"{written[-1]}", markup=False)

