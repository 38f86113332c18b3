"""What one run of a sweep is, and its id.

A run's identity is the canonical JSON of its :class:`SweepRun` without the
location of its trace file; ``run_id`` is a hash of it, so rerunning a
sweep finds the runs it has already done, and moving a trace or the
experiment file does not change it.  A trace file is identified by its name
and the SHA-256 of its content.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RUN_ID_LENGTH = 16
#: Workload kinds of grid runs: the thesis' job stream generator, an SWF file with its side file.
GRID_MODEL, GRID_FILE = "grid-model", "grid-file"


@dataclass(frozen=True)
class WorkloadSource:
    """Where a run's jobs come from: a built-in model or an SWF file, with reader options.

    ``source`` is the model name or the file's absolute path; ``digest`` is the
    SHA-256 of a file's content (``None`` for a model); ``options`` are the
    sorted ``(key, value)`` pairs of ``jobs``, ``window`` and the SWF reader
    options that were given.
    """

    kind: str
    source: str
    label: str
    digest: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def is_file(self) -> bool:
        return self.kind in ("file", GRID_FILE)

    @property
    def is_grid(self) -> bool:
        """A grid workload: generated (``grid-model``) or an SWF file with its side file
        (``grid-file``; ``options`` then hold the side file's ``side_sha256``)."""
        return self.kind in (GRID_MODEL, GRID_FILE)

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def identity(self) -> dict[str, Any]:
        """What the workload is, independent of where its file lives."""
        name = Path(self.source).name if self.is_file else self.source
        ident: dict[str, Any] = {"kind": self.kind, "name": name, "label": self.label,
                                 "options": _plain(dict(self.options))}
        if self.digest is not None:
            ident["sha256"] = self.digest
        return ident

    def to_dict(self) -> dict[str, Any]:
        """The identity plus the file's location."""
        return {**self.identity(), "source": self.source}


@dataclass(frozen=True)
class SweepRun:
    """One run of a sweep (a point of an experiment, identified by its run id): workload,
    transforms, policy, seed, machine, overrun.  Not :class:`schedlab.run.RunSpec`, the
    description that executes it (:func:`~schedlab.experiments.runner.run_description`).

    ``transforms`` are ``(name, value)`` pairs in the order they are applied;
    ``params`` the policy parameters given in the experiment file, sorted by
    name; ``seed`` is ``None`` when the workload is a trace (nothing random);
    ``processors`` is ``None`` for the workload's own machine size;
    ``reservations`` is the run's advance-reservation setting, ``None`` when
    the experiment has no ``[reservations]`` table; ``grid`` the platform,
    dispatcher, allocation and preemption overhead of a grid run, ``None``
    for a run on one homogeneous machine.
    """

    workload: WorkloadSource
    transforms: tuple[tuple[str, Any], ...]
    policy: str
    params: tuple[tuple[str, Any], ...]
    seed: int | None
    processors: int | None
    overrun: str
    reservations: ReservationSetting | None = None
    grid: GridSetting | None = None
    outages: OutageSetting | None = None
    run_id: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_id", run_id_of(self.identity()))

    def identity(self) -> dict[str, Any]:
        """The fields that define the run (hashed into ``run_id``).

        ``reservations``, ``grid`` and ``outages`` are part of it only when
        set, so that the runs of an experiment without them keep the ids they
        always had.
        """
        ident = {"workload": self.workload.identity(),
                 "transforms": _plain(dict(self.transforms)),
                 "policy": self.policy, "params": _plain(dict(self.params)),
                 "seed": self.seed, "processors": self.processors, "overrun": self.overrun}
        if self.reservations is not None:
            ident["reservations"] = self.reservations.identity()
        if self.grid is not None:
            ident["grid"] = self.grid.identity()
        if self.outages is not None:
            ident["outages"] = self.outages.identity()
        return ident

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to redo the run (stored as ``spec_json``)."""
        spec = {**self.identity(), "workload": self.workload.to_dict(), "run_id": self.run_id}
        if self.reservations is not None:
            spec["reservations"] = self.reservations.to_dict()
        if self.grid is not None:
            spec["grid"] = self.grid.to_dict()
        if self.outages is not None:
            spec["outages"] = self.outages.to_dict()
        return spec


#: The result columns of a run's failures and maintenance windows (docs/reference/events.md).
OUTAGE_COLUMNS = ("outages.failures", "outages.maintenance")


@dataclass(frozen=True)
class OutageSetting:
    """One point of the outage axis of a sweep (docs/reference/events.md): a ``--failures``
    text (None: no failures) and a maintenance file (None: none).

    A failure file named in the text and the maintenance file are kept as
    absolute paths (``failures``, ``maintenance``) with the SHA-256 of their
    content; the run's identity has the text with the file's name and its
    digest, so moving the files does not change it.
    """

    failures: str | None = None
    failure_file: tuple[str, str] | None = None          # (absolute path, sha256)
    maintenance: tuple[str, str] | None = None           # (absolute path, sha256)

    @property
    def draws(self) -> bool:
        """Whether the failures are drawn (so the run's seed matters)."""
        return self.failures is not None and self.failure_file is None

    @property
    def failures_text(self) -> str | None:
        """The ``--failures`` text as it runs (its file by absolute path)."""
        if self.failures is None or self.failure_file is None:
            return self.failures
        return ",".join([self.failure_file[0], *self.failures.split(",")[1:]])

    @property
    def label(self) -> str:
        """How tables name the setting: the failures text and the maintenance file's name."""
        parts = [self.failures or "no failures"]
        if self.maintenance is not None:
            parts.append(f"maintenance {Path(self.maintenance[0]).name}")
        return "; ".join(parts)

    def identity(self) -> dict[str, Any]:
        ident: dict[str, Any] = {"failures": self.failures}
        if self.failure_file is not None:
            ident["failure_sha256"] = self.failure_file[1]
        if self.maintenance is not None:
            ident["maintenance"] = {"file": Path(self.maintenance[0]).name,
                                    "sha256": self.maintenance[1]}
        return ident

    def to_dict(self) -> dict[str, Any]:
        spec = self.identity()
        if self.failure_file is not None:
            spec["failure_path"] = self.failure_file[0]
        if self.maintenance is not None:
            spec["maintenance"] = {**spec["maintenance"], "path": self.maintenance[0]}
        return spec


@dataclass(frozen=True)
class RequestSource:
    """Where a run's reservation requests come from (Margo et al., §5; docs/reference/reservations.md).

    ``kind`` is ``"file"`` (``path`` a request CSV, ``digest`` its SHA-256)
    or ``"generate"`` (``options``: the sorted generator settings, among
    them the ``seed``).
    """

    kind: str
    path: str | None = None
    digest: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def identity(self) -> dict[str, Any]:
        """What the requests are, independent of where their file lives."""
        if self.kind == "file":
            return {"file": Path(self.path or "").name, "sha256": self.digest}
        return {"generate": _plain(dict(self.options))}

    def to_dict(self) -> dict[str, Any]:
        ident = self.identity()
        return {**ident, "path": self.path} if self.kind == "file" else ident


@dataclass(frozen=True)
class ReservationSetting:
    """One point of the reservation axis: requests, Catalina rules, tick, queue limit.

    ``requests`` is ``None`` for a baseline run (no requests, but the same
    tick and queue limit); ``rules`` are the sorted keyword arguments of
    :class:`~schedlab.policies.reservations.ReservationRules` (``None`` for
    a baseline run); ``tick`` is the scheduling period (Catalina: 900 s,
    Margo §3; 0 = at every event); ``max_queued_per_user`` DataStar's
    per-user queue limit (Margo §6; ``None`` = no limit).
    """

    requests: RequestSource | None
    rules: tuple[tuple[str, Any], ...] | None
    tick: int = 0
    max_queued_per_user: int | None = None

    def identity(self) -> dict[str, Any]:
        return {"requests": None if self.requests is None else self.requests.identity(),
                "rules": None if self.rules is None else _plain(dict(self.rules)),
                "tick": self.tick, "max_queued_per_user": self.max_queued_per_user}

    def to_dict(self) -> dict[str, Any]:
        return {**self.identity(),
                "requests": None if self.requests is None else self.requests.to_dict()}

    def for_workload(self, label: str) -> ReservationSetting:
        """The setting with a per-workload ``node_size`` table resolved to the workload's."""
        sizes = None if self.requests is None else self.requests.option("node_size")
        if not isinstance(sizes, Mapping):
            return self
        assert self.requests is not None        # sizes is None without requests
        options = {**dict(self.requests.options), "node_size": sizes.get(label, 1)}
        if options["node_size"] == 1:
            del options["node_size"]
        requests = RequestSource(self.requests.kind, self.requests.path, self.requests.digest,
                                 tuple(sorted(options.items())))
        return ReservationSetting(requests, self.rules, self.tick, self.max_queued_per_user)


@dataclass(frozen=True)
class PlatformSource:
    """The platform of a grid run (docs/reference/platform.md): a preset drawn with the run's seed, or a
    TOML file.

    ``kind`` is ``"preset"`` (``source`` its name, ``settings`` the sorted
    changes to its ranges) or ``"file"`` (``source`` the absolute path,
    ``digest`` the SHA-256 of its content).
    """

    kind: str
    source: str
    label: str
    digest: str | None = None
    settings: tuple[tuple[str, Any], ...] = ()

    @property
    def is_preset(self) -> bool:
        return self.kind == "preset"

    def identity(self) -> dict[str, Any]:
        """What the platform is, independent of where its file lives."""
        if self.is_preset:
            return {"preset": self.source, "label": self.label,
                    "settings": _plain(dict(self.settings))}
        return {"file": Path(self.source).name, "label": self.label, "sha256": self.digest}

    def to_dict(self) -> dict[str, Any]:
        ident = self.identity()
        return ident if self.is_preset else {**ident, "path": self.source}


@dataclass(frozen=True)
class GridSetting:
    """One point of the grid axes of a run (docs/reference/policies/grid.md): the platform, the
    dispatcher (canonical name and sorted parameters), ``allocation`` (``shared`` or
    ``exclusive``) and the ``preemption_overhead`` in seconds."""

    platform: PlatformSource
    dispatch: str
    dispatch_params: tuple[tuple[str, Any], ...]
    allocation: str
    preemption_overhead: int

    @property
    def draws(self) -> bool:
        """Whether the run's seed draws something here: a preset platform or the random
        dispatcher (a grid run on a platform file with another dispatcher does not)."""
        return self.platform.is_preset or self.dispatch == "random"

    def dispatch_spec(self) -> dict[str, Any]:
        """The dispatcher as :func:`schedlab.execution.execute` takes it."""
        return {"name": self.dispatch, **dict(self.dispatch_params)}

    def identity(self) -> dict[str, Any]:
        return {"platform": self.platform.identity(), "dispatch": self.dispatch,
                "dispatch_params": _plain(dict(self.dispatch_params)),
                "allocation": self.allocation, "preemption_overhead": self.preemption_overhead}

    def to_dict(self) -> dict[str, Any]:
        return {**self.identity(), "platform": self.platform.to_dict()}


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same data always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def run_id_of(identity: Mapping[str, Any]) -> str:
    """The first 16 hex digits of the SHA-256 of the canonical JSON of a run's identity."""
    return hashlib.sha256(canonical_json(identity).encode("utf-8")).hexdigest()[:RUN_ID_LENGTH]


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, so that identities are JSON as written."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def file_digest(file: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(file, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
