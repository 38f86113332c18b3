"""Machine failures, maintenance windows and cancellations in grid runs (docs/reference/events.md,
"Grid runs"): hand-checked schedules for each fate, a window, a drain and the cancellations;
the invariants and determinism on random grid jobs for every local policy; failures that
never come change no schedule; the metrics, the command line, sweeps and bad input.

The hand-checked cases run on tests/grid/helpers.three_machines: fast (4 CPUs, rating 200),
mid (4, 100), small (2, 100); a job measured at rating 100 runs half as long on fast.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from grid.helpers import grid_workload, three_machines, two_clusters
from schedlab.api import simulate_grid
from schedlab.cli.app import app
from schedlab.conformance import check_grid_invariants, check_grid_window_notices
from schedlab.engine.grid import run_grid
from schedlab.engine.result import CANCELLED, FAILED, FINISHED, WITHDRAWN
from schedlab.errors import InputError, PolicyError
from schedlab.execution import MODELS
from schedlab.experiments import load_results, run_sweep
from schedlab.metrics import compute_metrics
from schedlab.metrics.outages import outage_metrics
from schedlab.platform.generator import PlatformSettings, generate_platform
from schedlab.policies.grid import LOCAL_POLICIES, BackfillingFCFS, GridFCFS, LeastWork
from schedlab.policies.grid.local import reserve
from schedlab.policies.registry import make_local_policy
from schedlab.testing import run_case
from schedlab.workload.models.grid import JobSettings, generate_grid
from schedlab.workload.outages import (
    Checkpointing,
    Failure,
    FailureModel,
    FailureSpec,
    Window,
    parse_failure_spec,
)

ROOT = Path(__file__).resolve().parents[2]
FAST, MID, SMALL = 0, 1, 2
#: Job 1 (4 CPUs, 100 s at rating 100: 50 s on fast), job 2 (4 CPUs, 50 s) on mid and
#: job 3 (2 CPUs, 30 s) on small start at 0; fast fails at 20 for 10 s.
ROWS = [(0, 100, 100, 4, (), 100), (0, 50, 60, 4, (), 100), (0, 30, 30, 2, (), 100)]
FAST_AT_20 = (Failure(20, (FAST,), 10),)


def simulate(rows, policy=None, *, platform=None, workload=None, **options):
    """A grid run, checked against every invariant."""
    workload = grid_workload(rows) if workload is None else workload
    platform = three_machines() if platform is None else platform
    result = run_grid(workload, platform, [policy or GridFCFS()], **options)
    check_grid_invariants(result, workload, platform)
    return result


def with_cancellations(rows, after: dict[int, int]):
    """The grid workload of ``rows`` with job ``id`` cancelled ``after[id]`` s after its
    submission."""
    grid = grid_workload(rows)
    jobs = [job._replace(cancel_after=after.get(job.id)) for job in grid.workload.jobs]
    return replace(grid, workload=grid.workload.with_jobs(jobs))


# ------------------------------------------------------------------ the fates
def test_kill_ends_the_job_at_the_failure_and_the_metrics_count_it():
    result = simulate(ROWS, failures=FailureSpec(replayed=FAST_AT_20, fate="kill"))
    assert result.start.tolist() == [0, 0, 0]
    assert result.end.tolist() == [20, 50, 30]
    assert result.status.tolist() == [FAILED, FINISHED, FINISHED]
    assert result.outages.attempts.tolist() == [[0, 0, 20, 0]]
    metrics = outage_metrics(result)
    # 4 CPUs lost for 20 s; fast (4 of 10 CPUs) down for 10 of the 50 s; useful work: jobs
    # 2 and 3, 4 x 50 + 2 x 30 = 260 CPU-seconds of 10 x 50.
    assert (metrics["failures"], metrics["jobs_hit"], metrics["failed"]) == (1, 1, 1)
    assert metrics["lost_work"] == 80
    assert metrics["availability"] == pytest.approx(1 - 4 * 10 / 50 / 10)
    assert metrics["goodput"] == pytest.approx(260 / 500)


def test_requeue_starts_the_job_again_with_all_its_work_when_the_machine_is_back():
    result = simulate(ROWS, failures=FailureSpec(replayed=FAST_AT_20, fate="requeue"))
    assert result.start.tolist() == [30, 0, 0]         # the last attempt's start
    assert result.end.tolist() == [80, 50, 30]         # 50 s again on fast
    assert result.grid.runs.tolist() == [[0, FAST, 0, 20, 0], [0, FAST, 30, 80, 0],
                                         [1, MID, 0, 50, 0], [2, SMALL, 0, 30, 0]]
    assert outage_metrics(result)["requeued"] == 1
    assert result.grid.preemptions.tolist() == [0, 0, 0]    # a failure is no preemption


def test_checkpoint_restarts_from_the_last_checkpoint_with_its_costs():
    """A checkpoint of 2 s after every 5 s of work, a restart read of 3 s.  Job 1 kept
    20 // 7 x 5 = 10 s of work on fast (2,000 of its 10,000 rating-seconds): 40 s left on
    fast, 40 + 2 x 7 writes + 3 = 57 s from 30.  Job 2 runs 50 + 9 x 2, job 3 30 + 5 x 2."""
    spec = FailureSpec(replayed=FAST_AT_20, fate="checkpoint",
                       checkpointing=Checkpointing(cost=2, restart=3, interval=5))
    result = simulate(ROWS, failures=spec)
    assert result.start.tolist() == [30, 0, 0]
    assert result.end.tolist() == [87, 68, 40]
    assert result.outages.attempts.tolist() == [[0, 0, 20, 10]]
    # writes and restarts: job 1 wrote 2 checkpoints and was writing for 1 s at the failure
    # (5 s), then 3 + 7 x 2; job 2 9 x 2; job 3 5 x 2.
    assert result.outages.overhead.tolist() == [22, 18, 10]
    metrics = outage_metrics(result)
    assert (metrics["restarted"], metrics["lost_work"]) == (1, 4 * (20 - 10))
    assert metrics["checkpoint_overhead"] == 4 * 22 + 4 * 18 + 2 * 10


#: Job 1 (100 s on fast) and job 2 (200 s on mid) start at 0, job 3 (small) too; job 4
#: (4 CPUs) arrives at 5 and waits.  Fast fails at 10 for 10 s.
QUEUE_ROWS = [(0, 100, 100, 4, (), 200), (0, 200, 200, 4, (), 100), (0, 10, 10, 2, (), 100),
              (5, 40, 40, 4, (), 100)]


@pytest.mark.parametrize(("order", "starts", "ends"), [
    ("arrival", [20, 0, 0, 120], [120, 200, 10, 140]),   # job 1 before job 4 (earlier)
    ("back", [40, 0, 0, 20], [140, 200, 10, 40]),        # job 4 first, job 1 behind it
])
def test_a_requeued_job_goes_to_its_place_by_arrival_or_to_the_back(order, starts, ends):
    spec = FailureSpec(replayed=(Failure(10, (FAST,), 10),), fate="requeue",
                       requeue_order=order)
    result = simulate(QUEUE_ROWS, failures=spec)
    assert (result.start.tolist(), result.end.tolist()) == (starts, ends)


def test_a_job_hit_more_than_max_requeues_times_fails():
    spec = FailureSpec(replayed=(Failure(20, (FAST,), 10), Failure(40, (FAST,), 10)),
                       fate="requeue", max_requeues=1)
    result = simulate(ROWS, failures=spec)
    assert result.status.tolist() == [FAILED, FINISHED, FINISHED]
    assert (result.start[0], result.end[0]) == (30, 40)


def test_a_failure_of_an_idle_machine_hits_no_job_and_its_repair_frees_it():
    spec = FailureSpec(replayed=(Failure(0, (FAST,), 100),), fate="kill")
    result = simulate([(0, 100, 100, 4, (), 100)], failures=spec)
    assert result.grid.machine.tolist() == [MID]       # fast is down from 0 to 100
    assert (result.start.tolist(), result.end.tolist()) == ([0], [100])
    assert result.outages.attempts.shape == (0, 4)


def test_the_head_reserves_a_failed_machine_from_its_repair():
    """EASY's reservation sees a failed machine back at its repair (GridContext.back_at),
    not free now: the head (4 CPUs) waits for fast (back at 40) rather than mid (busy
    until 200)."""
    seen = []

    class Recording(BackfillingFCFS):
        def schedule(self, ctx) -> None:
            super().schedule(ctx)
            if ctx.now == 0:
                head = reserve(ctx, next(iter(ctx.waiting.values())))
                seen.append((head.machine, head.start))

    rows = [(0, 200, 200, 4, (), 100), (0, 100, 100, 4, (), 200)]
    result = simulate(rows, Recording(),
                      failures=FailureSpec(replayed=(Failure(0, (FAST,), 40),), fate="kill"))
    assert seen == [(FAST, 40)]
    assert result.start.tolist() == [0, 40] and result.grid.machine.tolist() == [MID, FAST]


def test_convergent_scheduling_matches_no_queued_job_to_a_failed_machine():
    """One job per machine (exclusive): the matching would put the job on fast, the best
    machine, which is down until 100; it starts on mid at once instead."""
    spec = FailureSpec(replayed=(Failure(0, (FAST,), 100),), fate="kill")
    result = simulate([(0, 40, 40, 1, (), 100)], make_local_policy("cs"), failures=spec,
                      allocation="exclusive")
    assert (result.start.tolist(), result.grid.machine.tolist()) == ([0], [MID])
    plain = simulate([(0, 40, 40, 1, (), 100)], make_local_policy("cs"),
                     allocation="exclusive")
    assert plain.grid.machine.tolist() == [FAST]


@pytest.mark.parametrize("name", sorted(LOCAL_POLICIES))
def test_every_local_policy_passes_the_grid_outage_cases(name):
    """The conformance cases with failures, a window and cancellations
    (conformance.grid_outage_options), for every built-in grid local policy."""
    model = MODELS["grid"]
    cases = [case for case in model.cases() if "outages=" in case.label]
    assert len(cases) == 8
    for case in cases:
        run_case(lambda: make_local_policy(name), model, case)


# ------------------------------------------------------------------ windows and drains
def test_a_window_takes_the_idle_machines_first_and_no_job_starts_there():
    """Job 1 holds fast from 0 to 100; a window of 2 machines from 10 to 50, known only at
    its start, takes the idle mid and small; job 2 (at 20) waits for them until 50."""
    rows = [(0, 200, 200, 4, (), 100), (20, 20, 20, 2, (), 100)]
    result = simulate(rows, windows=(Window(10, 10, 50, 2),))
    assert result.start.tolist() == [0, 50] and result.grid.machine.tolist() == [FAST, MID]
    assert result.outages.intervals.tolist() == [[4, 8, 10, 50, -2], [8, 10, 10, 50, -2]]
    assert result.outages.outages.tolist() == [[1, 10, 50, 6]]


def test_a_counted_window_announced_early_takes_the_machines_fixed_at_its_notice():
    """The same window announced at 0 fixes its 2 machines then, the lowest-numbered: fast
    and mid.  At 10 it takes the idle mid and drains fast, which job 1 holds past the
    window's end; job 2 starts on small at 20."""
    rows = [(0, 200, 200, 4, (), 100), (20, 20, 20, 2, (), 100)]
    result = simulate(rows, windows=(Window(0, 10, 50, 2),))
    assert result.start.tolist() == [0, 20] and result.grid.machine.tolist() == [FAST, SMALL]
    assert result.outages.intervals.tolist() == [[4, 8, 10, 50, -2]]
    assert result.outages.outages.tolist() == [[1, 10, 50, 4]]


