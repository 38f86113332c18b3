"""The paper's numbers: Tables 1-10 (Zhou, Goscinski, Brent 2003, §5), and the §4 identity
between a share table and its average row."""

from __future__ import annotations

from schedlab.experiments.recipes.gang.design import WORKLOADS

PAPER_WORKLOADS = WORKLOADS

#: Tables 1 and 2 (l = 1): average slowdown of all jobs and of short jobs, per strategy.
PAPER_SLOWDOWN = {
    1: (29.6, 89.2, 156, 179, 252, 307, 368, 357, 405),
    2: (9.62, 15.4, 19.5, 24.6, 29.6, 34.6, 39.7, 44.2, 49.8),
}
PAPER_SLOWDOWN_SHORT = {
    1: (67.4, 223, 236, 368, 548, 686, 852, 765, 919),
    2: (4.02, 4.34, 3.68, 3.42, 2.76, 2.61, 2.52, 2.41, 2.37),
}
#: Table 3 (Strategy 1, l = 1): percent of time with k slots.  w8's 5-slot cell is printed
#: "0.995", a typo for 99.5 (the column then adds up to 100, and Table 5 says 4.99).
PAPER_SHARES_S1 = {
    1: (2.9, 0.1, 0.2, 0.1, 0.1, 0.1, 0.2, 0.1, 0.0),
    2: (3.5, 0.2, 0.1, 0.3, 0.1, 0.1, 0.1, 0.1, 0.1),
    3: (6.1, 0.3, 0.2, 0.3, 0.2, 0.2, 0.2, 0.2, 0.3),
    4: (9.5, 0.4, 0.5, 0.2, 0.2, 0.1, 0.1, 0.2, 0.1),
    5: (78.0, 99.0, 99.0, 99.1, 99.4, 99.5, 99.4, 99.4, 0.995),
}
#: The typo of Table 3 (slots, workload) and the value the rest of the paper implies.
PAPER_TYPOS = {("table3", 5, "w8"): 99.5}
#: Table 4 (Strategy 2, l = 1).
PAPER_SHARES_S2 = {
    1: (13.9, 21.4, 26.7, 32.2, 37.0, 40.5, 44.4, 47.9, 50.3),
    2: (28.3, 25.3, 29.5, 26.0, 27.0, 27.2, 28.0, 28.6, 27.7),
    3: (27.1, 26.6, 24.5, 24.3, 23.1, 21.0, 19.1, 16.2, 15.7),
    4: (17.0, 15.2, 11.1, 10.4, 8.0, 7.5, 6.2, 5.1, 4.7),
    5: (13.7, 15.5, 8.2, 7.1, 4.9, 3.8, 2.3, 2.2, 1.6),
}
#: Table 5 (l = 1): average slots in a round.
PAPER_SLOTS_MEAN = {
    1: (4.57, 4.98, 4.98, 4.98, 4.99, 4.99, 4.99, 4.99, 4.99),
    2: (2.88, 2.70, 2.45, 2.34, 2.17, 2.07, 1.94, 1.85, 1.80),
}
#: Tables 6-9: slowdown against the slot length, (strategy, all or short) -> l -> row.
PAPER_BY_SLOT = {
    (2, "all"): {1: (9.62, 15.4, 19.5, 24.6, 29.6, 34.6, 39.7, 44.2, 49.8),
                 10: (10.0, 14.7, 20.5, 25.2, 29.6, 35.3, 39.5, 44.5, 49.8),
                 50: (11.7, 16.7, 21.1, 27.5, 31.3, 36.7, 40.6, 46.3, 50.1),
                 100: (14.1, 19.4, 23.4, 26.9, 34.2, 38.2, 44.5, 49.1, 52.3),
                 150: (17.4, 22.4, 26.2, 30.9, 35.7, 41.1, 45.4, 49.9, 55.3),
                 200: (20.2, 24.9, 29.1, 34.8, 39.0, 43.6, 47.6, 53.0, 56.3)},
    (2, "short"): {1: (4.02, 4.34, 3.68, 3.42, 2.76, 2.61, 2.52, 2.41, 2.37),
                   10: (4.61, 4.12, 3.88, 3.57, 3.01, 3.02, 2.76, 2.70, 2.66),
                   50: (8.63, 8.50, 7.74, 7.92, 6.94, 6.66, 6.35, 6.19, 5.84),
                   100: (14.5, 14.7, 13.3, 13.5, 12.9, 11.9, 11.3, 11.2, 11.1),
                   150: (21.4, 21.2, 19.3, 19.0, 18.1, 17.1, 16.3, 15.9, 16.1),
                   200: (28.1, 28.3, 27.0, 26.5, 24.6, 23.3, 22.0, 21.6, 21.1)},
    (3, "all"): {1: (8.40, 13.4, 19.1, 23.9, 28.9, 34.9, 40.3, 43.5, 48.8),
                 10: (8.66, 13.7, 19.8, 24.8, 29.9, 34.2, 39.7, 44.2, 49.0),
                 50: (9.11, 14.0, 19.6, 24.3, 30.1, 35.2, 40.7, 44.4, 49.0),
                 100: (8.97, 14.6, 19.8, 25.0, 30.8, 34.2, 41.1, 44.8, 50.0),
                 150: (9.93, 15.7, 20.7, 25.4, 30.9, 36.5, 40.6, 46.3, 50.6),
                 200: (11.3, 16.5, 21.7, 26.1, 31.2, 37.6, 42.1, 47.8, 52.0)},
    (3, "short"): {1: (1.10, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05),
                   10: (1.06, 1.05, 1.05, 1.06, 1.06, 1.06, 1.06, 1.06, 1.06),
                   50: (1.26, 1.28, 1.25, 1.22, 1.24, 1.23, 1.23, 1.21, 1.20),
                   100: (2.06, 2.10, 2.03, 1.97, 1.94, 1.84, 1.75, 1.67, 1.72),
                   150: (3.28, 3.40, 3.22, 3.12, 2.86, 2.88, 2.77, 2.77, 2.45),
                   200: (5.03, 4.74, 4.87, 4.64, 4.36, 4.34, 4.00, 3.81, 3.69)},
}
#: Table 10 (Strategy 3, l = 200): percent of time with k slots, and the average row.
PAPER_SHARES_S3 = {
    1: (15.3, 21.7, 27.5, 32.0, 37.3, 40.9, 44.4, 48.1, 51.0),
    2: (24.5, 23.9, 25.1, 24.3, 23.4, 25.1, 25.3, 24.4, 26.2),
    3: (26.3, 24.9, 24.7, 24.0, 23.4, 21.5, 19.8, 18.3, 15.6),
    4: (17.5, 15.2, 11.6, 12.2, 10.1, 8.8, 6.9, 6.6, 5.1),
    5: (16.3, 14.3, 11.1, 7.5, 5.8, 3.7, 3.6, 2.6, 2.1),
    6: (0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
}
PAPER_SLOTS_MEAN_S3 = (2.95, 2.77, 2.54, 2.39, 2.24, 2.09, 2.00, 1.91, 1.81)


def paper_value(row: tuple[float, ...], workload: str) -> float:
    """The paper's number for one workload of a table row."""
    return float(row[PAPER_WORKLOADS.index(workload)])


def paper_shares(shares: dict[int, tuple[float, ...]], workload: str,
                 table: str = "") -> dict[int, float]:
    """One workload's column of a share table (percent of time with k slots), typos fixed."""
    return {k: PAPER_TYPOS.get((table, k, workload), paper_value(row, workload))
            for k, row in shares.items()}


def weighted_mean(shares: dict[int, float]) -> float:
    """Σ k·share(k) / 100: the average number of slots a share table implies (§4)."""
    return sum(k * share for k, share in shares.items()) / 100.0
