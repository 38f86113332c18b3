"""The one syntax of a named thing with parameters: ``NAME[KEY=VALUE,...]``.

A policy (``qops[k=3,heuristic=edf]``) and a runtime predictor
(``easy++[correction=graded]``) are written the same way on the command line,
in labels and in Python.  The parsers live in the core layer so that every
layer that builds such a thing from text reads it with the same rules:
integers in ASCII digits (magnitude at most 2**53), finite decimal numbers,
``true``/``false``, else the text itself.  :mod:`schedlab.cli.parsing`
re-exports them for the commands.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from schedlab.errors import InputError
from schedlab.textio import ASCII_INT, ASCII_NUMBER, parse_int

#: ``NAME`` or ``NAME[KEY=VALUE,...]``; a value may itself be a spec in brackets
#: (``fcfs+easy[predictor=user-quantile[q=0.9]]``), kept as text.
SPEC = re.compile(r"\s*([^\[\],=\s]+)\s*(?:\[(.*)\])?\s*")


def parse_params(pairs: list[str] | None, *, field: str = "--param") -> dict[str, object]:
    """``["k=4", "heuristic=edf"]`` -> ``{"k": 4, "heuristic": "edf"}`` (numbers parsed)."""
    params: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"expected KEY=VALUE, got {pair!r}", field=field)
        params[key.strip()] = parse_value(raw.strip(), f"{field} {key.strip()}")
    return params


def parse_value(raw: str, field: str) -> object:
    """An integer in ASCII digits (magnitude at most 2**53, :func:`schedlab.textio.parse_int`),
    a finite decimal number, ``true``/``false``, else the text itself."""
    if ASCII_INT.fullmatch(raw):
        return parse_int(raw, field=field)
    if ASCII_NUMBER.fullmatch(raw) or raw.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        value = float(raw)
        if not math.isfinite(value):
            raise InputError(f"expected a finite number, got {raw!r}", field=field)
        return value
    return {"true": True, "false": False}.get(raw.lower(), raw)


def parse_spec(spec: str, *, what: str = "policy", example: str = "qops[k=3]",
               field: str = "--policies") -> dict[str, object]:
    """``"qops[k=3,heuristic=edf]"`` -> ``{"name": "qops", "k": 3, "heuristic": "edf"}``.

    ``what`` names the kind of thing in errors (``policy spec 'x[': ...``),
    ``example`` shows the syntax; a malformed spec is an :class:`InputError`
    that quotes it.
    """
    match = SPEC.fullmatch(spec)
    if match is None:
        raise InputError(f"{what} spec {spec!r}: expected NAME or NAME[KEY=VALUE,...] "
                         f"(e.g. {example!r})", field=field)
    name, inner = match.groups()
    pairs = top_level_items(inner) if inner is not None and inner.strip() else []
    if pairs is None:
        raise InputError(f"{what} spec {spec!r}: unbalanced brackets (e.g. {example!r})",
                         field=field)
    try:
        return {"name": name, **parse_params(pairs, field=field)}
    except InputError as err:
        raise InputError(f"{what} spec {spec!r}: {err.reason}", field=field) from None


def top_level_items(inner: str) -> list[str] | None:
    """``"a=1,p=x[q=2,r=3]"`` -> ``["a=1", "p=x[q=2,r=3]"]``: split at the commas outside
    brackets; None when the brackets do not balance."""
    items, depth, begun = [], 0, 0
    for k, char in enumerate(inner):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                return None
        elif char == "," and depth == 0:
            items.append(inner[begun:k])
            begun = k + 1
    if depth:
        return None
    items.append(inner[begun:])
    return items


def spec_text(name: str, params: Mapping[str, Any]) -> str:
    """``NAME[KEY=VALUE,...]`` (``qops[k=3,heuristic=edf]``), just ``NAME`` without
    parameters; booleans as typed on the command line (``true``, not ``True``)."""
    if not params:
        return name
    return f"{name}[{','.join(f'{k}={_value_text(v)}' for k, v in params.items())}]"


def _value_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
