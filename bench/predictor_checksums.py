"""Checksums of the runs that plan on predictions: a speed change must change none of them.

    python bench/predictor_checksums.py OUT.json [--quick] [--against BASE.json]

For each run, the md5 of every job's start, end and status, of the
``predicted``, ``final_prediction`` and ``corrections`` columns, of the
outage record where there is one, and the ``broken_reservations`` and
``plan_rebuilds`` statistics.  The 40 runs: every built-in predictor (and
two parameterisations of ``user-quantile`` and ``knn``, and ``easy++`` with
the graded correction) under both backfill orders on KTH-SP2, the same but
``knn`` on SDSC-BLUE, sjf+easy and fcfs+conservative with ``easy++`` on both,
and fcfs+easy and EASY++ under kill and checkpoint failures (one per
node-week) on SDSC-BLUE.  ``--quick``: the KTH-SP2 runs only (20).  Written
to ``OUT.json`` (label -> digest); ``--against`` lists the runs whose digest
differs from that of an earlier file, and exits 1 if any does.  Run it in
each tree (this script imports the ``src`` beside it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
WORKLOADS = REPO_DIR.parent / "shared" / "workloads"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
SDSC = "SDSC-BLUE-2000-4.2-cln.swf.gz"
PREDICTORS = ("estimate", "easy++", "easy++[correction=graded]", "last", "user-quantile",
              "user-quantile[q=0.9,window=5]", "knn", "knn[k=3,window=16]", "oracle")
#: One node failure per node-week on SDSC-BLUE's 144 nodes of 8 (bench/OUTAGES.md).
NODE_WEEK = "mtbf=7d,repair=4h,node_size=8"
EASY_PLUS_PLUS = {"name": "fcfs+easy", "predictor": "easy++", "backfill_order": "sjbf"}


def cases(quick: bool) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """(trace, policy spec, failure spec or None) of every run checked."""
    for trace in (KTH,) if quick else (KTH, SDSC):
        for predictor in PREDICTORS:
            if trace == SDSC and predictor.startswith("knn"):
                continue
            for order in ("queue", "sjbf"):
                yield trace, {"name": "fcfs+easy", "predictor": predictor,
                              "backfill_order": order}, None
        yield trace, {"name": "sjf+easy", "predictor": "easy++"}, None
        yield trace, {"name": "fcfs+conservative", "predictor": "easy++"}, None
    if not quick:
        for fate in ("kill", "checkpoint"):
            for spec in ({"name": "fcfs+easy"}, EASY_PLUS_PLUS):
                yield SDSC, dict(spec), f"{NODE_WEEK},fate={fate}"


def digest(result: Any) -> str:
    """The md5 of a run's schedule, predictions, outage record and counts."""
    import numpy as np

    md5 = hashlib.md5()
    for column in (result.start, result.end, result.status, result.predicted,
                   result.final_prediction, result.corrections):
        if column is not None:
            md5.update(np.ascontiguousarray(column).tobytes())
    if result.outages is not None:
        for table in (result.outages.outages, result.outages.attempts):
            md5.update(np.ascontiguousarray(table).tobytes())
    counts = sorted((key, value) for key, value in result.stats.items()
                    if key in ("broken_reservations", "plan_rebuilds"))
    md5.update(repr(counts).encode())
    return md5.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_DIR / "src"))
    from schedlab.api import load_workload, run
    from schedlab.policies.registry import make_policy
    from schedlab.workload.outages import parse_failure_spec

    loaded: dict[str, Any] = {}
    digests: dict[str, str] = {}
    for trace, spec, failures in cases(args.quick):
        if trace not in loaded:
            loaded[trace] = load_workload(WORKLOADS / trace)
        result = run(loaded[trace], make_policy(dict(spec)),
                     failures=None if failures is None else parse_failure_spec(failures))
        label = f"{trace.split('-')[0]} {json.dumps(spec)} failures={failures}"
        digests[label] = digest(result)
        print(label, digests[label], flush=True)
    args.out.write_text(json.dumps(digests, indent=1) + "\n")
    if args.against is not None:
        before = json.loads(args.against.read_text())
        differ = [label for label, value in digests.items() if before.get(label) != value]
        print(f"{len(digests) - len(differ)} of {len(digests)} runs equal to {args.against}")
        for label in differ:
            print("differs:", label)
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
