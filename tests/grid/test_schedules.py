"""Hand-checked grid schedules on a 3-machine, 2-licence cluster (docs/reference/policies/grid.md).

Machines: fast (4 CPUs, rating 200), mid (4, 100), small (2, 100).  Licence A:
1 copy on fast and mid; licence B: 2 copies anywhere.  Times follow eq. 3.9:
a job measured at rating 100 runs half as long on fast.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine.grid import run_grid
from schedlab.engine.result import FINISHED, KILLED
from schedlab.platform import Cluster, Machine, Platform
from schedlab.policies.grid import BackfillingFCFS, GridFCFS
from schedlab.policies.grid.local import reserve

from .helpers import grid_workload, three_machines

FAST, MID, SMALL = 0, 1, 2


def simulate(rows, policy, allocation="shared", overrun="kill"):
    return run_grid(grid_workload(rows), three_machines(), [policy], allocation=allocation,
                    overrun=overrun)


def test_fcfs_scales_times_by_rating_and_takes_the_fastest_machine_with_room():
    rows = [(0, 100, 100, 4, (), 100),      # fast: 100 x 100/200 = 50
            (0, 50, 60, 4, (), 100),        # fast full -> mid, 50
            (0, 30, 30, 2, (), 100),        # small, 30
            (1, 101, 101, 1, (), 100),      # no room until small frees at 30
            (40, 101, 101, 4, (), 100)]     # fast frees at 50: ceil(101 / 2) = 51
    result = simulate(rows, GridFCFS())
    assert result.start.tolist() == [0, 0, 0, 30, 50]
    assert result.end.tolist() == [50, 50, 30, 131, 101]
    assert result.grid.machine.tolist() == [FAST, MID, SMALL, SMALL, FAST]


def test_a_job_of_a_faster_reference_runs_longer_on_a_slower_machine():
    rows = [(0, 100, 100, 4, (), 200),      # fast, rating as measured: 100
            (0, 100, 100, 4, (), 200)]      # mid (rating 100): 100 x 200/100 = 200
    result = simulate(rows, GridFCFS())
    assert result.end.tolist() == [100, 200]
    assert result.grid.machine.tolist() == [FAST, MID]


def test_kill_at_the_scaled_estimate_and_extend():
    rows = [(0, 100, 60, 4, (), 100)]       # on fast: runtime 50, estimate 30
    killed = simulate(rows, GridFCFS())
    assert killed.end.tolist() == [30] and killed.status.tolist() == [KILLED]
    extended = simulate(rows, GridFCFS(), overrun="extend")
    assert extended.end.tolist() == [50] and extended.status.tolist() == [FINISHED]


#: Licence B (2 copies) is what the head (job 3) needs at its shadow time 100:
#: job 2 holds one past it, the head the other, so job 4 (B, long) may not
#: backfill; job 5 (B, ends by 100) and job 6 (no licence, on mid) may.
LICENCE_ROWS = [(0, 100, 100, 4, (), 200),          # 1: fast [0, 100]
                (0, 200, 200, 1, ("B",), 100),      # 2: mid [0, 200], holds B
                (1, 100, 100, 4, ("B",), 100),      # 3: head, reserved on fast at 100
                (2, 500, 500, 1, ("B",), 100),      # 4: would hold B past 100
                (3, 50, 50, 1, ("B",), 100),        # 5: B, but ends at 53
                (4, 1000, 1000, 2, (), 100)]        # 6: mid, not the reserved machine


def test_fcfs_waits_for_licence_copies():
    result = simulate(LICENCE_ROWS, GridFCFS())
    assert result.start.tolist() == [0, 0, 100, 150, 200, 200]
    assert result.end.tolist() == [100, 200, 150, 400, 225, 700]
    assert result.grid.machine.tolist() == [FAST, MID, FAST, FAST, FAST, FAST]


def test_bf_fcfs_backfills_without_taking_the_heads_licence_copy():
    result = simulate(LICENCE_ROWS, BackfillingFCFS())
    assert result.start.tolist() == [0, 0, 100, 150, 3, 4]
    assert result.end.tolist() == [100, 200, 150, 400, 53, 1004]
    assert result.grid.machine.tolist() == [FAST, MID, FAST, FAST, MID, MID]


def test_a_single_copy_licence_blocks_a_start_until_it_is_released():
    rows = [(0, 100, 100, 1, ("A",), 200),       # fast [0, 100] holds the only copy of A
            (0, 100, 100, 1, ("A",), 100),       # waits for A: fast at 100, 50 s
            (1, 20, 20, 2, (), 100)]             # EASY: fast now, ends at 11 < 100
    fcfs = simulate(rows, GridFCFS())
    assert fcfs.start.tolist() == [0, 100, 100]
    assert fcfs.end.tolist() == [100, 150, 110]
    easy = simulate(rows, BackfillingFCFS())
    assert easy.start.tolist() == [0, 100, 1]
    assert easy.end.tolist() == [100, 150, 11]
    assert easy.grid.machine.tolist() == [FAST, FAST, FAST]


def test_backfilling_on_the_reserved_machine_only_ends_before_the_shadow_time():
    rows = [(0, 100, 100, 3, (), 200),           # 1: fast [0, 100], 1 CPU free
            (0, 400, 400, 4, (), 100),           # 2: mid [0, 400]
            (0, 400, 400, 2, (), 100),           # 3: small [0, 400]
            (1, 100, 100, 4, (), 200),           # 4: head, all of fast at 100
            (2, 1000, 1000, 1, (), 100),         # 5: room on fast now, but would run past 100
            (3, 100, 100, 1, (), 100)]           # 6: on fast until 53: before the shadow time
    easy = simulate(rows, BackfillingFCFS())
    assert easy.start.tolist() == [0, 0, 0, 100, 200, 3]
    assert easy.end.tolist() == [100, 400, 400, 200, 700, 53]
    assert easy.grid.machine.tolist() == [FAST, MID, SMALL, FAST, FAST, FAST]


@pytest.mark.parametrize("policy", [GridFCFS, BackfillingFCFS])
def test_exclusive_allocation_runs_one_job_per_machine(policy):
    rows = [(0, 100, 100, 1, (), 100), (0, 100, 100, 1, (), 100),
            (0, 100, 100, 1, (), 100), (0, 100, 100, 2, (), 100)]
    shared = simulate(rows, policy())
    assert shared.start.tolist() == [0, 0, 0, 0]
    assert shared.grid.machine.tolist() == [FAST, FAST, FAST, MID]
    exclusive = simulate(rows, policy(), allocation="exclusive")
    assert exclusive.start.tolist() == [0, 0, 0, 50]
    assert exclusive.end.tolist() == [50, 100, 100, 100]
    assert exclusive.grid.machine.tolist() == [FAST, MID, SMALL, FAST]


class RecordingEasy(BackfillingFCFS):
    """BF_FCFS that notes the head's reservation at every pass."""

    def __init__(self, reserve_by: str = "start") -> None:
        super().__init__(reserve_by)
        self.seen: list[tuple[int, int, int]] = []

    def schedule(self, ctx):
        for task in ctx.waiting.values():
            if ctx.fastest_fit(task) is None:
                r = reserve(ctx, task, self.reserve_by)
                self.seen.append((ctx.now, r.machine, r.start))
            break
        super().schedule(ctx)


