"""Grid workloads: the thesis generator, trace enrichment, the side file, checks on a platform."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.platform import Cluster, Licence, Machine, Platform
from schedlab.platform.generator import PRESETS as PLATFORMS
from schedlab.platform.generator import generate_platform
from schedlab.workload.grid import (
    GridWorkload,
    _side_at_once,
    _side_by_row,
    read_grid_workload,
    runnable,
    side_path,
    write_grid_workload,
)
from schedlab.workload.job import Job, Workload
from schedlab.workload.models.grid import (
    PRESETS,
    TOO_WIDE,
    JobSettings,
    enrich_workload,
    generate_grid,
    preset,
)


def small() -> Platform:
    a = Cluster("a", (Machine("m1", 8, 400), Machine("m2", 4, 200)),
                (Licence("fluent", 1, ("m2",)), Licence("abaqus", 2, ("m1",))))
    return Platform((a,), name="small")


def grid_of(jobs, needs, names=("abaqus", "fluent")) -> GridWorkload:
    n = len(jobs)
    return GridWorkload(Workload(tuple(jobs), processors=12), tuple(names),
                        np.array(needs, bool).reshape(n, len(names)), np.full(n, 100),
                        np.zeros(n), np.zeros(n), np.zeros(n))


def test_generator_is_deterministic_and_in_range():
    platform = generate_platform(PLATFORMS["thesis-4.3"], seed=1)
    settings = PRESETS["thesis-4.3"]
    a = generate_grid(platform, settings, 2000, 10, seed=5)
    b = generate_grid(platform, settings, 2000, 10, seed=5)
    assert a.workload.jobs == b.workload.jobs and (a.needs == b.needs).all()
    assert (a.rating == b.rating).all() and (a.user_class == b.user_class).all()
    assert generate_grid(platform, settings, 2000, 10, seed=6).workload.jobs != a.workload.jobs
    jobs = a.workload.jobs
    assert [j.id for j in jobs] == list(range(1, 2001)) and jobs[0].submit == 0
    assert all(8000 <= j.estimate <= 10000 and j.runtime == j.estimate for j in jobs)
    assert all(1 <= j.width <= 8 for j in jobs)
    assert a.rating.min() >= 100 and a.rating.max() <= 500
    assert set(a.owner_priority.tolist()) == {0, 1, 2, 3}
    assert set(a.user_class.tolist()) == {0, 1, 2}
    # exactly 30 % without deadline; the others submit + estimate + margin, margin in 1500..5500
    assert sum(j.deadline is None for j in jobs) == 600
    margins = [j.deadline - j.submit - j.estimate for j in jobs if j.deadline is not None]
    assert min(margins) >= 1500 and max(margins) <= 5500
    assert 0.28 < a.needs.mean() < 0.32                      # licence needs 30 %
    assert a.licence_names == platform.licence_names
    assert runnable(a, platform).all()
    # mean interarrival about Ta = 10 s
    assert 9 < jobs[-1].submit / 1999 < 11


def test_zero_interarrival_submits_everything_at_once():
    platform = generate_platform(PLATFORMS["thesis-4.1"], seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.1"], 50, 0, seed=1)
    assert {j.submit for j in grid.workload.jobs} == {0}


def test_job_cpus_are_capped_at_the_largest_machine_and_licence_sets_redrawn():
    platform = small()
    settings = JobSettings(cpus=(1, 16), licence_need=0.5)
    grid = generate_grid(platform, settings, 300, 5, seed=2)
    assert max(j.width for j in grid.workload.jobs) == 8
    # fluent (m2 only, 4 CPUs) and abaqus (m1 only) never together; wide jobs never need fluent
    assert runnable(grid, platform).all()
    assert int(grid.workload.header["GridLicenceRedraws"]) > 0


def test_enrichment_keeps_trace_times_and_skips_jobs_wider_than_any_machine():
    trace = Workload((Job(1, 0, 50, 60, 4), Job(2, 5, 10, 20, 16), Job(3, 9, 30, 30, 8)),
                     processors=16, name="t")
    grid = enrich_workload(trace, small(), JobSettings(no_deadline=0.0), seed=3)
    assert [(j.id, j.submit, j.runtime, j.estimate, j.width) for j in grid.workload.jobs] == [
        (1, 0, 50, 60, 4), (3, 9, 30, 30, 8)]
    assert grid.workload.skipped[TOO_WIDE] == 1
    assert all(30 <= j.deadline - j.submit - j.estimate <= 250 for j in grid.workload.jobs)
    assert grid.name == "t~grid-seed3"
    again = enrich_workload(trace, small(), JobSettings(no_deadline=0.0), seed=3)
    assert again.workload.jobs == grid.workload.jobs and (again.needs == grid.needs).all()


def test_side_file_round_trip(tmp_path):
    platform = generate_platform(PLATFORMS["thesis-4.2"], seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.2"], 200, 10, seed=1)
    side = write_grid_workload(grid, tmp_path / "jobs.swf")
    assert side == tmp_path / "jobs.grid.csv" == side_path(tmp_path / "jobs.swf.gz")
    back = read_grid_workload(tmp_path / "jobs.swf", platform=platform)
    assert back.workload.jobs == grid.workload.jobs
    used = grid.needs.any(axis=0)
    assert back.licence_names == tuple(np.array(grid.licence_names)[used])
    assert (back.needs == grid.needs[:, used]).all()
    for name in ("rating", "user_class", "owner_priority", "input_size"):
        assert (getattr(back, name) == getattr(grid, name)).all()
    assert grid.input_size.min() >= 100 and grid.input_size.max() <= 800   # Table 4 Input


SWF = "; MaxProcs: 12\n" + "".join(
    f"{i} {s} -1 100 {w} -1 -1 {w} 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    for i, s, w in ((1, 0, 4), (2, 10, 8)))
HEADER = "job_id,rating,deadline,licences,class,owner_priority,input\n"


def write_pair(tmp_path: Path, rows: str, swf: str = SWF) -> Path:
    (tmp_path / "j.swf").write_text(swf)
    (tmp_path / "j.grid.csv").write_text(rows)
    return tmp_path / "j.swf"


def test_reading_a_hand_written_pair(tmp_path):
    path = write_pair(tmp_path, HEADER + "1,200,500,fluent,gold,3,7\n2,400,,,regular,0,0\n")
    grid = read_grid_workload(path, platform=small())
    one, two = grid.job(0), grid.job(1)
    assert (one.job.deadline, one.licences, one.rating, one.user_class, one.owner_priority,
            one.input_size) == (500, ("fluent",), 200, "gold", 3, 7)
    assert (two.job.deadline, two.licences, two.user_class) == (None, (), "regular")


@pytest.mark.parametrize("rows, line, field, message", [
    ("job_id,rating\n", 1, "header", "expected the header"),
    (HEADER + "1,200,500,fluent,gold,3\n", 2, None, "expected 7 fields"),
    (HEADER + "1,0,500,,gold,3,0\n", 2, "rating", "expected an integer 1..1000000000, got 0"),
    (HEADER + "1,200,-5,,gold,3,0\n", 2, "deadline", "before the submit time"),
    (HEADER + "1,200,,,platinum,3,0\n", 2, "class", "expected one of regular, silver, gold"),
    (HEADER + "1,200,,,gold,4,0\n", 2, "owner_priority", "expected an integer 0..3"),
    (HEADER + "1,200,,a;;b,gold,0,0\n", 2, "licences", "distinct licence names"),
    (HEADER + "9,200,,,gold,0,0\n", 2, "job_id", "no job 9 in the SWF file"),
    (HEADER + "1,200,,,gold,0,0\n1,200,,,gold,0,0\n", 3, "job_id", "listed twice"),
    (HEADER + "1,200,,,gold,0,x\n", 2, "input", "expected an integer"),
    (HEADER + "1,200,,,gold,0,0\n", None, "job_id", "job 2 of the SWF file has no row"),
])
def test_side_file_errors_name_line_and_field(tmp_path, rows, line, field, message):
    path = write_pair(tmp_path, rows)
    with pytest.raises(InputError, match=message) as err:
        read_grid_workload(path)
    assert (err.value.file, err.value.line, err.value.field) == (
        str(tmp_path / "j.grid.csv"), line, field)


def test_missing_side_file(tmp_path):
    (tmp_path / "j.swf").write_text(SWF)
    with pytest.raises(InputError, match=r"no side file for j.swf"):
        read_grid_workload(tmp_path / "j.swf")


def test_a_job_needing_a_licence_no_cluster_has(tmp_path):
    path = write_pair(tmp_path, HEADER + "1,200,,ansys,gold,0,0\n2,200,,,gold,0,0\n")
    with pytest.raises(InputError, match="job 1 needs licence 'ansys', which no cluster of "
                                         "platform 'small' has") as err:
        read_grid_workload(path, platform=small())
    assert (err.value.file, err.value.line, err.value.field) == (
        str(tmp_path / "j.grid.csv"), 2, "licences")


def test_a_job_needing_more_cpus_than_any_machine(tmp_path):
    swf = SWF.replace("2 10 -1 100 8 -1 -1 8", "2 10 -1 100 12 -1 -1 12")
    path = write_pair(tmp_path, HEADER + "1,200,,,gold,0,0\n2,200,,,gold,0,0\n", swf)
    with pytest.raises(InputError, match="job 2 asks for 12 CPUs, more than any machine of "
                                         r"platform 'small' has \(8\)") as err:
        read_grid_workload(path, platform=small())
    assert (err.value.file, err.value.field) == (str(path), "requested processors")


def test_a_licence_set_no_single_machine_can_activate(tmp_path):
    path = write_pair(tmp_path, HEADER + "1,200,,,gold,0,0\n2,200,,abaqus;fluent,gold,0,0\n")
    with pytest.raises(InputError, match="can activate all of job 2's licences") as err:
        read_grid_workload(path, platform=small())
    assert (err.value.line, err.value.field) == (3, "licences")
    grid = grid_of([Job(1, 0, 10, 10, 2)], [[True, True]])
    with pytest.raises(InputError, match="no machine of platform 'small' has 2 CPUs and can "
                                         r"activate all of job 1's licences \(abaqus, fluent\)"):
        grid.check_on(small())
    ok = grid_of([Job(1, 0, 10, 10, 4), Job(2, 0, 10, 10, 5)], [[False, True], [False, True]])
    assert runnable(ok, small()).tolist() == [True, False]     # fluent only on m2 (4 CPUs)


@pytest.mark.parametrize("changes, field", [
    ({"estimate": (0, 10)}, "estimate"), ({"margin": (5, 1)}, "margin"),
    ({"licence_need": 1.5}, "licence_need"), ({"no_deadline": -0.1}, "no_deadline"),
    ({"classes": (0, 0, 0)}, "classes"),
])
def test_bad_job_settings(changes, field):
    with pytest.raises(InputError) as err:
        JobSettings(**changes)
    assert err.value.field == field


def test_unknown_preset_and_setting():
    with pytest.raises(InputError, match="unknown grid workload preset"):
        preset("x")
    with pytest.raises(InputError, match="unknown job setting"):
        preset("thesis-4.1", speed=(1, 2))


def same_columns(one, other) -> bool:
    """Two readings of side-file rows (:func:`_side_by_row`'s tuple) are the same values."""
    arrays = all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(one[:4], other[:4]))
    return arrays and one[4:] == other[4:]


