"""The space-sharing event loop: jobs on the free processors of one homogeneous machine.

Same-time order (docs/reference/engine.md): at each distinct instant the engine
processes every job finish, then every reservation end and start, then every
submission, then jobs released from a per-user queue limit, reservation
requests and wake-ups, and only then calls the policy's ``schedule`` once.  A
job that starts and ends at the same instant (zero runtime) produces a second
batch at that instant.  With a ``tick`` (Catalina's scheduling iteration,
Margo et al., §3) the policy hears of the events and schedules only at
multiples of the tick, and ticks stop once nothing is left to happen.

The loop is the hot path: submissions are read from the sorted workload by an
index instead of going through the heap, and the series are appended only
when they change.  A run without reservations, ticks or queue limit takes a
loop without the checks they need (:func:`_plain_loop`).  Both loops yield the
instant of each scheduling pass to their caller (:class:`Simulation`):
:func:`run` makes every pass with the policy's ``schedule``, a learning agent
of :mod:`schedlab.gym` with its own choices.  What surrounds the
loop (input checks, the series, progress, the result) is the kernel's
(:mod:`schedlab.engine.kernel`), shared with the time-sharing and grid engines.
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.engine.context import Context, QueueLimitContext
from schedlab.engine.kernel import (
    CANCEL,
    CORRECT,
    FINISH,
    NEVER,
    NOTICE,
    OUTAGE,
    OVERRUN_MODES,
    RELEASE,
    REQUEST,
    RESERVATION_END,
    RESERVATION_START,
    RESTORE,
    WAKE,
    Progress,
    ProgressCallback,
    StepSeries,
    assemble,
    check_machine,
    check_one_of,
    claim,
    cyclic_gc_paused,
    deadline_columns,
    never_starts,
    run_meta,
)
from schedlab.engine.policy import Policy
from schedlab.engine.reservation_rules import ReservationRules
from schedlab.engine.result import KILLED, ReservationTable, Result
from schedlab.errors import InputError, PolicyError
from schedlab.workload.job import MACHINE_FROM_ARGUMENT, Job, Workload, cancel_column

if TYPE_CHECKING:
    from schedlab.engine.outages import OutageEvent
    from schedlab.workload.outages import FailureSpec, Window
    from schedlab.workload.reservations import Reservation

#: ``ProgressCallback`` is the kernel's, named here too for the API and the run layer.
__all__ = ["ProgressCallback", "Simulation", "run"]

#: The job columns a run in arrival order reads (:meth:`Simulation.run_in_arrival_order`).
_ARRIVAL_COLUMNS = ("submit", "width", "runtime", "estimate")


def run(workload: Workload, policy: Policy, *, processors: int | None = None,
        overrun: str = "kill", progress: ProgressCallback | None = None,
        reservations: Iterable[Reservation] | None = None, tick: int = 0,
        max_queued_per_user: int | None = None, failures: FailureSpec | None = None,
        windows: Sequence[Window] = ()) -> Result:
    """Simulate ``workload`` under ``policy`` and return the :class:`Result`.

    ``processors`` overrides the workload's machine size.  ``overrun`` says what
    happens to a job still running at its estimate: ``"kill"`` (CCS behaviour,
    Streit 2002 §5; the default) or ``"extend"`` (it runs to completion).
    ``progress(done, total)`` is called now and then with the number of
    finished or rejected jobs.

    Advance reservations (Margo et al.; docs/reference/reservations.md):
    ``reservations`` are requests that reach the policy at their creation
    time; how they are placed and throttled is the policy's own business
    (its reservation parameters, docs/reference/reservations.md).  They need
    ``overrun="kill"``: a job running past its estimate could hold
    processors a reservation was promised.  ``tick`` > 0 makes the policy
    schedule only every ``tick`` seconds (Catalina iterates every 900 s,
    §3); 0 schedules at every event.  ``max_queued_per_user`` holds
    back a user's jobs beyond that many waiting ones (DataStar allows 6, §6).

    Outages (docs/reference/events.md): ``failures`` says which nodes fail
    and what becomes of the jobs on them; ``windows`` are maintenance
    windows and drains.  Either makes the engine keep which processor
    holds what (the ``allocation`` of ``failures``).

    The cycle collector rests from the set-up to the result
    (:func:`~schedlab.engine.kernel.cyclic_gc_paused`), and the run's state is
    dropped before it resumes: the first attempts a checkpointed run makes at
    its set-up (tens of thousands of jobs) would otherwise set off collections
    that walk every job of the workload, and the run's objects left alive at
    the resumption a collection that walks them all.
    """
    with cyclic_gc_paused():
        simulation = Simulation(workload, policy, processors=processors, overrun=overrun,
                                progress=progress, reservations=reservations, tick=tick,
                                max_queued_per_user=max_queued_per_user, failures=failures,
                                windows=windows)
        if simulation.in_arrival_order():
            simulation.run_in_arrival_order()
        else:
            schedule, ctx = policy.schedule, simulation.ctx
            for _ in simulation.passes:
                schedule(ctx)
            del ctx
        result = simulation.result()
        del simulation              # the run's state freed before the collector resumes
    return result


class Simulation:
    """A space-sharing run advanced one scheduling pass at a time: the loop of :func:`run`
    with the passes made by its caller.

    Building one checks the input as :func:`run` does and sets the run up;
    each ``next(simulation.passes)`` processes the events up to the next
    instant at which the policy schedules (finishes, submissions ... in the
    same-time order) and returns that instant; the caller then makes the
    pass on :attr:`ctx` and asks for the next one.  :func:`run` makes every
    pass with ``policy.schedule``; a learning agent outside the loop
    (:mod:`schedlab.gym`) makes them with its own choices, on the same
    events, the same bookkeeping and the same :class:`Result`.  When
    ``passes`` is exhausted the run is over and :meth:`result` assembles it.
    """

    def __init__(self, workload: Workload, policy: Policy, *, processors: int | None = None,
                 overrun: str = "kill", progress: ProgressCallback | None = None,
                 reservations: Iterable[Reservation] | None = None, tick: int = 0,
                 max_queued_per_user: int | None = None, failures: FailureSpec | None = None,
                 windows: Sequence[Window] = ()) -> None:
        machine = workload.processors if processors is None else processors
        jobs = workload.jobs
        check_machine(jobs, machine)
        check_one_of("overrun", overrun, OVERRUN_MODES)
        requests = None if reservations is None else _checked_requests(reservations, machine)
        if requests is not None and overrun != "kill":
            raise InputError("advance reservations need overrun='kill': a job running past "
                             "its estimate could hold processors promised to a reservation",
                             field="overrun")
        _check_count("tick", tick, 0)
        if max_queued_per_user is not None:
            _check_count("max_queued_per_user", max_queued_per_user, 1)
        self._began = wallclock.perf_counter()
        ctx = _new_context(workload, machine, policy, overrun, tick, max_queued_per_user)
        claim(policy)
        if requests is not None:
            ctx.enable_reservations(requests)
        if failures is not None or windows:
            from schedlab.engine.outages import Outages
            ctx.enable_outages(Outages(machine, jobs, failures, windows))
        planner = getattr(policy, "runtime_planner", None)   # a policy may not subclass Policy
        if planner is not None:
            ctx.plan_runtimes_with(planner)
        ctx.kill_grace = _kill_grace(policy)
        self.workload = workload
        self.policy = policy
        self.ctx = ctx
        self.machine = machine
        self.overrun = overrun
        self._requests = requests
        self._tick = tick
        self._queue_limit = max_queued_per_user
        self._series = StepSeries(2)
        self._progress = Progress(progress, len(jobs))
        #: The instants of the scheduling passes, each returned once its events are processed.
        self.passes: Iterator[int] = _passes(ctx, policy, jobs, self._progress, tick,
                                             self._series)

    def in_arrival_order(self) -> bool:
        """Whether :meth:`run_in_arrival_order` can make the whole run: the policy starts
        jobs strictly in arrival order (``Policy.starts_in_arrival_order``) and nothing
        happens but submissions and finishes (no reservations, tick, queue limit,
        cancellations, outages or planned runtimes)."""
        ctx = self.ctx
        declared = getattr(self.policy, "starts_in_arrival_order", None)
        return (declared is not None and declared() and self._requests is None
                and not self._tick and self._queue_limit is None and not ctx.cancellations
                and ctx._outages is None and ctx._planner is None)

    def run_in_arrival_order(self) -> None:
        """Make the whole run in one compiled call (:mod:`schedlab.engine.arrival_order`),
        instead of :attr:`passes`: the same starts, ends, statuses and series as the
        event loop, without calling the policy; progress is reported once, at the end."""
        from schedlab.engine.arrival_order import run_in_arrival_order

        ctx, columns = self.ctx, self.workload.to_arrays()
        submit, width, runtime, estimate = (columns[name] for name in _ARRIVAL_COLUMNS)
        n = len(submit)
        held = runtime if self.overrun == "extend" else \
            np.minimum(runtime, estimate + ctx.kill_grace)
        series = np.empty(3 * (2 * n + 1), np.int64)
        rows = run_in_arrival_order(submit, width, held, self.machine,
                                    np.frombuffer(ctx._start, np.int64),
                                    np.frombuffer(ctx._end, np.int64), series)
        np.frombuffer(ctx._status, np.int8)[held < runtime] = KILLED
        ctx._done = n
        self._series.load(series[:3 * rows])
        self._progress.close(n)

    def result(self) -> Result:
        """The :class:`Result` of the run, once :attr:`passes` is exhausted."""
        result = _collect(self.workload, self.policy, self.ctx, self._series, self.machine,
                          self.overrun, wallclock.perf_counter() - self._began)
        _note_options(result, self._requests, getattr(self.policy, "reservation_rules", None),
                      self._tick, self._queue_limit)
        if result.outages is not None:     # the failure settings and readings, in metrics.json
            result.meta["outages"] = result.outages.settings
        return result


def _check_count(name: str, value: object, low: int) -> None:
    """Raise :class:`InputError` unless ``value`` is an int >= ``low``."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
        raise InputError(f"The {name!r} option must be an int >= {low}. Got {value!r} instead.",
                         field=name)


