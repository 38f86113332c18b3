"""The conformance suite: it passes every built-in policy and fails broken ones.

A conformance suite that cannot fail proves nothing, so each broken policy
below makes a mistake the engine's own validation does not catch at once
(docs/reference/engine.md, "Invariants"): decisions drawn from global random state,
state leaking from one run into the next, bookkeeping changed behind the
engine's back, a job dropped instead of rejected.  The last part registers a
third-party policy through the ``schedlab.policies`` entry-point group.
"""

from __future__ import annotations

import random
import sys
import textwrap
from unittest.mock import patch

import pytest

import schedlab
from schedlab.engine.simulator import run
from schedlab.policies.base import Policy
from schedlab.testing import check_policy, parametrize_with_checks
from schedlab.workload.job import Job, Workload


@pytest.mark.parametrize("name", sorted(schedlab.available_policies()))
def test_every_registered_policy_passes(name):
    check_policy(name)


def test_policy_given_as_mapping_instance_or_factory_passes():
    check_policy({"name": "sjf+easy"})
    check_policy(schedlab.make_policy("ljf+conservative"))
    check_policy(lambda: schedlab.make_policy("fcfs"))


# ------------------------------------------------------------ broken policies
def start_in_order(ctx, jobs) -> None:
    """Start the given jobs in order while they fit."""
    for job in jobs:
        if job.width > ctx.free:
            return
        ctx.start(job)


_GLOBAL_RNG = random.Random(2001)


class GlobalRandomPick(Policy):
    """Starts waiting jobs in an order drawn from a module-level random generator."""

    name = "global-random"

    def schedule(self, ctx) -> None:
        jobs = list(ctx.waiting.values())
        _GLOBAL_RNG.shuffle(jobs)
        start_in_order(ctx, jobs)


class LeakyAlternation(Policy):
    """Keeps a run counter on the class: every other run it serves the queue backwards."""

    name = "leaky"
    runs = 0

    def __init__(self) -> None:
        self.counted = False

    def schedule(self, ctx) -> None:
        if not self.counted:
            type(self).runs += 1
            self.counted = True
        jobs = list(ctx.waiting.values())
        start_in_order(ctx, jobs if type(self).runs % 2 else jobs[::-1])


class Overbooking(Policy):
    """Tells the engine the whole machine is free before every start."""

    name = "overbooking"

    def schedule(self, ctx) -> None:
        for job in list(ctx.waiting.values()):
            ctx.free = ctx.processors
            ctx.start(job)


class SilentDrop(Policy):
    """Removes wide jobs from the queue itself instead of calling ``ctx.reject``."""

    name = "silent-drop"

    def on_submit(self, ctx, job) -> None:
        if 2 * job.width > ctx.processors:
            del ctx.waiting[job.id]

    def schedule(self, ctx) -> None:
        start_in_order(ctx, list(ctx.waiting.values()))


class ArrivalClock(Policy):
    """FCFS over the jobs it heard of at their submit instant; it ignores any told later.

    It takes for granted that ``on_submit`` comes at the job's submit time,
    which is false with a scheduling tick or a per-user queue limit.
    """

    name = "arrival-clock"

    def __init__(self) -> None:
        self.queue: list = []

    def on_submit(self, ctx, job) -> None:
        if job.submit == ctx.now:
            self.queue.append(job)

    def schedule(self, ctx) -> None:
        while self.queue and self.queue[0].width <= ctx.free:
            ctx.start(self.queue.pop(0))


@pytest.mark.parametrize("policy,message", [
    (ArrivalClock, r"arrival-clock on '.*' \(overrun=kill, tick=7\): policy 'arrival-clock' left "
                   r"job \d+ waiting with no event to come"),
    (GlobalRandomPick(), r"global-random on '.*' \(overrun=kill\): two runs differ in 'start'"),
    (LeakyAlternation(), r"leaky on '.*' \(overrun=kill\): two runs differ in 'start'"),
    (Overbooking(), r"overbooking on '.*' \(overrun=kill\): \d+ processors in use at time \d+ "
                    r"on a \d+-processor machine"),
    (SilentDrop(), r"silent-drop on '.*' \(overrun=kill\): job \d+ starts before it is submitted"),
], ids=["tick-blind", "global-random", "state-leak", "overbooking", "silent-drop"])
def test_broken_policy_fails(policy, message):
    with pytest.raises(AssertionError, match=message):
        check_policy(policy)


def test_a_policy_blind_to_the_queue_limit_fails():
    limited = patch("schedlab.conformance.SPACE_SHARING_OPTIONS",
                    ({"overrun": "kill", "max_queued_per_user": 2},))
    with limited, pytest.raises(AssertionError, match=r"arrival-clock on '.*' \(overrun=kill, "
                                                      r"max_queued_per_user=2\): policy "
                                                      r"'arrival-clock' left job \d+ waiting"):
        check_policy(ArrivalClock)


def test_a_used_instance_is_refused():
    policy = schedlab.make_policy("fcfs")
    run(Workload((Job(1, 0, 5, 5, 1),), 4), policy)
    with pytest.raises(schedlab.InputError, match="has already been run"):
        check_policy(policy)


