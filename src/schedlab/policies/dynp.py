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
metrics (``metric="artww+ms"``).  docs/reference/policies/dynp.md describes each.

The quality metrics are :mod:`schedlab.policies.dynp_metrics`; the arrays a
self-tuning step reads and its compiled placements (and, where the run
allows, its compiled decision) are the planning state of
:mod:`schedlab.policies.dynp_step`, below both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deciders import CASE_LABELS, DECIDERS, PAPER_POLICIES, decide_among
from schedlab.policies.dynp_metrics import Measured, Quality, parse_quality_metric
from schedlab.policies.planning import PLAN_ORDERINGS, PlanningScheduler

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.profile import Profile
    from schedlab.policies.dynp_step import Tuned, TuningState
    from schedlab.workload.job import Job

#: The two readings of the FCFS candidate's order (``fcfs_order``, docs/reference/policies/dynp.md):
#: ``submit`` sorts the waiting jobs by submission ("reorder waiting queue according to new
#: policy", Streit 2002, §3.1, taken literally); ``plan`` keeps the current plan's order,
#: the jobs submitted since appended in arrival order.
FCFS_ORDERS = ("submit", "plan")


class _DynPFamily(PlanningScheduler):
    """What both dynP variants share: the current policy and the statistics of Tables 4–6."""

    def __init__(self, *, policies: Sequence[str], initial: str, predictor: str,
                 **reservation: Any) -> None:
        super().__init__(order=initial, predictor=predictor, **reservation)
        self._orders = tuple(policies)
        self._index = {policy: c for c, policy in enumerate(policies)}
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
                 predictor: str = "estimate", **reservation: Any) -> None:
        check_number(self.name, "threshold", threshold, int, 1)
        check_number(self.name, "lower", lower, float, 0)
        check_number(self.name, "upper", upper, float, 0)
        if upper < lower:
            raise InputError(f"The 'upper' parameter of {self.name} must be >= lower ({lower}). "
                             f"Got {upper!r} instead.", field="upper")
        super().__init__(policies=PAPER_POLICIES, initial="fcfs", predictor=predictor,
                         **reservation)
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


def parse_candidates(policy: str, candidates: str | Sequence[str]) -> tuple[str, ...]:
    """Candidate policies as a tuple: a sequence of names or one comma-separated string."""
    names = candidates.split(",") if isinstance(candidates, str) else list(candidates)
    names = [str(name).strip().lower() for name in names]
    if not names or len(set(names)) != len(names) or not set(names) <= set(PLAN_ORDERINGS):
        raise InputError(f"The 'candidates' parameter of {policy} must be distinct policies "
                         f"from {', '.join(PLAN_ORDERINGS)}. Got {candidates!r} instead.",
                         field="candidates")
    return tuple(names)


