"""The ``schedlab`` command line (``schedlab.cli.app``).

A simulation runs on one thread; OpenBLAS, which numpy and scipy load, would
start a pool of threads per core that only spins (about 0.2 s of CPU in every
``schedlab`` process, and in every worker of a sweep, which inherit the
setting).  The command asks for one thread unless the user chose a number.
This has to happen before numpy is first imported, hence here.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
