"""The processor map of runs with outages (schedlab.engine.processors): its journal,
applied by compiled code, against a plain model of who holds which processor."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.processors import (
    FAILED,
    FREE,
    WINDOW,
    ProcessorMap,
    _first_fit,
    _hold,
    _lowest,
    free_runs,
)


def model_take(owner: list[int], holder: int, width: int, allocation: str) -> None:
    """The allocation rules of docs/reference/events.md on a plain list."""
    free = [p for p, h in enumerate(owner) if h == FREE]
    chosen = free[:width]
    if allocation == "contiguous":
        run: list[int] = []
        for p in free:
            run = run + [p] if run and run[-1] == p - 1 else [p]
            if len(run) == width:
                chosen = run
                break
    for p in chosen:
        owner[p] = holder


@st.composite
def histories(draw):
    """A machine, and starts and ends of jobs that fit it, in time order."""
    processors = draw(st.integers(1, 40))
    steps = []
    running: dict[int, int] = {}
    free = processors
    for t in range(draw(st.integers(1, 60))):
        if running and (free == 0 or draw(st.booleans())):
            position = draw(st.sampled_from(sorted(running)))
            free += running.pop(position)
            steps.append(("end", position, t))
        else:
            width = draw(st.integers(1, free))
            position = len(steps)
            running[position] = width
            free -= width
            steps.append(("start", position, width, t))
    return processors, steps


@settings(max_examples=150, deadline=None)
@given(histories(), st.sampled_from(["first-fit", "contiguous"]),
       st.integers(0, 3))
def test_the_journal_gives_the_holders_of_the_plain_model(history, allocation, read_every):
    """Read now and then (a failure reads the map) or only at the end, the map agrees
    with the model processor by processor, and records every use a job ended."""
    processors, steps = history
    owner = [FREE] * processors
    held: dict[int, tuple[list[int], int]] = {}
    uses = []
    machine = ProcessorMap(processors, allocation, seed=0, jobs=len(steps))
    for k, step in enumerate(steps):
        if step[0] == "start":
            _, position, width, t = step
            model_take(owner, position, width, allocation)
            held[position] = ([p for p, h in enumerate(owner) if h == position], t)
            machine.take(position, width, t)
        else:
            _, position, t = step
            mine, since = held.pop(position)
            for p in mine:
                owner[p] = FREE
            if t > since:
                uses += [(p, since, t, position) for p in mine]
            machine.release_job(position, t)
        if read_every and k % read_every == 0:
            assert machine.holders(0, processors).tolist() == owner
    assert machine.holders(0, processors).tolist() == owner
    recorded = sorted((p, since, until, position)
                      for lo, hi, since, until, position in machine.used.tolist()
                      for p in range(lo, hi))
    assert recorded == sorted(uses)
    assert machine.free_count() == owner.count(FREE)


@settings(max_examples=60, deadline=None)
@given(histories(), st.integers(0, 10))
def test_drawn_processors_are_free_distinct_and_seeded(history, seed):
    """``any``: each job gets exactly its width in processors nobody holds; the same seed
    draws the same processors."""
    processors, steps = history

    def replay() -> list[list[int]]:
        machine = ProcessorMap(processors, "any", seed=seed, jobs=len(steps))
        seen = []
        for step in steps:
            if step[0] == "start":
                _, position, width, t = step
                before = machine.holders(0, processors).copy()
                machine.take(position, width, t)
                after = machine.holders(0, processors)
                mine = np.flatnonzero(after == position)
                assert len(mine) == width and (before[mine] == FREE).all()
                seen.append(mine.tolist())
            else:
                machine.release_job(step[1], step[2])
        return seen

    assert replay() == replay()


def test_failures_and_windows_take_and_give_back_free_processors():
    """A window takes the lowest free processors, a failure the free ones of its node;
    both give them back merged with the free runs around them."""
    machine = ProcessorMap(10, "first-fit", seed=0, jobs=2)
    machine.take(0, 3, 0)                         # job 0 on 0-2
    assert machine.take_lowest(2, WINDOW) == [(3, 5)]
    assert machine.take_free_in(4, 8, FAILED) == [(5, 8)]
    machine.take(1, 2, 1)                         # job 1 on 8-9, the last free ones
    assert machine.holders(0, 10).tolist() == [0, 0, 0, WINDOW, WINDOW, FAILED, FAILED,
                                               FAILED, 1, 1]
    assert machine.free_count() == 0
    machine.release([(5, 8)])
    machine.release([(3, 5)])
    machine.release_job(0, 5)
    assert machine.free_count() == 8
    assert machine.take_lowest(20, WINDOW) == [(0, 8)]


def test_the_journal_grows_its_pool_for_jobs_on_many_ranges():
    """Jobs scattered over many ranges outgrow the first pool (three ranges a job)."""
    machine = ProcessorMap(64, "any", seed=3, jobs=1)
    for round_ in range(50):
        machine.take(0, 40, round_)
        machine.release_job(0, round_ + 1)
    assert machine.free_count() == 64
    assert sum(hi - lo for lo, hi, *_ in machine.used.tolist()) == 50 * 40


@settings(max_examples=150, deadline=None)
@given(histories(), st.data())
def test_failures_take_the_free_processors_of_their_range_and_give_them_back(history, data):
    """Between the jobs' starts and ends, failures take the free processors of a range
    (``take_free_in``) and repairs give them back (``release``, through the journal): the
    map agrees with the plain model processor by processor, and jobs still start on the
    lowest free processors."""
    processors, steps = history
    owner = [FREE] * processors
    machine = ProcessorMap(processors, "first-fit", seed=0, jobs=len(steps))
    failed: list[list[tuple[int, int]]] = []
    for step in steps:
        if data.draw(st.booleans()):
            lo = data.draw(st.integers(0, processors - 1))
            hi = data.draw(st.integers(lo + 1, processors))
            expected = [p for p in range(lo, hi) if owner[p] == FREE]
            ranges = machine.take_free_in(lo, hi, FAILED)
            assert [p for a, b in ranges for p in range(a, b)] == expected
            for p in expected:
                owner[p] = FAILED
            failed.append(ranges)
        if failed and data.draw(st.booleans()):
            for a, b in failed.pop(data.draw(st.integers(0, len(failed) - 1))):
                owner[a:b] = [FREE] * (b - a)
                machine.release([(a, b)])
        if step[0] == "start":
            _, position, width, t = step
            width = min(width, owner.count(FREE))
            if width:
                model_take(owner, position, width, "first-fit")
                machine.take(position, width, t)
        else:
            _, position, t = step
            owner = [FREE if h == position else h for h in owner]
            machine.release_job(position, t)
        assert machine.holders(0, processors).tolist() == owner
    assert machine.free_count() == owner.count(FREE)


@settings(max_examples=150, deadline=None)
@given(histories(), st.data())
def test_a_strike_is_the_holders_read_their_jobs_released_and_the_free_taken(history, data):
    """``strike`` (one compiled call) against the plain path on a twin map: read the
    holders of the failed ranges, release each job on them (lowest position first),
    take the free processors of each range.  The same jobs hit, ranges taken, holders
    and record of uses, and None exactly when no processor is free or held by a job;
    the end of a hit job's attempt journaled after the strike, as the engine does, is
    nothing (its attempt may start again at once)."""
    processors, steps = history
    machine = ProcessorMap(processors, "first-fit", seed=0, jobs=len(steps))
    plain = ProcessorMap(processors, "first-fit", seed=0, jobs=len(steps))
    running: set[int] = set()
    for step in steps:
        if data.draw(st.booleans()):
            t = step[-1]
            los = data.draw(st.lists(st.integers(0, processors - 1), min_size=1, max_size=3))
            nodes = [(lo, min(processors, lo + data.draw(st.integers(1, 4)))) for lo in los]
            holders = {h for lo, hi in nodes for h in plain.holders(lo, hi).tolist()}
            struck = machine.strike(np.array(nodes, dtype=np.int64).reshape(-1, 2), t)
            if not any(h == FREE or h >= 0 for h in holders):
                assert struck is None
            else:
                hit = sorted(h for h in holders if h >= 0)
                for position in hit:
                    plain.release_job(position, t)
                    running.discard(position)
                taken = [part for lo, hi in nodes for part in plain.take_free_in(lo, hi, FAILED)]
                assert struck == (hit, taken)
                for position in hit:
                    # The engine journals the end of each attempt the strike ended (the
                    # map released it already: nothing happens), and may start it again.
                    machine.release_job(position, t)
                    width = min(data.draw(st.integers(0, 3)), plain.free_count())
                    if width:
                        for twin in (machine, plain):
                            twin.take(position, width, t)
                        running.add(position)
        if step[0] == "start":
            _, position, width, t = step
            width = min(width, plain.free_count())
            if width:
                for twin in (machine, plain):
                    twin.take(position, width, t)
                running.add(position)
        elif step[1] in running:
            _, position, t = step
            for twin in (machine, plain):
                twin.release_job(position, t)
            running.discard(position)
        assert machine.holders(0, processors).tolist() == plain.holders(0, processors).tolist()
    assert machine.used.tolist() == plain.used.tolist()
    assert machine.free_count() == plain.free_count()


def test_a_strike_grows_the_pool_and_the_record_as_it_applies_the_journal():
    """A strike whose journal outgrows the first pool and record (jobs scattered over
    many ranges, never read before) grows them and agrees with the plain path."""
    twins = [ProcessorMap(64, "any", seed=3, jobs=2) for _ in range(2)]
    for machine in twins:
        for round_ in range(50):
            machine.take(0, 40, round_)
            machine.release_job(0, round_ + 1)
        machine.take(1, 30, 60)
    struck = twins[0].strike(np.array([[0, 64]], dtype=np.int64), 70)
    twins[1].release_job(1, 70)
    assert struck == ([1], twins[1].take_free_in(0, 64, FAILED)) == ([1], [(0, 64)])
    assert twins[0].used.tolist() == twins[1].used.tolist()
    assert len(twins[0].used) > 64 and twins[0].free_count() == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40), st.integers(1, 45))
def test_first_fit_into_the_pool_is_the_lowest_rows_held(free, width):
    """The journal's first-fit start (``_first_fit``, written straight into the pool)
    against the plain path (``_lowest``'s rows, then ``_hold``): the same rows, holders
    and free runs, from any free processors, for any width (more than are free too)."""
    starts, lengths = free_runs(np.array(free))

    def machine() -> tuple[np.ndarray, ...]:
        owner = np.where(free, FREE, 99).astype(np.int64)
        lo = np.zeros(len(free) // 2 + 2, dtype=np.int64)
        hi = np.zeros_like(lo)
        lo[:len(starts)], hi[:len(starts)] = starts, starts + lengths
        return owner, lo, hi, np.array([len(starts), 0, 0, 1], dtype=np.int64)

    fast, plain = machine(), machine()
    pool = np.full((len(free) + 3, 2), -7, dtype=np.int64)
    rows = _first_fit(*fast, pool, 2, width, 5)
    expected = _hold(*plain, _lowest(*plain[1:], width), 5)
    assert pool[2:2 + rows].tolist() == expected.tolist()
    assert (pool[:2] == -7).all() and (pool[2 + rows:] == -7).all()
    (owner, lo, hi, state), (owner_, lo_, hi_, state_) = fast, plain
    runs = state[0]                   # the free runs: the first entries of lo and hi
    assert (owner.tolist(), state.tolist()) == (owner_.tolist(), state_.tolist())
    assert (lo[:runs].tolist(), hi[:runs].tolist()) == (lo_[:runs].tolist(),
                                                        hi_[:runs].tolist())
