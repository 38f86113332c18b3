"""The ``schedlab`` command: a thin typer layer over the Python API.

Exit codes (a contract): 0 success; 2 bad input or usage, with a one-line
reason naming file, line and field where there is one; 1 internal error.
A value of the wrong type or outside an option's choices is reported in the
same one-line form (:class:`~schedlab.cli.conventions.SchedlabCommand`); other
usage errors (unknown option, missing argument) are typer's own and exit with
2 as well.  The option names follow docs/reference/cli.md.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Annotated, Any

import typer

from schedlab import __version__
from schedlab.cli.analyze import analyze
from schedlab.cli.compare import compare
from schedlab.cli.consoles import err_console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.cli.export import export
from schedlab.cli.generate import generate
from schedlab.cli.gym import gym_app
from schedlab.cli.options import named_as_typed
from schedlab.cli.platform import platform_app
from schedlab.cli.plot import plot
from schedlab.cli.policies import policies
from schedlab.cli.precompile import precompile
from schedlab.cli.predictors import predictors
from schedlab.cli.report import report
from schedlab.cli.reproduce import reproduce_app
from schedlab.cli.results import results
from schedlab.cli.simulate import simulate
from schedlab.cli.sweep import sweep
from schedlab.cli.traces import traces_app
from schedlab.cli.transform import transform
from schedlab.cli.validate import validate_app
from schedlab.errors import InputError

EXIT_INTERNAL, EXIT_INPUT = 1, 2

app = typer.Typer(
    name="schedlab", no_args_is_help=True, add_completion=True,
    pretty_exceptions_enable=False,
    help="Simulate, compare and reproduce parallel batch-job scheduling policies.")


def show_version(value: bool) -> None:
    """``--version``: print ``schedlab X.Y.Z`` and exit 0 before any command runs."""
    if value:
        typer.echo(f"schedlab {__version__}")
        raise typer.Exit()


@app.callback()
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
            err_console.print("schedlab: internal error (please report it with this output):",
                              markup=False)
            err_console.print(traceback.format_exc(), markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERNAL) from None
    return wrapper


def summary_line(command: Callable[..., None]) -> str:
    """The first paragraph of a command's docstring as one line: the command list of
    ``schedlab --help`` rewraps it to the terminal instead of keeping the source's breaks."""
    return " ".join((command.__doc__ or "").split("\n\n")[0].split())


for name, command in (("simulate", simulate), ("compare", compare), ("analyze", analyze),
                      ("transform", transform), ("generate", generate), ("policies", policies),
                      ("sweep", sweep), ("results", results), ("export", export),
                      ("plot", plot), ("report", report), ("precompile", precompile),
                      ("predictors", predictors)):
    app.command(name, cls=SchedlabCommand, short_help=summary_line(command))(guarded(command))
app.add_typer(traces_app(guarded))
app.add_typer(reproduce_app(guarded))
app.add_typer(platform_app(guarded))
app.add_typer(gym_app(guarded))
app.add_typer(validate_app(guarded))


def main() -> None:
    """Console entry point."""
    app(prog_name="schedlab")
