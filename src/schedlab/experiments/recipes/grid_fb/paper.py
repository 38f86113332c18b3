"""The thesis' published numbers for §4.1 (Pasquali, Tables 2–3) and what its text says of
Figs. 16–18 and, for §4.3.1, of Figs. 25–29 (the figures' values are not printed)."""

from __future__ import annotations

#: Table 2: % licence usage by licence ratio (rows) and policy.
TABLE2: dict[str, dict[str, float]] = {
    "30% - 50%": {"FCFS": 55.7, "BF_FCFS": 78.5, "BF_UNMOD": 80.5, "BF_MOD": 79.7},
    "40% - 60%": {"FCFS": 52.1, "BF_FCFS": 76.1, "BF_UNMOD": 75.5, "BF_MOD": 76.3},
    "50% - 70%": {"FCFS": 49.5, "BF_FCFS": 74.8, "BF_UNMOD": 72.2, "BF_MOD": 72.4},
}
#: Table 3: % of jobs executed that miss their deadline.
TABLE3: dict[str, dict[str, float]] = {
    "30% - 50%": {"FCFS": 95.6, "BF_FCFS": 78.9, "BF_UNMOD": 74.5, "BF_MOD": 73.5},
    "40% - 60%": {"FCFS": 95.5, "BF_FCFS": 74.8, "BF_UNMOD": 69.4, "BF_MOD": 69.0},
    "50% - 70%": {"FCFS": 95.5, "BF_FCFS": 74.6, "BF_UNMOD": 66.2, "BF_MOD": 66.2},
}
#: What §4.1 says of each figure.
FIGURE_TEXT: dict[str, str] = {
    "fig16": "BF_MOD and BF_UNMOD obtain better results in each test",
    "fig17": "Backfilling leads to a better system usage, in particular when the system "
             "contention is higher",
    "fig18": "the Backfilling technique is able to drastically reduce the average job "
             "waiting time",
}

#: §4.3.1's platform (120, 60, 30, 15 machines): Fig. 25's "Optimal" share of each cluster,
#: its machines over all machines, in %.
MS_CLUSTER_MACHINES = (120, 60, 30, 15)
MS_OPTIMUM = tuple(100.0 * m / sum(MS_CLUSTER_MACHINES) for m in MS_CLUSTER_MACHINES)
#: What §4.3.1 says of each figure (Figs. 26–29 are at Ta = 5).
MS_FIGURE_TEXT: dict[str, str] = {
    "fig25_ta0": "Ta = 0 ... Since MS dispatchs jobs according to the workload due to LS queued "
                 "jobs, all clusters obtain the same amount of workload",
    "fig25_ta": "Increasing Ta, it could happen that some clusters are enough powerful to "
                "maintains empty ... their LS queue ... Consequently, MS dispatches a larger "
                "number of jobs to such clusters",
    "fig25_ta5": "Ta = 5 obtains a workload distribution that better approximates the optimal "
                 "one",
    "fig26": "[the slowdown of jobs without deadline] improves in inverse proportion to the "
             "cluster computational power",
    "fig27": "the solution based on the LS and MS heuristics are able to improve the number of "
             "jobs executed within their deadline, compared to the EASY Backfilling solution",
    "fig27_ms": "using only MS job classification carries out results comparable to those "
                "obtained by LS, with a smaller computational cost",
    "fig28_29": "All solutions obtain similar results",
    "fig28_29_clusters": "Smaller is the number of the machines within a cluster, greater are "
                         "both the processor fragmentation and the contention on software "
                         "licences, and it leads to a smaller system and software licence usage",
}
