"""One syntax for a policy with parameters, ``NAME[KEY=VALUE,...]``, in every command and label:
``simulate --policy`` takes what ``compare --policies`` takes, and sweep results and figure
lines name a parameter grid's runs the same way."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.policies.registry import spec_text

runner = CliRunner()


def simulate(tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / name
    done = runner.invoke(app, ["simulate", "lublin", "-n", "300", *args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    return json.loads((out / "metrics.json").read_text())


def test_simulate_takes_parameters_in_brackets_as_with_param(tmp_path):
    inline = simulate(tmp_path, "inline", "--policy", "dynp[metric=slowdown,decider=simple]")
    long_form = simulate(tmp_path, "long", "--policy", "dynp", "--param", "metric=slowdown",
                         "--param", "decider=simple")
    default = simulate(tmp_path, "default", "--policy", "dynp")
    assert inline["params"]["metric"] == "slowdown" and inline["params"]["decider"] == "simple"
    assert inline["metrics"] == long_form["metrics"]
    assert inline["metrics"] != default["metrics"]
    mixed = simulate(tmp_path, "mixed", "--policy", "dynp[metric=slowdown]", "--param", "decider=simple")
    assert mixed["metrics"] == inline["metrics"]


def test_a_parameter_given_twice_or_a_malformed_spec_is_one_line_and_exit_2():
    twice = runner.invoke(app, ["simulate", "lublin", "-n", "50", "--policy",
                                "dynp[metric=ms]", "--param", "metric=art"])
    assert twice.exit_code == 2
    assert "field --param: parameter 'metric' is given in --policy and in --param" in \
        " ".join(twice.output.split())
    broken = runner.invoke(app, ["simulate", "lublin", "-n", "50", "--policy", "dynp[metric"])
    assert broken.exit_code == 2
    assert "field --policy: policy spec 'dynp[metric': expected NAME or NAME[KEY=VALUE,...]" \
        in " ".join(broken.output.split())
    bad_value = runner.invoke(app, ["simulate", "lublin", "-n", "50", "--policy", "qops[k=-1]"])
    assert bad_value.exit_code == 2 and "field --policy:" in bad_value.output


def test_the_label_syntax_is_the_one_simulate_reads():
    assert spec_text("qops", {"k": 3, "heuristic": "edf"}) == "qops[k=3,heuristic=edf]"
    assert spec_text("gang", {"throttle": True}) == "gang[throttle=true]"
    assert spec_text("fcfs", {}) == "fcfs"


def test_compare_on_workers_gives_the_results_of_one_after_another(tmp_path):
    policies = "fcfs+easy,dynp[metric=slowdown],sjf+conservative"
    outs = {}
    for workers in ("1", "3"):
        out = tmp_path / f"workers-{workers}"
        done = runner.invoke(app, ["compare", "lublin", "-n", "400", "--policies", policies,
                                   "--workers", workers, "--out", str(out)])
        assert done.exit_code == 0, done.output
        outs[workers] = out
    assert (outs["1"] / "metrics.csv").read_text() == (outs["3"] / "metrics.csv").read_text()
    for directory in ("fcfs_easy", "dynp_metric=slowdown", "sjf_conservative"):
        assert (outs["1"] / directory / "jobs.csv").read_text() == \
            (outs["3"] / directory / "jobs.csv").read_text()
    refused = runner.invoke(app, ["compare", "lublin", "-n", "40", "--workers", "0"])
    assert refused.exit_code == 2 and "field --workers:" in refused.output
