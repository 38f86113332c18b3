"""``--slurm-conf``: the ``slurm`` policy's parameters from a real slurm.conf."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from schedlab.cli.consoles import err_console
from schedlab.engine.policy import PolicyBase
from schedlab.errors import InputError
from schedlab.interop import SACCT_COMMAND, is_sacct_workload
from schedlab.workload.job import Workload
from schedlab.workload.slurmconf import read_slurm_conf

P = TypeVar("P", bound=PolicyBase)


def slurm_conf_params(path: Path, policy: str) -> tuple[dict[str, object], int | None]:
    """The policy parameters of the slurm.conf at ``path`` and its cluster's CPUs (None
    without NodeName lines); each key it does not model is printed as a warning."""
    if policy != "slurm":
        raise InputError(f"--slurm-conf configures the 'slurm' policy, not {policy!r}",
                         field="--slurm-conf")
    conf = read_slurm_conf(path)
    for warning in conf.warnings:
        err_console.print(f"warning: {warning}", markup=False, highlight=False)
    return conf.policy_params(), conf.processors or None


def fitted_to_workload(policy: P, workload: Workload, source: str,
                       given: Iterable[str] = ()) -> P:
    """The slurm policy fitted to the workload it runs: ``clock_origin`` at the
    workload's Unix start time (a sacct history keeps it), so that bf_resolution slots
    fall on the wall clock as Slurm's did, and ``queue_names`` from the workload's
    partition names, so that jobs go to their partitions.  Parameters named in
    ``given`` stay as the user set them.  A sacct history without its Partition column
    cannot say where jobs go under a configuration with partitions: an InputError
    naming the file (``source``) and the column."""
    if policy.name != "slurm":
        return policy
    changes: dict[str, object] = {}
    if workload.unix_start_time and "clock_origin" not in given:
        changes["clock_origin"] = int(workload.unix_start_time)
    if policy.get_params()["partitions"] and "queue_names" not in given:
        if is_sacct_workload(workload) and "queue" not in workload.names:
            raise InputError(f"missing column: the slurm.conf's partitions need each job's "
                             f"partition; export with `{SACCT_COMMAND}`", file=source,
                             line=1, field="Partition")
        changes["queue_names"] = workload.names.get("queue", ())
    return policy.clone(**changes) if changes else policy
