"""The grid EASY pass over arrays (policies/grid/local.py) against the job-by-job loops it
replaced: at every scheduling pass of random runs, the head's reservation (both ``by``), the
admission scan and the queue test of :meth:`GridContext.may_start` agree with the plain
Python reading of the same rules, under both allocations, with failures and windows, and
with a preemption overhead."""

from __future__ import annotations

import copy
from itertools import pairwise
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.conformance import check_grid_invariants
from schedlab.engine.grid import GridContext, make_tasks, positions, run_grid
from schedlab.platform.generator import PRESETS as PLATFORMS
from schedlab.platform.generator import PlatformSettings, generate_platform
from schedlab.policies.grid import LeastWork, make_dispatcher, make_local_policy
from schedlab.policies.grid.flexible import FlexibleBackfilling, FlexibleBackfillingMod, GridEDF
from schedlab.policies.grid.local import BackfillingFCFS, Kept, Reservation, SinceLastPass, reserve
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import JobSettings, generate_grid
from schedlab.workload.outages import FailureModel, FailureSpec, Window

from .helpers import grid_workload, three_machines


# ------------------------------------------------------------------ the loops, as read
def loop_reserve(ctx, head, by):
    """The reservation of docs/reference/policies/grid.md ("BF_FCFS") and of a window's
    notice (docs/reference/events.md, "Grid runs"), job by job."""
    running = sorted(ctx.running.values(), key=ctx.expected_end)
    feature = ctx.platform.feature
    copy_free = {}
    for l in head.licences:
        if ctx.free_copies[l] >= 1:
            copy_free[l] = ctx.now
        else:
            copy_free[l] = next((ctx.expected_end(t) for t in running
                                 if l in t.licences and not feature[l, t.machine]), ctx.now)
    best = None
    for k in ctx.candidates(head).tolist():
        on_k = [t for t in running if t.machine == k]
        back = ctx.back_at(k)
        if ctx.exclusive:
            start = max(max((ctx.expected_end(t) for t in on_k), default=ctx.now), back)
        else:
            free = int(ctx.free_cpus[k]) if back == ctx.now else \
                int(ctx.platform.cpus[k]) - sum(t.width for t in on_k)
            start = ctx.now
            for t in on_k:
                if free >= head.width:
                    break
                free += t.width
                start = ctx.expected_end(t)
            start = max(start, back)
        for l in head.licences:
            if not feature[l, k]:
                start = max(start, copy_free[l])
        for m, begins, ends in ctx.windows_ahead:     # past each window it would run into
            if m == k and start < ends and begins < start + ctx.duration(head, k):
                start = ends
        key = start if by == "start" else start + ctx.duration(head, k)
        if best is None or key < best[0]:
            best = (key, start, k)
    _, start, machine = best
    holding = [t for t in running if ctx.expected_end(t) > start]
    spare_cpus = int(ctx.platform.cpus[machine]) - head.width \
        - sum(t.width for t in holding if t.machine == machine)
    spare_copies = {l: int(ctx.platform.copies[ctx.cluster, l]) - 1
                    - sum(1 for t in holding if l in t.licences and not feature[l, t.machine])
                    for l in head.licences if not feature[l, machine]}
    return Reservation.of_copies(machine, start, spare_cpus, spare_copies,
                                 len(ctx.platform.licence_names))


def loop_admitting(reservation, ctx, task, room):
    """The first machine of ``room`` where ``task`` leaves ``reservation`` intact, machine
    by machine (taking what it holds past the shadow time from the spare)."""
    feature = ctx.platform.feature
    for k in room.tolist():
        if ctx.now + ctx.duration(task, k) <= reservation.start:
            return k
        cpus = 0
        if k == reservation.machine:
            if ctx.exclusive:
                continue
            cpus = task.width
            if cpus > reservation.spare_cpus:
                continue
        held = [l for l in task.licences if reservation.tracked[l] and not feature[l, k]]
        if any(reservation.spare[l] < 1 for l in held):
            continue
        reservation.spare_cpus -= cpus
        for l in held:
            reservation.spare[l] -= 1
        return k
    return None


def same(a, b):
    return (a.machine, a.start, a.spare_cpus, a.spare.tolist(), a.tracked.tolist()) == \
        (b.machine, b.start, b.spare_cpus, b.spare.tolist(), b.tracked.tolist())


