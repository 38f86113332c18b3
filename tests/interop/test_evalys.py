"""Batsim/evalys ``out_jobs.csv`` export and ``schedlab export`` (docs/how-to/interop.md).

The hand-made schedule ``SCHEDULE`` (4 processors) and its export, worked out
by the rules of ``processor_allocation`` (ends, then zero-second jobs, then
starts; first contiguous fit, else lowest free ids):

    id 1  submit 0  runs  0-10  width 2  -> 0-1
    id 2  submit 0  runs  0-20  width 1  -> 2          (free now: 3)
    id 3  submit 2  runs 10-40  width 3, killed at its estimate 30
          at 10 job 1 frees 0-1: free = {0, 1, 3}, no block of 3 -> "0-1 3"
    id 4  submit 3  rejected                          -> empty columns
    id 5  submit 40 runs 40-40  width 4  (zero seconds) -> 0-3, given back at once
    id 6  submit 40 runs 40-50  width 4  -> 0-3       (job 3 ended at 40)

stretch = turnaround / execution: job 3: 38 / 30 = 1.266667; job 5: 0 / 0 = nan.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.engine.result import FINISHED, KILLED, REJECTED, Result
from schedlab.errors import InputError
from schedlab.interop import (
    BATSIM_JOB_COLUMNS,
    evalys_jobs_csv_text,
    interval_set_text,
    load_run,
    processor_allocation,
)

SMALL_SWF = Path(__file__).parents[1] / "workload" / "data" / "small.swf"


def _ints(values):
    return np.array(values, dtype=np.int64)


def _result(workload: str = "w") -> Result:
    return Result(
        processors=4, policy="hand", workload=workload,
        job_id=_ints([1, 2, 3, 4, 5, 6]), submit=_ints([0, 0, 2, 3, 40, 40]),
        start=_ints([0, 0, 10, -1, 40, 40]), end=_ints([10, 20, 40, -1, 40, 50]),
        width=_ints([2, 1, 3, 2, 4, 4]), estimate=_ints([10, 20, 30, 5, 1, 10]),
        runtime=_ints([10, 20, 50, 5, 0, 10]),
        status=_ints([FINISHED, FINISHED, KILLED, REJECTED, FINISHED, FINISHED]),
        planned_start=_ints([-1] * 6), series_time=_ints([]), series_busy=_ints([]),
        series_queue=_ints([]))


EXPECTED = """\
job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,\
success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,\
stretch,allocated_resources,consumed_energy,metadata
1,w,delay,0.000000,2,10.000000,1,COMPLETED_SUCCESSFULLY,0.000000,10.000000,10.000000,\
0.000000,10.000000,1.000000,0-1,-1.000000,""
2,w,delay,0.000000,1,20.000000,1,COMPLETED_SUCCESSFULLY,0.000000,20.000000,20.000000,\
0.000000,20.000000,1.000000,2,-1.000000,""
3,w,delay,2.000000,3,30.000000,0,COMPLETED_WALLTIME_REACHED,10.000000,30.000000,40.000000,\
8.000000,38.000000,1.266667,0-1 3,-1.000000,""
4,w,delay,3.000000,2,5.000000,0,REJECTED,,,,,,,,,""
5,w,delay,40.000000,4,1.000000,1,COMPLETED_SUCCESSFULLY,40.000000,0.000000,40.000000,\
0.000000,0.000000,nan,0-3,-1.000000,""
6,w,delay,40.000000,4,10.000000,1,COMPLETED_SUCCESSFULLY,40.000000,10.000000,50.000000,\
0.000000,10.000000,1.000000,0-3,-1.000000,""
"""


def test_export_matches_the_hand_worked_batsim_rows():
    assert evalys_jobs_csv_text(_result()) == EXPECTED


def test_columns_are_batsims_in_its_writer_order():
    assert BATSIM_JOB_COLUMNS == (
        "job_id", "workload_name", "profile", "submission_time",
        "requested_number_of_resources", "requested_time", "success", "final_state",
        "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
        "stretch", "allocated_resources", "consumed_energy", "metadata")


def test_a_workload_name_with_a_comma_is_quoted():
    line = evalys_jobs_csv_text(_result('a,"b"')).splitlines()[1]
    assert line.startswith('1,"a,""b""",delay,')


def test_interval_sets_are_canonical():
    assert interval_set_text([(0, 3), (5, 5), (7, 9)]) == "0-3 5 7-9"
    assert interval_set_text([]) == ""


def test_an_over_full_schedule_is_reported():
    result = _result()
    result.width[1] = 3   # jobs 1 and 2 would need 5 of 4 processors at time 0
    with pytest.raises(InputError, match=r"more than 4 processors at time 0 \(job 2 needs 3\)"):
        processor_allocation(result)


