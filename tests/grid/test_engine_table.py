"""A grid run is an entry of the execution model table: a RunSpec with a platform runs the
grid engine through schedlab.execution.execute, as simulate_grid and ``simulate --platform``
do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab.engine.grid import run_grid
from schedlab.engine.policy import GRID
from schedlab.errors import InputError
from schedlab.execution import MODELS, execute
from schedlab.policies.grid import make_dispatcher, make_local_policy
from schedlab.run import RunSpec
from schedlab.workload.models import generate_builtin

from .helpers import grid_workload, two_clusters


def test_the_grid_model_is_in_the_table_and_chosen_by_the_platform():
    assert MODELS[GRID].chosen_by == "platform"


def test_a_run_description_with_a_platform_runs_the_grid_engine():
    """Two clusters, least-work dispatch: execute gives run_grid's schedule and records
    the platform; the local policy is a fresh instance per cluster."""
    rows = [(0, 100, 100, 4, ("A",), 100), (0, 50, 60, 8, (), 100), (10, 30, 30, 2, (), 100),
            (20, 80, 90, 4, ("A",), 100), (25, 10, 10, 8, (), 100)]
    platform = two_clusters()
    result = execute(RunSpec(grid_workload(rows), "bf-fcfs", platform=platform,
                             dispatch="least-work"))
    expected = run_grid(grid_workload(rows), platform,
                        [make_local_policy("bf-fcfs"), make_local_policy("bf-fcfs")],
                        make_dispatcher("least-work"))
    assert make_local_policy("bf-fcfs").execution_model == GRID
    assert np.array_equal(result.start, expected.start)
    assert np.array_equal(result.grid.machine, expected.grid.machine)
    assert result.meta["platform"] == {"name": "two"}


def test_a_grid_run_description_refuses_what_the_grid_engine_does_not_take():
    grid = grid_workload([(0, 10, 10, 2, (), 100)])
    with pytest.raises(InputError, match="'fcfs' is not a grid policy"):
        execute(RunSpec(grid, "fcfs", platform=two_clusters()))
    for policy in ("bf-fcfs", "BF_FCFS", {"name": "bf-fcfs"}, make_local_policy("bf-fcfs")):
        with pytest.raises(InputError, match="is a grid policy: it needs a platform"):
            execute(RunSpec(generate_builtin("lublin", n_jobs=20), policy))
    with pytest.raises(InputError, match="a grid run takes no tick: it reads the workload"):
        execute(RunSpec(grid, "bf-fcfs", platform=two_clusters(), tick=60))
    with pytest.raises(InputError, match="a grid run takes no reservations"):
        execute(RunSpec(grid, "bf-fcfs", platform=two_clusters(), reservations=()))
    with pytest.raises(InputError, match="takes no jobs"):
        execute(RunSpec(grid, "bf-fcfs", platform=two_clusters(), jobs=1))


def test_a_space_sharing_run_does_not_load_the_grid_policies():
    """A run of a space-sharing policy, by name or mapping, decides it is no grid policy
    without importing the grid package."""
    code = ("from schedlab.execution import execute\n"
            "from schedlab.run import RunSpec\n"
            "from schedlab.workload.models import generate_builtin\n"
            "for policy in ('fcfs+easy', {'name': 'conservative'}):\n"
            "    execute(RunSpec(generate_builtin('lublin', n_jobs=20), policy))\n")
    assert not imported_after(code, "schedlab.policies.grid")


def test_a_grid_run_of_the_local_policies_does_not_import_scipy_optimize():
    """scipy.optimize (about half a second of a process) is imported only by the
    convergent scheduling pass's exact solvers, at their first call: a run of the other
    local policies never loads it (numba, when it compiles, loads scipy's core alone)."""
    code = ("import sys\n"
            "from schedlab.execution import execute\n"
            "from schedlab.run import RunSpec\n"
            f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            "from helpers import grid_workload, two_clusters\n"
            "rows = [(0, 100, 100, 4, ('A',), 100), (10, 30, 30, 2, (), 100)]\n"
            "for policy in ('grid-fcfs', 'bf-fcfs', 'bf-unmod', 'bf-mod', 'grid-edf'):\n"
            "    execute(RunSpec(grid_workload(rows), policy, platform=two_clusters(),\n"
            "                    dispatch='round-robin'))\n")
    assert not imported_after(code, "scipy.optimize")


def imported_after(code: str, module: str) -> bool:
    """Whether a fresh interpreter running ``code`` has imported ``module``."""
    check = f"{code}import sys\nprint({module!r} in sys.modules)\n"
    ran = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         check=True)
    return ran.stdout.strip() == "True"
