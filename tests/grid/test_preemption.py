"""Preemption and migration in the grid engine, and the preemptive CS versions (CS_i_p, CS_ni_p).

Hand-checked schedules (eq. 3.9 on the work left, plus the resumption
overhead), the engine's refusals, the invariants check over runs, bad
overheads, and non-preemptive runs pinned to their schedules from before
preemption existed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from schedlab.engine.grid import _Engine, run_grid
from schedlab.errors import InputError, PolicyError
from schedlab.metrics import compute_metrics
from schedlab.output import jobs_csv_text
from schedlab.platform import Cluster, Licence, Machine, Platform
from schedlab.policies.grid import ConvergentScheduling, GridFCFS, make_local_policy
from schedlab.testing import check_grid_invariants

from .helpers import ShortestFirstMigrating, grid_workload

SLOW_FAST = Platform((Cluster("c", (Machine("slow", 1, 100), Machine("fast", 1, 300)), ()),),
                     name="slow-fast")


def migrated_run(overhead: int = 7):
    """Job 1 (900 s at rating 100) starts on slow at 0 because job 2 (60 s) is shorter and
    takes fast; at 20 job 2 ends and job 1 moves to fast."""
    grid = grid_workload([(0, 900, 900, 1, (), 100), (0, 60, 60, 1, (), 100)])
    return grid, run_grid(grid, SLOW_FAST, [ShortestFirstMigrating()],
                          preemption_overhead=overhead)


def test_a_job_moved_to_a_faster_machine_ends_by_eq_3_9_on_its_work_left_plus_the_overhead():
    grid, result = migrated_run(overhead=7)
    check_grid_invariants(result, grid, SLOW_FAST)
    # job 2 on fast: 60 x 100 / 300 = 20 s.  Job 1 on slow 0-20: 20 x 100 = 2000 of its
    # 900 x 100 = 90000 rating-seconds; on fast: 7 + ceil(88000 / 300) = 7 + 294 -> 321.
    assert result.start.tolist() == [0, 0]
    assert result.end.tolist() == [321, 20]
    assert result.grid.runs.tolist() == [[0, 0, 0, 20, 0], [0, 1, 20, 321, 7], [1, 1, 0, 20, 0]]
    assert result.grid.last_start.tolist() == [20, 0]
    assert result.grid.machine.tolist() == [1, 1]
    assert result.grid.preemptions.tolist() == [1, 0]
    assert result.grid.migrations.tolist() == [1, 0]
    assert result.suspended.tolist() == [0, 0]          # resumed at once: never off a machine
    assert result.series_busy.tolist() == [2, 1, 0]     # 0-20 both, 20-321 job 1, then none
    metrics = compute_metrics(result)
    assert (metrics["preemptions"], metrics["migrations"]) == (1, 1)
    header, first = jobs_csv_text(result).splitlines()[:2]
    assert header.endswith(",machine,cluster,licences,priority,machine_runtime,machine_estimate,"
                           "last_start,preemptions,migrations")
    assert first.startswith("1,0,0,321,") and first.endswith(",fast,c,,0,321,321,20,1,1")
    # the seconds on machines for the runtime: 20 on slow, then 7 + 294 on fast
    assert result.grid.machine_runtime.tolist() == [321, 20]
    assert result.grid.machine_estimate.tolist() == [321, 20]


def test_jobs_csv_made_one_row_at_a_time_keeps_each_job_s_grid_and_preemption_columns(
        monkeypatch):
    from schedlab import output

    _, result = migrated_run()
    whole = jobs_csv_text(result)
    assert whole.splitlines()[2].endswith(",fast,c,,0,20,20,0,0,0")
    monkeypatch.setattr(output, "CSV_BLOCK_ROWS", 1)
    assert jobs_csv_text(result) == whole

def test_without_overhead_the_move_costs_nothing_but_the_rounding():
    _, result = migrated_run(overhead=0)
    assert result.end.tolist() == [20 + 294, 20]


def test_cs_preemptive_swaps_a_running_job_for_an_urgent_one_and_migrates_it():
    """Exclusive allocation, slow (rating 200) and fast (300).  Job 1 (3000 s at rating 100,
    no deadline) runs on fast from 0; job 2 (600 s, deadline 310) arrives at 10: 300 s on
    slow (Extime 310 = its deadline: f_1 = Max) or 200 s on fast.  The Deadline heuristic
    gives job 2 about 16.2 more on fast, Wait minimization 1.3; moving job 1 costs it
    Delta = 8 (Overhead minimization), 3 (Input: its data is on fast) and 1.3 (Wait
    minimization): the swap gains about 5, so CS_i_p preempts job 1 and resumes it on
    slow: 10 + 5 + ceil((300000 - 10 x 300) / 200) = 1500.  Without preemption
    (Delta = 800) job 2 waits for nothing but runs on slow and ends at 310."""
    platform = Platform((Cluster("c", (Machine("slow", 1, 200), Machine("fast", 1, 300)), ()),),
                        name="two")
    grid = grid_workload([(0, 3000, 3000, 1, (), 100), (10, 600, 600, 1, (), 100, 310)])
    plain = run_grid(grid, platform, [ConvergentScheduling()], allocation="exclusive",
                     preemption_overhead=5)
    moved = run_grid(grid, platform, [ConvergentScheduling(preemption=True)],
                     allocation="exclusive", preemption_overhead=5)
    for result in (plain, moved):
        check_grid_invariants(result, grid, platform)
    assert plain.end.tolist() == [1000, 310] and not plain.grid.preemptive
    assert moved.end.tolist() == [1500, 210]
    assert moved.grid.runs.tolist() == [[0, 1, 0, 10, 0], [0, 0, 10, 1500, 5],
                                        [1, 1, 10, 210, 0]]
    assert moved.grid.migrations.tolist() == [1, 0]


def test_cs_preemptive_suspends_a_job_for_an_urgent_one_and_resumes_it_in_place():
    """One machine.  Job 1 (1000 s) runs from 0; job 2 (200 s, deadline 230) arrives at 20:
    Deadline gives it 9.62 against job 1's 8 (overhead) + 0.4 (Anti-Aging), so job 1 is
    preempted with 980 s left, waits while job 2 runs (20-220) and resumes at 220:
    220 + 5 + 980 = 1205.  Its wait is 0 (first start), its time off the machine 200."""
    platform = Platform((Cluster("c", (Machine("m", 1, 100),), ()),), name="one")
    grid = grid_workload([(0, 1000, 1000, 1, (), 100), (20, 200, 200, 1, (), 100, 230)])
    result = run_grid(grid, platform, [ConvergentScheduling(preemption=True)],
                      preemption_overhead=5)
    check_grid_invariants(result, grid, platform)
    assert result.start.tolist() == [0, 20] and result.end.tolist() == [1205, 220]
    assert result.grid.runs.tolist() == [[0, 0, 0, 20, 0], [0, 0, 220, 1205, 5],
                                         [1, 0, 20, 220, 0]]
    assert result.grid.preemptions.tolist() == [1, 0]
    assert result.grid.migrations.tolist() == [0, 0]
    assert result.suspended.tolist() == [200, 0]
    metrics = compute_metrics(result)
    assert metrics["avg_wait"] == 0.0
    assert metrics["avg_response"] == (1205 + 200) / 2
    assert metrics["avg_slowdown"] == pytest.approx((1205 / 1005 + 1.0) / 2)
    assert metrics["deadline_missed"] == 0
    plain = run_grid(grid, platform, [ConvergentScheduling()])
    assert plain.end.tolist() == [1000, 1200] and compute_metrics(plain)["deadline_missed"] == 1


def test_a_preempted_job_keeps_its_licence_accounting_and_killed_jobs_stop_at_the_estimate():
    """Job 1 needs licence A (1 copy); killed at its estimate: 400 s of work at rating 100,
    100 done on slow, the rest on fast: 3 + ceil(30000 / 300) = 103 s."""
    platform = Platform((Cluster("c", (Machine("slow", 1, 100), Machine("fast", 1, 300)),
                                 (Licence("A", 1, ("slow", "fast")),)),), name="lic")
    grid = grid_workload([(0, 900, 400, 1, ("A",), 100), (0, 300, 300, 1, (), 100)])
    result = run_grid(grid, platform, [ShortestFirstMigrating()], preemption_overhead=3)
    check_grid_invariants(result, grid, platform)
    assert result.status_names() == ["killed", "finished"]
    assert result.end.tolist() == [100 + 103, 100]
    assert result.series_time.tolist() == [0, 100, 203]
    assert result.grid.series_licences_used[:, 0].tolist() == [1, 1, 0]   # held across the move


# ------------------------------------------------------------------ engine refusals
class _Scripted:
    """A local policy running ``script(ctx)`` at each pass (the engine must refuse it)."""

    name = "scripted"

    def __init__(self, script) -> None:
        self.script = script

    def on_submit(self, ctx, task) -> None:
        pass

    def on_finish(self, ctx, task) -> None:
        pass

    def schedule(self, ctx) -> None:
        self.script(ctx)


def _run_script(script):
    grid = grid_workload([(0, 100, 100, 1, (), 100), (0, 100, 100, 1, (), 100)])
    return run_grid(grid, SLOW_FAST, [_Scripted(script)])


def test_the_engine_refuses_a_restart_in_place_at_the_instant_of_the_preemption():
    def thrash(ctx):
        for task in list(ctx.waiting.values()):
            ctx.start(task, ctx.fastest_fit(task))
        task = next(iter(ctx.running.values()))
        machine = task.machine
        ctx.preempt(task)
        ctx.start(task, machine)

    with pytest.raises(PolicyError, match="preempted from this machine at this instant"):
        _run_script(thrash)


def test_the_engine_refuses_to_preempt_a_queued_job_to_start_a_running_one_or_reject_one_that_ran():
    def preempt_queued(ctx):
        ctx.preempt(next(iter(ctx.waiting.values())))

    def double_start(ctx):
        task = next(iter(ctx.waiting.values()))
        ctx.start(task, 0)
        ctx.start(task, 1)

    def reject_preempted(ctx):
        if ctx.waiting and not ctx.running:
            ctx.start(ctx.waiting[1], 0)
            ctx.preempt(ctx.running[1])
            ctx.reject(ctx.waiting[1])

    with pytest.raises(PolicyError, match=r"preempted job 1 .* not running"):
        _run_script(preempt_queued)
    with pytest.raises(PolicyError, match=r"started job 1 .* not waiting"):
        _run_script(double_start)
    with pytest.raises(PolicyError, match=r"rejected job 1 .* it has run already"):
        _run_script(reject_preempted)


def test_a_policy_that_preempts_a_job_and_never_resumes_it_is_caught_at_the_end():
    def lose(ctx):
        if ctx.now == 0:
            ctx.start(ctx.waiting[1], 1)
            ctx.start(ctx.waiting[2], 0)
            ctx.preempt(ctx.running[1])

    with pytest.raises(RuntimeError, match=r"left job 1 waiting .* it never starts"):
        _run_script(lose)


# ------------------------------------------------------------------ the invariants check
def test_the_check_catches_a_job_in_two_places_a_machine_over_capacity_and_lost_progress():
    grid, result = migrated_run()
    runs = result.grid.runs
    runs[1, 2] = 10                       # job 1 on fast from 10 while still on slow until 20
    with pytest.raises(AssertionError, match="job 1 runs in two places at once"):
        check_grid_invariants(result, grid, SLOW_FAST)
    grid, result = migrated_run()
    result.grid.runs[2, 1] = result.grid.machine[1] = 0     # job 2 on slow, beside job 1,
    result.grid.runs[2, 3] = result.end[1] = 60               # for 60 s there (eq. 3.9)
    with pytest.raises(AssertionError, match="machine 0 oversubscribed"):
        check_grid_invariants(result, grid, SLOW_FAST)
    grid, result = migrated_run()
    result.grid.runs[1, 4] = 0            # a resumption without the overhead
    with pytest.raises(AssertionError, match="resumption without the run's overhead"):
        check_grid_invariants(result, grid, SLOW_FAST)
    grid, result = migrated_run()
    result.grid.preemptions[0] = 0
    with pytest.raises(AssertionError, match="preemptions miscounted"):
        check_grid_invariants(result, grid, SLOW_FAST)


def test_the_check_catches_an_engine_that_forgets_the_progress_of_a_preempted_job(monkeypatch):
    original = _Engine.preempted

    def forgetful(self, ctx, task, machine, floating):
        work, estimate = self.work[task.index], self.estimate_work[task.index]
        original(self, ctx, task, machine, floating)
        self.work[task.index], self.estimate_work[task.index] = work, estimate

    monkeypatch.setattr(_Engine, "preempted", forgetful)
    grid, result = migrated_run()
    assert result.end[0] == 20 + 7 + 300                   # the whole job again on fast
    with pytest.raises(AssertionError, match=r"job 1 ran 307 s at last, expected 301 \(eq. 3.9\)"):
        check_grid_invariants(result, grid, SLOW_FAST)


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("overhead", [-1, 1.5, True, "5"])
def test_a_bad_preemption_overhead_is_an_input_error(overhead):
    grid, _ = migrated_run()
    with pytest.raises(InputError, match="preemption_overhead"):
        run_grid(grid, SLOW_FAST, [GridFCFS()], preemption_overhead=overhead)


def test_cs_takes_delta_8_with_preemption_and_800_without():
    assert ConvergentScheduling().weights.overhead == 800.0
    assert ConvergentScheduling(preemption=True).weights.overhead == 8.0
    assert ConvergentScheduling(preemption=True, overhead=50).weights.overhead == 50
    assert ConvergentScheduling(preemption=True).get_params()["overhead"] == 8.0


# ------------------------------------------------------------------ determinism and pins
def _thesis_run(name, allocation: str, readings: dict | None = None, **params):
    from schedlab.platform.generator import generate_platform, preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(preset("thesis-4.2"), seed=3)
    busy = bool(params)                   # enough jobs for CS to preempt some
    grid = generate_grid(platform, PRESETS["thesis-4.2"], n_jobs=100 if busy else 80,
                         interarrival=2 if busy else 10, seed=3)
    policy = make_local_policy({"name": name, **(readings or {}), **params})
    return grid, platform, run_grid(grid, platform, [policy], allocation=allocation,
                                    preemption_overhead=(params and 10) or 0)


@pytest.mark.parametrize("name, allocation, digest", [
    ("cs", "shared", "63e7fc4e00b0495409a585ec43e5c5fbca629f66349ba3ea37e3de80d5df43c4"),
    ("cs", "exclusive", "63e7fc4e00b0495409a585ec43e5c5fbca629f66349ba3ea37e3de80d5df43c4"),
    ("bf-fcfs", "shared", "5f8b8dd6be5536cb210140158d7f77e2bd10006f220ab4f07a2b46d7a05bdba2"),
    ("bf-fcfs", "exclusive", "38c2c5cd0648ab20604cd93067e1a09916305bc369375c301767b45108381bda"),
])
def test_non_preemptive_runs_keep_the_schedules_they_had_before_preemption(name, allocation,
                                                                        digest):
    """The digests of jobs.csv were taken with the engine before preemption existed; cs
    with the readings it had then (the Deadline formula as printed, one job per machine)."""
    readings = {"deadline_late": "min", "sharing": "one"} if name == "cs" else None
    _, _, result = _thesis_run(name, allocation, readings)
    assert hashlib.sha256(_without_machine_times(jobs_csv_text(result)).encode()
                          ).hexdigest() == digest


def _without_machine_times(text: str) -> str:
    """jobs.csv without the columns added after the digests were taken (machine_runtime,
    machine_estimate): the schedule they pin is unchanged."""
    rows = [line.split(",") for line in text.splitlines()]
    keep = [k for k, name in enumerate(rows[0])
            if name not in ("machine_runtime", "machine_estimate")]
    return "".join(",".join(row[k] for k in keep) + "\n" for row in rows)


@pytest.mark.parametrize("incremental", [True, False])
def test_cs_preemptive_runs_keep_every_rule_and_are_deterministic(incremental):
    grid, platform, first = _thesis_run("cs", "exclusive", preemption=True,
                                        incremental=incremental)
    check_grid_invariants(first, grid, platform)
    assert first.grid.preemptions.sum() > 0
    _, _, again = _thesis_run("cs", "exclusive", preemption=True, incremental=incremental)
    assert jobs_csv_text(first) == jobs_csv_text(again)
    assert np.array_equal(first.grid.runs, again.grid.runs)


def test_the_machine_gantt_chart_draws_each_job_s_last_run_in_a_run_with_preemption():
    """From jobs.csv, where ``start`` is the first start: drawn from there to the end on
    the last machine, job 1 (0-321) would overlap job 2 (0-20) on fast (1 CPU)."""
    import io

    import pandas as pd

    from schedlab.viz.grid import machine_gantt_figure

    _, result = migrated_run()
    jobs = pd.read_csv(io.StringIO(jobs_csv_text(result)))
    figure = machine_gantt_figure(jobs)
    boxes = figure.axes[0].collections[0].get_paths()
    assert sorted((p.vertices[0, 0], p.vertices[1, 0]) for p in boxes) == [(0, 20), (20, 321)]


def test_where_a_job_can_start_now_leaves_out_the_machine_it_was_just_preempted_from():
    seen = []

    def preempt_and_look(ctx):
        for task in list(ctx.waiting.values()):
            machine = ctx.fastest_fit(task)
            if machine is not None:
                ctx.start(task, machine)
        if ctx.now == 0:
            task = ctx.running[1]                     # on fast
            ctx.preempt(task)
            room = ctx.machines_with_room(task)
            seen.append((room.tolist(), ctx.fastest_fit(task), ctx.fits_now(task, 1)))
            ctx.start(task, room[0])

    grid = grid_workload([(0, 100, 100, 1, (), 100)])
    result = run_grid(grid, SLOW_FAST, [_Scripted(preempt_and_look)])
    assert seen == [([0], 0, False)]                  # slow only: fast is where it just was
    assert result.grid.runs.tolist() == [[0, 1, 0, 0, 0], [0, 0, 0, 100, 0]]


class _CheckedAfterEachPass(ConvergentScheduling):
    """CS_i_p that records, after each of its passes, the idle machines some waiting job
    could start on now, and the machines its preemptions emptied in that pass."""

    def __init__(self, **params):
        super().__init__(preemption=True, **params)
        self.refillable, self.emptied = [], 0

    def schedule(self, ctx) -> None:
        before = {task.machine for task in ctx.running.values()}
        super().schedule(ctx)
        idle = [int(m) for m in ctx.machines if ctx.jobs_on[m] == 0]
        self.emptied += len(before - {task.machine for task in ctx.running.values()})
        self.refillable += [(ctx.now, m) for m in idle
                            if any(ctx.fits_now(task, m) for task in ctx.waiting.values())]


@pytest.mark.parametrize("incremental", [True, False])
def test_a_preemptive_pass_leaves_no_machine_idle_that_a_waiting_job_could_take(incremental):
    """The pass preempts, then starts every queued job of its plan (docs/reference/policies/
    convergent.md, "A machine freed by a preemption is refilled in the same pass"): after
    it, no idle machine can start a waiting job, though its preemptions emptied machines."""
    from schedlab.platform.generator import generate_platform, preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(preset("thesis-4.2"), seed=3)
    grid = generate_grid(platform, PRESETS["thesis-4.2"], n_jobs=100, interarrival=2, seed=3)
    policy = _CheckedAfterEachPass(incremental=incremental)
    result = run_grid(grid, platform, [policy], allocation="exclusive")
    assert result.grid.preemptions.sum() > 0 and policy.emptied > 0
    assert policy.refillable == []
