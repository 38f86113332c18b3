"""Time whole-process simulations of schedlab and of AccaSim on real SWF traces.

    python bench/run_bench.py [--repeat 3] [--only kth] [--skip-accasim]

What it measures (bench/README.md explains each choice):

* schedlab: `schedlab simulate TRACE --policy P --out DIR` for P in fcfs,
  fcfs+easy, fcfs+conservative on KTH-SP2 (27,992 jobs, 100 processors) and
  SDSC-BLUE (243,306 jobs, 1,152 processors), read from ../shared/workloads/.
* AccaSim 1.1.3 (the peer simulator), on KTH only, with its FirstInFirstOut and
  EASYBackfilling dispatchers, through bench/accasim_run.py in its own
  virtualenv bench/.venv-accasim (created here when missing).

Every run is a separate process, timed from spawn to exit with
time.perf_counter (so interpreter start-up, imports, reading the .gz trace and
writing results all count), with its CPU time (user + system) beside; its peak resident set size is GNU time's %M
(/usr/bin/time wraps each run; ru_maxrss of that one process). Each
configuration runs `--repeat` times, interleaved, and the median is reported.
A run only counts if it simulated the whole trace: every SWF job record must
be a row of schedlab's jobs.csv or a record its reader reports as skipped
(metrics.json), and AccaSim must report every record loaded and finished.

Results: a markdown table on stdout and bench/results.json (machine, every run,
medians, and the ratios schedlab / AccaSim for fcfs vs FIFO and fcfs+easy vs EASY).
"""

import argparse
import contextlib
import csv
import datetime
import gzip
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
DEFAULT_WORKLOADS = REPO_DIR.parent / "shared" / "workloads"
DEFAULT_SCHEDLAB = REPO_DIR / ".venv" / "bin" / "schedlab"
ACCASIM_VENV = BENCH_DIR / ".venv-accasim"
ACCASIM_DRIVER = BENCH_DIR / "accasim_run.py"
ACCASIM_REQUIREMENT = "accasim==1.1.3"
ACCASIM_RESULT_MARKER = "ACCASIM_RESULT"
RESULTS_JSON = BENCH_DIR / "results.json"
# Children run as a user's shell would start them: with bytecode caching on,
# whatever the environment of the benchmark says (a PYTHONDONTWRITEBYTECODE
# left over would make every run compile the modules changed since install).
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
GNU_TIME = Path("/usr/bin/time")

SCHEDLAB_POLICIES = ("fcfs", "fcfs+easy", "fcfs+conservative")
ACCASIM_DISPATCHERS = ("fifo", "easy")
# schedlab policy compared with each AccaSim dispatcher in the ratio table.
COUNTERPARTS = {"fifo": "fcfs", "easy": "fcfs+easy"}


@dataclass(frozen=True)
class Trace:
    """A benchmark trace: its key, file name, size, and AccaSim system config (None: not run there)."""

    key: str
    filename: str
    jobs: int
    processors: int
    accasim_config: Path | None


TRACES = (
    Trace("kth", "KTH-SP2-1996-2.1-cln.swf.gz", 27_992, 100, BENCH_DIR / "accasim_kth_config.json"),
    Trace("sdsc-blue", "SDSC-BLUE-2000-4.2-cln.swf.gz", 243_306, 1_152, None),
)


@dataclass(frozen=True)
class ProcessRun:
    """One finished child process: wall and CPU time, peak RSS, exit code, captured output."""

    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float
    exit_code: int
    timed_out: bool
    stdout: str
    stderr: str


