"""Reading the scheduling parameters of a slurm.conf (schedlab.workload.slurmconf)."""

from __future__ import annotations

from pathlib import Path

import pytest

from files import written
from schedlab.errors import InputError
from schedlab.policies.registry import make_policy
from schedlab.workload.slurmconf import Partition, SlurmConfig, read_slurm_conf

GOOD = """\
# a centre's file
ClusterName=centre
SlurmctldPort=6817
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_window=2880,bf_resolution=300,\\
  bf_max_job_test=100,bf_continue,default_queue_depth=50,sched_interval=30,bf_yield_sleep=1
SelectType=select/cons_tres
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=500
PriorityWeightFairshare=10000
PriorityWeightPartition=300
PriorityWeightAssoc=5
PriorityDecayHalfLife=1-0
PriorityUsageResetPeriod=monthly
PriorityFlags=NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME
AccountingStorageEnforce=associations,safe
PriorityMaxAge=14-0
PriorityFavorSmall=YES
FrobnicateLevel=3
NodeName=n[1-4,7] CPUs=32 State=UNKNOWN
PartitionName=batch Nodes=n[1-4,7] Default=YES MaxTime=INFINITE PriorityTier=2 State=UP \
  PriorityJobFactor=3
"""


def write(tmp_path: Path, text: str) -> Path:
    return written(tmp_path, "slurm.conf", text)


def test_scheduling_parameters_are_read(tmp_path: Path) -> None:
    conf = read_slurm_conf(write(tmp_path, GOOD))
    assert (conf.bf_interval, conf.bf_window, conf.bf_resolution, conf.bf_max_job_test) \
        == (1, 2880, 300, 100)
    assert conf.bf_continue and (conf.default_queue_depth, conf.sched_interval) == (50, 30)
    assert (conf.priority, conf.weight_age, conf.weight_job_size) \
        == ("priority/multifactor", 1000, 500)
    assert conf.max_age == 14 * 86400 and conf.favor_small
    assert (conf.nodes, conf.cpus_per_node, conf.processors) == (5, 32, 160)
    assert (conf.weight_fairshare, conf.weight_partition, conf.decay_half_life) \
        == (10000, 300, 86400)
    assert conf.usage_reset_period == "MONTHLY" and not conf.fair_tree
    assert conf.enforce_limits
    assert conf.partitions[0].priority_job_factor == 3


def test_what_is_not_modelled_is_warned_about_by_name(tmp_path: Path) -> None:
    warnings = read_slurm_conf(write(tmp_path, GOOD)).warnings
    named = [w.split(": ")[1] for w in warnings]
    assert named == ["SchedulerParameters bf_yield_sleep", "PriorityWeightAssoc",
                     "PriorityFlags SMALL_RELATIVE_TO_TIME", "FrobnicateLevel"]
    assert warnings[0].startswith(f"{tmp_path / 'slurm.conf'}:5: ")


@pytest.mark.parametrize("key", ["PriorityWeightAge", "PriorityWeightFairshare"])
def test_age_and_fairshare_weights_need_slurmdbd_as_in_slurm(tmp_path: Path, key: str) -> None:
    conf = read_slurm_conf(write(tmp_path, f"PriorityType=priority/multifactor\n{key}=1000\n"))
    assert (conf.weight_age, conf.weight_fairshare) == (0, 0)
    assert f"{key}: Slurm ignores it without AccountingStorageType" in conf.warnings[0]


def test_fair_share_keys_round_trip_through_conf_lines(tmp_path: Path) -> None:
    conf = SlurmConfig(priority="priority/multifactor", weight_fairshare=5000,
                       decay_half_life=600, usage_reset_period="DAILY", fair_tree=False,
                       enforce_limits=True)
    text = "AccountingStorageType=accounting_storage/slurmdbd\n" + "\n".join(conf.conf_lines())
    again = read_slurm_conf(write(tmp_path, text))
    assert (again.weight_fairshare, again.decay_half_life, again.usage_reset_period,
            again.fair_tree, again.enforce_limits) == (5000, 600, "DAILY", False, True)
    assert again.warnings == []


@pytest.mark.parametrize(("line", "key"), [
    ("PriorityUsageResetPeriod=FORTNIGHTLY", "PriorityUsageResetPeriod"),
    ("PriorityDecayHalfLife=soon", "PriorityDecayHalfLife"),
    ("PriorityWeightFairshare=lots", "PriorityWeightFairshare")])
def test_bad_fair_share_keys_name_file_line_and_key(tmp_path: Path, line: str, key: str) -> None:
    with pytest.raises(InputError) as raised:
        read_slurm_conf(write(tmp_path, f"ClusterName=x\n{line}\n"))
    assert (raised.value.line, raised.value.field) == (2, key)


def test_defaults_are_slurms() -> None:
    params = SlurmConfig().policy_params()
    assert params["backfill"] and params["priority"] == "basic"
    assert (params["bf_interval"], params["bf_window"], params["bf_max_job_test"]) \
        == (30, 1440, 500)


@pytest.mark.parametrize(("text", "minutes", "grace"), [
    ("OverTimeLimit=5\nKillWait=10\n", 5, 300), ("OverTimeLimit=unlimited\n", -1, 2**53)])
def test_over_time_limit_and_kill_wait_reach_the_policy(tmp_path: Path, text: str,
                                                        minutes: int, grace: int) -> None:
    conf = read_slurm_conf(write(tmp_path, text))
    assert conf.over_time_limit == minutes and not conf.warnings
    policy = make_policy({"name": "slurm", **conf.policy_params()})
    assert policy.kill_grace == grace
    assert policy.get_params()["kill_wait"] == (10 if minutes == 5 else 30)


