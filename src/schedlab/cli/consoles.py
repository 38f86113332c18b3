"""The consoles every command writes to: results on stdout, errors and progress on stderr.

Both are rich consoles made at their first use (:class:`LazyConsole`): importing rich costs
a short command about a twentieth of its CPU time.  Until then, what a command prints to a
pipe or a file is written without rich when rich would write exactly the same bytes
(:meth:`LazyConsole.print`): plain ASCII lines and the summary table (:func:`plain_table`);
anything else, and everything on a terminal, goes through rich.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: Columns a console that is not a terminal lays tables out in: wide enough
#: that no table of ours wraps a word.
PIPE_WIDTH = 10_000
#: Environment variables by which rich may take a pipe for a terminal or size it otherwise.
RICH_TERMINAL_SETTINGS = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
#: Text rich could read as an emoji code (``:smile:``), which it would replace.
EMOJI_CODE = re.compile(r":\S*?:")
#: Text rich shows as it is on a pipe: printable ASCII, no markup, no emoji code.
#: A markup tag pair around the whole line (``[dim]...[/dim]``) is a style only.
STYLED = re.compile(r"\[([a-z]+)\]([^\[\]\\]*)\[/\1?\]")


@functools.cache
def output_console_class() -> type[Console]:
    """The rich console class of stdout: :class:`OutputConsole` (made on first use)."""
    from rich.console import Console, ConsoleDimensions

    class OutputConsole(Console):
        """The terminal's width on a terminal; :data:`PIPE_WIDTH` columns on a pipe or a file.

        Rich gives a console that is not a terminal 80 columns (or the size of
        whatever terminal stdin or stderr is on), so output piped to a file had
        policy names and headers broken across lines and metric names cut short.
        The check is made at each print, so it follows the stream in use then.
        """

        @property
        def size(self) -> ConsoleDimensions:
            size = super().size
            return size if self.is_terminal else ConsoleDimensions(PIPE_WIDTH, size.height)

        @size.setter
        def size(self, new_size: tuple[int, int]) -> None:
            self.width, self.height = new_size

    return OutputConsole


class LazyConsole:
    """A rich console made at its first use; every attribute is the rich console's.

    :meth:`print` writes a line or table itself while the console is not made,
    the stream is not a terminal (as rich would judge it: no setting of
    :data:`RICH_TERMINAL_SETTINGS`, a UTF-8 stream on POSIX) and the text is
    one rich shows unchanged (:func:`plain_line`, :func:`plain_table`);
    otherwise it makes the console and lets rich print.  The tests check the
    bytes against rich's for any text (tests/cli/test_console.py).
    """

    def __init__(self, make: Callable[[], Console], stream: Callable[[], Any], *,
                 tables: bool) -> None:
        self._make = make
        self._stream = stream
        self._tables = tables        # laid out in PIPE_WIDTH columns on a pipe
        self._console: Console | None = None

    @property
    def rich(self) -> Console:
        """The rich console (made now if it is not yet)."""
        if self._console is None:
            self._console = self._make()
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich, name)

    def print(self, *objects: Any, **options: Any) -> None:
        """rich's ``Console.print``; a plain write when the bytes would be the same."""
        text = self._plain(objects, options)
        if text is None:
            self.rich.print(*objects, **options)
            return
        stream = self._stream()
        stream.write(text)
        stream.flush()                           # as rich does after each print

    def _plain(self, objects: Sequence[Any], options: dict[str, Any]) -> str | None:
        """What a plain write of ``objects`` writes, or None when rich must print them."""
        if self._console is not None or len(objects) != 1 or \
                not set(options) <= {"markup", "highlight"} or not self._plain_stream():
            return None
        shown = objects[0]
        if isinstance(shown, str):
            line = plain_line(shown, markup=options.get("markup", True) is not False)
            return None if line is None else line + "\n"
        plain = getattr(shown, "plain_text", None)
        return plain() if self._tables and callable(plain) else None

    def _plain_stream(self) -> bool:
        """Whether rich would take the stream for a UTF-8 pipe or file (not a terminal)."""
        stream = self._stream()
        isatty = getattr(stream, "isatty", None)
        return (stream is not None and isatty is not None and not isatty()
                and str(getattr(stream, "encoding", "")).lower().replace("-", "") == "utf8"
                and os.name == "posix" and "IPython" not in sys.modules
                and not any(name in os.environ for name in RICH_TERMINAL_SETTINGS))


def plain_line(text: str, *, markup: bool = True) -> str | None:
    """``text`` as rich prints it on a pipe, or None when rich might change it: printable
    ASCII without an emoji code, within :data:`PIPE_WIDTH`; with ``markup``, no ``[``
    but a style tag pair around the whole text (``[dim]...[/dim]``)."""
    if markup and "[" in text:
        styled = STYLED.fullmatch(text)
        if styled is None:
            return None
        text = styled.group(2)
    if not (text.isascii() and text.isprintable()) or len(text) > PIPE_WIDTH \
            or EMOJI_CODE.search(text):
        return None
    return text


def _plain_cell(text: str) -> bool:
    """Whether a table cell or header is shown by rich as it is: printable ASCII, no
    space, no markup, no emoji code."""
    return (text.isascii() and text.isprintable() and " " not in text and "[" not in text
            and "\\" not in text and not EMOJI_CODE.search(text))


def plain_table(title: str, rows: Sequence[Sequence[str]]) -> str | None:
    """A table of ``rows`` (the header first), its first column left-aligned and the others
    right-aligned, under ``title``, as a rich ``Table`` with the default box and padding
    prints it on a pipe; None when rich might print it otherwise (text other than
    :func:`_plain_cell`'s, a title with other than single spaces between its words or a
    word wider than the table, a table wider than :data:`PIPE_WIDTH`)."""
    if not rows or not all(_plain_cell(cell) for row in rows for cell in row) \
            or len({len(row) for row in rows}) != 1:
        return None
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    width = sum(widths) + 3 * len(widths) + 1
    words = title.split(" ")
    if width > PIPE_WIDTH or (title and (not plain_line(title) or "[" in title
                                         or not all(0 < len(w) <= width for w in words))):
        return None
    lines = []
    for line in _wrapped(words, width) if title else []:
        left = (width - len(line)) // 2
        lines.append(" " * left + line + " " * (width - len(line) - left))

    def rule(left: str, middle: str, right: str, fill: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right

    def row_line(row: Sequence[str], bar: str) -> str:
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:]))]
        return bar + bar.join(f" {cell} " for cell in cells) + bar

    lines += [rule("┏", "┳", "┓", "━"), row_line(rows[0], "┃"), rule("┡", "╇", "┩", "━"),
              *(row_line(row, "│") for row in rows[1:]), rule("└", "┴", "┘", "─")]
    return "\n".join(lines) + "\n"


def _wrapped(words: Sequence[str], width: int) -> list[str]:
    """Words joined by single spaces into lines of at most ``width`` (each word fits),
    breaking as rich's word wrap does."""
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _output_console() -> Console:
    return output_console_class()()


def _error_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)   # an error stays on one line


def __getattr__(name: str) -> Any:
    """``OutputConsole``: the class of :data:`console` (PEP 562: rich imported on first use)."""
    if name == "OutputConsole":
        return output_console_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rich_console(console: LazyConsole | Console) -> Console:
    """The rich console behind ``console``, for rich's own classes (a progress bar)."""
    return console.rich if isinstance(console, LazyConsole) else console


console = LazyConsole(_output_console, lambda: sys.stdout, tables=True)
err_console = LazyConsole(_error_console, lambda: sys.stderr, tables=False)
