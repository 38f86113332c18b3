"""The platform: a grid of clusters of machines, with software licences.

Pasquali's thesis (ch. 3, §1.2) schedules on "a set of distributed and
heterogeneous resources, single-processor or SMP machines, organized as
clusters".  A machine has a number of CPUs and a benchmark rating (its
computational power); a job runs on one machine only, on as many of its
CPUs as it asks for (space sharing).  Licences come in two kinds (§3.2.1,
"Licence suitability"):

* a *floating* licence belongs to a cluster: at most ``copies`` of it are
  active at once, each on one of the machines it can be activated on (its
  suitable machines, e.g. those with the right operating system);
* a *non-floating* licence is bound to a machine for good, "like any other
  attribute characterizing a machine": a machine *feature*, never counted.

A job needing a set of licences may run only on a machine where every one
of them can be activated.  The types here are immutable and validated when
built; :class:`Platform` also keeps numpy arrays (per-machine CPUs,
ratings and cluster, licence x machine suitability, copies per cluster)
for policies that scan machines per event.  A single homogeneous machine
(:meth:`Platform.single_machine`) is the platform of every run that names
none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from schedlab.errors import InputError

#: The rating of a machine (and of a job) when none is given: the reference machine.
REFERENCE_RATING = 1
#: The ``machines`` value of a floating licence usable on every machine of its cluster.
ALL_MACHINES = "all"
#: Largest CPU count of a machine (and copy count of a licence) a platform may hold: sums
#: over machines stay far inside the int64 arrays policies scan.
MAX_CPUS = 10**9
#: Largest benchmark rating: a job's time scaled by eq. 3.9 (seconds x rating) stays exact
#: in int64 for any job shorter than 290 years.
MAX_RATING = 10**9


@dataclass(frozen=True)
class Machine:
    """One machine: ``cpus`` processors, benchmark ``rating`` (power), permanent licences.

    ``features`` are the machine's non-floating licences (thesis §3.2.1).
    """

    name: str
    cpus: int
    rating: int = REFERENCE_RATING
    features: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_positive(self.cpus, "cpus", f"machine {self.name!r}", MAX_CPUS)
        _check_positive(self.rating, "rating", f"machine {self.name!r}", MAX_RATING)
        object.__setattr__(self, "features", frozenset(self.features))
        for feature in sorted(self.features):
            _check_licence_name(feature, "features")


@dataclass(frozen=True)
class Licence:
    """A floating licence of a cluster: ``copies`` active at once on any of ``machines``.

    ``machines`` names the machines of the cluster the licence can be
    activated on (its suitability, thesis §3.2.1).
    """

    name: str
    copies: int
    machines: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_licence_name(self.name, "name")
        _check_positive(self.copies, "copies", f"licence {self.name!r}", MAX_CPUS)
        object.__setattr__(self, "machines", tuple(self.machines))
        if not self.machines:
            raise InputError(f"licence {self.name!r} can be activated on no machine; expected "
                             f"at least one machine name (or {ALL_MACHINES!r})", field="machines")
        j = _first_duplicate(self.machines)
        if j is not None:
            raise InputError(f"licence {self.name!r} names machine {self.machines[j]!r} twice",
                             field="machines")


@dataclass(frozen=True)
class Cluster:
    """Machines at one site under one local scheduler, with their floating licences."""

    name: str
    machines: tuple[Machine, ...]
    licences: tuple[Licence, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        object.__setattr__(self, "machines", tuple(self.machines))
        object.__setattr__(self, "licences", tuple(self.licences))
        if not self.machines:
            raise InputError(f"cluster {self.name!r} has no machines; expected at least one",
                             field="machines")
        names = [m.name for m in self.machines]
        j = _first_duplicate(names)
        if j is not None:
            raise InputError(f"cluster {self.name!r} has two machines named {names[j]!r}",
                             field=f"machines[{j}].name")
        j = _first_duplicate([lic.name for lic in self.licences])
        if j is not None:
            raise InputError(f"cluster {self.name!r} has two floating licences named "
                             f"{self.licences[j].name!r}", field=f"licences[{j}].name")
        known = set(names)
        for j, lic in enumerate(self.licences):
            unknown = [m for m in lic.machines if m not in known]
            if unknown:
                raise InputError(f"licence {lic.name!r} names machine {unknown[0]!r}, which is "
                                 f"not in cluster {self.name!r}", field=f"licences[{j}].machines")
        floating = {lic.name for lic in self.licences}
        for j, machine in enumerate(self.machines):
            both = sorted(machine.features & floating)
            if both:
                raise InputError(f"licence {both[0]!r} is both a floating licence of cluster "
                                 f"{self.name!r} and a feature of its machine "
                                 f"{machine.name!r}; expected one or the other",
                                 field=f"machines[{j}].features")

    @property
    def cpus(self) -> int:
        """Processors of all the cluster's machines."""
        return sum(m.cpus for m in self.machines)


