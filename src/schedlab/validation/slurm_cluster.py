"""A real one-node Slurm cluster in a temporary directory, and a replay of sleep jobs into it.

The proof that the ``slurm`` policy schedules as Slurm does is Slurm itself:
:class:`SlurmCluster` writes a ``slurm.conf`` for one node with ``cpus``
fake CPUs (``SlurmdParameters=config_overrides``: the node claims CPUs the
machine does not have), starts ``munged``, ``slurmctld`` and ``slurmd`` in
the foreground as child processes, and stops exactly those processes, by
their process ids, when the ``with`` block ends, also after an error.
:meth:`SlurmCluster.replay` submits :class:`SleepJob` s with ``sbatch`` at
their submit times and reads back what Slurm did from its job-completion
log (``JobCompType=jobcomp/filetxt``).

Time is not compressed: one simulated second is one real second, because
Slurm's time limits are whole minutes and its backfill plans in
``bf_resolution`` slots of the wall clock.  Every time is read as Slurm
wrote it (whole seconds, the daemons run with ``TZ=UTC``).

With ``accounts`` (account name -> shares) the cluster also keeps accounting,
as a centre's does: it initialises a MariaDB data directory of its own
(``mariadb-install-db``), starts ``mariadbd`` on a private socket and port
with the ``slurm`` database user its init file creates, starts ``slurmdbd``
(``StorageType=accounting_storage/mysql``), registers the cluster and the
accounts with ``sacctmgr`` (root a user of each, one share) and points
``slurmctld`` at ``slurmdbd``: fair-share and ``sacct`` then work as on a
real cluster.  :meth:`SlurmCluster.associations_text` and
:meth:`SlurmCluster.sacct_text` export the association tree and the job
history as ``sacctmgr`` and ``sacct`` print them, and
:meth:`SlurmCluster.decay_runs` reads when the priority decay thread ran
(``DebugFlags=Priority``) from ``slurmctld``'s log.

Only root can run the daemons (``slurmd`` starts jobs as their users);
:func:`unavailable_reason` says why a machine cannot, for tests to skip with.
"""

from __future__ import annotations

import calendar
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from schedlab.errors import InputError

#: The programs a cluster needs: Debian's ``slurm-wlm`` and ``munge`` packages.
PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel",
            "squeue")
#: The node's name in the configuration (``slurmd -N`` takes it; the node is 127.0.0.1).
NODE_NAME = "schedlab1"
#: The one partition.
PARTITION = "batch"
#: Seconds to wait for the daemons to come up, and for a replay's last job past its
#: expected end, before giving up.
STARTUP_TIMEOUT = 30
DRAIN_TIMEOUT = 120
#: Seconds to wait for cancelled jobs to leave before the daemons are stopped.
CANCEL_TIMEOUT = 10
#: The programs accounting needs besides :data:`PROGRAMS`: Debian's ``mariadb-server``
#: and ``slurmdbd`` packages.
ACCOUNTING_PROGRAMS = ("mariadb-install-db", "mariadbd", "slurmdbd", "sacctmgr", "sacct")
#: The cluster's name (ClusterName; sacctmgr registers it).
CLUSTER = "schedlab"
#: The accounting database, and the database user slurmdbd connects as.
DATABASE = "slurm_acct_db"
DATABASE_USER = "slurm"
#: The columns :meth:`SlurmCluster.sacct_text` asks sacct for (the sacct importer's).
SACCT_FORMAT = ("JobID,Submit,Start,End,Elapsed,Timelimit,TimelimitRaw,NCPUS,NNodes,AllocCPUS,"
                "ReqCPUS,State,User,Group,Account,Partition,QOS,Priority")
#: The columns :meth:`SlurmCluster.associations_text` asks sacctmgr for.
ASSOC_FORMAT = "Cluster,Account,User,Partition,Share,ParentName"
#: The lines slurmctld logs (DebugFlags=Priority) at a run of its decay thread: each Fair
#: Tree run, and each classic run but the first.
_DECAY_RUN = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?\] .*"
                        r"(?:Fair Tree fairshare algorithm, starting at root|"
                        r"Decay factor over \S+ seconds)")
#: The line slurmctld logs as its initialisation ends, just before its background thread
#: starts counting the main scheduler's periodic passes.
_CONTROLLER_UP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?\] "
                            r"Running as primary controller")
#: The line slurmctld logs when it has accepted a batch job.
_SUBMITTED = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?\] "
                        r"_slurm_rpc_submit_batch_job: JobId=(\d+) ")