def _checked_requests(reservations: Iterable[Reservation], machine: int
                      ) -> tuple[Reservation, ...]:
    """The requests sorted by (created, id), each one valid for this machine."""
    requests = tuple(sorted(reservations, key=lambda r: (r.created, r.id)))
    seen: set[int] = set()
    for r in requests:
        problem = ("its id is used twice" if r.id in seen
                   else "it is created before the trace starts" if r.created < 0
                   else "it starts before it is created" if r.start < r.created
                   else "its duration is not > 0" if r.duration <= 0
                   else f"its width is not in [1, {machine}]" if not 1 <= r.width <= machine
                   else None)
        if problem is not None:
            raise InputError(f"reservation request {r.id} cannot be simulated: {problem}",
                             field="reservations")
        seen.add(r.id)
    return requests


def _note_options(result: Result, requests: tuple[Reservation, ...] | None,
                  rules: ReservationRules | None, tick: int, limit: int | None) -> None:
    """Record the reservation rules, tick and queue limit of the run in its metadata.

    The rules are the policy's (``policy.reservation_rules``, from its
    reservation parameters); a policy without them is recorded with the
    default rules.
    """
    if requests is not None:
        result.meta["reservation_rules"] = asdict(rules or ReservationRules())
    if tick:
        result.meta["tick"] = tick
    if limit is not None:
        result.meta["max_queued_per_user"] = limit