def test_a_counted_window_announced_early_leaves_the_machines_other_windows_name():
    """Two windows announced at 0: one on fast from 10 to 60, one of 1 machine from 30 to
    50, which takes mid, the lowest-numbered machine the other does not name."""
    seen = []

    class Seeing(GridFCFS):
        def schedule(self, ctx) -> None:
            seen.append((ctx.now, ctx.windows_ahead))
            super().schedule(ctx)

    windows = (Window(0, 10, 60, None, node_ids=(FAST,)), Window(0, 30, 50, 1))
    result = simulate([(40, 10, 10, 1, (), 100)], Seeing(), windows=windows)
    assert seen[0] == (0, [(FAST, 10, 60), (MID, 30, 50)])
    assert seen[1:] == [(10, [(MID, 30, 50)]), (30, []), (40, []), (50, [])]
    assert result.start.tolist() == [40] and result.grid.machine.tolist() == [SMALL]


#: Job 1 (4 CPUs, 300 s at rating 100), job 2 (4 CPUs, 100 s) at 0, job 3 (4 CPUs, 200 s)
#: at 1, job 4 (4 CPUs, 80 s) at 2; a window on fast from 100 to 200 announced at 0.
NOTICED = [(0, 300, 300, 4, (), 100), (0, 100, 100, 4, (), 100), (1, 200, 200, 4, (), 100),
           (2, 80, 80, 4, (), 100)]
