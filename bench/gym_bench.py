"""Steps per second of the schedlab.gym environments under a random agent, and a step's
cost against the length of the trace the episodes are cut from.

A random agent takes an allowed action uniformly at random (its own numpy
generator over ``info["action_mask"]``); episodes are reset as they end, and
the resets, the Results they assemble and the agent's draws are all counted
in the time.  Each case runs ``--steps`` steps ``--repeat`` times, the cases
taking turns (so a burst of other work on the machine hits them all); the
best and the median over the repeats are reported, in wall and CPU seconds
(``time.process_time``).

    python bench/gym_bench.py                   # every case, 3 repeats (about a minute)
    python bench/gym_bench.py --steps 20000 --repeat 1
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import gymnasium  # noqa: E402

import schedlab.gym  # noqa: E402,F401

#: (label, environment id, options, through gymnasium.make's wrappers or the bare env).
CASES: tuple[tuple[str, str, dict, bool], ...] = (
    ("PickJob, gymnasium.make", "schedlab/PickJob", {}, True),
    ("PickJob, unwrapped", "schedlab/PickJob", {}, False),
    ("PickPolicy, gymnasium.make", "schedlab/PickPolicy", {}, True),
    ("Backfill, gymnasium.make", "schedlab/Backfill", {}, True),
    ("PickJob, lublin 2,000 jobs", "schedlab/PickJob", {"jobs": 2_000}, True),
    ("PickJob, lublin 10,000 jobs", "schedlab/PickJob", {"jobs": 10_000}, True),
    ("PickJob, lublin 50,000 jobs", "schedlab/PickJob", {"jobs": 50_000}, True),
    ("PickJob, lublin 200,000 jobs", "schedlab/PickJob", {"jobs": 200_000}, True),
)


def steps_per_second(env_id: str, options: dict, wrapped: bool, steps: int
                     ) -> tuple[float, float, int]:
    """Wall and CPU steps per second of ``steps`` random steps, and the episodes ended."""
    env = gymnasium.make(env_id, **options)
    if not wrapped:
        env = env.unwrapped
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    episodes = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        allowed = np.nonzero(info["action_mask"])[0]
        _, _, over, _, info = env.step(allowed[rng.integers(len(allowed))])
        if over:
            episodes += 1
            _, info = env.reset()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    env.close()
    return steps / wall, steps / cpu, episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="run the cases whose label contains this text")
    options = parser.parse_args()
    print(f"python {platform.python_version()}, gymnasium {gymnasium.__version__}, "
          f"{platform.machine()}; {options.steps:,} steps x {options.repeat}\n")
    cases = [case for case in CASES if not options.only or options.only in case[0]]
    runs: dict[str, list[tuple[float, float, int]]] = {case[0]: [] for case in cases}
    for _ in range(options.repeat):
        for label, env_id, env_options, wrapped in cases:
            runs[label].append(steps_per_second(env_id, env_options, wrapped, options.steps))
    print("| case | best steps/s (wall) | median (wall) | best (CPU) | median (CPU) | episodes |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, measured in runs.items():
        wall, cpu = [r[0] for r in measured], [r[1] for r in measured]
        print(f"| {label} | {max(wall):,.0f} | {statistics.median(wall):,.0f} | "
              f"{max(cpu):,.0f} | {statistics.median(cpu):,.0f} | {measured[0][2]} |")


if __name__ == "__main__":
    main()
