"""Reservation requests: the record, the CSV file, the generator, the time compression."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from files import written
from schedlab.errors import InputError
from schedlab.workload.reservations import (
    Reservation,
    compress_requests,
    generate_requests,
    read_reservations,
    requests_csv_text,
    write_reservations,
)


def write(tmp_path: Path, text: str) -> Path:
    return written(tmp_path, "requests.csv", text)


def test_a_request_knows_its_end_notice_and_area():
    request = Reservation(7, created=100, start=400, duration=50, width=8, owner="ann")
    assert (request.end, request.notice, request.area) == (450, 300, 400)


def test_a_file_with_relative_times_is_read_sorted_by_creation_then_id(tmp_path):
    path = write(tmp_path, "# two requests\n"
                           "id,created,start,duration,nodes,owner\n"
                           "5,100,200,3600,8,ann\n"
                           "\n"
                           "2,100,150,60,1,bob\n"
                           "9,50,50,10,4,\n")
    assert read_reservations(path, processors=8) == (
        Reservation(9, 50, 50, 10, 4, ""), Reservation(2, 100, 150, 60, 1, "bob"),
        Reservation(5, 100, 200, 3600, 8, "ann"))


def test_columns_may_come_in_any_order_and_owner_is_optional(tmp_path):
    path = write(tmp_path, "nodes,duration,start,created,id\n3,20,40,10,1\n")
    assert read_reservations(path) == (Reservation(1, 10, 40, 20, 3, ""),)


def test_unix_times_are_converted_with_the_trace_start(tmp_path):
    path = write(tmp_path, "id,created_unix,start_unix,duration,nodes\n"
                           "1,1000000100,1000003700,7200,16\n")
    assert read_reservations(path, unix_start_time=1_000_000_000) == (
        Reservation(1, 100, 3700, 7200, 16),)


def test_written_requests_read_back_the_same(tmp_path):
    asked = (Reservation(1, 0, 10, 5, 2, "a,b"), Reservation(2, 3, 30, 7, 1, 'say "hi"'))
    path = tmp_path / "out.csv"
    write_reservations(asked, path)
    assert read_reservations(path) == asked
    assert requests_csv_text(asked).splitlines()[0] == "id,created,start,duration,nodes,owner"


@pytest.mark.parametrize("text, line, field, says", [
    ("id,created,start,nodes\n1,0,5,2\n", 1, "duration", "missing column 'duration'"),
    ("id,created,duration,nodes\n1,0,5,2\n", 1, "start", "missing column 'start'"),
    ("id,created,start,duration,nodes\n1,0,5,10,2\n2,0,5,-3,2\n", 3, "duration",
     "expected a duration > 0 seconds, got -3"),
    ("id,created,start,duration,nodes\n1,0,5,0,2\n", 2, "duration", "duration > 0"),
    ("id,created,start,duration,nodes\n1,0,5,10,9\n", 2, "nodes",
     "9 nodes asked for on a 8-processor machine"),
    ("id,created,start,duration,nodes\n1,0,5,10,0\n", 2, "nodes", "at least 1 node"),
    ("id,created,start,duration,nodes\n1,50,40,10,2\n", 2, "start",
     "starts (40) before the request is created (50)"),
    ("id,created,start,duration,nodes\n1,-5,40,10,2\n", 2, "created", "before the trace starts"),
    ("id,created,start,duration,nodes\n1,0,5,ten,2\n", 2, "duration",
     "expected an integer, got 'ten'"),
    ("id,created,start,duration,nodes\n1,0,5,10,2\n1,0,6,10,2\n", 3, "id",
     "request id 1 already used on line 2"),
    ("id,created,start,duration,nodes\n1,0,5\n", 2, None, "expected 5 fields, got 3"),
    ("id,created,start_unix,created_unix,duration,nodes\n", 1, "created", "not both"),
])
def test_a_malformed_file_names_file_line_and_field(tmp_path, text, line, field, says):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_reservations(path, processors=8)
    err = caught.value
    assert (err.file, err.line, err.field) == (str(path), line, field)
    assert says in str(err)
    assert str(err).startswith(f"{path}:{line}: ")


def test_unix_times_need_the_trace_start(tmp_path):
    path = write(tmp_path, "id,created_unix,start_unix,duration,nodes\n1,5,6,7,1\n")
    with pytest.raises(InputError, match="no UnixStartTime"):
        read_reservations(path)


def test_an_empty_or_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="header line"):
        read_reservations(write(tmp_path, "# nothing\n"))
    with pytest.raises(InputError, match="no such reservation file"):
        read_reservations(tmp_path / "absent.csv")


def test_the_generator_uses_the_papers_defaults_and_spreads_uniformly():
    four_weeks = (0, 28 * 86400)
    asked = generate_requests(four_weeks, seed=3)
    assert len(asked) == 60                       # Margo §5: 15 per week
    widths = np.array([r.width for r in asked])
    durations = np.array([r.duration for r in asked])
    starts = np.array([r.start for r in asked])
    assert widths.min() >= 8 and widths.max() <= 128
    assert durations.min() >= 4 * 3600 and durations.max() <= 18 * 3600
    assert starts.min() >= 0 and starts.max() < four_weeks[1]
    assert all(1 * 86400 <= r.notice <= 7 * 86400 or r.created == 0 for r in asked)
    assert [r.id for r in asked] == list(range(1, 61))
    assert [(r.created, r.start) for r in asked] == sorted((r.created, r.start) for r in asked)
    # uniform over the span: each week gets about a quarter of the 60 starts
    per_week = np.bincount(starts // (7 * 86400), minlength=4)
    assert per_week.min() >= 8 and per_week.max() <= 24


def test_the_generator_is_deterministic_per_seed_and_caps_widths_at_the_machine():
    span = (1000, 1000 + 7 * 86400)
    first = generate_requests(span, per_week=30, processors=20, seed=11)
    assert first == generate_requests(span, per_week=30, processors=20, seed=11)
    assert first != generate_requests(span, per_week=30, processors=20, seed=12)
    assert len(first) == 30 and max(r.width for r in first) <= 20
    assert min(r.created for r in first) >= 1000


def test_the_count_rounds_half_up():
    assert len(generate_requests((0, 7 * 86400 // 2), per_week=3, seed=0)) == 2   # 1.5


@pytest.mark.parametrize("kwargs, field", [
    ({"span": (10, 10)}, "span"),
    ({"span": (0, 100), "nodes": (0, 4)}, "nodes"),
    ({"span": (0, 100), "duration": (5, 4)}, "duration"),
    ({"span": (0, 100), "per_week": -1}, "per_week"),
])
def test_generator_parameters_are_checked(kwargs, field):
    span = kwargs.pop("span")
    with pytest.raises(InputError) as caught:
        generate_requests(span, **kwargs)
    assert caught.value.field == field


def test_a_year_compressed_into_a_month_keeps_durations_and_notice():
    year, month = (0, 365 * 86400), (86400, 86400 + 31 * 86400)
    asked = (Reservation(1, 0, 7300 * 3600, 4 * 3600, 8),        # notice 7300 h
             Reservation(2, 100 * 86400, 101 * 86400, 3600, 16))  # notice one day
    compressed = compress_requests(asked, year, month)
    # start' = 86400 + floor(start x 31 / 365)
    assert [r.start for r in compressed] == [86400 + 7300 * 3600 * 31 // 365,
                                             86400 + 101 * 86400 * 31 // 365]
    assert [r.duration for r in compressed] == [4 * 3600, 3600]
    assert [r.width for r in compressed] == [8, 16]
    second = next(r for r in compressed if r.id == 2)
    assert second.notice == 86400                  # kept
    first = next(r for r in compressed if r.id == 1)
    assert first.created == 86400                  # clamped at the new span's start


def test_compression_can_scale_the_notice_too():
    asked = (Reservation(1, 100, 1100, 50, 2),)
    (moved,) = compress_requests(asked, (0, 10_000), (0, 1_000), notice="scale")
    assert (moved.created, moved.start, moved.duration) == (10, 110, 50)


def test_compression_refuses_requests_outside_the_source_span():
    with pytest.raises(InputError, match="outside the source span"):
        compress_requests((Reservation(1, 0, 500, 5, 1),), (0, 500), (0, 50))