def parse_args(argv):
    """Read the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per configuration; the median is reported (default 3)")
    parser.add_argument("--only", choices=[t.key for t in TRACES],
                        help="benchmark one trace only")
    parser.add_argument("--skip-accasim", action="store_true",
                        help="do not run (or install) AccaSim")
    parser.add_argument("--workloads", type=Path, default=DEFAULT_WORKLOADS,
                        help=f"directory of the SWF traces (default {DEFAULT_WORKLOADS})")
    parser.add_argument("--schedlab", type=Path, default=DEFAULT_SCHEDLAB,
                        help=f"schedlab executable (default {DEFAULT_SCHEDLAB})")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds after which one run is killed and recorded as timed out")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be an int >= 1. Got {args.repeat} instead.")
    return args


# --- measuring one process -------------------------------------------------

def timed_process(argv, timeout):
    """Run `argv` to completion; return its wall time, peak RSS and output.

    The wall time runs from just before the spawn to the moment the child is
    reaped. The CPU time is user + system time from the rusage os.wait4
    returns, which includes the descendants the child waited for (the
    simulator under GNU time); unlike wall time it hardly grows when other
    processes compete for the cores. The peak RSS is measured as
    rss_method() describes. The child
    runs in its own session, so that after `timeout` seconds the whole
    process group (GNU time and the program it runs) is killed.
    """
    with tempfile.TemporaryDirectory(prefix="bench-run-") as scratch:
        rss_file = Path(scratch) / "peak_rss_kib"
        out_path, err_path = Path(scratch) / "stdout", Path(scratch) / "stderr"
        expired = threading.Event()
        with open(out_path, "w") as out, open(err_path, "w") as err:
            started = time.perf_counter()
            child = subprocess.Popen(gnu_time_prefix(rss_file) + list(argv), stdout=out, stderr=err,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     env=CHILD_ENV)
            killer = threading.Timer(timeout, kill_group, (child.pid, expired))
            killer.start()
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
            killer.cancel()
        # The child was reaped here, not by Popen: tell Popen, so it never waits for it again.
        child.returncode = os.waitstatus_to_exitcode(status)
        return ProcessRun(
            wall_seconds=wall,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            peak_rss_mib=peak_rss_kib(rss_file, usage) / 1024.0,
            exit_code=child.returncode,
            timed_out=expired.is_set(),
            stdout=out_path.read_text(),
            stderr=err_path.read_text(),
        )


def kill_group(pid, expired):
    """Mark the run as timed out and kill its whole process group (it may just have exited)."""
    expired.set()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def rss_method():
    """How peak RSS is measured on this machine (recorded with the results).

    GNU time's %M is ru_maxrss of the program, forked from GNU time itself
    (about 2 MiB), so it is exact per run. Without /usr/bin/time the fallback
    is ru_maxrss of the rusage os.wait4 returns for the child; Linux counts in
    it the memory the child shared with this Python process before exec, so
    that value is at least the bench process's own RSS (about 15 MiB).
    """
    if GNU_TIME.exists():
        return "GNU time %M (ru_maxrss of the simulator process)"
    return "os.wait4 ru_maxrss (floor: the bench process's own RSS, about 15 MiB)"


def gnu_time_prefix(rss_file):
    """The command prefix that makes GNU time write the peak RSS (KiB) to `rss_file`; empty without it."""
    if GNU_TIME.exists():
        return [str(GNU_TIME), "-f", "%M", "-o", str(rss_file)]
    return []


def peak_rss_kib(rss_file, usage):
    """Peak RSS in KiB: GNU time's last output line when it wrote one, else ru_maxrss from os.wait4."""
    if rss_file.exists():
        lines = rss_file.read_text().split()
        if lines and lines[-1].isdigit():
            return int(lines[-1])
    return usage.ru_maxrss


def failure_reason(run):
    """A one-line reason why a run does not count, or None when it exited cleanly."""
    if run.timed_out:
        return "timed out"
    if run.exit_code != 0:
        lines = [line for line in run.stderr.strip().splitlines() if line.strip()]
        return f"exit {run.exit_code}: {lines[-1] if lines else 'no message'}"
    return None


# --- schedlab --------------------------------------------------------------

