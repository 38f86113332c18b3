"""The view of the machine a policy gets, and the only way it can act.

Every action is validated at once: starting a job that does not fit, starting
a job twice, starting, rejecting or promising a start to a job that is not
waiting, resuming a job that is not suspended, waking up or promising a start
in the past, granting a reservation that does not fit around the running jobs
and the reservations already granted.  A violation is a bug in the policy and
raises :class:`~schedlab.errors.PolicyError` naming the policy, the job (or
reservation) and the time.
"""

from __future__ import annotations

import math
from array import array
from bisect import insort
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from heapq import heappop, heappush
from numbers import Integral
from typing import TYPE_CHECKING, Any

from schedlab.engine.attempts import requeue
from schedlab.engine.kernel import (
    CANCEL,
    CORRECT,
    FINISH,
    NOTICE,
    RELEASE,
    REQUEST,
    RESERVATION_END,
    RESERVATION_START,
    RESTORE,
    WAKE,
    job_positions,
)
from schedlab.engine.profile import Profile
from schedlab.engine.result import CANCELLED, FAILED, FINISHED, KILLED, REJECTED, WITHDRAWN
from schedlab.errors import PolicyError

if TYPE_CHECKING:
    from schedlab.engine.outages import OutageEvent, Outages
    from schedlab.engine.policy import RuntimePlanner
    from schedlab.workload.job import Job
    from schedlab.workload.reservations import Reservation

#: Removals from ``waiting`` before it is compacted, at least (Context._compact_waiting).
MIN_COMPACT_AFTER = 1024


def with_estimate(job: Job, estimate: int) -> Job:
    """``job`` with another ``estimate``: ``job._replace(estimate=...)`` built directly from
    the tuple, a few times faster (a view is made for every planned job)."""
    fields = list(job)
    fields[3] = estimate
    return tuple.__new__(type(job), fields)


def _as_submitted(job: Job, position: int) -> Job:
    """The job as the policy sees it without a runtime planner: itself."""
    return job


