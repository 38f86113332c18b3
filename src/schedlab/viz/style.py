"""One paper-like look for every figure, and the helpers that save figures.

Figures are built as :class:`matplotlib.figure.Figure` objects without
pyplot: nothing is registered in pyplot's global figure manager, so no
figure outlives the function that made it and no state leaks from one
figure to the next.  Raster output is drawn by the Agg canvas
(:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`, attached
explicitly), vector output by matplotlib's SVG writer; the process-wide
backend is never switched.

The palette is Okabe & Ito's colour-blind-safe set ("Color Universal
Design", 2008), with its yellow — too pale for a line on white — replaced
by a mid grey.  Every figure that shows policies takes its colours from
:func:`policy_styles` over the *whole* set of policies of an experiment,
so one policy keeps one colour, marker and line style in every figure of a
report.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.rcsetup import cycler
from matplotlib.ticker import FuncFormatter

from schedlab.errors import InputError
from schedlab.output import atomic_write_bytes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend
    from matplotlib.typing import LineStyleType, RcKeyType

#: Okabe-Ito colours in the order lines receive them (yellow replaced by grey).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#7F7F7F")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

#: Gantt colours by job status (rejected and withdrawn jobs hold no processors and are not
#: drawn; a job cancelled while running is grey).
STATUS_COLORS = {"finished": "#56B4E9", "killed": "#D55E00", "cancelled": "#7F7F7F",
                 "failed": "#CC79A7"}
#: Gantt colours of what holds processors besides jobs (docs/reference/events.md): failed
#: processors, maintenance windows and drains, and a job's attempts a failure ended.
OUTAGE_COLORS = {"failure": "#000000", "window": "#BBBBBB", "ended attempt": "#F0E442"}

#: Gantt colours by width class, keyed by the class names of schedlab.metrics.classes.
WIDTH_CLASS_COLORS = {"width_1": "#56B4E9", "width_2_64": "#009E73",
                      "width_65_256": "#E69F00", "width_gt_256": "#CC79A7"}

#: The default style: white background, readable 10-11 pt text, light grid,
#: no top/right frame lines, plain (not scientific) numbers up to a million,
#: and fixed SVG ids and no date so that the same figure gives the same bytes.
PAPER_STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "figure.titlesize": 12,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#DDDDDD",
    "grid.linewidth": 0.6,
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "axes.formatter.limits": (-4, 6),
    "lines.linewidth": 1.6,
    "lines.markersize": 5.5,
    "savefig.facecolor": "white",
    "svg.fonttype": "path",
    "svg.hashsalt": "schedlab",
}

#: Legends sit right of the diagrams, centred, clear of the title above.
LEGEND_PLACE: Final = "outside right center"

FORMATS = ("png", "svg", "pdf")
#: What each format's file leaves out so that its bytes depend only on the figure: the
#: SVG's date, the PNG's software version, the PDF's creation date and producer.
STABLE_METADATA: dict[str, dict[str, None]] = {
    "svg": {"Date": None}, "png": {"Software": None},
    "pdf": {"CreationDate": None, "Producer": None},
}
DPI = 150


@dataclass(frozen=True, slots=True)
class LineStyle:
    """How one policy is drawn: colour, marker and line style."""

    color: str
    marker: str
    linestyle: LineStyleType


@contextmanager
def paper_style() -> Iterator[None]:
    """Apply :data:`PAPER_STYLE` for the duration of a figure's construction or saving.

    ``rc_context`` restores the caller's settings on exit, so the style never
    leaks into the user's own plots.
    """
    with matplotlib.rc_context(PAPER_STYLE):
        yield


def new_figure(width: float, height: float) -> Figure:
    """A pyplot-free figure of ``width`` x ``height`` inches with an Agg canvas."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def natural_key(text: str) -> tuple[tuple[int, str, float], ...]:
    """Sort key of a label with numbers read as numbers: ``gang[slot=25]`` before
    ``gang[slot=100]``, as a reader counts, not as the characters compare."""
    parts = re.split(r"(\d+(?:\.\d+)?)", str(text))
    return tuple((1, "", float(part)) if k % 2 else (0, part, 0.0)
                 for k, part in enumerate(parts) if part)


