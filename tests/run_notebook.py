"""Run a notebook's code cells as Jupyter would, without Jupyter, and check or store their outputs.

The tutorial notebooks of docs/ (docs/tutorial/4-notebook.ipynb) keep the
output of every code cell.  This runner executes the code cells in order in
one namespace, in a fresh temporary directory (so a cell's ``out/…`` starts
empty and the project is not written to), and renders each cell's output as
the IPython kernel does:

* what the cell prints: a ``stream`` output per run of stdout or stderr
  (consecutive writes to one stream are one output);
* the value of the cell's last statement when it is an expression (not
  ``None``, and the cell not ending in ``;``): an ``execute_result`` with
  ``text/plain`` = ``repr(value)``, plus ``text/html`` when the value has a
  ``_repr_html_`` (a DataFrame).  IPython's pretty printer gives the same
  text for DataFrames, Series, numbers, strings and short containers; a long
  list or dict would wrap differently, so a cell should not end with one.

Images are not produced: a cell saves its figure to a file and closes it.
Magics (``%matplotlib``, ``!ls``) are not Python and are refused.

From the project root::

    python tests/run_notebook.py docs/tutorial/4-notebook.ipynb          # check (exit 1 if stale)
    python tests/run_notebook.py --write docs/tutorial/4-notebook.ipynb  # store fresh outputs

``--write`` rewrites the file in Jupyter's own layout (indent 1, sorted
keys), so a notebook saved from Jupyter and one written here differ only in
what changed.  tests/test_docs_notebooks.py runs the check on every notebook
under docs/.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

#: The nbformat version written and accepted.
NBFORMAT = (4, 5)


class CellError(Exception):
    """A code cell raised: which cell, and the traceback within it."""


def load(path: str | Path) -> dict[str, Any]:
    """The notebook at ``path`` as JSON; an nbformat 4 notebook or a ValueError."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    if notebook.get("nbformat") != NBFORMAT[0]:
        raise ValueError(f"{path}: not an nbformat {NBFORMAT[0]} notebook")
    return notebook


def dump(notebook: dict[str, Any]) -> str:
    """The notebook's JSON as Jupyter writes it."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def text(value: str | list[str]) -> str:
    """A multiline field of a notebook (a string, or a list of lines) as one string."""
    return value if isinstance(value, str) else "".join(value)


def lines(value: str) -> list[str]:
    """A multiline string as the list of lines nbformat stores (each with its newline)."""
    return value.splitlines(keepends=True)


def code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


class _Streams:
    """stdout and stderr of a cell, kept as the kernel sends them: (name, text) runs."""

    def __init__(self) -> None:
        self.runs: list[list[str]] = []

    def writer(self, name: str) -> _StreamWriter:
        return _StreamWriter(self, name)

    def write(self, name: str, chunk: str) -> None:
        if not chunk:
            return
        if self.runs and self.runs[-1][0] == name:
            self.runs[-1][1] += chunk
        else:
            self.runs.append([name, chunk])


class _StreamWriter:
    def __init__(self, streams: _Streams, name: str) -> None:
        self.streams, self.name = streams, name

    def write(self, chunk: str) -> int:
        self.streams.write(self.name, chunk)
        return len(chunk)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def execute_cell(source: str, namespace: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """Run one code cell's ``source`` in ``namespace``; its outputs as nbformat dicts."""
    filename = f"<cell {count}>"
    if any(line.lstrip().startswith(("%", "!")) for line in source.splitlines()):
        raise CellError(f"{filename}: IPython magics are not run here; write Python")
    tree = ast.parse(source, filename)
    shown = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) \
            and not source.rstrip().endswith(";"):
        shown = ast.Expression(tree.body.pop().value)
    streams = _Streams()
    value = None
    try:
        with contextlib.redirect_stdout(streams.writer("stdout")), \
                contextlib.redirect_stderr(streams.writer("stderr")):
            exec(compile(tree, filename, "exec"), namespace)
            if shown is not None:
                value = eval(compile(shown, filename, "eval"), namespace)
    except Exception as err:
        raise CellError(f"{filename} raised:\n{traceback.format_exc()}") from err
    outputs: list[dict[str, Any]] = [
        {"name": name, "output_type": "stream", "text": lines(chunk)}
        for name, chunk in streams.runs]
    if value is not None:
        data = {"text/plain": lines(repr(value))}
        html = getattr(value, "_repr_html_", None)
        rendered = html() if callable(html) else None
        if rendered:
            data["text/html"] = lines(rendered)
        outputs.append({"data": data, "execution_count": count, "metadata": {},
                        "output_type": "execute_result"})
    return outputs


def run(notebook: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every code cell's outputs, the cells run in order in one namespace, in a fresh
    temporary working directory (the current one is restored afterwards)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    produced = []
    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="notebook-") as workdir:
        os.chdir(workdir)
        try:
            for count, cell in enumerate(code_cells(notebook), start=1):
                produced.append(execute_cell(text(cell["source"]), namespace, count))
        finally:
            os.chdir(before)
    return produced


def with_outputs(notebook: dict[str, Any], produced: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The notebook with each code cell's outputs and execution count replaced."""
    for count, (cell, outputs) in enumerate(zip(code_cells(notebook), produced), start=1):
        cell["execution_count"] = count
        cell["outputs"] = outputs
    return notebook


def rendered(outputs: list[dict[str, Any]]) -> list[str]:
    """A cell's outputs as comparable lines of text (stream name or MIME type, then content)."""
    shown = []
    for output in outputs:
        if output["output_type"] == "stream":
            shown += [f"[{output['name']}]\n", *lines(text(output["text"]))]
        else:
            shown.append(f"[{output['output_type']} {output.get('execution_count')}]\n")
            for mime, value in sorted(output.get("data", {}).items()):
                shown += [f"[{mime}]\n", *lines(text(value))]
    return [line if line.endswith("\n") else line + "\n" for line in shown]


def differences(notebook: dict[str, Any], produced: list[list[dict[str, Any]]]) -> list[str]:
    """One message per code cell whose stored outputs or execution count differ from
    ``produced``: a unified diff, stored (---) against produced now (+++)."""
    found = []
    for count, (cell, outputs) in enumerate(zip(code_cells(notebook), produced), start=1):
        stored = rendered(cell.get("outputs", []))
        now = rendered(outputs)
        if cell.get("execution_count") != count:
            found.append(f"cell {count}: execution_count is {cell.get('execution_count')}")
        if stored != now:
            first = text(cell["source"]).splitlines()[:1]
            diff = "".join(difflib.unified_diff(stored, now, "stored", "produced now"))
            found.append(f"cell {count} ({first[0] if first else ''}):\n{diff}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--write", action="store_true",
                        help="store the fresh outputs in the notebook instead of checking them")
    args = parser.parse_args(argv)
    stale = 0
    for path in args.notebooks:
        notebook = load(path)
        try:
            produced = run(notebook)
        except CellError as err:
            print(f"{path}: {err}", file=sys.stderr)
            return 1
        if args.write:
            path.write_text(dump(with_outputs(notebook, produced)), encoding="utf-8")
            print(f"{path}: {len(produced)} code cells run, outputs stored")
            continue
        found = differences(notebook, produced)
        for message in found:
            print(f"{path}: {message}")
        if found:
            print(f"{path}: stale outputs; if the new ones are right, store them with\n"
                  f"    python tests/run_notebook.py --write {path}")
        stale += bool(found)
        if not found:
            print(f"{path}: {len(produced)} code cells, outputs as stored")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
