"""Several transform grids (``[[transforms]]``) with workload and policy selectors.

The runs are the union over the tables of (selected workloads x seeds x the
table's grid x selected policies), a run that two tables give counted once;
a workload or policy entry that no table selects, and an unknown label or
name in a selector, are mistakes.  Experiments with one ``[transforms]``
table keep their runs and run ids.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from experiments.helpers import write_files
from schedlab.errors import InputError
from schedlab.experiments import load_experiment

ROOT = Path(__file__).resolve().parents[2]

WORKLOADS = """\
seeds = [1, 2]
[[workloads]]
source = "lublin"
jobs = 50
[[workloads]]
source = "small.swf"
"""

POLICIES = """\
[[policies]]
name = "fcfs"
[[policies]]
name = "sjf+easy"
"""

UNION = WORKLOADS + """\
[[transforms]]
shrink = [1.0]
[[transforms]]
workloads = ["lublin"]
policies = ["fcfs"]
shrink = [0.5, 1.0]
[[transforms]]
workloads = ["small"]
policies = ["sjf+easy"]
perfect_estimates = [true]
""" + POLICIES


def described(runs) -> list[tuple]:
    """(workload label, seed, policy, transforms) of each run, in expansion order."""
    return [(r.workload.label, r.seed, r.policy, dict(r.transforms)) for r in runs]


def test_runs_are_the_union_of_the_tables_in_workload_major_order(tmp_path: Path) -> None:
    runs = load_experiment(write_files(tmp_path, UNION)).runs
    assert described(runs) == [
        # lublin, table 0: shrink 1.0 x both policies x seeds 1, 2
        ("lublin", 1, "fcfs", {"shrink": 1.0}), ("lublin", 2, "fcfs", {"shrink": 1.0}),
        ("lublin", 1, "sjf+easy", {"shrink": 1.0}), ("lublin", 2, "sjf+easy", {"shrink": 1.0}),
        # lublin, table 1: fcfs at 0.5 (its 1.0 runs are table 0's)
        ("lublin", 1, "fcfs", {"shrink": 0.5}), ("lublin", 2, "fcfs", {"shrink": 0.5}),
        # small (a trace: no seed), table 0, then table 2 (sjf+easy, perfect estimates)
        ("small", None, "fcfs", {"shrink": 1.0}), ("small", None, "sjf+easy", {"shrink": 1.0}),
        ("small", None, "sjf+easy", {"perfect_estimates": True}),
    ]
    assert len({r.run_id for r in runs}) == 9


def test_a_run_that_two_tables_give_is_counted_once(tmp_path: Path) -> None:
    once = WORKLOADS + "[transforms]\nshrink = [0.5, 1.0]\n" + POLICIES
    twice = WORKLOADS + ("[[transforms]]\nshrink = [0.5, 1.0]\n"
                         "[[transforms]]\nshrink = [1.0, 0.5]\nworkloads = [\"small\"]\n"
                         "[[transforms]]\nshrink = [0.5]\npolicies = [\"fcfs\", \"sjf+easy\"]\n"
                         ) + POLICIES
    single = load_experiment(write_files(tmp_path / "a", once)).runs
    union = load_experiment(write_files(tmp_path / "b", twice)).runs
    assert [r.run_id for r in union] == [r.run_id for r in single]
    assert len(union) == 2 * 2 * 2 + 2 * 2        # lublin: 2 factors x 2 policies x 2 seeds


def test_a_table_without_transform_keys_runs_its_selection_untransformed(
        tmp_path: Path) -> None:
    text = WORKLOADS + ("[[transforms]]\nworkloads = [\"small\"]\n"
                        "[[transforms]]\nworkloads = [\"lublin\"]\nshrink = 0.5\n") + POLICIES
    runs = load_experiment(write_files(tmp_path, text)).runs
    assert [(label, transforms) for label, _, _, transforms in described(runs)] == \
        [("lublin", {"shrink": 0.5})] * 4 + [("small", {})] * 2


def test_a_label_selects_one_of_several_entries_of_the_same_policy(tmp_path: Path) -> None:
    policies = ('[[policies]]\nname = "dynp-basic"\nlabel = "one"\n'
                '[[policies]]\nname = "dynp-basic"\ngrid = { threshold = [3] }\n')
    text = ('workloads = ["small.swf"]\n[[transforms]]\nshrink = 1.0\n'
            '[[transforms]]\npolicies = ["one"]\nperfect_estimates = true\n') + policies
    runs = load_experiment(write_files(tmp_path / "a", text)).runs
    assert [(dict(r.params), dict(r.transforms)) for r in runs] == [
        ({}, {"shrink": 1.0}), ({"threshold": 3}, {"shrink": 1.0}),
        ({}, {"perfect_estimates": True})]
    by_name = text.replace('policies = ["one"]', 'policies = ["dynp-basic"]')
    assert len(load_experiment(write_files(tmp_path / "b", by_name)).runs) == 4
    # the label is not part of the run's identity
    unlabelled = load_experiment(write_files(
        tmp_path / "c", text.replace('label = "one"\n', '').replace('["one"]', '["dynp-basic"]')))
    assert runs[0].run_id == unlabelled.runs[0].run_id


#: The 72 run ids of examples/sweep-small.toml as the single-table format gave them
#: (SHA-256 of the ids joined by spaces, in expansion order), and its first and last run.
SWEEP_SMALL_IDS = "9393a4186f1cf189dae95663f1f160dd32c7ed1fa2d37d41d18b50fbd1156434"
SWEEP_SMALL_ENDS = ("64906f44c83050ec", "90ece651acb5177f")


def test_a_single_transforms_table_keeps_its_runs_and_run_ids(tmp_path: Path) -> None:
    runs = load_experiment(ROOT / "examples" / "sweep-small.toml").runs
    ids = [r.run_id for r in runs]
    assert hashlib.sha256(" ".join(ids).encode()).hexdigest() == SWEEP_SMALL_IDS
    assert (ids[0], ids[-1]) == SWEEP_SMALL_ENDS
    as_array = (ROOT / "examples" / "sweep-small.toml").read_text().replace(
        "[transforms]", "[[transforms]]")
    path = tmp_path / "array.toml"
    path.write_text(as_array)
    assert [r.run_id for r in load_experiment(path).runs] == ids


BAD = [
    # (transforms and policies, key path, part of the reason)
    ('[[transforms]]\nshrink = 1.0\n[[transforms]]\nworkloads = ["lubin"]\n',
     "transforms[1].workloads[0]", "unknown workload label 'lubin' (known: lublin, small)"),
    ('[[transforms]]\npolicies = ["fcfs", "sjf"]\n', "transforms[0].policies[1]",
     "unknown policy 'sjf' (known: fcfs, sjf+easy)"),
    ('[transforms]\nworkloads = "small"\npolicies = ["fcfs", "sjf+easy"]\n', "workloads[0]",
     "workload 'lublin' is selected by no transform table, so it would have no runs"),
    ('[[transforms]]\npolicies = ["sjf+easy"]\n', "policies[0]",
     "policy 'fcfs' is selected by no transform table"),
    ('[[transforms]]\nworkloads = [1]\n', "transforms[0].workloads[0]",
     "expected a string, got integer 1"),
    ('[[transforms]]\nshrink = 1.0\n[[transforms]]\nshrink = [2, -1]\n',
     "transforms[1].shrink[1]", "expected a finite number > 0, got integer -1"),
    ('[[transforms]]\nwidth = 8\n', "transforms[0].width",
     "unknown key 'width'; expected one of: split, shrink, perfect_estimates, load, "
     "load_method, stringency, deadline_fraction, relaxation, workloads, policies"),
    ('transforms = []\n', "transforms", "expected a non-empty list"),
    ('transforms = 0.5\n', "transforms",
     "expected a table [transforms] or an array of tables [[transforms]], got float 0.5"),
    ('[[transforms]]\nshrink = 0.5\n[[transforms]]\nshrink = [1, 1.0]\n', "policies[0]",
     "describes a run twice"),
]


@pytest.mark.parametrize("text, key, reason", BAD, ids=[b[1] for b in BAD])
def test_a_bad_transform_table_names_file_key_path_and_expectation(
        tmp_path: Path, text: str, key: str, reason: str) -> None:
    """Unknown selector values list the known ones: a typo must not silently drop runs."""
    top_level = not text.startswith("[")        # a plain key must come before any table
    experiment = text + WORKLOADS + POLICIES if top_level else WORKLOADS + text + POLICIES
    path = write_files(tmp_path, experiment, "bad.toml")
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert str(caught.value).startswith(f"{path}: field {key}: ")
    assert reason in caught.value.reason


def test_the_selectors_example_sweeps_and_summarizes_end_to_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/sweep-selectors.toml through ``schedlab sweep`` and ``schedlab results``:
    24 runs, the perfect-estimate runs for SJF-EASY only, the 0.6 runs for lublin only."""
    from typer.testing import CliRunner

    from schedlab.cli.app import app
    from schedlab.experiments import load_results

    monkeypatch.chdir(tmp_path)
    example = str(ROOT / "examples" / "sweep-selectors.toml")
    swept = CliRunner().invoke(app, ["sweep", example, "--out", "out", "--workers", "1"])
    assert swept.exit_code == 0, swept.output
    assert "24 runs: 24 finished and 0 failed now" in swept.stdout
    frame = load_results(tmp_path / "out")
    perfect = frame[frame["transform.perfect_estimates"] == True]  # noqa: E712 (nullable)
    assert set(perfect["policy"]) == {"sjf+easy"} and len(perfect) == 4
    assert set(frame.loc[frame["transform.shrink"] == 0.6, "workload"]) == {"lublin"}
    shown = CliRunner().invoke(app, ["results", "out"])
    assert shown.exit_code == 0, shown.output
    assert "24 runs" in shown.stdout
    assert len([line for line in shown.stdout.splitlines()
                if line.startswith(("lublin ", "lublin256 "))]) == 12   # settings


def test_an_experiment_with_transform_tables_written_as_toml_reads_back_the_same(
        tmp_path: Path) -> None:
    """The mapping form (recipes) is stored as TOML in the experiment directory."""
    import tomllib

    from schedlab.experiments import experiment_from_mapping

    write_files(tmp_path, "")
    data = tomllib.loads(UNION.replace("small.swf", str(tmp_path / "small.swf")))
    experiment = experiment_from_mapping(data)
    assert "[[transforms]]" in experiment.text
    assert [r.run_id for r in experiment_from_mapping(tomllib.loads(experiment.text)).runs] \
        == [r.run_id for r in experiment.runs]
