"""What a runtime predictor costs per job, beside what fcfs+easy costs per job (KTH-SP2).

    python bench/predictor_bench.py [--repeat 5] [--trace PATH]

For every built-in predictor the trace-only replay of ``schedlab analyze
--predict`` (:func:`schedlab.predictors.accuracy.replay`: one ``predict`` per
job at its submission, one ``observe`` per job at its end, in the trace's
own schedule) is timed in CPU seconds (``time.process_time``), and so is one
whole fcfs+easy simulation of the same loaded trace (``schedlab.api.run``).
Rounds are interleaved (every configuration once, then again), so that load
from elsewhere spreads over all of them; medians and minima of ``--repeat``
rounds, in µs per job.  The replay includes building each job's query and
ended-job record (the ``estimate`` row, whose ``predict`` returns a field, is
that fixed cost).  "ratio" is (fcfs+easy + predictor) / fcfs+easy, on the
medians and on the minima: what a run planning with the predictor would cost if predicting
were all it added (backfilling on predictions is not wired yet).
Results: a markdown table on stdout (copied into bench/PREDICTORS.md).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
DEFAULT_TRACE = REPO_DIR.parent / "shared" / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
PREDICTORS = ("estimate", "easy++", "last", "user-quantile", "knn", "knn[window=256]", "knn[window=1000]",
              "oracle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_DIR / "src"))
    from schedlab.api import load_workload, make_predictor, run, trace_record
    from schedlab.policies.registry import make_policy
    from schedlab.predictors.accuracy import replay

    workload = load_workload(args.trace)
    record = trace_record(args.trace, workload)
    n = len(workload)
    times: dict[str, list[float]] = {name: [] for name in ("fcfs+easy", *PREDICTORS)}
    for _ in range(args.repeat):
        began = time.process_time()
        run(workload, make_policy("fcfs+easy"))
        times["fcfs+easy"].append(time.process_time() - began)
        for spec in PREDICTORS:
            predictor = make_predictor(spec)
            began = time.process_time()
            replay(workload, predictor, record)
            times[spec].append(time.process_time() - began)
    easy = statistics.median(times["fcfs+easy"]) / n * 1e6
    print(f"{workload.name}: {n:,} jobs, {args.repeat} rounds, Python "
          f"{platform.python_version()}, {platform.processor() or platform.machine()}\n")
    easy_min = min(times["fcfs+easy"]) / n * 1e6
    print("| configuration | µs/job median | µs/job min | ratio, medians | ratio, minima |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, seconds in times.items():
        median, least = statistics.median(seconds) / n * 1e6, min(seconds) / n * 1e6
        ratios = ("1.00", "1.00") if name == "fcfs+easy" else (
            f"{(easy + median) / easy:.2f}", f"{(easy_min + least) / easy_min:.2f}")
        print(f"| {name} | {median:.1f} | {least:.1f} | {ratios[0]} | {ratios[1]} |")


if __name__ == "__main__":
    main()
