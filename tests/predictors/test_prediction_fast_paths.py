"""The fast paths of planning on predictions change no schedule and no number.

* The engine skips the pass at an instant of nothing but corrections when
  EASY proves it would start nothing (``idle_after_corrections``): a run
  with the skips equals, job for job and statistic for statistic, the run
  that makes every pass.  At such an instant EASY counts a broken
  reservation from the reservation its last pass left, in O(1): the count
  equals that of the full loop, where every one is found by a walk over the
  releases.  A wake-up the policy asked for at such an instant still
  brings its pass.
* ``knn`` searches its window in one compiled call: its predictions equal a
  plain reading of its rule (sort the window by distance, later jobs first
  among equals).
* A predictor that keeps ``Predictor.corrected`` is corrected by its rule
  without a query; one that overrides it is still asked.
* After a pass that left the first waiting job blocked, EASY's pass with
  nothing but arrivals since looks at the arrivals alone: the run equals the
  one whose every pass looks at the whole queue (any loop, cancellations,
  failures, ticks, either overrun).
* A per-user predictor is handed its job's user and estimate, and an ended
  job's user and runtime, by the planner (``planner_calls``): it predicts what
  the same predictor asked through queries and ended records predicts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import schedlab
from easy_passes import run_both_ways, same_run
from schedlab import Job, Workload
from schedlab.api import run as api_run
from schedlab.policies.backfilling import EasyBackfilling
from schedlab.policies.predicting import PredictorPlanner
from schedlab.predictors import EndedJob, PredictionQuery, Predictor, make_predictor
from schedlab.predictors.base import asking, correction_rule, planner_calls, telling
from schedlab.workload.outages import Failure, FailureSpec

#: (id, submit, runtime, estimate, width, user)
HISTORY = ((1, 0, 10, 100, 4, 7), (2, 0, 10, 100, 4, 7))


def counted_passes(policy) -> list[int]:
    """The instants of ``policy``'s scheduling passes, filled in as it runs."""
    passes: list[int] = []
    schedule = policy.schedule

    def counted(ctx):
        passes.append(ctx.now)
        schedule(ctx)

    policy.schedule = counted                         # type: ignore[method-assign]
    return passes


def run(rows, spec, *, every_pass: bool = False, processors: int = 4, full_loop: bool = False):
    """The run of ``rows`` under ``spec`` and the instants of its passes; ``every_pass``
    makes EASY never call a pass idle, so the engine skips none; ``full_loop`` sends it
    through the engine's full loop (a queue limit no one reaches), which skips no pass
    and never says that only corrections happened since the last one, so EASY counts
    every broken reservation by a walk over the releases."""
    jobs = tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for i, s, r, e, w, u in rows)
    policy = schedlab.make_policy(spec)
    passes = counted_passes(policy)
    if every_pass:
        policy.idle_after_corrections = lambda ctx: False  # type: ignore[method-assign]
    options = {"max_queued_per_user": 10 ** 6} if full_loop else {}
    result = api_run(Workload(jobs=jobs, processors=processors), policy, **options)
    return result, passes


#: On 8 processors.  Job 3 (user 7, 2 wide, 30 s of 40) is predicted at 10 s and job 4
#: (user 9, 4 wide, 50 s) at its estimate: both start at 21, expected to end at 31 and
#: 71.  Job 5 (7 wide) waits for both: its shadow time is 71, with 1 extra processor.
#: Job 6 (2 wide, 100 s) fits the 2 free processors but neither ends by 71 nor fits in 1.
#: At 31 job 3 is corrected to its estimate, to end at 61: still by the shadow time, which
#: stays at 71 with 1 extra processor, so the pass at 31 could start nothing: none is made.
SKIPPED = (*HISTORY, (3, 21, 30, 40, 2, 7), (4, 21, 50, 50, 4, 9), (5, 22, 100, 100, 7, 10),
           (6, 23, 100, 100, 2, 11))


