"""The command line registers only the command it runs (schedlab.cli.app.main)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schedlab.cli.app import COMMANDS, GROUPS, invoked

EVERY = [*COMMANDS, *GROUPS]


@pytest.mark.parametrize(("argv", "expected"), [
    (["simulate", "KTH", "--policy", "fcfs"], ["simulate"]),
    (["traces", "list"], ["traces"]),
    ([], EVERY),
    (["--help"], EVERY),
    (["--version"], EVERY),
    (["simulat", "KTH"], EVERY),
])
def test_a_named_command_is_registered_alone_anything_else_gets_every_command(argv, expected):
    assert invoked(argv) == expected


LOADED = """
import sys
from pathlib import Path
sys.argv = ["schedlab", *{argv!r}]
from schedlab.cli.app import main
try:
    main()
except SystemExit as stop:
    code = stop.code
print(code, sorted(name for name in sys.modules if name.startswith("schedlab.cli.")))
"""


def modules_after(argv: list[str]) -> tuple[str, list[str]]:
    """The exit code of ``schedlab ARGV`` run in a fresh interpreter and the command-line
    modules it imported."""
    done = subprocess.run([sys.executable, "-c", LOADED.format(argv=argv)],
                          capture_output=True, text=True, check=True)
    code, modules = done.stdout.strip().splitlines()[-1].split(" ", 1)
    return code, eval(modules)


def test_running_a_command_imports_none_of_the_others():
    code, modules = modules_after(["policies"])
    assert code in ("0", "None")
    assert "schedlab.cli.policies" in modules
    assert not {f"schedlab.cli.{name}" for name in EVERY if name != "policies"} & set(modules)


def test_help_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "schedlab", "--help"], capture_output=True,
                          text=True, check=True, env={**os.environ, "COLUMNS": "200"})
    listed = {line.split()[1] for line in done.stdout.splitlines()
              if line.startswith("│ ") and len(line.split()) > 1}
    assert set(EVERY) <= listed


COLLECTOR = """
import gc, runpy, sys
from schedlab.cli.loading import load
before = gc.get_freeze_count()
load({path!r}, procs=None)
print("alone", gc.get_freeze_count() - before, gc.isenabled())
sys.argv = ["schedlab", "policies"]
try:
    runpy.run_module("schedlab", run_name="__main__")
except SystemExit:
    pass
frozen = gc.get_freeze_count()
workload = load({path!r}, procs=None)
print("command", gc.isenabled(), gc.get_freeze_count() - frozen >= len(workload))
"""


def test_the_command_freezes_its_start_up_and_input_and_leaves_the_collector_on():
    """``python -m schedlab`` pauses the collector while its modules load and ``main``
    turns it back on after freezing them; a command's input joins them, but only in such a
    process: loading a workload elsewhere (a library, these tests) freezes nothing."""
    path = str(Path(__file__).parents[1] / "workload" / "data" / "small.swf")
    done = subprocess.run([sys.executable, "-c", COLLECTOR.format(path=path)],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert "alone 0 True" in lines
    assert "command True True" in lines


QUICK = """
import atexit, sys
from schedlab.cli.app import main
atexit.register(lambda: print("exit functions ran"))
sys.argv = ["schedlab", *sys.argv[1:]]
main()
print("not reached")
"""


def test_simulate_ends_without_teardown_keeping_its_exit_code_output_and_exit_functions(
        tmp_path):
    """``simulate`` ends by ``quick_exit``: its files whole, its summary and its exit
    code as ``sys.exit`` leaves them, the exit functions run."""
    path = str(Path(__file__).parents[1] / "workload" / "data" / "small.swf")
    ran = subprocess.run([sys.executable, "-c", QUICK, "simulate", path, "--policy", "fcfs",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert ran.returncode == 0
    assert "wrote" in ran.stdout and "exit functions ran" in ran.stdout
    assert "not reached" not in ran.stdout
    assert (tmp_path / "out" / "jobs.csv").read_text().startswith("job_id,submit,")
    refused = subprocess.run([sys.executable, "-c", QUICK, "simulate", path, "--procs", "-3"],
                             capture_output=True, text=True)
    assert refused.returncode == 2
    assert "schedlab: error: field --procs" in refused.stderr
    assert "exit functions ran" in refused.stdout


def test_a_profiled_simulate_ends_as_usual_so_the_profiler_writes_its_file(tmp_path):
    """Under ``python -m cProfile -o FILE`` (a profiler set: :func:`watched`) ``simulate``
    returns from ``main`` and the interpreter ends the process, so the profile is written."""
    path = str(Path(__file__).parents[1] / "workload" / "data" / "small.swf")
    profile = tmp_path / "simulate.prof"
    ran = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m",
                          "schedlab", "simulate", path, "--policy", "fcfs",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert profile.stat().st_size > 0
