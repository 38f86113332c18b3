"""The one place where a workload's transforms are applied, in one fixed order.

It belongs to the run layer (docs/architecture.md, "Layers"), above the
engine and the policies: the QoPS deadline assignment schedules the workload
with EASY backfilling first (:func:`easy_response_times`); the per-job
formulas are in :mod:`schedlab.workload.deadlines`.

``schedlab simulate``/``compare``/``transform`` and the experiment runner all
go through :func:`apply_transforms`, so a run on the command line and the
same run in a sweep see exactly the same jobs.

Order: time window, first N jobs, width split, shrinking, perfect estimates,
load scaling, deadlines.  Load scaling comes before deadlines because QoPS
(Islam et al., §4.2) scales the trace first, then schedules it with EASY,
then derives the deadlines from that schedule.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError
from schedlab.limits import MAX_JOBS, MAX_PROCESSORS, MAX_TIME, TIME_BOUND, check_int
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.engine.simulator import ProgressCallback

LOAD_METHODS = ("duplicate", "expand")


@dataclass(frozen=True)
class Transforms:
    """The transforms to apply; ``None``/``False`` means "not this one".

    ``first`` keeps the first N jobs; ``window`` the jobs submitted in
    ``[start, end)``; ``load`` raises the offered load by duplication or
    expansion (``load_method``); ``deadlines`` is a side file, or
    ``stringency`` derives deadlines from an EASY run, for a
    ``deadline_fraction`` of the jobs, the others getting artificial
    deadlines with ``relaxation`` R (docs/reference/workloads.md).
    """

    window: tuple[int, int] | None = None
    first: int | None = None
    split: int | None = None
    shrink: float | None = None
    perfect_estimates: bool = False
    load: float | None = None
    load_method: str = "duplicate"
    deadlines: str | None = None
    stringency: float | None = None
    deadline_fraction: float = 1.0
    relaxation: float | None = None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


Label = Callable[[str], str]


def apply_transforms(workload: Workload, steps: Transforms, *, seed: int = 0,
                     label: Label = str, progress: ProgressCallback | None = None) -> Workload:
    """``workload`` with ``steps`` applied in the documented order.

    ``seed`` drives the random transforms (duplication, the choice of
    deadline jobs).  ``label`` turns a transform name into the name the
    user wrote (``--load-method`` on the command line,
    ``transforms.load_method`` in an experiment file) for error messages.
    ``progress(done, total)`` follows the EASY run that deadlines from a
    stringency need (:func:`easy_response_times`).
    """
    from schedlab.workload import transforms

    check_transforms(steps, label=label)
    if steps.window is not None:
        workload = transforms.time_window(workload, *steps.window)
    if steps.first is not None:
        workload = transforms.first_jobs(workload, steps.first)
    if steps.split is not None:
        workload = _labelled(label("split"), transforms.split_wide_jobs, workload, steps.split)
    if steps.shrink is not None:
        workload = _labelled(label("shrink"), transforms.shrink, workload, steps.shrink)
    if steps.perfect_estimates:
        workload = transforms.perfect_estimates(workload)
    if steps.load is not None:
        workload = _scale_load(workload, steps, seed, label)
    return _add_deadlines(workload, steps, seed, label, progress)


#: The setting of Transforms that each parameter of the deadline assignment comes from.
_DEADLINE_SETTINGS = {"stringency": "stringency", "fraction": "deadline_fraction",
                      "relaxation": "relaxation"}


def check_transforms(steps: Transforms, *, label: Label = str) -> None:
    """Raise :class:`InputError` for a transform value no workload can take, naming
    ``label(setting)``.

    The per-value checks of one run, made before any transform runs and
    called by the sweep's validation for every combination of its values
    (docs/how-to/experiments.md), so a sweep fails before its first run, not in
    every run: a load, shrinking or relaxation factor beyond what the engine
    can represent (:mod:`schedlab.limits`), a load method that does not
    exist, a stringency or deadline fraction outside [0, 1] (checked before
    the settings that need each other, so the value out of range is named).
    """
    from schedlab.workload import deadlines as assign

    if steps.split is not None:
        check_int(steps.split, field=label("split"), low=1, high=MAX_PROCESSORS)
    _check_factor(steps.shrink, label("shrink"), low=0, high=MAX_TIME)
    if steps.load_method not in LOAD_METHODS:
        raise InputError(f"expected one of {', '.join(LOAD_METHODS)}, "
                         f"got {steps.load_method!r}", field=label("load_method"))
    if steps.load_method == "duplicate":
        _check_factor(steps.load, label("load"), low=1, high=MAX_JOBS, closed=True,
                      why="copies of every job, more than 2**22 jobs in all")
    else:
        _check_factor(steps.load, label("load"), low=0, high=MAX_TIME)
    if steps.stringency is not None or steps.deadline_fraction != 1.0 \
            or steps.relaxation is not None:
        stringency = 0.0 if steps.stringency is None else steps.stringency
        relaxation = 1.0 if steps.relaxation is None else steps.relaxation
        try:
            assign.check_factors(stringency, steps.deadline_fraction, relaxation)
        except InputError as err:
            raise InputError(err.reason, field=label(_DEADLINE_SETTINGS.get(err.field or "",
                                                                            "stringency"))) \
                from None
        _check_factor(steps.relaxation, label("relaxation"), low=0, high=MAX_TIME)
    if steps.deadlines is not None and steps.stringency is not None:
        raise InputError("give either a deadline file or a stringency, not both",
                         field=label("stringency"))
    if steps.stringency is None and (steps.deadline_fraction != 1.0
                                     or steps.relaxation is not None):
        raise InputError(f"{label('deadline_fraction')} and {label('relaxation')} need "
                         f"{label('stringency')}", field=label("stringency"))
    if steps.stringency is not None and steps.deadline_fraction != 1.0 \
            and steps.relaxation is None:
        raise InputError("a deadline fraction below 1 needs the relaxation factor R of the "
                         "artificial deadlines", field=label("relaxation"))


def _check_factor(value: float | None, field: str, *, low: float, high: float,
                  closed: bool = False, why: str = "") -> None:
    """A factor (None: not given) must be a finite number above ``low`` (at least it, when
    ``closed``) and at most ``high``: beyond, times or job counts leave what the engine
    represents (:mod:`schedlab.limits`)."""
    if value is None:
        return
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    bound = f">= {low:g}" if closed else f"> {low:g}"
    if not number or not math.isfinite(value) or (value < low if closed else value <= low):
        raise InputError(f"expected a finite number {bound}, got {value!r}", field=field)
    if value > high:
        limit = (f"2**53 (a larger factor puts times beyond {TIME_BOUND})" if high == MAX_TIME
                 else f"{high} ({why})")
        raise InputError(f"expected a number <= {limit}, got {value!r}", field=field)


def _scale_load(workload: Workload, steps: Transforms, seed: int, label: Label) -> Workload:
    """Duplication (seeded) or expansion (QoPS §4.2; docs/reference/workloads.md)."""
    from schedlab.workload import transforms

    if steps.load_method == "duplicate":
        return _labelled(label("load"), transforms.duplicate_load, workload, steps.load, seed)
    return _labelled(label("load"), transforms.expand_load, workload, steps.load)


def _labelled(field: str, transform: Callable[..., Workload], *args) -> Workload:
    """``transform(*args)``; its InputError (a job count or a time beyond the bounds, found
    only on the workload) names ``field``, the option or key the user wrote."""
    try:
        return transform(*args)
    except InputError as err:
        raise InputError(err.reason, field=field) from None


def _add_deadlines(workload: Workload, steps: Transforms, seed: int, label: Label,
                   progress: ProgressCallback | None) -> Workload:
    """A deadline side file, or deadlines from an EASY run (QoPS §4.1), mixed if asked (§4.2)."""
    from schedlab.workload import deadlines as assign

    if steps.deadlines is not None:
        return assign.read_deadlines(steps.deadlines, workload)
    if steps.stringency is None:
        return workload
    if steps.deadline_fraction == 1.0:
        return stringency_deadlines(workload, steps.stringency, progress=progress)
    assert steps.relaxation is not None, "check_transforms: a fraction below 1 comes with its R"
    return mixed_deadlines(workload, steps.stringency, steps.deadline_fraction,
                           steps.relaxation, seed, progress=progress)


# ------------------------------------------------------- QoPS §4.1 and §4.2
def easy_response_times(workload: Workload, *,
                        progress: ProgressCallback | None = None) -> np.ndarray:
    """Response time (end - submit) of every job under FCFS EASY backfilling, workload order.

    The schedule QoPS §4.1 derives deadlines from ("first use EASY back-fill
    to generate a valid schedule for the jobs"), on the workload's machine,
    with jobs killed at their estimates as everywhere in schedlab.
    ``progress(done, total)`` is the engine's progress callback for that run.
    """
    from schedlab.engine.simulator import run
    from schedlab.policies.backfilling import EasyBackfilling

    result = run(workload, EasyBackfilling(order="fcfs"), progress=progress)
    return result.end - result.submit


def stringency_deadlines(workload: Workload, stringency: float, *,
                         progress: ProgressCallback | None = None) -> Workload:
    """Every job gets the QoPS deadline for stringency ``s`` from an EASY schedule (§4.1).

    :func:`schedlab.workload.deadlines.stringency_deadlines` with the
    response times of :func:`easy_response_times`.
    """
    from schedlab.workload import deadlines as assign

    assign.check_factors(stringency)
    return assign.stringency_deadlines(workload, stringency,
                                       easy_response_times(workload, progress=progress).tolist())


def mixed_deadlines(workload: Workload, stringency: float, fraction: float, relaxation: float,
                    seed: int | np.random.Generator = 0, *,
                    progress: ProgressCallback | None = None) -> Workload:
    """A seeded ``fraction`` of the jobs get QoPS deadlines, the others artificial ones (§4.2).

    :func:`schedlab.workload.deadlines.mixed_deadlines` with the response
    times of :func:`easy_response_times`.
    """
    from schedlab.workload import deadlines as assign

    assign.check_factors(stringency, fraction, relaxation)
    return assign.mixed_deadlines(workload, stringency, fraction, relaxation, seed,
                                  easy_response=easy_response_times(workload,
                                                                    progress=progress).tolist())
