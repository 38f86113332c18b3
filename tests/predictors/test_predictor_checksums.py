"""bench/predictor_checksums.py: a run's digest follows its schedule, predictions and counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import schedlab
from schedlab import Job, Workload
from schedlab.api import run

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "predictor_checksums.py"


def load_script():
    spec = importlib.util.spec_from_file_location("predictor_checksums", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def easy_plus_plus_run():
    jobs = tuple(Job(id=k, submit=3 * k, runtime=10 + k % 7, estimate=40, width=1 + k % 3,
                     user=k % 2) for k in range(1, 30))
    return run(Workload(jobs=jobs, processors=4),
               schedlab.make_policy({"name": "fcfs+easy", "predictor": "easy++",
                                     "backfill_order": "sjbf"}))


def test_the_digest_of_a_run_is_that_of_the_same_run_and_no_other():
    digest = load_script().digest
    first, again = easy_plus_plus_run(), easy_plus_plus_run()
    assert first.corrections.sum() > 0
    assert digest(first) == digest(again)
    for column in ("start", "end", "final_prediction", "corrections"):
        changed = easy_plus_plus_run()
        getattr(changed, column)[-1] += 1
        assert digest(changed) != digest(first), column
    counted = easy_plus_plus_run()
    counted.stats["broken_reservations"] = counted.stats.get("broken_reservations", 0) + 1
    assert digest(counted) != digest(first)


def test_the_quick_set_is_every_predictor_under_both_orders_and_two_policies():
    script = load_script()
    quick = list(script.cases(quick=True))
    assert len(quick) == 2 * len(script.PREDICTORS) + 2
    assert len(list(script.cases(quick=False))) == 40
