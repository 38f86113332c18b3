"""The ``failures`` and ``maintenance`` keys: the outage axis of a sweep.

docs/how-to/experiments.md, "Failures and maintenance", describes them; the
texts and files are those of ``schedlab simulate --failures`` and
``--maintenance`` (docs/reference/events.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.experiments.spec.checks import Checker
from schedlab.experiments.spec.runs import OutageSetting, file_digest

#: The value of ``failures`` or ``maintenance`` that means none.
NONE = "none"


def parse_outages(data: Mapping[str, Any], base_dir: Path,
                  check: Checker) -> list[OutageSetting | None]:
    """The outage axis: every ``failures`` text (or ``none``) with every ``maintenance``
    file (or ``none``), each checked as a run would check it; ``[None]`` when the
    experiment has neither key."""
    if "failures" not in data and "maintenance" not in data:
        return [None]
    failures = [_failures(value, path, base_dir, check)
                for path, value in check.items(data.get("failures", NONE), "failures")]
    windows = [_maintenance(value, path, base_dir, check)
               for path, value in check.items(data.get("maintenance", NONE), "maintenance")]
    return [OutageSetting(text, file, window)
            for (text, file), window in itertools.product(failures, windows)]


def _failures(value: Any, path: str, base_dir: Path, check: Checker
              ) -> tuple[str | None, tuple[str, str] | None]:
    """A ``--failures`` text checked, its failure file (relative to the experiment file)
    resolved and digested; ``(None, None)`` for ``none``."""
    from schedlab.workload.outages import parse_failure_spec

    text = check.text(value, path).strip()
    if text == NONE:
        return None, None
    head, *rest = text.split(",")
    file = None
    if "=" not in head:
        resolved = (base_dir / head.strip()).resolve()
        file = (str(resolved), file_digest(resolved)) if resolved.is_file() else None
        text = ",".join([str(resolved), *rest])
    try:
        parse_failure_spec(text, field=path)
    except InputError as err:
        if err.file is not None:            # the failure file's own line and field
            raise check.error(path, str(err)) from None
        raise check.error(err.field or path, err.reason) from None
    if file is not None:
        text = ",".join([Path(file[0]).name, *rest])
    return text, file


def _maintenance(value: Any, path: str, base_dir: Path,
                 check: Checker) -> tuple[str, str] | None:
    """A maintenance file (relative to the experiment file), read and digested; None for
    ``none``."""
    from schedlab.workload.outages import read_windows

    text = check.text(value, path).strip()
    if text == NONE:
        return None
    file = (base_dir / text).resolve()
    try:
        read_windows(str(file))
    except InputError as err:
        raise check.error(path, str(err)) from None
    return str(file), file_digest(file)
