"""Reading the text files a user gives: one opener and one integer parser for every reader.

:func:`read_text` (and :func:`normalize_bytes` for the SWF reader, which works
on bytes) accepts what editors and spreadsheets write: a UTF-8 byte-order
mark at the start is dropped, and CRLF (Windows) and CR-only (classic Mac
OS) line endings become LF, so line numbers count lines as any editor shows
them.  :func:`parse_int` accepts ASCII decimal digits only: Python's ``int``
also reads ``1_000``, ``' 12 '`` and the digits of other scripts
(``'١٢'`` is 12), which no file format of schedlab means (docs/reference/cli.md,
"Input files").
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from pathlib import Path

from schedlab.errors import InputError
from schedlab.limits import MAX_TIME

BOM = b"\xef\xbb\xbf"
ASCII_INT = re.compile(r"[+-]?[0-9]+")
#: A decimal number in ASCII: digits, an optional point and an optional exponent.
ASCII_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def normalize_bytes(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte-order mark, with CRLF and CR line ends as LF."""
    data = data.removeprefix(BOM)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def read_text(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of a file, normalized by :func:`normalize_bytes`.

    ``what`` names the file in errors (``"reservation file"``): a missing or
    unreadable file, or one that is not UTF-8, is an InputError naming it.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such {what}", file=source) from None
    except OSError as err:
        raise InputError(f"cannot read the {what}: {err.strerror or err}", file=source) from None
    data = normalize_bytes(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise InputError(f"the {what} is not UTF-8 text (byte {data[err.start]:#04x})",
                         file=source, line=line) from None


#: More digits than any bound of schedlab has: such a text is refused before ``int`` reads it
#: (``int`` refuses more than 4,300 digits with a ValueError of its own).
_MAX_DIGITS = 40


def parse_int(text: str, *, field: str, file: str | None = None, line: int | None = None,
              limit: int | None = MAX_TIME) -> int:
    """An integer written in ASCII decimal digits, of magnitude at most ``limit``.

    The default limit, 2**53, is the bound of SWF fields (exact in float64),
    so that later int64 arithmetic on the value cannot overflow.  With
    ``limit=None`` the caller checks the bound (up to 40 digits are read).
    """
    if not ASCII_INT.fullmatch(text):
        raise InputError(f"expected an integer, got {text!r}", file=file,
                         line=line, field=field)
    if len(text.lstrip("+-")) > _MAX_DIGITS:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise InputError(f"expected an integer of at most {_MAX_DIGITS} digits, got {shown!r}",
                         file=file, line=line, field=field)
    value = int(text)
    if limit is not None and abs(value) > limit:
        raise InputError(f"expected an integer of magnitude at most {_power(limit)}, "
                         f"got {text!r}", file=file, line=line, field=field)
    return value


def _power(limit: int) -> str:
    """``2**53`` for a power of two, else the number."""
    return f"2**{limit.bit_length() - 1}" if limit & (limit - 1) == 0 else str(limit)


def csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """The data rows of a CSV text, cells stripped, each with the physical line it starts
    on; comment rows (first cell starting with ``#``) and blank rows left out."""
    reader = csv.reader(io.StringIO(text))
    line = 1
    for row in reader:
        cells = [cell.strip() for cell in row]
        if cells and not cells[0].startswith("#") and any(cells):
            yield line, cells
        line = reader.line_num + 1


def pipe_table(text: str, source: str, command: str
               ) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the data rows (each with its line) of a ``|``-separated table as
    ``sacctmgr ... --parsable2`` (``command``) prints it; a trailing ``|`` (``--parsable``)
    is dropped, blank lines are left out.  An empty text or a row with another number of
    fields is an InputError naming ``source`` and the line."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError(f"empty file: expected the header line of `{command}`", file=source,
                         line=1)
    header = lines[0].split("|")
    if len(header) > 1 and header[-1] == "":
        header.pop()                   # (--parsable's trailing '|')
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        values = line.split("|")
        if len(values) == len(header) + 1 and values[-1] == "":
            values.pop()
        if len(values) != len(header):
            raise InputError(f"expected {len(header)} fields separated by '|', got "
                             f"{len(values)}", file=source, line=number)
        rows.append((number, values))
    return header, rows