def _new_context(workload: Workload, machine: int, policy: Policy, overrun: str, tick: int,
                 queue_limit: int | None) -> Context:
    """The run's context: with the per-user queue bookkeeping only when there is a limit."""
    if queue_limit is None:
        return Context(machine, policy.name, overrun, workload.jobs, tick=tick)
    return QueueLimitContext(machine, policy.name, overrun, workload.jobs, queue_limit,
                             tick=tick)


def _passes(ctx: Context, policy: Policy, jobs: Sequence[Job], progress: Progress, tick: int,
            series: StepSeries) -> Iterator[int]:
    """The instants of the run's scheduling passes, until no job is left (the busy and
    queue-length series recorded into ``series``)."""
    if (tick or ctx.reservations_enabled or isinstance(ctx, QueueLimitContext)
            or ctx.cancellations):
        yield from _full_loop(ctx, policy, jobs, progress, tick, series)
    else:
        yield from _plain_loop(ctx, policy, jobs, progress, series)
    if ctx.waiting or ctx.suspended:
        stuck = next(iter(ctx.waiting.values() or ctx.suspended.values()))
        raise never_starts(policy.name, stuck.id)
    progress.close(ctx._done)


def _no_corrections() -> None:
    """The corrections of a run without a runtime planner: there are none."""


