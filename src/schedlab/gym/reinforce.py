"""A learned scheduler in numpy alone: REINFORCE on a linear policy over the queue window.

The agent of ``schedlab/PickJob`` that docs/how-to/rl.md trains.  Every job
of the window gets a score linear in its features, waiting a score linear
in the machine's (:mod:`schedlab.gym.observe`); the policy is the softmax
of the scores over the allowed actions:

    score(slot i) = theta_job . [job features of slot i, 1]
    score(wait)   = theta_wait . [machine features, 1]
    pi(a | s)     = exp(score(a)) / sum of exp(score(b)) over the allowed b

Sharing ``theta_job`` across slots makes the policy a ranking of jobs (as
the learned schedulers of the literature score each job with one network),
independent of the window's size and of where a job sits in it.

Training is REINFORCE (Williams 1992) with a baseline per episode: each
iteration draws ``episodes`` episodes from the train split and plays each
``rollouts`` times with actions sampled from ``pi``; a rollout's advantage
is its return minus the mean return of the rollouts of the same episode,
over their standard deviation (episodes differ in difficulty far more than
rollouts of one episode do, so comparing rollouts of one episode is what
tells good choices from bad); ``theta`` moves along the mean over all
actions taken of ``advantage * grad log pi(a_t | s_t)``, with Adam (Kingma
& Ba 2015; step ``learning_rate``, the paper's default moments).  For a softmax
of linear scores, ``grad log pi(a | s)`` is the features of ``a`` minus
their expectation under ``pi``.  Evaluation plays greedily: the allowed
action of highest score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.gym.envs import PickJobEnv
from schedlab.gym.observe import JOB_FEATURES, MACHINE_FEATURES

_MACHINE = len(MACHINE_FEATURES)
_JOB = len(JOB_FEATURES)


@dataclass
class LinearAgent:
    """The linear softmax policy of ``schedlab/PickJob``: ``theta_job`` (job features and a
    bias) and ``theta_wait`` (machine features and a bias)."""

    theta_job: np.ndarray = field(default_factory=lambda: np.zeros(_JOB + 1))
    theta_wait: np.ndarray = field(default_factory=lambda: np.zeros(_MACHINE + 1))

    def features(self, observation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The slots' features with a bias column, and the machine's with a bias."""
        jobs = observation[_MACHINE:].reshape(-1, _JOB).astype(np.float64)
        return (np.hstack([jobs, np.ones((len(jobs), 1))]),
                np.append(observation[:_MACHINE].astype(np.float64), 1.0))

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``pi(. | observation)`` over the slots then waiting, 0 where not allowed."""
        jobs, machine = self.features(observation)
        scores = np.append(jobs @ self.theta_job, machine @ self.theta_wait)
        scores = np.where(mask.astype(bool), scores, -np.inf)
        weights = np.exp(scores - scores.max())
        return weights / weights.sum()

    def greedy(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        """The allowed action of highest score (ties: the first): the agent evaluated."""
        return int(np.argmax(self.probabilities(observation, info["action_mask"])))

    def gradient(self, observation: np.ndarray, mask: np.ndarray, action: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``grad log pi(action | observation)`` for ``theta_job`` and ``theta_wait``."""
        probabilities = self.probabilities(observation, mask)
        jobs, machine = self.features(observation)
        wait = len(jobs)
        job_part = -probabilities[:wait] @ jobs
        wait_part = -probabilities[wait] * machine
        if action == wait:
            wait_part = wait_part + machine
        else:
            job_part = job_part + jobs[action]
        return job_part, wait_part


@dataclass
class Adam:
    """Adam's moments for one parameter vector (Kingma & Ba 2015, Algorithm 1), ascending."""

    size: int
    learning_rate: float
    first: np.ndarray = field(init=False)
    second: np.ndarray = field(init=False)
    steps: int = 0

    def __post_init__(self) -> None:
        self.first = np.zeros(self.size)
        self.second = np.zeros(self.size)

    def step(self, gradient: np.ndarray) -> np.ndarray:
        """The change of the parameters for ``gradient`` (to maximise)."""
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        self.steps += 1
        self.first = beta1 * self.first + (1 - beta1) * gradient
        self.second = beta2 * self.second + (1 - beta2) * gradient ** 2
        corrected_first = self.first / (1 - beta1 ** self.steps)
        corrected_second = self.second / (1 - beta2 ** self.steps)
        return self.learning_rate * corrected_first / (np.sqrt(corrected_second) + eps)


def train(env: PickJobEnv, *, iterations: int = 30, episodes: int = 2, rollouts: int = 4,
          learning_rate: float = 0.05, seed: int = 0) -> tuple[LinearAgent, list[float]]:
    """Train a :class:`LinearAgent` on ``env``'s episodes; returns it and each iteration's
    mean episode return."""
    agent = LinearAgent()
    rng = np.random.default_rng(seed)
    adam_job = Adam(_JOB + 1, learning_rate)
    adam_wait = Adam(_MACHINE + 1, learning_rate)
    history = []
    for iteration in range(iterations):
        job_gradient = np.zeros(_JOB + 1)
        wait_gradient = np.zeros(_MACHINE + 1)
        returns = []
        steps = 0
        for episode in range(episodes):
            played = [play(env, agent, rng, seed * 1_000_003 + iteration * episodes + episode)
                      for _ in range(rollouts)]
            totals = np.array([total for total, _ in played])
            advantages = (totals - totals.mean()) / (totals.std() + 1e-12)
            returns += list(totals)
            for advantage, (_, gradients) in zip(advantages, played, strict=True):
                for job_part, wait_part in gradients:
                    job_gradient += advantage * job_part
                    wait_gradient += advantage * wait_part
                steps += len(gradients)
        history.append(float(np.mean(returns)))
        agent.theta_job = agent.theta_job + adam_job.step(job_gradient / steps)
        agent.theta_wait = agent.theta_wait + adam_wait.step(wait_gradient / steps)
    return agent, history


def play(env: PickJobEnv, agent: LinearAgent, rng: np.random.Generator, seed: int
         ) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
    """One episode (drawn with ``seed``) with actions sampled from ``pi``: its return and
    ``grad log pi`` of every action taken."""
    observation, info = env.reset(seed=seed)
    total, gradients = 0.0, []
    over = False
    while not over:
        mask = info["action_mask"]
        action = int(rng.choice(len(mask), p=agent.probabilities(observation, mask)))
        gradients.append(agent.gradient(observation, mask, action))
        observation, reward, over, _, info = env.step(action)
        total += reward
    return total, gradients
