"""What can become of a job in a run: the status codes every layer shares.

The engine writes them into :attr:`Result.status`; the SWF writer, the
output files and the metrics read them.  They live in the core layer so that
the workload layer (writing a schedule as SWF) needs nothing from the engine
(docs/architecture.md, "Layers").
"""

FINISHED, KILLED, REJECTED, CANCELLED, WITHDRAWN, FAILED = 0, 1, 2, 3, 4, 5
#: The name of each status code, as ``jobs.csv`` writes it: a job ``cancelled`` by its user
#: while it ran (it ended then), or ``withdrawn``, cancelled while it waited (it never
#: ran; docs/reference/events.md), or ``failed``: ended by a node failure under the
#: ``kill`` fate (docs/reference/events.md, "Failures").
STATUS_NAMES = ("finished", "killed", "rejected", "cancelled", "withdrawn", "failed")
#: The codes of jobs that never ran: refused by the policy or cancelled while waiting.
NEVER_RAN = (REJECTED, WITHDRAWN)
