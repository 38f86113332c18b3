"""Compiled kernels: loaded from an ahead-of-time extension when it is current, else numba's JIT.

Every module of compiled loops declares its kernels as it would with numba,
importing ``njit`` from here instead::

    from schedlab.compiled import njit

    @njit(cache=True)
    def place(starts, free, count, now, width, length): ...

    @njit(cache=True, error_model="numpy")     # numba.njit's options
    def summed_heuristics(...): ...

``njit`` returns one of two things, chosen once per process at the first
declaration:

- **ahead of time**: the function of the same name in the extension module
  that ``schedlab precompile`` built (:func:`build`, with ``numba.pycc``),
  when that extension exists and its fingerprint (:func:`fingerprint`: the
  kernel sources and the schedlab modules they import, numba's and numpy's
  versions, the interpreter) matches this install.  numba is not imported:
  a process saves importing numba and loading its cache (0.5-0.9 s of CPU).
  The extension holds each kernel the precompile runs called from Python,
  with the one signature they called it with (the dispatchers' ``signatures``
  after them; also the kernels those call, when numba compiled them in that
  process instead of loading them from its cache, literal arguments left
  out); a kernel it lacks (one only kernels call, called from a test) is
  compiled by numba at its first call, with the kernels it calls compiled the
  same way (:class:`_LaterJit`);
- **just in time**: ``numba.njit(cache=True, **options)(function)``, as
  before the extension existed: with no C compiler, an edited kernel (a stale
  fingerprint), or ``SCHEDLAB_AOT=0``.  The first compilation in a process
  says so on stderr, once, and how long compiling took at exit.

The extension lives in :func:`extension_dir`: ``schedlab/_aot/`` inside the
package when it runs from a source tree (an editable install, or
``PYTHONPATH=src``; git ignores it), else
``$XDG_CACHE_HOME/schedlab/aot/<hash of the package's path>`` (default
``~/.cache``), or ``SCHEDLAB_AOT_DIR`` when set.

The extension's functions take arrays of any layout (:func:`exportable`) but
would trust their dtypes and the scalars' types (an int32 array passed where
int64 is expected is read past its end), so each is returned behind a guard
(:func:`_guarded`) that checks every call's arguments against its exported
signature and refuses a call with other types, as numba's JIT would.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import sys
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

try:        # CPython's own sha256: the same digests as hashlib's without loading OpenSSL (2 ms)
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:                                  # pragma: no cover - not CPython 3.11
    from hashlib import sha256

#: The extension module's name (its file: NAME + the interpreter's extension suffix).
EXTENSION = "schedlab_kernels"
#: The manifest next to it: fingerprint and exported signatures (JSON).
MANIFEST = "schedlab_kernels.json"
#: The extension's form and build rules: changing them (here) makes every extension stale.
FORMAT = 3
#: The dtypes of the arrays the extension's functions take (bytes as uint8).
ARRAY_DTYPES = ("int64", "float64", "bool", "uint8")
#: njit options the extension reproduces (``error_model``; ``nogil`` changes no result).
AOT_OPTIONS = frozenset({"error_model", "nogil"})
PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass
class Declared:
    """One declared kernel: its Python function, its njit options, what ``kernel`` returned."""

    function: FunctionType
    options: dict[str, Any]
    bound: Any = None


@dataclass
class _State:
    """The process's choice (made at the first declaration) and its declared kernels."""

    decided: bool = False
    extension: ModuleType | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    declared: dict[str, Declared] = field(default_factory=dict)
    compile_seconds: float = 0.0
    quiet: bool = False


_state = _State()


