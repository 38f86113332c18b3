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
from heapq import nsmallest
from typing import TYPE_CHECKING, Any, Callable, Sequence

from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deciders import CASE_LABELS, DECIDERS, PAPER_POLICIES, decide_among
from schedlab.policies.orderings import ORDERINGS, OrderKey
from schedlab.policies.planning import PLAN_ORDERINGS, PlanningScheduler, place_in_order

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
# Each measures one candidate schedule: the waiting jobs and their proposed
# starts (two aligned sequences) plus the expected end of the last running
# job.  Lower is better.  A job's planned end is its start plus its estimate:
# the scheduler knows nothing else (Streit 2002, §3.2).  The sums of the
# integer metrics are exact, so two identical schedules get identical numbers
# whatever order their jobs come in; the slowdown sums floats, so it is given
# the jobs in arrival order for every candidate.

def makespan(jobs: Sequence[Job], starts: Sequence[int], running_end: int) -> float:
    """MS = max end of all jobs in the schedule, the running ones included (§3.2)."""
    ends = [s + job.estimate for job, s in zip(jobs, starts)]
    return float(max(running_end, *ends) if ends else running_end)


def average_response(jobs: Sequence[Job], starts: Sequence[int], running_end: int) -> float:
    """ART = mean of (end - submit) over the waiting jobs (§3.2)."""
    if not jobs:
        return 0.0
    return sum(s + job.estimate - job.submit for job, s in zip(jobs, starts)) / len(jobs)


def weighted_response(jobs: Sequence[Job], starts: Sequence[int], running_end: int) -> float:
    """ARTwW = sum of width x (end - submit) over the sum of widths (§3.2)."""
    if not jobs:
        return 0.0
    return (sum(job.width * (s + job.estimate - job.submit) for job, s in zip(jobs, starts))
            / sum(job.width for job in jobs))


def weighted_slowdown(jobs: Sequence[Job], starts: Sequence[int], running_end: int) -> float:
    """SLDwW_60 of the plan (§5.1 as a quality metric, §6): width-weighted bounded slowdown."""
    if not jobs:
        return 0.0
    bound = SLOWDOWN_BOUND
    total = sum(job.width * max(s + job.estimate - job.submit, bound) / max(job.estimate, bound)
                for job, s in zip(jobs, starts))
    return total / sum(job.width for job in jobs)


def average_wait(jobs: Sequence[Job], starts: Sequence[int], running_end: int) -> float:
    """Mean of (start - submit) over the waiting jobs (§6)."""
    if not jobs:
        return 0.0
    return sum(s - job.submit for job, s in zip(jobs, starts)) / len(jobs)


QualityMetric = Callable[[Sequence["Job"], Sequence[int], int], float]

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


def select_future(jobs: Sequence[Job], starts: Sequence[int], now: int, future_jobs: int | None,
                  future_horizon: int | None) -> tuple[Sequence[Job], Sequence[int]]:
    """The part of a schedule the quality is computed from (reduced future, Streit 2002, §6).

    ``future_horizon``: only the jobs planned to start by ``now + future_horizon``;
    ``future_jobs``: only the first ``future_jobs`` jobs to start (ties by
    their position in ``jobs``).  Both may be given (the first k among those
    in the horizon).  The order of ``jobs`` is kept.
    """
    keep = range(len(jobs))
    if future_horizon is not None:
        limit = now + future_horizon
        keep = [i for i in keep if starts[i] <= limit]
    if future_jobs is not None and len(keep) > future_jobs:
        keep = sorted(nsmallest(future_jobs, keep, key=lambda i: (starts[i], i)))
    return [jobs[i] for i in keep], [starts[i] for i in keep]


# ------------------------------------------------------------ self-tuning dynP
class SortedQueue:
    """The waiting jobs kept in one static order, updated at each arrival and start.

    Self-tuning dynP needs the queue in every candidate order at every step;
    keeping SJF and LJF sorted costs a binary search per arrival and start
    instead of a sort per step.
    """

    __slots__ = ("_key", "_keys", "jobs")

    def __init__(self, key: OrderKey) -> None:
        self._key = key
        self._keys: list[tuple] = []
        self.jobs: list[Job] = []

    def add(self, job: Job) -> None:
        key = self._key(job)
        at = bisect_left(self._keys, key)
        self._keys.insert(at, key)
        self.jobs.insert(at, job)

    def remove(self, job: Job) -> None:
        at = bisect_left(self._keys, self._key(job))
        del self._keys[at]
        del self.jobs[at]


