"""The trace catalog: published traces schedlab knows by name, and their local cache.

The catalog (``data/traces.toml``) lists the cleaned logs of the Parallel
Workloads Archive (Feitelson, Tsafrir and Krakov, "Experience with using the
Parallel Workloads Archive", JPDC 2014) with their download address, machine
size, number of job records and SHA-256.  :func:`fetch` downloads a trace into
the cache directory (``$SCHEDLAB_CACHE``, else ``~/.cache/schedlab/traces``):
the bytes go to a temporary file beside the final one, are hashed on the way,
and are renamed into place only when complete and, where the catalog knows the
checksum, verified — so the cache never holds a partial or corrupt trace.
A catalog entry without a checksum is kept as downloaded and its computed
checksum is reported.  ``docs/how-to/traces.md`` is the user's page.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import tempfile
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from schedlab.errors import InputError

CATALOG_PATH = Path(__file__).parent / "data" / "traces.toml"
CACHE_ENV = "SCHEDLAB_CACHE"
DEFAULT_TIMEOUT = 60.0

#: Keys of a catalog entry and their types, in the order the data file uses.
TRACE_FIELDS: dict[str, type] = {"name": str, "file": str, "url": str, "machine": str,
                                 "processors": int, "jobs": int, "sha256": str, "note": str}

CacheState = Literal["absent", "verified", "unverified", "corrupt"]
ByteProgress = Callable[[int, int], None]

_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Trace:
    """One catalog entry (the fields are described in ``data/traces.toml``).

    ``sha256`` is empty when the published file's checksum is not known.
    """

    name: str
    file: str
    url: str
    machine: str
    processors: int
    jobs: int
    sha256: str
    note: str


@dataclass(frozen=True)
class Fetched:
    """What :func:`fetch` did: the cached file, its checksum, whether it was downloaded."""

    trace: Trace
    path: Path
    sha256: str
    downloaded: bool

    @property
    def verified(self) -> bool:
        """True when the file's checksum matched the catalog's (False: the catalog has none)."""
        return bool(self.trace.sha256)


# --------------------------------------------------------------------------- the catalog


def load_catalog(path: str | Path | None = None) -> dict[str, Trace]:
    """The traces of a catalog file (default: the one shipped with schedlab), by name.

    A malformed catalog raises :class:`InputError` naming the file and the
    entry's key path (``trace[3].sha256``).
    """
    source = Path(path) if path is not None else CATALOG_PATH
    try:
        document = tomllib.loads(source.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read the catalog: {err.strerror or err}",
                         file=str(source)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"not a valid TOML file ({err})", file=str(source)) from None
    entries = document.get("trace", [])
    if set(document) - {"trace"} or not isinstance(entries, list):
        raise InputError("expected only [[trace]] tables", file=str(source))
    catalog: dict[str, Trace] = {}
    for index, table in enumerate(entries):
        trace = _trace_from_table(table, index, str(source))
        if trace.name.lower() in (name.lower() for name in catalog):
            raise InputError(f"the name {trace.name!r} appears twice", file=str(source),
                             field=f"trace[{index}].name")
        catalog[trace.name] = trace
    return catalog


def _trace_from_table(table: dict, index: int, source: str) -> Trace:
    """Check one ``[[trace]]`` table (keys, types, checksum form) and build its Trace."""
    unknown = sorted(set(table) - set(TRACE_FIELDS))
    if unknown:
        raise InputError(f"unknown key (expected {', '.join(TRACE_FIELDS)})", file=source,
                         field=f"trace[{index}].{unknown[0]}")
    for key, kind in TRACE_FIELDS.items():
        if key not in table:
            raise InputError("missing key", file=source, field=f"trace[{index}].{key}")
        value = table[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(f"expected a{'n integer' if kind is int else ' string'}, "
                             f"got {value!r}", file=source, field=f"trace[{index}].{key}")
    if not table["name"].strip():
        raise InputError("expected a non-empty name", file=source, field=f"trace[{index}].name")
    if table["file"] in ("", ".", "..") or "/" in table["file"] or "\\" in table["file"]:
        raise InputError(f"expected a plain file name, got {table['file']!r}", file=source,
                         field=f"trace[{index}].file")
    if table["sha256"] and not _SHA256.fullmatch(table["sha256"]):
        raise InputError(f"expected 64 lower-case hex digits or \"\", got {table['sha256']!r}",
                         file=source, field=f"trace[{index}].sha256")
    return Trace(**table)


def find_trace(name: str, catalog: dict[str, Trace] | None = None) -> Trace:
    """The catalog entry called ``name`` (case does not matter)."""
    catalog = load_catalog() if catalog is None else catalog
    trace = _lookup(name, catalog)
    if trace is None:
        raise InputError(f"no trace called {name!r} in the catalog "
                         f"(traces: {', '.join(catalog)})")
    return trace


def _lookup(name: str, catalog: dict[str, Trace]) -> Trace | None:
    """Case-insensitive lookup; None when the name is not in the catalog."""
    wanted = name.lower()
    return next((trace for key, trace in catalog.items() if key.lower() == wanted), None)


# --------------------------------------------------------------------------- the cache


def default_cache_dir() -> Path:
    """``$SCHEDLAB_CACHE`` if set, else ``~/.cache/schedlab/traces``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "schedlab" / "traces"


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cache_state(trace: Trace, cache_dir: str | Path | None = None) -> tuple[CacheState, str]:
    """Whether the trace is cached and sound, with the cached file's checksum ('' if absent).

    ``verified``: the checksum matches the catalog; ``unverified``: present,
    the catalog has no checksum; ``corrupt``: the checksum differs.
    """
    path = _cache_dir(cache_dir) / trace.file
    if not path.is_file():
        return "absent", ""
    actual = file_sha256(path)
    if not trace.sha256:
        return "unverified", actual
    return ("verified" if actual == trace.sha256 else "corrupt"), actual


