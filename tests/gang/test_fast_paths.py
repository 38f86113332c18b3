"""Shortcuts of the gang policy agree with the plain loops they stand for.

``packing.repack`` passes over rows none of whose jobs fits an earlier row,
``packing.largest_spots`` answers at once when a new row may open,
``packing.row_guests`` passes over the jobs of a row none of whose processors is free
where it chooses, ``packing.KeptGuests`` chooses again only the rows a change can touch,
and the engine's ``lowest_bits`` and ``column_ranges`` take a run of consecutive
processors at a time.  Each is compared with the plain loop, written out here or in
``packing``, on random matrices (processors out of service included), for the guests
after random changes, and on random masks.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.timesharing import Matrix, column_ranges, lowest_bits
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


def plain_lowest_bits(mask, count):
    """The lowest set bits of ``mask``, one at a time, ``count`` times."""
    chosen = 0
    for _ in range(count):
        low = mask & -mask
        chosen |= low
        mask ^= low
    return chosen


def plain_column_ranges(mask):
    """The runs of set bits of ``mask``, bit by bit."""
    ranges, column, first = [], 0, None
    while mask:
        if mask & 1 and first is None:
            first = column
        if not mask & 1 and first is not None:
            ranges.append((first, column))
            first = None
        mask >>= 1
        column += 1
    if first is not None:
        ranges.append((first, column))
    return tuple(ranges)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, (1 << 300) - 1), st.integers(0, 310))
def test_lowest_bits_and_column_ranges_match_the_bit_by_bit_loops(mask, count):
    assert lowest_bits(mask, count) == plain_lowest_bits(mask, count)
    assert column_ranges(mask) == plain_column_ranges(mask)


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


def plain_row_guests(matrix, row):
    """First fit of every other row's jobs (rows in order, each by lowest processor) onto
    the processors in service the row's jobs and the guests chosen before leave free."""
    taken = ~matrix.usable | row.occupied
    chosen = []
    for other in matrix.rows:
        for _, job_id, mask in packing.by_lowest_processor(other.own):
            if other is not row and not mask & taken:
                chosen.append(job_id)
                taken |= mask
    return chosen


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_row_guests_match_the_plain_first_fit(drawn):
    matrix = build(drawn)
    candidates = [(row.occupied, packing.by_lowest_processor(row.own)) for row in matrix.rows]
    for row in matrix.rows:
        assert packing.row_guests(candidates, row, ~matrix.usable) == \
            plain_row_guests(matrix, row)


@settings(max_examples=300, deadline=None)
@given(matrices(), st.lists(st.tuples(st.sampled_from(["place", "leave", "move"]),
                                      st.integers(0, 5), st.integers(1, (1 << 12) - 1)),
                            max_size=12))
def test_kept_guests_match_the_plain_choice_after_each_change(drawn, changes):
    """After every job placed, gone or moved, the rows ``KeptGuests`` chooses again and
    those it keeps hold the guests a choice from scratch gives."""
    processors, rows, _ = drawn
    matrix = build((processors, rows, (1 << processors) - 1))
    kept = packing.KeptGuests()
    job_id = 100
    for kind, row_pick, bits in [("none", 0, 0), *changes]:
        jobs = list(matrix.masks)
        if kind == "place":
            index = row_pick % (len(matrix) + 1)
            free = matrix.full & ~(matrix.rows[index].occupied if index < len(matrix) else 0)
            mask = free & bits
            if mask:
                job_id += 1
                matrix.place(Job(job_id, 0, 9, 9, mask.bit_count()), index, mask)
        elif kind == "leave" and jobs:
            matrix._remove(jobs[bits % len(jobs)])
            matrix._drop_empty_rows()
        elif kind == "move" and jobs:
            moved = jobs[bits % len(jobs)]
            target = row_pick % len(matrix)
            if not matrix.mask_of(moved) & matrix.rows[target].occupied:
                matrix.move(moved, target)
                matrix._drop_empty_rows()
        placed = kept.add(matrix)
        guests = [dict(row.guests) for row in matrix.rows]
        matrix._clear_guests()
        assert packing.add_guests(matrix) == placed
        assert [row.guests for row in matrix.rows] == guests