class PlanOrder:
    """The order of the jobs in the current plan: the FCFS candidate of ``fcfs_order="plan"``.

    Reading of Streit 2002, §3.1-3.2 (not the literal one): "first come" is
    the order the plan holds the waiting jobs in — the queue of the schedule
    last adopted, whatever policy built it, with the jobs submitted since
    appended in arrival order (the plan inserts them so, at their earliest
    fits).  Under FCFS alone this is the submission order.
    """

    __slots__ = ("_jobs",)

    def __init__(self) -> None:
        self._jobs: dict[int, Job] = {}

    def adopt(self, queue: Sequence[Job]) -> None:
        """The plan was rebuilt or replaced: its queue is the new order."""
        self._jobs = {job.id: job for job in queue}

    def remove(self, started: Sequence[Job]) -> None:
        for job in started:
            self._jobs.pop(job.id, None)

    def queue(self, waiting: dict[int, Job]) -> list[Job]:
        """The waiting jobs in plan order, those not yet in the plan appended (arrival order)."""
        jobs = self._jobs
        for job_id, job in waiting.items():
            if job_id not in jobs:
                jobs[job_id] = job
        return [job for job_id, job in jobs.items() if job_id in waiting]


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

    def on_submit(self, ctx: Context, job: Job) -> None:
        super().on_submit(ctx, job)
        for queue in self._sorted.values():
            queue.add(job)

    def _start_due(self, ctx: Context) -> list[Job]:
        started = super()._start_due(ctx)
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
        return list(kept.jobs) if kept is not None else super().queue(ctx, order)

    def adopt(self, profile: Profile, queue: Sequence[Job], starts: Sequence[int]) -> None:
        super().adopt(profile, queue, starts)
        if self._plan_order is not None:
            self._plan_order.adopt(queue)

    def _update_plan(self, ctx: Context) -> None:
        if len(ctx.waiting) < 2:
            super()._update_plan(ctx)
        else:
            self._self_tuning_step(ctx)

    def _self_tuning_step(self, ctx: Context) -> None:
        """Build a schedule per candidate, measure, decide, adopt the chosen one (§3.2)."""
        now = ctx.now
        base = self.fixed_profile(ctx)
        schedules: dict[str, tuple[list[Job], Profile, list[int]]] = {}
        for policy in self.candidates:
            queue = self.queue(ctx, policy)
            twin = next((built for built in schedules.values() if built[0] == queue), None)
            if twin is None:
                profile = base.copy()
                twin = (queue, profile, place_in_order(profile, queue, now))
            schedules[policy] = twin
        qualities = self.qualities(ctx, schedules)
        self._decided(self._decide(qualities), len(ctx.waiting))
        queue, profile, starts = schedules[self.order]
        self.adopt(profile, queue, starts)

    def qualities(self, ctx: Context, schedules: dict[str, tuple[list[Job], Profile, list[int]]]
                  ) -> dict[str, float]:
        """The quality of each candidate's schedule, slackness applied to the current policy."""
        # Only the makespan reads the end of the last running job.
        running_end = ctx.now if self._no_makespan else \
            max((end for end, _ in ctx.releases()), default=ctx.now)
        waiting = list(ctx.waiting.values())
        raw: dict[str, list[float]] = {}
        for policy, (queue, _, starts) in schedules.items():
            jobs, planned = self._measured_part(ctx.now, waiting, queue, starts)
            raw[policy] = [QUALITY_METRICS[name](jobs, planned, running_end)
                           for _, name in self._terms]
        quality = combine_terms(raw, [weight for weight, _ in self._terms])
        if self.slackness:
            quality[self.order] *= 1 - self.slackness
        return quality

    def _measured_part(self, now: int, waiting: list[Job], queue: list[Job], starts: list[int]
                       ) -> tuple[Sequence[Job], Sequence[int]]:
        """The jobs and starts a candidate is measured on, in arrival order where it matters."""
        if self._exact and self.future_jobs is None and self.future_horizon is None:
            return queue, starts
        start_of = dict(zip([job.id for job in queue], starts))
        return select_future(waiting, [start_of[job.id] for job in waiting], now,
                             self.future_jobs, self.future_horizon)

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