class CheckedEasy(BackfillingFCFS):
    """BF_FCFS that, before each pass, compares the array pieces with the loops for every
    queued job (as the head, and as a job to backfill behind the first one), and the
    context's list of free copies with its array."""

    checked = 0

    def schedule(self, ctx):
        queue = list(ctx.waiting.values())
        assert ctx.queue_positions().tolist() == positions(queue).tolist()
        assert ctx._copies_left == ctx.free_copies.tolist()
        assert ctx.times_from_columns() == (ctx._outages is None and
                                            all(t.first_start < 0 for t in queue))
        possible = ctx.may_start(positions(queue))
        for task, ok in zip(queue, possible.tolist()):
            if not ok:
                assert not ctx.machines_with_room(task).size
            for by in ("start", "end"):
                assert same(reserve(ctx, task, by), loop_reserve(ctx, task, by))
        if queue:
            held = reserve(ctx, queue[0], self.reserve_by)
            for task in queue[1:]:
                room = ctx.machines_with_room(task)
                loop_held = copy.deepcopy(held)
                assert held.first_admitting(ctx, task, room) == \
                    loop_admitting(loop_held, ctx, task, room)
                assert same(held, loop_held)
            CheckedEasy.checked += len(queue)
        super().schedule(ctx)


#: Jobs for small platforms of few CPUs and licence copies: queues form.
CONTENDED = JobSettings(estimate=(20, 400), margin=(0, 300), cpus=(1, 8), licence_need=0.5,
                        runtime_ratio=(0.2, 1.3))


def random_grid(seed, clusters=(4, 3)):
    platform = generate_platform(PlatformSettings(clusters=clusters, cpus=(1, 8), licences=4,
                                                  ratio=(0.3, 0.6)), seed)
    return platform, generate_grid(platform, CONTENDED, 45, 6.0, seed)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), allocation=st.sampled_from(["shared", "exclusive"]),
       overrun=st.sampled_from(["kill", "extend"]), overhead=st.integers(0, 30),
       outages=st.booleans())
def test_the_array_pass_agrees_with_the_loops(seed, allocation, overrun, overhead, outages):
    platform, grid = random_grid(seed)
    options = {}
    if outages:
        options = {"failures": FailureSpec(model=FailureModel(mtbf=3000.0, repair=300.0, seed=seed),
                                           fate="requeue"),
                   "windows": (Window(0, 200, 900, 2),)}
    before = CheckedEasy.checked
    result = run_grid(grid, platform, [CheckedEasy() for _ in platform.clusters], LeastWork(),
                      allocation=allocation, overrun=overrun, preemption_overhead=overhead,
                      **options)
    check_grid_invariants(result, grid, platform)
    assert CheckedEasy.checked > before          # queues formed: the checks ran


@pytest.mark.parametrize("policy", [GridEDF, FlexibleBackfillingMod])
def test_a_job_may_start_refuses_has_no_machine_with_room(policy):
    """The queue test of EDF and Flexible Backfilling passes over exactly jobs that could
    not start: each refused job has no machine with room at that pass."""
    refused = []

    class Checked(policy):
        def schedule(self, ctx):
            queue = list(ctx.waiting.values())
            for task, ok in zip(queue, ctx.may_start(positions(queue)).tolist()):
                if not ok:
                    assert not ctx.machines_with_room(task).size
                    refused.append(task.id)
            super().schedule(ctx)

    platform, grid = random_grid(3)
    run_grid(grid, platform, [Checked() for _ in platform.clusters], LeastWork())
    assert refused


def test_may_start_by_width_and_by_floating_copies():
    """A job wider than the largest room, or needing a floating licence with no copy free,
    is refused; the others may start."""
    platform, grid = random_grid(1, clusters=(3,))
    seen = {}

    class Probe(BackfillingFCFS):
        def schedule(self, ctx):
            if ctx.waiting and "checked" not in seen:
                queue = list(ctx.waiting.values())
                at = positions(queue)
                got = ctx.may_start(at)
                columns = ctx.columns
                blocked = (np.asarray(ctx.free_copies) < 1) & \
                    ~platform.feature[:, ctx.machines].any(axis=1)
                want = (columns.width[at] <= ctx.largest_room) & \
                    ~(columns.needs[at] & blocked).any(axis=1)
                assert got.tolist() == want.tolist()
                seen["checked"] = len(queue)
            super().schedule(ctx)

    run_grid(grid, platform, [Probe()])
    assert seen["checked"] > 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), allocation=st.sampled_from(["shared", "exclusive"]),
       policy=st.sampled_from(["bf-fcfs", "bf-unmod", "bf-mod", "grid-edf"]),
       by=st.sampled_from(["start", "end"]))
