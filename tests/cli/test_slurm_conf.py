"""``schedlab simulate --slurm-conf``: the slurm policy configured from a slurm.conf."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import invoke, record


def workload(tmp_path: Path) -> Path:
    path = tmp_path / "small.swf"
    path.write_text("; MaxProcs: 16\n" + "\n".join(record(j, 10 * j) for j in range(1, 9))
                    + "\n", encoding="utf-8")
    return path


def test_the_conf_configures_the_slurm_policy(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("SchedulerParameters=bf_interval=1,bf_yield_sleep=1\n"
                    "NodeName=n1 CPUs=16\n", encoding="utf-8")
    result = invoke("simulate", str(workload(tmp_path)), "--slurm-conf", str(conf))
    assert result.exit_code == 0, result.output
    assert "slurm" in result.stdout
    assert f"{conf}:1: SchedulerParameters bf_yield_sleep: not modelled" in result.stderr


def test_a_malformed_conf_exits_2_naming_file_line_and_key(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("SchedulerType=sched/backfill\nPriorityWeightAge=high\n", encoding="utf-8")
    result = invoke("simulate", str(workload(tmp_path)), "--slurm-conf", str(conf))
    assert result.exit_code == 2
    assert f"{conf}:2: field PriorityWeightAge: expected a whole number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_conf_is_for_the_slurm_policy_only(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("SchedulerParameters=bf_interval=1\n", encoding="utf-8")
    result = invoke("simulate", str(workload(tmp_path)), "--policy", "fcfs+easy",
                    "--slurm-conf", str(conf))
    assert result.exit_code == 2
    assert "--slurm-conf" in result.stderr


def test_validate_slurm_says_why_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from schedlab.validation import slurm_cluster

    monkeypatch.setattr(slurm_cluster, "unavailable_reason",
                        lambda accounting=False: "a real Slurm needs root")
    result = invoke("validate", "slurm", "--jobs", "4")
    assert result.exit_code == 2
    assert "cannot start a Slurm here: a real Slurm needs root" in result.stderr


def test_validate_slurm_reports_a_failed_cluster_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from schedlab.validation import slurm_cluster

    def fail(self: slurm_cluster.SlurmCluster) -> None:
        raise RuntimeError("slurmctld exited with status 1")

    monkeypatch.setattr(slurm_cluster, "unavailable_reason", lambda accounting=False: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "start", fail)
    result = invoke("validate", "slurm", "--jobs", "4")
    assert result.exit_code == 2
    assert "the test Slurm failed: slurmctld exited with status 1" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2     # the progress line, the error


def test_compare_runs_one_slurm_policy_per_conf(tmp_path: Path) -> None:
    first, second = tmp_path / "a.conf", tmp_path / "b.conf"
    first.write_text("SchedulerParameters=bf_interval=1\n", encoding="utf-8")
    second.write_text("SchedulerType=sched/builtin\n", encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("compare", str(workload(tmp_path)), "--slurm-conf", str(first),
                    "--slurm-conf", str(second), "--out", str(out))
    assert result.exit_code == 0, result.output
    labels = [line.split(",")[0] for line in
              (out / "metrics.csv").read_text(encoding="utf-8").splitlines()[1:]]
    assert labels == ["slurm:a.conf", "slurm:b.conf"]
    params = (out / "slurm_b.conf" / "metrics.json").read_text(encoding="utf-8")
    assert '"backfill": false' in params


PARTITIONED = """\
NodeName=n[1-4] CPUs=4
PartitionName=a Nodes=n[1-2] Default=YES
PartitionName=b Nodes=n[3-4] PriorityTier=2 MaxTime=10
"""
#: Job 2 (a, 4 CPUs) cannot start beside job 1 (a, 6 CPUs); job 3 (b) starts at the main
#: scheduler's next call, 3 s after its last (job 1's submission, at 0): at 3, not at its
#: submission (batch_sched_delay; with it 0, at 2).
HISTORY = """\
JobID|Submit|Start|End|Timelimit|NCPUS|State|Partition
1|1000|1000|1100|00:02:00|6|COMPLETED|a
2|1001|1100|1110|00:01:00|4|COMPLETED|a
3|1002|1002|1012|00:01:00|8|COMPLETED|b
"""


def test_a_history_replays_in_its_partitions(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text(PARTITIONED, encoding="utf-8")
    history = tmp_path / "history.sacct"
    history.write_text(HISTORY, encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("simulate", str(history), "--slurm-conf", str(conf), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    rows = (out / "jobs.csv").read_text().splitlines()[1:]
    assert [row.split(",")[2] for row in rows] == ["0", "100", "3"]
    conf.write_text(PARTITIONED + "SchedulerParameters=batch_sched_delay=0\n", encoding="utf-8")
    result = invoke("simulate", str(history), "--slurm-conf", str(conf), "--out", str(out))
    assert result.exit_code == 0 and result.stderr == "", result.output
    rows = (out / "jobs.csv").read_text().splitlines()[1:]
    assert [row.split(",")[2] for row in rows] == ["0", "100", "2"]


def test_a_history_without_partitions_under_partitions_exits_2(tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text(PARTITIONED, encoding="utf-8")
    history = tmp_path / "history.sacct"
    history.write_text("\n".join(line.rsplit("|", 1)[0] for line in HISTORY.splitlines())
                       + "\n", encoding="utf-8")
    result = invoke("simulate", str(history), "--slurm-conf", str(conf))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"schedlab: error: {history}:1: field Partition: "
                                    f"missing column: the "
                                    f"slurm.conf's partitions need each job's Partition")
    assert len(result.stderr.strip().splitlines()) == 1


QOS_TABLE = "Name|Priority|MaxJobsPU\nnormal|10|\nsolo|20|1\n"
#: Jobs 1 and 2 of alice in QOS solo: one at a time; job 3 (bob, normal) at the main
#: scheduler's next call, 3 s after job 1's submission (as HISTORY's job 3).
QOS_HISTORY = """\
JobID|Submit|Start|End|Timelimit|NCPUS|State|User|QOS
1|1000|1000|1100|00:02:00|2|COMPLETED|alice|solo
2|1001|1100|1110|00:01:00|2|COMPLETED|alice|solo
3|1002|1002|1012|00:01:00|2|COMPLETED|bob|normal
"""


def test_a_history_replays_under_its_qos(tmp_path: Path) -> None:
    qos = tmp_path / "qos.txt"
    qos.write_text(QOS_TABLE, encoding="utf-8")
    history = tmp_path / "history.sacct"
    history.write_text(QOS_HISTORY, encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("simulate", str(history), "--slurm-qos", str(qos), "--procs", "16",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = (out / "jobs.csv").read_text().splitlines()[1:]
    assert [row.split(",")[2] for row in rows] == ["0", "100", "3"]


def test_qos_needs_the_qos_column_and_the_slurm_policy(tmp_path: Path) -> None:
    qos = tmp_path / "qos.txt"
    qos.write_text(QOS_TABLE, encoding="utf-8")
    history = tmp_path / "history.sacct"
    history.write_text("\n".join(line.rsplit("|", 1)[0] for line in QOS_HISTORY.splitlines())
                       + "\n", encoding="utf-8")
    result = invoke("simulate", str(history), "--slurm-qos", str(qos), "--procs", "16")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"schedlab: error: {history}:1: field QOS: missing "
                                    f"column: the QOS table needs each job's QOS")
    other = invoke("simulate", str(history), "--slurm-qos", str(qos), "--policy", "fcfs")
    assert other.exit_code == 2 and "--slurm-qos configures the 'slurm' policy" in other.stderr


def test_validate_slurm_replays_a_partitioned_conf_on_its_one_node(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test cluster is one node: a conf's partitions are named in a warning and the
    simulation runs without them (Slurm's records here stand in for a real replay)."""
    from schedlab.validation import slurm_cluster

    records = [slurm_cluster.SlurmJobRecord(1, 1000, 1000, 1060, 2, 2, "COMPLETED"),
               slurm_cluster.SlurmJobRecord(2, 1001, 1001, 1031, 2, 1, "COMPLETED")]
    monkeypatch.setattr(slurm_cluster, "unavailable_reason", lambda accounting=False: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "start", lambda self: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "stop", lambda self: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "replay", lambda self, jobs: records)
    conf = tmp_path / "slurm.conf"
    conf.write_text(PARTITIONED, encoding="utf-8")
    result = invoke("validate", "slurm", "--jobs", "2", "--conf", str(conf))
    assert result.exit_code == 0, result.output
    assert (f"warning: {conf}: PartitionName: the test cluster is one node in one "
            f"partition: the file's partitions are not replayed") in result.stderr
    assert "agreement with Slurm" in result.stdout


def test_compare_gives_every_conf_the_qos_table(tmp_path: Path) -> None:
    # Under QOS solo (one running job per user) alice's second job waits for her first;
    # both configurations get the table, so both show it.
    qos = tmp_path / "qos.txt"
    qos.write_text(QOS_TABLE, encoding="utf-8")
    history = tmp_path / "history.sacct"
    history.write_text(QOS_HISTORY, encoding="utf-8")
    first, second = tmp_path / "a.conf", tmp_path / "b.conf"
    first.write_text("NodeName=n1 CPUs=16\n", encoding="utf-8")
    second.write_text("NodeName=n1 CPUs=16\nSchedulerType=sched/builtin\n", encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("compare", str(history), "--slurm-conf", str(first), "--slurm-conf",
                    str(second), "--slurm-qos", str(qos), "--procs", "16", "--out", str(out))
    assert result.exit_code == 0, result.output
    for label in ("slurm_a.conf", "slurm_b.conf"):
        rows = (out / label / "jobs.csv").read_text().splitlines()[1:]
        assert [row.split(",")[2] for row in rows] == ["0", "100", "3"]
    alone = invoke("compare", str(history), "--slurm-qos", str(qos))
    assert alone.exit_code == 2 and "give at least one" in alone.stderr
