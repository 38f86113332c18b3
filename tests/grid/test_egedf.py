"""EG-EDF with Tabu search (thesis §5.2): hand-checked plans on a 3-machine, 2-licence cluster.

Machines: fast (4 CPUs, rating 200), mid (4, 100), small (2, 100).  Licence A:
1 copy on fast and mid; licence B: 2 copies anywhere.  Every job here is
measured at rating 100, so it lasts half its estimate on fast (eq. 3.9).
The plans are built at time 0 through the policy's own steps (insert,
tabu_search) on a context without an engine; whole runs go through run_grid.
"""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.engine.grid import GridContext, make_tasks, run_grid
from schedlab.errors import InputError
from schedlab.policies.grid import EarliestGapEDF, RoundRobin, make_local_policy
from schedlab.policies.grid.egedf import OBJECTIVES, Plan, delayed_slots
from schedlab.testing import check_grid_invariants

from .helpers import grid_workload, three_machines
from .test_properties import PLATFORM
from .test_properties import jobs as grid_jobs

FAST, MID, SMALL = 0, 1, 2


def planning(rows, **params):
    """A policy, its plan at time 0 on the three machines, and the tasks of ``rows``
    (all waiting in the cluster)."""
    platform = three_machines()
    tasks = make_tasks(grid_workload(rows), platform)
    engine = SimpleNamespace(tasks=tasks)        # what a context reads of its engine here
    ctx = GridContext(platform, 0, "shared", "kill", "eg-edf", engine=engine)
    for task in tasks:
        task.cluster = 0
        ctx.waiting[task.id] = task
    return EarliestGapEDF(**params), Plan(ctx), tasks


def planned(plan):
    """{job id: (machine, start, end)} of the plan."""
    return {i: (s.machine, s.start, s.end) for i, s in sorted(plan.slots.items())}


#: Rows (submit, runtime, estimate, width, licences, rating[, deadline]).
INSERTIONS = [(0, 100, 100, 4, ("A",), 100),            # 1
              (0, 100, 100, 2, ("A",), 100),            # 2
              (0, 40, 40, 2, ("B",), 100),              # 3
              (0, 100, 100, 2, ("B",), 100, 120),       # 4
              (0, 60, 60, 1, ("B",), 100, 85)]          # 5


def test_insertions_take_the_earliest_gap_with_the_best_weight_and_respect_licence_copies():
    policy, plan, tasks = planning(INSERTIONS)
    steps = []
    for task in tasks:
        policy.insert(plan, task)
        steps.append(planned(plan))
    # 1: gaps now on fast (ends 50) and mid (ends 100): the shorter makespan wins.
    assert steps[0] == {1: (FAST, 0, 50)}
    # 2: fast is full until 50; mid has CPUs but A's only copy is held until 50: no gap
    # anywhere (both fits are at a machine's plan end), so EDF insertion on each machine;
    # fast (makespan 100) beats mid (150).
    assert steps[1] == {1: (FAST, 0, 50), 2: (FAST, 50, 100)}
    # 3: gaps on fast at 50 (ends 70), mid and small now (end 40): same weight, the
    # earliest gap, then the faster machine (mid before small by file order).
    assert steps[2][3] == (MID, 0, 40)
    # 4: one B copy is free: mid now beside job 3, on time (deadline 120).
    assert steps[3][4] == (MID, 0, 100)
    # 5: both B copies are held until 40; fast at 50 ends 80 <= 85, on time (weight +1/1),
    # mid at 40 would end at 100, late.
    assert steps[4][5] == (FAST, 50, 80)
    assert policy.counts["gap_insertions"] == 4 and policy.counts["edf_insertions"] == 1


