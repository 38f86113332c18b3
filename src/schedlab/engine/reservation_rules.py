"""How advance-reservation requests are placed and throttled (Margo et al., §2, §7–8).

A policy's reservation parameters build its rules
(:mod:`schedlab.policies.reservations`, which also places and throttles by
them); the engine records them in ``Result.meta["reservation_rules"]``.
They live in the engine layer so that the engine imports nothing from the
policies (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedlab.engine.policy import check_choice
from schedlab.errors import InputError

HOUR: int = 3600
WEEK: int = 7 * 24 * HOUR
#: Margo et al., §2: "256 nodes * 12 hours worth of node-seconds" per sliding week.
PAPER_CAP = 256 * 12 * HOUR
PLACEMENTS = ("exact", "earliest")


@dataclass(frozen=True)
class ReservationRules:
    """How requests are placed and throttled (Margo et al., §2, §7–8).

    ``placement``: ``"exact"`` (requested start or rejection; our reading of
    Margo §2) or ``"earliest"`` (the earliest fit from the requested start;
    the other reading, every request placed).  ``cap``:
    the most node-seconds of granted reservations any window of ``window``
    seconds may hold, ``None`` for no cap (:data:`PAPER_CAP` is the paper's,
    on a sliding week).  ``min_duration`` and ``min_notice`` (seconds)
    refuse short reservations and short-notice requests.
    """

    placement: str = "exact"
    cap: int | None = None
    window: int = WEEK
    min_duration: int = 0
    min_notice: int = 0

    def __post_init__(self) -> None:
        check_choice("ReservationRules", "placement", self.placement, PLACEMENTS)
        for name, low in (("window", 1), ("min_duration", 0), ("min_notice", 0)):
            _check_int(name, getattr(self, name), low)
        if self.cap is not None:
            _check_int("cap", self.cap, 0)

    @classmethod
    def paper_throttle(cls, **changes: Any) -> ReservationRules:
        """The paper's throttling policy: at most 256 nodes x 12 h in any sliding 7 days."""
        return cls(**{"cap": PAPER_CAP, **changes})


def _check_int(name: str, value: object, low: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InputError(f"The {name!r} parameter of ReservationRules must be an int in "
                         f"[{low}, inf). Got {value!r} instead.", field=name)
