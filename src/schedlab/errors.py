"""User-facing error types.

Every mistake a user can make (a malformed trace, an unknown policy name, a bad
parameter) raises :class:`InputError`.  The CLI turns it into a one-line message
and exit code 2; anything else is an internal error (exit code 1).
"""

from __future__ import annotations

from collections.abc import Iterable


class InputError(ValueError):
    """Bad input from the user: names the file, line and field where known.

    ``str(err)`` is the one-line message shown to the user, for example
    ``kth.swf:42: field 4 (run time): expected an integer, got 'abc'``.
    """

    def __init__(self, message: str, *, file: str | None = None,
                 line: int | None = None, field: str | None = None) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.reason = message
        where = ""
        if file is not None:
            where = f"{file}:{line}: " if line is not None else f"{file}: "
        elif line is not None:
            where = f"line {line}: "
        what = f"field {field}: " if field is not None else ""
        super().__init__(f"{where}{what}{message}")


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'sjf+easy'?)`` for the known name closest to a mistyped ``name``,
    empty when none is close (difflib's ratio of at least 0.6, case ignored)."""
    import difflib  # only for a mistake: not on the way of every run

    by_folded = {str(k).lower(): str(k) for k in known}
    close = difflib.get_close_matches(str(name).lower(), list(by_folded), n=1, cutoff=0.6)
    return f" (did you mean {by_folded[close[0]]!r}?)" if close else ""


class PolicyError(RuntimeError):
    """A policy asked the engine for something impossible.

    This is a bug in the policy (starting a job that does not fit, starting a
    job twice, starting before submission), raised at once and naming the
    policy and the job.
    """
