"""Speed of the deadline policies: admission decision time against the queue, and whole runs.

    python bench/deadline_bench.py [--trace PATH] [--jobs 5000] [--load 1.6] [--repeat 3]
                                   [--sizes 10,30,100,300,1000] [--skip-runs] [--skip-decisions]
                                   [--sensitivity]

What it measures (bench/DEADLINES.md records the numbers and the conditions):

* **One admission decision against N waiting jobs** (``qops_admission``,
  ``msb_admission``, ``mrt_admission`` called directly, as the policies do).
  The machine and jobs come from the trace: 100 processors half-filled by
  running jobs, a plan of N waiting jobs taken from the trace in order,
  each placed at its earliest fit, with deadline = the largest of (planned
  end + a random slack of up to the planned end's distance from now) so
  far — feasible, and in EDF order as QoPS and MRT keep their plans,
  and 30 newcomers from later in the trace whose deadlines lie between
  their earliest end on the idle queue and 1.2 x their end when appended —
  so some are admitted at the first insertion point, some need
  reordering and some are rejected.  Reported per scheme and N: the mean
  and largest wall time of one decision, the mean number of earliest-fit
  searches ("placements"), and the mean number of insertion points QoPS
  tried (the log N of its O(K log N)) or of MRT's backtracks.
* **Decisions during a real run**: every ``on_submit`` of the whole run
  below is timed together with the number of jobs waiting; the table bins
  them by that number.
* **The whole run**: the first ``--jobs`` jobs of the trace with perfect
  estimates (QoPS §5 assumes exact ones), load ``--load`` by duplication
  (seed 1), QoPS deadlines with stringency 0.2; every scheme and the
  baselines, median wall and CPU time of ``--repeat`` runs in this process
  (the trace is read and the deadlines assigned once, outside the timing),
  with the share of unadmitted jobs and processor-seconds, the utilization
  and the checksum of every job's start (bench/SCALING.md) beside.
* **Parameters** (``--sensitivity``): QoPS with K = 0, 1, 5, 20, 50 and MRT
  with 0, 10, 100 backtracks, each with EDF and LLF, on the same workload.

Prints Markdown tables.  The machine may be shared; the 1-minute load
average is printed with each table.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import resource
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = ROOT.parent / "shared" / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
SCHEMES = ("qops", "msb", "mrt")
RUN_POLICIES = ("fcfs+easy", "fcfs+conservative", "edf", "qops", "msb", "mrt")
NEWCOMERS = 30


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def start_checksum(result) -> str:
    """The first 16 hex digits of the SHA-256 of every job's ``id,start`` (-1: rejected)."""
    digest = hashlib.sha256()
    for job_id, start in zip(result.job_id.tolist(), result.start.tolist()):
        digest.update(f"{job_id},{start}\n".encode())
    return digest.hexdigest()[:16]


# ------------------------------------------------------- one admission decision
def decision_setup(trace, n: int, rng: np.random.Generator):
    """A running profile, a feasible plan of ``n`` trace jobs and newcomers with deadlines."""
    from schedlab.engine.profile import Profile
    from schedlab.workload.job import Job

    jobs = trace.jobs
    capacity = trace.processors
    running = Profile(capacity, 0)
    used = 0
    for job in jobs[:200]:
        if used + job.width <= capacity // 2:
            running.reserve(0, max(job.estimate, 1), job.width)
            used += job.width
    profile = running.copy()
    plan = []
    deadline = 0
    for k, job in enumerate(jobs[200:200 + n]):
        start = profile.earliest_fit(job.width, job.estimate, 0)
        profile.reserve(start, job.estimate, job.width)
        end = start + job.estimate
        deadline = max(deadline, end + int(rng.uniform(0, 1) * end))
        plan.append((Job(k + 1, 0, job.runtime, job.estimate, job.width, deadline=deadline),
                     start))
    plan.sort(key=lambda entry: entry[1])
    newcomers = []
    for k, job in enumerate(jobs[200 + n:200 + n + NEWCOMERS]):
        alone = running.earliest_fit(job.width, job.estimate, 0) + job.estimate
        appended = profile.earliest_fit(job.width, job.estimate, 0) + job.estimate
        deadline = int(alone + rng.uniform(0, 1.2) * max(appended - alone, 1))
        newcomers.append(Job(n + k + 1, 0, job.runtime, job.estimate, job.width,
                             deadline=deadline))
    return running, plan, newcomers


