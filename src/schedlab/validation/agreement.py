"""How closely two schedules of the same jobs agree: the measures of the Slurm validation.

Three numbers compare a schedule with a reference (docs/background/validation.md):

* **starts within** ``tolerance`` **seconds**: the share of jobs whose start
  differs from the reference's by at most ``tolerance`` (2 s: Slurm's
  timestamps are whole seconds and its schedulers run on one-second timers);
* **pairs in order**: the share of pairs of jobs with different reference
  starts that start in the same order in both schedules (a tie in the
  other schedule counts as half);
* **mean wait relative difference**: (mean wait - reference mean wait) /
  reference mean wait.

Waits are start minus submit of the reference's submit times, so that two
schedules of one replay are compared on the same jobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Agreement:
    """The three measures of one schedule against a reference, over ``jobs`` jobs."""

    jobs: int
    starts_within: float
    pairs_in_order: float
    mean_wait: float
    reference_mean_wait: float

    @property
    def mean_wait_difference(self) -> float:
        """(mean wait - reference mean wait) / reference mean wait (0 when both are 0)."""
        if self.reference_mean_wait == 0:
            return 0.0 if self.mean_wait == 0 else float("inf")
        return (self.mean_wait - self.reference_mean_wait) / self.reference_mean_wait

    def meets(self, starts_within: float, pairs_in_order: float,
              mean_wait_difference: float) -> bool:
        """Whether the schedule reaches the three targets (shares in [0, 1])."""
        return (self.starts_within >= starts_within and self.pairs_in_order >= pairs_in_order
                and abs(self.mean_wait_difference) <= mean_wait_difference)

    def as_row(self) -> dict[str, float]:
        """The measures as percentages, for a table."""
        return {"starts within 2 s %": 100 * self.starts_within,
                "pairs in order %": 100 * self.pairs_in_order,
                "mean wait s": self.mean_wait,
                "mean wait diff %": 100 * self.mean_wait_difference}


def agreement(submit: Sequence[int], reference: Sequence[int], starts: Sequence[int], *,
              tolerance: int = 2) -> Agreement:
    """The agreement of ``starts`` with ``reference`` starts of jobs submitted at ``submit``
    (three sequences of one length, one entry per job, in the same job order)."""
    sub = np.asarray(submit, dtype=np.int64)
    ref = np.asarray(reference, dtype=np.int64)
    got = np.asarray(starts, dtype=np.int64)
    if not len(sub) == len(ref) == len(got) or len(sub) == 0:
        raise ValueError(f"agreement needs one submit and two starts per job, got "
                         f"{len(sub)}, {len(ref)} and {len(got)}")
    within = float(np.mean(np.abs(got - ref) <= tolerance))
    return Agreement(jobs=len(sub), starts_within=within,
                     pairs_in_order=_pairs_in_order(ref, got),
                     mean_wait=float(np.mean(got - sub)),
                     reference_mean_wait=float(np.mean(ref - sub)))


def _pairs_in_order(reference: np.ndarray, other: np.ndarray) -> float:
    """The share of pairs ordered by ``reference`` (no tie there) that ``other`` orders the
    same way; a tie in ``other`` counts half."""
    ref = np.sign(reference[:, None] - reference[None, :])
    got = np.sign(other[:, None] - other[None, :])
    ordered = ref != 0
    if not ordered.any():
        return 1.0
    same = (ref == got) & ordered
    tied = (got == 0) & ordered
    return float((same.sum() + 0.5 * tied.sum()) / ordered.sum())


def agreement_by_id(submit: Mapping[int, int], reference: Mapping[int, int],
                    starts: Mapping[int, int], *, tolerance: int = 2) -> Agreement:
    """:func:`agreement` of schedules given as job id -> time (every id of ``reference``)."""
    ids = sorted(reference)
    return agreement([submit[i] for i in ids], [reference[i] for i in ids],
                     [starts[i] for i in ids], tolerance=tolerance)
