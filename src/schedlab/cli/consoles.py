"""The consoles every command writes to: results on stdout, errors and progress on stderr."""

from __future__ import annotations

from rich.console import Console, ConsoleDimensions

#: Columns a console that is not a terminal lays tables out in: wide enough
#: that no table of ours wraps a word.
PIPE_WIDTH = 10_000


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


console = OutputConsole()
err_console = Console(stderr=True, soft_wrap=True)   # an error stays on one line
