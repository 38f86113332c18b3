"""Scoring agents and policies on test episodes: the split, the result store, the report,
the command line, and a numpy agent that learns."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from typer.testing import CliRunner  # noqa: E402

from schedlab.cli.app import app  # noqa: E402
from schedlab.errors import InputError  # noqa: E402
from schedlab.experiments import load_jobs, load_results  # noqa: E402
from schedlab.experiments.report import write_report  # noqa: E402
from schedlab.gym import evaluate  # noqa: E402
from schedlab.gym.episodes import Episodes, EpisodeSettings  # noqa: E402
from schedlab.gym.reinforce import LinearAgent, train  # noqa: E402

SMALL = {"jobs": 3000, "episode_jobs": 64}


def head(observation, info):
    mask = info["action_mask"]
    return 0 if mask[0] else len(mask) - 1


def test_train_and_test_episodes_never_share_a_job():
    train_split = Episodes(EpisodeSettings(**SMALL))
    test_split = Episodes(EpisodeSettings(**SMALL, split="test"))
    assert train_split.cut == test_split.cut
    rng = np.random.default_rng(0)
    for _ in range(50):
        start, end = train_split.drawn(rng)
        assert end <= train_split.cut
        jobs = train_split.workload((start, end)).jobs
        assert len(jobs) >= 64 and all(start <= job.submit < end for job in jobs)
    windows = [test_split.numbered(i) for i in range(test_split.count)]
    assert windows[0][0] >= test_split.cut
    assert all(a[1] <= b[0] for a, b in pairwise(windows))
    sizes = [len(test_split.workload(window).jobs) for window in windows]
    assert sizes == [64] * len(windows)         # lublin's submit times rarely tie


def test_the_split_cuts_the_submit_span():
    """3000 lublin jobs: the test split is the last fifth of [first submit, last submit + 1)."""
    episodes = Episodes(EpisodeSettings(**SMALL, split="test"))
    first, last = int(episodes.submits[0]), int(episodes.submits[-1])
    assert episodes.cut == first + round(0.8 * (last + 1 - first))
    assert episodes.first == int(np.searchsorted(episodes.submits, episodes.cut))
    assert episodes.end == 3000


def test_episode_options_are_checked(tmp_path):
    with pytest.raises(InputError, match="field split"):
        Episodes(EpisodeSettings(split="validation"))
    with pytest.raises(InputError, match="field shrink: expected a finite number > 0"):
        Episodes(EpisodeSettings(shrink=0))
    with pytest.raises(InputError, match="field workload_seed"):
        Episodes(EpisodeSettings(workload_seed=-1))
    with pytest.raises(InputError, match="field test_fraction"):
        Episodes(EpisodeSettings(test_fraction=1))
    with pytest.raises(InputError, match="fewer than one episode"):
        Episodes(EpisodeSettings(jobs=100, episode_jobs=64, split="test"))
    swf = tmp_path / "tiny.swf"
    swf.write_text("; MaxProcs: 4\n" + "".join(
        f"{i} {i * 10} 0 50 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n" for i in range(1, 201)))
    with pytest.raises(InputError, match="applies to built-in models only"):
        Episodes(EpisodeSettings(workload=str(swf), jobs=100))
    episodes = Episodes(EpisodeSettings(workload=str(swf), episode_jobs=20, split="test"))
    assert episodes.count == 2 and episodes.source.kind == "file"
    with pytest.raises(InputError, match="not 2"):
        episodes.numbered(2)
    with pytest.raises(InputError, match="not '1'"):
        episodes.numbered("1")


def test_agents_and_policies_land_in_one_store(tmp_path):
    out = tmp_path / "scores"
    frame = evaluate([head, "fcfs", "sjf+easy[backfill_order=sjbf]"], episodes=3,
                     env_options=SMALL, out=out)
    assert list(frame["policy"]) == ["head"] * 3 + ["fcfs"] * 3 \
        + ["sjf+easy[backfill_order=sjbf]"] * 3
    stored = load_results(out)
    assert len(stored) == 9 and set(stored["workload"]) == {"lublin-test"}
    by_policy = {policy: group for policy, group in stored.groupby("policy")}
    agent_starts = sorted(tuple(load_jobs(out, r)["start"]) for r in by_policy["head"]["run_id"])
    fcfs_starts = sorted(tuple(load_jobs(out, r)["start"]) for r in by_policy["fcfs"]["run_id"])
    assert agent_starts == fcfs_starts            # the agent made fcfs's schedules
    assert (frame[frame.policy == "head"]["avg_bsld_10"].to_numpy()
            == frame[frame.policy == "fcfs"]["avg_bsld_10"].to_numpy()).all()
    again = evaluate("fcfs", episodes=3, env_options=SMALL, out=out)
    assert list(again["run_id"]) == list(frame["run_id"][3:6])      # the same runs, kept
    assert len(load_results(out)) == 9
    html = tmp_path / "report.html"
    write_report(out, html, generated="now")
    assert "sjf+easy" in html.read_text()


def test_evaluate_refuses_what_it_cannot_score():
    with pytest.raises(InputError, match=r"episodes in 1\.\.8"):
        evaluate("fcfs", episodes=10, env_options=SMALL)
    with pytest.raises(InputError, match="evaluate sets 'split' itself"):
        evaluate("fcfs", env_options={**SMALL, "split": "train"})
    with pytest.raises(InputError, match="unknown policy 'fifo'"):
        evaluate("fifo", episodes=1, env_options=SMALL)
    with pytest.raises(InputError, match="agent label 'sjf' is a policy's name"):
        evaluate([head], episodes=1, env_options=SMALL, labels={0: "sjf"})
    with pytest.raises(InputError, match="two contestants are labelled 'head'"):
        evaluate([head, head], episodes=1, env_options=SMALL)


def test_the_command_scores_and_stores(tmp_path, monkeypatch):
    agents = tmp_path / "my_agents.py"
    agents.write_text("def head(observation, info):\n"
                      "    mask = info['action_mask']\n"
                      "    return 0 if mask[0] else len(mask) - 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "scores"
    result = CliRunner().invoke(app, ["gym", "evaluate", "fcfs", "my_agents:head",
                                      "--episodes", "2", "-n", "3000", "--episode-jobs", "64",
                                      "--option", "queue_head=8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "my_agents:head" in result.output
    assert set(load_results(out)["policy"]) == {"fcfs", "my_agents:head"}
    bad = CliRunner().invoke(app, ["gym", "evaluate", "fcfs", "--out", str(out),
                                   "--option", "reward=utilization", "-n", "3000"])
    assert bad.exit_code == 2
    assert "a dense reward is paid job by job" in bad.output


def test_reinforce_learns_to_beat_fcfs_on_test_episodes():
    """A reduced form of docs/how-to/rl.md: 8 iterations on episodes of 128 jobs of a
    5000-job lublin workload (about 3 s)."""
    reduced = {"jobs": 5000, "episode_jobs": 128}
    env = gymnasium.make("schedlab/PickJob", **reduced).unwrapped
    agent, history = train(env, iterations=8, seed=0)
    assert len(history) == 8
    assert not np.allclose(agent.theta_job, 0)
    frame = evaluate([agent.greedy, "fcfs"], episodes=5, env_options=reduced,
                     labels={0: "reinforce"})
    bsld = frame.groupby("policy")["avg_bsld_10"].mean()
    assert bsld["reinforce"] < bsld["fcfs"]


def test_the_linear_policy_gradient_is_the_score_function():
    """grad log pi against a finite difference of log pi, on a real observation."""
    env = gymnasium.make("schedlab/PickJob", **SMALL).unwrapped
    observation, info = env.reset(seed=3)
    for _ in range(20):                       # a point with a few jobs waiting
        observation, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    mask = info["action_mask"]
    rng = np.random.default_rng(0)
    agent = LinearAgent(rng.normal(size=7), rng.normal(size=5))
    action = int(np.flatnonzero(mask)[0])
    job_part, wait_part = agent.gradient(observation, mask, action)
    step = 1e-6
    for k in range(7):
        shifted = LinearAgent(agent.theta_job.copy(), agent.theta_wait.copy())
        shifted.theta_job[k] += step
        numeric = (np.log(shifted.probabilities(observation, mask)[action])
                   - np.log(agent.probabilities(observation, mask)[action])) / step
        assert job_part[k] == pytest.approx(numeric, abs=1e-4)
    for k in range(5):
        shifted = LinearAgent(agent.theta_job.copy(), agent.theta_wait.copy())
        shifted.theta_wait[k] += step
        numeric = (np.log(shifted.probabilities(observation, mask)[action])
                   - np.log(agent.probabilities(observation, mask)[action])) / step
        assert wait_part[k] == pytest.approx(numeric, abs=1e-4)


def same_schedules(frame, out, agent, policy):
    """Whether the agent's runs and the policy's, episode by episode, start every job at
    the same time."""
    agent_runs = frame[frame.policy == agent].sort_values("episode")["run_id"]
    policy_runs = frame[frame.policy == policy].sort_values("episode")["run_id"]
    return all(np.array_equal(load_jobs(out, a)["start"], load_jobs(out, p)["start"])
               for a, p in zip(agent_runs, policy_runs, strict=True))


def test_shrink_and_machine_size_reach_the_agent_and_the_sweep_alike(tmp_path):
    options = {**SMALL, "shrink": 0.7, "processors": 64}
    frame = evaluate([head, "fcfs"], episodes=3, env_options=options, out=tmp_path)
    assert same_schedules(frame, tmp_path, "head", "fcfs")
    stored = load_results(tmp_path)
    assert set(stored["transform.shrink"]) == {0.7} and set(stored["processors"]) == {64}
    env = gymnasium.make("schedlab/PickJob", split="test", **options).unwrapped
    env.reset(options={"episode": 0})
    jobs = env.episodes.workload(env.window)
    assert jobs.processors == 64 and "shrink0.7" in jobs.name


def test_episodes_of_a_real_trace(tmp_path):
    from real_traces import real_trace

    trace = str(real_trace("lublin_256.swf.gz"))
    options = {"workload": trace, "episode_jobs": 128}
    frame = evaluate([head, "fcfs"], episodes=2, env_options=options, out=tmp_path)
    assert same_schedules(frame, tmp_path, "head", "fcfs")
    assert set(load_results(tmp_path)["workload"]) == {"lublin_256-test"}


def test_the_command_without_gymnasium_says_what_to_install(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gymnasium", None)       # an import of it fails
    monkeypatch.delitem(sys.modules, "schedlab.gym", raising=False)
    result = CliRunner().invoke(app, ["gym", "evaluate", "fcfs", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "pip install 'schedlab[rl]'" in result.output
