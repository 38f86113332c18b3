"""Speed at scale: time and peak memory against the number of jobs and the queue length.

    python bench/scaling_bench.py --quick            # a smoke test: small inputs, seconds per policy
    python bench/scaling_bench.py                    # 10k, 100k, 400k and 1M jobs (hours)
    python bench/scaling_bench.py --checksums        # schedule checksums, CPU time, longest queue
    python bench/scaling_bench.py --sweeps queue --json q.json    # one of the three sweeps
    python bench/scaling_bench.py --replot j.json q.json          # tables, figure, merged JSON

Every run is a whole ``schedlab simulate`` process of its own (start-up,
generating the workload, the simulation, the metrics, writing jobs.csv),
timed by the child's own CPU time (user + system, from ``os.wait4``) and
wall time, with the child's peak resident memory (``ru_maxrss``): on a
shared, noisy machine CPU time is the steadier measure.

* **Against the number of jobs**: the built-in ``lublin`` model with N jobs
  (N = 10k, 100k, 400k, 1M) for each policy of ``LUBLIN_POLICIES``, grid
  jobs for each of ``GRID_POLICIES`` (below).
* **Against the number of jobs, with every backlog bounded**: the same job
  counts of ``lublin`` stretched by 1.25 (``--shrink 1.25``: every
  interarrival time x 1.25, the offered load 0.8 of the model's).  At the
  model's own load some policies' backlog grows with the trace (dynP's mean
  queue: 105, 961, 4,172 jobs at 10k, 100k, 400k), so their cost per job
  grows with it whatever the implementation.  Here no backlog grows in
  proportion to the trace (mean queue at 10k, 100k, 400k, 1M jobs: dynP 24,
  39, 40, 48; fcfs without backfilling 142, 269, 463, 480; the others 2 to
  27), which shows the cost of the implementation alone.
* **Against the queue length**: ``lublin`` shrunk by 0.5 (``--shrink``,
  Streit 2002, §5) with 10k, 25k and 50k jobs: the offered load exceeds the
  machine, so the backlog grows with the number of jobs and the queue holds
  thousands of waiting jobs.  The table gives the longest queue and the
  time-weighted mean queue (``max_queue``, ``avg_queue`` of metrics.json).
* ``qops``, ``msb`` and ``mrt`` need deadlines: as bench/deadline_bench.py
  and docs/reference/policies/deadlines.md do, their jobs get exact
  estimates (``--perfect-estimates``) and QoPS deadlines from an EASY run
  with stringency 0.2 (``--stringency``, QoPS §4.1); that EASY run is part
  of their time.
* Gang scheduling runs on the same ``lublin`` jobs: ``gang`` with its
  defaults (Strategy 1, slots of one second, the costliest) and
  ``gang[strategy=3]``.
* The grid local policies (``GRID_POLICIES``) run on N grid jobs of the
  ``thesis-4.3`` platform (``schedlab generate grid``, seed 1), dispatched
  by ``least-work`` (round-robin would send the 15-machine cluster as many
  jobs as the 120-machine one, and its queue would grow at any load), with
  the mean interarrival time Ta of ``GRID_TA`` for each sweep: 10 s against
  jobs (as bench/grid_bench.py: a licence's offered load is 2.3, so the
  queue grows with the trace), 30 s with every backlog bounded (every
  offered load under 0.8; mean queue 0.2 jobs at 20,000 under grid-fcfs)
  and 5 s against the queue.  The jobs are written before the timed runs,
  once per size and Ta.
* **Per job**: µs/job is (CPU time - the baseline's) / (jobs - the
  baseline's jobs) and bytes/job is (peak RSS - the baseline's) / (jobs -
  the baseline's jobs), where the baseline is the same command on
  ``BASELINE_JOBS`` jobs: the interpreter, the imports and the start-up,
  which do not grow with the workload.  The baseline is large enough for
  every lazy import to happen in it (numba, loaded at conservative's first
  compression and dynP's first self-tuning step: about 100 MB that a
  10-job run never loads and a per-job figure must not count).
* **Flat cost per job?**  The slope of a least-squares line through
  log(CPU time - baseline) against log(jobs), per policy and sweep against
  jobs, on the runs of 100,000 jobs and more (all runs when fewer than two
  are that large): 1 means the cost per job stays flat, 2 means it grows
  linearly with the jobs.  Against the queue the slope is that of
  log(µs/job) against log(mean queue).
* **Checksums**: every run records the SHA-256 (first 16 hex digits) of
  every job's ``id,start`` from jobs.csv; ``--checksums`` runs only the
  inputs of bench/SCALING.md's checksum table: the same schedule before and
  after a speed change gives the same checksum.

A run that passes ``--timeout`` seconds of wall time is stopped and recorded
as ``timeout``; a policy that timed out is not run on more jobs of the same
sweep (recorded as ``skipped``).  Writes ``--json`` after every run (every
run so far, the fits, the load average before and after) and the log-log figure ``--figure``
(CPU time beyond start-up against jobs, at lublin's load and with every
backlog bounded; µs per job against the mean queue length).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Space-sharing and gang policies, run on the ``lublin`` model.
LUBLIN_POLICIES = ("fcfs", "fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp", "qops", "msb",
                   "mrt", "gang", "gang[strategy=3]")
#: Grid local policies, run on grid jobs of the ``thesis-4.3`` platform (``GRID_TA``).
GRID_POLICIES = ("grid-fcfs", "bf-fcfs", "bf-unmod", "bf-mod", "grid-edf", "eg-edf", "cs")
POLICIES = LUBLIN_POLICIES + GRID_POLICIES
#: Admission-control policies: exact estimates and deadlines from an EASY run (``STRINGENCY``).
DEADLINE_POLICIES = ("qops", "msb", "mrt")
JOB_COUNTS = (10_000, 100_000, 400_000, 1_000_000)
QUEUE_JOB_COUNTS = (10_000, 25_000, 50_000)
QUICK_JOB_COUNTS = (500, 2_000)
QUICK_QUEUE_JOB_COUNTS = (500, 1_000)
QUEUE_SHRINK = 0.5
#: The bounded-backlog sweep: offered load 0.8 of lublin's, where no policy's queue grows
#: in proportion to the trace (the module's docstring gives the mean queues).
BOUNDED_SHRINK = 1.25
#: The sweeps, in the order they run and are tabled.
SWEEPS = ("jobs", "bounded", "queue")
#: QoPS deadlines: the stringency of bench/deadline_bench.py and docs/reference/policies/deadlines.md.
STRINGENCY = 0.2
#: Each sweep's lublin shrink (None: the model's own interarrival times).
SHRINK = {"jobs": None, "bounded": BOUNDED_SHRINK, "queue": QUEUE_SHRINK}
#: Each sweep's mean interarrival time Ta of the grid jobs, in seconds: the thesis's 10
#: (§4.3, as bench/grid_bench.py), 30 where no offered load reaches 0.8, 5 for deep queues.
GRID_TA = {"jobs": 10.0, "bounded": 30.0, "queue": 5.0}
#: The grid platform, its dispatcher, and the seed of its machines and jobs.
GRID_PRESET = "thesis-4.3"
GRID_DISPATCH = "least-work"
GRID_SEED = 1
#: The baseline run's size: imports (the lazy ones too) and start-up, little of the workload.
BASELINE_JOBS = 200
#: The slope against jobs is fitted on runs this large when there are two: on smaller
#: ones the start-up, subtracted, leaves too little time to measure.
FIT_FROM_JOBS = 100_000
#: Issue 15: memory per job under 1 KB.
BYTES_PER_JOB_BUDGET = 1024
WORKLOADS = Path(os.environ.get("SCHEDLAB_TRACES", ROOT.parent / "shared" / "workloads"))
#: The inputs whose schedules bench/SCALING.md records: (label, simulate arguments).
CHECKSUM_INPUTS = (
    ("KTH-SP2", [str(WORKLOADS / "KTH-SP2-1996-2.1-cln.swf.gz")]),
    ("SDSC-BLUE", [str(WORKLOADS / "SDSC-BLUE-2000-4.2-cln.swf.gz")]),
    ("lublin 50k, shrink 0.5", ["lublin", "-n", "50000", "--shrink", "0.5"]),
)
CHECKSUM_POLICIES = ("fcfs+easy", "fcfs+conservative", "fcfs+plan", "dynp")


def schedlab_command() -> list[str]:
    """This interpreter running this checkout's schedlab (src/ first on the path)."""
    return [sys.executable, "-c", "from schedlab.cli.app import main; main()"]


