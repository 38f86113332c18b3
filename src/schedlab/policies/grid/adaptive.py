"""The self-optimizing Deadline classifier (ADH) of Pasquali's thesis, §5.1.

The static Deadline heuristic (§3.1.1, :class:`~schedlab.policies.grid.meta.
DeadlineHeuristic`) cuts ``[0, 2 E[Margin]]`` into intervals whose widths
grow by a factor ``base`` (eqs. 3.3, 3.4), so that on margins spread evenly
over that range the priorities follow the exponential policy of eq. 3.2.
When the margins change faster than their windowed mean follows, the
priorities pile up at the top or the bottom (§5.1.4).  ADH watches the
priorities it gave and changes ``base`` to bring their distribution back
to the target, following the design pattern of §5.1.3:

* :class:`DataRepository` -- the last ``size`` classifications (H, §5.1.3);
* :class:`Polytope` -- the distributions accepted without a change: those
  within ``delta`` of the target (§5.1.2, §5.1.4);
* :class:`Evaluator` -- ``F_eval`` (eq. 5.2): the distance of the current
  distribution from the target, and which way ``base`` should go;
* :class:`Reconfigurator` -- ``F_reconf`` (eq. 5.3): moves ``base`` one step;
* :class:`AdaptiveDeadline` -- the STRATEGY: evaluate, reconfigure, classify,
  store; it records its trajectory (``base`` and distance per job).

The thesis gives neither the rule that turns a distance into a new
``base``, nor the step, nor ``delta``, nor the repository size: those are
our readings (docs/reference/policies/grid.md, "Self-optimizing Deadline classifier
(ADH)").  :func:`replay_classification` runs a job stream's margins through
a classifier alone, as the thesis' own experiment does (§5.1.5).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from schedlab.policies.base import check_choice, check_number
from schedlab.policies.grid.meta import DeadlineHeuristic

#: Norms the polytope may measure distances with: Euclidean (§5.1.4's text) or L1 (its formula).
NORMS = ("l2", "l1")
#: The range ``base`` is kept in: below 1 the top intervals are the widest, past 16 the
#: first interval holds almost nothing (our reading; the thesis gives no bounds).
BASE_RANGE = (Fraction(1, 4), Fraction(16))
#: The priority ratio of the administrator's policy, eq. 3.2: each priority has half the
#: jobs of the one below.
TARGET_RATIO = 2


def check_parameters(owner: str, delta: float, repository: int, base_step: float,
                     norm: str) -> None:
    """InputError naming the first bad ADH parameter of ``owner``."""
    check_number(owner, "delta", delta, float, 0.0)
    check_number(owner, "repository", repository, int, 1)
    check_number(owner, "base_step", base_step, float, 0.001, float(BASE_RANGE[1]))
    check_choice(owner, "norm", norm, NORMS)


def exponential_target(max_priority: int, ratio: float = TARGET_RATIO) -> np.ndarray:
    """The target distribution ``d_target`` of eq. 3.2 over priorities ``1 .. max``.

    ``#job_j = #job_s / ratio^(j-s)``, normalised to sum 1: entry ``p - 1``
    is ``ratio^(max-p) / sum_{k<max} ratio^k``.  ``max = 3``: (4, 2, 1) / 7.
    """
    weights = float(ratio) ** np.arange(max_priority - 1, -1, -1, dtype=float)
    target: np.ndarray = weights / weights.sum()
    return target


def priority_distribution(priorities: Iterable[int], max_priority: int) -> np.ndarray:
    """The vector ``d`` of §5.1.4: the share of ``priorities`` at each of ``1 .. max``."""
    counts = np.bincount(np.fromiter(priorities, dtype=np.int64),
                         minlength=max_priority + 1)[1:max_priority + 1]
    total = counts.sum()
    return counts / total if total else counts.astype(float)


class DataRepository:
    """DATAREPOSITORY (§5.1.3): the last ``size`` input margins with the priority given.

    The priority kept is the interval priority of eqs. 3.3, 3.4 (before the
    ``R_i`` correction): the part of ``Δ_D`` that ``base`` governs (our reading).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: deque[tuple[int, int]] = deque(maxlen=size)

    def store(self, margin: int, priority: int) -> None:
        """Keep one classification; the oldest leaves a full repository."""
        self._entries.append((margin, priority))

    def full(self) -> bool:
        return len(self._entries) == self.size

    def latest(self) -> int:
        """The priority of the last classification stored."""
        return self._entries[-1][1]

    def margins(self) -> np.ndarray:
        """The margins held, oldest first."""
        return np.array([m for m, _ in self._entries], dtype=float)

    def distribution(self, max_priority: int) -> np.ndarray:
        """``d_current`` (§5.1.4) of the priorities held."""
        return priority_distribution((p for _, p in self._entries), max_priority)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class Polytope:
    """The polytope of §5.1.2 as §5.1.4 builds it: ``{d : ||d - d_target|| <= delta}``.

    §5.1.4 writes the ball with ``||.||_1`` and says the distance is
    Euclidean; ``norm`` chooses (``"l2"``, our default, or ``"l1"``).
    """

    target: np.ndarray
    delta: float
    norm: str = "l2"

    def distance(self, current: np.ndarray) -> float:
        """``||d_current - d_target||`` in the polytope's norm."""
        return float(np.linalg.norm(current - self.target, ord=1 if self.norm == "l1" else 2))

    def contains(self, current: np.ndarray) -> bool:
        """``Acceptance``: the classifier behaves well enough, no reconfiguration."""
        return self.distance(current) <= self.delta


