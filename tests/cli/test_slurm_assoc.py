"""``--slurm-assoc``: the slurm policy's fair-share over an association tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Three jobs on a 16-CPU machine, each needing all of it: ann (physics) runs first and
#: again next; bob (chem) submits before ann's second job.
HISTORY = """\
JobID|Submit|Start|End|Elapsed|TimelimitRaw|NCPUS|State|User|Account
1|2024-06-01T00:00:00|2024-06-01T00:00:00|2024-06-01T00:02:00|00:02:00|5|16|COMPLETED|ann|physics
2|2024-06-01T00:00:10|2024-06-01T00:02:00|2024-06-01T00:03:00|00:01:00|5|16|COMPLETED|ann|physics
3|2024-06-01T00:00:20|2024-06-01T00:03:00|2024-06-01T00:04:00|00:01:00|5|16|COMPLETED|bob|chem
"""
CONF = """\
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityWeightFairshare=10000
PriorityCalcPeriod=1
SchedulerParameters=bf_interval=1
"""
ASSOC = """\
Account|User|Share|ParentName
physics||1|root
physics|ann|1|
chem||1|root
chem|bob|1|
"""


def files(tmp_path: Path, history: str = HISTORY, assoc: str = ASSOC) -> list[str]:
    paths = []
    for name, text in (("history.sacct", history), ("slurm.conf", CONF),
                       ("assoc.txt", assoc)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def starts(out: Path) -> list[str]:
    return [row.split(",")[2] for row in (out / "jobs.csv").read_text().splitlines()[1:]]


def test_fair_share_lets_the_idle_account_go_first(tmp_path: Path) -> None:
    # From the decay run at 60 physics has used the machine and chem has not: bob's job
    # goes before ann's second one.  With the weight set to 0, submission order.
    history, conf, assoc = files(tmp_path)
    out = tmp_path / "out"
    result = invoke("simulate", history, "--slurm-conf", conf, "--slurm-assoc", assoc,
                    "--procs", "16", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert starts(out) == ["0", "180", "120"]
    plain = invoke("simulate", history, "--slurm-conf", conf, "--slurm-assoc", assoc,
                   "--procs", "16", "--param", "weight_fairshare=0", "--out", str(out))
    assert plain.exit_code == 0, plain.output
    assert starts(out) == ["0", "120", "180"]


def test_without_a_table_each_account_gets_one_share(tmp_path: Path) -> None:
    history, conf, _ = files(tmp_path)
    out = tmp_path / "out"
    result = invoke("simulate", history, "--slurm-conf", conf, "--procs", "16",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    assert starts(out) == ["0", "180", "120"]


def test_a_bad_table_exits_2_naming_file_line_and_column(tmp_path: Path) -> None:
    history, conf, assoc = files(tmp_path, assoc=ASSOC.replace("chem||1|", "chem||lots|"))
    result = invoke("simulate", history, "--slurm-conf", conf, "--slurm-assoc", assoc)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"schedlab: error: {assoc}:4: field Share: expected a "
                                    f"whole number of shares")


def test_a_history_without_users_under_a_table_exits_2(tmp_path: Path) -> None:
    no_user = "\n".join("|".join(f for k, f in enumerate(line.split("|")) if k != 8)
                        for line in HISTORY.splitlines()) + "\n"
    history, conf, assoc = files(tmp_path, history=no_user)
    result = invoke("simulate", history, "--slurm-conf", conf, "--slurm-assoc", assoc)
    assert result.exit_code == 2
    assert "field User: missing column: the association table needs each job's User" \
        in result.stderr


def test_the_table_is_for_the_slurm_policy_and_its_confs(tmp_path: Path) -> None:
    history, _, assoc = files(tmp_path)
    other = invoke("simulate", history, "--slurm-assoc", assoc, "--policy", "fcfs")
    assert other.exit_code == 2 and "--slurm-assoc configures the 'slurm' policy" in other.stderr
    alone = invoke("compare", history, "--slurm-assoc", assoc)
    assert alone.exit_code == 2 and "--slurm-assoc gives the associations" in alone.stderr


def test_compare_gives_every_conf_the_table(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("compare", str(EXAMPLES / "slurm-history.txt"),
                    "--slurm-conf", str(EXAMPLES / "slurm-fairshare.conf"),
                    "--slurm-conf", str(EXAMPLES / "slurm-no-fairshare.conf"),
                    "--slurm-assoc", str(EXAMPLES / "slurm-assoc.txt"), "--out", str(out))
    assert result.exit_code == 0, result.output
    fair = starts(out / "slurm_slurm-fairshare.conf")
    plain = starts(out / "slurm_slurm-no-fairshare.conf")
    assert fair != plain


def test_validate_slurm_keeps_accounting_for_a_fair_share_conf(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A conf with the fair-share weight and slurmdbd gets a cluster with the three
    accounts, and the policy the cluster's association tree (Slurm's records, export and
    log here stand in for a real replay)."""
    from schedlab.validation import slurm_cluster

    started: list[object] = []
    records = [slurm_cluster.SlurmJobRecord(1, 1000, 1000, 1060, 16, 2, "COMPLETED", "astro"),
               slurm_cluster.SlurmJobRecord(2, 1001, 1060, 1090, 16, 1, "COMPLETED", "bio")]
    tree = ("Cluster|Account|User|Partition|Share|ParentName\n"
            "schedlab|astro|||60|root\nschedlab|astro|root||1|\n"
            "schedlab|bio|||30|root\nschedlab|bio|root||1|\n")
    monkeypatch.setattr(slurm_cluster, "unavailable_reason", lambda accounting=False: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "start",
                        lambda self: started.append(self.accounts))
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "stop", lambda self: None)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "replay", lambda self, jobs: records)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "associations_text", lambda self: tree)
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "sacct_text", lambda self, since: "x")
    monkeypatch.setattr(slurm_cluster.SlurmCluster, "decay_runs", lambda self: [1030])
    _, conf, _ = files(tmp_path)
    out = tmp_path / "out"
    result = invoke("validate", "slurm", "--jobs", "2", "--conf", conf, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert started == [{"astro": 60, "bio": 30, "chem": 10}]
    assert (out / "assoc.txt").read_text() == tree
    assert "agreement with Slurm" in result.stdout
