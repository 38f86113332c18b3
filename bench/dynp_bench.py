"""Speed of self-tuning dynP: whole `schedlab simulate` runs and the cost of one self-tuning step.

    python bench/dynp_bench.py [--trace PATH] [--repeat 3] [--skip-runs] [--skip-steps]

What it measures (bench/DYNP.md records the numbers and the conditions):

* **Whole runs** — `schedlab simulate` as a separate process, so the wall
  time includes start-up, reading or generating the workload, the
  simulation, the metrics and the summary: self-tuning dynP (advanced
  decider, ARTwW; ``-p dynp``) against ``fcfs+conservative`` on the same
  input, the median of ``--repeat`` runs each (wall time, and the CPU time
  of the child process).  Inputs: the full KTH-SP2 trace (27,992 jobs) and
  the built-in ``KTH_syn`` (10,000 jobs) at shrinking factor 0.7 (Streit
  2002, §5).  The issue's target: dynP within 8x ``fcfs+conservative`` on
  full KTH.
* **One self-tuning step against the backlog** — the same dynP run in this
  process with a subclass of ``SelfTuningDynP`` that times every
  self-tuning step (building the three candidate schedules, measuring them,
  deciding, adopting the plan: Streit 2002, §3.2) together with the number
  of waiting jobs; the table bins the steps by that number.  Besides the two
  inputs above, ``SDSCBLUE_syn`` (our stand-in for CTC_syn) at factor 0.7
  reaches the backlog of the paper's measurement: "about 0.05 seconds for
  an average of 185 jobs (CTC_syn, shrinking factor of 0.80)", C++ on an
  AMD Athlon XP 1800+.

The trace is found at ``--trace``, else in ``$SCHEDLAB_TRACES``, else in
``../shared/workloads`` next to the repository; without it the KTH-SP2 rows
are skipped.  Prints Markdown tables.  The machine may be shared: the
1-minute load average is printed with each table.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE_NAME = "KTH-SP2-1996-2.1-cln.swf.gz"
POLICIES = ("fcfs+conservative", "dynp")
SYNTHETIC = (("KTH_syn", 0.7), ("SDSCBLUE_syn", 0.7))
#: Upper ends of the backlog bins of the step table (the last bin is open).
BACKLOG_BINS = (5, 10, 20, 50, 100, 150, 220, 300, 500, 1000)
#: Streit 2002, §5: one self-tuning step with 185 waiting jobs took about 0.05 s.
PAPER_STEP = (185, 0.05)


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def trace_path(given: str | None) -> Path | None:
    """The KTH-SP2 trace: ``--trace``, ``$SCHEDLAB_TRACES/<name>`` or ``../shared/workloads``."""
    if given:
        return Path(given)
    directory = Path(os.environ.get("SCHEDLAB_TRACES", ROOT.parent / "shared" / "workloads"))
    path = directory / TRACE_NAME
    return path if path.is_file() else None


def inputs(trace: Path | None) -> list[tuple[str, list[str]]]:
    """(label, `schedlab simulate` arguments) of every whole-run input."""
    found = [] if trace is None else [("KTH-SP2 (full trace)", [str(trace)])]
    return found + [("KTH_syn, 10,000 jobs, shrink 0.7", ["KTH_syn", "--shrink", "0.7"])]


# ------------------------------------------------------------------ whole runs
def timed_process(arguments: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one `schedlab simulate` child process."""
    schedlab = Path(sys.executable).parent / "schedlab"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(schedlab), "simulate", *arguments], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def time_runs(trace: Path | None, repeat: int) -> list[dict]:
    """Median wall and CPU time of each policy on each input (runs interleaved by repeat,
    so that a change of the machine's load hits both policies alike)."""
    rows = []
    for label, arguments in inputs(trace):
        samples: dict[str, list[tuple[float, float]]] = {p: [] for p in POLICIES}
        for _ in range(repeat):
            for policy in POLICIES:
                samples[policy].append(timed_process([*arguments, "-p", policy]))
        medians = {p: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
                   for p, s in samples.items()}
        rows.append({"input": label, "medians": medians, "load": load_average(),
                     "walls": {p: [w for w, _ in s] for p, s in samples.items()}})
    return rows


