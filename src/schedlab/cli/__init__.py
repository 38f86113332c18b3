"""The ``schedlab`` command line (``schedlab.cli.app``).

A simulation runs on one thread; OpenBLAS, which numpy and scipy load, would
start a pool of threads per core that only spins (about 0.2 s of CPU in every
``schedlab`` process, and in every worker of a sweep, which inherit the
setting).  The command asks for one thread unless the user chose a number.
This has to happen before numpy is first imported, hence here.
"""

import gc
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

_running = False


def freeze_long_lived(*, command_starts: bool = False) -> None:
    """In the command's own process, move the objects made so far, which live as long as
    the command (its modules, its input), out of the cycle collector's reach
    (``gc.freeze``), so that no collection walks them again; elsewhere (a program or a
    test that imports the command line) do nothing.  :func:`schedlab.cli.app.main` calls
    it with ``command_starts`` when the command begins."""
    global _running
    _running = _running or command_starts
    if _running:
        gc.freeze()
