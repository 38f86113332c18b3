"""Users' cancellations (docs/reference/events.md): SWF status 5 read three ways, a job
cancelled while waiting leaves the queue, one cancelled while running leaves the machine,
on every space-sharing policy, with the invariants on random workloads."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import schedlab
from schedlab import Job, Workload
from schedlab.cli.app import app
from schedlab.engine.simulator import run
from schedlab.testing import check_invariants
from schedlab.workload.swf import read_swf
from strategies import workloads

#: 4 processors.  Job 1 runs 0-100.  Job 2 (4 wide) is cancelled at 10 + 40 = 50 while it
#: waits; job 3 (2 wide, 30 s) then starts when job 1 ends, at 100, not behind job 2 at
#: 150.  Job 4 (4 wide, as long as job 3: every ordering starts job 3 first) is cancelled
#: at 30 + 100 = 130, the instant job 3 ends, before the pass: it never starts.  Job 5
#: starts at 200 and is cancelled running at 250.
#: Job 6 is cancelled at its submission: no policy sees it.
#: (id, submit, runtime, estimate, width, cancel_after)
ROWS = ((1, 0, 100, 100, 4, None), (2, 10, 50, 50, 4, 40), (3, 20, 30, 30, 2, None),
        (4, 30, 30, 30, 4, 100), (5, 200, 300, 400, 1, 50), (6, 300, 10, 10, 1, 0))
STARTS = [0, -1, 100, -1, 200, -1]
ENDS = [100, -1, 130, -1, 250, -1]
STATUSES = ["finished", "withdrawn", "finished", "withdrawn", "cancelled", "withdrawn"]


def cancelled_workload() -> Workload:
    return Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w,
                                   cancel_after=c) for i, s, r, e, w, c in ROWS), processors=4)


SPACE_SHARING = sorted(name for name, entry in schedlab.available_policies().items()
                       if not entry.time_sharing)


@pytest.mark.parametrize("policy", SPACE_SHARING)
def test_every_space_sharing_policy_replays_the_cancellations(policy):
    workload = cancelled_workload()
    result = run(workload, schedlab.make_policy(policy))
    check_invariants(result, workload)
    assert result.start.tolist() == STARTS and result.end.tolist() == ENDS
    assert result.status_names() == STATUSES
    metrics = schedlab.compute_metrics(result)
    assert (metrics["cancelled"], metrics["withdrawn"], metrics["jobs"]) == (1, 3, 6)


def test_conservative_moves_the_jobs_behind_a_withdrawn_one_up():
    """Job 3 was first booked at 150, behind job 2; job 2's withdrawal at 50 gives its
    booking back and job 3 moves up to 100."""
    result = run(cancelled_workload(), schedlab.make_policy("fcfs+conservative"))
    assert result.planned_start.tolist()[2] == 150 and result.start.tolist()[2] == 100


def test_without_cancellations_no_job_is_cancelled_and_no_metric_appears():
    plain = Workload(jobs=tuple(j._replace(cancel_after=None) for j in cancelled_workload().jobs),
                     processors=4)
    result = run(plain, schedlab.make_policy("fcfs+easy"))
    assert result.cancel_after is None and "cancelled" not in schedlab.compute_metrics(result)
    # job 2 100-150, job 3 150-180, job 4 180-210, job 5 at 210, job 6 beside it at 300
    assert result.start.tolist() == [0, 100, 150, 180, 210, 300]


#: An SWF with two cancelled records (status 5): job 2 waited 40 s and never ran (run
#: time -1), job 3 waited 5 s and ran 20 s before it was cancelled.  Simulated, job 1
#: holds 2 of the 4 processors 0-100: job 2 (4 wide) waits until it is cancelled at 50,
#: job 3 (2 wide) starts at 20 and is cancelled running at 20 + 25.
SWF = """\
; MaxProcs: 4
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1
2 10 40 -1 4 -1 -1 4 50 -1 5 1 1 -1 1 -1 -1 -1
3 20 5 20 2 -1 -1 2 60 -1 5 2 1 -1 1 -1 -1 -1
"""


def test_cancelled_records_are_ignored_replayed_or_dropped(tmp_path: Path):
    path = tmp_path / "c.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode()))
    ignored = read_swf(path)
    assert [j.id for j in ignored.jobs] == [1, 3] and ignored.skipped["runtime < 0"] == 1
    assert all(j.cancel_after is None for j in ignored.jobs)
    replayed = read_swf(path, cancellations="replay")
    # cancelled wait + run time after submission; they run until then or their estimate
    assert [(j.id, j.runtime, j.cancel_after) for j in replayed.jobs] == [
        (1, 100, None), (2, 50, 40), (3, 60, 25)]
    assert replayed.skipped["runtime < 0"] == 0
    dropped = read_swf(path, cancellations="drop")
    assert [j.id for j in dropped.jobs] == [1] and dropped.skipped["cancelled"] == 2
    result = schedlab.simulate(replayed, "fcfs+easy")
    assert result.status_names() == ["finished", "withdrawn", "cancelled"]
    assert result.start.tolist() == [0, -1, 20] and result.end.tolist() == [100, -1, 45]
    with pytest.raises(schedlab.InputError, match="'cancellations' parameter"):
        read_swf(path, cancellations="keep")


def test_the_command_line_replays_and_says_so(tmp_path: Path):
    path = tmp_path / "c.swf"
    path.write_text(SWF)
    done = CliRunner().invoke(app, ["simulate", str(path), "--cancellations", "replay"])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "2 cancellations replayed" in text
    assert "│ cancelled │ 1 │" in text and "│ withdrawn │ 1 │" in text
    gang = CliRunner().invoke(app, ["simulate", str(path), "--cancellations", "replay",
                                    "--policy", "gang"])
    assert gang.exit_code == 0, gang.output
    text = " ".join(gang.output.split())       # gang time-shares: job 2 runs from 11
    assert "│ cancelled │ 2 │" in text and "│ withdrawn │ 0 │" in text


# ------------------------------------------------------------------ random workloads
@pytest.mark.parametrize("policy", SPACE_SHARING)
@given(workload=workloads(), delays=st.lists(st.one_of(st.none(), st.integers(0, 60)),
                                             min_size=1, max_size=8))
def test_cancellations_keep_the_invariants_and_rerun_identically(policy, workload, delays):
    jobs = tuple(job._replace(cancel_after=delays[k % len(delays)])
                 for k, job in enumerate(workload.jobs))
    cancelling = Workload(jobs=jobs, processors=workload.processors)
    first = run(cancelling, schedlab.make_policy(policy))
    check_invariants(first, cancelling)
    second = run(cancelling, schedlab.make_policy(policy))
    assert np.array_equal(first.start, second.start) and np.array_equal(first.end, second.end)
    assert np.array_equal(first.status, second.status)


def test_the_gantt_chart_draws_a_cancelled_job_and_no_withdrawn_one():
    from schedlab.api import jobs_frame
    from schedlab.viz.gantt import gantt_figure

    figure = gantt_figure(jobs_frame(run(cancelled_workload(),
                                         schedlab.make_policy("fcfs+easy"))), 4)
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend[:2] == ["finished (2)", "cancelled (1)"]
    assert figure.legends[0].get_title().get_text() == "3 jobs"
