"""Convergent Scheduling (Pasquali thesis §3.2.2): the algorithmic core, as pure functions.

A cluster's plan is computed in three phases, each a module here:

* :mod:`.matrix` and :mod:`.heuristics` -- the Job-Machine matrix ``P``
  (jobs x machines, queued and running jobs) built by the seven heuristics;
* :mod:`.knapsack` -- critical licences (eq. 3.6-3.8), the groups of jobs
  sharing them, and per group the multidimensional 0-1 knapsack (greedy,
  Eilon's surrogate, eq. 3.11; or exact, by MILP) that drops the jobs that
  cannot run together;
* :mod:`.matching` -- the job-machine associations: MIS (greedy), MFS
  (maximum cardinality, then maximum weight) and IMFS (MFS warm-started from
  the previous plan).

:mod:`.table5` compares the greedy knapsack with the exact one (thesis
Table 5).  :mod:`.policy` is the local policy ``cs`` built on these pieces;
:mod:`.preemption` its preemptive versions (CS_i_p, CS_ni_p).
docs/reference/policies/convergent.md describes every step and our readings.
"""

from __future__ import annotations

from schedlab.policies.grid.convergent.heuristics import HEURISTICS, Weights
from schedlab.policies.grid.convergent.knapsack import (
                                                        Knapsack,
                                                        critical_licences,
                                                        exact_knapsack,
                                                        greedy_knapsack,
                                                        licence_groups,
                                                        licence_pressure,
                                                        prematch,
)
from schedlab.policies.grid.convergent.matching import (
                                                        IncrementalMatcher,
                                                        Matching,
                                                        mfs,
                                                        mis,
                                                        scratch_work,
)
from schedlab.policies.grid.convergent.matrix import ClusterState, job_machine_matrix

__all__ = ["HEURISTICS", "ClusterState", "IncrementalMatcher", "Knapsack", "Matching",
           "Weights", "critical_licences", "exact_knapsack", "greedy_knapsack",
           "job_machine_matrix", "licence_groups", "licence_pressure", "mfs", "mis",
           "prematch", "scratch_work"]
