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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.deciders import CASE_LABELS, DECIDERS, PAPER_POLICIES, decide_among
from schedlab.policies.planning import PLAN_ORDERINGS, PlanningScheduler

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.profile import Profile
    from schedlab.policies.dynp_step import Tuned, TuningState
    from schedlab.workload.job import Job

#: The bound of the bounded slowdown in the ``slowdown`` quality metric (SLDwW_60, §5.1).
SLOWDOWN_BOUND = 60
#: The two readings of the FCFS candidate's order (``fcfs_order``, docs/reference/policies/dynp.md):
#: ``submit`` sorts the waiting jobs by submission ("reorder waiting queue according to new
#: policy", Streit 2002, §3.1, taken literally); ``plan`` keeps the current plan's order,
#: the jobs submitted since appended in arrival order.
FCFS_ORDERS = ("submit", "plan")


class _DynPFamily(PlanningScheduler):
    """What both dynP variants share: the current policy and the statistics of Tables 4–6."""

    def __init__(self, *, policies: Sequence[str], initial: str, **reservation: Any) -> None:
        super().__init__(order=initial, **reservation)
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
# Each measures candidate schedules of the same waiting jobs: a value per
# schedule, lower is better.  A job's planned end is its start plus its
# estimate: the scheduler knows nothing else (Streit 2002, §3.2).  The
# metrics of :data:`EXACT_METRICS` are made of integer sums over the jobs
# (:class:`ScheduleSums`): a self-tuning step gets them from its compiled
# placements (:mod:`schedlab.policies.dynp_step`), anything else from
# :class:`Measured` columns (:func:`schedule_sums`); the sums are exact
# (int64, divided as Python ints), so two identical schedules get identical
# numbers.  The slowdown needs every job (:class:`Measured`) and sums floats
# one by one, in the order of the columns: the jobs in arrival order.

class Measured(NamedTuple):
    """Candidate schedules as job columns (1-D) and the starts of each schedule (2-D)."""

    widths: np.ndarray
    estimates: np.ndarray
    submits: np.ndarray
    starts: np.ndarray


class ScheduleSums(NamedTuple):
    """What the exact quality metrics read: one integer sum per schedule, and the jobs' totals."""

    weighted_response: list[int]    # sum of width x (start + estimate - submit)
    response: list[int]             # sum of (start + estimate - submit)
    wait: list[int]                 # sum of (start - submit)
    last_end: list[int]             # latest start + estimate; -1 with no job
    jobs: int
    width: int                      # sum of the widths


def schedule_sums(schedules: Measured) -> ScheduleSums:
    """The :class:`ScheduleSums` of the schedules in ``schedules``, in numpy (exact int64)."""
    widths, estimates, submits, starts = schedules
    response = starts + (estimates - submits)
    return ScheduleSums((response @ widths).tolist(), response.sum(axis=1).tolist(),
                        (starts - submits).sum(axis=1).tolist(),
                        (starts + estimates).max(axis=1, initial=-1).tolist(), len(widths),
                        int(widths.sum()))


def _sums(schedules: Measured | ScheduleSums) -> ScheduleSums:
    return schedules if isinstance(schedules, ScheduleSums) else schedule_sums(schedules)