def njit(function: Callable[..., Any] | None = None, /, *, cache: bool = True,
         **options: Any) -> Any:
    """Declare ``function`` a compiled kernel, as ``numba.njit`` does (``@njit``,
    ``@njit(cache=True, **options)``): the extension's function when the extension is
    current, else numba's JIT dispatcher, cached on disk (``cache`` is always on)."""
    if function is None:
        return lambda later: njit(later, **options)
    assert isinstance(function, FunctionType)
    key = kernel_key(function)
    declared = Declared(function, dict(options))
    _state.declared[key] = declared
    extension = _extension()
    if extension is None:
        declared.bound = _jit(function, options)
    elif hasattr(extension, symbol(key)):
        declared.bound = _guarded(getattr(extension, symbol(key)), key)
    else:
        declared.bound = _LaterJit(key)
    return declared.bound


def kernel_key(function: FunctionType) -> str:
    """A kernel's name in the extension: its module and qualified name."""
    return f"{function.__module__}.{function.__qualname__}"


def symbol(key: str) -> str:
    """The extension's attribute for kernel ``key`` (a C identifier)."""
    return key.replace(".", "__")


def using_extension() -> bool:
    """Whether this process's kernels come from the ahead-of-time extension."""
    return _extension() is not None


def extension_is_current() -> bool:
    """Whether the extension matches this install and was built from every module of the
    package that declares kernels: a module added since the build (its kernels absent
    from the extension, which runs compile with numba) makes ``schedlab precompile``
    build again.  Decides nothing for this process (:func:`use_jit`).

    Runs do not make this check (it reads every source file): they load an extension
    whose own files are unchanged and compile a kernel it lacks with numba."""
    extension, manifest = _load(extension_dir())
    built_from = manifest.get("fingerprint", {}).get("files", {})
    return extension is not None and all(name in built_from for name in kernel_modules())


def use_jit() -> None:
    """Make this process compile every kernel with numba's JIT, as :func:`build` needs:
    called before any kernel is declared (``schedlab precompile`` does, first)."""
    if _state.declared and _state.extension is not None:
        raise RuntimeError("kernels were already taken from the extension in this process")
    _state.decided, _state.extension, _state.manifest = True, None, {}


def kernel_modules() -> list[str]:
    """The package's files that declare kernels (a line ``from schedlab.compiled import
    njit``), relative to the package."""
    marker = f"\nfrom {__name__} import njit\n"
    return sorted(str(path.relative_to(PACKAGE_DIR)) for path in PACKAGE_DIR.rglob("*.py")
                  if marker in path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ where and whether
def extension_dir() -> Path:
    """Where the extension is built and looked for (module docstring)."""
    chosen = os.environ.get("SCHEDLAB_AOT_DIR")
    if chosen:
        return Path(chosen)
    installed = {Path(sysconfig.get_paths()[name]).resolve() for name in ("purelib", "platlib")}
    if not any(PACKAGE_DIR.is_relative_to(place) for place in installed):
        return PACKAGE_DIR / "_aot"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = sha256(str(PACKAGE_DIR).encode()).hexdigest()[:16]
    return Path(cache) / "schedlab" / "aot" / tag


def extension_file(directory: Path) -> Path:
    """The extension module's file in ``directory``."""
    return directory / (EXTENSION + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))


def fingerprint(files: list[str]) -> dict[str, Any]:
    """What the extension was compiled from: ``files`` (paths relative to the package) with
    their sha256, :data:`FORMAT`, numba's and numpy's versions, the interpreter's tag and
    platform, and the processor (:func:`_processor`): the extension is compiled for the
    processor that builds it, so another one (a node of another kind sharing the cache)
    gets numba's JIT instead of instructions it may not have."""
    import numpy

    return {
        "format": FORMAT,
        "files": {name: _sha256(PACKAGE_DIR / name) for name in sorted(files)},
        "numba": _numba_version(),
        "numpy": numpy.__version__,
        "python": sys.implementation.cache_tag,
        "platform": sysconfig.get_platform(),
        "processor": _processor(),
    }


