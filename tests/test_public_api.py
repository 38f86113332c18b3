"""The package's public names and what importing it costs.

``import schedlab`` and the command line load numpy, the engine and the
policies only when a name needs them (PEP 562, ``schedlab/__init__.py``),
and the command line keeps OpenBLAS on one thread (``schedlab/cli/__init__.py``).
"""

import os
import subprocess
import sys

import pytest

import schedlab


def _python(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter with this one's path; its stdout."""
    environment = {key: value for key, value in os.environ.items()
                   if key != "OPENBLAS_NUM_THREADS"}
    environment["PYTHONPATH"] = os.pathsep.join(sys.path)
    environment.update(env)
    return subprocess.run([sys.executable, "-c", code], env=environment, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_importing_the_package_loads_no_numpy() -> None:
    assert _python("import sys, schedlab; print('numpy' in sys.modules)") == "False"


def test_every_public_name_resolves_to_its_module_object() -> None:
    from schedlab.api import simulate
    from schedlab.workload.job import Job

    assert schedlab.simulate is simulate
    assert schedlab.Job is Job
    for name in schedlab.__all__:
        assert getattr(schedlab, name) is not None, name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'simulat'"):
        schedlab.simulat  # noqa: B018


def test_star_import_gives_the_public_names() -> None:
    names = _python("from schedlab import *; print(sorted(k for k in dir() "
                    "if not k.startswith('_')))")
    assert "simulate" in names and "RunSpec" in names and "Workload" in names


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("4", "4")])
def test_the_command_line_keeps_openblas_on_one_thread_unless_told(
        given: str | None, expected: str) -> None:
    env = {} if given is None else {"OPENBLAS_NUM_THREADS": given}
    code = "import os, schedlab.cli.app; print(os.environ['OPENBLAS_NUM_THREADS'])"
    assert _python(code, **env) == expected
