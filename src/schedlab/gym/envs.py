"""The environments: an agent makes the scheduling passes of a schedlab run.

Each episode is one run of the space-sharing engine
(:class:`schedlab.engine.simulator.Simulation`) on an episode's jobs
(:mod:`schedlab.gym.episodes`), jobs killed at their estimates: the same
events in the same order, the same bookkeeping and the same
:class:`~schedlab.engine.result.Result` as ``schedlab simulate``.  Where a
policy's ``schedule`` would run, the agent decides instead, one choice per
step; an instant at which it has no choice to make is passed over.

* :class:`PickJobEnv` (``schedlab/PickJob``): which job of the queue window
  starts next, or wait for the next event;
* :class:`PickPolicyEnv` (``schedlab/PickPolicy``): which of a few policies
  makes this pass (dynP's idea, Streit 2002, learned);
* :class:`BackfillEnv` (``schedlab/Backfill``): EASY decides, the agent
  approves or refuses each job EASY would backfill.

The actions an agent may take now are in ``info["action_mask"]`` (int8, 1:
allowed) and ``env.action_masks()`` (bool, the convention of sb3-contrib's
MaskablePPO); an action outside them raises
:class:`gymnasium.error.InvalidAction` naming why.  ``action_space.sample()``
draws among the allowed actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import InvalidAction, ResetNeeded

from schedlab.engine.policy import Policy
from schedlab.engine.simulator import Simulation
from schedlab.errors import InputError
from schedlab.gym.episodes import Episodes, EpisodeSettings
from schedlab.gym.observe import (
    JOB_FEATURES,
    MACHINE_FEATURES,
    JobFeatures,
    log_time,
    machine_features,
    queue_window,
)
from schedlab.gym.rewards import Reward, Started
from schedlab.policies.backfilling import (
    EasyBackfilling,
    NoBackfilling,
    backfill_choices,
    shadow_and_extra,
    start_heads,
)
from schedlab.policies.orderings import ORDERINGS, in_order
from schedlab.policies.registry import make_policy

if TYPE_CHECKING:
    from collections.abc import Iterator

    from schedlab.engine.context import Context
    from schedlab.engine.result import Result
    from schedlab.workload.job import Job

#: The policies ``schedlab/PickPolicy`` chooses among unless told.
DEFAULT_POLICIES = ("fcfs", "sjf", "ljf", "fcfs+easy", "sjf+easy", "ljf+easy")


class MaskedDiscrete(spaces.Discrete):
    """A discrete action space of which only some actions are allowed at each step.

    :meth:`sample` without a mask draws among the actions allowed now
    (``allowed``, which the environment sets at every step), so a random
    agent and Gymnasium's checker only take legal actions.
    """

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self.allowed: np.ndarray | None = None

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.allowed is not None:
            mask = self.allowed
        return super().sample(mask=mask, probability=probability)


class AgentSeat(Policy):
    """The policy of a run whose passes an agent makes: it never schedules by itself and
    counts the submissions (so the environment knows whether a job is still to come)."""

    name = "agent"

    def __init__(self) -> None:
        self.submitted = 0

    def on_submit(self, ctx: Context, job: Job) -> None:
        self.submitted += 1


class SchedulingEnv(gymnasium.Env[np.ndarray, np.int64]):
    """What the three environments share: episodes, the run, the reward, masks.

    Keyword options (docs/how-to/rl.md): the episodes' (``workload``,
    ``jobs``, ``workload_seed``, ``processors``, ``shrink``, ``split``,
    ``test_fraction``, ``episode_jobs``: :class:`EpisodeSettings`), the
    reward's (``reward``: a metric name, ``reward_mode``: ``"dense"`` or
    ``"episode"``; :mod:`schedlab.gym.rewards`).  ``reset(options=
    {"episode": i})`` runs the split's consecutive episode ``i``; without
    it an episode is drawn with the environment's seeded generator.
    """

    metadata = {"render_modes": []}  # noqa: RUF012  (gymnasium's Env declares it so)
    #: The action allowed alone when an episode holds no decision at all (a Backfill
    #: episode in which EASY never backfills): leaving the job waiting, or PickJob's
    #: wait.  A PickJob or PickPolicy episode always has a decision: its first job
    #: arrives on an empty machine.
    noop = 0

    def __init__(self, *, workload: str = "lublin", jobs: int | None = None,
                 workload_seed: int = 0, processors: int | None = None,
                 shrink: float | None = None, split: str = "train",
                 test_fraction: float = 0.2, episode_jobs: int = 256,
                 reward: str = "avg_bsld_10", reward_mode: str = "dense") -> None:
        self.episodes = Episodes(EpisodeSettings(
            workload=workload, jobs=jobs, workload_seed=workload_seed, processors=processors,
            shrink=shrink, split=split, test_fraction=test_fraction,
            episode_jobs=episode_jobs))
        self.reward_rule = Reward(reward, reward_mode)
        #: The Result of the episode once it is over (None before).
        self.result: Result | None = None
        #: The episode's time window ``[a, b)`` of submit times.
        self.window: tuple[int, int] | None = None
        self.action_space: MaskedDiscrete
        self._simulation: Simulation | None = None
        self._passes: Iterator[int] = iter(())
        self._pass_open = False
        self._over = True
        self._seat = AgentSeat()
        self._episode_jobs = 0
        self._started: list[Started] = []
        self._mask = np.zeros(0, np.int8)

    # ------------------------------------------------------------------ gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        episode = (options or {}).get("episode")
        self.window = (self.episodes.drawn(self.np_random) if episode is None
                       else self.episodes.numbered(episode))
        jobs = self.episodes.workload(self.window)
        self._seat = AgentSeat()
        self._simulation = Simulation(jobs, self._seat, overrun="kill")
        self.ctx = self._simulation.ctx
        self._passes = self._simulation.passes
        self._episode_jobs = len(jobs.jobs)
        self._features = JobFeatures(jobs.jobs, self.ctx.processors)
        self.reward_rule.begin(jobs.jobs)
        self._started = []
        self.result = None
        self._pass_open = False
        self._over = self._advance()
        observation = self._observation()
        self._set_mask(decided=False)
        return observation, self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._simulation is None:
            raise ResetNeeded("call reset() before step()")
        if self.result is not None:
            raise ResetNeeded("the episode is over: call reset() before step()")
        choice = self._checked(action)
        if not self._over:
            self._act(choice)
            self._over = self._advance()
        reward = self.reward_rule.paid(self._started)
        self._started = []
        if self._over:
            self.result = self._simulation.result()
            reward += self.reward_rule.final(self.result)
        observation = self._observation()
        self._set_mask(decided=True)
        return observation, reward, self._over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The actions allowed now, as booleans (sb3-contrib's MaskablePPO convention)."""
        return self._mask.astype(bool)

    # ------------------------------------------------------------------ the run
    def _advance(self) -> bool:
        """Run the engine to the next point where the agent has a choice; True when the
        episode is over (no pass is left)."""
        while True:
            if self._pass_open:
                if self._needs_agent():
                    return False
                self._pass_open = False
            if next(self._passes, None) is None:
                return True
            self._pass_open = True
            self._begin_pass()

    def _record(self, job: Job) -> None:
        """``job`` has just started: its start and end, for the step's reward."""
        ctx = self.ctx
        self._started.append((job, ctx.now, ctx._finish_at[job.id]))

    def _event_to_come(self) -> bool:
        """Whether anything is still to happen: a running job's end or a submission."""
        return bool(self.ctx.running) or self._seat.submitted < self._episode_jobs

    def _checked(self, action: Any) -> int:
        """The action as an int; InvalidAction for one outside the space or not allowed."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        n = int(self.action_space.n)
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < n:
            raise InvalidAction(f"expected an action in 0..{n - 1}, got {action!r}")
        choice = int(action)
        if not self._mask[choice]:
            raise InvalidAction(f"action {choice} is not allowed now: {self._why_not(choice)} "
                                f"(info['action_mask'] and action_masks() say which are)")
        return choice

    def _set_mask(self, *, decided: bool) -> None:
        """The mask of this point: none once the episode is over after a decision; only
        :attr:`noop` when the episode held no decision at all."""
        if not self._over:
            mask = self._allowed()
        else:
            mask = np.zeros(int(self.action_space.n), np.int8)
            if not decided:
                mask[self.noop] = 1
        self._mask = mask
        self.action_space.allowed = mask

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "time": int(self.ctx.now)}

    # ------------------------------------------------------------ what each env defines
    def _begin_pass(self) -> None:
        """A scheduling pass begins (the engine has processed the instant's events)."""

    def _needs_agent(self) -> bool:
        """Whether the open pass has a choice for the agent."""
        raise NotImplementedError

    def _act(self, choice: int) -> None:
        """Carry out an allowed ``choice``; close the pass (``_pass_open``) when it ends it."""
        raise NotImplementedError

    def _allowed(self) -> np.ndarray:
        """The int8 mask of the actions allowed at the open pass (after its observation)."""
        raise NotImplementedError

    def _why_not(self, choice: int) -> str:
        """Why ``choice`` is not allowed now."""
        if self._over:
            return "the episode holds no decision"
        return "it is not among the allowed actions"

    def _observation(self) -> np.ndarray:
        raise NotImplementedError


class QueueWindowEnv(SchedulingEnv):
    """An environment observing the machine and the queue window (:mod:`schedlab.gym.observe`):
    ``queue_head`` jobs from the head, ``queue_tail`` from the tail."""

    def __init__(self, *, queue_head: int = 24, queue_tail: int = 8, **options: Any) -> None:
        super().__init__(**options)
        for name, value in (("queue_head", queue_head), ("queue_tail", queue_tail)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"expected an int >= 0, got {value!r}", field=name)
        if queue_head + queue_tail < 1:
            raise InputError("the queue window needs at least one slot", field="queue_head")
        self.queue_head, self.queue_tail = queue_head, queue_tail
        self.slots = queue_head + queue_tail
        self._size = len(MACHINE_FEATURES) + self.slots * len(JOB_FEATURES)
        self.observation_space = spaces.Box(0.0, 1.0, (self._size,), np.float32)
        #: The jobs of the queue window, slot by slot.
        self.window_jobs: list[Job] = []
        self._window_fits: list[bool] = []

    def _observation(self) -> np.ndarray:
        observation = np.zeros(self._size, np.float32)
        if self._simulation is None:
            return observation
        machine = len(MACHINE_FEATURES)
        observation[:machine] = machine_features(self.ctx, self._seat.submitted,
                                                 self._episode_jobs)
        if not self._over:
            self._window_fits = self._features.write(
                self.window_jobs, self.ctx,
                observation[machine:].reshape(self.slots, len(JOB_FEATURES)))
        return observation

    def _fits_in_window(self) -> bool:
        """Take the queue window; whether a job of it fits in the free processors."""
        ctx = self.ctx
        free = ctx.free
        if free == 0 or not ctx.waiting:
            return False
        self.window_jobs = window = queue_window(ctx.waiting, self.queue_head, self.queue_tail)
        return any(job.width <= free for job in window)


class PickJobEnv(QueueWindowEnv):
    """``schedlab/PickJob``: at each decision point the agent starts one job of the queue
    window, or waits.

    Action ``i < slots`` starts the job in slot ``i``; action ``slots`` waits:
    the pass ends and the engine runs to the next event (a job's end or a
    submission).  A decision point is an instant at which some job of the
    window fits in the free processors; the agent decides again after each
    start, at the same instant, until it waits or nothing of the window fits.
    Allowed: the slots whose job fits now; waiting, while an event is still
    to come (otherwise nothing would ever change).  An agent that always
    starts the head when it fits and waits otherwise makes ``fcfs``'s
    schedule.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.action_space = MaskedDiscrete(self.slots + 1)
        self.noop = self.slots

    def _needs_agent(self) -> bool:
        return self._fits_in_window()

    def _act(self, choice: int) -> None:
        if choice == self.slots:
            self._pass_open = False
            return
        job = self.window_jobs[choice]
        self.ctx.start(job)
        self._record(job)

    def _allowed(self) -> np.ndarray:
        mask = np.zeros(self.slots + 1, np.int8)
        mask[:len(self._window_fits)] = self._window_fits
        mask[self.slots] = self._event_to_come()
        return mask

    def _why_not(self, choice: int) -> str:
        if self._over:
            return super()._why_not(choice)
        if choice == self.slots:
            return "nothing is running and no job is still to come, so waiting never ends"
        if choice >= len(self.window_jobs):
            return f"slot {choice} holds no job ({len(self.window_jobs)} in the window)"
        job = self.window_jobs[choice]
        return (f"job {job.id} in slot {choice} needs {job.width} processors and "
                f"{self.ctx.free} are free")


def switchable_policy(spec: str) -> Policy:
    """The policy ``spec`` names, if its pass reads only the machine: an ordering without
    backfilling or with EASY, planning with the estimates."""
    policy = make_policy(spec)
    if not isinstance(policy, (NoBackfilling, EasyBackfilling)) \
            or policy.runtime_planner is not None:
        raise InputError(f"{spec!r} keeps a plan of its own between passes; schedlab/PickPolicy "
                         f"switches among policies whose pass reads only the machine: an "
                         f"ordering (fcfs, sjf, ljf) alone or with +easy", field="policies")
    if isinstance(policy, EasyBackfilling):
        policy.forget_between_passes()          # a pass of its own reads only the machine
    return policy


class PickPolicyEnv(QueueWindowEnv):
    """``schedlab/PickPolicy``: at each decision point the agent picks the policy that makes
    the pass.

    Action ``k`` runs ``policies[k]``'s scheduling pass on the machine as it
    is (dynP switches among policies at every event, Streit 2002; here an
    agent learns the switch).  A decision point is an instant at which some
    waiting job fits in the free processors; the next one comes at a later
    instant.  The candidates are policies whose pass reads only the machine
    (:func:`switchable_policy`): conservative backfilling and the planning
    policies keep a plan of their own, which another policy's starts would
    break.  Every action is always allowed.
    """

    def __init__(self, *, policies: Sequence[str] = DEFAULT_POLICIES, **options: Any) -> None:
        super().__init__(**options)
        if isinstance(policies, str) or not policies:
            raise InputError(f"expected a list of policy names, got {policies!r}",
                             field="policies")
        self.policies = tuple(switchable_policy(spec) for spec in policies)
        self.policy_names = tuple(policies)
        self.action_space = MaskedDiscrete(len(self.policies))

    def _needs_agent(self) -> bool:
        if not self._fits_in_window():
            free = self.ctx.free
            return free > 0 and any(job.width <= free for job in self.ctx.waiting.values())
        return True

    def _act(self, choice: int) -> None:
        running = self.ctx.running
        before = len(running)
        self.policies[choice].schedule(self.ctx)
        started = list(islice(reversed(running.values()), len(running) - before))
        for job in reversed(started):
            self._record(job)
        self._pass_open = False

    def _allowed(self) -> np.ndarray:
        return np.ones(len(self.policies), np.int8)


class BackfillEnv(SchedulingEnv):
    """``schedlab/Backfill``: EASY backfilling decides, the agent approves or refuses each
    job it would backfill.

    At each pass the jobs at the head of the queue (in ``order``) start while
    they fit, as in EASY; then each job EASY's rule would backfill
    (:func:`~schedlab.policies.backfilling.backfill_choices`: it fits now and
    does not delay the first blocked job's reservation) is put to the agent:
    action 1 starts it, action 0 leaves it waiting.  Approving every one makes
    ``ORDER+easy``'s schedule; refusing every one makes ``ORDER``'s.  Both
    actions are always allowed.

    Observation (float32 in [0, 1]): the machine (:data:`MACHINE_FEATURES`),
    the candidate and the blocked job (:data:`JOB_FEATURES` each), then
    ``log_time`` of the blocked job's shadow time from now and the extra
    processors over the machine size (:func:`shadow_and_extra`).
    """

    def __init__(self, *, order: str = "fcfs", **options: Any) -> None:
        super().__init__(**options)
        if order not in ORDERINGS:
            raise InputError(f"expected one of {', '.join(ORDERINGS)}, got {order!r}",
                             field="order")
        self.order = order
        self.action_space = MaskedDiscrete(2)
        self._size = len(MACHINE_FEATURES) + 2 * len(JOB_FEATURES) + 2
        self.observation_space = spaces.Box(0.0, 1.0, (self._size,), np.float32)
        #: The job put to the agent, and the first job that could not start.
        self.candidate: Job | None = None
        self.blocked: Job | None = None
        self._choices: Iterator[Job] = iter(())

    def _begin_pass(self) -> None:
        ctx = self.ctx
        self.candidate = None
        if ctx.free == 0 or not ctx.waiting:
            return
        queue = in_order(ctx.waiting.values(), self.order)
        blocked = start_heads(ctx, queue)
        for job in queue[:blocked]:
            self._record(job)
        if blocked == len(queue) or ctx.free == 0:
            return
        self.blocked = queue[blocked]
        self._choices = backfill_choices(ctx, queue, blocked)
        self.candidate = next(self._choices, None)

    def _needs_agent(self) -> bool:
        return self.candidate is not None

    def _act(self, choice: int) -> None:
        candidate = self.candidate
        assert candidate is not None      # a decision is open only with a candidate
        if choice == 1:
            self.ctx.start(candidate)
            self._record(candidate)
        self.candidate = next(self._choices, None)

    def _allowed(self) -> np.ndarray:
        return np.ones(2, np.int8)

    def _observation(self) -> np.ndarray:
        observation = np.zeros(self._size, np.float32)
        if self._simulation is None:
            return observation
        ctx = self.ctx
        machine = len(MACHINE_FEATURES)
        observation[:machine] = machine_features(ctx, self._seat.submitted, self._episode_jobs)
        if self._over or self.candidate is None or self.blocked is None:
            return observation
        rows = observation[machine:machine + 2 * len(JOB_FEATURES)].reshape(2, -1)
        self._features.write([self.candidate, self.blocked], ctx, rows)
        shadow, extra = shadow_and_extra(ctx, self.blocked.width)
        observation[-2] = log_time(shadow - ctx.now)
        observation[-1] = extra / ctx.processors
        return observation
