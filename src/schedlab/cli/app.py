"""The ``schedlab`` command: a thin typer layer over the Python API.

Exit codes (a contract): 0 success; 2 bad input or usage, with a one-line
reason naming file, line and field where there is one; 1 internal error.
"""

from __future__ import annotations

import sys
import traceback

import click
import typer

from schedlab.cli.analyze import analyze
from schedlab.cli.common import err_console
from schedlab.cli.compare import compare
from schedlab.cli.policies import policies
from schedlab.cli.simulate import simulate
from schedlab.errors import InputError

app = typer.Typer(
    name="schedlab", no_args_is_help=True, add_completion=False,
    help="Simulate, compare and reproduce parallel batch-job scheduling policies.")
app.command("simulate")(simulate)
app.command("compare")(compare)
app.command("analyze")(analyze)
app.command("policies")(policies)

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2


def main() -> None:
    """Console entry point."""
    sys.exit(run_cli())


def run_cli(argv: list[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit code (every failure becomes a code)."""
    try:
        app(args=argv, prog_name="schedlab", standalone_mode=False)
    except InputError as err:
        err_console.print(f"schedlab: error: {err}", markup=False, highlight=False)
        return EXIT_INPUT
    except click.exceptions.UsageError as err:
        err.show()
        return EXIT_INPUT
    except click.exceptions.Abort:
        err_console.print("schedlab: interrupted", markup=False)
        return 130
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.exceptions.ClickException as err:
        err.show()
        return EXIT_INPUT
    except Exception:  # noqa: BLE001 - the last line of defence
        err_console.print("schedlab: internal error (please report it with this output):",
                          markup=False)
        err_console.print(traceback.format_exc(), markup=False, highlight=False)
        return EXIT_INTERNAL
    return EXIT_OK

