"""``schedlab validate slurm``: the slurm policy against a real Slurm started on this machine.

A thin layer over :mod:`schedlab.validation` (docs/background/validation.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.consoles import console, err_console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.errors import InputError
from schedlab.workload.slurmassoc import parse_associations
from schedlab.workload.slurmconf import read_slurm_conf

#: The largest replay and test node the command starts (a replay runs in real time).
MAX_JOBS = 500
MAX_PROCS = 1024


def validate_app(guard: Callable[[Callable[..., None]], Callable[..., None]]) -> typer.Typer:
    """The ``validate`` command group, each command wrapped by the CLI's error ``guard``."""
    group = typer.Typer(name="validate", no_args_is_help=True,
                        help="Check a policy against the real scheduler it models.")
    group.command("slurm", cls=SchedlabCommand)(guard(validate_slurm))
    return group


def validate_slurm(
    conf: Annotated[Path | None, typer.Option(
        "--conf", help="A slurm.conf whose scheduling lines the test cluster runs with "
        "(default: FIFO priority, backfill every second).")] = None,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-n", help="Sleep jobs to replay, 2 to 500 (24: about four minutes).")] = 24,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sleep jobs.")] = 1,
    procs: Annotated[int, typer.Option(
        "--procs", help="Fake CPUs of the one test node, 1 to 1024.")] = 16,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Also write Slurm's records as OUT/slurm-records.json (with "
        "accounting, its association tree and sacct history as OUT/assoc.txt and "
        "OUT/history.sacct).")] = None,
) -> None:
    """Replay sleep jobs into a real Slurm started here (root; Debian's slurm-wlm and
    munge), simulate the same jobs, and print how closely each policy agrees with Slurm.

    The cluster is one node with --procs fake CPUs, started in a temporary directory with
    the scheduling lines of --conf and stopped when the replay ends; it takes the real
    time the jobs take.  A --conf with the age or fair-share weight and slurmdbd
    accounting gets a cluster that keeps accounting too (Debian's mariadb-server and
    slurmdbd): three accounts of 60, 30 and 10 shares, the jobs charged to them in turn.
    """
    from schedlab.validation.slurm_cluster import SlurmCluster, unavailable_reason
    from schedlab.validation.slurm_validation import (
        FAIR_SHARE_ACCOUNTS,
        VALIDATION_CONFIG,
        compare_with_slurm,
        slurm_policy_spec,
        validation_workload,
    )

    if not 2 <= jobs <= MAX_JOBS:
        raise InputError(f"expected 2 to {MAX_JOBS} jobs, got {jobs}", field="--jobs")
    if not 1 <= procs <= MAX_PROCS:
        raise InputError(f"expected 1 to {MAX_PROCS} CPUs, got {procs}", field="--procs")
    cpus = procs
    config = read_slurm_conf(conf) if conf is not None else VALIDATION_CONFIG
    # (the reader keeps these weights only for a conf with slurmdbd accounting)
    accounts = FAIR_SHARE_ACCOUNTS if config.weight_age or config.weight_fairshare else None
    reason = unavailable_reason(accounting=accounts is not None)
    if reason is not None:
        raise InputError(f"cannot start a Slurm here: {reason}", field="validate slurm")
    for warning in config.warnings:
        err_console.print(f"warning: {warning}", markup=False, highlight=False)
    if config.partitions:
        err_console.print(f"warning: {conf}: PartitionName: the test cluster is one node in "
                          f"one partition: the file's partitions are not replayed",
                          markup=False, highlight=False)
    sleep_jobs = validation_workload(jobs, seed=seed, cpus=cpus, accounts=tuple(accounts or ()))
    err_console.print(f"replaying {jobs} sleep jobs into a one-node Slurm with {cpus} CPUs "
                      f"(real time, a few minutes)...")
    directory = Path(tempfile.mkdtemp(prefix="schedlab-slurm-"))
    try:
        with SlurmCluster(directory, cpus=cpus, scheduling=config.conf_lines(),
                          accounts=accounts) as cluster:
            records = cluster.replay(sleep_jobs)
            exports = {} if accounts is None else {
                "assoc.txt": cluster.associations_text(),
                "history.sacct": cluster.sacct_text(min(r.submit for r in records))}
            decay_runs = cluster.decay_runs()
            started = cluster.controller_start()
    except (RuntimeError, subprocess.SubprocessError) as err:
        raise InputError(f"the test Slurm failed: {err} (its files are kept in "
                         f"{directory})", field="validate slurm") from None
    shutil.rmtree(directory, ignore_errors=True)
    params = {**config.policy_params(), "cpus_per_node": cpus, "partitions": ()}
    if "assoc.txt" in exports:
        params["associations"] = tuple(parse_associations(
            exports["assoc.txt"], "sacctmgr show assoc").associations)
    found = compare_with_slurm(records, cpus, {
        "slurm": slurm_policy_spec(params, records, decay_runs, started),
        "fcfs+easy": "fcfs+easy", "fcfs+conservative": "fcfs+conservative"})
    table = Table(title=f"agreement with Slurm ({jobs} jobs, {cpus} CPUs)")
    for column in ("policy", "starts within 2 s %", "pairs in order %", "mean wait s",
                   "mean wait diff %"):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for label, agreement in found.items():
        row = agreement.as_row()
        table.add_row(label, *(f"{value:.1f}" for value in row.values()))
    console.print(table)
    console.print(f"Slurm's mean wait: {found['slurm'].reference_mean_wait:.1f} s")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "slurm-records.json"
        path.write_text(json.dumps([asdict(r) for r in records], indent=1), encoding="utf-8")
        console.print(f"wrote {path}", markup=False)
        for name, text in exports.items():
            (out / name).write_text(text, encoding="utf-8")
            console.print(f"wrote {out / name}", markup=False)