def _processor() -> str:
    """The processor this process runs on, as a sha256 of its model and instruction-set
    flags (``/proc/cpuinfo``'s first processor on Linux, else ``platform.processor()``);
    reading them costs well under a millisecond, importing llvmlite to ask it would not."""
    import platform

    try:
        first = Path("/proc/cpuinfo").read_text(errors="replace").split("\n\n", 1)[0]
        described = "\n".join(line for line in first.splitlines()
                               if line.split(":", 1)[0].strip() in ("model name", "flags"))
    except OSError:
        described = ""
    described = described or f"{platform.machine()} {platform.processor()}"
    return sha256(described.encode()).hexdigest()[:16]


def _sha256(path: Path) -> str | None:
    try:
        return sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _numba_version() -> str | None:
    """numba's version, read from its installed metadata's folder name (importing numba,
    or ``importlib.metadata``, would cost what the extension saves)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    for name in sorted(os.listdir(site)):
        if name.startswith("numba-") and name.endswith((".dist-info", ".egg-info")):
            return name.removeprefix("numba-").rsplit(".", 1)[0]
    return None


def _extension() -> ModuleType | None:
    """The current extension module, or None (decided once per process)."""
    if not _state.decided:
        _state.decided = True
        if os.environ.get("SCHEDLAB_AOT", "1") != "0":
            _state.extension, _state.manifest = _load(extension_dir())
    return _state.extension


def _load(directory: Path) -> tuple[ModuleType | None, dict[str, Any]]:
    """The extension in ``directory`` and its manifest if its fingerprint matches this
    install, else (None, {})."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return None, {}
    if manifest.get("fingerprint") != fingerprint(list(manifest.get("fingerprint", {})
                                                         .get("files", {}))):
        return None, {}
    spec = importlib.util.spec_from_file_location(EXTENSION, extension_file(directory))
    if spec is None or spec.loader is None:
        return None, {}
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError:
        return None, {}
    return module, manifest


# ------------------------------------------------------------------ just in time
def _jit(function: FunctionType, options: dict[str, Any]) -> Any:
    """numba's cached JIT dispatcher of ``function``; the first compilation in the process
    installs the notice of :class:`_CompileNotice`."""
    import numba

    _CompileNotice.install()
    return numba.njit(cache=True, **options)(function)


class _LaterJit:
    """A kernel the current extension lacks: compiled by numba at its first call, from a copy
    of its function whose globals name JIT twins of the kernels it calls (the extension's
    functions cannot be called from numba-compiled code)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.dispatcher: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.dispatcher is None:
            self.dispatcher = _jit_twin(self.key, {})
        return self.dispatcher(*args)


def _jit_twin(key: str, made: dict[str, Any]) -> Any:
    """A JIT dispatcher of kernel ``key`` whose globals' kernels are JIT twins too."""
    if key in made:
        return made[key]
    declared = _state.declared[key]
    source = declared.function
    names = dict(source.__globals__)
    twin = FunctionType(source.__code__, names, source.__name__, source.__defaults__,
                        source.__closure__)
    twin.__qualname__ = source.__qualname__
    made[key] = _jit(twin, declared.options)
    bound = {id(other.bound): other_key for other_key, other in _state.declared.items()}
    for name, value in source.__globals__.items():
        if id(value) in bound and bound[id(value)] != key:
            names[name] = _jit_twin(bound[id(value)], made)
        elif id(value) in bound:
            names[name] = made[key]
    return made[key]


class _CompileNotice:
    """Says on stderr, once per process, that numba is compiling the kernels (the first
    run after an install without ``schedlab precompile``), and at exit how long it took."""

    installed = False
    said = False
    depth = 0
    began = 0.0

    @classmethod
    def install(cls) -> None:
        if cls.installed:
            return
        cls.installed = True
        from numba.core import event

        class Listener(event.Listener):
            def on_start(self, _event: Any) -> None:
                if cls.depth == 0:
                    cls.began = time.perf_counter()
                    if not _state.quiet and not cls.said:
                        cls.said = True
                        print("schedlab: compiling the hot loops (once; `schedlab precompile` "
                              "does it at install) ...", file=sys.stderr, flush=True)
                cls.depth += 1

            def on_end(self, _event: Any) -> None:
                cls.depth -= 1
                if cls.depth == 0:
                    _state.compile_seconds += time.perf_counter() - cls.began

        event.register("numba:compile", Listener())
        atexit.register(cls.report)

    @staticmethod
    def report() -> None:
        if _state.compile_seconds and not _state.quiet:
            print(f"schedlab: compiling the hot loops took {_state.compile_seconds:.1f} s",
                  file=sys.stderr, flush=True)


