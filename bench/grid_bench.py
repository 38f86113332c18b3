"""Speed of the grid local policies: whole `schedlab simulate` runs on the thesis-4.3 grid.

    python bench/grid_bench.py [--jobs 5000] [--ta 10] [--repeat 3] [--seed 1] [--base DIR]

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

The last row is the yardstick of issue 28's grid target: ``fcfs+easy`` on
one homogeneous machine with as many CPUs as the platform (the same SWF
jobs, no ratings, no licences), and each row's CPU per job relative to it,
as a whole process and as the simulation alone (``meta.wall_time_s``, the
run's own clock around the event loop and the result, per job).

``--base DIR`` (the project root of another checkout, its compiled extension
built there) runs every process of the table also from ``DIR``'s sources,
alternating the two in the same minutes, and adds the column ``x base``:
the median of the runs' CPU ratios (this tree / ``DIR``).  Under load only
that ratio means anything (bench/README.md).
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

from schedlab.platform.files import read_platform

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("grid-fcfs", "bf-fcfs", "bf-unmod", "bf-mod", "grid-edf")
#: The yardstick row: EASY on one homogeneous machine of the platform's CPUs.
EASY = "fcfs+easy, one machine"


def schedlab(*args: str) -> list[str]:
    return [sys.executable, "-m", "schedlab", *args]


def timed(command: list[str], root: Path = ROOT) -> tuple[float, float]:
    """Wall and child CPU seconds of one process (which must succeed), run with the
    sources of the project at ``root``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=root, env=env)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--ta", type=float, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", type=Path, default=None,
                        help="another checkout's project root, run alternately")
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
        cpus_in_all = str(read_platform(plat).total_cpus)
        print("| policy | wall (s) | CPU (s) | scheduling per event (µs) | passes | "
              "missed deadlines (%) | CPU per job (µs) | x easy | simulation per job (µs) "
              "| x easy |" + (" x base |" if args.base else ""))
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
              + (" ---: |" if args.base else ""))
        runs = [(policy, ("--platform", str(plat), "--policy", policy, "--dispatch",
                          "round-robin")) for policy in POLICIES]
        runs.append((EASY, ("--procs", cpus_in_all, "--policy", "fcfs+easy")))
        rows = []
        for label, options in runs:
            walls, cpus, per_event, simulation, against = [], [], [], [], []
            for repeat in range(args.repeat):
                out = Path(tmp) / label
                command = schedlab("simulate", str(jobs), *options, "--out", str(out))
                if args.base:       # the base's process first at every other repeat
                    base = schedlab("simulate", str(jobs), *options, "--out", f"{out}.base")
                    if repeat % 2 == 0:
                        base_cpu = timed(base, args.base)[1]
                        wall, cpu = timed(command)
                    else:
                        wall, cpu = timed(command)
                        base_cpu = timed(base, args.base)[1]
                    against.append(cpu / base_cpu)
                else:
                    wall, cpu = timed(command)
                metrics = json.loads((out / "metrics.json").read_text())
                walls.append(wall)
                cpus.append(cpu)
                per_event.append(metrics["meta"].get("scheduling_time_per_event_us", 0.0))
                simulation.append(metrics["meta"]["wall_time_s"])
            rows.append((label, metrics, statistics.median(walls), statistics.median(cpus),
                         statistics.median(per_event), statistics.median(simulation),
                         f" {statistics.median(against):.2f} |" if against else ""))
        easy_cpu, easy_simulation = rows[-1][3], rows[-1][5]
        for label, metrics, wall, cpu, event, simulation, versus in rows:
            meta = metrics["meta"]
            missed = metrics["metrics"].get("deadline_missed_pct", float("nan")) \
                if "metrics" in metrics else metrics.get("deadline_missed_pct", float("nan"))
            print(f"| {label} | {wall:.2f} | {cpu:.2f} | {event:.0f} | "
                  f"{meta.get('scheduling_passes', '-')} | {missed:.1f} | "
                  f"{1e6 * cpu / args.jobs:.0f} | {cpu / easy_cpu:.2f} | "
                  f"{1e6 * simulation / args.jobs:.0f} | {simulation / easy_simulation:.2f} |"
                  + versus)
        print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
