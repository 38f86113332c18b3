"""Slurm's scheduling as slurmctld does it: a main scheduler and a backfill scheduler.

The ``slurm`` policy schedules the partitions of a cluster of
``cpus_per_node``-CPU nodes as Slurm 22.05 with ``select/cons_tres`` does
(docs/reference/policies/slurm.md; the parameters carry the names of
slurm.conf, and ``schedlab simulate --slurm-conf`` reads them from a real
file).  Its two schedulers:

* **The main scheduler** runs when a job is submitted or ends, once
  ``batch_sched_delay`` seconds have passed since it was last called (testing
  at most ``default_queue_depth`` jobs), and every ``sched_interval``
  seconds, ``sched_offset`` seconds past each multiple of it on the wall
  clock (testing all; slurmctld times it from its own start,
  ``_slurmctld_background`` in ``src/slurmctld/controller.c``): pending jobs in priority order
  start while they fit in the free CPUs; the first that does not fit stops
  the partition (the Scheduling Configuration Guide: "once any job ... in a
  partition is left pending, no other jobs in that partition will be
  scheduled").
* **The backfill scheduler** (``backfill=True``, ``sched/backfill``) runs
  every ``bf_interval`` seconds after something changed.  It walks at most
  ``bf_max_job_test`` pending jobs in priority order (at most
  ``bf_max_job_user`` per user) and finds each one's earliest start on a
  plan made of the running jobs, each holding its CPUs until its start plus
  its time limit, and of the reservations made so far in the pass.  A job
  that can start now starts; one that cannot gets a reservation from its
  earliest start, unless that start is beyond ``bf_window`` minutes or its
  priority is below ``bf_min_prio_reserve``.

Our reading of ``src/plugins/sched/backfill/backfill.c`` (Slurm's source;
no code of it is here), where the documentation says nothing:

* a reservation holds **whole nodes**: the backfill map records nodes, not
  CPUs, so a job reserved on a node keeps every lower-priority job off that
  node for the reservation's slot, even where CPUs stay free.  On a
  one-node cluster the first reserved job blocks the machine from its
  expected start: this is why Slurm holds back small jobs that EASY and
  conservative backfilling start at once.  A job needs
  ``ceil(CPUs / cpus_per_node)`` nodes; which nodes it gets is not modelled
  (the usable CPUs at a time are the fewer of the free CPUs and the CPUs of
  the unreserved nodes);
* the slot of a reservation is its start and its end (start plus time
  limit) both rounded down to ``bf_resolution`` seconds of the wall clock
  (``clock_origin`` is the Unix time of the workload's time 0), at least
  one step long;
* a job tried at a time is checked against the map from then to the end of
  its limit, both included (the map's records are compared with ``<=``): a
  job that would end exactly when a slot begins is held back;
* the CPUs of running jobs come back at their limits in groups of close
  ends, as the select plugin's will-run test frees them
  (``_will_run_test`` in ``src/plugins/select/cons_common/job_test.c``;
  :func:`~schedlab.policies.slurm_backfill.will_run`): a job that needs
  the first end's CPUs is planned from the last end of that end's group;
* a batch job's submission or end only queues a request for the main
  scheduler (``queue_job_scheduler``): slurmctld's background thread, which
  wakes about once a second, calls it only once ``batch_sched_delay``
  seconds have passed since it last did, its periodic pass included
  (``_slurmctld_background``); the end reaches it through slurmd's answer
  that the job is already complete (``_thread_per_group_rpc`` in
  ``src/slurmctld/agent.c``), not through the epilog-complete message
  that calls it at once.  A request honoured is honoured in its own second
  here; the backfill pass of that second came before the end, so the
  policy's backfill pass sees an ended job's CPUs as busy for
  ``completing`` seconds;
* time limits are whole minutes: a job's estimate is rounded up to one.

``over_time_limit`` (slurm.conf's OverTimeLimit, minutes; -1: UNLIMITED) lets a
job run that long past its time limit before it is killed (the slurm.conf man
page); the schedulers still plan with the time limit.  A running job past its
limit is planned, as the select plugin's will-run test guesses
(``_guess_job_end`` in ``src/plugins/select/cons_common/job_test.c``), to end
``kill_wait`` seconds after its limit plus the over-time (with UNLIMITED: one
time limit from now).  Our reading: the kill comes exactly at the limit plus
the over-time (slurmctld checks time limits on a timer of its own).

Priority is ``basic`` (first come, first served: the submission order) or
``multifactor`` with the age, fair-share, job-size, partition and QOS factors
(``set_priority_factors`` in ``src/plugins/priority/multifactor/priority_multifactor.c``):
``weight_age`` times the job's wait over ``max_age`` (at most 1), plus
``weight_fairshare`` times its association's fair-share factor
(:mod:`schedlab.policies.slurm_fairshare`), plus ``weight_job_size`` times the
mean of its share of the nodes (its requested nodes, at least one) and of the
CPUs (``favor_small``: the mean of the shares left over, so the smallest job
gets the most), plus ``weight_partition`` times its partition's
PriorityJobFactor over the highest of the partitions, plus ``weight_qos`` times
its QOS's priority over the highest of the table; the sum rounded down, at
least 1.  Priorities are recomputed at every run of Slurm's decay thread,
every ``priority_calc_period`` seconds, ``priority_calc_offset`` seconds past
each multiple of it on the wall clock (slurmctld runs it from its own start);
a job submitted between runs gets its priority at submission; equal
priorities in submission order.

``partitions`` (slurm.conf's PartitionName lines) split the nodes: a job runs
on its partition's nodes (:mod:`schedlab.policies.slurm_partitions`), the
queue is ordered by partition PriorityTier first, and the main scheduler stops
a partition, and its nodes, at its first job that cannot start.  ``qos`` (a
QOS table) adds the QOS limits of :mod:`schedlab.policies.slurm_qos`.
"""

from __future__ import annotations

