"""Platform files (TOML): read, check, write.

The format (docs/reference/platform.md has a complete example, examples/platforms/two-sites.toml)::

    name = "two-sites"                 # optional, default: the file's stem

    [[clusters]]
    name = "pisa"

    [[clusters.machines]]
    name = "pisa-1"                    # unique in the platform
    cpus = 8                           # >= 1
    rating = 400                       # benchmark rating (power), >= 1, default 1
    features = ["matlab"]              # non-floating licences, optional

    [[clusters.licences]]              # floating licences of the cluster, optional
    name = "fluent"
    copies = 2                         # active at once, >= 1
    machines = ["pisa-1"]              # where it can be activated, or "all"

Every mistake raises :class:`~schedlab.errors.InputError` naming the file,
the line where it can be found (array-of-tables entries written with
``[[...]]`` headers) and the key path, e.g.
``P.toml:9: field clusters[0].machines[1].cpus: ... expected a positive
integer (>= 1), got 0``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schedlab.errors import InputError
from schedlab.platform.model import (
    ALL_MACHINES,
    REFERENCE_RATING,
    Cluster,
    Licence,
    Machine,
    Platform,
)
from schedlab.textio import read_text
from schedlab.tomlio import parse_toml, to_toml

TOP_KEYS = ("name", "description", "clusters")
CLUSTER_KEYS = ("name", "machines", "licences")
MACHINE_KEYS = ("name", "cpus", "rating", "features")
LICENCE_KEYS = ("name", "copies", "machines")


def read_platform(path: str | Path) -> Platform:
    """The platform described by the TOML file ``path`` (format in the module docstring)."""
    path = Path(path)
    text = read_text(path, "platform file")
    return platform_from_mapping(parse_toml(text, str(path)), file=str(path), text=text,
                                 default_name=path.stem)


def platform_from_mapping(data: Mapping[str, Any], *, file: str = "<platform>",
                          text: str | None = None, default_name: str = "platform") -> Platform:
    """Check a platform given as a mapping (parsed TOML) and build it.

    ``text`` (the TOML source) lets errors name their line.
    """
    where = _Locator(file, text)
    _check_keys(data, "", TOP_KEYS, where)
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise where.error("name", f"expected a non-empty string, got {name!r}")
    raw_clusters = data.get("clusters")
    if not isinstance(raw_clusters, list) or not raw_clusters:
        raise where.error("clusters", "expected at least one [[clusters]] table")
    clusters = [_cluster(entry, i, where) for i, entry in enumerate(raw_clusters)]
    try:
        return Platform(tuple(clusters), name=name)
    except InputError as err:
        raise where.error(err.field, err.reason) from None


def _cluster(entry: Any, i: int, where: _Locator) -> Cluster:
    path = f"clusters[{i}]"
    if not isinstance(entry, Mapping):
        raise where.error(path, f"expected a table, got {entry!r}")
    _check_keys(entry, path, CLUSTER_KEYS, where)
    raw_machines = entry.get("machines")
    if not isinstance(raw_machines, list) or not raw_machines:
        raise where.error(f"{path}.machines", "expected at least one [[clusters.machines]] table")
    machines = [_machine(m, f"{path}.machines[{j}]", where) for j, m in enumerate(raw_machines)]
    name = entry.get("name", f"cluster-{i}")
    try:  # the machines alone first: a licence on "all" would name a repeated machine twice
        Cluster(name, tuple(machines))
    except InputError as err:
        raise where.error(f"{path}.{err.field}", err.reason) from None
    raw_licences = entry.get("licences", [])
    if not isinstance(raw_licences, list):
        raise where.error(f"{path}.licences", f"expected [[clusters.licences]] tables, got "
                                               f"{raw_licences!r}")
    every = tuple(m.name for m in machines)
    licences = [_licence(lic, f"{path}.licences[{j}]", every, where)
                for j, lic in enumerate(raw_licences)]
    try:
        return Cluster(name, tuple(machines), tuple(licences))
    except InputError as err:
        raise where.error(f"{path}.{err.field}", err.reason) from None


def _machine(entry: Any, path: str, where: _Locator) -> Machine:
    if not isinstance(entry, Mapping):
        raise where.error(path, f"expected a table, got {entry!r}")
    _check_keys(entry, path, MACHINE_KEYS, where)
    for key in ("name", "cpus"):
        if key not in entry:
            raise where.error(f"{path}.{key}", f"missing; a machine needs {key!r}")
    features = entry.get("features", [])
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise where.error(f"{path}.features", f"expected a list of licence names, got "
                                              f"{features!r}")
    try:
        return Machine(entry["name"], entry["cpus"], entry.get("rating", REFERENCE_RATING),
                       frozenset(features))
    except InputError as err:
        raise where.error(f"{path}.{err.field}", err.reason) from None


def _licence(entry: Any, path: str, every: tuple[str, ...], where: _Locator) -> Licence:
    if not isinstance(entry, Mapping):
        raise where.error(path, f"expected a table, got {entry!r}")
    _check_keys(entry, path, LICENCE_KEYS, where)
    for key in LICENCE_KEYS:
        if key not in entry:
            raise where.error(f"{path}.{key}", f"missing; a floating licence needs {key!r}")
    machines = entry["machines"]
    if machines == ALL_MACHINES:
        machines = every
    elif not isinstance(machines, list) or not all(isinstance(m, str) for m in machines):
        raise where.error(f"{path}.machines", f"expected a list of machine names or "
                                              f"{ALL_MACHINES!r}, got {machines!r}")
    try:
        return Licence(entry["name"], entry["copies"], tuple(machines))
    except InputError as err:
        raise where.error(f"{path}.{err.field}", err.reason) from None


def _check_keys(entry: Mapping[str, Any], path: str, allowed: tuple[str, ...],
                where: _Locator) -> None:
    for key in entry:
        if key not in allowed:
            raise where.error(f"{path}.{key}" if path else key,
                              f"unknown key {key!r}; expected one of: {', '.join(allowed)}")


class _Locator:
    """Turns a key path into an InputError naming file, line (when found) and path.

    The line is found for entries written as ``[[clusters]]``,
    ``[[clusters.machines]]`` and ``[[clusters.licences]]`` headers (the
    format schedlab writes): the n-th header of its kind, then the line of
    the key inside that table.
    """

    _HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z_.\s]+?)\s*\]\]")

    def __init__(self, file: str, text: str | None) -> None:
        self.file = file
        self.lines = text.splitlines() if text is not None else []

    def error(self, path: str | None, message: str) -> InputError:
        """The error at key ``path`` (None: the file as a whole)."""
        line = self.line_of(path) if path is not None else None
        return InputError(message, file=self.file, line=line, field=path)

    def line_of(self, path: str) -> int | None:
        steps = re.findall(r"(\w+)(?:\[(\d+)\])?", path)
        if not self.lines or not steps:
            return None
        start, end, table = 0, len(self.lines), ""
        key_line = None
        for name, index in steps:
            if index:
                table = f"{table}.{name}" if table else name
                found = self._header(table, int(index), start, end)
                if found is None:  # an inline array: the line of its key, at least
                    inline = self._key(name, start + (1 if key_line else 0), end)
                    return inline if inline is not None else key_line
                start, end = found
                key_line = start + 1
            else:
                found_key = self._key(name, start + (1 if table else 0), end)
                return found_key if found_key is not None else key_line
        return key_line

    def _header(self, table: str, index: int, start: int, end: int) -> tuple[int, int] | None:
        """Lines [header, next header not nested in it) of the index-th ``[[table]]``."""
        count = -1
        for k in range(start, end):
            match = self._HEADER.match(self.lines[k])
            if match and match.group(1).replace(" ", "") == table:
                count += 1
                if count == index:
                    stop = next((j for j in range(k + 1, end)
                                 if (m := self._HEADER.match(self.lines[j]))
                                 and not m.group(1).replace(" ", "").startswith(table + ".")),
                                end)
                    return k, stop
        return None

    def _key(self, key: str, start: int, end: int) -> int | None:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for k in range(start, end):
            if self._HEADER.match(self.lines[k]) or self.lines[k].lstrip().startswith("["):
                break
            if pattern.match(self.lines[k]):
                return k + 1
        return None


def platform_to_mapping(platform: Platform) -> dict[str, Any]:
    """The platform as the mapping a platform file holds (defaults left out)."""
    clusters = []
    for cluster in platform.clusters:
        machines = []
        for m in cluster.machines:
            entry: dict[str, Any] = {"name": m.name, "cpus": m.cpus, "rating": m.rating}
            if m.features:
                entry["features"] = sorted(m.features)
            machines.append(entry)
        every = [m.name for m in cluster.machines]
        licences = [{"name": lic.name, "copies": lic.copies,
                     "machines": ALL_MACHINES if sorted(lic.machines) == sorted(every)
                     else list(lic.machines)} for lic in cluster.licences]
        entry = {"name": cluster.name, "machines": machines}
        if licences:
            entry["licences"] = licences
        clusters.append(entry)
    return {"name": platform.name, "clusters": clusters}


def write_platform(platform: Platform, path: str | Path, *, comment: str = "") -> None:
    """Write the platform as a TOML file (atomically) that :func:`read_platform` reads back.

    ``comment`` (several lines allowed) goes at the top as ``#`` lines,
    e.g. how the platform was generated.
    """
    from schedlab.atomic import atomic_write_text

    header = "".join(f"# {line}".rstrip() + "\n" for line in comment.splitlines())
    atomic_write_text(path, header + to_toml(platform_to_mapping(platform)))