def jobs_csv_summary(out_dir):
    """Count the rows of OUT/jobs.csv by status (the contract of `schedlab simulate`)."""
    counts = {}
    with open(Path(out_dir) / "jobs.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            counts[row["status"]] = counts.get(row["status"], 0) + 1
    return counts


def skipped_records(out_dir):
    """The SWF records schedlab's reader skipped, by reason, from OUT/metrics.json.

    The reader skips records it cannot simulate (SPEC §1.1), e.g. SDSC-BLUE's
    10,744 records whose runtime is -1, and reports every one of them.
    """
    with open(Path(out_dir) / "metrics.json") as handle:
        return json.load(handle).get("skipped", {})


def schedlab_run(schedlab, trace_path, policy, records, timeout):
    """Time one `schedlab simulate` process and check it accounted for every job record.

    Every SWF record must be either a row of jobs.csv or a record the reader
    reports as skipped.
    """
    with tempfile.TemporaryDirectory(prefix="schedlab-bench-") as scratch:
        out_dir = Path(scratch) / "out"
        argv = [str(schedlab), "simulate", str(trace_path), "--policy", policy, "--out", str(out_dir)]
        run = timed_process(argv, timeout)
        reason = failure_reason(run)
        statuses = {} if reason else jobs_csv_summary(out_dir)
        skipped = {} if reason else skipped_records(out_dir)
    simulated, dropped = sum(statuses.values()), sum(skipped.values())
    if reason is None and simulated + dropped != records:
        reason = f"jobs.csv has {simulated} rows and {dropped} records were skipped, of {records} job records"
    return {
        "wall_seconds": run.wall_seconds,
        "cpu_seconds": run.cpu_seconds,
        "peak_rss_mib": run.peak_rss_mib,
        "jobs_simulated": simulated,
        "statuses": statuses,
        "skipped": skipped,
        "error": reason,
    }


# --- AccaSim ---------------------------------------------------------------

def accasim_python():
    """Path of the Python interpreter of the AccaSim virtualenv."""
    return ACCASIM_VENV / "bin" / "python"


def ensure_accasim_venv():
    """Create bench/.venv-accasim with AccaSim installed, unless it already exists.

    AccaSim lives in its own virtualenv so that its dependencies never mix
    with schedlab's; the interpreter is the one running this script. The
    virtualenv ignores itself in git (a `.gitignore` of `*` inside it, as
    `python -m venv` writes from Python 3.13 on), so a broad `git add` in the
    repository never picks up its 300 MiB of installed packages.
    """
    python = accasim_python()
    if python.exists():
        return python
    print(f"creating {ACCASIM_VENV} and installing {ACCASIM_REQUIREMENT} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(ACCASIM_VENV)], check=True)
    (ACCASIM_VENV / ".gitignore").write_text("*\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", ACCASIM_REQUIREMENT], check=True)
    return python


def accasim_result(stdout):
    """The JSON summary that accasim_run.py prints after its marker, or None."""
    for line in stdout.splitlines():
        if line.startswith(ACCASIM_RESULT_MARKER + " "):
            return json.loads(line[len(ACCASIM_RESULT_MARKER) + 1:])
    return None


def accasim_run(python, trace_path, config, dispatcher, records, timeout):
    """Time one AccaSim process and check it loaded and finished every job record."""
    argv = [str(python), str(ACCASIM_DRIVER), str(trace_path),
            "--config", str(config), "--dispatcher", dispatcher]
    run = timed_process(argv, timeout)
    summary = accasim_result(run.stdout) or {}
    reason = failure_reason(run)
    finished = summary.get("jobs_finished", 0)
    if reason is None and not (summary.get("jobs_loaded") == finished == records):
        reason = f"AccaSim loaded {summary.get('jobs_loaded')} and finished {finished} of {records} job records"
    return {
        "wall_seconds": run.wall_seconds,
        "cpu_seconds": run.cpu_seconds,
        "peak_rss_mib": run.peak_rss_mib,
        "jobs_simulated": finished,
        "jobs_rejected": summary.get("jobs_rejected"),
        "accasim_simulation_seconds": summary.get("simulation_seconds"),
        "decompress_seconds": summary.get("decompress_seconds"),
        "error": reason,
    }


# --- repeating and summarising -----------------------------------------------

def count_swf_records(trace_path):
    """Count the job records of a gzip SWF trace (lines that are neither blank nor ';' comments)."""
    with gzip.open(trace_path, "rt") as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith(";"))


def summarise(runs):
    """Median (and range) of wall time, median CPU time and peak RSS over the runs, if all of them count."""
    errors = [run["error"] for run in runs if run["error"]]
    if errors:
        return {"ok": False, "error": errors[0]}
    walls = [run["wall_seconds"] for run in runs]
    summary = {
        "ok": True,
        "median_wall_seconds": statistics.median(walls),
        "min_wall_seconds": min(walls),
        "max_wall_seconds": max(walls),
        "median_cpu_seconds": statistics.median(run["cpu_seconds"] for run in runs),
        "median_peak_rss_mib": statistics.median(run["peak_rss_mib"] for run in runs),
        "jobs_simulated": runs[0]["jobs_simulated"],
    }
    own = [run["accasim_simulation_seconds"] for run in runs if run.get("accasim_simulation_seconds")]
    if own:
        summary["median_accasim_simulation_seconds"] = statistics.median(own)
    return summary


