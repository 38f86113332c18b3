"""The thesis' published numbers for §4.2 (Pasquali, Table 5) and what its text says of
Figs. 19–24, 30–32, 34–38 and 39–40 (the figures' values are not printed)."""

from __future__ import annotations

#: Table 5, branch & bound: licence ratio -> (time ms, Sml, Avg, Bst licence usage, fractions).
TABLE5_EXACT: dict[str, tuple[float, float, float, float]] = {
    "[40% - 45%]": (496.53, 0.57, 0.87, 1.00),
    "[45% - 50%]": (353.51, 0.62, 0.88, 1.00),
    "[50% - 55%]": (331.28, 0.64, 0.89, 1.00),
    "[55% - 60%]": (556.96, 0.64, 0.88, 1.00),
}
#: Table 5, MKP (the greedy).  Our copy of the thesis garbles its last two rows (one reads
#: "10 10 | 0.62 | 0.87 | 1.00" without a ratio, the next "[50 - 55] | 10.42 | 0.62 | 0.07 |
#: 1.00"); our reading: the first is [50–55] with 10.10 ms, the second [55–60], whose Avg
#: "0.07" is illegible (None).
TABLE5_GREEDY: dict[str, tuple[float, float, float | None, float]] = {
    "[40% - 45%]": (11.23, 0.54, 0.82, 1.00),
    "[45% - 50%]": (10.40, 0.59, 0.84, 1.00),
    "[50% - 55%]": (10.10, 0.62, 0.87, 1.00),
    "[55% - 60%]": (10.42, 0.62, None, 1.00),
}
TABLE5_TEXT = ("MKP is able to find solutions that are on average 3% distant from those found "
               "by the branch&bound algorithm, by saving 97% of CPU time")
#: What the thesis' text says of each figure.
FIGURE_TEXT: dict[str, str] = {
    "fig19": "when the jobs inter-arrival time is equal or greater than 12 ... the system "
             "contention remains almost constant",
    "fig20": "The three backfilling algorithms and EDF obtain worse results than those "
             "obtained by all the CS schedulers",
    "fig20-incremental": "CS_i_p and CS_ni_p obtain equal or very close results",
    "fig21": "for ... inter-arrival time equal or greater than 10 ... jobs scheduled by using "
             "a CS scheduler obtained a Slowdown equal or very close to 1",
    "fig22": "the CS algorithms schedule jobs in a way that permits to maintain all the system "
             "machines always busy",
    "fig23": "CS_i_p and CS_i_np obtain a lower execution time than CS_ni_p and CS_ni_np, "
             "respectively",
    "fig23-preemption": "the CS versions which support the preemption feature require more "
                        "execution time",
    "fig24": "the CS-incr versions obtained very good scalability results",
    "fig31": "CS outperforms the other exploited algorithms, scheduling jobs in such a way "
             "that almost the 97% execute whiting their deadline",
    "fig32": "the performance of the Convergent Scheduler is worse than the other algorithms "
             "because it delays the execution of such jobs",
    "fig34": "In this case ADH is never invoked",
    "fig36": "The DeadLine heuristics, by itself, is not able to handle changes in the Margin "
             "distribution",
    "fig38": "ADH is able to change the base value to compute a better division of the "
             "interval and it is able to satisfy the administrator policy",
    "fig39": "both EG-EDF rule and Tabu Search produced much better solutions than Flexible "
             "Backfilling, Easy Backfilling, and FCFS. Tabu Search outperforms all the other "
             "algorithms",
    "fig40": "the better results are obtained by Tabu Search, which are enough close to those "
             "obtained by the Flexible Backfilling algorithm",
}
