"""The simple and advanced deciders of self-tuning dynP, case by case (Streit 2002, Table 1).

Every row of Table 1 is one test input: three schedule qualities (lower is
better) and the current policy.  The expected case label and the choice of
each decider are copied from the table by hand, not computed from
:data:`schedlab.policies.deciders.TABLE1`.
"""

from __future__ import annotations

import itertools

import pytest

from schedlab.policies.deciders import (
    CASE_LABELS,
    PAPER_POLICIES,
    TABLE1,
    TABLE6_ROWS,
    advanced_decider,
    decide_among,
    simple_decider,
    table1_case,
)

# (case, FCFS, SJF, LJF, current policy, simple decider's choice, advanced decider's choice)
# "current policy" in the table is written out as the policy it is.
TABLE1_ROWS = [
    # 1: FCFS = SJF = LJF -> simple FCFS, advanced keeps the current policy
    ("1", 5, 5, 5, "fcfs", "fcfs", "fcfs"),
    ("1", 5, 5, 5, "sjf", "fcfs", "sjf"),
    ("1", 5, 5, 5, "ljf", "fcfs", "ljf"),
    # 2: SJF < FCFS, SJF < LJF (FCFS != LJF) -> SJF
    ("2", 7, 3, 9, "fcfs", "sjf", "sjf"),
    ("2", 9, 3, 7, "ljf", "sjf", "sjf"),
    # 3: FCFS < SJF, FCFS < LJF (SJF != LJF) -> FCFS
    ("3", 2, 4, 6, "sjf", "fcfs", "fcfs"),
    ("3", 2, 6, 4, "ljf", "fcfs", "fcfs"),
    # 4a: LJF < FCFS < SJF -> LJF
    ("4a", 5, 8, 1, "fcfs", "ljf", "ljf"),
    # 4c: LJF < SJF < FCFS -> LJF
    ("4c", 8, 5, 1, "sjf", "ljf", "ljf"),
    # 4b = 5: FCFS = SJF, LJF smaller -> LJF (reported as 5)
    ("5", 5, 5, 1, "fcfs", "ljf", "ljf"),
    ("5", 5, 5, 1, "sjf", "ljf", "ljf"),
    ("5", 5, 5, 1, "ljf", "ljf", "ljf"),
    # 6: FCFS = SJF < LJF
    ("6a", 4, 4, 9, "fcfs", "fcfs", "fcfs"),      # current policy / current policy
    ("6b", 4, 4, 9, "sjf", "fcfs", "sjf"),        # FCFS / current policy
    ("6c", 4, 4, 9, "ljf", "fcfs", "fcfs"),       # FCFS / FCFS (tie case: FCFS over SJF)
    # 7: FCFS = LJF, SJF smaller -> SJF
    ("7", 6, 2, 6, "fcfs", "sjf", "sjf"),
    ("7", 6, 2, 6, "ljf", "sjf", "sjf"),
    # 8: FCFS = LJF < SJF
    ("8a", 3, 8, 3, "fcfs", "fcfs", "fcfs"),      # current policy / current policy
    ("8b", 3, 8, 3, "sjf", "fcfs", "fcfs"),       # FCFS / FCFS (tie case: FCFS over LJF)
    ("8c", 3, 8, 3, "ljf", "fcfs", "ljf"),        # FCFS / current policy
    # 9: SJF = LJF, FCFS smaller -> FCFS
    ("9", 1, 4, 4, "sjf", "fcfs", "fcfs"),
    ("9", 1, 4, 4, "ljf", "fcfs", "fcfs"),
    # 10: SJF = LJF < FCFS
    ("10a", 9, 2, 2, "fcfs", "sjf", "sjf"),       # SJF / SJF (tie case: SJF over LJF)
    ("10b", 9, 2, 2, "sjf", "sjf", "sjf"),        # current policy / current policy
    ("10c", 9, 2, 2, "ljf", "sjf", "ljf"),        # SJF / current policy
]


@pytest.mark.parametrize("case,fcfs,sjf,ljf,current,simple,advanced", TABLE1_ROWS)
def test_table1_case_label(case, fcfs, sjf, ljf, current, simple, advanced):
    assert table1_case(fcfs, sjf, ljf, current) == case


@pytest.mark.parametrize("case,fcfs,sjf,ljf,current,simple,advanced", TABLE1_ROWS)
def test_simple_decider(case, fcfs, sjf, ljf, current, simple, advanced):
    assert simple_decider(fcfs, sjf, ljf, current) == (simple, case)


@pytest.mark.parametrize("case,fcfs,sjf,ljf,current,simple,advanced", TABLE1_ROWS)
def test_advanced_decider(case, fcfs, sjf, ljf, current, simple, advanced):
    assert advanced_decider(fcfs, sjf, ljf, current) == (advanced, case)


def test_every_reported_case_has_a_row():
    """The rows above reach every label the deciders report, and only those."""
    assert {row[0] for row in TABLE1_ROWS} == set(CASE_LABELS)
    assert "4b" not in CASE_LABELS and "5" in CASE_LABELS


def test_the_advanced_decider_differs_from_the_simple_one_exactly_in_the_bold_cases():
    """Table 1 marks cases 1, 6b, 8c and 10c in bold: the only ones where the deciders differ.

    (In case 1 only when the current policy is not FCFS.)
    """
    differing = {row[0] for row in TABLE1_ROWS if row[5] != row[6]}
    assert differing == {"1", "6b", "8c", "10c"}


def test_float_qualities_compare_exactly():
    """Nearly equal is not equal: a difference in the last bit decides."""
    a = 0.1 + 0.2
    assert table1_case(a, 0.3, 0.3, "fcfs") == "10a"   # 0.1 + 0.2 > 0.3 in binary
    assert advanced_decider(a, 0.3, 0.3, "fcfs") == ("sjf", "10a")


def test_table1_case_rejects_an_unknown_current_policy():
    with pytest.raises(ValueError, match="current policy"):
        table1_case(1, 2, 3, "lxf")


def test_table6_rows_cover_every_label_once():
    labels = [label for group in TABLE6_ROWS.values() for label in group]
    assert sorted(labels) == sorted(TABLE1)


@pytest.mark.parametrize("decider,function", [("simple", simple_decider),
                                              ("advanced", advanced_decider)])
def test_decide_among_is_table1_on_the_paper_policies(decider, function):
    """The generalised rule makes Table 1's decision for every ordering of three values."""
    for values in itertools.product((1, 2, 3), repeat=3):
        for current in PAPER_POLICIES:
            qualities = dict(zip(PAPER_POLICIES, values))
            expected, _ = function(*values, current)
            assert decide_among(qualities, current, decider, PAPER_POLICIES) == expected


def test_decide_among_more_candidates():
    qualities = {"fcfs": 4.0, "sjf": 2.0, "ljf": 9.0, "lxf": 2.0}
    # Two best: SJF comes first in the preference order.
    assert decide_among(qualities, "fcfs", "simple", ("fcfs", "sjf", "ljf", "lxf")) == "sjf"
    assert decide_among(qualities, "fcfs", "advanced", ("fcfs", "sjf", "ljf", "lxf")) == "sjf"
    # The advanced decider keeps a current policy that ties for the best; the simple one does not.
    assert decide_among(qualities, "lxf", "advanced", ("fcfs", "sjf", "ljf", "lxf")) == "lxf"
    assert decide_among(qualities, "lxf", "simple", ("fcfs", "sjf", "ljf", "lxf")) == "sjf"
    # The preference order breaks ties.
    assert decide_among(qualities, "fcfs", "simple", ("lxf", "sjf", "fcfs", "ljf")) == "lxf"
