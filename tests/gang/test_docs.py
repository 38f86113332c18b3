"""docs/reference/policies/gang.md shows what it says: its Python example and its sweep grid.

That its commands run as written is checked with every page (tests/test_docs_commands.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from schedlab.experiments.spec import load_experiment

DOC = Path(__file__).resolve().parents[2] / "docs" / "reference" / "policies" / "gang.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


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