@dataclass(frozen=True)
class Platform:
    """Clusters of machines, with licences; machine order is cluster by cluster.

    Machine index ``k`` (0-based, in the order of the clusters and of their
    machines) is the column of every per-machine array; licence index ``l``
    is the position in :attr:`licence_names` (sorted names of every floating
    licence and machine feature).  The arrays are read-only:

    * ``cpus[k]``, ``rating[k]``, ``cluster_of[k]`` (int64);
    * ``floating[l, k]``: floating licence ``l`` of machine ``k``'s cluster
      can be activated on ``k``;
    * ``feature[l, k]``: machine ``k`` holds ``l`` for good;
    * ``usable = floating | feature``: a job needing ``l`` may run on ``k``;
    * ``copies[c, l]``: copies of floating licence ``l`` in cluster ``c`` (0: none).
    """

    clusters: tuple[Cluster, ...]
    name: str = "platform"
    cpus: np.ndarray = field(init=False, repr=False, compare=False)
    rating: np.ndarray = field(init=False, repr=False, compare=False)
    cluster_of: np.ndarray = field(init=False, repr=False, compare=False)
    licence_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    floating: np.ndarray = field(init=False, repr=False, compare=False)
    feature: np.ndarray = field(init=False, repr=False, compare=False)
    usable: np.ndarray = field(init=False, repr=False, compare=False)
    copies: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        clusters = tuple(self.clusters)
        object.__setattr__(self, "clusters", clusters)
        if not clusters:
            raise InputError("the platform has no clusters; expected at least one",
                             field="clusters")
        i = _first_duplicate([c.name for c in clusters])
        if i is not None:
            raise InputError(f"two clusters are named {clusters[i].name!r}",
                             field=f"clusters[{i}].name")
        where = [(i, j, m.name) for i, c in enumerate(clusters) for j, m in enumerate(c.machines)]
        k = _first_duplicate([name for _, _, name in where])
        if k is not None:
            i, j, name = where[k]
            raise InputError(f"two machines are named {name!r}; machine names must be unique "
                             f"in the platform", field=f"clusters[{i}].machines[{j}].name")
        self._build_arrays()

    def _build_arrays(self) -> None:
        machines = self.machines
        names = sorted({lic.name for c in self.clusters for lic in c.licences}
                       | {f for m in machines for f in m.features})
        index = {name: l for l, name in enumerate(names)}
        position = {m.name: k for k, m in enumerate(machines)}
        floating = np.zeros((len(names), len(machines)), dtype=bool)
        feature = np.zeros_like(floating)
        copies = np.zeros((len(self.clusters), len(names)), dtype=np.int64)
        for c, cluster in enumerate(self.clusters):
            for lic in cluster.licences:
                copies[c, index[lic.name]] = lic.copies
                floating[index[lic.name], [position[m] for m in lic.machines]] = True
        for k, machine in enumerate(machines):
            for name in machine.features:
                feature[index[name], k] = True
        arrays = {
            "cpus": np.array([m.cpus for m in machines], dtype=np.int64),
            "rating": np.array([m.rating for m in machines], dtype=np.int64),
            "cluster_of": np.repeat(np.arange(len(self.clusters), dtype=np.int64),
                                    [len(c.machines) for c in self.clusters]),
            "floating": floating, "feature": feature, "usable": floating | feature,
            "copies": copies,
        }
        for key, array in arrays.items():
            array.setflags(write=False)
            object.__setattr__(self, key, array)
        object.__setattr__(self, "licence_names", tuple(names))

    # ------------------------------------------------------------ constructors
    @classmethod
    def single_machine(cls, processors: int) -> Platform:
        """One machine of ``processors`` CPUs at the reference rating: the default platform.

        The space-shared machine of every run without a platform (SPEC §2):
        jobs run on it for exactly their runtime.
        """
        return cls((Cluster("machine", (Machine("machine", processors),)),),
                   name=f"single-{processors}")

    # ------------------------------------------------------------ queries
    @cached_property
    def machines(self) -> tuple[Machine, ...]:
        """Every machine, cluster by cluster (index ``k`` of the arrays)."""
        return tuple(m for c in self.clusters for m in c.machines)

    @property
    def total_cpus(self) -> int:
        """Processors of the whole platform."""
        return int(self.cpus.sum())

    @property
    def max_cpus(self) -> int:
        """CPUs of the largest machine: no job may ask for more."""
        return int(self.cpus.max())

    def licence_index(self, names: Iterable[str]) -> list[int]:
        """Indices of licence ``names``; InputError naming the first the platform lacks."""
        index = self._licence_positions
        result = []
        for name in names:
            if name not in index:
                known = ", ".join(self.licence_names) or "none"
                raise InputError(f"no cluster of platform {self.name!r} has licence {name!r} "
                                 f"(known licences: {known})", field="licences")
            result.append(index[name])
        return result

    @cached_property
    def _licence_positions(self) -> dict[str, int]:
        return {name: l for l, name in enumerate(self.licence_names)}

    def eligible(self, cpus: int, licences: Iterable[int] = ()) -> np.ndarray:
        """Boolean mask of the machines a job could ever run on.

        At least ``cpus`` CPUs and every licence (indices) usable there:
        the thesis' *Minimal requirements* (§3.2.1, §3.2.2), ignoring what
        is busy now.
        """
        mask = self.cpus >= cpus
        for l in licences:
            mask = mask & self.usable[l]
        return mask


