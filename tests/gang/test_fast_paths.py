"""Shortcuts of the gang policy agree with the plain loops they stand for.

``packing.repack`` passes over rows none of whose jobs fits an earlier row,
and ``packing.largest_spots`` answers at once when a new row may open.  Each is compared
with the plain loop, written out here, on random matrices (processors out of service
included).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.timesharing import Matrix
from schedlab.policies.gang import packing
from schedlab.workload.job import Job


def plain_repack(matrix):
    """Every job of every row after the first tried against every earlier row."""
    moves = 0
    rows = matrix.rows
    for index in range(1, len(rows)):
        for _, job_id, mask in packing.by_lowest_processor(rows[index].own):
            for target in range(index):
                if not mask & rows[target].occupied:
                    matrix.move(job_id, target)
                    moves += 1
                    break
    return moves


def plain_largest_spots(matrix, slot_limit, avoid):
    """The most free processors in service of any row, or of a new row if one may open."""
    usable = matrix.usable
    spots = [usable & ~row.occupied for row in matrix.rows]
    if len(matrix) < slot_limit:
        spots.append(usable)
    return (max((spot.bit_count() for spot in spots), default=0),
            max(((spot & ~avoid).bit_count() for spot in spots), default=0))


@st.composite
def matrices(draw):
    """The draw of a matrix: processors, rows of jobs on disjoint processors, and the
    processors in service after the jobs were placed (some jobs may then hold processors
    out of service, as after a failure)."""
    processors = draw(st.integers(1, 12))
    full = (1 << processors) - 1
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        owner = draw(st.lists(st.integers(0, 6), min_size=processors, max_size=processors))
        jobs: dict[int, int] = {}
        for column, job in enumerate(owner):
            if job:
                jobs[job] = jobs.get(job, 0) | 1 << column
        rows.append(list(jobs.values()))
    usable = full & ~draw(st.integers(0, full)) if draw(st.booleans()) else full
    return processors, rows, usable


def build(draw_of_matrix) -> Matrix:
    processors, rows, usable = draw_of_matrix
    matrix = Matrix(processors)
    job_id = 0
    for masks in rows:
        index = len(matrix)                 # a row drawn without jobs opens none
        for mask in masks:
            job_id += 1
            matrix.place(Job(job_id, 0, 9, 9, mask.bit_count()), index, mask)
    matrix.usable = usable
    return matrix


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_repack_matches_the_plain_repack(drawn):
    processors, rows, _ = drawn             # matrix jobs hold processors in service
    drawn = processors, rows, (1 << processors) - 1
    fast, plain = build(drawn), build(drawn)
    assert packing.repack(fast) == plain_repack(plain)
    assert [row.own for row in fast.rows] == [row.own for row in plain.rows]
    assert fast.log == plain.log


@settings(max_examples=300, deadline=None)
@given(matrices(), st.integers(1, 6), st.integers(0, (1 << 12) - 1))
def test_largest_spots_match_the_plain_maximum(drawn, slot_limit, avoid):
    matrix = build(drawn)
    assert packing.largest_spots(matrix, slot_limit, avoid) == \
        plain_largest_spots(matrix, slot_limit, avoid)
