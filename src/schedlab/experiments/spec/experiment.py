"""An experiment file as a whole: its top-level keys, reading it, and its runs.

:func:`load_experiment` reads a TOML file, :func:`experiment_from_mapping`
checks the same data given as a mapping; both parse every section
(:mod:`.sections`, :mod:`.reservation_section`, :mod:`.grid_section`) and expand the runs
(:mod:`.expand`) before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.engine.kernel import OVERRUN_MODES
from schedlab.experiments.spec.checks import Checker
from schedlab.experiments.spec.expand import expand
from schedlab.experiments.spec.grid_section import (
    GRID_KEYS,
    check_grid_keys,
    grid_policy_entries,
    parse_grid_axes,
    parse_grid_workload,
)
from schedlab.experiments.spec.outage_section import parse_outages
from schedlab.experiments.spec.reservation_section import parse_reservations
from schedlab.experiments.spec.runs import SweepRun
from schedlab.experiments.spec.sections import (
    check_every_entry_runs,
    parse_policy,
    parse_transform_tables,
    parse_workload,
)
from schedlab.limits import check_processors, check_seed
from schedlab.textio import read_text
from schedlab.tomlio import parse_toml, to_toml

TOP_KEYS = ("name", "description", "workloads", "transforms", "policies", "seeds",
            "processors", "overrun", "reservations", "failures", "maintenance", *GRID_KEYS)


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment file and its runs in expansion order."""

    path: Path | None
    text: str
    name: str
    description: str
    runs: tuple[SweepRun, ...]


def load_experiment(path: str | Path) -> Experiment:
    """Read, validate and expand an experiment file.

    Relative workload paths are relative to the file's directory.
    """
    path = Path(path)
    text = read_text(path, "experiment file")
    data = parse_toml(text, str(path))
    return experiment_from_mapping(data, base_dir=path.resolve().parent, file=str(path),
                                   text=text)


def experiment_from_mapping(data: Mapping[str, Any], *, base_dir: str | Path = ".",
                            file: str = "<experiment>", text: str | None = None) -> Experiment:
    """Validate an experiment given as a mapping (the parsed TOML) and expand its runs.

    ``text`` is the experiment as the user wrote it (kept with the results);
    without it the mapping is written out as TOML.
    """
    check = Checker(file)
    check.keys(data, "", TOP_KEYS)
    name = check.text(data.get("name", ""), "name")
    description = check.text(data.get("description", ""), "description")
    seeds = [check.bounded(check_seed, v, p, low=0) for p, v in check.items(data.get("seeds", [0]),
                                                                      "seeds")]
    processors = ([None] if data.get("processors", [None]) == [None] else
                  [check.bounded(check_processors, v, p, low=1)
                   for p, v in check.items(data["processors"], "processors")])
    overrun = check.choice_list(data.get("overrun", ["kill"]), "overrun", OVERRUN_MODES)
    is_grid = check_grid_keys(data, check)
    grids = parse_grid_axes(data, Path(base_dir), check) if is_grid else [None]
    if "workloads" not in data:
        raise check.error("workloads", "expected at least one workload, found no 'workloads' key")
    read_workload = parse_grid_workload if is_grid else parse_workload
    workloads = [read_workload(entry, f"workloads[{i}]", Path(base_dir), check)
                 for i, entry in enumerate(check.nonempty_list(data["workloads"], "workloads"))]
    check.unique_labels(workloads)
    settings = (parse_reservations(data["reservations"], Path(base_dir), check)
                if "reservations" in data else [None])
    if "policies" not in data:
        raise check.error("policies", "expected at least one policy, found no 'policies' key")
    policies = (grid_policy_entries(data["policies"], check) if is_grid else
                [parse_policy(entry, f"policies[{i}]", check) for i, entry in
                 enumerate(check.nonempty_list(data["policies"], "policies"))])
    tables = parse_transform_tables(data.get("transforms", {}), workloads, policies, check)
    check_every_entry_runs(tables, workloads, policies, check)
    outages = parse_outages(data, Path(base_dir), check)
    if is_grid and outages != [None]:
        key = "failures" if "failures" in data else "maintenance"
        raise check.error(key, "failures and maintenance windows belong to runs on one "
                          "machine (space or time sharing); a grid experiment takes none")
    runs = expand(workloads, tables, policies, seeds, processors, overrun, check, settings,
                  grids, outages)
    if text is None:
        text = to_toml(data)
    return Experiment(path=None if file == "<experiment>" else Path(file), text=text,
                      name=name, description=description, runs=tuple(runs))
