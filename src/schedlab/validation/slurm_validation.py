"""The Slurm validation: replay sleep jobs into a real Slurm, simulate the same jobs, compare.

:func:`validation_workload` draws the sleep jobs of a replay (seeded);
:func:`recorded_workload` turns what Slurm recorded into a
:class:`~schedlab.workload.job.Workload` (the submit times and run times
Slurm recorded, the time limits as estimates); :func:`compare_with_slurm`
simulates policies on it and measures each one's
:func:`~schedlab.validation.agreement.agreement` with Slurm's starts;
:func:`fair_share_factor_agreement` checks the policy's fair-share factors
against those slurmctld logged.
docs/background/validation.md gives the numbers and how to re-run them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from schedlab.api import simulate
from schedlab.policies.slurm_fairshare import AssociationTree, FairShare
from schedlab.validation.agreement import Agreement, agreement
from schedlab.validation.slurm_cluster import SleepJob, SlurmJobRecord
from schedlab.workload.job import Job, Workload
from schedlab.workload.slurmassoc import Association
from schedlab.workload.slurmconf import SlurmConfig

#: The validation's cluster: one node of 16 CPUs.
VALIDATION_CPUS = 16
#: The validation's scheduling configuration: Slurm's defaults (FIFO priority, backfill)
#: but for a backfill pass every second.
VALIDATION_CONFIG = SlurmConfig(bf_interval=1)
#: The fair-share validation's accounts and their shares (root is a user of each).
FAIR_SHARE_ACCOUNTS = {"astro": 60, "bio": 30, "chem": 10}
#: The fair-share validation's scheduling configuration: multifactor priority with the
#: fair-share factor alone (Fair Tree), usage halved every 5 minutes, recomputed every
#: minute, a backfill pass every second.
FAIR_SHARE_CONFIG = SlurmConfig(bf_interval=1, priority="priority/multifactor",
                                weight_fairshare=10000, decay_half_life=300,
                                priority_calc_period=60)
#: The widths sleep jobs are drawn from (CPUs), and their weights.
_WIDTHS = (1, 2, 4, 8, 12, 16)
_WIDTH_WEIGHTS = (4, 3, 3, 2, 1, 1)


def validation_workload(jobs: int, *, seed: int = 1, span: int = 60, cpus: int = 16,
                        max_runtime: int = 50, accounts: Sequence[str] = ()
                        ) -> list[SleepJob]:
    """``jobs`` sleep jobs submitted over ``span`` seconds, seeded.

    Each sleeps 5 to ``max_runtime`` seconds on a width of 1 to ``cpus`` CPUs
    (small widths likelier) with a time limit of one minute, or two for a
    third of them (a limit above the run time, as users give); with
    ``accounts``, the jobs are charged to them in turn.
    """
    draw = random.Random(seed)
    submits = sorted(draw.randint(0, span) for _ in range(jobs))
    found = []
    widths = [w for w in _WIDTHS if w <= cpus]
    for number, submit in enumerate(submits, start=1):
        runtime = draw.randint(5, max_runtime)
        limit = 2 if draw.random() < 1 / 3 else max(1, -(-runtime // 60))
        width = draw.choices(widths, weights=_WIDTH_WEIGHTS[:len(widths)])[0]
        account = accounts[(number - 1) % len(accounts)] if accounts else ""
        found.append(SleepJob(number, submit, runtime, limit, width, account))
    return found


def recorded_workload(records: Sequence[SlurmJobRecord], processors: int) -> Workload:
    """The jobs as Slurm recorded them: submit times from the first submission, run times
    end - start, time limits (seconds) as estimates, all of user ``root`` (who submitted
    them), accounts numbered in order of first appearance; ``unix_start_time`` is the
    first submission's Unix time."""
    origin = min(record.submit for record in records)
    accounts: dict[str, int] = {}
    for record in sorted(records, key=lambda record: record.id):
        if record.account:
            accounts.setdefault(record.account, len(accounts) + 1)
    jobs = sorted((Job(id=record.id, submit=record.submit - origin,
                       runtime=record.end - record.start,
                       estimate=record.limit_minutes * 60, width=record.cpus, user=1,
                       account=accounts.get(record.account, -1))
                   for record in records), key=lambda job: (job.submit, job.id))
    names = {"user": ("root",), **({"account": tuple(accounts)} if accounts else {})}
    return Workload(jobs=tuple(jobs), processors=processors, name="slurm-replay",
                    unix_start_time=origin, names=names)


