"""``schedlab gym evaluate``: agents and policies scored on the test episodes of an environment.

A thin layer over :func:`schedlab.gym.evaluate` (docs/how-to/rl.md): the
runs land in an experiment directory that ``schedlab results`` and
``schedlab report`` read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from schedlab.cli.consoles import console
from schedlab.cli.conventions import WORKLOAD_PANEL, SchedlabCommand
from schedlab.errors import InputError
from schedlab.specs import parse_params

#: The metrics of the summary table the command prints.
SHOWN_METRICS = ("avg_wait", "avg_bsld_10", "utilization")


def gym_app(guard: Callable[[Callable[..., None]], Callable[..., None]]) -> typer.Typer:
    """The ``gym`` command group, each command wrapped by the CLI's error ``guard``."""
    group = typer.Typer(name="gym", no_args_is_help=True,
                        help="Learned schedulers: score agents and policies on the test "
                             "episodes of a Gymnasium environment (needs schedlab\\[rl]).")
    group.command("evaluate", cls=SchedlabCommand)(guard(evaluate))
    return group


def evaluate(
    contestants: Annotated[list[str], typer.Argument(
        help="Policies ('fcfs', 'sjf+easy', 'dynp\\[k=4]') and agents (MODULE:NAME, a callable "
             "agent(observation, info) -> action importable from MODULE).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The experiment directory the runs "
                                      "are stored in (created or added to).")],
    env: Annotated[str, typer.Option("--env", help="The environment: schedlab/PickJob, "
                                     "schedlab/PickPolicy or schedlab/Backfill.")]
        = "schedlab/PickJob",
    episodes: Annotated[int | None, typer.Option(
        "--episodes", help="How many test episodes, the split's first ones (default: all "
        "of them).")] = None,
    workload: Annotated[str, typer.Option(
        "--workload", help="A built-in model, an SWF file or a cached trace.",
        rich_help_panel=WORKLOAD_PANEL)] = "lublin",
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-n", help="Number of jobs of a built-in model (default 10000).",
        rich_help_panel=WORKLOAD_PANEL)] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of a built-in model.",
                                      rich_help_panel=WORKLOAD_PANEL)] = 0,
    procs: Annotated[int | None, typer.Option(
        "--procs", help="Machine size in processors (default: the trace header / the "
        "model's).", rich_help_panel=WORKLOAD_PANEL)] = None,
    shrink: Annotated[float | None, typer.Option(
        "--shrink", help="Shrinking factor of every episode's interarrival times.",
        rich_help_panel=WORKLOAD_PANEL)] = None,
    episode_jobs: Annotated[int, typer.Option(
        "--episode-jobs", help="Jobs per episode.", rich_help_panel=WORKLOAD_PANEL)] = 256,
    test_fraction: Annotated[float, typer.Option(
        "--test-fraction", help="The share of the submit span, at its end, that is the test "
        "split.", rich_help_panel=WORKLOAD_PANEL)] = 0.2,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Another option of the environment as KEY=VALUE (e.g. "
        "queue_head=16; repeatable).")] = None,
) -> None:
    """Score agents and policies on the test episodes of an environment; store the runs.

    Each contestant runs the split's first episodes; the runs are stored in
    OUT as a sweep stores its runs, so `schedlab results OUT` and
    `schedlab report OUT` show the agents beside the policies.
    """
    try:
        from schedlab.gym import evaluate as score
    except ImportError as err:           # the optional extra schedlab[rl] is not installed
        raise InputError(str(err)) from None
    options: dict[str, Any] = {"workload": workload, "jobs": jobs, "workload_seed": seed,
                               "processors": procs, "shrink": shrink,
                               "episode_jobs": episode_jobs, "test_fraction": test_fraction,
                               **parse_params(option, field="--option")}
    chosen = [_contestant(text) for text in contestants]
    labels = {k: text for k, text in enumerate(contestants) if not isinstance(chosen[k], str)}
    frame = score(chosen, env, episodes=episodes, env_options=options, labels=labels, out=out)
    count = frame["episode"].nunique()
    table = Table(title=f"{env}: {count} test episodes", box=box.SIMPLE_HEAD)
    for header in ("policy", *SHOWN_METRICS):
        table.add_column(header, justify="left" if header == "policy" else "right")
    means = frame.groupby("policy", sort=False)[list(SHOWN_METRICS)].mean()
    for policy, row in means.iterrows():
        table.add_row(str(policy), *(f"{row[m]:.4g}" for m in SHOWN_METRICS))
    console.print(table)
    console.print(f"stored {len(frame)} runs in {out}: schedlab results {out}; "
                  f"schedlab report {out}", markup=False, highlight=False, soft_wrap=True)


def _contestant(text: str) -> Any:
    """A policy spec as it is, or the agent ``MODULE:NAME`` imported."""
    module_name, sep, name = text.partition(":")
    if not sep:
        return text
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise InputError(f"agent {text!r}: cannot import module {module_name!r}: {err}",
                         field="contestants") from None
    agent = getattr(module, name, None)
    if not callable(agent):
        raise InputError(f"agent {text!r}: module {module_name!r} has no callable {name!r}",
                         field="contestants")
    return agent
