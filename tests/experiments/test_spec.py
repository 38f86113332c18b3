"""Experiment files: expansion, run identity, and bad input rejected before any run."""

from __future__ import annotations

import hashlib
import shutil
import tomllib
from pathlib import Path

import pytest

from experiments.helpers import SMALL_SWF, write_files
from real_traces import trace_path
from schedlab.errors import InputError
from schedlab.experiments import experiment_from_mapping, load_experiment, run_sweep
from schedlab.experiments.spec import to_toml
from schedlab.policies import registry
from schedlab.policies.backfilling import EasyBackfilling
from schedlab.policies.base import check_number

SMALL_DIGEST = hashlib.sha256(SMALL_SWF.encode()).hexdigest()

FULL = """\
name = "full"
seeds = [3, 4]
processors = [4, 8]
overrun = ["kill", "extend"]

[[workloads]]
source = "lublin"
jobs = 50

[[workloads]]
source = "traces/small.swf"
missing_estimate = "drop"

[transforms]
shrink = [0.5, 1]
perfect_estimates = [false, true]

[[policies]]
name = "easy"

[[policies]]
name = "sjf"
"""


def full_experiment(tmp_path: Path) -> Path:
    (tmp_path / "traces").mkdir(parents=True)
    (tmp_path / "traces" / "small.swf").write_text(SMALL_SWF)
    path = tmp_path / "full.toml"
    path.write_text(FULL)
    return path


def test_runs_are_the_cartesian_product_in_workload_major_order(tmp_path: Path) -> None:
    runs = load_experiment(full_experiment(tmp_path)).runs
    # model: 4 transform combos x 2 policies x 2 seeds x 2 machines x 2 overrun modes = 64;
    # trace: the same without seeds = 32
    assert len(runs) == 96
    assert [r.workload.label for r in runs] == ["lublin"] * 64 + ["small"] * 32
    assert runs[0].transforms == (("shrink", 0.5), ("perfect_estimates", False))
    assert (runs[0].policy, runs[0].seed, runs[0].processors, runs[0].overrun) == \
        ("fcfs+easy", 3, 4, "kill")
    assert (runs[1].processors, runs[1].overrun) == (4, "extend")
    assert {r.seed for r in runs[64:]} == {None}
    assert {r.policy for r in runs} == {"fcfs+easy", "sjf"}
    # shrink = 1 (an integer in TOML) is the float 1.0: one identity for one factor
    assert {dict(r.transforms)["shrink"] for r in runs} == {0.5, 1.0}
    assert len({r.run_id for r in runs}) == 96


def test_run_id_is_the_hash_of_the_canonical_identity(tmp_path: Path) -> None:
    runs = load_experiment(full_experiment(tmp_path)).runs
    trace_run = runs[64]
    canonical = (
        '{"overrun":"kill","params":{},"policy":"fcfs+easy","processors":4,"seed":null,'
        '"transforms":{"perfect_estimates":false,"shrink":0.5},'
        '"workload":{"kind":"file","label":"small","name":"small.swf",'
        '"options":{"missing_estimate":"drop"},"sha256":"' + SMALL_DIGEST + '"}}')
    assert trace_run.run_id == hashlib.sha256(canonical.encode()).hexdigest()[:16]
    assert trace_run.to_dict()["workload"]["source"] == str(tmp_path / "traces" / "small.swf")


def test_run_ids_survive_moving_the_files_and_follow_the_trace_content(tmp_path: Path) -> None:
    before = [r.run_id for r in load_experiment(full_experiment(tmp_path / "a")).runs]
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert [r.run_id for r in load_experiment(tmp_path / "b" / "full.toml").runs] == before
    (tmp_path / "b" / "traces" / "small.swf").write_text(SMALL_SWF + "\n")
    after = [r.run_id for r in load_experiment(tmp_path / "b" / "full.toml").runs]
    assert after[:64] == before[:64]                       # the model runs are unchanged
    assert not set(after[64:]) & set(before[64:])          # the trace changed: new runs


def test_relative_workload_paths_are_relative_to_the_experiment_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = full_experiment(tmp_path / "exp")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    runs = load_experiment(Path("..") / "exp" / "full.toml").runs
    assert runs[-1].workload.source == str(path.parent.resolve() / "traces" / "small.swf")


