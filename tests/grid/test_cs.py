"""The Convergent Scheduling local policy ``cs`` (Pasquali thesis §3.2.2, §4.2, non-preemptive)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.api import simulate_grid
from schedlab.cli.app import app
from schedlab.engine.grid import run_grid
from schedlab.errors import InputError
from schedlab.metrics.aggregates import compute_metrics
from schedlab.platform import Cluster, Machine, Platform
from schedlab.platform.generator import generate_platform, preset
from schedlab.policies.grid import RoundRobin, make_dispatcher, make_local_policy
from schedlab.policies.grid.convergent import ClusterState, Weights, job_machine_matrix, mfs
from schedlab.policies.grid.convergent.policy import ConvergentScheduling
from schedlab.testing import check_grid_invariants
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import generate_grid

from .helpers import grid_workload, three_machines
from .test_properties import PLATFORM, jobs

FAST, MID, SMALL = 0, 1, 2

# fast (4 CPUs, rating 200), mid (4, 100), small (2, 100); A: 1 copy on fast and mid;
# B: 2 copies everywhere.  No deadlines, all submitted at 0, estimates exact.
HAND_ROWS = [(0, 100, 100, 2, ("A",), 100),     # J1: fast or mid
             (0, 100, 100, 2, ("A",), 100),     # J2: the same; A has one copy for both
             (0, 200, 200, 1, (), 100)]         # J3: any machine, twice as long


def test_the_hand_checked_matrix_at_time_0():
    """P by hand, wait_sup="all" (sup Nxtime = 200: J3 on mid or small), |L| = 2, rho_A = 2:

    Licences: w(J1) = w(J2) = rho_A |L| = 4 = max w -> 2.5; J3 needs none -> 0.
    Input: every input on the storage, one bandwidth -> 3 (1 - 1/|M_Aff|): 1.5 (J1, J2), 2 (J3).
    Wait: Nxtime J1 = 50 (fast), 100 (mid) -> 4 (1 - 50/200) = 3, 4 (1 - 100/200) = 2;
          J3 = 100, 200, 200 -> 2, 0, 0.  Deadline, Overhead, Anti-Aging: 0.  Base 0.01.
    """
    grid, platform = grid_workload(HAND_ROWS), three_machines()
    state = ClusterState.from_grid(grid, platform, 0, now=0, jobs=[0, 1, 2])
    matrix = job_machine_matrix(state, Weights(wait_sup="all", overhead=800.0))
    np.testing.assert_allclose(matrix, [[7.01, 6.01, 0.0],
                                        [7.01, 6.01, 0.0],
                                        [4.01, 2.01, 2.01]])


def test_the_hand_checked_schedule():
    """At 0 the knapsack keeps J1 (A critical; J1 and J2 tie at c = 6.51, the earlier wins);
    MFS of {J1, J3}: J1-mid + J3-fast = 10.02 beats J1-fast + J3-mid/small = 9.02, so J3
    takes the fast machine (bf-fcfs would give it to J1).  Both end at 100 (J3: 200 x
    100/200).  At 100 J2 is alone: A is no longer critical and fast (8.01) beats mid (6.01):
    it runs 50 s there.  One job per machine in the plan (§4.2)."""
    for incremental in (True, False):
        result = run_grid(grid_workload(HAND_ROWS), three_machines(),
                          [ConvergentScheduling(incremental=incremental, wait_sup="all",
                                                sharing="one")])
        assert result.start.tolist() == [0, 100, 0]
        assert result.end.tolist() == [100, 150, 100]
        assert result.grid.machine.tolist() == [MID, FAST, FAST]


def test_a_job_matched_to_a_busy_machine_stays_queued():
    """Exclusive machines.  J1 (1 CPU) starts alone on fast at 0 and runs 150 s.  At 10, J2
    and J3 (4 CPUs: fast or mid) arrive; the largest matching has three pairs, so the plan
    moves J1 to small and gives fast and mid to J2 and J3.  J1 is not preempted: the job
    matched to fast cannot start there and stays queued; the other starts on mid.  When it
    ends at 110 the plan keeps J1 on fast and the waiting job gets mid."""
    rows = [(0, 300, 300, 1, (), 100), (10, 100, 100, 4, (), 100), (10, 100, 100, 4, (), 100)]
    grid, platform = grid_workload(rows), three_machines()
    result = run_grid(grid, platform, [ConvergentScheduling()], allocation="exclusive")
    check_grid_invariants(result, grid, platform)
    assert result.start[0] == 0 and result.grid.machine[0] == FAST
    assert sorted(result.start[1:].tolist()) == [10, 110]
    assert result.grid.machine[1:].tolist() == [MID, MID]


def thesis_run(incremental: bool, n_jobs: int = 150, **params):
    platform = generate_platform(preset("thesis-4.2", clusters=(30,), licences=8), seed=6)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=n_jobs, interarrival=10, seed=6)
    return grid, platform, run_grid(grid, platform,
                                    [ConvergentScheduling(incremental=incremental, **params)],
                                    allocation="exclusive")


def test_incremental_and_from_scratch_give_the_same_schedule():
    """CS_i_np and CS_ni_np: IMFS returns an MFS optimum, so with no ties both plans are the
    same at every event.  Two jobs with the same machines and no share of Deadline (no
    deadline, or late everywhere) can tie exactly, and the runs then diverge: this run
    (seed 6) has no tied plan; every plan's weight is checked in the test below."""
    grid, platform, incremental = thesis_run(True)
    _, _, scratch = thesis_run(False)
    check_grid_invariants(incremental, grid, platform)
    assert incremental.start.tolist() == scratch.start.tolist()
    assert incremental.grid.machine.tolist() == scratch.grid.machine.tolist()