def _plain_loop(ctx: Context, policy: Policy, jobs: Sequence[Job], progress: Progress,
                series: StepSeries) -> Iterator[int]:
    """The event loop of a run without reservations, ticks, queue limit, cancellations or
    maintenance windows, yielding the instant of each scheduling pass.

    The hot path of nearly every run, kept free of the checks those need: it
    is :func:`_full_loop` without reservation events, held jobs and requests
    and with a pass at every instant (the test suite checks that both give
    the same results).  Node failures and repairs come after the finishes of
    their instant, as in :func:`_full_loop`.  An instant with nothing but
    corrections of planned runtimes has no pass when the policy says it would
    start nothing (:meth:`~schedlab.engine.policy.Policy.idle_after_corrections`),
    asked only while every running job is expected to end no earlier than now
    (killed at its estimate, no grace, no outages).  Such an instant is told
    by its first event, a correction, and no submission; it is handled before
    the steps of the others (``ctx.corrections_only`` True for its
    corrections, False for every other), which then never ask the policy.  A
    wake-up at that instant stays on the heap: the next round takes the
    instant again, with nothing left in it but the wake-up, and makes the pass.
    """
    events = ctx._events
    version = ctx._version
    waiting = ctx.waiting
    on_submit, on_finish = policy.on_submit, policy.on_finish
    on_correction = getattr(policy, "on_correction", None)
    on_outage = getattr(policy, "on_outage", None)
    outages = ctx._outages
    # A submitted job enters the queue as its first attempt (no cancellations here): with
    # outages, as the context made them all at the start; and as the policy sees it with a
    # planner.
    entering = jobs if outages is None else ctx._attempt_jobs
    planning = ctx._planner is not None
    enter = ctx._planned_view if planning else None
    idle_after_corrections = (getattr(policy, "idle_after_corrections", None)
                              if ctx._planner is not None and ctx.overrun == "kill"
                              and not ctx.kill_grace and outages is None else None)
    n = len(jobs)
    nxt = 0
    due = progress.due
    record = series.record
    capacity = ctx.processors
    finish = ctx._finish
    correct_due = ctx._corrector(on_correction) if planning else _no_corrections
    submits = [job.submit for job in jobs]
    submits.append(NEVER)                   # sentinel: no submission left
    while nxt < n or events:
        if outages is not None and nxt == n and ctx._done == n:
            break                             # every job has ended: failures go on forever
        now = submits[nxt]
        if events and events[0][0] <= now:
            head = events[0]
            now = head[0]
            if idle_after_corrections is not None and head[1] == CORRECT and now != submits[nxt]:
                # 0. an instant that begins with corrections and has no submission: the
                # machine and the queue are as the last pass left them
                ctx.now = now
                ctx.corrections_only = True
                correct_due()
                ctx.corrections_only = False
                if idle_after_corrections(ctx):
                    continue                  # no pass (a wake-up now is still on the heap)
        ctx.now = now
        # 1. finishes
        while events:
            event = events[0]
            if event[0] != now or event[1] != FINISH:
                break
            heappop(events)
            job_id = event[2]
            if version[job_id] != event[3]:
                continue                      # stale: the job was suspended meanwhile
            on_finish(ctx, finish(job_id))
        # 2. repairs and failures (only with outages)
        while events and events[0][0] == now and RESTORE <= events[0][1] <= OUTAGE:
            _, kind, key, _ = heappop(events)
            _outage(ctx, kind, key, on_finish, on_submit, on_outage)
        # 3. corrections of planned runtimes (only with a runtime planner)
        if events and events[0][0] == now and events[0][1] == CORRECT:
            correct_due()
        # 4. submissions
        while submits[nxt] == now:
            job = entering[nxt]
            if enter is not None:
                job = enter(job, nxt)
            nxt += 1
            waiting[job.id] = job
            on_submit(ctx, job)
        # 5. wake-ups (several requests for one instant are one wake-up)
        while events and events[0][0] == now and events[0][1] == WAKE:
            heappop(events)
        yield now
        down = 0 if outages is None else outages.down
        record(now, capacity - ctx.free - down, len(waiting))
        if ctx._done >= due:
            due = progress.report(ctx._done)


