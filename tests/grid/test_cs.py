"""The Convergent Scheduling local policy ``cs`` (Pasquali thesis §3.2.2, §4.2, non-preemptive)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.api import simulate_grid
from schedlab.cli.app import app
from schedlab.engine.grid import run_grid
from schedlab.errors import InputError
from schedlab.platform.generator import generate_platform, preset
from schedlab.policies.grid import RoundRobin, make_local_policy
from schedlab.policies.grid.convergent import ClusterState, Weights, job_machine_matrix, mfs
from schedlab.policies.grid.convergent.policy import ConvergentScheduling
from schedlab.testing import check_grid_invariants
from schedlab.workload.models.grid import PRESETS as JOBS, generate_grid

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
    it runs 50 s there."""
    for incremental in (True, False):
        result = run_grid(grid_workload(HAND_ROWS), three_machines(),
                          [ConvergentScheduling(incremental=incremental, wait_sup="all")])
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


def thesis_run(incremental: bool, n_jobs: int = 150):
    platform = generate_platform(preset("thesis-4.2", clusters=(30,), licences=8), seed=3)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=n_jobs, interarrival=10, seed=3)
    return grid, platform, run_grid(grid, platform,
                                    [ConvergentScheduling(incremental=incremental)])


def test_incremental_and_from_scratch_give_the_same_schedule():
    """CS_i_np and CS_ni_np: IMFS returns an MFS optimum, so with no ties (random ratings
    and times) both plans are the same at every event."""
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
    result = run_grid(grid, platform, [CheckedCS()])
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
    assert "preemption_overhead: expected a whole number of seconds >= 0, got -5" in \
        " ".join(result.output.split())
    result = runner.invoke(app, ["simulate", "jobs.swf", "--preemption-overhead", "5"])
    assert result.exit_code == 2, result.output
    assert "--preemption-overhead needs --platform" in " ".join(result.output.split())


@settings(max_examples=40, deadline=None)
@given(rows=jobs(), incremental=st.booleans(), allocation=st.sampled_from(["shared", "exclusive"]),
       preemption=st.booleans(), overhead=st.integers(0, 30))
def test_cs_never_oversubscribes_machines_or_licences(rows, incremental, allocation, preemption,
                                                      overhead):
    """Every registered policy is sampled by tests/grid/test_properties.py; cs alone here,
    on its two-cluster platform (a licence both floating and a machine feature), with and
    without preemption."""
    grid = grid_workload(rows)
    policies = [ConvergentScheduling(incremental=incremental, preemption=preemption)
                for _ in range(2)]
    result = run_grid(grid, PLATFORM, policies, RoundRobin(), allocation=allocation,
                      preemption_overhead=overhead)
    check_grid_invariants(result, grid, PLATFORM)
    assert (result.end >= 0).all()
