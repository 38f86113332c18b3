"""What planning with a runtime predictor costs per job, against fcfs+easy on estimates.

    python bench/predictor_bench.py [--repeat 5] [--trace PATH]

Whole simulations of the loaded trace (``schedlab.api.run``; KTH-SP2 by
default): ``fcfs+easy`` on the users' estimates, then ``fcfs+easy`` with each
built-in predictor (``predictor=NAME``: every job predicted at its
submission, observed at its end, corrected when it outlives its prediction,
with the scheduling pass each correction brings) and EASY++ (``easy++`` with
shortest-job-backfilled-first).  CPU seconds, rounds interleaved (every
configuration once, then again: bench/rounds.py); medians and minima of ``--repeat``
rounds, in µs per job, and each one's ratio to fcfs+easy of the same round
set.  Results: a markdown table on stdout (copied into bench/PREDICTORS.md).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
DEFAULT_TRACE = REPO_DIR.parent / "shared" / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
#: label -> policy spec
CONFIGURATIONS = {
    "fcfs+easy": {"name": "fcfs+easy"},
    **{f"predictor={name}": {"name": "fcfs+easy", "predictor": name}
       for name in ("easy++", "last", "user-quantile", "knn", "oracle")},
    "EASY++ (easy++, sjbf)": {"name": "fcfs+easy", "predictor": "easy++",
                              "backfill_order": "sjbf"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_DIR / "src"))
    from rounds import interleaved_rounds
    from schedlab.api import load_workload

    workload = load_workload(args.trace)
    n = len(workload)
    times = interleaved_rounds(workload, CONFIGURATIONS, args.repeat)
    print(f"{workload.name}: {n:,} jobs, {args.repeat} rounds, Python "
          f"{platform.python_version()}, {platform.processor() or platform.machine()}\n")
    easy_median = statistics.median(times["fcfs+easy"])
    easy_min = min(times["fcfs+easy"])
    print("| configuration | µs/job median | µs/job min | ratio, medians | ratio, minima |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, seconds in times.items():
        median, least = statistics.median(seconds), min(seconds)
        print(f"| {name} | {median / n * 1e6:.1f} | {least / n * 1e6:.1f} | "
              f"{median / easy_median:.2f} | {least / easy_min:.2f} |")


if __name__ == "__main__":
    main()
