"""The meta-scheduler of Pasquali's thesis (§3.1): classify each job, then dispatch it.

Classification (§3.1.1) labels each submitted job with a priority in
``[1, max]``, the rounded weighted average of three heuristics that read
only the job's static description:

* :class:`DeadlineHeuristic` -- ``Δ_D`` from the job's *Margin* against the
  mean margin of the last ``N`` jobs (eqs. 3.1-3.4), corrected by
  ``R_i = Margin_i / Estimated_i``;
* :func:`licence_contribution` -- ``Δ_L`` from how many licence types the
  job needs, ``[0, |L|]`` split into ``max`` equal subintervals;
* :func:`user_contribution` -- ``Δ_U``, the value of the user's class
  (Gold, Silver, Regular) plus the job's owner priority 0..3.

Dispatch (§3.1.2, :class:`MetaScheduler`) keeps per cluster two arrays over
the priorities, built from the jobs sent and not yet ended (only
submissions and ends cross the levels): *Load* -- their estimated work at
priority ``p`` or higher (Fig. 12) -- and *Ordering* -- their number at
priority ``p`` or higher (Fig. 13).  A job of priority ``P`` goes to the
first cluster with no load at ``P``; otherwise to the least loaded at
``P``, and among clusters loaded about as little, to the one with the
fewest jobs at ``P``, ties drawn with the run's seed.

Where the thesis is garbled or silent the rule is our reading, each
listed in docs/reference/policies/grid.md ("The meta-scheduler").  The Deadline
heuristic is an object with a ``base`` (eq. 3.4 with ``base^k``, §5.1.4) so
that a self-optimizing classifier can replace it.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.base import check_bool, check_choice, check_number
from schedlab.policies.grid.base import Dispatcher
from schedlab.policies.grid.dispatch import job_work

if TYPE_CHECKING:
    from schedlab.engine.grid import GridTask, MetaView

#: What a cluster's load is measured against: raw work (thesis) or work per unit of power.
LOAD_SCALES = ("work", "power")
#: The Deadline classifiers: the static heuristic (§3.1.1) or ADH (§5.1.4).
DEADLINE_CLASSIFIERS = ("static", "adaptive")


class DeadlineClassifier(Protocol):
    """What the meta-scheduler asks of a Deadline heuristic (the static one, or later a
    self-optimizing one, thesis §5.1.4): ``Δ_D`` of a job, then hear the job."""

    def contribution(self, margin: int, estimate: int) -> int: ...
    def observe(self, margin: int) -> None: ...


class DeadlineHeuristic:
    """``Δ_D`` of the thesis' Deadline heuristic (§3.1.1, eqs. 3.1-3.4), in ``[0, max]``.

    ``Margin_i = Deadline_i - Estimated_i - Submission_i``.  With ``E`` the
    mean margin of the last ``window`` jobs with a deadline (eq. 3.1), the
    interval ``[0, 2E]`` is cut at ``S_k = 2E * sum_{j<=k} base^j /
    sum_{j<=max} base^j`` (eqs. 3.3, 3.4; ``base`` = 2 in §3.1.1, a free
    parameter in §5.1.4), and a margin in ``[S_k, S_{k+1})`` gets
    ``max - k``: the smallest margins, in the narrowest interval, get
    ``max``.  A margin past ``2E`` gets 1, a negative one ``max``.  Then
    ``R = Margin / Estimated`` corrects it: ``R >= 1`` subtracts
    ``floor(R)`` (not below 0); ``R < 1`` adds ``w``, the index of
    ``(1/2^(w+1), 1/2^w]`` holding ``R`` (the last one, ``w = max - 1``,
    reaching down to ``-inf``), not above ``max``.
    """

    def __init__(self, max_priority: int, window: int, base: float = 2) -> None:
        self.max_priority = max_priority
        self._margins: deque[int] = deque(maxlen=window)
        self.set_base(base)

    def set_base(self, base: float | Fraction) -> None:
        """Cut ``[0, 2E]`` with ``base`` from now on (eq. 3.4 with ``base^k``, §5.1.4): the
        tuning parameter a self-optimizing classifier changes."""
        self.base = base
        powers = [Fraction(base) ** j for j in range(1, self.max_priority + 1)]
        total = sum(powers)
        #: S_k / (2E) for k = 1 .. max-1: the cuts of [0, 1] between the intervals.
        self.cuts = [sum(powers[:k]) / total for k in range(1, self.max_priority)]

    def mean_margin(self, margin: int) -> Fraction:
        """E[Margin] over the window (eq. 3.1); a job with an empty window is its own mean."""
        if not self._margins:
            return Fraction(margin)
        return Fraction(sum(self._margins), len(self._margins))

    def interval_priority(self, margin: int) -> int:
        """``max - k`` for the interval ``[S_k, S_{k+1})`` of ``[0, 2E]`` holding ``margin``."""
        mean = self.mean_margin(margin)
        if margin < 0:
            return self.max_priority
        if mean <= 0:
            return self.max_priority if margin <= 0 else 1
        position = Fraction(margin) / (2 * mean)
        k = sum(1 for cut in self.cuts if position >= cut)
        return self.max_priority - k

    def correction(self, priority: int, margin: int, estimate: int) -> int:
        """The ``R_i = Margin_i / Estimated_i`` correction of ``priority`` (§3.1.1)."""
        if estimate <= 0:
            return priority
        ratio = Fraction(margin, estimate)
        if ratio >= 1:
            return max(priority - int(ratio), 0)
        w = 0
        while w < self.max_priority - 1 and ratio * 2 ** (w + 1) <= 1:
            w += 1
        return min(priority + w, self.max_priority)

    def contribution(self, margin: int, estimate: int) -> int:
        """``Δ_D`` of a job with this margin and estimate, against the current window."""
        return self.correction(self.interval_priority(margin), margin, estimate)

    def observe(self, margin: int) -> None:
        """Add a classified job's margin to the window."""
        self._margins.append(margin)


