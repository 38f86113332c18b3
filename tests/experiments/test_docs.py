"""docs/how-to/experiments.md cannot rot: its complete examples are the shipped example files,
its snippets are valid experiments, and every example has the runs it announces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedlab.experiments import load_experiment

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "how-to" / "experiments.md"
EXAMPLE = ROOT / "examples" / "sweep-small.toml"
SELECTORS = ROOT / "examples" / "sweep-selectors.toml"
GRID = ROOT / "examples" / "sweep-grid.toml"
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def toml_blocks() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOCS.read_text(), flags=re.S)


def test_the_complete_example_in_the_docs_is_the_shipped_file() -> None:
    assert toml_blocks()[0] == EXAMPLE.read_text()


def test_the_array_of_transform_tables_example_in_the_docs_is_the_shipped_file() -> None:
    assert SELECTORS.read_text() in toml_blocks()


def test_the_grid_experiment_example_in_the_docs_is_the_shipped_file() -> None:
    assert GRID.read_text() in toml_blocks()


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_every_example_expands_to_the_runs_its_header_announces(example: Path) -> None:
    announced = re.findall(r"= (\d+) runs", example.read_text())   # the last is the total
    assert announced, f"{example.name} says nowhere how many runs it has"
    assert len(load_experiment(example).runs) == int(announced[-1])


def test_the_shipped_example_expands_to_the_72_runs_it_announces() -> None:
    runs = load_experiment(EXAMPLE).runs
    assert len(runs) == 72
    assert {r.policy for r in runs} == {"fcfs+easy", "sjf+easy", "fcfs+conservative"}
    assert {r.seed for r in runs} == {0, 1, 2}


def test_the_parameter_grid_snippet_gives_six_settings(tmp_path: Path) -> None:
    path = tmp_path / "grid.toml"
    path.write_text('workloads = ["lublin"]\n' + toml_blocks()[1])
    runs = load_experiment(path).runs
    assert sorted(tuple(sorted(dict(r.params).items())) for r in runs) == [
        (("lower", lower), ("threshold", threshold), ("upper", 9000))
        for lower in (3600, 7200) for threshold in (3, 5, 7)]
