"""Convergent Scheduling: what incremental MFS saves, the whole policy's time per event
as the jobs grow (thesis Fig. 24), and the thesis' Table 5.

    python bench/cs_bench.py                 # all parts, markdown for bench/CS.md (minutes)
    python bench/cs_bench.py --only imfs     # the matching part only
    python bench/cs_bench.py --only policy   # Fig. 24's question, about a minute
    python bench/cs_bench.py --only table5 --instances 5

Part 1 (IMFS): a cluster of ``--machines`` machines holds a growing number
of jobs; at every event one job ends and one arrives.  Two workloads of
changes: *arrivals* (the other rows unchanged) and *aging* (every eligible
entry also grows by the same amount, as Anti-Aging makes it between two
events).  For each, the incremental matcher (warm, from the previous
event's matching) against the same algorithm from scratch (cold) and
against scipy's ``linear_sum_assignment`` (MFS): augmenting paths, rows
scanned by Dijkstra, milliseconds per event.  Every result is checked
against MFS (same cardinality and weight).

Part 2 (policy, Fig. 24): the local policy ``cs`` in the grid engine on
the ``thesis-4.2`` cluster (150 machines, one job per machine), with
``--policy-sizes`` jobs submitted at once and then one every 10 s: the
CPU time of each of the first ``--passes`` scheduling passes after the
first (each with about that many jobs in the system, running and queued),
incremental (IMFS, ``CS_i_np``) against from scratch (MFS, ``CS_ni_np``),
and the part of it spent in the matching.  The same with CPUs shared
(``sharing=slots``, §4.3.2), where the plan is matched over machine slots.

Part 3 (Table 5): :func:`schedlab.policies.grid.convergent.table5.table5`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import platform as host
import time

import numpy as np

from schedlab.engine.grid import run_grid
from schedlab.platform.generator import generate_platform, preset
from schedlab.policies.grid.convergent import IncrementalMatcher, mfs
from schedlab.policies.grid.convergent.policy import ConvergentScheduling
from schedlab.policies.grid.convergent.table5 import table5, table5_markdown
from schedlab.workload.models.grid import PRESETS as JOBS
from schedlab.workload.models.grid import generate_grid


def random_rows(rng: np.random.Generator, count: int, machines: int) -> np.ndarray:
    """Job rows: each machine eligible with probability 0.5, preferences uniform in [1, 20)."""
    return np.where(rng.random((count, machines)) < 0.5, rng.uniform(1, 20, (count, machines)),
                    0.0)


def imfs_case(jobs: int, machines: int, events: int, aging: bool, cold_events: int,
              seed: int) -> dict:
    """One size and workload of changes: per-event work of warm, cold and MFS."""
    rng = np.random.default_rng(seed)
    matrix = random_rows(rng, jobs, machines)
    keys = list(range(jobs))
    next_key = jobs
    warm = IncrementalMatcher()
    warm.match(matrix, keys)
    stats = {"warm_aug": [], "warm_rows": [], "warm_ms": [], "cold_aug": [], "cold_rows": [],
             "cold_ms": [], "mfs_ms": []}
    for event in range(events):
        gone = int(rng.integers(len(keys)))
        matrix = np.vstack([np.delete(matrix, gone, axis=0), random_rows(rng, 1, machines)])
        keys = keys[:gone] + keys[gone + 1:] + [next_key]
        next_key += 1
        if aging:
            matrix = np.where(matrix > 0, matrix + 0.02 * 10, 0.0)   # age_factor x 10 s
        before = (warm.augmentations, warm.scanned_rows)
        began = time.perf_counter()
        result = warm.match(matrix, keys)
        stats["warm_ms"].append(1000 * (time.perf_counter() - began))
        stats["warm_aug"].append(warm.augmentations - before[0])
        stats["warm_rows"].append(warm.scanned_rows - before[1])
        began = time.perf_counter()
        best = mfs(matrix)
        stats["mfs_ms"].append(1000 * (time.perf_counter() - began))
        assert result.size == best.size and abs(result.weight - best.weight) < 1e-6
        if event < cold_events:
            cold = IncrementalMatcher()
            began = time.perf_counter()
            cold.match(matrix, keys)
            stats["cold_ms"].append(1000 * (time.perf_counter() - began))
            stats["cold_aug"].append(cold.augmentations)
            stats["cold_rows"].append(cold.scanned_rows)
    return {key: float(np.mean(values)) for key, values in stats.items()}


def imfs_section(sizes, machines: int, events: int, cold_events: int, seed: int) -> str:
    lines = [f"Machines: {machines}; {events} events per size (one job ends, one arrives); "
             f"cold runs on the first {cold_events} events.  Means per event.", "",
             "| changes | jobs | warm: augmentations | warm: rows scanned | warm (ms) "
             "| cold: augmentations | cold: rows scanned | cold (ms) | scipy MFS (ms) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for aging in (False, True):
        for jobs in sizes:
            s = imfs_case(jobs, machines, events, aging, cold_events, seed)
            lines.append(f"| {'aging' if aging else 'arrivals'} | {jobs} | {s['warm_aug']:.1f} "
                         f"| {s['warm_rows']:.0f} | {s['warm_ms']:.1f} | {s['cold_aug']:.0f} "
                         f"| {s['cold_rows']:.0f} | {s['cold_ms']:.1f} | {s['mfs_ms']:.1f} |")
            print(lines[-1], flush=True)
    return "\n".join(lines)


class _Enough(Exception):
    """Raised by :class:`TimedCS` to stop a run once it has timed enough passes."""


class TimedCS(ConvergentScheduling):
    """``cs`` that records the CPU time of each pass (``time.process_time``: the machine may
    be shared), of its matching, and the jobs in the system, and stops the run after
    ``passes`` passes."""

    def __init__(self, passes: int, **params) -> None:
        super().__init__(**params)
        self.passes = passes
        self.records: list[tuple[int, float, float]] = []
        self._matching = 0.0

    def schedule(self, ctx) -> None:
        if len(self.records) > self.passes:
            raise _Enough
        jobs = len(ctx.running) + len(ctx.waiting)
        self._matching = 0.0
        began = time.process_time()
        super().schedule(ctx)
        self.records.append((jobs, time.process_time() - began, self._matching))

    def _match(self, matrix, keys):
        began = time.process_time()
        try:
            return super()._match(matrix, keys)
        finally:
            self._matching += time.process_time() - began

    def _fill_rooms(self, ctx, tasks, plan, matrix):
        began = time.process_time()
        try:
            return super()._fill_rooms(ctx, tasks, plan, matrix)
        finally:
            self._matching += time.process_time() - began


def burst_workload(jobs: int, passes: int, seed: int):
    """The thesis-4.2 cluster and ``jobs`` jobs submitted at 0, then ``passes`` more, 10 s
    apart (so the system holds about ``jobs`` jobs for the first passes)."""
    platform = generate_platform(preset("thesis-4.2"), seed=seed)
    grid = generate_grid(platform, JOBS["thesis-4.2"], n_jobs=jobs + passes, interarrival=10,
                         seed=seed)
    submits = [0] * jobs + [10 * (k + 1) for k in range(passes)]
    moved = tuple(job._replace(submit=t, deadline=None if job.deadline is None
                               else job.deadline - job.submit + t)
                  for job, t in zip(grid.workload.jobs, submits))
    workload = dataclasses.replace(grid.workload, jobs=moved)
    return platform, dataclasses.replace(grid, workload=workload)


def policy_case(jobs: int, passes: int, seed: int, allocation: str, **params) -> dict:
    """Mean per pass (the first pass, placing the burst, left out) of one ``cs`` run."""
    platform, grid = burst_workload(jobs, passes, seed)
    policy = TimedCS(passes, **params)
    with contextlib.suppress(_Enough):
        run_grid(grid, platform, [policy], allocation=allocation)
    records = np.array(policy.records[1:passes + 1])
    return {"jobs": float(records[:, 0].mean()), "ms": 1000 * float(records[:, 1].mean()),
            "match_ms": 1000 * float(records[:, 2].mean()), "passes": len(records)}


def policy_section(sizes, passes: int, seed: int) -> str:
    lines = [f"The thesis-4.2 cluster (seed {seed}: 150 machines); per size, the jobs "
             f"submitted at 0, then one every 10 s; means over {passes} passes after the "
             f"first.", "",
             "| jobs submitted at 0 | jobs in the system | CS_i_np (ms/pass) | of which matching "
             "| CS_ni_np (ms/pass) | of which matching | shared, slots (ms/pass) "
             "| of which matching |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for jobs in sizes:
        warm = policy_case(jobs, passes, seed, "exclusive", incremental=True)
        cold = policy_case(jobs, passes, seed, "exclusive", incremental=False)
        slots = policy_case(jobs, passes, seed, "shared", sharing="slots")
        lines.append(f"| {jobs} | {warm['jobs']:.0f} | {warm['ms']:.1f} | "
                     f"{warm['match_ms']:.1f} | {cold['ms']:.1f} | {cold['match_ms']:.1f} | "
                     f"{slots['ms']:.1f} | {slots['match_ms']:.1f} |")
        print(lines[-1], flush=True)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("imfs", "policy", "table5"))
    parser.add_argument("--sizes", default="50,100,200,400")
    parser.add_argument("--machines", type=int, default=100)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--cold-events", type=int, default=3)
    parser.add_argument("--policy-sizes", default="150,300,600,1200")
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=250, help="jobs per Table 5 instance")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    parts = [f"Machine: {host.machine()}, Python {host.python_version()}, "
             f"{time.strftime('%Y-%m-%d')}."]
    if args.only in (None, "imfs"):
        sizes = [int(s) for s in args.sizes.split(",")]
        parts += ["## Incremental MFS",
                  imfs_section(sizes, args.machines, args.events, args.cold_events, args.seed)]
    if args.only in (None, "policy"):
        sizes = [int(s) for s in args.policy_sizes.split(",")]
        parts += ["## The whole policy as the jobs grow (Fig. 24)",
                  policy_section(sizes, args.passes, args.seed)]
    if args.only in (None, "table5"):
        began = time.perf_counter()
        rows = table5(instances=args.instances, n_jobs=args.jobs, seed=args.seed,
                      time_limit=args.time_limit)
        parts += ["## Table 5: greedy against exact knapsack",
                  f"{args.instances} instances per ratio, {args.jobs} jobs each, exact "
                  f"solver limited to {args.time_limit:g} s per group "
                  f"({time.perf_counter() - began:.0f} s in all).",
                  table5_markdown(rows)]
        print(parts[-1])
    print("\n\n".join(parts))


if __name__ == "__main__":
    main()
