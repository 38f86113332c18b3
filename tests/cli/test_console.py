"""Tables written to a pipe or a file keep every word whole.

Rich lays a table out to the console width; a console that is not a
terminal would get 80 columns, so piped output would break policy names and
headers across lines and cut metric names short ("avg_resp…").  Output that
is not a terminal gets an unbounded width (cli/consoles.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import SMALL_SWF, invoke, run_exe, table_rows

LONG_POLICIES = ["fcfs+conservative", "sjf+conservative", "ljf+conservative", "fcfs+easy",
                 "sjf+easy", "ljf+easy", "fcfs"]


@pytest.fixture()
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def header_line(text: str) -> str:
    """The (single) header line of the first rich table in ``text``."""
    lines = [line for line in text.splitlines() if line.startswith("┃")]
    assert len(lines) == 1, "the header took several lines:\n" + "\n".join(lines)
    return lines[0]


def continuation_rows(text: str) -> list[str]:
    """Body lines whose first cell is empty: the rest of a row that wrapped."""
    return [line for line in text.splitlines()
            if line.startswith("│") and not line.split("│")[1].strip()]


def test_piped_compare_keeps_policy_names_and_metric_names_whole(small: Path) -> None:
    completed = run_exe("compare", "small.swf", "--policies", ",".join(LONG_POLICIES),
                        "--out", "cmp", cwd=small)
    assert completed.returncode == 0, completed.stderr
    cells = [cell.strip() for cell in header_line(completed.stdout).split("┃")[1:-1]]
    assert cells == ["metric", *LONG_POLICIES]
    rows = table_rows(completed.stdout)
    assert {"avg_response", "avg_bsld_60", "utilization"} <= set(rows)
    assert not continuation_rows(completed.stdout)
    assert "wrote cmp/comparison.png, cmp/metrics.csv and per-policy results in cmp/\n" \
        in completed.stdout


def test_captured_policies_table_has_one_line_per_policy(small: Path) -> None:
    result = invoke("policies")
    assert result.exit_code == 0, result.output
    assert not continuation_rows(result.stdout)
    assert "sjf+conservative" in table_rows(result.stdout)


def test_a_terminal_still_gets_a_table_that_fits_its_width(small: Path) -> None:
    """With a terminal of 80 columns (forced) no line is wider than the terminal."""
    result = invoke("compare", "small.swf", "--policies", ",".join(LONG_POLICIES), "--out",
                    "cmp", env={"FORCE_COLOR": None, "TTY_COMPATIBLE": "1",
                                "TTY_INTERACTIVE": "1", "COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
