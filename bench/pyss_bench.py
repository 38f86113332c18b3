"""schedlab against pyss on KTH-SP2: whole processes and the simulation alone, as CPU seconds.

pyss (the Python scheduler simulator of the Hebrew University's parallel
systems lab, Python 2) is not installed with schedlab: give its ``src``
folder (the one holding ``run_simulator.py``) and a Python 2.7 interpreter.
Each case runs pyss and schedlab in turn, the order flipped every round:

* **whole process** -- pyss's ``run_simulator.py`` under ``python2.7 -O``
  against ``schedlab simulate TRACE --policy P --out DIR`` (start, imports,
  reading the trace, the simulation, the output), the child's user + system
  time from ``os.wait4``;
* **simulation alone** -- in one process each, the trace read first, then
  only the simulation timed (``time.clock`` in pyss, ``time.process_time``
  in schedlab; schedlab's second run of the same prepared workload, so that
  the numba cache load of conservative's first run is left out, and reported
  apart in the whole-process row).

    python bench/pyss_bench.py --pyss PATH/TO/pyss/src --python2 python2.7 --repeat 3

Ratios are pyss / schedlab of the medians (above 1: schedlab is faster).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KTH = ROOT.parent / "shared" / "workloads" / "KTH-SP2-1996-2.1-cln.swf.gz"
PROCESSORS = 100
#: (schedlab policy, pyss scheduler class, its module)
CASES = (("fcfs", "FcfsScheduler", "fcfs_scheduler"),
         ("fcfs+easy", "EasyBackfillScheduler", "easy_scheduler"),
         ("fcfs+conservative", "ConservativeScheduler", "conservative_scheduler"))

PYSS_ALONE = """
import sys, time
from base.workload_parser import parse_lines
from base.prototype import _job_inputs_to_jobs
from schedulers.simulator import Simulator
module = __import__("schedulers." + sys.argv[2], fromlist=[sys.argv[3]])
processors = int(sys.argv[4])
jobs = list(_job_inputs_to_jobs(parse_lines(open(sys.argv[1])), processors))
began = time.clock()
Simulator(jobs, processors, getattr(module, sys.argv[3])(processors)).run()
sys.stderr.write("seconds %.6f\\n" % (time.clock() - began))
"""

SCHEDLAB_ALONE = """
import sys, time
from schedlab.execution import execute, prepare_workload
from schedlab.run import RunSpec
spec = RunSpec(workload=sys.argv[1], policy=sys.argv[2])
prepared = prepare_workload(spec)
execute(spec, workload=prepared)
began = time.process_time()
execute(spec, workload=prepared)
sys.stderr.write(f"seconds {time.process_time() - began:.6f}\\n")
"""


def cpu_seconds(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """The child's user + system CPU seconds, and what it wrote on stderr."""
    with open(os.devnull, "wb") as devnull:
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=devnull,
                                 stderr=subprocess.PIPE)
        assert child.stderr is not None
        err = child.stderr.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{err}")
    return usage.ru_utime + usage.ru_stime, err


def reported(err: str) -> float:
    """The ``seconds X`` line a driver wrote on stderr."""
    return float(next(line.split()[1] for line in err.splitlines()
                      if line.startswith("seconds ")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyss", required=True, type=Path,
                        help="pyss's src folder (holding run_simulator.py)")
    parser.add_argument("--python2", default="python2.7", help="the interpreter pyss runs on")
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"),
                        help="the interpreter schedlab runs on")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per case")
    options = parser.parse_args()
    pyss = options.pyss.resolve()
    if not (pyss / "run_simulator.py").is_file():
        raise SystemExit(f"{pyss}: no run_simulator.py (give pyss's src folder)")
    with tempfile.TemporaryDirectory(prefix="schedlab-pyss-") as scratch:
        folder = Path(scratch)
        plain = folder / "kth.swf"                 # pyss reads plain text only
        plain.write_bytes(gzip.decompress(KTH.read_bytes()))
        (folder / "pyss_alone.py").write_text(PYSS_ALONE)
        # both keep their compiled bytecode, as an installed program does
        common = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        pyss_env = {**common, "PYTHONPATH": str(pyss)}
        ours_env = {**common, "PYTHONPATH": str(ROOT / "src")}
        print("| case | pyss whole (s) | schedlab whole (s) | ratio | pyss simulation (s) "
              "| schedlab simulation (s) | ratio |\n|---|---:|---:|---:|---:|---:|---:|")
        for policy, scheduler, module in CASES:
            runs: dict[str, list[float]] = {key: [] for key in
                                            ("pyss", "ours", "pyss_sim", "ours_sim")}
            for k in range(options.repeat):
                order = ("pyss", "ours") if k % 2 == 0 else ("ours", "pyss")
                for who in order:
                    if who == "pyss":
                        whole, _ = cpu_seconds(
                            [options.python2, "-O", str(pyss / "run_simulator.py"),
                             "--num-processors", str(PROCESSORS), "--input-file", str(plain),
                             "--scheduler", scheduler], pyss, pyss_env)
                        _, err = cpu_seconds([options.python2, "-O", str(folder / "pyss_alone.py"),
                                              str(plain), module, scheduler, str(PROCESSORS)],
                                             pyss, pyss_env)
                    else:
                        whole, _ = cpu_seconds(
                            [options.python, "-m", "schedlab", "simulate", str(KTH),
                             "--policy", policy, "--out", str(folder / "out")], folder, ours_env)
                        _, err = cpu_seconds([options.python, "-c", SCHEDLAB_ALONE, str(KTH),
                                              policy], folder, ours_env)
                    runs[who].append(whole)
                    runs[f"{who}_sim"].append(reported(err))
            p, o, ps, os_ = (statistics.median(runs[key]) for key in
                             ("pyss", "ours", "pyss_sim", "ours_sim"))
            print(f"| {policy} | {p:.2f} | {o:.2f} | {p / o:.1f} | {ps:.2f} | {os_:.3f} | "
                  f"{ps / os_:.1f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
