"""Fair-share in the slurm policy, checked by hand (docs/reference/policies/slurm.md, "Fair-share").

Trees are written as ``(account, user, shares)`` associations; usage is in
CPU-seconds.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.api import simulate
from schedlab.errors import InputError
from schedlab.policies.registry import make_policy
from schedlab.policies.slurm_fairshare import (
    AssociationTree,
    FairShare,
    classic_factors,
    fair_tree_factors,
)
from schedlab.testing import check_policy
from schedlab.workload.job import Job, Workload
from schedlab.workload.slurmassoc import Association
from schedlab.workload.slurmqos import Qos


def three_accounts() -> tuple[AssociationTree, list[int]]:
    """root -> accounts a (50 shares), b (30), c (20), one user each (1 share)."""
    tree = AssociationTree()
    accounts = [tree.add(0, shares, False) for shares in (50, 30, 20)]
    users = [tree.add(account, 1, True) for account in accounts]
    return tree, users


def usage_of(tree: AssociationTree, leaves: dict[int, float]) -> list[float]:
    """Usage of each node: the leaves' own, summed up to the root."""
    usage = [0.0] * len(tree)
    for leaf, amount in leaves.items():
        node = leaf
        while node >= 0:
            usage[node] += amount
            node = tree.parent[node]
    return usage


def test_fair_tree_ranks_by_shares_over_usage() -> None:
    # a used 60 % with 50 % of the shares (S/U 0.83), b 30 % with 30 % (1.0), c 10 % with
    # 20 % (2.0): c's user ranks first (3/3), then b's (2/3), then a's (1/3).
    tree, (ua, ub, uc) = three_accounts()
    factors = fair_tree_factors(tree, usage_of(tree, {ua: 60, ub: 30, uc: 10}))
    assert [factors[u] for u in (ua, ub, uc)] == [1 / 3, 2 / 3, 1.0]


def test_fair_tree_gives_users_of_no_usage_the_top_rank_together() -> None:
    tree, (ua, ub, uc) = three_accounts()
    factors = fair_tree_factors(tree, usage_of(tree, {ua: 10}))
    # b and c: no usage, infinite level fair-share, tied: both take rank 3; a ranks 1.
    assert [factors[u] for u in (ua, ub, uc)] == [1 / 3, 1.0, 1.0]
    assert fair_tree_factors(tree, [0.0] * len(tree))[ua] == 1.0


def test_fair_tree_ranks_users_inside_their_account() -> None:
    # One account of two users (3 and 1 shares) beside an idle account: the idle
    # account's user first; inside a, the user below its share of a's usage first.
    tree = AssociationTree()
    a, b = tree.add(0, 1, False), tree.add(0, 1, False)
    heavy, light = tree.add(a, 3, True), tree.add(a, 1, True)
    idle = tree.add(b, 1, True)
    factors = fair_tree_factors(tree, usage_of(tree, {heavy: 50, light: 50}))
    assert (factors[idle], factors[heavy], factors[light]) == (1.0, 2 / 3, 1 / 3)


def test_classic_factor_is_two_to_minus_usage_over_shares() -> None:
    tree, (ua, ub, uc) = three_accounts()
    factors = classic_factors(tree, usage_of(tree, {ua: 60, ub: 30, uc: 10}))
    assert factors[ua] == pytest.approx(2 ** -(0.6 / 0.5))
    assert factors[ub] == pytest.approx(0.5)
    assert factors[uc] == pytest.approx(2 ** -(0.1 / 0.2))


def test_classic_effective_usage_mixes_in_the_parents() -> None:
    # Users x (1 share) and y (3 shares) of account a (the only account): a's effective
    # usage 1; x used 25 %: UE = 0.25 + (1 - 0.25) * 1/4 = 0.4375, S = 0.25.
    tree = AssociationTree()
    a = tree.add(0, 1, False)
    x, y = tree.add(a, 1, True), tree.add(a, 3, True)
    factors = classic_factors(tree, usage_of(tree, {x: 25, y: 75}))
    assert factors[x] == pytest.approx(2 ** -(0.4375 / 0.25))
    assert factors[y] == pytest.approx(2 ** -((0.75 + 0.25 * 0.75) / 0.75))


