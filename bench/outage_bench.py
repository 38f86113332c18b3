"""What node failures cost a simulation, against the same run without them, on SDSC-BLUE.

    python bench/outage_bench.py [--repeat 3] [--trace PATH] [--policy fcfs+easy ...]

Whole simulations of the loaded trace (``schedlab.api.run``; SDSC-BLUE, 1,152
processors in 144 nodes of 8, by default) under each policy, in four
settings: no failures; one failure that never comes (after the last job: the
cost of keeping the processor map); one failure per node-week
(``mtbf=7d,repair=4h,node_size=8``) with the ``kill`` fate; the same with
``checkpoint``.  CPU seconds (``time.process_time``), rounds interleaved;
medians of ``--repeat`` rounds in µs per job and the ratio to the run
without failures (the target of one failure per node-week: at most 1.5).  A
markdown table on stdout (copied into bench/OUTAGES.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = REPO_DIR.parent / "shared" / "workloads" / "SDSC-BLUE-2000-4.2-cln.swf.gz"
NODE_WEEK = "mtbf=7d,repair=4h,node_size=8"


def settings() -> dict[str, object]:
    """The failure settings by label (None: no failures)."""
    from schedlab.workload.outages import Failure, FailureSpec, parse_failure_spec

    return {"no failures": None,
            "a failure that never comes": FailureSpec(replayed=(Failure(10**12, (0,), 1),)),
            "1 per node-week, kill": parse_failure_spec(f"{NODE_WEEK},fate=kill"),
            "1 per node-week, checkpoint": parse_failure_spec(f"{NODE_WEEK},fate=checkpoint")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--policy", action="append", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_DIR / "src"))
    from rounds import interleaved_rounds
    from schedlab.api import load_workload, run
    from schedlab.policies.registry import make_policy

    workload = load_workload(args.trace)
    policies = args.policy or ["fcfs+easy", "fcfs+conservative"]
    cases = settings()
    run(workload, make_policy("fcfs+conservative"))         # compiled loops loaded
    configurations = {f"{policy} | {label}": {"name": policy}
                      for policy in policies for label in cases}
    options = {f"{policy} | {label}": {"failures": spec}
               for policy in policies for label, spec in cases.items()}
    results: dict[str, object] = {}
    times = interleaved_rounds(workload, configurations, args.repeat, options, results)
    n = len(workload)
    print(f"{workload.name}: {n:,} jobs, {args.repeat} rounds\n")
    print("| policy | failures | failures drawn | µs/job (median) | ratio to no failures |\n"
          "| --- | --- | ---: | ---: | ---: |")
    for policy in policies:
        base = statistics.median(times[f"{policy} | no failures"])
        for label in cases:
            key = f"{policy} | {label}"
            outages = results[key].outages            # type: ignore[attr-defined]
            drawn = 0 if outages is None else int((outages.outages[:, 0] == 0).sum())
            median = statistics.median(times[key])
            print(f"| {policy} | {label} | {drawn:,} | {median / n * 1e6:.1f} | "
                  f"{median / base:.2f} |")


if __name__ == "__main__":
    main()
