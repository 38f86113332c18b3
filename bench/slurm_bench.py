"""What the ``slurm`` policy costs per job, against fcfs+conservative, on SDSC-BLUE.

    python bench/slurm_bench.py [--repeat 3] [--trace PATH] [--jobs N] [--cpus-per-node 8]
                                [--fair-share]

Whole simulations of the loaded trace (``schedlab.api.run``; SDSC-BLUE, 1,152
processors, by default): ``fcfs+conservative`` and the ``slurm`` policy with
Slurm's default scheduling parameters, backfill on, on nodes of
``--cpus-per-node`` CPUs (8, the SDSC Blue Horizon's; a Slurm reservation
holds whole nodes); with ``--fair-share`` also ``slurm fair-share``, multifactor
priority with the age (1,000), fair-share (10,000, Fair Tree, an association
per account and user of the trace) and job-size (1,000) weights.  CPU
seconds, rounds interleaved (bench/rounds.py); medians of ``--repeat`` rounds in µs per job and the ratio to
fcfs+conservative's (the target: at most 3).  A markdown table on stdout
(copied into docs/background/validation.md, "Speed").
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = REPO_DIR.parent / "shared" / "workloads" / "SDSC-BLUE-2000-4.2-cln.swf.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--jobs", type=int, default=None, help="the first N jobs only")
    parser.add_argument("--cpus-per-node", type=int, default=8)
    parser.add_argument("--fair-share", action="store_true",
                        help="also the slurm policy with multifactor priority and fair-share")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_DIR / "src"))
    from rounds import interleaved_rounds
    from schedlab.api import load_workload, run
    from schedlab.policies.registry import make_policy
    from schedlab.workload.transforms import first_jobs

    workload = load_workload(args.trace)
    if args.jobs is not None:
        workload = first_jobs(workload, args.jobs)
    configurations = {"fcfs+conservative": {"name": "fcfs+conservative"},
                      "slurm": {"name": "slurm", "cpus_per_node": args.cpus_per_node}}
    if args.fair_share:
        configurations["slurm fair-share"] = {
            **configurations["slurm"], "priority": "multifactor", "weight_age": 1000,
            "weight_fairshare": 10000, "weight_job_size": 1000}
    run(workload, make_policy(configurations["fcfs+conservative"]))   # compiled loops loaded
    run(first_jobs(workload, 500), make_policy(configurations["slurm"]))
    times = interleaved_rounds(workload, configurations, args.repeat)
    n = len(workload)
    base = statistics.median(times["fcfs+conservative"])
    print(f"{workload.name}: {n:,} jobs, {args.repeat} rounds\n")
    print("| policy | µs/job (median) | ratio to fcfs+conservative |\n| --- | ---: | ---: |")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"| {name} | {median / n * 1e6:.1f} | {median / base:.2f} |")


if __name__ == "__main__":
    main()
