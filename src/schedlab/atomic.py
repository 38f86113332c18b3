"""Files written atomically: readers see the old file or the whole new one, never half.

A file is written to a temporary name in the same directory and then moved
into place with ``os.replace``, so a crash or Ctrl-C never leaves a
half-written output that a later step could read as a result.  Every layer
writes through these (docs/architecture.md, "Layers": this is the core).
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from schedlab.errors import InputError


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_blocks(path: str | os.PathLike[str], blocks: Iterable[str]) -> None:
    """:func:`atomic_write_text` of the text ``blocks`` make, written block by block,
    so that the whole text of a large file is never in memory at once."""
    _atomic_write(path, (block.encode("utf-8") for block in blocks))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place.

    A directory that cannot be created or written, or a ``path`` that is a
    directory, is a user mistake (:class:`InputError` naming the path).
    """
    _atomic_write(path, (data,))


def _atomic_write(path: str | os.PathLike[str], pieces: Iterable[bytes]) -> None:
    """The temporary file, the pieces written in order, the rename (or, on any error, no file)."""
    path = Path(path)
    if path.is_dir():
        raise InputError("expected a file to write, found a directory", file=str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise write_error(err, path) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; an output file is meant to be shared
        os.replace(tmp, path)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        if err.errno in USER_WRITE_ERRORS:
            raise write_error(err, path) from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


#: Errors of a write that mean the device has no room left for it.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
#: Errors of a write that the user can mend (room, permissions): one line, not a traceback.
USER_WRITE_ERRORS = (*NO_SPACE, errno.EACCES, errno.EPERM, errno.EROFS)


def write_error(err: OSError, path: str | Path) -> InputError:
    """The one-line error for a write to ``path`` that failed (a full disk, no permission).

    Writers go through :func:`_atomic_write`, so the earlier file (or none)
    is still in place: the message says so, and what to do.
    """
    if err.errno in NO_SPACE:
        return InputError("no space left on the device; nothing was half-written: free some "
                          "space (or write elsewhere) and run the command again", file=str(path))
    return InputError(f"cannot write the file: {err.strerror or err}", file=str(path))


@contextmanager
def atomic_directory(path: str | Path) -> Iterator[Path]:
    """Build a whole output directory beside ``path`` and swap it in only on success.

    Yields the temporary directory to write into.  If the block raises, the
    temporary directory is removed and an earlier ``path`` is left untouched;
    otherwise the old directory (if any) is replaced by the new one.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError("expected a directory for the results, found a file", file=str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    except OSError as err:
        if err.errno in NO_SPACE:
            raise write_error(err, path) from None
        raise InputError(f"cannot write the directory: {err.strerror or err}",
                         file=str(path)) from None
    try:
        try:
            yield staging
        except InputError as err:
            raise _named_as_final(err, staging, path) from None
        staging.chmod(0o755)
        if path.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old",
                                            dir=path.parent))
            os.replace(path, retired / path.name)
            os.replace(staging, path)
            shutil.rmtree(retired)
        else:
            os.replace(staging, path)
    except OSError as err:          # a writer of its own in the block (a figure) on a full disk
        if err.errno in NO_SPACE:
            raise write_error(err, path) from None
        raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _named_as_final(err: InputError, staging: Path, path: Path) -> InputError:
    """An error about a file of the staging directory, naming it where it was to go."""
    if err.file is None or not Path(err.file).is_relative_to(staging):
        return err
    return InputError(err.reason, file=str(path / Path(err.file).relative_to(staging)),
                      line=err.line, field=err.field)