#: Per side-file column after the job id: values both readings take, then values that
#: one of them or both refuse, or read otherwise (spaces, non-ASCII).
VALUES = {
    "rating": (["200", "+5", "007", "1000000000"], ["0", "1000000001", "9" * 20, "2 "]),
    "deadline": (["", "500", "+500"], ["-5", "9007199254740993", "x", " 500"]),
    "licences": (["", "fluent", "a;b"], ["a;;b", "a;a", "é", "a; b", ";", "a\xa0", "b\t"]),
    "class": (["gold", "silver", "regular"], ["Gold", "", "gold\x1f"]),
    "owner_priority": (["0", "3", "+2"], ["4", "-1", "٣"]),
    "input": (["0", "7", "9007199254740992"], ["9007199254740993", "-1", "x"]),
}
GOOD_ROW = st.tuples(*(st.sampled_from(good) for good, _ in VALUES.values()))
#: One value of the rows made bad (row, column, value), or (one time in five) none.
BAD_VALUE = st.one_of(st.none(), *[
    st.tuples(st.integers(0, 1), st.just(column), st.sampled_from(bad))
    for column, (_, bad) in enumerate(VALUES.values())])
#: The job ids of the rows: each job once, in either order, or a job missing, twice or
#: unknown.
SIDE_IDS = st.sampled_from([("1", "2"), ("2", "1"), ("+1", "02")] * 4 + [
    ("1",), ("1", "1"), ("1", "2", "2"), ("1", "3"), ("1", " 2"), ("1", "2x")])