class CheckedCS(ConvergentScheduling):
    """CS whose every incremental plan is compared with MFS from scratch on the same matrix."""

    plans = 0

    def _match(self, matrix, keys):
        plan = super()._match(matrix, keys)
        reference = mfs(matrix)
        assert plan.size == reference.size
        assert plan.weight == pytest.approx(reference.weight, rel=1e-9)
        CheckedCS.plans += 1
        return plan


def test_every_incremental_plan_has_the_mfs_cardinality_and_weight():
    platform = generate_platform(preset("thesis-4.2", clusters=(30,), licences=8), seed=4)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=120, interarrival=5, seed=4)
    CheckedCS.plans = 0
    result = run_grid(grid, platform, [CheckedCS()], allocation="exclusive")
    check_grid_invariants(result, grid, platform)
    assert CheckedCS.plans > 100


def test_mis_and_exact_knapsack_run_valid_schedules():
    platform = generate_platform(preset("thesis-4.2", clusters=(20,), licences=6), seed=5)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=80, interarrival=5, seed=5)
    for params in ({"matching": "mis"}, {"knapsack": "exact"}):
        result = simulate_grid(grid, {"name": "cs", **params}, platform=platform)
        check_grid_invariants(result, grid, platform)
        assert (result.end >= 0).all()


@pytest.mark.parametrize("params, field", [
    ({"preemption": "yes"}, "preemption"), ({"incremental": "yes"}, "incremental"),
    ({"matching": "hungarian"}, "matching"), ({"knapsack": "dp"}, "knapsack"),
    ({"sharing": "many"}, "sharing"), ({"deadline_late": "zero"}, "deadline_late"),
    ({"sharing": "slots", "preemption": True}, "sharing"),
    ({"deadline_k": 0.5}, "deadline_k"), ({"wait_sup": "max"}, "wait_sup"),
])
def test_bad_parameters_are_input_errors_naming_them(params, field):
    with pytest.raises(InputError) as error:
        make_local_policy({"name": "cs", **params})
    assert error.value.field == field


