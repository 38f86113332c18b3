"""Value checks for experiment files: each raises InputError naming the file and key path."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedlab.errors import InputError
from schedlab.limits import MAX_TIME

if TYPE_CHECKING:
    from schedlab.experiments.spec.sections import WorkloadEntry


class Checker:
    """Type checks that raise InputError naming the experiment file and the key path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, path: str, message: str) -> InputError:
        return InputError(message, file=self.file, field=path or "(top level)")

    def keys(self, table: Any, path: str, allowed: Sequence[str]) -> None:
        if not isinstance(table, Mapping):
            raise self.error(path, f"expected a table, got {describe_value(table)}")
        for key in table:
            if key not in allowed:
                where = f"{path}.{key}" if path else key
                raise self.error(where, f"unknown key {key!r}; expected one of: "
                                 f"{', '.join(allowed)}")

    def table(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise self.error(path, f"expected a table of parameters, got {describe_value(value)}")
        return dict(value)

    def text(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected a string, got {describe_value(value)}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(path, f"expected true or false, got {describe_value(value)}")
        return value

    def integer(self, value: Any, path: str, *, low: int) -> int:
        """An integer from ``low`` to 2**53 (:data:`schedlab.limits.MAX_TIME`: every integer
        of an experiment file is a count, a time or a product of both, which the engine
        keeps in int64)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, f"expected an integer >= {low}, got {describe_value(value)}")
        if value < low:
            raise self.error(path, f"expected an integer >= {low}, got {value}")
        if value > MAX_TIME:
            raise self.error(path, f"expected an integer <= 2**53, got {value}")
        return value

    def number(self, value: Any, path: str, *, positive: bool = True) -> float:
        """A finite number, > 0 unless ``positive`` is false (a range the single run checks
        follows, :func:`schedlab.pipeline.check_transforms`)."""
        bound = " > 0" if positive else ""
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or (positive and value <= 0):
            raise self.error(path, f"expected a finite number{bound}, got "
                             f"{describe_value(value)}")
        return float(value)

    def choice(self, value: Any, path: str, choices: Sequence[str]) -> str:
        if value not in choices or not isinstance(value, str):
            raise self.error(path, f"expected one of {', '.join(map(repr, choices))}, "
                             f"got {describe_value(value)}")
        return value

    def window(self, value: Any, path: str) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise self.error(path, f"expected [START, END] in whole seconds, got {describe_value(value)}")
        if value[1] <= value[0]:
            raise self.error(path, f"expected END > START, got {value}")
        return value[0], value[1]

    def range_pair(self, value: Any, path: str, *, low: int,
                   high: int = MAX_TIME) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise self.error(path, f"expected [LOW, HIGH] integers, got {describe_value(value)}")
        if not low <= value[0] <= value[1] <= high:
            raise self.error(path, f"expected {low} <= LOW <= HIGH <= {high}, got {value}")
        return value[0], value[1]

    def json_value(self, value: Any, path: str) -> None:
        """A parameter value must be plain data: string, number, boolean, list or table."""
        if isinstance(value, Mapping):
            for key, item in value.items():
                self.json_value(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.json_value(item, f"{path}[{i}]")
        elif isinstance(value, float) and not math.isfinite(value):
            raise self.error(path, f"expected a finite number, got {value}")
        elif not isinstance(value, (str, int, float, bool)):
            raise self.error(path, f"expected a string, number, boolean, list or table, "
                             f"got {describe_value(value)}")

    def nonempty_list(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(path, f"expected a list, got {describe_value(value)}")
        if not value:
            raise self.error(path, "expected a non-empty list")
        return value

    def items(self, value: Any, path: str) -> list[tuple[str, Any]]:
        """A single value is a one-element list; each element comes with its key path."""
        if isinstance(value, list):
            return [(f"{path}[{i}]", v) for i, v in enumerate(self.nonempty_list(value, path))]
        return [(path, value)]

    def bounded(self, check: Callable[..., int], value: Any, path: str, *, low: int) -> int:
        """``check(value, field=...)`` of :mod:`schedlab.limits` (the check a single run makes),
        its error naming the file and key path; ``low`` is the check's least value."""
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            shown = value if isinstance(value, int) and not isinstance(value, bool) \
                else describe_value(value)
            raise self.error(path, f"expected an integer >= {low}, got {shown}")
        try:
            return check(value, field=path)
        except InputError as err:
            raise self.error(path, err.reason) from None

    def int_list(self, value: Any, path: str, *, low: int,
                 allow_none: bool = False) -> list[Any]:
        if allow_none and value == [None]:
            return [None]
        return [self.integer(v, p, low=low) for p, v in self.items(value, path)]

    def number_list(self, value: Any, path: str, *, positive: bool = True) -> list[float]:
        return [self.number(v, p, positive=positive) for p, v in self.items(value, path)]

    def bool_list(self, value: Any, path: str) -> list[bool]:
        return [self.boolean(v, p) for p, v in self.items(value, path)]

    def choice_list(self, value: Any, path: str, choices: Sequence[str]) -> list[str]:
        return [self.choice(v, p, choices) for p, v in self.items(value, path)]

    def names(self, value: Any, path: str, known: Sequence[str], what: str) -> list[str]:
        """A name or a list of names of things the experiment defines (``what`` they are)."""
        chosen = []
        for p, v in self.items(value, path):
            if self.text(v, p) not in known:
                raise self.error(p, f"unknown {what} {v!r} (known: {', '.join(known)})")
            chosen.append(v)
        return chosen

    def unique_labels(self, workloads: Sequence[WorkloadEntry]) -> None:
        first: dict[str, str] = {}
        for entry in workloads:
            label = entry.source.label
            if label in first:
                raise self.error(f"{entry.path}.label", f"label {label!r} is already used by "
                                 f"{first[label]}; give each workload its own 'label'")
            first[label] = entry.path


def describe_value(value: Any) -> str:
    """A value as an error message shows it: its TOML type and the value itself."""
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
             dict: "table"}
    kind = next((n for t, n in names.items() if type(value) is t), type(value).__name__)
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return f"{kind} {shown}"
