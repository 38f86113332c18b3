"""Progress bars on stderr that fit one terminal line and stay away from short runs."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from schedlab.cli.consoles import err_console, rich_console

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, Task, TaskID

#: The narrowest bar and label a progress line keeps on a narrow terminal.
MIN_BAR, MIN_LABEL = 10, 12
#: The widest bar (rich's default).
MAX_BAR = 40


def rate_column(unit: str) -> ProgressColumn:
    """A rich progress column with the rate of the task, e.g. ``12,345 jobs/s`` (blank at first)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} {unit}/s", style="cyan")

    return RateColumn()


def fit_progress_line(label: str, others: int, width: int) -> tuple[str, int]:
    """The label and the bar width that keep a progress line within ``width`` columns.

    ``others`` is the room the other columns need (as wide as they usually
    get), spaces between columns included.  rich folds a line wider than the terminal onto two and cuts
    the count and the time left to fit (80 columns when it cannot tell);
    here the bar gives way first, down to ``MIN_BAR``, then the label is cut
    with an ellipsis, down to ``MIN_LABEL``.
    """
    room = width - others - 1                     # the space between label and bar
    bar = max(MIN_BAR, min(MAX_BAR, room - len(label)))
    keep = max(MIN_LABEL, room - bar)
    return (label if len(label) <= keep else label[:keep - 1] + "…"), bar


class DelayedProgress:
    """A progress bar that appears only once a run has taken longer than ``delay`` seconds.

    It shows the count, the rate (``unit`` per second) and the time left, on
    stderr and only when stderr is a terminal, in one line of the terminal's
    width (:func:`fit_progress_line`).  rich's progress module is imported
    only then: most runs are shorter.
    """

    def __init__(self, label: str, delay: float = 2.0, unit: str = "jobs") -> None:
        self.label = label
        self.delay = delay
        self.unit = unit
        self.began = time.perf_counter()
        self.bar: Progress | None = None
        self.task: TaskID   # the bar's one task, set with the bar

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if time.perf_counter() - self.began < self.delay or done >= total:
                return
            from rich.markup import escape
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            others = len(f"{total}/{total} 1,000,000 {self.unit}/s 0:00:00 ")
            label, bar_width = fit_progress_line(self.label, others, err_console.width)
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width),
                                MofNCompleteColumn(), rate_column(self.unit),
                                TimeRemainingColumn(), console=rich_console(err_console),
                                transient=True,
                                disable=not err_console.is_terminal)
            self.bar.start()
            self.task = self.bar.add_task(escape(label), total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
