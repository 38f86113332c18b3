"""The option conventions of every command (docs/reference/cli.md).

One meaning per option name across all commands, the choices of every option
with a fixed set of values shown in ``--help`` and checked with a one-line
error, ``simulate --help`` grouped in panels that fit 80 columns, and the
spellings of the earlier release still accepted with a deprecation warning.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from experiments.helpers import SMALL_EXPERIMENT, write_files
from schedlab.cli.app import app
from schedlab.cli.conventions import DEPRECATED_OPTIONS, rename_deprecated
from schedlab.cli.plot import Kind

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

#: The shared option names and what they mean in every command (the table of docs/reference/cli.md).
CONVENTIONS = {
    "--jobs": "a number of jobs",
    "--workers": "a number of worker processes",
    "--procs": "the machine size in processors",
    "--out": "what the command writes: a file, or a directory for several files",
    "--seed": "the seed of everything random in the command",
    "--format": "the file format of what the command writes",
}
#: Short forms: each stands for one long option, and that option always has it.
SHORT_FORMS = {"-n": "--jobs", "-j": "--workers", "-o": "--out", "-p": "--policy",
               "-m": "--metric", "-f": "--format"}
#: Options whose values are a fixed set, wherever they appear.
FIXED_VALUES = {"--overrun", "--width-field", "--missing-estimate", "--load-method",
                "--reservation-placement", "--kind", "--by", "--format", "--width-bins",
                "--preset", "--compare", "--weibull", "--allocation"}


def commands(group: typer.core.TyperGroup | None = None,
             path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every command of the application with the words that call it."""
    group = group or typer.main.get_command(app)
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def options(command) -> list:
    """The options a user can give the command (not --help, not hidden)."""
    return [p for p in command.params if p.param_type_name == "option"
            and not getattr(p, "hidden", False) and p.name != "help"]


def kind(param) -> str:
    """What kind of value an option takes: a flag, a choice or the type's name."""
    if param.is_flag:
        return "flag"
    if hasattr(param.type, "choices"):
        return "choice"
    return {"path": "text", "str": "text"}.get(param.type.name, param.type.name)  # file or preset


ALL = list(commands())


def test_every_command_is_walked() -> None:
    names = {" ".join(path) for path, _ in ALL}
    assert {"simulate", "compare", "sweep", "reproduce run", "analyze", "generate",
            "platform show", "transform", "export", "plot"} <= names


def test_one_meaning_per_option_name_across_all_commands() -> None:
    """An option name always has the same spellings and the same kind of value."""
    seen: dict[str, set] = defaultdict(set)
    where: dict[str, list[str]] = defaultdict(list)
    for path, command in ALL:
        for param in options(command):
            identity = (tuple(sorted(param.opts)), kind(param))
            for opt in param.opts:
                seen[opt].add(identity)
                where[opt].append(" ".join(path))
    clashes = {opt: (ids, where[opt]) for opt, ids in seen.items() if len(ids) > 1}
    assert clashes == {}


def test_jobs_is_a_job_count_and_workers_a_worker_count() -> None:
    found = defaultdict(list)
    for path, command in ALL:
        for param in options(command):
            for opt in param.opts:
                found[opt].append((" ".join(path), param))
    assert {"simulate", "compare", "transform", "generate"} <= {p for p, _ in found["--jobs"]}
    for path, param in found["--jobs"]:
        assert param.type.name == "int", path
        assert "jobs" in param.help and "worker" not in param.help.lower(), path
    assert {p for p, _ in found["--workers"]} == {"sweep", "reproduce run", "compare"}
    for path, param in found["--workers"]:
        assert param.type.name == "int" and "Worker processes" in param.help, path
    for path, param in found["--procs"]:
        assert param.type.name == "int", path


def test_short_forms_stand_for_one_long_option_each() -> None:
    for path, command in ALL:
        for param in options(command):
            for short, long in SHORT_FORMS.items():
                assert (short in param.opts) == (long in param.opts), (path, param.opts)


def test_the_conventions_table_is_in_the_docs() -> None:
    page = (ROOT / "docs" / "reference" / "cli.md").read_text()
    for name in [*CONVENTIONS, *SHORT_FORMS, "--workers"]:
        assert f"`{name}" in page, name
    for replaced in {old for renamed in DEPRECATED_OPTIONS.values() for old in renamed}:
        assert f"`{replaced}" in page, replaced
    assert "docs/reference/cli.md" in (ROOT / "README.md").read_text()


