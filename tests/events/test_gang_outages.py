"""Failures, maintenance windows and cancellations in gang (time-sharing) runs
(docs/reference/events.md, "Gang runs"): hand-checked schedules for each fate, a window,
cancellations and Strategy 3's express jobs; the invariants and determinism on random
workloads; failures that never come change no schedule; the command line and sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import schedlab
from schedlab import Job, Workload
from schedlab.cli.app import app
from schedlab.conformance import check_gang_window_notices
from schedlab.engine.result import MATRIX_CHANGE_KINDS
from schedlab.engine.timesharing import run_timesharing
from schedlab.errors import PolicyError
from schedlab.experiments import experiment_from_mapping, load_results, run_sweep
from schedlab.testing import check_invariants
from schedlab.workload.outages import Checkpointing, Failure, FailureSpec, Window
from strategies import workloads


def gang(**params):
    return schedlab.make_policy({"name": "gang", "slot": 10, **params})


#: 4 processors, slots of 10 s.  Jobs 1 and 2 (2 wide, 100 s) share row 0 on processors
#: 0-1 and 2-3; job 3 (4 wide, 50 s) arrives at 10 and opens row 1 at that boundary.  The
#: rounds serve row 0 from 10 to 20 and row 1 (job 3) from 20.  Node 0 fails at 30 for
#: 20 s: jobs 1 (20 s of service) and 3 (10 s) have a process on processor 0.
THREE = Workload(jobs=(Job(1, 0, 100, 200, 2), Job(2, 0, 100, 200, 2),
                       Job(3, 10, 50, 60, 4)), processors=4)
NODE_0_AT_30 = (Failure(30, (0,), 20),)


def failing(fate: str, **more) -> FailureSpec:
    return FailureSpec(replayed=NODE_0_AT_30, fate=fate, **more)


def test_killed_jobs_end_at_the_failure():
    """Both jobs on processor 0 fail at 30; job 2 keeps running alone from 30: 100 s of
    service by 110."""
    result = run_timesharing(THREE, gang(), failures=failing("kill"))
    check_invariants(result, THREE)
    assert result.start.tolist() == [0, 0, 20] and result.end.tolist() == [30, 110, 30]
    assert result.status_names() == ["failed", "finished", "failed"]
    assert result.timesharing.service.tolist() == [20, 100, 10]
    assert result.outages.attempts.tolist() == [[0, 0, 30, 0], [2, 20, 30, 0]]
    metrics = schedlab.compute_metrics(result)
    assert metrics["failed"] == 2 and metrics["jobs_hit"] == 2
    assert metrics["lost_work"] == 2 * 20 + 4 * 10      # service lost x width


def test_requeued_jobs_come_back_on_the_processors_in_service():
    """At 30 job 1 is placed again in a new row on processors 1-2 (0 is down); job 3 needs
    all four and waits for the repair at 50, then opens a third row.  Job 1's first slot
    is row 1's, 40-50; job 3's is 70-80, and it ends after five slots at 200; job 2 at
    230, job 1 alone at 260."""
    result = run_timesharing(THREE, gang(), failures=failing("requeue"))
    check_invariants(result, THREE)
    assert result.start.tolist() == [40, 0, 70] and result.end.tolist() == [260, 230, 200]
    assert result.status_names() == ["finished"] * 3
    assert result.timesharing.columns[0] == ((1, 3),)
    assert result.timesharing.placed.tolist() == [30, 0, 50]
    assert result.stats["requeued"] == 2
    assert result.outages.attempt_progress.tolist() == [20, 10]
    assert schedlab.compute_metrics(result)["lost_work"] == 80


def test_checkpointed_job_restarts_from_its_last_checkpoint():
    """Checkpoints every 10 s of work cost 2 s, a restart 3 s.  Job 1 had 20 s of service:
    10 s of work, a 2 s write, 8 s more; it restarts with 90 s of work left: 3 + 90 +
    8 x 2 = 109 s of service.  Job 3 kept nothing (10 s of service, no write done); it
    needs 3 + 50 + 4 x 2 = 61 s."""
    spec = failing("checkpoint", checkpointing=Checkpointing(cost=2, restart=3, interval=10))
    result = run_timesharing(THREE, gang(), failures=spec)
    check_invariants(result, THREE)
    assert result.outages.attempts.tolist() == [[0, 0, 30, 10], [2, 20, 30, 0]]
    assert result.timesharing.service.tolist() == [109, 118, 61]
    assert result.outages.final_runtime.tolist() == [109, 118, 61]
    assert result.start.tolist() == [40, 0, 70] and result.end.tolist() == [298, 279, 251]
    metrics = schedlab.compute_metrics(result)
    assert metrics["restarted"] == 2
    assert metrics["lost_work"] == 2 * (20 - 10) + 4 * 10


#: Job 1 (2 wide) runs alone from 0; job 2 (2 wide, 50 s) arrives at 20.  A window takes
#: two processors from 10 to 60.
TWO = Workload(jobs=(Job(1, 0, 100, 200, 2), Job(2, 20, 50, 100, 2)), processors=4)


def test_a_window_takes_the_free_columns_and_the_policy_keeps_off_them():
    """Without the window job 2 runs beside job 1 on processors 2-3 (ends 70 and 100).
    With it, processors 2-3 are held from 10 to 60: job 2 opens a second row on job 1's
    processors 0-1 and the two take turns; it keeps them after the window ends (a job
    keeps its processors): job 2 ends at 120, job 1 at 150."""
    free = run_timesharing(TWO, gang())
    assert free.start.tolist() == [0, 20] and free.end.tolist() == [100, 70]
    result = run_timesharing(TWO, gang(), windows=(Window(10, 10, 60, 2),))
    check_invariants(result, TWO)
    assert result.start.tolist() == [0, 30] and result.end.tolist() == [150, 120]
    assert result.timesharing.columns == (((0, 2),), ((0, 2),))
    assert [2, 4, 10, 60, -2] in result.outages.intervals.tolist()
    assert result.outages.series_down.tolist() == [0, 2, 0]
    metrics = schedlab.compute_metrics(result)
    assert metrics["maintenance_windows"] == 1
    assert metrics["availability"] == pytest.approx(1 - 2 * 50 / (4 * 150))


@pytest.mark.parametrize(("nodes", "ends", "held"), [
    ((0,), [100, 70], []),
    ((3,), [150, 120], [[3, 4, 10, 60, -2]]),
])
def test_a_window_on_named_nodes_takes_only_their_columns(nodes, ends, held):
    """On node 0, which job 1 holds until after the window, it takes nothing and job 2 runs
    beside job 1 as without it; on node 3 it takes that column from 10 to 60, so job 2
    cannot have processors 2-3 and opens a second row on 0-1."""
    result = run_timesharing(TWO, gang(), windows=(Window(10, 10, 60, None, node_ids=nodes),))
    check_invariants(result, TWO)
    assert result.end.tolist() == ends
    assert [row for row in result.outages.intervals.tolist() if row[4] == -2] == held


def test_a_window_never_stops_a_job():
    """Every column holds a job in some row: the window takes none and the schedule is the
    one without it."""
    result = run_timesharing(THREE, gang(), windows=(Window(20, 20, 80, 2),))
    check_invariants(result, THREE)
    plain = run_timesharing(THREE, gang())
    assert result.end.tolist() == plain.end.tolist()
    assert result.outages.outages.tolist() == [[1, 20, 80, 0]]


def test_cancelled_jobs_leave_the_matrix_then():
    """Job 3 is cancelled at 30 after its one slot (10 s of service), job 1 at 45 in the
    middle of row 0's slot (35 s): the slot is cut there; job 2 runs on alone to 110."""
    workload = Workload(jobs=(Job(1, 0, 100, 200, 2, cancel_after=45), Job(2, 0, 100, 200, 2),
                              Job(3, 10, 50, 60, 4, cancel_after=20)), processors=4)
    result = run_timesharing(workload, gang())
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 0, 20] and result.end.tolist() == [45, 110, 30]
    assert result.status_names() == ["cancelled", "finished", "cancelled"]
    assert result.timesharing.service.tolist() == [35, 100, 10]
    assert result.outages is None