def makespan(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """MS = max end of all jobs in the schedule, the running ones included (§3.2)."""
    return [float(max(end, running_end)) for end in _sums(schedules).last_end]


def average_response(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """ART = mean of (end - submit) over the waiting jobs (§3.2)."""
    sums = _sums(schedules)
    jobs = sums.jobs
    return [total / jobs if jobs else 0.0 for total in sums.response]


def weighted_response(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """ARTwW = sum of width x (end - submit) over the sum of widths (§3.2)."""
    sums = _sums(schedules)
    width = sums.width
    return [total / width if width else 0.0 for total in sums.weighted_response]


def weighted_slowdown(schedules: Measured, running_end: int) -> list[float]:
    """SLDwW_60 of the plan (§5.1 as a quality metric, §6): width-weighted bounded slowdown."""
    bound = SLOWDOWN_BOUND
    widths, estimates = schedules.widths, schedules.estimates
    response = np.maximum(schedules.starts + (estimates - schedules.submits), bound)
    values = widths * response / np.maximum(estimates, bound)
    width = int(widths.sum())
    return [sum(row) / width if width else 0.0 for row in values.tolist()]


def average_wait(schedules: Measured | ScheduleSums, running_end: int) -> list[float]:
    """Mean of (start - submit) over the waiting jobs (§6)."""
    sums = _sums(schedules)
    jobs = sums.jobs
    return [total / jobs if jobs else 0.0 for total in sums.wait]


QualityMetric = Callable[[Measured | ScheduleSums, int], list[float]]

QUALITY_METRICS: dict[str, QualityMetric] = {
    "artww": weighted_response, "art": average_response, "ms": makespan,
    "slowdown": weighted_slowdown, "wait": average_wait,
}
#: The metrics made of :class:`ScheduleSums` (exact: independent of the order of the jobs).
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
        self._from_sums = self._exact and future_jobs is None and future_horizon is None
        self._one_term = terms == ((1.0, terms[0][1]),)     # the metric as it is
        # What TuningState.step decides by, when it may (_new_state): the ordering fact,
        # whether the current policy is kept on ties, whether to count Table 1 cases.
        self._compiled_decision: tuple[int, bool, bool] | None = None

    def _new_state(self, ctx: Context) -> TuningState:
        """The step's arrays, for every run; they track the running jobs when the run lets them.

        With the running jobs tracked, static candidate orders and one exact
        metric as it is (no weight, slackness or reduced future), the step
        also decides in compiled code (:meth:`TuningState.step
        <schedlab.policies.dynp_step.TuningState.step>`).
        """
        from schedlab.policies.dynp_step import ORDERING_FACT, TuningState
        given = {"fcfs"} if self._plan_order is not None else set()
        tracks = ctx.overrun == "kill" and not ctx.reservations_enabled
        state = TuningState(ctx.processors, self.candidates, given, tracks)
        if (tracks and self._from_sums and self._one_term and not self.slackness
                and not state.given_candidates and set(self.candidates) <= set(PAPER_POLICIES)):
            self._compiled_decision = (ORDERING_FACT[self._terms[0][1]],
                                       self.decider == "advanced", self._cases is not None)
        return state

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

        Where the step runs compiled throughout (:meth:`_new_state`) it also
        serves the short queues: it then keeps the current policy's schedule,
        which is the planning scheduler's insertion or rebuild of at most one
        job, and counts no decision.
        """
        if self._compiled_decision is not None or len(ctx.waiting) >= 2:
            self._self_tuning_step(ctx)
        else:
            super()._update_plan(ctx)

    def _self_tuning_step(self, ctx: Context) -> None:
        """Build a schedule per candidate, measure, decide, adopt the chosen one (§3.2).

        One compiled call places every distinct candidate queue on its own
        copy of the fixed part of the schedule and sums what the exact
        metrics need (:meth:`TuningState.tune
        <schedlab.policies.dynp_step.TuningState.tune>`; candidates whose
        queues coincide share one schedule).  The fixed part is the running
        jobs' profile the state keeps or, with advance reservations or
        overrunning jobs, :meth:`fixed_profile`.  The chosen schedule's
        sorted (start, job id) pairs become the plan's heap as they are.

        Where the state allows (:meth:`_new_state`) the same call also
        decides and takes the chosen schedule's jobs due now out of the
        state (:meth:`TuningState.step
        <schedlab.policies.dynp_step.TuningState.step>`); otherwise, or when
        it could not order the candidates exactly, the metric and the
        decider run here (:meth:`qualities`, :meth:`_decide`).
        """
        state = self._state
        waiting = state.waiting
        for c in state.given_candidates:
            queue = self.queue(ctx, self.candidates[c])
            state.give(c, [state.arrival_of[job.id] for job in queue])
        chosen, decide = -1, waiting >= 2
        if self._compiled_decision is not None:
            tuned, chosen, case = state.step(ctx.now, self._index[self.order],
                                             *self._compiled_decision, decide)
        else:
            tuned = state.tune(ctx.now, None if state.tracks_running
                               else self.fixed_profile(ctx))
        if chosen < 0:                      # decided here; the state still holds the due jobs
            self._decided(self._decide(self.qualities(ctx, tuned)), waiting)
            tuned.choose(self._index[self.order], False)
        elif decide:
            if self._cases is not None:
                self._cases[CASE_LABELS[case]] += 1
            self._decided(self.candidates[chosen], waiting)
        if self._plan_order is not None:
            self._plan_order.adopt(state.ids_at(state.queue_of(tuned.chosen)))
        self._adopt_step(tuned)

    def qualities(self, ctx: Context, tuned: Tuned) -> dict[str, float]:
        """The quality of each candidate's schedule, slackness applied to the current policy."""
        state = self._state
        if self._no_makespan:               # only the makespan reads the last running job
            running_end = ctx.now
        elif state.tracks_running:
            running_end = state.running_end(ctx.now)
        else:
            running_end = max((end for end, _ in ctx.releases()), default=ctx.now)
        if self._from_sums:
            sums = tuned.schedule_sums()
            values = [QUALITY_METRICS[name](sums, running_end) for _, name in self._terms]
        else:
            schedules = Measured(*state.arrival_columns(), tuned.candidate_starts())
            if self.future_jobs is None and self.future_horizon is None:
                values = [QUALITY_METRICS[name](schedules, running_end) for _, name in self._terms]
            else:
                values = [[QUALITY_METRICS[name](part, running_end)[0]
                           for part in self._reduced_futures(ctx.now, schedules)]
                          for _, name in self._terms]
        if self._one_term:
            quality = dict(zip(self.candidates, values[0]))
        else:
            quality = combine_terms({policy: [term[c] for term in values]
                                     for c, policy in enumerate(self.candidates)},
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
