"""The real SWF traces tests may read, found where the reproduction recipes look.

One lookup for the whole suite: ``$SCHEDLAB_TRACES``, else ``../shared/workloads``
(:func:`schedlab.experiments.recipes.traces_dir`).  Paths are resolved, so a
trace folder reached through a symlink compares equal to the files read from it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlab.experiments.recipes import traces_dir


def trace_path(name: str) -> Path:
    """Where the trace ``name`` would be (resolved); it may be absent."""
    return (traces_dir() / name).resolve()


def real_trace(name: str) -> Path:
    """The trace ``name``; the calling test is skipped when it is absent."""
    path = trace_path(name)
    if not path.is_file():
        pytest.skip(f"trace {name} is not in {traces_dir()} (set SCHEDLAB_TRACES)")
    return path
