"""Speed and memory of gang scheduling: whole processes, jobs per second, peak memory.

    python bench/gang_bench.py [--repeat 3] [--skip-kth]

Two parts (bench/GANG.md has the results):

* **w8, Strategy 3, slot length 1 … 200** — the heaviest of the gang workloads
  (10,000 jobs on 256 processors; Zhou, Goscinski, Brent 2003, §4-5).  A
  shorter slot means more scheduling rounds; the engine jumps over quiet
  rounds, so the time must not grow with their number: each line shows the
  rounds beside the time.
* **KTH-SP2** (27,992 jobs, 100 processors, real estimates; found like the
  recipes find it: ``$SCHEDLAB_TRACES``, else ``../shared/workloads``, else the
  trace cache) — gang Strategies 1 and 3 at l = 1 and 200 beside fcfs+easy.

Every measurement is a fresh process (``--worker``) timed whole from the
parent: interpreter start, imports, loading or generating the workload, the
simulation and its metrics.  The worker also reports the simulation alone
(``run()``), the rounds it served and its peak resident memory
(``ru_maxrss``).  Rounds are interleaved (every configuration once, then
again) so that load from elsewhere spreads over all of them; medians are
reported.  Results: a markdown table on stdout (copied into bench/GANG.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
SLOTS = (1, 10, 50, 100, 150, 200)
KTH = ("KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz")


def configurations(skip_kth: bool) -> list[dict]:
    """The runs: w8 under Strategy 3 at every slot length; KTH-SP2 under gang and EASY."""
    configs = [{"workload": "w8", "policy": {"name": "gang", "strategy": 3, "slot": slot}}
               for slot in SLOTS]
    if not skip_kth:
        configs += [{"workload": "kth", "policy": {"name": "gang", "strategy": strategy,
                                                   "slot": slot}}
                    for strategy in (1, 3) for slot in (1, 200)]
        configs.append({"workload": "kth", "policy": {"name": "fcfs+easy"}})
    return configs


def worker(config: dict) -> dict:
    """One configuration in this process: simulation time, rounds, jobs, peak memory."""
    import schedlab
    from schedlab.metrics import compute_metrics

    if config["workload"] == "kth":
        from schedlab.experiments.recipes import trace_file

        workload = schedlab.load_workload(str(trace_file("gang benchmark", *KTH)))
    else:
        workload = schedlab.load_workload(config["workload"])
    start = time.perf_counter()
    result = schedlab.simulate(workload, config["policy"])
    simulate = time.perf_counter() - start
    metrics = compute_metrics(result)
    return {"simulate": simulate, "jobs": len(result), "rounds": result.stats.get("rounds", 0),
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "slowdown": metrics.get("gang_slowdown", metrics["avg_slowdown"]),
            "utilization": metrics["utilization"]}


def measure(config: dict) -> dict:
    """Run one configuration in a fresh process; add the whole process's wall time."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(config)],
                          capture_output=True, text=True, check=False)
    whole = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"worker failed for {config}:\n{done.stderr}")
    return {**json.loads(done.stdout), "process": whole}


def label(config: dict) -> str:
    policy = config["policy"]
    if policy["name"] != "gang":
        return f"{config['workload']} {policy['name']}"
    return f"{config['workload']} gang S{policy['strategy']} l={policy['slot']}"


def report(configs: list[dict], runs: dict[str, list[dict]]) -> str:
    """The markdown table: medians of every configuration."""
    lines = ["| run | jobs | rounds | process s | simulate s | jobs/s (process) | "
             "peak MiB | slowdown | utilization |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for config in configs:
        mine = runs[label(config)]
        med = {key: statistics.median(r[key] for r in mine)
               for key in ("process", "simulate", "peak_mib")}
        first = mine[0]
        lines.append(f"| {label(config)} | {first['jobs']:,} | {first['rounds']:,} | "
                     f"{med['process']:.2f} | {med['simulate']:.2f} | "
                     f"{first['jobs'] / med['process']:,.0f} | {med['peak_mib']:.0f} | "
                     f"{first['slowdown']:.2f} | {first['utilization']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--skip-kth", action="store_true", help="only the w8 slot sweep")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    configs = configurations(args.skip_kth)
    runs: dict[str, list[dict]] = {label(c): [] for c in configs}
    for round_ in range(args.repeat):
        for config in configs:
            runs[label(config)].append(measure(config))
            print(f"round {round_ + 1}: {label(config)}: "
                  f"{runs[label(config)][-1]['process']:.2f} s", file=sys.stderr)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{args.repeat} rounds, medians\n")
    print(report(configs, runs))


if __name__ == "__main__":
    main()
