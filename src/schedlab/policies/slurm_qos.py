"""The QOS limits of the ``slurm`` policy: what each user and each QOS holds.

Slurm's limits (``sacctmgr`` QOS options; the Resource Limits page) as the
policy models them, per QOS:

* ``MaxSubmitJobsPerUser``: a user's jobs pending or running in the QOS; a
  submission beyond it is refused;
* ``MaxJobsPerUser``: a user's running jobs in the QOS;
* ``MaxTRESPerUser`` ``cpu``: the CPUs a user's running jobs hold in the QOS;
* ``GrpTRES`` ``cpu``: the CPUs all running jobs of the QOS hold.

A job the last three keep from starting is passed over by both schedulers and
does not stop its partition (``acct_policy_job_runnable_pre_select`` in
``src/slurmctld/job_scheduler.c`` and ``src/plugins/sched/backfill/backfill.c``:
such a job is skipped before any resource is tested).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from schedlab.workload.slurmqos import Qos


class QosLimits:
    """Counts per QOS and per (QOS, user), kept as jobs arrive, start and leave."""

    def __init__(self, table: Sequence[Qos]) -> None:
        self.table = tuple(table)
        self._submitted: defaultdict[tuple[int, int], int] = defaultdict(int)
        self._running: defaultdict[tuple[int, int], int] = defaultdict(int)
        self._user_cpus: defaultdict[tuple[int, int], int] = defaultdict(int)
        self._qos_cpus: defaultdict[int, int] = defaultdict(int)

    def refusal(self, qos: int, user: int, width: int) -> str | None:
        """Why a submission is refused (None: it is taken): the user's submit limit is
        reached, or the job alone is beyond a CPU limit it could never start under (our
        reading: refused, as the QOS flag DenyOnLimit has it, where Slurm would leave it
        pending for ever)."""
        limits = self.table[qos]
        if limits.max_submit_per_user is not None \
                and self._submitted[qos, user] >= limits.max_submit_per_user:
            return f"MaxSubmitJobsPerUser of QOS {limits.name!r} reached"
        for cap, name in ((limits.max_cpus_per_user, "MaxTRESPerUser"),
                          (limits.grp_cpus, "GrpTRES")):
            if cap is not None and width > cap:
                return f"more CPUs than the {name} cpu={cap} of QOS {limits.name!r}"
        if limits.max_jobs_per_user == 0:
            return f"MaxJobsPerUser=0 of QOS {limits.name!r}"
        return None

    def submitted(self, qos: int, user: int) -> None:
        self._submitted[qos, user] += 1

    def runnable(self, qos: int, user: int, width: int) -> bool:
        """Whether the QOS's running limits let a job of ``width`` CPUs start now."""
        limits = self.table[qos]
        if limits.max_jobs_per_user is not None \
                and self._running[qos, user] >= limits.max_jobs_per_user:
            return False
        if limits.max_cpus_per_user is not None \
                and self._user_cpus[qos, user] + width > limits.max_cpus_per_user:
            return False
        return limits.grp_cpus is None or self._qos_cpus[qos] + width <= limits.grp_cpus

    def started(self, qos: int, user: int, width: int) -> None:
        self._running[qos, user] += 1
        self._user_cpus[qos, user] += width
        self._qos_cpus[qos] += width

    def ended(self, qos: int, user: int, width: int) -> None:
        """A running job left the machine."""
        self._running[qos, user] -= 1
        self._user_cpus[qos, user] -= width
        self._qos_cpus[qos] -= width
        self._submitted[qos, user] -= 1

    def withdrawn(self, qos: int, user: int) -> None:
        """A pending job was cancelled."""
        self._submitted[qos, user] -= 1
