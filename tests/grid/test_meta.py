"""The meta-scheduler (Pasquali thesis §3.1): classification and dispatch, checked by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.grid import GridTask, MetaView, TaskColumns, make_tasks, run_grid
from schedlab.errors import InputError
from schedlab.policies.grid import BackfillingFCFS, Dispatcher, GridFCFS, make_dispatcher
from schedlab.policies.grid.meta import (
    DeadlineHeuristic,
    MetaScheduler,
    combined_priority,
    licence_contribution,
    user_contribution,
)
from schedlab.workload.grid import activates_all
from schedlab.workload.job import Job

from .helpers import grid_workload, two_clusters


# ------------------------------------------------------------------ Deadline (eqs. 3.1-3.4)
def heuristic_with_mean_200(max_priority=3, base=2):
    deadline = DeadlineHeuristic(max_priority, window=3, base=base)
    for margin in (100, 200, 300):
        deadline.observe(margin)
    return deadline


@pytest.mark.parametrize("margin, expected", [
    # max 3, base 2: MinUnity = 400 / (2 + 4 + 8); S_1 = 57.14, S_2 = 171.43, S_3 = 400
    (0, 3), (50, 3), (57, 3), (58, 2), (171, 2), (172, 1), (400, 1), (401, 1), (-5, 3)])
def test_deadline_intervals_follow_eqs_3_3_and_3_4(margin, expected):
    assert heuristic_with_mean_200().interval_priority(margin) == expected


def test_deadline_base_changes_the_cuts():
    # max 2, base 3: the cut is 2E * 3 / (3 + 9) = 100
    deadline = heuristic_with_mean_200(max_priority=2, base=3)
    assert [deadline.interval_priority(m) for m in (99, 100)] == [2, 1]


@pytest.mark.parametrize("margin, estimate, expected", [
    (50, 100, 3),      # interval 3, R = 0.5 -> w = 1, capped at max
    (100, 150, 2),     # interval 2, R = 2/3 -> w = 0
    (100, 300, 3),     # interval 2, R = 1/3 -> w = 1
    (172, 100, 0),     # interval 1, R = 1.72 -> minus 1
    (58, 20, 0),       # interval 2, R = 2.9 -> minus 2
    (172, 1000, 3),    # interval 1, R = 0.172 -> w = 2 (the last subinterval)
])
def test_deadline_r_correction(margin, estimate, expected):
    assert heuristic_with_mean_200().contribution(margin, estimate) == expected


def test_deadline_window_keeps_the_last_n_margins():
    deadline = heuristic_with_mean_200()
    assert deadline.mean_margin(0) == 200
    deadline.observe(1000)                      # 100 drops out
    assert deadline.mean_margin(0) == 500
    assert DeadlineHeuristic(3, window=3).mean_margin(70) == 70   # empty: its own margin


# ------------------------------------------------------------------ Licence, User, average
@pytest.mark.parametrize("needed, expected", [(0, 1), (3, 2), (4, 3), (5, 3), (19, 10), (20, 10)])
def test_licence_subintervals_of_fig_11(needed, expected):
    assert licence_contribution(needed, 20, 10) == expected


def test_user_class_value_plus_owner_priority():
    values = (1, 4, 7)
    assert [user_contribution(c, o, values) for c, o in ((0, 0), (1, 2), (2, 3))] == [1, 6, 10]


def test_weighted_average_rounds_half_up_into_1_to_max():
    assert combined_priority((3, 3, 10), (1, 1, 1), 10) == 5          # 16 / 3
    assert combined_priority((2, 3, 9), (1, 1, 0), 10) == 3           # 2.5
    assert combined_priority((0, 1, 0), (1, 1, 1), 10) == 1           # 1/3, raised to 1
    assert combined_priority((0, 0, 12), (0, 0, 1), 10) == 10         # clamped to max
    assert combined_priority((10, 1, 1), (2, 1, 1), 10) == 6          # 22 / 4 = 5.5


def task(job_id, submit, estimate, deadline, licences, user_class, owner):
    job = Job(job_id, submit, estimate, estimate, 1, deadline=deadline)
    return GridTask(job_id - 1, job, 1, tuple(range(licences)), 100, np.ones(1, bool),
                    estimate, estimate, user_class, owner)


def test_classification_of_five_jobs_by_hand():
    ms = MetaScheduler(window=2)
    jobs = [task(1, 0, 100, 400, 5, 2, 3),      # D: E=300, k=9 -> 1, R=3 -> 0; L 3; U 10 -> 13/3
            task(2, 10, 100, 160, 0, 0, 0),     # D: 50/600 -> 4, R=0.5 -> 5; L 1; U 1 -> 7/3
            task(3, 0, 100, None, 20, 1, 2),    # D 0 (no deadline); L 10; U 6 -> 16/3
            task(4, 0, 1000, 1175, 1, 0, 3),    # window [300, 50]: E=175 -> 1, R=.175 -> 3; L 1; U 4
            task(5, 0, 10, 10, 0, 0, 0)]        # window [50, 175]: 0 -> 10, R=0 -> 10; L 1; U 1
    assert [ms.priority_of(t, licence_types=20) for t in jobs] == [4, 2, 5, 3, 4]


# ------------------------------------------------------------------ Load and Ordering
def with_owner_priorities(rows, owners):
    grid = grid_workload(rows)
    return dataclasses.replace(grid, owner_priority=np.array(owners, dtype=np.int8))


def user_only(**params):
    """Priorities from the owner priority alone: 1 + owner (Regular = 1)."""
    return MetaScheduler(w_deadline=0, w_licence=0, w_user=1, **params)


def dispatched(rows, owners, dispatcher, seed=0, policies=None):
    platform = two_clusters()
    policies = policies or [GridFCFS(), GridFCFS()]
    result = run_grid(with_owner_priorities(rows, owners), platform, policies, dispatcher,
                      seed=seed)
    return result.grid.cluster.tolist()


def test_load_and_ordering_on_two_clusters():
    # (submit, runtime, estimate, width, licences, rating); work = estimate x 100
    rows = [(0, 900, 100, 1, (), 100),    # P1: both idle -> the first, c1      c1: 10000
            (1, 900, 100, 1, (), 100),    # P2: c1 has no load at >= 2: idle -> c1
            (2, 900, 100, 1, (), 100),    # P1: Load 20000 vs 0 -> c2
            (3, 900, 50, 1, (), 100),     # P1: 20000 vs 10000 -> c2
            (4, 900, 50, 1, (), 100),     # P1: 20000 vs 15000 (> 10 % apart) -> c2
            (5, 900, 1, 1, (), 100),      # P1: 20000 vs 20000 balanced; Ordering 2 vs 3 -> c1
            (6, 900, 1, 1, (), 100)]      # P2: Load at 2: 10000 vs 0 -> c2
    owners = [0, 1, 0, 0, 0, 0, 1]
    assert dispatched(rows, owners, user_only()) == [0, 0, 1, 1, 1, 0, 1]


def test_without_classification_every_job_has_priority_1():
    rows = [(0, 900, 100, 1, (), 100), (1, 900, 100, 1, (), 100)]
    # its owner priority makes job 2 priority 4, and c1 is idle at 4; unclassified (both 1)
    # c1 has load at 1 and it goes to the idle c2
    assert dispatched(rows, [0, 3], user_only()) == [0, 0]
    assert dispatched(rows, [0, 3], user_only(classify=False)) == [0, 1]


def test_ordering_ties_are_drawn_with_the_run_seed():
    rows = [(0, 900, 100, 1, (), 100), (0, 900, 100, 1, (), 100)] + \
           [(1, 900, 100, 1, (), 100) for _ in range(30)]
    owners = [0] * 32
    first = dispatched(rows, owners, user_only(tolerance=10.0), seed=1)
    assert first[:2] == [0, 1]
    assert first == dispatched(rows, owners, user_only(tolerance=10.0), seed=1)
    draws = {tuple(dispatched(rows, owners, user_only(tolerance=10.0), seed=s)) for s in range(4)}
    assert len(draws) > 1


def test_a_job_end_removes_its_load():
    ended = [(0, 10, 100, 1, (), 100), (20, 10, 100, 1, (), 100)]
    running = [(0, 900, 100, 1, (), 100), (20, 10, 100, 1, (), 100)]
    assert dispatched(ended, [0, 0], user_only()) == [0, 0]
    assert dispatched(running, [0, 0], user_only()) == [0, 1]


def test_arrays_of_figs_12_and_13():
    ms = user_only(max_priority=5)
    rows = [(0, 900, 100, 1, (), 100), (0, 900, 30, 1, (), 100), (0, 900, 70, 1, (), 100)]
    platform = two_clusters()
    view = MetaView(platform, seed=0)
    tasks = make_tasks(with_owner_priorities(rows, [3, 1, 1]), platform)
    assert [ms.dispatch(view, t) for t in tasks] == [0, 1, 1]
    # job 1 (P4) -> c1; job 2 (P2): c1 idle at 2? no (10000 at >= 2), c2 idle -> c2;
    # job 3 (P2): 10000 vs 3000 -> c2
    assert ms.load_at(1).tolist() == [10000, 10000]
    assert ms.load_at(4).tolist() == [10000, 0]
    assert ms.ordering_at(2).tolist() == [1, 2]
    assert ms.ordering_at(5).tolist() == [0, 0]


class ToSecondWithPriority(Dispatcher):
    """Every job to c2; priorities 1, 1, 5."""

    name = "test-priority"

    def dispatch(self, view, task):
        task.priority = [1, 1, 5][task.index]
        return 1


def test_bf_fcfs_by_priority_lets_the_meta_schedulers_label_jump_the_queue():
    # c2 has one 8-CPU machine: job 1 holds it until 50 (rating 200: 100 -> 50)
    rows = [(0, 100, 100, 8, (), 100), (1, 100, 100, 8, (), 100), (2, 100, 100, 8, (), 100)]
    def starts(order):
        result = run_grid(grid_workload(rows), two_clusters(),
                          [BackfillingFCFS(order=order), BackfillingFCFS(order=order)],
                          ToSecondWithPriority())
        return result.start.tolist()
    assert starts("arrival") == [0, 50, 100]
    assert starts("priority") == [0, 100, 50]


# ------------------------------------------------------------------ parameters, determinism
@pytest.mark.parametrize("params", [{"max_priority": 0}, {"window": 0}, {"base": 0.5},
                                    {"w_user": -1}, {"load": "queue"}, {"tolerance": -0.1},
                                    {"w_deadline": 0, "w_licence": 0, "w_user": 0},
                                    {"gold": 1.5}, {"classify": "no"}])
def test_bad_parameters_are_input_errors(params):
    with pytest.raises(InputError):
        make_dispatcher({"name": "ms-heuristics", **params})


def test_same_seed_same_run_on_the_thesis_platform():
    from schedlab.api import simulate_grid
    from schedlab.platform.generator import generate_platform, preset
    from schedlab.workload.models.grid import PRESETS, generate_grid

    platform = generate_platform(preset("thesis-4.3"), 1)
    grid = generate_grid(platform, PRESETS["thesis-4.3"], n_jobs=150, interarrival=5, seed=2)
    runs = [simulate_grid(grid, {"name": "bf-fcfs", "order": "priority"}, platform=platform,
                          dispatch="ms-heuristics", seed=3) for _ in range(2)]
    assert runs[0].grid.cluster.tolist() == runs[1].grid.cluster.tolist()
    assert runs[0].start.tolist() == runs[1].start.tolist()
    assert len(set(runs[0].grid.cluster.tolist())) == 4


# ------------------------------------------------------------------ command line
def test_cli_runs_ms_heuristics_lists_it_and_refuses_bad_parameters(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from schedlab.cli.app import app

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["platform", "generate", "--preset", "thesis-4.3", "--seed", "1",
                               "-o", "P.toml"]).exit_code == 0
    assert runner.invoke(app, ["generate", "grid", "--platform", "P.toml", "--seed", "1",
                               "-n", "80", "--ta", "5", "-o", "jobs.swf"]).exit_code == 0
    ok = runner.invoke(app, ["simulate", "jobs.swf", "--platform", "P.toml",
                             "--dispatch", "ms-heuristics", "--dispatch-param", "window=20",
                             "--param", "order=priority", "--out", "out"])
    assert ok.exit_code == 0, ok.output
    assert '"dispatch.window": 20' in (tmp_path / "out" / "metrics.json").read_text()
    bad = runner.invoke(app, ["simulate", "jobs.swf", "--platform", "P.toml",
                              "--dispatch", "ms-heuristics", "--dispatch-param", "max_priority=0"])
    assert bad.exit_code == 2 and "'max_priority' parameter" in " ".join(bad.output.split())
    listing = " ".join(runner.invoke(app, ["policies"], terminal_width=250).output.split())
    assert "ms-heuristics" in listing and "max_priority=10" in listing


def test_cluster_work_share_weighs_jobs_by_estimated_work():
    from schedlab.metrics import compute_metrics
    from schedlab.policies.grid import RoundRobin

    # round robin: c1 gets 1 x 10 x 100 and 1 x 20 x 100, c2 gets 2 x 10 x 300
    rows = [(0, 10, 10, 1, (), 100), (1, 10, 10, 2, (), 300), (2, 20, 20, 1, (), 100)]
    result = run_grid(grid_workload(rows), two_clusters(), [GridFCFS(), GridFCFS()],
                      RoundRobin())
    metrics = compute_metrics(result)
    assert metrics["cluster_work_share.c1"] == pytest.approx(3000 / 9000)
    assert metrics["cluster_work_share.c2"] == pytest.approx(6000 / 9000)
    assert result.grid.priority.tolist() == [0, 0, 0]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 8).map(lambda width: (width, ())),
                          st.integers(1, 4).map(lambda width: (width, ("A",)))),
                min_size=1, max_size=12))
def test_clusters_of_the_run_as_of_each_task(jobs):
    """The clusters a job could run in, read off the run's columns (all jobs at once) as
    from the task's own eligible machines, as an array and as a tuple: on two_clusters,
    c1 for licence A, c2 for more than 4 CPUs, both for the others."""
    platform = two_clusters()
    tasks = make_tasks(grid_workload([(0, 10, 10, width, licences, 100)
                                      for width, licences in jobs]), platform)
    columns = TaskColumns.of(tasks, len(platform.licence_names), len(platform.cpus))
    of_run, of_task = MetaView(platform, 0, columns.eligible), MetaView(platform, 0)
    for task, (width, licences) in zip(tasks, jobs):
        expected = [c for c, ok in enumerate((width <= 4, not licences)) if ok]
        assert of_run.eligible_clusters(task).tolist() == expected
        assert of_task.eligible_clusters(task).tolist() == expected
        assert of_run.cluster_indices(task) == of_task.cluster_indices(task) == tuple(expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10), st.sampled_from([(), ("A",), ("Z",), ("A", "Z")])),
                min_size=1, max_size=6))
def test_tasks_are_refused_as_the_workload_check_refuses(jobs):
    """make_tasks refuses a workload exactly when GridWorkload.check_on does, with its
    message (a job wider than any machine, needing a licence no cluster has, or whose
    licences no machine with its CPUs can activate)."""
    platform = two_clusters()
    grid = grid_workload([(0, 10, 10, width, licences, 100) for width, licences in jobs])
    try:
        grid.check_on(platform)
        expected = None
    except InputError as err:
        expected = str(err)
    try:
        make_tasks(grid, platform)
        got = None
    except InputError as err:
        got = str(err)
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), jobs=st.integers(0, 12),
       licences=st.sampled_from([0, 1, 7, 8, 9, 63, 64, 65, 100, 128, 140]),
       machines=st.integers(1, 9), need=st.floats(0.0, 0.2), unusable=st.floats(0.0, 0.3))
def test_the_licences_a_machine_activates_as_packed_words_are_the_loop(seed, jobs, licences,
                                                                        machines, need,
                                                                        unusable):
    """activates_all (the needs and the unusable licences packed in 64-bit words) says
    what a loop over each job's licences says: every one usable on the machine; with
    more licences than one word holds, too."""
    rng = np.random.default_rng(seed)
    needs = rng.random((jobs, licences)) < need
    usable = rng.random((licences, machines)) >= unusable
    got = activates_all(needs, usable)
    assert got.shape == (jobs, machines)
    for i in range(jobs):
        for k in range(machines):
            assert got[i, k] == all(usable[l, k] for l in np.flatnonzero(needs[i]))
