"""``schedlab compare``: several policies on one workload, one table and one figure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from schedlab.cli.consoles import console
from schedlab.cli.conventions import OUTPUT_PANEL, POLICY_PANEL
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
    reservation_params,
)
from schedlab.cli.parsing import parse_policy_spec, split_policy_list
from schedlab.cli.progress import DelayedProgress
from schedlab.cli.slurmconf import fitted_to_workload, slurm_conf_params, slurm_table_params
from schedlab.cli.summary import (
    SUMMARY_FORMATS,
    metrics_table,
    report_outages,
    report_reservations,
    summary_metrics,
    warn_if_saturated,
)
from schedlab.errors import InputError
from schedlab.limits import check_workers

if TYPE_CHECKING:
    from schedlab.api import RunSpec
    from schedlab.engine.result import Result
    from schedlab.policies.base import PolicyBase
    from schedlab.workload.job import Workload

DEFAULT_POLICIES = "fcfs,fcfs+easy,fcfs+conservative,sjf+conservative,ljf+conservative"


def compare(
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
    policies: Annotated[str, typer.Option(
        "--policies", help="Comma-separated policies, each a name or NAME[KEY=VALUE,...] "
        "with parameters, e.g. 'qops\\[k=3],qops\\[k=5],fcfs+easy' (quote it in a shell); "
        f"default: {DEFAULT_POLICIES.replace(',', ', ')}.", show_default=False,
        rich_help_panel=POLICY_PANEL)] = DEFAULT_POLICIES,
    slurm_conf: Annotated[list[Path] | None, typer.Option(
        "--slurm-conf", help="A slurm.conf (repeatable): the 'slurm' policy with its "
        "scheduling parameters, labelled slurm:FILE-NAME; with --slurm-conf only these are "
        "compared unless --policies is given too.", rich_help_panel=POLICY_PANEL)] = None,
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
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Directory for the figure, the table (CSV) and one sub-directory "
        "per policy ('qops\\[k=3]' -> qops_k=3).", rich_help_panel=OUTPUT_PANEL)]
        = Path("out", "compare"),
    workers: Annotated[int, typer.Option(
        "--workers", "-j", help="Worker processes running the policies at once (default 1: "
        "one after another in this process).")] = 1,
) -> None:
    """Simulate several policies on one workload; print one table, write one figure."""
    from schedlab.api import load_reservations
    from schedlab.metrics import compute_metrics
    from schedlab.output import (
        atomic_directory,
        atomic_write_text,
        write_run_directory,
    )
    from schedlab.viz.compare import write_comparison_figure

    reservation = reservation_params(
        reservations, placement=reservation_placement, throttle=throttle, cap=reservation_cap,
        window=reservation_window, min_duration=min_reservation_duration,
        min_notice=min_reservation_notice)
    chosen = ({} if slurm_conf and policies == DEFAULT_POLICIES
              else chosen_policies(policies, reservation))
    for option, path, what in (("--slurm-qos", slurm_qos, "QOS"),
                               ("--slurm-assoc", slurm_assoc, "associations")):
        if path is not None and not slurm_conf:
            raise InputError(f"{option} gives the {what} of the --slurm-conf "
                             f"configurations: give at least one", field=option)
    confs = conf_policies(slurm_conf or [], slurm_table_params(slurm_qos, slurm_assoc))
    twice = sorted(set(chosen) & set(confs))
    if twice:
        raise InputError(f"policy {twice[0]!r} is given twice", field="--slurm-conf")
    chosen.update(confs)
    spec = run_spec(workload, procs=procs, width_field=width_field,
                    missing_estimate=missing_estimate, strict=strict,
                     cancellations=cancellations, jobs=jobs, seed=seed,
                    shrink=shrink, perfect_estimates=perfect_estimates,
                    load_factor=load_factor, load_method=load_method, deadlines=deadlines,
                    stringency=stringency, deadline_fraction=deadline_fraction,
                    relaxation=relaxation, overrun=overrun, reservations=reservations,
                    tick=tick, max_queued=max_queued_per_user, failures=failures,
                    maintenance=maintenance)
    loaded = jobs_of(prepare(spec))
    report_skips(loaded)
    chosen = {label: fitted_to_workload(policy, loaded, str(workload)) if label in confs
              else policy
              for label, policy in chosen.items()}
    spec = replace(spec, workload=loaded,
                   reservations=load_reservations(reservations, loaded, processors=procs))
    rows: dict[str, dict] = {}
    results = {}
    runs = run_in_parallel if check_workers(workers) > 1 else run_in_turn
    with atomic_directory(out) as staging:
        for label, result in runs(spec, loaded, chosen, workers).items():
            rows[label] = compute_metrics(result)
            results[label] = result
            write_run_directory(result, rows[label], staging / directory_name(label))
        machine = next(iter(results.values())).processors
        title = f"{loaded.name}: {len(loaded)} jobs on {machine} processors"
        atomic_write_text(staging / "metrics.csv", _metrics_csv(rows))
        offered = next(iter(rows.values())).get("offered_load")   # the workload's, one
        write_comparison_figure(rows, title, staging / "comparison.png",
                                offered_loads=[] if offered is None else [offered])
    console.print(metrics_table(title, rows, summary_metrics(rows), SUMMARY_FORMATS))
    warn_if_saturated(rows)
    for label, result in results.items():
        report_reservations(result, label)
        report_outages(rows[label], label)
    console.print(f"wrote {out / 'comparison.png'}, {out / 'metrics.csv'} and per-policy "
                  f"results in {out}/")


def run_in_turn(spec: RunSpec, loaded: Workload, chosen: Mapping[str, PolicyBase],
                workers: int) -> dict[str, Result]:
    """Each policy on ``loaded``, the prepared workload of ``spec``, one after another, with
    a progress bar each."""
    from schedlab.api import execute

    results = {}
    for label, policy in chosen.items():
        bar = DelayedProgress(f"{label} on {loaded.name}")
        try:
            results[label] = execute(replace(spec, policy=policy), bar, workload=loaded)
        finally:
            bar.close()
    return results


def run_in_parallel(spec: RunSpec, loaded: Workload, chosen: Mapping[str, PolicyBase],
                    workers: int) -> dict[str, Result]:
    """Each policy in a worker process, at most ``workers`` at once; the results in the order
    of ``--policies``, the same as one after another (every run is deterministic).  A bar
    counts the policies done."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from schedlab.api import execute

    bar = DelayedProgress(f"{len(chosen)} policies on {loaded.name}", unit="policies")
    try:
        # forkserver, as the sweep's pool: safe with the progress bar's thread
        with ProcessPoolExecutor(max_workers=min(workers, len(chosen)),
                                 mp_context=multiprocessing.get_context("forkserver")) as pool:
            futures = {label: pool.submit(execute, replace(spec, policy=policy),
                                          workload=loaded)
                       for label, policy in chosen.items()}
            results = {}
            for done, (label, future) in enumerate(futures.items(), start=1):
                results[label] = future.result()
                bar(done, len(futures))
    finally:
        bar.close()
    return results


