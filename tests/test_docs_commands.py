"""Every command of the README and the docs runs as written from the project root.

The commands are the lines starting with ``schedlab `` in the fenced code blocks
of README.md, docs/*.md and docs/*/*.md (a trailing ``\\`` continues a line;
lines of other tools — ``make``, ``sacct`` — and error messages shown as output
are not run).  The Python blocks of a page are run in order in one namespace.

* ``test_every_documented_command_parses`` checks every command against the
  command line (its subcommand and options, with ``--help`` appended), fast.
* ``test_a_page_runs_as_written`` runs each page's commands, then its Python
  blocks, in a workspace that looks like the project root: ``examples/``
  is there, ``../shared/workloads`` is the trace folder of the test suite
  (tests/real_traces.py) and the trace cache holds those traces, so that
  catalog names such as ``KTH-SP2`` are found without the network.  A page
  whose traces are absent is skipped.  Outputs (``out/…``) are shared by the
  pages, as they would be in one checkout.
* Pages that take more than about 10 s to run (real traces, evalys plots of
  28,000 jobs; :data:`SLOW_PAGES`) run only with the slow tests
  (``make test-all``); for them the fast ``test_every_input_file_exists``
  still checks that each file a command or Python block reads is there (in
  the project, under ../shared/workloads, or written by an earlier command
  of the page) — the mistake of a trace named without its folder.
* Checked for parsing only (:data:`PARSE_ONLY`): the paper reproductions
  (``schedlab reproduce run``, minutes to hours; tests/reproductions runs
  the reduced forms), runs on a Dask cluster (a remote one cannot be
  reached from a test) and the plug-in example of docs/how-to/writing-a-policy.md
  (tests/test_writing_a_policy.py runs it with the plug-in registered).
* The one input a page takes from another tool, the sacct export
  ``jan.txt`` of docs/how-to/interop.md, is written by the test (:data:`SACCT_EXPORT`).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from real_traces import trace_path
from schedlab.cli.app import app
from schedlab.experiments.recipes import traces_dir
from schedlab.workload.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHARED = "../shared/workloads/"
#: Commands only parsed, not run (see the module docstring): pattern -> why.
PARSE_ONLY = {
    r"^schedlab reproduce run ": "a paper reproduction takes minutes to hours",
    r" --dask ": "needs a Dask cluster",
    r"^schedlab validate slurm": "runs a real Slurm for minutes, as root (tests/validation runs "
                                 "it)",
    r" --policy first-fit ": "needs the example plug-in of docs/how-to/writing-a-policy.md installed "
                             "(tests/test_writing_a_policy.py runs it registered)",
}
#: Pages run only with the slow tests: seconds they took on two cores.
SLOW_PAGES = {"README.md": 42, "docs/how-to/experiments.md": 18, "docs/how-to/figures.md": 17,
              "docs/how-to/interop.md": 113, "docs/how-to/rl.md": 25,
              "docs/background/validation.md": 25, "docs/reference/events.md": 35,
              "docs/reference/policies/deadlines.md": 38, "docs/reference/policies/dynp.md": 460}
#: Options whose value is a file a command writes.
OUTPUT_OPTIONS = ("-o", "--out", "--save-model", "--csv")
#: Suffixes of the files a command or Python block reads.
INPUT_SUFFIXES = (".swf", ".swf.gz", ".toml", ".json", ".csv", ".txt")
#: What `sacct ... > jan.txt` in docs/how-to/interop.md would write: a tiny accounting export.
SACCT_EXPORT = (
    "JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|AllocCPUS|ReqCPUS|State|User|"
    "Group|Partition\n"
    "101|2024-01-01T00:00:00|2024-01-01T00:00:05|2024-01-01T00:10:05|00:10:00|01:00:00|"
    "64|1|64|64|COMPLETED|ann|lab|batch\n"
    "102|2024-01-01T00:01:00|2024-01-01T00:10:05|2024-01-01T00:40:05|00:30:00|00:45:00|"
    "128|2|128|128|COMPLETED|bob|lab|batch\n")


def code_blocks(page: Path) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block of a page."""
    return re.findall(r"^```(\w*)\n(.*?)^```", page.read_text(), flags=re.S | re.M)


def commands(page: Path) -> list[str]:
    """The schedlab command lines of a page, continuation lines joined."""
    found = []
    for language, body in code_blocks(page):
        if language in ("python", "toml", "text"):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            if line.startswith("schedlab "):
                found.append(line)
    return found


def python_blocks(page: Path) -> list[str]:
    return [body for language, body in code_blocks(page) if language == "python"]


