"""Load scaling and deadlines in sweeps give the same jobs as on the command line."""

from __future__ import annotations

import pytest

from schedlab.engine.simulator import run
from schedlab.errors import InputError
from schedlab.experiments import load_results, run_sweep
from schedlab.experiments.spec import experiment_from_mapping
from schedlab.metrics import compute_metrics
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.policies import make_policy
from schedlab.workload.models import generate_builtin

SPEC = {
    "name": "deadline-sweep",
    "seeds": [3],
    "workloads": [{"source": "lublin", "jobs": 150}],
    "transforms": {"load": [1.0, 1.4], "load_method": ["duplicate"], "stringency": [0.5]},
    "policies": [{"name": "qops"}, {"name": "fcfs+easy"}],
}


def test_sweep_with_load_and_stringency_matches_the_pipeline(tmp_path):
    summary = run_sweep(SPEC, tmp_path / "exp", executor="serial")
    assert summary.total == 4 and not summary.failures
    frame = load_results(tmp_path / "exp")
    for policy in ("qops", "fcfs+easy"):
        for load in (1.0, 1.4):
            row = frame[(frame.policy == policy) & (frame["transform.load"] == load)].iloc[0]
            workload = apply_transforms(
                generate_builtin("lublin", n_jobs=150, seed=3),
                Transforms(load=load, load_method="duplicate", stringency=0.5), seed=3)
            expected = compute_metrics(run(workload, make_policy(policy)))
            assert row["jobs"] == expected["jobs"]
            assert row["rejected"] == expected["rejected"]
            assert row["avg_wait"] == pytest.approx(expected["avg_wait"])


def test_bad_transform_values_are_rejected_before_any_run(tmp_path):
    bad = dict(SPEC, transforms={"load_method": ["stretch"]})
    with pytest.raises(InputError, match=r"transforms.load_method"):
        experiment_from_mapping(bad)
    with pytest.raises(InputError, match=r"transforms.relaxation"):
        apply_transforms(generate_builtin("lublin", n_jobs=20),
                         Transforms(stringency=0.5, deadline_fraction=0.5), seed=0,
                         label=lambda name: f"transforms.{name}")