@pytest.mark.parametrize("usage_at_end", [True, False])
def test_usage_is_cpu_seconds_decayed_at_each_run(usage_at_end: bool) -> None:
    # Half-life 600 s, a run every 60 s.  A 4-CPU job runs from 10 to 130: the run at 60
    # adds 50 s, the run at 120 decays that by d^60 and adds 60 s; its end at 130 adds
    # 10 s where AccountingStorageEnforce has limits, else nothing.
    tree, (ua, _, _) = three_accounts()
    fair = FairShare(tree, fair_tree=True, half_life=600, calc_period=60,
                     usage_at_end=usage_at_end)
    d = 1 - 0.693 / 600
    fair.started(1, ua, 4, 10)
    fair.factors(60)
    assert fair.usage[ua] == pytest.approx(50 * d ** 50 * 4)
    fair.ended(1, 130)
    expected = (50 * d ** 50 * 4) * d ** 60 + 60 * d ** 60 * 4 + usage_at_end * 10 * d ** 10 * 4
    assert fair.usage[ua] == pytest.approx(expected)
    assert fair.usage[0] == pytest.approx(expected)


def test_a_job_between_two_runs_counts_only_with_enforced_limits() -> None:
    # Slurm charges a job's usage at its end only from the limits' accounting: a job
    # that starts and ends between two runs leaves no usage without it.
    tree, (ua, _, _) = three_accounts()
    for usage_at_end, expected in ((False, 0.0), (True, 20.0)):
        fair = FairShare(tree, fair_tree=True, half_life=0, calc_period=60,
                         usage_at_end=usage_at_end)
        fair.started(1, ua, 2, 5)
        fair.ended(1, 15)
        fair.factors(60)
        assert fair.usage[ua] == expected


def test_classic_accounts_lag_one_run_behind() -> None:
    # Classic fair-share takes the accounts' effective usage from before the run's update
    # (slurmctld's log shows every factor 1.0 at the first run with usage): a's user
    # drops at the second run; Fair Tree ranks it down at the first.
    tree, (ua, _, _) = three_accounts()
    for fair_tree, at_60 in ((False, 1.0), (True, 1 / 3)):
        fair = FairShare(tree, fair_tree=fair_tree, half_life=0, calc_period=60)
        fair.started(1, ua, 4, 0)
        assert fair.factors(60)[ua] == at_60
        assert fair.factors(120)[ua] < 1 / 2


def test_factors_change_only_at_decay_runs() -> None:
    tree, (ua, ub, _) = three_accounts()
    fair = FairShare(tree, fair_tree=True, half_life=0, calc_period=60, calc_offset=30)
    fair.started(1, ua, 4, 0)
    assert fair.factors(29)[ua] == 1.0          # the first run is at 30
    assert fair.factors(30)[ua] == 1 / 3
    fair.ended(1, 40)
    fair.started(2, ub, 16, 40)
    assert fair.factors(89)[ub] == 1.0          # b's usage counts from the run at 90
    assert fair.factors(90)[ub] == 1 / 3


def test_usage_reset_period_zeroes_usage_at_the_first_run_past_midnight() -> None:
    tree, (ua, _, _) = three_accounts()
    midnight = 1_700_006_400                     # 2023-11-15T00:00:00 UTC
    fair = FairShare(tree, fair_tree=True, half_life=0, calc_period=300,
                     clock_origin=midnight - 900, reset_period="DAILY", usage_at_end=True)
    fair.started(1, ua, 1, 0)
    fair.ended(1, 600)
    fair.factors(899)
    assert fair.usage[ua] == 600
    fair.factors(900)                            # the run at midnight resets
    assert fair.usage[ua] == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 16), st.integers(0, 400),
                          st.integers(1, 400)), min_size=1, max_size=6),
       st.sampled_from([0, 300, 7 * 86400]), st.integers(1, 3000))
def test_closed_form_runs_equal_one_run_at_a_time(jobs: list[tuple[int, int, int, int]],
                                                  half_life: int, until: int) -> None:
    tree, users = three_accounts()
    events = sorted([(start, 1, k) for k, (_, _, start, _) in enumerate(jobs)]
                    + [(start + length, 0, k) for k, (_, _, start, length) in enumerate(jobs)])
    stepwise = FairShare(tree, fair_tree=False, half_life=half_life, calc_period=60,
                         usage_at_end=True)
    jumping = FairShare(tree, fair_tree=False, half_life=half_life, calc_period=60,
                        usage_at_end=True)
    for fair, step in ((stepwise, 1), (jumping, 0)):
        now = 0
        for at, kind, k in events:
            while step and now < at:
                fair.factors(now)
                now += step
            user, cpus = users[jobs[k][0]], jobs[k][1]
            if kind:
                fair.started(k, user, cpus, at)
            else:
                fair.ended(k, at)
        fair.factors(max(until, events[-1][0]))
    assert jumping.usage == pytest.approx(stepwise.usage, rel=1e-9)
    assert all(math.isfinite(value) and value >= 0 for value in jumping.usage)