def test_every_option_with_a_fixed_set_of_values_is_a_choice() -> None:
    for path, command in ALL:
        for param in options(command):
            if set(param.opts) & FIXED_VALUES:
                assert kind(param) == "choice", (path, param.opts)


@pytest.mark.parametrize("path", sorted({path for path, command in ALL
                                         if any(kind(p) == "choice" for p in options(command))}),
                         ids=" ".join)
def test_help_lists_the_choices(path: tuple[str, ...]) -> None:
    command = dict(ALL)[path]
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0
    for param in options(command):
        if kind(param) == "choice":
            choices = "|".join(str(getattr(c, "value", c)) for c in param.type.choices)
            assert f"<{choices}>" in shown.stdout, (path, param.opts)


@pytest.mark.parametrize("args, message", [
    (["simulate", "lublin", "--overrun", "pause"],
     "field --overrun: expected one of kill, extend, got 'pause'"),
    (["compare", "lublin", "--load-method", "copy"],
     "field --load-method: expected one of duplicate, expand, got 'copy'"),
    (["analyze", "x.swf", "--width-field", "used"],
     "field --width-field: expected one of requested, allocated, got 'used'"),
    (["simulate", "lublin", "--reservation-placement", "late"],
     "field --reservation-placement: expected one of exact, earliest, got 'late'"),
    (["plot", ".", "--kind", "pie"],
     f"field --kind: expected one of {', '.join(kind.value for kind in Kind)}, got 'pie'"),
    (["export", ".", "--format", "swf"], "field --format: expected one of evalys, got 'swf'"),
    (["platform", "generate", "-o", "p.toml", "--preset", "thesis-9"],
     "field --preset: expected one of thesis-4.1, thesis-4.2, thesis-4.2-mkp, thesis-4.3, "
     "thesis-5.2, got 'thesis-9'"),
    (["simulate", "lublin", "--procs", "many"], "field --procs: expected an integer, got 'many'"),
])
def test_a_bad_value_is_a_one_line_error_with_exit_code_2(args, message) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"schedlab: error: {message}"]


def test_simulate_help_is_grouped_in_panels_within_80_columns() -> None:
    shown = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "80"}).stdout
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in shown                       # no option name or default cut short
    panels = re.findall(r"╭─ (.+?) ─", shown)
    assert panels == ["Arguments", "Options", "Workload", "Policy", "Deadlines", "Reservations",
                      "Reservation limits (Margo et al.)", "Failures and maintenance",
                      "Grid platform", "Output"]


@pytest.mark.parametrize("path", [path for path, _ in ALL], ids=" ".join)
def test_no_help_cuts_an_option_short_at_80_columns(path: tuple[str, ...]) -> None:
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0
    assert "…" not in shown.stdout


def test_the_thesis_presets_of_the_cli_are_the_generators() -> None:
    from schedlab.platform.generator import PRESETS as PLATFORM_PRESETS
    from schedlab.workload.models.grid import PRESETS as JOB_PRESETS

    for path, name in ((("platform", "generate"), "preset"), (("generate",), "preset")):
        param = next(p for p in dict(ALL)[path].params if p.name == name)
        assert list(param.type.choices) == list(PLATFORM_PRESETS) == list(JOB_PRESETS)


def test_the_allocations_of_the_cli_are_the_grid_engine_s() -> None:
    from schedlab.engine.grid import ALLOCATIONS

    param = next(p for p in dict(ALL)[("simulate",)].params if p.name == "allocation")
    assert tuple(param.type.choices) == ALLOCATIONS


def test_the_image_formats_of_the_cli_are_the_figures() -> None:
    from schedlab.viz.html import MIME
    from schedlab.viz.style import FORMATS

    # plot writes every format; a report embeds what a page shows inline (no PDF)
    for path, formats in ((("plot",), FORMATS), (("report",), tuple(MIME))):
        param = next(p for p in dict(ALL)[path].params if "--format" in p.opts)
        assert sorted(param.type.choices) == sorted(formats)


# --------------------------------------------------------------------------- old spellings


def test_rename_deprecated_rewrites_both_forms_and_stops_at_double_dash() -> None:
    assert rename_deprecated(["x", "--jobs", "2", "--jobs=3", "--", "--jobs"],
                             {"--jobs": "--workers"}) == (
        ["x", "--workers", "2", "--workers=3", "--", "--jobs"], ["--jobs"])


