"""Where the ``slurm`` policy's schedule first parts from a real Slurm's, and whether
slurmctld's log shows that parting at an end's second (docs/background/validation.md,
"The end's second").

Slurm records whole seconds, and so does the simulation; slurmctld's log has
milliseconds.  Whether a job's end comes before or after the backfill pass, or the
background thread's call of the main scheduler, in the same second is decided by
where in their second the end and the two timers fall: the policy takes one rule for
it (an ended job's CPUs are still busy for the backfill pass of its end's second,
``completing``), and each replay on which the two part first does so at such a second.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.validation.slurm_cluster import SlurmJobRecord, _utc
from schedlab.validation.slurm_validation import recorded_workload, simulated_starts

_STAMP = r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+\] "
_ENDED = re.compile(_STAMP + r"_job_complete: JobId=(\d+) done")
_BACKFILLED = re.compile(_STAMP + r"sched/backfill: _start_job: Started JobId=(\d+) ")


@dataclass(frozen=True)
class Parting:
    """The first second at which the two schedules differ (seconds from the first
    submission), the jobs started then by one of them and not the other, as
    ``(job, Slurm's start, the policy's start)``, and the seconds Slurm's jobs ended
    and were submitted in."""

    second: int
    jobs: tuple[tuple[int, int, int], ...]
    ends: frozenset[int]
    submits: frozenset[int]

    def at_an_event(self) -> bool:
        """A job ended or was submitted in the parting's second (Slurm's records)."""
        return self.second in self.ends or self.second in self.submits

    def one_second(self) -> bool:
        """Every job parting there starts one second apart in the two schedules."""
        return all(abs(slurm - policy) == 1 for _, slurm, policy in self.jobs)

    def at_an_end_race(self, log: str, origin: int) -> bool:
        """Whether the parting is the event's-second race: in the second of a job's end
        or submission, every job parting there starts a second apart (the event and the
        next scheduler call fell in the same second in one schedule, in the next in the
        other); or, in an end's second, the policy started it then and Slurm later (the
        policy's call in the end's second, Slurm's after it), or slurmctld's ``log``
        shows it started by Slurm's backfill pass after the end (``origin``: the first
        submission's Unix time)."""
        at_an_end = self.second in self.ends
        return self.at_an_event() and all(
            abs(slurm - policy) == 1
            or (at_an_end and (policy == self.second or backfilled_after_an_end(
                log, self.second, origin, [job])))
            for job, slurm, policy in self.jobs)


def slurmctld_log(directory: Path) -> str:
    """slurmctld's log in a cluster's ``directory`` (empty where it wrote none)."""
    log = directory / "slurmctld.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""


def first_parting(records: Sequence[SlurmJobRecord], processors: int,
                  spec: Mapping[str, Any]) -> Parting | None:
    """Where the ``slurm`` policy ``spec``'s schedule of the jobs first differs from
    Slurm's; None where every start is Slurm's."""
    starts = simulated_starts(recorded_workload(records, processors), spec)
    origin = min(record.submit for record in records)
    slurm = {record.id: record.start - origin for record in records}
    differ = [(min(slurm[job], starts[job]), job) for job in slurm if slurm[job] != starts[job]]
    if not differ:
        return None
    second = min(differ)[0]
    return Parting(second,
                   tuple((job, slurm[job], starts[job]) for at, job in sorted(differ)
                         if at == second),
                   frozenset(record.end - origin for record in records),
                   frozenset(record.submit - origin for record in records))


def backfilled_after_an_end(log: str, second: int, origin: int,
                            jobs: Sequence[int]) -> bool:
    """Whether slurmctld's ``log`` shows one of ``jobs`` started by the backfill pass in
    the wall-clock second ``origin + second``, after a job's end logged in that same
    second: the start the policy, in whole seconds, puts a second later (job ids are
    Slurm's, which a fresh cluster gives in submission order)."""
    ended = False
    for line in log.splitlines():
        end, start = _ENDED.match(line), _BACKFILLED.match(line)
        if end and _utc(end.group(1)) == origin + second:
            ended = True
        elif start and ended and _utc(start.group(1)) == origin + second \
                and int(start.group(2)) in jobs:
            return True
    return False


def unexplained_parting(records: Sequence[SlurmJobRecord], processors: int,
                        spec: Mapping[str, Any], log: str) -> Parting | None:
    """The first parting of the policy ``spec``'s schedule from Slurm's when it is not
    the end's-second race, else None: every kept replay parts there first (or not at
    all), and a parting anywhere else is a difference whole seconds can carry."""
    parting = first_parting(records, processors, spec)
    if parting is None or parting.at_an_end_race(log, min(r.submit for r in records)):
        return None
    return parting
