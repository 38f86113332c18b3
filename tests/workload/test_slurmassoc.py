"""Reading Slurm's association tree (schedlab.workload.slurmassoc)."""

from __future__ import annotations

from pathlib import Path

import pytest

from files import written
from schedlab.errors import InputError
from schedlab.workload.slurmassoc import Association, read_associations

#: What `sacctmgr show assoc --parsable2 format=Cluster,Account,User,Partition,Share,ParentName`
#: printed for a cluster with a sub-account (the validation cluster's form, plus `theory`).
EXPORT = """\
Cluster|Account|User|Partition|Share|ParentName
schedlab|root|||1|
schedlab|root|root||1|
schedlab|physics|||60|root
schedlab|physics|ann||1|
schedlab|theory|||2|physics
schedlab|theory|cem||3|
schedlab|chem|||40|root
schedlab|chem|bob||1|
"""


def write(tmp_path: Path, text: str) -> Path:
    return written(tmp_path, "assoc.txt", text)


def test_sacctmgr_output_is_read_as_a_tree(tmp_path: Path) -> None:
    table = read_associations(write(tmp_path, EXPORT))
    assert table.associations == [
        Association("root", "root", 1, "root"), Association("physics", "", 60, "root"),
        Association("physics", "ann", 1, "physics"), Association("theory", "", 2, "physics"),
        Association("theory", "cem", 3, "theory"), Association("chem", "", 40, "root"),
        Association("chem", "bob", 1, "chem")]
    assert table.warnings == []


def test_without_parent_names_every_account_hangs_from_root(tmp_path: Path) -> None:
    text = "Account|User|Share|GrpTRES|\nphysics||5||\nphysics|ann|1|cpu=8|\n"
    table = read_associations(write(tmp_path, text))
    assert table.associations == [Association("physics", "", 5, "root"),
                                  Association("physics", "ann", 1, "physics")]
    assert table.warnings == [f"{tmp_path / 'assoc.txt'}:3: GrpTRES: not modelled (ignored)"]


def test_per_partition_associations_are_warned_about_and_left_out(tmp_path: Path) -> None:
    text = "Account|User|Partition|Share\na||| 1\na|u|debug|1\na|u||1\n"
    table = read_associations(write(tmp_path, text))
    assert [a.user for a in table.associations] == ["", "u"]
    assert "Partition: per-partition associations are not modelled" in table.warnings[0]


@pytest.mark.parametrize(("text", "line", "field", "says"), [
    ("Account|User\na|\n", 1, "Share", "missing column"),
    ("Account|User|Share\na||many\n", 2, "Share", "whole number"),
    ("Account|User|Share\na||parent\n", 2, "Share", "Fairshare=parent is not modelled"),
    ("Account|User|Share\na||1\na||2\n", 3, "Account", "listed twice"),
    ("Account|User|Share\na|u|1\n", 2, "Account", "has no line of its own"),
    ("Account|User|Share|ParentName\na||1|b\nb||1|a\n", 2, "ParentName", "own ancestor"),
    ("Cluster|Account|User|Share\nx|a||1\ny|b||1\n", 3, "Cluster", "more than one cluster"),
    ("Account|User|Share\na||1|9\n", 2, None, "expected 3 fields"),
    ("", 1, None, "empty file")])
def test_bad_input_names_file_line_and_column(tmp_path: Path, text: str, line: int,
                                              field: str | None, says: str) -> None:
    with pytest.raises(InputError) as raised:
        read_associations(write(tmp_path, text))
    error = raised.value
    assert (error.file, error.line, error.field) == (str(tmp_path / "assoc.txt"), line, field)
    assert says in error.reason
