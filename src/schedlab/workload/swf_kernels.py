"""The SWF reader's number scan, compiled (numba; docs/reference/workloads.md, "Speed").

:func:`plain_numbers` reads the records of a trace whose lines hold plain
decimal numbers only, one pass over the bytes, instead of the array
operations over the bytes that such a scan takes in numpy (KTH-SP2's
numbers: 4.8 ms against 11.5 ms).  Anything else it refuses, and the reader takes
``numpy.loadtxt`` and its slow pass, which name the first bad line and field.

This module imports numba (or the ahead-of-time extension), so the reader
imports it at its first trace.
"""

from __future__ import annotations

import numpy as np

from schedlab.compiled import njit


@njit(cache=True)
def plain_numbers(buf: np.ndarray, fields: int, most_digits: int, powers: np.ndarray,
                  out: np.ndarray) -> int:
    """The numbers of the lines ``buf`` (bytes), in file order, written to ``out``; returns
    how many, or -1 when one is not a plain decimal number or a line that is not blank
    holds other than ``fields`` numbers.

    A plain decimal number is an optional ``-``, then digits with at most one ``.``
    between two of them, at most ``most_digits`` digits in all; numbers are separated by
    spaces and tabs, lines by ``\\n``.  Its value is its digits read as an integer
    ``m`` (exact) divided by ``powers[k]``, ``10**k`` for its ``k`` digits after the
    point: one correctly rounded division of two exact float64 values, the nearest
    float64 to the decimal, as ``numpy.loadtxt`` gives it; ``-0`` is ``-0.0``.
    ``out`` has room for every number (``fields`` per line).
    """
    n = buf.shape[0]
    count = 0
    on_line = 0
    i = 0
    while i <= n:
        c = buf[i] if i < n else 10
        if c == 32 or c == 9:
            i += 1
            continue
        if c == 10:
            if on_line != 0 and on_line != fields:
                return -1
            on_line = 0
            i += 1
            continue
        negative = c == 45
        if negative:
            i += 1
        digits = 0
        after = -1                          # digits after the point; -1: no point
        value = 0
        while i < n:
            c = buf[i]
            if 48 <= c <= 57:
                value = value * 10 + (c - 48)
                digits += 1
                if after >= 0:
                    after += 1
            elif c == 46:
                if after >= 0 or digits == 0:
                    return -1
                after = 0
            elif c == 32 or c == 9 or c == 10:
                break
            else:
                return -1
            i += 1
        if digits == 0 or digits > most_digits or after == 0:
            return -1
        number = float(value)
        if after > 0:
            number /= powers[after]
        if negative:
            number = -number
        if on_line == fields:
            return -1
        out[count] = number
        count += 1
        on_line += 1
    return count


def plain_number_records(data: bytes, start: int, fields: int, most_digits: int
                         ) -> np.ndarray | None:
    """The numbers of the lines of ``data`` from offset ``start`` on (no comments) as a
    float64 array of ``fields`` columns, or None where :func:`plain_numbers` refuses them
    (numbers of at most ``most_digits`` digits, at most 22: their powers of ten are exact)."""
    powers = np.array([10.0 ** k for k in range(most_digits + 1)])
    out = np.empty((data.count(b"\n", start) + 1) * fields, np.float64)
    count = plain_numbers(np.frombuffer(data, np.uint8, offset=start), fields, most_digits,
                          powers, out)
    return None if count < 0 else out[:count].reshape(-1, fields)