def test_a_job_cancelled_while_waiting_is_withdrawn():
    """One row at most: job 2 waits behind job 1 and is withdrawn at 30."""
    workload = Workload(jobs=(Job(1, 0, 100, 200, 4), Job(2, 5, 50, 100, 4, cancel_after=25)),
                        processors=4)
    result = run_timesharing(workload, gang(slots=1))
    check_invariants(result, workload)
    assert result.status_names() == ["finished", "withdrawn"]
    assert result.start.tolist() == [0, -1] and result.end.tolist() == [100, -1]
    assert result.series_queue.tolist() == [0, 1, 0, 0]
    assert result.series_time.tolist() == [0, 5, 30, 100]


def test_an_express_job_never_crosses_a_failure():
    """Strategy 3: short job 2 (50 s) would start at 5 beside job 1 and end at 55; node 3
    fails at 30 for 10 s, so it waits, and at 30 (processors 2 only beside job 1's) runs
    in an express slot on 0-1, 30-80; job 3 follows at the boundary after the repair."""
    workload = Workload(jobs=(Job(1, 0, 100, 200, 2), Job(2, 5, 50, 100, 2),
                              Job(3, 25, 40, 100, 2)), processors=4)
    plain = run_timesharing(workload, gang(strategy=3))
    assert plain.start.tolist() == [0, 5, 55] and plain.end.tolist() == [100, 55, 95]
    spec = FailureSpec(replayed=(Failure(30, (3,), 10),), fate="requeue")
    result = run_timesharing(workload, gang(strategy=3), failures=spec)
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 30, 90] and result.end.tolist() == [150, 80, 130]
    assert result.timesharing.columns[1] == ((0, 2),)


