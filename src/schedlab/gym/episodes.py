"""Episodes: time windows of one workload, split by time into train and test.

A workload (a built-in model such as ``lublin``, an SWF or sacct file, a
cached catalog trace) is loaded once, exactly as a sweep loads it
(:func:`schedlab.experiments.runner.loaded_workload`).  Its submit span is
cut in two at one instant: the jobs submitted before the cut are the
*train* split, the others the *test* split, so an agent evaluated on test
episodes has never seen their jobs.

An episode is the jobs of one time window ``[a, b)`` of a split, simulated
from an empty machine: ``a`` is the submit time of some job ``k`` and ``b``
the submit time of job ``k + episode_jobs`` (the end of the split when
fewer jobs are left), so an episode holds ``episode_jobs`` jobs, give or
take the jobs submitted in the same second as job ``k`` or job
``k + episode_jobs`` (a window takes every job of its seconds, so
consecutive windows never share a job).
The window is the sweep's ``window`` option of the workload, and the
episode's jobs are then transformed (``shrink``) by the run layer's
:func:`schedlab.run.transform`, the function every sweep run goes through:
a registered policy run by a sweep on the same window sees the same jobs.

Training draws ``k`` uniformly among the split's jobs that have a whole
episode after them; evaluation takes the split's consecutive episodes
``0, 1, 2, ...`` (episode ``i`` starts at the split's job
``i * episode_jobs``), which never overlap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import InputError
from schedlab.experiments.runner import loaded_workload
from schedlab.experiments.spec import WorkloadSource, file_digest, trace_label
from schedlab.limits import check_seed
from schedlab.pipeline import Transforms, apply_transforms
from schedlab.run import RunSpec, transform
from schedlab.workload.job import Workload

#: The two splits of a workload.
SPLITS = ("train", "test")
#: How many jobs a model generates when the environment is not told.
MODEL_JOBS = 10_000


@dataclass(frozen=True)
class EpisodeSettings:
    """What the episodes of an environment are made of (the environments' keyword options).

    ``workload``: a built-in model name, an SWF or sacct file or a cached
    trace's name; ``jobs``: how many jobs a model generates (models only; ``None``:
    :data:`MODEL_JOBS`);
    ``workload_seed``: the model's seed; ``processors``: the machine size
    (``None``: the workload's); ``shrink``: the interarrival factor applied
    to each episode (below 1 raises the load; ``None``: none); ``split``:
    ``"train"`` or ``"test"``; ``test_fraction``: the share of the submit
    span that is the test split (its end); ``episode_jobs``: jobs per episode.
    """

    workload: str = "lublin"
    jobs: int | None = None
    workload_seed: int = 0
    processors: int | None = None
    shrink: float | None = None
    split: str = "train"
    test_fraction: float = 0.2
    episode_jobs: int = 256


class Episodes:
    """The workload of an environment, loaded once, and the windows of its split."""

    def __init__(self, settings: EpisodeSettings) -> None:
        check_settings(settings)
        self.settings = settings
        self.source = workload_source(settings)
        self.full: Workload = loaded_workload(self.source, settings.workload_seed,
                                              settings.processors)
        submits = np.fromiter((job.submit for job in self.full.jobs), np.int64,
                              len(self.full.jobs))
        self.submits = submits
        self.cut = split_time(submits, settings.test_fraction)
        cut_position = int(np.searchsorted(submits, self.cut, side="left"))
        self.first, self.end = ((0, cut_position) if settings.split == "train"
                                else (cut_position, len(submits)))
        if self.end - self.first < settings.episode_jobs:
            raise InputError(f"the {settings.split} split of {self.source.label!r} has "
                             f"{self.end - self.first} jobs, fewer than one episode of "
                             f"{settings.episode_jobs}: lower episode_jobs or test_fraction, "
                             f"or give more jobs", field="episode_jobs")

    @property
    def count(self) -> int:
        """How many consecutive, non-overlapping episodes the split holds."""
        return (self.end - self.first) // self.settings.episode_jobs

    def drawn(self, rng: np.random.Generator) -> tuple[int, int]:
        """A window starting at a job drawn uniformly among those with a whole episode after
        them in the split."""
        last = self.end - self.settings.episode_jobs
        return self.window_from(int(rng.integers(self.first, last + 1)))

    def numbered(self, episode: int) -> tuple[int, int]:
        """The window of the split's consecutive episode ``episode`` (0, 1, ...)."""
        if isinstance(episode, bool) or not isinstance(episode, (int, np.integer)) \
                or not 0 <= episode < self.count:
            raise InputError(f"the {self.settings.split} split holds episodes 0 to "
                             f"{self.count - 1}, not {episode!r}", field="episode")
        return self.window_from(self.first + episode * self.settings.episode_jobs)

    def window_from(self, position: int) -> tuple[int, int]:
        """``[submit of job position, submit of job position + episode_jobs)``, the window
        ending at the split's end when fewer jobs are left."""
        after = position + self.settings.episode_jobs
        start = int(self.submits[position])
        if after < self.end:
            end = int(self.submits[after])
        else:
            end = self.cut if self.settings.split == "train" else int(self.submits[-1]) + 1
        return start, max(end, start + 1)

    def workload(self, window: tuple[int, int]) -> Workload:
        """The jobs of ``window``, transformed as a sweep run on that window transforms them."""
        windowed = apply_transforms(self.full, Transforms(window=window))
        spec = RunSpec(self.source.source, seed=self.settings.workload_seed,
                       transforms=Transforms(shrink=self.settings.shrink))
        return transform(windowed, spec)

    def episode_source(self, window: tuple[int, int]) -> WorkloadSource:
        """The sweep's description of the episode's jobs: the workload with its ``window``
        option, labelled with the workload and the split."""
        options = dict(self.source.options)
        options["window"] = window
        return WorkloadSource(self.source.kind, self.source.source,
                              f"{self.source.label}-{self.settings.split}", self.source.digest,
                              tuple(sorted(options.items())))

    def transforms(self) -> tuple[tuple[str, Any], ...]:
        """The sweep's transforms of an episode."""
        return () if self.settings.shrink is None else (("shrink", self.settings.shrink),)


def split_time(submits: np.ndarray, test_fraction: float) -> int:
    """The instant the test split starts: ``first + round((1 - test_fraction) * span)`` over
    the submit span ``[first, last + 1)``."""
    first, last = int(submits[0]), int(submits[-1])
    return first + round((1 - test_fraction) * (last + 1 - first))


def check_settings(settings: EpisodeSettings) -> None:
    """InputError naming the first option out of its range."""
    if settings.split not in SPLITS:
        raise InputError(f"expected one of {', '.join(SPLITS)}, got {settings.split!r}",
                         field="split")
    if not isinstance(settings.episode_jobs, int) or settings.episode_jobs < 1:
        raise InputError(f"expected an int >= 1, got {settings.episode_jobs!r}",
                         field="episode_jobs")
    if isinstance(settings.test_fraction, bool) \
            or not isinstance(settings.test_fraction, (int, float)) \
            or not 0 < settings.test_fraction < 1:
        raise InputError(f"expected a number strictly between 0 and 1, got "
                         f"{settings.test_fraction!r}", field="test_fraction")
    shrink = settings.shrink
    if shrink is not None and (isinstance(shrink, bool) or not isinstance(shrink, (int, float))
                               or not math.isfinite(shrink) or shrink <= 0):
        raise InputError(f"expected a finite number > 0, got {shrink!r}", field="shrink")
    check_seed(settings.workload_seed, field="workload_seed")


def workload_source(settings: EpisodeSettings) -> WorkloadSource:
    """The sweep's description of the whole workload: a model with its number of jobs, or a
    file (a cached trace's file) with its checksum; ``jobs`` is refused for a file."""
    from schedlab.workload.catalog import cached_trace
    from schedlab.workload.models import BUILTIN_MODELS

    name = settings.workload
    path = Path(name)
    if not path.is_file() and name in BUILTIN_MODELS:
        jobs = MODEL_JOBS if settings.jobs is None else settings.jobs
        return WorkloadSource("model", name, name, None, (("jobs", jobs),))
    if settings.jobs is not None:
        raise InputError("applies to built-in models only: a trace's episodes are windows of "
                         "the whole trace", field="jobs")
    if not path.is_file():
        cached = cached_trace(name)
        if cached is None:
            raise InputError(f"no such file, not a built-in model "
                             f"(models: {', '.join(sorted(BUILTIN_MODELS))}) and not a trace "
                             f"of `schedlab traces list`", file=name)
        path = Path(cached)
    path = path.resolve()
    return WorkloadSource("file", str(path), trace_label(path), file_digest(path), ())
