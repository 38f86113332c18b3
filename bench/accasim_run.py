"""Run one AccaSim simulation of an SWF trace, for the peer-simulator benchmark.

This script runs inside the AccaSim virtualenv (bench/.venv-accasim), never in
schedlab's: it imports only AccaSim and the standard library. bench/run_bench.py
starts it as a separate process and times the whole process, exactly as
schedlab's own runs are timed.

It uses AccaSim's own pieces, as AccaSim's documentation and its authors'
simulator-comparison scripts do: the default SWF reader (DefaultReader, fed by
the `Simulator` constructor), the FirstFit allocator, and the FirstInFirstOut
or EASYBackfilling dispatcher. Every file output AccaSim can write (dispatching
plan, pretty print, per-step benchmark, statistics file) is switched off so
that the process does the simulation and nothing else; AccaSim still logs its
own summary ("Simulation time: ... secs", "Total jobs: ...") on stderr, which
run_bench.py records next to its own wall time.

AccaSim's reader opens the trace as plain text, so a gzip-compressed trace is
decompressed into a temporary directory first (inside the timed process, as
schedlab also reads the .gz itself); the decompression time is reported apart.

On exit the script prints one line `ACCASIM_RESULT {json}` on stdout with the
number of SWF job records, the jobs AccaSim loaded, finished and rejected, and
the timings, so the caller can check that the whole trace was simulated.
"""

import argparse
import collections
import collections.abc
import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path


def restore_collections_mapping():
    """Give `collections` back the `Mapping` alias that AccaSim 1.1.3 imports.

    accasim/utils/misc.py does `from collections import Mapping`, an alias
    removed in Python 3.10 (it lives in collections.abc since 3.3). Setting the
    alias before AccaSim is imported lets the released package run on Python
    3.11 unchanged, without editing its installed files. It is the only
    incompatibility on the path this driver uses (reader, FirstFit, FIFO,
    EASY, simulator loop).
    """
    if not hasattr(collections, "Mapping"):
        collections.Mapping = collections.abc.Mapping


restore_collections_mapping()

import accasim  # noqa: E402  (must follow the compatibility alias above)
from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402

RESULT_MARKER = "ACCASIM_RESULT"

DISPATCHERS = ("fifo", "easy")


def parse_args(argv):
    """Read the command line: trace, AccaSim system config, dispatcher name."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", type=Path, help="SWF trace (.swf or .swf.gz)")
    parser.add_argument("--config", type=Path, required=True,
                        help="AccaSim system configuration (JSON)")
    parser.add_argument("--dispatcher", choices=DISPATCHERS, required=True,
                        help="fifo: FirstInFirstOut; easy: EASYBackfilling (both with FirstFit)")
    return parser.parse_args(argv)


def plain_trace(workload, directory):
    """Return a plain-text path for `workload` and the seconds spent decompressing.

    AccaSim's DefaultReader reads the file with open() in text mode, so a
    .gz trace is decompressed into `directory`; a plain trace is used in place.
    """
    if workload.suffix != ".gz":
        return workload, 0.0
    started = time.perf_counter()
    target = Path(directory) / workload.with_suffix("").name
    with gzip.open(workload, "rb") as source, open(target, "wb") as sink:
        shutil.copyfileobj(source, sink)
    return target, time.perf_counter() - started


def count_job_records(trace):
    """Count the job lines of an SWF file (every line that is neither blank nor a ';' comment)."""
    with open(trace) as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith(";"))


def build_dispatcher(name):
    """Build AccaSim's FIFO or EASY dispatcher, each with its FirstFit allocator."""
    allocator = FirstFit()
    if name == "fifo":
        return FirstInFirstOut(allocator)
    return EASYBackfilling(allocator)


def simulate(trace, config, dispatcher, results_dir):
    """Run AccaSim on `trace` with every file output off; return its job counts and own timing.

    `simulation_seconds` is AccaSim's own measure (end minus start of its
    simulation loop, the number it logs as "Simulation time").
    """
    simulator = Simulator(
        str(trace), str(config), dispatcher,
        RESULTS_FOLDER_PATH=str(results_dir),
        scheduling_output=False, pprint_output=False, benchmark_output=False,
        statistics_output=False, show_statistics=True,
    )
    simulator.start_simulation(system_status=False)
    return {
        "jobs_loaded": simulator.loaded_jobs,
        "jobs_dispatched": simulator.dispatched_jobs,
        "jobs_rejected": simulator.rejected_jobs,
        "jobs_finished": simulator.mapper.finished,
        "simulation_seconds": simulator.end_simulation_time - simulator.start_simulation_time,
        "dispatcher_id": dispatcher.get_id(),
    }


def main(argv=None):
    """Decompress, simulate, and print the one-line JSON result."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="accasim-bench-") as scratch:
        trace, decompress_seconds = plain_trace(args.workload, scratch)
        records = count_job_records(trace)
        results_dir = Path(scratch) / "results"
        summary = simulate(trace, args.config, build_dispatcher(args.dispatcher), results_dir)
    summary.update(
        dispatcher=args.dispatcher,
        workload=str(args.workload),
        job_records=records,
        decompress_seconds=decompress_seconds,
        accasim_version=accasim.__version__,
        python=sys.version.split()[0],
    )
    print(RESULT_MARKER, json.dumps(summary), flush=True)
    return 0 if summary["jobs_finished"] == records else 1


if __name__ == "__main__":
    sys.exit(main())