@settings(max_examples=500, deadline=None)
@given(SIDE_IDS, st.lists(GOOD_ROW, min_size=3, max_size=3), BAD_VALUE, st.integers(0, 9))
def test_side_file_read_at_once_as_row_by_row(ids, rows, bad, short):
    """Read a column at a time, a side file gives what the row-by-row reading gives, and it
    reads nothing that reading refuses (which names the mistake); a file with nothing
    wrong is read at once."""
    rows = [list(row) for row in rows]
    if bad is not None:
        row, column, value = bad
        rows[row][column] = value
    workload = Workload((Job(1, 0, 100, 200, 4), Job(2, 10, 100, 200, 8)), processors=12)
    lines = [(k + 2, ",".join((job_id, *row) if k != short else (job_id, *row[:-1])))
             for k, (job_id, row) in enumerate(zip(ids, rows))]
    at_once = _side_at_once(lines, workload)
    try:
        by_row = _side_by_row(lines, "f", workload)
    except InputError:
        by_row = None
    assert at_once is None or (by_row is not None and same_columns(at_once, by_row))
    if bad is None and short >= len(ids) and sorted(ids) in (["1", "2"], ["+1", "02"]):
        assert at_once is not None


def test_a_written_side_file_is_read_at_once(tmp_path):
    platform = generate_platform(PLATFORMS["thesis-4.2"], seed=1)
    grid = generate_grid(platform, PRESETS["thesis-4.2"], 200, 10, seed=1)
    side = write_grid_workload(grid, tmp_path / "jobs.swf")
    workload = read_grid_workload(tmp_path / "jobs.swf").workload
    lines = list(enumerate(side.read_text().splitlines()[1:], start=2))
    at_once = _side_at_once(lines, workload)
    assert at_once is not None and same_columns(at_once, _side_by_row(lines, "f", workload))