def parse_only(command: str) -> bool:
    return any(re.search(pattern, command) for pattern in PARSE_ONLY)


def arguments(command: str) -> list[str]:
    """The arguments after ``schedlab``, shell comments dropped."""
    return shlex.split(command, comments=True)[1:]


def traces_needed(page: Path) -> set[str]:
    """Trace files a page reads: under ../shared/workloads/, or by catalog name."""
    text = "\n".join(commands(page) + python_blocks(page))
    needed = set(re.findall(re.escape(SHARED) + r"([\w.-]+)", text))
    for trace in load_catalog().values():
        if re.search(rf"(?<![\w/.-]){re.escape(trace.name)}(?![\w.-])", text):
            needed.add(trace.file)
    return needed


ALL_COMMANDS = [(page, command) for page in PAGES for command in commands(page)]


def test_the_pages_hold_the_commands_of_the_tour() -> None:
    tour = [command for page, command in ALL_COMMANDS if page.name == "README.md"]
    assert len(tour) >= 10
    assert f"schedlab analyze {SHARED}KTH-SP2-1996-2.1-cln.swf.gz --compare kth" in tour


@pytest.mark.parametrize("page, command", ALL_COMMANDS,
                         ids=[f"{p.relative_to(ROOT)}:{c[:60]}" for p, c in ALL_COMMANDS])
def test_every_documented_command_parses(page: Path, command: str) -> None:
    result = CliRunner().invoke(app, [*arguments(command), "--help"])
    assert result.exit_code == 0, f"{page.name}: {command}\n{result.output}"


def written_and_read(page: Path) -> tuple[set[str], list[str]]:
    """Files the page's commands write, and the files its commands and Python blocks read."""
    written: set[str] = set()
    read: list[str] = []
    for command in commands(page):
        args = arguments(command)
        for previous, arg in zip(["schedlab", *args], args):
            if previous in OUTPUT_OPTIONS:
                written.add(arg)
            elif arg.endswith(INPUT_SUFFIXES) and not arg.startswith("-"):
                read.append(arg)
    for block in python_blocks(page):
        read += [name for name in re.findall(r"(?:load_workload|read_swf|run_sweep)\(\s*\"([^\"]+)\"",
                                             block) if name.endswith(INPUT_SUFFIXES)]
    return written, read


PAGE_IDS = [str(p.relative_to(ROOT)) for p in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_input_file_exists(page: Path) -> None:
    written, read = written_and_read(page)
    for name in read:
        if name.startswith(SHARED):
            assert name[len(SHARED):] in {t.file for t in load_catalog().values()} \
                or trace_path(name[len(SHARED):]).is_file(), name
        elif name == "jan.txt":   # written by sacct (SACCT_EXPORT)
            continue
        else:
            assert (ROOT / name).exists() or any(
                name == out or name.startswith(out.rstrip("/") + "/") for out in written), \
                f"{page.name} reads {name}: not in the project nor written before"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):
    """A copy of the project root's surroundings: examples/, ../shared/workloads, a cache."""
    base = tmp_path_factory.mktemp("docs")
    root = base / "schedlab"
    root.mkdir()
    (root / "examples").symlink_to(ROOT / "examples")
    (base / "shared").mkdir()
    (base / "shared" / "workloads").symlink_to(traces_dir().resolve())
    (base / "cache").mkdir()
    for trace in load_catalog().values():
        if trace_path(trace.file).is_file():
            (base / "cache" / trace.file).symlink_to(trace_path(trace.file))
    (root / "jan.txt").write_text(SACCT_EXPORT)
    return root, base / "cache"


@pytest.mark.parametrize("page", [
    pytest.param(page, marks=pytest.mark.slow) if name in SLOW_PAGES else page
    for page, name in zip(PAGES, PAGE_IDS)], ids=PAGE_IDS)
def test_a_page_runs_as_written(page: Path, workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    root, cache = workspace
    if not commands(page) and not python_blocks(page):
        pytest.skip("no commands")
    missing = sorted(name for name in traces_needed(page) if not trace_path(name).is_file())
    if missing:
        pytest.skip(f"traces not in {traces_dir()}: {', '.join(missing)}")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SCHEDLAB_CACHE", str(cache))
    monkeypatch.setenv("SCHEDLAB_TRACES", str(root.parent / "shared" / "workloads"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for command in commands(page):
        args = arguments(command) + (["--help"] if parse_only(command) else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, f"{command}\n{result.output}"
    namespace: dict = {"__name__": "__main__"}
    for block in python_blocks(page):
        exec(compile(block, f"{page.name} (python block)", "exec"), namespace)
