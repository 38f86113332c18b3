"""The environments of schedlab.gym: Gymnasium's conventions, masks, determinism, and
agents that make the schedules of registered policies exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.error import InvalidAction, ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import schedlab.gym  # noqa: E402,F401
from schedlab.engine.simulator import run  # noqa: E402
from schedlab.errors import InputError  # noqa: E402
from schedlab.metrics import compute_metrics  # noqa: E402
from schedlab.policies.backfilling import backfill_choices  # noqa: E402
from schedlab.policies.registry import make_policy  # noqa: E402

#: Small episodes of a small lublin workload: fast, and busy enough for queues to form.
SMALL = {"jobs": 3000, "episode_jobs": 64}
ENV_IDS = ("schedlab/PickJob", "schedlab/PickPolicy", "schedlab/Backfill")


def make(env_id: str = "schedlab/PickJob", **options):
    return gymnasium.make(env_id, **{**SMALL, **options}).unwrapped


def play(env, agent, *, seed=None, options=None):
    """One episode; the observations, rewards and the env's Result."""
    observation, info = env.reset(seed=seed, options=options)
    observations, rewards = [observation], []
    over = False
    while not over:
        observation, reward, over, truncated, info = env.step(agent(env, observation, info))
        assert not truncated
        observations.append(observation)
        rewards.append(reward)
    return observations, rewards, env.result


def random_agent(seed):
    rng = np.random.default_rng(seed)

    def agent(env, observation, info):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))
    return agent


def starts_of(env_id, agent, policy, *, episodes=3, **options):
    """Each episode's starts under the agent, and under ``policy`` run by the engine on the
    same jobs."""
    env = make(env_id, split="test", **options)
    pairs = []
    for episode in range(episodes):
        _, _, result = play(env, agent, options={"episode": episode})
        reference = run(env.episodes.workload(env.window), make_policy(policy))
        pairs.append((result.start, reference.start))
    return pairs


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasiums_checker_passes(env_id):
    check_env(make(env_id))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_with_gymnasium_make(env_id):
    env = gymnasium.make(env_id, **SMALL)
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].dtype == np.int8
    assert info["action_mask"].any()


def test_make_imports_the_package_itself():
    env = gymnasium.make("schedlab.gym:schedlab/Backfill", **SMALL)
    observation, _ = env.reset(seed=0)
    assert observation.shape == (4 + 2 * 6 + 2,)


def head_agent(env, observation, info):
    """Start the head of the queue when it fits, else wait: fcfs."""
    mask = info["action_mask"]
    return 0 if mask[0] else len(mask) - 1


def test_an_agent_starting_the_head_makes_fcfs_schedule():
    for agent_starts, fcfs_starts in starts_of("schedlab/PickJob", head_agent, "fcfs"):
        assert np.array_equal(agent_starts, fcfs_starts)


def easy_agent(env, observation, info):
    """The job EASY would start next (head first, then its backfill choices), else wait."""
    ctx = env.ctx
    queue = list(ctx.waiting.values())
    choice = queue[0] if queue[0].width <= ctx.free else next(
        backfill_choices(ctx, queue, 0), None)
    if choice is None:
        return env.slots
    slot = env.window_jobs.index(choice)         # the window holds the whole queue here
    assert info["action_mask"][slot]
    return slot


def test_an_agent_mirroring_easy_makes_fcfs_easy_schedule():
    for agent_starts, easy_starts in starts_of("schedlab/PickJob", easy_agent, "fcfs+easy",
                                               queue_head=64, queue_tail=0):
        assert np.array_equal(agent_starts, easy_starts)


def test_the_schedules_differ_so_the_reproductions_mean_something():
    env = make(split="test")
    env.reset(options={"episode": 0})
    jobs = env.episodes.workload(env.window)
    fcfs, easy = run(jobs, make_policy("fcfs")), run(jobs, make_policy("fcfs+easy"))
    assert not np.array_equal(fcfs.start, easy.start)


@pytest.mark.parametrize(("approve", "policy"), [(1, "fcfs+easy"), (0, "fcfs")])
def test_backfill_approving_all_is_easy_and_refusing_all_is_no_backfilling(approve, policy):
    for agent_starts, policy_starts in starts_of("schedlab/Backfill",
                                                 lambda env, o, i: approve, policy):
        assert np.array_equal(agent_starts, policy_starts)


def test_backfill_follows_the_base_order():
    pairs = starts_of("schedlab/Backfill", lambda env, o, i: 1, "sjf+easy", order="sjf")
    for agent_starts, policy_starts in pairs:
        assert np.array_equal(agent_starts, policy_starts)


