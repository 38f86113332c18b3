"""A change against the commit before: whole ``schedlab simulate`` processes of both trees,
alternated in the same minutes, as CPU seconds; each case reported as a ratio.

The base tree is a ``git worktree`` of ``--base`` (default ``HEAD``) in a
temporary folder, or ``--base`` itself when it is a folder holding a source tree
(one with its compiled extension built, which a fresh worktree lacks: its
compiled kernels would run on numba's JIT); the new one is the working tree
this script stands in.
Both run with the same interpreter (``.venv`` by default), each with its own
``src`` first on ``PYTHONPATH``, so only the code differs. Every case runs
once in each tree to warm numba's cache, then ``--repeat`` pairs, base and
new in turn, the order flipped every pair. The CPU seconds of a run are
the child's user + system time (``os.wait4``). A case's ratio is new / base
of the medians; the schedules of both trees are compared by the md5 of
``jobs.csv`` (columns job_id to end), so a ratio is never read off two
different schedules.

    python bench/ab_bench.py                      # the default cases, HEAD as the base
    python bench/ab_bench.py --base HEAD~3 --repeat 7
    python bench/ab_bench.py --base ../base-tree --only "KTH fcfs"   # a built tree
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT.parent / "shared" / "workloads"
KTH = str(WORKLOADS / "KTH-SP2-1996-2.1-cln.swf.gz")
SDSC = str(WORKLOADS / "SDSC-BLUE-2000-4.2-cln.swf.gz")
#: One node failure per node-week on SDSC-BLUE's 144 nodes of 8 (bench/OUTAGES.md).
NODE_WEEK = "mtbf=7d,repair=4h,node_size=8"
#: The slurm policy with multifactor priority and fair-share (bench/slurm_bench.py's).
SLURM_FAIR_SHARE = ("--param", "cpus_per_node=8", "--param", "priority=multifactor",
                    "--param", "weight_age=1000", "--param", "weight_fairshare=10000",
                    "--param", "weight_job_size=1000")
#: (label, arguments after ``schedlab simulate``): every execution model, the policy families.
CASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("KTH fcfs", (KTH, "--policy", "fcfs")),
    ("KTH fcfs+easy", (KTH, "--policy", "fcfs+easy")),
    ("KTH fcfs+conservative", (KTH, "--policy", "fcfs+conservative")),
    ("KTH fcfs+plan", (KTH, "--policy", "fcfs+plan")),
    ("KTH dynp", (KTH, "--policy", "dynp")),
    ("KTH qops", (KTH, "--policy", "qops", "--stringency", "0.5")),
    ("KTH predictor=easy++", (KTH, "--policy", "fcfs+easy", "--param", "predictor=easy++")),
    ("KTH predictor=knn", (KTH, "--policy", "fcfs+easy", "--param", "predictor=knn")),
    ("KTH EASY++ (predictor=easy++, sjbf)", (KTH, "--policy", "fcfs+easy", "--param",
                                            "predictor=easy++", "--param",
                                            "backfill_order=sjbf")),
    ("SDSC fcfs+easy", (SDSC, "--policy", "fcfs+easy")),
    ("SDSC fcfs+easy, a failure that never comes", (SDSC, "--policy", "fcfs+easy",
                                                    "--failures", "never.csv,node_size=8")),
    ("SDSC fcfs+easy, 1 failure per node-week", (SDSC, "--policy", "fcfs+easy", "--failures",
                                                 f"{NODE_WEEK},fate=kill")),
    ("SDSC slurm", (SDSC, "--policy", "slurm", "--param", "cpus_per_node=8")),
    ("KTH slurm fair-share", (KTH, "--policy", "slurm", *SLURM_FAIR_SHARE)),
    ("w0 5000 gang strategy 3", ("w0", "-n", "5000", "--policy", "gang",
                                 "--param", "strategy=3")),
    ("grid 2000 jobs bf-fcfs", ("grid.swf", "--platform", "grid-platform.toml",
                                "--policy", "bf-fcfs")),
    ("grid 2000 jobs bf-mod", ("grid.swf", "--platform", "grid-platform.toml",
                               "--policy", "bf-mod")),
    ("grid 2000 jobs grid-edf", ("grid.swf", "--platform", "grid-platform.toml",
                                 "--policy", "grid-edf")),
    ("grid 2000 jobs cs", ("grid.swf", "--platform", "grid-platform.toml", "--policy", "cs")),
)


def run_once(python: str, tree: Path, args: tuple[str, ...], out: Path) -> tuple[float, str]:
    """CPU seconds of one ``schedlab simulate`` process of ``tree``, and its schedule's md5."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    with open(os.devnull, "wb") as devnull:
        child = subprocess.Popen([python, "-m", "schedlab", "simulate", *args, "--out", str(out)],
                                 cwd=out.parent, env=env, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{tree}: schedlab simulate {' '.join(args)} failed: "
                         f"{child.stderr.read().decode() if child.stderr else ''}")
    lines = (out / "jobs.csv").read_text().splitlines()
    schedule = "\n".join(",".join(line.split(",")[:5]) for line in lines)
    return usage.ru_utime + usage.ru_stime, hashlib.md5(schedule.encode()).hexdigest()


def make_grid_inputs(python: str, folder: Path) -> None:
    """The grid case's platform and 2,000 jobs, drawn once (thesis §4.3 settings)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for args in (["platform", "generate", "--preset", "thesis-4.3", "--seed", "1", "-o",
                  "grid-platform.toml"],
                 ["generate", "grid", "--platform", "grid-platform.toml", "--preset",
                  "thesis-4.3", "--ta", "5", "-n", "2000", "--seed", "1", "-o", "grid.swf"]):
        subprocess.run([python, "-m", "schedlab", *args], cwd=folder, env=env, check=True,
                       stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD",
                        help="the commit to compare against, or a source tree's folder")
    parser.add_argument("--repeat", type=int, default=5, help="pairs per case")
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--only", help="run the cases whose label contains this text")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="schedlab-ab-") as scratch:
        folder = Path(scratch)
        made = not (Path(options.base) / "src" / "schedlab").is_dir()
        base = folder / "base" if made else Path(options.base).resolve()
        if made:
            subprocess.run(["git", "worktree", "add", "--detach", str(base), options.base],
                           cwd=ROOT, check=True, capture_output=True)
        try:
            chosen = [(label, args) for label, args in CASES
                      if not options.only or options.only in label]
            if any("grid.swf" in args for _, args in chosen):
                make_grid_inputs(options.python, folder)
            (folder / "never.csv").write_text("time,nodes,duration\n1000000000000,0,1\n")
            print("| case | base CPU s | new CPU s | new / base | same schedule |\n"
                  "|---|---:|---:|---:|---|")
            for label, args in chosen:
                trees = {"base": base, "new": ROOT}
                seconds: dict[str, list[float]] = {"base": [], "new": []}
                digests = {name: run_once(options.python, tree, args, folder / name)[1]
                           for name, tree in trees.items()}
                for k in range(options.repeat):
                    for name in (("base", "new") if k % 2 == 0 else ("new", "base")):
                        spent, _ = run_once(options.python, trees[name], args, folder / name)
                        seconds[name].append(spent)
                b, n = (statistics.median(seconds[name]) for name in ("base", "new"))
                same = "yes" if digests["base"] == digests["new"] else "NO"
                print(f"| {label} | {b:.2f} | {n:.2f} | {n / b:.3f} | {same} |", flush=True)
        finally:
            if made:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                               check=False, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