def test_edf_insertion_puts_an_earlier_deadline_first_and_shifts_the_rest():
    rows = [(0, 1000, 1000, 4, (), 100),                # 1: fast [0, 500)
            (0, 1000, 1000, 4, (), 100),                # 2: mid [0, 1000)
            (0, 100, 100, 2, (), 100),                  # 3: small [0, 100)
            (0, 100, 100, 2, (), 100),                  # 4: no gap: EDF, small [100, 200)
            (0, 100, 100, 2, (), 100, 150)]             # 5: deadline 150
    policy, plan, tasks = planning(rows)
    for task in tasks[:4]:
        policy.insert(plan, task)
    assert planned(plan) == {1: (FAST, 0, 500), 2: (MID, 0, 1000), 3: (SMALL, 0, 100),
                             4: (SMALL, 100, 200)}
    policy.insert(plan, tasks[4])
    # No machine has a gap for job 5 (each fits only at its plan's end).  EDF on each
    # machine puts it before the jobs without deadline: on time everywhere (+1), but on
    # mid job 2 would end at 1100 (makespan +10 %); fast ends it first (at 50) and job 1
    # shifts behind it.
    assert planned(plan) == {1: (FAST, 50, 550), 2: (MID, 0, 1000), 3: (SMALL, 0, 100),
                             4: (SMALL, 100, 200), 5: (FAST, 0, 50)}
    assert policy.counts["edf_insertions"] == 2 and policy.counts["gap_insertions"] == 3


@pytest.mark.parametrize("ties, fourth", [("start", (SMALL, 40, 80)), ("end", (FAST, 50, 70))])
def test_equal_weights_go_to_the_earliest_gap_or_the_earliest_end(ties, fourth):
    rows = [(0, 100, 100, 4, (), 100),                  # 1: fast [0, 50)
            (0, 100, 100, 4, (), 100),                  # 2: mid [0, 100)
            (0, 40, 40, 2, (), 100),                    # 3: small [0, 40)
            (0, 40, 40, 2, (), 100)]                    # 4: EDF: small at 40 or fast at 50
    policy, plan, tasks = planning(rows, ties=ties)
    for task in tasks:
        policy.insert(plan, task)
    assert planned(plan)[4] == fourth


def test_edf_trial_is_undone_exactly():
    policy, plan, tasks = planning(INSERTIONS)
    for task in tasks[:4]:
        policy.insert(plan, task)
    before = planned(plan), plan.machine_free[FAST].steps(), plan.copies_free[1].steps()
    moved = policy._edf_insert(plan, tasks[4], FAST)
    policy._undo_edf(plan, tasks[4], moved)
    assert (planned(plan), plan.machine_free[FAST].steps(), plan.copies_free[1].steps()) \
        == before


#: Job 2 is planned on mid after job 1, ending at 160 past its deadline 90;
#: fast is idle (job 2 would end there at 30).
LATE = [(0, 100, 100, 4, (), 100),                      # 1
        (0, 60, 60, 2, (), 100, 90)]                    # 2


def late_plan(**params):
    policy, plan, tasks = planning(LATE, **params)
    plan.add(tasks[0], MID, 0)
    plan.add(tasks[1], MID, 100)
    return policy, plan, tasks


def test_a_tabu_move_takes_a_delayed_job_to_a_gap_where_it_meets_its_deadline():
    policy, plan, _ = late_plan(iterations=5)
    assert [s.task.id for s in plan.slots.values() if s.late] == [2]
    policy.tabu_search(plan)
    assert planned(plan) == {1: (MID, 0, 100), 2: (FAST, 0, 30)}
    assert not any(s.late for s in plan.slots.values())
    assert policy.counts["tabu_moves"] == 1 and policy.counts["tabu_refused"] == 0


def test_a_job_on_the_tabu_list_is_not_picked():
    policy, plan, _ = late_plan()
    assert policy._pick(plan, deque(), delayed_slots(plan)).task.id == 2
    assert policy._pick(plan, deque([2]), delayed_slots(plan)) is None


def test_the_tabu_list_stops_the_search_from_cycling_on_refused_jobs():
    rows = [(0, 100, 100, 4, (), 100),                  # 1: mid [0, 100)
            (0, 60, 60, 4, (), 100, 20),                # 2: late anywhere (30 s on fast)
            (0, 60, 60, 4, (), 100, 20),                # 3: likewise
            (0, 300, 300, 4, (), 100)]                  # 4: fast [0, 150): ends the plan
    for size, refused in ((2, 2), (1, 7)):
        policy, plan, tasks = planning(rows, iterations=7, tabu_size=size)
        plan.add(tasks[0], MID, 0)
        plan.add(tasks[3], FAST, 0)
        plan.add(tasks[1], MID, 100)
        plan.add(tasks[2], MID, 160)
        policy.tabu_search(plan)
        # No move can help (their deadlines cannot be met and neither job ends the plan):
        # with room for both on the list the search stops after each was tried once;
        # with one place it picks them in turn until the iterations run out.
        assert (policy.counts["tabu_moves"], policy.counts["tabu_refused"]) == (0, refused)
        assert planned(plan)[2] == (MID, 100, 160) and planned(plan)[3] == (MID, 160, 220)


