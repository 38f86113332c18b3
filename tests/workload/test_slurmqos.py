"""Reading a QOS table printed by ``sacctmgr show qos --parsable2`` (schedlab.workload.slurmqos)."""

from __future__ import annotations

from pathlib import Path

import pytest

from files import written
from schedlab.errors import InputError
from schedlab.workload.slurmqos import Qos, read_qos

#: sacctmgr's default columns (Slurm 22.05), three QOS.
HEADER = ("Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|"
          "UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|"
          "MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|"
          "MaxJobsPA|MaxSubmitPA|MinTRES")
TABLE = "\n".join([
    HEADER,
    "normal|10|00:00:00|||cluster|||1.000000|||||||||||||||||",
    "high|100|00:00:00|||cluster|||1.000000|cpu=64,mem=100G||||||||||cpu=16|2|5||||",
    "debug|50|00:05:00|||cluster|||1.000000||||||||||||1|||||",
]) + "\n"


def write(tmp_path: Path, text: str) -> Path:
    return written(tmp_path, "qos.txt", text)


def test_priorities_and_limits_are_read(tmp_path: Path) -> None:
    table = read_qos(write(tmp_path, TABLE))
    assert table.qos == [Qos("normal", 10), Qos("high", 100, 2, 5, 16, 64),
                         Qos("debug", 50, 1)]


def test_what_is_not_modelled_is_warned_about_by_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, TABLE)
    assert read_qos(path).warnings == [
        f"{path}:3: GrpTRES mem: not modelled: only cpu limits are",
        f"{path}:4: GraceTime: not modelled (ignored)"]


def test_long_names_and_a_trailing_bar_are_read(tmp_path: Path) -> None:
    text = "Name|Priority|MaxJobsPerUser|MaxSubmitJobsPerUser|MaxTRESPerUser|\nq|3|1|2|cpu=4|\n"
    assert read_qos(write(tmp_path, text)).qos == [Qos("q", 3, 1, 2, 4)]


@pytest.mark.parametrize(("text", "line", "column"), [
    ("Priority\n5\n", 1, "Name"),
    ("Name|Priority\nq|high\n", 2, "Priority"),
    ("Name|MaxJobsPU\nq|-1\n", 2, "MaxJobsPU"),
    ("Name|GrpTRES\nq|cpu\n", 2, "GrpTRES"),
    ("Name|Priority\nq|1\nq|2\n", 3, "Name"),
    ("Name|Priority\n|1\n", 2, "Name"),
    ("Name|Priority\nq\n", 2, None),
])
def test_bad_input_names_file_line_and_column(tmp_path: Path, text: str, line: int,
                                              column: str | None) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_qos(path)
    assert (caught.value.file, caught.value.line, caught.value.field) == (str(path), line,
                                                                          column)


def test_a_missing_or_empty_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such QOS file"):
        read_qos(tmp_path / "none.txt")
    with pytest.raises(InputError, match="empty file"):
        read_qos(write(tmp_path, "\n"))