def print_runs(rows: list[dict], repeat: int) -> None:
    print(f"\n### Whole `schedlab simulate` runs (median of {repeat}, separate processes)\n")
    print("| input | fcfs+conservative wall / CPU [s] | dynp wall / CPU [s] | ratio wall | "
          "ratio CPU | dynp walls [s] | load avg after |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        base, dynp = row["medians"]["fcfs+conservative"], row["medians"]["dynp"]
        walls = ", ".join(f"{w:.2f}" for w in row["walls"]["dynp"])
        print(f"| {row['input']} | {base[0]:.2f} / {base[1]:.2f} | {dynp[0]:.2f} / "
              f"{dynp[1]:.2f} | {dynp[0] / base[0]:.2f} | {dynp[1] / base[1]:.2f} | {walls} | "
              f"{row['load']} |")


# ------------------------------------------------------------ self-tuning steps
def timing_policy():
    """Self-tuning dynP (advanced, ARTwW) that records (waiting jobs, seconds) per step."""
    from schedlab.policies.dynp import SelfTuningDynP

    class TimedSelfTuningDynP(SelfTuningDynP):
        def __init__(self) -> None:
            super().__init__(decider="advanced", metric="artww")
            self.samples: list[tuple[int, float]] = []

        def _self_tuning_step(self, ctx) -> None:
            waiting = len(ctx.waiting)      # below 2 the compiled step only updates the plan
            start = time.perf_counter()
            super()._self_tuning_step(ctx)
            if waiting >= 2:
                self.samples.append((waiting, time.perf_counter() - start))

    return TimedSelfTuningDynP()


def step_workloads(trace: Path | None) -> list[tuple[str, object]]:
    """The workloads of the step table: the trace (if present) and the synthetic sets."""
    from schedlab import load_workload
    from schedlab.pipeline import Transforms, apply_transforms
    from schedlab.workload.models import generate_builtin

    found = [] if trace is None else [("KTH-SP2 (full trace)", load_workload(str(trace)))]
    for name, shrink in SYNTHETIC:
        workload = apply_transforms(generate_builtin(name, seed=0), Transforms(shrink=shrink))
        found.append((f"{name}, shrink {shrink}", workload))
    return found


def time_steps(trace: Path | None) -> list[tuple[str, list[tuple[int, float]], float]]:
    """Every self-tuning step of each workload: (label, samples, whole simulation seconds)."""
    from schedlab import simulate

    found = []
    for label, workload in step_workloads(trace):
        policy = timing_policy()
        start = time.perf_counter()
        simulate(workload, policy)
        found.append((label, policy.samples, time.perf_counter() - start))
    return found


def backlog_bin(waiting: int) -> int:
    """The index of the bin of :data:`BACKLOG_BINS` holding ``waiting`` (a step has >= 2)."""
    return next((k for k, high in enumerate(BACKLOG_BINS) if waiting <= high),
                len(BACKLOG_BINS))


def bin_label(index: int) -> str:
    if index == len(BACKLOG_BINS):
        return f"> {BACKLOG_BINS[-1]}"
    low = 2 if index == 0 else BACKLOG_BINS[index - 1] + 1
    return f"{low}–{BACKLOG_BINS[index]}"


def print_steps(results: list[tuple[str, list[tuple[int, float]], float]]) -> None:
    print(f"\n### One self-tuning step against the backlog (load avg {load_average()})\n")
    print("| input | waiting jobs | steps | mean [ms] | median [ms] | max [ms] | "
          "mean waiting |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, samples, _ in results:
        bins: dict[int, list[tuple[int, float]]] = {}
        for waiting, seconds in samples:
            bins.setdefault(backlog_bin(waiting), []).append((waiting, seconds))
        for index, rows in sorted(bins.items()):
            times = [s * 1000 for _, s in rows]
            print(f"| {label} | {bin_label(index)} | {len(rows):,} | "
                  f"{statistics.fmean(times):.3f} | {statistics.median(times):.3f} | {max(times):.2f} | "
                  f"{statistics.fmean(w for w, _ in rows):.1f} |")
    print("\n| input | steps | share of the run in steps | whole run [s] | "
          f"steps with {PAPER_STEP[0] - 35}–{PAPER_STEP[0] + 35} waiting: mean [ms] |")
    print("| --- | --- | --- | --- | --- |")
    for label, samples, total in results:
        near = [s * 1000 for w, s in samples if abs(w - PAPER_STEP[0]) <= 35]
        near_text = f"{statistics.fmean(near):.2f} ({len(near):,} steps)" if near else "—"
        share = 100 * sum(s for _, s in samples) / total
        print(f"| {label} | {len(samples):,} | {share:.0f} % | {total:.2f} | {near_text} |")
    print(f"\nStreit 2002, §5: about {PAPER_STEP[1] * 1000:.0f} ms for {PAPER_STEP[0]} waiting "
          "jobs (C++, AMD Athlon XP 1800+).")


def print_machine() -> None:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = f"{names[0]} x {len(names)}" if names else cpu
    print(f"machine: {cpu}; {platform.python_implementation()} {platform.python_version()}; "
          f"{platform.system()} {platform.release()}; load average at start {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", help="the KTH-SP2 SWF file")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-runs", action="store_true")
    parser.add_argument("--skip-steps", action="store_true")
    args = parser.parse_args()
    trace = trace_path(args.trace)
    print_machine()
    if trace is None:
        print(f"(no {TRACE_NAME}: the KTH-SP2 rows are skipped; set SCHEDLAB_TRACES)")
    if not args.skip_runs:
        print_runs(time_runs(trace, args.repeat), args.repeat)
    if not args.skip_steps:
        print_steps(time_steps(trace))


if __name__ == "__main__":
    main()