import functools
import math
import operator
from bisect import bisect_left, bisect_right
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.profile import Profile
from schedlab.errors import InputError
from schedlab.limits import MAX_TIME
from schedlab.policies.base import Policy, check_bool, check_choice, check_number
from schedlab.policies.slurm_fairshare import AssociationTree, FairShare
from schedlab.policies.slurm_partitions import Nodes
from schedlab.policies.slurm_qos import QosLimits
from schedlab.workload.job import name_of
from schedlab.workload.slurmassoc import Association
from schedlab.workload.slurmconf import RESET_PERIODS, Partition
from schedlab.workload.slurmqos import Qos

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.outages import OutageEvent
    from schedlab.engine.profile_kernels import ArrayProfile
    from schedlab.policies.slurm_backfill import Scratch
    from schedlab.workload.job import Job

#: ``over_time_limit`` for OverTimeLimit=UNLIMITED: a job is never killed.
UNLIMITED = -1
#: The priority plugins modelled (PriorityType=priority/...).
PRIORITY_TYPES = ("basic", "multifactor")


def limit_seconds(job: Job) -> int:
    """A job's time limit as Slurm holds it: its estimate rounded up to whole minutes."""
    return -(-job.estimate // 60) * 60


class SlurmScheduling(Policy):
    """Slurm's main and backfill schedulers (see the module for the model and its sources)."""

    name = "slurm"

    def __init__(self, *, backfill: bool = True, priority: str = "basic",
                 sched_interval: int = 60, default_queue_depth: int = 100,
                 bf_interval: int = 30, bf_window: int = 1440, bf_resolution: int = 60,
                 bf_max_job_test: int = 500, bf_max_job_user: int = 0,
                 bf_min_prio_reserve: int = 0,
                 weight_age: int = 0, weight_job_size: int = 0, max_age: int = 604800,
                 favor_small: bool = False, priority_calc_period: int = 300,
                 cpus_per_node: int = 0, clock_origin: int = 0, completing: int = 1,
                 over_time_limit: int = 0, kill_wait: int = 30,
                 partitions: tuple[Partition, ...] = (),
                 queue_names: tuple[str, ...] = (), qos: tuple[Qos, ...] = (),
                 qos_names: tuple[str, ...] = (), weight_qos: int = 0,
                 weight_fairshare: int = 0, fair_tree: bool = True,
                 decay_half_life: int = 604800, usage_reset_period: str = "NONE",
                 priority_calc_offset: int = 0, sched_offset: int = 0,
                 associations: tuple[Association, ...] = (),
                 account_names: tuple[str, ...] = (), user_names: tuple[str, ...] = (),
                 weight_partition: int = 0, enforce_limits: bool = False,
                 batch_sched_delay: int = 3) -> None:
        owner = "policy 'slurm'"
        partitions = _checked_table(owner, "partitions", partitions, Partition,
                                    "slurm.conf's PartitionName lines")
        qos = _checked_table(owner, "qos", qos, Qos, "a QOS file's lines")
        if not (isinstance(associations, tuple)
                and all(isinstance(row, Association) for row in associations)):
            raise InputError(f"The 'associations' parameter of {owner} must be a tuple of "
                             f"Association (an association file's lines). Got "
                             f"{associations!r} instead.", field="associations")
        for param, names in (("queue_names", queue_names), ("qos_names", qos_names),
                             ("account_names", account_names), ("user_names", user_names)):
            if not (isinstance(names, tuple) and all(isinstance(name, str) for name in names)):
                raise InputError(f"The {param!r} parameter of {owner} must be a tuple of "
                                 f"names. Got {names!r} instead.", field=param)
        check_bool(owner, "backfill", backfill)
        check_bool(owner, "favor_small", favor_small)
        check_bool(owner, "fair_tree", fair_tree)
        check_bool(owner, "enforce_limits", enforce_limits)
        check_choice(owner, "priority", priority, PRIORITY_TYPES)
        check_choice(owner, "usage_reset_period", usage_reset_period, RESET_PERIODS)
        for param, value, low in (("sched_interval", sched_interval, 1),
                                  ("default_queue_depth", default_queue_depth, 1),
                                  ("bf_interval", bf_interval, 1),
                                  ("bf_window", bf_window, 1),
                                  ("bf_resolution", bf_resolution, 1),
                                  ("bf_max_job_test", bf_max_job_test, 1),
                                  ("bf_max_job_user", bf_max_job_user, 0),
                                  ("bf_min_prio_reserve", bf_min_prio_reserve, 0),
                                  ("weight_age", weight_age, 0),
                                  ("weight_job_size", weight_job_size, 0),
                                  ("max_age", max_age, 1),
                                  ("priority_calc_period", priority_calc_period, 1),
                                  ("cpus_per_node", cpus_per_node, 0),
                                  ("clock_origin", clock_origin, 0),
                                  ("completing", completing, 0),
                                  ("over_time_limit", over_time_limit, -1),
                                  ("kill_wait", kill_wait, 0),
                                  ("weight_qos", weight_qos, 0),
                                  ("weight_fairshare", weight_fairshare, 0),
                                  ("decay_half_life", decay_half_life, 0),
                                  ("priority_calc_offset", priority_calc_offset, 0),
                                  ("sched_offset", sched_offset, 0),
                                  ("batch_sched_delay", batch_sched_delay, 0),
                                  ("weight_partition", weight_partition, 0)):
            check_number(owner, param, value, int, low)
        self.backfill = backfill
        self.priority = priority
        self.sched_interval = sched_interval
        self.sched_offset = sched_offset
        self.batch_sched_delay = batch_sched_delay
        self.default_queue_depth = default_queue_depth
        self.bf_interval = bf_interval
        self.bf_window = bf_window
        self.bf_resolution = bf_resolution
        self.bf_max_job_test = bf_max_job_test
        self.bf_max_job_user = bf_max_job_user
        self.bf_min_prio_reserve = bf_min_prio_reserve
        self.weight_age = weight_age
        self.weight_job_size = weight_job_size
        self.max_age = max_age
        self.favor_small = favor_small
        self.priority_calc_period = priority_calc_period
        self.cpus_per_node = cpus_per_node
        self.clock_origin = clock_origin
        self.completing = completing
        self.over_time_limit = over_time_limit
        self.kill_wait = kill_wait
        #: The engine kills a job this long after its estimate (Policy.kill_grace).
        self.kill_grace = MAX_TIME if over_time_limit == UNLIMITED else over_time_limit * 60
        self.partitions = partitions
        self.queue_names = queue_names
        #: Partitions by name; the default one (the one marked so, else the first: our
        #: reading); jobs of no partition go there.
        self._parts = partitions or (Partition("all"),)
        self._by_name = {part.name: k for k, part in enumerate(self._parts)}
        self._default = next((k for k, part in enumerate(self._parts) if part.default), 0)
        self._tier = [part.priority_tier for part in self._parts]
        self._one_tier = len(set(self._tier)) == 1
        self.qos = qos
        self.qos_names = qos_names
        self.weight_qos = weight_qos
        #: QOS by name; jobs of no QOS take "normal" where the table has it (Slurm's
        #: default QOS), else no QOS.
        self._qos_by_name = {entry.name: k for k, entry in enumerate(qos)}
        self._limits = QosLimits(qos) if qos else None
        self._top_qos_priority = max((entry.priority for entry in qos), default=0)
        self.weight_partition = weight_partition
        self._top_job_factor = max(part.priority_job_factor for part in self._parts)
        self.weight_fairshare = weight_fairshare
        self.fair_tree = fair_tree
        self.decay_half_life = decay_half_life
        self.usage_reset_period = usage_reset_period
        self.priority_calc_offset = priority_calc_offset
        self.enforce_limits = enforce_limits
        self.associations = associations
        self.account_names = account_names
        self.user_names = user_names
        #: Fair-share: the association tree, its nodes by (account, user) ("" for an
        #: account's own node), the user node of every job not yet ended, and the usage.
        self._tree = AssociationTree.of(associations)
        self._first_assoc: dict[str, int] = {}      # user -> their first association
        for row in associations:
            if row.user:
                self._first_assoc.setdefault(row.user, self._tree.nodes[row.account, row.user])
        self._leaf: dict[int, int] = {}
        self._fairshare = self._build_fairshare() if (
            priority == "multifactor" and weight_fairshare) else None
        self._qos: dict[int, int] = {}          # QOS of every job that has one, by id
        self._nodes: Nodes | None = None       # built at the first submission
        self._part: dict[int, int] = {}         # partition of every job, by id
        self._started: dict[int, int] = {}     # start time of every running job, by id
        #: The backfill walk's fixed columns of every pending job (its width, nodes, time
        #: limit, partition, user and whether its QOS limits apply), and the users' dense
        #: numbers.
        self._pending_rows = PendingRows()
        self._users: dict[int, int] = {}
        self._running = RunningJobs(len(self._parts))
        self._scratch: Scratch | None = None      # made at the first backfill pass
        #: Multifactor priority: each pending job's fixed factors (_job_factors), its
        #: priority, and the queue in order with its sort keys (tier, priority and
        #: arrival, negated where higher comes first), as sorted at ``_order_calc`` with
        #: the fair-share factors ``_order_factors`` (None: to sort).
        self._fixed_factors: dict[int, tuple[float, float, float, int, int]] = {}
        self._priority: dict[int, int] = {}
        self._order: list[Job] | None = None
        self._order_keys: list[tuple[int, int, int]] = []
        self._order_calc = 0
        self._order_factors: list[float] | None = None
        self._next_seq = 0
        #: (until, CPUs, where) of jobs that ended, where: their (node, CPUs) when tracked.
        self._completing: list[tuple[int, int, list[tuple[int, int]]]] = []
        self._event = False          # a submission or an end at this instant
        #: The last second (on the clock) the background thread called the main scheduler
        #: at a tick or for a request, and when a request it has not yet honoured will be
        #: (None: none waits); see :meth:`_called`.
        self._last_call = -MAX_TIME
        self._due: int | None = None
        self._changed = False        # something changed since the last backfill pass
        self._next_full = self._tick_after(-1)     # the next periodic main-scheduler run
        #: The priority time (:meth:`_calc_time`) at which the main scheduler's last pass
        #: started nothing, with nothing it reads changed since (None: not so); and
        #: whether its ticks are skipped meanwhile (:meth:`_wake`).
        self._settled: int | None = None
        self._asleep = False
        self._wake_asked = -1        # the latest wake-up asked for (on the clock)
        self._passes = {"main": 0, "backfill": 0}

    def statistics(self) -> dict[str, Any]:
        return {"main_passes": self._passes["main"],
                "backfill_passes": self._passes["backfill"]}

    # ------------------------------------------------------------------ events
    def on_submit(self, ctx: Context, job: Job) -> None:
        self._event = self._changed = True
        self._settled = None
        nodes = self._nodes or self._build_nodes(ctx)
        part = self._partition_of(job)
        if part is None:
            ctx.reject(job, f"no partition {self._queue_name(job)!r} in the configuration")
            return
        max_time = self._parts[part].max_time
        if max_time and limit_seconds(job) > max_time:
            ctx.reject(job, f"time limit above the MaxTime of partition "
                            f"{self._parts[part].name!r}")
            return
        if nodes.tracked and job.width > nodes.capacity(part):
            ctx.reject(job, f"more CPUs than partition {self._parts[part].name!r} has")
            return
        if self._fairshare is not None and not self._admit_association(ctx, job):
            return
        if self._limits is not None and not self._admit_qos(ctx, job):
            self._leaf.pop(job.id, None)
            return
        self._part[job.id] = part
        need = min(max(-(-job.width // nodes.cpus_per_node), job.nodes), len(nodes.members[part]))
        self._pending_rows.add(job.id, (job.width, need, limit_seconds(job), part,
                                        self._users.setdefault(job.user, len(self._users)),
                                        int(self._limits is not None and job.id in self._qos)),
                                self.bf_min_prio_reserve)
        if self.priority == "multifactor":
            self._fixed_factors[job.id] = self._job_factors(job, ctx.processors)
            self._enqueue(ctx, job)

    def _admit_qos(self, ctx: Context, job: Job) -> bool:
        """Find the job's QOS and count it, or reject the job (a QOS the table lacks, or a
        limit of its QOS refuses it)."""
        assert self._limits is not None
        name = _name(job.qos, self.qos_names)
        qos = self._qos_by_name.get(name if name is not None else "normal")
        if qos is None:
            if name is None:
                return True
            ctx.reject(job, f"no QOS {name!r} in the QOS table")
            return False
        refusal = self._limits.refusal(qos, job.user, job.width)
        if refusal is not None:
            ctx.reject(job, refusal)
            return False
        self._limits.submitted(qos, job.user)
        self._qos[job.id] = qos
        return True

    def _qos_allows(self, job: Job) -> bool:
        """Whether the job's QOS limits let it start now (no QOS: always)."""
        qos = self._qos.get(job.id)
        return qos is None or self._limits is None \
            or self._limits.runnable(qos, job.user, job.width)

    def on_finish(self, ctx: Context, job: Job) -> None:
        self._event = self._changed = True
        self._settled = None
        if self._fairshare is not None and job.id in self._started:
            self._fairshare.ended(job.id, ctx.now)
        self._leaf.pop(job.id, None)
        if self._started.pop(job.id, None) is not None:
            self._running.remove(job.id)
        self._part.pop(job.id, None)
        qos = self._qos.pop(job.id, None)
        if qos is not None and self._limits is not None:
            self._limits.ended(qos, job.user, job.width)
        nodes = self._nodes
        where = nodes.give_back(job.id) if nodes is not None and nodes.tracked else []
        if self.completing and self.backfill:
            self._completing = [c for c in self._completing if c[0] > ctx.now]
            self._completing.append((ctx.now + self.completing, job.width, where))

    def on_cancel(self, ctx: Context, job: Job) -> None:
        self._changed = True
        self._settled = None
        self._dequeue(job)
        self._part.pop(job.id, None)
        self._pending_rows.remove(job.id)
        self._fixed_factors.pop(job.id, None)
        self._leaf.pop(job.id, None)
        qos = self._qos.pop(job.id, None)
        if qos is not None and self._limits is not None:
            self._limits.withdrawn(qos, job.user)

    # ------------------------------------------------------------------ partitions
    def _build_nodes(self, ctx: Context) -> Nodes:
        """The cluster's nodes, once the machine's size is known."""
        node_cpus = self.cpus_per_node or ctx.processors
        count = max(1, ctx.processors // node_cpus)
        for part in self._parts:
            if part.nodes and part.nodes[-1] >= count:
                raise InputError(f"partition {part.name!r} names node {part.nodes[-1] + 1}, "
                                 f"but the machine has {count} nodes of {node_cpus} CPUs",
                                 field="partitions")
        self._nodes = Nodes(self._parts, count, node_cpus)
        return self._nodes

    def _queue_name(self, job: Job) -> str | None:
        """The name of a job's partition as its workload gives it (None: not given)."""
        return _name(job.queue, self.queue_names)

    def _partition_of(self, job: Job) -> int | None:
        """A job's partition: the one its workload names, else the default; None for a
        name no partition has (Slurm refuses such a submission).  An SWF queue number
        that names no partition means the default one."""
        if not self.partitions:
            return self._default
        name = self._queue_name(job)
        if name is None:
            return self._default
        found = self._by_name.get(name)
        if found is None and not self.queue_names:
            return self._default
        return found

    def on_outage(self, ctx: Context, event: OutageEvent) -> None:
        self._changed = True
        self._settled = None

    def schedule(self, ctx: Context) -> None:
        now = ctx.now
        clock = now + self.clock_origin
        if self._asleep:
            self._skipped_ticks(clock)
        elif self._next_full < clock:       # the ticks since found no job pending: no passes
            self._next_full = self._tick_after(clock - 1)
        full = clock == self._next_full
        if full:
            self._next_full = self._tick_after(clock)
        if (full or self._event or self._due is not None) and self._called(clock, full) \
                and ctx.waiting:
            if self._settled is not None and self._settled == self._calc_time(now):
                self._passes["main"] += 1       # it would start nothing, as the last did
            else:
                self._main(ctx, None if full else self.default_queue_depth)
        if self.backfill and self._changed and ctx.waiting and clock % self.bf_interval == 0:
            self._changed = bool(self._completing) and any(
                until > now for until, _, _ in self._completing)
            self._backfill(ctx)
        if ctx.waiting:
            self._wake(ctx, clock)

    def _called(self, clock: int, full: bool) -> bool:
        """Whether slurmctld's background thread calls the main scheduler at wall-clock
        second ``clock``: at its periodic pass (``full``), or for a submission or an end
        asked for now or before, once ``batch_sched_delay`` seconds have passed since it
        last called it (our reading of ``_slurmctld_background`` and
        ``queue_job_scheduler`` in ``src/slurmctld/controller.c``: a batch submission and
        a batch job's end only queue a request).  A request that must wait is due
        ``batch_sched_delay`` seconds after the last call; one due while no job waited
        was honoured then, and counts as the last call."""
        due = self._due
        if due is not None and due < clock:
            self._last_call = due
            self._due = due = None
            if not (full or self._event):
                return False
        self._event = False
        # (not at a tick, the next one is the first after clock: the last was before it)
        last = max(self._last_call, self._next_full - self.sched_interval)
        if full or clock - last >= self.batch_sched_delay:
            self._last_call = clock
            self._due = None
            return True
        self._due = last + self.batch_sched_delay
        return False

    def _wake(self, ctx: Context, clock: int) -> None:
        """Ask for the next pass: the main scheduler's next tick, the backfill scheduler's
        next one if something changed.  While the main scheduler is settled (its last
        pass started nothing, and nothing it reads has changed since) its ticks are
        passes that start nothing: they are skipped up to the next change of the
        priorities (the next decay run; never with basic priority), and counted at the
        next pass (:meth:`_skipped_ticks`).  Not with advance reservations, failures or
        windows, whose holds may change the free processors between events.  A wake-up
        still to come is not asked for again (the engine makes the requests for one
        instant one wake-up)."""
        self._asleep = (self._settled is not None and not ctx.has_holds
                        and not ctx.reservations_enabled)
        if not self._asleep:
            wake = self._next_full
        elif self.priority == "multifactor":
            change = self._calc_time(ctx.now) + self.priority_calc_period + self.clock_origin
            wake = self._tick_after(change - 1)
        else:
            wake = MAX_TIME
        if self.backfill and self._changed:
            wake = min(wake, (clock // self.bf_interval + 1) * self.bf_interval)
        if self._due is not None:
            wake = min(wake, self._due)
        if wake < MAX_TIME and wake != self._wake_asked:
            ctx.wake_at(wake - self.clock_origin)
            self._wake_asked = wake

    def _tick_after(self, clock: int) -> int:
        """The main scheduler's first periodic pass after wall-clock second ``clock``."""
        interval, offset = self.sched_interval, self.sched_offset
        return ((clock - offset) // interval + 1) * interval + offset

    def _skipped_ticks(self, clock: int) -> None:
        """Count the main scheduler's ticks skipped before ``clock`` as the passes they were
        (each started nothing) and move its next tick past them."""
        if self._next_full < clock:
            ticks = -(-(clock - self._next_full) // self.sched_interval)
            self._passes["main"] += ticks
            self._next_full += ticks * self.sched_interval
        self._asleep = False

    # ------------------------------------------------------------------ priority
    def _queue(self, ctx: Context) -> list[Job]:
        """The pending jobs in Slurm's order (``sort_job_queue2`` in
        ``src/slurmctld/job_scheduler.c``): the higher partition PriorityTier first, then
        the higher priority, then submission order."""
        waiting = list(ctx.waiting.values())
        if self.priority == "basic":
            if self._one_tier:
                return waiting
            return sorted(waiting, key=lambda job: -self._tier[self._part[job.id]])
        return list(self._ordered(ctx))     # a copy: a pass takes the jobs it starts out

    def _priorities(self, ctx: Context) -> dict[int, int]:
        """The multifactor priority of every pending job, as last computed: at the latest
        run of the decay thread (``priority_calc_offset`` past a multiple of
        ``priority_calc_period`` on the clock), or at its submission."""
        self._ordered(ctx)
        return self._priority

    def _ordered(self, ctx: Context) -> list[Job]:
        """The pending jobs in queue order under multifactor priority, kept as they come
        and go between runs of the decay thread, and sorted anew, every priority
        computed at once, when a run changes them (a new latest run, or new fair-share
        factors)."""
        calc = self._calc_time(ctx.now)
        factors = self._fairshare.factors(ctx.now) if self._fairshare is not None else None
        if self._order is None or calc != self._order_calc or factors is not self._order_factors:
            self._order = self._sort_queue(ctx, calc, factors)
        return self._order

    def _sort_queue(self, ctx: Context, calc: int, factors: list[float] | None) -> list[Job]:
        """Every pending job's priority as computed at ``calc`` (at its submission if
        later) with the fair-share ``factors``, and the queue sorted by them (returned)."""
        jobs = list(ctx.waiting.values())
        fixed = np.array([self._fixed_factors[job.id] for job in jobs],
                         np.float64).reshape(-1, 5)
        submit = fixed[:, 4].astype(np.int64)
        if factors is not None:
            leaves = np.array([self._leaf[job.id] for job in jobs], np.int64)
            fairshare = np.asarray(factors, np.float64)[leaves]
        else:
            fairshare = np.zeros(len(jobs))
        age = np.minimum(np.maximum(np.maximum(calc, submit) - submit, 0),
                         self.max_age) / self.max_age
        value = self._weighted(age, fairshare, fixed[:, 0], fixed[:, 1], fixed[:, 2])
        priority = np.maximum(1, np.floor(value)).astype(np.int64)
        tier = fixed[:, 3].astype(np.int64)
        order = np.lexsort((np.arange(len(jobs)), -priority, -tier)).tolist()
        self._order_keys = list(zip((-tier[order]).tolist(), (-priority[order]).tolist(),
                                    order))
        self._priority = dict(zip((job.id for job in jobs), priority.tolist()))
        self._order_calc, self._order_factors = calc, factors
        self._next_seq = len(jobs)
        return [jobs[k] for k in order]

    def _enqueue(self, ctx: Context, job: Job) -> None:
        """A job joins the kept order with its priority at submission; or the order is
        sorted anew at the next pass where the job did not join at the queue's end (a
        requeue) or its association is newer than the factors."""
        if self._order is None:
            return
        factors = self._order_factors
        leaf = self._leaf.get(job.id, 0)
        if next(reversed(ctx.waiting)) != job.id or (factors is not None
                                                     and leaf >= len(factors)):
            self._order = None
            return
        priority = self.job_priority(job, max(self._order_calc, job.submit), ctx.processors,
                                     factors[leaf] if factors is not None else 0.0)
        key = (-int(self._fixed_factors[job.id][3]), -priority, self._next_seq)
        self._next_seq += 1
        at = bisect_right(self._order_keys, key)
        self._order_keys.insert(at, key)
        self._order.insert(at, job)
        self._priority[job.id] = priority

    def _dequeue(self, job: Job) -> None:
        """A job leaves the kept order (it starts or is cancelled)."""
        order = self._order
        priority = self._priority.pop(job.id, None) if order is not None else None
        if order is None or priority is None:
            return
        key = (-int(self._fixed_factors[job.id][3]), -priority)
        at = bisect_left(self._order_keys, key)
        while order[at].id != job.id:
            at += 1
        del self._order_keys[at]
        del order[at]

    def _calc_time(self, now: int) -> int:
        """When the priorities in force at ``now`` were computed: the latest run of the
        decay thread (0 with basic priority, which never changes)."""
        if self.priority == "basic":
            return 0
        period, shift = self.priority_calc_period, self.clock_origin - self.priority_calc_offset
        return (now + shift) // period * period - shift

    def job_priority(self, job: Job, at: int, processors: int, fairshare: float = 0.0) -> int:
        """The multifactor priority of ``job`` computed at time ``at`` with the fair-share
        factor ``fairshare`` of its association (a whole number >= 1, as Slurm's)."""
        age = min(max(at - job.submit, 0), self.max_age) / self.max_age
        size, partition, service, _, _ = self._job_factors(job, processors)
        return max(1, math.floor(self._weighted(age, fairshare, size, partition, service)))

    def _weighted(self, age: Any, fairshare: Any, size: Any, partition: Any,
                  service: Any) -> Any:
        """The weighted sum of the factors, in Slurm's order (floats, or arrays of them)."""
        return (self.weight_age * age + self.weight_fairshare * fairshare
                + self.weight_job_size * size + self.weight_partition * partition
                + self.weight_qos * service)

    def _job_factors(self, job: Job, processors: int) -> tuple[float, float, float, int, int]:
        """The factors of a job that never change: job size, partition, QOS; and its
        partition's PriorityTier and its submission time."""
        node_cpus = self.cpus_per_node or processors
        nodes = max(1, processors // node_cpus)
        node_share = min(max(1, job.nodes), nodes) / nodes
        cpu_share = job.width / processors
        size = ((2.0 - node_share - cpu_share) if self.favor_small
                else (node_share + cpu_share)) / 2
        qos = self._qos.get(job.id)
        service = (self.qos[qos].priority / self._top_qos_priority
                   if qos is not None and self._top_qos_priority else 0.0)
        part = self._part.get(job.id, self._default)
        partition = (self._parts[part].priority_job_factor / self._top_job_factor
                     if self._top_job_factor else 0.0)
        return size, partition, service, self._tier[part], job.submit

    # ------------------------------------------------------------------ fair-share
    def _build_fairshare(self) -> FairShare:
        """The usage of the association tree."""
        return FairShare(self._tree, fair_tree=self.fair_tree,
                         half_life=self.decay_half_life,
                         calc_period=self.priority_calc_period,
                         calc_offset=self.priority_calc_offset,
                         clock_origin=self.clock_origin, reset_period=self.usage_reset_period,
                         usage_at_end=self.enforce_limits)

    def _admit_association(self, ctx: Context, job: Job) -> bool:
        """Find the user association the job's usage goes to, or reject the job (a table
        was given and has none for it, as Slurm refuses a job of no association).
        Without a table every account and user of the workload is an association of one
        share, added at its first job (our reading)."""
        assert self._fairshare is not None
        account = _name(job.account, self.account_names)
        user = _name(job.user, self.user_names) or "?"
        if self.associations:
            node = (self._first_assoc.get(user) if account is None
                    else self._tree.nodes.get((account, user)))
            if node is None:
                ctx.reject(job, f"no association of user {user!r}"
                                + (f" in account {account!r}" if account else ""))
                return False
        else:
            account = account or "(none)"
            node = self._tree.nodes.get((account, user))
            if node is None:
                if (account, "") not in self._tree.nodes:
                    self._tree.add_association(Association(account))
                node = self._tree.add_association(Association(account, user))
                self._fairshare.grown()
        self._leaf[job.id] = node
        return True

    # ------------------------------------------------------------------ main scheduler
    def _main(self, ctx: Context, depth: int | None) -> None:
        """Start jobs in queue order while they fit, testing at most ``depth`` (None: all).
        Settled (see :meth:`_wake`) where it starts nothing and saw as far as a full pass
        would: it stopped, or its depth left no job untested."""
        self._passes["main"] += 1
        queue = self._queue(ctx)
        cut = depth is not None and len(queue) > depth
        self._settled = self._calc_time(ctx.now)          # (a start unsettles it)
        if not self._main_walk(ctx, queue[:depth] if cut else queue) and cut:
            self._settled = None

    def _main_walk(self, ctx: Context, queue: list[Job]) -> bool:
        """Start the jobs of ``queue`` in order while they fit; the first that does not
        stops its partition, and no later job may use that partition's nodes
        (``_failed_partition`` in ``src/slurmctld/job_scheduler.c``).  Whether it stopped
        (every partition) before the queue's end."""
        nodes = self._nodes
        if nodes is None or not nodes.tracked:
            for job in queue:
                if self._limits is not None and not self._qos_allows(job):
                    continue
                if job.width > ctx.free:
                    return True
                self._start(ctx, job)
            return False
        failed: set[int] = set()
        blocked: set[int] = set()
        for job in queue:
            part = self._part[job.id]
            if part in failed or not self._qos_allows(job):
                continue
            if job.width > nodes.free(part, blocked) or job.width > ctx.free:
                failed.add(part)
                blocked.update(nodes.members[part])
                if len(failed) == len(self._parts):
                    return True
                continue
            self._start(ctx, job, blocked)
        return False

    def _start(self, ctx: Context, job: Job, blocked: set[int] | None = None) -> None:
        ctx.start(job)
        self._dequeue(job)
        self._fixed_factors.pop(job.id, None)
        self._settled = None
        self._started[job.id] = ctx.now
        self._pending_rows.remove(job.id)
        if self._fairshare is not None:
            self._fairshare.started(job.id, self._leaf[job.id], job.width, ctx.now)
        qos = self._qos.get(job.id)
        if qos is not None and self._limits is not None:
            self._limits.started(qos, job.user, job.width)
        nodes = self._nodes
        if nodes is not None and nodes.tracked:
            nodes.take(job.id, self._part[job.id], job.width, blocked or frozenset())
            held = [nodes.cpus_in(nodes.held[job.id], part) for part in range(len(self._parts))]
        else:
            held = [job.width]
        limit = limit_seconds(job)
        self._running.add(job.id, ctx.now + limit, limit, held)

    # ------------------------------------------------------------------ backfill
    def _backfill(self, ctx: Context) -> None:
        """One backfill pass (see the module): start what can start now, reserve the rest.

        Each partition is planned on its own maps (its nodes' CPUs, its unreserved
        nodes), built when a job of it is first tried; a reservation on one partition
        also holds, in every partition sharing nodes with it, as many of the shared
        nodes as it needs (our reading: the shared nodes are reserved first).  The walk
        down the queue is compiled (:func:`schedlab.policies.slurm_backfill.walk`); it
        hands back here what the engine, the QOS limits and the other maps must do."""
        bf = _compiled()
        self._passes["backfill"] += 1
        now = ctx.now
        nodes = self._nodes or self._build_nodes(ctx)
        if self._completing:
            self._completing = [c for c in self._completing if c[0] > now]
        if self._none_fits(ctx):
            return
        queue = self._queue(ctx)
        priority = (self._priorities(ctx)
                    if self.bf_min_prio_reserve and self.priority == "multifactor" else {})
        scratch = self._scratch or self._new_scratch()
        state, running = scratch.state, self._running
        maps: dict[int, tuple[ArrayProfile, ArrayProfile]] = {}
        pending = self._pending_rows
        slots = pending.slots(queue[:_FIRST_ROWS], priority, self.bf_min_prio_reserve)
        part, position = -1, 0
        completing = scratch.no_rows
        users = len(self._users) if self.bf_max_job_user else 0
        if nodes.tracked:           # the maps of each partition made when a job of it is tried
            scratch.begin(ctx.free, False, users)
        elif ctx.has_holds:
            scratch.begin(ctx.free, True, users)
            part = 0
            maps[0] = self._pass_map(ctx, nodes, 0, scratch)
        else:                       # the walk makes the maps
            part = 0
            maps[0] = scratch.maps_of(0, ctx.processors, len(nodes.members[0]))
            completing = self._completing_rows(nodes, 0, scratch)
            maps[0][0].size = running.count + 1 + 2 * len(completing)     # the most it takes
            scratch.begin(ctx.free, True, users, (1, running.count, len(completing),
                                                  ctx.processors, len(nodes.members[0])))
        cpus, reserved = maps[0] if maps else scratch.no_maps
        while position < len(queue):
            if position == len(slots):
                slots = np.concatenate((slots, pending.slots(
                    queue[position:2 * position + _FIRST_ROWS], priority,
                    self.bf_min_prio_reserve)))
            left = len(slots) - position
            cpus.make_room(2 * left)
            reserved.make_room(2 * left)
            scratch.room_to_make(left)
            rest = (pending.narrowest(), 1, 0) if len(slots) < len(queue) else _NO_BOUNDS
            why, position, cpus.size, reserved.size = bf.walk(
                pending.table, slots, position, len(slots), part, cpus.times, cpus.free,
                cpus.size, reserved.times, reserved.free, reserved.size, state, scratch.per_user,
                scratch.made, scratch.started, scratch.config, now, running.ends, running.held,
                running.limits, completing, *rest)
            for started in scratch.take_started():
                self._start(ctx, queue[started])
            if why == bf.DONE:
                return
            if why == bf.START:
                job = queue[position]
                self._start(ctx, job)
                for other, (other_cpus, _) in maps.items():
                    held = nodes.cpus_in(nodes.held[job.id], other)
                    if held:
                        other_cpus.make_room(2)
                        other_cpus.size = bf.change(other_cpus.times, other_cpus.free,
                                                    other_cpus.size, now,
                                                    limit_seconds(job), -held)
                state[bf.FREE] = ctx.free
                position += 1
            elif why == bf.CHECK_QOS:
                if self._qos_allows(queue[position]):
                    state[bf.ALLOWED] = position
                else:
                    position += 1
            elif why == bf.OTHER_MAP:
                part = self._part[queue[position].id]
                if part not in maps:
                    maps[part] = self._pass_map(ctx, nodes, part, scratch)
                    state[bf.OTHERS] = len(maps) > 1
                cpus, reserved = maps[part]
            elif why == bf.RESERVED:
                _, begin, end, need = scratch.made[state[bf.MADE] - 1].tolist()
                for other, (_, other_reserved) in maps.items():
                    held = min(need, nodes.shared[part].get(other, 0))
                    if other != part and held:
                        other_reserved.make_room(2)
                        other_reserved.size = bf.block(other_reserved.times, other_reserved.free,
                                                       other_reserved.size, begin, end, held)
                position += 1

    def _none_fits(self, ctx: Context) -> bool:
        """Whether no pending job fits the CPUs free now: a backfill pass would then start
        nothing, and its reservations last only for the pass, so it is not run (it is
        still counted)."""
        return ctx.free < self._pending_rows.narrowest()

    def _new_scratch(self) -> Scratch:
        """The backfill passes' arrays, with the parameters of the pass (made at the first)."""
        self._scratch = _compiled().Scratch((
            self.bf_min_prio_reserve, self.bf_max_job_test, self.bf_max_job_user,
            self.bf_resolution, self.clock_origin, self.over_time_limit, self.kill_wait,
            self.bf_window * 60))
        return self._scratch

    def _completing_rows(self, nodes: Nodes, part: int, scratch: Scratch) -> np.ndarray:
        """Rows ``(until, CPUs)`` of the jobs that ended but are still completing, their CPUs
        on partition ``part``'s nodes (the backfill CPU map holds them till then)."""
        if not self._completing:
            return scratch.no_rows
        return np.array([(until, nodes.cpus_in(where, part) if nodes.tracked else width)
                         for until, width, where in self._completing], np.int64)

    def _pass_map(self, ctx: Context, nodes: Nodes, part: int,
                  scratch: Scratch) -> tuple[ArrayProfile, ArrayProfile]:
        """A partition's backfill maps at ``now``, made in Python (with partitions, or holds):
        its nodes' CPUs as running and completing jobs hold them, and its unreserved nodes
        after the reservations made so far in the pass (``scratch.made``: rows of
        partition, begin, end, nodes)."""
        bf = _compiled()
        now = ctx.now
        cpus, reserved = scratch.maps_of(
            part, nodes.capacity(part) if nodes.tracked else ctx.processors,
            len(nodes.members[part]))
        completing = self._completing_rows(nodes, part, scratch)
        if ctx.has_holds and not nodes.tracked:
            cpus.load(self._map_with_holds(ctx))
            cpus.make_room(2 * len(completing))
            cpus.size = bf.hold_completing(cpus.times, cpus.free, cpus.size, now, completing,
                                           len(completing))
        else:
            running = self._running
            cpus.make_room(running.count + 1 + 2 * len(completing))
            cpus.size = bf.pass_map(cpus.times, cpus.free, cpus.capacity, now, running.ends,
                                    running.held[part], running.limits, running.count,
                                    self.over_time_limit, self.kill_wait, completing,
                                    len(completing))
        reserved.times[0], reserved.free[0], reserved.size = now, reserved.capacity, 1
        made = int(scratch.state[bf.MADE])
        for other, begin, end, need in (scratch.made[:made].tolist() if made else ()):
            held = need if other == part else min(need, nodes.shared[other].get(part, 0))
            if held:
                reserved.make_room(2)
                reserved.size = bf.block(reserved.times, reserved.free, reserved.size, begin, end,
                                      held)
        return cpus, reserved

    def _map_with_holds(self, ctx: Context) -> Profile:
        """The CPU map of a run whose processors are also held by advance reservations,
        failures or maintenance windows: the engine's profile (which has them all), each
        running job held on from its expected end to its time limit where a window has
        not claimed its CPUs by then.  With partitions (whose nodes the holds do not
        name) the holds are seen only in the machine's free count, our reading: a job
        starts where both its partition's nodes and the machine have room."""
        from schedlab.policies.slurm_backfill import guessed_end

        now = ctx.now
        cpus = ctx.profile()
        for job in ctx.running.values():
            expected = ctx.expected_end(job)
            limit = limit_seconds(job)
            end = self._started[job.id] + limit
            if end <= now:
                end = guessed_end(end, limit, now, self.over_time_limit, self.kill_wait)
            if end > expected:
                cpus.reserve(expected, end - expected,
                             min(job.width, cpus.min_free(expected, end)))
        return cpus


class PendingRows:
    """The backfill walk's rows (the columns of :mod:`schedlab.policies.slurm_backfill`,
    ``WIDTH`` ... ``PRIORITY``) of every pending job, in a table kept for the whole run:
    a pass hands the walk the table and the queue's row numbers instead of building the
    rows job by job.  A job's fixed columns (all but the last, its priority) are written
    at its submission; its row is given to a later job once it leaves the queue.  The
    pending jobs' widths are counted, so that the narrowest is known without a look at
    every row (asked before every backfill pass)."""

    def __init__(self) -> None:
        self.table = np.zeros((64, 7), np.int64)
        self._slot: dict[int, int] = {}       # job id -> row of ``table``
        self._unused: list[int] = []
        self._next = 0
        self._width: dict[int, int] = {}      # job id -> its width
        self._widths: dict[int, int] = {}     # width -> pending jobs of that width
        self._narrowest: int | None = None    # the least of ``_widths`` (None: to find)

    def add(self, job_id: int, fixed: tuple[int, int, int, int, int, int],
            default: int) -> None:
        """Write a job's fixed columns and the ``default`` priority (a pass with
        priorities sets it in :meth:`slots`)."""
        if self._unused:
            slot = self._unused.pop()
        else:
            slot = self._next
            self._next += 1
            if slot == len(self.table):
                self.table = np.concatenate((self.table, np.zeros_like(self.table)))
        self.table[slot] = (*fixed, default)
        self._slot[job_id] = slot
        width = self._width[job_id] = fixed[0]
        self._widths[width] = self._widths.get(width, 0) + 1
        if self._narrowest is not None and width < self._narrowest:
            self._narrowest = width

    def remove(self, job_id: int) -> None:
        """Forget a job that left the queue (started or cancelled; no row: nothing)."""
        slot = self._slot.pop(job_id, None)
        if slot is None:
            return
        self._unused.append(slot)
        width = self._width.pop(job_id)
        left = self._widths.pop(width) - 1
        if left:
            self._widths[width] = left
        elif width == self._narrowest:
            self._narrowest = None

    def narrowest(self) -> int:
        """The fewest CPUs a pending job asks for (:data:`_NO_WIDTH` with none pending)."""
        if self._narrowest is None:
            self._narrowest = min(self._widths, default=_NO_WIDTH)
        return self._narrowest

    def slots(self, jobs: list[Job], priority: dict[int, int], default: int) -> np.ndarray:
        """The rows of the pending ``jobs``, in that order, each given its ``priority``
        (``default`` for a job it lacks) in the last column."""
        found = np.fromiter(map(self._slot.__getitem__, map(_id, jobs)), np.int64, len(jobs))
        if priority:
            self.table[found, -1] = [priority.get(job.id, default) for job in jobs]
        return found


class RunningJobs:
    """The running jobs as the backfill map sees them, in arrays for the compiled map
    builder (:func:`schedlab.policies.slurm_backfill.cpu_map`): row ``k < count`` holds
    a job's start plus time limit (``ends``), its time limit (``limits``) and its CPUs
    on each partition's nodes (``held[partition]``)."""

    def __init__(self, partitions: int) -> None:
        self.ends = np.empty(64, np.int64)
        self.limits = np.empty(64, np.int64)
        self.held = np.empty((partitions, 64), np.int64)
        self.count = 0
        self._row: dict[int, int] = {}        # job id -> row
        self._ids: list[int] = []              # row -> job id

    def add(self, job_id: int, end: int, limit: int, held: list[int]) -> None:
        row = self.count
        if row == len(self.ends):
            self.ends, self.limits, self.held = (np.concatenate((a, a), axis=-1)
                                                 for a in (self.ends, self.limits, self.held))
        self.ends[row], self.limits[row] = end, limit
        held_at = self.held
        for part, cpus in enumerate(held):      # (element by element: one partition is usual)
            held_at[part, row] = cpus
        self._row[job_id] = row
        self._ids.append(job_id)
        self.count = row + 1

    def remove(self, job_id: int) -> None:
        """Forget a job: the last row takes its place."""
        row, last = self._row.pop(job_id), self.count - 1
        moved = self._ids.pop()
        if row != last:
            self.ends[row], self.limits[row] = self.ends[last], self.limits[last]
            self.held[:, row] = self.held[:, last]
            self._ids[row] = moved
            self._row[moved] = row
        self.count = last


@functools.cache
def _compiled() -> ModuleType:
    """The compiled backfill pass (:mod:`schedlab.policies.slurm_backfill`), imported at
    the first backfill pass: it imports numba, which a run without one need not load."""
    from schedlab.policies import slurm_backfill
    return slurm_backfill


_id = operator.attrgetter("id")
#: How many queue rows a backfill pass hands its walk first (then twice as many as given).
_FIRST_ROWS = 64
#: A width wider than any job's.
_NO_WIDTH = int(np.iinfo(np.int64).max)
#: The walk's bounds of the queue past the rows given when none is left.
_NO_BOUNDS = (_NO_WIDTH, _NO_WIDTH, _NO_WIDTH)


def _checked_table(owner: str, param: str, rows: Any, kind: type, what: str) -> Any:
    """``rows`` as a tuple of ``kind`` (Partition, Qos) with distinct names (an InputError
    naming the parameter otherwise)."""
    if not (isinstance(rows, tuple) and all(isinstance(row, kind) for row in rows)):
        raise InputError(f"The {param!r} parameter of {owner} must be a tuple of "
                         f"{kind.__name__} ({what}). Got {rows!r} instead.", field=param)
    names = [row.name for row in rows]
    if len(set(names)) != len(names):
        raise InputError(f"The {param!r} parameter of {owner} names one twice: {names}",
                         field=param)
    return rows


def _name(number: int, names: tuple[str, ...]) -> str | None:
    """The name of a job's partition or QOS number (``names`` empty: the workload named
    none, the number as text)."""
    return name_of(number, names or None)