FAST_100_200 = (Window(0, 100, 200, None, node_ids=(FAST,)),)


@pytest.mark.parametrize("name", ["bf-fcfs", "bf-mod", "bf-unmod"])
def test_easy_starts_no_job_into_a_noticed_window_and_reserves_the_head_past_it(name):
    """On fast (rating 200) job 1 would end at 150, inside the window: it starts on mid
    (0 to 300); job 2 ends on fast at 50, before it.  Job 3 (100 s on fast) is the head:
    from 50 it would run into the window, so its reservation is fast at 200, its end.
    At 50 job 4 (40 s on fast) backfills there: it ends at 90, before the window and the
    shadow time."""
    seen = []

    class Recording(type(make_local_policy(name))):
        def schedule(self, ctx) -> None:
            super().schedule(ctx)
            if ctx.now == 1:
                head = reserve(ctx, ctx.waiting[3])
                seen.append((head.machine, head.start))

    result = simulate(NOTICED, Recording(), windows=FAST_100_200)
    check_grid_window_notices(result)
    assert seen == [(FAST, 200)]
    assert result.start.tolist() == [0, 0, 200, 50]
    assert result.grid.machine.tolist() == [MID, FAST, FAST, FAST]


def test_without_the_window_bf_fcfs_runs_the_jobs_on_fast_first():
    """Job 1 on fast (0 to 150), job 2 on mid (0 to 100); job 3's reservation is mid at
    100; job 4 waits for fast until 150."""
    plain = simulate(NOTICED, make_local_policy("bf-fcfs"))
    assert plain.start.tolist() == [0, 0, 100, 150]
    assert plain.grid.machine.tolist() == [FAST, MID, MID, FAST]


