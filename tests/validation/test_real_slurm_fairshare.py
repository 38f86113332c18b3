"""Fair-share in the slurm policy against a real Slurm with slurmdbd on MariaDB
(docs/background/validation.md, "Fair-share").

``SlurmCluster`` with accounts starts a private MariaDB and ``slurmdbd``
besides ``munged``, ``slurmctld`` and ``slurmd``, and registers three
accounts of 60, 30 and 10 shares (root a user of each).  Sleep jobs charged
to the accounts in turn are replayed under multifactor priority with the
fair-share weight alone (Fair Tree, usage halved every 5 minutes,
recomputed every minute); the same jobs are simulated with the ``slurm``
policy given the cluster's own association tree (``sacctmgr show assoc``)
and its decay thread's times.  The history is exported with ``sacct`` and
read back with the sacct importer.  The CI form replays 20 jobs of at most
30 s (about four minutes); the slow form replays 36 jobs twice, which also
measures Slurm's own noise.  Every daemon is stopped by process id when the
fixture ends, also after a failure; the tests skip, saying why, where they
cannot run (not root, a package missing).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from schedlab.interop import read_sacct
from schedlab.validation.agreement import Agreement
from schedlab.validation.slurm_cluster import SlurmCluster, SlurmJobRecord, unavailable_reason
from schedlab.validation.slurm_validation import (
    FAIR_SHARE_ACCOUNTS,
    FAIR_SHARE_CONFIG,
    VALIDATION_CPUS,
    compare_with_slurm,
    fair_share_factor_agreement,
    recorded_workload,
    self_agreement,
    slurm_policy_spec,
    validation_workload,
)
from schedlab.workload.slurmassoc import Association, read_associations
from schedlab.workload.slurmconf import SlurmConfig

from .parting import slurmctld_log, unexplained_parting

pytestmark = pytest.mark.skipif(unavailable_reason(accounting=True) is not None,
                                reason=str(unavailable_reason(accounting=True)))


@dataclass(frozen=True)
class Replay:
    """What one replay left: Slurm's records, its association and sacct exports, the
    Unix times its decay thread ran, the fair-share factors it logged and slurmctld's
    log."""

    records: list[SlurmJobRecord]
    associations: Path
    history: Path
    decay_runs: list[int]
    factors: list[tuple[int, int, str, float]]
    log: str


def replay(tmp_path_factory: pytest.TempPathFactory, jobs: int, max_runtime: int,
           config: SlurmConfig = FAIR_SHARE_CONFIG) -> Replay:
    directory = tmp_path_factory.mktemp("slurmdbd")
    with SlurmCluster(directory, cpus=VALIDATION_CPUS, scheduling=config.conf_lines(),
                      accounts=FAIR_SHARE_ACCOUNTS) as cluster:
        records = cluster.replay(validation_workload(
            jobs, max_runtime=max_runtime, accounts=tuple(FAIR_SHARE_ACCOUNTS)))
        associations = directory / "assoc.txt"
        associations.write_text(cluster.associations_text(), encoding="utf-8")
        history = directory / "history.sacct"
        history.write_text(cluster.sacct_text(min(r.submit for r in records)),
                           encoding="utf-8")
        return Replay(records, associations, history, cluster.decay_runs(),
                      cluster.fair_share_factors(), slurmctld_log(directory))


@pytest.fixture(scope="module")
def ci_replay(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    return replay(tmp_path_factory, 20, 30)


def compared(run: Replay, config: SlurmConfig = FAIR_SHARE_CONFIG) -> dict[str, Agreement]:
    """The slurm policy with fair-share, without it, and fcfs+easy against Slurm, after
    checking that its schedule parts from Slurm's first at the end's-second race
    (tests/validation/parting.py), if at all."""
    params = {**config.policy_params(), "cpus_per_node": VALIDATION_CPUS,
              "associations": tuple(read_associations(run.associations).associations)}
    fair = slurm_policy_spec(params, run.records, run.decay_runs)
    parting = unexplained_parting(run.records, VALIDATION_CPUS, fair, run.log)
    assert parting is None, parting
    return compare_with_slurm(run.records, VALIDATION_CPUS, {
        "fair-share": fair, "no fair-share": {**fair, "weight_fairshare": 0},
        "fcfs+easy": "fcfs+easy"})


def test_the_cluster_keeps_the_accounts_and_their_shares(ci_replay: Replay) -> None:
    table = read_associations(ci_replay.associations)
    assert table.warnings == []
    assert set(table.associations) == {
        Association("root", "root", 1, "root"),
        *(Association(account, "", shares, "root")
          for account, shares in FAIR_SHARE_ACCOUNTS.items()),
        *(Association(account, "root", 1, account) for account in FAIR_SHARE_ACCOUNTS)}
    assert len(ci_replay.decay_runs) >= 3
    gaps = {b - a for a, b in zip(ci_replay.decay_runs, ci_replay.decay_runs[1:])}
    assert gaps <= {59, 60, 61}


def test_the_sacct_importer_reads_the_real_history(ci_replay: Replay) -> None:
    # sacct's output of the run is the same schedule the completion log has: run time,
    # limit, CPUs and account of every job, and its submission, which Slurm records on
    # its coarse clock: in the second slurmctld logged it in or the one before.
    history = read_sacct(ci_replay.history)
    recorded = recorded_workload(ci_replay.records, VALIDATION_CPUS)
    assert sum(history.skipped.values()) == 0

    def rows(workload: object) -> list[tuple[int, int, int, str]]:
        names = workload.names["account"]      # type: ignore[attr-defined]
        return sorted((job.runtime, job.estimate, job.width, names[job.account - 1])
                      for job in workload.jobs)  # type: ignore[attr-defined]

    def submits(workload: object) -> list[int]:
        return sorted(workload.unix_start_time + job.submit   # type: ignore[attr-defined]
                      for job in workload.jobs)  # type: ignore[attr-defined]

    assert rows(history) == rows(recorded)
    assert {logged - kept for kept, logged in zip(submits(history), submits(recorded))} \
        <= {0, 1}
    assert history.names["user"] == ("root",)


def test_the_fair_share_factors_are_slurms(ci_replay: Replay) -> None:
    # Given the jobs as Slurm ran them, the policy's usage and Fair Tree ranks give the
    # factor slurmctld logged for every pending job at every decay run and submission
    # (all 39 of them on the replays measured; a job ending in the second of a run may
    # fall on either side of it).  Charging usage at a job's end, which Slurm does only
    # with AccountingStorageEnforce=limits, would miss a quarter of them.
    table = read_associations(ci_replay.associations).associations
    assert len(ci_replay.factors) >= 20
    same = fair_share_factor_agreement(ci_replay.records, table, ci_replay.factors,
                                       FAIR_SHARE_CONFIG, ci_replay.decay_runs)
    assert same >= 0.9
    charged_at_end = replace(FAIR_SHARE_CONFIG, enforce_limits=True)
    assert fair_share_factor_agreement(ci_replay.records, table, ci_replay.factors,
                                       charged_at_end, ci_replay.decay_runs) < same


def test_fair_share_policy_agrees_with_slurm(ci_replay: Replay) -> None:
    # Measured on this form: 92 % of pairs in order, a mean wait 8 % off and 45 % of
    # starts within 2 s (without the fair-share weight: 84 % of pairs, 15 % off); with the
    # main scheduler's delay, eight replays kept: 75 % to 100 % of starts, 96.8 % to 100 %
    # of pairs, mean waits 2.7 % low to 13.8 % high, each parting first at an end's
    # second (docs/background/validation.md, "The end's second").  Under
    # fair-share Slurm's own noise is wide (two replays of 36 jobs: 81 % of pairs, mean
    # waits 19 % apart; docs/background/validation.md): the bounds leave room for it.
    found = compared(ci_replay)
    fair = found["fair-share"]
    assert fair.pairs_in_order >= 0.8, found
    assert fair.pairs_in_order >= found["no fair-share"].pairs_in_order, found
    assert abs(fair.mean_wait_difference) <= 0.25, found
    assert fair.starts_within >= 0.15, found


@pytest.mark.slow
def test_full_fair_share_validation(tmp_path_factory: pytest.TempPathFactory) -> None:
    first = replay(tmp_path_factory, 36, 40)
    second = replay(tmp_path_factory, 36, 40)
    noise = self_agreement(first.records, second.records)
    table = read_associations(first.associations).associations
    assert fair_share_factor_agreement(first.records, table, first.factors,
                                       FAIR_SHARE_CONFIG, first.decay_runs) >= 0.9
    # Three replays of these jobs gave the policy 100 %, 84 % and 78 % of pairs in order
    # and mean waits 2 %, 17 % and 2 % off, while two pairs of Slurm replays agreed on
    # 81 % and on 100 % (docs/background/validation.md): the order is not asserted
    # against Slurm's own noise, which can be nil.
    found = compared(first)
    fair = found["fair-share"]
    assert fair.pairs_in_order >= 0.75, (found, noise)
    assert abs(fair.mean_wait_difference) <= max(0.2, 2 * abs(noise.mean_wait_difference))


@pytest.mark.slow
def test_classic_fair_share_validation(tmp_path_factory: pytest.TempPathFactory) -> None:
    # PriorityFlags=NO_FAIR_TREE on the CI form's jobs.  Measured once: all 41 logged
    # factors the policy's (the accounts' part a run behind, as slurmctld computes it),
    # 70 % of starts within 2 s, 98.3 % of pairs in order, a mean wait 0.2 % off.
    classic = replace(FAIR_SHARE_CONFIG, fair_tree=False)
    run = replay(tmp_path_factory, 20, 30, classic)
    table = read_associations(run.associations).associations
    assert fair_share_factor_agreement(run.records, table, run.factors, classic,
                                       run.decay_runs) >= 0.9
    fair = compared(run, classic)["fair-share"]
    assert fair.pairs_in_order >= 0.8 and abs(fair.mean_wait_difference) <= 0.25, fair