def time_decisions(trace, sizes: list[int]) -> list[dict]:
    from schedlab.policies.deadline.common import edf_key
    from schedlab.policies.deadline.mrt import mrt_admission
    from schedlab.policies.deadline.msb import msb_admission
    from schedlab.policies.deadline.qops import qops_admission

    tests = {
        "qops": lambda r, p, j, lim: qops_admission(r, 0, p, j, lim, k=5, key=edf_key),
        "msb": lambda r, p, j, lim: msb_admission(r, 0, p, j, lim),
        "mrt": lambda r, p, j, lim: mrt_admission(r, 0, p, j, lim, backtracks=10, key=edf_key),
    }
    rows = []
    for n in sizes:
        running, plan, newcomers = decision_setup(trace, n, np.random.default_rng(n))
        limits = {job.id: job.deadline for job, _ in plan}
        limits.update({job.id: job.deadline for job in newcomers})
        for scheme, test in tests.items():
            seconds, placements, steps, admitted = [], [], [], 0
            for job in newcomers:
                began = time.perf_counter()
                decision = test(running, plan, job, limits)
                seconds.append(time.perf_counter() - began)
                placements.append(decision.placements)
                steps.append(decision.detail.get("insertion_point_tries",
                                                 decision.detail.get("backtracks", 0)))
                admitted += decision.plan is not None
            rows.append({"n": n, "scheme": scheme, "ms": 1000 * statistics.mean(seconds),
                         "ms_max": 1000 * max(seconds),
                         "placements": statistics.mean(placements),
                         "steps": statistics.mean(steps) if scheme != "msb" else None,
                         "admitted": admitted})
        print(f"  N={n} done", file=sys.stderr)
    return rows