def test_grid_fcfs_does_not_look_ahead_to_a_window():
    """grid-fcfs starts job 1 on fast at 0 (to 150) across the window's start; the window
    drains fast and takes it at 150; job 2 (at 160) starts on mid."""
    rows = [NOTICED[0], (160, 100, 100, 4, (), 100)]
    result = simulate(rows, windows=FAST_100_200)
    assert result.start.tolist() == [0, 160] and result.grid.machine.tolist() == [FAST, MID]
    assert result.outages.notices.tolist() == [[FAST, FAST + 1, 0, 100, 200]]
    with pytest.raises(AssertionError, match=r"job 1 started on machine 0 at 0, after the "
                                             r"notice \(0\) of a window from 100 to 200"):
        check_grid_window_notices(result)
    assert result.outages.intervals.tolist() == [[0, 4, 150, 200, -2]]


def test_eg_edf_plans_a_machine_full_during_a_noticed_window():
    """Job 1 (150 s on fast, 300 s on mid) would end first on fast at 150, but the window
    holds fast from 100: on fast it fits only from 200 (to 350), so the plan puts it on
    mid at 0 (to 300)."""
    result = simulate(NOTICED[:1], make_local_policy("eg-edf"), windows=FAST_100_200)
    assert result.start.tolist() == [0] and result.grid.machine.tolist() == [MID]
    plain = simulate(NOTICED[:1], make_local_policy("eg-edf"))
    assert plain.start.tolist() == [0] and plain.grid.machine.tolist() == [FAST]


def test_convergent_scheduling_matches_no_job_into_a_noticed_window():
    """One job per machine: the matching would put the job (20 s on fast) on fast, which a
    window announced at 0 takes from 10; it starts on mid at once instead."""
    windows = (Window(0, 10, 100, None, node_ids=(FAST,)),)
    result = simulate([(0, 40, 40, 1, (), 100)], make_local_policy("cs"), windows=windows,
                      allocation="exclusive")
    assert (result.start.tolist(), result.grid.machine.tolist()) == ([0], [MID])


def test_a_window_on_named_machines_drains_them_and_leaves_the_others():
    """A window on fast (held by job 1 until 100) and small, from 10 to 150: small is taken
    at 10, fast drained and taken at 100; job 2 (2 CPUs, at 20) runs on mid at once, and
    job 3 at 140 too."""
    rows = [(0, 200, 200, 4, (), 100), (20, 20, 20, 2, (), 100), (140, 20, 20, 2, (), 100)]
    result = simulate(rows, windows=(Window(0, 10, 150, None, node_ids=(FAST, SMALL)),))
    assert result.start.tolist() == [0, 20, 140]
    assert result.grid.machine.tolist() == [FAST, MID, MID]
    assert sorted(result.outages.intervals.tolist()) == [[0, 4, 100, 150, -2],
                                                         [8, 10, 10, 150, -2]]