def chosen_policies(text: str, reservation: Mapping[str, object] | None = None
                    ) -> dict[str, PolicyBase]:
    """The policies of ``--policies``, keyed by their labels (``qops[k=3]``).

    ``reservation`` are the parameters the reservation options set, given to
    every policy that takes requests (not part of the labels).  Errors quote
    the spec they are about.  Two specs of the same label, or two labels of
    the same output directory, are refused before any run.
    """
    from schedlab.api import with_reservation_params
    from schedlab.policies.registry import add_labelled, make_policy

    chosen: dict[str, PolicyBase] = {}
    for spec_text in split_policy_list(text):
        spec = parse_policy_spec(spec_text)
        try:
            policy = make_policy(with_reservation_params(spec, reservation or {}))
        except InputError as err:
            raise InputError(f"policy spec {spec_text!r}: {err}", field="--policies") from None
        add_labelled(chosen, spec, policy, field="--policies")
    if not chosen:
        raise InputError("give at least one policy name", field="--policies")
    directories: dict[str, str] = {}
    for label in chosen:
        other = directories.setdefault(directory_name(label), label)
        if other != label:
            raise InputError(f"policies {other!r} and {label!r} would share the output "
                             f"directory {directory_name(label)!r}", field="--policies")
    return chosen


def conf_policies(paths: list[Path], tables: dict[str, object]) -> dict[str, PolicyBase]:
    """The ``slurm`` policy of each slurm.conf, labelled ``slurm:NAME`` (the file's name),
    with the table parameters ``tables`` (``qos`` from ``--slurm-qos``, ``associations``
    from ``--slurm-assoc``: the same for every file); the keys a file sets that the
    policy does not model are printed as warnings."""
    from schedlab.policies.registry import make_policy

    found: dict[str, PolicyBase] = {}
    for path in paths:
        label = f"slurm:{path.name}"
        if label in found:
            raise InputError(f"two files named {path.name!r}: give each configuration "
                             f"a file name of its own", field="--slurm-conf")
        params, _ = slurm_conf_params(path, "slurm")
        found[label] = make_policy({"name": "slurm", **params, **tables})
    return found


def directory_name(label: str) -> str:
    """The sub-directory of a policy's files: ``fcfs+easy`` -> ``fcfs_easy``,
    ``qops[k=3,heuristic=edf]`` -> ``qops_k=3_heuristic=edf`` (no shell metacharacters)."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", label).strip("_")


def _metrics_csv(rows: dict[str, dict]) -> str:
    """One line per policy label, one column per metric (a label with a comma is quoted)."""
    import csv
    import io

    names = sorted({k for metrics in rows.values() for k in metrics})
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["policy", *names])
    for label, metrics in rows.items():
        writer.writerow([label, *("" if metrics.get(n) is None else str(metrics[n])
                                  for n in names)])
    return text.getvalue()
