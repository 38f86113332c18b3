"""Cost of advance reservations on KTH-SP2: fcfs+easy and fcfs+conservative, with and without.

    python bench/reservation_bench.py [--repeat 5] [--other-src PATH/src]

For each policy three scenarios of Margo et al. (§5) are timed on the whole
KTH-SP2 trace (27,992 jobs, 100 processors, about 11 months):

* ``baseline`` — no reservation requests;
* ``reservations`` — the paper's request stream (15 per week, 8-128 nodes
  capped at the machine's 100, 4-18 h, notice 1-7 days, seed 2006) over the
  trace, exact placement, no throttling;
* ``throttled`` — the same requests with the sliding-week cap at all nodes
  for half a day (100 x 12 h node-seconds, the paper's 256 x 12 h scaled to
  the machine).

``--other-src`` also times the baseline with another schedlab source tree
(e.g. an export of the commit before reservations), to show what the
reservation machinery costs a run that has none.

Every measurement is a fresh process (``--worker``) that loads the trace and
builds the requests untimed, then times one ``run()``: CPU time
(``time.process_time``) and wall time.  Rounds are interleaved (every
configuration once, then again) so that load from elsewhere spreads over
all of them; the median and minimum of ``--repeat`` rounds are reported,
with the ratio of the medians to the baseline.  The schedule's own numbers
(requests granted, time-weighted mean queue length, Margo's node-seconds-
weighted wait) say how much longer the queues the scheduler works on are.
Results: a markdown table on stdout (copied into bench/RESERVATIONS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
DEFAULT_TRACE = REPO_DIR.parent / "shared" / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
POLICIES = ("fcfs+easy", "fcfs+conservative")
SCENARIOS = ("baseline", "reservations", "throttled")
SEED = 2006


def worker(config: dict) -> dict:
    """Run one configuration in this process; return its timings and schedule numbers."""
    from schedlab.api import load_workload
    from schedlab.engine.simulator import run
    from schedlab.metrics import compute_metrics
    from schedlab.policies.registry import make_policy

    workload = load_workload(config["trace"])
    options = {}
    spec = {"name": config["policy"]}
    if config["scenario"] != "baseline":
        from schedlab.workload.reservations import generate_requests

        span = (0, workload.jobs[-1].submit)
        options["reservations"] = generate_requests(span, processors=workload.processors,
                                                    seed=SEED)
        if config["scenario"] == "throttled":
            spec["reservation_cap"] = workload.processors * 12 * 3600
    policy = make_policy(spec)
    cpu, wall = time.process_time(), time.perf_counter()
    result = run(workload, policy, **options)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    metrics = compute_metrics(result, classes=False)
    return {"cpu": cpu, "wall": wall, "jobs": len(result),
            "granted": metrics.get("reservations_granted", 0),
            "requests": metrics.get("reservations", 0),
            "avg_queue": metrics["avg_queue"], "wait_weighted": metrics["wait_weighted"]}


def measure(config: dict, src: str | None) -> dict:
    """Run :func:`worker` in a fresh interpreter (with ``src`` first on the path if given)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(config)],
                          capture_output=True, text=True, env=env, check=True,
                          cwd=src or REPO_DIR)
    return json.loads(done.stdout.strip().splitlines()[-1])


def configurations(trace: Path, other_src: str | None) -> list[tuple[str, dict, str | None]]:
    """(label, worker config, source tree) of every measurement of a round."""
    configs = []
    for policy in POLICIES:
        for scenario in SCENARIOS:
            configs.append((f"{policy} {scenario}",
                            {"trace": str(trace), "policy": policy, "scenario": scenario}, None))
        if other_src is not None:
            configs.append((f"{policy} baseline (other source)",
                            {"trace": str(trace), "policy": policy, "scenario": "baseline"},
                            other_src))
    return configs


def report(runs: dict[str, list[dict]]) -> str:
    """The markdown table: medians, minima, ratios to the baseline, schedule numbers."""
    lines = ["| configuration | CPU s median | CPU s min | wall s median | ratio to baseline "
             "(CPU, medians) | granted / requests | mean queue | wait_weighted (h) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, samples in runs.items():
        policy = label.split()[0]
        base = statistics.median(s["cpu"] for s in runs[f"{policy} baseline"])
        cpu = statistics.median(s["cpu"] for s in samples)
        first = samples[0]
        lines.append(f"| {label} | {cpu:.3f} | {min(s['cpu'] for s in samples):.3f} | "
                     f"{statistics.median(s['wall'] for s in samples):.3f} | "
                     f"{cpu / base:.2f} | {first['granted']} / {first['requests']} | "
                     f"{first['avg_queue']:.1f} | {first['wait_weighted'] / 3600:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--other-src", help="another schedlab source tree (its src/ directory)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    if not args.trace.exists():
        sys.exit(f"trace not found: {args.trace}")
    configs = configurations(args.trace, args.other_src)
    runs: dict[str, list[dict]] = {label: [] for label, _, _ in configs}
    for round_no in range(args.repeat):
        for label, config, src in configs:
            runs[label].append(measure(config, src))
        print(f"round {round_no + 1}/{args.repeat} done", file=sys.stderr)
    print(report(runs))


if __name__ == "__main__":
    main()
