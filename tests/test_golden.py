"""Golden schedules: hand-checked small scenarios for the baseline policies.

Each ``tests/golden/*.csv`` file holds one scenario with its hand reasoning
(SPEC §3 simulation semantics; §4.1 baselines and their pitfalls: EASY
backfilling after Lifka/Skovira, conservative backfilling after Mu'alem &
Feitelson).  The scenario is written as an SWF trace, read back with the SWF
reader, simulated, and every job's start, end and status must match exactly.
See ``tests/golden/README.md`` for what each scenario catches.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pytest

from schedlab import simulate
from schedlab.engine.result import STATUS_NAMES, Result
from schedlab.testing import check_invariants
from schedlab.workload.swf import read_swf

GOLDEN_DIR = Path(__file__).parent / "golden"
SCENARIOS = sorted(GOLDEN_DIR.glob("*.csv"))
TOO_WIDE = "width > machine"
COLUMNS = ["job_id", "submit", "runtime", "estimate", "width",
           "expect_start", "expect_end", "expect_status"]


@dataclass(frozen=True)
class Row:
    """One job of a golden scenario with its expected outcome."""

    job_id: int
    submit: int
    runtime: int
    estimate: int
    width: int
    start: int | None
    end: int | None
    status: str


@dataclass(frozen=True)
class Scenario:
    """A golden scenario: policy, machine, overrun rule, reasoning and jobs."""

    name: str
    policy: str
    processors: int
    overrun: str
    reasoning: list[str]
    rows: list[Row]


def _optional_int(text: str) -> int | None:
    """An integer cell, None when empty (skipped jobs have no start or end)."""
    return int(text) if text.strip() else None


def _parse_row(record: dict[str, str]) -> Row:
    """Turn one CSV record into a Row."""
    return Row(job_id=int(record["job_id"]), submit=int(record["submit"]),
               runtime=int(record["runtime"]), estimate=int(record["estimate"]),
               width=int(record["width"]), start=_optional_int(record["expect_start"]),
               end=_optional_int(record["expect_end"]), status=record["expect_status"].strip())


def load_scenario(path: Path) -> Scenario:
    """Parse a golden file: ``# key: value`` settings, ``#`` reasoning, then the CSV table."""
    lines = path.read_text().splitlines()
    comments = [line[1:].strip() for line in lines if line.startswith("#")]
    table = [line for line in lines if line.strip() and not line.startswith("#")]
    settings: dict[str, str] = {}
    reasoning: list[str] = []
    for text in comments:
        key, sep, value = text.partition(":")
        if sep and key in ("policy", "processors", "overrun"):
            settings[key] = value.strip()
        else:
            reasoning.append(text)
    reader = csv.DictReader(table)
    assert reader.fieldnames == COLUMNS, f"{path.name}: header {reader.fieldnames}"
    return Scenario(name=path.stem, policy=settings["policy"],
                    processors=int(settings["processors"]),
                    overrun=settings.get("overrun", "kill"), reasoning=reasoning,
                    rows=[_parse_row(record) for record in reader])


def swf_line(row: Row) -> str:
    """The 18 SWF fields of one job: requested procs = width, requested time = estimate."""
    fields = [row.job_id, row.submit, -1, row.runtime, row.width, -1, -1, row.width,
              row.estimate, -1, 1, 1, 1, -1, 1, -1, -1, -1]
    return " ".join(str(value) for value in fields)


def write_trace(scenario: Scenario, path: Path) -> Path:
    """Write the scenario's jobs as an SWF trace for a machine of ``processors``."""
    header = [f"; MaxProcs: {scenario.processors}", f"; MaxNodes: {scenario.processors}"]
    body = [swf_line(row) for row in scenario.rows]
    path.write_text("\n".join(header + body) + "\n")
    return path


def _observed(result: Result) -> dict[int, tuple[int, int, str]]:
    """Job id -> (start, end, status name) from a Result."""
    names = result.status_names()
    return {int(job): (int(start), int(end), name)
            for job, start, end, name in zip(result.job_id.tolist(), result.start.tolist(),
                                             result.end.tolist(), names)}


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden_schedule(path: Path, tmp_path: Path) -> None:
    """The simulated schedule equals the hand-checked one, job by job."""
    scenario = load_scenario(path)
    workload = read_swf(write_trace(scenario, tmp_path / f"{scenario.name}.swf"),
                        processors=scenario.processors)
    expected_skips = sum(row.status == "skipped" for row in scenario.rows)
    assert workload.skipped.get(TOO_WIDE, 0) == expected_skips
    assert sum(workload.skipped.values()) == expected_skips

    result = simulate(workload, scenario.policy, processors=scenario.processors,
                      overrun=scenario.overrun)
    check_invariants(result, workload, overrun=scenario.overrun)

    expected = {row.job_id: (row.start, row.end, row.status)
                for row in scenario.rows if row.status != "skipped"}
    got = _observed(result)
    assert sorted(got) == sorted(expected), "simulated jobs differ from the non-skipped rows"
    wrong = {job: f"expected {expected[job]}, got {got[job]}"
             for job in expected if got[job] != expected[job]}
    assert not wrong, f"{scenario.name} ({scenario.policy}): {wrong}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden_file_is_well_formed(path: Path) -> None:
    """Each scenario is small, reasoned, consistent and uses known statuses."""
    scenario = load_scenario(path)
    assert 3 <= len(scenario.rows) <= 8
    assert len(scenario.reasoning) >= 3, "hand reasoning missing"
    assert scenario.overrun in ("kill", "extend")
    ids = [row.job_id for row in scenario.rows]
    assert len(set(ids)) == len(ids)
    assert [(r.submit, r.job_id) for r in scenario.rows] == sorted((r.submit, r.job_id)
                                                                  for r in scenario.rows)
    for row in scenario.rows:
        assert row.status in STATUS_NAMES[:2] + ("skipped",)
        if row.status == "skipped":
            assert row.start is None and row.end is None
            assert row.width > scenario.processors
            continue
        assert row.start >= row.submit
        assert row.end - row.start == _held_time(row, scenario.overrun)
        assert row.status == ("killed" if scenario.overrun == "kill"
                              and row.runtime > row.estimate else "finished")


def _held_time(row: Row, overrun: str) -> int:
    """How long a job holds its processors: min(runtime, estimate) under kill."""
    return row.runtime if overrun == "extend" else min(row.runtime, row.estimate)


def test_readme_lists_every_scenario() -> None:
    """The README's scenario tables name exactly the golden files present."""
    readme = (GOLDEN_DIR / "README.md").read_text()
    listed = {cell.strip("` ") for line in readme.splitlines() if line.startswith("| `")
              for cell in line.split("|")[1:2]}
    assert listed == {path.stem for path in SCENARIOS}


def test_each_family_has_enough_scenarios() -> None:
    """At least eight scenarios per backfilling family (none, EASY, conservative)."""
    policies = [load_scenario(path).policy for path in SCENARIOS]
    easy = [p for p in policies if p.endswith("+easy")]
    conservative = [p for p in policies if p.endswith("+conservative")]
    plain = [p for p in policies if "+" not in p]
    assert min(len(easy), len(conservative), len(plain)) >= 8
