"""The pieces of a self-contained HTML report: style sheet, embedded figures, tables.

Shared by the report of an experiment (:mod:`schedlab.experiments.report`)
and the report of grid runs (:mod:`schedlab.viz.gridreport`), so that both
look alike and neither imports the other.  Nothing here reads a file or the
network: figures are embedded as ``data:`` URIs, styles are inline.
"""

from __future__ import annotations

import base64
import html
import platform
from dataclasses import dataclass
from importlib import metadata

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from schedlab.output import MISSING_CELL
from schedlab.viz.style import figure_bytes, readable_number

#: Libraries whose versions the report lists (with Python and schedlab).
LIBRARIES = ("numpy", "pandas", "matplotlib", "pyarrow")

MIME = {"svg": "image/svg+xml", "png": "image/png"}


@dataclass(frozen=True)
class ReportFigure:
    """One embedded figure: its heading, a caption saying what it shows, the image."""

    title: str
    caption: str
    data_uri: str


def data_uri(figure: Figure, fmt: str) -> str:
    """A figure as a ``data:`` URI holding its SVG or PNG bytes."""
    encoded = base64.b64encode(figure_bytes(figure, fmt)).decode("ascii")
    return f"data:{MIME[fmt]};base64,{encoded}"


def versions() -> list[tuple[str, str]]:
    """Python, schedlab and the libraries the figures and tables come from."""
    found = [("python", platform.python_version())]
    for package in ("schedlab",) + LIBRARIES:
        try:
            found.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            found.append((package, "not installed"))
    return found


def cell(value: object) -> str:
    """A table cell: numbers readable, missing values as a dash, text escaped."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return MISSING_CELL
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return readable_number(float(value))
    return html.escape(str(value))


def html_table(frame: pd.DataFrame, headers: list[str] | None = None,
               numeric: set[str] | None = None) -> str:
    """A ``<table>`` of a frame; ``numeric`` columns are right-aligned."""
    headers = headers or list(frame.columns)
    numeric = numeric or set()
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for values in frame.itertuples(index=False):
        cells = "".join(f'<td class="num">{cell(v)}</td>' if c in numeric else f"<td>{cell(v)}</td>"
                        for c, v in zip(frame.columns, values))
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def figure_html(figure: ReportFigure, number: int) -> str:
    """A ``<figure>`` with its image and numbered caption."""
    title = html.escape(figure.title)
    return (f'<figure><h3>{title}</h3><img src="{figure.data_uri}" alt="{title}">'
            f"<figcaption>Figure {number}. {html.escape(figure.caption)}</figcaption></figure>")


STYLE = """
body{font-family:"DejaVu Sans",system-ui,sans-serif;max-width:1150px;margin:2em auto;
  padding:0 1em;color:#1a1a1a;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}
h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin:.2em 0}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0;display:block;overflow-x:auto}
th,td{padding:.25em .6em;border-bottom:1px solid #e3e3e3;text-align:left;white-space:nowrap}
th{background:#f3f3f3;position:sticky;top:0;white-space:normal;vertical-align:bottom}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafafa}
figure{margin:1.5em 0;page-break-inside:avoid}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#444;margin-top:.3em}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.85em}
nav a{margin-right:1em}.meta{color:#555}
"""


def html_page(title: str, header: str, sections: list[tuple[str, str, str]]) -> str:
    """A self-contained report page: ``title`` (HTML-escaped already), the ``header``
    HTML under the title, a navigation bar, then one ``<section>`` per
    ``(id, heading, body HTML)``, and the versions of the libraries last.

    The experiment report and the grid-run report share this frame.
    """
    sections = [*sections, ("versions", "Versions",
                            html_table(pd.DataFrame(versions(), columns=["package", "version"])))]
    nav = "".join(f'<a href="#{anchor}">{heading}</a>' for anchor, heading, _ in sections)
    body = "\n".join(f'<section id="{anchor}"><h2>{heading}</h2>\n{content}\n</section>'
                     for anchor, heading, content in sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — schedlab report</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{title}</h1>
{header}
<nav>{nav}</nav>
</header>
{body}
</body>
</html>
"""