@dataclass(frozen=True)
class Evaluation:
    """What the EVALUATOR says: the distance from the target, and the way ``base`` should
    move (+1 up, -1 down, 0 stay)."""

    distance: float
    direction: int


def interval_priorities(margins: np.ndarray, mean: float, base: float,
                        max_priority: int) -> np.ndarray:
    """The interval priorities of eqs. 3.3, 3.4 (``base^k``, §5.1.4) of many margins against
    the mean margin ``mean``, in floating point: the rule of
    :meth:`~schedlab.policies.grid.meta.DeadlineHeuristic.interval_priority`, for
    trying a ``base`` on the repository's margins."""
    powers = float(base) ** np.arange(1, max_priority + 1, dtype=float)
    cuts = np.cumsum(powers)[:-1] / powers.sum()
    margins = np.asarray(margins, dtype=float)
    if mean <= 0:
        return np.where(margins <= 0, max_priority, 1)
    k = np.searchsorted(cuts, margins / (2 * mean), side="right")
    return np.where(margins < 0, max_priority, max_priority - k)


class Evaluator:
    """EVALUATOR, ``F_eval : H x C x P -> C`` (eq. 5.2 with the polytope of §5.1.2).

    Measures the distance of the priorities in the repository from the
    target.  Inside the polytope, or before the repository is full, it asks
    for nothing.  Outside, it classifies the repository's margins again
    against the current mean margin with ``base`` one step up and one step
    down, and asks for the move that brings the distribution nearer the
    target than the current ``base`` does (0 if neither does): margins
    crowded near 0 (too many high priorities, a distribution too flat) ask
    for a larger ``base``, which narrows the top intervals; margins crowded
    near ``2 E[Margin]`` (too steep) for a smaller one.  The thesis does not
    say how Eval computes the new ``base``: this trial on the stored inputs
    is our reading.
    """

    def __init__(self, polytope: Polytope, step: float) -> None:
        self.polytope = polytope
        self.factor = 1 + step

    def evaluate(self, repository: DataRepository, strategy: DeadlineHeuristic) -> Evaluation:
        max_priority = len(self.polytope.target)
        if not len(repository):
            return Evaluation(float("nan"), 0)
        distance = self.polytope.distance(repository.distribution(max_priority))
        if not repository.full() or distance <= self.polytope.delta:
            return Evaluation(distance, 0)
        margins = repository.margins()
        mean = float(strategy.mean_margin(0))
        base = float(strategy.base)
        trial = {direction: self.polytope.distance(priority_distribution(
            interval_priorities(margins, mean, base * self.factor ** direction, max_priority),
            max_priority)) for direction in (0, 1, -1)}
        best = min(trial, key=lambda d: (trial[d], abs(np.log(base * self.factor ** d
                                                            / TARGET_RATIO))))
        return Evaluation(distance, best)


