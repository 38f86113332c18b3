"""Scheduling policies and the registry that finds them by name."""

from schedlab.policies.base import Policy
from schedlab.policies.registry import available_policies, make_policy

__all__ = ["Policy", "available_policies", "make_policy"]