def test_policy_without_parameters_reports_none():
    """A plug-in may define no ``__init__`` at all: it has no parameters to record."""
    workload = Workload((Job(1, 0, 5, 5, 4), Job(2, 0, 5, 5, 1)), 4)
    result = run(workload, SilentDrop())
    assert result.params == {}
    assert result.start.tolist() == [-1, 0]       # job 1 dropped: never started


# ------------------------------------------------------- a third-party plug-in
PLUGIN_MODULE = "schedlab_plugin_demo"
PLUGIN_SOURCE = '''
from schedlab.policies.base import Policy


class WidestFirst(Policy):
    """Widest job first, no backfilling."""

    name = "widest"

    def __init__(self, *, cap: int = 0) -> None:
        self.cap = cap

    def schedule(self, ctx) -> None:
        for job in sorted(ctx.waiting.values(), key=lambda j: (-j.width, j.submit, j.id)):
            if job.width > ctx.free:
                return
            ctx.start(job)
'''


@pytest.fixture
def plugin_on_path(tmp_path, monkeypatch):
    """An installed-looking distribution that registers ``widest`` as a policy."""
    (tmp_path / f"{PLUGIN_MODULE}.py").write_text(textwrap.dedent(PLUGIN_SOURCE))
    dist_info = tmp_path / f"{PLUGIN_MODULE}-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: schedlab-plugin-demo\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text(
        f"[schedlab.policies]\nwidest = {PLUGIN_MODULE}:WidestFirst\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop(PLUGIN_MODULE, None)


def test_plugin_is_found_through_its_entry_point(plugin_on_path):
    entry = schedlab.available_policies()["widest"]
    assert entry.source == f"{PLUGIN_MODULE}:WidestFirst"
    assert entry.summary == "Widest job first, no backfilling."
    policy = schedlab.make_policy("widest")
    assert type(policy).__name__ == "WidestFirst"
    assert schedlab.make_policy({"name": "widest", "cap": 3}).get_params() == {"cap": 3}


def test_plugin_runs_and_passes_the_conformance_suite(plugin_on_path):
    # Machine of 4: the 4-wide job 2 goes first although job 1 came first.
    workload = Workload((Job(1, 0, 5, 5, 1), Job(2, 0, 5, 5, 4)), 4)
    result = run(workload, schedlab.make_policy("widest"))
    assert result.start.tolist() == [5, 0]
    assert result.policy == "widest"
    check_policy("widest")


def test_plugin_disappears_with_its_distribution():
    assert "widest" not in schedlab.available_policies()
    with pytest.raises(schedlab.InputError, match="unknown policy 'widest'"):
        schedlab.make_policy("widest")


# ------------------------------------------------------------ every execution model


@pytest.mark.parametrize("name", ["bf-fcfs", "grid-fcfs", "edf"])
def test_grid_local_policies_pass_the_grid_models_cases(name):
    check_policy(name)


def test_each_model_has_its_own_cases():
    from schedlab.execution import MODELS

    labels = {name: [case.label for case in model.cases()] for name, model in MODELS.items()}
    assert any("tick=7" in label for label in labels["space-sharing"])
    assert any("reservations=" in label for label in labels["space-sharing"])
    assert not any("tick" in label or "reservations" in label
                   for label in labels["time-sharing"])
    assert {"clusters=1", "clusters=2", "allocation=exclusive"} <= {
        part.strip("()' ") for label in labels["grid"] for part in label.split(", ")} | {
        part for label in labels["grid"] for part in label.replace("(", ", ").replace(")", "")
        .split(", ")}


def test_a_grid_policy_drawing_from_global_random_state_fails():
    """A grid local policy that shuffles its queue with a module-level generator: each run
    of a conformance case differs, and the suite names the case."""
    from schedlab.policies.grid import GridFCFS

    class ShufflingGridFCFS(GridFCFS):
        name = "shuffling-grid-fcfs"

        def schedule(self, ctx) -> None:
            tasks = list(ctx.waiting.values())
            _GLOBAL_RNG.shuffle(tasks)
            for task in tasks:
                machine = ctx.fastest_fit(task)
                if machine is not None:
                    ctx.start(task, machine)

    with pytest.raises(AssertionError, match=r"shuffling-grid-fcfs on 'generated grid jobs' "
                                             r"\(clusters=1, .*two runs differ"):
        check_policy(ShufflingGridFCFS())


@parametrize_with_checks(["fcfs+easy", "gang", "grid-fcfs"])
def test_the_per_case_helper_runs_each_models_cases(check):
    check()


def test_the_per_case_helper_makes_one_test_per_case():
    from schedlab.execution import MODELS

    marker = parametrize_with_checks(["fcfs", "bf-fcfs"])
    ids = [param.id for param in marker.args[1]]
    assert len(ids) == len(MODELS["space-sharing"].cases()) + len(MODELS["grid"].cases())
    assert ids[0].startswith("fcfs: 'same-time events' (overrun=kill)")
    assert ids[-1].startswith("bf-fcfs: 'generated grid jobs' (clusters=2")