def policy_styles(names: Iterable[str]) -> dict[str, LineStyle]:
    """A fixed line style for every policy name, assigned in natural name order
    (:func:`natural_key`).

    Pass the policies of the whole experiment so that a policy is drawn the
    same way in every figure.  Beyond eight policies colours repeat with a
    different marker and a dashed line.
    """
    styles: dict[str, LineStyle] = {}
    for k, name in enumerate(sorted(set(names), key=natural_key)):
        styles[name] = LineStyle(
            color=PALETTE[k % len(PALETTE)],
            marker=MARKERS[(k + k // len(PALETTE)) % len(MARKERS)],
            linestyle="-" if k < len(PALETTE) else "--")
    return styles


def time_unit(span: float) -> tuple[str, float]:
    """The unit for a time axis covering ``span`` seconds: (label, seconds per unit).

    Chosen so that tick labels stay short: seconds below 10 minutes, minutes
    below 10 hours, hours below 10 days, days above.
    """
    if span < 600:
        return "s", 1.0
    if span < 36_000:
        return "min", 60.0
    if span < 864_000:
        return "h", 3600.0
    return "days", 86_400.0


def honest_limits(ax: Axes, values: Iterable[float], *, axis: str = "y") -> None:
    """Start the value axis of a share (utilization, usage, loss of capacity, a percentage)
    at zero, keeping its upper limit: call it once everything is drawn.

    A share's axis fitted to its data exaggerates: a bar of 0.84 drawn from
    0.75 is nine times one of 0.76.  From zero they read as the 8 points they
    differ by.  Values below zero (no share) or a log axis leave the axis as
    it is.
    """
    scale = ax.get_xscale() if axis == "x" else ax.get_yscale()
    finite = [v for v in values if math.isfinite(v)]
    if scale == "log" or any(v < 0 for v in finite):
        return
    if axis == "x":
        ax.set_xlim(0, ax.get_xlim()[1])
    else:
        ax.set_ylim(0, ax.get_ylim()[1])


def figure_legend(figure: Figure, ax: Axes, **options: Any) -> Legend:
    """The legend of ``ax``'s labelled artists, right of the diagrams (:data:`LEGEND_PLACE`)
    where it covers no data; one entry per label even when every panel draws the same ones."""
    handles, labels = ax.get_legend_handles_labels()
    return figure.legend(handles, labels, loc=LEGEND_PLACE, **options)


def readable_number(value: float, _position: object = None) -> str:
    """A tick label: thousands separated by commas, at most three significant decimals."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


NUMBER_FORMATTER = FuncFormatter(readable_number)


def check_format(fmt: str) -> str:
    """``png``, ``svg`` or ``pdf`` (case-insensitive); anything else is a user mistake."""
    lowered = fmt.lower().lstrip(".")
    if lowered not in FORMATS:
        raise InputError(f"expected an image format png, svg or pdf, got {fmt!r}",
                         field="format")
    return lowered


def figure_bytes(figure: Figure, fmt: str = "png") -> bytes:
    """The figure encoded as PNG, SVG or PDF (for a paper: vector, fonts embedded).

    The SVG carries no date and fixed ids, the PNG no software version and
    the PDF no creation date or producer (:data:`STABLE_METADATA`), so the
    bytes depend only on the figure.
    """
    fmt = check_format(fmt)
    metadata = STABLE_METADATA[fmt]
    buffer = io.BytesIO()
    with paper_style():
        figure.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
    return buffer.getvalue()


def save_figure(figure: Figure, path: str | Path, fmt: str | None = None) -> Path:
    """Write the figure to ``path`` atomically (no half-written image is ever visible).

    The format is ``fmt`` if given, else the file's suffix (``.png``, ``.svg`` or ``.pdf``).
    """
    path = Path(path)
    chosen = check_format(fmt if fmt is not None else (path.suffix or ".png"))
    atomic_write_bytes(path, figure_bytes(figure, chosen))
    return path


def save_png_and_svg(figure: Figure, stem: str | Path) -> tuple[Path, Path]:
    """Write ``STEM.png`` and ``STEM.svg`` side by side (paper figures in both forms)."""
    stem = Path(stem)
    return (save_figure(figure, stem.with_name(stem.name + ".png"), "png"),
            save_figure(figure, stem.with_name(stem.name + ".svg"), "svg"))
