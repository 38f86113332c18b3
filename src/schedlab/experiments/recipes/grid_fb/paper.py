"""The thesis' published numbers for §4.1 (Pasquali, Tables 2–3) and what its text says of
Figs. 16–18 (the figures' values are not printed)."""

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
