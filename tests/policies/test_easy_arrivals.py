"""EASY on estimates looks at the arrivals alone when nothing else happened since its last pass.

After a pass that left the first waiting job blocked with processors free, a
pass with nothing but arrivals since (no end, no outage, no cancellation)
backfills the arrivals alone behind that head, with the shadow time and extra
processors the last pass found (``EasyBackfilling._backfill_arrivals``): a
run equals, job for job and count for count, the run whose every pass looks
at the whole queue, in every loop of the engine, under failures of every
fate and either requeue order, under a queue limit, and with jobs that may
outlive their estimates (``overrun="extend"``, which keeps every pass over
the whole queue).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from easy_passes import LOOPS, burst_rows, run_both_ways
from schedlab import Job, Workload
from schedlab.api import run as api_run
from schedlab.workload.outages import Checkpointing, Failure, FailureSpec


def test_an_arrival_behind_a_blocked_head_is_backfilled_by_itself():
    # On 8 processors job 1 (6 wide, to 100) runs; job 2 (4 wide) waits for it: shadow
    # time 100, 2 extra processors.  At 10 job 3 (2 wide, 200 s) arrives: it fits the 2
    # free processors and the extra ones, and starts then, by a pass over it alone.
    # At 20 job 4 (1 wide) arrives with no processor free: no pass looks at it; it starts
    # beside job 2 at 100.
    jobs = (Job(1, 0, 100, 100, 6, 0), Job(2, 1, 50, 50, 4, 1), Job(3, 10, 200, 200, 2, 2),
            Job(4, 20, 10, 10, 1, 3))
    workload = Workload(jobs=jobs, processors=8)
    _, instants = run_both_ways(workload, {"name": "fcfs+easy"})
    assert instants == [10]
    result = api_run(workload, schedlab.make_policy("fcfs+easy"))
    assert result.start.tolist() == [0, 100, 10, 100]


def test_an_end_among_arrivals_brings_a_pass_over_the_whole_queue():
    # Job 1 (6 wide) ends at 10 as job 3 arrives: the free processors are not those the
    # last pass left, so the head (job 2, 4 wide) is looked at again, and starts.
    jobs = (Job(1, 0, 10, 100, 6, 0), Job(2, 1, 50, 50, 4, 1), Job(3, 10, 200, 200, 2, 2))
    workload = Workload(jobs=jobs, processors=8)
    assert run_both_ways(workload, {"name": "fcfs+easy"})[1] == []
    assert api_run(workload, schedlab.make_policy("fcfs+easy")).start.tolist() == [0, 10, 10]


def test_a_failure_among_arrivals_brings_a_pass_over_the_whole_queue():
    # On 4 nodes of 2 processors job 1 (2 wide, to 50) holds node 0 and job 2 (4 wide, to
    # 100) nodes 1 and 2; job 3 (6 wide) waits: shadow time 100, 2 extra processors.  At
    # 10 node 0 fails until 1010, killing job 1: the free processors are the 2 of node 3
    # still, but at 100 only 6 are free, with no extra one.  Job 4 (2 wide, 500 s),
    # arriving then, must wait; with the extra processors of the pass before it would
    # start, and delay job 3.
    jobs = (Job(1, 0, 50, 50, 2, 0), Job(2, 0, 100, 100, 4, 1), Job(3, 1, 50, 50, 6, 2),
            Job(4, 10, 500, 500, 2, 3))
    workload = Workload(jobs=jobs, processors=8)
    failures = FailureSpec(replayed=(Failure(10, (0,), 1000),), node_size=2)
    assert run_both_ways(workload, {"name": "fcfs+easy"}, failures=failures)[1] == []
    result = api_run(workload, schedlab.make_policy("fcfs+easy"), failures=failures)
    assert result.start.tolist()[2:] == [100, 150]

@settings(max_examples=300, deadline=None)
@given(rows=burst_rows,
       predictor=st.sampled_from(["estimate", "estimate", "easy++", "easy++[correction=graded]",
                                  "last", "user-quantile[q=0.25,window=3,min_jobs=1]"]),
       order=st.sampled_from(["fcfs+easy", "sjf+easy"]),
       backfill=st.sampled_from(["queue", "sjbf"]), loop=st.sampled_from(LOOPS),
       overrun=st.sampled_from(["kill", "kill", "extend"]), data=st.data())
def test_backfilling_the_arrivals_alone_changes_no_schedule_and_no_count(
        rows, predictor, order, backfill, loop, overrun, data):
    """After a pass that left the head blocked, a pass with nothing but arrivals since
    looks at the arrivals alone (``EasyBackfilling._backfill_arrivals``), on estimates and
    on predictions: the run equals, job for job and count for count, the run whose every
    pass looks at the whole queue, in every loop of the engine, under failures of every
    fate and either requeue order, and under either overrun."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    cancel = (data.draw(st.lists(st.one_of(st.none(), st.integers(0, 20)),
                                 min_size=len(rows), max_size=len(rows)))
              if loop == "cancellations" else [None] * len(rows))
    jobs = tuple(Job(id=k + 1, submit=s, runtime=r, estimate=e, width=w, user=u,
                     cancel_after=c)
                 for k, (s, (_, r, e, w, u), c) in enumerate(zip(submits, rows, cancel)))
    options: dict = {"overrun": overrun}
    if loop == "full":
        options["max_queued_per_user"] = data.draw(st.sampled_from([2, 10 ** 6]))
    elif loop == "tick":
        options["tick"] = data.draw(st.integers(2, 30))
    elif loop == "failures":
        options["failures"] = FailureSpec(
            replayed=tuple(Failure(data.draw(st.integers(0, submits[-1] + 60)), (node,),
                                   data.draw(st.integers(1, 30)))
                           for node in data.draw(st.lists(st.integers(0, 3), min_size=1,
                                                          max_size=3, unique=True))),
            fate=data.draw(st.sampled_from(["kill", "requeue", "checkpoint"])),
            requeue_order=data.draw(st.sampled_from(["arrival", "back"])),
            checkpointing=Checkpointing(cost=2, restart=3, interval=7), node_size=2)
    spec = {"name": order, "predictor": predictor, "backfill_order": backfill}
    run_both_ways(Workload(jobs=jobs, processors=8), spec, **options)