def test_a_window_naming_a_machine_the_platform_lacks_names_file_line_and_field():
    window = Window(0, 10, 50, None, line=4, node_ids=(7,), source="m.csv")
    with pytest.raises(InputError, match=r"m.csv:4: field node_ids: machine 7 does not exist"):
        simulate(ROWS, windows=(window,))


def test_a_drain_lets_the_running_job_end_and_takes_its_machine_then():
    """A window of every machine from 10 to 150: mid and small are taken at 10, fast is
    drained (job 1 runs on) and taken at 100; job 2 waits until 150."""
    rows = [(0, 200, 200, 4, (), 100), (20, 20, 20, 4, (), 100)]
    result = simulate(rows, windows=(Window(10, 10, 150, None, "drain"),))
    assert result.start.tolist() == [0, 150] and result.end.tolist() == [100, 160]
    assert sorted(result.outages.intervals.tolist()) == [
        [0, 4, 100, 150, -2], [4, 8, 10, 150, -2], [8, 10, 10, 150, -2]]
    assert outage_metrics(result)["availability"] == pytest.approx(
        1 - (6 * 140 + 4 * 50) / 160 / 10)


def test_starting_a_job_on_a_machine_out_of_service_is_a_policy_error():
    class OnMid:
        name = "on-mid"

        def on_submit(self, ctx, task) -> None:
            pass

        def on_finish(self, ctx, task) -> None:
            pass

        def schedule(self, ctx) -> None:
            for task in list(ctx.waiting.values()):
                ctx.start(task, MID)

    with pytest.raises(PolicyError, match=r"on machine 'mid' at time 20: the machine is out "
                                          r"of service .* until 50"):
        run_grid(grid_workload([(20, 10, 10, 1, (), 100)]), three_machines(), [OnMid()],
                 windows=(Window(0, 10, 50, 3),))


# ------------------------------------------------------------------ cancellations
def test_cancellations_withdraw_waiting_jobs_and_end_running_ones():
    """Job 1 (fast, until 50) is cancelled at 30, job 3 (waiting for 4 CPUs) withdrawn at
    10, job 5 at its submission; job 4 starts on fast when job 1 leaves it."""
    rows = [(0, 100, 100, 4, (), 100), (0, 100, 100, 4, (), 100), (0, 30, 30, 4, (), 100),
            (5, 10, 10, 4, (), 200), (6, 10, 10, 1, (), 100)]
    workload = with_cancellations(rows, {1: 30, 3: 10, 5: 0})
    result = simulate(rows, workload=workload)
    assert result.status.tolist() == [CANCELLED, FINISHED, WITHDRAWN, FINISHED, WITHDRAWN]
    assert result.start.tolist() == [0, 0, -1, 30, -1]
    assert result.end.tolist() == [30, 100, -1, 40, -1]
    assert result.grid.cluster.tolist() == [0, 0, 0, 0, -1]   # job 5 never dispatched
    metrics = compute_metrics(result)
    assert (metrics["cancelled"], metrics["withdrawn"]) == (1, 1 + 1)


def test_the_dispatcher_hears_a_cancelled_job_end():
    rows = [(0, 100, 100, 4, (), 100), (0, 100, 100, 8, (), 100), (0, 10, 10, 8, (), 100)]
    workload = with_cancellations(rows, {2: 20, 3: 5})

    class Recording(LeastWork):
        def on_finish(self, view, task) -> None:
            ended.append((task.id, view.now, task.id in view.outstanding[task.cluster]))

    ended: list[tuple[int, int, bool]] = []
    result = run_grid(workload, two_clusters(), [GridFCFS(), GridFCFS()], Recording())
    check_grid_invariants(result, workload, two_clusters())
    assert result.status.tolist() == [FINISHED, CANCELLED, WITHDRAWN]
    # job 3 is withdrawn from c2's queue at 5, job 2 leaves b1 at 20, job 1 ends on a2
    assert ended == [(3, 5, False), (2, 20, False), (1, 34, False)]


