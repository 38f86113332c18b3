"""Property: whatever the jobs, grid runs keep every rule (testing.check_grid_invariants),
also when the local policy preempts and migrates jobs, and their queue series counts the
jobs waiting."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.grid import run_grid
from schedlab.engine.result import ran_mask
from schedlab.platform import Cluster, Licence, Machine, Platform
from schedlab.policies.grid import DISPATCHERS, LOCAL_POLICIES
from schedlab.testing import check_grid_invariants

from .helpers import ShortestFirstMigrating, grid_workload

PLATFORM = Platform((
    Cluster("c1", (Machine("fast", 4, 200), Machine("mid", 4, 100), Machine("small", 2, 100)),
            (Licence("A", 1, ("fast", "mid")), Licence("B", 2, ("fast", "mid", "small")))),
    Cluster("c2", (Machine("big", 8, 150, frozenset({"A"})), Machine("tiny", 1, 300)),
            (Licence("B", 1, ("tiny",)),)),
), name="prop")


#: Every local policy, and two that preempt: CS_i_p and a test policy that migrates
#: running jobs to faster idle machines.
POLICIES = {**{name: entry[0] for name, entry in LOCAL_POLICIES.items()},
            "cs preemptive": lambda: LOCAL_POLICIES["cs"][0](preemption=True),
            "sjf-migrate": ShortestFirstMigrating}


@st.composite
def jobs(draw):
    rows = []
    for _ in range(draw(st.integers(1, 25))):
        licences = tuple(sorted(draw(st.sets(st.sampled_from("AB"), max_size=2))))
        mask = PLATFORM.eligible(1, PLATFORM.licence_index(licences))
        widest = int(PLATFORM.cpus[mask].max())
        runtime = draw(st.integers(0, 300))
        estimate = draw(st.integers(max(runtime - 50, 1), runtime + 100))
        submit = draw(st.integers(0, 400))
        deadline = draw(st.none() | st.integers(submit, submit + 600))   # for bf-*, grid-edf
        rows.append((submit, runtime, estimate, draw(st.integers(1, widest)), licences,
                     draw(st.integers(50, 400)), deadline))
    rows.sort(key=lambda r: r[0])
    return rows


@settings(max_examples=150, deadline=None)
@given(rows=jobs(), policy=st.sampled_from(sorted(POLICIES)),
       dispatcher=st.sampled_from(sorted(DISPATCHERS)),
       allocation=st.sampled_from(["shared", "exclusive"]),
       overrun=st.sampled_from(["kill", "extend"]), seed=st.integers(0, 3),
       overhead=st.integers(0, 20))
def test_grid_runs_never_oversubscribe_machines_or_licences(rows, policy, dispatcher,
                                                             allocation, overrun, seed,
                                                             overhead):
    grid = grid_workload(rows)
    local = POLICIES[policy]
    result = run_grid(grid, PLATFORM, [local(), local()], DISPATCHERS[dispatcher][0](),
                      allocation=allocation, overrun=overrun, seed=seed,
                      preemption_overhead=overhead)
    check_grid_invariants(result, grid, PLATFORM)
    if ran_mask(result.status).all():
        assert result.series_queue.tolist() == waiting_at(result, result.series_time)


def waiting_at(result, times):
    """The jobs queued at each of ``times`` (after the passes of that instant), from the
    runs of a run where every job ran: from its submission to its first run, and between
    its runs."""
    runs = result.grid.runs
    waits = []                                  # [from, to) of each wait
    for i, submit in enumerate(result.submit.tolist()):
        mine = runs[runs[:, 0] == i]
        waits.append((submit, int(mine[0, 2])))
        waits += [(int(a), int(b)) for a, b in zip(mine[:-1, 3], mine[1:, 2])]
    return [sum(a <= t < b for a, b in waits) for t in times.tolist()]


def test_the_check_catches_a_machine_over_its_cpus_and_a_licence_over_its_copies():
    import pytest

    from schedlab.policies.grid import GridFCFS, RoundRobin

    rows = [(0, 100, 100, 3, ("A",), 200), (0, 100, 100, 3, ("A",), 200)]
    grid = grid_workload(rows)
    result = run_grid(grid, PLATFORM, [GridFCFS(), GridFCFS()], RoundRobin())
    check_grid_invariants(result, grid, PLATFORM)
    result.grid.machine[:] = 0              # both on fast (4 CPUs), both holding c1's A
    result.grid.cluster[:] = 0
    result.start[:] = 0
    result.end[:] = 100
    with pytest.raises(AssertionError, match="machine 0 oversubscribed"):
        check_grid_invariants(result, grid, PLATFORM)
    result.grid.machine[1] = 1              # mid: CPUs fine, but A has one copy in c1
    result.end[1] = 200                     # eq. 3.9 on mid (rating 100)
    with pytest.raises(AssertionError, match=r"licence .* over its copies in cluster 0"):
        check_grid_invariants(result, grid, PLATFORM)
