"""Synthetic workload models, and the built-in workloads that need no download.

``BUILTIN_MODELS`` maps the name of each built-in workload to the function
that generates it; :func:`generate_builtin` is what the command line uses
when no trace is given (SPEC §1.3: "a built-in default workload ... so the
main command works on a fresh machine").  Besides the Lublin-Feitelson
model they include Streit's synthetic job sets (``KTH_syn``, ``SDSCBLUE_syn``,
``NASA_syn``, ``LUBLIN256_syn``: Streit 2002, §4), generated from parameter
files shipped in ``models/data``, and the gang-scheduling workloads ``w0`` ..
``w8`` of Zhou, Goscinski and Brent (§4: hyper-Erlang model, Jann et al. 1997).
"""

from __future__ import annotations

from collections.abc import Callable

from schedlab.errors import InputError
from schedlab.workload.job import Workload
from schedlab.workload.models.hypererlang import FAMILY_SIZE, gang_workload
from schedlab.workload.models.lublin import generate_lublin
from schedlab.workload.models.streit import (
    BUILTIN_PARAMETERS,
    DEFAULT_JOBS,
    analyze_trace,
    generate_streit,
    synthetic_job_set,
)


def lublin_128(n_jobs: int = 10_000, processors: int = 128, seed: int = 0) -> Workload:
    """The default workload: the Lublin-Feitelson model on a 128-processor machine.

    Whole-sample parameters (:data:`~schedlab.workload.models.lublin.WHOLE_SAMPLE`),
    Tsafrir estimates; offered load about 0.7 (docs/reference/models.md).
    """
    return generate_lublin(n_jobs, processors, seed)


def lublin_256(n_jobs: int = 10_000, processors: int = 256, seed: int = 0) -> Workload:
    """The Lublin-Feitelson model on a 256-processor machine, as the archive's lublin_256 trace."""
    return generate_lublin(n_jobs, processors, seed)


def streit_job_set(key: str) -> Callable[..., Workload]:
    """The generator of Streit's synthetic job set from built-in parameter file ``key``.

    Streit 2002, §4: by default 10,000 jobs from the Weibull interarrival fit
    and the 3-D matrix of a trace (``models/streit.py``).
    """
    def generate(n_jobs: int = DEFAULT_JOBS, processors: int | None = None,
                 seed: int = 0) -> Workload:
        return synthetic_job_set(key, n_jobs=n_jobs, processors=processors, seed=seed)

    generate.__doc__ = f"Streit's synthetic job set from the '{key}' parameter file."
    return generate


def gang_family_member(index: int, order: int | None = None) -> Callable[..., Workload]:
    """The generator of workload ``w<index>`` (paper 001, §4; ``models/hypererlang.py``),
    its service times of common order ``order`` (None: the shipped order 1)."""
    def generate(n_jobs: int = 10_000, processors: int = 256, seed: int = 0) -> Workload:
        return gang_workload(index, n_jobs=n_jobs, processors=processors, seed=seed,
                             order=order)

    of_order = "" if order is None else f", service times of order {order}"
    generate.__doc__ = (f"Gang-scheduling workload w{index}: hyper-Erlang model{of_order}, "
                        f"perfect estimates.")
    return generate


#: The other orders of the gang workloads' service distribution offered by name
#: (``w3-order2``): the three conditions of the family are feasible at orders 1 and 2 only.
GANG_ORDERS = (2,)


#: Built-in workload name -> generator taking ``(n_jobs, processors, seed)``.
BUILTIN_MODELS: dict[str, Callable[..., Workload]] = {
    "lublin": lublin_128,
    "lublin256": lublin_256,
    **{name: streit_job_set(key) for key, (_, name, _) in BUILTIN_PARAMETERS.items()},
    **{f"w{i}": gang_family_member(i) for i in range(FAMILY_SIZE)},
    **{f"w{i}-order{k}": gang_family_member(i, k) for k in GANG_ORDERS
       for i in range(FAMILY_SIZE)},
}

#: The workload used when the user names none.
DEFAULT_MODEL = "lublin"


def generate_builtin(name: str, *, n_jobs: int | None = None, processors: int | None = None,
                     seed: int = 0) -> Workload:
    """Generate the built-in workload ``name``; ``None`` keeps the model's default.

    Raises InputError naming the known models when ``name`` is not one.
    """
    generator = BUILTIN_MODELS.get(name)
    if generator is None:
        known = ", ".join(sorted(BUILTIN_MODELS))
        raise InputError(f"unknown built-in workload {name!r}; expected one of: {known}",
                         field="model")
    overrides = {key: value for key, value in (("n_jobs", n_jobs), ("processors", processors))
                 if value is not None}
    return generator(seed=seed, **overrides)


__all__ = ["BUILTIN_MODELS", "DEFAULT_MODEL", "analyze_trace", "generate_builtin",
           "generate_lublin", "generate_streit"]
