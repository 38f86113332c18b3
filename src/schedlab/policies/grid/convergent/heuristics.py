"""The seven heuristics of Convergent Scheduling (Pasquali thesis §3.2.2, "Heuristics Collection").

Each heuristic is a function ``(state, eligible, weights) -> delta``: a
jobs x machines float64 array added to the Job-Machine matrix, non-zero
only on ``eligible`` (``M_Aff``, the Minimal requirements mask).
:data:`HEURISTICS` lists them in the order the thesis presents them; the
matrix is their sum, so the order changes nothing but rounding ("Heuristics
can be run several times and in any order").  :class:`Weights` holds their
weights, by default the thesis' values (§4.2, footnote 2).  Where the
thesis is silent or ambiguous, the docstrings say "our reading"; the list
is in docs/reference/policies/convergent.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.base import check_choice, check_number
from schedlab.policies.grid.convergent.knapsack import critical_licences, licence_pressure
from schedlab.policies.grid.convergent.matrix import QUEUED, ClusterState

#: How Wait minimization's ``sup_Nxtime`` is taken: per job (the thesis' words) or overall.
WAIT_SUP = ("job", "all")
#: ``f_1`` of the Deadline heuristic on a machine where the job would end past its deadline:
#: ``Max`` (the thesis' prose: no share for that machine, more urgency) or ``Min`` (eq. 3.10's
#: third case as printed: that machine gets the largest share).
DEADLINE_LATE = ("max", "min")
_OWNER = "convergent scheduling"


@dataclass(frozen=True)
class Weights:
    """Heuristic weights; defaults are the thesis' (§4.2, footnote 2) unless said otherwise.

    * ``base`` -- Minimal requirements: what every eligible entry starts at,
      so that eligible means ``P > 0`` (our addition; the same on every
      eligible entry, it shifts no maximum-cardinality matching);
    * ``deadline_max``, ``deadline_min``, ``deadline_k`` -- Deadline's
      ``Max = 10.0``, ``Min = 0.1``, ``k = 1.3``; ``deadline_late`` -- ``f_1``
      on a machine that would end the job past its deadline: ``"max"`` (our
      reading of the thesis' prose, the default) or ``"min"`` (its formula as
      printed), see :func:`deadline_f1`;
    * ``licences`` -- Licences' ``LI = 2.5``;
    * ``input`` -- Input's ``IN = 3.0``;
    * ``wait`` -- Wait minimization's ``W = 4.0``; ``wait_sup``: ``sup_Nxtime``
      over the job's machines (``"job"``, the thesis' words) or over every
      eligible entry (``"all"``, which also favours short jobs over long ones);
    * ``overhead`` -- Overhead minimization's ``Delta``: 8.0 in the thesis'
      preemptive versions, 800.0 in the non-preemptive ones;
    * ``age_factor`` -- Anti-Aging's ``age_factor = 0.02``.

    A weight outside its domain raises :class:`InputError` naming it.
    """

    base: float = 0.01
    deadline_max: float = 10.0
    deadline_min: float = 0.1
    deadline_k: float = 1.3
    deadline_late: str = "max"
    licences: float = 2.5
    input: float = 3.0
    wait: float = 4.0
    wait_sup: str = "job"
    overhead: float = 8.0
    age_factor: float = 0.02

    def __post_init__(self) -> None:
        for name in ("deadline_min", "licences", "input", "wait", "overhead", "age_factor"):
            check_number(_OWNER, name, getattr(self, name), float, 0.0, math.inf)
            _check_finite(name, getattr(self, name))
        check_number(_OWNER, "base", self.base, float, 0.0, math.inf)
        _check_finite("base", self.base)
        if self.base <= 0:
            raise InputError(f"The 'base' parameter of {_OWNER} must be > 0 (eligible entries "
                             f"are the positive ones). Got {self.base!r} instead.", field="base")
        check_number(_OWNER, "deadline_k", self.deadline_k, float, 1.0, math.inf)
        _check_finite("deadline_k", self.deadline_k)
        check_number(_OWNER, "deadline_max", self.deadline_max, float, 0.0, math.inf)
        _check_finite("deadline_max", self.deadline_max)
        if self.deadline_max <= self.deadline_min:
            raise InputError(f"The 'deadline_max' parameter of {_OWNER} must be greater than "
                             f"deadline_min ({self.deadline_min!r}). Got {self.deadline_max!r} "
                             f"instead.", field="deadline_max")
        check_choice(_OWNER, "wait_sup", self.wait_sup, WAIT_SUP)
        check_choice(_OWNER, "deadline_late", self.deadline_late, DEADLINE_LATE)


def _check_finite(name: str, value: float) -> None:
    if not math.isfinite(value):
        raise InputError(f"The {name!r} parameter of {_OWNER} must be finite. Got {value!r} "
                         f"instead.", field=name)


def nxtime(state: ClusterState) -> np.ndarray:
    """``Nxtime[i, m] = estimated_i x (1 - progress_i) x BM_m-bar / BM_m`` (eq. 3.9), seconds.

    Exact (float), not rounded like the engine's durations: it ranks machines.
    """
    return (state.estimate_left * state.job_rating)[:, None] / state.rating[None, :]


def minimal_requirements(state: ClusterState, eligible: np.ndarray, weights: Weights
                         ) -> np.ndarray:
    """Minimal requirements: ``M_Aff_i``, the machines with job ``i``'s CPUs and licences.

    Thesis: "fixes the associations job-machines".  Entries outside
    ``M_Aff`` stay 0 (not eligible); entries inside get ``base`` (our
    reading: a positive start, so every eligible pair is an arc of the
    matching graph).
    """
    return np.where(eligible, weights.base, 0.0)


def deadline_f1(state: ClusterState, weights: Weights) -> np.ndarray:
    """``f_1(Extime_{i,m})`` of the CS Deadline heuristic (§3.2.2), jobs x machines.

    ``T_{i,m} = Deadline_i - k Nxtime_{i,m}``, ``Extime_{i,m} = wall_clock +
    Nxtime_{i,m}``; ``f_1 = Min`` up to ``T``, then the line ``a (Extime - T) +
    Min`` through ``(T, Min)`` and ``(Deadline, Max)``.  Past the deadline the
    thesis' formula prints ``Min`` again, which gives a machine that would miss
    the deadline the largest share ``f1bar = Max - Min`` in eq. 3.10, against
    its prose ("the priority ... is improved if that machine is able to perform
    the job respecting its deadline"; a high ``sum f_1`` means the job "could
    be late on all or almost all the available machines").  Our reading
    (``deadline_late="max"``, the default): ``f_1 = Max`` there, so such a
    machine gets no share and the job's urgency grows; ``"min"`` is the formula
    as printed.  Rows of jobs without a deadline are ``nan``.
    """
    nx = nxtime(state)
    deadline = state.deadline[:, None]
    start = deadline - weights.deadline_k * nx
    extime = state.now + nx
    span = np.where(nx > 0, deadline - start, 1.0)
    slope = (weights.deadline_max - weights.deadline_min) / span
    rising = (extime > start) & (extime <= deadline)
    late = weights.deadline_max if weights.deadline_late == "max" else weights.deadline_min
    f1 = np.where(rising, slope * (extime - start) + weights.deadline_min, weights.deadline_min)
    return np.where(extime > deadline, late, f1) + np.where(np.isnan(deadline), np.nan, 0.0)


def deadline(state: ClusterState, eligible: np.ndarray, weights: Weights) -> np.ndarray:
    """Deadline (eq. 3.10): ``Delta_D = (sum_k f_1(Extime_{i,k})) x f1bar(Extime_{i,m}) / d_i``.

    ``f1bar = Max - f_1`` and ``d_i = sum_m f1bar`` over ``M_Aff_i``: the job's
    urgency (the sum) shared among its machines in proportion to how safely
    each meets the deadline.  Our readings: a job without a deadline gets 0;
    a job with ``d_i = 0`` (``f_1 = Max`` everywhere) shares its urgency equally.
    """
    f1 = np.where(eligible, deadline_f1(state, weights), 0.0)
    with_deadline = ~np.isnan(state.deadline)
    f1[~with_deadline] = 0.0
    spare = np.where(eligible, weights.deadline_max - f1, 0.0)
    urgency = f1.sum(axis=1, keepdims=True)
    total = spare.sum(axis=1, keepdims=True)
    count = eligible.sum(axis=1, keepdims=True)
    share = np.where(total > 0, spare / np.where(total > 0, total, 1.0),
                     eligible / np.maximum(count, 1))
    return np.where(eligible & with_deadline[:, None], urgency * share, 0.0)


def licence_weight(state: ClusterState) -> np.ndarray:
    """``w(i) = sum_{l in L_c} s_{i,l} rho_l |L| + sum_{l not in L_c} s_{i,l} rho_l`` per job.

    ``rho_l`` (eq. 3.6) over the cluster's jobs, queued and running; ``|L|``
    the number of the cluster's floating licences (our reading of "all the
    available licences"); licences with no floating copy (machine features)
    count 0.
    """
    rho = licence_pressure(state.needs, state.copies)
    critical = critical_licences(state.needs, state.copies)
    factor = np.where(critical, rho * int((state.copies > 0).sum()), rho)
    return state.needs.astype(np.float64) @ factor


def licence_score(state: ClusterState, weights: Weights) -> np.ndarray:
    """``LI x w(i) / max_i w(i)`` per job (:func:`licences`); 0 when no job needs a
    floating licence."""
    w = licence_weight(state)
    top = w.max(initial=0.0)
    return weights.licences * w / top if top > 0 else np.zeros_like(w)


def licences(state: ClusterState, eligible: np.ndarray, weights: Weights) -> np.ndarray:
    """Licences: ``Delta_L = LI x w(i) / max_i w(i)`` on every machine of ``M_Aff_i``.

    Jobs holding many critical licences come first, "this way releasing a
    number of licences".  The thesis' order ``a < b`` (by the critical sum,
    then the other) is what ``|L|`` in ``w`` gives; 0 when no job needs a
    floating licence.
    """
    return np.where(eligible, licence_score(state, weights)[:, None], 0.0)


def transfer_time(state: ClusterState, eligible: np.ndarray) -> np.ndarray:
    """``Transf_i(m) = input_{i,m-bar} / b_{m-bar,m}`` for ``m-bar != m``, jobs x machines.

    Our reading (the platform has no network model): a job's input lies in
    one place, the machine it last ran on or the cluster's storage, and
    reaches machine ``m`` at ``m``'s link bandwidth; 0 on the machine that
    holds it.
    """
    moved = state.input_location[:, None] != np.arange(state.n_machines)[None, :]
    time = state.input_size[:, None] / state.bandwidth[None, :]
    return np.where(eligible & moved, time, 0.0)


def input_data(state: ClusterState, eligible: np.ndarray, weights: Weights) -> np.ndarray:
    """Input: ``Delta_I = IN x (1 - Transf_i(m) / sum_{m in M_Aff_i} Transf_i(m))``.

    Our reading when no eligible machine needs a transfer (no input, or only
    the machine holding it is eligible): every share is ``1/|M_Aff_i|``, as
    when every transfer takes the same time.
    """
    transfer = transfer_time(state, eligible)
    total = transfer.sum(axis=1, keepdims=True)
    count = eligible.sum(axis=1, keepdims=True)
    share = np.where(total > 0, transfer / np.where(total > 0, total, 1.0),
                     1.0 / np.maximum(count, 1))
    return np.where(eligible, weights.input * (1.0 - share), 0.0)


def wait_minimization(state: ClusterState, eligible: np.ndarray, weights: Weights
                      ) -> np.ndarray:
    """Wait minimization: ``Delta_WM = W x (1 - Nxtime_{i,m} / sup_Nxtime)``.

    ``sup_Nxtime`` is the largest ``Nxtime_{i,m}`` over ``m in M_Aff_i``
    (``wait_sup="job"``, the thesis' words: it ranks a job's machines) or
    over every eligible entry (``"all"``: shorter jobs also score higher);
    a ``sup`` of 0 (nothing left to run) gives ``W``.
    """
    nx = np.where(eligible, nxtime(state), 0.0)
    sup = nx.max(axis=1, keepdims=True, initial=0.0) if weights.wait_sup == "job" \
        else np.full((state.n_jobs, 1), nx.max(initial=0.0))
    ratio = nx / np.where(sup > 0, sup, 1.0)
    return np.where(eligible, weights.wait * (1.0 - ratio), 0.0)


def overhead_minimization(state: ClusterState, eligible: np.ndarray, weights: Weights
                          ) -> np.ndarray:
    """Overhead minimization: ``+Delta`` on the entry of each running job's current machine.

    "preserving the scheduling made in the previous step": a migration or
    preemption must gain more than ``Delta`` (8.0 preemptive, 800.0 to
    simulate non-preemptive jobs, thesis §4.2).
    """
    delta = np.zeros(eligible.shape)
    rows = np.flatnonzero(state.machine != QUEUED)
    delta[rows, state.machine[rows]] = weights.overhead
    return np.where(eligible, delta, 0.0)


def anti_aging(state: ClusterState, eligible: np.ndarray, weights: Weights) -> np.ndarray:
    """Anti-Aging (§3.2): ``Delta_AA = (wall_clock - Submission_i) x age_factor``.

    On every eligible machine of every job, queued or running (our reading:
    the CS matrix holds both).
    """
    age = (state.now - state.submit) * weights.age_factor
    return np.where(eligible, age[:, None], 0.0)


#: The heuristics in the thesis' order (§3.2.2); the matrix is their sum.
HEURISTICS = (minimal_requirements, deadline, licences, input_data, wait_minimization,
              overhead_minimization, anti_aging)

__all__ = ["DEADLINE_LATE", "HEURISTICS", "WAIT_SUP", "Weights", "anti_aging", "deadline",
           "deadline_f1", "input_data", "licence_score", "licence_weight", "licences",
           "minimal_requirements", "nxtime", "overhead_minimization", "transfer_time",
           "wait_minimization"]