def test_a_whole_run_starts_jobs_at_their_planned_times_and_keeps_the_rules():
    grid = grid_workload(INSERTIONS)
    platform = three_machines()
    policy = EarliestGapEDF()
    result = run_grid(grid, platform, [policy])
    check_grid_invariants(result, grid, platform)
    assert result.start.tolist() == [0, 50, 0, 0, 50]
    assert result.grid.machine.tolist() == [FAST, FAST, MID, MID, FAST]
    assert result.end.tolist() == [50, 100, 40, 100, 80]


def test_an_early_end_compresses_the_plan():
    rows = [(0, 20, 100, 4, (), 100),                   # 1: fast, planned to 50, ends at 10
            (0, 100, 100, 4, (), 100),                  # 2: mid [0, 100)
            (0, 40, 40, 2, (), 100),                    # 3: small [0, 40)
            (0, 40, 40, 2, (), 100),                    # 4: EDF on small, [40, 80)
            (0, 60, 60, 4, (), 100)]                    # 5: EDF on fast, [50, 80)
    grid = grid_workload(rows)
    policy = EarliestGapEDF()
    result = run_grid(grid, three_machines(), [policy])
    # Job 1 ends at 10: the plan is compressed, 5 moves from 50 to 10 (4 waits for 3).
    assert result.start.tolist() == [0, 0, 0, 40, 10]
    assert result.end.tolist() == [10, 100, 40, 80, 40]
    assert result.grid.machine.tolist() == [FAST, MID, SMALL, SMALL, FAST]
    assert policy.counts["compressions"] == 1


def test_a_job_past_its_estimate_is_assumed_to_run_one_more_estimate_then_compressed():
    rows = [(0, 100, 40, 4, (), 100),                   # 1: fast, expected [0, 20), runs 50
            (0, 400, 400, 4, (), 100),                  # 2: mid [0, 400)
            (0, 40, 40, 4, (), 100)]                    # 3: EDF on fast behind 1, at 20
    policy = EarliestGapEDF()
    result = run_grid(grid_workload(rows), three_machines(), [policy], overrun="extend")
    # At 20 job 1 is overdue: assumed to end at 40 (job 3 planned there), at 40 at 60;
    # it ends at 50 and job 3 starts then: three compressions.
    assert result.start.tolist() == [0, 0, 50]
    assert result.end.tolist() == [50, 400, 70]
    assert result.grid.machine.tolist() == [FAST, MID, FAST]
    assert policy.counts["compressions"] == 3


@pytest.mark.parametrize("params, field", [
    ({"iterations": -1}, "iterations"), ({"tabu_size": 0}, "tabu_size"),
    ({"objective": "speed"}, "objective"), ({"deadline_base": "mean"}, "deadline_base"),
    ({"iterations": 1.5}, "iterations"), ({"ties": "machine"}, "ties")])
def test_bad_parameters_are_input_errors(params, field):
    with pytest.raises(InputError) as error:
        make_local_policy({"name": "eg-edf", **params})
    assert error.value.field == field


def test_cli_lists_the_policy_and_refuses_a_bad_parameter(tmp_path):
    runner = CliRunner()
    listed = runner.invoke(app, ["policies"])
    assert listed.exit_code == 0 and "eg-edf" in listed.output and "tabu_size" in listed.output
    jobs, platform = str(tmp_path / "jobs.swf"), str(tmp_path / "P.toml")
    drawn = runner.invoke(app, ["platform", "generate", "--preset", "thesis-5.2", "--seed", "1",
                                "-o", platform])
    assert drawn.exit_code == 0, drawn.output
    made = runner.invoke(app, ["generate", "grid", "--platform", platform, "--preset",
                               "thesis-5.2", "-n", "20", "--seed", "1", "-o", jobs])
    assert made.exit_code == 0, made.output
    run = ["simulate", jobs, "--platform", platform, "--policy", "eg-edf"]
    good = runner.invoke(app, run + ["--param", "iterations=5", "--out", str(tmp_path / "o")])
    assert good.exit_code == 0, good.output
    bad = runner.invoke(app, run + ["--param", "objective=speed"])
    assert bad.exit_code == 2 and "'objective' parameter of eg-edf" in bad.output