def compare_with_slurm(records: Sequence[SlurmJobRecord], processors: int,
                       policies: Mapping[str, Any]) -> dict[str, Agreement]:
    """Simulate each policy (label -> policy spec) on :func:`recorded_workload` and measure
    its agreement with Slurm's starts."""
    workload = recorded_workload(records, processors)
    origin = workload.unix_start_time or 0
    by_id = {record.id: record for record in records}
    ids = sorted(by_id)
    submit = [by_id[i].submit - origin for i in ids]
    reference = [by_id[i].start - origin for i in ids]
    found = {}
    for label, spec in policies.items():
        starts = simulated_starts(workload, spec)
        found[label] = agreement(submit, reference, [starts[i] for i in ids])
    return found


def simulated_starts(workload: Workload, spec: Any) -> dict[int, int]:
    """Each job's start under the policy ``spec`` on a :func:`recorded_workload`, by job
    id (the ``slurm`` policy given the workload's account and user names)."""
    if isinstance(spec, Mapping) and spec.get("name") == "slurm":
        spec = {"account_names": workload.names.get("account", ()),
                "user_names": workload.names["user"], **spec}
    result = simulate(workload, spec)
    return dict(zip(result.job_id.tolist(), result.start.tolist()))


def slurm_policy_spec(params: Mapping[str, Any], records: Sequence[SlurmJobRecord],
                      decay_runs: Sequence[int] = (),
                      controller_start: int | None = None) -> dict[str, Any]:
    """The ``slurm`` policy with ``params``, its clock aligned with the replay's wall clock
    (``clock_origin``: the first submission's Unix time) and, given the Unix times Slurm's
    decay thread ran, its priority recomputations on theirs (``priority_calc_offset``) and
    its main scheduler's periodic passes on slurmctld's start, the decay thread's first
    run (``sched_offset``: both count from it); without decay runs, the periodic passes
    count from ``controller_start``, the second slurmctld's background thread started in
    (:meth:`SlurmCluster.controller_start`), when given."""
    spec = {"name": "slurm", **params,
            "clock_origin": min(record.submit for record in records)}
    if decay_runs:
        spec["priority_calc_offset"] = decay_runs[0] % int(spec.get("priority_calc_period",
                                                                     300))
        spec["sched_offset"] = decay_runs[0] % int(spec.get("sched_interval", 60))
    elif controller_start is not None:
        spec["sched_offset"] = controller_start % int(spec.get("sched_interval", 60))
    return spec


def fair_share_factor_agreement(records: Sequence[SlurmJobRecord],
                                associations: Sequence[Association],
                                logged: Sequence[tuple[int, int, str, float]],
                                config: SlurmConfig, decay_runs: Sequence[int],
                                tolerance: float = 1e-3) -> float:
    """The share of the fair-share factors slurmctld logged (``(Unix time, job id,
    account, factor)``) that the policy's fair-share computes within ``tolerance``.

    The policy's usage is fed the jobs as Slurm ran them (their recorded starts and
    ends, each job ``root``'s in its account), with the configuration's half-life,
    period and flags and the decay runs' phase: this checks usage, decay and the
    factors alone, apart from any difference in the schedule.
    """
    if not logged:
        return 0.0
    tree = AssociationTree.of(associations)
    period = config.priority_calc_period
    fair = FairShare(tree, fair_tree=config.fair_tree, half_life=config.decay_half_life,
                     calc_period=period, calc_offset=decay_runs[0] % period if decay_runs else 0,
                     reset_period=config.usage_reset_period, usage_at_end=config.enforce_limits)
    events = sorted([(r.end, 0, r.id, r) for r in records]
                    + [(r.start, 1, r.id, r) for r in records])
    pending = iter(events)
    upcoming = next(pending, None)
    matched = 0
    for at, _, account, factor in sorted(logged):
        while upcoming is not None and upcoming[0] <= at:
            when, starts, _, record = upcoming
            if starts:
                fair.started(record.id, tree.nodes[record.account, "root"], record.cpus, when)
            else:
                fair.ended(record.id, when)
            upcoming = next(pending, None)
        computed = fair.factors(at)[tree.nodes[account, "root"]]
        matched += abs(computed - factor) <= tolerance
    return matched / len(logged)


def self_agreement(first: Sequence[SlurmJobRecord], second: Sequence[SlurmJobRecord]
                   ) -> Agreement:
    """Slurm against itself: two replays of the same jobs (matched by id), each timed from
    its own first submission."""
    one = {r.id: r for r in first}
    two = {r.id: r for r in second}
    ids = sorted(one)
    o1 = min(r.submit for r in first)
    o2 = min(r.submit for r in second)
    return agreement([one[i].submit - o1 for i in ids], [one[i].start - o1 for i in ids],
                     [two[i].start - o2 for i in ids])
