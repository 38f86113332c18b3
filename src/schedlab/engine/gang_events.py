"""Failures, maintenance windows and users' cancellations in a gang (time-sharing) run.

docs/reference/events.md, "Gang runs", gives the readings this module
implements for :mod:`schedlab.engine.timesharing`:

* A **failure** takes its nodes' columns (processors) out of every row of
  the matrix until its repair.  Every job with a process on one of them, in
  any row, ends its attempt at the failure and meets the run's fate
  (:class:`~schedlab.engine.attempts.Attempts`: killed, queued again from
  the start, or from its last checkpoint); its progress is its service.
* An event that ends attempts — a failure, or the cancellation of a job in
  the matrix — ends the slot in service and the round at its time: the
  engine applies it, the policy rearranges the matrix at once, and the
  next round begins with the row after the one cut.  An express job starts
  only if it completes before the next such event.
* Repairs and the starts and ends of windows change which columns a policy
  may use; they take effect at the next round boundary.  A **window** takes
  columns free in every row (the lowest-numbered first), then columns as
  the jobs on them leave, until it holds its count; it never stops a job.
  A window announced before its start has its columns from its notice (its
  nodes', or for a count the lowest-numbered columns no other known window
  overlapping it names), and the policy sees them coming
  (``Matrix.windows_ahead``) until it starts; it then takes only those.
* A **cancellation** withdraws a waiting job at the next round boundary,
  and ends a job in the matrix (or an express job) at its time.

The columns a policy may use are the matrix's ``usable`` mask: neither
failed nor held by a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heappop, heappush
from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.attempts import Attempts, outage_settings, requeue
from schedlab.engine.kernel import CANCEL, NEVER, NOTICE, OUTAGE, RESTORE, StepSeries
from schedlab.engine.outages import HELD_BY_FAILURE, HELD_BY_WINDOW, KIND_CODES, fixed_at_notice
from schedlab.engine.result import CANCELLED, FAILED, FINISHED, KILLED, WITHDRAWN, OutageRecord
from schedlab.engine.timesharing import column_ranges, lowest_bits
from schedlab.workload.outages import check_node_ids, node_processors

if TYPE_CHECKING:
    from schedlab.engine.timesharing import _Simulation
    from schedlab.workload.job import Job
    from schedlab.workload.outages import FailureSpec, Window


class _Failure:
    """One failure: its node (-1: from a file), interval, nodes and the columns it took."""

    __slots__ = ("end", "node", "nodes", "start", "taken")

    def __init__(self, start: int, end: int, node: int, nodes: Sequence[int]) -> None:
        self.start, self.end, self.node, self.nodes = start, end, node, tuple(nodes)
        self.taken = 0


class _Claim:
    """A started window: how many columns it wants, among which (a mask: its nodes' when it
    names nodes, else every column), and those it took, with when."""

    __slots__ = ("among", "held", "taken", "wanted", "window")

    def __init__(self, window: Window, wanted: int, among: int) -> None:
        self.window, self.wanted, self.among = window, wanted, among
        self.held = 0
        self.taken: list[tuple[int, int]] = []       # (columns mask, taken at)


class GangEvents:
    """The failures, windows and cancellations of one gang run, and their record."""

    def __init__(self, sim: _Simulation, jobs: Sequence[Job], machine: int,
                 spec: FailureSpec | None, windows: Sequence[Window]) -> None:
        from schedlab.workload.outages import FailureSpec

        self.sim = sim

        #: Whether the run has failures or windows (and so an OutageRecord).
        self.outages = spec is not None or bool(windows)
        self.spec = spec if spec is not None else FailureSpec()
        self.windows = tuple(windows)
        self.machine = machine
        self.node_size = self.spec.node_size
        self.nodes = -(-machine // self.node_size)
        self.spec.check_nodes(self.nodes)
        for window in self.windows:
            check_node_ids(window.node_ids, self.nodes, self.node_size, file=window.source,
                           line=window.line, column="node_ids")
        self.attempts = Attempts(jobs, self.spec)
        #: The jobs as their current attempt runs them (the engine's ``jobs``).
        self.views: list[Job] = list(jobs)
        self.down = 0                     # failed columns (mask)
        self.claimed = 0                  # columns held by windows (mask)
        self._failures: list[_Failure] = []
        self._rngs: dict[int, np.random.Generator] = {}
        self._failing: list[tuple[int, int]] = []            # (time, failure key)
        self._changes: list[tuple[int, int, int]] = []       # (time, kind, key)
        self._claims: dict[int, _Claim] = {}
        #: Per window, the columns it takes (a mask), known from its notice: its nodes',
        #: or those fixed at an advance notice (None: a count taken as its start finds).
        self.named: list[int | None] = [self._node_columns(w.node_ids) if w.node_ids else None
                                        for w in self.windows]
        #: The windows announced and not started, and every one announced (the record).
        self._announced: list[int] = []
        self._heard: list[int] = []
        cancels = [(job.submit + job.cancel_after, position)
                   for position, job in enumerate(jobs) if job.cancel_after is not None]
        self._cancels = sorted(cancels)
        self._next_cancel = 0
        self._cancel_at = dict(((position, at) for at, position in cancels))
        #: Cancellations of jobs in the matrix: (time, job id, placed at), checked lazily.
        self._matrix_cancels: list[tuple[int, int, int]] = []
        self.stats: dict[str, int] = {}
        #: Jobs queued again (times they re-entered) and queue departures beyond the
        #: placements the trace keeps (withdrawals, placements of ended attempts).
        self.queue_in: list[int] = []
        self.queue_out: list[int] = []
        self._used: list[tuple[int, int, int, int, int]] = []
        self._outage_rows: list[tuple[int, int, int, int]] = []
        #: Processors out of service (failed or held by a window) over time.
        self._down_series = StepSeries(1)
        self._down_series.record(0, 0)
        self._begin()

    def _begin(self) -> None:
        model = self.spec.model
        if model is not None:
            for node in range(self.nodes):
                rng = self._rngs[node] = model.generator(node)
                self._add_failure(*model.next_failure(rng, 0), node, (node,))
        for failure in self.spec.replayed:
            self._add_failure(failure.time, failure.end, -1, failure.nodes)
        for k, window in enumerate(self.windows):
            heappush(self._changes, (window.start, OUTAGE, -1 - k))
            if window.notice < window.start:
                heappush(self._changes, (window.notice, NOTICE, k))

    def _add_failure(self, start: int, end: int, node: int, nodes: Sequence[int]) -> None:
        key = len(self._failures)
        self._failures.append(_Failure(start, end, node, nodes))
        heappush(self._failing, (start, key))

    # ------------------------------------------------------------------ times
    def cut_time(self) -> int:
        """When the next event that ends attempts comes (NEVER: none): a failure, or the
        cancellation of a job in the matrix."""
        first = self._failing[0][0] if self._failing else NEVER
        heap, sim = self._matrix_cancels, self.sim
        while heap:
            at, job_id, placed_at = heap[0]
            if job_id in sim.matrix and sim.placed[sim.index[job_id]] == placed_at:
                return min(first, at)
            heappop(heap)                 # the job left the matrix since
        return first

    def next_time(self) -> int:
        """When the next event of any kind comes (NEVER: none)."""
        first = self.cut_time()
        if self._changes:
            first = min(first, self._changes[0][0])
        if self._next_cancel < len(self._cancels):
            first = min(first, self._cancels[self._next_cancel][0])
        return first

    def usable_express(self, sim: _Simulation, t: int) -> list[Job]:
        """The waiting express jobs that may start at ``t``: those that complete before the
        next event that ends attempts and that their users have not cancelled by then."""
        bound = self.cut_time() - t
        held, index, cancel_at = sim.held, sim.index, self._cancel_at
        return [job for job in sim.express.values() if held[index[job.id]] < bound
                and cancel_at.get(index[job.id], NEVER) > t]

    def placed(self, sim: _Simulation, job_id: int) -> None:
        """A job entered the matrix: its cancellation, if any, will end it there."""
        position = sim.index[job_id]
        at = self._cancel_at.get(position)
        if at is not None:
            heappush(self._matrix_cancels, (at, job_id, sim.placed[position]))

    def started_express(self, sim: _Simulation, job_id: int, at: int) -> None:
        """An express job starts at ``at``: cancelled before it completes, it runs only until
        its cancellation (an express job is served without a break)."""
        position = sim.index[job_id]
        cancel = self._cancel_at.get(position)
        if cancel is not None and cancel < at + sim.remaining[job_id]:
            sim.remaining[job_id] = sim.held[position] = max(0, cancel - at)
            sim.status[position] = CANCELLED

    # ------------------------------------------------------------------ events
    def process(self, sim: _Simulation) -> None:
        """Apply every event due by ``sim.now`` in time order (at one time: repairs and
        window ends, then failures and window starts, then cancellations); then let the
        started windows take the columns free in every row."""
        now = sim.now
        while True:
            due = self._next_due(now)
            if due is None:
                break
            t, kind, key = due
            sim.matrix.now = t
            if kind == CANCEL:
                self._cancel(sim, key, t)
            elif kind == NOTICE:
                self._notice(sim, key)
            elif key < 0 and kind == OUTAGE:
                self._start_window(sim, -1 - key)
            elif key < 0:
                self._end_window(-1 - key, t)
            elif kind == OUTAGE:
                self._fail(sim, key, t)
            else:
                self._repair(key)
            sim.changed = True
        sim.matrix.now = now
        self.fill(sim)
        sim.matrix.usable = sim.matrix.full & ~(self.down | self.claimed)
        self._record(now)

    def _next_due(self, now: int) -> tuple[int, int, int] | None:
        """The earliest event due by ``now``, taken off its queue: ``(time, kind, key)``."""
        candidates = []
        if self._changes and self._changes[0][0] <= now:
            candidates.append((*self._changes[0], 0))
        if self._failing and self._failing[0][0] <= now:
            t, key = self._failing[0]
            candidates.append((t, OUTAGE, key, 1))
        if self._next_cancel < len(self._cancels) and self._cancels[self._next_cancel][0] <= now:
            t, position = self._cancels[self._next_cancel]
            candidates.append((t, CANCEL, position, 2))
        if not candidates:
            return None
        t, kind, key, source = min(candidates)
        if source == 0:
            heappop(self._changes)
        elif source == 1:
            heappop(self._failing)
        else:
            self._next_cancel += 1
        return t, kind, key

    def _cancel(self, sim: _Simulation, position: int, t: int) -> None:
        """The user of the job at ``position`` cancels it at ``t``."""
        job_id = sim.jobs[position].id
        queue = sim.waiting if job_id in sim.waiting else sim.express
        if job_id in queue:
            del queue[job_id]
            sim.status[position] = WITHDRAWN
            sim.done += 1
            self.queue_out.append(t)
            return
        if job_id not in sim.matrix:
            return                        # ended already (express jobs end by their cancellation)
        if sim.start[position] < 0:
            sim.start[position] = t
        if sim.remaining[job_id]:         # one with nothing left to serve ends as it would
            sim.held[position] -= sim.remaining[job_id]
            sim.status[position] = CANCELLED
        sim.finish(job_id, t, in_matrix=True)

    def _fail(self, sim: _Simulation, key: int, t: int) -> None:
        """Failure ``key`` starts at ``t``: the jobs with a process on its columns end their
        attempts; it takes the columns neither failed nor held by a window."""
        failure = self._failures[key]
        columns = 0
        size = self.node_size
        for node in failure.nodes:
            first, stop = node * size, min((node + 1) * size, self.machine)
            columns |= (1 << stop) - (1 << first)
        matrix = sim.matrix
        hit = [job_id for job_id in matrix.job_ids() if matrix.mask_of(job_id) & columns]
        taken = columns & ~(self.down | self.claimed)
        if not hit and not taken:
            if failure.node >= 0:
                self._draw(failure.node, failure.end)
            return
        for job_id in hit:
            self._end_attempt(sim, job_id, t)
        failure.taken = taken
        self.down |= taken
        for first, stop in column_ranges(taken):
            self._used.append((first, stop, failure.start, failure.end, HELD_BY_FAILURE))
        self._outage_rows.append((KIND_CODES["failure"], failure.start, failure.end,
                                  taken.bit_count()))
        heappush(self._changes, (failure.end, RESTORE, key))
        sim.record_busy(t)

    def _end_attempt(self, sim: _Simulation, job_id: int, t: int) -> None:
        """A failure ended the attempt of the matrix job ``job_id`` at ``t``: it is killed
        (status failed) or queued again by the fate."""
        i = sim.index[job_id]
        served = sim.held[i] - sim.remaining[job_id]
        start = sim.start[i] if sim.start[i] >= 0 else t
        job = sim.matrix.job(job_id)
        again = self.attempts.hit(job, sim.workload.jobs[i], i, start, t, served)
        if again is None:                 # its last attempt: the record takes it at the end
            sim.held[i] = served
            sim.start[i] = start
            sim.status[i] = FAILED
            sim.finish(job_id, t, in_matrix=True)
            return
        name = self.attempts.count_name
        self.stats[name] = self.stats.get(name, 0) + 1
        for first, stop in sim.columns[i]:
            self._used.append((first, stop, sim.placed[i], t, i))
        del sim.remaining[job_id]
        sim.matrix._remove(job_id)
        self.queue_out.append(sim.placed[i])
        self.queue_in.append(t)
        kill = sim.overrun == "kill"
        sim.held[i] = min(again.runtime, again.estimate) if kill else again.runtime
        sim.status[i] = KILLED if kill and again.runtime > again.estimate else FINISHED
        sim.start[i] = sim.placed[i] = -1
        sim.columns[i] = ()
        self.views[i] = again
        queue = sim.express if sim.is_express[i] else sim.waiting
        requeue(queue, again, i, sim.index, self.spec.requeue_order == "arrival")

    def _repair(self, key: int) -> None:
        failure = self._failures[key]
        self.down &= ~failure.taken
        if failure.node >= 0:
            self._draw(failure.node, failure.end)

    def _draw(self, node: int, after: int) -> None:
        model = self.spec.model
        assert model is not None              # drawn failures have a node
        self._add_failure(*model.next_failure(self._rngs[node], after), node, (node,))

    def _node_columns(self, nodes: Sequence[int]) -> int:
        """The columns of ``nodes``, as a mask."""
        mask = 0
        for first, stop in node_processors(nodes, self.node_size, self.machine):
            mask |= ((1 << (stop - first)) - 1) << first
        return mask

    def _notice(self, sim: _Simulation, k: int) -> None:
        """Window ``k`` is announced before its start: its columns are fixed now (a count
        takes :meth:`_unclaimed` ones) and the policy sees them coming."""
        if self.named[k] is None:
            self.named[k] = self._unclaimed(k)
        self._announced.append(k)
        self._heard.append(k)
        self._show_ahead(sim)

    def _unclaimed(self, k: int) -> int:
        """The columns a counted window ``k`` announced now takes, as a mask
        (:func:`~schedlab.engine.outages.fixed_at_notice`)."""
        columns = fixed_at_notice(
            k, self.windows, [*self._announced, *self._claims],
            lambda other: (column for first, stop in column_ranges(self.named[other] or 0)
                           for column in range(first, stop)),
            self.machine, self.windows[k].width(self.machine, self.node_size))
        return sum(1 << column for column in columns)

    def _show_ahead(self, sim: _Simulation) -> None:
        """``Matrix.windows_ahead``: the announced windows not started, by start."""
        sim.matrix.windows_ahead = sorted(
            (self.named[k] or 0, self.windows[k].start, self.windows[k].end)
            for k in self._announced)

    def _start_window(self, sim: _Simulation, k: int) -> None:
        window = self.windows[k]
        among = self.named[k]
        if k in self._announced:
            self._announced.remove(k)
            self._show_ahead(sim)
        wanted = window.width(self.machine, self.node_size)
        self._claims[k] = _Claim(window, wanted, (1 << self.machine) - 1 if among is None
                                 else among)
        heappush(self._changes, (window.end, RESTORE, -1 - k))

    def _end_window(self, k: int, t: int) -> None:
        claim = self._claims.pop(k)
        self._close(claim, t)
        for mask, _ in claim.taken:
            self.claimed &= ~mask

    def _close(self, claim: _Claim, t: int) -> None:
        """Log a window's columns until ``t`` and its row of the record."""
        window = claim.window
        for mask, taken_at in claim.taken:
            for first, stop in column_ranges(mask):
                self._used.append((first, stop, taken_at, t, HELD_BY_WINDOW))
        self._outage_rows.append((KIND_CODES[window.kind], window.start, window.end,
                                  claim.held))

    def fill(self, sim: _Simulation) -> None:
        """Give the started windows still short of their count the columns free in every
        row (the lowest-numbered first; of their nodes, when they name nodes), in the order
        they started."""
        if not self._claims:
            return
        matrix = sim.matrix
        for claim in self._claims.values():
            wanted = claim.wanted - claim.held
            if wanted <= 0:
                continue
            free = claim.among & ~(self.down | self.claimed | matrix.allocated()
                                   | sim.short_mask)
            take = lowest_bits(free, min(wanted, free.bit_count()))
            if take:
                claim.taken.append((take, sim.now))
                claim.held += take.bit_count()
                self.claimed |= take
        matrix.usable = matrix.full & ~(self.down | self.claimed)
        self._record(sim.now)

    # ------------------------------------------------------------------ the record
    def _record(self, now: int) -> None:
        self._down_series.record(now, (self.down | self.claimed).bit_count())

    def finish_run(self, sim: _Simulation) -> None:
        """The run has ended: count the checkpoint overhead of every last attempt."""
        status = sim.status
        for i, end in enumerate(sim.end):
            if end >= 0 and status[i] in (FINISHED, KILLED):
                self.attempts.finished(i, sim.held[i])

    def record(self, sim: _Simulation) -> OutageRecord:
        """The run's :class:`OutageRecord` (windows still open at the end of the run are
        closed there); a job holds its columns from its placement to its end."""
        for claim in self._claims.values():
            self._close(claim, sim.now)
        used = list(self._used)
        for i, end in enumerate(sim.end):
            if end >= 0 and sim.placed[i] >= 0:
                used += [(first, stop, sim.placed[i], end, i) for first, stop in sim.columns[i]]
        return OutageRecord(
            outages=np.array(self._outage_rows, dtype=np.int64).reshape(-1, 4),
            attempts=self.attempts.ended_array(),
            final_runtime=self.attempts.final_runtime,
            final_estimate=self.attempts.final_estimate,
            overhead=self.attempts.overhead,
            intervals=np.array(used, dtype=np.int64).reshape(-1, 5),
            series_time=self._down_series.arrays()[0],
            series_down=self._down_series.arrays()[1][:, 0].copy(),
            settings=outage_settings(self.spec, self.windows),
            attempt_progress=np.array(self.attempts.progress, dtype=np.int64),
            notices=self._notices())

    def _notices(self) -> np.ndarray | None:
        """:attr:`OutageRecord.notices`: the columns of the windows announced before their
        start, one row per range (None: none was)."""
        if not self._heard:
            return None
        rows = [(first, stop, self.windows[k].notice, self.windows[k].start,
                 self.windows[k].end)
                for k in self._heard for first, stop in column_ranges(self.named[k] or 0)]
        return np.array(rows, dtype=np.int64).reshape(-1, 5)