# ------------------------------------------------------------------ random grid jobs
def small_grid(seed: int, clusters=(3, 2)):
    platform = generate_platform(PlatformSettings(clusters=clusters, cpus=(1, 6), licences=3,
                                                  ratio=(0.4, 0.8)), seed)
    jobs = JobSettings(estimate=(20, 400), margin=(0, 300), cpus=(1, 6), licence_need=0.4,
                       runtime_ratio=(0.2, 1.3))
    return platform, generate_grid(platform, jobs, 30, 15.0, seed)


def local_run(name, grid, platform, allocation, **options):
    clusters = len(platform.clusters)
    policies = [make_local_policy(name) for _ in range(clusters)]
    result = run_grid(grid, platform, policies, LeastWork() if clusters > 1 else None,
                      allocation=allocation, **options)
    check_grid_invariants(result, grid, platform)
    return result


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(sorted(LOCAL_POLICIES)),
       allocation=st.sampled_from(["shared", "exclusive"]),
       fate=st.sampled_from(["kill", "requeue", "checkpoint"]))
def test_failures_that_never_come_change_no_grid_schedule(seed, name, allocation, fate):
    platform, grid = small_grid(seed)
    plain = local_run(name, grid, platform, allocation)
    late = max(plain.end.max(), 0) + 1
    never = local_run(name, grid, platform, allocation,
                      failures=FailureSpec(replayed=(Failure(late, (0, 1), 10),), fate=fate),
                      windows=(Window(late, late, late + 5, None),))
    for column in ("start", "end", "status"):
        assert getattr(never, column).tolist() == getattr(plain, column).tolist()
    assert never.grid.machine.tolist() == plain.grid.machine.tolist()
    assert never.outages.attempts.shape == (0, 4)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(sorted(LOCAL_POLICIES)),
       allocation=st.sampled_from(["shared", "exclusive"]),
       fate=st.sampled_from(["kill", "requeue", "checkpoint"]),
       order=st.sampled_from(["arrival", "back"]), data=st.data())
def test_random_failures_windows_and_cancellations_keep_the_invariants(
        seed, name, allocation, fate, order, data):
    """Random failures of random machines, a window (announced at or before its start) and
    cancellations: every invariant (no job on a machine out of service, work conserved
    through checkpoints, every job ends exactly once; for the policies that plan around
    a window's notice, no job started into it by its estimate), and a second run gives
    the same result."""
    platform, grid = small_grid(seed)
    machines = len(platform.machines)
    span = grid.workload.jobs[-1].submit + 200
    failures = tuple(Failure(t, tuple(sorted(set(ks))), d, k) for k, (t, ks, d) in enumerate(
        sorted(data.draw(st.lists(st.tuples(st.integers(0, span),
                                            st.lists(st.integers(0, machines - 1), min_size=1,
                                                     max_size=2),
                                            st.integers(1, 120)), max_size=4)))))
    failures = _without_overlaps(failures)
    start = data.draw(st.integers(0, span))
    windows = (Window(data.draw(st.integers(0, start)), start,
                      start + data.draw(st.integers(1, 200)),
                      data.draw(st.integers(1, machines))),)
    cancel = data.draw(st.lists(st.integers(0, 300), min_size=len(grid.workload),
                                max_size=len(grid.workload)))
    jobs = [job._replace(cancel_after=after if k % 4 == 0 else None)
            for k, (job, after) in enumerate(zip(grid.workload.jobs, cancel))]
    grid = replace(grid, workload=grid.workload.with_jobs(jobs))
    spec = FailureSpec(replayed=failures, fate=fate, requeue_order=order,
                       checkpointing=Checkpointing(cost=2, restart=3, interval=7),
                       max_requeues=2)
    options = {"name": name, "grid": grid, "platform": platform, "allocation": allocation,
               "failures": spec, "windows": windows}
    first, again = local_run(**options), local_run(**options)
    if name in PLANS_AROUND_WINDOWS:
        check_grid_window_notices(first)
    for column in ("start", "end", "status"):
        assert getattr(first, column).tolist() == getattr(again, column).tolist()
    assert first.outages.attempts.tolist() == again.outages.attempts.tolist()


#: The grid local policies that start no job into a window known from its notice.
PLANS_AROUND_WINDOWS = ("bf-fcfs", "bf-unmod", "bf-mod", "eg-edf", "cs")


