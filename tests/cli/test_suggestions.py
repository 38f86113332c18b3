"""A mistyped name gets the closest known one ("did you mean"), and the shell completes
commands, options and policy names (``schedlab --install-completion``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.errors import did_you_mean

runner = CliRunner()


@pytest.mark.parametrize("args, message", [
    (["--policy", "sjf+esay"], "unknown policy 'sjf+esay' (did you mean 'sjf+easy'?)"),
    (["--policy", "qwerty"], "unknown policy 'qwerty' (known:"),
    (["--policy", "dynp", "--param", "metirc=ms"],
     "policy 'dynp' has no parameter 'metirc' (did you mean 'metric'?)"),
])
def test_a_mistyped_name_gets_the_closest_known_one(args, message):
    done = runner.invoke(app, ["simulate", "lublin", "-n", "20", *args])
    assert done.exit_code == 2
    assert message in " ".join(done.output.split())


def test_a_mistyped_grid_policy_gets_the_closest_grid_policy():
    done = runner.invoke(app, ["simulate", "jobs.swf", "--platform",
                               "examples/platforms/two-sites.toml", "--policy", "bf-fcsf"])
    assert done.exit_code == 2
    assert "unknown grid policy 'bf-fcsf' (did you mean 'bf-fcfs'?)" in \
        " ".join(done.output.split())


def test_a_mistyped_model_gets_the_closest_model():
    done = runner.invoke(app, ["simulate", "lubiln", "-n", "20"])
    assert done.exit_code == 2
    assert "(did you mean 'lublin'?)" in done.output


def test_did_you_mean_ignores_case_and_offers_nothing_far():
    assert did_you_mean("ARTWW", ["artww", "art", "ms"]) == " (did you mean 'artww'?)"
    assert did_you_mean("utilisation", ["utilization", "makespan"]) == \
        " (did you mean 'utilization'?)"
    assert did_you_mean("zzz", ["artww", "ms"]) == ""


def complete(words: str) -> list[str]:
    """What bash completion offers for the command line ``words`` (the last one typed)."""
    env = {**os.environ, "_SCHEDLAB_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - 1)}
    done = subprocess.run([sys.executable, "-m", "schedlab"], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.split()


def test_the_shell_completes_commands_options_and_policy_names():
    assert complete("schedlab sim") == ["simulate"]
    assert "--policy" in complete("schedlab simulate lublin --pol")
    assert complete("schedlab simulate lublin --policy sjf+") == [
        "sjf+conservative", "sjf+easy", "sjf+plan"]


def test_a_saturated_run_says_so_and_records_its_offered_load(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "schedlab", "simulate", "lublin", "-n", "2000",
                           "--shrink", "0.5", "--out", str(out)], capture_output=True,
                          text=True, check=True)
    assert "warning: offered load 1.69 > 1: the jobs ask for more than the machine can do" \
        in " ".join(done.stderr.split())
    assert "offered_load" in done.stdout
    calm = subprocess.run([sys.executable, "-m", "schedlab", "simulate", "lublin", "-n", "2000"],
                          capture_output=True, text=True, check=True)
    assert "offered load" not in calm.stderr


def test_a_grid_run_says_which_licence_is_saturated(tmp_path):
    jobs = tmp_path / "jobs.swf"
    platform = "examples/platforms/two-sites.toml"
    subprocess.run([sys.executable, "-m", "schedlab", "generate", "grid", "--platform", platform,
                    "--preset", "thesis-4.3", "-n", "120", "--ta", "20", "--seed", "1", "-o",
                    str(jobs)], capture_output=True, text=True, check=True)
    done = subprocess.run([sys.executable, "-m", "schedlab", "simulate", str(jobs),
                           "--platform", platform, "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, check=True)
    said = " ".join(done.stderr.split())
    assert "licence 'gaussian' offered load 97.00 > 1" in said
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]
    assert metrics["licence_offered_load"] == metrics["licence_offered_load.gaussian"] \
        > metrics["licence_offered_load.fluent"] > 1
