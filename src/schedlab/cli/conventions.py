"""The option conventions every command follows (docs/reference/cli.md) and the command class that keeps them.

One meaning per option name across all commands: ``--jobs``/``-n`` is a
number of jobs, ``--workers``/``-j`` a number of worker processes,
``--procs`` the machine size, ``--out``/``-o`` what a command writes (one
file, or a directory for commands that write several).  Spellings of an
earlier release that meant something else, or said the same thing another
way, still work for one release: :class:`SchedlabCommand` rewrites them to
the new name and prints a one-line deprecation warning on stderr.  They are
not options of the command, so ``--help`` does not show them.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import typer
from typer.core import TyperCommand

try:  # typer 0.2x carries its own copy of click, whose types its options use
    from typer._click import types as click_types
    from typer._click.core import Context as ClickContext
except ImportError:  # pragma: no cover - a typer on the click package
    from click import types as click_types  # type: ignore[no-redef]
    from click.core import Context as ClickContext  # type: ignore[assignment]

from schedlab.errors import InputError
from schedlab.textio import ASCII_NUMBER, parse_int

#: Help panels of ``--help``, in the order the options of a command are declared.
WORKLOAD_PANEL = "Workload"
POLICY_PANEL = "Policy"
DEADLINES_PANEL = "Deadlines"
RESERVATIONS_PANEL = "Reservations"
RESERVATION_LIMITS_PANEL = "Reservation limits (Margo et al.)"
GRID_PANEL = "Grid platform"
EVENTS_PANEL = "Failures and maintenance"
OUTPUT_PANEL = "Output"

#: Old spellings kept for one release: command path -> {old option: new option}.
DEPRECATED_OPTIONS: dict[str, dict[str, str]] = {
    "sweep": {"--jobs": "--workers"},
    "reproduce run": {"--jobs": "--workers"},
    "analyze": {"--processors": "--procs"},
    "generate": {"--output": "--out"},
    "export": {"--output": "--out"},
    "platform generate": {"--output": "--out"},
    "platform show": {"--jobs": "--workload"},
}


def deprecation_warning(command: str, old: str, new: str) -> str:
    """The one line printed when a deprecated spelling is used."""
    return (f"warning: 'schedlab {command} {old}' is deprecated and will be removed in the "
            f"next release; use {new} (docs/reference/cli.md)")


def rename_deprecated(args: list[str], renamed: dict[str, str]) -> tuple[list[str], list[str]]:
    """``args`` with each deprecated option (``--old V`` or ``--old=V``) spelled the new way,
    and the deprecated options met, in order.  Nothing after ``--`` is touched."""
    rewritten: list[str] = []
    used: list[str] = []
    for position, token in enumerate(args):
        if token == "--":
            rewritten += args[position:]
            break
        name, sep, value = token.partition("=")
        if name in renamed:
            rewritten.append(renamed[name] + sep + value)
            if name not in used:
                used.append(name)
        else:
            rewritten.append(token)
    return rewritten, used


def invalid_choice_message(choice_type: Any, value: Any, ctx: typer.Context | None) -> str:
    """The reason a value is not one of a fixed set, worded as every bad-input error of
    schedlab: ``expected one of kill, extend, got 'pause'``."""
    names = ", ".join(str(getattr(choice, "value", choice)) for choice in choice_type.choices)
    return f"expected one of {names}, got {value!r}"


class AsciiInt(click_types.IntParamType):
    """click's INT, reading ASCII digits only (:func:`schedlab.textio.parse_int`): ``int``
    alone also reads ``1_000`` and the digits of other scripts (docs/reference/cli.md, "Bounds")."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str):
            try:
                return parse_int(value.strip(), field="value", limit=None)
            except InputError as err:
                self.fail(err.reason, param, ctx)
        return super().convert(value, param, ctx)


class FiniteFloat(click_types.FloatParamType):
    """click's FLOAT, reading an ASCII decimal number only: not ``nan``, ``inf`` or the digits
    of other scripts, which ``float`` reads."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and not ASCII_NUMBER.fullmatch(value.strip()):
            self.fail(f"expected a finite number (ASCII digits), got {value!r}", param, ctx)
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"expected a finite number, got {value!r}", param, ctx)
        return number


#: The number types every option is read with, in place of click's own.
ASCII_TYPES: dict[type[click_types.ParamType], click_types.ParamType] = {
    click_types.IntParamType: AsciiInt(), click_types.FloatParamType: FiniteFloat()}


class SchedlabCommand(TyperCommand):
    """A typer command that accepts the deprecated spellings of its options and reports a bad
    option value (not a number, not one of the choices) as one line with exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            param.type = ASCII_TYPES.get(type(param.type), param.type)
            if hasattr(param.type, "get_invalid_choice_message"):
                param.type.get_invalid_choice_message = functools.partial(
                    invalid_choice_message, param.type)

    def collect_usage_pieces(self, ctx: ClickContext) -> list[str]:
        """The usage line without hidden (deprecated) arguments."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if not getattr(param, "hidden", False):
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        path = command_path(ctx)
        args, used = rename_deprecated(args, DEPRECATED_OPTIONS.get(path, {}))
        from schedlab.cli.consoles import err_console

        for old in used:
            err_console.print(deprecation_warning(path, old, DEPRECATED_OPTIONS[path][old]),
                              markup=False, highlight=False)
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as err:
            if err.param is None:
                raise
            reason = err.message or f"missing; this command needs {option_label(err.param)}"
            message = InputError(reason, field=option_label(err.param))
            err_console.print(f"schedlab: error: {message}", markup=False, highlight=False)
            raise typer.Exit(2) from None


def command_path(ctx: ClickContext) -> str:
    """``"reproduce run"``: the command's words after the program name."""
    words = []
    while ctx.parent is not None:
        words.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(words))


def option_label(param: Any) -> str:
    """``--overrun`` for an option (its long name), ``WORKLOAD`` for an argument."""
    if param.param_type_name == "option":
        return str(next((opt for opt in param.opts if opt.startswith("--")), param.opts[0]))
    return (param.name or "").upper()
