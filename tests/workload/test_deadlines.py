"""Deadlines for workloads and load scaling (QoPS, Islam et al., §4.1–4.2; SPEC §1.2–1.3).

* the side file ``job_id,deadline[,kind]``: reading, writing, every bad input;
* the QoPS assignment from an EASY schedule with stringency s, worked by hand;
* mixed workloads: a seeded fraction of real deadlines, artificial ones for the rest;
* load by duplication (incremental, seeded) and by expansion;
* the command-line options, and bad input giving exit code 2.

The small workload used throughout: 4 processors, machine-wide jobs, all
submitted at 0 (id, runtime = estimate): 1 (5 s), 2 (10 s), 3 (10 s).
FCFS EASY runs them one after another: 1 [0,5), 2 [5,15), 3 [15,25), so
their EASY response times are 5, 15 and 25.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from files import written
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.pipeline import easy_response_times, mixed_deadlines, stringency_deadlines
from schedlab.workload.deadlines import read_deadlines, write_deadlines
from schedlab.workload.job import Job, Workload
from schedlab.workload.transforms import duplicate_load, expand_load

THREE = Workload((Job(1, 0, 5, 5, 4), Job(2, 0, 10, 10, 4), Job(3, 0, 10, 10, 4)), 4,
                 name="three")
SWF = """; MaxProcs: 4
1 0 -1 5 4 -1 -1 4 5 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
3 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
"""


def deadlines(workload: Workload) -> list[int | None]:
    return [job.deadline for job in workload]


def write(tmp_path: Path, text: str, name: str = "d.csv") -> Path:
    return written(tmp_path, name, text)


# ------------------------------------------------------------------ side file
def test_read_deadlines_sets_the_listed_jobs_only(tmp_path):
    path = write(tmp_path, "job_id,deadline\n# a comment\n\n3, 40\n1,5\n")
    loaded = read_deadlines(path, THREE)
    assert deadlines(loaded) == [5, None, 40]
    assert not any(job.artificial_deadline for job in loaded)
    assert loaded.name == "three~deadlines-d"


def test_the_kind_column_marks_artificial_deadlines(tmp_path):
    path = write(tmp_path, "job_id,deadline,kind\n1,5,real\n2,86400,artificial\n")
    loaded = read_deadlines(path, THREE)
    assert [(j.deadline, j.artificial_deadline) for j in loaded] == \
        [(5, False), (86400, True), (None, False)]


def test_write_then_read_gives_the_same_deadlines(tmp_path):
    mixed = mixed_deadlines(THREE, 0.2, 0.5, 2, seed=3)
    write_deadlines(mixed, tmp_path / "out.csv")
    text = (tmp_path / "out.csv").read_text()
    assert text.splitlines()[0] == "job_id,deadline,kind"
    back = read_deadlines(tmp_path / "out.csv", THREE)
    assert [(j.deadline, j.artificial_deadline) for j in back] == \
        [(j.deadline, j.artificial_deadline) for j in mixed]


@pytest.mark.parametrize("text,line,field,message", [
    ("job_id,deadline\n1,5\n7,30\n", 3, "job_id", "no job 7 in the workload"),
    ("job_id,deadline\n1,5\n2,30\n1,9\n", 4, "job_id", "job 1 is listed twice (first on line 2)"),
    ("job_id,deadline\n2,-1\n", 2, "deadline", "deadline -1 is before the submit time 0 of job 2"),
    ("job_id,deadline\n1,5.5\n", 2, "deadline", "expected an integer, got '5.5'"),
    ("job_id,deadline\nx,5\n", 2, "job_id", "expected an integer, got 'x'"),
    ("job_id,deadline\n1,5,real\n", 2, "deadline", "expected 2 fields (job_id,deadline), got 3"),
    ("job_id,deadline,kind\n1\n", 2, "job_id", "expected 3 fields (job_id,deadline,kind), got 1"),
    ("job_id,deadline,kind\n1,5,urgent\n", 2, "kind",
     "expected one of real, artificial, got 'urgent'"),
    ("id,when\n1,5\n", 1, "header",
     "expected the header 'job_id,deadline' or 'job_id,deadline,kind', got 'id,when'"),
])
def test_bad_deadline_files_name_file_line_and_field(tmp_path, text, line, field, message):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        read_deadlines(path, THREE)
    err = raised.value
    assert (err.file, err.line, err.field, err.reason) == (str(path), line, field, message)
    assert str(err) == f"{path}:{line}: field {field}: {message}"


def test_an_empty_or_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="the file is empty"):
        read_deadlines(write(tmp_path, "# nothing\n"), THREE)
    with pytest.raises(InputError, match="no such deadline file"):
        read_deadlines(tmp_path / "absent.csv", THREE)


def test_a_deadline_at_the_submit_time_is_accepted(tmp_path):
    assert deadlines(read_deadlines(write(tmp_path, "job_id,deadline\n1,0\n"), THREE))[0] == 0


# ------------------------------------------------------ QoPS §4.1: stringency
def test_easy_response_times():
    assert easy_response_times(THREE).tolist() == [5, 15, 25]


@pytest.mark.parametrize("s,expected", [
    (0, [5, 15, 25]),     # the EASY completion times
    (0.2, [5, 12, 20]),   # max(runtime, ceil(0.8 x [5, 15, 25])) = max([5,10,10], [4,12,20])
    (0.5, [5, 10, 13]),   # ceil(0.5 x [5, 15, 25]) = [3, 8, 13]; runtimes 5 and 10 win twice
    (1, [5, 10, 10]),     # the runtimes
])
def test_stringency_deadlines_by_hand(s, expected):
    assigned = stringency_deadlines(THREE, s)
    assert deadlines(assigned) == expected
    assert not any(job.artificial_deadline for job in assigned)
    assert assigned.name == f"three~s{s:g}"


def test_the_stringency_product_is_exact_and_rounded_up():
    # Job 2 (2 s) waits 8 s behind job 1 under EASY: response 10.  (1 - 0.3) x 10 is 7
    # exactly; in floating point 1 - 0.3 = 0.7000000000000001 and the ceiling would be 8.
    load = Workload((Job(1, 0, 8, 8, 4), Job(2, 0, 2, 2, 4)), 4)
    assert deadlines(stringency_deadlines(load, 0.3)) == [8, 7]


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), True, "0.2"])
def test_a_stringency_outside_0_1_is_an_input_error(bad):
    with pytest.raises(InputError, match="The 'stringency' parameter of the deadline assignment"):
        stringency_deadlines(THREE, bad)


# --------------------------------------------------------- QoPS §4.2: mixed
def many_jobs(n: int = 40) -> Workload:
    """n one-processor jobs of 100 s, one every 10 s on 2 processors (some wait under EASY)."""
    return Workload(tuple(Job(i + 1, 10 * i, 100 + i, 100 + i, 1) for i in range(n)), 2)


def test_mixed_deadlines_real_for_the_fraction_artificial_for_the_rest():
    load = many_jobs()
    real = {j.id: j.deadline for j in stringency_deadlines(load, 0.2)}
    mixed = mixed_deadlines(load, 0.2, 0.25, relaxation=5, seed=7)
    chosen = [j for j in mixed if not j.artificial_deadline]
    assert len(chosen) == 10                                    # round(0.25 x 40)
    assert all(j.deadline == real[j.id] for j in chosen)
    # artificial: submit + max(24 h, ceil(5 x runtime)) = submit + 86400 for these short jobs
    assert all(j.deadline == j.submit + 86400 for j in mixed if j.artificial_deadline)
    assert mixed.name == "workload~s0.2-f0.25-R5-seed7"


def test_a_long_job_gets_r_times_its_runtime_rounded_up():
    load = Workload((Job(1, 100, 40001, 40001, 1), Job(2, 200, 10, 10, 1)), 1)
    mixed = mixed_deadlines(load, 0.5, 0, relaxation=2.5, seed=0)
    assert deadlines(mixed) == [100 + 100003, 200 + 86400]      # ceil(2.5 x 40001) = 100003
    assert all(job.artificial_deadline for job in mixed)


def test_mixed_deadlines_are_seeded_and_a_smaller_fraction_picks_a_subset():
    load = many_jobs()

    def real_ids(fraction, seed):
        return {j.id for j in mixed_deadlines(load, 0.2, fraction, 2, seed)
                if not j.artificial_deadline}

    assert real_ids(0.5, 1) == real_ids(0.5, 1)
    assert real_ids(0.5, 1) != real_ids(0.5, 2)
    assert real_ids(0.2, 1) < real_ids(0.8, 1)
    assert len(real_ids(1, 1)) == 40 and real_ids(0, 1) == set()
    assert len(real_ids(0.5125, 1)) == 21                        # 20.5 rounds half up


@pytest.mark.parametrize("kwargs,param", [
    ({"fraction": 1.2, "relaxation": 2}, "fraction"),
    ({"fraction": 0.5, "relaxation": 0}, "relaxation"),
    ({"fraction": 0.5, "relaxation": float("inf")}, "relaxation"),
])
def test_mixed_parameters_are_checked(kwargs, param):
    with pytest.raises(InputError, match=f"The '{param}' parameter"):
        mixed_deadlines(THREE, 0.2, seed=0, **kwargs)


# ------------------------------------------------------ load by duplication
def ten_jobs() -> Workload:
    jobs = tuple(Job(i + 1, 100 * i, 50 + i, 60 + i, 1 + i % 3, user=i, group=7, queue=2,
                     deadline=100 * i + 500 if i % 2 else None) for i in range(10))
    return Workload(jobs, 4, name="ten")


def test_duplication_adds_round_l_minus_1_times_n_copies():
    load = ten_jobs()
    assert len(duplicate_load(load, 1.2, seed=0)) == 12
    assert len(duplicate_load(load, 1.25, seed=0)) == 13      # 2.5 rounds half up
    assert len(duplicate_load(load, 1.0, seed=0)) == 10
    assert duplicate_load(load, 1.4, seed=3).name == "ten~dup1.4-seed3"


def test_copies_are_copies_at_random_times_within_the_trace():
    load = ten_jobs()
    scaled = duplicate_load(load, 1.6, seed=5)
    originals = {j.id: j for j in load}
    copies = [j for j in scaled if j.id not in originals]
    assert sorted(j.id for j in copies) == list(range(11, 17))   # max id + 1, ...
    for copy in copies:
        twins = [o for o in load if (o.runtime, o.estimate, o.width, o.user) ==
                 (copy.runtime, copy.estimate, copy.width, copy.user)]
        assert len(twins) == 1
        twin = twins[0]
        assert (copy.group, copy.queue) == (twin.group, twin.queue)
        assert 0 <= copy.submit <= 900
        assert (copy.deadline is None) == (twin.deadline is None)
        if twin.deadline is not None:
            assert copy.deadline - copy.submit == twin.deadline - twin.submit
    assert len({o.id for o in load for c in copies if c.user == o.user}) == 6   # no repeats


def test_duplication_is_incremental_across_loads():
    # QoPS §5: "the workload for a load of 1.6 would include all the jobs in the trace
    # for load 1.4, with the same arrival times for the common jobs".
    load = ten_jobs()
    lower = {(j.id, j.submit, j.runtime) for j in duplicate_load(load, 1.4, seed=11)}
    higher = {(j.id, j.submit, j.runtime) for j in duplicate_load(load, 1.6, seed=11)}
    assert lower < higher and len(higher) - len(lower) == 2
    other_seed = {(j.id, j.submit, j.runtime) for j in duplicate_load(load, 1.6, seed=12)}
    assert other_seed != higher


def test_loads_above_two_copy_every_job_before_any_twice():
    scaled = duplicate_load(ten_jobs(), 2.5, seed=1)
    assert len(scaled) == 25
    copies_of = np.bincount([j.user for j in scaled if j.id > 10], minlength=10)
    assert sorted(copies_of.tolist()) == [1] * 5 + [2] * 5


@pytest.mark.parametrize("bad", [0.9, float("nan"), True])
def test_duplication_needs_a_load_of_at_least_one(bad):
    with pytest.raises(InputError, match="The 'load' parameter of duplicate_load must be a "
                                         "finite number >= 1"):
        duplicate_load(ten_jobs(), bad, seed=0)


# -------------------------------------------------------- load by expansion
def test_expansion_stretches_runtime_estimate_and_deadline_by_hand():
    load = Workload((Job(1, 10, 5, 7, 2, deadline=30), Job(2, 20, 0, 1, 1)), 4, name="w")
    scaled = expand_load(load, 1.5)
    # 1.5 x 5 = 7.5 -> 8; 1.5 x 7 = 10.5 -> 11; deadline 10 + 1.5 x 20 = 40; 0 stays 0;
    # 1.5 x 1 = 1.5 -> 2
    assert [(j.runtime, j.estimate, j.deadline) for j in scaled] == [(8, 11, 40), (0, 2, None)]
    assert [(j.submit, j.width) for j in scaled] == [(10, 2), (20, 1)]
    assert scaled.name == "w~expand1.5"


def test_expansion_rounds_the_decimal_product_exactly():
    # 1.15 x 10 is 11.499999999999998 in floating point; the decimal 11.5 rounds up to 12
    load = Workload((Job(1, 0, 10, 10, 1),), 1)
    assert expand_load(load, 1.15).jobs[0].runtime == 12


def test_expansion_below_one_keeps_estimates_at_least_one_second():
    load = Workload((Job(1, 0, 1, 1, 1),), 1)
    assert (expand_load(load, 0.4).jobs[0].runtime, expand_load(load, 0.4).jobs[0].estimate) == \
        (0, 1)
    with pytest.raises(InputError, match="The 'load' parameter of expand_load must be a "
                                         "finite number > 0"):
        expand_load(load, 0)


# ------------------------------------------------------------------ the CLI
def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_simulate_with_a_deadline_file(tmp_path):
    trace = write(tmp_path, SWF, "t.swf")
    side = write(tmp_path, "job_id,deadline\n1,100\n2,15\n3,20\n")
    result = invoke("simulate", str(trace), "-p", "msb", "--deadlines", str(side),
                    "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())["metrics"]
    # msb rejects job 3 (tests/policies/deadline/test_golden.py)
    assert (metrics["deadline_rejected"], metrics["deadline_missed"]) == (1, 0)
    assert "deadline_rejected_pct" in result.output


def test_simulate_reports_a_job_killed_at_its_estimate_before_its_deadline(tmp_path):
    # job 1 needs 20 s but asks for 5: admitted by its estimate, killed at 5 < 100
    trace = write(tmp_path, SWF.replace("1 0 -1 5 4 -1 -1 4 5 ", "1 0 -1 20 4 -1 -1 4 5 "),
                  "t.swf")
    side = write(tmp_path, "job_id,deadline\n1,100\n2,50\n3,100\n")
    result = invoke("simulate", str(trace), "-p", "qops", "--deadlines", str(side),
                    "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())["metrics"]
    assert (metrics["deadline_rejected"], metrics["deadline_missed"],
            metrics["deadline_unfinished"]) == (0, 0, 1)
    row = next(line for line in result.output.splitlines() if "deadline_unfinished" in line)
    assert [cell.strip() for cell in row.split("│")[2:-1]] == ["1"]


def test_simulate_with_stringency_load_and_mixed_deadlines(tmp_path):
    trace = write(tmp_path, SWF, "t.swf")
    result = invoke("simulate", str(trace), "-p", "qops", "--load", "2", "--seed", "4",
                    "--stringency", "0.5", "--deadline-fraction", "0.5", "--relaxation", "2",
                    "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert report["workload"] == "t~dup2-seed4~s0.5-f0.5-R2-seed4"
    assert (report["metrics"]["jobs"], report["metrics"]["deadline_jobs"]) == (6, 3)
    assert report["metrics"]["deadline_missed"] == 0


def test_compare_with_expansion_and_stringency(tmp_path):
    trace = write(tmp_path, SWF, "t.swf")
    result = invoke("compare", str(trace), "--policies", "fcfs+easy,qops", "--load", "1.2",
                    "--load-method", "expand", "--stringency", "0.2", "--out",
                    str(tmp_path / "cmp"))
    assert result.exit_code == 0, result.output
    easy = json.loads((tmp_path / "cmp" / "fcfs_easy" / "metrics.json").read_text())
    assert easy["workload"] == "t~expand1.2~s0.2"
    # expanded runtimes 6, 12, 12: EASY ends 6, 18, 30; s = 0.2 gives deadlines
    # max(6, 5), max(12, ceil(14.4)), max(12, 24) = 6, 15, 24: jobs 2 and 3 are late
    assert easy["metrics"]["deadline_missed"] == 2
    qops = json.loads((tmp_path / "cmp" / "qops" / "metrics.json").read_text())
    assert qops["metrics"]["deadline_missed"] == 0


def test_deadlines_out_of_reach_by_their_estimates_are_pointed_out(tmp_path):
    # Job 1 runs 5 s of a 50 s estimate: EASY ends it at 5, so with s = 0 its
    # deadline is 5, which no start can meet by the estimate; jobs 2 and 3 can.
    trace = write(tmp_path, SWF.replace("1 0 -1 5 4 -1 -1 4 5 ", "1 0 -1 5 4 -1 -1 4 50 "),
                  "t.swf")
    result = invoke("simulate", str(trace), "-p", "qops", "--stringency", "0")
    assert result.exit_code == 0, result.output
    assert ("note: 1 of 3 jobs with a deadline cannot meet it by their estimate even if "
            "started at once; admission control will refuse them. Deadlines from "
            "--stringency assume exact estimates (QoPS §4.1): --perfect-estimates makes 1 of "
            "them reachable." in " ".join(result.output.split()))
    exact = invoke("simulate", str(trace), "-p", "qops", "--stringency", "0",
                   "--perfect-estimates")
    assert exact.exit_code == 0 and "note:" not in exact.output


def test_a_zero_second_job_gets_a_stringency_deadline_its_least_estimate_meets(tmp_path):
    # Job 1 runs 0 s: EASY ends it at its submission, so the formula as printed gives
    # it the deadline 0, which its estimate of 1 s (the least there is) can never
    # meet.  Our reading puts it 1 s after the submission: admitted, no note.  (With
    # s = 0 job 2's deadline is its EASY end, 10, with no slack: the second job 1's
    # estimate holds the machine pushes job 2 to 1-11, and it is the one refused.)
    trace = write(tmp_path, SWF.replace("1 0 -1 5 4 -1 -1 4 5 ", "1 0 -1 0 4 -1 -1 4 5 "),
                  "t.swf")
    result = invoke("simulate", str(trace), "-p", "qops", "--stringency", "0",
                    "--perfect-estimates", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output
    rows = [line.split(",") for line in
            (tmp_path / "out" / "jobs.csv").read_text().splitlines()[1:]]
    # job id, start, end, status, deadline
    assert [(r[0], r[2], r[3], r[7], r[10]) for r in rows] == [
        ("1", "0", "0", "finished", "1"), ("2", "", "", "rejected", "10"),
        ("3", "0", "10", "finished", "20")]


def test_the_formula_as_printed_gives_a_zero_second_job_its_submission_as_deadline(tmp_path):
    workload = stringency_deadlines(Workload((Job(1, 7, 0, 1, 1),), processors=1,
                                             name="w"), 0.0)
    assert deadlines(workload) == [8]
    from schedlab.workload.deadlines import stringency_deadlines as assign
    assert deadlines(assign(workload, 0.0, [0], least_duration=0)) == [7]
    with pytest.raises(InputError, match="least_duration"):
        assign(workload, 0.0, [0], least_duration=-1)


def test_a_deadline_no_estimate_can_meet_is_not_blamed_on_the_estimates(tmp_path):
    # A side file puts job 1 (0 s) at its submission: its estimate of 1 s, the least
    # there is, cannot meet it, exact or not; --perfect-estimates is no remedy.
    trace = write(tmp_path, SWF.replace("1 0 -1 5 4 -1 -1 4 5 ", "1 0 -1 0 4 -1 -1 4 5 "),
                  "t.swf")
    side = write(tmp_path, "job_id,deadline\n1,0\n", "d.csv")
    result = invoke("simulate", str(trace), "-p", "qops", "--deadlines", str(side),
                    "--perfect-estimates")
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert ("note: 1 of 1 jobs with a deadline cannot meet it by their estimate even if "
            "started at once; admission control will refuse them. 1 of them cannot meet it "
            "even with an exact estimate (their runtime, at least 1 s): no estimate helps."
            in said)
    assert "--perfect-estimates makes" not in said


@pytest.mark.parametrize("args,message", [
    (["--deadlines", "{side}"], "{side}:3: field deadline: deadline -5 is before the submit "
                                "time 0 of job 2"),
    (["--stringency", "0.2", "--deadlines", "{side}"],
     "field --stringency: give either a deadline file or a stringency, not both"),
    (["--relaxation", "2"], "field --stringency: --deadline-fraction and --relaxation need "
                            "--stringency"),
    (["--stringency", "0.2", "--deadline-fraction", "0.5"],
     "field --relaxation: a deadline fraction below 1 needs the relaxation factor R"),
    (["--load", "1.5", "--load-method", "stretch"],
     "field --load-method: expected one of duplicate, expand, got 'stretch'"),
    (["--stringency", "2"], "field --stringency: The 'stringency' parameter"),
])
def test_bad_deadline_and_load_options_exit_with_2_and_one_line(tmp_path, args, message):
    trace = write(tmp_path, SWF, "t.swf")
    side = write(tmp_path, "job_id,deadline\n1,5\n2,-5\n")
    result = invoke("simulate", str(trace), "-p", "qops",
                    *[a.format(side=side) for a in args])
    assert result.exit_code == 2
    assert message.format(side=side) in result.output
    assert "Traceback" not in result.output


def test_on_nasa_ipsc_zero_second_jobs_are_no_longer_refused_by_qops():
    """NASA-iPSC (no requested times: estimates are runtimes) at stringency 0.2: the
    formula as printed gives its 0-second jobs their submission as deadline, which their
    1 s estimate cannot meet, and QoPS refuses 175 jobs, 173 of them of 0 s; with the
    least duration of 1 s it refuses 2, none of 0 s (docs/reference/policies/deadlines.md)."""
    import schedlab
    from real_traces import real_trace
    from schedlab.workload.deadlines import stringency_deadlines as assign

    workload = schedlab.load_workload(real_trace("NASA-iPSC-1993-3.1-cln.swf.gz"))
    easy = easy_response_times(workload).tolist()
    refused = {}
    for least in (0, 1):
        result = schedlab.simulate(assign(workload, 0.2, easy, least_duration=least), "qops")
        rejected = result.status == 2
        refused[least] = (int(rejected.sum()), int((rejected & (result.runtime == 0)).sum()))
    assert refused == {0: (175, 173), 1: (2, 0)}
