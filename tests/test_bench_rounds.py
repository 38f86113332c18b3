"""bench/rounds.py: the benches' one timing loop runs every configuration once a round."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from schedlab.workload.job import Job, Workload

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "rounds.py"


def test_every_configuration_is_timed_once_per_round() -> None:
    spec = importlib.util.spec_from_file_location("rounds", SCRIPT)
    assert spec is not None and spec.loader is not None
    rounds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rounds)
    workload = Workload(jobs=tuple(Job(id=k, submit=k, runtime=50, estimate=60, width=2)
                                   for k in range(1, 40)), processors=4)
    times = rounds.interleaved_rounds(
        workload, {"fcfs+easy": {"name": "fcfs+easy"}, "slurm": {"name": "slurm"}}, 3)
    assert list(times) == ["fcfs+easy", "slurm"]
    assert [len(seconds) for seconds in times.values()] == [3, 3]
    assert all(second >= 0 for seconds in times.values() for second in seconds)
