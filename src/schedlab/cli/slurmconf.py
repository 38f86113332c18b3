"""``--slurm-conf``: the ``slurm`` policy's parameters from a real slurm.conf."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from schedlab.cli.consoles import err_console
from schedlab.engine.policy import PolicyBase
from schedlab.errors import InputError
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


def aligned_with_clock(policy: P, workload: Workload) -> P:
    """The slurm policy with ``clock_origin`` at the workload's Unix start time (a sacct
    history keeps it), so that bf_resolution slots fall on the wall clock as Slurm's did."""
    if policy.name != "slurm" or not workload.unix_start_time:
        return policy
    return policy.clone(clock_origin=int(workload.unix_start_time))
