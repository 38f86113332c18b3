"""Hypothesis strategies for jobs and workloads that hit the engine's corners.

The shapes are chosen to make the hard cases frequent rather than rare:

* bursts — most inter-arrival gaps are 0, so many jobs arrive at one instant;
* short, small-integer runtimes and estimates — many finishes coincide with
  each other and with submissions (the same-time order of docs/reference/engine.md);
* zero runtimes — a job that starts and ends at one instant (second batch);
* estimates below the runtime (killed, or overrunning under ``extend``),
  equal to it, and above it (early finishes that move reservations);
* machine-wide jobs and one-processor jobs, which block and backfill.

Job ids are a random permutation, so the workload order (submit, id) is not
the order in which the jobs were drawn.

Each job is drawn as one flat tuple of shared strategies and turned into a
:class:`Job` by plain arithmetic: building strategies inside every draw
makes generation ten times slower than the simulations it feeds.
"""

from __future__ import annotations

from hypothesis import strategies as st

from schedlab.workload.job import Job, Workload

#: Gaps between consecutive submissions: mostly bursts, now and then a lull.
GAPS = st.one_of(st.just(0), st.just(0), st.integers(1, 5), st.integers(6, 400))
RUNTIMES = st.one_of(st.just(0), st.integers(1, 8), st.integers(9, 40), st.integers(41, 600))
POSITIVE_RUNTIMES = st.one_of(st.integers(1, 8), st.integers(9, 40), st.integers(41, 600))
#: The tight regime: every time within a few seconds, so nearly everything collides.
TIGHT_GAPS = st.one_of(st.just(0), st.integers(1, 3))
TIGHT_RUNTIMES = st.integers(0, 6)
TIGHT_POSITIVE_RUNTIMES = st.integers(1, 6)
#: How the estimate relates to the runtime; "above" and "far" end early.
ESTIMATE_KINDS = st.sampled_from(["exact", "below", "above", "far"])
NO_EARLY_END_KINDS = st.sampled_from(["exact", "below"])
MACHINE_WIDE = 0
#: Raw widths: 0 stands for machine-wide; others are folded onto the machine.
RAW_WIDTHS = st.one_of(st.just(MACHINE_WIDE), st.just(1), st.integers(1, 64))
SPREADS = st.integers(0, 1000)


def estimate_for(runtime: int, kind: str, spread: int) -> int:
    """A user estimate (>= 1) of the given kind for ``runtime``.

    ``exact`` is the runtime itself (1 for a zero runtime), ``below`` is
    shorter (killed or overrunning), ``above`` one to four seconds longer
    (near-coincident ends) and ``far`` several times longer; ``spread``
    picks the value within the kind.
    """
    if kind == "below" and runtime >= 2:
        return 1 + spread % (runtime - 1)
    if kind == "above":
        return runtime + 1 + spread % 4
    if kind == "far":
        return 5 * runtime + 1 + spread
    return max(1, runtime)


def width_for(raw: int, processors: int) -> int:
    """Fold a raw width onto a ``processors``-wide machine (0 means machine-wide)."""
    return processors if raw == MACHINE_WIDE else 1 + (raw - 1) % processors


def job_parts(*, early_ends: bool = True,
              tight: bool = False) -> st.SearchStrategy[tuple[int, str, int, int]]:
    """Flat ``(runtime, estimate kind, spread, raw width)`` tuples.

    With ``early_ends=False`` no estimate exceeds its runtime (and no runtime
    is zero), so under ``overrun="kill"`` every job holds its processors until
    exactly its expected end.  ``tight`` keeps runtimes within 6 seconds.
    """
    if early_ends:
        runtimes = TIGHT_RUNTIMES if tight else RUNTIMES
        return st.tuples(runtimes, ESTIMATE_KINDS, SPREADS, RAW_WIDTHS)
    runtimes = TIGHT_POSITIVE_RUNTIMES if tight else POSITIVE_RUNTIMES
    return st.tuples(runtimes, NO_EARLY_END_KINDS, SPREADS, RAW_WIDTHS)


def build_job(job_id: int, submit: int, processors: int, parts: tuple[int, str, int, int]) -> Job:
    runtime, kind, spread, raw_width = parts
    return Job(job_id, submit, runtime, estimate_for(runtime, kind, spread),
               width_for(raw_width, processors))


def jobs(*, job_id: int = 1, submit: int = 0, processors: int = 8,
         early_ends: bool = True, tight: bool = False) -> st.SearchStrategy[Job]:
    """One job with the given id and submit time on a ``processors``-wide machine."""
    return job_parts(early_ends=early_ends, tight=tight).map(
        lambda parts: build_job(job_id, submit, processors, parts))


@st.composite
def workloads(draw, *, max_jobs: int = 30, min_jobs: int = 2, processors: int | None = None,
              early_ends: bool = True) -> Workload:
    """A workload of ``min_jobs``..``max_jobs`` jobs, sorted by (submit, id).

    ``processors`` fixes the machine size; by default it is drawn from 1..16
    (1 makes every job machine-wide).  ``early_ends=False`` gives only jobs
    whose estimate is at most their runtime (see :func:`job_parts`).  Half
    the workloads are tight (every runtime and gap within a few seconds),
    where reservations, shadow times and ends fall within a second or two of
    each other; the others spread from bursts to long lulls.
    """
    machine = processors if processors is not None else draw(st.integers(1, 16))
    tight = draw(st.booleans())
    gaps = TIGHT_GAPS if tight else GAPS
    rows = draw(st.lists(st.tuples(gaps, job_parts(early_ends=early_ends, tight=tight)),
                         min_size=min_jobs, max_size=max_jobs))
    ids = draw(st.permutations(range(1, len(rows) + 1)))
    submit = draw(st.integers(0, 50))
    drawn = []
    for job_id, (gap, parts) in zip(ids, rows):
        drawn.append(build_job(job_id, submit, machine, parts))
        submit += gap
    ordered = tuple(sorted(drawn, key=lambda j: (j.submit, j.id)))
    return Workload(ordered, machine, name="hypothesis")


def gang_policies(*, most_slots: int = 3) -> st.SearchStrategy[dict]:
    """``GangScheduler`` parameters over every option (Strategies 1-3, slot lengths,
    the slot limit up to ``most_slots``, packing, switching, backfilling, express
    starts): what tests/gang draws its policies from."""
    return st.fixed_dictionaries({
        "strategy": st.sampled_from([1, 2, 3]),
        "slot": st.integers(1, 7),
        "slots": st.integers(1, most_slots),
        "context_switch": st.integers(0, 2),
        "packing": st.sampled_from(["repack", "first-fit"]),
        "switchable": st.booleans(),
        "backfill": st.sampled_from(["first-fit", "reservation", "none"]),
        "express_start": st.sampled_from(["arrival", "next-slot"]),
    })
