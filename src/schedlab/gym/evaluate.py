"""Scoring on the test episodes: learned agents and registered policies in one result store.

:func:`evaluate` runs each of its contestants on the first ``episodes``
consecutive episodes of an environment's test split
(:mod:`schedlab.gym.episodes`):

* an agent, a callable ``agent(observation, info) -> action``, through the
  environment: the episode's Result is the engine's own;
* a registered policy (``"fcfs+easy"``, ``"dynp[k=4]"``: any policy of one
  machine, in ``--policy`` syntax) as a sweep runs it: the episode is a
  sweep run whose workload has the episode's ``window`` option
  (:func:`schedlab.experiments.runner.simulate_run`), so it reads the same
  jobs through the same transforms.

Each episode of each contestant is one run of the sweep result store
(:class:`schedlab.experiments.store.ResultStore`): workload label
``WORKLOAD-test`` (the episodes' window is an option of the workload, so
the episodes of one contestant are one setting and ``schedlab results``
and ``schedlab report`` show their mean and 95 % interval over episodes,
as over seeds), policy the agent's label or the policy's name and
parameters.  A run already stored is kept, as a sweep keeps it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.errors import InputError
from schedlab.experiments.runner import RunRecord, finished_record, simulate_run
from schedlab.experiments.spec import SweepRun
from schedlab.experiments.store import ResultStore
from schedlab.specs import parse_spec, spec_text

if TYPE_CHECKING:
    import pandas as pd

    from schedlab.gym.envs import SchedulingEnv

#: An agent: the action for an observation and its info (``info["action_mask"]``).
Agent = Callable[[Any, dict[str, Any]], Any]
#: Options of the environment :func:`evaluate` sets itself.
EVALUATION_OPTIONS = ("split",)


def evaluate(contestants: Agent | str | Iterable[Agent | str],
             env_id: str = "schedlab/PickJob", *, episodes: int | None = None,
             env_options: Mapping[str, Any] | None = None,
             labels: Mapping[int, str] | None = None,
             out: str | Path | None = None) -> pd.DataFrame:
    """Score each contestant (an agent, or a policy spec) on the first ``episodes`` test
    episodes of ``env_id`` made with ``env_options`` (``None``: every episode of the test
    split); one row per contestant and episode:
    ``policy``, ``episode``, ``window_start``, ``window_end``, ``run_id`` and every metric
    (docs/reference/metrics.md).

    An agent is labelled ``labels[k]`` (``k``: its position among the
    contestants), else by its ``__name__``; a label is unique, and no agent's
    is a policy's name.  With ``out`` the runs are
    stored in that experiment directory for ``schedlab results OUT`` and
    ``schedlab report OUT``.
    """
    import gymnasium
    import pandas as pd

    import schedlab.gym  # noqa: F401  (registers the environments)

    chosen = ([contestants] if isinstance(contestants, str) or callable(contestants)
              else list(contestants))
    options = dict(env_options or {})
    for name in EVALUATION_OPTIONS:
        if name in options:
            raise InputError(f"evaluate sets {name!r} itself: it scores on the test split",
                             field=name)
    env = gymnasium.make(env_id, split="test", **options)
    scheduling: SchedulingEnv = env.unwrapped      # type: ignore[assignment]
    available = scheduling.episodes.count
    if episodes is None:
        episodes = available
    if isinstance(episodes, bool) or not isinstance(episodes, int) \
            or not 1 <= episodes <= available:
        raise InputError(f"expected a number of episodes in 1..{available} (the test split's "
                         f"episodes), got {episodes!r}", field="episodes")
    named = [(contestant, _label(contestant, k, labels)) for k, contestant in enumerate(chosen)]
    _check_labels(named)
    records = [numbered for contestant, label in named
               for numbered in _runs(contestant, label, env, scheduling, episodes)]
    env.close()
    if out is not None:
        with ResultStore(out) as store:
            for _, record in records:
                store.write(record)
    rows = []
    for episode, record in records:
        window = record.run.workload.option("window")
        rows.append({"policy": spec_text(record.run.policy, dict(record.run.params)),
                     "episode": episode, "window_start": window[0], "window_end": window[1],
                     "run_id": record.run_id, **record.metrics})
    return pd.DataFrame(rows)


def _label(contestant: Agent | str, position: int, labels: Mapping[int, str] | None) -> str:
    if isinstance(contestant, str):
        return contestant
    if labels is not None and position in labels:
        return labels[position]
    return str(getattr(contestant, "__name__", f"agent{position}"))


def _check_labels(named: list[tuple[Agent | str, str]]) -> None:
    """InputError for two contestants of one label, or an agent labelled as a policy (its
    runs would be the policy's in the store)."""
    from schedlab.policies.registry import available_policies, canonical_name

    seen: set[str] = set()
    for contestant, label in named:
        if label in seen:
            raise InputError(f"two contestants are labelled {label!r}: give each agent its own "
                             f"label", field="labels")
        seen.add(label)
        if not isinstance(contestant, str) and canonical_name(label) in available_policies():
            raise InputError(f"agent label {label!r} is a policy's name: the store would take "
                             f"the agent's runs for the policy's", field="labels")


def _runs(contestant: Agent | str, label: str, env: Any, scheduling: SchedulingEnv,
          episodes: int) -> list[tuple[int, RunRecord]]:
    """The records of ``contestant`` on test episodes ``0 .. episodes - 1``, numbered."""
    episodes_of = scheduling.episodes
    settings = episodes_of.settings
    if isinstance(contestant, str):
        spec = parse_spec(contestant, field="policy")
        name = str(spec.pop("name"))
        params = tuple(sorted(spec.items()))
    else:
        name, params = label, ()
    records = []
    for episode in range(episodes):
        window = episodes_of.numbered(episode)
        source = episodes_of.episode_source(window)
        run = SweepRun(workload=source, transforms=episodes_of.transforms(), policy=name,
                       params=params, seed=None if source.is_file else settings.workload_seed,
                       processors=settings.processors, overrun="kill")
        if isinstance(contestant, str):
            began = time.perf_counter()
            record = finished_record(run, *simulate_run(run), began)
        else:
            record = _agent_run(contestant, run, env, scheduling, episode)
        records.append((episode, record))
    return records


def _agent_run(agent: Agent, run: SweepRun, env: Any, scheduling: SchedulingEnv,
               episode: int) -> RunRecord:
    """One test episode driven by ``agent``, recorded as a sweep records a run."""
    from schedlab.engine.policy import SPACE_SHARING
    from schedlab.execution import MODELS
    from schedlab.run import RunSpec

    began = time.perf_counter()
    observation, info = env.reset(options={"episode": episode})
    over = False
    while not over:
        observation, _, over, _, info = env.step(agent(observation, info))
    result = scheduling.result
    assert result is not None                # the episode is over
    metrics = MODELS[SPACE_SHARING].metrics(result, RunSpec(run.workload.source))
    return finished_record(run, result, metrics, began)