def test_preemption_on_the_command_line_and_a_bad_overhead_exits_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["platform", "generate", "--preset", "thesis-4.2", "--seed", "1",
                               "-o", "P.toml"]).exit_code == 0
    assert runner.invoke(app, ["generate", "grid", "--platform", "P.toml", "-n", "10",
                               "--seed", "1", "-o", "jobs.swf"]).exit_code == 0
    preemptive = ["simulate", "jobs.swf", "--platform", "P.toml", "--policy", "cs",
                  "--param", "preemption=true"]
    result = runner.invoke(app, [*preemptive, "--preemption-overhead", "30", "--out", "o"])
    assert result.exit_code == 0, result.output
    header = (tmp_path / "o" / "jobs.csv").read_text().splitlines()[0]
    assert header.endswith(",last_start,preemptions,migrations")
    result = runner.invoke(app, [*preemptive, "--preemption-overhead", "-5"])
    assert result.exit_code == 2, result.output
    assert "--preemption-overhead: expected a whole number of seconds >= 0, got -5" in \
        " ".join(result.output.split())
    result = runner.invoke(app, ["simulate", "jobs.swf", "--preemption-overhead", "5"])
    assert result.exit_code == 2, result.output
    assert ("a space-sharing run takes no --preemption-overhead: a run on one machine has no "
            "dispatcher, machines or preemption; a grid run (give --platform) does") in \
        " ".join(result.output.split())


def one_machine_of_4_cpus() -> Platform:
    return Platform((Cluster("c", (Machine("m", 4, 100),)),), name="one")


@pytest.mark.parametrize("sharing", ["auto", "slots", "rounds"])
def test_space_sharing_puts_two_jobs_on_one_machine_at_once(sharing):
    """One machine of 4 CPUs, two 2-CPU jobs of 100 s at 0: both start at 0 and end at 100
    under shared allocation (§4.3.2); with one job per machine in the plan (§4.2), the
    second waits for the first."""
    rows = [(0, 100, 100, 2, (), 100), (0, 100, 100, 2, (), 100)]
    grid, platform = grid_workload(rows), one_machine_of_4_cpus()
    shared = run_grid(grid, platform, [ConvergentScheduling(sharing=sharing)])
    check_grid_invariants(shared, grid, platform)
    assert shared.start.tolist() == [0, 0] and shared.end.tolist() == [100, 100]
    one = run_grid(grid, platform, [ConvergentScheduling(sharing="one")])
    assert one.start.tolist() == [0, 100]
    exclusive = run_grid(grid, platform, [ConvergentScheduling(sharing=sharing)],
                         allocation="exclusive")
    assert exclusive.start.tolist() == [0, 100]


def test_space_sharing_fills_the_fast_machine_before_the_slow_one():
    """fast (4 CPUs, 200), mid (4, 100), small (2, 100), no licences; J1 and J2 (2 CPUs,
    100 s at rating 100) at 0.  Slots: both on fast (50 s each), where the Wait
    minimization entries are highest; one job per machine (round 1 of ``rounds``) puts the
    second on mid (100 s): the largest matching comes first."""
    rows = [(0, 100, 100, 2, (), 100), (0, 100, 100, 2, (), 100)]
    grid, platform = grid_workload(rows), three_machines()
    slots = run_grid(grid, platform, [ConvergentScheduling()])
    assert slots.grid.machine.tolist() == [FAST, FAST] and slots.end.tolist() == [50, 50]
    rounds = run_grid(grid, platform, [ConvergentScheduling(sharing="rounds")])
    assert sorted(rounds.grid.machine.tolist()) == [FAST, MID]
    assert sorted(rounds.end.tolist()) == [50, 100]


class WorkConservingCS(ConvergentScheduling):
    """CS that checks after each pass that no queued job could start now."""

    def schedule(self, ctx):
        super().schedule(ctx)
        assert not [t.id for t in ctx.waiting.values() if ctx.machines_with_room(t).size]


def test_cs_under_the_meta_scheduler_on_thesis_4_3_leaves_no_startable_job():
    """§4.3.2: ms-heuristics dispatches, cs schedules each cluster under shared allocation.
    Running jobs cannot be stopped, so the knapsack keeps them and shares out only the
    copies they leave: a job is never set aside for one that cannot start."""
    platform = generate_platform(preset("thesis-4.3", clusters=(20, 10, 5, 3)), seed=2)
    grid = generate_grid(platform, JOBS["thesis-4.3"], n_jobs=150, interarrival=5, seed=2)
    result = run_grid(grid, platform, [WorkConservingCS() for _ in range(4)],
                      make_dispatcher("ms-heuristics"), allocation="shared")
    check_grid_invariants(result, grid, platform)
    assert (result.end >= 0).all()
    starts = sorted(zip(result.grid.machine.tolist(), result.start.tolist(),
                        result.end.tolist()))
    assert any(a[0] == b[0] and b[1] < a[2] for a, b in itertools.pairwise(starts))


