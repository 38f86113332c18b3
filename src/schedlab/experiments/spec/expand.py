"""Parsed sections -> the runs of an experiment, in a fixed order, each once."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from schedlab.experiments.spec.checks import Checker
from schedlab.experiments.spec.runs import (
    GridSetting,
    OutageSetting,
    ReservationSetting,
    SweepRun,
    WorkloadSource,
)
from schedlab.experiments.spec.sections import (
    PolicyCombo,
    PolicyEntry,
    TransformTable,
    WorkloadEntry,
)


def expand(workloads: Sequence[WorkloadEntry], tables: Sequence[TransformTable],
           policies: Sequence[PolicyEntry], seeds: Sequence[int],
           processors: Sequence[int | None], overrun: Sequence[str],
           check: Checker,
           settings: Sequence[ReservationSetting | None] = (None,),
           grids: Sequence[GridSetting | None] = (None,),
           outages: Sequence[OutageSetting | None] = (None,)) -> list[SweepRun]:
    """The union over the transform tables of their cartesian products, workload-major so
    that runs of one workload are adjacent.

    For each workload, table by table in file order: the table's grid x the
    combos of the policy entries it selects x reservation settings x seeds x
    machine sizes x overrun modes (``settings`` is the reservation axis,
    ``[None]`` without a ``[reservations]`` table).  With a single table that
    selects everything this is the plain cartesian product of earlier
    versions, in the same order.

    Seeds multiply the runs of built-in models only (a trace run has seed
    ``None``).  A run that an earlier table already gave is counted once;
    two entries that give the same run within one table are a mistake,
    reported with both key paths.

    ``grids`` is the grid axis (platform x dispatcher x allocation x
    preemption overhead; ``[None]`` in an experiment without platforms),
    after the reservation axis; ``outages`` the failure and maintenance axis
    (``[None]`` in an experiment without them), after the grid axis and
    before the seeds (drawn failures make a trace take the seeds).  A
    workload entry with several sources (the ``ta`` values of generated grid
    jobs) gives the runs of each in turn.
    """
    runs: list[SweepRun] = []
    seen: set[str] = set()
    for entry in workloads:
        for table in tables:
            if not table.selects_workload(entry):
                continue
            combos = [combo for index, policy in enumerate(policies)
                      if table.selects_policy(index) for combo in policy.combos]
            for source in entry.sources():
                for run in table_runs(entry, source, table, combos, list(entry.seeds or seeds),
                                      processors, overrun, settings, grids, check, outages):
                    if run.run_id not in seen:
                        seen.add(run.run_id)
                        runs.append(run)
    return runs


def run_seeds(source: WorkloadSource, grid: GridSetting | None, seeds: Sequence[int],
              outage: OutageSetting | None = None) -> list[int | None]:
    """The seeds of a source's runs: ``[None]`` when nothing in them is random (a trace on
    one machine without drawn failures; a grid file on a platform file with a dispatcher
    that draws nothing)."""
    drawn = (not source.is_file or (grid is not None and grid.draws)
             or (outage is not None and outage.draws))
    return list(seeds) if drawn else [None]


def table_runs(entry: WorkloadEntry, source: WorkloadSource, table: TransformTable,
               combos: Sequence[PolicyCombo], seeds: Sequence[int],
               processors: Sequence[int | None], overrun: Sequence[str],
               settings: Sequence[ReservationSetting | None],
               grids: Sequence[GridSetting | None], check: Checker,
               outages: Sequence[OutageSetting | None] = (None,)) -> list[SweepRun]:
    """The runs of one workload source under one transform table: the cartesian product.

    A run given twice here (``shrink = [1, 1.0]``, or two policy entries
    that are the same policy) is reported with both key paths.
    """
    runs: list[SweepRun] = []
    seen: dict[str, str] = {}
    points = [(combo, policy, setting, grid, seed, machine, mode, outage)
              for combo, policy, setting, grid in itertools.product(
                  table.grid, combos, settings, grids)
              for outage in outages
              for seed, machine, mode in itertools.product(
                  run_seeds(source, grid, seeds, outage), processors, overrun)]
    for combo, policy, setting, grid, seed, machine, mode, outage in points:
        run = SweepRun(source, combo, policy.name, policy.params, seed, machine, mode,
                      setting and setting.for_workload(entry.source.label), grid, outage)
        where = f"{entry.path} with {policy.path}"
        if run.run_id in seen:
            raise check.error(policy.path, f"describes a run twice ({seen[run.run_id]} and "
                              f"{where}: {run.policy} {dict(run.params)} "
                              f"{dict(run.transforms)}); remove the repetition")
        seen[run.run_id] = where
        runs.append(run)
    return runs