def _full_loop(ctx: Context, policy: Policy, jobs: Sequence[Job], progress: Progress,
               tick: int, series: StepSeries) -> Iterator[int]:
    """The event loop with reservation events, held jobs, scheduling ticks, planned
    runtimes and cancellations (jobs enter the queue through ``Context._enter``:
    as the policy sees them, their cancellation on the heap; corrections and
    cancellations come after the reservation events of their instant), yielding the
    instant of each scheduling pass."""
    events = ctx._events
    version = ctx._version
    waiting = ctx.waiting
    pending = ctx.pending_requests
    on_submit, on_finish = policy.on_submit, policy.on_finish
    on_request = policy.on_reservation_request
    on_correction = getattr(policy, "on_correction", None)
    on_cancel = getattr(policy, "on_cancel", None)
    on_outage = getattr(policy, "on_outage", None)
    inbox = _Inbox(policy) if tick else None
    if inbox is not None:
        on_submit, on_finish, on_request = inbox.submit, inbox.finish, inbox.request
        on_cancel, on_outage = inbox.cancel, inbox.outage
    outages = ctx._outages
    queue_limit = ctx if isinstance(ctx, QueueLimitContext) else None
    next_tick = -1
    n = len(jobs)
    nxt = 0
    due = progress.due
    record = series.record
    capacity = ctx.processors
    correct_due = (ctx._corrector(on_correction) if ctx._planner is not None
                   else _no_corrections)
    submits = [job.submit for job in jobs]
    submits.append(NEVER)                   # sentinel: no submission left
    while nxt < n or events:
        if outages is not None and nxt == n and ctx._done == n:
            break                             # every job has ended: outages go on forever
        now = submits[nxt]
        if events and events[0][0] <= now:
            now = events[0][0]
        ctx.now = now
        # 1. finishes, then 2. reservation ends, repairs and window ends, reservation
        # starts, window notices, failures and window starts, corrections of planned
        # runtimes and cancellations (the heap keeps this order)
        while events and events[0][0] == now and events[0][1] <= CANCEL:
            if events[0][1] == CORRECT:
                correct_due()
                continue
            _, kind, key, ver = heappop(events)
            if kind != FINISH:
                if kind == RESERVATION_END:
                    ctx._end_reservation(key)
                elif kind == RESERVATION_START:
                    ctx._start_reservation(key)
                elif kind in (RESTORE, NOTICE, OUTAGE):
                    _outage(ctx, kind, key, on_finish, on_submit, on_outage)
                elif (cancelled := ctx._cancel(key)) is not None:     # CANCEL
                    running, job = cancelled
                    if running:
                        on_finish(ctx, job)
                    elif on_cancel:
                        on_cancel(ctx, job)
                continue
            if version[key] != ver:
                continue                      # stale: the job was suspended meanwhile
            on_finish(ctx, ctx._finish(key))
        # 3. submissions
        while submits[nxt] == now:
            job = jobs[nxt]
            nxt += 1
            if queue_limit is not None and not queue_limit._enter_queue(job):
                continue                      # held back by the per-user queue limit
            entered = ctx._enter(job)
            if entered is None:
                continue                      # cancelled at its submission
            waiting[entered.id] = entered
            on_submit(ctx, entered)
        # 4. held jobs released, reservation requests, wake-ups (several are one)
        while events and events[0][0] == now and events[0][1] >= RELEASE:
            _, kind, key, _ = heappop(events)
            if kind == REQUEST:
                on_request(ctx, ctx._deliver_request(key))
            elif kind == RELEASE and queue_limit is not None:
                released = queue_limit._release_held(key)
                if released is not None and (entered := ctx._enter(released)) is not None:
                    waiting[entered.id] = entered
                    on_submit(ctx, entered)
        if inbox is None:
            yield now
            if pending:
                _undecided(policy, pending, now)
        else:
            more: object
            if now % tick == 0:
                inbox.deliver(ctx)
                yield now
                if pending:
                    _undecided(policy, pending, now)
                # Another tick while a job waits and an event or a submission is still
                # to come; with none, every later pass would see this same machine.
                more = waiting and (events or nxt < n)
            else:
                more = waiting or inbox       # the policy has not seen this instant yet
            if more and next_tick <= now:
                next_tick = (now // tick + 1) * tick
                heappush(events, (next_tick, WAKE, -1, 0))
        down = 0 if outages is None else outages.down
        record(now, capacity - ctx.free - ctx.reserved - down, len(waiting))
        if ctx._done >= due:
            due = progress.report(ctx._done)


def _outage(ctx: Context, kind: int, key: int, on_finish: Any, on_submit: Any,
            on_outage: Any) -> None:
    """A failure, repair or window event (docs/reference/events.md): the policy hears of
    the jobs whose attempt a failure ended (``on_finish``), of those queued again
    (``on_submit``), then of the outage (``on_outage``)."""
    happened = ctx._outage_event(kind, key)
    if happened is None:
        return
    event, hit, requeued = happened
    for job in hit:
        on_finish(ctx, job)
    for job in requeued:
        on_submit(ctx, job)
    if on_outage is not None:
        on_outage(ctx, event)


class _Inbox:
    """The policy calls held back until the next tick (Catalina's iteration, Margo et al., §3).

    Between ticks the engine keeps the machine exact (jobs end, reservations
    start and end, jobs join the queue); the policy hears of it all at the
    tick, in the same-time order: finishes, submissions, requests.
    """

    __slots__ = ("cancelled", "finished", "outages", "policy", "requested", "submitted")

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.finished: list[Job] = []
        self.cancelled: list[Job] = []
        self.submitted: list[Job] = []
        self.requested: list[Reservation] = []
        self.outages: list[OutageEvent] = []

    def finish(self, ctx: Context, job: Job) -> None:
        self.finished.append(job)

    def cancel(self, ctx: Context, job: Job) -> None:
        """A waiting job was withdrawn: the policy never hears of it if its submission is
        still held back here, else at the tick."""
        held = [k for k, waiting in enumerate(self.submitted) if waiting.id == job.id]
        if held:
            del self.submitted[held[0]]
        else:
            self.cancelled.append(job)

    def submit(self, ctx: Context, job: Job) -> None:
        self.submitted.append(job)

    def request(self, ctx: Context, request: Reservation) -> None:
        self.requested.append(request)

    def outage(self, ctx: Context, event: OutageEvent) -> None:
        self.outages.append(event)

    def __bool__(self) -> bool:
        return bool(self.finished or self.cancelled or self.submitted or self.requested
                    or self.outages)

    def deliver(self, ctx: Context) -> None:
        """Make every held-back call now."""
        policy = self.policy
        for job in self.finished:
            policy.on_finish(ctx, job)
        for job in self.cancelled:
            policy.on_cancel(ctx, job)          # only a Policy's cancellations are held
        for job in self.submitted:
            policy.on_submit(ctx, job)
        for request in self.requested:
            policy.on_reservation_request(ctx, request)
        for event in self.outages:
            policy.on_outage(ctx, event)        # only a Policy's outages are held
        self.finished, self.cancelled, self.submitted, self.requested = [], [], [], []
        self.outages = []


def _undecided(policy: Policy, pending: dict[int, Reservation], now: int) -> None:
    request = next(iter(pending.values()))
    raise PolicyError(f"policy {policy.name!r} left reservation request {request.id} undecided "
                      f"after its scheduling pass at {now}: every request must be granted or "
                      f"refused in the pass that follows its arrival")


def _kill_grace(policy: Policy) -> int:
    """The policy's ``kill_grace``, checked: a whole number of seconds >= 0."""
    grace = getattr(policy, "kill_grace", 0)
    if isinstance(grace, bool) or not isinstance(grace, int) or grace < 0:
        raise PolicyError(f"policy {policy.name!r} has kill_grace {grace!r}; expected a whole "
                          f"number of seconds >= 0")
    return grace


def _collect(workload: Workload, policy: Policy, ctx: Context, series: StepSeries,
             machine: int, overrun: str, wall: float) -> Result:
    deadline, artificial = deadline_columns(workload.jobs)
    times, values = series.arrays()
    return assemble(
        workload, processors=machine, policy=policy.name, params=policy.get_params(),
        stats={**policy.statistics(), **ctx.stats},
        start=ctx._start, end=ctx._end, status=ctx._status, planned_start=ctx._planned,
        series=(times, values[:, 0].copy(), values[:, 1].copy()),
        meta=run_meta(workload, overrun, wall,
                      {"kill_grace": ctx.kill_grace} if ctx.kill_grace else None,
                      extra={"workload": _provenance(workload, machine)}),
        reject_reasons=dict(ctx._reject_reasons),
        suspended=np.array(ctx._suspended_for, dtype=np.int64),
        deadline=deadline, artificial_deadline=artificial,
        reservations=_reservation_table(ctx), **_planned_runtimes(ctx),
        cancel_after=cancel_column(workload.jobs),
        outages=None if ctx._outages is None else ctx._outages.record(ctx),
        queued=np.array(ctx._queued, dtype=np.int64) if isinstance(ctx, QueueLimitContext)
        else None)


def _planned_runtimes(ctx: Context) -> dict[str, np.ndarray]:
    """Each job's first and last planned runtime and its corrections (-1, -1, 0 for a job
    never planned: held back or never submitted), when the policy had a planner."""
    if ctx._first_plan is None or ctx._last_plan is None or ctx._corrections is None:
        return {}
    return {"predicted": np.array(ctx._first_plan, dtype=np.int64),
            "final_prediction": np.array(ctx._last_plan, dtype=np.int64),
            "corrections": np.array(ctx._corrections, dtype=np.int64)}


def _provenance(workload: Workload, machine: int) -> dict[str, Any]:
    """Where the workload's machine size and estimates came from (docs/reference/workloads.md);
    a machine size given to :func:`run` overrides the workload's."""
    facts = dict(workload.provenance)
    if machine != workload.processors:
        facts["machine_size_source"] = MACHINE_FROM_ARGUMENT
    return facts


def _reservation_table(ctx: Context) -> ReservationTable | None:
    """The fate of every reservation request (None when the run had no requests)."""
    requests = ctx._requests
    if requests is None:
        return None
    ints = np.array([(r.id, r.created, r.start, r.duration, r.width) for r in requests],
                    dtype=np.int64).reshape(-1, 5)
    return ReservationTable(
        id=ints[:, 0].copy(), created=ints[:, 1].copy(), requested_start=ints[:, 2].copy(),
        start=np.array(ctx._granted_start, dtype=np.int64), duration=ints[:, 3].copy(),
        width=ints[:, 4].copy(),
        status=np.array([0 if reason is None else 1 for reason in ctx._refusal], dtype=np.int8),
        owner=tuple(r.owner for r in requests),
        reason=tuple(reason or "" for reason in ctx._refusal),
        series_time=np.array(ctx._reserved_time, dtype=np.int64),
        series_reserved=np.array(ctx._reserved_nodes, dtype=np.int64))
