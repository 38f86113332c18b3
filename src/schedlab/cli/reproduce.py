"""``schedlab reproduce``: run a paper's evaluation and put our numbers beside the paper's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.consoles import console, err_console
from schedlab.cli.conventions import SchedlabCommand
from schedlab.cli.options import DaskOpt, WorkersOpt
from schedlab.cli.sweep import EXIT_INTERRUPTED, SweepProgress, choose_executor


def reproduce_app(guard: Callable[[Callable[..., None]], Callable[..., None]]) -> typer.Typer:
    """The ``reproduce`` command group, each command wrapped by the CLI's error ``guard``."""
    group = typer.Typer(name="reproduce", no_args_is_help=True,
                        help="Reproduce the evaluation of a source paper.")
    group.command("list", cls=SchedlabCommand)(guard(list_recipes))
    group.command("run", cls=SchedlabCommand)(guard(run_recipe))
    return group


def list_recipes() -> None:
    """Show every recipe: its name, the paper and what it runs."""
    from schedlab.experiments.recipes import RECIPE_MODULES, get_recipe

    table = Table(title="schedlab reproduction recipes")
    table.add_column("name", style="bold")
    table.add_column("paper")
    table.add_column("what it runs")
    for name in sorted(RECIPE_MODULES):
        recipe = get_recipe(name)
        table.add_row(name, recipe.paper, recipe.description)
    console.print(table)


def notice(message: str) -> None:
    """One line on standard error, before the runs start."""
    err_console.print(f"schedlab: {message}", markup=False, highlight=False, soft_wrap=True)


def run_recipe(
    name: Annotated[str, typer.Argument(help="The recipe (see 'schedlab reproduce list').")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Experiment directory (default: out/reproduce-NAME, or "
        "out/reproduce-NAME-reduced).")] = None,
    reduced: Annotated[bool, typer.Option(
        "--reduced", help="The CI-sized version: fewer jobs, points and seeds.")] = False,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    trace: Annotated[list[Path] | None, typer.Option(
        "--trace", help="Also run the recipe on this trace (repeatable; recipes that take "
                        "one: predictions, on its first 30,000 jobs).")] = None,
) -> None:
    """Run (or resume) a recipe, then write its tables, figures and the findings table."""
    from schedlab.experiments.recipes import findings_markdown, reproduce

    exp_dir = out if out is not None else \
        Path("out", f"reproduce-{name}" + ("-reduced" if reduced else ""))
    executor, pool_size = choose_executor(workers, dask)
    progress = SweepProgress(f"{name}{' (reduced)' if reduced else ''}")
    try:
        reproduction = reproduce(name, exp_dir, reduced=reduced, executor=executor,
                                 jobs=pool_size, dask_address=dask, observer=progress,
                                 notice=notice, traces=trace or ())
    except KeyboardInterrupt:
        progress.close()
        err_console.print(f"schedlab: interrupted; the runs finished so far are stored in "
                          f"{exp_dir}. Run the same command again to resume.",
                          markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        progress.close()
    from rich.markdown import Markdown  # markdown-it and pygments: only for the findings

    console.print(Markdown(findings_markdown(reproduction)))
    for label, path in {**reproduction.tables, **reproduction.figures}.items():
        console.print(f"{label}: {path}", markup=False, highlight=False, soft_wrap=True)