def test_a_correction_that_keeps_the_reservation_brings_no_pass():
    skipping, passes = run(SKIPPED, {"name": "fcfs+easy", "predictor": "easy++"},
                           processors=8)
    every, all_passes = run(SKIPPED, {"name": "fcfs+easy", "predictor": "easy++"},
                            every_pass=True, processors=8)
    same_run(skipping, every)
    assert skipping.corrections.tolist() == [0, 0, 1, 0, 0, 0]
    assert skipping.stats.get("broken_reservations", 0) == 0
    assert dict(zip(skipping.job_id.tolist(), skipping.start.tolist())) == \
        {1: 0, 2: 0, 3: 21, 4: 21, 5: 71, 6: 171}
    assert sorted(set(all_passes) - set(passes)) == [31]


def test_a_correction_that_breaks_the_reservation_brings_its_pass():
    # Job 5 (2 wide, 100 s) cannot start before job 4's reservation at 31, but can once
    # job 3's correction moves it to 1021: the pass at 31 starts it.
    rows = (*HISTORY, (3, 21, 200, 1000, 2, 7), (4, 22, 50, 100, 4, 9),
            (5, 25, 100, 100, 2, 11))
    result, passes = run(rows, {"name": "fcfs+easy", "predictor": "easy++"})
    assert 31 in passes
    assert dict(zip(result.job_id.tolist(), result.start.tolist()))[5] == 31
    assert result.stats["broken_reservations"] == 1


rows_strategy = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 300), st.integers(1, 300),
                                   st.integers(1, 8), st.integers(0, 3)),
                         min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
# The head's shadow time is the instant of a correction: seen from then, the release
# expected then is at now + 1, so the reservation the last pass left is not the head's.
@example(rows=[(0, 0, 1, 1, 0)] * 9 + [(1, 0, 1, 1, 0), (0, 2, 2, 5, 0), (0, 0, 1, 4, 0)],
         predictor="easy++", order="fcfs+easy", backfill="queue")
@given(rows=rows_strategy,
       predictor=st.sampled_from(["easy++", "easy++[correction=graded]", "last",
                                  "user-quantile[q=0.25,window=3,min_jobs=1]", "knn[k=2]"]),
       order=st.sampled_from(["fcfs+easy", "sjf+easy", "ljf+easy"]),
       backfill=st.sampled_from(["queue", "sjbf"]))
def test_skipping_idle_passes_changes_no_schedule_and_no_count(rows, predictor, order,
                                                               backfill):
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = tuple((k + 1, s, r, e, w, u) for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows)))
    spec = {"name": order, "predictor": predictor, "backfill_order": backfill}
    skipping, passes = run(jobs, spec, processors=8)
    every, all_passes = run(jobs, spec, every_pass=True, processors=8)
    same_run(skipping, every)
    assert set(passes) <= set(all_passes)
    walked, walked_passes = run(jobs, spec, processors=8, full_loop=True)
    same_run(skipping, walked)
    assert walked_passes == all_passes


