"""Flexible Backfilling (bf-unmod, bf-mod) and grid-edf: hand-checked priorities and
schedules on the 3-machine, 2-licence cluster of helpers.three_machines.

Machines: fast (4 CPUs, rating 200), mid (4, 100), small (2, 100).  Licence A:
1 copy on fast and mid; licence B: 2 copies anywhere.  Weights: the thesis'
§4.1 footnote (age 0.01; Deadline Max 20, Min 0.1, k 1.4; W 1; boost 2).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.api import simulate_grid
from schedlab.cli.app import app
from schedlab.engine.grid import TaskColumns, run_grid
from schedlab.errors import InputError
from schedlab.policies.grid import (
    FlexibleBackfillingMod,
    FlexibleBackfillingUnmod,
    GridEDF,
    GridFCFS,
    make_local_policy,
)
from schedlab.policies.grid.flexible import (
    anti_aging,
    deadline_term,
    licence_sums,
    licence_term,
    wait_minimization,
)
from schedlab.policies.grid.flexible_kernels import candidates_order, priority_keys

from .helpers import grid_workload, three_machines

FAST, MID, SMALL = 0, 1, 2


def simulate(rows, policy, allocation="shared"):
    return run_grid(grid_workload(rows), three_machines(), [policy], allocation=allocation)


def recording(cls):
    """``cls`` that keeps the priorities it computed at every pass, by time."""
    class Recording(cls):
        def schedule(self, ctx):
            self.seen = getattr(self, "seen", {})
            self.seen[ctx.now] = self.priorities(ctx)
            super().schedule(ctx)
    return Recording()


#: Every machine busy until 100; job 4 (licence A, deadline 260), 5 (short, nothing),
#: 6 (A and B, long) queue behind them.
PRIORITY_ROWS = [(0, 100, 100, 4, (), 200),              # 1: fast [0, 100]
                 (0, 100, 100, 4, (), 100),              # 2: mid [0, 100]
                 (0, 100, 100, 2, (), 100),              # 3: small [0, 100]
                 (10, 200, 200, 1, ("A",), 100, 260),    # 4
                 (20, 100, 100, 1, (), 100),             # 5
                 (20, 400, 400, 1, ("A", "B"), 100)]     # 6


@pytest.mark.parametrize("cls", [FlexibleBackfillingMod, FlexibleBackfillingUnmod])
def test_priorities_by_hand(cls):
    policy = recording(cls)
    result = simulate(PRIORITY_ROWS, policy)
    at20 = policy.seen[20]
    # rho: A asked by jobs 4 and 6, 1 copy -> 2.0 (critical); B by job 6, 2 copies -> 0.5.
    # Job 4: age 10 x 0.01; Deadline: Extime 220, T = 260 - 1.4 x 200 = -20,
    # 19.9 x 240 / 280 + 0.1; Licence 1 x 2.0; Wait 2 x 100 / 200.
    assert at20[4].aging == pytest.approx(0.1)
    assert at20[4].deadline == pytest.approx(19.9 * 240 / 280 + 0.1)
    assert at20[4].licence == pytest.approx(2.0)
    assert at20[4].wait == pytest.approx(1.0)
    assert at20[5] == pytest.approx((0.0, 0.0, 0.0, 2.0))
    assert at20[6] == pytest.approx((0.0, 0.0, 0.5 + 1 * 2.0, 0.5))
    # At 100 job 4's Extime (300) is past its deadline: Deadline gives 0.
    at100 = policy.seen[100]
    assert [at100[j].total for j in (4, 5, 6)] == pytest.approx([3.9, 2.8, 3.8])
    # 4 (highest) on fast until 200; 6 waits for A's copy (reserved on fast at 200);
    # 5 backfills on fast, ending at 150 before the reservation.
    assert result.start.tolist() == [0, 0, 0, 100, 100, 200]
    assert result.end.tolist() == [100, 100, 100, 200, 150, 400]
    assert result.grid.machine.tolist() == [FAST, MID, SMALL, FAST, FAST, FAST]


#: fast and mid busy until 100; job 3 (no deadline) queues first and gets the
#: reservation; job 4 arrives with a deadline of 200 and a higher priority.
HOLDER_ROWS = [(0, 100, 100, 4, (), 200),                # 1: fast [0, 100]
               (0, 100, 100, 4, (), 100),                # 2: mid [0, 100]
               (10, 100, 100, 4, (), 100),               # 3
               (20, 100, 100, 4, (), 100, 200)]          # 4


def test_bf_mod_gives_the_reservation_to_the_higher_priority():
    policy = recording(FlexibleBackfillingMod)
    result = simulate(HOLDER_ROWS, policy)
    # at 20: job 4's Deadline 19.9 x (120 - 60) / 140 + 0.1 beats job 3's 2.0 + 0.1
    assert policy.seen[20][4].total == pytest.approx(19.9 * 60 / 140 + 0.1 + 2.0)
    assert policy.seen[20][3].total == pytest.approx(2.1)
    # at 100 job 4 (Deadline at Max: 20 + 0.8 + 2) goes first, to the fastest machine
    assert policy.seen[100][4].total == pytest.approx(22.8)
    assert result.start.tolist() == [0, 0, 100, 100]
    assert result.grid.machine.tolist() == [FAST, MID, MID, FAST]
    assert result.end.tolist() == [100, 100, 200, 150]
    assert result.stats == {"reservation_holders": 2}


def test_bf_unmod_keeps_the_reservation_with_its_job_until_it_starts():
    result = simulate(HOLDER_ROWS, FlexibleBackfillingUnmod())
    # job 3 got the reservation at 10 and keeps it: it starts first, on fast
    assert result.start.tolist() == [0, 0, 100, 100]
    assert result.grid.machine.tolist() == [FAST, MID, FAST, MID]
    assert result.end.tolist() == [100, 100, 150, 200]
    assert result.stats == {"reservation_holders": 1}


#: fast and mid busy until 100, small free: job 3 and 4 wait (4 CPUs), job 4 with the
#: earlier deadline; job 5 (2 CPUs, no deadline) fits on small now.
EDF_ROWS = [(0, 100, 100, 4, (), 200),                   # 1: fast [0, 100]
            (0, 100, 100, 4, (), 100),                   # 2: mid [0, 100]
            (5, 100, 100, 4, (), 100, 1000),             # 3
            (6, 100, 100, 4, (), 100, 500),              # 4
            (7, 50, 50, 2, (), 100)]                     # 5


def test_grid_edf_takes_earliest_deadline_first_and_never_blocks():
    result = simulate(EDF_ROWS, GridEDF())
    assert result.start.tolist() == [0, 0, 100, 100, 7]
    assert result.grid.machine.tolist() == [FAST, MID, MID, FAST, SMALL]
    assert result.end.tolist() == [100, 100, 200, 150, 57]
    fcfs = simulate(EDF_ROWS, GridFCFS())           # FCFS: 5 waits behind 3, 3 before 4
    assert fcfs.start.tolist() == [0, 0, 100, 100, 100]
    assert fcfs.grid.machine.tolist() == [FAST, MID, FAST, MID, SMALL]


def test_deadline_term_is_min_then_a_line_to_max_then_zero():
    estimate = np.full(5, 100.0)
    deadline = np.array([1000.0, 300.0, 200.0, 199.0, np.nan])
    # now 100: Extime 200; T = deadline - 140
    got = deadline_term(100, estimate, deadline, 0.1, 20.0, 1.4)
    assert got == pytest.approx([0.1, 19.9 * 40 / 140 + 0.1, 20.0, 0.0, 0.0])


def test_licence_term_counts_critical_licences_d_times():
    needs = np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    rho = np.array([2.0, 3.0, 0.5])                  # two critical, one not
    assert licence_term(needs, rho, 2.0) == pytest.approx([2 * (0.5 + 2 * 5.0), 1.0, 0.0])


@pytest.mark.parametrize("params, field", [
    ({"deadline_k": 0.5}, "deadline_k"),
    ({"age_factor": -1}, "age_factor"),
    ({"deadline_max": 0.05}, "deadline_max"),
    ({"priority_boost_value": "x"}, "priority_boost_value"),
    ({"reserve_by": "soon"}, "reserve_by"),
])
def test_bad_weights_are_input_errors_naming_the_parameter(params, field):
    with pytest.raises(InputError) as error:
        make_local_policy({"name": "bf-mod", **params})
    assert error.value.field == field


def test_the_underscore_spelling_names_the_same_policies():
    assert isinstance(make_local_policy("BF_MOD"), FlexibleBackfillingMod)
    assert isinstance(make_local_policy({"name": "bf_unmod"}), FlexibleBackfillingUnmod)
    result = simulate_grid(grid_workload(HOLDER_ROWS), "bf_unmod", platform=three_machines())
    assert result.start.tolist() == [0, 0, 100, 100]


def test_cli_bad_weight_exits_2_and_policies_lists_the_weights(tmp_path):
    runner = CliRunner()
    listing = runner.invoke(app, ["policies"])
    assert listing.exit_code == 0
    for text in ("bf-unmod", "bf-mod", "grid-edf", "priority_boost_value=2.0",
                 "deadline_k=1.4"):
        assert text in listing.output
    platform = str(tmp_path / "p.toml")
    for args in (["platform", "generate", "--preset", "thesis-4.1", "--seed", "1", "-o",
                  platform],
                 ["generate", "grid", "--platform", platform, "-n", "20", "--seed", "1", "-o",
                  str(tmp_path / "j.swf")]):
        made = runner.invoke(app, args)
        assert made.exit_code == 0, made.output
    bad = runner.invoke(app, ["simulate", str(tmp_path / "j.swf"), "--platform", platform,
                              "--policy", "bf-mod", "--param", "deadline_k=0.5"])
    assert bad.exit_code == 2
    assert "deadline_k" in bad.output


def one_machine_columns(submit: np.ndarray, estimate: np.ndarray, deadline: np.ndarray,
                        width: np.ndarray, needs: np.ndarray) -> TaskColumns:
    """The task columns of jobs all eligible for one machine of rating 1."""
    jobs = len(submit)
    return TaskColumns(submit=submit, estimate=estimate, deadline=deadline,
                       rating=np.ones(jobs), width=width, needs=needs,
                       eligible=np.ones((jobs, 1), bool), estimate_work=estimate.astype(np.int64))


def draw_licence_pressures(policy: FlexibleBackfillingMod, data: st.DataObject,
                           licences: int) -> None:
    """Give ``policy`` drawn licence copies asked and offered (its pressures' inputs)."""
    policy._asked = np.array(data.draw(st.lists(st.integers(0, 9).map(float),
                                                min_size=licences, max_size=licences)))
    policy._offer = np.array(data.draw(st.lists(st.integers(0, 4).map(float),
                                                min_size=licences, max_size=licences)))


@settings(max_examples=80, deadline=None)
@given(data=st.data(), jobs=st.integers(1, 30), licences=st.integers(0, 5),
       now=st.integers(0, 10**6), k=st.floats(1.0, 3.0),
       weights=st.tuples(*[st.sampled_from([0.0, 0.01, 0.1, 0.3, 1 / 3, 2.0, 7.7])] * 4))
def test_pass_terms_equal_the_plain_terms(data, jobs, licences, now, k, weights):
    """A pass reads the terms' time-free parts precomputed for the run (``_Static``): the
    same bits as the plain functions on the queue's own columns; and the compiled
    priorities (:func:`.flexible_kernels.priority_keys`) are minus the terms' row sums, the
    same bits, in the same stable order."""
    times = st.integers(0, 10**6).map(float)
    submit = np.array(data.draw(st.lists(times, min_size=jobs, max_size=jobs)))
    estimate = np.array(data.draw(st.lists(times, min_size=jobs, max_size=jobs)))
    deadline = np.array(data.draw(st.lists(st.one_of(st.just(np.nan), times),
                                           min_size=jobs, max_size=jobs)))
    needs = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=licences,
                                                 max_size=licences),
                                        min_size=jobs, max_size=jobs)), dtype=bool)
    needs = needs.reshape(jobs, licences)
    at = np.array(data.draw(st.lists(st.integers(0, jobs - 1), min_size=1, unique=True)))
    columns = one_machine_columns(submit, estimate, deadline, np.ones(jobs, np.int64), needs)
    aging, low, weight, boost = weights
    policy = FlexibleBackfillingMod(deadline_k=k, age_factor=aging, deadline_min=low,
                                    deadline_max=low + 20.0, licence_weight=weight,
                                    priority_boost_value=boost)
    draw_licence_pressures(policy, data, licences)
    ctx = SimpleNamespace(now=now, columns=columns)
    got = policy._terms(ctx, at)  # type: ignore[arg-type]
    static, rho = policy._static_of(ctx), policy.licence_pressure()  # type: ignore[arg-type]
    sums = licence_sums(static.needs.take(at, axis=0), rho)
    keys = priority_keys(now, at, static.rows, *sums, needs, rho > 1, aging, low, low + 20.0,
                         weight, boost)
    assert keys.tobytes() == (-got.sum(axis=1)).tobytes()
    assert policy._order(ctx, at).tolist() == \
        np.argsort(-got.sum(axis=1), kind="stable").tolist()  # type: ignore[arg-type]
    plain = np.column_stack((
        anti_aging(now, submit[at], policy.age_factor),
        deadline_term(now, estimate[at], deadline[at], policy.deadline_min,
                      policy.deadline_max, k),
        licence_term(needs[at], policy.licence_pressure(), policy.licence_weight),
        wait_minimization(estimate[at], policy.priority_boost_value)))
    assert got.tobytes() == plain.tobytes()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), jobs=st.integers(1, 30), licences=st.integers(0, 4),
       now=st.integers(0, 2000), largest=st.integers(0, 4))
