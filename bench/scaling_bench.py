"""Speed at scale: CPU time and peak memory against the number of jobs and the queue length.

    python bench/scaling_bench.py --quick            # 10k and 100k jobs, the queue sweep on 10k
    python bench/scaling_bench.py                    # 10k, 100k, 400k and 1M jobs (hours)
    python bench/scaling_bench.py --checksums        # schedule checksums, CPU time, longest queue

Every run is a whole ``schedlab simulate`` process (start-up, generating
the workload, the simulation, the metrics, writing jobs.csv), timed by the
child's own CPU time (user + system, from ``os.wait4``) and peak resident
memory: on a shared, noisy machine CPU time is the steadier measure.

* **Against the number of jobs**: the built-in ``lublin`` model with N jobs
  (N = 10k, 100k, 400k, 1M) for each policy of ``POLICIES``; ``qops`` gets
  QoPS deadlines (stringency 0.2, ``--stringency``) on the same jobs.
  The table gives the CPU time per job in µs and the peak memory per job.
* **Against the queue length**: ``lublin`` with 10,000 jobs and shrinking
  factors below 1 (``--shrink``, Streit 2002, §5): the offered load exceeds
  the machine and the longest queue grows to thousands of waiting jobs.
* **Checksums** (``--checksums``): the SHA-256 of every job's ``id,start``
  (from jobs.csv), the CPU time and the longest queue for the inputs of
  bench/SCALING.md: the same schedule before and after a speed change gives
  the same checksum.

A run that passes ``--timeout`` seconds is stopped and reported as such.
The figure (``--figure``, default bench/scaling.png) plots CPU time against
jobs, log-log, one line per policy.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp", "qops")
JOB_COUNTS = (10_000, 100_000, 400_000, 1_000_000)
QUICK_JOB_COUNTS = (10_000, 100_000)
SHRINKS = (1.0, 0.8, 0.7, 0.6, 0.5)
WORKLOADS = Path(os.environ.get("SCHEDLAB_TRACES", ROOT.parent / "shared" / "workloads"))
#: The inputs whose schedules bench/SCALING.md records: (label, simulate arguments).
CHECKSUM_INPUTS = (
    ("KTH-SP2", [str(WORKLOADS / "KTH-SP2-1996-2.1-cln.swf.gz")]),
    ("SDSC-BLUE", [str(WORKLOADS / "SDSC-BLUE-2000-4.2-cln.swf.gz")]),
    ("lublin 50k, shrink 0.5", ["lublin", "-n", "50000", "--shrink", "0.5"]),
)
CHECKSUM_POLICIES = ("fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp")


def schedlab_command() -> list[str]:
    """This interpreter running this checkout's schedlab (src/ first on the path)."""
    return [sys.executable, "-c", "from schedlab.cli.app import main; main()"]


