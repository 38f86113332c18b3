"""One parameterised base and one registry (docs/architecture.md, "Policies").

Every kind of policy -- space sharing, time sharing, a grid cluster's local
policy, a grid dispatcher -- shares :class:`PolicyBase`'s parameters and
``clone``; every name of every kind is in one registry, tagged by execution
model and kind.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import schedlab
from schedlab.engine.policy import GRID, SPACE_SHARING
from schedlab.engine.simulator import run
from schedlab.engine.timesharing import TIME_SHARING, TimeSharingPolicy
from schedlab.errors import InputError
from schedlab.policies import registry
from schedlab.policies.base import Policy, PolicyBase
from schedlab.policies.grid import (
    DISPATCHERS,
    LOCAL_POLICIES,
    BackfillingFCFS,
    Dispatcher,
    FlexibleBackfillingMod,
    LeastWork,
    LocalPolicy,
    make_dispatcher,
    make_local_policy,
)
from schedlab.policies.registry import (
    DISPATCHER,
    POLICY,
    PolicyEntry,
    available_policies,
    canonical_name,
    entries,
    make_policy,
)
from schedlab.workload.job import Job, Workload

SMALL = Workload((Job(1, 0, 5, 5, 1), Job(2, 1, 5, 5, 2)), 4)


# ------------------------------------------------------------------ the base
def test_every_kind_is_a_policy_base_and_the_grid_ones_are_no_space_sharing_policy():
    for kind in (Policy, LocalPolicy, Dispatcher):
        assert issubclass(kind, PolicyBase)
    assert not issubclass(LocalPolicy, Policy) and not issubclass(Dispatcher, Policy)
    assert (Policy.execution_model, LocalPolicy.execution_model,
            Dispatcher.execution_model) == (SPACE_SHARING, GRID, GRID)


def test_clone_is_a_new_instance_with_the_same_parameters_and_checks_changes():
    policy = make_policy({"name": "sjf+easy", "reservation_window": 600})
    again = policy.clone()
    assert again is not policy and type(again) is type(policy)
    assert again.get_params() == policy.get_params()
    assert policy.clone(throttle=True).get_params() == {**policy.get_params(), "throttle": True}
    with pytest.raises(InputError, match="policy 'sjf\\+easy' has no parameter 'k'") as error:
        policy.clone(k=3)
    assert error.value.field == "k"
    with pytest.raises(InputError, match="reservation_window"):
        policy.clone(reservation_window=-1)


def test_a_used_instance_is_refused_and_its_clone_runs_the_same_schedule():
    policy = make_policy("fcfs+conservative")
    first = run(SMALL, policy)
    with pytest.raises(InputError, match="has already been run"):
        run(SMALL, policy)
    assert run(SMALL, policy.clone()).start.tolist() == first.start.tolist()


def test_set_params_rebuilds_in_place_and_changes_nothing_on_a_bad_value():
    policy = make_policy("gang")
    assert policy.set_params(strategy=3, short=100) is policy
    assert (policy.strategy, policy.short, policy.classes.short) == (3, 100, 100)
    before = policy.get_params()
    with pytest.raises(InputError, match="strategy"):
        policy.set_params(strategy=4)
    assert policy.get_params() == before


def test_set_params_makes_a_used_instance_fresh():
    policy = make_policy("fcfs+easy")
    first = run(SMALL, policy)
    assert run(SMALL, policy.set_params()).start.tolist() == first.start.tolist()


def test_grid_policies_and_dispatchers_clone_by_their_parameters():
    local = make_local_policy({"name": "bf-fcfs", "order": "priority"})
    assert make_local_policy(local) is not local
    assert make_local_policy(local).get_params() == local.get_params()
    dispatcher = make_dispatcher({"name": "least-work", "load": "remaining"})
    assert make_dispatcher(dispatcher) is dispatcher
    assert dispatcher.clone().get_params() == {"load": "remaining"}
    assert repr(dispatcher) == "LeastWork(load='remaining')"


# ------------------------------------------------------------------ the registry
def test_every_entry_is_tagged_by_the_model_and_kind_of_its_class():
    tags = {name: (entry.model, entry.kind) for name, entry in entries().items()}
    assert tags["sjf+easy"] == tags["qops"] == tags["dynp"] == (SPACE_SHARING, POLICY)
    assert tags["gang"] == (TIME_SHARING, POLICY)
    assert tags["bf-mod"] == tags["cs"] == (GRID, POLICY)
    assert tags["round-robin"] == tags["ms-heuristics"] == (GRID, DISPATCHER)
    for entry in entries().values():
        cls = entry.factory
        assert entry.model == cls.execution_model
        assert issubclass(cls, Dispatcher if entry.kind == DISPATCHER else
                          LocalPolicy if entry.model == GRID else
                          TimeSharingPolicy if entry.model == TIME_SHARING else Policy)


def test_the_grid_tables_are_the_registry_entries_of_each_kind():
    assert set(LOCAL_POLICIES) == set(entries(model=GRID, kind=POLICY))
    assert set(DISPATCHERS) == set(entries(kind=DISPATCHER))
    assert LOCAL_POLICIES["bf-mod"][0] is FlexibleBackfillingMod
    assert DISPATCHERS["least-work"][0] is LeastWork
    assert set(available_policies()) == set(entries()) - set(entries(model=GRID))


@pytest.mark.parametrize("typed, registered", [
    ("BF_MOD", "bf-mod"), (" Round_Robin ", "round-robin"), ("easy", "fcfs+easy"),
    ("SJF+none", "sjf"), ("dynp_basic", "dynp-basic"), ("my_plugin", "my_plugin"),
])
def test_canonical_name_reads_the_spellings_of_a_registered_name(typed, registered):
    assert canonical_name(typed) == registered


@pytest.mark.parametrize("spec", ["bf-fcfs", "BF_FCFS", {"name": "cs"}, BackfillingFCFS()])
def test_make_policy_refuses_a_grid_policy_it_needs_a_platform(spec):
    with pytest.raises(InputError, match="is a grid policy: it needs a platform") as error:
        make_policy(spec)
    assert error.value.field == "policy"


def test_make_policy_refuses_a_dispatcher_and_an_unknown_name():
    with pytest.raises(InputError, match="a policy is a name or a mapping, got LeastWork"):
        make_policy(LeastWork())
    with pytest.raises(InputError, match="unknown policy 'fifo'"):
        make_policy("fifo")
    with pytest.raises(InputError, match="policy 'easy' is not a grid policy: a run on a "
                                         "platform needs one of grid-fcfs, bf-fcfs"):
        make_local_policy("easy")
    with pytest.raises(InputError, match="unknown grid policy 'fifo'"):
        make_local_policy({"name": "fifo"})
    with pytest.raises(InputError, match="grid policy 'bf-mod' has no parameter 'k'"):
        make_local_policy({"name": "BF_MOD", "k": 1})
    with pytest.raises(InputError, match="a dispatcher mapping needs a 'name' key"):
        make_dispatcher({"load": "work"})


class Nearest(Dispatcher):
    """The first eligible cluster."""

    name = "nearest"

    def dispatch(self, view, task) -> int:
        return int(view.eligible_clusters(task)[0])


class Greedy(LocalPolicy):
    """Every waiting job on its fastest machine with room."""

    name = "grid-greedy"

    def __init__(self, *, limit: int = 1) -> None:
        self.limit = limit


def test_a_plugin_is_tagged_by_its_class_and_built_by_its_kind(monkeypatch):
    plugins = {cls.name: PolicyEntry(cls.name, cls, {}, cls.__doc__, source="tests")
               for cls in (Nearest, Greedy)}
    monkeypatch.setattr(registry, "_plugin_entries", lambda: plugins)
    assert (entries()["nearest"].kind, entries()["grid-greedy"].model) == (DISPATCHER, GRID)
    assert "nearest" not in available_policies() and "grid-greedy" not in available_policies()
    assert isinstance(make_dispatcher("nearest"), Nearest)
    assert make_local_policy({"name": "grid-greedy", "limit": 2}).get_params() == {"limit": 2}
    with pytest.raises(InputError, match="'grid-greedy' is a grid policy"):
        make_policy("grid-greedy")


def test_the_registry_names_grid_policies_without_importing_them():
    """The grid package pulls in scipy: a space-sharing policy by name does not load it,
    and neither does telling a grid name from the others."""
    code = ("import sys\n"
            "from schedlab.policies.registry import canonical_name, make_policy\n"
            "make_policy('fcfs+easy')\n"
            "assert canonical_name('BF_MOD') == 'bf-mod'\n"
            "try:\n"
            "    make_policy('bf-mod')\n"
            "except Exception as error:\n"
            "    assert 'needs a platform' in str(error)\n"
            "print('schedlab.policies.grid' in sys.modules)\n")
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert ran.stdout.strip() == "False"


def test_the_api_builds_every_policy_of_one_machine_by_name():
    for name in available_policies():
        policy = schedlab.make_policy(name)
        assert isinstance(policy, PolicyBase)
        assert policy.clone().get_params() == policy.get_params()


@pytest.mark.parametrize("spec, make", [
    ({"name": "gang"}, make_policy), ({"name": "fcfs+easy"}, make_policy),
    ({"name": "cs"}, make_local_policy), ({"name": "ms-heuristics"}, make_dispatcher)])
@pytest.mark.parametrize("value", [1, "false"])
def test_a_switch_of_any_kind_takes_only_true_or_false(spec, make, value):
    param = {"gang": "switchable", "fcfs+easy": "throttle", "cs": "preemption",
             "ms-heuristics": "classify"}[spec["name"]]
    with pytest.raises(InputError, match=f"'{param}' parameter of .* must be true or false. "
                                         f"Got {value!r} instead") as error:
        make({**spec, param: value})
    assert error.value.field == param