# ------------------------------------------------------------------ properties

@st.composite
def deadline_jobs(draw):
    """Jobs for tests/grid/test_properties.py's platform, 70 % of them with a deadline."""
    rows = []
    for row in draw(grid_jobs()):
        if draw(st.integers(0, 9)) < 7:
            row = row + (row[0] + row[2] + draw(st.integers(0, 300)),)
        rows.append(row)
    return rows


def check_free_from(plan):
    """``plan.free_from`` is a lower bound on when CPUs are free, for every width."""
    for k, profile in plan.machine_free.items():
        for width in range(1, profile.capacity + 1):
            assert plan.free_from[width, k] <= profile.earliest_fit(width, 0, plan.ctx.now), \
                f"free_from[{width}, {k}] is past the first time {width} CPUs are free"


def tighten_free_from(plan):
    """Make every bound of ``plan.free_from`` exact, as Tabu search leaves the ones it
    checks (so a move that forgets to lower one is seen)."""
    for k, profile in plan.machine_free.items():
        for width in range(1, profile.capacity + 1):
            plan.free_from[width, k] = profile.earliest_fit(width, 0, plan.ctx.now)


class CheckedStarts(EarliestGapEDF):
    """EG-EDF that checks, before each start, that the engine lets the job start now and
    that its plan's bounds on free CPUs hold (:func:`check_free_from`)."""

    def _start_due(self, ctx, plan):
        check_free_from(plan)
        for slot in plan.slots.values():
            if slot.start <= ctx.now:
                assert slot.start == ctx.now, "a planned start was missed"
                assert ctx.fits_now(slot.task, slot.machine), \
                    f"job {slot.task.id} planned at {slot.start} on {slot.machine} cannot start"
        super()._start_due(ctx, plan)


@settings(max_examples=120, deadline=None)
@given(rows=deadline_jobs(), allocation=st.sampled_from(["shared", "exclusive"]),
       overrun=st.sampled_from(["kill", "extend"]), iterations=st.integers(0, 6),
       tabu_size=st.integers(1, 3), objective=st.sampled_from(OBJECTIVES))
def test_eg_edf_plans_only_starts_the_engine_accepts_and_keeps_every_rule(
        rows, allocation, overrun, iterations, tabu_size, objective):
    grid = grid_workload(rows)
    params = dict(iterations=iterations, tabu_size=tabu_size, objective=objective)
    result = run_grid(grid, PLATFORM, [CheckedStarts(**params), CheckedStarts(**params)],
                      RoundRobin(), allocation=allocation, overrun=overrun)
    check_grid_invariants(result, grid, PLATFORM)
    again = run_grid(grid, PLATFORM, [EarliestGapEDF(**params), EarliestGapEDF(**params)],
                     RoundRobin(), allocation=allocation, overrun=overrun)
    assert again.start.tolist() == result.start.tolist()
    assert again.grid.machine.tolist() == result.grid.machine.tolist()


