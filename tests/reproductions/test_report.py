"""The report module every recipe writes through, and what a registered recipe provides."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from schedlab.experiments.recipes import (
    RECIPE_MODULES,
    Finding,
    Reproduction,
    findings_markdown,
    get_recipe,
)
from schedlab.experiments.recipes.report import (
    grouped_number,
    markdown_rows,
    markdown_table,
    plain_number,
    write_frame,
    write_rows,
)
from schedlab.experiments.spec import Experiment, experiment_from_mapping


def frame() -> pd.DataFrame:
    return pd.DataFrame({"policy": ["fcfs", "sjf"], "wait": [1234.5, math.nan],
                         "runs": [3, 4]}).set_index("policy")


def test_a_frame_is_a_pipe_table_with_its_index_and_grouped_numbers() -> None:
    assert markdown_table(frame()) == (
        "| policy | wait | runs |\n"
        "| --- | --- | --- |\n"
        "| fcfs | 1,234.50 | 3 |\n"
        "| sjf |  | 4 |\n")


def test_plain_numbers_have_no_separator_and_show_nan() -> None:
    assert markdown_table(frame(), 1, plain_number).splitlines()[2:] == [
        "| fcfs | 1234.5 | 3 |", "| sjf | nan | 4 |"]
    assert (grouped_number(1e6, 0), plain_number(1e6, 0)) == ("1,000,000", "1000000")


def test_write_frame_writes_csv_and_markdown(tmp_path: Path) -> None:
    written = write_frame(frame(), tmp_path, "waits")
    assert written == {"waits": tmp_path / "waits.csv", "waits.md": tmp_path / "waits.md"}
    assert (tmp_path / "waits.csv").read_text() == "policy,wait,runs\nfcfs,1234.5,3\nsjf,,4\n"
    assert (tmp_path / "waits.md").read_text() == markdown_table(frame())


def test_write_rows_writes_the_cells_as_given(tmp_path: Path) -> None:
    rows = [{"set": "KTH_syn", "ARTwW": "33,299"}, {"set": "CTC_syn", "ARTwW": "—"}]
    assert write_rows(rows, tmp_path, "t4") == {"t4": tmp_path / "t4.md"}
    assert (tmp_path / "t4.csv").read_text() == 'set,ARTwW\nKTH_syn,"33,299"\nCTC_syn,—\n'
    assert (tmp_path / "t4.md").read_text() == markdown_rows(
        ["set", "ARTwW"], [["KTH_syn", "33,299"], ["CTC_syn", "—"]])


def test_findings_are_one_row_each() -> None:
    reproduction = Reproduction(findings=[Finding("SJF waits least", "yes", "yes", True),
                                          Finding("n/a case", "x", "y", None, "reduced")])
    assert findings_markdown(reproduction) == (
        "| finding | paper | schedlab | same? | note |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| SJF waits least | yes | yes | yes |  |\n"
        "| n/a case | x | y | n/a | reduced |\n")


@pytest.mark.parametrize("name", sorted(RECIPE_MODULES))
def test_every_registered_recipe_is_a_package_with_its_recipe(name: str) -> None:
    recipe = get_recipe(name)
    assert recipe.name == name
    assert RECIPE_MODULES[name] == f"schedlab.experiments.recipes.{name.replace('-', '_')}"
    assert callable(recipe.summarize)
    reduced = recipe.experiment(True)
    experiment = (reduced if isinstance(reduced, Experiment)
                  else experiment_from_mapping(reduced))
    assert experiment.runs
