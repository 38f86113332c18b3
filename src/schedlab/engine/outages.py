"""Node failures, maintenance windows and drains in a space-sharing run (docs/reference/events.md).

The engine keeps, only in a run that has outages, which processor holds
what (:class:`ProcessorMap`): a failure hits particular processors and so
particular jobs.  :class:`Outages` makes the outages of a
:class:`~schedlab.workload.outages.FailureSpec` and of the windows happen on
the event heap of the run's :class:`~schedlab.engine.context.Context`:

* a **failure** takes its processors out of service until its repair; a
  job on one of them ends its attempt there and meets the run's fate
  (``kill``, ``requeue`` or ``checkpoint``); the processors are listed
  with the running jobs among the context's releases, back at the repair
  (our reading: the scheduler learns the repair time when the node fails);
* a **window** (maintenance or drain) is announced at its notice; from its
  start it takes free processors, and each one a job frees, until it holds
  its count; it never stops a job, and gives everything back at its end.
  Between notice and end, :meth:`Outages.clip` takes its outstanding
  processors out of every availability profile the context builds, so
  that planning policies keep jobs out of it.

What the policy hears is an :class:`OutageEvent` (``Policy.on_outage``).
"""

from __future__ import annotations

import weakref
from array import array
from bisect import bisect_right, insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from heapq import heappush
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.attempts import Attempts, outage_settings
from schedlab.engine.kernel import NOTICE, OUTAGE, RESTORE, StepSeries
from schedlab.engine.processors import FAILED, FREE, WINDOW, ProcessorMap, Ranges
from schedlab.engine.result import FINISHED, KILLED, OutageRecord
from schedlab.workload.outages import check_node_ids, node_processors

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.profile import Profile
    from schedlab.workload.job import Job
    from schedlab.workload.outages import FailureSpec, Window

#: A node's failures drawn in one call of its generator (FailureModel.draws).
DRAWS_AHEAD = 32
#: The kinds of outage in :attr:`OutageRecord.outages` (column 0).
KIND_CODES = {"failure": 0, "maintenance": 1, "drain": 2}
#: The ``holder`` column of :attr:`OutageRecord.intervals` for a failure and a window.
HELD_BY_FAILURE, HELD_BY_WINDOW = -1, -2
#: Offsets that keep the keys of failures and windows among the releases
#: (``Context._by_end``) apart from job ids and reservation keys.
_FAILURE_KEY, _WINDOW_KEY = -(2**40), -(2**41)


@dataclass(frozen=True)
class OutageEvent:
    """What :meth:`Policy.on_outage <schedlab.engine.policy.Policy.on_outage>` hears.

    ``kind`` is ``failure``, ``repair``, ``notice`` (a window announced),
    ``window start`` or ``window end``; ``processors`` how many it
    concerns; ``start`` and ``end`` the outage's interval; ``hit`` the ids
    of the jobs whose attempt a failure ended.
    """

    kind: str
    processors: int
    start: int
    end: int
    hit: tuple[int, ...] = ()


class _Failure:
    """One failure: its node (-1: from a file), interval and the processors it took."""

    __slots__ = ("end", "node", "nodes", "ranges", "start", "taken")

    def __init__(self, start: int, end: int, node: int, nodes: Sequence[int]) -> None:
        self.start, self.end, self.node, self.nodes = start, end, node, tuple(nodes)
        self.ranges: Ranges = []
        self.taken = 0


class _WindowState:
    """A window's processors: how many it wants (on ``nodes``, its nodes' processors, when
    it names nodes) and the ones it took, with when."""

    __slots__ = ("held", "nodes", "taken", "wanted", "window")

    def __init__(self, window: Window, wanted: int, nodes: Ranges) -> None:
        self.window, self.wanted, self.nodes = window, wanted, nodes
        self.held = 0
        self.taken: list[tuple[Ranges, int]] = []

    @property
    def outstanding(self) -> int:
        return self.wanted - self.held