PARTITIONS = """\
NodeName=n[01-04] CPUs=8
NodeName=gpu1 CPUs=8
PartitionName=DEFAULT MaxTime=2:00:00 State=UP
PartitionName=batch Nodes=n[01-04] Default=YES
PartitionName=debug Nodes=n01,gpu1 PriorityTier=5 MaxTime=30 DefaultTime=10
PartitionName=all Nodes=ALL MaxTime=UNLIMITED State=DRAIN
"""


def test_partitions_are_read_with_their_nodes_limits_and_tiers(tmp_path: Path) -> None:
    conf = read_slurm_conf(write(tmp_path, PARTITIONS))
    assert conf.partitions == [
        Partition("batch", nodes=(0, 1, 2, 3), max_time=7200, default=True),
        Partition("debug", nodes=(0, 4), max_time=1800, priority_tier=5),
        Partition("all", nodes=(), max_time=0)]
    assert [w.split(": ", 1)[1] for w in conf.warnings] == [
        "PartitionName defaulttime: not modelled (ignored)",
        "PartitionName State: State=DRAIN is not modelled: the partition is taken as UP"]
    assert conf.warnings[0].startswith(f"{tmp_path / 'slurm.conf'}:5: ")
    policy = make_policy({"name": "slurm", **conf.policy_params()})
    assert policy.get_params()["partitions"] == tuple(conf.partitions)


def test_the_qos_weight_is_modelled(tmp_path: Path) -> None:
    conf = read_slurm_conf(write(tmp_path, "PriorityType=priority/multifactor\n"
                                           "PriorityWeightQOS=2000\n"))
    assert conf.weight_qos == 2000 and not conf.warnings
    assert "PriorityWeightQOS=2000" in conf.conf_lines()
    basic = read_slurm_conf(write(tmp_path, "PriorityWeightQOS=5\n"))
    assert basic.warnings == [f"{tmp_path / 'slurm.conf'}: PriorityWeight*: ignored under "
                              f"priority/basic"]


def test_the_parameters_build_the_policy(tmp_path: Path) -> None:
    policy = make_policy({"name": "slurm", **read_slurm_conf(write(tmp_path, GOOD))
                          .policy_params()})
    assert policy.get_params()["bf_resolution"] == 300


@pytest.mark.parametrize(("text", "line", "key"), [
    ("SchedulerType=sched/backfill\nthis is not a key\n", 2, "this"),
    ("PriorityWeightAge=lots\n", 1, "PriorityWeightAge"),
    ("SchedulerParameters=bf_interval=0\n", 1, "SchedulerParameters bf_interval"),
    ("SchedulerParameters=bf_window=x\n", 1, "SchedulerParameters bf_window"),
    ("PriorityType=priority/fancy\n", 1, "PriorityType"),
    ("PriorityFavorSmall=maybe\n", 1, "PriorityFavorSmall"),
    ("NodeName=n[1-x] CPUs=4\n", 1, "NodeName"),
    ("NodeName=n1 CPUs=four\n", 1, "CPUs"),
    ("OverTimeLimit=5m\n", 1, "OverTimeLimit"),
    ("KillWait=-3\n", 1, "KillWait"),
    ("NodeName=n1 CPUs=4\nPartitionName=p Nodes=n2\n", 2, "Nodes"),
    ("NodeName=n1 CPUs=4\nPartitionName=p\n", 2, "Nodes"),
    ("NodeName=n1\nPartitionName=p Nodes=n1\nPartitionName=p Nodes=n1\n", 3,
     "PartitionName"),
    ("NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=high\n", 2, "PriorityTier"),
    ("NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=soon\n", 2, "MaxTime"),
    ("NodeName=n1\nPartitionName=p Nodes=n1 Default=sure\n", 2, "Default"),
])
def test_a_bad_line_names_file_line_and_key(tmp_path: Path, text: str, line: int,
                                            key: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_slurm_conf(path)
    assert (caught.value.file, caught.value.line, caught.value.field) == (str(path), line, key)
    assert str(caught.value).startswith(f"{path}:{line}: field {key}: ")


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.conf"
    with pytest.raises(InputError) as caught:
        read_slurm_conf(missing)
    assert str(caught.value) == f"{missing}: no such slurm.conf"


def test_a_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_bytes(b"ClusterName=c\r\nPartitionName=b\xe9 Nodes=ALL\r\n")
    with pytest.raises(InputError) as caught:
        read_slurm_conf(path)
    assert str(caught.value) == f"{path}:2: the slurm.conf is not UTF-8 text (byte 0xe9)"


def test_crlf_line_ends_and_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_bytes(b"\xef\xbb\xbfSchedulerParameters=bf_interval=7\r\nFrob=1\r\n")
    conf = read_slurm_conf(path)
    assert conf.bf_interval == 7 and conf.warnings[0].startswith(f"{path}:2: Frob: ")


def test_conf_lines_read_back_the_same(tmp_path: Path) -> None:
    conf = read_slurm_conf(write(tmp_path, GOOD))
    again = read_slurm_conf(write(tmp_path, "\n".join(conf.conf_lines()) + "\n"))
    # (the lines carry no accounting storage: the age and fair-share weights are dropped,
    # as Slurm does; nodes and partitions are the validation cluster's own)
    assert again.policy_params() == {**conf.policy_params(), "cpus_per_node": 0,
                                     "weight_age": 0, "weight_fairshare": 0, "partitions": ()}
    assert [w.split(": ")[1] for w in again.warnings] == ["PriorityWeightAge",
                                                          "PriorityWeightFairshare"]