def print_decisions(rows: list[dict]) -> None:
    print(f"\n### One admission decision against N waiting jobs (load average {load_average()})\n")
    print("| N | scheme | mean ms | max ms | mean placements | insertion points tried (qops) "
          f"/ backtracks (mrt) | admitted of {NEWCOMERS} |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        steps = "-" if row["steps"] is None else f"{row['steps']:.1f}"
        print(f"| {row['n']} | {row['scheme']} | {row['ms']:.2f} | {row['ms_max']:.2f} | "
              f"{row['placements']:.0f} | {steps} | {row['admitted']} |")


# --------------------------------------------------------------- whole runs
def prepared_workload(path: Path, jobs: int, load: float):
    from schedlab.pipeline import stringency_deadlines
    from schedlab.workload.swf import read_swf
    from schedlab.workload.transforms import duplicate_load, first_jobs, perfect_estimates

    trace = perfect_estimates(first_jobs(read_swf(path), jobs))
    return trace, stringency_deadlines(duplicate_load(trace, load, seed=1), 0.2)


class TimedSubmit:
    """Wraps a policy's ``on_submit``: (jobs waiting before the decision, seconds) per call."""

    def __init__(self, policy) -> None:
        self.policy = policy
        self.samples: list[tuple[int, float]] = []
        inner = policy.on_submit

        def timed(ctx, job):
            waiting = len(ctx.waiting) - 1          # the new job is already in the queue
            began = time.perf_counter()
            inner(ctx, job)
            self.samples.append((waiting, time.perf_counter() - began))
        policy.on_submit = timed


def time_runs(workload, repeat: int) -> tuple[list[dict], dict[str, list[tuple[int, float]]]]:
    from schedlab.engine.simulator import run
    from schedlab.metrics import compute_metrics
    from schedlab.policies.registry import make_policy

    rows, samples = [], {}
    for name in RUN_POLICIES:
        walls, cpus = [], []
        for k in range(repeat):
            policy = make_policy(name)
            timer = TimedSubmit(policy) if k == 0 and name in SCHEMES else None
            began, began_cpu = time.perf_counter(), cpu_seconds()
            result = run(workload, policy)
            walls.append(time.perf_counter() - began)
            cpus.append(cpu_seconds() - began_cpu)
            if timer is not None:
                samples[name] = timer.samples
        metrics = compute_metrics(result, classes=False)
        rows.append({"policy": name, "wall": statistics.median(walls), "walls": walls,
                     "cpu": statistics.median(cpus), "checksum": start_checksum(result),
                     "rejected_pct": metrics["rejected_pct"],
                     "rejected_area_pct": metrics["rejected_area_pct"],
                     "utilization": metrics["utilization"],
                     "missed": metrics["deadline_missed"],
                     "max_queue": metrics["max_queue"]})
        print(f"  {name} done", file=sys.stderr)
    return rows, samples


def print_runs(rows: list[dict], workload) -> None:
    print(f"\n### Whole runs: {workload.name}, {len(workload)} jobs "
          f"(load average {load_average()})\n")
    print("| policy | median wall s | runs (s) | median CPU s | unadmitted jobs % | "
          "unadmitted proc-s % | utilization | deadline misses | max queue | checksum |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for row in rows:
        runs = ", ".join(f"{w:.2f}" for w in row["walls"])
        print(f"| {row['policy']} | {row['wall']:.2f} | {runs} | {row['cpu']:.2f} | "
              f"{row['rejected_pct']:.1f} | {row['rejected_area_pct']:.1f} | "
              f"{row['utilization']:.3f} | {row['missed']} | {row['max_queue']} | "
              f"{row['checksum']} |")


def print_samples(samples: dict[str, list[tuple[int, float]]]) -> None:
    bins = [(0, 0), (1, 9), (10, 29), (30, 99), (100, 299), (300, 10**9)]
    print("\n### Decisions during the run, by jobs waiting (mean ms, decisions)\n")
    print("| jobs waiting | " + " | ".join(samples) + " |")
    print("| --- |" + " ---: |" * len(samples))
    grouped = {name: defaultdict(list) for name in samples}
    for name, pairs in samples.items():
        for waiting, seconds in pairs:
            for low, high in bins:
                if low <= waiting <= high:
                    grouped[name][(low, high)].append(seconds)
    for low, high in bins:
        label = f"{low}" if low == high else (f"{low}+" if high == 10**9 else f"{low}-{high}")
        cells = []
        for name in samples:
            values = grouped[name][(low, high)]
            cells.append(f"{1000 * statistics.mean(values):.2f} ({len(values)})" if values
                         else "-")
        print(f"| {label} | " + " | ".join(cells) + " |")


SENSITIVITY = ([{"name": "qops", "k": k, "heuristic": h} for h in ("edf", "llf")
                for k in (0, 1, 5, 20, 50)]
               + [{"name": "mrt", "backtracks": b, "heuristic": h} for h in ("edf", "llf")
                  for b in (0, 10, 100)])


def print_sensitivity(workload) -> None:
    """Unadmitted shares and run time of QoPS and MRT over their parameters (one run each)."""
    from schedlab.engine.simulator import run
    from schedlab.metrics import compute_metrics
    from schedlab.policies.registry import make_policy

    print(f"\n### Parameters of QoPS and MRT on the same workload (load average "
          f"{load_average()})\n")
    print("| policy | parameters | wall s | unadmitted jobs % | unadmitted proc-s % | "
          "utilization |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for spec in SENSITIVITY:
        began = time.perf_counter()
        result = run(workload, make_policy(spec))
        wall = time.perf_counter() - began
        metrics = compute_metrics(result, classes=False)
        params = ", ".join(f"{k}={v}" for k, v in spec.items() if k != "name")
        print(f"| {spec['name']} | {params} | {wall:.2f} | {metrics['rejected_pct']:.1f} | "
              f"{metrics['rejected_area_pct']:.1f} | {metrics['utilization']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--load", type=float, default=1.6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10,30,100,300,1000")
    parser.add_argument("--skip-runs", action="store_true")
    parser.add_argument("--skip-decisions", action="store_true")
    parser.add_argument("--sensitivity", action="store_true",
                        help="also run QoPS and MRT over K, backtracks and heuristics")
    args = parser.parse_args()
    if not args.trace.exists():
        sys.exit(f"no trace at {args.trace} (give --trace)")
    print(f"Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores; trace {args.trace.name}")
    trace, workload = prepared_workload(args.trace, args.jobs, args.load)
    if not args.skip_decisions:
        print_decisions(time_decisions(trace, [int(s) for s in args.sizes.split(",")]))
    if not args.skip_runs:
        rows, samples = time_runs(workload, args.repeat)
        print_runs(rows, workload)
        print_samples(samples)
    if args.sensitivity:
        print_sensitivity(workload)


if __name__ == "__main__":
    main()
