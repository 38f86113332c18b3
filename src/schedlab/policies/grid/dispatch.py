"""Baseline dispatchers of the meta-scheduler (thesis §3.1.2): which cluster gets a job.

Each chooses among the clusters that have a machine the job could ever
run on (:meth:`~schedlab.engine.grid.MetaView.eligible_clusters`); ties go to
the cluster listed first in the platform.  They know only what crosses the
levels in the thesis -- submissions and job ends -- plus the platform's
static description, unless a parameter says otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from schedlab.policies.base import check_choice
from schedlab.policies.grid.base import Dispatcher

if TYPE_CHECKING:
    from schedlab.engine.grid import GridTask, MetaView

LOAD_MODES = ("outstanding", "remaining")
WEIGHTS = ("machines", "rating")


class RoundRobin(Dispatcher):
    """Clusters in turn: the first eligible cluster after the one chosen last."""

    name = "round-robin"

    def __init__(self) -> None:
        self._last = -1

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        eligible = view.cluster_indices(task)
        self._last = next((c for c in eligible if c > self._last), eligible[0])
        return self._last


class RandomDispatch(Dispatcher):
    """An eligible cluster drawn uniformly, from a generator seeded with the run's seed."""

    name = "random"

    def __init__(self) -> None:
        self._rng: np.random.Generator | None = None

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        if self._rng is None:
            self._rng = np.random.default_rng(view.seed)
        eligible = view.eligible_clusters(task)
        return int(eligible[self._rng.integers(len(eligible))])


def job_work(task: GridTask) -> int:
    """A job's estimated work in CPU-seconds at rating 1: width x estimate x BM_job (eq. 3.9)."""
    return task.width * task.estimate_left * task.rating


class LeastWork(Dispatcher):
    """The eligible cluster with the least work per unit of power.

    A cluster's load is the estimated work of its jobs (width x estimate x
    job rating, :func:`job_work`) divided by its power, the sum of
    CPUs x rating over its machines: the time the cluster would need to
    drain it.  ``load="outstanding"`` (default) counts every job sent and
    not ended with its whole estimate -- only what crosses the levels
    (§3.1.2); ``load="remaining"`` counts a running job's work still to come
    by its expected end, which needs start times from the clusters.
    """

    name = "least-work"

    def __init__(self, load: str = "outstanding") -> None:
        check_choice(self.name, "load", load, LOAD_MODES)
        self.load = load
        self._power: np.ndarray | None = None

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        platform = view.platform
        if self._power is None:
            self._power = np.bincount(platform.cluster_of, weights=platform.cpus * platform.rating)
        eligible = view.eligible_clusters(task)
        loads = [self._work(view, int(c)) / self._power[c] for c in eligible]
        return int(eligible[int(np.argmin(loads))])

    def _work(self, view: MetaView, cluster: int) -> int:
        rating = view.platform.rating
        total = 0
        for t in view.outstanding[cluster].values():
            if self.load == "remaining" and t.start >= 0:
                total += t.width * max(t.expected_end - view.now, 0) * int(rating[t.machine])
            else:
                total += job_work(t)
        return total


class Proportional(Dispatcher):
    """Jobs in proportion to cluster power: the eligible cluster whose count of jobs
    received, plus this one, is smallest relative to its weight.

    ``weight="machines"`` (default) -- its number of machines; ``"rating"`` --
    the sum of its machines' ratings.  Over many jobs each cluster gets
    its weight's share (as far as eligibility allows).
    """

    name = "proportional"

    def __init__(self, weight: str = "machines") -> None:
        check_choice(self.name, "weight", weight, WEIGHTS)
        self.weight = weight
        self._weights: np.ndarray | None = None

    def dispatch(self, view: MetaView, task: GridTask) -> int:
        platform = view.platform
        if self._weights is None:
            per_machine = np.ones_like(platform.rating) if self.weight == "machines" \
                else platform.rating
            self._weights = np.bincount(platform.cluster_of, weights=per_machine)
        eligible = view.eligible_clusters(task)
        after = [(view.dispatched[c] + 1) / self._weights[c] for c in eligible]
        return int(eligible[int(np.argmin(after))])