def quiet_compiles() -> None:
    """No compile notice in this process (``schedlab precompile`` reports its own)."""
    _state.quiet = True


# ------------------------------------------------------------------ guarded calls
def _guarded(compiled: Callable[..., Any], key: str) -> Callable[..., Any]:
    """``compiled`` behind a guard that each call's arguments have its exported types.

    The extension's wrapper reads its arguments as the types it was exported with,
    unchecked: an int32 array where int64 is expected is read past its end (the
    process crashes), a list is read as an array.  numba's JIT would refuse such a
    call; the guard refuses it too, with a ``TypeError`` naming the kernel.  It is
    written for each kernel's signature (one test per argument, no loop), so that
    it costs about 0.05 µs an argument (a KTH-SP2 conservative run: bench/PYSS.md).
    """
    import numpy as np

    expected = _state.manifest["kernels"][key]
    names = [f"a{i}" for i in range(len(expected))]
    scope: dict[str, Any] = {"compiled": compiled, "ndarray": np.ndarray,
                             "int64": np.int64, "bool_": np.bool_,
                             "FLOATS": (float, int, np.float64, np.int64)}
    tests = []
    for i, kind in enumerate(expected):
        arg = names[i]
        if kind[0] == "array":                  # any layout (:func:`exportable`)
            scope[f"d{i}"] = np.dtype(kind[1])
            tests.append(f"isinstance({arg}, ndarray) and ({arg}.dtype is d{i} or "
                         f"{arg}.dtype == d{i}) and {arg}.ndim == {kind[2]}")
        elif kind[0] == "bool":
            tests.append(f"(type({arg}) is bool or type({arg}) is bool_)")
        elif kind[0] == "int64":
            tests.append(f"(type({arg}) is int or type({arg}) is int64)")
        else:
            # an int where float64 is expected converts exactly below 2**53, and numba's
            # int64 specialization would promote it in the same float arithmetic
            tests.append(f"type({arg}) in FLOATS")

    def refuse(*args: Any) -> TypeError:
        return TypeError(f"kernel {key} compiled for {expected}, called with "
                         f"{[_describe_value(arg) for arg in args]}")

    scope["refuse"] = refuse
    arguments = ", ".join(names)
    source = (f"def call({arguments}):\n"
              f"    if {' and '.join(tests) or 'True'}:\n"
              f"        return compiled({arguments})\n"
              f"    raise refuse({arguments})\n")
    exec(compile(source, f"<schedlab guard of {key}>", "exec"), scope)
    call: Callable[..., Any] = scope["call"]
    return call


def _describe_value(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__}({dtype}, {shape})" if dtype is not None \
        else type(value).__name__


# ------------------------------------------------------------------ building
def _describe(numba_type: Any) -> list[Any] | None:
    """An argument type the extension exports, as the manifest records it (an array in
    any layout, "A"), or None for one it does not (then its kernel stays JIT)."""
    from numba.core import types

    if isinstance(numba_type, types.Array) and str(numba_type.dtype) in ARRAY_DTYPES:
        return ["array", str(numba_type.dtype), numba_type.ndim, "A"]
    if isinstance(numba_type, types.Literal):
        return None
    if str(numba_type) in ("int64", "float64", "bool"):
        return [str(numba_type)]
    return None


