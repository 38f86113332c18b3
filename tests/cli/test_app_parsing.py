"""The option-value parsers the commands share (schedlab.cli.parsing) and the output console."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest

from schedlab.cli.consoles import PIPE_WIDTH, OutputConsole
from schedlab.cli.parsing import parse_pair, parse_params, parse_window, split_policy_list
from schedlab.errors import InputError


def test_a_pair_is_read_by_its_converter() -> None:
    assert parse_pair("2:64", "--nodes", int) == (2, 64)
    assert parse_pair("0.5:1.5", "--ratio", float) == (0.5, 1.5)


def test_a_pair_not_given_is_none() -> None:
    assert parse_pair(None, "--nodes", int) is None


@pytest.mark.parametrize("text", ["64", "a:b", "1:2:3", ":"])
def test_a_malformed_pair_names_its_option(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_pair(text, "--nodes", int)
    assert caught.value.field == "--nodes"
    assert caught.value.reason == f"expected LO:HI, got {text!r}"


def test_params_parse_numbers_and_booleans() -> None:
    assert parse_params(["k=4", "heuristic=edf", "x=0.5", "on=true"]) == \
        {"k": 4, "heuristic": "edf", "x": 0.5, "on": True}


def test_policy_lists_split_outside_brackets_only() -> None:
    assert split_policy_list("qops[k=3,heuristic=edf], fcfs") == ["qops[k=3,heuristic=edf]", "fcfs"]


def test_a_window_is_two_whole_seconds() -> None:
    assert parse_window("0:200000") == (0, 200000)
    with pytest.raises(InputError) as caught:
        parse_window("0:2.5")
    assert caught.value.field == "--window"


def test_the_output_console_is_unbounded_on_a_pipe_and_can_be_sized() -> None:
    piped = OutputConsole(file=io.StringIO())
    assert piped.size.width == PIPE_WIDTH
    terminal = OutputConsole(file=io.StringIO(), force_terminal=True)
    terminal.size = (72, 20)
    assert (terminal.size.width, terminal.size.height) == (72, 20)


def test_the_command_list_rewraps_each_summary_to_the_terminal():
    """Each command's summary is its docstring's first paragraph in one line, so the list of
    ``schedlab --help`` wraps it at the terminal's width, not at the source's breaks."""
    from typer.testing import CliRunner

    from schedlab.cli.analyze import analyze
    from schedlab.cli.app import app, summary_line

    assert "\n" not in summary_line(analyze)
    listing = CliRunner().invoke(app, ["--help"], terminal_width=80).output
    box = listing[listing.index("Commands"):].splitlines()[1:]
    rows = [(line[2:14].strip(), line[14:-1].strip()) for line in box if line.startswith("│")]
    assert "counts and where the machine size" in " ".join(text for _, text in rows)
    # wrapped greedily, a row followed by its continuation has no room for the next word:
    # one that had is a break copied from the source
    width = max(len(text) for _, text in rows)
    for (_, text), (name, following) in pairwise(rows):
        if not name and following:
            assert len(text) + 1 + len(following.split()[0]) > width - 2, text