def measure_interleaved(runners, repeat):
    """Run every configuration `repeat` times, round-robin; return runs and summary per configuration.

    `runners` maps a (simulator, policy) key to a function doing one run.
    Rounds interleave the configurations (A B C, A B C, ...) so that a burst
    of load from elsewhere on the machine spreads over all of them instead of
    spoiling one. A configuration that fails is not run again. One round
    before the counted ones warms up caches (bytecode, the trace in the page
    cache) and is not counted.
    """
    runs = {key: [] for key in runners}
    for key, run_once in runners.items():
        print(f"  {' '.join(key)} [warm-up, not counted]", file=sys.stderr, flush=True)
        run_once()
    for round_index in range(repeat):
        for key, run_once in runners.items():
            if any(run["error"] for run in runs[key]):
                continue
            run = run_once()
            runs[key].append(run)
            shown = run["error"] or f"{run['wall_seconds']:.2f} s, {run['peak_rss_mib']:.0f} MiB"
            print(f"  {' '.join(key)} [{round_index + 1}/{repeat}]: {shown}", file=sys.stderr, flush=True)
    return {key: {"runs": key_runs, **summarise(key_runs)} for key, key_runs in runs.items()}


def schedlab_runners(args, trace_path, records):
    """One runner per schedlab policy, keyed ("schedlab", policy)."""
    return {
        ("schedlab", policy): lambda policy=policy: schedlab_run(args.schedlab, trace_path, policy,
                                                                 records, args.timeout)
        for policy in SCHEDLAB_POLICIES
    }


def accasim_runners(args, python, trace, trace_path, records):
    """One runner per AccaSim dispatcher, keyed ("accasim", dispatcher)."""
    return {
        ("accasim", dispatcher): lambda dispatcher=dispatcher: accasim_run(
            python, trace_path, trace.accasim_config, dispatcher, records, args.timeout)
        for dispatcher in ACCASIM_DISPATCHERS
    }


def ratios(schedlab, accasim):
    """schedlab / AccaSim ratios of median wall time, CPU time and peak RSS, for each pair that has both."""
    pairs = {}
    for dispatcher, policy in COUNTERPARTS.items():
        ours, theirs = schedlab.get(policy, {}), accasim.get(dispatcher, {})
        if ours.get("ok") and theirs.get("ok"):
            pairs[f"{policy} / {dispatcher}"] = {
                "wall_time": ours["median_wall_seconds"] / theirs["median_wall_seconds"],
                "cpu_time": ours["median_cpu_seconds"] / theirs["median_cpu_seconds"],
                "peak_rss": ours["median_peak_rss_mib"] / theirs["median_peak_rss_mib"],
            }
    return pairs


# --- machine description -----------------------------------------------------

