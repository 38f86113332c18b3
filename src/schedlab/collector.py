"""Python's cycle collector paused for a burst of allocations that make no cycles.

A burst of hundreds of thousands of small tuples (an engine's event loop, a
reader's jobs) makes the collector run again and again, each time walking
the objects made since its last full collection (after the command line's
``gc.freeze``, all of them) for cycles that tuples of numbers never form.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector for the block, restoring its state after.

    The engines pause it for their loops: on a trace of 28,000 jobs a loop
    runs about 30% faster (bench/README.md); the SWF reader for making its
    jobs (bench/PYSS.md).  Memory is still freed at once by reference
    counting; cycles made meanwhile are collected when the collector resumes.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
