"""``schedlab report``: one self-contained HTML file for an experiment directory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from schedlab.cli.consoles import console
from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.experiments.report import RunOutput


def report(
    exp_dir: Annotated[Path, typer.Argument(
        help="An experiment directory (written by 'schedlab sweep'), a run directory "
             "('simulate --out') or a directory of them ('compare --out', or grid runs of "
             "'simulate --platform --out').")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The HTML file to write (default: EXP_DIR/report.html).")] = None,
    fmt: Annotated[Literal["svg", "png"], typer.Option(
        "--format", "-f", case_sensitive=False,
        help="Format of the embedded figures: svg is sharp at any zoom.")]
        = "svg",
) -> None:
    """Write an HTML report: the runs' summary, figures, and for a sweep its failed runs,
    experiment file and versions."""
    from schedlab.cli.plotgrid import grid_runs, holds_runs, is_grid_jobs, run_directories
    from schedlab.experiments.report import write_report

    target = out if out is not None else exp_dir / "report.html"
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if (exp_dir / "results.sqlite").is_file() or not holds_runs(exp_dir):
        write_report(exp_dir, target, generated=generated, fmt=fmt)
    elif all(is_grid_jobs(run.jobs) for run in run_outputs(exp_dir)):
        from schedlab.viz.gridreport import write_grid_report

        runs = dict(zip((path.name for path in run_directories(exp_dir)), grid_runs(exp_dir)))
        write_grid_report(exp_dir, runs, target, generated=generated, fmt=fmt)
    else:
        from schedlab.experiments.report import write_runs_report

        write_runs_report(exp_dir, run_outputs(exp_dir), target, generated=generated, fmt=fmt)
    console.print(f"wrote {target}")


def run_outputs(source: Path) -> list[RunOutput]:
    """The run directories under ``source`` (simulate or compare outputs), labelled by
    policy and the parameters that differ; grid and one-machine runs do not mix."""
    from schedlab.cli.plot import read_run_directory
    from schedlab.cli.plotgrid import is_grid_jobs, run_directories, run_labels
    from schedlab.experiments.report import RunOutput

    loaded = [read_run_directory(path) for path in run_directories(source)]
    if len({is_grid_jobs(jobs) for jobs, _ in loaded}) > 1:
        raise InputError("expected runs of one kind: grid runs (simulate --platform) and "
                         "runs on one machine do not share a report", file=str(source))
    labels = [policy_label(document) for _, document in loaded]
    if len(set(labels)) < len(labels):       # the same policy twice: what differs names it
        labels = run_labels([document for _, document in loaded])
    return [RunOutput(label, jobs, document) for label, (jobs, document) in zip(labels, loaded)]


def policy_label(document: dict[str, Any]) -> str:
    """A run's policy as ``compare`` labels it: the name and the parameters that differ from
    its defaults (``dynp[metric=slowdown]``); the name alone where it cannot be rebuilt."""
    from schedlab.policies.registry import make_policy
    from schedlab.policies.registry import policy_label as label_of

    name = str(document.get("policy", "?"))
    try:
        policy = make_policy({"name": name, **document.get("params", {})})
    except InputError:
        return name
    return label_of(policy, policy)
