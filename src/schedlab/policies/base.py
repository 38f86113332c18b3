"""The policy interface, re-exported where policies are written.

:class:`Policy` and the parameter checks live in the engine layer
(:mod:`schedlab.engine.policy`), since the engine drives policies through
that interface and imports nothing from this package (docs/architecture.md,
"Layers").
"""

from schedlab.engine.policy import UNSUPPORTED, Policy, check_choice, check_number

__all__ = ["UNSUPPORTED", "Policy", "check_choice", "check_number"]
