"""Checks shared by the tests of EASY's pass over the arrivals alone (on estimates and on
predictions): a run compared, job for job and count for count, with the same run whose
every pass looks at the whole queue (``EasyBackfilling._backfill_arrivals``)."""

from __future__ import annotations

from hypothesis import strategies as st

import schedlab
from schedlab import Workload
from schedlab.api import run as api_run
from schedlab.engine.context import Context
from schedlab.engine.result import Result
from schedlab.policies.backfilling import EasyBackfilling


def same_run(first: Result, second: Result) -> None:
    """Assert two runs equal: every job's start, end and status, the statistics, and the
    prediction and outage columns where the runs have them."""
    assert first.start.tolist() == second.start.tolist()
    assert first.end.tolist() == second.end.tolist()
    assert first.status.tolist() == second.status.tolist()
    assert first.stats == second.stats
    for column in ("predicted", "final_prediction", "corrections"):
        mine, theirs = getattr(first, column), getattr(second, column)
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert mine.tolist() == theirs.tolist()
    assert (first.outages is None) == (second.outages is None)
    if first.outages is not None:
        assert first.outages.attempts.tolist() == second.outages.attempts.tolist()
        assert first.outages.intervals.tolist() == second.outages.intervals.tolist()


def arrivals_passes(policy: EasyBackfilling) -> list[int]:
    """The instants at which ``policy`` makes a pass over the arrivals alone, filled in as
    it runs."""
    instants: list[int] = []
    backfill_arrivals = policy._backfill_arrivals

    def counted(ctx: Context) -> None:
        instants.append(ctx.now)
        backfill_arrivals(ctx)

    policy._backfill_arrivals = counted                 # type: ignore[method-assign]
    return instants


def run_both_ways(workload: Workload, spec: dict, **options: object) -> tuple[Result, list[int]]:
    """The run of ``spec`` and the instants of its arrivals-only passes, the run checked
    equal to the same run with every pass over the whole queue."""
    arrivals_alone, whole_queue = schedlab.make_policy(spec), schedlab.make_policy(spec)
    whole_queue._ends_hold = False
    instants = arrivals_passes(arrivals_alone)
    result = api_run(workload, arrivals_alone, **options)
    same_run(result, api_run(workload, whole_queue, **options))
    return result, instants


#: The runs an arrivals-only pass must agree in: the plain loop, the full loop (a queue
#: limit), a scheduling tick, users' cancellations, node failures.
LOOPS = ("plain", "full", "tick", "cancellations", "failures")
#: Rows (gap, runtime, estimate, width, user) of short jobs arriving in bursts, so that
#: arrivals meet ends, corrections, cancellations and failures at the same instants.
burst_rows = st.lists(st.tuples(st.sampled_from([0, 0, 0, 1, 3, 10]), st.integers(1, 60),
                                st.integers(1, 60), st.integers(1, 8), st.integers(0, 2)),
                      min_size=1, max_size=40)