def _without_overlaps(failures):
    """Drop the failures of a machine still down from an earlier one (a failure file
    refuses them)."""
    back: dict[int, int] = {}
    kept = []
    for failure in failures:
        if all(back.get(k, -1) <= failure.time for k in failure.nodes):
            kept.append(failure)
            back.update({k: failure.end for k in failure.nodes})
    return tuple(kept)


def test_preemption_and_checkpoints_conserve_the_work():
    """cs with preemption moves jobs between machines while machines fail and jobs restart
    from checkpoints: the invariants replay every run."""
    for seed in (1, 2, 3):
        platform, grid = small_grid(seed, clusters=(5,))
        policy = make_local_policy({"name": "cs", "preemption": True})
        spec = FailureSpec(model=FailureModel(mtbf=400, repair=50, seed=seed),
                           fate="checkpoint",
                           checkpointing=Checkpointing(cost=1, restart=2, interval=6))
        result = run_grid(grid, platform, [policy], failures=spec, preemption_overhead=3)
        check_grid_invariants(result, grid, platform)
        assert result.grid.preemptions.sum() > 0 and len(result.outages.attempts) > 0


def test_drawn_failures_are_seeded_per_machine():
    platform, grid = small_grid(4)
    spec = parse_failure_spec("mtbf=300,repair=40,fate=requeue", seed=9)
    first = local_run("bf-fcfs", grid, platform, "shared", failures=spec)
    again = local_run("bf-fcfs", grid, platform, "shared", failures=spec)
    other = local_run("bf-fcfs", grid, platform, "shared",
                      failures=parse_failure_spec("mtbf=300,repair=40,fate=requeue", seed=10))
    assert first.outages.outages.tolist() == again.outages.outages.tolist()
    assert first.outages.outages.tolist() != other.outages.outages.tolist()
    assert first.meta["outages"]["unit"] == "machine"


# ------------------------------------------------------------------ input
def test_a_failure_file_naming_a_machine_the_platform_lacks_names_file_line_and_field(
        tmp_path: Path):
    path = tmp_path / "failures.csv"
    path.write_text("time,nodes,duration\n10,0,5\n20,1;7,5\n")
    spec = parse_failure_spec(str(path))
    with pytest.raises(InputError) as caught:
        run_grid(grid_workload(ROWS), three_machines(), [GridFCFS()], failures=spec)
    assert caught.value.file == str(path) and caught.value.line == 3
    assert caught.value.field == "nodes"
    assert "machine 7 does not exist: in a grid run a node id is a machine index" in str(
        caught.value)


@pytest.mark.parametrize("text", ["mtbf=1d,node_size=4", "mtbf=1d,allocation=any"])
def test_the_keys_of_one_machines_processors_are_refused(text):
    with pytest.raises(InputError, match="belongs to the processors of one machine; a grid "
                                         "run fails whole machines"):
        run_grid(grid_workload(ROWS), three_machines(), [GridFCFS()],
                 failures=parse_failure_spec(text))


# ------------------------------------------------------------------ command line and sweeps
SWF_LINE = "{} {} -1 {} {} -1 -1 {} {} -1 {} 1 -1 -1 -1 -1 -1 -1\n"


@pytest.fixture
def grid_files(tmp_path: Path) -> Path:
    """A platform file, 4 jobs as SWF (job 2, asking for 3,000 s, cancelled by its user
    900 s after its submission: status 5) and their side file."""
    shutil.copy(ROOT / "examples" / "platforms" / "two-sites.toml", tmp_path / "two-sites.toml")
    rows = [(1, 0, 600, 4, 600, 1), (2, 10, 900, 4, 3000, 5), (3, 20, 300, 2, 400, 1),
            (4, 30, 100, 16, 200, 1)]
    (tmp_path / "jobs.swf").write_text("; MaxProcs: 16\n" + "".join(
        SWF_LINE.format(i, s, r, w, w, e, status) for i, s, r, w, e, status in rows))
    (tmp_path / "jobs.grid.csv").write_text(
        "job_id,rating,deadline,licences,class,owner_priority,input\n"
        + "".join(f"{i},250,,,regular,0,0\n" for i, *_ in rows))
    (tmp_path / "maintenance.csv").write_text("notice,start,end,nodes\n0,5,100,1\n")
    return tmp_path


