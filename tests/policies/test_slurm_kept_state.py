"""What the slurm policy keeps between passes gives the schedules of making it anew.

The policy keeps the multifactor queue in order between decay runs, skips
the main scheduler's ticks while it is settled and the backfill passes no
pending job fits (docs/reference/policies/slurm.md, "Our reading of Slurm's
source"), and keeps the pending jobs' backfill rows in a table; its compiled
backfill walk starts jobs itself and stops once no job left could start now.
:class:`Anew` sorts the queue, runs the main scheduler at every tick and
every backfill pass, and makes each pass job by job in Python, its CPU map
built from the running jobs and every pending job tried, as the policy did
before it kept anything: on random workloads both give the same starts and
count the same passes.  The backfill pass's hand-checked cases are in
test_slurm.py.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlab.api import simulate
from schedlab.engine.context import Context
from schedlab.engine.profile_kernels import ArrayProfile
from schedlab.policies import slurm_backfill as bf
from schedlab.policies.slurm import PendingRows, SlurmScheduling, limit_seconds
from schedlab.workload.job import Job, Workload
from schedlab.workload.slurmqos import Qos
from strategies import workloads


class Anew(SlurmScheduling):
    """The slurm policy that keeps nothing: every pass sorts the queue and runs the main
    scheduler, and every backfill pass is run."""

    def _none_fits(self, ctx: Context) -> bool:
        return False

    def _ordered(self, ctx: Context) -> list[Job]:
        self._order = None
        return super()._ordered(ctx)

    def _main(self, ctx: Context, depth: int | None) -> None:
        super()._main(ctx, depth)
        self._settled = None

    def _backfill(self, ctx: Context) -> None:
        """A backfill pass job by job (one partition of every node): the CPU map of the
        running and completing jobs, then each pending job in queue order, up to
        ``bf_max_job_test`` tested, started at once where it can start now, else given
        its reservation."""
        nodes = self._nodes or self._build_nodes(ctx)
        assert not nodes.tracked and not ctx.has_holds
        self._passes["backfill"] += 1
        now = ctx.now
        self._completing = [c for c in self._completing if c[0] > now]
        queue = self._queue(ctx)
        cpus = ArrayProfile(ctx.processors, now)
        reserved = ArrayProfile(len(nodes.members[0]), now)
        cpus.make_room(2 * (len(ctx.running) + len(self._completing) + len(queue)))
        reserved.make_room(2 * len(queue))
        for job in ctx.running.values():
            limit = limit_seconds(job)
            end = self._started[job.id] + limit
            if end <= now:
                end = bf.guessed_end(end, limit, now, self.over_time_limit, self.kill_wait)
            cpus.size = bf.change(cpus.times, cpus.free, cpus.size, now, end - now, -job.width)
        for until, width, _ in self._completing:
            held = min(width, bf.min_free(cpus.times, cpus.free, cpus.size, now, until))
            cpus.size = bf.change(cpus.times, cpus.free, cpus.size, now, until - now, -held)
        priority = (self._priorities(ctx)
                    if self.bf_min_prio_reserve and self.priority == "multifactor" else {})
        tested, per_user = 0, dict.fromkeys((job.user for job in queue), 0)
        for job in queue:
            if tested >= self.bf_max_job_test:
                return
            if not self._qos_allows(job):
                continue
            if self.bf_max_job_user:
                if per_user[job.user] >= self.bf_max_job_user:
                    continue
                per_user[job.user] += 1
            tested += 1
            limit = limit_seconds(job)
            need = min(max(-(-job.width // nodes.cpus_per_node), job.nodes),
                       len(nodes.members[0]))
            start = bf.earliest_start(cpus.times, cpus.free, cpus.size, reserved.times,
                                      reserved.free, reserved.size, job.width, need, limit,
                                      now, self.bf_resolution, self.clock_origin)
            if start == now and job.width <= ctx.free:
                self._start(ctx, job)
                cpus.size = bf.change(cpus.times, cpus.free, cpus.size, now, limit, -job.width)
            elif (now < start <= now + self.bf_window * 60
                  and priority.get(job.id, self.bf_min_prio_reserve) >= self.bf_min_prio_reserve):
                begin, end = bf.slot(start, limit, self.bf_resolution, self.clock_origin)
                reserved.size = bf.block(reserved.times, reserved.free, reserved.size,
                                         max(begin, now), end, need)


def with_users(workload: Workload) -> Workload:
    """Each job given one of three users in one of two accounts."""
    return workload.with_jobs([job._replace(user=job.id % 3, account=job.id % 2)
                               for job in workload.jobs])


PARAMS = st.fixed_dictionaries({
    "cpus_per_node": st.sampled_from([0, 1, 2, 4]),
    "sched_interval": st.sampled_from([1, 7, 60]),
    "bf_interval": st.sampled_from([1, 5, 30]),
    "default_queue_depth": st.sampled_from([1, 2, 100]),
    "backfill": st.booleans(),
    "priority_calc_period": st.sampled_from([1, 13, 300]),
    "clock_origin": st.integers(0, 100),
    "batch_sched_delay": st.sampled_from([0, 3, 10]),
})
MULTIFACTOR = st.fixed_dictionaries({
    "priority": st.just("multifactor"),
    "weight_age": st.sampled_from([0, 1000]),
    "max_age": st.sampled_from([60, 604800]),
    "weight_job_size": st.sampled_from([0, 500]),
    "favor_small": st.booleans(),
    "weight_fairshare": st.sampled_from([0, 10000]),
    "fair_tree": st.booleans(),
    "bf_min_prio_reserve": st.sampled_from([0, 1, 300]),
    "decay_half_life": st.sampled_from([0, 600]),
})


#: Limits that a start changes: a user's running jobs and the CPUs in use.
QOS = (Qos("normal", max_jobs_per_user=2, grp_cpus=12),)


def run_both(workload: Workload, params: dict[str, Any]) -> None:
    kept, anew = SlurmScheduling(**params), Anew(**params)
    kept_result, anew_result = simulate(workload, kept), simulate(workload, anew)
    assert kept_result.start.tolist() == anew_result.start.tolist()
    assert kept_result.end.tolist() == anew_result.end.tolist()
    assert kept.statistics() == anew.statistics()


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=25), PARAMS)
def test_skipped_ticks_change_no_start_and_no_pass_count(workload, params):
    run_both(workload, params)


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=25), PARAMS, MULTIFACTOR)
def test_the_kept_multifactor_queue_is_the_queue_sorted_anew(workload, params, multifactor):
    run_both(with_users(workload), {**params, **multifactor})


def small(processors: int, jobs: list[tuple[int, int, int, int]]) -> Workload:
    """A workload of jobs ``(submit, runtime, estimate, CPUs)``, numbered from 1."""
    return Workload(jobs=tuple(Job(id=k, submit=s, runtime=r, estimate=e, width=w)
                               for k, (s, r, e, w) in enumerate(jobs, 1)),
                    processors=processors, name="example")


#: No job is pending at a periodic tick of the main scheduler (300 on the clock), then
#: jobs come: the pass of their submission tests one job, and the backfill pass the next.
EMPTY_TICK = {"cpus_per_node": 0, "sched_interval": 60, "bf_interval": 1,
              "default_queue_depth": 1, "backfill": False, "priority_calc_period": 1}


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=25), PARAMS, st.sampled_from([1, 2, 500]), st.sampled_from([0, 1]))
@example(small(3, [(6, 0, 1, 3)] * 3 + [(6, 194, 194, 3), (6, 41, 41, 3), (120, 0, 1, 3),
                   (301, 1, 1, 1), (301, 1, 1, 1), (301, 0, 1, 1), (301, 0, 1, 3)]),
         {**EMPTY_TICK, "clock_origin": 0}, 1, 0)
@example(small(2, [(0, 0, 1, 2)] * 3 + [(0, 194, 194, 2), (0, 41, 41, 2), (114, 0, 1, 2),
                   (295, 0, 1, 1), (295, 0, 1, 1)]),
         {**EMPTY_TICK, "clock_origin": 6}, 1, 0)
def test_the_compiled_backfill_walk_starts_what_a_pass_job_by_job_starts(
        workload, params, max_job_test, max_job_user):
    run_both(with_users(workload), {**params, "backfill": True, "bf_max_job_test": max_job_test,
                                    "bf_max_job_user": max_job_user})


@settings(max_examples=40, deadline=None)
@given(workloads(max_jobs=25), PARAMS)
def test_the_walk_asks_the_qos_limits_after_the_starts_before(workload, params):
    run_both(with_users(workload), {**params, "backfill": True, "qos": QOS})


def test_pending_rows_reuse_the_rows_of_jobs_that_left() -> None:
    pending = PendingRows()
    jobs = [Job(id=k, submit=0, runtime=1, estimate=60, width=k + 1) for k in range(200)]
    for job in jobs:
        pending.add(job.id, (job.width, 1, 60, 0, job.id % 3, 0), 7)
    for job in jobs[:150]:
        pending.remove(job.id)
    for job in jobs[:100]:
        pending.add(job.id, (job.width, 2, 60, 0, 0, 0), 7)
    order = jobs[150:] + jobs[:20]          # 50 kept from the first adds, 20 added again
    rows = pending.table[pending.slots(order, {5: 9}, 7)]
    assert len(pending.table) == 256        # rows of jobs that left were given again
    assert rows[:, 0].tolist() == [job.width for job in order]
    assert rows[:, 1].tolist() == [1] * 50 + [2] * 20
    assert rows[:, -1].tolist() == [7] * 55 + [9] + [7] * 14
    assert pending.narrowest() == 1
    for job in jobs[:100]:
        pending.remove(job.id)
    assert pending.narrowest() == 151          # the rows given back hold no width
