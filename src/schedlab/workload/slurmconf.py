"""The scheduling parameters of a real ``slurm.conf``, for the ``slurm`` policy.

:func:`read_slurm_conf` reads the lines of a ``slurm.conf`` that decide
when jobs start (the slurm.conf man page, "SchedulerParameters",
"PriorityType"; docs/reference/policies/slurm.md lists them) into a
:class:`SlurmConfig`, whose :meth:`SlurmConfig.policy_params` are the
parameters of the ``slurm`` policy.  A key the policy does not model is
never dropped silently: it is listed in :attr:`SlurmConfig.warnings`
by name (the CLI prints them).  Keys that only run the daemons (ports,
paths, authentication, logging, plugins for processes and tasks) change
no schedule and are skipped without a warning (:data:`DAEMON_KEYS`).

A line that is not ``Key=Value`` (or a ``NodeName=``/``PartitionName=``
line of such pairs), or a value that is not what the key takes, is an
:class:`~schedlab.errors.InputError` naming the file, line and key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple

from schedlab.errors import InputError
from schedlab.textio import read_text

#: Keys that configure the daemons and no scheduling decision (slurm.conf man page).
DAEMON_KEYS = frozenset(key.lower() for key in (
    "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr", "BackupController",
    "SlurmUser", "SlurmdUser", "AuthType", "AuthInfo", "AuthAltTypes", "AuthAltParameters",
    "CredType", "CryptoType", "SlurmctldPort", "SlurmdPort", "StateSaveLocation",
    "SlurmdSpoolDir", "SlurmctldPidFile", "SlurmdPidFile", "SlurmctldLogFile",
    "SlurmdLogFile", "SlurmctldDebug", "SlurmdDebug", "SlurmSchedLogFile", "SlurmSchedLogLevel",
    "ProctrackType", "TaskPlugin", "TaskPluginParam", "MpiDefault", "ReturnToService",
    "SwitchType", "JobCompType", "JobCompLoc", "JobCompHost", "JobCompPort", "JobCompUser",
    "JobCompPass", "JobAcctGatherType", "JobAcctGatherFrequency",
    "AccountingStorageHost", "AccountingStoragePort", "AccountingStorageUser",
    "AccountingStoragePass", "AccountingStorageTRES",
    "SlurmdParameters", "SlurmctldParameters",
    "MailProg", "Epilog", "Prolog", "PrologFlags", "EpilogSlurmctld", "PrologSlurmctld",
    "InactiveLimit", "MinJobAge", "SlurmctldTimeout", "SlurmdTimeout", "Waittime",
    "MessageTimeout", "TCPTimeout", "UnkillableStepTimeout", "Include", "PluginDir",
    "PlugStackConfig", "CommunicationParameters", "LaunchParameters", "DebugFlags",
    "MaxJobCount", "FirstJobId", "MaxArraySize", "HealthCheckProgram", "HealthCheckInterval",
    "HealthCheckNodeState", "SlurmdLogFile", "SlurmctldAddr", "TmpFS", "SrunPortRange",
))

#: SchedulerParameters the policy models, with their kind and Slurm's default
#: (slurm.conf man page, "SchedulerParameters").  ``bf_window`` is in minutes.
SCHEDULER_PARAMETERS: dict[str, tuple[type, Any]] = {
    "sched_interval": (int, 60),
    "default_queue_depth": (int, 100),
    "batch_sched_delay": (int, 3),
    "bf_interval": (int, 30),
    "bf_window": (int, 1440),
    "bf_resolution": (int, 60),
    "bf_max_job_test": (int, 500),
    "bf_max_job_user": (int, 0),
    "bf_min_prio_reserve": (int, 0),
    "bf_continue": (bool, False),
}

#: Priority weights and settings read from PriorityType=priority/multifactor lines.
_PRIORITY_KEYS = {"priorityweightage": "weight_age", "priorityweightjobsize": "weight_job_size",
                  "priorityweightqos": "weight_qos", "priorityweightfairshare": "weight_fairshare",
                  "priorityweightpartition": "weight_partition"}
#: Priority factors the policy does not model: a non-zero weight is warned about.
_UNMODELLED_WEIGHTS = ("PriorityWeightAssoc", "PriorityWeightTRES")
#: PriorityFlags the policy models: NO_FAIR_TREE chooses classic fair-share (FAIR_TREE,
#: the default since Slurm 19.05, is accepted as it is).
_MODELLED_FLAGS = ("FAIR_TREE", "NO_FAIR_TREE")
#: PriorityUsageResetPeriod values (the slurm.conf man page).
RESET_PERIODS = ("NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY")

_LINE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_DURATION = re.compile(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?")


class Partition(NamedTuple):
    """One ``PartitionName`` line as the ``slurm`` policy models it.

    ``nodes`` are node positions in the order of the NodeName lines (empty: every
    node); ``max_time`` is MaxTime in seconds (0: none); ``priority_tier`` is
    PriorityTier (Slurm's default 1); ``default`` is ``Default=YES``;
    ``priority_job_factor`` is PriorityJobFactor (Slurm's default 1), the partition
    priority factor's numerator.
    """

    name: str
    nodes: tuple[int, ...] = ()
    max_time: int = 0
    priority_tier: int = 1
    default: bool = False
    priority_job_factor: int = 1


#: PartitionName options the policy models (the others are warned about).
PARTITION_KEYS = ("partitionname", "nodes", "maxtime", "prioritytier", "default", "state",
                  "priorityjobfactor")


@dataclass
class SlurmConfig:
    """What a ``slurm.conf`` says about scheduling; the defaults are Slurm's."""

    scheduler: str = "sched/backfill"
    priority: str = "priority/basic"
    sched_interval: int = 60
    default_queue_depth: int = 100
    batch_sched_delay: int = 3
    bf_interval: int = 30
    bf_window: int = 1440
    bf_resolution: int = 60
    bf_max_job_test: int = 500
    bf_max_job_user: int = 0
    bf_min_prio_reserve: int = 0
    bf_continue: bool = False
    weight_age: int = 0
    weight_job_size: int = 0
    weight_qos: int = 0
    weight_fairshare: int = 0
    weight_partition: int = 0
    #: Fair Tree (Slurm's default) or classic fair-share (PriorityFlags=NO_FAIR_TREE).
    fair_tree: bool = True
    #: PriorityDecayHalfLife in seconds (0: no decay) and PriorityUsageResetPeriod.
    decay_half_life: int = 7 * 24 * 3600
    usage_reset_period: str = "NONE"
    #: AccountingStorageEnforce includes limits (limits, safe, all, 2): Slurm then also
    #: charges a job's usage at its end, not only at the decay thread's runs.
    enforce_limits: bool = False
    max_age: int = 7 * 24 * 3600
    priority_calc_period: int = 300
    favor_small: bool = False
    #: OverTimeLimit in minutes (-1: UNLIMITED) and KillWait in seconds.
    over_time_limit: int = 0
    kill_wait: int = 30
    #: CPUs of the cluster's nodes (NodeName lines) and how many nodes there are.
    cpus_per_node: int = 0
    nodes: int = 0
    #: The PartitionName lines, in file order (none: one partition of every node).
    partitions: list[Partition] = field(default_factory=list)
    #: What the file sets that the policy does not model: one line per key.
    warnings: list[str] = field(default_factory=list)

    @property
    def processors(self) -> int:
        """Every CPU of every node (0 when the file has no NodeName line)."""
        return self.cpus_per_node * self.nodes

    def conf_lines(self) -> list[str]:
        """The scheduling lines of a slurm.conf that say what this configuration says:
        what a validation cluster is given (docs/background/validation.md)."""
        params = ",".join(name if kind is bool else f"{name}={getattr(self, name)}"
                          for name, (kind, _) in SCHEDULER_PARAMETERS.items()
                          if kind is not bool or getattr(self, name))
        return [f"SchedulerType={self.scheduler}", f"PriorityType={self.priority}",
                f"SchedulerParameters={params}",
                f"PriorityWeightAge={self.weight_age}",
                f"PriorityWeightJobSize={self.weight_job_size}",
                f"PriorityWeightQOS={self.weight_qos}",
                f"PriorityWeightFairshare={self.weight_fairshare}",
                f"PriorityWeightPartition={self.weight_partition}",
                f"PriorityDecayHalfLife={self.decay_half_life // 60}",
                f"PriorityUsageResetPeriod={self.usage_reset_period}",
                *([] if self.fair_tree else ["PriorityFlags=NO_FAIR_TREE"]),
                *(["AccountingStorageEnforce=limits"] if self.enforce_limits else []),
                f"PriorityMaxAge={self.max_age // 60}",
                f"PriorityFavorSmall={'YES' if self.favor_small else 'NO'}",
                f"PriorityCalcPeriod={max(1, self.priority_calc_period // 60)}",
                "OverTimeLimit=" + ("UNLIMITED" if self.over_time_limit < 0
                                    else str(self.over_time_limit)),
                f"KillWait={self.kill_wait}"]

    def policy_params(self) -> dict[str, Any]:
        """The ``slurm`` policy's parameters from this configuration."""
        skip = {"warnings", "nodes", "bf_continue"}   # (no effect: a pass is never cut)
        params = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        params["partitions"] = tuple(self.partitions)
        params["backfill"] = params.pop("scheduler") == "sched/backfill"
        params["priority"] = params["priority"].removeprefix("priority/")
        return params


def read_slurm_conf(path: str | Path) -> SlurmConfig:
    """The scheduling parameters of the ``slurm.conf`` at ``path`` (see the module)."""
    source = str(path)
    text = read_text(path, "slurm.conf")
    conf = SlurmConfig()
    reader = _Reader(conf, source)
    for number, raw in enumerate(_joined_lines(text), start=1):
        line = raw[1].split("#", 1)[0].strip()
        if line:
            reader.line(raw[0] or number, line)
    reader.finish()
    return conf


def _joined_lines(text: str) -> list[tuple[int, str]]:
    """``(first line number, text)`` with backslash continuations joined."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        first, before = pending if pending is not None else (number, "")
        if line.rstrip().endswith("\\"):
            pending = (first, before + line.rstrip()[:-1] + " ")
            continue
        joined.append((first, before + line))
        pending = None
    if pending is not None:
        joined.append(pending)
    return joined


class _Reader:
    """Reads lines into a :class:`SlurmConfig`, naming file, line and key on errors."""

    def __init__(self, conf: SlurmConfig, source: str) -> None:
        self.conf = conf
        self.source = source
        self.node_cpus: set[int] = set()
        self.node_names: dict[str, int] = {}        # node name -> position
        self.partition_defaults: dict[str, str] = {}
        self.accounting = "accounting_storage/none"

    def error(self, line: int, key: str, message: str) -> InputError:
        return InputError(message, file=self.source, line=line, field=key)

    def warn(self, line: int, key: str, why: str) -> None:
        self.conf.warnings.append(f"{self.source}:{line}: {key}: {why}")

    def line(self, number: int, text: str) -> None:
        match = _LINE.match(text)
        if match is None:
            raise self.error(number, text.split()[0][:40], "expected Key=Value")
        key, value = match.groups()
        lower = key.lower()
        if lower == "nodename":
            self.node_line(number, text)
        elif lower == "partitionname":
            self.partition_line(number, text)
        elif lower == "schedulertype":
            self.choice(number, key, value, ("sched/backfill", "sched/builtin"), "scheduler")
        elif lower == "prioritytype":
            self.choice(number, key, value, ("priority/basic", "priority/multifactor"),
                        "priority")
        elif lower == "schedulerparameters":
            self.scheduler_parameters(number, value)
        elif lower in _PRIORITY_KEYS:
            setattr(self.conf, _PRIORITY_KEYS[lower], self.integer(number, key, value))
        elif lower == "prioritymaxage":
            self.conf.max_age = self.duration(number, key, value)
        elif lower == "prioritycalcperiod":
            self.conf.priority_calc_period = max(1, self.duration(number, key, value))
        elif lower == "selecttypeparameters":
            if "memory" in value.lower():
                self.warn(number, key, "memory as a consumable resource is not modelled: "
                                       "only CPUs are")
        elif lower == "overtimelimit":
            self.conf.over_time_limit = self.minutes_or_unlimited(number, key, value)
        elif lower == "killwait":
            self.conf.kill_wait = self.integer(number, key, value)
        elif lower == "priorityfavorsmall":
            self.conf.favor_small = self.boolean(number, key, value)
        elif lower == "prioritydecayhalflife":
            self.conf.decay_half_life = self.duration(number, key, value)
        elif lower == "priorityusageresetperiod":
            self.choice(number, key, value.upper(), RESET_PERIODS, "usage_reset_period")
        elif lower == "priorityflags":
            self.priority_flags(number, key, value)
        elif lower == "accountingstorageenforce":
            tokens = {item.strip().lower() for item in value.split(",")}
            self.conf.enforce_limits = bool(tokens & {"limits", "2", "safe", "all"})
        elif lower in (name.lower() for name in _UNMODELLED_WEIGHTS):
            if self.integer(number, key, value) != 0:
                self.warn(number, key, "not modelled: this factor's weight is taken as 0")
        elif lower == "accountingstoragetype":
            self.accounting = value
        elif lower == "selecttype":
            if value not in ("select/cons_tres", "select/cons_res"):
                self.warn(number, key, f"{value} is not modelled: CPUs are scheduled as "
                                       f"select/cons_tres does")
        elif lower not in DAEMON_KEYS:
            self.warn(number, key, "not modelled by the slurm policy (ignored)")

    def choice(self, number: int, key: str, value: str, choices: tuple[str, ...],
               attribute: str) -> None:
        if value not in choices:
            raise self.error(number, key, f"expected one of {', '.join(choices)}, got "
                                          f"{value!r}")
        setattr(self.conf, attribute, value)

    def priority_flags(self, number: int, key: str, value: str) -> None:
        """PriorityFlags: NO_FAIR_TREE chooses classic fair-share; every other flag is
        warned about by name."""
        for flag in filter(None, (item.strip().upper() for item in value.split(","))):
            if flag == "NO_FAIR_TREE":
                self.conf.fair_tree = False
            elif flag not in _MODELLED_FLAGS:
                self.warn(number, f"PriorityFlags {flag}", "not modelled (ignored)")

    def integer(self, number: int, key: str, value: str) -> int:
        if not (value.isascii() and value.isdigit()):
            raise self.error(number, key, f"expected a whole number >= 0, got {value!r}")
        return int(value)

    def minutes_or_unlimited(self, number: int, key: str, value: str) -> int:
        """Whole minutes, or ``UNLIMITED`` (-1)."""
        if value.upper() == "UNLIMITED":
            return -1
        if not (value.isascii() and value.isdigit()):
            raise self.error(number, key, f"expected whole minutes or UNLIMITED, got {value!r}")
        return int(value)

    def boolean(self, number: int, key: str, value: str) -> bool:
        if value.upper() not in ("YES", "NO"):
            raise self.error(number, key, f"expected YES or NO, got {value!r}")
        return value.upper() == "YES"

    def duration(self, number: int, key: str, value: str) -> int:
        """A Slurm time (``days-hours``, ``days-hours:minutes``, ``minutes``...) in seconds."""
        match = _DURATION.fullmatch(value)
        if match is None:
            raise self.error(number, key, f"expected a time like 7-0 or 60, got {value!r}")
        days, first, second, third = match.groups()
        if days is not None:
            hours, minutes, seconds = int(first), int(second or 0), int(third or 0)
            return ((int(days) * 24 + hours) * 60 + minutes) * 60 + seconds
        parts = [int(p) for p in (first, second, third) if p is not None]
        if len(parts) == 1:
            return parts[0] * 60
        if len(parts) == 2:
            return parts[0] * 60 + parts[1]
        return (parts[0] * 60 + parts[1]) * 60 + parts[2]

    def scheduler_parameters(self, number: int, value: str) -> None:
        for item in filter(None, (part.strip() for part in value.split(","))):
            name, has_value, text = item.partition("=")
            known = SCHEDULER_PARAMETERS.get(name)
            if known is None:
                self.warn(number, f"SchedulerParameters {name}",
                          "not modelled by the slurm policy (ignored)")
                continue
            kind = known[0]
            if kind is bool:
                if has_value:
                    raise self.error(number, f"SchedulerParameters {name}",
                                     f"takes no value, got {text!r}")
                setattr(self.conf, name, True)
                continue
            amount = self.integer(number, f"SchedulerParameters {name}", text)
            if amount < 1 and name not in ("bf_max_job_user", "bf_min_prio_reserve",
                                             "batch_sched_delay"):
                raise self.error(number, f"SchedulerParameters {name}",
                                 f"expected a whole number >= 1, got {text!r}")
            setattr(self.conf, name, amount)

    def pairs(self, number: int, text: str) -> dict[str, str]:
        found = {}
        for item in text.split():
            key, has_value, value = item.partition("=")
            if not has_value:
                raise self.error(number, key[:40], "expected Key=Value")
            found[key.lower()] = value
        return found

    def node_line(self, number: int, text: str) -> None:
        pairs = self.pairs(number, text)
        if pairs["nodename"].upper() == "DEFAULT":
            return
        cpus = self.integer(number, "CPUs", pairs.get("cpus", "1"))
        self.node_cpus.add(cpus)
        for name in _expand_hosts(pairs["nodename"],
                                  self.error(number, "NodeName", "bad host list")):
            self.node_names.setdefault(name, len(self.node_names))
        self.conf.nodes = len(self.node_names)
        self.conf.cpus_per_node = max(self.node_cpus)
        if len(self.node_cpus) > 1:
            self.warn(number, "NodeName", "nodes of different CPU counts are not modelled: "
                                          f"every node taken with {max(self.node_cpus)} CPUs")

    def partition_line(self, number: int, text: str) -> None:
        """A PartitionName line (``PartitionName=DEFAULT`` sets the defaults of the lines
        after it, as in Slurm)."""
        pairs = self.pairs(number, text)
        for key in pairs:
            if key not in PARTITION_KEYS:
                self.warn(number, f"PartitionName {key}", "not modelled (ignored)")
        if pairs["partitionname"].upper() == "DEFAULT":
            self.partition_defaults.update(pairs)
            return
        pairs = {**self.partition_defaults, **pairs}
        name = pairs["partitionname"]
        if any(p.name == name for p in self.conf.partitions):
            raise self.error(number, "PartitionName", f"partition {name!r} is defined twice")
        state = pairs.get("state", "UP").upper()
        if state != "UP":
            self.warn(number, "PartitionName State", f"State={state} is not modelled: the "
                                                     f"partition is taken as UP")
        max_time = pairs.get("maxtime", "UNLIMITED")
        self.conf.partitions.append(Partition(
            name=name, nodes=self.partition_nodes(number, pairs.get("nodes", "")),
            max_time=(0 if max_time.upper() in ("INFINITE", "UNLIMITED")
                      else self.duration(number, "MaxTime", max_time)),
            priority_tier=self.integer(number, "PriorityTier", pairs.get("prioritytier", "1")),
            priority_job_factor=self.integer(number, "PriorityJobFactor",
                                             pairs.get("priorityjobfactor", "1")),
            default=self.boolean(number, "Default", pairs.get("default", "NO"))))

    def partition_nodes(self, number: int, hosts: str) -> tuple[int, ...]:
        """The positions of a partition's nodes (``ALL``: every node, the empty tuple)."""
        if hosts.upper() == "ALL":
            return ()
        if not hosts:
            raise self.error(number, "Nodes", "a partition needs Nodes=")
        positions = []
        for name in _expand_hosts(hosts, self.error(number, "Nodes", "bad host list")):
            if name not in self.node_names:
                raise self.error(number, "Nodes", f"node {name!r} is on no NodeName line "
                                                  f"before this one")
            positions.append(self.node_names[name])
        return tuple(sorted(set(positions)))

    def finish(self) -> None:
        for key, attribute in (("PriorityWeightAge", "weight_age"),
                               ("PriorityWeightFairshare", "weight_fairshare")):
            if getattr(self.conf, attribute) \
                    and self.accounting != "accounting_storage/slurmdbd":
                self.conf.warnings.append(f"{self.source}: {key}: Slurm ignores it without "
                                          f"AccountingStorageType=accounting_storage/"
                                          f"slurmdbd (slurmctld logs the same); taken as 0")
                setattr(self.conf, attribute, 0)
        if self.conf.priority == "priority/basic" and (
                self.conf.weight_age or self.conf.weight_job_size or self.conf.weight_qos
                or self.conf.weight_fairshare or self.conf.weight_partition):
            self.conf.warnings.append(f"{self.source}: PriorityWeight*: ignored under "
                                      f"priority/basic")


def _expand_hosts(hosts: str, error: InputError) -> list[str]:
    """The node names a Slurm host list names: ``n[1-3,7],m1`` is n1, n2, n3, n7, m1
    (``n[01-02]`` keeps the zeros: n01, n02)."""
    names = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", hosts):
        ranges = re.search(r"\[([^\]]*)\]", part)
        if ranges is None:
            names.append(part)
            continue
        prefix, suffix = part[:ranges.start()], part[ranges.end():]
        for piece in ranges.group(1).split(","):
            low, dash, high = piece.partition("-")
            if not (low.isdigit() and (not dash or high.isdigit())):
                raise error
            width = len(low)
            names += [f"{prefix}{number:0{width}d}{suffix}"
                      for number in range(int(low), int(high if dash else low) + 1)]
    return names
