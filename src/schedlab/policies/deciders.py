"""The deciders of self-tuning dynP: which policy to take given the schedule qualities.

Streit 2002, §3.2 and Table 1.  In every self-tuning step dynP builds a full
schedule with each of FCFS, SJF and LJF and measures it with a quality metric
(lower is better).  A *decider* maps the three quality numbers and the policy
in use to the policy to use from now on:

* :func:`simple_decider` — the pseudo-code of §3.2 ("A Simple Decider"): the
  best schedule wins, ties go to FCFS, then SJF.  It ignores the current
  policy, so it drops back to FCFS whenever FCFS ties for the best.
* :func:`advanced_decider` — the last column of Table 1: keep the current
  policy whenever it is among the best; otherwise take the best, and in the
  three tie cases where the current policy lost to two equal ones take FCFS
  over SJF (6c), FCFS over LJF (8b) and SJF over LJF (10a).

Both return the new policy and the Table 1 case the comparison falls in
(:func:`table1_case`), so a run can count the cases as Table 6 does.

Table 1 lists some comparison outcomes twice: case 7 (FCFS = LJF > SJF) is
also case 2, case 9 (SJF = LJF > FCFS) also case 3, and case 5 (FCFS = SJF >
LJF) is exactly case 4b.  Each outcome gets one label here: the rows with an
equality (5–10) take precedence over the strict rows (2–4), so labels 2, 3,
4a and 4c mean three different numbers and 4b is never reported (it is
case 5).  :data:`TABLE6_ROWS` groups the labels into the rows of Table 6,
which merges exactly these pairs.

:func:`decide_among` generalises both deciders to any list of candidate
policies (Streit 2002, §6, "more scheduling policies"); on FCFS, SJF, LJF in
that order it makes the same decision as Table 1 in every case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

#: The three policies of the paper, in the decider's order of preference on ties.
PAPER_POLICIES = ("fcfs", "sjf", "ljf")

#: Marks "keep the current policy" in :data:`TABLE1`.
CURRENT = "current"

#: Table 1 of Streit 2002: case -> (simple decider's choice, advanced decider's choice).
TABLE1: dict[str, tuple[str, str]] = {
    "1": ("fcfs", CURRENT),        # FCFS = SJF = LJF
    "2": ("sjf", "sjf"),           # SJF < FCFS, SJF < LJF
    "3": ("fcfs", "fcfs"),         # FCFS < SJF, FCFS < LJF
    "4a": ("ljf", "ljf"),          # LJF < FCFS < SJF
    "4b": ("ljf", "ljf"),          # LJF < FCFS = SJF (the same outcome as case 5)
    "4c": ("ljf", "ljf"),          # LJF < SJF < FCFS
    "5": ("ljf", "ljf"),           # FCFS = SJF, LJF < FCFS
    "6a": (CURRENT, CURRENT),      # FCFS = SJF < LJF, current FCFS
    "6b": ("fcfs", CURRENT),       # FCFS = SJF < LJF, current SJF
    "6c": ("fcfs", "fcfs"),        # FCFS = SJF < LJF, current LJF
    "7": ("sjf", "sjf"),           # FCFS = LJF, SJF < FCFS
    "8a": (CURRENT, CURRENT),      # FCFS = LJF < SJF, current FCFS
    "8b": ("fcfs", "fcfs"),        # FCFS = LJF < SJF, current SJF
    "8c": ("fcfs", CURRENT),       # FCFS = LJF < SJF, current LJF
    "9": ("fcfs", "fcfs"),         # SJF = LJF, FCFS < SJF
    "10a": ("sjf", "sjf"),         # SJF = LJF < FCFS, current FCFS
    "10b": (CURRENT, CURRENT),     # SJF = LJF < FCFS, current SJF
    "10c": ("sjf", CURRENT),       # SJF = LJF < FCFS, current LJF
}

#: The labels :func:`table1_case` can return (every key of TABLE1 but "4b"), in the
#: order of the numbers :func:`table1_case_number` gives them.
CASE_LABELS: tuple[str, ...] = tuple(label for label in TABLE1 if label != "4b")

#: The rows of Table 6 (Streit 2002, §5.2) as groups of case labels.
TABLE6_ROWS: dict[str, tuple[str, ...]] = {
    "1": ("1",), "2 & 7": ("2", "7"), "3 & 9": ("3", "9"), "4b & 5": ("4b", "5"),
    "4a": ("4a",), "4c": ("4c",), "6a": ("6a",), "6b": ("6b",), "6c": ("6c",),
    "8a": ("8a",), "8b": ("8b",), "8c": ("8c",), "10a": ("10a",), "10b": ("10b",),
    "10c": ("10c",),
}

Decider = Callable[[float, float, float, str], tuple[str, str]]


def table1_case(fcfs: float, sjf: float, ljf: float, current: str) -> str:
    """The case of Streit 2002, Table 1, for three schedule qualities and the current policy.

    ``current`` is ``"fcfs"``, ``"sjf"`` or ``"ljf"``; it only matters in the
    cases 6, 8 and 10 (two policies tie for the best), which Table 1 splits
    by the current policy into a (FCFS), b (SJF) and c (LJF).
    """
    if current not in PAPER_POLICIES:
        raise ValueError(f"the current policy must be one of {PAPER_POLICIES}, got {current!r}")
    return CASE_LABELS[table1_case_number(fcfs, sjf, ljf, PAPER_POLICIES.index(current))]


def table1_case_number(fcfs, sjf, ljf, current):
    """:func:`table1_case` as the label's position in :data:`CASE_LABELS`.

    ``current`` is the current policy's position in :data:`PAPER_POLICIES`.
    Plain comparisons only: self-tuning dynP's compiled step
    (:mod:`schedlab.policies.dynp_step`) compiles this same function.
    """
    if fcfs == sjf and sjf == ljf:
        return 0                                 # 1
    if fcfs == sjf:
        return 5 if ljf < fcfs else 6 + current  # 5; 6a, 6b, 6c
    if fcfs == ljf:
        return 9 if sjf < fcfs else 10 + current  # 7; 8a, 8b, 8c
    if sjf == ljf:
        return 13 if fcfs < sjf else 14 + current  # 9; 10a, 10b, 10c
    if sjf < fcfs and sjf < ljf:
        return 1                                 # 2
    if fcfs < sjf and fcfs < ljf:
        return 2                                 # 3
    return 3 if fcfs < sjf else 4                # 4a; 4c


def simple_decider(fcfs: float, sjf: float, ljf: float, current: str) -> tuple[str, str]:
    """The simple decider of Streit 2002, §3.2 (its pseudo-code, line by line).

    Returns ``(new policy, Table 1 case)``.
    """
    policy = ("fcfs" if fcfs <= sjf else "sjf") if sjf <= ljf else "fcfs" if fcfs <= ljf else "ljf"
    return policy, table1_case(fcfs, sjf, ljf, current)


def advanced_decider(fcfs: float, sjf: float, ljf: float, current: str) -> tuple[str, str]:
    """The advanced decider of Streit 2002, §3.2: the last column of Table 1.

    Returns ``(new policy, Table 1 case)``.
    """
    case = table1_case(fcfs, sjf, ljf, current)
    choice = TABLE1[case][1]
    return (current if choice == CURRENT else choice), case


DECIDERS: dict[str, Decider] = {"simple": simple_decider, "advanced": advanced_decider}


def decide_among(qualities: Mapping[str, float], current: str, decider: str,
                 preference: Sequence[str]) -> str:
    """Either decider for any set of candidate policies (Streit 2002, §6).

    ``preference`` lists the candidates in the order that breaks ties.  The
    simple decider takes the first best candidate; the advanced decider
    keeps ``current`` if it is among the best and otherwise takes the first
    best.  With ``preference = ("fcfs", "sjf", "ljf")`` this is Table 1.
    """
    kept = preference.index(current) if current in preference else -1
    return preference[best_candidate([qualities[p] for p in preference], kept,
                                     decider == "advanced")]


def best_candidate(qualities, current, keep_current):
    """:func:`decide_among` on positions: the position of the chosen candidate.

    ``qualities`` in the order of preference, ``current`` the position of
    the policy in use (-1: none of them).  Plain loops only: self-tuning
    dynP's compiled step (:mod:`schedlab.policies.dynp_step`) compiles this
    same function.
    """
    best = qualities[0]
    for value in qualities:
        if value < best:
            best = value
    if keep_current and current >= 0 and qualities[current] == best:
        return current
    for position in range(len(qualities)):
        if qualities[position] == best:
            return position
    return 0                                     # only NaN qualities equal nothing
