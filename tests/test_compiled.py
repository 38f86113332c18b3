"""The compiled kernels' two paths (schedlab.compiled): the ahead-of-time extension that
``schedlab precompile`` builds, and numba's JIT when it is missing or stale.

The tests that need the extension use the one ``make test`` builds before the suite
(``schedlab precompile``); without it (no C compiler) they skip and say so.  Building
one from scratch takes about a minute: that test is slow.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab import compiled

SRC = str(Path(compiled.__file__).resolve().parents[1])

#: Prints a checksum of the schedule of each run that calls compiled kernels, and
#: whether numba was imported.
CHECKSUMS = """
import hashlib, sys
from schedlab.api import execute, RunSpec
from schedlab.output import jobs_csv_text
from schedlab.pipeline import Transforms
runs = {
    "conservative": RunSpec("lublin", "fcfs+conservative", jobs=1500, seed=3),
    "conservative-extend": RunSpec("lublin", "fcfs+conservative", jobs=1500, seed=3,
                                   overrun="extend"),
    "plan": RunSpec("lublin", "fcfs+plan", jobs=1500, seed=3, overrun="extend"),
    "dynp": RunSpec("lublin", "dynp", jobs=1500, seed=3),
    "slurm": RunSpec("lublin", "slurm", jobs=1500, seed=3),
    "knn": RunSpec("lublin", {"name": "fcfs+easy", "predictor": "knn"}, jobs=1500, seed=3),
    "fcfs": RunSpec("lublin", "fcfs", jobs=1500, seed=3),
    "failures": RunSpec("lublin", "fcfs", jobs=1500, seed=3,
                        failures="mtbf=1d,fate=requeue,allocation=any"),
}
for name in ("qops", "msb", "mrt"):
    runs[name] = RunSpec("lublin", name, jobs=800, seed=3,
                         transforms=Transforms(stringency=0.3))
for name in sys.argv[1].split(","):
    text = jobs_csv_text(execute(runs[name]))
    print(name, hashlib.md5(text.encode()).hexdigest())