def test_a_pass_orders_the_jobs_that_may_start_and_the_first_other(data, jobs, licences, now,
                                                                   largest):
    """The order a pass backfills (:func:`.flexible_kernels.candidates_order`) is the whole
    queue's priority order (``_order``: every job let through, the job ``skip``
    left out) kept to the jobs that may start -- no wider than the largest room, needing
    no blocked licence -- and the first of the others, with ties (few distinct times)
    in queue order."""
    times = st.integers(0, 3).map(float)
    submit = np.array(data.draw(st.lists(times, min_size=jobs, max_size=jobs)))
    estimate = np.array(data.draw(st.lists(times, min_size=jobs, max_size=jobs)))
    deadline = np.array(data.draw(st.lists(st.one_of(st.just(np.nan), times),
                                           min_size=jobs, max_size=jobs)))
    needs = np.array(data.draw(st.lists(st.booleans(), min_size=jobs * licences,
                                        max_size=jobs * licences)), dtype=bool)
    needs = needs.reshape(jobs, licences)
    width = np.array(data.draw(st.lists(st.integers(1, 5), min_size=jobs, max_size=jobs)))
    blocked = np.array(data.draw(st.lists(st.booleans(), min_size=licences,
                                          max_size=licences)), dtype=bool)
    at = np.array(data.draw(st.lists(st.integers(0, jobs - 1), min_size=1, unique=True)))
    skip = data.draw(st.integers(-1, len(at) - 1))
    columns = one_machine_columns(submit, estimate, deadline, width, needs)
    policy = FlexibleBackfillingMod()
    draw_licence_pressures(policy, data, licences)
    ctx = SimpleNamespace(now=now, columns=columns)
    arguments = policy._key_arguments(ctx, at)  # type: ignore[arg-type]
    got = candidates_order(*arguments, width, largest, blocked, skip)
    whole = [q for q in policy._order(ctx, at).tolist() if q != skip]  # type: ignore[arg-type]
    may = (width[at] <= largest) & ~(needs[at] & blocked).any(axis=1)
    first = [q for q in whole if not may[q]][:1]
    assert got.tolist() == [q for q in whole if may[q] or q in first]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), jobs=st.integers(1, 40), shuffled=st.booleans())
