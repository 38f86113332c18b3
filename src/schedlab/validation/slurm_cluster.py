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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
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


def unavailable_reason() -> str | None:
    """Why a real Slurm cannot run here (not root, a program missing); None when it can."""
    if os.geteuid() != 0:
        return "a real Slurm needs root (slurmd starts jobs as their users)"
    missing = [name for name in PROGRAMS if _program(name) is None]
    if missing:
        return (f"{', '.join(missing)} not installed (Debian: apt-get install slurm-wlm "
                f"munge)")
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


@dataclass(frozen=True)
class SlurmJobRecord:
    """What Slurm recorded of one job, in Unix seconds."""

    id: int
    submit: int
    start: int
    end: int
    cpus: int
    limit_minutes: int
    state: str


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
                 scheduling: Sequence[str] = ("SchedulerParameters=bf_interval=1",)) -> None:
        self.directory = Path(directory)
        self.cpus = cpus
        self.scheduling = tuple(scheduling)
        self.conf = self.directory / "slurm.conf"
        self.jobcomp = self.directory / "jobcomp.txt"
        self._processes: list[tuple[str, subprocess.Popen[bytes]]] = []
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

    def start(self) -> None:
        """Write the configuration and a munge key; start munged, slurmctld and slurmd;
        return once the node takes jobs."""
        reason = unavailable_reason()
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
        self._spawn("slurmctld", ["-D", "-i", "-f", str(self.conf)])
        self._spawn("slurmd", ["-D", "-N", NODE_NAME, "-f", str(self.conf)])
        self._wait_for(self._node_idle, "the node to be idle")

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
        wanted = set(slurm_ids.values())
        self._wait_for(lambda: wanted <= set(self.completed()), "every job to end",
                       timeout=max(0.0, last_end - time.time()) + DRAIN_TIMEOUT
                       + sum(job.limit_minutes * 60 for job in ordered))
        records = self.completed()
        return [replace(records[slurm_ids[job.id]], id=job.id)
                for job in sorted(ordered, key=lambda job: job.id)]

    def submit(self, job: SleepJob) -> int:
        """``sbatch`` one sleep job now; returns Slurm's job id."""
        done = subprocess.run(
            [_need("sbatch"), "--parsable", f"--ntasks={job.cpus}",
             f"--time={job.limit_minutes}", f"--job-name=schedlab-{job.id}",
             "--output=/dev/null", f"--chdir={self.directory}",
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


def _utc(text: str) -> int:
    return calendar.timegm(datetime.fromisoformat(text).timetuple())


def _need(name: str) -> str:
    path = _program(name)
    if path is None:
        raise RuntimeError(f"{name} is not installed")
    return path