def licence_contribution(needed: int, licence_types: int, max_priority: int) -> int:
    """``Δ_L`` (§3.1.1, Fig. 11): the index, from 1, of the subinterval of ``[0, |L|]``
    (``max`` of width ``|L| / max``) holding the number of licence types the job needs.

    |L| = 20, max = 10, 5 licences: ``[4, 6)`` is the 3rd subinterval, ``Δ_L = 3``.
    ``needed = |L|`` is in the last one (``max``).
    """
    if licence_types <= 0:
        return 1
    return min(needed * max_priority // licence_types + 1, max_priority)


def user_contribution(user_class: int, owner_priority: int,
                      class_values: tuple[int, int, int]) -> int:
    """``Δ_U`` (§3.1.1): the value of the user's class (Regular, Silver, Gold) plus the
    job's owner priority 0..3."""
    return class_values[user_class] + owner_priority


def combined_priority(contributions: tuple[int, int, int], weights: tuple[float, float, float],
                      max_priority: int) -> int:
    """The weighted average of ``(Δ_D, Δ_L, Δ_U)``, rounded half up, clamped to ``[1, max]``."""
    total = sum(Fraction(w) * c for w, c in zip(weights, contributions)) / sum(
        Fraction(w) for w in weights)
    rounded = int(total + Fraction(1, 2))
    return min(max(rounded, 1), max_priority)


class MetaScheduler(Dispatcher):
    """Pasquali's meta-scheduler (thesis §3.1): Deadline, Licence and User heuristics
    classify each job into a priority in ``[1, max]``; the Load and Ordering functions
    dispatch it.

    Parameters (thesis values where it gives them, else our reading):

    * ``max_priority`` -- the thesis' ``max``, the highest priority (10, §3.1.1);
    * ``window`` -- N, jobs with a deadline in E[Margin] (100; not given);
    * ``base`` -- of the Deadline intervals (2, eq. 3.3);
    * ``w_deadline``, ``w_licence``, ``w_user`` -- the weights (1 each; not given);
    * ``regular``, ``silver``, ``gold`` -- the User class values (1, 4, 7; not
      given: with owner priority 0..3 they span [1, 10] without overlap);
    * ``licence_types`` -- |L| (0: the platform's licence types);
    * ``tolerance`` -- clusters whose load at P is within this fraction of the
      least are "balanced" and Ordering chooses among them (0.1; not given);
    * ``load`` -- ``work`` (estimated work, thesis) or ``power`` (work per unit
      of cluster power, CPUs x rating);
    * ``classify`` -- ``False`` gives every job priority 1: Load and Ordering
      without the heuristics (the meta-scheduler of §4.3.1's "LS Heuristics"
      and "NO Heuristics" cases, our reading);
    * ``deadline`` -- ``static`` (§3.1.1) or ``adaptive``: the self-optimizing
      Deadline classifier ADH (§5.1, :mod:`schedlab.policies.grid.adaptive`),
      tuned by ``delta`` (the polytope's radius, 0.1), ``repository`` (jobs
      whose priorities it judges, 100), ``base_step`` (``base`` is multiplied
      or divided by ``1 + base_step``, 1: doubled or halved) and ``norm`` (``l2`` or ``l1``);
      none given by the thesis, all ignored under ``static``.

    The priority a job gets is written to ``task.priority`` for the local
    policies (§4.3.1 "MS heuristics").
    """

    name = "ms-heuristics"

    def __init__(self, max_priority: int = 10, window: int = 100, base: float = 2,
                 w_deadline: float = 1.0, w_licence: float = 1.0, w_user: float = 1.0,
                 regular: int = 1, silver: int = 4, gold: int = 7, licence_types: int = 0,
                 tolerance: float = 0.1, load: str = "work", classify: bool = True,
                 deadline: str = "static", delta: float = 0.1, repository: int = 100,
                 base_step: float = 1.0, norm: str = "l2") -> None:
        check_number(self.name, "max_priority", max_priority, int, 1)
        check_number(self.name, "window", window, int, 1)
        check_number(self.name, "base", base, float, 1.0)
        for key, weight in (("w_deadline", w_deadline), ("w_licence", w_licence),
                            ("w_user", w_user)):
            check_number(self.name, key, weight, float, 0.0)
        if w_deadline + w_licence + w_user <= 0:
            raise InputError(f"{self.name}: at least one of w_deadline, w_licence, w_user "
                             f"must be > 0 (all are 0)", field="w_deadline")
        for key, value in (("regular", regular), ("silver", silver), ("gold", gold)):
            check_number(self.name, key, value, int, 0)
        check_number(self.name, "licence_types", licence_types, int, 0)
        check_number(self.name, "tolerance", tolerance, float, 0.0)
        check_choice(self.name, "load", load, LOAD_SCALES)
        check_bool(self.name, "classify", classify)
        check_choice(self.name, "deadline", deadline, DEADLINE_CLASSIFIERS)
        from schedlab.policies.grid.adaptive import check_parameters

        check_parameters(self.name, delta, repository, base_step, norm)
        self.max_priority = max_priority
        self.window = window
        self.base = base
        self.w_deadline, self.w_licence, self.w_user = w_deadline, w_licence, w_user
        self.regular, self.silver, self.gold = regular, silver, gold
        self.licence_types = licence_types
        self.tolerance = tolerance
        self.load = load
        self.classify = classify
        self.delta, self.repository, self.base_step, self.norm = delta, repository, base_step, norm
        self.deadline_classifier = self._deadline_classifier(deadline)
        # Per cluster and priority p (clusters x (max + 1)): the work and the number of the
        # jobs sent; all four are set for the platform and the run's seed at the first job
        # (:meth:`_start`).
        self._rng = np.random.default_rng(0)
        self._load: np.ndarray = np.zeros((0, max_priority + 1), dtype=np.int64)
        self._count: np.ndarray = np.zeros((0, max_priority + 1), dtype=np.int64)
        self._scale: np.ndarray = np.ones(0)
        self._work: dict[int, int] = {}           # job id -> its work when sent

    def _deadline_classifier(self, kind: str) -> DeadlineClassifier:
        """The static Deadline heuristic (§3.1.1) or its self-optimizing form (§5.1.4)."""
        self.deadline = kind
        if kind == "static":
            return DeadlineHeuristic(self.max_priority, self.window, self.base)
        from schedlab.policies.grid.adaptive import AdaptiveDeadline

        return AdaptiveDeadline(self.max_priority, self.window, self.base, delta=self.delta,
                                repository=self.repository, base_step=self.base_step,
                                norm=self.norm)

    def statistics(self) -> dict[str, Any]:
        """The adaptive Deadline classifier's reconfigurations and trajectory, if any."""
        statistics = getattr(self.deadline_classifier, "statistics", None)
        return statistics() if statistics is not None else {}

    # ------------------------------------------------------------ classification
    def priority_of(self, task: GridTask, licence_types: int) -> int:
        """The job's priority in ``[1, max]`` (§3.1.1); its margin joins the window."""
        job = task.job
        if job.deadline is None:
            delta_d = 0
        else:
            margin = job.deadline - job.estimate - job.submit
            delta_d = self.deadline_classifier.contribution(margin, job.estimate)
            self.deadline_classifier.observe(margin)
        delta_l = licence_contribution(len(task.licences), licence_types, self.max_priority)
        delta_u = user_contribution(task.user_class, task.owner_priority,
                                    (self.regular, self.silver, self.gold))
        return combined_priority((delta_d, delta_l, delta_u),
                                 (self.w_deadline, self.w_licence, self.w_user),
                                 self.max_priority)

    # ------------------------------------------------------------ scheduling
    def dispatch(self, view: MetaView, task: GridTask) -> int:
        if not len(self._load):
            self._start(view)
        types = self.licence_types or len(view.platform.licence_names)
        priority = self.priority_of(task, types) if self.classify else 1
        task.priority = priority
        cluster = self.choose(view.eligible_clusters(task), priority)
        self._work[task.id] = job_work(task)
        self._add(cluster, priority, self._work[task.id], +1)
        return cluster

    def choose(self, eligible: np.ndarray, priority: int) -> int:
        """Load, then Ordering (§3.1.2) among ``eligible`` for a job of ``priority``."""
        load = self.load_at(priority)[eligible]
        idle = np.flatnonzero(load == 0)
        if idle.size:
            return int(eligible[idle[0]])
        balanced = eligible[load <= load.min() * (1 + self.tolerance)]
        count = self.ordering_at(priority)[balanced]
        fewest = balanced[count == count.min()]
        if fewest.size == 1:
            return int(fewest[0])
        return int(fewest[self._rng.integers(fewest.size)])

    def load_at(self, priority: int) -> np.ndarray:
        """Per cluster, the Load array at ``priority``: work of its jobs of that priority
        or higher (divided by the cluster's power under ``load="power"``)."""
        load: np.ndarray = self._cumulative(self._load)[:, priority] / self._scale
        return load

    def ordering_at(self, priority: int) -> np.ndarray:
        """Per cluster, the Ordering array at ``priority``: its jobs of that priority or
        higher."""
        return self._cumulative(self._count)[:, priority]

    def on_finish(self, view: MetaView, task: GridTask) -> None:
        self._add(task.cluster, task.priority, self._work.pop(task.id), -1)

    # ------------------------------------------------------------ bookkeeping
    def _start(self, view: MetaView) -> None:
        platform = view.platform
        clusters = len(platform.clusters)
        self._rng = np.random.default_rng(view.seed)
        self._load = np.zeros((clusters, self.max_priority + 1), dtype=np.int64)
        self._count = np.zeros((clusters, self.max_priority + 1), dtype=np.int64)
        self._scale = np.ones(clusters) if self.load == "work" else np.bincount(
            platform.cluster_of, weights=platform.cpus * platform.rating, minlength=clusters)

    def _add(self, cluster: int, priority: int, work: int, sign: int) -> None:
        """A job of ``priority`` and ``work`` joins (+1) or leaves (-1) ``cluster``."""
        self._load[cluster, priority] += sign * work
        self._count[cluster, priority] += sign

    @staticmethod
    def _cumulative(per_priority: np.ndarray) -> np.ndarray:
        """Column p: the sum over priorities >= p (the arrays of Figs. 12 and 13)."""
        return np.cumsum(per_priority[:, ::-1], axis=1)[:, ::-1]