def test_the_compiled_admissions_give_the_schedule_of_the_plain_loop(seed, allocation, policy,
                                                                     by):
    """The backfilling behind the reservation, and EDF's first fits, in one compiled call
    (runs whose times are eq. 3.9's) start the same jobs on the same machines at the same
    times as :meth:`Reservation.first_admitting` and :meth:`GridContext.fastest_fit` job
    by job (the path of runs with failures)."""
    platform, grid = random_grid(seed)
    spec = policy if policy == "grid-edf" else {"name": policy, "reserve_by": by}

    def run():
        policies = [make_local_policy(spec) for _ in platform.clusters]
        return run_grid(grid, platform, policies, LeastWork(), allocation=allocation)

    compiled = run()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GridContext, "times_from_columns", lambda self: False)
        plain = run()
    for column in ("start", "end"):
        assert np.array_equal(getattr(compiled, column), getattr(plain, column))
    assert np.array_equal(compiled.grid.machine, plain.grid.machine)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), ta=st.sampled_from([0, 2, 5]),
       preset=st.sampled_from(["thesis-4.3", "thesis-4.2", "contended"]),
       policy=st.sampled_from(["grid-edf", "bf-fcfs", "bf-unmod", "bf-mod"]),
       by=st.sampled_from(["start", "end"]), allocation=st.sampled_from(["shared", "exclusive"]),
       overrun=st.sampled_from(["kill", "extend"]))
def test_a_pass_after_submissions_alone_tries_only_the_new_jobs(seed, ta, preset, policy, by,
                                                                allocation, overrun):
    """A pass after submissions alone trying only the new jobs (grid-edf; bf-fcfs, bf-unmod
    and bf-mod behind the kept reservation) starts what a pass over the whole queue starts:
    the same schedule as with every pass told that something was freed; the reservation
    it keeps is the one :func:`reserve` gives at that pass.  ``contended``:
    few CPUs and licence copies, long queues."""
    against_the_whole_queue(seed, ta, preset, policy, by, allocation, overrun)


@pytest.mark.parametrize("policy", ["bf-fcfs", "bf-unmod", "bf-mod"])
def test_the_kept_reservation_serves_passes(policy):
    """On a contended stream the kept reservation serves passes after submissions alone
    (so the property above compares the shortcut, not only passes over the whole queue)."""
    assert against_the_whole_queue(1, 2, "contended", policy, "start", "shared", "kill") > 0


def against_the_whole_queue(seed: int, ta: int, preset: str, policy: str, by: str,
                            allocation: str, overrun: str) -> int:
    """Run ``policy`` with and without the passes after submissions alone, assert the
    same schedule and each kept reservation the one :func:`reserve` gives, and return how
    many passes the kept reservation served."""
    if preset == "contended":
        platform = generate_platform(PlatformSettings(clusters=(4, 3), cpus=(1, 8), licences=4,
                                                      ratio=(0.3, 0.6)), seed)
        grid = generate_grid(platform, CONTENDED, 150, ta, seed)
    else:
        platform = generate_platform(PLATFORMS[preset], seed)
        grid = generate_grid(platform, JOBS[preset], 150, ta, seed)
    spec = policy if policy == "grid-edf" else {"name": policy, "reserve_by": by}
    clusters = len(platform.clusters)
    kept = {"passes": 0}
    still_holds, take = Kept.still_holds, SinceLastPass.take

    def counted(self, ctx, freed):
        holds = still_holds(self, ctx, freed)
        if holds:               # the kept reservation is the one a pass would compute now
            assert same(self.reservation, reserve(ctx, self.head, by))
            kept["passes"] += 1
        return holds

    def run():
        dispatch = make_dispatcher("round-robin") if clusters > 1 else None
        policies = [make_local_policy(spec) for _ in range(clusters)]
        return run_grid(grid, platform, policies, dispatch, allocation=allocation,
                        overrun=overrun)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Kept, "still_holds", counted)
        fast = run()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SinceLastPass, "take", lambda self: (take(self)[0], True))
        plain = run()
    for column in ("start", "end"):
        assert getattr(fast, column).tolist() == getattr(plain, column).tolist()
    assert fast.grid.machine.tolist() == plain.grid.machine.tolist()
    return kept["passes"]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), ta=st.sampled_from([0, 2, 5]),
       policy=st.sampled_from(["bf-unmod", "bf-mod"]), by=st.sampled_from(["start", "end"]),
       allocation=st.sampled_from(["shared", "exclusive"]), outages=st.booleans())
