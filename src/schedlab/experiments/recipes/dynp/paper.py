"""The paper's numbers: Tables 4-6 and the values quoted in §5.2 (Streit 2002)."""

from __future__ import annotations

from schedlab.experiments.recipes.dynp.design import JOB_SETS

#: Our job set -> the paper's job set it stands for (module docstring).
PAPER_SET = {s.ours: s.paper for s in JOB_SETS}

#: Table 4 (shrinking factor 1.00): (decider, quality metric) -> ARTwW [s], UTIL [%], LOC,
#: jobs started with SJF, FCFS, LJF.
TABLE4: dict[str, dict[tuple[str, str], tuple[float, float, float, int, int, int]]] = {
    "CTC_syn": {("simple", "artww"): (25980, 75.36, 0.12650, 2703, 6817, 477),
                ("advanced", "artww"): (21912, 75.70, 0.10911, 6115, 1296, 2586),
                ("simple", "art"): (26082, 74.02, 0.13731, 2472, 6418, 1107),
                ("advanced", "art"): (21648, 74.96, 0.12099, 5860, 1144, 2993),
                ("simple", "ms"): (27268, 75.64, 0.09054, 130, 5295, 4572),
                ("advanced", "ms"): (25829, 75.08, 0.10395, 551, 953, 8493)},
    "KTH_syn": {("simple", "artww"): (48077, 66.00, 0.16398, 2865, 6854, 278),
                ("advanced", "artww"): (33299, 65.64, 0.16456, 7885, 1345, 767),
                ("simple", "art"): (49301, 66.01, 0.17121, 2768, 6313, 916),
                ("advanced", "art"): (40663, 65.64, 0.18386, 5730, 1313, 2954),
                ("simple", "ms"): (50497, 66.14, 0.16588, 142, 5951, 3904),
                ("advanced", "ms"): (50395, 66.11, 0.16629, 322, 686, 8989)},
    "PC2_syn": {("simple", "artww"): (43124, 42.60, 0.22423, 2553, 7344, 103),
                ("advanced", "artww"): (31493, 42.49, 0.23792, 7550, 1062, 1388),
                ("simple", "art"): (42795, 42.60, 0.22147, 2615, 7106, 279),
                ("advanced", "art"): (31994, 42.58, 0.23937, 6651, 766, 2673),
                ("simple", "ms"): (47747, 42.60, 0.22724, 65, 6789, 3146),
                ("advanced", "ms"): (47260, 42.60, 0.22722, 391, 229, 9380)},
    "SDSC_syn": {("simple", "artww"): (9969, 31.32, 0.00133, 317, 9561, 121),
                 ("advanced", "artww"): (9936, 31.32, 0.00119, 3924, 4206, 1869),
                 ("simple", "art"): (9963, 31.32, 0.00135, 309, 9517, 173),
                 ("advanced", "art"): (9921, 31.32, 0.00124, 1031, 4797, 4171),
                 ("simple", "ms"): (9982, 31.32, 0.00135, 1, 9570, 428),
                 ("advanced", "ms"): (9991, 31.32, 0.00135, 0, 3087, 6912)},
}

#: Table 5 (advanced decider, ARTwW, shrinking factor 1.00), the rows in order of TABLE5_ROWS.
TABLE5_ROWS = ("average actual runtime [s]", "average wait time [s]", "ART [s]", "ARTwW [s]",
               "utilization [%]", "LOC", "jobs started with SJF", "jobs started with FCFS",
               "jobs started with LJF", "total tries of switches", "switches to SJF [%]",
               "switches to FCFS [%]", "switches to LJF [%]", "same policy [%]",
               "average backlog at start of self-tuning")
TABLE5: dict[str, tuple[float, ...]] = {
    "CTC_syn": (10927, 3178, 14105, 21912, 75.70, 0.10911, 6115, 1296, 2586, 16946, 4.49, 4.59,
                0.59, 90.32, 22.05),
    "KTH_syn": (9063, 6925, 15989, 33299, 65.64, 0.16456, 7885, 1345, 767, 18840, 5.80, 5.85,
                0.45, 87.92, 14.48),
    "PC2_syn": (4442, 4577, 9018, 31493, 42.49, 0.23792, 7550, 1062, 1388, 15552, 3.61, 3.64,
                0.23, 92.52, 15.04),
    "SDSC_syn": (6085, 44.02, 6129, 9936, 31.32, 0.00119, 3924, 4206, 1869, 509, 3.73, 3.93,
                 0.98, 91.36, 6.36),
}

#: Table 6 (advanced decider, ARTwW, shrinking factor 1.00): row -> count per job set.
TABLE6: dict[str, dict[str, int]] = {
    "CTC_syn": {"1": 2549, "2 & 7": 1324, "3 & 9": 692, "4b & 5": 1298, "4a": 5, "4c": 4,
                "6a": 81, "6b": 10669, "6c": 100, "8a": 224, "8b": 0, "8c": 0, "10a": 0,
                "10b": 37, "10c": 0},
    "KTH_syn": {"1": 1693, "2 & 7": 1756, "3 & 9": 1029, "4b & 5": 403, "4a": 5, "4c": 3,
                "6a": 116, "6b": 13664, "6c": 81, "8a": 89, "8b": 1, "8c": 0, "10a": 0,
                "10b": 26, "10c": 0},
    "PC2_syn": {"1": 2209, "2 & 7": 920, "3 & 9": 535, "4b & 5": 304, "4a": 2, "4c": 0,
                "6a": 58, "6b": 11449, "6c": 36, "8a": 39, "8b": 0, "8c": 0, "10a": 0,
                "10b": 17, "10c": 0},
    "SDSC_syn": {"1": 271, "2 & 7": 27, "3 & 9": 15, "4b & 5": 31, "4a": 1, "4c": 0,
                 "6a": 8, "6b": 150, "6c": 5, "8a": 1, "8b": 0, "8c": 0, "10a": 0,
                 "10b": 1, "10c": 0},
}

#: Table 6's printed totals ("total tries of switches", also in Table 5).  Each is the sum
#: of the rows without row 10b: the rows add up to 16,983, 18,866, 15,569 and 510.
TABLE6_TOTALS = {"CTC_syn": 16946, "KTH_syn": 18840, "PC2_syn": 15552, "SDSC_syn": 509}

#: Table 6's two summary rows as the paper sums them (rows of Table 6): the cases where
#: the advanced decider differs from the simple one, and "taking the current policy"
#: (1+5+6a+6b+8a+8c+10b+10c; the paper's sum counts the whole row "4b & 5").
DIFFERS_FROM_SIMPLE = ("1", "6b", "8c", "10c")
KEEPS_CURRENT = ("1", "4b & 5", "6a", "6b", "8a", "8c", "10b", "10c")

#: §5.2, perfect estimates: SJF's ARTwW on CTC_syn, shrinking factor -> (real, perfect) [s]
#: ("starts at about 20.000 seconds ... 102.725 s for perfect and 145.212 s for real").
CTC_SJF_ARTWW = {1.0: (20_000.0, 20_000.0), 0.7: (145_212.0, 102_725.0)}

#: §5.2: "LJF scheduler achieves the highest utilizations (95 % and more)" when saturated.
LJF_SATURATED_UTILIZATION = 0.95
