"""jobs.csv: the contract columns, and the deadline columns of deadline runs."""

from __future__ import annotations

import csv
import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine.simulator import run
from schedlab.output import JOB_COLUMNS, jobs_csv_text
from schedlab.policies import make_policy
from schedlab.workload.job import Job, Workload


def rows(result):
    return list(csv.DictReader(io.StringIO(jobs_csv_text(result))))


def test_plain_runs_have_exactly_the_contract_columns():
    workload = Workload((Job(1, 0, 10, 10, 2), Job(2, 0, 5, 5, 2)), 2)
    table = rows(run(workload, make_policy("fcfs")))
    assert tuple(table[0]) == JOB_COLUMNS
    assert [(r["start"], r["end"], r["wait"]) for r in table] == [("0", "10", "0"),
                                                                   ("10", "15", "10")]


def test_deadline_runs_add_deadline_and_kind():
    # Job 2 cannot finish by 12 behind job 1 (machine of 2): QoPS rejects it.
    workload = Workload((Job(1, 0, 10, 10, 2, deadline=20),
                         Job(2, 1, 5, 5, 2, deadline=12),
                         Job(3, 2, 5, 5, 1, deadline=86_402, artificial_deadline=True),
                         Job(4, 3, 1, 1, 1)), 2)
    table = rows(run(workload, make_policy("qops")))
    assert [(r["status"], r["deadline"], r["deadline_kind"]) for r in table] == [
        ("finished", "20", "real"), ("rejected", "12", "real"),
        ("finished", "86402", "artificial"), ("finished", "", "")]


def test_jobs_csv_made_block_by_block_is_the_same_text(tmp_path, monkeypatch):
    """Blocks of 1 and 3 rows (boundaries inside the deadline columns) give the one-block text."""
    from schedlab import output

    workload = Workload((Job(1, 0, 10, 10, 2, deadline=20),
                         Job(2, 1, 5, 5, 2, deadline=12),
                         Job(3, 2, 5, 5, 1, deadline=86_402, artificial_deadline=True),
                         Job(4, 3, 1, 1, 1)), 2)
    result = run(workload, make_policy("qops"))
    whole = jobs_csv_text(result)
    assert whole.splitlines()[1:] == ["1,0,0,10,2,10,10,finished,0,0,20,real",
                                      "2,1,,,2,5,5,rejected,,,12,real",
                                      "3,2,10,15,1,5,5,finished,8,10,86402,artificial",
                                      "4,3,10,11,1,1,1,finished,7,10,,"]
    assert whole.endswith(",,\n")
    for rows_per_block in (1, 3):
        monkeypatch.setattr(output, "CSV_BLOCK_ROWS", rows_per_block)
        assert jobs_csv_text(result) == whole
        output.write_jobs_csv(result, tmp_path / f"jobs{rows_per_block}.csv")
        assert (tmp_path / f"jobs{rows_per_block}.csv").read_text() == whole
    assert list(tmp_path.iterdir()) and not list(tmp_path.glob(".*.tmp"))


def plain_csv_lines(values, empty, named, names):
    """The lines :func:`schedlab.output_kernels.csv_text` must write, made in Python."""
    return "".join(",".join(names[v] if j == named else "" if blank else str(v)
                            for j, (v, blank) in enumerate(zip(row, flags))) + "\n"
                   for row, flags in zip(values.tolist(), empty.tolist()))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 12), st.integers(1, 6), st.data())
def test_compiled_csv_lines_are_the_plain_lines(rows, columns, data):
    """Any int64 (the extremes but the least, which has no positive twin), empty cells
    anywhere and names of any length (none included) in any column: the text of Python's
    formatting."""
    from schedlab.output_kernels import csv_text

    names = tuple(data.draw(st.lists(st.text("abcxyz_", max_size=9), min_size=1, max_size=5)))
    named = data.draw(st.integers(-1, columns - 1))
    cell = st.one_of(st.integers(-20, 20), st.integers(-2**63 + 1, 2**63 - 1))
    cells = data.draw(st.lists(cell, min_size=rows * columns, max_size=rows * columns))
    values = np.array(cells, dtype=np.int64).reshape(rows, columns)
    if named >= 0:
        values[:, named] = data.draw(st.lists(st.integers(0, len(names) - 1),
                                              min_size=rows, max_size=rows))
    empty = np.array(data.draw(st.lists(st.booleans(), min_size=rows * columns,
                                        max_size=rows * columns)), dtype=bool)
    empty = empty.reshape(rows, columns)
    assert csv_text(values, empty, named, names) == plain_csv_lines(values, empty, named, names)
