"""The per-setting summary of an experiment: mean and 95 % confidence interval over seeds.

One table feeds both ``schedlab results`` (a rich table on the terminal) and
the HTML report (its first section).  A *setting* is a policy with its
parameters on one workload under one combination of transforms (and, for
grid runs, one platform, dispatcher and allocation); the runs of a setting
differ only in their seed, so their spread is the seed-to-seed variation the
interval describes.

The interval is :func:`schedlab.metrics.confidence.ci_half_width`'s over
the runs that define the metric.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from schedlab.experiments.spec.runs import OUTAGE_COLUMNS
from schedlab.metrics.confidence import ci_half_width

if TYPE_CHECKING:   # pandas loads when a summary is made, not when the CLI starts
    import pandas as pd

#: The columns of :func:`summary_frame` that count, per metric, the runs it is defined in.
RUNS_PREFIX = "runs."
#: The columns of :func:`summary_frame` that hold, per metric, the half-width of its
#: 95 % confidence interval (missing with fewer than two runs).
CI_PREFIX = "ci95."
#: The columns of grid runs (schedlab.experiments.store.GRID_COLUMNS; dispatcher parameters
#: are ``dispatch.<name>``), in the order a summary shows them.
GRID_SETTING_COLUMNS = ("platform", "dispatch", "allocation", "preemption_overhead")


def setting_columns(frame: pd.DataFrame) -> list[str]:
    """What makes a setting: workload (and the interarrival time of generated grid jobs),
    transforms, policy label; the grid setting (platform, dispatcher and its parameters,
    allocation, preemption overhead), machine size, overrun mode, failures and maintenance
    windows when they vary."""
    columns = ["workload"] + [c for c in frame.columns
                              if c == "ta" or c.startswith("transform.")]
    columns.append("setting")
    grid = [c for c in frame.columns
            if c in GRID_SETTING_COLUMNS or c.startswith("dispatch.")]
    columns += [c for c in (*grid, "processors", "overrun", *OUTAGE_COLUMNS)
                if c in frame.columns and frame[c].nunique(dropna=False) > 1]
    return columns


def setting_policy(row: pd.Series) -> str:
    """``sjf+easy`` or ``dynp[k=4]``: the policy with the parameters of the run, in the
    syntax ``--policy`` takes (:func:`~schedlab.policies.registry.spec_text`)."""
    import pandas as pd

    from schedlab.policies.registry import spec_text

    return spec_text(row["policy"], {c.removeprefix("param."): row[c] for c in row.index
                                     if c.startswith("param.") and not pd.isna(row[c])})


def summary_frame(finished: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Mean and confidence interval of each metric per setting over its seeds, with the
    number of runs ``n``.

    A metric missing in a run (one over no jobs, docs/reference/metrics.md "Empty
    groups") is left out of the mean, not counted as 0; ``runs.<metric>``
    says over how many of the ``n`` runs each mean is taken and
    ``ci95.<metric>`` is the half-width of its interval.  Rows come in
    natural order (:func:`natural_order`).
    """
    import pandas as pd

    frame = finished.copy()
    frame["setting"] = frame.apply(setting_policy, axis=1) if len(frame) else []
    for name in names:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
    keys = setting_columns(frame)
    grouped = frame.groupby(keys, dropna=False, sort=True)
    means = grouped[names].mean()
    counts = grouped[names].count()
    halves = grouped[names].agg(ci_half_width)
    means.insert(0, "n", grouped.size())
    for name in names:
        means[RUNS_PREFIX + name] = counts[name]
        means[CI_PREFIX + name] = halves[name]
    return natural_order(means.reset_index(), keys).rename(columns={"setting": "policy"})


def natural_order(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``frame`` sorted by ``keys``, text read with its numbers as numbers
    (``dynp[k=4]`` before ``dynp[k=16]``; :func:`~schedlab.viz.style.natural_key`)."""
    from schedlab.viz.style import natural_key

    def readable(column: pd.Series) -> Any:
        numeric = column.dtype.kind in "biuf"          # numbers sort as they are
        return column if numeric else column.map(natural_key)

    return frame.sort_values(keys, key=readable, kind="stable").reset_index(drop=True)


def label_columns(summary: pd.DataFrame, names: list[str]) -> list[str]:
    """The columns of a summary that say which setting a row is (not metrics, counts or
    intervals)."""
    return [c for c in summary.columns if c not in names
            and not c.startswith((RUNS_PREFIX, CI_PREFIX))]


def varying_labels(summary: pd.DataFrame, names: list[str]) -> list[str]:
    """The label columns worth showing: those that differ between rows (policy and n
    always)."""
    labels = label_columns(summary, names)
    if len(summary) < 2:
        return labels
    return [c for c in labels
            if c in ("policy", "n") or summary[c].nunique(dropna=False) > 1]


def number_text(value: float, like: float | None = None) -> str:
    """A mean as a table shows it: three decimals below 10, one below 1000, none above;
    with ``like`` (the mean an interval belongs to), as many decimals as that mean."""
    from schedlab.output import MISSING_CELL

    if math.isnan(value):
        return MISSING_CELL
    size = abs(value if like is None else like)
    decimals = 3 if size < 10 else 1 if size < 1000 else 0
    return f"{value:.{decimals}f}"


def mean_text(row: pd.Series, name: str) -> str:
    """A setting's mean of ``name`` with its interval, ``12.5 ± 0.8``, and ``(k/n)`` when
    only k of its n runs define the metric."""
    mean = float(row[name])
    text = number_text(mean)
    half = row.get(CI_PREFIX + name)
    if half is not None and not math.isnan(mean) and not math.isnan(float(half)):
        text += f" ± {number_text(float(half), like=mean)}"
    runs = row.get(RUNS_PREFIX + name)
    if runs is not None and 0 < runs < row["n"]:
        text += f" ({int(runs)}/{int(row['n'])})"
    return text
