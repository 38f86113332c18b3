"""SWF reader and writer (SPEC §1.1).

``data/small.swf`` is a hand-written trace; the expected jobs below are
worked out from its lines by the rules in docs/reference/workloads.md:

line 11  job 1: width 4 (field 8), estimate 200, runtime 100
line 12  job 2: field 8 = -1 -> width 2 from field 5; runtime 50.9 -> 50;
         no requested time -> estimate = runtime = 50
line 13  job 3: runtime -1                -> skipped "runtime < 0"
line 14  job 4: fields 8 and 5 are 0      -> skipped "width <= 0"
line 15  job 5: width 16 > MaxProcs 8     -> skipped "width > machine"
line 16  job 7: width 8, requested 600.0 -> estimate 600, runtime 700
line 17  job 6: field 8 = 6 (field 5 = 3); runtime 0, no requested time
         -> estimate max(0, 1) = 1; submitted at 30 like job 7, so it comes
         first in (submit, id) order
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from real_traces import real_trace
from schedlab.engine.result import FINISHED, KILLED, REJECTED, Result
from schedlab.errors import InputError
from schedlab.workload import swf
from schedlab.workload.job import INT_COLUMNS, Job, Workload
from schedlab.workload.swf import SKIP_REASONS, read_swf, write_swf

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small.swf"

# One valid record (18 fields) used to build bad files line by line.
RECORD = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1"


def write_text(tmp_path: Path, text: str, name: str = "bad.swf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def record(**fields: str) -> str:
    """RECORD with some fields replaced, given as f<number>=value."""
    tokens = RECORD.split()
    for key, value in fields.items():
        tokens[int(key[1:]) - 1] = value
    return " ".join(tokens)


def error_of(path: Path, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        read_swf(path, **kwargs)
    return info.value


# --------------------------------------------------------------------------- good input


def test_small_trace_jobs_follow_the_width_estimate_and_skip_rules():
    workload = read_swf(SMALL)
    assert workload.jobs == (
        Job(1, 0, 100, 200, 4, user=1, group=1, queue=0),
        Job(2, 10, 50, 50, 2, user=2, group=1, queue=1),
        Job(6, 30, 0, 1, 6, user=2, group=1, queue=0),
        Job(7, 30, 700, 600, 8, user=1, group=1, queue=2),
    )
    assert workload.skipped == {"submit < 0": 0, "runtime < 0": 1, "width <= 0": 1,
                                "no estimate": 0, "width > machine": 1}
    assert list(workload.skipped) == list(SKIP_REASONS)


def test_header_is_parsed_and_gives_machine_size_start_time_and_name():
    workload = read_swf(SMALL)
    assert workload.processors == 8  # MaxProcs wins over MaxNodes
    assert workload.unix_start_time == 1_000_000_000
    assert workload.name == "small"
    assert workload.header["Computer"] == "Test machine"
    assert workload.header["Note"] == "first note\ncontinued\nsecond note"
    assert workload.header["MaxNodes"] == "4"


def test_drop_missing_estimates_skips_and_counts_them():
    workload = read_swf(SMALL, missing_estimate="drop")
    assert [j.id for j in workload] == [1, 7]
    assert workload.skipped["no estimate"] == 2


def test_width_field_allocated_prefers_field_5():
    workload = read_swf(SMALL, width_field="allocated")
    assert [(j.id, j.width) for j in workload] == [(1, 4), (2, 2), (6, 3), (7, 8)]
    # job 5 is skipped: its allocated width 16 exceeds the 8 processors
    assert workload.skipped["width > machine"] == 1


def test_processors_argument_overrides_the_header():
    workload = read_swf(SMALL, processors=16)
    assert workload.processors == 16
    assert [j.id for j in workload] == [1, 2, 5, 6, 7]
    assert workload.skipped["width > machine"] == 0


def test_machine_size_falls_back_to_maxnodes_then_to_the_widest_job(tmp_path):
    with_nodes = write_text(tmp_path, f"; MaxNodes: 12\n{record(f8='5')}\n", "nodes.swf")
    assert read_swf(with_nodes).processors == 12
    bare = write_text(tmp_path, f"{record(f8='5')}\n{record(f1='2', f8='3')}\n", "bare.swf")
    assert read_swf(bare).processors == 5


def test_gzip_is_detected_by_magic_bytes_not_by_suffix(tmp_path):
    plain = read_swf(SMALL)
    gz = tmp_path / "small.swf.gz"
    gz.write_bytes(gzip.compress(SMALL.read_bytes()))
    disguised = tmp_path / "disguised.swf"
    disguised.write_bytes(gzip.compress(SMALL.read_bytes()))
    not_gzip = tmp_path / "plain.swf.gz"
    not_gzip.write_bytes(SMALL.read_bytes())
    for path in (gz, disguised, not_gzip):
        workload = read_swf(path)
        assert workload.jobs == plain.jobs
        assert workload.skipped == plain.skipped
    assert read_swf(gz).name == "small"


def test_windows_line_endings_read_the_same(tmp_path):
    crlf = tmp_path / "crlf.swf"
    crlf.write_bytes(SMALL.read_bytes().replace(b"\n", b"\r\n"))
    workload = read_swf(crlf)
    assert workload.jobs == read_swf(SMALL).jobs
    assert workload.header["Note"] == "first note\ncontinued\nsecond note"


def test_blank_lines_and_late_comments_are_allowed(tmp_path):
    path = write_text(tmp_path, f"\n{record()}\n\n; Note: late\n{record(f1='2', f2='5')}\n")
    workload = read_swf(path)
    assert [j.id for j in workload] == [1, 2]
    assert workload.header["Note"] == "late"


# --------------------------------------------------------------------------- bad input


def test_wrong_field_count_names_line_and_first_missing_field(tmp_path):
    short = " ".join(RECORD.split()[:17])
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{short}\n")
    err = error_of(path)
    assert str(err) == (f"{path}:3: field 18 (think time from preceding job): "
                        "expected 18 fields, got 17")
    assert (err.file, err.line) == (str(path), 3)


def test_extra_field_is_an_error(tmp_path):
    path = write_text(tmp_path, f"{RECORD} 7\n")
    assert str(error_of(path)) == f"{path}:1: field 19 (extra): expected 18 fields, got 19"


def test_non_numeric_field_names_line_and_field(tmp_path):
    path = write_text(tmp_path, f"{RECORD}\n{record(f1='2', f4='abc')}\n")
    assert str(error_of(path)) == f"{path}:2: field 4 (run time): expected a number, got 'abc'"


def test_nan_is_not_a_number(tmp_path):
    path = write_text(tmp_path, f"{record(f6='nan')}\n")
    assert str(error_of(path)) == (f"{path}:1: field 6 (average CPU time used): "
                                   "expected a number, got 'nan'")


def test_fractional_count_field_is_rejected(tmp_path):
    path = write_text(tmp_path, f"{record(f5='2.5')}\n")
    assert str(error_of(path)) == (f"{path}:1: field 5 (allocated processors): "
                                   "expected an integer, got '2.5'")


def test_semicolon_after_data_is_not_a_comment(tmp_path):
    path = write_text(tmp_path, f"{record(f18='-1;')}\n")
    err = error_of(path)
    assert (err.line, err.field) == (1, "18 (think time from preceding job)")
    assert "expected a number, got '-1;'" in str(err)


PLACEHOLDER = " ".join(["-1"] * 18)   # LLNL-Thunder holds 1,190 records like this


def test_placeholder_records_are_skipped_and_counted(tmp_path):
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{PLACEHOLDER}\n"
                                f"{record(f1='2', f2='5')}\n{PLACEHOLDER}\n")
    workload = read_swf(path)
    assert [(j.id, j.submit) for j in workload] == [(1, 0), (2, 5)]
    assert workload.skipped == {"submit < 0": 2, "runtime < 0": 0, "width <= 0": 0,
                                "no estimate": 0, "width > machine": 0}


def test_strict_mode_stops_at_a_negative_submit_time(tmp_path):
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{record(f1='2', f2='-5')}\n")
    assert len(read_swf(path)) == 1
    assert str(error_of(path, strict=True)) == (f"{path}:3: field 2 (submit time): "
                                                "expected a submit time >= 0, got -5 "
                                                "(strict mode)")


def test_submit_order_is_checked_around_placeholders(tmp_path):
    path = write_text(tmp_path, f"{record(f2='200')}\n{PLACEHOLDER}\n"
                                f"{record(f1='2', f2='100')}\n")
    assert str(error_of(path)) == (f"{path}:3: field 2 (submit time): submit times must "
                                   "not decrease: got 100 after 200 on line 1")


def test_duplicate_job_number_names_both_lines(tmp_path):
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{record(f1='2', f2='3')}\n"
                                f"{record(f2='7')}\n")
    err = error_of(path)
    assert str(err) == (f"{path}:4: field 1 (job number): job number 1 appears twice "
                        "(first on line 2); job numbers must be unique")
    assert (err.file, err.line) == (str(path), 4)


def test_a_skipped_record_may_share_its_job_number(tmp_path):
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{record(f2='3', f4='-1')}\n")
    assert [j.id for j in read_swf(path)] == [1]


def test_binary_data_is_not_an_swf_text_file(tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    assert str(error_of(path)) == (f"{path}: not an SWF text file (it holds binary data); "
                                   "expected comment lines starting with ';' and job records "
                                   "of 18 numbers")


@pytest.mark.parametrize("header, processors, size, source", [
    ("; MaxProcs: 8\n; MaxNodes: 2\n", None, 8, "header MaxProcs"),
    ("; MaxNodes: 6\n", None, 6, "header MaxNodes"),
    ("", None, 3, "widest job (guessed)"),
    ("; MaxProcs: 8\n", 5, 5, "--procs"),
])
def test_provenance_says_where_the_machine_size_came_from(tmp_path, header, processors,
                                                          size, source):
    path = write_text(tmp_path, f"{header}{RECORD}\n{record(f1='2', f8='3')}\n")
    workload = read_swf(path, processors=processors)
    assert workload.processors == size
    assert workload.provenance["machine_size_source"] == source


@pytest.mark.parametrize("requested, source, from_runtime", [
    (("20", "30", "40"), "requested time", 0),
    (("20", "-1", "0"), "requested time, else runtime", 2),
    (("-1", "-1", "-1"), "runtime (no requested times in the trace)", 3),
])
def test_provenance_counts_the_jobs_given_their_runtime_as_estimate(tmp_path, requested,
                                                                    source, from_runtime):
    lines = [record(f1=str(k), f9=value) for k, value in enumerate(requested, start=1)]
    workload = read_swf(write_text(tmp_path, "\n".join(lines) + "\n"))
    assert workload.provenance["estimates_source"] == source
    assert workload.provenance["estimates_from_runtime"] == from_runtime


def test_unsorted_submit_times(tmp_path):
    path = write_text(tmp_path, f"{record(f2='200')}\n;\n{record(f1='2', f2='100')}\n")
    assert str(error_of(path)) == (f"{path}:3: field 2 (submit time): submit times must "
                                   "not decrease: got 100 after 200 on line 1")


def test_truncated_gzip(tmp_path):
    compressed = gzip.compress(SMALL.read_bytes())
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(compressed[: len(compressed) // 2])
    err = error_of(path)
    assert err.file == str(path)
    assert str(err).startswith(f"{path}: truncated or corrupt gzip data")


def test_corrupt_gzip(tmp_path):
    compressed = bytearray(gzip.compress(SMALL.read_bytes()))
    compressed[-8:-4] = b"\x00\x00\x00\x00"  # wrong CRC
    path = tmp_path / "crc.swf.gz"
    path.write_bytes(bytes(compressed))
    assert str(error_of(path)).startswith(f"{path}: truncated or corrupt gzip data")


@pytest.mark.parametrize("text", ["", "; Version: 2.2\n; MaxProcs: 4\n", "\n  \n"])
def test_file_without_records(tmp_path, text):
    path = write_text(tmp_path, text)
    assert str(error_of(path)) == (f"{path}: no job records (the file is empty or holds "
                                   "only comment lines)")


def test_header_machine_size_must_be_positive(tmp_path):
    path = write_text(tmp_path, f"; Version: 2.2\n; MaxProcs: 0\n{RECORD}\n")
    err = error_of(path)
    assert (err.line, err.field) == (2, "MaxProcs")
    assert str(err).startswith(f"{path}:2: field MaxProcs: expected a machine size > 0, got 0")
    # the argument overrides a bad header value
    assert read_swf(path, processors=2).processors == 2


def test_header_machine_size_must_be_an_integer(tmp_path):
    path = write_text(tmp_path, f"; MaxNodes: many\n{RECORD}\n")
    assert str(error_of(path)) == f"{path}:1: field MaxNodes: expected an integer, got 'many'"


@pytest.mark.parametrize("value", [0, -3, 2.5, True])
def test_processors_argument_must_be_a_positive_int(value):
    err = error_of(SMALL, processors=value)
    assert err.file == str(SMALL)
    assert "'processors' parameter of read_swf must be an int > 0" in str(err)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.swf"
    assert str(error_of(path)) == f"{path}: cannot read the file: No such file or directory"


def test_all_records_skipped_is_an_error(tmp_path):
    path = write_text(tmp_path, f"{record(f4='-1')}\n")
    assert str(error_of(path)) == (
        f"{path}: no job can be simulated: all 1 records were skipped (submit < 0: 0, "
        "runtime < 0: 1, width <= 0: 0, no estimate: 0, width > machine: 0)")


def test_unknown_option_words_are_rejected():
    assert "'width_field' parameter" in str(error_of(SMALL, width_field="req"))
    assert "'missing_estimate' parameter" in str(error_of(SMALL, missing_estimate="guess"))


# --------------------------------------------------------------------------- strict mode


def test_strict_mode_reports_the_first_skipped_record():
    err = error_of(SMALL, strict=True)
    assert str(err) == (f"{SMALL}:13: field 4 (run time): expected a run time >= 0, "
                        "got -1 (strict mode)")


@pytest.mark.parametrize("fields, options, expected", [
    ({"f5": "0", "f8": "-1"}, {},
     "field 8 (requested processors): expected a width > 0 in field 8 or field 5, "
     "got -1 and 0 (strict mode)"),
    ({"f9": "-1"}, {"missing_estimate": "drop"},
     "field 9 (requested time): expected a requested time > 0 (missing estimates are "
     "dropped), got -1 (strict mode)"),
    ({"f5": "9", "f8": "2"}, {"width_field": "allocated"},
     "field 5 (allocated processors): expected a width <= 4 (the machine size), "
     "got 9 (strict mode)"),
])
def test_strict_mode_names_the_field_of_each_skip_reason(tmp_path, fields, options, expected):
    path = write_text(tmp_path, f"; MaxProcs: 4\n{RECORD}\n{record(f1='2', **fields)}\n")
    assert str(error_of(path, strict=True, **options)) == f"{path}:3: {expected}"


def test_strict_mode_accepts_a_clean_trace(tmp_path):
    path = write_text(tmp_path, f"{RECORD}\n")
    assert len(read_swf(path, strict=True)) == 1


# --------------------------------------------------------------------------- writing


def hand_result() -> Result:
    """Four jobs on 8 processors: finished, killed at its estimate, rejected, finished.

    Job 12 is listed before job 11 although both are submitted at 5: the
    writer orders records by (submit, job id).
    """
    def col(*values):
        return np.array(values, dtype=np.int64)
    return Result(
        processors=8, policy="fcfs+easy",
        job_id=col(10, 12, 11, 13), submit=col(0, 5, 5, 20),
        start=col(0, 7, -1, 30), end=col(100, 57, -1, 31),
        width=col(4, 8, 2, 1), estimate=col(150, 50, 60, 10),
        runtime=col(100, 80, 30, 1), status=col(FINISHED, KILLED, REJECTED, FINISHED),
        planned_start=col(-1, -1, -1, -1), series_time=col(0), series_busy=col(0),
        series_queue=col(0), workload="hand", params={"depth": 1})


def test_written_result_is_valid_swf_with_simulated_wait_and_run_time(tmp_path):
    path = tmp_path / "schedule.swf"
    write_swf(hand_result(), path, unix_start_time=1234)
    lines = path.read_text().splitlines()
    header = [line for line in lines if line.startswith(";")]
    records = [line.split() for line in lines if not line.startswith(";")]
    assert "; MaxProcs: 8" in header and "; UnixStartTime: 1234" in header
    assert any("policy 'fcfs+easy' (depth=1)" in line for line in header)
    assert [r[:11] for r in records] == [
        # id submit wait run alloc cpu mem req reqtime reqmem status
        ["10", "0", "0", "100", "4", "-1", "-1", "4", "150", "-1", "1"],
        ["11", "5", "-1", "-1", "-1", "-1", "-1", "2", "60", "-1", "5"],
        ["12", "5", "2", "50", "8", "-1", "-1", "8", "50", "-1", "0"],
        ["13", "20", "10", "1", "1", "-1", "-1", "1", "10", "-1", "1"],
    ]
    assert all(len(r) == 18 for r in records)


@pytest.mark.parametrize("name", ["schedule.swf", "schedule.swf.gz"])
def test_written_result_round_trips_through_the_reader(tmp_path, name):
    path = tmp_path / name
    write_swf(hand_result(), path, unix_start_time=1234)
    back = read_swf(path)
    # the rejected job never ran (run time -1) and is skipped on reading
    assert back.skipped["runtime < 0"] == 1
    assert back.jobs == (
        Job(10, 0, 100, 150, 4),
        Job(12, 5, 50, 50, 8),  # killed at its estimate: it ran 50 s
        Job(13, 20, 1, 10, 1),
    )
    assert (back.processors, back.unix_start_time, back.name) == (8, 1234, "schedule")


def test_written_workload_round_trips_through_the_reader(tmp_path):
    original = read_swf(SMALL)
    path = tmp_path / "copy.swf"
    write_swf(original, path)
    back = read_swf(path)
    assert back.jobs == original.jobs
    assert (back.processors, back.unix_start_time) == (8, 1_000_000_000)
    assert read_swf(path, width_field="allocated").jobs == original.jobs


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6),
                          st.integers(1, 10**6), st.integers(1, 64),
                          st.integers(-1, 50)), min_size=1, max_size=40))
def test_any_workload_round_trips(tmp_path_factory, rows):
    jobs = [Job(k, submit, runtime, estimate, width, user=user, group=user, queue=user)
            for k, (submit, runtime, estimate, width, user) in enumerate(rows, start=1)]
    workload = Workload(jobs=(), processors=64, name="prop").with_jobs(jobs)
    path = tmp_path_factory.mktemp("prop") / "prop.swf"
    write_swf(workload, path)
    assert read_swf(path).jobs == workload.jobs


def test_write_is_atomic_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "out.swf"
    path.write_text("old content\n")

    def failing_replace(src, dst):
        raise OSError("disk went away")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_swf(hand_result(), path)
    assert path.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.swf"]
    monkeypatch.undo()
    write_swf(hand_result(), path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.swf"]
    assert len(read_swf(path)) == 3


def test_write_creates_a_missing_directory(tmp_path):
    path = tmp_path / "missing" / "out.swf"
    write_swf(hand_result(), path)
    assert len(read_swf(path)) == 3


def test_write_where_a_file_blocks_the_directory_is_an_input_error(tmp_path):
    (tmp_path / "blocker").write_text("not a directory")
    path = tmp_path / "blocker" / "out.swf"
    with pytest.raises(InputError) as info:
        write_swf(hand_result(), path)
    assert str(info.value).startswith(f"{path}: cannot write the file:")


# --------------------------------------------------------------------------- real traces


def test_kth_trace():
    workload = read_swf(real_trace("KTH-SP2-1996-2.1-cln.swf.gz"))
    assert len(workload) == 27992
    assert workload.processors == 100
    assert workload.unix_start_time == 843480031
    assert workload.skipped == dict.fromkeys(SKIP_REASONS, 0)
    assert workload.provenance == {"machine_size_source": "header MaxProcs",
                                   "estimates_source": "requested time",
                                   "estimates_from_runtime": 0}
    assert workload.jobs[0] == Job(15, 599850, 3477, 53940, 4, user=12, group=12, queue=-1)


def test_sdsc_blue_trace_skips_jobs_without_runtime():
    workload = read_swf(real_trace("SDSC-BLUE-2000-4.2-cln.swf.gz"))
    assert workload.processors == 1152
    assert workload.skipped["runtime < 0"] == 10744
    assert len(workload) == 243306 - 10744


def test_nasa_trace_has_no_estimates():
    path = real_trace("NASA-iPSC-1993-3.1-cln.swf.gz")
    workload = read_swf(path)
    assert all(j.estimate == max(j.runtime, 1) for j in workload)
    assert workload.provenance == {
        "machine_size_source": "header MaxProcs",
        "estimates_source": "runtime (no requested times in the trace)",
        "estimates_from_runtime": 18239}
    err = error_of(path, missing_estimate="drop")
    assert "all 18239 records were skipped" in str(err)
    assert "no estimate: 18239" in str(err)


# --------------------------------------------------------------------------- the plain-number reader

def loadtxt_records(data: bytes) -> np.ndarray:
    """The records as ``numpy.loadtxt`` reads them: what the plain-number reader must give."""
    return np.loadtxt(io.BytesIO(data), comments=";", dtype=np.float64, ndmin=2)


PLAIN_NUMBER = st.one_of(
    st.integers(-10**15 + 1, 10**15 - 1).map(str),
    st.builds(lambda whole, fraction, sign: f"{sign}{whole}.{fraction}",
              st.integers(0, 10**7).map(str), st.text("0123456789", min_size=1, max_size=7),
              st.sampled_from(("", "-"))))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PLAIN_NUMBER, min_size=18, max_size=18), min_size=1, max_size=30),
       st.lists(st.sampled_from(("", "  ", "\t")), min_size=30, max_size=30),
       st.booleans())
def test_plain_numbers_are_read_as_numpy_loadtxt_reads_them(rows, blanks, line_end):
    """Signed whole and decimal numbers of up to 15 digits, spaced by blanks and tabs,
    between blank lines, the last line ended or not: the same float64 values, sign of zero
    included, as numpy.loadtxt."""
    lines = ["; MaxProcs: 8"]
    for row, blank in zip(rows, blanks):
        lines += [f"{blank}{(' ' + blank).join(row)}{blank}", blank]
    data = "\n".join(lines).rstrip().encode() + (b"\n" if line_end else b"")
    table = swf._plain_number_records(data)
    expected = loadtxt_records(data)
    assert table is not None and table.shape == expected.shape
    assert np.array_equal(table, expected) and np.array_equal(np.signbit(table),
                                                              np.signbit(expected))


@pytest.mark.parametrize("odd", ["+5", "5.", ".5", "-.5", "1e3", "1.2.3", "5-", "--5", "-",
                                 "0x1", "inf", "1234567890123456", "1.234567890123456"])
def test_other_numbers_are_left_to_numpy_loadtxt(odd):
    """Anything but a plain number (or one of more than 15 digits) sends the file to
    numpy.loadtxt, which accepts or refuses it as before."""
    data = f"; MaxProcs: 8\n{RECORD}\n{odd} {RECORD.split(' ', 1)[1]}\n".encode()
    assert swf._plain_number_records(data) is None


@pytest.mark.parametrize("text", [f"{RECORD} 1\n", f"{RECORD}\n1 2\n", f"{RECORD}\n; late\n"])
def test_lines_of_other_than_18_numbers_and_late_comments_are_left_to_numpy_loadtxt(text):
    assert swf._plain_number_records(text.encode()) is None


def test_plain_numbers_of_a_hand_written_record():
    data = b"; Note: x\n\n  7 120 -1 35.25 4 -1 -1 4 600 -1 1 3 2 -1 1 -1 -1 -0.5\n"
    assert swf._plain_number_records(data).tolist() == [
        [7, 120, -1, 35.25, 4, -1, -1, 4, 600, -1, 1, 3, 2, -1, 1, -1, -1, -0.5]]


@pytest.mark.parametrize("cancellations", ["ignore", "replay", "drop"])
def test_the_columns_the_reader_keeps_are_its_jobs_columns(tmp_path, cancellations):
    """``to_arrays`` of a workload read from SWF gives the columns the reader made its jobs
    from (kept, not rebuilt): the same as columns made from its jobs, in (submit, id)
    order, with a cancelled job's runtime replayed."""
    lines = [record(f1="2", f2="10", f4="-1", f9="40", f11="5", f3="6", f5="3", f8="-1"),
             record(f1="3", f2="50", f4="7", f9="30", f12="2"),
             record(f1="1", f2="50", f4="9", f11="5", f3="4"),
             record(f1="4", f2="60", f4="5", f9="-1", f13="7", f15="2")]
    workload = read_swf(write_text(tmp_path, "\n".join(lines) + "\n"),
                        cancellations=cancellations)
    columns = workload.to_arrays()
    assert list(columns) == list(INT_COLUMNS)
    for name in INT_COLUMNS:
        made = np.array([getattr(job, name) for job in workload.jobs], dtype=np.int64)
        assert columns[name].dtype == np.int64 and np.array_equal(columns[name], made), name
