"""The layers of docs/architecture.md, enforced: no module imports a layer above its own.

Every ``import`` statement of every module counts — at module level, inside
functions (deferred imports) and under ``if TYPE_CHECKING:`` — found by
walking the syntax tree with :mod:`ast`, so no import hides from the check.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: Layers from the bottom up (docs/architecture.md, "Layers"): a module may
#: import its own layer and those below it, never one above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("schedlab.errors", "schedlab.tomlio", "schedlab.atomic", "schedlab.outcomes",
              "schedlab.limits", "schedlab.textio", "schedlab.specs", "schedlab.compiled")),
    ("workload", ("schedlab.workload", "schedlab.platform")),
    ("engine", ("schedlab.engine",)),
    ("predictors", ("schedlab.predictors",)),
    ("policies", ("schedlab.policies",)),
    ("results", ("schedlab.metrics", "schedlab.output", "schedlab.output_kernels",
                 "schedlab.interop", "schedlab.conformance")),
    ("viz", ("schedlab.viz",)),
    ("run", ("schedlab.pipeline", "schedlab.run", "schedlab.execution")),
    ("api", ("schedlab.api", "schedlab.testing")),
    ("experiments", ("schedlab.experiments",)),
    ("gym", ("schedlab.gym",)),
    ("validation", ("schedlab.validation",)),
    ("cli", ("schedlab.cli", "schedlab.__main__")),
)
#: What ``from schedlab import NAME`` may take below the API: the version string,
#: set in ``schedlab/__init__.py`` before anything is imported.
ROOT_NAMES_EVERYONE_MAY_IMPORT = {"__version__"}


def layer_of(module: str) -> int | None:
    """The index of ``module``'s layer; None for the package root ``schedlab``."""
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """``(line, imported module, names taken from it)`` for every import in the file.

    ``from package import module`` counts as an import of ``package.module``.
    """
    found = []
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            names = tuple(alias.name for alias in node.names)
            modules = [f"{base}.{name}" for name in names if is_module(f"{base}.{name}")]
            found.extend((node.lineno, module, ()) for module in modules)
            if len(modules) < len(names):
                found.append((node.lineno, base, tuple(n for n in names
                                                        if f"{base}.{n}" not in modules)))
    return found


def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of the source tree (``from pkg import mod``)."""
    path = SRC.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def upward_imports(path: Path) -> list[str]:
    """Every import in ``path`` of a layer above the file's own, as ``file:line: a -> b``."""
    importer = module_name(path)
    own = layer_of(importer)
    if own is None:
        return []                              # schedlab/__init__.py: the public face
    wrong = []
    for line, target, names in imports(path):
        if not (target == "schedlab" or target.startswith("schedlab.")):
            continue
        if target == "schedlab" and set(names) <= ROOT_NAMES_EVERYONE_MAY_IMPORT:
            continue
        layer = layer_of(target)
        level = len(LAYERS) if layer is None else layer
        if level > own:
            wrong.append(f"{path.relative_to(SRC)}:{line}: {importer} ({LAYERS[own][0]}) imports "
                         f"{target} ({'the package root' if layer is None else LAYERS[layer][0]})")
    return wrong


def source_files() -> list[Path]:
    return sorted(p for p in (SRC / "schedlab").rglob("*.py"))


def test_every_module_belongs_to_a_layer():
    orphans = [module_name(p) for p in source_files()
               if module_name(p) != "schedlab" and layer_of(module_name(p)) is None]
    assert orphans == []


def test_no_module_imports_a_layer_above_its_own():
    wrong = [line for path in source_files() for line in upward_imports(path)]
    assert wrong == []


def test_the_commands_run_simulations_through_the_api_only():
    """The CLI is a thin layer over schedlab.api for every model: no command imports the
    run layer (RunSpec, the readers, the execution model table) past the API."""
    run_layer = LAYERS[[name for name, _ in LAYERS].index("run")][1]
    wrong = [f"{path.relative_to(SRC)}:{line}: {target}"
             for path in source_files() if module_name(path).startswith("schedlab.cli")
             for line, target, _ in imports(path)
             if any(target == p or target.startswith(p + ".") for p in run_layer)]
    assert wrong == []


def test_the_check_sees_deferred_and_type_checking_imports(tmp_path, monkeypatch):
    """A deferred import and an annotation-only import of a higher layer are both caught."""
    fake = tmp_path / "schedlab" / "workload"
    fake.mkdir(parents=True)
    (tmp_path / "schedlab" / "api.py").write_text("")
    module = fake / "fake.py"
    module.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from schedlab.engine.result import Result\n"
                      "def f():\n    from ..policies import base\n    import schedlab.run\n"
                      "    from schedlab import api\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert [line.split(": ", 1)[1] for line in upward_imports(module)] == [
        "schedlab.workload.fake (workload) imports schedlab.engine.result (engine)",
        "schedlab.workload.fake (workload) imports schedlab.policies (policies)",
        "schedlab.workload.fake (workload) imports schedlab.run (run)",
        "schedlab.workload.fake (workload) imports schedlab.api (api)",
    ]


@pytest.mark.parametrize("module, layer", [("schedlab.engine.simulator", "engine"),
                                           ("schedlab.workload", "workload"),
                                           ("schedlab.viz.html", "viz")])
def test_layer_of_names_the_layer(module, layer):
    assert LAYERS[layer_of(module)][0] == layer
