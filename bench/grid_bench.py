"""Speed of the grid local policies: whole `schedlab simulate` runs on the thesis-4.3 grid.

    python bench/grid_bench.py [--jobs 5000] [--ta 10] [--repeat 3] [--seed 1]

What it measures (bench/GRID.md records the numbers and the conditions):
5,000 jobs (``schedlab generate grid``, Pasquali thesis Table 6 ranges) on
the ``thesis-4.3`` platform (225 machines in 4 clusters of 120, 60, 30,
15; 20 licences), dispatched round-robin, CPUs shared (§4.3), under each
local policy: grid-fcfs, bf-fcfs, bf-unmod, bf-mod, grid-edf.  Each run is
a separate `schedlab simulate` process, so its wall time includes start-up,
reading the platform and the jobs, the simulation, the metrics and the
output; the CPU time of the child is reported beside it, and the
scheduling time per event (submissions and job ends) that the run records
in ``metrics.json`` (time inside the local policies and the dispatcher).
Medians of ``--repeat`` runs.  Prints a Markdown table; the machine may be
shared: the 1-minute load average is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("grid-fcfs", "bf-fcfs", "bf-unmod", "bf-mod", "grid-edf")


def schedlab(*args: str) -> list[str]:
    return [sys.executable, "-m", "schedlab", *args]


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and child CPU seconds of one process (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--ta", type=float, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plat, jobs = Path(tmp) / "p.toml", Path(tmp) / "jobs.swf"
        subprocess.run(schedlab("platform", "generate", "--preset", "thesis-4.3", "--seed",
                                str(args.seed), "-o", str(plat)), check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        subprocess.run(schedlab("generate", "grid", "--platform", str(plat), "--preset",
                                "thesis-4.3", "-n", str(args.jobs), "--ta", f"{args.ta:g}",
                                "--seed", str(args.seed), "-o", str(jobs)), check=True,
                       cwd=ROOT, stdout=subprocess.DEVNULL)
        print(f"{args.jobs} jobs, Ta {args.ta:g}, thesis-4.3 platform (seed {args.seed}), "
              f"round-robin, shared CPUs; {platform.processor() or platform.machine()}, "
              f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}\n")
        print("| policy | wall (s) | CPU (s) | scheduling per event (µs) | passes | "
              "missed deadlines (%) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for policy in POLICIES:
            walls, cpus, per_event = [], [], []
            for _ in range(args.repeat):
                out = Path(tmp) / policy
                wall, cpu = timed(schedlab("simulate", str(jobs), "--platform", str(plat),
                                           "--policy", policy, "--dispatch", "round-robin",
                                           "--out", str(out)))
                metrics = json.loads((out / "metrics.json").read_text())
                walls.append(wall)
                cpus.append(cpu)
                per_event.append(metrics["meta"]["scheduling_time_per_event_us"])
            meta = metrics["meta"]
            missed = metrics["metrics"].get("deadline_missed_pct", float("nan")) \
                if "metrics" in metrics else metrics.get("deadline_missed_pct", float("nan"))
            print(f"| {policy} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} "
                  f"| {statistics.median(per_event):.0f} | {meta['scheduling_passes']} | "
                  f"{missed:.1f} |", flush=True)
        print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
