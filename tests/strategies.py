"""Hypothesis strategies for jobs and workloads that hit the engine's corners.

The shapes are chosen to make the hard cases frequent rather than rare:

* bursts — most inter-arrival gaps are 0, so many jobs arrive at one instant;
* short, small-integer runtimes and estimates — many finishes coincide with
  each other and with submissions (the same-time order of docs/engine.md);
* zero runtimes — a job that starts and ends at one instant (second batch);
* estimates below the runtime (killed, or overrunning under ``extend``),
  equal to it, and above it (early finishes that move reservations);
* machine-wide jobs and one-processor jobs, which block and backfill.

Job ids are a random permutation, so the workload order (submit, id) is not
the order in which the jobs were drawn.
"""

from __future__ import annotations

from hypothesis import strategies as st

from schedlab.workload.job import Job, Workload

#: Gaps between consecutive submissions: mostly bursts, now and then a lull.
GAPS = st.one_of(st.just(0), st.just(0), st.integers(1, 10), st.integers(11, 400))


def runtimes(*, allow_zero: bool = True) -> st.SearchStrategy[int]:
    """Runtimes in seconds: zero, short (collisions likely) or long."""
    short = st.integers(1, 30)
    long = st.integers(31, 600)
    if allow_zero:
        return st.one_of(st.just(0), short, long)
    return st.one_of(short, long)


@st.composite
def estimates(draw, runtime: int, *, early_ends: bool = True) -> int:
    """A user estimate (>= 1) for ``runtime``: below it, exact, or above it.

    With ``early_ends=False`` the estimate never exceeds the runtime, so
    every job holds its processors until exactly its expected end under
    ``overrun="kill"`` (needs ``runtime >= 1``).
    """
    choices = [st.just(max(1, runtime))]
    if runtime >= 2:
        choices.append(st.integers(1, runtime - 1))
    if early_ends:
        choices.append(st.integers(runtime + 1, 2 * runtime + 20))
        choices.append(st.integers(5 * runtime + 1, 5 * runtime + 1000))
    return draw(st.one_of(choices))


def widths(processors: int) -> st.SearchStrategy[int]:
    """Job widths on a ``processors``-wide machine, machine-wide and 1 often."""
    return st.one_of(st.just(processors), st.just(1), st.integers(1, processors))


@st.composite
def jobs(draw, *, job_id: int = 1, submit: int = 0, processors: int = 8,
         early_ends: bool = True) -> Job:
    """One job with the given id and submit time on a ``processors``-wide machine."""
    runtime = draw(runtimes(allow_zero=early_ends))
    estimate = draw(estimates(runtime, early_ends=early_ends))
    width = draw(widths(processors))
    return Job(job_id, submit, runtime, estimate, width)


@st.composite
def workloads(draw, *, max_jobs: int = 25, min_jobs: int = 1, processors: int | None = None,
              early_ends: bool = True) -> Workload:
    """A workload of ``min_jobs``..``max_jobs`` jobs, sorted by (submit, id).

    ``processors`` fixes the machine size; by default it is drawn from 1..16
    (1 makes every job machine-wide).  ``early_ends=False`` gives only jobs
    whose estimate is at most their runtime (see :func:`estimates`).
    """
    machine = processors if processors is not None else draw(st.integers(1, 16))
    n = draw(st.integers(min_jobs, max_jobs))
    ids = draw(st.permutations(range(1, n + 1)))
    submit = draw(st.integers(0, 50))
    drawn = []
    for job_id in ids:
        drawn.append(draw(jobs(job_id=job_id, submit=submit, processors=machine,
                               early_ends=early_ends)))
        submit += draw(GAPS)
    ordered = tuple(sorted(drawn, key=lambda j: (j.submit, j.id)))
    return Workload(ordered, machine, name="hypothesis")