def _cache_dir(cache_dir: str | Path | None) -> Path:
    return default_cache_dir() if cache_dir is None else Path(cache_dir)


def cached_trace(name: str, cache_dir: str | Path | None = None,
                 catalog: dict[str, Trace] | None = None) -> Path | None:
    """The cached file of catalog trace ``name``; None when ``name`` is not in the catalog.

    A catalog trace that is not cached, or whose cached file fails its
    checksum, raises :class:`InputError` telling the user what to run.
    """
    trace = _lookup(name, load_catalog() if catalog is None else catalog)
    if trace is None:
        return None
    state, _ = cache_state(trace, cache_dir)
    path = _cache_dir(cache_dir) / trace.file
    if state == "absent":
        raise InputError(f"trace {trace.name} is not in the cache ({path}); "
                         f"run `schedlab traces fetch {trace.name}` first")
    if state == "corrupt":
        raise InputError(f"the cached file of {trace.name} fails its checksum; "
                         f"run `schedlab traces fetch {trace.name} --force`", file=str(path))
    return path


# --------------------------------------------------------------------------- fetching


def fetch(trace: Trace, cache_dir: str | Path | None = None, *, force: bool = False,
          timeout: float = DEFAULT_TIMEOUT, progress: ByteProgress | None = None) -> Fetched:
    """Make sure ``trace`` is in the cache and sound; download it when it is not.

    A cached file that passes its checksum (or exists, when the catalog has no
    checksum) is used without touching the network unless ``force``.  A
    download that fails (unreachable host, HTTP error, connection closed
    early, checksum mismatch) leaves the cache as it was and raises
    :class:`InputError` naming the URL.  ``progress(done, total)`` is called
    with byte counts while downloading, when the server gives the size.
    """
    directory = _cache_dir(cache_dir)
    destination = directory / trace.file
    state, actual = cache_state(trace, directory)
    if not force and state in ("verified", "unverified"):
        return Fetched(trace, destination, actual, downloaded=False)
    if not trace.url:
        raise InputError(f"{trace.name} has no download address ({trace.note}); "
                         f"save your copy as {destination}")
    _make_directory(directory)
    temporary, actual = _download(trace.url, destination, timeout, progress)
    try:
        if trace.sha256 and actual != trace.sha256:
            raise InputError(f"checksum mismatch for {trace.url}: expected sha256 "
                             f"{trace.sha256}, got {actual}; the download was not kept")
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; a cache is meant to be shared
        os.replace(temporary, destination)
    finally:
        temporary.unlink(missing_ok=True)
    return Fetched(trace, destination, actual, downloaded=True)


def _make_directory(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the cache directory: {err.strerror or err}",
                         file=str(directory)) from None


def _download(url: str, destination: Path, timeout: float,
              progress: ByteProgress | None) -> tuple[Path, str]:
    """Download ``url`` to a temporary file beside ``destination``; (its path, its sha256).

    The temporary file is removed when anything goes wrong, including Ctrl-C.
    """
    from schedlab import __version__

    request = urllib.request.Request(url, headers={"User-Agent": f"schedlab/{__version__}"})
    try:
        fd, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".part",
                                    dir=destination.parent)
    except OSError as err:
        raise InputError(f"cannot write to the cache directory: {err.strerror or err}",
                         file=str(destination.parent)) from None
    temporary = Path(name)
    try:
        with os.fdopen(fd, "wb") as sink, \
                urllib.request.urlopen(request, timeout=timeout) as response:
            digest = _copy_complete(response, sink, progress)
    except BaseException as err:
        temporary.unlink(missing_ok=True)
        reason = _network_reason(err)
        if reason is None:
            raise
        raise _download_error(url, destination, reason) from None
    return temporary, digest


def _copy_complete(response: http.client.HTTPResponse, sink: BinaryIO,
                   progress: ByteProgress | None) -> str:
    """Copy the response body to ``sink``, hashing it; the body must be as long as announced.

    ``http.client`` returns a short body without complaint when the server
    closes the connection early, so the byte count is checked against
    ``Content-Length`` here.
    """
    announced = response.headers.get("Content-Length")
    total = int(announced) if announced and announced.isdigit() else 0
    digest = hashlib.sha256()
    done = 0
    for chunk in iter(lambda: response.read(_CHUNK), b""):
        sink.write(chunk)
        digest.update(chunk)
        done += len(chunk)
        if progress is not None and total:
            progress(done, total)
    if total and done != total:
        raise http.client.IncompleteRead(b"", total - done)
    return digest.hexdigest()


def _network_reason(error: BaseException) -> str | None:
    """A short reason for a failed download; None for an error that is not the network's."""
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return getattr(error.reason, "strerror", None) or str(error.reason)
    if isinstance(error, http.client.IncompleteRead):
        return f"the connection closed early ({error.expected} bytes missing)"
    if isinstance(error, (TimeoutError, ConnectionError, http.client.HTTPException)):
        return getattr(error, "strerror", None) or str(error) or type(error).__name__
    return None


def _download_error(url: str, destination: Path, reason: str) -> InputError:
    """The one-line message for a download that failed, with the manual way out."""
    return InputError(f"cannot download {url}: {reason}; download it by hand "
                      f"and save it as {destination}")
