"""TOML in and out for schedlab's files (experiments, platforms).

:func:`parse_toml` reads a document with :mod:`tomllib` and turns a syntax
error, or arrays and tables nested more than :data:`MAX_DEPTH` deep, into an
:class:`~schedlab.errors.InputError` naming the line; :func:`to_toml` is the
small writer the standard library lacks.  Files are read with
:func:`schedlab.textio.read_text` (byte-order mark and line endings).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from schedlab.errors import InputError

#: Deepest nesting of arrays and tables accepted: no schedlab file needs more than a few
#: levels, and tomllib (and every check that walks the values) recurses once per level,
#: so a file of 500 nested arrays would end in a RecursionError.
MAX_DEPTH = 32


def parse_toml(text: str, file: str) -> dict[str, Any]:
    """The TOML document as a dict; a syntax error names its line."""
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(file) from None
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        if found:
            line, reason = int(found.group(1)), message[:found.start()].strip()
        elif message.endswith("(at end of document)"):
            line = text.count("\n") + 1
            reason = message.removesuffix("(at end of document)").strip() + " (at the end)"
        else:
            line, reason = None, message
        raise InputError(f"not valid TOML: {reason}", file=file, line=line) from None
    if _depth(document) > MAX_DEPTH:
        raise _too_deep(file)
    return document


def _too_deep(file: str) -> InputError:
    return InputError(f"arrays or tables nested more than {MAX_DEPTH} deep; expected at most "
                      f"{MAX_DEPTH} levels",
                      file=file)


def _depth(value: Any) -> int:
    """How deeply arrays and tables nest in ``value`` (a scalar is 0), without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item \
            if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            return deepest
        todo.extend((child, level + 1) for child in children)
    return deepest


def to_toml(data: Mapping[str, Any]) -> str:
    """Write a mapping as TOML (plain values first, then tables).

    Handles what experiment and platform files hold: strings, numbers, booleans, lists and
    nested tables; lists of tables become arrays of tables.
    """
    lines: list[str] = []
    _toml_table(data, "", lines)
    return "\n".join(lines).strip() + "\n"


def _toml_table(table: Mapping[str, Any], prefix: str, lines: list[str]) -> None:
    nested = []
    for key, value in table.items():
        if isinstance(value, Mapping) or (isinstance(value, list) and value
                                          and all(isinstance(v, Mapping) for v in value)):
            nested.append((key, value))
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for key, value in nested:
        name = f"{prefix}{_toml_key(key)}"
        if isinstance(value, Mapping):
            lines.extend(["", f"[{name}]"])
            _toml_table(value, f"{name}.", lines)
        else:
            for item in value:
                lines.extend(["", f"[[{name}]]"])
                _toml_table(item, f"{name}.", lines)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise InputError(f"cannot write {type(value).__name__} {value!r} as TOML", field="value")
