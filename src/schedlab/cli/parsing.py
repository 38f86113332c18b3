"""Parsers of option values: ``KEY=VALUE`` parameters, policy specs, time windows, ``LO:HI`` pairs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from schedlab.errors import InputError
from schedlab.specs import parse_params, parse_spec, top_level_items

__all__ = ["parse_pair", "parse_params", "parse_policy_spec", "parse_window",
           "split_policy_list"]

T = TypeVar("T")


def split_policy_list(text: str) -> list[str]:
    """``"qops[k=3,heuristic=edf],fcfs"`` -> ``["qops[k=3,heuristic=edf]", "fcfs"]``.

    Commas split policies only outside brackets: inside they separate parameters
    (:func:`~schedlab.specs.top_level_items`).  Unbalanced brackets leave the text
    whole, for :func:`parse_policy_spec` to refuse.
    """
    items = top_level_items(text)
    return [spec.strip() for spec in (items if items is not None else [text]) if spec.strip()]


def parse_policy_spec(spec: str, *, field: str = "--policies") -> dict[str, object]:
    """``"qops[k=3,heuristic=edf]"`` -> ``{"name": "qops", "k": 3, "heuristic": "edf"}``.

    The parameters are read as ``--param`` reads them (:func:`schedlab.specs.parse_spec`,
    the one syntax of policies and predictors); a malformed spec is an
    :class:`InputError` that quotes it.
    """
    return parse_spec(spec, field=field)


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
