"""The ``schedlab`` command: a thin typer layer over the Python API.

Exit codes (a contract): 0 success; 2 bad input or usage, with a one-line
reason naming file, line and field where there is one; 1 internal error.
A value of the wrong type or outside an option's choices is reported in the
same one-line form (:class:`~schedlab.cli.conventions.SchedlabCommand`); other
usage errors (unknown option, missing argument) are typer's own and exit with
2 as well.  The option names follow docs/reference/cli.md.
"""

from __future__ import annotations

import atexit
import functools
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterable
from typing import Annotated, Any, NoReturn

import typer

from schedlab import __version__
from schedlab.cli import freeze_long_lived
from schedlab.cli.consoles import err_console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.cli.options import named_as_typed
from schedlab.errors import InputError

EXIT_INTERNAL, EXIT_INPUT = 1, 2

#: The commands, in the order of ``schedlab --help``: the function NAME of the module
#: ``schedlab.cli.NAME``.  A module is imported only when its command is registered:
#: ``schedlab NAME ...`` registers NAME alone (:func:`main`), so that a command does not
#: pay for the imports of the others.
COMMANDS = ("simulate", "compare", "analyze", "transform", "generate", "policies", "sweep",
            "results", "export", "plot", "report", "precompile", "predictors")
#: The command groups after them: ``schedlab.cli.NAME.NAME_app`` makes each one's typer app.
GROUPS = ("traces", "reproduce", "platform", "gym", "validate")


def show_version(value: bool) -> None:
    """``--version``: print ``schedlab X.Y.Z`` and exit 0 before any command runs."""
    if value:
        typer.echo(f"schedlab {__version__}")
        raise typer.Exit()


def root(version: Annotated[bool, typer.Option(
        "--version", callback=show_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """The options of ``schedlab`` itself, before the command."""


def guarded(command: Callable[..., None]) -> Callable[..., None]:
    """Turn a user mistake into one line and exit code 2, anything else into exit code 1."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            return command(*args, **kwargs)
        except InputError as err:
            err_console.print(f"schedlab: error: {named_as_typed(err)}", markup=False,
                              highlight=False)
            raise typer.Exit(EXIT_INPUT) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception:
            import traceback

            err_console.print("schedlab: internal error (please report it with this output):",
                              markup=False)
            err_console.print(traceback.format_exc(), markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERNAL) from None
    return wrapper


def summary_line(command: Callable[..., None]) -> str:
    """The first paragraph of a command's docstring as one line: the command list of
    ``schedlab --help`` rewraps it to the terminal instead of keeping the source's breaks."""
    return " ".join((command.__doc__ or "").split("\n\n")[0].split())


def command_app(names: Iterable[str]) -> typer.Typer:
    """The ``schedlab`` typer app with the commands and groups ``names`` (in the order of
    :data:`COMMANDS` and :data:`GROUPS`) registered."""
    wanted = set(names)
    cli = typer.Typer(
        name="schedlab", no_args_is_help=True, add_completion=True,
        pretty_exceptions_enable=False,
        help="Simulate, compare and reproduce parallel batch-job scheduling policies.")
    cli.callback()(root)
    for name in (name for name in COMMANDS if name in wanted):
        command = getattr(importlib.import_module(f"schedlab.cli.{name}"), name)
        cli.command(name, cls=SchedlabCommand, short_help=summary_line(command))(guarded(command))
    for name in (name for name in GROUPS if name in wanted):
        cli.add_typer(getattr(importlib.import_module(f"schedlab.cli.{name}"),
                              f"{name}_app")(guarded))
    return cli


def invoked(argv: list[str]) -> list[str]:
    """The command ``argv`` (``sys.argv[1:]``) runs, alone, when it names one; otherwise
    (no command, an option of ``schedlab`` itself, an unknown name; shell completion
    runs with no arguments) every command, so that help, completion and typer's errors
    see them all."""
    if argv and (argv[0] in COMMANDS or argv[0] in GROUPS):
        return argv[:1]
    return [*COMMANDS, *GROUPS]


def __getattr__(name: str) -> Any:
    """``app``: the typer app with every command (PEP 562: made on first use, for the
    tests and for tools that load the command line as a whole)."""
    if name == "app":
        globals()["app"] = command_app([*COMMANDS, *GROUPS])
        return globals()["app"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console entry point: registers only the command it runs (:func:`invoked`).

    The objects made so far (modules, functions, the typer app: about 30,000 that the
    cyclic garbage collector tracks for ``schedlab simulate``) live as long as the
    process, so they are moved out of its reach (``gc.freeze``,
    :func:`~schedlab.cli.freeze_long_lived`): a full collection
    during a run scans only what the run made (on KTH one cost 0.03 s, 0.15 s with
    numba loaded, before).  The collector is then on, also where ``python -m
    schedlab`` paused it while the modules loaded.

    A command of :data:`QUICK_EXIT` ends the process without the interpreter's teardown
    (:func:`quick_exit`), unless a profiler or a tracer watches the process
    (``python -m cProfile -o FILE -m schedlab simulate ...``, coverage, a debugger): they
    write what they found after ``main`` returns.
    """
    names = invoked(sys.argv[1:])
    cli = command_app(names)
    freeze_long_lived(command_starts=True)
    gc.enable()
    if not set(names) <= set(QUICK_EXIT) or watched():
        cli(prog_name="schedlab")
        return
    try:
        cli(prog_name="schedlab")
    except SystemExit as stop:
        quick_exit(stop.code)
    quick_exit(0)


#: The commands whose process ends by :func:`quick_exit`: every file they write is
#: written whole and closed before they return (the atomic writers of
#: :mod:`schedlab.atomic`), and they start no process or thread that outlives them.
QUICK_EXIT = ("simulate",)


def watched() -> bool:
    """Whether a profiler or a tracer is set in this process (``sys.setprofile``,
    ``sys.settrace``: cProfile, coverage, a debugger)."""
    return sys.getprofile() is not None or sys.gettrace() is not None


def quick_exit(code: object) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, without the interpreter's teardown.

    The exit functions run (``atexit``: the compile notice's report, ``weakref.finalize``)
    and the standard streams are flushed, as at a normal exit; what is skipped is
    freeing every module and object one by one, which a ``simulate`` of KTH-SP2 spent
    about 0.01 s of CPU on (5 % of its process; bench/PYSS.md).  A code that is neither
    None nor an int is printed on stderr and exits 1, as ``sys.exit`` does; a stream
    that cannot be flushed (a closed pipe) exits 120, as Python does."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        status = status or 120
    os._exit(status)