@pytest.mark.parametrize("policy", ["ljf", "sjf+easy"])
def test_pick_policy_always_choosing_one_makes_its_schedule(policy):
    policies = ("fcfs", "ljf", "sjf+easy")
    choice = policies.index(policy)
    for agent_starts, policy_starts in starts_of("schedlab/PickPolicy",
                                                 lambda env, o, i: choice, policy,
                                                 policies=policies):
        assert np.array_equal(agent_starts, policy_starts)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_one_seed_gives_one_episode(env_id):
    env = make(env_id)
    first = play(env, random_agent(7), seed=11)
    second = play(env, random_agent(7), seed=11)
    other = play(env, random_agent(7), seed=12)
    assert len(first[0]) == len(second[0])
    assert all(np.array_equal(a, b) for a, b in zip(first[0], second[0], strict=True))
    assert first[1] == second[1]
    assert np.array_equal(first[2].start, second[2].start)
    assert first[2].submit[0] != other[2].submit[0]       # another seed, another window


def test_the_mask_allows_exactly_the_possible_actions():
    env = make()
    rng = np.random.default_rng(3)
    observation, info = env.reset(seed=5)
    over, checked = False, 0
    while not over:
        mask = info["action_mask"]
        ctx = env.ctx
        for slot in range(env.slots):
            possible = slot < len(env.window_jobs) and env.window_jobs[slot].width <= ctx.free
            assert mask[slot] == possible
            assert observation[4 + slot * 6 + 1] == possible          # the "fits" feature
        assert mask[env.slots] == (bool(ctx.running) or len(ctx.waiting) + ctx._done
                                   + len(ctx.running) < env._episode_jobs)
        for action in np.flatnonzero(mask == 0)[:3]:
            with pytest.raises(InvalidAction, match=f"action {action} is not allowed now"):
                env.step(action)
            checked += 1
        observation, _, over, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 20


def test_an_illegal_action_says_why():
    env = make()
    env.reset(seed=0)
    empty = len(env.window_jobs)
    with pytest.raises(InvalidAction, match=f"slot {empty} holds no job"):
        env.step(empty)
    with pytest.raises(InvalidAction, match=r"expected an action in 0\.\.32"):
        env.step(33)
    with pytest.raises(InvalidAction, match="expected an action"):
        env.step("wait")


def test_steps_outside_an_episode_need_a_reset():
    env = make()
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step(0)
    play(env, head_agent, seed=0)
    with pytest.raises(ResetNeeded, match="the episode is over"):
        env.step(0)


def test_the_random_sample_of_the_action_space_is_always_allowed():
    env = make()
    env.reset(seed=1)
    env.action_space.seed(1)
    over = False
    while not over:
        _, _, over, _, _ = env.step(env.action_space.sample())


@pytest.mark.parametrize("metric", ["avg_bsld_10", "avg_wait", "artww", "sldww_60"])
def test_dense_rewards_sum_to_the_metric_of_the_episode(metric):
    env = make(reward=metric)
    _, rewards, result = play(env, random_agent(2), seed=4)
    assert sum(rewards) == pytest.approx(-compute_metrics(result)[metric], rel=1e-9)
    assert sum(r != 0 for r in rewards) > 10          # paid along the way


@pytest.mark.parametrize("metric", ["utilization", "avg_bsld_60"])
def test_an_episode_reward_is_paid_at_the_end(metric):
    env = make(reward=metric, reward_mode="episode")
    _, rewards, result = play(env, random_agent(2), seed=4)
    sign = 1 if metric == "utilization" else -1
    assert rewards[-1] == pytest.approx(sign * compute_metrics(result)[metric])
    assert not any(rewards[:-1])


def test_a_hand_checked_dense_reward():
    """Two jobs on a 4-processor machine under fcfs: job 1 (width 4, runtime 100) runs at 0,
    job 2 (width 4, runtime 50) arrives at 10 and waits until 100; bounded slowdown with
    tau = 10: job 1 is 1, job 2 (100 - 10 + 50) / 50 = 2.8; the mean 1.9."""
    from schedlab.gym.rewards import Reward
    from schedlab.workload.job import Job

    def job(i, submit, runtime, width):
        return Job(i, submit, runtime, 200, width, -1, -1, -1, None, False, None)
    reward = Reward("avg_bsld_10", "dense")
    one, two = job(1, 0, 100, 4), job(2, 10, 50, 4)
    reward.begin([one, two])
    assert reward.paid([(one, 0, 100)]) == pytest.approx(-0.5)
    assert reward.paid([(two, 100, 150)]) == pytest.approx(-1.4)


