"""Gang scheduling (time sharing) on an Ousterhout matrix: Zhou, Goscinski and Brent 2003.

``packing`` holds the matrix algorithms (first fit, job re-packing, guests,
express packing); ``scheduler`` the policy with the paper's three strategies.
The time itself runs in :mod:`schedlab.engine.timesharing`.
"""

from schedlab.policies.gang.scheduler import GangScheduler, JobClasses

__all__ = ["GangScheduler", "JobClasses"]
