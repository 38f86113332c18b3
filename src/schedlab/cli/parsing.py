"""Parsers of option values: ``KEY=VALUE`` parameters, policy specs, time windows, ``LO:HI`` pairs."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TypeVar

from schedlab.errors import InputError

T = TypeVar("T")


def parse_params(pairs: list[str] | None, *, field: str = "--param") -> dict[str, object]:
    """``["k=4", "heuristic=edf"]`` -> ``{"k": 4, "heuristic": "edf"}`` (numbers parsed)."""
    params: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"expected KEY=VALUE, got {pair!r}", field=field)
        params[key.strip()] = _number_or_text(raw.strip(), f"{field} {key.strip()}")
    return params


def _number_or_text(raw: str, field: str) -> object:
    """An integer in ASCII digits (magnitude at most 2**53, :func:`schedlab.textio.parse_int`),
    a finite decimal number, ``true``/``false``, else the text itself."""
    from schedlab.textio import ASCII_INT, ASCII_NUMBER, parse_int

    if ASCII_INT.fullmatch(raw):
        return parse_int(raw, field=field)
    if ASCII_NUMBER.fullmatch(raw) or raw.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        value = float(raw)
        if not math.isfinite(value):
            raise InputError(f"expected a finite number, got {raw!r}", field=field)
        return value
    return {"true": True, "false": False}.get(raw.lower(), raw)


#: ``NAME`` or ``NAME[KEY=VALUE,...]``: one policy of ``compare --policies``.
_POLICY_SPEC = re.compile(r"\s*([^\[\],=\s]+)\s*(?:\[([^\[\]]*)\])?\s*")


def split_policy_list(text: str) -> list[str]:
    """``"qops[k=3,heuristic=edf],fcfs"`` -> ``["qops[k=3,heuristic=edf]", "fcfs"]``.

    Commas split policies only outside brackets: inside they separate parameters.
    """
    specs: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "," and depth == 0:
            specs.append("".join(current))
            current = []
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        current.append(char)
    specs.append("".join(current))
    return [spec.strip() for spec in specs if spec.strip()]


def parse_policy_spec(spec: str, *, field: str = "--policies") -> dict[str, object]:
    """``"qops[k=3,heuristic=edf]"`` -> ``{"name": "qops", "k": 3, "heuristic": "edf"}``.

    The parameters are read as ``--param`` reads them; a malformed spec is an
    :class:`InputError` that quotes it.
    """
    match = _POLICY_SPEC.fullmatch(spec)
    if match is None:
        raise InputError(f"policy spec {spec!r}: expected NAME or NAME[KEY=VALUE,...] "
                         f"(e.g. 'qops[k=3]')", field=field)
    name, inner = match.groups()
    pairs = inner.split(",") if inner is not None and inner.strip() else []
    try:
        return {"name": name, **parse_params(pairs, field=field)}
    except InputError as err:
        raise InputError(f"policy spec {spec!r}: {err.reason}", field=field) from None


def parse_window(text: str | None) -> tuple[int, int] | None:
    """``"START:END"`` in seconds since the trace start -> ``(START, END)``."""
    if text is None:
        return None
    from schedlab.textio import ASCII_INT, parse_int

    start, sep, end = text.partition(":")
    if not sep or not ASCII_INT.fullmatch(start) or not ASCII_INT.fullmatch(end):
        raise InputError(f"expected START:END in whole seconds, got {text!r}",
                         field="--window")
    return (parse_int(start, field="--window"), parse_int(end, field="--window"))


def parse_pair(text: str | None, option: str, convert: Callable[[str], T]) -> tuple[T, T] | None:
    """``"LO:HI"`` as two values read by ``convert`` (``int``, ``float``); None when not given."""
    if text is None:
        return None
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return convert(lo), convert(hi)
    except ValueError:
        raise InputError(f"expected LO:HI, got {text!r}", field=option) from None
