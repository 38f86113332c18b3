"""What can become of a job in a run: the status codes every layer shares.

The engine writes them into :attr:`Result.status`; the SWF writer, the
output files and the metrics read them.  They live in the core layer so that
the workload layer (writing a schedule as SWF) needs nothing from the engine
(docs/architecture.md, "Layers").
"""

FINISHED, KILLED, REJECTED = 0, 1, 2
#: The name of each status code, as ``jobs.csv`` writes it.
STATUS_NAMES = ("finished", "killed", "rejected")