def policy_args(policy: str) -> list[str]:
    """The simulate options of one policy (admission control: exact estimates and QoPS
    deadlines)."""
    if policy in DEADLINE_POLICIES:
        return ["-p", policy, "--perfect-estimates", "--stringency", str(STRINGENCY)]
    return ["-p", policy]


class Workloads:
    """The simulate arguments of a policy on N jobs in one sweep, and what they vary.

    A lublin policy's workload is the built-in model, generated inside its
    own process.  A grid policy's is an SWF file with its ``.grid.csv`` side
    file for the ``GRID_PRESET`` platform, written here once per (N, Ta)
    before any timed run, so a run's time is the simulation's alone.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self._platform: Path | None = None

    def args(self, policy: str, n: int, kind: str) -> list[str]:
        if policy not in GRID_POLICIES:
            shrink = SHRINK[kind]
            return ["lublin", "-n", str(n), *(["--shrink", str(shrink)] if shrink else []),
                    *policy_args(policy)]
        jobs = self._grid_jobs(n, GRID_TA[kind])
        return [str(jobs), "--platform", str(self.platform()), "-p", policy,
                "--dispatch", GRID_DISPATCH]

    @staticmethod
    def varied(policy: str, kind: str) -> dict:
        """What a sweep sets beside the jobs: the grid jobs' Ta, or lublin's shrink if any."""
        if policy in GRID_POLICIES:
            return {"ta": GRID_TA[kind]}
        return {} if SHRINK[kind] is None else {"shrink": SHRINK[kind]}

    def platform(self) -> Path:
        if self._platform is None:
            self._platform = self.scratch / f"{GRID_PRESET}.toml"
            _schedlab("platform", "generate", "--preset", GRID_PRESET, "--seed", str(GRID_SEED),
                      "-o", str(self._platform))
        return self._platform

    def _grid_jobs(self, n: int, ta: float) -> Path:
        jobs = self.scratch / f"grid-{n}-ta{ta:g}.swf"
        if not jobs.exists():
            _schedlab("generate", "grid", "--platform", str(self.platform()), "--preset",
                      GRID_PRESET, "-n", str(n), "--ta", f"{ta:g}", "--seed", str(GRID_SEED),
                      "-o", str(jobs))
        return jobs


def _schedlab(*args: str) -> None:
    """One untimed schedlab command that must succeed (writing a grid workload)."""
    subprocess.run([*schedlab_command(), *args], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))


def simulate(args: list[str], timeout: float) -> dict:
    """One ``schedlab simulate`` process: its status, CPU and wall time, peak RSS and schedule."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    with tempfile.TemporaryDirectory() as out:
        errors = Path(out) / "stderr.txt"
        with errors.open("wb") as stderr:
            began = time.perf_counter()
            child = subprocess.Popen([*schedlab_command(), "simulate", *args, "--out", out],
                                     stdout=subprocess.DEVNULL, stderr=stderr, env=env,
                                     start_new_session=True)
            stopper = _Stopper(child.pid, timeout)
            _, status, usage = os.wait4(child.pid, 0)
            stopper.cancel()
            child.returncode = os.waitstatus_to_exitcode(status)   # reaped here, not by Popen
        run = {"args": args, "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
               "wall_s": round(time.perf_counter() - began, 3),
               "peak_rss_kib": usage.ru_maxrss}
        if stopper.fired:
            return {**run, "status": "timeout", "error": f"stopped after {timeout:g} s of wall time"}
        if child.returncode != 0:
            return {**run, "status": "error", "error": errors.read_text()[-500:]}
        return {**run, "status": "ok", **_schedule_facts(Path(out))}