class Reconfigurator:
    """RECONFIGURATOR, ``F_reconf : C -> F_strategy`` (eq. 5.3): multiplies the strategy's
    ``base`` by ``1 + step`` (or divides it) the way the evaluation asks, kept in
    :data:`BASE_RANGE` (§5.1.4)."""

    def __init__(self, step: float) -> None:
        self.factor = 1 + Fraction(step).limit_denominator(1000)

    def reconfigure(self, strategy: DeadlineHeuristic, direction: int) -> bool:
        """Change ``strategy.base``; whether it changed."""
        current = Fraction(strategy.base)
        proposed = min(max(current * self.factor ** direction, BASE_RANGE[0]), BASE_RANGE[1])
        proposed = proposed.limit_denominator(10 ** 6)
        if proposed == current:
            return False
        strategy.set_base(proposed)
        return True


class AdaptiveDeadline:
    """ADH, the self-optimizing Deadline heuristic (thesis §5.1.4): the STRATEGY of §5.1.3.

    For each job: the EVALUATOR reads the repository, the RECONFIGURATOR
    moves ``base`` if the distribution is outside the polytope, the Deadline
    heuristic classifies the job with the (new) ``base``, and the interval
    priority joins the repository.  ``reconfigure=False`` keeps ``base``
    fixed but still measures: the static heuristic under observation.

    :attr:`trajectory` holds, per classified job, ``base`` used and the
    distance the evaluator saw before classifying it.
    """

    def __init__(self, max_priority: int, window: int, base: float = 2, *, delta: float = 0.1,
                 repository: int = 100, base_step: float = 1.0, norm: str = "l2",
                 reconfigure: bool = True) -> None:
        check_parameters("adaptive Deadline (ADH)", delta, repository, base_step, norm)
        self.strategy = DeadlineHeuristic(max_priority, window, base)
        self.repository = DataRepository(repository)
        self.evaluator = Evaluator(Polytope(exponential_target(max_priority), delta, norm),
                                   base_step)
        self.reconfigurator = Reconfigurator(base_step)
        self.reconfigure = reconfigure
        self.reconfigurations = 0
        self.trajectory: dict[str, list[float]] = {"base": [], "distance": []}

    @property
    def base(self) -> float:
        return float(self.strategy.base)

    def contribution(self, margin: int, estimate: int) -> int:
        """``Δ_D`` of the job, after the evaluate-reconfigure step of §5.1.3."""
        evaluation = self.evaluator.evaluate(self.repository, self.strategy)
        if self.reconfigure and evaluation.direction:
            self.reconfigurations += self.reconfigurator.reconfigure(self.strategy,
                                                                     evaluation.direction)
        self.trajectory["base"].append(self.base)
        self.trajectory["distance"].append(evaluation.distance)
        priority = self.strategy.interval_priority(margin)
        self.repository.store(margin, priority)
        return self.strategy.correction(priority, margin, estimate)

    def observe(self, margin: int) -> None:
        self.strategy.observe(margin)

    def statistics(self) -> dict[str, object]:
        """Summary and trajectory for the run's ``policy_stats``."""
        distances = [d for d in self.trajectory["distance"] if d == d]
        return {"adh_reconfigurations": self.reconfigurations,
                "adh_final_base": self.base,
                "adh_mean_distance": round(float(np.mean(distances)), 6) if distances else None,
                "adh_trajectory": {"base": list(self.trajectory["base"]),
                                   "distance": [round(d, 6) if d == d else None
                                                for d in self.trajectory["distance"]]}}


def replay_classification(margins: Iterable[int], estimates: Iterable[int],
                          classifier: AdaptiveDeadline) -> list[int]:
    """Classify a stream of jobs (margin, estimate) in order with ``classifier`` alone, as
    the thesis' own simulator does (§5.1.5); the interval priority of each job (the
    trajectory is in ``classifier.trajectory``)."""
    priorities = []
    for margin, estimate in zip(margins, estimates):
        classifier.contribution(int(margin), int(estimate))
        priorities.append(classifier.repository.latest())
        classifier.observe(int(margin))
    return priorities