# ------------------------------------------------------------ self-tuning dynP
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

    Extensions (§6), see docs/reference/policies/dynp.md: ``slackness`` (the current
    policy's quality counts ``1 - slackness`` times its value, so another
    policy must be better by that fraction), ``future_jobs`` /
    ``future_horizon`` (reduced future,
    :func:`~schedlab.policies.dynp_metrics.select_future`),
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
                 fcfs_order: str = "submit", predictor: str = "estimate",
                 **reservation: Any) -> None:
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
                         predictor=predictor, **reservation)
        self.decider = decider
        self.metric = metric
        self.candidates = policies
        self.slackness = slackness
        self.future_jobs = future_jobs
        self.future_horizon = future_horizon
        self.fcfs_order = fcfs_order
        self._plan_order = PlanOrder() if fcfs_order == "plan" else None
        self._quality = Quality(terms, future_jobs, future_horizon)
        self._cases = dict.fromkeys(CASE_LABELS, 0) if policies == PAPER_POLICIES else None

    def _new_state(self, ctx: Context) -> TuningState:
        """The step's arrays, for every run; they track the running jobs when the run lets them.

        The state decides in compiled code too (:class:`Decision
        <schedlab.policies.dynp_step.Decision>`) when the metric is one exact
        metric as it is and no slackness applies, and the state keeps the
        running jobs' profile and every candidate's order
        (:meth:`TuningState.tuning_step
        <schedlab.policies.dynp_step.TuningState.tuning_step>`).
        """
        from schedlab.policies.dynp_step import Decision, TuningState
        given = {"fcfs"} if self._plan_order is not None else set()
        tracks = ctx.ends_as_expected and not ctx.reservations_enabled
        metric = None if self.slackness else self._quality.exact_single()
        decision = None if metric is None else Decision.by(metric, self.decider == "advanced",
                                                           self._cases is not None)
        return TuningState(ctx.processors, self.candidates, given, tracks, decision)

    def _start_due(self, ctx: Context) -> list[Job]:
        started = super()._start_due(ctx)
        if self._plan_order is not None:
            self._plan_order.remove(started)
        return started

    def queue(self, ctx: Context, order: str) -> list[Job]:
        if order == "fcfs" and self._plan_order is not None:
            return self._plan_order.queue(ctx.waiting)
        return super().queue(ctx, order)

    def adopt(self, profile: Profile | Callable[[], Profile], job_ids: Sequence[int],
              starts: Sequence[int]) -> None:
        super().adopt(profile, job_ids, starts)
        if self._plan_order is not None:
            self._plan_order.adopt(job_ids)

    def _update_plan(self, ctx: Context) -> None:
        """A self-tuning step, or with fewer than two jobs waiting the planning scheduler's update.

        A state that decides (:meth:`_new_state`) also serves the short
        queues: it then keeps the current policy's schedule, which is the
        planning scheduler's insertion or rebuild of at most one job, and
        counts no decision.
        """
        state = self._state                 # None before the first submission
        if (state is not None and state.decision is not None) or len(ctx.waiting) >= 2:
            self._self_tuning_step(ctx)
        else:
            super()._update_plan(ctx)

    def _self_tuning_step(self, ctx: Context) -> None:
        """Build a schedule per candidate, measure, decide, adopt the chosen one (§3.2).

        One compiled call places every distinct candidate queue on its own
        copy of the fixed part of the schedule and sums what the exact
        metrics need; where the state decides, the same call also decides
        and takes the chosen schedule's jobs due now out of the state
        (:meth:`TuningState.tuning_step
        <schedlab.policies.dynp_step.TuningState.tuning_step>`).  Otherwise,
        or when it could not order the candidates exactly, the metric and
        the decider run here (:meth:`qualities`, :meth:`_decide`).  The
        chosen schedule's sorted (start, job id) pairs become the plan's
        heap as they are.
        """
        state = self._state
        assert state is not None, "a self-tuning step before the run began"
        waiting = state.waiting
        for c in state.given_candidates:
            queue = self.queue(ctx, self.candidates[c])
            state.give(c, [state.arrival_of[job.id] for job in queue])
        tuned, chosen, case = state.tuning_step(ctx.now, self._index[self.order], ctx.profile)
        if chosen < 0:                      # decided here; the state still holds the due jobs
            self._decided(self._decide(self.qualities(ctx, tuned)), waiting)
            tuned.choose(self._index[self.order], False)
        elif waiting >= 2:
            if self._cases is not None:
                self._cases[CASE_LABELS[case]] += 1
            self._decided(self.candidates[chosen], waiting)
        if self._plan_order is not None:
            self._plan_order.adopt(state.ids_at(state.queue_of(tuned.chosen)))
        self._adopt_step(tuned)

    def qualities(self, ctx: Context, tuned: Tuned) -> dict[str, float]:
        """The quality of each candidate's schedule, slackness applied to the current policy."""
        state = self._state
        assert state is not None, "a quality measured before the run began"
        quality = self._quality.measure(
            self.candidates, ctx.now, self._running_end(ctx), tuned.schedule_sums,
            lambda: Measured(*state.arrival_columns(), tuned.candidate_starts()))
        if self.slackness:
            quality[self.order] *= 1 - self.slackness
        return quality

    def _running_end(self, ctx: Context) -> int:
        """When the last running job is expected to end, where the metric reads it (else now)."""
        if not self._quality.reads_running_end:
            return ctx.now
        state = self._state
        if state is not None and state.tracks_running:
            return state.running_end(ctx.now)
        return max((end for end, _ in ctx.releases()), default=ctx.now)

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