def test_a_policy_may_not_place_on_a_processor_out_of_service():
    from schedlab.engine.timesharing import Matrix

    matrix = Matrix(4, "test")
    matrix.usable = 0b1110
    with pytest.raises(PolicyError, match="out of service"):
        matrix.place(Job(1, 0, 10, 10, 2), 0, 0b0011)
    matrix.place(Job(1, 0, 10, 10, 2), 0, 0b0110)


# ------------------------------------------------------------------ random workloads
@st.composite
def events(draw, workload: Workload):
    """Failures (replayed), a window (announced at or before its start) and cancellations
    against ``workload``."""
    last = max(job.submit for job in workload.jobs) + 200
    failures = []
    for node in draw(st.lists(st.integers(0, workload.processors - 1), max_size=3,
                              unique=True)):
        failures.append(Failure(draw(st.integers(0, last)), (node,),
                                draw(st.integers(1, 60))))
    windows = ()
    if draw(st.booleans()):
        start = draw(st.integers(0, last))
        windows = (Window(draw(st.integers(0, start)), start,
                          start + draw(st.integers(1, 100)),
                          draw(st.integers(1, workload.processors))),)
    fate = draw(st.sampled_from(["kill", "requeue", "checkpoint"]))
    order = draw(st.sampled_from(["arrival", "back"]))
    more = {"requeue_order": order} if fate != "kill" else {}
    if fate == "checkpoint":
        more["checkpointing"] = Checkpointing(cost=draw(st.integers(0, 3)),
                                              restart=draw(st.integers(0, 3)),
                                              interval=draw(st.integers(1, 20)))
    delays = draw(st.lists(st.one_of(st.none(), st.integers(0, 80)),
                           min_size=len(workload.jobs), max_size=len(workload.jobs)))
    jobs = tuple(job._replace(cancel_after=delay) for job, delay in zip(workload.jobs, delays))
    spec = FailureSpec(replayed=tuple(failures), fate=fate, **more) if failures else None
    return Workload(jobs, workload.processors, name=workload.name), spec, windows


@st.composite
def workloads_with_events(draw, max_jobs: int, max_processors: int):
    """A random workload of up to ``max_jobs`` jobs on 1 to ``max_processors`` processors,
    with :func:`events` against it: ``(workload, failure spec, windows)``."""
    workload = draw(workloads(max_jobs=max_jobs,
                              processors=draw(st.integers(1, max_processors))))
    return draw(events(workload))