@pytest.mark.parametrize("by, machine, start", [("start", MID, 100), ("end", FAST, 150)])
def test_the_heads_reservation_by_earliest_start_or_earliest_end(by, machine, start):
    rows = [(0, 300, 300, 4, (), 100),           # fast until 150
            (0, 100, 100, 4, (), 100),           # mid until 100
            (0, 1000, 1000, 2, (), 100),         # small until 1000
            (1, 200, 200, 4, (), 100)]           # head: mid 100-300 or fast 150-250
    policy = RecordingEasy(by)
    simulate(rows, policy)
    assert policy.seen[0] == (1, machine, start)


def test_same_inputs_same_schedule():
    first = simulate(LICENCE_ROWS, BackfillingFCFS())
    second = simulate(LICENCE_ROWS, BackfillingFCFS())
    assert np.array_equal(first.start, second.start)
    assert np.array_equal(first.grid.machine, second.grid.machine)


def test_backfilling_on_the_reserved_machine_may_use_the_cpus_the_head_leaves_spare():
    rows = [(0, 100, 100, 3, (), 200),           # 1: fast [0, 100], 1 CPU free
            (0, 400, 400, 4, (), 100),           # 2: mid [0, 400]
            (0, 400, 400, 2, (), 100),           # 3: small [0, 400]
            (1, 100, 100, 3, (), 200),           # 4: head, 3 of fast's 4 CPUs at 100
            (2, 1000, 1000, 1, (), 100),         # 5: the spare CPU, past the shadow time
            (3, 100, 100, 1, (), 100)]           # 6: no CPU free until the head ends
    easy = simulate(rows, BackfillingFCFS())
    assert easy.start.tolist() == [0, 0, 0, 100, 2, 200]
    assert easy.end.tolist() == [100, 400, 400, 200, 502, 250]
    assert easy.grid.machine.tolist() == [FAST, MID, SMALL, FAST, FAST, FAST]


def test_a_kept_reservation_loses_the_spare_cpus_a_backfilled_job_takes_past_its_start():
    """One machine of 8 CPUs, shared.  The head (job 2, 7 CPUs) is reserved at 100, when job
    1 ends, leaving 1 spare CPU past it.  Job 3 (1 CPU, to 502) takes that CPU, submitted
    alone, so the pass tries it behind the kept reservation; job 4, submitted alone next,
    finds no CPU spare and waits for the head to end.  A kept reservation that did not
    lose job 3's CPU would start job 4 at once and hold the head back to 502."""
    machines = (Machine("m", 8, 100),)
    platform = Platform((Cluster("c", machines, ()),), name="one")
    rows = [(0, 100, 100, 4, (), 100),      # 1: [0, 100], 4 CPUs left
            (1, 100, 100, 7, (), 100),      # 2: the head, at 100
            (2, 500, 500, 1, (), 100),      # 3: the one spare CPU, [2, 502]
            (3, 500, 500, 1, (), 100)]      # 4: none spare; after the head
    result = run_grid(grid_workload(rows), platform, [BackfillingFCFS()], allocation="shared")
    assert result.start.tolist() == [0, 100, 2, 200]
    assert result.end.tolist() == [100, 200, 502, 700]