#: The line slurmctld logs (DebugFlags=Priority) when it computes a job's fair-share factor.
_FAIR_SHARE = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?\] .*"
                         r"Fairshare priority of job (\d+) for user \S+ in acct (\S+) is "
                         r"(?:2\*\*\(\S+\) = )?([0-9.]+)$")


def unavailable_reason(accounting: bool = False) -> str | None:
    """Why a real Slurm (with ``accounting``: and its database) cannot run here (not root,
    a program missing); None when it can."""
    if os.geteuid() != 0:
        return "a real Slurm needs root (slurmd starts jobs as their users)"
    missing = [name for name in PROGRAMS if _program(name) is None]
    if missing:
        return (f"{', '.join(missing)} not installed (Debian: apt-get install slurm-wlm "
                f"munge)")
    missing = [name for name in ACCOUNTING_PROGRAMS if accounting and _program(name) is None]
    if missing:
        return (f"{', '.join(missing)} not installed (Debian: apt-get install "
                f"mariadb-server slurmdbd)")
    return None


def _program(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(Path(d) / name) for d in ("/usr/sbin", "/sbin") if (Path(d) / name).exists()),
        None)


@dataclass(frozen=True)
class SleepJob:
    """One job of a replay: ``sleep runtime`` on ``cpus`` CPUs, submitted ``submit``
    seconds after the replay starts, with a time limit of ``limit_minutes``."""

    id: int
    submit: int
    runtime: int
    limit_minutes: int
    cpus: int
    #: The Slurm account it is charged to ("": the user's default).
    account: str = ""


