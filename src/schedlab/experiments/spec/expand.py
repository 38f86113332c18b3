"""Parsed sections -> the runs of an experiment, in a fixed order, each once."""

from __future__ import annotations

import itertools
from typing import Sequence

from schedlab.experiments.spec.checks import Checker
from schedlab.experiments.spec.runs import ReservationSetting, RunSpec
from schedlab.experiments.spec.sections import (PolicyCombo, PolicyEntry, TransformTable,
                                                WorkloadEntry)


def expand(workloads: Sequence[WorkloadEntry], tables: Sequence[TransformTable],
           policies: Sequence[PolicyEntry], seeds: Sequence[int],
           processors: Sequence[int | None], overrun: Sequence[str],
           check: Checker,
           settings: Sequence[ReservationSetting | None] = (None,)) -> list[RunSpec]:
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
    """
    runs: list[RunSpec] = []
    seen: set[str] = set()
    for entry in workloads:
        entry_seeds: list[int | None] = (
            [None] if entry.source.is_file else list(entry.seeds or seeds))
        for table in tables:
            if not table.selects_workload(entry):
                continue
            combos = [combo for index, policy in enumerate(policies)
                      if table.selects_policy(index) for combo in policy.combos]
            for run in table_runs(entry, table, combos, entry_seeds, processors, overrun,
                                  settings, check):
                if run.run_id not in seen:
                    seen.add(run.run_id)
                    runs.append(run)
    return runs


def table_runs(entry: WorkloadEntry, table: TransformTable, combos: Sequence[PolicyCombo],
               seeds: Sequence[int | None], processors: Sequence[int | None],
               overrun: Sequence[str], settings: Sequence[ReservationSetting | None],
               check: Checker) -> list[RunSpec]:
    """The runs of one workload under one transform table: the cartesian product.

    A run given twice here (``shrink = [1, 1.0]``, or two policy entries
    that are the same policy) is reported with both key paths.
    """
    runs: list[RunSpec] = []
    seen: dict[str, str] = {}
    for combo, policy, setting, seed, machine, mode in itertools.product(
            table.grid, combos, settings, seeds, processors, overrun):
        run = RunSpec(entry.source, combo, policy.name, policy.params, seed, machine, mode,
                      setting and setting.for_workload(entry.source.label))
        where = f"{entry.path} with {policy.path}"
        if run.run_id in seen:
            raise check.error(policy.path, f"describes a run twice ({seen[run.run_id]} and "
                              f"{where}: {run.policy} {dict(run.params)} "
                              f"{dict(run.transforms)}); remove the repetition")
        seen[run.run_id] = where
        runs.append(run)
    return runs