GANGS = [{}, {"strategy": 2, "short": 10, "long": 30}, {"strategy": 3, "short": 20, "long": 40},
         {"strategy": 3, "short": 20, "express_start": "next-slot", "switchable": False},
         {"backfill": "reservation", "slots": 2, "context_switch": 1},
         {"packing": "first-fit", "backfill": "none", "slots": 3}]


@pytest.mark.parametrize("params", GANGS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_events_keep_the_invariants_and_rerun_identically(params, data):
    workload, spec, windows = data.draw(workloads_with_events(12, 6))
    for overrun in ("kill", "extend"):
        first = run_timesharing(workload, gang(**params), failures=spec, windows=windows,
                                overrun=overrun)
        check_invariants(first, workload, overrun=overrun)
        check_gang_window_notices(first)
        again = run_timesharing(workload, gang(**params), failures=spec, windows=windows,
                                overrun=overrun)
        assert first.start.tolist() == again.start.tolist()
        assert first.end.tolist() == again.end.tolist()
        assert first.status.tolist() == again.status.tolist()


@pytest.mark.parametrize("params", GANGS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_failures_that_never_come_change_no_schedule(params, data):
    """Failures and windows after the last job has ended: the schedule, the matrix's
    changes and the series are the run's without them."""
    workload = data.draw(workloads(max_jobs=12, processors=data.draw(st.integers(1, 6))))
    plain = run_timesharing(workload, gang(**params))
    after = int(plain.end.max()) + data.draw(st.integers(1, 1000))
    spec = FailureSpec(replayed=(Failure(after, (0,), 10),),
                       fate=data.draw(st.sampled_from(["kill", "requeue", "checkpoint"])))
    if spec.fate == "checkpoint":                # checkpoints lengthen every job: no writes
        spec = FailureSpec(replayed=spec.replayed, fate="checkpoint",
                           checkpointing=Checkpointing(interval=10**6))
    windows = (Window(after, after + 5, after + 50, 1),)
    result = run_timesharing(workload, gang(**params), failures=spec, windows=windows)
    check_invariants(result, workload)
    assert result.start.tolist() == plain.start.tolist()
    assert result.end.tolist() == plain.end.tolist()
    trace, base = result.timesharing, plain.timesharing
    assert trace.change_time.tolist() == base.change_time.tolist()
    assert trace.change_kind.tolist() == base.change_kind.tolist()
    assert trace.change_job.tolist() == base.change_job.tolist()
    assert result.series_busy.tolist() == plain.series_busy.tolist()


def test_the_conformance_cases_put_gang_through_failures_and_a_window():
    from schedlab.testing import check_policy

    check_policy(gang())
    check_policy(gang(strategy=3))


# ------------------------------------------------------------------ command line and sweeps
FAILURES = "time,nodes,duration\n15,0,30\n"
WINDOWS = "notice,start,end,nodes\n0,100,200,2\n"
SWF = """\
; MaxProcs: 4
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1
2 10 40 -1 4 -1 -1 4 50 -1 5 1 1 -1 1 -1 -1 -1
3 20 5 20 2 -1 -1 2 60 -1 5 2 1 -1 1 -1 -1 -1
4 30 0 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1
"""


def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = tmp_path / "trace.swf", tmp_path / "failures.csv", tmp_path / "maintenance.csv"
    for path, text in zip(paths, (SWF, FAILURES, WINDOWS)):
        path.write_text(text)
    return paths


def test_the_command_line_runs_gang_with_every_event(tmp_path: Path):
    trace, failures, windows = files(tmp_path)
    out = tmp_path / "out"
    done = CliRunner().invoke(app, [
        "simulate", str(trace), "--policy", "gang", "--failures",
        f"{failures},fate=requeue", "--maintenance", str(windows), "--cancellations",
        "replay", "--out", str(out)])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "1 failures, 1 maintenance windows or drains" in text
    meta = json.loads((out / "metrics.json").read_text())
    assert meta["meta"]["outages"]["fate"] == "requeue"
    assert meta["metrics"]["requeued"] >= 1
    processors = (out / "processors.csv").read_text()
    assert "failure" in processors and "window" in processors
    # job 1 (processors 0-1) is placed at 0 and hit at 15; it is placed again at 15, on
    # 2-3: it would run into the window announced at 0, whose processors are 0-1
    assert "ended attempt,1,0,2,0,15" in processors and "job,1,2,2,15," in processors
    assert (out / "matrix.csv").is_file()


@pytest.mark.parametrize(("args", "message"), [
    (["--failures", "mtbf=0"], "field --failures mtbf: expected a duration > 0"),
    (["--failures", "nodes.csv"], "nodes.csv:2: field nodes: node 9 does not exist"),
    (["--maintenance", "bad.csv"], "bad.csv:2: field end: the window ends (5)"),
])
def test_bad_event_input_on_a_gang_run_exits_2_in_one_line(tmp_path: Path, args, message):
    trace, _, _ = files(tmp_path)
    (tmp_path / "nodes.csv").write_text("time,nodes,duration\n10,9,5\n")
    (tmp_path / "bad.csv").write_text("start,end,nodes\n10,5,1\n")
    args = [arg if arg.startswith(("--", "mtbf")) else str(tmp_path / arg) for arg in args]
    done = CliRunner().invoke(app, ["simulate", str(trace), "--policy", "gang", *args])
    assert done.exit_code == 2, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert message in lines[-1] and "Traceback" not in done.output   # after the summary


def test_a_sweep_runs_gang_policies_with_failures_and_windows(tmp_path: Path):
    trace, _, _ = files(tmp_path)
    mapping = {"workloads": [str(trace)],
               "policies": ["gang", {"name": "gang", "params": {"strategy": 3}}],
               "failures": ["none", "failures.csv,fate=kill"], "maintenance": "maintenance.csv"}
    run_sweep(experiment_from_mapping(mapping, base_dir=tmp_path), tmp_path / "out",
              executor="serial")
    frame = load_results(tmp_path / "out")
    assert list(frame["status"]) == ["finished"] * 4
    failing_runs = frame[frame["outages.failures"] == "failures.csv,fate=kill"]
    assert list(failing_runs["failures"]) == [1, 1]
    # without the failure the jobs still run at 100, when the window starts
    assert list(frame[frame["outages.failures"] == "none"]["maintenance_windows"]) == [1, 1]


def test_the_python_api_runs_gang_with_drawn_failures_deterministically():
    """schedlab.simulate takes the --failures text for a gang policy: drawn failures seeded
    by the run's seed, identical on a second run."""
    first = schedlab.simulate(THREE, "gang", failures="mtbf=300,repair=20,fate=requeue",
                              seed=3)
    check_invariants(first, THREE)
    again = schedlab.simulate(THREE, "gang", failures="mtbf=300,repair=20,fate=requeue",
                              seed=3)
    assert first.end.tolist() == again.end.tolist()
    metrics = schedlab.compute_metrics(first)
    assert metrics["failures"] >= 1
    assert metrics["requeued"] + metrics["failed"] == metrics["jobs_hit"] >= 1
    assert first.meta["outages"]["model"]["mtbf"] == 300


# ------------------------------------------------------------------ a window's notice
#: Job 1 (2 wide, 100 s, estimate 200) and job 2 (2 wide, 30 s, estimate 40) at 0 on 4
#: processors; a window of processors 0-1 from 50 to 100, announced at 0.
NOTICED = Workload(jobs=(Job(1, 0, 100, 200, 2), Job(2, 0, 30, 40, 2)), processors=4)


@pytest.mark.parametrize("window", [Window(0, 50, 100, None, node_ids=(0, 1)),
                                    Window(0, 50, 100, 2)],
                         ids=["named nodes", "a count fixed at the notice"])
def test_no_job_is_placed_on_columns_a_noticed_window_takes_before_it_ends(window):
    """Job 1 would run into the window on processors 0-1 (0 + 200 x 1 row > 50): it takes
    2-3; job 2 ends by its estimate before it (0 + 40 <= 50) and takes 0-1 beside it.
    The window takes 0-1, free since 30.  A count announced early takes the
    lowest-numbered processors, fixed at its notice.  Without the window job 1 takes
    0-1 and job 2 2-3."""
    result = run_timesharing(NOTICED, gang(), windows=(window,))
    check_invariants(result, NOTICED)
    check_gang_window_notices(result)
    assert result.start.tolist() == [0, 0] and result.end.tolist() == [100, 30]
    assert result.timesharing.columns == (((2, 4),), ((0, 2),))
    assert result.outages.notices.tolist() == [[0, 2, 0, 50, 100]]
    assert [0, 2, 50, 100, -2] in result.outages.intervals.tolist()
    plain = run_timesharing(NOTICED, gang())
    assert plain.timesharing.columns == (((0, 2),), ((2, 4),))


def test_an_express_job_on_a_rows_free_processors_is_not_held_to_the_notice():
    """Strategy 3 on 2 processors, a window of processor 0 from 1 to 2 announced at 0.
    Job 1 (2 wide, short) takes the express slot at 0; job 2 (long, 1 wide) enters row 0
    on processor 1, away from the window; job 3 (short, 1 wide, estimate 2, runtime 0) is
    an express job packed on row 0's free processor 0 at 0, as express jobs are, windows
    ahead or not.  The check of the window's notice leaves it out: it is an express job
    though its row is the matrix's own (logged ``express`` in row 0)."""
    workload = Workload(jobs=(Job(1, 0, 0, 1, 2), Job(2, 0, 41, 41, 1), Job(3, 0, 0, 2, 1)),
                        processors=2)
    windows = (Window(0, 1, 2, 1),)
    result = run_timesharing(workload, gang(strategy=3, short=20, long=40), windows=windows)
    check_invariants(result, workload)
    check_gang_window_notices(result)
    trace = result.timesharing
    assert result.start.tolist() == [0, 0, 0] and result.end.tolist() == [0, 41, 0]
    assert trace.columns == (((0, 2),), ((1, 2),), ((0, 1),))
    express = MATRIX_CHANGE_KINDS.index("express")
    assert (3, 0) in zip(trace.change_job[trace.change_kind == express].tolist(),
                         trace.change_row[trace.change_kind == express].tolist())


def test_a_job_opening_a_row_counts_it_in_its_predicted_end():
    """Job 1 (4 wide, estimate 200) fills row 0; job 2 (2 wide, estimate 200) opens row 1:
    with 2 rows it is predicted to end at 400, after the start (300) of the window on
    processors 0-1, so it takes 2-3.  The rows take turns: job 1 ends at 190, job 2 at
    200."""
    workload = Workload(jobs=(Job(1, 0, 100, 200, 4), Job(2, 0, 100, 200, 2)), processors=4)
    windows = (Window(0, 300, 400, None, node_ids=(0, 1)),)
    result = run_timesharing(workload, gang(), windows=windows)
    check_invariants(result, workload)
    assert result.start.tolist() == [0, 10] and result.end.tolist() == [190, 200]
    assert result.timesharing.columns == (((0, 4),), ((2, 4),))
    plain = run_timesharing(workload, gang())
    assert plain.timesharing.columns == (((0, 4),), ((0, 2),))


def test_the_head_reservation_looks_ahead_to_a_noticed_window():
    """One row.  Job 1 (2 wide, 50 s) takes processors 0-1; job 2 (4 wide) is the head:
    at 50 it would run into the window on 0-1 (60 to 200), so its reservation is the
    window's end, 200.  Job 3 (2 wide, 100 s) ends by then and is backfilled on 2-3 at 0.
    Without the window the head's reservation is 50, job 3 would delay it and waits:
    job 2 runs 50 to 150, job 3 150 to 250."""
    workload = Workload(jobs=(Job(1, 0, 50, 50, 2), Job(2, 0, 100, 100, 4),
                              Job(3, 0, 100, 100, 2)), processors=4)
    windows = (Window(0, 60, 200, None, node_ids=(0, 1)),)
    policy = {"backfill": "reservation", "slots": 1}
    result = run_timesharing(workload, gang(**policy), windows=windows)
    check_invariants(result, workload)
    check_gang_window_notices(result)
    assert result.start.tolist() == [0, 200, 0] and result.end.tolist() == [50, 300, 100]
    plain = run_timesharing(workload, gang(**policy))
    assert plain.start.tolist() == [0, 50, 150] and plain.end.tolist() == [50, 150, 250]
