"""Scheduling policies and the registry that finds them by name."""

from schedlab.policies.base import Policy, PolicyBase
from schedlab.policies.registry import available_policies, entries, make_policy

__all__ = ["Policy", "PolicyBase", "available_policies", "entries", "make_policy"]