class Outages:
    """The outages of one run and their bookkeeping (docs/reference/events.md)."""

    def __init__(self, machine: int, jobs: Sequence[Job], spec: FailureSpec | None,
                 windows: Sequence[Window]) -> None:
        from schedlab.workload.outages import FailureSpec

        self.spec = spec if spec is not None else FailureSpec()
        self.machine = machine
        self.node_size = self.spec.node_size
        self.nodes = -(-machine // self.node_size)
        self.map = ProcessorMap(machine, self.spec.allocation,
                                self.spec.model.seed if self.spec.model is not None else 0,
                                len(jobs))
        self.map.widths[:] = np.fromiter(map(attrgetter("width"), jobs), np.int64, len(jobs))
        #: Appends one integer to the map's journal (:attr:`ProcessorMap.journal`), bound
        #: once: the context's starts and ends write their two, the job's position (its
        #: complement ``~position`` for an end) and the time, without a call into the map
        #: each.
        self.note = self.map.journal.append
        self.windows = tuple(windows)
        self._states: dict[int, _WindowState] = {}
        self._announced: dict[int, _WindowState] = {}
        self._failures: list[_Failure] = []
        #: The failures holding processors now, by key.
        self._active: dict[int, _Failure] = {}
        self._rngs: dict[int, np.random.Generator] = {}
        #: Each node's failures drawn ahead, ``(time to failure, repair time)``, next last.
        self._drawn: dict[int, list[tuple[int, int]]] = {}
        self.down = 0
        #: Each job's attempts under the fate (shared with the time-sharing engine).
        self.attempts = Attempts(jobs, self.spec)
        #: Every use of a range of processors by a failure or a window (those of jobs are the
        #: map's), flat: lo, hi, from, until, holder, ...
        self._used = array("q")
        #: Whether the processors a job's attempt frees go to windows now (the context
        #: calls :meth:`fill` then): a window has started, and no failure is ending the
        #: attempts on its processors (the map has freed them, :meth:`ProcessorMap.strike`,
        #: and the failure takes its nodes' first).
        self.fills = False
        #: The processors of each set of nodes that failed, as rows (:meth:`_node_rows`).
        self._rows: dict[tuple[int, ...], np.ndarray] = {}
        self._outage_rows: list[tuple[int, int, int, int]] = []
        #: Processors out of service (failed or held by a window) over time.
        self._down_series = StepSeries(1)
        self._down_series.record(0, 0)
        self.spec.check_nodes(self.nodes)
        self._check_window_nodes()

    # ------------------------------------------------------------------ set-up
    def _check_window_nodes(self) -> None:
        """InputError for a node a window file names that the machine does not have."""
        for window in self.windows:
            check_node_ids(window.node_ids, self.nodes, self.node_size, file=window.source,
                           line=window.line, column="node_ids")

    def begin(self, ctx: Context) -> None:
        """Put the first failures and every window's notice on the context's heap.

        The context, which holds this object, is kept by a weak reference: without a
        cycle between them the run's state is freed as soon as the run is dropped,
        by reference counting, instead of waiting for the cycle collector to walk it.
        """
        self._ctx = weakref.proxy(ctx)
        events = ctx._events
        model = self.spec.model
        if model is not None:
            for node in range(self.nodes):
                rng = self._rngs[node] = model.generator(node)
                self._draw(events, node, 0, rng)
        for failure in self.spec.replayed:
            self._add_failure(events, failure.time, failure.end, -1, failure.nodes)
        for k, window in enumerate(self.windows):
            heappush(events, (window.notice, NOTICE, k, 0))

    def _draw(self, events: list, node: int, after: int, rng: np.random.Generator) -> None:
        """The node's next failure after its repair at ``after``
        (:meth:`~schedlab.workload.outages.FailureModel.next_failure`), from draws made
        :data:`DRAWS_AHEAD` at a time."""
        drawn = self._drawn.get(node)
        if not drawn:
            model = self.spec.model
            assert model is not None
            drawn = self._drawn[node] = model.draws(rng, DRAWS_AHEAD)[::-1]
        to_failure, repair = drawn.pop()
        self._add_failure(events, after + to_failure, after + to_failure + repair, node,
                          (node,))

    def _add_failure(self, events: list, start: int, end: int, node: int,
                     nodes: Sequence[int]) -> None:
        key = len(self._failures)
        self._failures.append(_Failure(start, end, node, nodes))
        heappush(events, (start, OUTAGE, key, 0))

    # ------------------------------------------------------------------ jobs
    def first_attempts(self, jobs: Sequence[Job]) -> list[Job]:
        """Every job as it runs its first attempt (:meth:`Attempts.first_attempts`)."""
        return self.attempts.first_attempts(jobs)

    def never_entered(self, job: Job, position: int) -> None:
        """A job withdrawn at its submission (:meth:`Attempts.never_entered`)."""
        self.attempts.never_entered(job, position)

    def hit(self, ctx: Context, job: Job, original: Job) -> Job | None:
        """Decide the fate of ``job`` (as it ran; ``original`` as submitted), whose attempt a
        failure ended now: None when it is killed, else the job to queue again
        (:meth:`Attempts.hit`)."""
        i = ctx._index[job.id]
        start = int(ctx._start[i])
        again = self.attempts.hit(job, original, i, start, ctx.now, ctx.now - start)
        if again is not None:
            ctx.count(self.attempts.count_name)
        return again

    # ------------------------------------------------------------------ events
    def outage(self, ctx: Context, key: int
               ) -> tuple[OutageEvent, list[Job], list[Job]] | None:
        """A failure (key >= 0) or a window (key < 0) starts now; returns what the policy
        hears, the running jobs the failure hit (their attempts ended by the context's
        ``_end_attempt``), and those of them queued again; None: nothing happened (the
        failure's processors were all out of service already)."""
        if key < 0:
            return self._start_window(ctx, -1 - key), [], []
        failure = self._failures[key]
        struck = self.map.strike(self._node_rows(failure.nodes), ctx.now)
        if struck is None:
            if failure.node >= 0:
                self._draw(ctx._events, failure.node, failure.end, self._rngs[failure.node])
            return None
        positions, failure.ranges = struck
        jobs = ctx._jobs_at(positions)
        self.fills = False                 # the map has freed their processors already
        requeued = [view for job in jobs if (view := ctx._end_attempt(job)) is not None]
        self.fills = bool(self._states)
        taken = failure.taken = sum(hi - lo for lo, hi in failure.ranges)
        self._active[key] = failure
        self._log(failure.ranges, failure.start, failure.end, HELD_BY_FAILURE)
        self._outage_rows.append((KIND_CODES["failure"], failure.start, failure.end, taken))
        ctx.free -= taken
        self.down += taken
        insort(ctx._by_end, (failure.end, _FAILURE_KEY - key, taken))
        heappush(ctx._events, (failure.end, RESTORE, key, 0))
        if self._states:
            self.fill(ctx)
        self._record(ctx.now)
        return OutageEvent("failure", taken, failure.start, failure.end,
                           tuple(job.id for job in jobs)), jobs, requeued

    def _node_ranges(self, nodes: Sequence[int]) -> Ranges:
        """The processors of ``nodes`` as ranges."""
        return node_processors(nodes, self.node_size, self.machine)

    def _node_rows(self, nodes: tuple[int, ...]) -> np.ndarray:
        """The processors of ``nodes`` as rows ``[lo, hi)`` (:meth:`ProcessorMap.strike`),
        made once for each set of nodes that fails."""
        rows = self._rows.get(nodes)
        if rows is None:
            rows = self._rows[nodes] = np.array(self._node_ranges(nodes),
                                                dtype=np.int64).reshape(-1, 2)
        return rows

    def restore(self, ctx: Context, key: int) -> OutageEvent:
        """A failure's repair (key >= 0) or a window's end (key < 0) has come."""
        if key < 0:
            return self._end_window(ctx, -1 - key)
        failure = self._active.pop(key)
        self.map.release(failure.ranges)
        ctx.free += failure.taken
        ctx._by_end.remove((failure.end, _FAILURE_KEY - key, failure.taken))
        self.down -= failure.taken
        if failure.node >= 0:
            self._draw(ctx._events, failure.node, failure.end, self._rngs[failure.node])
        if self._states:
            self.fill(ctx)
        self._record(ctx.now)
        return OutageEvent("repair", failure.taken, failure.start, failure.end)

    def notice(self, ctx: Context, k: int) -> OutageEvent:
        """Window ``k`` is announced: profiles keep its processors from its start on."""
        window = self.windows[k]
        state = _WindowState(window, window.width(self.machine, self.node_size),
                             self._node_ranges(window.node_ids))
        self._announced[k] = state
        heappush(ctx._events, (window.start, OUTAGE, -1 - k, 0))
        return OutageEvent("notice", state.wanted, window.start, window.end)

    def _start_window(self, ctx: Context, k: int) -> OutageEvent:
        state = self._announced.pop(k)
        self._states[k] = state
        self.fills = True
        window = state.window
        insort(ctx._by_end, (window.end, _WINDOW_KEY - k, 0))
        heappush(ctx._events, (window.end, RESTORE, -1 - k, 0))
        self.fill(ctx)
        self._record(ctx.now)
        return OutageEvent("window start", state.wanted, window.start, window.end)

    def _end_window(self, ctx: Context, k: int) -> OutageEvent:
        state = self._states.pop(k)
        self.fills = bool(self._states)
        window = state.window
        for ranges, taken_at in state.taken:
            self.map.release(ranges)
            self._log(ranges, taken_at, window.end, HELD_BY_WINDOW)
        ctx._by_end.remove((window.end, _WINDOW_KEY - k, state.held))
        ctx.free += state.held
        self.down -= state.held
        self._outage_rows.append((KIND_CODES[window.kind], window.start, window.end,
                                  state.held))
        if self._states:
            self.fill(ctx)
        self._record(ctx.now)
        return OutageEvent("window end", state.held, window.start, window.end)

    def fill(self, ctx: Context) -> None:
        """Give free processors to the started windows still short of their count, in the
        order they started."""
        for k, state in self._states.items():
            if state.outstanding <= 0 or ctx.free <= 0:
                continue
            if state.nodes:
                ranges = [part for lo, hi in state.nodes
                          for part in self.map.take_free_in(lo, hi, WINDOW)]
            else:
                ranges = self.map.take_lowest(state.outstanding, WINDOW)
            taken = sum(hi - lo for lo, hi in ranges)
            if not taken:
                continue
            state.taken.append((ranges, ctx.now))
            end, key = state.window.end, _WINDOW_KEY - k
            ctx._by_end.remove((end, key, state.held))
            state.held += taken
            insort(ctx._by_end, (end, key, state.held))
            ctx.free -= taken
            self.down += taken
            self._record(ctx.now)

    # ------------------------------------------------------------------ the plan
    @property
    def claiming(self) -> bool:
        """Whether a window is announced or started (its processors count in plans)."""
        return bool(self._announced or self._states)

    def claims(self, now: int) -> list[tuple[int, int, int]]:
        """``(from, end, processors)`` still to be taken by windows announced or started.

        A window of a count claims it from its start (or now): it takes any
        processor that comes free.  A window on named nodes claims each of its
        processors when that one comes free: at the window's start (or now) if it
        is free, at the expected end of the job holding it, at the repair of the
        failure holding it.
        """
        claims = []
        for state in self._announced.values():
            earliest = max(now, state.window.start)
            if state.nodes:
                claims += self._named_claims(state, earliest)
            else:
                claims.append((earliest, state.window.end, state.wanted))
        for state in self._states.values():
            if state.outstanding <= 0:
                continue
            if state.nodes:
                claims += self._named_claims(state, now)
            else:
                claims.append((now, state.window.end, state.outstanding))
        return claims

    def _named_claims(self, state: _WindowState, earliest: int) -> list[tuple[int, int, int]]:
        """The claims of a window on named nodes, grouped by when its processors come free
        (processors another window holds are not claimed)."""
        ctx = self._ctx
        repairs = {p: failure.end for failure in self._active.values()
                   for lo, hi in failure.ranges for p in range(lo, hi)}
        counts: dict[int, int] = {}
        for lo, hi in state.nodes:
            for p, holder in enumerate(self.map.holders(lo, hi).tolist(), start=lo):
                if holder == FREE:
                    when = earliest
                elif holder >= 0:
                    when = ctx.expected_end(ctx.running[ctx._jobs[holder].id])
                elif holder == FAILED:
                    when = repairs[p]
                else:
                    continue
                when = max(when, earliest)
                counts[when] = counts.get(when, 0) + 1
        end = state.window.end
        return [(when, end, count) for when, count in sorted(counts.items()) if when < end]

    def next_claim(self, now: int) -> int | None:
        """When the earliest window claim begins (None: no window is announced or short)."""
        return min((start for start, _, _ in self.claims(now)), default=None)

    def clip(self, profile: Profile) -> None:
        """Take the windows' outstanding processors out of ``profile``: from a window's
        start to its end, the free processors less its claim, never below 0 (it takes them
        as they come free, before any job)."""
        if not self.claiming:
            return
        claims = self.claims(profile.origin)
        if not claims:
            return
        times, free = profile.breakpoints()
        edges = sorted({*times, *(start for start, _, _ in claims),
                        *(end for _, end, _ in claims)})
        new_times: list[int] = []
        new_free: list[int] = []
        for t in edges:
            if t < times[0]:
                continue
            base = free[_index_at(times, t)]
            claimed = sum(width for start, end, width in claims if start <= t < end)
            level = max(0, base - claimed)
            if not new_free or new_free[-1] != level:
                new_times.append(t)
                new_free.append(level)
        profile.replace_breakpoints(new_times, new_free)

    # ------------------------------------------------------------------ the record
    def _log(self, ranges: Ranges, start: int, end: int, holder: int) -> None:
        """``holder`` held ``ranges`` from ``start`` to ``end``."""
        if end > start:
            used = self._used
            for lo, hi in ranges:
                used.extend((lo, hi, start, end, holder))

    def _record(self, now: int) -> None:
        self._down_series.record(now, self.down)

    def record(self, ctx: Context) -> OutageRecord:
        """The run's :class:`OutageRecord` (windows still open at the end of the run are
        closed there: the run ends when its last job does)."""
        for k in list(self._states):
            state = self._states[k]
            for ranges, taken_at in state.taken:
                self._log(ranges, taken_at, ctx.now, HELD_BY_WINDOW)
            self._outage_rows.append((KIND_CODES[state.window.kind], state.window.start,
                                      state.window.end, state.held))
        for position, ranges, since in self.map.held():
            self._log(ranges, since, ctx.now, position)
        status = np.frombuffer(ctx._status, dtype=np.int8)
        finished = np.flatnonzero((status == FINISHED) | (status == KILLED))
        self.attempts.all_finished(finished, np.frombuffer(ctx._end, dtype=np.int64)[finished]
                                   - np.frombuffer(ctx._start, dtype=np.int64)[finished])
        intervals = self.map.used
        if self._used:                     # the failures' and windows' uses too
            intervals = np.concatenate(
                [intervals, np.frombuffer(self._used, dtype=np.int64).reshape(-1, 5)])
        intervals = intervals[_by_start(intervals, self.machine)]
        return OutageRecord(
            outages=np.array(self._outage_rows, dtype=np.int64).reshape(-1, 4),
            attempts=self.attempts.ended_array(),
            final_runtime=self.attempts.final_runtime,
            final_estimate=self.attempts.final_estimate,
            overhead=self.attempts.overhead, intervals=intervals,
            series_time=self._down_series.arrays()[0],
            series_down=self._down_series.arrays()[1][:, 0].copy(),
            settings=outage_settings(self.spec, self.windows))


def fixed_at_notice(k: int, windows: Sequence[Window], known: Iterable[int],
                    named: Callable[[int], Iterable[int]], units: int,
                    wanted: int) -> tuple[int, ...]:
    """The units (grid machines, gang columns) a window ``k`` that counts them takes when
    it is announced before its start: our reading in grid and gang runs
    (docs/reference/events.md), where the policies must know them from the notice.  The
    lowest-numbered of the ``units`` that no ``known`` window (announced or started)
    overlapping it in time names (``named``), then, if too few, the lowest-numbered of
    those; ``wanted`` in all, by number."""
    window = windows[k]
    claimed: set[int] = set()
    for other in known:
        if windows[other].start < window.end and window.start < windows[other].end:
            claimed.update(named(other))
    unclaimed = [unit for unit in range(units) if unit not in claimed]
    return tuple(sorted((unclaimed + sorted(claimed))[:wanted]))


def _by_start(intervals: np.ndarray, processors: int) -> np.ndarray:
    """The order of ``intervals`` (rows ``lo, hi, start, end, holder``) by start, then first
    processor: one stable sort of ``start * processors + lo``, which orders as the pair
    while it fits in 63 bits (numpy's two-key lexsort otherwise, three times slower)."""
    lo, start = intervals[:, 0], intervals[:, 2]
    if len(start) and int(np.abs(start).max()) >= 2**62 // (processors + 1):
        return np.lexsort((lo, start))
    return np.argsort(start * processors + lo, kind="stable")


def _index_at(times: list[int], t: int) -> int:
    """The index of the step of ``times`` that holds at ``t`` (>= times[0])."""
    return bisect_right(times, t) - 1
