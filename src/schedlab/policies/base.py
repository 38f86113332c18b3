"""The policy interface, re-exported where policies are written.

:class:`PolicyBase` (parameters and cloning), :class:`Policy` (the
space-sharing reactions) and the parameter checks live in the engine layer
(:mod:`schedlab.engine.policy`), since the engines drive policies through
those interfaces and import nothing from this package
(docs/architecture.md, "Layers").
"""

from schedlab.engine.policy import (
    UNSUPPORTED,
    Policy,
    PolicyBase,
    check_bool,
    check_choice,
    check_number,
    check_param_names,
)

__all__ = ["UNSUPPORTED", "Policy", "PolicyBase", "check_bool", "check_choice", "check_number",
           "check_param_names"]
