"""Deadline guarantees: QoPS, MSB and MRT admission control, and EDF without it.

Islam, Balaji, Sadayappan, Panda, "QoPS: A QoS based Scheme for Parallel
Job Scheduling" (papers/004_…).  See docs/reference/policies/deadlines.md.
"""

from schedlab.policies.deadline.common import AdmissionPolicy, Decision, edf_key, llf_key
from schedlab.policies.deadline.edf import EarliestDeadlineFirst
from schedlab.policies.deadline.mrt import ModifiedRealTime, mrt_admission
from schedlab.policies.deadline.msb import ModifiedSlackBased, msb_admission
from schedlab.policies.deadline.qops import QoPS, insertion_points, qops_admission

__all__ = [
    "AdmissionPolicy",
    "Decision",
    "EarliestDeadlineFirst",
    "ModifiedRealTime",
    "ModifiedSlackBased",
    "QoPS",
    "edf_key",
    "insertion_points",
    "llf_key",
    "mrt_admission",
    "msb_admission",
    "qops_admission",
]
