"""``python -m schedlab`` runs the command line.

The cycle collector rests while the command line's modules load: they make tens of
thousands of objects and no garbage cycles, and ``main`` moves them out of the
collector's reach (``gc.freeze``) before it turns the collector back on, so the
collections it would make among them (about 0.01 s of CPU) find nothing.
"""

import gc

gc.disable()

from schedlab.cli.app import main  # noqa: E402

main()
