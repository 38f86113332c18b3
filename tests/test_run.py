"""One run description (schedlab.run): every way of running a simulation gives the same schedule.

The API, ``schedlab simulate``/``compare`` and the sweep runner all build a
:class:`RunSpec` and call :func:`execute`; these tests run the same
description through each and compare the schedules, check the engine
dispatch, and check that the reservation placement and throttling are policy
parameters with the meaning the command-line options had.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli.app import app
from schedlab.engine.simulator import run
from schedlab.errors import InputError
from schedlab.execution import MODELS, execute, prepare_workload
from schedlab.experiments.runner import simulate_run
from schedlab.experiments.spec import experiment_from_mapping
from schedlab.pipeline import Transforms
from schedlab.policies.backfilling import ConservativeBackfilling, EasyBackfilling
from schedlab.policies.registry import make_policy
from schedlab.policies.reservations import PAPER_CAP, RESERVATION_PARAMS, ReservationRules
from schedlab.run import RunSpec
from schedlab.workload.models import generate_builtin
from schedlab.workload.reservations import Reservation, write_reservations
from schedlab.workload.transforms import shrink

runner = CliRunner()


def cli_starts(out: Path) -> list[int]:
    with open(out / "jobs.csv", newline="") as handle:
        return [int(row["start"]) for row in csv.DictReader(handle)]


def test_execute_is_the_engine_run_on_the_described_workload():
    spec = RunSpec("lublin", "sjf+easy", jobs=300, seed=2, transforms=Transforms(shrink=0.8))
    expected = run(shrink(generate_builtin("lublin", n_jobs=300, seed=2), 0.8),
                   EasyBackfilling(order="sjf"))
    result = execute(spec)
    assert result.policy == "sjf+easy"
    assert np.array_equal(result.start, expected.start)
    assert np.array_equal(result.end, expected.end)


def test_the_api_the_cli_and_the_sweep_runner_give_the_same_schedule(tmp_path):
    description = RunSpec("lublin", "fcfs+conservative", jobs=300, seed=1,
                          transforms=Transforms(shrink=0.7, load=1.2))
    direct = execute(description)
    through_api = schedlab.simulate(prepare_workload(description), "fcfs+conservative")
    cli = runner.invoke(app, ["simulate", "lublin", "--jobs", "300", "--seed", "1",
                              "--shrink", "0.7", "--load", "1.2", "-p", "fcfs+conservative",
                              "--out", str(tmp_path / "cli")])
    assert cli.exit_code == 0, cli.output
    sweep = experiment_from_mapping({"workloads": [{"source": "lublin", "jobs": 300}],
                                     "seeds": [1], "policies": ["fcfs+conservative"],
                                     "transforms": {"shrink": 0.7, "load": 1.2}})
    (sweep_run,) = sweep.runs
    swept, _ = simulate_run(sweep_run)
    assert direct.start.tolist() == through_api.start.tolist() == cli_starts(tmp_path / "cli") \
        == swept.start.tolist()


def test_compare_in_the_api_is_simulate_per_policy():
    load = generate_builtin("lublin", n_jobs=200, seed=4)
    results = schedlab.compare(load, ["fcfs", "fcfs+easy"])
    assert list(results) == ["fcfs", "fcfs+easy"]
    assert np.array_equal(results["fcfs+easy"].start, schedlab.simulate(load, "fcfs+easy").start)


class OnADataflowMachine(EasyBackfilling):
    """A policy that declares an execution model this build has no engine for."""

    execution_model = "dataflow"


def test_a_policy_needing_an_engine_that_does_not_exist_is_an_input_error():
    load = generate_builtin("lublin", n_jobs=20)
    with pytest.raises(InputError, match=r"needs the 'dataflow' execution model.*grid, space-sharing"):
        execute(RunSpec(load, OnADataflowMachine()))


def test_a_new_execution_model_plugs_in_through_the_table(monkeypatch):
    """One entry of MODELS is all a model needs: its policies are built, its input read, its
    options refused and its engine run through execute (docs/how-to/writing-an-execution-model.md)."""
    seen = {}

    def fake_engine(workload, policy, spec, progress):
        seen.update(policy=policy.name, jobs=len(workload), tick=spec.tick)
        return run(workload, EasyBackfilling())

    space = MODELS["space-sharing"]
    dataflow = replace(space, name="dataflow", title="a dataflow run",
                       options=space.options - {"tick"}, refusal="it has no scheduling tick",
                       run=fake_engine)
    monkeypatch.setitem(MODELS, "dataflow", dataflow)
    load = generate_builtin("lublin", n_jobs=20)
    execute(RunSpec(load, OnADataflowMachine(), max_queued_per_user=3))
    assert seen == {"policy": "fcfs+easy", "jobs": 20, "tick": 0}
    with pytest.raises(InputError, match=r"a dataflow run takes no tick: it has no scheduling "
                                         r"tick; a space-sharing run \(a space-sharing policy\) does"):
        execute(RunSpec(load, OnADataflowMachine(), tick=60))


def test_a_gang_policy_runs_on_the_time_sharing_engine():
    from schedlab.engine.timesharing import run_timesharing

    load = generate_builtin("lublin", n_jobs=60, seed=2)
    result = execute(RunSpec(load, "gang"))
    assert result.timesharing is not None
    assert np.array_equal(result.start, run_timesharing(load, make_policy("gang")).start)
    with pytest.raises(InputError, match=r"a time-sharing run takes no tick: ticks, queue limits"):
        execute(RunSpec(load, "gang", tick=60))


def test_a_workload_with_no_job_left_is_an_input_error():
    with pytest.raises(InputError, match="no job left"):
        execute(RunSpec("lublin", "fcfs", jobs=50, transforms=Transforms(window=(0, 1))))


# ------------------------------------------------------------ reservation parameters


@pytest.mark.parametrize("name", ["fcfs+easy", "sjf+conservative", "fcfs+plan", "dynp",
                                  "dynp-basic"])
def test_every_policy_that_takes_requests_has_the_reservation_parameters(name):
    params = make_policy(name).get_params()
    assert {k: params[k] for k in RESERVATION_PARAMS} == RESERVATION_PARAMS
    assert make_policy(name).reservation_rules == ReservationRules()


@pytest.mark.parametrize("name", ["fcfs", "qops", "edf"])
def test_policies_that_refuse_requests_have_no_reservation_parameters(name):
    assert not set(RESERVATION_PARAMS) & set(make_policy(name).get_params())


@pytest.mark.parametrize("params, rules", [
    ({}, ReservationRules()),
    ({"throttle": True}, ReservationRules(cap=PAPER_CAP)),
    ({"reservation_cap": 1000}, ReservationRules(cap=1000)),      # a cap implies throttling
    ({"throttle": True, "reservation_cap": 5, "reservation_window": 60,
      "reservation_placement": "earliest", "min_reservation_duration": 7,
      "min_reservation_notice": 9},
     ReservationRules(placement="earliest", cap=5, window=60, min_duration=7, min_notice=9)),
])
def test_reservation_parameters_build_the_rules(params, rules):
    policy = make_policy({"name": "fcfs+easy", **params})
    assert policy.reservation_rules == rules
    assert type(policy)(**policy.get_params()).reservation_rules == rules


@pytest.mark.parametrize("param, value, expected", [
    ("reservation_placement", "late", "must be one of 'exact', 'earliest'"),
    ("throttle", "yes", "must be true or false"),
    ("reservation_cap", -1, "must be an int in \\[0, inf\\)"),
    ("reservation_window", 0, "must be an int in \\[1, inf\\)"),
    ("min_reservation_notice", 1.5, "must be an int"),
])
def test_a_bad_reservation_parameter_names_itself(param, value, expected):
    with pytest.raises(InputError, match=f"'{param}' parameter of ConservativeBackfilling "
                                         f"{expected}"):
        make_policy({"name": "fcfs+conservative", param: value})


def test_the_policies_command_lists_the_reservation_parameters():
    result = runner.invoke(app, ["policies"])
    assert result.exit_code == 0
    easy = next(line for line in result.output.splitlines() if "│ fcfs+easy " in line)
    assert "reservation_placement='exact'" in easy and "min_reservation_notice=0" in easy


def reservation_case(tmp_path: Path) -> tuple[Path, Path]:
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n" + "".join(
        f"{i} {10 * i} -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n" for i in range(1, 6)))
    requests = tmp_path / "r.csv"
    write_reservations([Reservation(1, 0, 25, 50, 2), Reservation(2, 5, 300, 50, 4)], requests)
    return trace, requests


def test_the_cli_options_set_the_policy_parameters(tmp_path):
    trace, requests = reservation_case(tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(trace), "-p", "fcfs+conservative",
                                 "--reservations", str(requests), "--reservation-placement",
                                 "earliest", "--reservation-cap", "100000", "--out", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads((out / "metrics.json").read_text())
    assert document["params"]["reservation_placement"] == "earliest"
    assert document["params"]["reservation_cap"] == 100000
    assert document["meta"]["reservation_rules"] == {"placement": "earliest", "cap": 100000,
                                                     "window": 604800, "min_duration": 0,
                                                     "min_notice": 0}
    by_param = runner.invoke(app, ["simulate", str(trace), "-p", "fcfs+conservative",
                                   "--reservations", str(requests), "--param",
                                   "reservation_placement=earliest", "--param",
                                   "reservation_cap=100000", "--out", str(tmp_path / "p")])
    assert by_param.exit_code == 0, by_param.output
    assert cli_starts(tmp_path / "p") == cli_starts(out)
    assert (tmp_path / "p" / "reservations.csv").read_text() == \
        (out / "reservations.csv").read_text()


def test_compare_passes_the_reservation_options_only_to_policies_that_take_requests(tmp_path):
    trace, requests = reservation_case(tmp_path)
    result = runner.invoke(app, ["compare", str(trace), "--policies", "fcfs,fcfs+easy",
                                 "--reservations", str(requests), "--reservation-placement",
                                 "earliest", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    easy = json.loads((tmp_path / "c" / "fcfs_easy" / "metrics.json").read_text())
    assert easy["params"]["reservation_placement"] == "earliest"
    fcfs = json.loads((tmp_path / "c" / "fcfs" / "metrics.json").read_text())
    assert fcfs["params"] == {"order": "fcfs"}
    assert fcfs["metrics"]["reservations_rejected.unsupported"] == 2


def test_sweep_reservation_rules_become_the_policy_parameters_with_the_same_run_ids(tmp_path):
    # The run ids of an experiment with a [reservations.rules] grid, as computed before
    # the rules became policy parameters: a run's identity is still its sweep description.
    mapping = {"workloads": [{"source": "lublin", "jobs": 200}],
               "policies": ["fcfs+easy", "fcfs+conservative"], "seeds": [3],
               "reservations": {"per_week": 15, "seed": 4, "baseline": True, "tick": 900,
                                "rules": {"placement": ["exact", "earliest"],
                                          "throttle": [False, True], "cap_hours": 12,
                                          "min_notice": 3600}}}
    runs = experiment_from_mapping(mapping).runs
    assert [r.run_id for r in runs] == [
        "591cb1dad85e98eb", "a3b6a7919e6b5226", "e4241cedd1d2cc08", "11c37a36122e1fdc",
        "8954001ce73a5d4b", "5c0825dfae5c8e57", "a800bdfe2382f341", "fefa1bea01d5b2ba",
        "4ff9cc32f3738547", "a5a3d27e48b9d842"]
    throttled = next(r for r in runs if r.reservations.rules is not None
                     and dict(r.reservations.rules).get("placement") == "earliest"
                     and "cap_hours" in dict(r.reservations.rules)
                     and r.policy == "fcfs+conservative")
    result, _ = simulate_run(throttled)
    assert result.params["reservation_placement"] == "earliest"
    assert result.meta["reservation_rules"] == {"placement": "earliest",
                                                "cap": 128 * 12 * 3600, "window": 604800,
                                                "min_duration": 0, "min_notice": 3600}
    assert result.meta["tick"] == 900


def test_a_conservative_policy_object_keeps_its_reservation_parameters():
    policy = ConservativeBackfilling(order="sjf", reservation_placement="earliest")
    assert policy.get_params()["order"] == "sjf"
    assert policy.reservation_rules.placement == "earliest"
