"""The kernel the three engines share (docs/reference/engine.md, "One kernel"): its pieces alone,
then the same input checks, metadata, progress and stuck-job error from every engine."""

from __future__ import annotations

import numpy as np
import pytest

from grid.helpers import grid_workload, three_machines
from schedlab.engine import kernel
from schedlab.engine.grid import run_grid
from schedlab.engine.simulator import run
from schedlab.engine.timesharing import run_timesharing
from schedlab.errors import InputError, PolicyError
from schedlab.policies import make_policy
from schedlab.policies.grid import GridFCFS
from schedlab.workload.job import Job, Workload

JOBS = tuple(Job(i, 10 * i, 30, 40, 1 + i % 3) for i in range(1, 7))
WORKLOAD = Workload(JOBS, 4, "six")
GRID_ROWS = [(10 * i, 30, 40, 1 + i % 3, (), 100) for i in range(1, 7)]


# ------------------------------------------------------------------ the pieces
def test_a_step_series_keeps_one_row_per_change_and_the_last_values_of_an_instant():
    series = kernel.StepSeries(2)
    series.record(0, 1, 5)
    series.record(3, 1, 5)          # no change: no row
    series.record(4, 2, 5)
    series.record(4, 3, 6)          # same instant: the last values win
    series.record(9, 0, 0)
    times, values = series.arrays()
    assert times.tolist() == [0, 4, 9]
    assert values.tolist() == [[1, 5], [3, 6], [0, 0]]
    assert times.dtype == values.dtype == np.int64


def test_an_empty_step_series_has_its_columns():
    times, values = kernel.StepSeries(3).arrays()
    assert times.shape == (0,) and values.shape == (0, 3)


def test_progress_reports_every_two_hundredth_of_the_jobs_and_at_the_end():
    calls = []
    progress = kernel.Progress(lambda done, total: calls.append((done, total)), 1000)
    due = progress.due
    for done in range(1, 1001):
        if done >= due:
            due = progress.report(done)
    progress.close(1000)
    assert calls[:3] == [(5, 1000), (10, 1000), (15, 1000)]
    assert len(calls) == 201 and calls[-1] == (1000, 1000)


def test_progress_without_a_callback_is_never_due():
    progress = kernel.Progress(None, 10)
    assert progress.due > 2**62
    progress.close(10)


@pytest.mark.parametrize("machine, jobs, message", [
    (0, (), "the machine needs at least one processor, got 0"),
    (2, JOBS, "2 job(s) are wider than the 2-processor machine (first: job 2)"),
])
def test_the_machine_check_names_the_processors(machine, jobs, message):
    with pytest.raises(InputError) as caught:
        kernel.check_machine(jobs, machine)
    assert caught.value.field == "processors" and caught.value.reason == message


def test_job_positions_refuse_a_repeated_id():
    assert kernel.job_positions(JOBS[:2]) == {1: 0, 2: 1}
    with pytest.raises(InputError, match="job ids must be unique") as caught:
        kernel.job_positions(JOBS[:1] * 2)
    assert caught.value.field == "job id"


def test_the_choice_check_names_the_field_and_the_choices():
    with pytest.raises(InputError) as caught:
        kernel.check_one_of("overrun", "pause", kernel.OVERRUN_MODES)
    assert str(caught.value) == "field overrun: expected one of kill, extend, got 'pause'"


def test_the_heap_event_kinds_keep_the_same_time_order():
    order = [kernel.FINISH, kernel.RESERVATION_END, kernel.RESTORE, kernel.RESERVATION_START,
             kernel.NOTICE, kernel.OUTAGE, kernel.CORRECT, kernel.CANCEL, kernel.RELEASE,
             kernel.REQUEST, kernel.WAKE]
    assert order == sorted(order) == list(range(11))
    assert max(10 * i for i in range(1, 7)) < kernel.NEVER


# ------------------------------------------------------------------ every engine
def run_space(**options):
    return run(WORKLOAD, make_policy("fcfs"), **options)


def run_gang(**options):
    return run_timesharing(WORKLOAD, make_policy({"name": "gang", "strategy": 1}), **options)


def run_on_grid(**options):
    return run_grid(grid_workload(GRID_ROWS), three_machines(), [GridFCFS()], **options)


ENGINES = {"space": run_space, "gang": run_gang, "grid": run_on_grid}


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_refuses_an_unknown_overrun_mode_the_same_way(engine):
    with pytest.raises(InputError) as caught:
        ENGINES[engine](overrun="pause")
    assert str(caught.value) == "field overrun: expected one of kill, extend, got 'pause'"


@pytest.mark.parametrize("engine, keys", [
    ("space", ["schedlab_version", "overrun", "wall_time_s", "jobs", "unix_start_time",
               "workload"]),
    ("gang", ["schedlab_version", "overrun", "wall_time_s", "jobs", "unix_start_time",
              "engine"]),
    ("grid", ["schedlab_version", "overrun", "allocation", "seed", "wall_time_s", "jobs",
              "unix_start_time", "scheduling_events", "scheduling_passes", "scheduling_time_s",
              "scheduling_time_per_event_us"]),
])
def test_every_engine_writes_the_shared_metadata_in_one_order(engine, keys):
    result = ENGINES[engine]()
    assert list(result.meta) == keys
    assert result.meta["jobs"] == len(JOBS) and result.meta["overrun"] == "kill"
    assert result.planned_start.tolist() == [-1] * len(JOBS)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_reports_progress_up_to_every_job(engine):
    calls = []
    ENGINES[engine](progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (len(JOBS), len(JOBS))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


class WaitsForever:
    """A space-sharing policy that never starts anything."""

    name = "idle"

    def on_submit(self, ctx, job):
        pass

    def on_finish(self, ctx, job):
        pass

    def schedule(self, ctx):
        pass

    def get_params(self):
        return {}

    def statistics(self):
        return {}


class GridWaitsForever(WaitsForever):
    name = "grid-idle"


def test_a_job_left_waiting_forever_is_the_same_error_in_space_sharing_and_the_grid():
    with pytest.raises(PolicyError) as space:
        run(WORKLOAD, WaitsForever())
    with pytest.raises(PolicyError) as grid:
        run_grid(grid_workload(GRID_ROWS), three_machines(), [GridWaitsForever()])
    assert str(space.value) == ("policy 'idle' left job 1 waiting with no event to come: it "
                                "never starts")
    assert str(grid.value) == ("policy 'grid-idle' left job 1 waiting in cluster 0 with no "
                               "event to come: it never starts")
