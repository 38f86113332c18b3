"""dynP: planning-based scheduling that switches its policy at run time (Streit 2002, §3).

Both variants run on the planning-based scheduler of :mod:`schedlab.policies.planning`
(the full schedule of CCS, §5) and change only *which order* it plans in:

* :class:`BasicDynP` (``dynp-basic``, §3.1) — at every submission with at
  least ``threshold`` waiting jobs, the average estimated runtime (AERT) of
  the waiting queue picks SJF (AERT <= ``lower``), FCFS (<= ``upper``) or
  LJF.
* :class:`SelfTuningDynP` (``dynp``, §3.2) — at every scheduling step
  (submission or job end) with at least two waiting jobs, a full schedule is
  built with every candidate policy, each is measured with a quality metric
  (lower is better) and a decider (:mod:`schedlab.policies.deciders`,
  Table 1) picks the policy; its schedule becomes the plan.

Both report the statistics of Tables 4–6 through :meth:`statistics`
(``policy_stats`` in metrics.json): jobs started under each policy,
switches to each policy, decisions that kept the policy, the number of
decisions, the average backlog at a decision, and (self-tuning dynP with
the paper's three policies) the count of every Table 1 case.

The extensions of §6 ("future work") are parameters of ``dynp``:
``slackness``, reduced future (``future_jobs``, ``future_horizon``), more
candidate policies (``candidates``, e.g. ``lxf``) and combined quality
metrics (``metric="artww+ms"``).  docs/policies/dynp.md describes each.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deciders import CASE_LABELS, DECIDERS, PAPER_POLICIES, decide_among
from schedlab.policies.orderings import ORDERINGS, OrderKey
from schedlab.policies.planning import PLAN_ORDERINGS, PlanningScheduler

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.profile import Profile
    from schedlab.workload.job import Job

#: The bound of the bounded slowdown in the ``slowdown`` quality metric (SLDwW_60, §5.1).
SLOWDOWN_BOUND = 60
#: The two readings of the FCFS candidate's order (``fcfs_order``, docs/policies/dynp.md):
#: ``submit`` sorts the waiting jobs by submission ("reorder waiting queue according to new
#: policy", Streit 2002, §3.1, taken literally); ``plan`` keeps the current plan's order,
#: the jobs submitted since appended in arrival order.
FCFS_ORDERS = ("submit", "plan")


class _DynPFamily(PlanningScheduler):
    """What both dynP variants share: the current policy and the statistics of Tables 4–6."""

    def __init__(self, *, policies: Sequence[str], initial: str, **reservation: Any) -> None:
        super().__init__(order=initial, **reservation)
        self._jobs_started = dict.fromkeys(policies, 0)
        self._switches = dict.fromkeys(policies, 0)
        self._same_policy = 0
        self._backlog_total = 0

    def _decided(self, policy: str, backlog: int) -> bool:
        """Count a decision for ``policy`` at ``backlog`` waiting jobs; True if it switches."""
        self._backlog_total += backlog
        if policy == self.order:
            self._same_policy += 1
            return False
        self._switches[policy] += 1
        self.order = policy
        return True

    def _start_due(self, ctx: Context) -> list[Job]:
        started = super()._start_due(ctx)
        self._jobs_started[self.order] += len(started)
        return started

    def statistics(self) -> dict[str, Any]:
        """Tables 4–6 of Streit 2002: usage of each policy and the decisions taken."""
        decisions = self._same_policy + sum(self._switches.values())
        return {
            "jobs_started": dict(self._jobs_started),
            "decisions": decisions,
            "switches": dict(self._switches),
            "same_policy": self._same_policy,
            "avg_backlog": self._backlog_total / decisions if decisions else 0.0,
        }


class BasicDynP(_DynPFamily):
    """Basic dynP (Streit 2002, §3.1): the waiting queue's average estimate picks the policy.

    At every submission with at least ``threshold`` jobs waiting (the new one
    included), AERT = mean estimate of the waiting jobs; ``AERT <= lower``
    switches to SJF, ``lower < AERT <= upper`` to FCFS, ``upper < AERT`` to
    LJF (estimates are >= 1 s, so the paper's ``0 < AERT`` always holds).
    A switch reorders the queue: the plan is rebuilt in the new order at
    once.  Initial policy FCFS; bounds in seconds (the paper's best for its
    PC2 job sets: 7200 s and 9000 s).
    """

    name = "dynp-basic"

    def __init__(self, *, threshold: int = 5, lower: float = 7200, upper: float = 9000,
                 **reservation: Any) -> None:
        check_number(self.name, "threshold", threshold, int, 1)
        check_number(self.name, "lower", lower, float, 0)
        check_number(self.name, "upper", upper, float, 0)
        if upper < lower:
            raise InputError(f"The 'upper' parameter of {self.name} must be >= lower ({lower}). "
                             f"Got {upper!r} instead.", field="upper")
        super().__init__(policies=PAPER_POLICIES, initial="fcfs", **reservation)
        self.threshold = threshold
        self.lower = lower
        self.upper = upper
        self._estimates_waiting = 0     # sum of the estimates of the waiting jobs

    def on_submit(self, ctx: Context, job: Job) -> None:
        super().on_submit(ctx, job)
        self._estimates_waiting += job.estimate
        backlog = len(ctx.waiting)
        if backlog >= self.threshold:
            policy = self.policy_for(self._estimates_waiting / backlog)
            if self._decided(policy, backlog):
                self._replan = True

    def policy_for(self, aert: float) -> str:
        """The policy for an average estimated runtime of the waiting queue (§3.1)."""
        if aert <= self.lower:
            return "sjf"
        return "fcfs" if aert <= self.upper else "ljf"

    def _start_due(self, ctx: Context) -> list[Job]:
        started = super()._start_due(ctx)
        self._estimates_waiting -= sum(job.estimate for job in started)
        return started


# --------------------------------------------------------------- quality metrics
# Each measures candidate schedules of the same waiting jobs (:class:`Measured`):
# the jobs' widths, estimates and submit times (one entry per job) and their
# proposed starts (one row per schedule, one column per job), plus the
# expected end of the last running job; it returns one value per schedule.
# Lower is better.  A job's planned end is its start plus its estimate: the
# scheduler knows nothing else (Streit 2002, §3.2).  The sums of the integer
# metrics are exact (int64, divided as Python ints), so two identical
# schedules get identical numbers; the slowdown sums floats one by one, in
# the order of the columns: the jobs in arrival order.

class Measured(NamedTuple):
    """What a quality metric reads: job columns (1-D) and the starts of each schedule (2-D)."""

    widths: np.ndarray
    estimates: np.ndarray
    submits: np.ndarray
    starts: np.ndarray


def makespan(schedules: Measured, running_end: int) -> list[float]:
    """MS = max end of all jobs in the schedule, the running ones included (§3.2)."""
    ends = (schedules.starts + schedules.estimates).max(axis=1, initial=running_end)
    return [float(end) for end in ends.tolist()]


def average_response(schedules: Measured, running_end: int) -> list[float]:
    """ART = mean of (end - submit) over the waiting jobs (§3.2)."""
    jobs = len(schedules.widths)
    totals = (schedules.starts + (schedules.estimates - schedules.submits)).sum(axis=1)
    return [total / jobs if jobs else 0.0 for total in totals.tolist()]


def weighted_response(schedules: Measured, running_end: int) -> list[float]:
    """ARTwW = sum of width x (end - submit) over the sum of widths (§3.2)."""
    widths = schedules.widths
    totals = (schedules.starts + (schedules.estimates - schedules.submits)) @ widths
    width = int(widths.sum())
    return [total / width if width else 0.0 for total in totals.tolist()]


def weighted_slowdown(schedules: Measured, running_end: int) -> list[float]:
    """SLDwW_60 of the plan (§5.1 as a quality metric, §6): width-weighted bounded slowdown."""
    bound = SLOWDOWN_BOUND
    widths, estimates = schedules.widths, schedules.estimates
    response = np.maximum(schedules.starts + (estimates - schedules.submits), bound)
    values = widths * response / np.maximum(estimates, bound)
    width = int(widths.sum())
    return [sum(row) / width if width else 0.0 for row in values.tolist()]


def average_wait(schedules: Measured, running_end: int) -> list[float]:
    """Mean of (start - submit) over the waiting jobs (§6)."""
    jobs = len(schedules.widths)
    totals = (schedules.starts - schedules.submits).sum(axis=1)
    return [total / jobs if jobs else 0.0 for total in totals.tolist()]


QualityMetric = Callable[[Measured, int], list[float]]

QUALITY_METRICS: dict[str, QualityMetric] = {
    "artww": weighted_response, "art": average_response, "ms": makespan,
    "slowdown": weighted_slowdown, "wait": average_wait,
}
#: The metrics whose value does not depend on the order the jobs are summed in.
EXACT_METRICS = frozenset({"artww", "art", "ms", "wait"})


def parse_quality_metric(policy: str, text: str) -> tuple[tuple[float, str], ...]:
    """``"artww"`` or a combination like ``"artww+ms"``, ``"0.7*artww+0.3*slowdown"``.

    Returns ``(weight, metric)`` terms.  Raises :class:`InputError` naming
    the ``metric`` parameter for anything else.
    """
    expected = (f"a quality metric ({', '.join(QUALITY_METRICS)}) or a sum of them "
                f"with optional weights, e.g. 'artww+ms' or '0.7*artww+0.3*slowdown'")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"The 'metric' parameter of {policy} must be {expected}. "
                         f"Got {text!r} instead.", field="metric")
    terms = []
    for part in text.replace(" ", "").lower().split("+"):
        weight, _, name = part.rpartition("*")
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            value = -1.0
        if name not in QUALITY_METRICS or not value > 0 or any(name == t for _, t in terms):
            raise InputError(f"The 'metric' parameter of {policy} must be {expected}, each "
                             f"metric once with a positive weight. Got {text!r} instead.",
                             field="metric")
        terms.append((value, name))
    return tuple(terms)


def parse_candidates(policy: str, candidates: str | Sequence[str]) -> tuple[str, ...]:
    """Candidate policies as a tuple: a sequence of names or one comma-separated string."""
    names = candidates.split(",") if isinstance(candidates, str) else list(candidates)
    names = [str(name).strip().lower() for name in names]
    if not names or len(set(names)) != len(names) or not set(names) <= set(PLAN_ORDERINGS):
        raise InputError(f"The 'candidates' parameter of {policy} must be distinct policies "
                         f"from {', '.join(PLAN_ORDERINGS)}. Got {candidates!r} instead.",
                         field="candidates")
    return tuple(names)


def select_future(starts: np.ndarray, now: int, future_jobs: int | None,
                  future_horizon: int | None) -> np.ndarray:
    """Which jobs of a schedule the quality is computed from (reduced future, Streit 2002, §6).

    ``starts`` are the proposed starts of the waiting jobs; returns the
    positions kept, in their order.  ``future_horizon``: only the jobs
    planned to start by ``now + future_horizon``; ``future_jobs``: only the
    first ``future_jobs`` jobs to start (ties by position).  Both may be
    given (the first k among those in the horizon).
    """
    keep = np.arange(len(starts))
    if future_horizon is not None:
        keep = keep[starts <= now + future_horizon]
    if future_jobs is not None and len(keep) > future_jobs:
        keep = np.sort(keep[np.lexsort((keep, starts[keep]))[:future_jobs]])
    return keep


# ------------------------------------------------------------ self-tuning dynP
class SortedQueue:
    """The waiting jobs in one static order, as arrival numbers, updated at each arrival and start.

    Self-tuning dynP needs the queue in every candidate order at every step;
    keeping SJF and LJF sorted costs a binary search per arrival and start
    instead of a sort per step.
    """

    __slots__ = ("_key", "_keys", "slots")

    def __init__(self, key: OrderKey) -> None:
        self._key = key
        self._keys: list[tuple] = []
        self.slots: list[int] = []

    def add(self, job: Job, slot: int) -> None:
        key = self._key(job)
        at = bisect_left(self._keys, key)
        self._keys.insert(at, key)
        self.slots.insert(at, slot)

    def remove(self, job: Job) -> None:
        at = bisect_left(self._keys, self._key(job))
        del self._keys[at]
        del self.slots[at]


class JobColumns:
    """Every job dynP was given, as columns by arrival number, and the numbers of the waiting ones.

    Ids, widths, estimates and submit times as numpy arrays, so that the
    candidate schedules are placed in one compiled call and measured in
    numpy (:func:`schedlab.engine.profile_kernels.place_orders`); a queue
    is then a list of arrival numbers.  ``waiting`` maps each waiting job's
    id to its number, in arrival order: the FCFS order.
    """

    __slots__ = ("ids", "widths", "estimates", "submits", "jobs", "waiting")

    def __init__(self) -> None:
        self.ids = np.empty(1024, np.int64)
        self.widths = np.empty(1024, np.int64)
        self.estimates = np.empty(1024, np.int64)
        self.submits = np.empty(1024, np.int64)
        self.jobs: list[Job] = []
        self.waiting: dict[int, int] = {}

    def add(self, job: Job) -> int:
        """Take an arriving job; its arrival number."""
        slot = len(self.jobs)
        if slot == len(self.widths):
            for name in ("ids", "widths", "estimates", "submits"):
                column = getattr(self, name)
                setattr(self, name, np.concatenate((column, np.empty_like(column))))
        self.ids[slot] = job.id
        self.widths[slot] = job.width
        self.estimates[slot] = job.estimate
        self.submits[slot] = job.submit
        self.jobs.append(job)
        self.waiting[job.id] = slot
        return slot

    def started(self, job: Job) -> None:
        del self.waiting[job.id]

    def slots_of(self, queue: Sequence[Job]) -> list[int]:
        waiting = self.waiting
        return [waiting[job.id] for job in queue]

    def jobs_at(self, slots: Sequence[int]) -> list[Job]:
        jobs = self.jobs
        return [jobs[slot] for slot in slots]

    def arrived(self) -> np.ndarray:
        """The arrival numbers of the waiting jobs, in arrival order (ascending)."""
        return np.fromiter(self.waiting.values(), np.int64, len(self.waiting))


class PlanOrder:
    """The order of the jobs in the current plan: the FCFS candidate of ``fcfs_order="plan"``.

    Reading of Streit 2002, §3.1-3.2 (not the literal one): "first come" is
    the order the plan holds the waiting jobs in — the queue of the schedule
    last adopted, whatever policy built it, with the jobs submitted since
    appended in arrival order (the plan inserts them so, at their earliest
    fits).  Under FCFS alone this is the submission order.
    """

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: dict[int, None] = {}

    def adopt(self, job_ids: Sequence[int]) -> None:
        """The plan was rebuilt or replaced: its queue (job ids) is the new order."""
        self._ids = dict.fromkeys(job_ids)

    def remove(self, started: Sequence[Job]) -> None:
        for job in started:
            self._ids.pop(job.id, None)

    def queue(self, waiting: dict[int, Job]) -> list[Job]:
        """The waiting jobs in plan order, those not yet in the plan appended (arrival order)."""
        ids = self._ids
        for job_id in waiting:
            if job_id not in ids:
                ids[job_id] = None
        return [waiting[job_id] for job_id in ids if job_id in waiting]


class SelfTuningDynP(_DynPFamily):
    """Self-tuning dynP (Streit 2002, §3.2): plan with whichever policy gives the best schedule.

    At every scheduling step — an instant with a submission or a job end —
    with at least two jobs waiting, the fixed part of the schedule (running
    jobs) is copied once per candidate policy and the waiting jobs are
    placed in that policy's order, each at its earliest fit.  Each schedule
    is measured with ``metric`` (lower is better) and ``decider`` picks the
    policy (:mod:`schedlab.policies.deciders`: exactly Table 1 for the
    paper's candidates FCFS, SJF, LJF); the chosen schedule becomes the
    plan.  With fewer than two waiting jobs every order gives the same
    schedule, so no decision is made (the paper: self-tuning "only makes
    sense when more than one job is in the schedule and not yet running").
    Initial policy FCFS (the first candidate if FCFS is not one).

    Extensions (§6), see docs/policies/dynp.md: ``slackness`` (the current
    policy's quality counts ``1 - slackness`` times its value, so another
    policy must be better by that fraction), ``future_jobs`` /
    ``future_horizon`` (reduced future, :func:`select_future`),
    ``candidates`` (any planning orderings, e.g. ``lxf``; ties go to the
    earlier candidate) and combined metrics (each term divided by its
    largest value among the candidates, then the weighted sum).

    ``fcfs_order`` is the reading of the FCFS candidate (:data:`FCFS_ORDERS`):
    ``submit`` (default, the literal re-sort of §3.1) or ``plan``, the order
    of the current plan with newcomers appended — after a switch to SJF the
    FCFS candidate is then the SJF plan kept as it is (:class:`PlanOrder`).
    """

    name = "dynp"

    def __init__(self, *, decider: str = "advanced", metric: str = "artww",
                 candidates: str | Sequence[str] = PAPER_POLICIES, slackness: float = 0.0,
                 future_jobs: int | None = None, future_horizon: int | None = None,
                 fcfs_order: str = "submit", **reservation: Any) -> None:
        check_choice(self.name, "decider", decider, DECIDERS)
        check_choice(self.name, "fcfs_order", fcfs_order, FCFS_ORDERS)
        terms = parse_quality_metric(self.name, metric)
        policies = parse_candidates(self.name, candidates)
        check_number(self.name, "slackness", slackness, float, 0, 1)
        if future_jobs is not None:
            check_number(self.name, "future_jobs", future_jobs, int, 1)
        if future_horizon is not None:
            check_number(self.name, "future_horizon", future_horizon, int, 0)
        super().__init__(policies=policies, initial="fcfs" if "fcfs" in policies else policies[0],
                         **reservation)
        self.decider = decider
        self.metric = metric
        self.candidates = policies
        self.slackness = slackness
        self.future_jobs = future_jobs
        self.future_horizon = future_horizon
        self.fcfs_order = fcfs_order
        self._plan_order = PlanOrder() if fcfs_order == "plan" else None
        self._terms = terms
        self._exact = all(name in EXACT_METRICS for _, name in terms)
        self._no_makespan = all(name != "ms" for _, name in terms)
        self._cases = dict.fromkeys(CASE_LABELS, 0) if policies == PAPER_POLICIES else None
        self._sorted = {p: SortedQueue(ORDERINGS[p]) for p in policies
                        if p in ORDERINGS and p != "fcfs"}
        self._columns = JobColumns()
        self._place_orders: Callable | None = None

    def on_submit(self, ctx: Context, job: Job) -> None:
        super().on_submit(ctx, job)
        slot = self._columns.add(job)
        for queue in self._sorted.values():
            queue.add(job, slot)

    def _start_due(self, ctx: Context) -> list[Job]:
        started = super()._start_due(ctx)
        for job in started:
            self._columns.started(job)
        for queue in self._sorted.values():
            for job in started:
                queue.remove(job)
        if self._plan_order is not None:
            self._plan_order.remove(started)
        return started

    def queue(self, ctx: Context, order: str) -> list[Job]:
        if order == "fcfs" and self._plan_order is not None:
            return self._plan_order.queue(ctx.waiting)
        kept = self._sorted.get(order)
        return self._columns.jobs_at(kept.slots) if kept is not None else super().queue(ctx, order)

    def adopt(self, profile: Profile | Callable[[], Profile], job_ids: Sequence[int],
              starts: Sequence[int]) -> None:
        super().adopt(profile, job_ids, starts)
        if self._plan_order is not None:
            self._plan_order.adopt(job_ids)

    def _update_plan(self, ctx: Context) -> None:
        if len(ctx.waiting) < 2:
            super()._update_plan(ctx)
        else:
            self._self_tuning_step(ctx)

    def _self_tuning_step(self, ctx: Context) -> None:
        """Build a schedule per candidate, measure, decide, adopt the chosen one (§3.2).

        Candidates whose queues coincide share one schedule.  The schedules
        are placed in one compiled call on copies of the running jobs'
        profile (:func:`~schedlab.engine.profile_kernels.place_orders`, the
        twin of :func:`~schedlab.policies.planning.place_in_order`), on the
        columns of the waiting jobs in arrival order; a queue is a row of
        positions in those columns.
        """
        if self._place_orders is None:      # numba, loaded at the first step
            from schedlab.engine.profile_kernels import place_orders
            self._place_orders = place_orders
        queues: list[list[int]] = []
        row_of: dict[str, int] = {}
        for policy in self.candidates:
            queue = self._queue_slots(ctx, policy)
            if queue not in queues:
                queues.append(queue)
            row_of[policy] = queues.index(queue)
        columns = self._columns
        arrived = columns.arrived()
        orders = np.searchsorted(arrived, np.array(queues, np.int64))
        widths, estimates = columns.widths[arrived], columns.estimates[arrived]
        starts, profiles = self._place_orders(self.fixed_profile(ctx), orders, widths,
                                              estimates, ctx.now)
        jobs = Measured(widths, estimates, columns.submits[arrived], starts)
        qualities = self.qualities(ctx, jobs, row_of)
        self._decided(self._decide(qualities), len(ctx.waiting))
        row = row_of[self.order]
        order = orders[row]
        self.adopt(partial(profiles.profile, row), columns.ids[arrived[order]].tolist(),
                   starts[row, order].tolist())

    def _queue_slots(self, ctx: Context, policy: str) -> list[int]:
        """The waiting jobs in ``policy``'s order, as arrival numbers."""
        kept = self._sorted.get(policy)
        if kept is not None:
            return kept.slots
        if policy == "fcfs" and self._plan_order is None:
            return list(self._columns.waiting.values())
        return self._columns.slots_of(self.queue(ctx, policy))

    def qualities(self, ctx: Context, schedules: Measured, row_of: dict[str, int]
                  ) -> dict[str, float]:
        """The quality of each candidate's schedule, slackness applied to the current policy.

        ``schedules`` holds the waiting jobs in arrival order and one row of
        starts per distinct schedule; ``row_of`` gives each candidate's row.
        """
        # Only the makespan reads the end of the last running job.
        running_end = ctx.now if self._no_makespan else \
            max((end for end, _ in ctx.releases()), default=ctx.now)
        if self._exact and self.future_jobs is None and self.future_horizon is None:
            values = [QUALITY_METRICS[name](schedules, running_end) for _, name in self._terms]
        else:
            values = [[QUALITY_METRICS[name](part, running_end)[0]
                       for part in self._reduced_futures(ctx.now, schedules)]
                      for _, name in self._terms]
        quality = combine_terms({policy: [term[row] for term in values]
                                 for policy, row in row_of.items()},
                                [weight for weight, _ in self._terms])
        if self.slackness:
            quality[self.order] *= 1 - self.slackness
        return quality

    def _reduced_futures(self, now: int, schedules: Measured) -> list[Measured]:
        """Each schedule reduced to the jobs it is measured on (:func:`select_future`)."""
        widths, estimates, submits, starts = schedules
        parts = []
        for planned in starts:
            keep = select_future(planned, now, self.future_jobs, self.future_horizon)
            parts.append(Measured(widths[keep], estimates[keep], submits[keep],
                                  planned[keep][None, :]))
        return parts

    def _decide(self, qualities: dict[str, float]) -> str:
        """The decider's choice; counts the Table 1 case for the paper's three policies."""
        if self._cases is None:
            return decide_among(qualities, self.order, self.decider, self.candidates)
        policy, case = DECIDERS[self.decider](qualities["fcfs"], qualities["sjf"],
                                              qualities["ljf"], self.order)
        self._cases[case] += 1
        return policy

    def statistics(self) -> dict[str, Any]:
        stats = super().statistics()
        if self._cases is not None:
            stats["cases"] = dict(self._cases)
        return stats


def combine_terms(raw: dict[str, list[float]], weights: Sequence[float]) -> dict[str, float]:
    """One quality per candidate from the values of one or more metrics (Streit 2002, §6).

    A single metric is used as it is.  Several are made comparable by
    dividing each by its largest value among the candidates (so each lies
    in [0, 1]; a metric that is 0 for all contributes 0) and summed with
    their weights.  Equal values stay equal, so ties survive.
    """
    if len(weights) == 1:
        return {policy: values[0] * weights[0] for policy, values in raw.items()}
    largest = [max(values[k] for values in raw.values()) for k in range(len(weights))]
    return {policy: sum(w * v / top for w, v, top in zip(weights, values, largest) if top > 0)
            for policy, values in raw.items()}
