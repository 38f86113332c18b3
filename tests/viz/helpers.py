"""Shared pieces of the figure and report tests.

``SMALL_JOBS`` is the hand-worked trace of tests/cli/test_cli.py (4
processors).  Its fcfs+easy schedule, worked out there by hand (Streit
2002, §2): job 1 runs 0-100 on 2 processors; job 2 (4 wide) waits for the
reservation at job 1's estimated end and starts at 120 when job 3 is killed
at its estimate; jobs 3 (1 wide, 20-120) and 4 (1 wide, 30-50) backfill at
once.

Its series, by hand (busy processors / waiting jobs after each instant):

    t:     0   10   20   30   50  100  120  170
    busy:  2    2    3    4    3    1    4    0
    queue: 0    1    1    1    1    1    0    0
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import schedlab
from schedlab.engine.result import Result
from schedlab.workload.job import Job, Workload

#: (id, submit, runtime, estimate, width)
SMALL_JOBS = ((1, 0, 100, 200, 2), (2, 10, 50, 100, 4), (3, 20, 300, 100, 1), (4, 30, 20, 40, 1))
EASY_STARTS = [0, 120, 20, 30]
EASY_ENDS = [100, 170, 120, 50]
SERIES_TIME = [0, 10, 20, 30, 50, 100, 120, 170]
SERIES_BUSY = [2, 2, 3, 4, 3, 1, 4, 0]
SERIES_QUEUE = [0, 1, 1, 1, 1, 1, 0, 0]

SMALL_SWF = """\
; Version: 2.2
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 -1 300 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
4 30 -1 20 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1
"""

#: The small trace plus a fifth record with runtime -1, which a strict reader refuses
#: (file line 7).
BROKEN_SWF = SMALL_SWF + "5 40 -1 -1 1 -1 -1 1 40 -1 1 3 1 -1 1 -1 -1 -1\n"

#: Two policies on the small trace (machine size from its header: 4) and on the
#: broken one, where both runs fail.
SMALL_EXPERIMENT = """\
name = "small <report>"
description = "Two policies & a broken trace"
[[workloads]]
source = "small.swf"
[[workloads]]
source = "broken.swf"
strict = true
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "fcfs"
"""

#: A sweep over shrinking factors and seeds of the built-in model: 8 short runs.
SWEEP_EXPERIMENT = """\
name = "sweep"
seeds = [0, 1]
[[workloads]]
source = "lublin"
jobs = 150
[transforms]
shrink = [1.0, 0.8]
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "sjf+easy"
"""


def small_workload() -> Workload:
    """The hand-worked trace as a Workload on 4 processors."""
    jobs = tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w)
                 for i, s, r, e, w in SMALL_JOBS)
    return Workload(jobs=jobs, processors=4, name="small")


def small_result(policy: str = "fcfs+easy") -> Result:
    """The small trace simulated (fcfs+easy gives the schedule of the module docstring)."""
    return schedlab.simulate(small_workload(), policy)


def jobs_frame(rows: list[tuple]) -> pd.DataFrame:
    """A jobs table with the columns a Gantt chart and a series need.

    ``rows`` are (job_id, submit, start, end, width, status); start and end
    are None for a rejected job.
    """
    return pd.DataFrame(rows, columns=["job_id", "submit", "start", "end", "width", "status"])


def sweep(text: str, directory: Path, name: str = "exp") -> Path:
    """Run an experiment file serially into ``directory / name`` and return that directory.

    small.swf and broken.swf are written beside the file for experiments that use them.
    """
    from schedlab.experiments import run_sweep

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "small.swf").write_text(SMALL_SWF)
    (directory / "broken.swf").write_text(BROKEN_SWF)
    spec = directory / f"{name}.toml"
    spec.write_text(text)
    exp_dir = directory / name
    run_sweep(spec, exp_dir, executor="serial")
    return exp_dir