def test_flexible_backfilling_orders_only_the_jobs_a_pass_can_use(seed, ta, policy, by,
                                                                  allocation, outages):
    """Flexible Backfilling's passes, ordering only the jobs that may start and the first
    of the others (:meth:`FlexibleBackfilling._candidates`), give the schedule, and the
    reservation holders, of passes over the whole queue in priority order; with
    failures and a window too (the numpy pass).  Contended grids: long queues."""
    platform = generate_platform(PlatformSettings(clusters=(4, 3), cpus=(1, 8), licences=4,
                                                  ratio=(0.3, 0.6)), seed)
    grid = generate_grid(platform, CONTENDED, 150, ta, seed)
    options = {}
    if outages:
        options = {"failures": FailureSpec(model=FailureModel(mtbf=3000.0, repair=300.0,
                                                              seed=seed), fate="requeue"),
                   "windows": (Window(0, 200, 900, 2),)}

    def run():
        policies = [make_local_policy({"name": policy, "reserve_by": by})
                    for _ in platform.clusters]
        result = run_grid(grid, platform, policies, make_dispatcher("round-robin"),
                          allocation=allocation, **options)
        return result, [p.statistics() for p in policies]

    def whole(self, ctx, at, skip):
        order = self._order(ctx, at)
        return order[order != skip]

    fast, fast_holders = run()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FlexibleBackfilling, "_candidates", whole)
        plain, plain_holders = run()
    for column in ("start", "end"):
        assert getattr(fast, column).tolist() == getattr(plain, column).tolist()
    assert fast.grid.machine.tolist() == plain.grid.machine.tolist()
    assert fast_holders == plain_holders


@settings(max_examples=100, deadline=None)
@given(moves=st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=30))
def test_a_queue_known_in_workload_order_is_ascending(moves):
    """:meth:`GridContext.queue_in_workload_order` as tasks enter the queue (at its back)
    and leave it (anywhere), in any order: when it says so, the queue's positions
    ascend; and it says so of a queue whose every task entered behind a lower position
    since the queue was last empty."""
    platform = three_machines()
    tasks = make_tasks(grid_workload([(0, 10, 10, 1, (), 100)] * 6), platform)
    ctx = GridContext(platform, 0, "shared", "kill", "grid-edf",
                      engine=SimpleNamespace(tasks=tasks, queued=0))   # type: ignore[arg-type]
    entered: list[int] = []
    for enters, i in moves:
        task = tasks[i]
        if enters and task.id not in ctx.waiting:
            ctx._enqueue(task)
            entered.append(i)
        elif not enters and task.id in ctx.waiting:
            ctx._dequeue(task)
        if not ctx.waiting:
            entered = []
        at = ctx.queue_positions()
        if ctx.queue_in_workload_order():
            assert (at[1:] > at[:-1]).all()
        if ctx.waiting and all(a < b for a, b in pairwise(entered)):
            assert ctx.queue_in_workload_order()


def test_first_fits_without_a_reservation_leave_the_shared_spare_untouched():
    """grid-edf's first fits share one spare and tracked array per licence count (none
    tracked): after contended runs of both allocations they are still zeros."""
    from schedlab.policies.grid.local import _untracked

    for seed, allocation in ((1, "shared"), (2, "exclusive")):
        platform, grid = random_grid(seed)
        run_grid(grid, platform, [make_local_policy("grid-edf") for _ in platform.clusters],
                 LeastWork(), allocation=allocation)
        spare, tracked = _untracked(len(platform.licence_names))
        assert not spare.any() and not tracked.any()