def test_edf_order_is_a_stable_sort_of_the_deadlines(data, jobs, shuffled):
    """grid-edf's queue order, read off the run's ranks for a queue in workload order, is
    the stable sort of the queue's deadlines (NaN last, ties in queue order)."""
    deadline = np.array(data.draw(st.lists(st.one_of(st.just(np.nan),
                                                     st.integers(0, 5).map(float)),
                                           min_size=jobs, max_size=jobs)))
    at = np.array(sorted(data.draw(st.sets(st.integers(0, jobs - 1)))), dtype=np.intp)
    if shuffled:
        at = np.array(data.draw(st.permutations(at.tolist())), dtype=np.intp)
    columns = TaskColumns(submit=np.zeros(jobs), estimate=np.ones(jobs), deadline=deadline,
                          rating=np.ones(jobs), width=np.ones(jobs, np.int64),
                          needs=np.zeros((jobs, 0), bool), eligible=np.ones((jobs, 1), bool),
                          estimate_work=np.ones(jobs, np.int64))
    policy = GridEDF()
    ctx = SimpleNamespace(columns=columns)
    got = policy.by_deadline(ctx, at)  # type: ignore[arg-type]
    assert got.tolist() == at[np.argsort(deadline[at], kind="stable")].tolist()




def test_a_pass_over_an_empty_queue_before_any_submission_orders_nothing():
    """A cluster's first pass may come before any job was submitted to it (an outage):
    no licence pressures yet, an empty order."""
    policy = FlexibleBackfillingMod()
    ctx = SimpleNamespace(now=0, columns=None)
    assert policy._order(ctx, np.zeros(0, dtype=np.intp)).tolist() == []  # type: ignore[arg-type]