def cpu_model():
    """The CPU model name from /proc/cpuinfo (platform.processor() as a fallback)."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def total_memory_gib():
    """Total memory from /proc/meminfo in GiB, or None where it is not readable."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def interpreter_report(python, code):
    """Run a one-line Python snippet with `python`; its stripped stdout, or None if it fails."""
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit():
    """The repository's HEAD commit, or None outside a git checkout."""
    done = subprocess.run(["git", "-C", str(REPO_DIR), "rev-parse", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def machine_description(schedlab, accasim):
    """CPU model, core count, memory, OS, load, and the package and Python versions of both simulators.

    The load average is recorded because the machine may be shared: a load
    above the core count while the benchmark runs makes wall times noisy.
    """
    version_of = ("import importlib.metadata as m, sys; "
                  "print(m.version({!r}), '(Python ' + sys.version.split()[0] + ')')")
    schedlab_python = schedlab.parent / "python"
    machine = {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "peak_rss_method": rss_method(),
        "memory_gib": total_memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "load_average_at_start": [round(load, 2) for load in os.getloadavg()],
        "bench_python": platform.python_version(),
        "schedlab": interpreter_report(schedlab_python, version_of.format("schedlab"))
        if schedlab_python.exists() else None,
        "schedlab_commit": git_commit(),
    }
    if accasim is not None:
        machine["accasim"] = interpreter_report(accasim, version_of.format("accasim"))
    return machine


# --- report ----------------------------------------------------------------

def seconds_cell(entry):
    """'median (min-max)' seconds, or the failure reason."""
    if not entry.get("ok"):
        return f"n/a ({entry.get('error')})"
    return f"{entry['median_wall_seconds']:.2f} ({entry['min_wall_seconds']:.2f}-{entry['max_wall_seconds']:.2f})"


def results_rows(results):
    """One markdown row per (trace, simulator, policy)."""
    rows = []
    for key, trace in results["traces"].items():
        named = [("schedlab", policy, entry) for policy, entry in trace["schedlab"].items()]
        named += [("AccaSim", dispatcher.upper(), entry) for dispatcher, entry in trace.get("accasim", {}).items()]
        for simulator, policy, entry in named:
            rss = f"{entry['median_peak_rss_mib']:.0f}" if entry.get("ok") else "n/a"
            cpu = f"{entry['median_cpu_seconds']:.2f}" if entry.get("ok") else "n/a"
            own = entry.get("median_accasim_simulation_seconds")
            simulated = f"{entry['jobs_simulated']:,}" if entry.get("ok") else "n/a"
            rows.append(f"| {key} | {trace['jobs']:,} | {simulator} | {policy} | {simulated} | {len(entry['runs'])} "
                        f"| {seconds_cell(entry)} | {cpu} | {rss} | {f'{own:.2f}' if own else ''} |")
    return rows


def ratio_rows(results):
    """One markdown row per schedlab/AccaSim pair that has both medians."""
    rows = []
    for key, trace in results["traces"].items():
        for pair, ratio in trace.get("ratios", {}).items():
            rows.append(f"| {key} | {pair} | {ratio['wall_time']:.3f} | {ratio['cpu_time']:.3f} "
                        f"| {ratio['peak_rss']:.3f} |")
    return rows


def markdown_report(results):
    """The machine, the timing table and the ratio table, as markdown."""
    machine = results["machine"]
    lines = [f"Machine: {machine['cpu_model']}, {machine['logical_cpus']} logical CPUs "
             f"({machine['usable_cpus']} usable), {machine['memory_gib']} GiB, {machine['os']}, "
             f"load average {machine['load_average_at_start'][0]} at start; "
             f"schedlab {machine['schedlab'] or 'not found'}; AccaSim {machine.get('accasim') or 'not run'}; "
             f"{results['repeat']} runs each, {results['date']}",
             "",
             "| trace | job records | simulator | policy | jobs simulated | runs | wall s, median (min-max) "
             "| CPU s (median) | peak RSS MiB (median) | AccaSim's own simulation s |",
             "| --- | ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: |",
             *results_rows(results)]
    pairs = ratio_rows(results)
    if pairs:
        lines += ["", "| trace | schedlab / AccaSim | wall-time ratio | CPU-time ratio | peak-RSS ratio |",
                  "| --- | --- | ---: | ---: | ---: |", *pairs]
    return "\n".join(lines)


def bench_trace(args, trace, accasim):
    """Benchmark one trace with schedlab and, where it has a config and AccaSim is on, with AccaSim."""
    trace_path = args.workloads / trace.filename
    if not trace_path.exists():
        raise SystemExit(f"{trace_path}: trace not found (expected {trace.jobs:,} jobs); "
                         f"give its directory with --workloads")
    records = count_swf_records(trace_path)
    if records != trace.jobs:
        raise SystemExit(f"{trace_path}: {records:,} job records, expected {trace.jobs:,}; "
                         f"this is not the trace the benchmark is defined on")
    runners = {}
    if args.schedlab.exists():
        runners.update(schedlab_runners(args, trace_path, records))
    with_accasim = accasim is not None and trace.accasim_config is not None
    if with_accasim:
        runners.update(accasim_runners(args, accasim, trace, trace_path, records))
    measured = measure_interleaved(runners, args.repeat)
    missing = {"runs": [], "ok": False, "error": f"{args.schedlab} not found"}
    entry = {"file": trace.filename, "jobs": records, "processors": trace.processors,
             "schedlab": {policy: measured.get(("schedlab", policy), missing) for policy in SCHEDLAB_POLICIES}}
    if with_accasim:
        entry["accasim"] = {dispatcher: measured[("accasim", dispatcher)] for dispatcher in ACCASIM_DISPATCHERS}
        entry["ratios"] = ratios(entry["schedlab"], entry["accasim"])
    return entry


def main(argv=None):
    """Run the benchmark, print the markdown report, write bench/results.json."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    traces = [t for t in TRACES if args.only in (None, t.key)]
    wants_accasim = not args.skip_accasim and any(t.accasim_config for t in traces)
    accasim = ensure_accasim_venv() if wants_accasim else None
    results = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "repeat": args.repeat,
        "command": " ".join(["python", "bench/run_bench.py", *argv]),
        "machine": machine_description(args.schedlab, accasim),
        "traces": {trace.key: bench_trace(args, trace, accasim) for trace in traces},
    }
    RESULTS_JSON.write_text(json.dumps(results, indent=2) + "\n")
    print(markdown_report(results))
    print(f"\nwrote {RESULTS_JSON.relative_to(REPO_DIR)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
