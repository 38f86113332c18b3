"""The bounds of what schedlab can simulate, in one place, each with its reason.

Every reader, option and sweep value that sets a machine size, a number of
jobs, a seed or a time is checked against these bounds before anything
runs, so that a value the engine cannot represent is one line naming the
field and what was expected (exit 2), never an ``OverflowError`` after the
run or a process that grows until the machine swaps (docs/reference/cli.md, "Bounds").
"""

from __future__ import annotations

from numbers import Integral

from schedlab.errors import InputError

#: Largest time in seconds (submit, run time, estimate, deadline, reservation
#: start and duration): beyond 2**53 a float64 no longer holds every integer
#: exactly, and the readers, metrics and figures go through float64.
MAX_TIME = 2**53
#: Largest machine size in processors: the engine keeps free processors, the
#: busy series and processor-seconds (width x seconds) in int64, which holds
#: ``MAX_PROCESSORS x 2**32`` s (136 years of schedule on a full machine).
MAX_PROCESSORS = 2**31
#: Most jobs a model, a duplication (``--load``) or a width split may make: a
#: job costs about 500 bytes across its record (290 measured), the engine's
#: columns and a policy's queue, so 2**22 jobs take about 2 GB.  Reading a
#: trace is not bounded by it (the trace is as long as it is).
MAX_JOBS = 2**22
#: The largest int64, the integer type of the engine's arrays and of SQLite INTEGER.
MAX_INT64 = 2**63 - 1
#: Largest seed: seeds are stored as SQLite INTEGER (signed 64-bit) and seed
#: numpy's generators, which take integers >= 0.
MAX_SEED = MAX_INT64

#: Most worker processes of a sweep's pool or a Dask cluster's local workers: each is a
#: Python process of its own (about 150 MB once numba and the engine are loaded), so a
#: thousand already needs far more memory than any machine this is run on.
MAX_WORKERS = 1024

#: Each bound as error messages word it, with its reason.
TIME_BOUND = "2**53 s (times stay exact in float64)"
PROCESSORS_BOUND = "2**31 = 2147483648 processors (the engine counts processor-seconds in int64)"
JOBS_BOUND = f"2**22 = {MAX_JOBS} jobs (about 2 GB of memory)"
SEED_BOUND = "2**63 - 1 (seeds are stored as 64-bit integers)"
WORKERS_BOUND = f"{MAX_WORKERS} worker processes (each one a Python process of its own)"


def check_capacity(processors: int, horizon: int, *, field: str) -> None:
    """InputError unless ``processors x horizon`` fits int64, the processor-seconds the engine
    and the metrics count in (utilization, loss of capacity): beyond, they wrap around and a
    run reports a utilization of 0 for a full machine.  ``horizon`` is the latest time a
    schedule of the jobs can end (:func:`schedlab.run.schedule_horizon`)."""
    if processors * horizon > MAX_INT64:
        raise InputError(f"{processors} processors x {horizon} s (the latest a schedule of "
                         f"these jobs can end) is {processors * horizon} processor-seconds; "
                         f"expected at most 2**63 - 1 (the engine counts processor-seconds in "
                         f"int64): give fewer processors or shorter times", field=field)


def check_int(value: object, *, field: str, low: int, high: int, bound: str = "",
              file: str | None = None, line: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``; else an InputError naming the field.

    ``bound`` words ``high`` with its reason in the message (e.g.
    :data:`PROCESSORS_BOUND`).
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InputError(f"expected an integer from {low} to {high}, got {value!r}",
                         file=file, line=line, field=field)
    number = int(value)
    if number < low:
        raise InputError(f"expected an integer >= {low}, got {number}", file=file, line=line,
                         field=field)
    if number > high:
        raise InputError(f"expected an integer <= {bound or high}, got {number}", file=file,
                         line=line, field=field)
    return number


def check_processors(value: object, *, field: str, file: str | None = None,
                     line: int | None = None) -> int:
    """A machine size in ``[1, MAX_PROCESSORS]`` (:data:`MAX_PROCESSORS` says why)."""
    return check_int(value, field=field, low=1, high=MAX_PROCESSORS, file=file, line=line,
                     bound=PROCESSORS_BOUND)


def check_jobs(value: object, *, field: str) -> int:
    """A number of jobs to make in ``[1, MAX_JOBS]`` (:data:`MAX_JOBS` says why)."""
    return check_int(value, field=field, low=1, high=MAX_JOBS,
                     bound=JOBS_BOUND)


def check_seed(value: object, *, field: str) -> int:
    """A seed in ``[0, MAX_SEED]`` (:data:`MAX_SEED` says why)."""
    return check_int(value, field=field, low=0, high=MAX_SEED,
                     bound=SEED_BOUND)


def check_time(value: object, *, field: str, low: int = 0, file: str | None = None,
               line: int | None = None) -> int:
    """A time in seconds in ``[low, MAX_TIME]`` (:data:`MAX_TIME` says why)."""
    return check_int(value, field=field, low=low, high=MAX_TIME, file=file, line=line,
                     bound=TIME_BOUND)


def check_workers(value: object) -> int:
    """A number of worker processes in ``[1, MAX_WORKERS]`` (:data:`MAX_WORKERS` says why)."""
    return check_int(value, field="--workers", low=1, high=MAX_WORKERS, bound=WORKERS_BOUND)