#: Rows (gap, runtime, estimate, width, user) on a grid of 5 s: corrections of several
#: jobs follow one another at instants of their own, between ends and arrivals at
#: instants they share with corrections.
correcting_rows = st.lists(st.tuples(st.sampled_from([0, 0, 5, 10, 20]),
                                     st.sampled_from([5, 10, 20, 40, 60]),
                                     st.sampled_from([20, 40, 60, 80]), st.integers(1, 8),
                                     st.integers(0, 2)),
                           min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
# An instant of corrections whose pass is needed, then a correction at an instant with an
# end: ``ctx.corrections_only`` is False again, and EASY counts by a walk over the releases.
@example(rows=[(2, 3, 2, 3, 0), (2, 3, 16, 1, 0), (0, 1, 8, 8, 0), (5, 5, 16, 1, 0),
               (0, 2, 2, 8, 1), (2, 3, 8, 2, 1), (2, 8, 4, 4, 0), (0, 5, 2, 6, 1),
               (0, 8, 4, 5, 1)], predictor="last", backfill="queue")
@given(rows=correcting_rows,
       predictor=st.sampled_from(["easy++", "easy++[correction=graded]", "last"]),
       backfill=st.sampled_from(["queue", "sjbf"]))
def test_instants_of_corrections_on_a_grid_change_no_schedule_and_no_count(rows, predictor,
                                                                           backfill):
    """Instants of nothing but corrections among instants that also have ends and
    arrivals: the plain loop's run (passes skipped, broken reservations counted in O(1)
    at those instants alone) equals, job for job and count for count, the full loop's,
    which makes a pass at every instant and never says that only corrections happened,
    and the plain loop's with no pass called idle."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = tuple((k + 1, s, r, e, w, u) for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows)))
    spec = {"name": "fcfs+easy", "predictor": predictor, "backfill_order": backfill}
    skipping, passes = run(jobs, spec, processors=8)
    walked, walked_passes = run(jobs, spec, processors=8, full_loop=True)
    same_run(skipping, walked)
    assert set(passes) <= set(walked_passes)
    every, _ = run(jobs, spec, every_pass=True, processors=8)
    same_run(skipping, every)


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy,
       predictor=st.sampled_from(["easy++", "easy++[correction=graded]", "last"]),
       full_loop=st.booleans())
def test_each_correction_is_told_before_the_next_of_its_instant_is_made(rows, predictor,
                                                                       full_loop):
    """The engine makes an instant's corrections in one call (``Context._corrector``):
    the policy hears of each with the machine as one-by-one corrections leave it, the
    job told corrected and those due after it at the same instant not yet."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = tuple(Job(id=k + 1, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows)))
    policy = schedlab.make_policy({"name": "fcfs+easy", "predictor": predictor})
    heard: list[tuple[int, int, int, dict[int, int]]] = []
    on_correction = policy.on_correction

    def recorded(ctx, job, previous_end):
        # Expected ends as the engine keeps them: a job due for correction now has
        # reached its own (``ctx.expected_end`` says now + 1 both for it and for a job
        # corrected to end then).
        heard.append((ctx.now, job.id, previous_end, dict(ctx._expected_end)))
        on_correction(ctx, job, previous_end)

    policy.on_correction = recorded                   # type: ignore[method-assign]
    options = {"max_queued_per_user": 10 ** 6} if full_loop else {}
    result = api_run(Workload(jobs=jobs, processors=8), policy, **options)
    assert len(heard) == int(result.corrections.sum())
    for k, (now, job_id, previous_end, ends) in enumerate(heard):
        assert previous_end == now and ends[job_id] > now
        for later_now, later_id, _, _ in heard[k + 1:]:
            if later_now != now:
                break
            assert ends[later_id] == now              # not corrected yet


def test_only_easy_calls_a_pass_idle():
    assert not schedlab.make_policy({"name": "fcfs+conservative", "predictor": "easy++"}) \
        .idle_after_corrections(None)                  # type: ignore[arg-type]
    assert EasyBackfilling.idle_after_corrections is not \
        schedlab.make_policy("fcfs+plan").idle_after_corrections.__func__  # type: ignore[attr-defined]


# ------------------------------------------------------------------ knn against its rule
def knn_by_its_rule(ended: list[EndedJob], query: PredictionQuery, k: int, window: int,
                    user_weight: float) -> int:
    """knn as docs/reference/predictions.md states it, sorting the whole window."""
    recent = ended[-window:]
    if not recent:
        return query.estimate

    def distance(job: EndedJob) -> float:
        far = (math.log2(job.width) - math.log2(query.width)) ** 2 + \
            (math.log2(job.estimate) - math.log2(query.estimate)) ** 2
        same = query.user != -1 and job.user == query.user
        return round(far + (0 if same else user_weight), 6)

    nearest = sorted(range(len(recent)), key=lambda i: (distance(recent[i]), -i))[:k]
    total = sum(recent[i].runtime for i in nearest)
    return max(1, min(query.estimate, math.ceil(total / len(nearest))))


ended_jobs = st.lists(st.tuples(st.integers(1, 64), st.integers(1, 5000), st.integers(0, 6000),
                                st.integers(-1, 3)), max_size=60)


@settings(max_examples=120, deadline=None)
@given(history=ended_jobs, k=st.integers(1, 6), window=st.integers(6, 20),
       user_weight=st.sampled_from([0.0, 1.0, 4.0]),
       query=st.tuples(st.integers(1, 64), st.integers(1, 5000), st.integers(-1, 3)))
def test_knn_predicts_what_its_rule_says(history, k, window, user_weight, query):
    predictor = make_predictor(f"knn[k={k},window={window},user_weight={user_weight}]")
    ended = []
    for n, (width, estimate, runtime, user) in enumerate(history):
        job = EndedJob(n + 1, 0, width, estimate, user, -1, -1, -1, 0, runtime, runtime)
        predictor.observe(job)
        ended.append(job)
    width, estimate, user = query
    asked = PredictionQuery(len(history) + 1, 0, width, estimate, user=user)
    assert predictor.predict(asked) == knn_by_its_rule(ended, asked, k, window, user_weight)


# ------------------------------------------------------------------ the correction rule
@pytest.mark.parametrize("rule", ["estimate", "graded"])
def test_the_planner_corrects_by_the_rule_of_the_predictor(rule):
    predictor = make_predictor(f"easy++[correction={rule}]")
    planner = PredictorPlanner(predictor)
    for estimate in (5, 100):
        job = Job(1, 0, 500, estimate, 2, 7)
        for predicted, elapsed in ((1, 1), (10, 10), (60, 60), (100, 100), (100, 250)):
            # docs/reference/predictions.md: "soon" past the estimate; else the estimate,
            # or twice the prediction, at least elapsed + 1, capped by the estimate.
            expected = (elapsed + 1 if elapsed >= estimate else estimate if rule == "estimate"
                        else min(estimate, max(2 * predicted, elapsed + 1)))
            assert planner.corrected(job, predicted, elapsed) == expected
            assert correction_rule(rule)(job, predicted, elapsed) == expected
            assert predictor.corrected(PredictionQuery(1, 0, 2, estimate, 7), predicted,
                                       elapsed) == expected


class Patient(Predictor):
    """Corrects a prediction by 7 s more, whatever the rule says."""

    name = "patient"

    def predict(self, query: PredictionQuery) -> int:
        return 1

    def corrected(self, query: PredictionQuery, predicted: int, elapsed: int) -> int:
        return elapsed + 7


def test_a_predictor_with_its_own_correction_is_asked_for_it():
    planner = PredictorPlanner(Patient())
    assert planner.corrected(Job(1, 0, 500, 1000, 2, 7), 1, 1) == 8


# ------------------------------------------------------------------ per-user predictors
#: Submissions and ends in any order: ("submit", user, estimate) or ("end", user, runtime).
events = st.lists(st.one_of(
    st.tuples(st.just("submit"), st.integers(-1, 3), st.integers(1, 5000)),
    st.tuples(st.just("end"), st.integers(-1, 3), st.integers(0, 6000))), max_size=60)


@settings(max_examples=150, deadline=None)
@given(events=events, spec=st.sampled_from(
    ["easy++", "last", "user-quantile", "user-quantile[q=0.9,window=3,min_jobs=1]"]))
def test_per_user_calls_predict_what_queries_predict(events, spec):
    fast, plain = make_predictor(spec), make_predictor(spec)
    fast.predict = fast.observe = None                # type: ignore[assignment,method-assign]
    planned, ended = planner_calls(fast)              # so no query or record reaches them
    asked, told = asking(plain.predict), telling(plain.observe)
    for n, (kind, user, value) in enumerate(events):
        if kind == "submit":
            job = Job(n + 1, 0, 10**6, value, 2, user)        # its runtime is never read
            assert planned(job) == asked(job)
        else:
            job = Job(n + 1, 0, value, 6000, 2, user)
            ended(job, 100, 100 + value, 0)
            told(job, 100, 100 + value, 0)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 300), st.integers(1, 300),
                               st.integers(1, 8), st.integers(-1, 3)), min_size=1, max_size=40),
       predictor=st.sampled_from(["easy++", "last", "user-quantile[q=0.25,window=3,min_jobs=1]"]),
       backfill=st.sampled_from(["queue", "sjbf"]), full_loop=st.booleans())
