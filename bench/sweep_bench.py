"""Sweep speed: 100 small runs serially vs on a process pool; the Dask per-task overhead.

    python bench/sweep_bench.py [--repeat 3] [--max-load 1.0] [--skip-dask]

What it measures (bench/SWEEP.md records the numbers and the conditions):

* **Pool speed-up.** One experiment of 100 small runs (the built-in
  Lublin-Feitelson model, 2,000 jobs, 5 seeds x 5 shrinking factors x 4
  policies; 0.02-0.5 s per run) swept by ``run_sweep`` with
  ``executor="serial"`` and with ``executor="pool", jobs=2``.  Each sweep
  runs in a fresh Python process into an empty experiment directory and is
  timed around ``run_sweep`` only: loading the experiment, starting the pool
  (fork server and its imports), the runs, the result store — everything a
  user waits for except the interpreter start.  Speed-up = serial / pool.
* **Dask per-task overhead.** 100 tiny runs (20 jobs each, a few
  milliseconds of work) swept serially, on a warm one-worker pool and on a
  warm one-worker ``LocalCluster`` (processes, 127.0.0.1), all in one process
  after a warm-up sweep so that no import or start-up is timed.  Overhead per
  task = (executor time - serial time) / 100: scheduling, moving the run
  and its record between processes, per task.  The start-up of a
  two-worker LocalCluster (cluster, client, first task) and the 100-run
  experiment on it are reported beside.

The machine may be shared: before each measurement the script waits (up to
``--wait`` seconds) for the 1-minute load average to fall below
``--max-load`` and records the load before and after.  Two more signs of
other work on the machine are recorded for each 100-run sweep: the CPU time
of the sweep's own process (serially, close to its wall time when nothing
else runs) and the sum of the runs' wall times measured inside the workers
(a run that shares its core with other work takes longer).  Sweeps
alternate between modes, ``--repeat`` times; medians and minima are
reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
RUNS = 100

SMALL_RUNS = """\
name = "bench-100"
seeds = [0, 1, 2, 3, 4]
[[workloads]]
source = "lublin"
jobs = 2000
[transforms]
shrink = [0.8, 0.9, 1.0, 1.1, 1.2]
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "sjf+easy"
[[policies]]
name = "fcfs+conservative"
[[policies]]
name = "sjf+conservative"
"""

TINY_RUNS = """\
name = "bench-tiny"
seeds = [%s]
[[workloads]]
source = "lublin"
jobs = 20
[[policies]]
name = "fcfs+easy"
[[policies]]
name = "sjf+easy"
[[policies]]
name = "fcfs+conservative"
[[policies]]
name = "sjf+conservative"
"""


def tiny_experiment(first_seed: int) -> str:
    """100 tiny runs: 25 seeds x 4 policies; other seeds give other run ids."""
    return TINY_RUNS % ", ".join(str(s) for s in range(first_seed, first_seed + RUNS // 4))


# --------------------------------------------------------------------------- child processes


def child_sweep(spec: Path, out: Path, executor: str, jobs: int | None) -> None:
    """Run one sweep in this (fresh) process; print its wall time as JSON."""
    from schedlab.experiments import load_results, run_sweep

    began, cpu_began = time.perf_counter(), time.process_time()
    summary = run_sweep(spec, out, executor=executor, jobs=jobs)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    if summary.finished != RUNS:
        raise SystemExit(f"expected {RUNS} finished runs, got {summary.finished} "
                         f"(failures: {summary.failures})")
    run_time = float(load_results(out)["wall_time"].sum())
    print(json.dumps({"wall": wall, "sweep_cpu": cpu, "runs_time": run_time}))


def child_overhead(workdir: Path) -> None:
    """Warm serial, pool and LocalCluster paths, then time 100 tiny runs on each."""
    import logging

    from distributed import Client, LocalCluster

    from schedlab.experiments import run_sweep

    def timed(label: str, first_seed: int, **options) -> float:
        spec = workdir / f"{label}.toml"
        spec.write_text(tiny_experiment(first_seed))
        began = time.perf_counter()
        summary = run_sweep(spec, workdir / label, **options)
        wall = time.perf_counter() - began
        assert summary.finished == RUNS, summary
        return wall

    results: dict[str, float] = {}
    timed("warm-serial", 10_000, executor="serial")
    results["serial"] = timed("serial", 0, executor="serial")
    timed("warm-pool", 20_000, executor="pool", jobs=1)
    results["pool1"] = timed("pool1", 100, executor="pool", jobs=1)

    began = time.perf_counter()
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=logging.ERROR)
    address = cluster.scheduler_address
    timed("warm-dask", 30_000, executor="dask", dask_address=address)
    results["dask1_start_and_warm"] = time.perf_counter() - began
    results["dask1"] = timed("dask1", 200, executor="dask", dask_address=address)
    cluster.close()

    began = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    client.submit(sum, [1, 2]).result()
    results["dask2_start"] = time.perf_counter() - began
    client.close()
    spec = workdir / "small.toml"
    spec.write_text(SMALL_RUNS)
    began = time.perf_counter()
    summary = run_sweep(spec, workdir / "small-dask2", executor="dask",
                        dask_address=cluster.scheduler_address)
    results["dask2_small_100"] = time.perf_counter() - began
    assert summary.finished == RUNS
    cluster.close()
    print(json.dumps(results))


# --------------------------------------------------------------------------- parent


def wait_for_quiet(max_load: float, wait: float) -> float:
    """Wait until the 1-minute load average is below ``max_load`` (at most ``wait`` s)."""
    deadline = time.monotonic() + wait
    while os.getloadavg()[0] >= max_load and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def run_child(*args: str) -> dict:
    """This script in a fresh interpreter; the JSON it prints last."""
    done = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True,
                          text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def sweep_speedup(repeat: int, max_load: float, wait: float, workers: int) -> dict:
    """Alternate serial and pool sweeps of the 100-run experiment in fresh processes."""
    rows: dict[str, list[dict]] = {"serial": [], "pool": []}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "small.toml"
        spec.write_text(SMALL_RUNS)
        for i in range(repeat):
            for mode in ("serial", "pool"):
                load = wait_for_quiet(max_load, wait)
                out = Path(tmp) / f"{mode}-{i}"
                jobs = ["--workers", str(workers)] if mode == "pool" else []
                result = run_child("--child-sweep", str(spec), str(out), mode, *jobs)
                result.update(load_before=load, load_after=os.getloadavg()[0])
                rows[mode].append(result)
                print(f"  {mode:6s} run {i + 1}: {json.dumps(result)}", file=sys.stderr)
    serial = statistics.median(r["wall"] for r in rows["serial"])
    pool = statistics.median(r["wall"] for r in rows["pool"])
    return {"runs": rows, "serial_median": serial, "pool_median": pool,
            "serial_min": min(r["wall"] for r in rows["serial"]),
            "pool_min": min(r["wall"] for r in rows["pool"]),
            "speedup_median": serial / pool,
            "speedup_best": min(r["wall"] for r in rows["serial"])
            / min(r["wall"] for r in rows["pool"])}


def dask_overhead(repeat: int, max_load: float, wait: float) -> dict:
    """Per-task overheads of the pool and Dask paths against serial, ``repeat`` times."""
    rows = []
    for i in range(repeat):
        load = wait_for_quiet(max_load, wait)
        with tempfile.TemporaryDirectory() as tmp:
            result = run_child("--child-overhead", tmp)
        result.update(load_before=load, load_after=os.getloadavg()[0])
        rows.append(result)
        print(f"  overhead run {i + 1}: {json.dumps(result)}", file=sys.stderr)

    def per_task(key: str) -> float:
        return statistics.median((r[key] - r["serial"]) / RUNS for r in rows)

    return {"runs": rows, "pool1_per_task_s": per_task("pool1"),
            "dask1_per_task_s": per_task("dask1"),
            "serial_per_task_s": statistics.median(r["serial"] / RUNS for r in rows),
            "dask2_start_s": statistics.median(r["dask2_start"] for r in rows),
            "dask2_small_100_s": statistics.median(r["dask2_small_100"] for r in rows)}


def report(speed: dict, overhead: dict | None, args: argparse.Namespace) -> None:
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; repeat {args.repeat}, max load {args.max_load}")
    print()
    print("| sweep of 100 small runs | median (s) | best (s) |")
    print("| --- | ---: | ---: |")
    print(f"| serial | {speed['serial_median']:.2f} | {speed['serial_min']:.2f} |")
    print(f"| pool, {args.workers} workers | {speed['pool_median']:.2f} | {speed['pool_min']:.2f} |")
    print(f"| speed-up | {speed['speedup_median']:.2f}x | {speed['speedup_best']:.2f}x |")
    if overhead is not None:
        print()
        print("| 100 tiny runs, warm | per task |")
        print("| --- | ---: |")
        print(f"| serial (the work itself) | {overhead['serial_per_task_s'] * 1e3:.1f} ms |")
        print(f"| pool of 1, overhead over serial | {overhead['pool1_per_task_s'] * 1e3:.1f} ms |")
        print(f"| LocalCluster of 1, overhead over serial | "
              f"{overhead['dask1_per_task_s'] * 1e3:.1f} ms |")
        print()
        print(f"LocalCluster of 2 workers: start-up {overhead['dask2_start_s']:.2f} s; "
              f"the 100 small runs on it {overhead['dask2_small_100_s']:.2f} s")
    print()
    print(json.dumps({"speedup": speed, "overhead": overhead}, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-load", type=float, default=1.0,
                        help="wait for the 1-minute load average to fall below this")
    parser.add_argument("--wait", type=float, default=300.0,
                        help="longest wait for a quiet machine before each measurement (s)")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--child-sweep", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--child-overhead", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_sweep:
        spec, out, mode = args.child_sweep
        child_sweep(Path(spec), Path(out), mode, args.workers)
        return
    if args.child_overhead:
        child_overhead(Path(args.child_overhead))
        return
    speed = sweep_speedup(args.repeat, args.max_load, args.wait, args.workers)
    overhead = None if args.skip_dask else dask_overhead(args.repeat, args.max_load, args.wait)
    report(speed, overhead, args)


if __name__ == "__main__":
    main()
