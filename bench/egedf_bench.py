"""Speed of EG-EDF with Tabu search: scheduling time per event as the job stream grows.

    python bench/egedf_bench.py [--jobs 1000,2000,5000] [--ta 5] [--seed 1] [--iterations 20]

What it measures (bench/EGEDF.md records the numbers and the conditions):

* the ``thesis-5.2`` platform (one cluster of 150 machines, 1-16 CPUs,
  ratings 200-600) and, for each N of ``--jobs``, a stream of N jobs
  (Table 13) arriving every ``--ta`` seconds on average, both drawn with
  ``--seed``;
* ``eg-edf`` with no Tabu iteration (the EG-EDF rule alone), ``eg-edf``
  with ``--iterations`` (Tabu search), and ``bf-fcfs`` for reference, each
  run once in this process;
* per run: the engine's scheduling time per event (policy calls over
  submissions + job ends), the wall time of the whole run, and for EG-EDF
  the mean and largest time of one scheduling pass binned by the number of
  jobs in the plan then (the queue the insertion and the search scan);
* for EG-EDF with Tabu search, the CPU time of its searches (``time.process_time``)
  in all and per event (2 per job: its submission and its end).

Prints Markdown tables.  The machine may be shared; the 1-minute load
average is printed with each table.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform as host
import time
from collections import defaultdict

from schedlab.engine.grid import run_grid
from schedlab.platform.generator import PRESETS as PLATFORMS
from schedlab.platform.generator import generate_platform
from schedlab.policies.grid import BackfillingFCFS, EarliestGapEDF
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import generate_grid

PRESET = "thesis-5.2"
BINS = (0, 10, 50, 100, 200, 500, 1000, 2000, 5000)


class TimedEGEDF(EarliestGapEDF):
    """EG-EDF recording (jobs in the plan before the pass, seconds) for every pass, and the
    CPU time (``time.process_time``) of its Tabu searches."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.passes: list[tuple[int, float]] = []
        self.tabu_cpu = 0.0

    def tabu_search(self, plan) -> None:
        began = time.process_time()
        super().tabu_search(plan)
        self.tabu_cpu += time.process_time() - began

    def schedule(self, ctx) -> None:
        planned = len(self.plan.slots) + len(self._arrived) if self.plan else len(self._arrived)
        began = time.perf_counter()
        super().schedule(ctx)
        self.passes.append((planned, time.perf_counter() - began))


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def bin_of(size: int) -> str:
    for low, high in itertools.pairwise(BINS):
        if size < high:
            return f"{low}-{high - 1}"
    return f">= {BINS[-1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", default="1000,2000,5000")
    parser.add_argument("--ta", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    sizes = [int(n) for n in args.jobs.split(",")]
    platform = generate_platform(PLATFORMS[PRESET], args.seed)
    print(f"# EG-EDF speed on {PRESET} (seed {args.seed}, Ta {args.ta:g} s), "
          f"{host.python_implementation()} {host.python_version()}, {os.cpu_count()} CPUs\n")
    print("| jobs | policy | scheduling time per event (us) | whole run (s) | passes | "
          "largest plan | load |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    binned: dict[tuple[int, str], dict[str, list[float]]] = {}
    tabu: list[str] = []
    for n in sizes:
        grid = generate_grid(platform, JOBS[PRESET], n, args.ta, args.seed)
        runs = {"bf-fcfs": BackfillingFCFS(), "eg-edf (iterations=0)": TimedEGEDF(iterations=0),
                f"eg-edf (iterations={args.iterations})": TimedEGEDF(iterations=args.iterations)}
        for label, policy in runs.items():
            began = time.perf_counter()
            result = run_grid(grid, platform, [policy], seed=args.seed)
            wall = time.perf_counter() - began
            passes = getattr(policy, "passes", [])
            largest = max((p for p, _ in passes), default=0)
            print(f"| {n} | {label} | {result.meta['scheduling_time_per_event_us']:.0f} | "
                  f"{wall:.1f} | {result.meta['scheduling_passes']} | "
                  f"{largest if passes else '-'} | {load_average()} |", flush=True)
            if passes and policy.iterations:
                tabu.append(f"| {n} | {label} | {policy.tabu_cpu:.2f} | "
                            f"{1e3 * policy.tabu_cpu / (2 * n):.3f} | {load_average()} |")
            if passes:
                table = binned.setdefault((n, label), defaultdict(list))
                for planned, seconds in passes:
                    table[bin_of(planned)].append(seconds)
    print("\n## Tabu search's CPU time (per event: over submissions and ends, 2 per job)\n")
    print("| jobs | policy | Tabu search CPU (s) | per event (ms) | load |")
    print("|---:|---|---:|---:|---:|")
    print("\n".join(tabu))
    print("\n## One scheduling pass against the jobs in the plan\n")
    print("| jobs | policy | jobs in the plan | passes | mean (ms) | largest (ms) |")
    print("|---:|---|---|---:|---:|---:|")
    for (n, label), table in binned.items():
        for key, seconds in sorted(table.items(), key=lambda kv: int(kv[0].split("-")[0]
                                                                     .strip(">= "))):
            print(f"| {n} | {label} | {key} | {len(seconds)} | "
                  f"{1e3 * sum(seconds) / len(seconds):.2f} | {1e3 * max(seconds):.2f} |")


if __name__ == "__main__":
    main()