def test_the_command_line_runs_a_grid_with_failures_windows_and_cancellations(
        grid_files: Path):
    out = grid_files / "out"
    done = CliRunner().invoke(app, [
        "simulate", str(grid_files / "jobs.swf"), "--platform",
        str(grid_files / "two-sites.toml"), "--dispatch", "round-robin", "--failures",
        "mtbf=2h,repair=10m,fate=checkpoint,seed=3", "--maintenance",
        str(grid_files / "maintenance.csv"), "--cancellations", "replay", "--out", str(out)])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "1 maintenance windows or drains" in text
    document = json.loads((out / "metrics.json").read_text())
    assert document["meta"]["outages"]["fate"] == "checkpoint"
    assert document["metrics"]["cancelled"] + document["metrics"]["withdrawn"] == 1
    assert (out / "processors.csv").read_text().startswith("kind,job_id,first,count,start,end")
    drawn = CliRunner().invoke(app, ["plot", str(out), "--kind", "gantt", "--out",
                                     str(grid_files / "gantt.png")])
    assert drawn.exit_code == 0, drawn.output
    assert (grid_files / "gantt.png").read_bytes().startswith(b"\x89PNG")


def test_without_replay_the_grid_run_ignores_the_cancellation(grid_files: Path):
    done = CliRunner().invoke(app, [
        "simulate", str(grid_files / "jobs.swf"), "--platform",
        str(grid_files / "two-sites.toml"), "--dispatch", "round-robin", "--out",
        str(grid_files / "out")])
    assert done.exit_code == 0, done.output
    metrics = json.loads((grid_files / "out" / "metrics.json").read_text())["metrics"]
    assert "cancelled" not in metrics and "failures" not in metrics


def test_a_grid_sweep_takes_failures_maintenance_and_cancellations(grid_files: Path):
    (grid_files / "sweep.toml").write_text(
        'seeds = [0, 1]\nplatforms = "two-sites.toml"\ndispatchers = "round-robin"\n'
        'workloads = [{ source = "jobs.swf", cancellations = "replay" }]\n'
        'policies = ["bf-fcfs", "eg-edf"]\n'
        'failures = ["none", "mtbf=1h,repair=10m,fate=requeue"]\n'
        'maintenance = "maintenance.csv"\n')
    summary = run_sweep(grid_files / "sweep.toml", grid_files / "out", executor="serial")
    # 2 policies x (no failures: one run; drawn failures: one per seed)
    assert (summary.total, summary.finished, summary.failed) == (6, 6, 0)
    results = load_results(grid_files / "out")
    assert set(results["maintenance_windows"]) == {1}
    assert (results["cancelled"] + results["withdrawn"] == 1).all()


def test_the_grid_commands_of_the_events_page_run_as_written(tmp_path: Path, monkeypatch):
    """docs/reference/events.md, "Grid runs": its commands, from a project-like root, give
    the numbers of its table."""
    page = (ROOT / "docs" / "reference" / "events.md").read_text()
    section = page.split("## Grid runs", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in section.split("```", 2)[1].splitlines()
                if line.startswith("schedlab ")]
    assert len(commands) == 3
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for command in commands:
        done = CliRunner().invoke(app, command.split()[1:])
        assert done.exit_code == 0, done.output
        outputs.append(" ".join(done.output.split()))
    assert "19 failures, 0 maintenance windows or drains; 8 attempts hit (8 restarted); lost " \
           "work 66,340 processor-s, availability 96.2%" in outputs[1]
    assert "3 failures, 2 maintenance windows or drains; 5 attempts hit (5 requeued); lost " \
           "work 64,365 processor-s, availability 98.9%" in outputs[2]
    assert "| MTBF 2 d, checkpoint | 8 | 94,784 | 66,340 | 0.962 | 0.323 |" in section


def test_simulate_grid_takes_the_events(grid_files: Path):
    result = simulate_grid(str(grid_files / "jobs.swf"), "bf-fcfs",
                           platform=str(grid_files / "two-sites.toml"),
                           failures="mtbf=2h,repair=10m,fate=requeue,seed=3",
                           maintenance=str(grid_files / "maintenance.csv"),
                           cancellations="replay")
    assert result.meta["outages"]["fate"] == "requeue"
    assert result.status.tolist().count(CANCELLED) + result.status.tolist().count(WITHDRAWN) == 1
    assert outage_metrics(result)["maintenance_windows"] == 1
