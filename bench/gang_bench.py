"""Speed and memory of gang scheduling: whole processes, jobs per second, peak memory.

    python bench/gang_bench.py [--repeat 3] [--skip-kth] [--against OTHER_TREE]

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
(``ru_maxrss``).  Times are wall clock and CPU seconds (the child process's user and
system time; the simulation's ``process_time``): under load from elsewhere only the CPU
seconds compare.  Rounds are interleaved (every configuration once, then again) so
that load from elsewhere spreads over all of them; medians are reported.
``--against`` runs every measurement also with another tree's ``src`` first on the
path (a commit to compare with), alternating which goes first, and adds a table of
the CPU ratios.  Results: markdown tables on stdout (copied into bench/GANG.md).
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
    start, cpu = time.perf_counter(), time.process_time()
    result = schedlab.simulate(workload, config["policy"])
    simulate, simulate_cpu = time.perf_counter() - start, time.process_time() - cpu
    metrics = compute_metrics(result)
    return {"simulate": simulate, "simulate_cpu": simulate_cpu, "jobs": len(result),
            "rounds": result.stats.get("rounds", 0),
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "slowdown": metrics.get("gang_slowdown", metrics["avg_slowdown"]),
            "utilization": metrics["utilization"]}


def measure(config: dict, tree: Path | None = None) -> dict:
    """Run one configuration in a fresh process (with ``tree``'s ``src`` first on the
    path, if given); add the whole process's wall time and CPU seconds."""
    env = os.environ.copy()
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), env.get("PYTHONPATH", "")])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(config)],
                          capture_output=True, text=True, check=False, env=env)
    whole = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"worker failed for {config}:\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {**json.loads(done.stdout), "process": whole, "process_cpu": cpu}


def label(config: dict) -> str:
    policy = config["policy"]
    if policy["name"] != "gang":
        return f"{config['workload']} {policy['name']}"
    return f"{config['workload']} gang S{policy['strategy']} l={policy['slot']}"


def report(configs: list[dict], runs: dict[str, list[dict]]) -> str:
    """The markdown table: medians of every configuration."""
    lines = ["| run | jobs | rounds | process s | simulate s | process CPU s | "
             "simulate CPU s | jobs/s (process) | peak MiB | slowdown | utilization |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for config in configs:
        mine = runs[label(config)]
        med = {key: statistics.median(r[key] for r in mine)
               for key in ("process", "simulate", "process_cpu", "simulate_cpu", "peak_mib")}
        first = mine[0]
        lines.append(f"| {label(config)} | {first['jobs']:,} | {first['rounds']:,} | "
                     f"{med['process']:.2f} | {med['simulate']:.2f} | "
                     f"{med['process_cpu']:.2f} | {med['simulate_cpu']:.2f} | "
                     f"{first['jobs'] / med['process']:,.0f} | {med['peak_mib']:.0f} | "
                     f"{first['slowdown']:.2f} | {first['utilization']:.3f} |")
    return "\n".join(lines)


def ratios(configs: list[dict], runs: dict[str, list[dict]],
           others: dict[str, list[dict]]) -> str:
    """The markdown table of CPU medians against the other tree's, and their ratios."""
    lines = ["| run | process CPU s | other | ratio | simulate CPU s | other | ratio |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for config in configs:
        cells = []
        for key in ("process_cpu", "simulate_cpu"):
            mine = statistics.median(r[key] for r in runs[label(config)])
            other = statistics.median(r[key] for r in others[label(config)])
            cells.append(f"{mine:.3f} | {other:.3f} | {mine / other:.3f}")
        lines.append(f"| {label(config)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--skip-kth", action="store_true", help="only the w8 slot sweep")
    parser.add_argument("--against", type=Path,
                        help="another tree (project root) measured alternately, for ratios")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    configs = configurations(args.skip_kth)
    runs: dict[str, list[dict]] = {label(c): [] for c in configs}
    others: dict[str, list[dict]] = {label(c): [] for c in configs}
    for round_ in range(args.repeat):
        for config in configs:
            order = [(runs, None), (others, args.against)] if args.against else [(runs, None)]
            for where, tree in order[::-1] if round_ % 2 else order:
                where[label(config)].append(measure(config, tree))
            print(f"round {round_ + 1}: {label(config)}: "
                  f"{runs[label(config)][-1]['process_cpu']:.2f} CPU s", file=sys.stderr)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{args.repeat} rounds, medians\n")
    print(report(configs, runs))
    if args.against:
        print(f"\nagainst {args.against}:\n")
        print(ratios(configs, runs, others))


if __name__ == "__main__":
    main()
