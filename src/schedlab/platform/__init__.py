"""Platforms: grids of clusters of heterogeneous machines, with software licences.

The model (:mod:`~schedlab.platform.model`), platform files in TOML
(:mod:`~schedlab.platform.files`) and platforms generated from the ranges of
Pasquali's thesis (:mod:`~schedlab.platform.generator`).  This layer knows
nothing of the engine or of policies (docs/architecture.md, docs/reference/platform.md).
"""

from schedlab.platform.files import read_platform, write_platform
from schedlab.platform.model import Cluster, Licence, Machine, Platform, time_on_machine

__all__ = ["Cluster", "Licence", "Machine", "Platform", "read_platform", "time_on_machine",
           "write_platform"]