class Context:
    """State of the machine at ``now`` plus the actions a policy may take.

    Read-only views (policies must not mutate them):

    * ``waiting`` — waiting jobs by id, in arrival order.
    * ``running`` — running jobs by id.
    * ``suspended`` — suspended jobs by id (gang scheduling).
    * ``free`` — processors free right now; ``processors`` — machine size.
    * ``tick`` — the run's scheduling tick: the policy is called, and jobs
      start, only at its multiples; 0 when it is called at every event.
    * ``reserved`` — processors held right now by advance reservations
      (never free for jobs, not counted in ``free``).
    * ``reservations_enabled`` — whether the run takes reservation requests
      at all (policies keep their plain path without).
    * ``pending_requests`` — reservation requests delivered to the policy
      and not yet granted or refused, by id, in arrival order.
    """

    def __init__(self, processors: int, policy_name: str, overrun: str,
                 jobs: Sequence[Job] = (), *, tick: int = 0) -> None:
        """A machine of ``processors`` at time 0 with nothing running, for a run of ``jobs``.

        ``jobs`` are the workload's jobs in workload order; the results are
        kept by position in it, so their ids must be unique.  ``tick`` is the
        run's scheduling tick (0: none).
        """
        self.processors = processors
        self.free = processors
        self.now = 0
        self.tick = tick
        #: Whether nothing but corrections of planned runtimes happened since the last
        #: scheduling pass, so the machine and the queue are as that pass left them but
        #: for the corrected expected ends: set for the corrections of an instant by the
        #: engine's plain loop in a run that may skip passes (``Policy.idle_after_corrections``),
        #: False wherever it is not known; meaningful in ``Policy.on_correction`` only.
        self.corrections_only = False
        self.policy_name = policy_name
        self.overrun = overrun
        #: Seconds a job may run past its estimate before it is killed (``Policy.kill_grace``).
        self.kill_grace = 0
        self.waiting: dict[int, Job] = {}
        self._left_waiting = 0          # jobs taken out of ``waiting`` since it was compacted
        self._compact_after = MIN_COMPACT_AFTER
        self.running: dict[int, Job] = {}
        self.suspended: dict[int, Job] = {}
        self.stats: dict[str, Any] = {}
        # Engine-owned bookkeeping, indexed by the job's position in the workload; the
        # per-job times as 64-bit arrays, 8 bytes each (a list holds an int object of
        # about 28 bytes for every time above 256).
        n = len(jobs)
        self._index = job_positions(jobs)
        self._start = array("q", [-1]) * n
        self._end = array("q", [-1]) * n
        self._status = array("b", [FINISHED]) * n
        self._planned = array("q", [-1]) * n
        self._suspended_for = array("q", [0]) * n
        self._remaining: dict[int, int] = {}
        self._suspended_at: dict[int, int] = {}
        self._expected_end: dict[int, int] = {}
        self._finish_at: dict[int, int] = {}
        self._by_end: list[tuple[int, int, int]] = []   # (expected end, job id, width), sorted
        self._events: list[tuple[int, int, int, int]] = []  # (time, kind, job id or -1, version)
        self._version: dict[int, int] = {}
        self._reject_reasons: dict[int, str] = {}
        self._done = 0                  # jobs finished or rejected so far
        # Advance reservations (Margo et al.): requests by position, their fate,
        # the granted ones not started yet, and the reserved-processor series.
        self.reserved = 0
        self.reservations_enabled = False
        self.pending_requests: dict[int, Reservation] = {}
        self._requests: tuple[Reservation, ...] | None = None   # None: no requests given
        self._request_index: dict[int, int] = {}
        self._granted_start: list[int] = []
        self._refusal: list[str | None] = []
        self._future: dict[int, tuple[int, int, int]] = {}   # id -> (start, duration, width)
        self._granted: list[tuple[int, int, int]] = []       # every grant: (start, duration, width)
        self._reserved_time: list[int] = []
        self._reserved_nodes: list[int] = []
        # Planned runtimes (RuntimePlanner): the jobs as submitted, by position (their
        # estimates are the kill times), each job's first and last planned runtime and its
        # corrections; None when the policy plans with the estimates.
        self._planner: RuntimePlanner | None = None
        self._jobs: Sequence[Job] = jobs
        self._first_plan: array[int] | None = None
        self._last_plan: array[int] | None = None
        self._corrections: array[int] | None = None
        #: A per-user planner's news of a finish (``RuntimePlanner``'s ``per_user``):
        #: called by :meth:`_finish` in place of ``planner.ended``; None without.
        self._observe_user: Callable[[int, int], None] | None = None
        #: A submitted job, at its position in the workload, as the policy sees it: the job
        #: itself without a planner (:meth:`_planned_view_of` with one).
        self._planned_view: Callable[[Job, int], Job] = _as_submitted
        #: Whether some job is cancelled by its user (``Job.cancel_after``).
        self.cancellations = any(job.cancel_after is not None for job in jobs)
        # Failures, maintenance windows and drains (docs/reference/events.md): None without.
        self._outages: Outages | None = None
        self._submitted_jobs: Sequence[Job] = jobs
        self._attempt_jobs: list[Job] = []

    def enable_outages(self, outages: Outages) -> None:
        """Take the failures and windows of ``outages``: the engine keeps which processor
        holds what and puts their events on the heap.  With windows, policies take the
        careful path of runs whose processors are held at planned times
        (``reservations_enabled``); a failure's processors are among the releases, back
        at its repair, as a running job's."""
        self._outages = outages
        self.reservations_enabled = self.reservations_enabled or bool(outages.windows)
        # Each job's current attempt, by position: its first until a failure ends it.
        self._attempt_jobs = outages.first_attempts(self._submitted_jobs)
        self._jobs = self._attempt_jobs
        outages.begin(self)

    def plan_runtimes_with(self, planner: RuntimePlanner) -> None:
        """Let ``planner`` give the runtimes the policy sees and expected ends follow
        (:class:`~schedlab.engine.policy.RuntimePlanner`); jobs are still killed at their
        estimates."""
        n = len(self._jobs)
        self._planner = planner
        self._first_plan = array("q", [-1]) * n
        self._last_plan = array("q", [-1]) * n
        self._corrections = array("q", [0]) * n
        planner.begin(self._submitted_jobs)
        self._planned_view = self._planned_view_of(planner)
        per_user = getattr(planner, "per_user", None)
        self._observe_user = None if per_user is None else per_user[1]

    def _planned_view_of(self, planner: RuntimePlanner) -> Callable[[Job, int], Job]:
        """``_planned_view`` with ``planner``: a submitted job as the policy sees it, its
        planned runtime in place of its estimate, first and last plan recorded.  One
        closure over the arrays it writes, called for every submitted job; with a
        per-user planner (``RuntimePlanner``'s ``per_user``) it asks the predictor
        directly, one call fewer than through ``planner.planned``."""
        planned_of = planner.planned
        per_user = getattr(planner, "per_user", None)
        first, last = self._first_plan, self._last_plan
        assert first is not None and last is not None      # made with the planner
        policy_name = self.policy_name

        def below_one(job: Job, planned: int) -> None:
            raise PolicyError(f"the runtime planner of policy {policy_name!r} planned job "
                              f"{job.id} to run {planned} s; a planned runtime is >= 1")

        def planned_view(job: Job, i: int) -> Job:
            planned = int(planned_of(job))
            if planned < 1:
                below_one(job, planned)
            first[i] = last[i] = planned
            return job if planned == job.estimate else with_estimate(job, planned)

        def per_user_view(job: Job, i: int) -> Job:
            planned = int(predict_user(job.user, job.estimate))
            if planned < 1:
                below_one(job, planned)
            first[i] = last[i] = planned
            return job if planned == job.estimate else with_estimate(job, planned)

        if per_user is None:
            return planned_view
        predict_user = per_user[0]
        return per_user_view

    def enable_reservations(self, requests: tuple[Reservation, ...]) -> None:
        """Take advance-reservation ``requests`` (sorted by creation).

        Each request is put on the event heap at its creation time; its fate
        (granted start or refusal) is kept by its position in ``requests``.
        """
        self._requests = requests
        self._request_index = {r.id: i for i, r in enumerate(requests)}
        self._granted_start = [-1] * len(requests)
        self._refusal = [None] * len(requests)
        self.reservations_enabled = True
        for position, request in enumerate(requests):
            heappush(self._events, (request.created, REQUEST, position, 0))

    # ------------------------------------------------------------------ views
    @property
    def ends_as_expected(self) -> bool:
        """Whether every running job frees its processors by its expected end: jobs are
        killed at their estimates and planned with them (no runtime planner).  Otherwise a
        job can outlive its expected end (``overrun="extend"``, a kill grace, or a planned
        runtime it outlives) and a plan made from expected ends may need repair; so can a
        run with failures or windows."""
        return (self.overrun == "kill" and self._planner is None and not self.kill_grace
                and self._outages is None)

    @property
    def has_holds(self) -> bool:
        """Whether processors are held now or later by something other than jobs: advance
        reservations, failed processors, maintenance windows (:meth:`profile` has them)."""
        outages = self._outages
        return bool(self._future or self.reserved or (
            outages is not None and (outages.down or outages.claiming)))

    @property
    def windows_claiming(self) -> bool:
        """Whether a maintenance window or drain is announced or still taking processors:
        :meth:`profile` clips its claim out of the free processors, so a plan that held
        other processors meanwhile is not simply the old plan less them."""
        return self._outages is not None and self._outages.claiming

    def expected_end(self, job: Job) -> int:
        """When a running job is expected to free its processors (by its estimate).

        A job already past its estimate (under ``overrun="extend"`` or within a kill
        grace) is expected to end at ``now + 1``: nothing is known beyond "soon".
        """
        end = self._expected_end[job.id]
        return end if end > self.now else self.now + 1

    def releases(self) -> Iterator[tuple[int, int]]:
        """``(expected end, width)`` of every running job, earliest end first.

        Reservations that hold processors now are listed too, with their end:
        like a running job, they give their processors back then.
        A generator: EASY's shadow-time search usually stops after a few jobs.
        """
        now = self.now
        for end, _, width in self._by_end:
            yield (end if end > now else now + 1), width

    def profile(self) -> Profile:
        """A fresh availability profile from ``now``: running jobs until their expected ends.

        Granted reservations are in it: those holding processors until their
        end, those still to come on their whole interval.
        """
        if not self._future:
            profile = Profile.from_releases(self.processors, self.now, self.releases())
        else:
            changes = list(self.releases())
            for start, duration, width in self._future.values():
                changes += ((start, -width), (start + duration, width))
            try:
                profile = Profile.from_changes(self.processors, self.now, self.free, changes)
            except ValueError as err:
                raise PolicyError(f"policy {self.policy_name!r} has jobs running into a "
                                  f"granted reservation at time {self.now}: {err}") from None
        if self._outages is not None:
            self._outages.clip(profile)
        return profile

    def next_reservation_start(self) -> int | None:
        """The earliest start of a granted reservation still to come, or of a maintenance
        window or drain announced or still taking processors (now); None: there is none."""
        first = min((start for start, _, _ in self._future.values()), default=None)
        if self._outages is None or not self._outages.claiming:
            return first
        claim = self._outages.next_claim(self.now)
        return claim if first is None or (claim is not None and claim < first) else first

    def granted_reservations(self) -> list[tuple[int, int, int]]:
        """``(start, duration, width)`` of every reservation granted so far, past ones too."""
        return list(self._granted)

    def planned_start(self, job: Job) -> int:
        """The first start time promised to ``job`` by :meth:`plan`, or -1."""
        return self._planned[self._index[job.id]]

    # ---------------------------------------------------------------- actions
    def start(self, job: Job) -> None:
        """Start a waiting job now on ``job.width`` free processors."""
        job_id, width = job.id, job.width
        if job_id not in self.waiting:
            self._fail(job, "start", "it is not waiting")
        if width > self.free:
            self._fail(job, "start", f"it needs {width} processors and only {self.free} are free")
        del self.waiting[job_id]
        self._left_waiting += 1
        if self._left_waiting >= self._compact_after:
            self._compact_waiting()
        self.free -= width
        now = self.now
        i = self._index[job_id]
        self._start[i] = now
        runtime, planned = job.runtime, job.estimate
        estimate = (planned if self._planner is None else self._jobs[i].estimate) \
            + self.kill_grace
        held = runtime if runtime <= estimate or self.overrun == "extend" else estimate
        outages = self._outages
        if outages is not None:               # the processor map's journal: a take
            note = outages.note
            note(i)
            note(now)
        self._run(job, now + held, now + planned)

    def _compact_waiting(self) -> None:
        """Rebuild ``waiting`` in place, in the same order, without the holes of removed jobs.

        A Python dict keeps a hole for every deleted entry until it grows, and
        iteration (the head of the queue: ``next(iter(waiting.values()))``)
        walks over them: with thousands of waiting jobs the holes in front of
        the queue cost FCFS more than the job itself.  Compacting after
        about 8 x sqrt(queue) removals balances the walk against the rebuild
        (bench/SCALING.md).  Order and contents stay as they were.
        """
        jobs = list(self.waiting.items())
        self.waiting.clear()
        self.waiting.update(jobs)
        self._left_waiting = 0
        self._compact_after = max(MIN_COMPACT_AFTER, 8 * math.isqrt(len(jobs)))

    def reject(self, job: Job, reason: str) -> None:
        """Refuse a waiting job (admission control); it never runs."""
        if job.id not in self.waiting:
            self._fail(job, "reject", "it is not waiting")
        del self.waiting[job.id]
        self._left_waiting += 1
        if self._left_waiting >= self._compact_after:
            self._compact_waiting()
        self._status[self._index[job.id]] = REJECTED
        self._reject_reasons[job.id] = reason
        self._done += 1

    def suspend(self, job: Job) -> None:
        """Stop a running job, keeping the work it has done (gang scheduling)."""
        if job.id not in self.running:
            self._fail(job, "suspend", "it is not running")
        end = self._stop_running(job)
        self._remaining[job.id] = end - self.now
        self._suspended_at[job.id] = self.now
        self.suspended[job.id] = job
        self._version[job.id] += 1     # the pending finish event becomes stale

    def resume(self, job: Job) -> None:
        """Run a suspended job again for the work it still has to do, on processors it takes
        anew (in a run with outages, the processor map's, as :meth:`start` does)."""
        if job.id not in self.suspended:
            self._fail(job, "resume", "it is not suspended")
        if job.width > self.free:
            self._fail(job, "resume", f"it needs {job.width} processors and only {self.free} are free")
        del self.suspended[job.id]
        self.free -= job.width
        i = self._index[job.id]
        self._suspended_for[i] += self.now - self._suspended_at.pop(job.id)
        remaining = self._remaining.pop(job.id)
        expected_shift = self._suspended_for[i]
        if self._outages is not None:
            self._outages.note(i)
            self._outages.note(self.now)
        self._run(job, self.now + remaining, self._start[i] + expected_shift + job.estimate)

    def wake_at(self, t: int) -> None:
        """Ask for a scheduling pass at time ``t`` (> now) even if nothing happens then."""
        if t <= self.now:
            raise PolicyError(f"policy {self.policy_name!r} asked to wake at {t}, "
                              f"which is not after now ({self.now})")
        heappush(self._events, (t, WAKE, -1, 0))

    def plan(self, job: Job, t: int) -> None:
        """Promise a waiting job a start at ``t`` (an int >= now); the first promise is kept.

        ``t`` need not be a multiple of the tick: it is when the policy's
        plan starts the job, which with a tick happens at the first tick at
        or after it (docs/how-to/writing-a-policy.md).
        """
        if job.id not in self.waiting:
            self._fail(job, "plan", "it is not waiting")
        if type(t) is not int and (not isinstance(t, Integral) or isinstance(t, bool)):
            self._fail(job, "plan", f"the promised start {t!r} is not a whole number of seconds")
        if t < self.now:
            self._fail(job, "plan", f"the promised start {t} is in the past")
        i = self._index[job.id]
        if self._planned[i] < 0:
            self._planned[i] = int(t)

    def grant(self, request: Reservation, start: int) -> None:
        """Grant a pending reservation request from ``start`` (>= now) for its duration.

        The reservation must fit around the running jobs (until their
        expected ends) and every reservation already granted.  From ``start``
        the engine holds ``request.width`` processors for ``request.duration``
        seconds; a reservation starting now takes them at once.
        """
        if request.id not in self.pending_requests:
            self._fail_request(request, "grant", "it is not pending")
        if start < self.now:
            self._fail_request(request, "grant", f"its start {start} is in the past")
        try:
            self.profile().reserve(start, request.duration, request.width)
        except ValueError as err:
            self._fail_request(request, "grant", f"it does not fit from {start}: {err}")
        del self.pending_requests[request.id]
        self._granted_start[self._request_index[request.id]] = start
        self._granted.append((start, request.duration, request.width))
        if start == self.now:
            self._hold_reservation(request.id, start + request.duration, request.width)
        else:
            self._future[request.id] = (start, request.duration, request.width)
            heappush(self._events, (start, RESERVATION_START, request.id, 0))

    def refuse(self, request: Reservation, reason: str) -> None:
        """Reject a pending reservation request; ``reason`` is counted in the metrics."""
        if request.id not in self.pending_requests:
            self._fail_request(request, "refuse", "it is not pending")
        del self.pending_requests[request.id]
        self._refusal[self._request_index[request.id]] = reason

    def note(self, name: str, value: Any) -> None:
        """Set a policy statistic reported with the result."""
        self.stats[name] = value

    def count(self, name: str, by: int = 1) -> None:
        """Add ``by`` to a counting policy statistic."""
        self.stats[name] = self.stats.get(name, 0) + by

    # --------------------------------------------------------------- internal
    def _run(self, job: Job, end: int, expected_end: int) -> None:
        job_id = job.id
        self.running[job_id] = job
        self._expected_end[job_id] = expected_end
        self._finish_at[job_id] = end
        insort(self._by_end, (expected_end, job_id, job.width))
        version = self._version.setdefault(job_id, 0)
        heappush(self._events, (end, FINISH, job_id, version))
        if expected_end < end and self._planner is not None:    # it outlives its plan
            heappush(self._events, (expected_end, CORRECT, job_id, version))

    def _enter(self, job: Job) -> Job | None:
        """A submitted job enters the queue: as the policy sees it
        (``_planned_view``), its cancellation put on the heap; None for a job its
        user has cancelled already (at its submission, or while a queue limit held it
        back): withdrawn before any policy sees it."""
        after = job.cancel_after
        if after is not None:
            cancel_at = job.submit + after
            if cancel_at <= self.now:
                self._withdraw(job)
                if self._outages is not None:
                    self._outages.never_entered(job, self._index[job.id])
                return None
            heappush(self._events, (cancel_at, CANCEL, job.id, 0))
        i = self._index[job.id]
        if self._outages is not None:
            job = self._attempt_jobs[i]     # its first attempt
        return self._planned_view(job, i)

    def _withdraw(self, job: Job) -> None:
        """Record a job cancelled while it waited: it never runs."""
        self._status[self._index[job.id]] = WITHDRAWN
        self._done += 1

    def _cancel(self, job_id: int) -> tuple[bool, Job] | None:
        """A user cancels a job now (docs/reference/events.md): one waiting leaves the
        queue (withdrawn), one running leaves the machine (cancelled, its end now).
        Returns ``(was running, job)``, None when the job has already ended."""
        job = self.waiting.get(job_id)
        if job is not None:
            del self.waiting[job_id]
            self._left_waiting += 1
            if self._left_waiting >= self._compact_after:
                self._compact_waiting()
            self._withdraw(job)
            return False, job
        job = self.running.get(job_id)
        if job is None:
            return None
        self._version[job_id] += 1     # its finish and correction events become stale
        self._stop_running(job)
        i = self._index[job_id]
        self._end[i] = self.now
        self._status[i] = CANCELLED
        self._done += 1
        if self._planner is not None:
            self._planner.ended(self._jobs[i], self._start[i], self.now, CANCELLED)
        return True, job

    def _corrector(self, on_correction: Callable[[Context, Job, int], None] | None
                   ) -> Callable[[], None]:
        """The maker of an instant's corrections for the run's loop, made once when the loop
        begins (its structures and ``on_correction`` looked up then, not per instant).

        Called when the first event on the heap is a correction due now, it makes
        every correction due now: each running job that reached its planned end and
        still runs is planned again (:meth:`RuntimePlanner.corrected`), its expected
        end moved, and ``on_correction`` told (the job as the policy now sees it, its
        previous expected end) before the next is made; a stale event (the job ended
        or was suspended) is dropped.  One call for the instant's corrections (12,841
        on KTH-SP2 with ``easy++``): the engine's loops make no call of their own per
        correction.  A correction may put the job's next one on the heap; it is later
        than now, so the instant's corrections end with those already there.
        """
        planner, last_plan, corrections = self._planner, self._last_plan, self._corrections
        assert planner is not None and last_plan is not None and corrections is not None
        events, running, version_of, index = self._events, self.running, self._version, self._index
        started, suspended_for, submitted = self._start, self._suspended_for, self._jobs
        expected_ends, finish_at, by_end = self._expected_end, self._finish_at, self._by_end
        corrected_by, kill_grace, policy_name = planner.corrected, self.kill_grace, self.policy_name

        def correct_due() -> None:
            now = self.now
            while events:
                head = events[0]
                if head[0] != now or head[1] != CORRECT:
                    return
                heappop(events)
                job_id = head[2]
                job = running.get(job_id)
                if job is None or version_of[job_id] != head[3]:
                    continue
                i = index[job_id]
                start = started[i] + suspended_for[i]
                elapsed = now - start
                as_submitted = submitted[i]
                estimate = as_submitted.estimate
                planned = int(corrected_by(as_submitted, job.estimate, elapsed))
                if planned <= elapsed:
                    raise PolicyError(f"the runtime planner of policy {policy_name!r} "
                                      f"corrected job {job_id} to {planned} s after it ran "
                                      f"{elapsed} s; a correction must be later than now")
                # Planned at its estimate (the usual correction): the job as submitted is
                # the view.
                view = as_submitted if planned == estimate else with_estimate(job, planned)
                running[job_id] = view
                width = job.width
                previous_end = expected_ends[job_id]
                # A scan from the front finds its entry in a step or two: it was to end
                # now, and only jobs past their estimates (overrun="extend") are listed
                # as ending earlier.
                by_end.remove((previous_end, job_id, width))
                expected_end = start + planned
                expected_ends[job_id] = expected_end
                insort(by_end, (expected_end, job_id, width))
                last_plan[i] = planned
                corrections[i] += 1
                # Another correction when it outlives this plan too, before its end and
                # its estimate; past its estimate (overrun="extend") it is expected "soon",
                # now + 1, at every look, as without a planner (expected_end).
                if (expected_end < finish_at[job_id]
                        and expected_end < start + estimate + kill_grace):
                    heappush(events, (expected_end, CORRECT, job_id, head[3]))
                if on_correction is not None:
                    on_correction(self, view, previous_end)

        return correct_due

    def _finish(self, job_id: int) -> Job:
        """A running job's finish event has come: free its processors, record its end
        (killed if it held them less than its runtime) and return it."""
        job = self.running[job_id]
        self._stop_running(job)
        i = self._index[job_id]
        now = self.now
        self._end[i] = now
        if now - self._start[i] - self._suspended_for[i] < job.runtime:
            self._status[i] = KILLED
        self._done += 1
        if self._planner is not None:
            observe_user = self._observe_user
            if observe_user is None:
                self._planner.ended(self._jobs[i], self._start[i], now, self._status[i])
            elif job.user != -1:              # unknown user (SWF -1): no one's history
                observe_user(job.user, now - self._start[i])
        return job

    def _stop_running(self, job: Job) -> int:
        """Take a job off the processors; returns its scheduled end."""
        job_id, width = job.id, job.width
        del self.running[job_id]
        self.free += width
        self._by_end.remove((self._expected_end.pop(job_id), job_id, width))
        outages = self._outages
        if outages is not None:               # the processor map's journal: a give-back
            note = outages.note
            note(~self._index[job_id])
            note(self.now)
            if outages.fills:
                outages.fill(self)
        return self._finish_at.pop(job_id)

    # ------------------------------------------------------------ failures and windows
    def _outage_event(self, kind: int, key: int
                      ) -> tuple[OutageEvent, list[Job], list[Job]] | None:
        """A failure, repair or window event has come (docs/reference/events.md): returns
        what the policy hears, the running jobs whose attempt a failure ended, and those
        of them queued again (as the policy now sees them); None when nothing happened (a
        failure of nodes already out of service)."""
        outages = self._outages
        assert outages is not None                # these events come only with outages
        if kind == NOTICE:
            return outages.notice(self, key), [], []
        if kind == RESTORE:
            return outages.restore(self, key), [], []
        return outages.outage(self, key)

    def _jobs_at(self, positions: Sequence[int]) -> list[Job]:
        """The running jobs at these workload positions, as the policy sees them."""
        return [self.running[self._jobs[i].id] for i in positions]

    def _end_attempt(self, job: Job) -> Job | None:
        """A failure ended the running ``job``'s attempt now: killed (status ``failed``;
        None), or queued again by the run's fate (the job as the policy now sees it)."""
        outages = self._outages
        assert outages is not None
        job_id = job.id
        i = self._index[job_id]
        self._version[job_id] += 1     # its finish and correction events become stale
        self._stop_running(job)
        again = outages.hit(self, job, self._submitted_jobs[i])
        if again is None:
            self._end[i] = self.now
            self._status[i] = FAILED
            self._done += 1
            if self._planner is not None:
                self._planner.ended(self._jobs[i], self._start[i], self.now, FAILED)
            return None
        self._start[i] = -1
        self._attempt_jobs[i] = again
        first_plan = self._first_plan[i] if self._first_plan is not None else -1
        view = self._planned_view(again, i)
        if self._first_plan is not None:
            self._first_plan[i] = first_plan
        self._requeue(view, i, outages.spec.requeue_order == "arrival")
        return view

    def _requeue(self, job: Job, position: int, by_arrival: bool) -> None:
        """Put a job back in ``waiting`` (:func:`~schedlab.engine.attempts.requeue`); a queue
        rebuilt in arrival order has no holes left to compact."""
        requeue(self.waiting, job, position, self._index, by_arrival)
        if by_arrival:
            self._left_waiting = 0

    def _deliver_request(self, position: int) -> Reservation:
        """Make the request at ``position`` pending; the policy must decide it this pass."""
        assert self._requests is not None       # requests come only once enabled
        request = self._requests[position]
        self.pending_requests[request.id] = request
        return request

    def _hold_reservation(self, request_id: int, end: int, width: int) -> None:
        """Take a reservation's processors now, until ``end``."""
        if width > self.free:
            raise PolicyError(f"policy {self.policy_name!r}: reservation {request_id} starts at "
                              f"{self.now} and needs {width} processors, but only {self.free} "
                              f"are free")
        self.free -= width
        self.reserved += width
        insort(self._by_end, (end, -1 - request_id, width))
        heappush(self._events, (end, RESERVATION_END, request_id, 0))
        self._record_reserved()

    def _start_reservation(self, request_id: int) -> None:
        """A granted reservation's start has come: it takes its processors."""
        start, duration, width = self._future.pop(request_id)
        self._hold_reservation(request_id, start + duration, width)

    def _end_reservation(self, request_id: int) -> None:
        """A reservation's end has come: its processors are free again."""
        i = self._request_index[request_id]
        assert self._requests is not None       # reservations come only once enabled
        request = self._requests[i]
        end = self._granted_start[i] + request.duration
        self._by_end.remove((end, -1 - request_id, request.width))
        self.free += request.width
        self.reserved -= request.width
        self._record_reserved()

    def _record_reserved(self) -> None:
        """Append the reserved processors at ``now`` to their series (one entry per instant)."""
        if self._reserved_time and self._reserved_time[-1] == self.now:
            self._reserved_nodes[-1] = self.reserved
        else:
            self._reserved_time.append(self.now)
            self._reserved_nodes.append(self.reserved)

    def _fail_request(self, request: Reservation, action: str, why: str) -> None:
        raise PolicyError(f"policy {self.policy_name!r} tried to {action} reservation request "
                          f"{request.id} at time {self.now}, but {why}")

    def _fail(self, job: Job, action: str, why: str) -> None:
        raise PolicyError(f"policy {self.policy_name!r} tried to {action} job {job.id} "
                          f"at time {self.now}, but {why}")


