"""Experiment files (TOML) -> the list of runs they describe.

An experiment names workloads, transforms, policies with parameter grids,
seeds, machine sizes and overrun modes; its runs are the cartesian product
of all of them (docs/how-to/experiments.md has a complete example).  Transforms
may also come as several grids (``[[transforms]]``), each restricted to some
workloads and policies; the runs are then the union of the products of the
grids, a run that two grids give counted once.  Everything is
checked here, before any run starts: an unknown key, a value of the wrong
type, an unknown policy or parameter (every combination is built once with
:func:`~schedlab.policies.registry.make_policy`) or a missing workload file
raises :class:`~schedlab.errors.InputError` naming the file, the key path
(``policies[2].grid.k[1]``; indices count from 0) and what was expected.

One module per concern:

- :mod:`.runs`: what a run is (:class:`SweepRun` and its parts) and its id;
- :mod:`.experiment`: the file as a whole (:func:`load_experiment`,
  :func:`experiment_from_mapping`, :class:`Experiment`);
- :mod:`.sections`: the workloads, transforms and policies sections;
- :mod:`.reservation_section`: the ``[reservations]`` section;
- :mod:`.grid_section`: the platforms, dispatchers, allocations and
  preemption overheads of a grid experiment, and its grid workloads;
- :mod:`.expand`: parsed sections -> runs;
- :mod:`.checks`: value checks whose errors name the key path.

Reading TOML and writing a mapping back as TOML is :mod:`schedlab.tomlio`
(shared with platform files); ``parse_toml`` and ``to_toml`` are importable
from here too.

The names below are the package's public interface; import them from here.
"""

from schedlab.experiments.spec.experiment import (
                                                  OVERRUN_MODES,
                                                  TOP_KEYS,
                                                  Experiment,
                                                  experiment_from_mapping,
                                                  load_experiment,
)
from schedlab.experiments.spec.runs import (
                                                  RUN_ID_LENGTH,
                                                  GridSetting,
                                                  PlatformSource,
                                                  RequestSource,
                                                  ReservationSetting,
                                                  SweepRun,
                                                  WorkloadSource,
                                                  canonical_json,
                                                  file_digest,
                                                  run_id_of,
)
from schedlab.experiments.spec.sections import trace_label
from schedlab.tomlio import parse_toml, to_toml

__all__ = [
    "OVERRUN_MODES", "RUN_ID_LENGTH", "TOP_KEYS", "Experiment", "GridSetting",
    "PlatformSource", "RequestSource",
    "ReservationSetting", "SweepRun", "WorkloadSource", "canonical_json",
    "experiment_from_mapping", "file_digest", "load_experiment", "parse_toml", "run_id_of",
    "to_toml", "trace_label",
]