def test_a_real_schedule_never_gives_a_processor_to_two_jobs_at_once():
    import schedlab
    from schedlab.workload.models import generate_builtin

    workload = generate_builtin("lublin", n_jobs=400, processors=64, seed=3)
    result = schedlab.simulate(workload, "fcfs+easy")
    allocation = processor_allocation(result)
    busy: dict[int, list[tuple[int, int]]] = {}
    for k, pieces in enumerate(allocation):
        ids = [p for low, high in pieces for p in range(low, high + 1)]
        assert len(ids) == len(set(ids)) == result.width[k]
        assert all(0 <= p < 64 for p in ids)
        if result.end[k] > result.start[k]:
            for p in ids:
                busy.setdefault(p, []).append((int(result.start[k]), int(result.end[k])))
    for spans in busy.values():
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))


@pytest.mark.filterwarnings("ignore:The inplace keyword")   # evalys's own pandas call
def test_evalys_reads_the_export(tmp_path):
    jobset = pytest.importorskip("evalys.jobset")
    path = tmp_path / "out_jobs.csv"
    path.write_text(evalys_jobs_csv_text(_result()))
    js = jobset.JobSet.from_csv(str(path))
    assert js.MaxProcs == 4
    assert list(js.df.jobID) == ["1", "2", "3", "4", "5", "6"]
    assert [str(p) for p in js.df.allocated_resources] == ["0-1", "2", "0-1 3", "", "0-3",
                                                           "0-3"]
    assert list(js.df.proc_alloc) == [2, 1, 3, 0, 4, 4]
    assert list(js.utilisation["load"]) == [3, 4, 3, 4, 0]


# --------------------------------------------------------------------------- CLI and runs


def test_cli_exports_a_simulated_run_directory(tmp_path):
    runner = CliRunner()
    run = tmp_path / "run"
    assert runner.invoke(app, ["simulate", str(SMALL_SWF), "--out", str(run)]).exit_code == 0
    done = runner.invoke(app, ["export", str(run), "--format", "evalys"])
    assert done.exit_code == 0, done.output
    lines = (run / "out_jobs.csv").read_text().splitlines()
    assert lines[0] == ",".join(BATSIM_JOB_COLUMNS)
    # small.swf on 8 processors (see tests/workload/test_swf.py): job 7 is killed at 600 s;
    # job 6 runs zero seconds at 100 and job 7 (8 wide) starts then on all 8 processors.
    assert lines[3] == ("6,small,delay,30.000000,6,1.000000,1,COMPLETED_SUCCESSFULLY,"
                        "100.000000,0.000000,100.000000,70.000000,70.000000,inf,0-5,"
                        "-1.000000,\"\"")
    assert lines[4] == ("7,small,delay,30.000000,8,600.000000,0,COMPLETED_WALLTIME_REACHED,"
                        "100.000000,600.000000,700.000000,70.000000,670.000000,1.116667,0-7,"
                        "-1.000000,\"\"")
    again = runner.invoke(app, ["export", str(run / "jobs.csv"), "-o", str(tmp_path / "x.csv")])
    assert again.exit_code == 0 and (tmp_path / "x.csv").read_text().splitlines() == lines


def test_cli_export_needs_the_machine_size_without_metrics_json(tmp_path):
    runner = CliRunner()
    run = tmp_path / "run"
    runner.invoke(app, ["simulate", str(SMALL_SWF), "--out", str(run)])
    (run / "metrics.json").unlink()
    missing = runner.invoke(app, ["export", str(run)])
    assert missing.exit_code == 2 and "cannot tell the machine size" in missing.output
    given = runner.invoke(app, ["export", str(run), "--procs", "8"])
    assert given.exit_code == 0
    bad_format = runner.invoke(app, ["export", str(run), "--format", "swf"])
    assert bad_format.exit_code == 2
    assert "field --format: expected one of evalys, got 'swf'" in bad_format.output


@pytest.mark.parametrize("text, line, field, message", [
    ("job_id,submit,start,end,width,estimate,status\n", 1, "runtime", "missing column"),
    ("job_id,submit,start,end,width,estimate,runtime,status\n1,0,0,5,1,5,5,done\n", 2,
     "status", "expected one of finished, killed, rejected, cancelled, withdrawn, failed, got 'done'"),
    ("job_id,submit,start,end,width,estimate,runtime,status\n1,0,x,5,1,5,5,finished\n", 2,
     "start", "expected an integer, got 'x'"),
    ("job_id,submit,start,end,width,estimate,runtime,status\n1,0,0,5\n", 2, None,
     "expected 8 fields, got 4"),
])
def test_load_run_names_the_bad_line_and_field(tmp_path, text, line, field, message):
    path = tmp_path / "jobs.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        load_run(path, processors=4)
    assert (caught.value.file, caught.value.line, caught.value.field) == (str(path), line,
                                                                          field)


def test_load_run_reads_rejected_jobs_and_planned_starts(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("job_id,submit,start,end,width,estimate,runtime,status,wait,planned_start\n"
                    "1,0,0,5,1,5,5,finished,0,0\n2,1,,,2,9,9,rejected,,\n")
    result = load_run(path, processors=2)
    assert result.start.tolist() == [0, -1] and result.end.tolist() == [5, -1]
    assert result.planned_start.tolist() == [0, -1]
    assert result.status.tolist() == [FINISHED, REJECTED] and result.processors == 2