def time_on_machine(seconds, job_rating, machine_rating):
    """A time measured on a machine of ``job_rating`` as it lasts on one of ``machine_rating``.

    Thesis eq. 3.9: ``t x BM_job / BM_m`` (the Nxtime of a job not yet
    started).  Integer seconds, rounded up, so that a job never finishes
    earlier than the exact scaled time and a 1-second job stays >= 1 s;
    0 stays 0.  Works on Python ints (exact) and on numpy int64 arrays
    (broadcast, exact while ``seconds x job_rating`` < 2**63).
    """
    if isinstance(seconds, np.ndarray) or isinstance(machine_rating, np.ndarray) \
            or isinstance(job_rating, np.ndarray):
        product = np.asarray(seconds, dtype=np.int64) * np.asarray(job_rating, dtype=np.int64)
        return -(-product // np.asarray(machine_rating, dtype=np.int64))
    return -(-(seconds * job_rating) // machine_rating)


# -------------------------------------------------------------- validation
def _check_name(value: object, what: str) -> str:
    """``value`` if it is a non-empty name, else an InputError naming ``what``."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"expected a non-empty name, got {value!r}", field=what)
    return value


def _check_licence_name(value: object, what: str) -> None:
    """A licence name is written in workload side files: no blanks, commas or semicolons."""
    name = _check_name(value, what)
    if any(ch.isspace() or ch in ",;" for ch in name):
        raise InputError(f"expected a licence name without blanks, ',' or ';', got {value!r}",
                         field=what)


def _check_positive(value: object, what: str, owner: str, high: int) -> None:
    """InputError unless ``value`` is an integer in 1..high (a bool, float or NaN is refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{owner}: expected a positive integer (>= 1), got {value!r}",
                         field=what)
    if value > high:
        raise InputError(f"{owner}: expected an integer <= {high} (the largest schedlab "
                         f"computes with exactly), got {value!r}", field=what)


def _first_duplicate(values: Iterable[str]) -> int | None:
    """Index of the first value seen before, or None."""
    seen: set[str] = set()
    for k, value in enumerate(values):
        if value in seen:
            return k
        seen.add(value)
    return None


__all__ = ["ALL_MACHINES", "MAX_CPUS", "MAX_RATING", "REFERENCE_RATING", "Cluster", "Licence", "Machine",
           "Platform", "time_on_machine"]