def in_workdir(directory: Path) -> None:
    """small.swf and experiment.toml (tests/experiments/helpers.py)."""
    write_files(directory, SMALL_EXPERIMENT)


def with_a_run(directory: Path) -> None:
    in_workdir(directory)
    assert runner.invoke(app, ["simulate", "small.swf", "--out", "run"]).exit_code == 0


def with_grid_jobs(directory: Path) -> None:
    shutil.copy(ROOT / "examples" / "platforms" / "two-sites.toml", directory)
    assert runner.invoke(app, ["generate", "grid", "--platform", "two-sites.toml", "--preset",
                               "thesis-4.1", "-n", "20", "-o", "g.swf"]).exit_code == 0


@dataclass(frozen=True)
class Deprecated:
    """A command line with an old spelling and what shows that it did its job."""

    command: str
    old: str
    new: str
    args: list[str]
    setup: Callable[[Path], None] = in_workdir
    writes: str | None = None
    prints: str = ""
    exit_code: int = 0
    errors: str = ""
    hidden_from_help: list[str] = field(default_factory=list)


DEPRECATED = [
    Deprecated("sweep", "--jobs", "--workers",
               ["sweep", "experiment.toml", "--out", "exp", "--jobs", "1"],
               writes="exp/results.sqlite"),
    Deprecated("reproduce run", "--jobs", "--workers", ["reproduce", "run", "qops", "--jobs", "0"],
               exit_code=2,
               errors="schedlab: error: field --workers: expected an integer >= 1, got 0"),
    Deprecated("analyze", "--processors", "--procs",
               ["analyze", "small.swf", "--processors", "64"], prints="64 │ --procs"),
    Deprecated("generate", "--output", "--out", ["generate", "lublin", "-n", "5", "--output",
                                                 "g.swf"], writes="g.swf"),
    Deprecated("export", "--output", "--out", ["export", "run", "--output", "e.csv"],
               setup=with_a_run, writes="e.csv"),
    Deprecated("platform generate", "--output", "--out",
               ["platform", "generate", "--output", "p.toml"], writes="p.toml"),
    Deprecated("platform show", "--jobs", "--workload",
               ["platform", "show", "two-sites.toml", "--jobs", "g.swf"], setup=with_grid_jobs,
               prints="g.swf: 20 jobs fit platform two-sites"),
    Deprecated("transform", "WORKLOAD OUTPUT", "WORKLOAD --out OUTPUT",
               ["transform", "small.swf", "t.swf"], writes="t.swf"),
]


def test_every_deprecated_spelling_has_a_case() -> None:
    cases = {(case.command, case.old) for case in DEPRECATED}
    assert {(c, old) for c, renamed in DEPRECATED_OPTIONS.items() for old in renamed} <= cases


@pytest.mark.parametrize("case", DEPRECATED, ids=lambda case: f"{case.command} {case.old}")
def test_an_old_spelling_still_works_and_warns(tmp_path: Path, monkeypatch, case) -> None:
    monkeypatch.chdir(tmp_path)
    case.setup(tmp_path)
    result = runner.invoke(app, case.args)
    assert result.exit_code == case.exit_code, result.output
    warnings = [line for line in result.stderr.splitlines() if "deprecated" in line]
    assert warnings == [f"warning: 'schedlab {case.command} {case.old}' is deprecated and will "
                        f"be removed in the next release; use {case.new} (docs/reference/cli.md)"]
    if case.writes:
        assert (tmp_path / case.writes).is_file()
    assert case.prints in result.stdout
    assert case.errors in result.stderr


@pytest.mark.parametrize("command", sorted(DEPRECATED_OPTIONS))
def test_old_spellings_are_hidden_from_help(command: str) -> None:
    shown = runner.invoke(app, [*command.split(), "--help"], env={"COLUMNS": "250"}).stdout
    for old in DEPRECATED_OPTIONS[command]:
        assert re.search(rf"{old}\b", shown) is None, (command, old)


def test_new_spellings_do_not_warn(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["generate", "lublin", "-n", "5", "--out", "g.swf"])
    assert result.exit_code == 0 and result.stderr == ""


def test_help_shows_square_brackets_as_written() -> None:
    """Rich markup would swallow ``[k=3]`` in a help text; compare's help keeps it."""
    shown = runner.invoke(app, ["compare", "--help"], env={"COLUMNS": "250"}).stdout
    assert "'qops[k=3],qops[k=5],fcfs+easy'" in shown
    assert "('qops[k=3]' -> qops_k=3)" in shown