def exportable() -> dict[str, tuple[Declared, Any, list[list[Any]]]]:
    """The declared kernels the extension can hold: JIT-compiled in this process with
    exactly one signature of exportable types besides literal ones, and njit options it
    reproduces; by key, with the signature to export and its manifest description.

    Arrays are exported in any layout ("A"), whatever layout the runs passed: numba's
    compiled wrapper does not check it, and a C-contiguous kernel given a view (a
    broadcast column has stride 0, a transposed matrix is not C-contiguous) would read
    the wrong entries.  Strided indexing costs a KTH-SP2 conservative run about 3% of
    its CPU (0.500 s against 0.483 s for the whole process; bench/PYSS.md)."""
    from numba.core import types

    chosen = {}
    for key, declared in _state.declared.items():
        signatures = [signature for signature in getattr(declared.bound, "signatures", ())
                      if all(_describe(arg) is not None for arg in signature)]
        if len(signatures) != 1 or set(declared.options) - AOT_OPTIONS:
            continue
        arguments = tuple(arg.copy(layout="A") if isinstance(arg, types.Array) else arg
                          for arg in signatures[0])
        chosen[key] = (declared, arguments,
                       [described for arg in signatures[0] if (described := _describe(arg))])
    return chosen


def _fingerprinted_files(kernels: dict[str, tuple[Declared, Any, list[list[Any]]]]) -> list[str]:
    """The files the extension depends on: each kernel's module and the schedlab modules
    it imports names from (constants like NEVER are compiled into the kernels), this one
    aside (:data:`FORMAT` stands for it)."""
    import ast

    modules = {declared.function.__module__ for declared, _, _ in kernels.values()}
    files = set()
    for name in modules:
        path = Path(sys.modules[name].__file__ or "")
        files.add(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != __name__ \
                    and (node.module or "").startswith("schedlab"):
                spec = importlib.util.find_spec(node.module or "")
                if spec is not None and spec.origin:
                    files.add(Path(spec.origin))
    return [str(path.resolve().relative_to(PACKAGE_DIR)) for path in files
            if path.resolve().is_relative_to(PACKAGE_DIR)]


def build(directory: Path | None = None) -> Path:
    """Compile every exportable kernel (:func:`exportable`) into the extension module in
    ``directory`` (default :func:`extension_dir`) with ``numba.pycc``, and write its
    manifest; returns the extension's path.  Call it after runs that JIT-compiled the
    kernels (``schedlab.api.precompile``).  Raises what the build raises (no C compiler,
    no setuptools: then runs keep compiling with numba)."""
    import tempfile

    import numba.pycc.compiler as pycc_compiler
    from numba.pycc import CC

    directory = extension_dir() if directory is None else directory
    kernels = exportable()
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        cc = CC(EXTENSION)
        cc.output_dir = scratch
        cc.target_cpu = "host"          # as numba's JIT: this processor's instructions
        for key, (declared, signature, _) in kernels.items():
            cc.export(symbol(key), signature)(declared.function)
        options = {declared.function: declared.options for declared, _, _ in kernels.values()}
        original = pycc_compiler.compile_extra

        def with_options(typing: Any, target: Any, function: Any, args: Any, restype: Any,
                         flags: Any, **keywords: Any) -> Any:
            """pycc's compile with the kernel's own error model (pycc has one for all)."""
            if "error_model" in options.get(function, {}):
                flags = flags.copy()
                flags.error_model = options[function]["error_model"]
            return original(typing, target, function, args, restype, flags, **keywords)

        pycc_compiler.compile_extra = with_options  # type: ignore[assignment]
        try:
            cc.compile()
        finally:
            pycc_compiler.compile_extra = original
        manifest = {"fingerprint": fingerprint(_fingerprinted_files(kernels)),
                    "kernels": {key: arguments for key, (_, _, arguments) in kernels.items()}}
        built = extension_file(Path(scratch))
        (Path(scratch) / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
        os.replace(built, extension_file(directory))
        os.replace(Path(scratch) / MANIFEST, directory / MANIFEST)
    return extension_file(directory)