def simulate(args: list[str], timeout: float) -> dict:
    """One ``schedlab simulate`` process: CPU seconds, peak RSS, checksum, longest queue."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        child = subprocess.Popen([*schedlab_command(), "simulate", *args, "--out", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                                 start_new_session=True)
        timer = _Timer(child, timeout)
        _, status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        run = {"args": args, "cpu_s": usage.ru_utime + usage.ru_stime,
               "peak_rss_kib": usage.ru_maxrss, "wall_s": time.perf_counter() - began}
        if timer.fired:
            return {**run, "error": f"stopped after {timeout:.0f} s"}
        if status != 0:
            return {**run, "error": child.stderr.read().decode()[-500:]}
        return {**run, **_schedule_facts(Path(out) / "jobs.csv")}


class _Timer:
    """Kill a child's process group after ``timeout`` seconds (checked by a SIGALRM)."""

    def __init__(self, child: subprocess.Popen, timeout: float) -> None:
        self.fired = False
        self.child = child
        signal.signal(signal.SIGALRM, self._fire)
        signal.setitimer(signal.ITIMER_REAL, timeout)

    def _fire(self, *_) -> None:
        self.fired = True
        os.killpg(self.child.pid, signal.SIGKILL)

    def cancel(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _schedule_facts(jobs_csv: Path) -> dict:
    """The checksum of every job's ``id,start`` and the longest queue (submits minus starts)."""
    digest = hashlib.sha256()
    events: list[tuple[int, int]] = []
    jobs = 0
    with jobs_csv.open() as handle:
        for row in csv.DictReader(handle):
            digest.update(f"{row['job_id']},{row['start']}\n".encode())
            jobs += 1
            if row["start"] in ("", "-1"):          # rejected: never in the queue's count
                continue
            events.append((int(row["submit"]), 1))
            events.append((int(row["start"]), -1))
    events.sort()                     # at one instant starts (-1) come before submits
    waiting = longest = 0
    for _, change in events:
        waiting += change
        longest = max(longest, waiting)
    return {"jobs": jobs, "checksum": digest.hexdigest()[:16], "longest_queue": longest}


def policy_args(policy: str) -> list[str]:
    """The simulate options of one policy (qops needs deadlines: stringency 0.2, QoPS §4.1)."""
    if policy == "qops":
        return ["-p", "qops", "--stringency", "0.2"]
    return ["-p", policy]


def job_sweep(counts, policies, timeout) -> list[dict]:
    rows = []
    for n in counts:
        for policy in policies:
            run = simulate(["lublin", "-n", str(n), *policy_args(policy)], timeout)
            rows.append({"sweep": "jobs", "n": n, "policy": policy, **run})
            report(rows[-1])
    return rows


def queue_sweep(n, shrinks, policies, timeout) -> list[dict]:
    rows = []
    for shrink in shrinks:
        for policy in policies:
            run = simulate(["lublin", "-n", str(n), "--shrink", str(shrink), *policy_args(policy)],
                           timeout)
            rows.append({"sweep": "queue", "n": n, "shrink": shrink, "policy": policy, **run})
            report(rows[-1])
    return rows


def checksums(timeout) -> list[dict]:
    rows = []
    for label, args in CHECKSUM_INPUTS:
        for policy in CHECKSUM_POLICIES:
            rows.append({"sweep": "checksum", "input": label, "policy": policy,
                         **simulate([*args, "-p", policy], timeout)})
            report(rows[-1])
    return rows


def report(row: dict) -> None:
    """One line per run on stderr as it finishes."""
    what = row.get("input") or f"n={row['n']}" + (f" shrink={row['shrink']}" if "shrink" in row else "")
    tail = row.get("error") or (f"{row['checksum']} queue<={row['longest_queue']} "
                                f"{1e6 * row['cpu_s'] / row['jobs']:.1f} us/job "
                                f"{1024 * row['peak_rss_kib'] / row['jobs']:.0f} B/job")
    print(f"{what:28} {row['policy']:18} cpu {row['cpu_s']:8.2f} s  {tail}", file=sys.stderr)


def markdown(rows: list[dict]) -> str:
    lines = ["| sweep | input | policy | jobs | longest queue | CPU s | µs/job | peak MiB "
             "| bytes/job | checksum |", "|" + " --- |" * 10]
    for row in rows:
        what = row.get("input") or (f"lublin {row['n']}" +
                                    (f", shrink {row['shrink']}" if "shrink" in row else ""))
        if "error" in row:
            lines.append(f"| {row['sweep']} | {what} | {row['policy']} | | | "
                         f"{row['cpu_s']:.1f} | | | | {row['error'].splitlines()[-1][:60]} |")
            continue
        lines.append(f"| {row['sweep']} | {what} | {row['policy']} | {row['jobs']} "
                     f"| {row['longest_queue']} | {row['cpu_s']:.2f} "
                     f"| {1e6 * row['cpu_s'] / row['jobs']:.1f} | {row['peak_rss_kib'] / 1024:.0f} "
                     f"| {1024 * row['peak_rss_kib'] / row['jobs']:.0f} | {row['checksum']} |")
    return "\n".join(lines)


def figure(rows: list[dict], path: Path) -> None:
    """CPU time against jobs, log-log, one line per policy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for policy in POLICIES:
        points = sorted((r["n"], r["cpu_s"]) for r in rows
                        if r["sweep"] == "jobs" and r["policy"] == policy and "error" not in r)
        if points:
            ax.plot(*zip(*points), marker="o", label=policy)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("jobs (lublin)")
    ax.set_ylabel("CPU time of the whole run (s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k and 100k jobs only")
    parser.add_argument("--checksums", action="store_true",
                        help="only the schedule checksums of bench/SCALING.md")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "scaling.json")
    parser.add_argument("--figure", type=Path, default=ROOT / "bench" / "scaling.png")
    options = parser.parse_args()
    policies = options.policies.split(",")
    if options.checksums:
        rows = checksums(options.timeout)
    else:
        counts = QUICK_JOB_COUNTS if options.quick else JOB_COUNTS
        rows = job_sweep(counts, policies, options.timeout)
        rows += queue_sweep(10_000, SHRINKS, policies, options.timeout)
        figure(rows, options.figure)
    options.json.write_text(json.dumps({"quick": options.quick, "load_average": os.getloadavg(),
                                        "rows": rows}, indent=1))
    print(markdown(rows))


if __name__ == "__main__":
    main()
