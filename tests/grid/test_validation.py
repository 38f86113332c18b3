"""Every start is validated: a policy that breaks a rule gets a PolicyError."""

from __future__ import annotations

import re

import pytest

from schedlab.engine.grid import run_grid
from schedlab.errors import InputError, PolicyError
from schedlab.policies.grid import Dispatcher, GridFCFS, LocalPolicy

from .helpers import grid_workload, three_machines, two_clusters

FAST, MID, SMALL = 0, 1, 2


class StartOn(LocalPolicy):
    """Starts every waiting job on one fixed machine, whatever the rules say."""

    def __init__(self, machine: int = 0) -> None:
        self.machine = machine

    def schedule(self, ctx):
        for task in list(ctx.waiting.values()):
            ctx.start(task, self.machine)


def run(rows, policy, allocation="shared"):
    return run_grid(grid_workload(rows), three_machines(), [policy], allocation=allocation)


@pytest.mark.parametrize("rows, machine, allocation, message", [
    ([(0, 10, 10, 1, ("A",), 100)], SMALL, "shared", "licence 'A' cannot be activated there"),
    ([(0, 10, 10, 4, (), 100)], SMALL, "shared", "it needs 4 CPUs, the machine has 2"),
    ([(0, 10, 10, 3, (), 100), (0, 10, 10, 2, (), 100)], FAST, "shared",
     "it needs 2 CPUs, 1 are free"),
    ([(0, 10, 10, 1, (), 100), (0, 10, 10, 1, (), 100)], FAST, "exclusive",
     "the machine is busy (one job per machine)"),
    ([(0, 10, 10, 1, ("A",), 100), (0, 10, 10, 1, ("A",), 100)], MID, "shared",
     "no copy of licence 'A' is free"),
    ([(0, 10, 10, 1, (), 100)], 7, "shared", "the machine is not in cluster 0"),
])
def test_a_start_that_breaks_a_rule_is_a_policy_error(rows, machine, allocation, message):
    with pytest.raises(PolicyError, match="started job .* at time 0: " + re.escape(message)):
        run(rows, StartOn(machine), allocation)


def test_starting_a_job_twice_is_a_policy_error():
    class Twice(LocalPolicy):
        def schedule(self, ctx):
            for task in list(ctx.waiting.values()):
                ctx.start(task, FAST)
                ctx.start(task, FAST)

    with pytest.raises(PolicyError, match="it is not waiting"):
        run([(0, 10, 10, 1, (), 100)], Twice())


def test_a_machine_of_another_cluster_is_refused():
    class Other(Dispatcher):
        def dispatch(self, view, task):
            return 1

    class OnFirstMachine(LocalPolicy):
        def schedule(self, ctx):
            for task in list(ctx.waiting.values()):
                ctx.start(task, 0)

    grid = grid_workload([(0, 10, 10, 1, (), 100)])
    with pytest.raises(PolicyError, match="not in cluster 1"):
        run_grid(grid, two_clusters(), [OnFirstMachine(), OnFirstMachine()], Other())


def test_a_dispatcher_sending_a_job_where_no_machine_can_run_it_is_a_policy_error():
    class Second(Dispatcher):
        name = "second"

        def dispatch(self, view, task):
            return 1

    grid = grid_workload([(0, 10, 10, 1, ("A",), 100)])     # A exists only in c1
    with pytest.raises(PolicyError, match="dispatcher 'second' sent job 1 to cluster 'c2'"):
        run_grid(grid, two_clusters(), [GridFCFS(), GridFCFS()], Second())


def test_a_policy_that_never_starts_a_job_is_reported():
    with pytest.raises(RuntimeError, match="left job 1 waiting"):
        run([(0, 10, 10, 1, (), 100)], LocalPolicy())


def test_several_clusters_need_a_dispatcher_and_one_policy_instance_each():
    grid = grid_workload([(0, 10, 10, 1, (), 100)])
    with pytest.raises(InputError, match="a dispatcher"):
        run_grid(grid, two_clusters(), [GridFCFS(), GridFCFS()])
    policy = GridFCFS()
    with pytest.raises(ValueError, match="its own local policy instance"):
        run_grid(grid, two_clusters(), [policy, policy], Dispatcher())


def test_a_job_wider_than_every_machine_is_an_input_error():
    with pytest.raises(InputError, match="asks for 5 CPUs, more than any machine"):
        run([(0, 10, 10, 5, (), 100)], GridFCFS())


def test_a_licence_no_cluster_has_is_an_input_error():
    with pytest.raises(InputError, match="needs licence 'C', which no cluster"):
        run([(0, 10, 10, 1, ("C",), 100)], GridFCFS())


def test_bad_allocation_and_overrun_are_input_errors():
    grid = grid_workload([(0, 10, 10, 1, (), 100)])
    with pytest.raises(InputError, match="shared, exclusive"):
        run_grid(grid, three_machines(), [GridFCFS()], allocation="half")
    with pytest.raises(InputError, match="kill, extend"):
        run_grid(grid, three_machines(), [GridFCFS()], overrun="never")


def test_a_rejected_job_ends_for_the_dispatcher_too():
    from schedlab.engine.result import REJECTED
    from schedlab.policies.grid import RoundRobin

    class RejectWide(GridFCFS):
        def on_submit(self, ctx, task):
            if task.width > 2:
                ctx.reject(task, "too wide")

    class Watching(RoundRobin):
        def __init__(self):
            super().__init__()
            self.ended, self.left = [], None

        def on_finish(self, view, task):
            self.ended.append((view.now, task.id))
            self.left = sum(len(jobs) for jobs in view.outstanding)

    grid = grid_workload([(0, 10, 10, 4, (), 100), (1, 10, 10, 1, (), 100)])
    dispatcher = Watching()
    result = run_grid(grid, two_clusters(), [RejectWide(), RejectWide()], dispatcher)
    assert result.status.tolist()[0] == REJECTED and result.reject_reasons == {1: "too wide"}
    assert dispatcher.ended == [(0, 1), (6, 2)] and dispatcher.left == 0   # job 2 on b1
    assert result.grid.machine[0] == -1 and result.start[0] == -1


def test_the_contexts_arrays_cannot_be_written_by_a_policy():
    class Cheat(LocalPolicy):
        def schedule(self, ctx):
            ctx.free_cpus[SMALL] = 99

    with pytest.raises(ValueError, match="read-only"):
        run([(0, 10, 10, 1, (), 100)], Cheat())