@dataclass(frozen=True)
class SlurmJobRecord:
    """What Slurm recorded of one job, in Unix seconds (``account``: the replayed job's;
    after a replay ``submit`` is the second slurmctld logged the submission in,
    :meth:`SlurmCluster.submissions`)."""

    id: int
    submit: int
    start: int
    end: int
    cpus: int
    limit_minutes: int
    state: str
    account: str = ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SlurmCluster:
    """One slurmctld and one slurmd with ``cpus`` CPUs, under ``directory``.

    ``scheduling`` holds the scheduling lines of the ``slurm.conf`` (for
    example ``SchedulerParameters=bf_interval=1``; without a ``SchedulerType``
    line Slurm backfills); everything else — ports, paths, the node, the
    partition, ``SelectType=select/cons_tres`` with ``CR_CPU`` — is written
    here.  Use it in
    a ``with`` block: the daemons start on entry and are stopped by their
    process ids on exit.
    """

    def __init__(self, directory: str | Path, *, cpus: int = 16,
                 scheduling: Sequence[str] = ("SchedulerParameters=bf_interval=1",),
                 accounts: Mapping[str, int] | None = None) -> None:
        self.directory = Path(directory)
        self.cpus = cpus
        self.scheduling = tuple(scheduling)
        self.accounts = dict(accounts) if accounts is not None else None
        self._dbd_port = _free_port()
        self._db_port = _free_port()
        self.conf = self.directory / "slurm.conf"
        self.jobcomp = self.directory / "jobcomp.txt"
        self._processes: list[tuple[str, subprocess.Popen[bytes]]] = []
        #: The replayed job of each Slurm job id.
        self._replayed: dict[int, int] = {}
        self._env = {**os.environ, "SLURM_CONF": str(self.conf), "TZ": "UTC"}

    # ------------------------------------------------------------------ configuration
    def conf_text(self) -> str:
        """The whole ``slurm.conf``: the fixed cluster, then :attr:`scheduling`."""
        d = self.directory
        controller = socket.gethostname()
        lines = [
            "ClusterName=schedlab",
            f"SlurmctldHost={controller}(127.0.0.1)",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            f"AuthInfo=socket={d / 'munge.sock'}",
            "CredType=cred/munge",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "MpiDefault=none",
            "ReturnToService=2",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SlurmdParameters=config_overrides",
            "JobCompType=jobcomp/filetxt",
            f"JobCompLoc={self.jobcomp}",
            *(() if self.accounts is None else (
                "AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageHost=127.0.0.1",
                f"AccountingStoragePort={self._dbd_port}",
                f"AccountingStoragePass={d / 'munge.sock'}",   # (munge's socket for slurmdbd)
                "DebugFlags=Priority", "SlurmctldDebug=verbose")),
            *self.scheduling,
            f"NodeName={NODE_NAME} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName={PARTITION} Nodes={NODE_NAME} Default=YES MaxTime=INFINITE "
            f"State=UP",
        ]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ daemons
    def __enter__(self) -> SlurmCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def slurmdbd_conf_text(self) -> str:
        """``slurmdbd.conf``: slurmdbd on a free port, storing into the private MariaDB."""
        d = self.directory
        return "\n".join([
            "AuthType=auth/munge",
            f"AuthInfo=socket={d / 'munge.sock'}",
            "DbdHost=localhost",
            "DbdAddr=127.0.0.1",
            f"DbdPort={self._dbd_port}",
            "SlurmUser=root",
            f"LogFile={d / 'slurmdbd.log'}",
            f"PidFile={d / 'slurmdbd.pid'}",
            "StorageType=accounting_storage/mysql",
            "StorageHost=127.0.0.1",
            f"StoragePort={self._db_port}",
            f"StorageUser={DATABASE_USER}",
            f"StoragePass={self._db_password}",
            f"StorageLoc={DATABASE}",
        ]) + "\n"

    @property
    def _db_password(self) -> str:
        """The database user's password: the munge key's first bytes, fresh per cluster."""
        return (self.directory / "munge.key").read_bytes()[:12].hex()

    def start(self) -> None:
        """Write the configuration and a munge key; start munged (and, with accounts,
        mariadbd and slurmdbd), slurmctld and slurmd; return once the node takes jobs."""
        reason = unavailable_reason(self.accounts is not None)
        if reason is not None:
            raise RuntimeError(f"cannot start a Slurm cluster: {reason}")
        d = self.directory
        for sub in ("state", "spool"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        self.conf.write_text(self.conf_text(), encoding="utf-8")
        key = d / "munge.key"
        subprocess.run([_need("mungekey"), "--create", f"--keyfile={key}", "--force"],
                       check=True, capture_output=True)
        key.chmod(0o600)
        self._spawn("munged", ["-F", "-f", f"--socket={d / 'munge.sock'}", f"--key-file={key}",
                               f"--log-file={d / 'munged.log'}",
                               f"--pid-file={d / 'munged.pid'}",
                               f"--seed-file={d / 'munged.seed'}"])
        self._wait_for(lambda: (d / "munge.sock").exists(), "munged's socket")
        if self.accounts is not None:
            self._start_accounting()
        self._spawn("slurmctld", ["-D", "-i", "-f", str(self.conf)])
        self._spawn("slurmd", ["-D", "-N", NODE_NAME, "-f", str(self.conf)])
        self._wait_for(self._node_idle, "the node to be idle")

    def _start_accounting(self) -> None:
        """A private MariaDB and slurmdbd; the cluster and its accounts registered."""
        assert self.accounts is not None
        d = self.directory
        data = d / "mariadb"
        subprocess.run([_need("mariadb-install-db"), "--no-defaults", f"--datadir={data}",
                        "--user=root", "--skip-test-db",
                        "--auth-root-authentication-method=socket"],
                       check=True, capture_output=True, env=self._env)
        init = d / "mariadb-init.sql"
        init.write_text(f"CREATE USER '{DATABASE_USER}'@'127.0.0.1' IDENTIFIED BY "
                        f"'{self._db_password}';\n"
                        f"GRANT ALL ON {DATABASE}.* TO '{DATABASE_USER}'@'127.0.0.1';\n",
                        encoding="utf-8")
        self._spawn("mariadbd", ["--no-defaults", f"--datadir={data}",
                                 f"--socket={d / 'mariadb.sock'}", f"--port={self._db_port}",
                                 "--bind-address=127.0.0.1", "--skip-name-resolve",
                                 "--user=root", f"--pid-file={d / 'mariadb.pid'}",
                                 f"--log-error={d / 'mariadb.err'}", f"--init-file={init}",
                                 "--innodb-buffer-pool-size=32M"])
        self._wait_for(lambda: _listening(self._db_port), "mariadbd's port")
        dbd_conf = d / "slurmdbd.conf"          # (slurmdbd reads it beside slurm.conf)
        dbd_conf.write_text(self.slurmdbd_conf_text(), encoding="utf-8")
        dbd_conf.chmod(0o600)
        self._spawn("slurmdbd", ["-D"])
        self._wait_for(lambda: self._sacctmgr("show", "cluster").returncode == 0,
                       "slurmdbd to answer")
        self._sacctmgr_ok("add", "cluster", CLUSTER)
        for account, shares in self.accounts.items():
            self._sacctmgr_ok("add", "account", account, f"cluster={CLUSTER}",
                              f"fairshare={shares}")
            self._sacctmgr_ok("add", "user", "root", f"account={account}",
                              f"cluster={CLUSTER}", "fairshare=1")

    def _sacctmgr(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([_need("sacctmgr"), "-i", *args], env=self._env,
                              capture_output=True, text=True, timeout=60)

    def _sacctmgr_ok(self, *args: str) -> str:
        done = self._sacctmgr(*args)
        if done.returncode != 0:
            raise RuntimeError(f"sacctmgr {' '.join(args)} failed: "
                               f"{(done.stderr or done.stdout).strip()}")
        return done.stdout

    def associations_text(self) -> str:
        """The cluster's associations as ``sacctmgr show assoc --parsable2`` prints them
        (the columns of :data:`ASSOC_FORMAT`)."""
        return self._sacctmgr_ok("show", "assoc", "--parsable2", f"cluster={CLUSTER}",
                                 f"format={ASSOC_FORMAT}")

    def sacct_text(self, since: int) -> str:
        """Every job since the Unix time ``since`` as ``sacct -a -X --parsable2`` prints it
        (the columns of :data:`SACCT_FORMAT`), once slurmdbd has every ended job."""
        start = datetime.fromtimestamp(since - 60, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")

        def listing() -> str:
            done = subprocess.run([_need("sacct"), "-a", "-X", "--parsable2",
                                   f"--format={SACCT_FORMAT}", f"--starttime={start}"],
                                  env=self._env, capture_output=True, text=True, timeout=60)
            return done.stdout if done.returncode == 0 else ""

        wanted = len(self.completed())
        self._wait_for(lambda: listing().count("|COMPLETED|") >= wanted,
                       "slurmdbd to record every job")
        return listing()

    def fair_share_factors(self) -> list[tuple[int, int, str, float]]:
        """``(Unix time, job id, account, factor)`` of every fair-share factor slurmctld
        computed for a pending job of the last replay (at its submission and at each decay
        run), from its log; the job ids are the replayed jobs'."""
        return [(_utc(time_text), self._replayed[int(job)], account, float(factor))
                for time_text, job, account, factor in self._log_matches(_FAIR_SHARE)
                if int(job) in self._replayed]

    def _log_matches(self, pattern: re.Pattern[str]) -> list[tuple[str, ...]]:
        log = self.directory / "slurmctld.log"
        if not log.exists():
            return []
        text = log.read_text(encoding="utf-8", errors="replace")
        return [match.groups() for match in map(pattern.match, text.splitlines()) if match]

    def submissions(self) -> dict[int, int]:
        """The second slurmctld logged each job's submission in, by Slurm job id.

        Its records (the completion log, sacct) take ``time(NULL)``, the kernel's coarse
        clock, which lags the log's by up to a clock tick: a job submitted in the first
        milliseconds of a second, as a replay submits, is recorded in the second
        before, a second earlier than it could have started."""
        return {int(job): _utc(time_text)
                for time_text, job in self._log_matches(_SUBMITTED)}

    def controller_start(self) -> int | None:
        """The Unix second slurmctld's background thread started in, from its log (None
        before it has): the main scheduler's periodic passes come every
        ``sched_interval`` seconds from it (``last_full_sched_time`` in
        ``_slurmctld_background``, ``src/slurmctld/controller.c``)."""
        found = self._log_matches(_CONTROLLER_UP)
        return _utc(found[0][0]) if found else None

    def decay_runs(self) -> list[int]:
        """The Unix times (whole seconds) at which slurmctld's decay thread ran, from its
        log (with classic fair-share its first run logs nothing)."""
        return sorted({_utc(groups[0]) for groups in self._log_matches(_DECAY_RUN)})

    def _spawn(self, name: str, args: list[str]) -> None:
        log = open(self.directory / f"{name}.out", "wb")  # noqa: SIM115 (kept by the child)
        process = subprocess.Popen([_need(name), *args], stdout=log, stderr=subprocess.STDOUT,
                                   env=self._env, start_new_session=True)
        log.close()
        self._processes.append((name, process))

    def _node_idle(self) -> bool:
        done = subprocess.run([_need("scontrol"), "show", "node", NODE_NAME], env=self._env,
                              capture_output=True, text=True)
        return done.returncode == 0 and "State=IDLE" in done.stdout

    def _wait_for(self, ready: Callable[[], bool], what: str,
                  timeout: float = STARTUP_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [(name, p) for name, p in self._processes if p.poll() is not None]
            if dead:
                name, process = dead[0]
                raise RuntimeError(f"{name} exited with status {process.returncode} (logs "
                                   f"in {self.directory})")
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {timeout} s waiting for {what} (logs in "
                           f"{self.directory})")

    @property
    def pids(self) -> dict[str, int]:
        """The process id of every daemon this cluster started, by program."""
        return {name: process.pid for name, process in self._processes}

    def stop(self) -> None:
        """Cancel the jobs still in the cluster (a replay cut short leaves some), then
        stop the daemons this cluster started, newest first, by process id: SIGTERM, then
        SIGKILL after five seconds."""
        if any(name == "slurmctld" and p.poll() is None for name, p in self._processes):
            cancel = subprocess.run([_need("scancel"), f"--partition={PARTITION}"],
                                    env=self._env, capture_output=True, timeout=30)
            if cancel.returncode == 0:
                self._wait_quietly(lambda: not self._jobs_left(), CANCEL_TIMEOUT)
        for _, process in reversed(self._processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)
        self._processes.clear()

    def _jobs_left(self) -> bool:
        done = subprocess.run([_need("squeue"), "--noheader"], env=self._env,
                              capture_output=True, text=True, timeout=30)
        return done.returncode != 0 or bool(done.stdout.strip())

    @staticmethod
    def _wait_quietly(ready: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not ready():
            time.sleep(0.2)

    # ------------------------------------------------------------------ replay
    def replay(self, jobs: Iterable[SleepJob]) -> list[SlurmJobRecord]:
        """Submit ``jobs`` with ``sbatch`` at their submit times (seconds after the next
        whole second), wait until all have ended, and return Slurm's records in the order
        of ``jobs``."""
        ordered = sorted(jobs, key=lambda job: (job.submit, job.id))
        origin = int(time.time()) + 1
        slurm_ids: dict[int, int] = {}
        for job in ordered:
            delay = origin + job.submit - time.time()
            if delay > 0:
                time.sleep(delay)
            slurm_ids[job.id] = self.submit(job)
        last_end = origin + max((job.submit + job.limit_minutes * 60 for job in ordered),
                                default=0)
        self._replayed = {slurm: job for job, slurm in slurm_ids.items()}
        wanted = set(slurm_ids.values())
        self._wait_for(lambda: wanted <= set(self.completed()), "every job to end",
                       timeout=max(0.0, last_end - time.time()) + DRAIN_TIMEOUT
                       + sum(job.limit_minutes * 60 for job in ordered))
        records = self.completed()
        submitted = self.submissions()
        return [replace(records[slurm_ids[job.id]], id=job.id, account=job.account,
                        submit=submitted.get(slurm_ids[job.id], records[slurm_ids[job.id]].submit))
                for job in sorted(ordered, key=lambda job: job.id)]

    def submit(self, job: SleepJob) -> int:
        """``sbatch`` one sleep job now; returns Slurm's job id."""
        done = subprocess.run(
            [_need("sbatch"), "--parsable", f"--ntasks={job.cpus}",
             f"--time={job.limit_minutes}", f"--job-name=schedlab-{job.id}",
             "--output=/dev/null", f"--chdir={self.directory}",
             *([f"--account={job.account}"] if job.account else []),
             f"--wrap=sleep {job.runtime}"],
            env=self._env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"sbatch refused job {job.id}: {done.stderr.strip()}")
        return int(done.stdout.strip().split(";")[0])

    def completed(self) -> dict[int, SlurmJobRecord]:
        """Every job in the completion log, by Slurm job id."""
        if not self.jobcomp.exists():
            return {}
        records = {}
        for line in self.jobcomp.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = parse_jobcomp_line(line)
                records[record.id] = record
        return records


_FIELD = re.compile(r"(\w+)=(\S*)")


def parse_jobcomp_line(line: str) -> SlurmJobRecord:
    """One line of ``jobcomp/filetxt`` (``JobId=1 ... StartTime=2026-01-01T00:00:00 ...``)."""
    fields = dict(_FIELD.findall(line))
    try:
        return SlurmJobRecord(id=int(fields["JobId"]), submit=_utc(fields["SubmitTime"]),
                       start=_utc(fields["StartTime"]), end=_utc(fields["EndTime"]),
                       cpus=int(fields["ProcCnt"]), limit_minutes=int(fields["TimeLimit"]),
                       state=fields["JobState"])
    except (KeyError, ValueError) as err:
        raise InputError(f"not a jobcomp/filetxt line ({err}): {line[:80]!r}") from None


def _listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _utc(text: str) -> int:
    return calendar.timegm(datetime.fromisoformat(text).timetuple())


def _need(name: str) -> str:
    path = _program(name)
    if path is None:
        raise RuntimeError(f"{name} is not installed")
    return path
