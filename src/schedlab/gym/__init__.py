"""Gymnasium environments for learned schedulers, on schedlab's engine, policies and metrics.

Importing the package registers three environments with ``gymnasium.make``
(docs/how-to/rl.md): ``schedlab/PickJob`` (which waiting job starts next),
``schedlab/PickPolicy`` (which policy makes the next pass) and
``schedlab/Backfill`` (approve or refuse each job EASY would backfill).
:func:`evaluate` scores an agent or a registered policy on the test episodes
and stores the runs where ``schedlab results`` and ``schedlab report`` read
them.  It needs the optional extra ``schedlab[rl]`` (gymnasium).
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as err:        # the optional extra is not installed
    raise ImportError("schedlab.gym needs gymnasium: pip install 'schedlab[rl]'") from err

from schedlab.gym.envs import BackfillEnv, PickJobEnv, PickPolicyEnv, SchedulingEnv
from schedlab.gym.evaluate import evaluate

#: The environments, by the id ``gymnasium.make`` takes.
ENVIRONMENTS: dict[str, type[SchedulingEnv]] = {
    "schedlab/PickJob": PickJobEnv,
    "schedlab/PickPolicy": PickPolicyEnv,
    "schedlab/Backfill": BackfillEnv,
}

for _env_id, _env in ENVIRONMENTS.items():
    if _env_id not in gymnasium.registry:
        gymnasium.register(id=_env_id, entry_point=f"{_env.__module__}:{_env.__name__}")

__all__ = ["ENVIRONMENTS", "BackfillEnv", "PickJobEnv", "PickPolicyEnv", "evaluate"]
