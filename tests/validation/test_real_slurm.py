"""The slurm policy against a real Slurm started here (docs/background/validation.md).

A one-node Slurm with 16 fake CPUs (``SlurmCluster``) runs sleep jobs
submitted with ``sbatch`` at their submit times; the same jobs, as Slurm
recorded them, are simulated with the ``slurm`` policy under the same
configuration, and with ``fcfs+easy`` and ``fcfs+conservative`` beside it.
The CI form replays 24 jobs of at most 30 s (about three minutes of real time); the slow
form replays the 60-job workload twice, which also measures Slurm's own
noise, and 24 jobs under priority/multifactor with age and job-size weights.
The daemons are stopped by process id when the fixture ends, also
after a failure; the tests skip, saying why, where they cannot run (not
root, slurm-wlm or munge not installed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from schedlab.validation.agreement import Agreement
from schedlab.validation.slurm_cluster import (
    SleepJob,
    SlurmCluster,
    SlurmJobRecord,
    unavailable_reason,
)
from schedlab.validation.slurm_validation import (
    VALIDATION_CONFIG,
    VALIDATION_CPUS,
    compare_with_slurm,
    self_agreement,
    slurm_policy_spec,
    validation_workload,
)
from schedlab.workload.slurmconf import SlurmConfig

from .parting import slurmctld_log, unexplained_parting

pytestmark = pytest.mark.skipif(unavailable_reason() is not None,
                                reason=str(unavailable_reason()))

@dataclass(frozen=True)
class Replay:
    """Slurm's records of the jobs, slurmctld's log, and the ``slurm`` policy of the
    validation's slurm.conf on the replay's clock (:func:`slurm_policy_spec`)."""

    records: list[SlurmJobRecord]
    log: str
    policy: dict[str, Any]


def replay(tmp_path_factory: pytest.TempPathFactory, jobs: list[SleepJob],
           config: SlurmConfig = VALIDATION_CONFIG) -> Replay:
    directory = tmp_path_factory.mktemp("slurm")
    with SlurmCluster(directory, cpus=VALIDATION_CPUS,
                      scheduling=config.conf_lines()) as cluster:
        records = cluster.replay(jobs)
        started = cluster.controller_start()
    params = {**config.policy_params(), "cpus_per_node": VALIDATION_CPUS}
    return Replay(records, slurmctld_log(directory),
                  slurm_policy_spec(params, records, controller_start=started))


def workload(jobs: int) -> list[SleepJob]:
    """The CI form's jobs sleep at most 30 s; the slow form's 50 s."""
    return validation_workload(jobs, max_runtime=30 if jobs < 60 else 50)


@pytest.fixture(scope="module")
def ci_replay(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    return replay(tmp_path_factory, workload(24))


def compared(run: Replay) -> dict[str, Agreement]:
    """The slurm policy, fcfs+easy and fcfs+conservative against Slurm, after checking
    that the policy's schedule parts from Slurm's first at the end's-second race
    (tests/validation/parting.py), if at all."""
    parting = unexplained_parting(run.records, VALIDATION_CPUS, run.policy, run.log)
    assert parting is None, parting
    return compare_with_slurm(run.records, VALIDATION_CPUS, {
        "slurm": run.policy, "fcfs+easy": "fcfs+easy",
        "fcfs+conservative": "fcfs+conservative"})


def test_every_job_ran_as_submitted(ci_replay: Replay) -> None:
    jobs = workload(24)
    assert [r.id for r in ci_replay.records] == [job.id for job in jobs]
    for record, job in zip(ci_replay.records, jobs):
        assert record.state == "COMPLETED"
        assert (record.cpus, record.limit_minutes) == (job.cpus, job.limit_minutes)
        assert job.runtime <= record.end - record.start <= job.runtime + 1
        assert record.start >= record.submit


def test_slurm_policy_agrees_with_slurm(ci_replay: Replay) -> None:
    # Measured on this form: 71 % of starts within 2 s, 98 % of pairs in order, a mean
    # wait 0.7 % off; EASY and conservative 84-87 % of pairs and a mean wait 40 % too low.
    # With the main scheduler's delay (batch_sched_delay) and its periodic pass counted
    # from slurmctld's start, seven replays kept: every start within 2 s, every pair in
    # order, mean waits 0.6 % to 2.4 % low; a CI run's replay, not kept, gave 67 % of
    # starts, 96 % of pairs and a mean wait 7.6 % high.
    # The bounds leave room for Slurm's own noise (docs/background/validation.md): on a
    # loaded machine the same form once gave 58 % of starts, 98 % of pairs and a mean
    # wait 12 % off, the mean of 24 waits moving with Slurm's second-by-second timing;
    # under a load of five the same form gave 94.2 % of pairs, and two fresh replays of
    # one Fair Tree form agree with each other on 91.0 % of pairs.  So the order's bound
    # is Slurm's own agreement, and the textbook policies' 84-87 % stay below it.
    found = compared(ci_replay)
    slurm = found["slurm"]
    assert slurm.pairs_in_order >= 0.9, slurm
    assert abs(slurm.mean_wait_difference) <= 0.2, slurm
    assert slurm.starts_within >= 0.4, slurm
    for textbook in ("fcfs+easy", "fcfs+conservative"):
        assert slurm.pairs_in_order > found[textbook].pairs_in_order, found
        assert abs(slurm.mean_wait_difference) < abs(found[textbook].mean_wait_difference)


@pytest.mark.slow
def test_full_validation_is_within_slurms_own_noise(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # What holds on every replay kept (docs/background/validation.md, "The end's
    # second"): the policy's schedule is Slurm's up to the first end whose order against
    # the next scheduler call in its second whole seconds cannot carry (compared checks
    # it); after it a chain of starts may move by a second, or by a bf_resolution slot
    # where a job's window crosses one.  The order and the mean wait are then within
    # Slurm's own noise and closer than textbook backfilling; starts within 2 s (23 % to
    # 100 % so far, Slurm against itself 10 % and 33 %) are reported, not asserted.
    first = replay(tmp_path_factory, workload(60))
    second = replay(tmp_path_factory, workload(60))
    noise = self_agreement(first.records, second.records)
    found = compared(first)
    slurm = found["slurm"]
    assert slurm.pairs_in_order >= min(0.95, noise.pairs_in_order), (found, noise)
    assert abs(slurm.mean_wait_difference) <= max(0.06, 2 * abs(noise.mean_wait_difference))
    for textbook in ("fcfs+easy", "fcfs+conservative"):
        assert slurm.pairs_in_order > found[textbook].pairs_in_order, found
        assert abs(slurm.mean_wait_difference) < abs(found[textbook].mean_wait_difference)


def test_stopping_cancels_the_jobs_and_stops_the_daemons(tmp_path: Path) -> None:
    with SlurmCluster(tmp_path, cpus=4) as cluster:
        cluster.submit(SleepJob(1, 0, 2917, 60, 2))
        pids = cluster.pids
        assert set(pids) == {"munged", "slurmctld", "slurmd"}
        deadline = time.monotonic() + 30
        while not sleeping(2917) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert sleeping(2917)
    for pid in pids.values():
        assert not Path(f"/proc/{pid}").exists() or "zombie" in status(pid)
    assert not sleeping(2917)


def sleeping(seconds: int) -> bool:
    """Whether a ``sleep SECONDS`` process runs (read from /proc)."""
    wanted = f"sleep\0{seconds}\0".encode()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == wanted:
                return True
        except OSError:
            continue
    return False


def status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"


@pytest.mark.slow
def test_multifactor_priority_agrees(tmp_path_factory: pytest.TempPathFactory) -> None:
    # Without slurmdbd Slurm drops the age weight; the job-size weight orders the queue.
    # Two replays so far: 100 % and 93 % of pairs in order, mean wait -2.5 % and -9.5 %;
    # FIFO priority on the same jobs 72 % and 78 % of pairs.
    config = SlurmConfig(bf_interval=1, priority="priority/multifactor",
                         weight_job_size=1000, max_age=600, priority_calc_period=60)
    run = replay(tmp_path_factory, validation_workload(24, max_runtime=40), config)
    found = compared(run)
    found.update(compare_with_slurm(run.records, VALIDATION_CPUS, {
        "basic": {**run.policy, "priority": "basic"}}))
    multifactor = found["slurm"]
    assert multifactor.pairs_in_order >= 0.9, found
    assert multifactor.pairs_in_order >= found["basic"].pairs_in_order + 0.1, found
    assert abs(multifactor.mean_wait_difference) <= 0.12, found