def test_model_seeds_per_workload_override_the_top_level_seeds(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text('seeds = [1, 2]\nworkloads = [{source = "lublin", seeds = [7]}, '
                    '{source = "lublin256"}]\npolicies = ["fcfs"]\n')
    assert [(r.workload.label, r.seed) for r in load_experiment(path).runs] == \
        [("lublin", 7), ("lublin256", 1), ("lublin256", 2)]


def test_a_mapping_written_as_toml_reads_back_to_the_same_runs(tmp_path: Path) -> None:
    data = tomllib.loads(FULL.replace("traces/small.swf", str(tmp_path / "small.swf")))
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    experiment = experiment_from_mapping(data)
    assert tomllib.loads(experiment.text) == data
    assert to_toml({"a": {"b": [1, 2]}, "c": [{"d": "x y", "e": {"f": 1.5}}], "g": True}) == (
        'g = true\n\n[a]\nb = [1, 2]\n\n[[c]]\nd = "x y"\n\n[c.e]\nf = 1.5\n')


class Patient(EasyBackfilling):
    """A test policy with one parameter, checked the scikit-learn way."""

    def __init__(self, *, k: int = 1) -> None:
        super().__init__(order="fcfs")
        check_number("Patient", "k", k, int, 0)
        self.k = k


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register ``patient`` as a built-in-like policy whose 'k' is checked."""
    entry = registry.PolicyEntry("patient", Patient, {}, "test policy")
    monkeypatch.setitem(registry._BUILTIN, "patient", entry)


def test_grid_and_fixed_parameters_expand_and_are_recorded(tmp_path: Path, patient) -> None:
    path = tmp_path / "e.toml"
    path.write_text('[[workloads]]\nsource = "lublin"\n'
                    '[[policies]]\nname = "patient"\ngrid = { k = [0, 2, 5] }\n'
                    '[[policies]]\nname = "patient"\nparams = { k = 9 }\n')
    runs = load_experiment(path).runs
    assert [dict(r.params) for r in runs] == [{"k": 0}, {"k": 2}, {"k": 5}, {"k": 9}]


BAD = [
    # (experiment text, key path, part of the reason)
    ('sedes = [1]\nworkloads = ["lublin"]\npolicies = ["fcfs"]\n', "sedes",
     "unknown key 'sedes'; expected one of: name, description, workloads"),
    ('seeds = "x"\nworkloads = ["lublin"]\npolicies = ["fcfs"]\n', "seeds",
     "expected an integer >= 0, got string 'x'"),
    ('seeds = [1, true]\nworkloads = ["lublin"]\npolicies = ["fcfs"]\n', "seeds[1]",
     "expected an integer >= 0, got boolean True"),
    ('processors = 0\nworkloads = ["lublin"]\npolicies = ["fcfs"]\n', "processors",
     "expected an integer >= 1, got 0"),
    ('overrun = "stop"\nworkloads = ["lublin"]\npolicies = ["fcfs"]\n', "overrun",
     "expected one of 'kill', 'extend', got string 'stop'"),
    ('policies = ["fcfs"]\n', "workloads", "expected at least one workload"),
    ('workloads = []\npolicies = ["fcfs"]\n', "workloads", "expected a non-empty list"),
    ('workloads = ["lublin"]\n', "policies", "expected at least one policy"),
    ('workloads = [{source = "lublin", jbos = 5}]\npolicies = ["fcfs"]\n', "workloads[0].jbos",
     "unknown key 'jbos'"),
    ('workloads = [{source = "lublin", jobs = 1.5}]\npolicies = ["fcfs"]\n',
     "workloads[0].jobs", "expected an integer >= 1, got float 1.5"),
    ('workloads = [{source = "lublin", strict = true}]\npolicies = ["fcfs"]\n',
     "workloads[0].strict", "applies to SWF files only"),
    ('workloads = [{source = "small.swf", seeds = [1]}]\npolicies = ["fcfs"]\n',
     "workloads[0].seeds", "applies to built-in models only"),
    ('workloads = [{source = "small.swf", width_field = "used"}]\npolicies = ["fcfs"]\n',
     "workloads[0].width_field", "expected one of 'requested', 'allocated'"),
    ('workloads = [{source = "small.swf", window = [10, 5]}]\npolicies = ["fcfs"]\n',
     "workloads[0].window", "expected END > START, got [10, 5]"),
    ('workloads = ["lublin", "small.swf", {source = "lublin"}]\npolicies = ["fcfs"]\n',
     "workloads[2].label", "label 'lublin' is already used by workloads[0]"),
    ('workloads = ["lublin"]\npolicies = ["fcfs"]\n[transforms]\nshrink = [0.5, -1]\n',
     "transforms.shrink[1]", "expected a finite number > 0, got integer -1"),
    ('workloads = ["lublin"]\npolicies = ["fcfs"]\n[transforms]\nperfect_estimates = 1\n',
     "transforms.perfect_estimates", "expected true or false, got integer 1"),
    ('workloads = ["lublin"]\npolicies = ["fcfs"]\n[transforms]\nwidth = [8]\n',
     "transforms.width", "unknown key 'width'; expected one of: split, shrink, "
     "perfect_estimates"),
    ('workloads = ["lublin"]\npolicies = ["fcfs", "sjf+easy", "fifo"]\n', "policies[2].name",
     "unknown policy 'fifo'"),
    ('workloads = ["lublin"]\npolicies = [{name = "fcfs", params = {k = 4}}]\n',
     "policies[0].params.k", "policy 'fcfs' has no parameter 'k'"),
    ('workloads = ["lublin"]\npolicies = [{name = "fcfs", grid = {k = [1]}}]\n',
     "policies[0].grid.k[0]", "policy 'fcfs' has no parameter 'k'"),
    ('workloads = ["lublin"]\npolicies = [{name = "fcfs", grid = {k = 4}}]\n',
     "policies[0].grid.k", "expected a list, got integer 4"),
    ('workloads = ["lublin"]\npolicies = [{name = "fcfs", grid = {}, param = {}}]\n',
     "policies[0].param", "unknown key 'param'; expected one of: name, params, grid"),
    ('workloads = ["lublin"]\npolicies = [{grid = {}}]\n', "policies[0].name",
     "expected the policy's 'name'"),
    ('workloads = ["lublin"]\npolicies = ["fcfs", "fcfs+none"]\n', "policies[1]",
     "describes a run twice (workloads[0] with policies[0] and workloads[0] with policies[1]"),
    ('workloads = ["lublin"]\npolicies = ["fcfs"]\n[transforms]\nshrink = [1, 1.0]\n',
     "policies[0]", "describes a run twice"),
]


@pytest.mark.parametrize("text, key, reason", BAD, ids=[b[1] for b in BAD])
def test_bad_experiment_names_file_key_path_and_expectation(
        tmp_path: Path, text: str, key: str, reason: str) -> None:
    path = write_files(tmp_path, text, "bad.toml")
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert str(caught.value).startswith(f"{path}: field {key}: ")
    assert reason in caught.value.reason


def test_a_value_the_policy_refuses_names_its_grid_entry(tmp_path: Path, patient) -> None:
    path = tmp_path / "e.toml"
    path.write_text('workloads = ["lublin"]\n'
                    'policies = ["fcfs", {name = "patient", grid = {k = [1, -3]}}]\n')
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert str(caught.value) == (
        f"{path}: field policies[1].grid.k[1]: The 'k' parameter of Patient must be an int in "
        f"[0, inf). Got -3 instead.")


def test_a_missing_workload_file_is_named_with_its_full_path(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text('workloads = ["lublin", "traces/kth.swf"]\npolicies = ["fcfs"]\n')
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert caught.value.field == "workloads[1].source"
    assert caught.value.reason.endswith(f"no such file: {tmp_path / 'traces' / 'kth.swf'}")


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text('workloads = ["lublin"]\nseeds = [1 2]\npolicies = ["fcfs"]\n')
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert str(caught.value).startswith(f"{path}:2: not valid TOML: ")
    path.write_text('workloads = ["lublin"]\npolicies = ["fcfs"\n')
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert str(caught.value) == f"{path}:3: not valid TOML: Unclosed array (at the end)"


def test_a_missing_experiment_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such experiment file"):
        load_experiment(tmp_path / "nope.toml")


def test_nothing_runs_and_nothing_is_written_when_the_experiment_is_bad(tmp_path: Path) -> None:
    path = write_files(tmp_path, 'workloads = ["lublin"]\npolicies = ["fcfs", "fifo"]\n')
    with pytest.raises(InputError):
        run_sweep(path, tmp_path / "out", executor="serial")
    assert not (tmp_path / "out").exists()


SHARED_NASA = trace_path("NASA-iPSC-1993-3.1-cln.swf.gz")


def test_a_catalog_trace_that_is_not_cached_says_how_to_fetch_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "e.toml"
    path.write_text('workloads = ["NASA-iPSC"]\npolicies = ["fcfs"]\n')
    with pytest.raises(InputError) as caught:
        load_experiment(path)
    assert caught.value.field == "workloads[0].source"
    assert "run `schedlab traces fetch NASA-iPSC` first" in caught.value.reason


def test_a_cached_catalog_trace_is_a_file_workload(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if not SHARED_NASA.is_file():
        pytest.skip(f"{SHARED_NASA} is absent")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / SHARED_NASA.name).symlink_to(SHARED_NASA)
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "e.toml"
    path.write_text('workloads = [{source = "nasa-ipsc", jobs = 30}]\npolicies = ["fcfs"]\n')
    (run,) = load_experiment(path).runs
    assert (run.workload.kind, run.workload.label, run.workload.source) == \
        ("file", "NASA-iPSC-1993-3.1-cln", str(SHARED_NASA))
    summary = run_sweep(path, tmp_path / "out", executor="serial")
    assert (summary.finished, summary.failed) == (1, 0)
