"""Where the slurm policy first parts from Slurm's records (tests/validation/parting.py),
on schedules made by hand from the policy's own, and on a hand-written slurmctld log."""

from __future__ import annotations

from dataclasses import replace

from schedlab.validation.slurm_cluster import SlurmJobRecord
from schedlab.validation.slurm_validation import (
    VALIDATION_CONFIG,
    VALIDATION_CPUS,
    recorded_workload,
    simulated_starts,
    slurm_policy_spec,
)

from .parting import Parting, backfilled_after_an_end, first_parting

#: 2001-09-09T01:46:40 UTC, a whole minute.
ORIGIN = 1_000_000_000

# Three jobs on the 16 CPUs: two of them all of it, one after the other, then a 4-CPU
# job that waits behind the second's reservation.
JOBS = [(1, 0, 16, 10), (2, 1, 16, 10), (3, 2, 4, 5)]      # id, submit, CPUs, run time


def policy_records() -> tuple[list[SlurmJobRecord], dict[str, object]]:
    """Slurm records that are the policy's own schedule of ``JOBS``, and the policy."""
    records = [SlurmJobRecord(job, ORIGIN + submit, ORIGIN + submit, ORIGIN + submit + run,
                              cpus, 1, "COMPLETED") for job, submit, cpus, run in JOBS]
    spec = slurm_policy_spec({**VALIDATION_CONFIG.policy_params(),
                              "cpus_per_node": VALIDATION_CPUS}, records)
    starts = simulated_starts(recorded_workload(records, VALIDATION_CPUS), spec)
    run = {job: time for job, _, _, time in JOBS}
    return [replace(r, start=ORIGIN + starts[r.id], end=ORIGIN + starts[r.id] + run[r.id])
            for r in records], spec


def moved(records: list[SlurmJobRecord], job: int, by: int) -> list[SlurmJobRecord]:
    return [replace(r, start=r.start + by, end=r.end + by) if r.id == job else r
            for r in records]


def test_the_policys_own_schedule_does_not_part() -> None:
    records, spec = policy_records()
    assert [r.start - ORIGIN for r in records] == [0, 10, 20]
    assert first_parting(records, VALIDATION_CPUS, spec) is None


def test_a_start_a_second_apart_at_an_end_is_the_race() -> None:
    # (A submission's second counts too: Slurm's backfill pass may come milliseconds
    # before a submission in it, the policy's after.)
    records, spec = policy_records()
    parting = first_parting(moved(records, 3, 1), VALIDATION_CPUS, spec)
    assert parting == Parting(20, ((3, 21, 20),), frozenset({10, 20, 26}), frozenset({0, 1, 2}))
    assert parting.at_an_event() and parting.one_second()
    assert parting.at_an_end_race("", ORIGIN)


def test_a_parting_away_from_an_event_is_not() -> None:
    records, spec = policy_records()
    for by in (-1, -5):
        early = first_parting(moved(records, 3, by), VALIDATION_CPUS, spec)
        assert early is not None and early.second == 20 + by and not early.at_an_event()
        assert not early.at_an_end_race("", ORIGIN)
    # The policy's call in an end's second, Slurm's later: the race, however long after.
    late = first_parting(moved(records, 3, 5), VALIDATION_CPUS, spec)
    assert late is not None and late.second == 20 and late.at_an_event()
    assert not late.one_second() and late.at_an_end_race("", ORIGIN)


LOG = """\
[2001-09-09T01:47:00.233] _job_complete: JobId=2 WEXITSTATUS 0
[2001-09-09T01:47:00.234] _job_complete: JobId=2 done
[2001-09-09T01:47:00.749] sched/backfill: _start_job: Started JobId=3 in batch on schedlab1
"""


def test_the_log_shows_a_backfill_start_after_an_end_in_its_second() -> None:
    # Second 20 from the origin is 01:47:00: job 2 ended at .234, the pass started job 3
    # at .749.
    assert backfilled_after_an_end(LOG, 20, ORIGIN, [3])
    assert not backfilled_after_an_end(LOG, 20, ORIGIN, [4])
    assert not backfilled_after_an_end(LOG, 19, ORIGIN, [3])
    before = "\n".join(reversed(LOG.splitlines()))
    assert not backfilled_after_an_end(before, 20, ORIGIN, [3])
    # Slurm started job 3 at 20, the policy five seconds later: the race the log shows.
    parting = Parting(20, ((3, 20, 25),), frozenset({20}), frozenset())
    assert parting.at_an_end_race(LOG, ORIGIN)
    assert not parting.at_an_end_race(before, ORIGIN)