class QueueLimitContext(Context):
    """The context of a run with a per-user limit of queued jobs (DataStar: 6, Margo et al., §6).

    A user may have at most ``limit`` jobs waiting; the engine holds back the
    others (:meth:`_enter_queue`) and lets the next one in, in submit order,
    whenever one of the user's waiting jobs starts or is rejected.  Jobs of
    an unknown user (user id < 0) are never held.  A subclass, so that runs
    without a limit pay nothing for it.
    """

    def __init__(self, processors: int, policy_name: str, overrun: str, jobs: Sequence[Job],
                 limit: int, *, tick: int = 0) -> None:
        super().__init__(processors, policy_name, overrun, jobs, tick=tick)
        self._queue_limit = limit
        self._user_queued: dict[int, int] = {}
        self._held: dict[int, deque[Job]] = {}
        # When each job (by position) entered the queue: its submit unless it is held.
        self._queued: list[int] = [job.submit for job in jobs]

    def start(self, job: Job) -> None:
        super().start(job)
        self._left_queue(job)

    def reject(self, job: Job, reason: str) -> None:
        super().reject(job, reason)
        self._left_queue(job)

    def _enter_queue(self, job: Job) -> bool:
        """Count a submitted job against its user's queue limit; False if it must be held.

        Jobs of an unknown user (user id < 0) are never held.
        """
        user = job.user
        if user < 0:
            return True
        queued = self._user_queued.get(user, 0)
        if queued >= self._queue_limit:
            self._held.setdefault(user, deque()).append(job)
            return False
        self._user_queued[user] = queued + 1
        return True

    def _withdraw(self, job: Job) -> None:
        super()._withdraw(job)
        self._left_queue(job)

    def _requeue(self, job: Job, position: int, by_arrival: bool) -> None:
        """A job a failure ended is queued again at once, counted against its user's limit
        but never held back (our reading: it was admitted to the queue already)."""
        super()._requeue(job, position, by_arrival)
        if job.user >= 0:
            self._user_queued[job.user] = self._user_queued.get(job.user, 0) + 1

    def _left_queue(self, job: Job) -> None:
        """A job left the queue (started or rejected): release its user's next held job."""
        user = job.user
        if user < 0:
            return
        self._user_queued[user] -= 1
        if self._held.get(user):
            heappush(self._events, (self.now, RELEASE, user, 0))

    def _release_held(self, user: int) -> Job | None:
        """The user's next held job, now queued (None if the slot is taken already)."""
        held = self._held.get(user)
        if not held or self._user_queued[user] >= self._queue_limit:
            return None
        job = held.popleft()
        self._user_queued[user] += 1
        self._queued[self._index[job.id]] = self.now
        return job
