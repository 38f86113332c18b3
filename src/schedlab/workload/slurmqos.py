"""Slurm's QOS (quality of service) table, as ``sacctmgr show qos --parsable2`` prints it.

The ``slurm`` policy models a QOS's priority and four of its limits
(docs/reference/policies/slurm.md, "QOS").  The file is sacctmgr's own output,
so an administrator exports it from the database as it is::

    sacctmgr show qos --parsable2 > qos.txt

A header line of column names separated by ``|`` (``--parsable``'s trailing
``|`` is accepted too), then one QOS a line.  The columns read, by the names
sacctmgr prints (its long option names are accepted as well):

* ``Name`` (required);
* ``Priority``: a whole number (empty: 0);
* ``MaxJobsPU`` (``MaxJobsPerUser``): running jobs per user;
* ``MaxSubmitPU`` (``MaxSubmitJobsPerUser``): jobs pending or running per user;
* ``MaxTRESPU`` (``MaxTRESPerUser``): the ``cpu=N`` of it, CPUs running per user;
* ``GrpTRES``: the ``cpu=N`` of it, CPUs running in the QOS as a whole.

An empty limit is no limit.  Every other column that holds something other than
sacctmgr's default (``GraceTime`` 00:00:00, ``PreemptMode`` cluster,
``UsageFactor`` 1.000000) and every TRES other than ``cpu`` is named in a
warning with its file and line: it is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from schedlab.errors import InputError
from schedlab.textio import parse_int, pipe_table, read_text

#: Column -> the Qos field it fills (sacctmgr's printed names and its long option names).
_COLUMNS = {"name": "name", "priority": "priority",
            "maxjobspu": "max_jobs_per_user", "maxjobsperuser": "max_jobs_per_user",
            "maxsubmitpu": "max_submit_per_user",
            "maxsubmitjobsperuser": "max_submit_per_user",
            "maxtrespu": "max_cpus_per_user", "maxtresperuser": "max_cpus_per_user",
            "grptres": "grp_cpus"}
#: Columns that take a TRES list, of which the cpu count is read.
_TRES = ("max_cpus_per_user", "grp_cpus")
#: What sacctmgr prints in a column the policy does not model when the QOS leaves it
#: at its default: such values need no warning.
_DEFAULTS = {"gracetime": "00:00:00", "preemptmode": "cluster", "usagefactor": "1.000000",
             "description": None, "id": None}


class Qos(NamedTuple):
    """One QOS: its priority and limits (None: no limit)."""

    name: str
    priority: int = 0
    max_jobs_per_user: int | None = None
    max_submit_per_user: int | None = None
    max_cpus_per_user: int | None = None
    grp_cpus: int | None = None


@dataclass
class QosTable:
    """The QOS of a file, in file order, and a warning per value not modelled."""

    qos: list[Qos] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_qos(path: str | Path) -> QosTable:
    """The QOS of the ``sacctmgr show qos --parsable2`` output at ``path`` (see the
    module); bad input is an InputError naming the file, line and column."""
    source = str(path)
    header, rows = pipe_table(read_text(path, "QOS file"), source,
                              "sacctmgr show qos --parsable2")
    if "name" not in (column.lower() for column in header):
        raise InputError("missing column; export with `sacctmgr show qos --parsable2`",
                         file=source, line=1, field="Name")
    table = QosTable()
    for number, values in rows:
        qos = _qos(dict(zip(header, values)), table.warnings, source, number)
        if any(known.name == qos.name for known in table.qos):
            raise InputError(f"QOS {qos.name!r} is listed twice", file=source, line=number,
                             field="Name")
        table.qos.append(qos)
    return table


def _qos(row: dict[str, str], warnings: list[str], source: str, line: int) -> Qos:
    """One QOS line; what it sets that is not modelled goes to ``warnings``."""
    name = ""
    numbers: dict[str, int | None] = {}
    for column, value in row.items():
        target = _COLUMNS.get(column.lower())
        if target is None:
            default = _DEFAULTS.get(column.lower(), "")
            if value and default is not None and value != default:
                warnings.append(f"{source}:{line}: {column}: not modelled (ignored)")
        elif target == "name":
            name = value
        elif target in _TRES:
            numbers[target] = _cpus(value, column, warnings, source, line)
        elif value:
            numbers[target] = _count(value, column, source, line)
    if not name:
        raise InputError("a QOS needs a name", file=source, line=line, field="Name")
    return Qos(name, numbers.get("priority") or 0, numbers.get("max_jobs_per_user"),
               numbers.get("max_submit_per_user"), numbers.get("max_cpus_per_user"),
               numbers.get("grp_cpus"))


def _count(text: str, column: str, source: str, line: int) -> int:
    """A whole number >= 0."""
    value = parse_int(text, field=column, file=source, line=line, limit=2**32)
    if value < 0:
        raise InputError(f"expected a whole number >= 0, got {text!r}", file=source,
                         line=line, field=column)
    return value


def _cpus(value: str, column: str, warnings: list[str], source: str,
          line: int) -> int | None:
    """The ``cpu=N`` of a TRES list (None without one); other TRES are warned about."""
    cpus = None
    for item in filter(None, value.split(",")):
        name, has_count, count = item.partition("=")
        if not has_count:
            raise InputError(f"expected TRES like cpu=16,mem=64G, got {value!r}",
                             file=source, line=line, field=column)
        if name == "cpu":
            cpus = _count(count, column, source, line)
        else:
            warnings.append(f"{source}:{line}: {column} {name}: not modelled: only cpu "
                            f"limits are")
    return cpus