def test_the_engine_calling_a_per_user_predictor_directly_changes_nothing(rows, predictor,
                                                                         backfill, full_loop):
    """The engine asks and tells a per-user predictor itself (the planner's ``per_user``):
    the run equals the one where it goes through the planner's ``planned`` and ``ended``,
    jobs of unknown user (-1) among them."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = tuple(Job(id=k + 1, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows)))
    spec = {"name": "fcfs+easy", "predictor": predictor, "backfill_order": backfill}
    options = {"max_queued_per_user": 10 ** 6} if full_loop else {}
    direct, through_planner = schedlab.make_policy(spec), schedlab.make_policy(spec)
    assert direct.runtime_planner.per_user is not None
    through_planner.runtime_planner.per_user = None
    workload = Workload(jobs=jobs, processors=8)
    same_run(api_run(workload, direct, **options), api_run(workload, through_planner, **options))


def test_a_predictor_that_overrides_predict_is_asked_by_query():
    overriding = type("AlwaysOne", (type(make_predictor("easy++")),),
                   {"predict": lambda self, query: 1})()
    planned, _ = planner_calls(overriding)
    assert planned(Job(1, 0, 50, 100, 2, 7)) == 1


def test_a_wake_up_at_an_instant_of_corrections_brings_its_pass():
    # In SKIPPED the pass at 31, the instant of job 3's correction, is skipped; a policy
    # that asked to be woken then gets it, even one that calls every such pass idle.
    class Woken(EasyBackfilling):
        def schedule(self, ctx):
            if ctx.now == 23:
                ctx.wake_at(31)
            super().schedule(ctx)

        def idle_after_corrections(self, ctx):
            return True

    jobs = tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for i, s, r, e, w, u in SKIPPED)
    policy = Woken(predictor="easy++")
    passes = counted_passes(policy)
    result = api_run(Workload(jobs=jobs, processors=8), policy)
    assert 31 in passes
    assert result.corrections.tolist() == [0, 0, 1, 0, 0, 0]


#: Rows (gap, runtime, estimate, width, user) on a grid of 5 s, so that an arrival often
#: ends, by its planned runtime, exactly at the blocked head's shadow time.
grid_rows = st.lists(st.tuples(st.sampled_from([0, 0, 5, 10]),
                               st.sampled_from([5, 10, 15, 20, 30]),
                               st.sampled_from([5, 10, 20, 30]), st.integers(1, 8),
                               st.integers(0, 2)),
                     min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
# Job 11 (3 wide, 5 s) arrives at 10 and ends at 15, the shadow time of job 10 (6 wide),
# which leaves 2 extra processors: it starts at 10.
@example(rows=[(0, 5, 5, 1, 0)] * 8 + [(0, 10, 10, 3, 0), (0, 5, 5, 6, 0), (10, 5, 5, 3, 0)],
         predictor="easy++", backfill="queue")
@given(rows=grid_rows, predictor=st.sampled_from(["easy++", "last"]),
       backfill=st.sampled_from(["queue", "sjbf"]))
def test_one_arrival_is_backfilled_as_by_a_pass_over_the_whole_queue(rows, predictor,
                                                                     backfill):
    """An arrivals-only pass with one arrival decides it in place
    (``EasyBackfilling._backfill_one``): on times that meet (an arrival ending exactly
    at the shadow time, one wider than the extra processors), the run equals the run
    whose every pass looks at the whole queue."""
    submits = np.cumsum([gap for gap, *_ in rows]).tolist()
    jobs = tuple(Job(id=k + 1, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for k, (s, (_, r, e, w, u)) in enumerate(zip(submits, rows)))
    run_both_ways(Workload(jobs=jobs, processors=8),
                  {"name": "fcfs+easy", "predictor": predictor, "backfill_order": backfill})


def test_an_arrival_backfilled_on_the_extra_processors_takes_them():
    # On 8 processors job 1 (4 wide) runs until 100; job 2 (6 wide) waits for it: shadow
    # time 100, 2 extra processors.  Job 3 (2 wide, 200 s) arrives at 10 and takes them;
    # job 4 (2 wide, 200 s) arrives at 20: it fits the 2 free processors, but would delay
    # job 2, so it waits until job 2 ends at 150.
    jobs = (Job(1, 0, 100, 100, 4, 0), Job(2, 1, 50, 50, 6, 1), Job(3, 10, 200, 200, 2, 2),
            Job(4, 20, 200, 200, 2, 3))
    result, _ = run_both_ways(Workload(jobs=jobs, processors=8),
                           {"name": "fcfs+easy", "predictor": "easy++"})
    assert result.start.tolist() == [0, 100, 10, 150]


def test_a_correction_among_arrivals_brings_a_pass_over_the_whole_queue():
    # On 8 processors job 2 (4 wide) is planned by ``last`` at 10 s, to end at 30; job 3
    # (8 wide) waits for it: shadow time 30, no extra processor.  At 30 job 2 is corrected
    # to its estimate (to end at 120, the shadow time with it) and job 4 (2 wide, 40 s)
    # arrives: it ends by 120 and starts then.  With the shadow time of the pass before
    # (30) it would wait.
    jobs = tuple(Job(id=i, submit=s, runtime=r, estimate=e, width=w, user=u)
                 for i, s, r, e, w, u in ((1, 0, 10, 10, 1, 0), (2, 20, 100, 100, 4, 0),
                                          (3, 21, 50, 50, 8, 1), (4, 30, 40, 40, 2, 2)))
    workload = Workload(jobs=jobs, processors=8)
    spec = {"name": "fcfs+easy", "predictor": "last"}
    result, _ = run_both_ways(workload, spec)
    assert result.start.tolist() == [0, 20, 120, 30]
    assert result.stats["broken_reservations"] == 1


def test_a_cancellation_among_arrivals_brings_a_pass_over_the_whole_queue():
    # On 8 processors job 1 (6 wide) runs; job 2 (8 wide) waits for it.  At 10 its user
    # cancels it and jobs 3 and 4 (2 wide each) arrive: job 3 is the head now and takes
    # the 2 free processors; job 4 waits.  Behind the cancelled head, only job 4 would
    # have been looked at, and backfilled.
    jobs = (Job(1, 0, 100, 100, 6, 0), Job(2, 1, 10, 10, 8, 1, cancel_after=9),
            Job(3, 10, 50, 50, 2, 2), Job(4, 10, 50, 50, 2, 2))
    workload = Workload(jobs=jobs, processors=8)
    spec = {"name": "fcfs+easy", "predictor": "last"}
    result, _ = run_both_ways(workload, spec)
    assert result.start.tolist() == [0, -1, 10, 60]


def test_a_failure_among_arrivals_brings_a_pass_over_the_whole_queue():
    # On 8 processors jobs 1 (1 wide, on node 0, to end at 20) and 2 (5 wide) run; job 3
    # (3 wide) waits for job 1: shadow time 20.  At 5 node 0 fails until 65, killing job
    # 1 (the processors free stay 2), and job 4 (2 wide, 30 s) arrives: with node 0 back
    # at 65 the shadow time is 65, so job 4 ends by it and starts at once.  With the
    # shadow time of the pass before (20) it would wait.
    jobs = (Job(1, 0, 20, 20, 1, 0), Job(2, 0, 100, 100, 5, 0), Job(3, 1, 10, 10, 3, 1),
            Job(4, 5, 30, 30, 2, 2))
    workload = Workload(jobs=jobs, processors=8)
    failures = FailureSpec(replayed=(Failure(5, (0,), 60),), fate="kill")
    spec = {"name": "fcfs+easy", "predictor": "last"}
    result, _ = run_both_ways(workload, spec, failures=failures)
    assert result.start.tolist() == [0, 0, 65, 5]
