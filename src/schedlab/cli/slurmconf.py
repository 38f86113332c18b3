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
from schedlab.workload.slurmassoc import read_associations
from schedlab.workload.slurmconf import read_slurm_conf
from schedlab.workload.slurmqos import read_qos

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


def slurm_table_params(qos: Path | None, associations: Path | None) -> dict[str, object]:
    """The ``qos`` and ``associations`` parameters of the slurm policy from ``sacctmgr
    show qos --parsable2`` and ``sacctmgr show assoc --parsable2`` files (each left out
    without its file); each value they set that is not modelled is printed as a
    warning."""
    params: dict[str, object] = {}
    warnings: list[str] = []
    if qos is not None:
        qos_table = read_qos(qos)
        params["qos"] = tuple(qos_table.qos)
        warnings += qos_table.warnings
    if associations is not None:
        assoc_table = read_associations(associations)
        params["associations"] = tuple(assoc_table.associations)
        warnings += assoc_table.warnings
    for warning in warnings:
        err_console.print(f"warning: {warning}", markup=False, highlight=False)
    return params


def fitted_to_workload(policy: P, workload: Workload, source: str,
                       given: Iterable[str] = ()) -> P:
    """The slurm policy fitted to the workload it runs: ``clock_origin`` at the
    workload's Unix start time (a sacct history keeps it), so that bf_resolution slots
    fall on the wall clock as Slurm's did, and ``queue_names``, ``qos_names``,
    ``account_names`` and ``user_names`` from the workload's partition, QOS, account and
    user names, so that jobs go to their partitions, QOS and associations.  Parameters
    named in ``given`` stay as the user set them.  A sacct history without its Partition
    (QOS, User) column cannot say where jobs go under a configuration with partitions (a
    QOS table, an association table): an InputError naming the file (``source``) and the
    column."""
    if policy.name != "slurm":
        return policy
    changes: dict[str, object] = {}
    if workload.unix_start_time and "clock_origin" not in given:
        changes["clock_origin"] = int(workload.unix_start_time)
    params = policy.get_params()
    for table, names, field, column, what in (
            ("partitions", "queue_names", "queue", "Partition",
             "the slurm.conf's partitions need"),
            ("qos", "qos_names", "qos", "QOS", "the QOS table needs")):
        if params[table] and names not in given:
            if is_sacct_workload(workload) and field not in workload.names:
                raise InputError(f"missing column: {what} each job's {column}; export "
                                 f"with `{SACCT_COMMAND}`", file=source, line=1, field=column)
            changes[names] = workload.names.get(field, ())
    if params["weight_fairshare"] and params["priority"] == "multifactor":
        if params["associations"] and is_sacct_workload(workload) \
                and "user" not in workload.names and "user_names" not in given:
            raise InputError(f"missing column: the association table needs each job's User; "
                             f"export with `{SACCT_COMMAND}`", file=source, line=1,
                             field="User")
        for names, field in (("account_names", "account"), ("user_names", "user")):
            if names not in given:
                changes[names] = workload.names.get(field, ())
    return policy.clone(**changes) if changes else policy
