"""Platforms drawn from the ranges of Pasquali's thesis, with a seed.

The thesis' experiments draw machines and licences "according to a uniform
distribution in the ranges" of its Tables 1, 4, 6 and 7 (and 13, §5.2.3).
:class:`PlatformSettings` holds those ranges; :data:`PRESETS` the settings
of each experiment, named after its section:

* ``thesis-4.1`` (§4.1, Table 1): 1 cluster of 100 machines, 1-8 CPUs,
  rating 100-500, 20 licences, suitability 90 %, ratio 50-70 %;
* ``thesis-4.2`` (§4.2, Table 4): 1 x 150 machines, 1-8 CPUs, rating
  200-600, 20 licences, 90 %, 55-65 %;
* ``thesis-4.2-mkp`` (§4.2 text, the MKP test): as Table 4 with 100
  machines and 40 licences;
* ``thesis-4.3`` (§4.3, Tables 6 and 7): 4 clusters of 120, 60, 30, 15
  machines, 4-32 CPUs, rating 100-500, 20 licences, 100 %, 50-70 %;
* ``thesis-5.2`` (§5.2.3, Table 13): 1 x 150 machines, 1-16 CPUs, rating
  200-600, no licences.

The rules (our reading where the thesis is silent, docs/reference/platform.md):

* CPUs and rating: uniform integers in their closed ranges, per machine.
* Every cluster has every licence type ``lic-01 .. lic-NN`` as a floating
  licence (the thesis gives one licence count per experiment).
* Suitability: each machine of the cluster can activate a licence with
  probability ``suitability``, independently; a licence that came out
  suitable on no machine is drawn again (a file may not hold one).
* Copies: the ratio, uniform in ``ratio`` per licence and cluster, times
  the number of suitable machines, rounded half up, at least 1 ("the
  maximum number of copies of a licence concurrently usable with respect
  to the Licence suitability").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.model import MAX_CPUS, MAX_RATING, Cluster, Licence, Machine, Platform

#: Largest generated platform: machines (all clusters) and licence types.  The thesis' largest
#: has 225 machines and 40 licences; far larger sizes would run for hours before writing.
MAX_MACHINES, MAX_LICENCES = 20_000, 500


def check_range(value: tuple, field: str, *, low: float, high: float | None = None,
                open_low: bool = False, integer: bool = False) -> None:
    """InputError unless ``value`` is a pair LO <= HI of numbers within the bounds."""
    kinds = (int,) if integer else (int, float)
    ok = (isinstance(value, tuple) and len(value) == 2
          and all(not isinstance(v, bool) and isinstance(v, kinds) for v in value)
          and value[0] <= value[1] and (value[0] > low if open_low else value[0] >= low)
          and (high is None or value[1] <= high))
    if not ok:
        kind = "integers " if integer else ""
        upper = f" <= {high}" if high is not None else ""
        raise InputError(f"expected {kind}LO:HI with {low} {'<' if open_low else '<='} LO <= "
                         f"HI{upper}, got {value!r}", field=field)


@dataclass(frozen=True)
class PlatformSettings:
    """Ranges a platform is drawn from (closed intervals, uniform)."""

    clusters: tuple[int, ...] = (100,)
    cpus: tuple[int, int] = (1, 8)
    rating: tuple[int, int] = (100, 500)
    licences: int = 20
    suitability: float = 0.9
    ratio: tuple[float, float] = (0.5, 0.7)

    def __post_init__(self) -> None:
        if not self.clusters or any(isinstance(n, bool) or not isinstance(n, int) or n < 1
                                    for n in self.clusters):
            raise InputError(f"expected one or more machine counts >= 1, got {self.clusters!r}",
                             field="clusters")
        if sum(self.clusters) > MAX_MACHINES:
            raise InputError(f"expected at most {MAX_MACHINES} machines in all, got "
                             f"{sum(self.clusters)}", field="clusters")
        check_range(self.cpus, "cpus", low=1, high=MAX_CPUS, integer=True)
        check_range(self.rating, "rating", low=1, high=MAX_RATING, integer=True)
        if isinstance(self.licences, bool) or not isinstance(self.licences, int) \
                or not 0 <= self.licences <= MAX_LICENCES:
            raise InputError(f"expected a number of licence types from 0 to {MAX_LICENCES}, "
                             f"got {self.licences!r}", field="licences")
        if not 0 < self.suitability <= 1:
            raise InputError(f"expected a probability in (0, 1], got {self.suitability!r}",
                             field="suitability")
        check_range(self.ratio, "ratio", low=0, high=1, open_low=True)


#: The platform settings of each experiment of the thesis (module docstring).
PRESETS: dict[str, PlatformSettings] = {
    "thesis-4.1": PlatformSettings((100,), (1, 8), (100, 500), 20, 0.9, (0.5, 0.7)),
    "thesis-4.2": PlatformSettings((150,), (1, 8), (200, 600), 20, 0.9, (0.55, 0.65)),
    "thesis-4.2-mkp": PlatformSettings((100,), (1, 8), (200, 600), 40, 0.9, (0.55, 0.65)),
    "thesis-4.3": PlatformSettings((120, 60, 30, 15), (4, 32), (100, 500), 20, 1.0, (0.5, 0.7)),
    "thesis-5.2": PlatformSettings((150,), (1, 16), (200, 600), 0, 1.0, (0.5, 0.7)),
}
DEFAULT_PRESET = "thesis-4.3"


def preset(name: str, **changes) -> PlatformSettings:
    """The settings of preset ``name`` with some fields changed (None keeps the preset's)."""
    if name not in PRESETS:
        raise InputError(f"unknown platform preset {name!r}; expected one of: "
                         f"{', '.join(PRESETS)}", field="preset")
    return replace(PRESETS[name], **{k: v for k, v in changes.items() if v is not None})


def licence_names(count: int) -> tuple[str, ...]:
    """``lic-01``, ``lic-02``, ...: the licence types of a generated platform."""
    width = max(2, len(str(count)))
    return tuple(f"lic-{k:0{width}d}" for k in range(1, count + 1))


def generate_platform(settings: PlatformSettings, seed: int = 0, *,
                      name: str | None = None) -> Platform:
    """A platform drawn from ``settings`` (rules in the module docstring); same seed, same platform.

    Clusters are named ``c1``, ``c2``, ...; machines ``c1-m001``, ...
    """
    rng = np.random.default_rng(seed)
    names = licence_names(settings.licences)
    clusters = []
    for c, size in enumerate(settings.clusters, start=1):
        cpus = rng.integers(settings.cpus[0], settings.cpus[1], size, endpoint=True)
        rating = rng.integers(settings.rating[0], settings.rating[1], size, endpoint=True)
        width = max(3, len(str(size)))
        machines = tuple(Machine(f"c{c}-m{k + 1:0{width}d}", int(cpus[k]), int(rating[k]))
                         for k in range(size))
        licences = tuple(_floating_licence(lic, machines, settings, rng) for lic in names)
        clusters.append(Cluster(f"c{c}", machines, licences))
    return Platform(tuple(clusters), name=name or f"generated-seed{seed}")


def _floating_licence(name: str, machines: tuple[Machine, ...], settings: PlatformSettings,
                      rng: np.random.Generator) -> Licence:
    """Suitable machines (each with probability ``suitability``, never none) and copies."""
    suitable = np.zeros(len(machines), dtype=bool)
    while not suitable.any():
        suitable = rng.random(len(machines)) < settings.suitability
    ratio = rng.uniform(*settings.ratio)
    copies = max(1, int(np.floor(ratio * int(suitable.sum()) + 0.5)))
    return Licence(name, copies, tuple(m.name for m, ok in zip(machines, suitable) if ok))