class PlainTabu(EarliestGapEDF):
    """Tabu search as §5.2.2 reads: every iteration scans the whole plan for the delayed
    jobs, and every move counts the jobs on time and tries every machine."""

    def tabu_search(self, plan):
        tabu = deque(maxlen=self.tabu_size)
        for _ in range(self.iterations):
            late = [s for s in plan.slots.values() if s.late]
            machines = sorted({s.machine for s in late},
                              key=lambda k: (-sum(s.machine == k for s in late), k))
            slot = next((max((s for s in late if s.machine == k and s.task.id not in tabu),
                             key=lambda s: (s.start, s.task.index), default=None)
                         for k in machines if any(s.machine == k and s.task.id not in tabu
                                                  for s in late)), None)
            if slot is None:
                return
            tabu.append(slot.task.id)
            self.counts["tabu_moves" if self._plain_move(plan, slot) else "tabu_refused"] += 1

    def _plain_move(self, plan, slot):
        ctx, task = plan.ctx, slot.task
        makespan, on_time = plan.makespan(), plan.on_time()
        if slot.end - ctx.now < makespan and self.objective == "makespan":
            return False
        plan.remove(slot)
        gaps = [(at, rank, k) for rank, k in enumerate(ctx.candidates(task).tolist())
                for at in [plan.earliest(task, k, ctx.now)]
                if plan.is_gap(k, at) and (k, at) != (slot.machine, slot.start)]
        for at, _, k in sorted(gaps):
            end = at + plan.duration(task, k)
            met = task.deadline is not None and end <= task.deadline
            if self.weight(makespan, max(plan.makespan(), end - ctx.now), on_time,
                           on_time - slot.on_time + met) > 0:
                plan.add(task, k, at)
                return True
        plan.add(task, slot.machine, slot.start)
        return False


@st.composite
def scattered_plans(draw):
    """Jobs on the three machines, each with a deadline, and where each is planned: a
    machine and a time it is placed no earlier than (so the plan has gaps to move into)."""
    rows, places = [], []
    for _ in range(draw(st.integers(1, 12))):
        licences = draw(st.sampled_from([(), ("A",), ("B",)]))
        runtime = draw(st.integers(1, 120))
        rows.append((0, runtime, runtime, draw(st.integers(1, 2)), licences, 100,
                     draw(st.integers(1, 300))))
        machines = [FAST, MID] + ([SMALL] if licences != ("A",) else [])
        places.append((draw(st.sampled_from(machines)), draw(st.integers(0, 300))))
    return rows, places


@settings(max_examples=300, deadline=None)
@given(plan_rows=scattered_plans(), iterations=st.integers(1, 8), tabu_size=st.integers(1, 3),
       objective=st.sampled_from(OBJECTIVES), deadline_base=st.sampled_from(["old", "new"]))
def test_the_tabu_search_moves_the_jobs_its_plain_rule_moves(
        plan_rows, iterations, tabu_size, objective, deadline_base):
    rows, places = plan_rows
    params = dict(iterations=iterations, tabu_size=tabu_size, objective=objective,
                  deadline_base=deadline_base)
    searched = []
    for kind in (EarliestGapEDF, PlainTabu):
        policy, plan, tasks = planning(rows)
        policy = kind(**params)
        for task, (machine, after) in zip(tasks, places):
            plan.add(task, machine, plan.earliest(task, machine, after))
        tighten_free_from(plan)
        policy.tabu_search(plan)
        check_free_from(plan)
        searched.append((planned(plan), policy.counts))
    assert searched[0] == searched[1]


def test_the_schedule_based_comparison_runs_every_policy_on_the_same_streams():
    from schedlab.experiments.egedf import METRICS, compare_schedule_based, summarize

    rows = compare_schedule_based(n_jobs=40, interarrivals=[5], seeds=[1, 2])
    labels = ["fcfs", "bf-fcfs", "eg-edf", "eg-edf+tabu"]
    assert [r["policy"] for r in rows if r["seed"] == 1][:2] == labels[:2]
    assert {r["policy"] for r in rows} >= set(labels) and len(rows) % 2 == 0
    assert all(0 <= r["deadline_missed_pct"] <= 100 and 0 < r["system_usage"] <= 1
               for r in rows)
    summary = summarize(rows)
    assert [s["runs"] for s in summary] == [2] * len(summary)
    first = [r for r in rows if r["policy"] == "fcfs"]
    assert summary[0]["deadline_missed_pct"] == pytest.approx(
        sum(r["deadline_missed_pct"] for r in first) / 2)
    assert set(METRICS) <= set(summary[0])
    again = compare_schedule_based(n_jobs=40, interarrivals=[5], seeds=[1, 2])

    def decisions(table):           # everything but the measured time
        return [{k: v for k, v in r.items() if k != "scheduling_time_per_event_us"}
                for r in table]

    assert decisions(again) == decisions(rows)