class _Stopper:
    """Kill a child's process group after ``timeout`` seconds of wall time."""

    def __init__(self, pid: int, timeout: float) -> None:
        self.fired = False
        self.pid = pid
        self._timer = threading.Timer(timeout, self._fire)
        self._timer.start()

    def _fire(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:                  # it ended as the time ran out
            return
        self.fired = True

    def cancel(self) -> None:
        self._timer.cancel()


def _schedule_facts(out: Path) -> dict:
    """The checksum of every job's ``id,start`` (jobs.csv) and the queue lengths (metrics.json)."""
    digest = hashlib.sha256()
    jobs = 0
    with (out / "jobs.csv").open() as handle:
        for row in csv.DictReader(handle):
            digest.update(f"{row['job_id']},{row['start']}\n".encode())
            jobs += 1
    metrics = json.loads((out / "metrics.json").read_text())["metrics"]
    return {"jobs": jobs, "checksum": digest.hexdigest()[:16],
            "longest_queue": metrics["max_queue"], "mean_queue": round(metrics["avg_queue"], 1)}


class Baselines:
    """The start-up of each policy's command: the same options on ``BASELINE_JOBS`` jobs.

    Measured before the policy's first timed run and twice, the first run
    discarded: in a fresh checkout that run compiles numba's on-disk cache
    (seconds), which no later run pays.
    """

    def __init__(self, timeout: float, workloads: Workloads) -> None:
        self.timeout = timeout
        self.workloads = workloads
        self.runs: dict[str, dict] = {}

    def of(self, policy: str) -> dict:
        if policy not in self.runs:
            args = self.workloads.args(policy, BASELINE_JOBS, "jobs")
            simulate(args, self.timeout)
            self.runs[policy] = simulate(args, self.timeout)
        return self.runs[policy]


def per_job(run: dict, baseline: dict) -> dict:
    """µs of CPU and bytes of peak memory per job beyond the baseline's (its jobs included)."""
    if baseline["status"] != "ok":
        return {}
    jobs = run["jobs"] - baseline["jobs"]
    return {"baseline_cpu_s": baseline["cpu_s"], "baseline_rss_kib": baseline["peak_rss_kib"],
            "us_per_job": round(1e6 * (run["cpu_s"] - baseline["cpu_s"]) / jobs, 2),
            "bytes_per_job": round(1024 * (run["peak_rss_kib"] - baseline["peak_rss_kib"])
                                   / jobs)}


def sweep(kind: str, counts, policies, timeout: float, baselines: Baselines) -> Iterator[dict]:
    """Every policy on every job count; a policy that timed out skips the larger counts."""
    stopped_at: dict[str, int] = {}
    for n in counts:
        for policy in policies:
            row = {"sweep": kind, "n": n, "policy": policy, **Workloads.varied(policy, kind)}
            if policy in stopped_at:
                row = {**row, "status": "skipped", "error": f"timed out at {stopped_at[policy]} jobs"}
                report(row)
                yield row
                continue
            args = baselines.workloads.args(policy, n, kind)
            baseline = baselines.of(policy)
            run = simulate(args, timeout)
            if run["status"] == "timeout":
                stopped_at[policy] = n
            row = {**row, **run}
            if run["status"] == "ok":
                row.update(per_job(run, baseline))
            report(row)
            yield row


def checksums(timeout: float) -> Iterator[dict]:
    for label, args in CHECKSUM_INPUTS:
        for policy in CHECKSUM_POLICIES:
            row = {"sweep": "checksum", "input": label, "policy": policy,
                   **simulate([*args, "-p", policy], timeout)}
            report(row)
            yield row


def slope(xs, ys) -> float | None:
    """The slope of the least-squares line through (log x, log y); None below two points."""
    points = [(x, y) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(points) < 2:
        return None
    logs = np.log(np.array(points, dtype=float))
    return float(np.polyfit(logs[:, 0], logs[:, 1], 1)[0])


def fits(rows: list[dict], policies) -> list[dict]:
    """Per policy: the log-log slopes against jobs and against the mean queue, and per-job costs."""
    result = []
    for policy in policies:
        measured = {kind: [r for r in rows if r["sweep"] == kind and r["policy"] == policy
                           and "us_per_job" in r] for kind in SWEEPS}
        jobs, bounded, queue = measured["jobs"], measured["bounded"], measured["queue"]
        result.append({
            "policy": policy,
            **_jobs_fit(jobs),
            **{f"{key}_bounded": value for key, value in _jobs_fit(bounded).items()},
            "slope_us_per_job_vs_mean_queue": _rounded(slope([r["mean_queue"] for r in queue],
                                                             [r["us_per_job"] for r in queue])),
            "bytes_per_job": {r["n"]: r["bytes_per_job"] for r in jobs if r["n"] >= 400_000},
        })
    return result


def _jobs_fit(runs: list[dict]) -> dict:
    """The slope of CPU time beyond start-up against jobs (on runs of ``FIT_FROM_JOBS`` and
    more when there are two) and the µs per job of the largest run."""
    largest = max(runs, key=lambda r: r["n"]) if runs else None
    large = [r for r in runs if r["n"] >= FIT_FROM_JOBS]
    fitted = large if len(large) >= 2 else runs
    return {"slope_time_vs_jobs": _rounded(slope([r["n"] for r in fitted],
                                                 [r["cpu_s"] - r["baseline_cpu_s"]
                                                  for r in fitted])),
            "slope_fitted_on": [r["n"] for r in fitted],
            "largest_n": largest and largest["n"],
            "us_per_job_at_largest_n": largest and largest["us_per_job"]}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def describe(row: dict) -> str:
    if "input" in row:
        return row["input"]
    model = f"{GRID_PRESET} grid" if row["policy"] in GRID_POLICIES else "lublin"
    varied = (f", Ta {row['ta']:g}" if "ta" in row
              else f", shrink {row['shrink']}" if "shrink" in row else "")
    return f"{model} {row['n']}{varied}"


def report(row: dict) -> None:
    """One line per run on stderr as it finishes."""
    if row["status"] != "ok":
        tail = f"{row['status']}: {row['error'].strip().splitlines()[-1][:80]}"
    else:
        tail = (f"{row['checksum']} queue max {row['longest_queue']} mean {row['mean_queue']}"
                + (f"  {row['us_per_job']} us/job {row['bytes_per_job']} B/job"
                   if "us_per_job" in row else ""))
    times = f"cpu {row['cpu_s']:8.2f} s wall {row['wall_s']:8.2f} s" if "cpu_s" in row else ""
    print(f"{describe(row):26} {row['policy']:18} {times:32} {tail}", file=sys.stderr, flush=True)


def markdown(rows: list[dict]) -> str:
    lines = ["| sweep | input | policy | jobs | longest queue | mean queue | CPU s | wall s "
             "| µs/job | peak MiB | bytes/job | checksum |", "|" + " --- |" * 12]
    for row in rows:
        head = f"| {row['sweep']} | {describe(row)} | {row['policy']} |"
        if row["status"] != "ok":
            times = (f"{row['cpu_s']:.1f} | {row['wall_s']:.1f}" if "cpu_s" in row else " | ")
            status = (f"skipped ({row['error']})" if row["status"] == "skipped"
                      else row["status"])
            lines.append(f"{head} | | | {times} | | | | {status} |")
            continue
        lines.append(f"{head} {row['jobs']} | {row['longest_queue']} | {row['mean_queue']:.0f} "
                     f"| {row['cpu_s']:.2f} | {row['wall_s']:.2f} | {row.get('us_per_job', '')} "
                     f"| {row['peak_rss_kib'] / 1024:.0f} | {row.get('bytes_per_job', '')} "
                     f"| {row['checksum']} |")
    return "\n".join(lines)


def markdown_fits(fitted: list[dict]) -> str:
    lines = ["| policy | slope: time vs jobs | µs/job at the largest n | bytes/job at 400k, 1M "
             f"| slope, shrink {BOUNDED_SHRINK} | µs/job at the largest n, shrink {BOUNDED_SHRINK} "
             "| slope: µs/job vs mean queue |", "|" + " --- |" * 7]
    for fit in fitted:
        memory = ", ".join(f"{b}" + (" (over 1 KB)" if b > BYTES_PER_JOB_BUDGET else "")
                           for b in fit["bytes_per_job"].values())
        lines.append(f"| {fit['policy']} | {_text(fit['slope_time_vs_jobs'])} "
                     f"| {_largest(fit, '')} | {memory} "
                     f"| {_text(fit['slope_time_vs_jobs_bounded'])} | {_largest(fit, '_bounded')} "
                     f"| {_text(fit['slope_us_per_job_vs_mean_queue'])} |")
    return "\n".join(lines)


def _largest(fit: dict, suffix: str) -> str:
    """µs per job at the largest run of a sweep (``suffix`` "" or "_bounded"), with its jobs."""
    n = fit[f"largest_n{suffix}"]
    return f"{fit[f'us_per_job_at_largest_n{suffix}']} ({n:,})" if n else ""


def _text(value) -> str:
    return "" if value is None else f"{value}"


def figure(rows: list[dict], policies, path: Path) -> None:
    """Log-log: CPU time beyond start-up against jobs, at lublin's load and with every
    backlog bounded; µs per job against the mean queue.

    One colour per policy in every panel; the dashed line has slope 1 (a flat
    cost per job) for reading the two panels against jobs.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    palette = plt.get_cmap("tab20").colors
    colours = {policy: palette[k % len(palette)] for k, policy in enumerate(POLICIES)}
    fig, (by_jobs, by_jobs_bounded, by_queue) = plt.subplots(1, 3, figsize=(15, 4))
    for policy in policies:
        style = {"marker": "o", "label": policy, "color": colours.get(policy)}
        for kind, axes in (("jobs", by_jobs), ("bounded", by_jobs_bounded)):
            jobs = sorted((r["n"], r["cpu_s"] - r["baseline_cpu_s"]) for r in rows
                          if r["sweep"] == kind and r["policy"] == policy and "us_per_job" in r
                          and r["cpu_s"] > r["baseline_cpu_s"])
            if jobs:
                axes.plot(*zip(*jobs), **style)
        queue = sorted((r["mean_queue"], r["us_per_job"]) for r in rows if r["sweep"] == "queue"
                       and r["policy"] == policy and "us_per_job" in r and r["us_per_job"] > 0)
        if queue:
            by_queue.plot(*zip(*queue), **style)
    for kind, axes, title in (("jobs", by_jobs, "time against jobs"),
                              ("bounded", by_jobs_bounded,
                               "time against jobs, every backlog bounded")):
        counts = sorted({r["n"] for r in rows if r["sweep"] == kind})
        if counts:
            axes.plot([counts[0], counts[-1]], [1e-5 * counts[0], 1e-5 * counts[-1]], "--",
                      color="grey", label="10 µs per job")
        axes.set(xscale="log", yscale="log", xlabel=f"jobs ({_workloads(kind)})",
                 ylabel="CPU s beyond start-up", title=title)
    by_queue.set(xscale="log", yscale="log",
                 xlabel=f"mean queue length ({_workloads('queue')})",
                 ylabel="CPU µs per job beyond start-up", title="cost per job against the queue")
    for axes in (by_jobs, by_jobs_bounded, by_queue):
        axes.grid(True, which="both", alpha=0.3)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _workloads(kind: str) -> str:
    """The workloads of one sweep, for an axis label."""
    shrink = SHRINK[kind]
    lublin = "lublin" + (f", shrink {shrink}" if shrink else "")
    return f"{lublin}; grid Ta {GRID_TA[kind]:g}"


def write_json(path: Path, quick: bool, load_before, rows: list[dict], fitted: list[dict]) -> None:
    """Everything measured so far (rewritten after every run, so a stopped sweep keeps its rows)."""
    path.write_text(json.dumps(
        {"quick": quick, "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                     "platform": platform.platform()},
         "load_average_before": load_before, "load_average_after": os.getloadavg(),
         "rows": rows, "fits": fitted}, indent=1))


def run(options: argparse.Namespace, policies: list[str]) -> list[dict]:
    """The checksums or the sweeps that ``options`` ask for, saving the JSON after every run."""
    load_before = os.getloadavg()
    rows: list[dict] = []

    def save(row: dict) -> None:
        rows.append(row)
        write_json(options.json, options.quick, load_before, rows, [])

    if options.checksums:
        for row in checksums(options.timeout):
            save(row)
        return rows
    counts = {"jobs": QUICK_JOB_COUNTS if options.quick else JOB_COUNTS,
              "bounded": QUICK_JOB_COUNTS if options.quick else JOB_COUNTS,
              "queue": QUICK_QUEUE_JOB_COUNTS if options.quick else QUEUE_JOB_COUNTS}
    with tempfile.TemporaryDirectory() as scratch:
        baselines = Baselines(options.timeout, Workloads(Path(scratch)))
        for kind in SWEEPS:
            if kind in options.sweeps:
                for row in sweep(kind, counts[kind], policies, options.timeout, baselines):
                    save(row)
    write_json(options.json, options.quick, load_before, rows, fits(rows, policies))
    return rows


def merged_rows(paths: list[Path]) -> list[dict]:
    """The rows of saved runs; a run measured again in a later file replaces the earlier one."""
    rows: dict[tuple, dict] = {}
    for path in paths:
        for row in json.loads(path.read_text())["rows"]:
            key = (row["sweep"], row.get("input"), row.get("n"), row.get("shrink"),
                   row.get("ta"), row["policy"])
            rows.pop(key, None)
            rows[key] = row
    order = {policy: k for k, policy in enumerate(POLICIES)}
    return sorted(rows.values(), key=lambda r: (
        SWEEPS.index(r["sweep"]) if r["sweep"] in SWEEPS else len(SWEEPS), r.get("n") or 0,
        order.get(r["policy"], len(order))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke test: {QUICK_JOB_COUNTS} jobs, queue sweep on "
                             f"{QUICK_QUEUE_JOB_COUNTS} jobs")
    parser.add_argument("--checksums", action="store_true",
                        help="only the schedule checksums of bench/SCALING.md")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--sweeps", default=",".join(SWEEPS),
                        help=f"some of {', '.join(SWEEPS)}, comma-separated (the default: all)")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds of wall time per run")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "scaling.json")
    parser.add_argument("--figure", type=Path, default=ROOT / "bench" / "scaling.png")
    parser.add_argument("--replot", type=Path, nargs="+", metavar="JSON",
                        help="run nothing: the tables, the figure and --json of these saved "
                             "runs (a run in a later file replaces the same run in an earlier one)")
    options = parser.parse_args()
    policies = options.policies.split(",")
    unknown = sorted(set(options.sweeps.split(",")) - set(SWEEPS))
    if unknown:
        parser.error(f"--sweeps: expected some of {', '.join(SWEEPS)}, got {', '.join(unknown)}")
    if not options.replot and set(policies) - set(POLICIES):
        parser.error(f"--policies: expected some of {', '.join(POLICIES)}, got "
                     f"{', '.join(sorted(set(policies) - set(POLICIES)))}")
    if options.replot:
        rows = merged_rows(options.replot)
        policies = [p for p in POLICIES if any(row["policy"] == p for row in rows)]
    else:
        rows = run(options, policies)
    print(markdown(rows))
    if not options.checksums:
        fitted = fits(rows, policies)
        if options.replot:
            options.json.write_text(json.dumps(
                {"merged_from": [str(path) for path in options.replot], "rows": rows,
                 "fits": fitted}, indent=1))
        figure(rows, policies, options.figure)
        print()
        print(markdown_fits(fitted))
    print(f"\nload average (1, 5, 15 min) now: {os.getloadavg()}")


if __name__ == "__main__":
    main()
