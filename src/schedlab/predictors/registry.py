"""Every runtime predictor by name; plug-ins under the ``schedlab.predictors`` entry points.

The built-ins are :data:`~schedlab.predictors.builtin.BUILTIN_PREDICTORS`;
third-party packages add predictors as the policies' plug-ins add policies
(:mod:`schedlab.policies.registry`): an entry point of the group
:data:`ENTRY_POINT_GROUP` whose name is the predictor's name and which loads
a :class:`~schedlab.predictors.base.Predictor` subclass.  A plug-in does not
replace a built-in name.

A spec is a name, ``NAME[KEY=VALUE,...]`` (the one syntax of policies and
predictors, :mod:`schedlab.specs`), a mapping ``{"name": ..., **params}`` or a
ready predictor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from schedlab.errors import InputError, did_you_mean
from schedlab.predictors.base import Param, Predictor
from schedlab.predictors.builtin import BUILTIN_PREDICTORS
from schedlab.specs import parse_spec

ENTRY_POINT_GROUP = "schedlab.predictors"
#: The predictor of a run that names none: today's behaviour.
DEFAULT_PREDICTOR = "estimate"
PredictorSpec: TypeAlias = str | Mapping[str, Any] | Predictor


@dataclass(frozen=True)
class PredictorEntry:
    """One registered predictor: its class, and where it comes from."""

    name: str
    factory: type[Predictor]
    source: str = "schedlab"

    @property
    def summary(self) -> str:
        """One line: what it predicts."""
        return self.factory.summary or (self.factory.__doc__ or "").strip().split("\n")[0]

    def parameters(self) -> dict[str, Param]:
        """Every parameter's declaration (default, allowed values, meaning)."""
        return self.factory.parameters()


_BUILTIN = {cls.name: PredictorEntry(cls.name, cls) for cls in BUILTIN_PREDICTORS}


def _plugin_entries() -> dict[str, PredictorEntry]:
    from importlib.metadata import entry_points  # 25 ms to import: only when needed

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _BUILTIN:
            continue
        factory = ep.load()
        if not (isinstance(factory, type) and issubclass(factory, Predictor)):
            raise InputError(f"the predictor plug-in {ep.name!r} ({ep.value}) is not a "
                             f"Predictor subclass", field="predictor")
        found[ep.name] = PredictorEntry(ep.name, factory, source=ep.value)
    return found


def available_predictors() -> dict[str, PredictorEntry]:
    """Every predictor name :func:`make_predictor` accepts: built in, then plug-ins."""
    return {**_BUILTIN, **_plugin_entries()}


def make_predictor(spec: PredictorSpec = DEFAULT_PREDICTOR) -> Predictor:
    """A fresh predictor from ``"easy++"``, ``"easy++[correction=graded]"``,
    ``{"name": "knn", "k": 3}``, or a predictor (returned as it is).

    An unknown name or a parameter out of range is an :class:`InputError`
    (one line, with the closest known name).
    """
    if isinstance(spec, Predictor):
        return spec
    if isinstance(spec, str):
        params = parse_spec(spec, what="predictor", example="easy++[correction=graded]",
                            field="predictor")
    elif isinstance(spec, Mapping):
        if "name" not in spec:
            raise InputError("a predictor mapping needs a 'name' key", field="predictor")
        params = dict(spec)
    else:
        raise InputError(f"a predictor is a name or a mapping, got {type(spec).__name__}",
                         field="predictor")
    name = str(params.pop("name")).strip().lower()
    entry = _BUILTIN.get(name) or _plugin_entries().get(name)
    if entry is None:
        known = list(available_predictors())
        raise InputError(f"unknown predictor {name!r}{did_you_mean(name, known)} (known: "
                         f"{', '.join(known)})", field="predictor")
    return entry.factory(**params)