ASSOCIATIONS = (Association("a", shares=50), Association("b", shares=30),
                Association("c", shares=20), Association("a", "u", 1, "a"),
                Association("b", "u", 1, "b"), Association("c", "u", 1, "c"))


def fair_workload() -> Workload:
    """Account a's two 16-CPU jobs run first; then one job of each account waits."""
    rows = [(1, 0, 120, "a"), (2, 0, 120, "a"), (3, 10, 60, "a"), (4, 11, 60, "b"),
            (5, 12, 60, "c")]
    accounts = ("a", "b", "c")
    return Workload(jobs=tuple(Job(id=i, submit=s, runtime=r, estimate=300, width=16,
                                   user=1, account=accounts.index(a) + 1)
                               for i, s, r, a in rows),
                    processors=16, names={"account": accounts, "user": ("u",)})


def fair_policy(**params: object) -> dict[str, object]:
    return {"name": "slurm", "priority": "multifactor", "weight_fairshare": 10000,
            "bf_interval": 1, "priority_calc_period": 60, "associations": ASSOCIATIONS,
            "account_names": ("a", "b", "c"), "user_names": ("u",), **params}


def test_fair_share_puts_the_idle_accounts_first() -> None:
    # Every job needs the whole machine.  Job 1 runs [0, 120).  From the decay run at 60,
    # a has usage and b and c none: the users of b and c tie at rank 3 of 3 (factor 1),
    # a's ranks 1 (1/3): jobs 4 and 5 (submission order) go before a's jobs 2 and 3.
    # Without the weight, the queue is first come, first served.
    starts = simulate(fair_workload(), fair_policy()).start.tolist()
    assert starts == [0, 240, 360, 120, 180]
    fifo = simulate(fair_workload(), fair_policy(weight_fairshare=0)).start.tolist()
    assert fifo == [0, 120, 240, 300, 360]


def test_without_a_table_each_account_and_user_gets_one_share() -> None:
    starts = simulate(fair_workload(), fair_policy(associations=())).start.tolist()
    assert starts == [0, 240, 360, 120, 180]


def test_classic_fair_share_orders_by_usage_over_shares() -> None:
    # a: all the usage on half the shares, 2^-2; b and c: none, 1.
    starts = simulate(fair_workload(), fair_policy(fair_tree=False)).start.tolist()
    assert starts == [0, 240, 360, 120, 180]


def test_a_job_of_no_association_is_rejected() -> None:
    workload = fair_workload()
    policy = fair_policy(associations=ASSOCIATIONS[:5])      # c has no user u
    result = simulate(workload, policy)
    assert result.reject_reasons == {5: "no association of user 'u' in account 'c'"}
    assert result.start.tolist()[:4] == [0, 180, 300, 120]


def test_bad_fair_share_parameters_are_input_errors() -> None:
    with pytest.raises(InputError, match="usage_reset_period"):
        make_policy(fair_policy(usage_reset_period="HOURLY"))
    with pytest.raises(InputError, match="associations"):
        make_policy(fair_policy(associations=[("a", "", 1, "root")]))
    with pytest.raises(InputError, match="weight_fairshare"):
        make_policy(fair_policy(weight_fairshare=-1))


def test_job_size_factor_is_slurms_mean_of_node_and_cpu_shares() -> None:
    # Slurm 22.05: (nodes / node count + CPUs / cluster CPUs) / 2; favour small: the mean
    # of what is left.  Four 8-CPU nodes; a 4-CPU job on one node.
    policy = make_policy({"name": "slurm", "priority": "multifactor",
                          "weight_job_size": 1000, "cpus_per_node": 8})
    job = Job(id=1, submit=0, runtime=10, estimate=60, width=4)
    assert policy.job_priority(job, 0, 32) == math.floor(1000 * (1 / 4 + 4 / 32) / 2)
    small = policy.clone(favor_small=True)
    assert small.job_priority(job, 0, 32) == math.floor(1000 * (3 / 4 + 28 / 32) / 2)


def test_conformance_with_fair_share() -> None:
    check_policy(make_policy(fair_policy(associations=())))
    check_policy(make_policy(fair_policy(associations=(), priority_calc_period=7,
                                         decay_half_life=30, enforce_limits=True,
                                         qos=(Qos("normal", max_jobs_per_user=2),))))
