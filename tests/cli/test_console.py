"""Tables written to a pipe or a file keep every word whole.

Rich lays a table out to the console width; a console that is not a
terminal would get 80 columns, so piped output would break policy names and
headers across lines and cut metric names short ("avg_resp…").  Output that
is not a terminal gets an unbounded width (cli/consoles.py).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.cli.consoles import RICH_TERMINAL_SETTINGS

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


# ------------------------------------------------------- plain writes are rich's bytes
#: Text that is mostly plain, with what rich may treat otherwise: markup, emoji codes,
#: escapes, tabs, wide and non-ASCII characters, runs of spaces.
ODD = [" ", "  ", ":", ":smile:", "[", "]", "[dim]", "[/dim]", "[bold]x[/]", "\\", "\t",
       "é", "—", "字", "+"]
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-+=<>(),;", min_size=1,
                max_size=12)
PIECES = st.one_of(WORDS, WORDS, WORDS, st.sampled_from(ODD))
LINES = st.lists(PIECES, max_size=12).map("".join)
SPACED = st.lists(st.one_of(WORDS, WORDS, st.sampled_from(ODD)), min_size=1,
                  max_size=10).map(" ".join)
CELLS = st.one_of(WORDS, WORDS, WORDS, st.sampled_from(ODD), LINES)


def utf8_pipe() -> io.TextIOWrapper:
    """A UTF-8 text stream that is not a terminal, as stdout is on a pipe."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")


def written(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    return stream.buffer.getvalue()          # type: ignore[attr-defined]


def outcome(print_: Callable[..., None], stream: io.TextIOWrapper, shown: object,
            **options: object) -> bytes | str:
    """The bytes a print wrote, or the error it raised (rich refuses bad markup)."""
    try:
        print_(shown, **options)
    except Exception as err:
        return type(err).__name__
    return written(stream)


def both_ways(shown: object, **options: object) -> tuple[bytes | str, bytes | str, bool]:
    """What a fresh lazy console and a rich console on a pipe write for ``shown``, and
    whether the lazy one wrote it without rich."""
    from schedlab.cli.consoles import LazyConsole, output_console_class

    lazy_stream, rich_stream = utf8_pipe(), utf8_pipe()
    lazy = LazyConsole(lambda: output_console_class()(file=lazy_stream),
                       lambda: lazy_stream, tables=True)
    plain = outcome(lazy.print, lazy_stream, shown, **options)
    rich = outcome(output_console_class()(file=rich_stream).print, rich_stream, shown, **options)
    return plain, rich, lazy._console is None


@pytest.fixture()
def no_rich_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in RICH_TERMINAL_SETTINGS:
        monkeypatch.delenv(name, raising=False)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=LINES, markup=st.booleans())
def test_a_line_written_without_rich_is_what_rich_writes(no_rich_settings, text: str,
                                                         markup: bool) -> None:
    plain, rich, _ = both_ways(text, markup=markup, highlight=False)
    assert plain == rich


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=SPACED, labels=st.lists(CELLS, min_size=1, max_size=4),
       names=st.lists(CELLS, min_size=1, max_size=5), data=st.data())
def test_a_summary_table_written_without_rich_is_what_rich_writes(
        no_rich_settings, title: str, labels: list[str], names: list[str],
        data: st.DataObject) -> None:
    from schedlab.cli.summary import MetricsTable

    rows = tuple((name, *data.draw(st.lists(CELLS, min_size=len(labels),
                                            max_size=len(labels))))
                 for name in names)
    plain, rich, _ = both_ways(MetricsTable(title, tuple(labels), rows))
    assert plain == rich


def test_the_summary_of_a_run_on_a_pipe_is_written_without_rich(no_rich_settings) -> None:
    """The plain path is taken for what ``simulate`` prints (the properties above would
    hold trivially if it never were)."""
    from schedlab.cli.summary import MetricsTable

    table = MetricsTable("KTH-SP2-1996-2.1-cln on 100 processors", ("fcfs+easy",),
                         (("jobs", "27992"), ("avg_bsld_60", "1369.28")))
    for shown, options in ((table, {}), ("[dim]w: 3 jobs; skipped 0 (width <= 0: 0)[/dim]", {}),
                           ("wrote out/jobs.csv and out/metrics.json", {"markup": False})):
        plain, rich, without_rich = both_ways(shown, **options)
        assert without_rich and plain == rich


def test_a_title_is_wrapped_as_rich_wraps_it_at_every_length_about_the_tables(
        no_rich_settings) -> None:
    from schedlab.cli.summary import MetricsTable

    rows = (("jobs", "27992"),)               # a table 18 columns wide
    for first in range(1, 19):
        for second in range(1, 19):
            title = f"{'a' * first} {'b' * second} c"
            plain, rich, without_rich = both_ways(MetricsTable(title, ("fcfs",), rows))
            assert without_rich and plain == rich, title
