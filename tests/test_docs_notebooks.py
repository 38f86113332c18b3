"""The notebooks of docs/ (docs/tutorial/4-notebook.ipynb) are valid and their outputs current.

* ``test_a_notebook_is_valid_nbformat_4`` checks the JSON against the parts of
  the nbformat 4.5 schema a reader relies on (cell ids, sources, outputs of
  type ``stream`` or ``execute_result`` with text only), that the file is
  laid out as Jupyter and ``run_notebook.py --write`` write it, that it names
  no path of the machine it was run on, that no cell wrote to stderr (a
  warning in a tutorial is a fault of the tutorial), and that its links to
  other pages resolve.
* ``test_a_notebook_prints_what_it_stores`` runs the code cells with
  tests/run_notebook.py (no Jupyter needed) in a separate process, so that
  the notebook's pandas options and figures stay out of the test session,
  and fails with a diff per cell whose stored output is not what it prints
  now.  The fix is ``python tests/run_notebook.py --write NOTEBOOK``.
* The runner's own rules (what a cell shows, as IPython does) are checked
  on small notebooks built here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from run_notebook import (
    CellError,
    differences,
    dump,
    execute_cell,
    load,
    run,
    text,
    with_outputs,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(path for path in (ROOT / "docs").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in path.parts)
IDS = [str(path.relative_to(ROOT)) for path in NOTEBOOKS]
#: What a path of one machine looks like (a notebook must run from any checkout).
MACHINE_PATH = re.compile(r"(?<![\w.])(/home/|/Users/|/tmp/|/work/|/root/|/var/|[A-Z]:\\)")
CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_the_docs_have_a_notebook_and_the_index_links_each() -> None:
    assert NOTEBOOKS
    index = (ROOT / "docs" / "README.md").read_text()
    for path in NOTEBOOKS:
        assert f"]({path.relative_to(ROOT / 'docs')})" in index, path


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_a_notebook_is_valid_nbformat_4(path: Path) -> None:
    notebook = load(path)
    assert (notebook["nbformat"], notebook["nbformat_minor"]) >= (4, 5)
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert path.read_text(encoding="utf-8") == dump(notebook), \
        f"not in Jupyter's layout: python tests/run_notebook.py --write {path.relative_to(ROOT)}"
    ids = [cell["id"] for cell in notebook["cells"]]
    assert len(set(ids)) == len(ids) and all(CELL_ID.match(cell_id) for cell_id in ids)
    count = 0
    for cell in notebook["cells"]:
        assert cell["cell_type"] in ("markdown", "code"), cell["id"]
        assert isinstance(cell["metadata"], dict)
        assert isinstance(cell["source"], (str, list))
        assert not MACHINE_PATH.search(text(cell["source"])), cell["id"]
        if cell["cell_type"] == "markdown":
            assert "outputs" not in cell
            for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text(cell["source"])):
                assert (path.parent / link).exists(), f"{cell['id']}: {link}"
            continue
        count += 1
        assert cell["execution_count"] == count, cell["id"]
        for output in cell["outputs"]:
            if output["output_type"] == "stream":
                assert output["name"] == "stdout", f"{cell['id']} wrote to {output['name']}"
                shown = text(output["text"])
            else:
                assert output["output_type"] == "execute_result", cell["id"]
                assert output["execution_count"] == count
                assert output["metadata"] == {}
                assert set(output["data"]) <= {"text/plain", "text/html"}, \
                    f"{cell['id']}: only text is stored, figures go to files"
                assert "text/plain" in output["data"]
                shown = "".join(text(value) for value in output["data"].values())
            assert not MACHINE_PATH.search(shown), f"{cell['id']}: {shown}"
            assert not re.search(r" at 0x[0-9a-f]+", shown), f"{cell['id']}: a memory address"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_a_notebook_prints_what_it_stores(path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "run_notebook.py"), str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ the runner's rules
def notebook_of(*sources: str) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "id": f"c{n}", "metadata": {}, "source": source,
                       "execution_count": None, "outputs": []}
                      for n, source in enumerate(sources)]}


def shown(outputs: list[dict]) -> list[tuple[str, str]]:
    return [(output.get("name") or output["output_type"],
             text(output["text"]) if "text" in output else text(output["data"]["text/plain"]))
            for output in outputs]


def test_a_cell_shows_its_prints_and_the_value_of_its_last_expression() -> None:
    namespace: dict = {}
    assert shown(execute_cell("x = 6\nprint('a')\nprint('b')\nx * 7", namespace, 1)) == [
        ("stdout", "a\nb\n"), ("execute_result", "42")]
    assert shown(execute_cell("x", namespace, 2)) == [("execute_result", "6")]
    assert execute_cell("y = x", namespace, 3) == []                 # an assignment shows nothing
    assert execute_cell("x;", namespace, 4) == []                    # a final ';' hides the value
    assert execute_cell("print('a', end='')\nNone", namespace, 5)[1:] == []  # None is not shown
    assert execute_cell("", namespace, 6) == []
    out = execute_cell("import sys\nprint(1)\nprint(2, file=sys.stderr)\nprint(3)", namespace, 7)
    assert shown(out) == [("stdout", "1\n"), ("stderr", "2\n"), ("stdout", "3\n")]
    assert out[0]["text"] == ["1\n"]                                 # nbformat's list of lines


def test_a_value_with_an_html_form_stores_both() -> None:
    source = ("class Table:\n"
              "    def __repr__(self): return 'a  b\\n1  2'\n"
              "    def _repr_html_(self): return '<table></table>'\n"
              "Table()")
    [result] = execute_cell(source, {}, 3)
    assert result == {"output_type": "execute_result", "execution_count": 3, "metadata": {},
                      "data": {"text/plain": ["a  b\n", "1  2"],
                               "text/html": ["<table></table>"]}}


def test_a_failing_cell_or_a_magic_is_an_error_naming_the_cell() -> None:
    with pytest.raises(CellError, match=r"<cell 4> raised:(.|\n)*ZeroDivisionError"):
        execute_cell("1 / 0", {}, 4)
    with pytest.raises(CellError, match="magics"):
        execute_cell("%matplotlib inline", {}, 1)


def test_written_outputs_check_clean_and_a_change_is_a_diff(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    notebook = notebook_of(["from pathlib import Path\n", "Path('f').write_text('x')\n",
                            "print(sorted(p.name for p in Path().iterdir()))"], "n = 2\nn + 1")
    produced = run(notebook)
    assert list(tmp_path.iterdir()) == []            # run in a fresh directory, not here
    written = json.loads(dump(with_outputs(notebook, produced)))
    assert differences(written, run(written)) == []
    assert [cell["execution_count"] for cell in written["cells"]] == [1, 2]
    written["cells"][1]["outputs"][0]["data"]["text/plain"] = ["4"]
    [found] = differences(written, run(written))
    assert found.startswith("cell 2 (n = 2):") and "-4\n+3\n" in found
