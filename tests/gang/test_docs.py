"""docs/policies/gang.md runs as written: its commands, its Python example, its sweep grid."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.experiments.spec import load_experiment

DOC = Path(__file__).resolve().parents[2] / "docs" / "policies" / "gang.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


COMMANDS = [line for block in blocks("") for line in block.splitlines()
            if line.startswith("schedlab ")]


def test_the_doc_has_commands():
    assert len(COMMANDS) == 4


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_runs_as_written(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # out/... lands in a scratch directory
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output


def test_the_python_example_runs():
    (code,) = blocks("python")
    scope: dict = {}
    exec(compile(code, str(DOC), "exec"), scope)
    assert scope["metrics"]["gang_jobs_short"] > 0
    assert scope["result"].params["strategy"] == 3


def test_the_sweep_grid_is_a_valid_experiment(tmp_path):
    (grid,) = blocks("toml")
    spec = tmp_path / "gang.toml"
    spec.write_text('[[workloads]]\nsource = "lublin"\njobs = 100\n' + grid)
    runs = load_experiment(spec).runs
    assert len(runs) == 18 and {r.policy for r in runs} == {"gang"}