def test_reward_choices_are_checked():
    with pytest.raises(InputError, match="did you mean 'avg_bsld_10'"):
        make(reward="avg_bsld10")
    with pytest.raises(InputError, match="a dense reward is paid job by job"):
        make(reward="utilization")
    with pytest.raises(InputError, match="field reward_mode"):
        make(reward_mode="sparse")


def test_pick_policy_refuses_a_policy_with_a_plan_of_its_own():
    with pytest.raises(InputError, match="keeps a plan of its own"):
        make("schedlab/PickPolicy", policies=("fcfs", "fcfs+conservative"))


def test_sync_and_async_vector_envs_step_alike():
    """Two environments in one process and in two worker processes: the same seeds and
    actions give the same observations and rewards, through an episode's end (reset by the
    vector env)."""
    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    small = {**SMALL, "episode_jobs": 16}
    trajectories = []
    for vector in (SyncVectorEnv, AsyncVectorEnv):
        envs = vector([lambda: gymnasium.make("schedlab/PickJob", **small)] * 2)
        observations, infos = envs.reset(seed=[1, 2])
        assert observations.shape == (2, 4 + 32 * 6)
        seen, ended = [observations], 0
        for _ in range(60):
            masks = infos["action_mask"]
            # after an episode's end the mask is empty and the next action is not taken:
            # the vector env resets that environment instead (gymnasium's next-step reset)
            actions = np.array([np.flatnonzero(mask)[0] if mask.any() else 0
                                for mask in masks])
            observations, rewards, terminated, _, infos = envs.step(actions)
            assert observations.dtype == np.float32 and rewards.shape == (2,)
            seen += [observations, rewards]
            ended += int(terminated.sum())
        envs.close()
        assert ended >= 2
        trajectories.append(seen)
    assert all(np.array_equal(a, b) for a, b in zip(*trajectories, strict=True))


@settings(max_examples=12, deadline=None)
@given(env_id=st.sampled_from(ENV_IDS), seed=st.integers(0, 10_000),
       agent_seed=st.integers(0, 10_000))
def test_any_agent_makes_a_schedule_that_keeps_the_engines_rules(env_id, seed, agent_seed):
    """Whatever the allowed actions taken, the episode's Result keeps every rule of a
    space-sharing run (conformance.check_invariants: no processor used twice, every job
    started after its submission and held for its runtime or until its estimate), and every
    job of the episode ran."""
    from schedlab.conformance import check_invariants

    env = make(env_id)
    _, _, result = play(env, random_agent(agent_seed), seed=seed)
    check_invariants(result, env.episodes.workload(env.window))
    assert (result.start >= 0).all()



def test_an_easy_pass_among_other_policies_passes_reads_the_machine_as_it_is():
    # On 8 processors jobs 1 (3 wide, expected to end at 100, ends at 20), 2 (2 wide, to
    # 30) and 3 (1 wide) run; at 1 EASY finds job 4 (3 wide) blocked: shadow time 30, 1
    # extra processor.  At 20 job 1 ends and fcfs's pass starts job 4: 2 processors free
    # again.  Job 5 (8 wide) blocks; job 6 (2 wide, 100 s) and, at 21, job 7 arrive.  At 21
    # EASY's pass on the machine as it is reserves job 5 at 400 and starts job 6, which
    # the reservation of the pass at 1 (shadow 30, 1 extra processor) would keep waiting.
    from schedlab import Job, Workload
    from schedlab.engine.simulator import Simulation
    from schedlab.gym.envs import switchable_policy

    jobs = (Job(1, 0, 20, 100, 3, 0), Job(2, 0, 30, 30, 2, 0), Job(3, 0, 400, 400, 1, 0),
            Job(4, 1, 300, 300, 3, 0), Job(5, 20, 10, 10, 8, 0), Job(6, 20, 100, 100, 2, 0),
            Job(7, 21, 10, 10, 8, 0))
    easy, fcfs = switchable_policy("fcfs+easy"), make_policy("fcfs")
    simulation = Simulation(Workload(jobs=jobs, processors=8), easy)
    for now in simulation.passes:
        (fcfs if now == 20 else easy).schedule(simulation.ctx)
    result = simulation.result()
    assert dict(zip(result.job_id.tolist(), result.start.tolist()))[6] == 21
