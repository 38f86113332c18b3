"""Slurm accounting import: ``read_sacct`` and load_workload's sacct detection.

``data/sacct.txt`` (written as by ``sacct -a -X --parsable2 --format=JobID,
Submit,Start,End,Elapsed,Timelimit,NCPUS,NNodes,AllocCPUS,ReqCPUS,State,User,
Group,Partition`` plus one step line) and what each line becomes, by hand:

    line  2  100       submit 10:00:00, Elapsed 10 min, limit 1 h, 4 CPUs  -> job 1
    line  3  100.batch job step                                           -> skipped
    line  4  101       submit 10:01:00, 2 h, limit 1-00:00:00 (86400 s), 8 -> job 2
    line  5  102       CANCELLED, Start None                  -> "cancelled before start"
    line  6  103_1     array task, 30 s, UNLIMITED -> estimate = runtime 30, 2 CPUs -> job 3
    line  7  103_2     array task, 2 min, Partition_Limit -> estimate 120          -> job 4
    line  8  104       CANCELLED after starting: ran 30 min, limit 45:00 (2700 s), 16 -> job 5
    line  9  105       PENDING, Start Unknown                      -> "not started"
    line 10  106       RUNNING, End Unknown                        -> "still running"

Submit times relative to 10:00:00: 0, 60, 180, 180, 240.  Users alice, bob,
carol -> 1, 2, 3; groups physics, chem -> 1, 2; partitions batch, long,
debug -> 1, 2, 3.  Machine size: the most CPUs held at once — 10:20-10:50
jobs 101 (8) and 104 (16) run together: 24.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import schedlab
from schedlab.errors import InputError
from schedlab.interop import SACCT_SKIP_REASONS, is_sacct_file, read_sacct
from schedlab.workload.job import Job

SACCT = Path(__file__).parent / "data" / "sacct.txt"
HEADER = "JobID|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|State"
LINE = "7|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:02:00|00:01:00|00:05:00|2|" \
       "COMPLETED"

EXPECTED_JOBS = [
    Job(id=1, submit=0, runtime=600, estimate=3600, width=4, user=1, group=1, queue=1,
        nodes=1),
    Job(id=2, submit=60, runtime=7200, estimate=86400, width=8, user=2, group=2, queue=2,
        nodes=2),
    Job(id=3, submit=180, runtime=30, estimate=30, width=2, user=3, group=1, queue=3,
        nodes=1),
    Job(id=4, submit=180, runtime=120, estimate=120, width=2, user=3, group=1, queue=3,
        nodes=1),
    Job(id=5, submit=240, runtime=1800, estimate=2700, width=16, user=2, group=2, queue=1,
        nodes=4),
]


def test_read_sacct_gives_the_hand_worked_jobs_and_skip_counts():
    workload = read_sacct(SACCT)
    assert list(workload) == EXPECTED_JOBS
    assert workload.processors == 24
    assert workload.skipped == {"job step": 1, "cancelled before start": 1, "not started": 1,
                                "still running": 1, "width <= 0": 0, "no estimate": 0,
                                "width > machine": 0}
    assert tuple(workload.skipped) == SACCT_SKIP_REASONS
    assert workload.unix_start_time == 1709287200    # 2024-03-01T10:00:00 read as UTC
    assert workload.name == "sacct"


def test_names_of_users_groups_and_partitions_are_kept_in_number_order():
    assert read_sacct(SACCT).names == {"user": ("alice", "bob", "carol"),
                                       "group": ("physics", "chem"),
                                       "queue": ("batch", "long", "debug")}


def test_account_qos_raw_limit_and_priority_are_kept(tmp_path):
    """Two jobs: TimelimitRaw (minutes) wins over Timelimit; accounts and QOS numbered
    in order of first appearance; Priority kept as Slurm printed it."""
    path = tmp_path / "full.txt"
    path.write_text("JobID|Submit|Start|End|Timelimit|TimelimitRaw|NCPUS|NNodes|State|"
                    "Account|QOS|Priority|Partition\n"
                    "1|1000|1000|1060|00:05:00|5|4|1|COMPLETED|physics|high|4294901759|a\n"
                    "2|1010|1060|1100|UNLIMITED|UNLIMITED|2|2|COMPLETED|chem|normal|0|b\n"
                    "3|1020|1100|1130|00:02:00|2|2|1|COMPLETED|physics|normal||a\n")
    workload = read_sacct(path)
    assert list(workload) == [
        Job(id=1, submit=0, runtime=60, estimate=300, width=4, queue=1, account=1, qos=1,
            nodes=1, priority=4294901759),
        Job(id=2, submit=10, runtime=40, estimate=40, width=2, queue=2, account=2, qos=2,
            nodes=2, priority=0),
        Job(id=3, submit=20, runtime=30, estimate=120, width=2, queue=1, account=1, qos=2,
            nodes=1, priority=None)]
    assert workload.names == {"queue": ("a", "b"), "account": ("physics", "chem"),
                              "qos": ("high", "normal")}


def test_the_raw_limit_alone_is_enough(tmp_path):
    path = tmp_path / "raw.txt"
    path.write_text("JobID|Submit|Start|End|TimelimitRaw|NCPUS|State\n"
                    "1|1000|1000|1060|3|4|COMPLETED\n")
    assert read_sacct(path)[0].estimate == 180


def test_drop_rule_and_machine_size_override():
    workload = read_sacct(SACCT, missing_estimate="drop", processors=8)
    assert [job.id for job in workload] == [1, 2]
    assert workload.skipped["no estimate"] == 2 and workload.skipped["width > machine"] == 1
    assert workload.processors == 8


def test_load_workload_recognises_a_sacct_file_by_its_header(tmp_path):
    assert is_sacct_file(SACCT)
    assert list(schedlab.load_workload(SACCT)) == EXPECTED_JOBS
    plain = tmp_path / "x.swf"
    plain.write_text("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 0 -1 -1 -1\n")
    assert not is_sacct_file(plain)


def test_unix_seconds_parsable_trailing_bar_and_missing_optional_columns(tmp_path):
    path = tmp_path / "epoch.txt"
    path.write_text("JobID|Submit|Start|End|Timelimit|NCPUS|State|\n"
                    "1|1000|1010|1070|2:00|3|COMPLETED|\n"
                    "2|1005|1070|1080|00:00:20|0|COMPLETED|\n")
    workload = read_sacct(path)
    assert list(workload) == [
        Job(id=1, submit=0, runtime=60, estimate=120, width=3, user=-1, group=-1, queue=-1)]
    assert workload.skipped["width <= 0"] == 1 and workload.unix_start_time == 1000


@pytest.mark.parametrize("lines, line, field, message", [
    (["JobID|Submit|Start|End|AllocCPUS|State"], 1, "Timelimit",
     "missing column \\(one of TimelimitRaw, Timelimit\\); export with `sacct -a -X "
     "--parsable2 --format=JobID,Submit,"),
    (["JobID|Start|End|Timelimit|AllocCPUS|State"], 1, "Submit", "missing column; export"),
    ([HEADER + "|Priority", LINE + "|high"], 2, "Priority",
     "expected a whole number >= 0, got 'high'"),
    ([HEADER + "|NNodes", LINE + "|-1"], 2, "NNodes",
     "expected a whole number >= 0, got '-1'"),
    ([HEADER.replace("Timelimit", "TimelimitRaw"), LINE.replace("00:05:00", "5m")], 2,
     "TimelimitRaw", "expected a whole number >= 0, got '5m'"),
    (["JobID|Submit|Start|End|Timelimit|State"], 1, "AllocCPUS",
     "one of AllocCPUS, NCPUS, ReqCPUS"),
    ([HEADER, LINE.replace("2024-01-01T00:00:00", "yesterday")], 2, "Submit",
     "expected a time like 2024-01-31T13:45:00 or Unix seconds, got 'yesterday'"),
    ([HEADER, LINE.replace("00:05:00", "5 min")], 2, "Timelimit",
     "expected \\[D-\\]HH:MM:SS, UNLIMITED or Partition_Limit, got '5 min'"),
    ([HEADER, LINE.replace("|2|", "|two|")], 2, "AllocCPUS",
     "expected a whole number of CPUs, got 'two'"),
    ([HEADER, LINE, "8|2024-01-01T00:00:00|x"], 3, None,
     "expected 8 fields separated by '|', got 3"),
    ([HEADER, LINE.replace("T00:02:00", "T00:00:30")], 2, "End", "is before Start"),
])
def test_bad_sacct_input_names_file_line_and_field(tmp_path, lines, line, field, message):
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=message) as caught:
        read_sacct(path)
    assert (caught.value.file, caught.value.line, caught.value.field) == (str(path), line,
                                                                          field)


def test_a_file_with_nothing_to_simulate_says_why(tmp_path):
    path = tmp_path / "steps.txt"
    path.write_text(HEADER + "\n" + LINE.replace("7|", "7.batch|", 1) + "\n")
    with pytest.raises(InputError, match="no job can be simulated \\(job step: 1,"):
        read_sacct(path)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(InputError, match="empty file"):
        read_sacct(empty)


def test_a_guessed_machine_size_is_recorded_and_warned_about():
    from schedlab.cli.loading import guess_warnings

    guessed = read_sacct(SACCT)
    assert guessed.provenance == {"machine_size_source": "peak CPUs in use (guessed)",
                                  "estimates_source": "requested time, else runtime",
                                  "estimates_from_runtime": 2}
    assert guess_warnings(guessed) == [
        "sacct does not give the machine size: the machine size is guessed as 24 processors "
        "(the peak of CPUs in use); if the real machine is larger, jobs queue behind a "
        "machine it is not and waits (and every metric built on them) are meaningless: give "
        "the real size with --procs",
        "sacct: 2 jobs have no requested time: their estimate is their runtime "
        "(--missing-estimate drop skips them instead)"]
    given = read_sacct(SACCT, missing_estimate="drop", processors=8)
    assert given.provenance["machine_size_source"] == "--procs"
    assert guess_warnings(given) == []
