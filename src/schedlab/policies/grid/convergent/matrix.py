"""The Job-Machine matrix of Convergent Scheduling (Pasquali thesis §3.2.2).

``P`` has one row per job of the cluster -- queued *and* running ("the
scheduler assigns priorities to all the jobs in the cluster") -- and one
column per machine of the cluster.  ``P[i, m] > 0`` says how well machine
``m`` suits job ``i``; ``0`` means ``i`` cannot run on ``m`` (thesis:
"When an association job-machine is not eligible ... the related matrix
entry is set equal to zero").  Every heuristic of :mod:`.heuristics` adds
its weighted contribution on the eligible entries.

:class:`ClusterState` is everything the heuristics read, as numpy columns:
a snapshot that a local policy (or a test) builds, with no engine inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.platform.model import Platform
    from schedlab.policies.grid.convergent.heuristics import Weights
    from schedlab.workload.grid import GridWorkload

#: ``input_location`` of a job whose input lies on the cluster's storage, not on a machine.
STORAGE = -1
#: ``machine`` of a job that is not running.
QUEUED = -1


@dataclass(frozen=True, eq=False)
class ClusterState:
    """One cluster at time ``now``: its jobs (rows) and machines (columns).

    Per job ``i`` (queued and running):

    * ``estimate_left[i]``: seconds of its estimate still to run, measured at
      its own rating: the thesis' ``estimated_i x (1 - progress_i)`` (eq. 3.9);
    * ``job_rating[i]``: the rating its estimate was measured at (``BM_m-bar``);
    * ``width[i]``: CPUs on one machine; ``submit[i]``: submission time;
    * ``deadline[i]``: absolute deadline, ``nan`` for none;
    * ``needs[i, l]``: it needs licence ``l`` (one copy);
    * ``machine[i]``: the column it runs on, :data:`QUEUED` (-1) if waiting;
    * ``input_size[i]``, ``input_location[i]``: the size of its input data and
      the column of the machine holding it (where it last ran), or
      :data:`STORAGE` (-1): the cluster's storage, for a job never started.

    Per machine ``m``: ``cpus[m]``, ``rating[m]``, ``bandwidth[m]`` (of its
    link: data units per second, our reading of the Input heuristic's
    ``b``, docs/reference/policies/convergent.md).  Per licence ``l``: ``usable[l, m]``
    (it can be activated on ``m``) and ``copies[l]`` (floating copies in the
    cluster; 0 for a licence that is only a machine feature).
    """

    now: float
    estimate_left: np.ndarray
    job_rating: np.ndarray
    width: np.ndarray
    submit: np.ndarray
    deadline: np.ndarray
    needs: np.ndarray
    machine: np.ndarray
    input_size: np.ndarray
    input_location: np.ndarray
    cpus: np.ndarray
    rating: np.ndarray
    bandwidth: np.ndarray
    usable: np.ndarray
    copies: np.ndarray

    def __post_init__(self) -> None:
        n = len(np.atleast_1d(self.estimate_left))
        m = len(np.atleast_1d(self.cpus))
        kinds = {"estimate_left": (float, (n,)), "job_rating": (float, (n,)),
                 "width": (np.int64, (n,)), "submit": (float, (n,)),
                 "deadline": (float, (n,)), "machine": (np.int64, (n,)),
                 "input_size": (float, (n,)), "input_location": (np.int64, (n,)),
                 "cpus": (np.int64, (m,)), "rating": (float, (m,)),
                 "bandwidth": (float, (m,))}
        for name, (dtype, shape) in kinds.items():
            array = np.asarray(getattr(self, name), dtype=dtype).reshape(shape)
            object.__setattr__(self, name, array)
        usable = np.asarray(self.usable, dtype=bool)
        licences = usable.shape[0] if usable.ndim == 2 else 0
        object.__setattr__(self, "usable", usable.reshape(licences, m))
        object.__setattr__(self, "needs", np.asarray(self.needs, dtype=bool).reshape(n, licences))
        object.__setattr__(self, "copies", np.asarray(self.copies, np.int64).reshape(licences))
        if (self.bandwidth <= 0).any() or not np.isfinite(self.bandwidth).all():
            raise InputError(f"expected link bandwidths > 0, got {self.bandwidth.min()!r}",
                             field="bandwidth")
        if ((self.machine < QUEUED) | (self.machine >= m)).any() \
                or ((self.input_location < STORAGE) | (self.input_location >= m)).any():
            raise ValueError("ClusterState: a machine or input location is not a column")

    @property
    def n_jobs(self) -> int:
        return len(self.estimate_left)

    @property
    def n_machines(self) -> int:
        return len(self.cpus)

    @property
    def running(self) -> np.ndarray:
        """Boolean per job: it runs now."""
        return self.machine != QUEUED

    def rows(self, keep: np.ndarray | Sequence[int]) -> ClusterState:
        """The same cluster with only jobs ``keep`` (indices or a boolean mask)."""
        per_job = {"estimate_left", "job_rating", "width", "submit", "deadline", "needs",
                   "machine", "input_size", "input_location"}
        return ClusterState(**{f.name: getattr(self, f.name)[keep] if f.name in per_job
                               else getattr(self, f.name) for f in fields(self)})

    @classmethod
    def from_grid(cls, grid: GridWorkload, platform: Platform, cluster: int, now: float,
                  jobs: Sequence[int], *, machine: Sequence[int] | None = None,
                  bandwidth: float | Sequence[float] = 1.0) -> ClusterState:
        """The state of ``platform``'s ``cluster`` holding workload jobs ``jobs`` at ``now``.

        ``machine`` gives each job's column if it runs (-1: queued; default all
        queued); a running job's input is where it runs, a queued job's on the
        cluster's storage, and nothing has run yet (``estimate_left`` is the
        whole estimate).  ``bandwidth`` is one value for every machine's link
        or one per machine.
        """
        rows = np.asarray(jobs, dtype=np.int64)
        columns = np.flatnonzero(platform.cluster_of == cluster)
        picked = [grid.workload.jobs[i] for i in rows.tolist()]
        where = np.full(len(rows), QUEUED, np.int64) if machine is None \
            else np.asarray(machine, np.int64)
        licence = grid.licence_columns(platform)
        needs = np.zeros((len(rows), len(platform.licence_names)), dtype=bool)
        needs[:, licence] = grid.needs[rows]
        return cls(now=now,
                   estimate_left=np.array([j.estimate for j in picked], dtype=float),
                   job_rating=grid.rating[rows],
                   width=np.array([j.width for j in picked], dtype=np.int64),
                   submit=np.array([j.submit for j in picked], dtype=float),
                   deadline=np.array([np.nan if j.deadline is None else j.deadline
                                      for j in picked], dtype=float),
                   needs=needs, machine=where, input_size=grid.input_size[rows],
                   input_location=where,
                   cpus=platform.cpus[columns], rating=platform.rating[columns],
                   bandwidth=np.broadcast_to(np.asarray(bandwidth, float), (len(columns),)),
                   usable=platform.usable[:, columns], copies=platform.copies[cluster])


def eligible_pairs(state: ClusterState) -> np.ndarray:
    """Jobs x machines mask ``M_Aff``: enough CPUs and every licence usable there.

    The thesis' *Minimal requirements* ("number of processors and floating
    licences"), static: whether the machine is busy now is the matching's
    business.
    """
    from schedlab.policies.grid.convergent.kernels import eligible

    return eligible(np.ascontiguousarray(state.needs), np.ascontiguousarray(state.usable),
                    np.ascontiguousarray(state.cpus, dtype=np.int64),
                    np.ascontiguousarray(state.width, dtype=np.int64))


def job_machine_matrix(state: ClusterState, weights: Weights | None = None) -> np.ndarray:
    """``P`` (float64, jobs x machines): the seven heuristics in the thesis' order, summed.

    Entries outside ``M_Aff`` (:func:`eligible_pairs`) are 0; entries inside
    are > 0 (the Minimal requirements base, :class:`~.heuristics.Weights`).
    The sum of :data:`~.heuristics.HEURISTICS` in one compiled pass
    (:func:`.kernels.summed_heuristics`), the same to the last bit.
    """
    from schedlab.policies.grid.convergent.heuristics import Weights, licence_score
    from schedlab.policies.grid.convergent.kernels import summed_heuristics

    weights = Weights() if weights is None else weights
    late = weights.deadline_max if weights.deadline_late == "max" else weights.deadline_min
    return summed_heuristics(
        float(state.now), state.estimate_left, state.job_rating, state.deadline, state.submit,
        state.machine, state.input_size, state.input_location, state.rating, state.bandwidth,
        eligible_pairs(state), licence_score(state, weights), weights.base,
        weights.deadline_max, weights.deadline_min, weights.deadline_k, late, weights.input,
        weights.wait, weights.wait_sup == "all", weights.overhead, weights.age_factor)


__all__ = ["QUEUED", "STORAGE", "ClusterState", "eligible_pairs", "job_machine_matrix"]