print("numba", "numba" in sys.modules)
"""


def run_python(code: str, *args: str, **env: str) -> tuple[dict[str, str], str]:
    """Run ``code`` in a fresh interpreter on this source tree with ``env`` added; its
    printed ``name value`` lines as a dict, and its stderr."""
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, check=True,
                          env={**os.environ, "PYTHONPATH": SRC, **env})
    lines = [line.split(" ", 1) for line in done.stdout.splitlines() if " " in line]
    return {name: value for name, value in lines}, done.stderr


@pytest.fixture(scope="module")
def current_extension() -> Path:
    """The extension directory, if ``schedlab precompile`` built a current extension."""
    found, _ = run_python("from schedlab import compiled\n"
                          "print('current', compiled.using_extension())")
    if found["current"] != "True":
        pytest.skip("no current compiled extension (run `schedlab precompile`)")
    return compiled.extension_dir()


CASES = "conservative,conservative-extend,plan,dynp,slurm,knn,fcfs,failures,qops,msb,mrt"


def test_the_extension_and_numba_jit_make_the_same_schedules(current_extension):
    ahead, _ = run_python(CHECKSUMS, CASES)
    jit, _ = run_python(CHECKSUMS, CASES, SCHEDLAB_AOT="0")
    assert ahead.pop("numba") == "False"
    assert jit.pop("numba") == "True"
    assert ahead == jit
    assert len(ahead) == len(CASES.split(","))


def test_a_conservative_run_on_a_current_extension_never_imports_numba(current_extension):
    code = ("from schedlab.cli.app import main\nimport atexit, sys\nsys.argv = ['schedlab', "
            "'simulate', 'lublin', '-n', '500', '--policy', 'fcfs+conservative']\n"
            "atexit.register(lambda: print('numba', 'numba' in sys.modules))\n"
            "main()\n")
    ahead, stderr = run_python(code)
    assert ahead["numba"] == "False"
    assert "compiling" not in stderr


def test_the_extension_reads_views_of_any_strides_as_numba_does(current_extension):
    """The extension takes arrays of any layout (a broadcast column has stride 0, a
    transposed matrix is not C-contiguous), whatever layout the precompile runs passed."""
    code = ("import numpy as np\n"
            "from schedlab.policies.grid.convergent.kernels import positive_means\n"
            "matrix = np.array([[1.0, 0.0, 3.0], [0.0, 0.0, 5.0]])\n"
            "views = (matrix, matrix.T, np.broadcast_to(matrix[0], (4, 3)), matrix[:, ::2])\n"
            "for k, view in enumerate(views):\n"
            "    print(k, repr(positive_means(view).tolist()))\n")
    ahead, _ = run_python(code)
    jit, _ = run_python(code, SCHEDLAB_AOT="0")
    assert ahead == jit
    assert len(ahead) == 4 and ahead["1"] == "[1.0, 0.0, 4.0]"


def test_a_stale_fingerprint_falls_back_to_numba(current_extension, tmp_path):
    copy = tmp_path / "aot"
    shutil.copytree(current_extension, copy)
    fresh, _ = run_python(CHECKSUMS, "conservative,dynp", SCHEDLAB_AOT_DIR=str(copy))
    assert fresh.pop("numba") == "False"
    manifest = json.loads((copy / compiled.MANIFEST).read_text())
    files = manifest["fingerprint"]["files"]
    files["policies/compression.py"] = "0" * 64          # as if the kernel were edited
    (copy / compiled.MANIFEST).write_text(json.dumps(manifest))
    stale, _ = run_python(CHECKSUMS, "conservative,dynp", SCHEDLAB_AOT_DIR=str(copy))
    assert stale.pop("numba") == "True"
    assert stale == fresh


def test_an_extension_built_before_a_kernel_module_existed_is_not_current(current_extension,
                                                                         tmp_path):
    """A module declaring kernels added since the build: runs still load the extension
    (and compile the new module's kernels with numba), but ``schedlab precompile`` does
    not call it current, so ``make`` builds it again."""
    added = "policies/grid/easy_kernels.py"
    assert added in compiled.kernel_modules()
    code = ("from schedlab import compiled\n"
            "print('loaded', compiled.using_extension())\n"
            "print('current', compiled.extension_is_current())")
    copy = tmp_path / "aot"
    shutil.copytree(current_extension, copy)
    assert run_python(code, SCHEDLAB_AOT_DIR=str(copy))[0] == {"loaded": "True",
                                                                "current": "True"}
    manifest = json.loads((copy / compiled.MANIFEST).read_text())
    del manifest["fingerprint"]["files"][added]
    (copy / compiled.MANIFEST).write_text(json.dumps(manifest))
    assert run_python(code, SCHEDLAB_AOT_DIR=str(copy))[0] == {"loaded": "True",
                                                                "current": "False"}


def test_an_extension_built_on_another_processor_is_not_loaded(current_extension, tmp_path):
    """The extension is compiled for the processor that built it (``target_cpu`` host):
    a process on a processor of another kind sharing the directory uses numba's JIT."""
    copy = tmp_path / "aot"
    shutil.copytree(current_extension, copy)
    assert compiled._load(copy)[0] is not None
    manifest = json.loads((copy / compiled.MANIFEST).read_text())
    assert manifest["fingerprint"]["processor"] == compiled._processor()
    manifest["fingerprint"]["processor"] = "another processor"
    (copy / compiled.MANIFEST).write_text(json.dumps(manifest))
    assert compiled._load(copy) == (None, {})


def test_the_first_jit_compilation_says_so_once_and_how_long(tmp_path):
    code = ("from schedlab.policies.compression import add_proof, new_proofs\n"
            "add_proof(new_proofs(), 0, 1, 1, 0, 500)\n")
    env = {"SCHEDLAB_AOT": "0", "NUMBA_CACHE_DIR": str(tmp_path)}
    _, first = run_python(code, **env)
    assert first.count("schedlab: compiling the hot loops (once;") == 1
    assert first.count("schedlab: compiling the hot loops took ") == 1
    _, later = run_python(code, **env)                     # loaded from numba's cache
    assert "compiling" not in later


def test_a_guarded_kernel_refuses_arguments_of_other_types(monkeypatch):
    """The extension's wrapper would read an int32 array as int64 (past its end) or a
    list as an array: every call is guarded, in every process, as numba's JIT would."""
    monkeypatch.setattr(compiled._state, "manifest", {"kernels": {"k": [
        ["array", "int64", 1, "A"], ["int64"], ["float64"], ["bool"]],
        "bytes": [["array", "uint8", 1, "A"]]}})
    guarded = compiled._guarded(lambda *args: "called", "k")
    ints = np.arange(6, dtype=np.int64)
    assert compiled._guarded(lambda *args: "called", "bytes")(np.frombuffer(b"ab", np.uint8)) \
        == "called"
    with pytest.raises(TypeError, match="kernel bytes compiled for"):
        compiled._guarded(lambda *args: "called", "bytes")(np.frombuffer(b"ab", np.int8))
    assert guarded(ints, 1, 2.0, True) == "called"
    assert guarded(ints, np.int64(1), np.float64(2.0), np.bool_(False)) == "called"
    assert guarded(ints[::2], 1, 2.0, True) == "called"          # any layout
    assert guarded(ints, 1, 2, True) == "called"                 # an int read as float64
    for wrong in [(ints.astype(np.float64), 1, 2.0, True), (ints.reshape(2, 3), 1, 2.0, True),
                  (ints.astype(np.int32), 1, 2.0, True), (ints.astype(">i8"), 1, 2.0, True),
                  (ints.tolist(), 1, 2.0, True),
                  (ints, 1.0, 2.0, True), (ints, True, 2.0, True), (ints, 1, "2", True),
                  (ints, 1, False, True), (ints, 1, 2.0, 1)]:
        with pytest.raises(TypeError, match="kernel k compiled for"):
            guarded(*wrong)
    with pytest.raises(TypeError, match="argument"):
        guarded(ints, 1, 2.0)


def _plus_one(x):
    return x + 1


_PLUS_ONE = _plus_one


def _twice_plus_one(x):
    return _plus_one(x) * 2


def test_a_kernel_the_extension_lacks_is_compiled_with_the_kernels_it_calls(monkeypatch):
    """A kernel missing from the extension calls numba-compiled twins of the kernels it
    calls, never the extension's functions (which numba cannot call)."""
    def stand_in(x):                           # the extension's function: not compilable
        return x + 1

    monkeypatch.setitem(globals(), "_plus_one", stand_in)
    monkeypatch.setattr(compiled._state, "declared", {
        "t.plus_one": compiled.Declared(_PLUS_ONE, {}, stand_in),
        "t.twice_plus_one": compiled.Declared(_twice_plus_one, {}, None)})
    compiled.quiet_compiles()
    later = compiled._LaterJit("t.twice_plus_one")
    assert later(3) == 8
    assert type(later.dispatcher).__name__ == "CPUDispatcher"


@pytest.mark.slow
def test_an_extension_built_for_some_policies_serves_them_and_the_rest_jit(tmp_path):
    build = ("from schedlab.api import execute, RunSpec\nfrom schedlab import compiled\n"
             "execute(RunSpec('lublin', 'fcfs+conservative', jobs=300, seed=1))\n"
             "compiled.build()\nprint('built', sorted(compiled.exportable())[0])")
    env = {"SCHEDLAB_AOT_DIR": str(tmp_path), "SCHEDLAB_AOT": "0"}
    built, _ = run_python(build, **env)
    assert built["built"]
    served, _ = run_python(CHECKSUMS, "conservative", SCHEDLAB_AOT_DIR=str(tmp_path))
    assert served["numba"] == "False"
    ahead, _ = run_python(CHECKSUMS, "conservative,dynp", SCHEDLAB_AOT_DIR=str(tmp_path))
    jit, _ = run_python(CHECKSUMS, "conservative,dynp", SCHEDLAB_AOT="0")
    assert ahead["conservative"] == served["conservative"]
    assert ahead.pop("numba") == "True"                 # dynP's step is not in it
    assert jit.pop("numba") == "True"
    assert ahead == jit


def test_the_extension_lives_in_the_source_tree_or_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("SCHEDLAB_AOT_DIR", raising=False)
    source_tree = tmp_path / "src" / "schedlab"
    monkeypatch.setattr(compiled, "PACKAGE_DIR", source_tree)
    assert compiled.extension_dir() == source_tree / "_aot"
    installed = Path(compiled.sysconfig.get_paths()["purelib"]).resolve() / "schedlab"
    monkeypatch.setattr(compiled, "PACKAGE_DIR", installed)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    chosen = compiled.extension_dir()
    assert chosen.parent == tmp_path / "schedlab" / "aot"
    assert chosen == compiled.extension_dir()                          # deterministic
    monkeypatch.setenv("SCHEDLAB_AOT_DIR", str(tmp_path / "mine"))
    assert compiled.extension_dir() == tmp_path / "mine"


def test_precompile_on_a_current_extension_only_says_so(current_extension):
    from typer.testing import CliRunner

    from schedlab.cli.app import app

    done = CliRunner().invoke(app, ["precompile"])
    assert done.exit_code == 0, done.output
    assert "compiled and current" in done.output and "compiling" not in done.output