def test_cs_under_the_meta_scheduler_from_the_api_and_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["platform", "generate", "--preset", "thesis-4.3", "--seed", "1",
                               "-o", "P.toml"]).exit_code == 0
    assert runner.invoke(app, ["generate", "grid", "--platform", "P.toml", "-n", "40",
                               "--ta", "5", "--seed", "1", "-o", "jobs.swf"]).exit_code == 0
    result = runner.invoke(app, ["simulate", "jobs.swf", "--platform", "P.toml", "--dispatch",
                                 "ms-heuristics", "--policy", "cs", "--param", "sharing=slots",
                                 "--out", "out"])
    assert result.exit_code == 0, result.output
    api = simulate_grid("jobs.swf", {"name": "cs", "sharing": "slots"}, platform="P.toml",
                        dispatch="ms-heuristics")
    written = json.loads((tmp_path / "out" / "metrics.json").read_text())["metrics"]
    assert compute_metrics(api)["deadline_missed"] == written["deadline_missed"]
    assert written["jobs"] == 40


@settings(max_examples=40, deadline=None)
@given(rows=jobs(), incremental=st.booleans(), allocation=st.sampled_from(["shared", "exclusive"]),
       preemption=st.booleans(), overhead=st.integers(0, 30),
       sharing=st.sampled_from(["auto", "one", "rounds", "slots"]))
def test_cs_never_oversubscribes_machines_or_licences(rows, incremental, allocation, preemption,
                                                      overhead, sharing):
    """Every registered policy is sampled by tests/grid/test_properties.py; cs alone here,
    on its two-cluster platform (a licence both floating and a machine feature), with and
    without preemption, and every plan kind (space sharing without preemption) under both
    allocation modes."""
    grid = grid_workload(rows)
    if preemption:
        sharing = "auto"
    policies = [ConvergentScheduling(incremental=incremental, preemption=preemption,
                                     sharing=sharing)
                for _ in range(2)]
    result = run_grid(grid, PLATFORM, policies, RoundRobin(), allocation=allocation,
                      preemption_overhead=overhead)
    check_grid_invariants(result, grid, PLATFORM)
    assert (result.end >= 0).all()


def test_cs_counts_the_work_of_each_matching_per_pass():
    """Two machines (ratings 200 and 300, one job each), three 100 s jobs (rating 100) at 0.
    Incremental (CS_i_np), square K x K: at 0 a cold start (K = 3): 6 entries given, 9 for
    the first potentials, 3 paths scanning 6 rows of 3 entries: 33.  At 34 the job on the
    fast machine ends; the running job's row carries Overhead minimization (800), which
    raises the premium M, so IMFS starts afresh (K = 2): 4 + 4 + 2 paths of one row scan
    (2 entries each): 12.  At 50 and 68 nothing waits and no pass matches.  From scratch
    (CS_ni_np, ``count_work``) the same two matrices are counted cold: the same work.
    Without ``count_work`` MFS from scratch reports nothing."""
    platform = Platform((Cluster("c", (Machine("slow", 1, 200), Machine("fast", 1, 300)), ()),),
                        name="two")
    grid = grid_workload([(0, 100, 100, 1, (), 100)] * 3)
    warm = run_grid(grid, platform, [ConvergentScheduling()], allocation="exclusive")
    assert sorted(warm.end.tolist()) == [34, 50, 68]
    assert warm.stats["matching_augmenting_paths"] == 3 + 2
    assert warm.stats["matching_entries_touched"] == 33 + 12
    scratch = run_grid(grid, platform, [ConvergentScheduling(incremental=False,
                                                             count_work=True)],
                       allocation="exclusive")
    assert scratch.end.tolist() == [50, 34, 68]
    assert scratch.stats["matching_augmenting_paths"] == 3 + 2
    assert scratch.stats["matching_entries_touched"] == 33 + 12
    assert scratch.stats["matching_count_seconds"] >= 0
    plain = run_grid(grid, platform, [ConvergentScheduling(incremental=False)],
                     allocation="exclusive")
    assert plain.stats == {} and plain.end.tolist() == scratch.end.tolist()
