"""The agreement measures of the Slurm validation, on schedules checked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlab.errors import InputError
from schedlab.validation.agreement import agreement, agreement_by_id
from schedlab.validation.slurm_cluster import SlurmCluster, parse_jobcomp_line
from schedlab.validation.slurm_validation import slurm_policy_spec


def test_three_measures_by_hand() -> None:
    # Four jobs submitted at 0; reference starts 0, 10, 20, 30; the other schedule starts
    # them at 1, 13, 20, 13.  Within 2 s: jobs 1 and 3.  Pairs (6, none tied in the
    # reference): (1,2) (1,3) (1,4) (2,3) same order; (2,4) tied in the other: half;
    # (3,4) reversed.  Mean waits: 11.75 against 15.
    found = agreement([0, 0, 0, 0], [0, 10, 20, 30], [1, 13, 20, 13])
    assert found.jobs == 4
    assert found.starts_within == 0.5
    assert found.pairs_in_order == pytest.approx(4.5 / 6)
    assert (found.mean_wait, found.reference_mean_wait) == (11.75, 15.0)
    assert found.mean_wait_difference == pytest.approx(-3.25 / 15)
    assert found.meets(0.5, 0.75, 0.22)
    assert not found.meets(0.5, 0.76, 0.22)
    assert not found.meets(0.5, 0.75, 0.21)


def test_a_schedule_agrees_with_itself() -> None:
    found = agreement_by_id({1: 0, 2: 5}, {1: 3, 2: 9}, {1: 3, 2: 9})
    assert (found.starts_within, found.pairs_in_order, found.mean_wait_difference) \
        == (1.0, 1.0, 0.0)


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one submit and two starts per job"):
        agreement([0, 1], [0, 1], [0])


def test_a_jobcomp_line_is_read_in_utc() -> None:
    line = ("JobId=7 UserId=root(0) GroupId=root(0) Name=schedlab-3 JobState=COMPLETED "
            "Partition=batch TimeLimit=2 StartTime=2026-12-06T16:37:01 "
            "EndTime=2026-12-06T16:37:03 NodeList=schedlab1 NodeCnt=1 ProcCnt=16 "
            "SubmitTime=2026-12-06T16:36:57 EligibleTime=2026-12-06T16:36:57")
    record = parse_jobcomp_line(line)
    assert (record.id, record.cpus, record.limit_minutes, record.state) \
        == (7, 16, 2, "COMPLETED")
    assert (record.start - record.submit, record.end - record.start) == (4, 2)
    assert record.submit == 1796575017


def test_a_submission_is_the_second_slurmctld_logged_it_in(tmp_path: Path) -> None:
    # Job 1 was accepted 5 ms into second 28, which Slurm's records give as 27 (its coarse
    # clock); the log's second is the submission's.
    (tmp_path / "slurmctld.log").write_text(
        "[2026-12-07T10:52:28.004] _slurm_rpc_submit_batch_job: JobId=1 InitPrio=10000 "
        "usec=434\n"
        "[2026-12-07T10:52:28.121] sched/backfill: _start_job: Started JobId=1 in batch\n"
        "[2026-12-07T10:52:31.900] _slurm_rpc_submit_batch_job: JobId=2 InitPrio=1 usec=9\n",
        encoding="utf-8")
    logged = SlurmCluster(tmp_path).submissions()
    assert logged == {1: 1796640748, 2: 1796640751}


def test_a_line_that_is_not_jobcomp_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not a jobcomp/filetxt line"):
        parse_jobcomp_line("JobId=7 JobState=COMPLETED")


def test_the_periodic_pass_counts_from_the_controllers_start(tmp_path: Path) -> None:
    # slurmctld came up at 10:52:17 (Unix 1796640737): its main scheduler's periodic
    # passes fall 17 s past each minute, unless the decay thread's runs give the second.
    assert SlurmCluster(tmp_path).controller_start() is None
    (tmp_path / "slurmctld.log").write_text(
        "[2026-12-07T10:52:16.990] slurmctld version 22.05.8 started on cluster schedlab\n"
        "[2026-12-07T10:52:17.020] Running as primary controller\n", encoding="utf-8")
    started = SlurmCluster(tmp_path).controller_start()
    assert started == 1796640737
    record = parse_jobcomp_line(
        "JobId=1 UserId=root(0) GroupId=root(0) Name=sleep JobState=COMPLETED "
        "Partition=batch TimeLimit=1 StartTime=2026-12-07T10:52:30 "
        "EndTime=2026-12-07T10:52:40 NodeList=schedlab1 NodeCnt=1 ProcCnt=1 "
        "WorkDir=/ ReservationName= Tres=cpu=1 Account= QOS= WcKey= Cluster=schedlab "
        "SubmitTime=2026-12-07T10:52:30 EligibleTime=2026-12-07T10:52:30")
    assert slurm_policy_spec({}, [record], controller_start=started)["sched_offset"] == 17
    assert "sched_offset" not in slurm_policy_spec({}, [record])
    assert slurm_policy_spec({}, [record], [started + 1],
                             controller_start=started)["sched_offset"] == 18
