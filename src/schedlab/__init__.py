"""schedlab: simulate, compare and reproduce parallel batch-job scheduling policies.

The public API::

    import schedlab
    workload = schedlab.load_workload("KTH-SP2-1996-2.1-cln.swf.gz")
    result = schedlab.simulate(workload, "sjf+easy")
    metrics = schedlab.compute_metrics(result)
"""

__version__ = "0.1.0"

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schedlab.api import compare, jobs_frame, load_workload, metrics_frame, simulate
    from schedlab.engine.result import Result
    from schedlab.errors import InputError, PolicyError
    from schedlab.execution import execute
    from schedlab.metrics import compute_metrics
    from schedlab.policies import Policy, available_policies, make_policy
    from schedlab.run import RunSpec
    from schedlab.workload.job import Job, Workload
    from schedlab.workload.reservations import Reservation

# The public names are imported on first use (PEP 562), so that ``import schedlab``
# and the command line pay for numpy, the engine and the policies only when they use
# them: a module name and the attribute it provides.
_PUBLIC = {
    "compare": "schedlab.api", "jobs_frame": "schedlab.api", "load_workload": "schedlab.api",
    "metrics_frame": "schedlab.api", "simulate": "schedlab.api",
    "Result": "schedlab.engine.result",
    "InputError": "schedlab.errors", "PolicyError": "schedlab.errors",
    "execute": "schedlab.execution",
    "Policy": "schedlab.policies", "available_policies": "schedlab.policies",
    "make_policy": "schedlab.policies",
    "RunSpec": "schedlab.run",
    "Job": "schedlab.workload.job", "Workload": "schedlab.workload.job",
    "Reservation": "schedlab.workload.reservations",
    "compute_metrics": "schedlab.metrics",
}


def __getattr__(name: str) -> object:
    """Import a public name's module when the name is first asked for, and keep it."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


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
