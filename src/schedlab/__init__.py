"""schedlab: simulate, compare and reproduce parallel batch-job scheduling policies.

The public API::

    import schedlab
    workload = schedlab.load_workload("KTH-SP2-1996-2.1-cln.swf.gz")
    result = schedlab.simulate(workload, "sjf+easy")
    metrics = schedlab.compute_metrics(result)
"""

__version__ = "0.1.0"

from schedlab.api import compare, jobs_frame, load_workload, metrics_frame, simulate
from schedlab.engine.result import Result
from schedlab.errors import InputError, PolicyError
from schedlab.execution import execute
from schedlab.policies import Policy, available_policies, make_policy
from schedlab.run import RunSpec
from schedlab.workload.job import Job, Workload
from schedlab.workload.reservations import Reservation


def compute_metrics(result: Result) -> dict:
    """Aggregate metrics of a result (names and formulas: docs/reference/metrics.md)."""
    from schedlab.metrics import compute_metrics as _compute
    return _compute(result)


__all__ = [
    "InputError",
    "Job",
    "Policy",
    "PolicyError",
    "Reservation",
    "Result",
    "RunSpec",
    "Workload",
    "__version__",
    "available_policies",
    "compare",
    "compute_metrics",
    "execute",
    "jobs_frame",
    "load_workload",
    "make_policy",
    "metrics_frame",
    "simulate",
]
