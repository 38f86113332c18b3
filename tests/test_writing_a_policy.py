"""docs/how-to/writing-a-policy.md: every policy the page builds passes the conformance
suite, and its plug-in commands run once the example is registered.

test_docs_commands.py runs the page as written (its Python blocks in order as one
script, whose own asserts check the worked schedules); the plug-in command is only
parsed there, since it needs the page's example installed as a plug-in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.test_cli import register_plugin
from schedlab.cli.app import app
from schedlab.testing import check_policy
from test_docs_commands import arguments, commands, python_blocks

PAGE = Path(__file__).resolve().parents[1] / "docs" / "how-to" / "writing-a-policy.md"
EXAMPLES = ("FirstFit", "BookOnArrival", "FcfsWithReservations")


@pytest.fixture(scope="module")
def page() -> dict:
    """The names the page's script defines."""
    namespace: dict = {"__name__": "__main__"}
    for number, block in enumerate(python_blocks(PAGE), start=1):
        exec(compile(block, f"{PAGE.name} (python block {number})", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_passes_check_policy(page: dict, name: str) -> None:
    check_policy(page[name])


def test_the_plugin_commands_run_with_the_example_registered(page: dict, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.chdir(tmp_path)
    register_plugin(monkeypatch, "first-fit", page["FirstFit"])
    lines = commands(PAGE)
    assert [arguments(line)[0] for line in lines] == ["policies", "simulate"]
    shown = []
    for line in lines:
        result = CliRunner().invoke(app, arguments(line))
        assert result.exit_code == 0, (line, result.output)
        shown.append(" ".join(result.stdout.split()))
    assert "first-fit" in shown[0] and "order='narrowest'" in shown[0]
    metrics = json.loads((tmp_path / "first-fit" / "metrics.json").read_text())
    assert (metrics["policy"], metrics["params"]) == ("first-fit", {"order": "widest"})
