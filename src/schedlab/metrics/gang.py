"""Metrics of a gang (time-sharing) run: Zhou, Goscinski and Brent 2003, §4-5.

Computed from ``Result.timesharing``; :func:`compute_metrics` adds them only
to gang runs.  The paper measures

* the slowdown of job i as turnaround / service time, t_i^r / t_i^e,
  unbounded (§4), averaged over all jobs and over the short jobs (Tables 1,
  2, 6-9) — ``gang_slowdown`` and ``gang_slowdown_<class>``;
* the average number of time slots n = sum(i t_i) / sum(t_i), t_i the time
  with i slots (§4; Tables 5, 10) — ``gang_slots_mean``;
* the percentage of time with i slots (Tables 3, 4, 10) — ``gang_slots_pct_<i>``.

Also the tables of the gang figures (docs/how-to/figures.md): :func:`matrix_table`
(every change of the Ousterhout matrix) and :func:`slots_table` (slots in a
round over time), which ``schedlab simulate --out`` writes as ``matrix.csv``
and ``slots.csv``.

Our readings (docs/reference/metrics.md): the slots average and shares are taken over
the time with at least one slot (the paper's shares for 1..5 slots add up to
100 %); the idle time is reported on its own as ``gang_idle_pct``.  A job
that received no service (runtime 0) has no slowdown and is left out of the
slowdown means; a mean over no jobs (an empty class) is missing, ``None``
(docs/reference/metrics.md, "Empty groups").  Classes use the run's own ``short``/``long``/``classify_by``
parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from schedlab.engine.result import MATRIX_CHANGE_KINDS, Result
from schedlab.metrics import series
from schedlab.metrics.jobs import mean

if TYPE_CHECKING:     # pandas costs 0.25 s to import: only the two table builders need it
    import pandas as pd

CLASS_NAMES = ("short", "medium", "long")
#: Columns of a matrix table (``matrix.csv``): one row per change of the matrix.
MATRIX_COLUMNS = ("time", "kind", "job_id", "row", "processors")
#: Columns of a slots table (``slots.csv``): the step function of slots in a round.
SLOTS_COLUMNS = ("time", "slots")

#: One line per gang metric name (``<i>`` and ``<class>`` expand as documented).
GANG_METRIC_DOCS: dict[str, str] = {
    "gang_slowdown": "mean of turnaround / service over jobs with service > 0, unbounded "
                     "(Zhou et al. 2003, §4)",
    "gang_slowdown_<class>": "gang_slowdown over the short, medium or long jobs (§5)",
    "gang_jobs_<class>": "number of short, medium or long jobs that ran",
    "gang_slots_mean": "time-weighted mean number of slots in a round over the time with at "
                       "least one slot (§4, Tables 5, 10)",
    "gang_slots_max": "largest number of slots in a round",
    "gang_slots_pct_<i>": "percent of the time with at least one slot spent with i slots "
                          "(Tables 3, 4, 10)",
    "gang_idle_pct": "percent of the observation window with no slot (machine empty)",
    "gang_service_fraction": "mean of service / (end - start) over jobs with end > start: "
                             "the share of its wall time a job was served",
}


def job_classes(result: Result) -> np.ndarray:
    """Each job's class (``short``, ``medium``, ``long``) by the run's parameters."""
    params = result.params
    short, long = params.get("short", 150), params.get("long", 6000)
    length = result.runtime if params.get("classify_by") == "runtime" else result.estimate
    return np.where(length < short, "short", np.where(length > long, "long", "medium"))


def service_table(result: Result) -> dict[str, np.ndarray]:
    """Per job: id, service received, wall time from first to last second of service,
    turnaround, slowdown (turnaround / service; NaN without service) and class."""
    trace = _trace(result)
    service = trace.service
    wall = result.end - result.start
    turnaround = result.end - result.submit
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = np.where(service > 0, turnaround / np.maximum(service, 1), np.nan)
    return {"job_id": result.job_id, "service": service, "wall": wall,
            "turnaround": turnaround, "slowdown": slowdown, "class": job_classes(result)}


def slots_shares(result: Result) -> dict[int, float]:
    """Seconds with i slots for every i >= 0 that occurred, over the observation window."""
    trace = _trace(result)
    times, counts = series.settle(trace.slots_time, trace.slots_count)
    if len(times) == 0 or len(result) == 0:
        return {}
    t1 = int(result.end.max())
    ends = np.append(times[1:], max(t1, int(times[-1])))
    durations = np.clip(ends, None, t1) - np.clip(times, None, t1)
    shares: dict[int, float] = {}
    for count, seconds in zip(counts.tolist(), durations.tolist()):
        shares[count] = shares.get(count, 0) + seconds
    return shares


def gang_metrics(result: Result) -> dict[str, float | int | None]:
    """The flat gang metrics of a time-sharing result ({} for a space-sharing one)."""
    if result.timesharing is None:
        return {}
    table = service_table(result)
    served = table["service"] > 0
    metrics: dict[str, float | int | None] = {"gang_slowdown": mean(table["slowdown"][served])}
    for name in CLASS_NAMES:
        mine = table["class"] == name
        metrics[f"gang_slowdown_{name}"] = mean(table["slowdown"][mine & served])
        metrics[f"gang_jobs_{name}"] = int(np.count_nonzero(mine))
    shares = slots_shares(result)
    busy_time = sum(seconds for count, seconds in shares.items() if count > 0)
    total = sum(shares.values())
    metrics["gang_slots_mean"] = (sum(count * seconds for count, seconds in shares.items())
                                  / busy_time if busy_time else None)
    top = max(shares, default=0)
    metrics["gang_slots_max"] = int(top)
    for count in range(1, top + 1):
        metrics[f"gang_slots_pct_{count}"] = (100.0 * shares.get(count, 0) / busy_time
                                              if busy_time else 0.0)
    metrics["gang_idle_pct"] = 100.0 * shares.get(0, 0) / total if total else None
    wall = table["wall"]
    running = wall > 0
    metrics["gang_service_fraction"] = mean(table["service"][running] / wall[running])
    return metrics


def processors_text(ranges) -> str:
    """A job's processors ``((0, 4), (8, 10))`` as ``0-3 8-9`` (inclusive ranges)."""
    return " ".join(f"{a}-{b - 1}" if b - a > 1 else str(a) for a, b in ranges)


def parse_processors(text: str) -> tuple[tuple[int, int], ...]:
    """``0-3 8-9`` back to half-open ranges ``((0, 4), (8, 10))``."""
    ranges = []
    for part in str(text).split():
        first, _, last = part.partition("-")
        ranges.append((int(first), int(last or first) + 1))
    return tuple(ranges)


def matrix_table(result: Result) -> pd.DataFrame:
    """The change log of a gang result: time, kind (place, move, guest, unguest, express,
    leave), job id, row id (express slots negative) and the job's processors as text."""
    import pandas as pd

    trace = _trace(result)
    index = {int(j): k for k, j in enumerate(result.job_id.tolist())}
    jobs = trace.change_job.tolist()
    return pd.DataFrame({
        "time": trace.change_time.astype(np.int64),
        "kind": [MATRIX_CHANGE_KINDS[k] for k in trace.change_kind.tolist()],
        "job_id": trace.change_job.astype(np.int64),
        "row": trace.change_row.astype(np.int64),
        "processors": [processors_text(trace.columns[index[j]]) for j in jobs],
    }, columns=list(MATRIX_COLUMNS))


def slots_table(result: Result) -> pd.DataFrame:
    """The number of slots in the current round over time, where it changes."""
    import pandas as pd

    trace = _trace(result)
    return pd.DataFrame({"time": trace.slots_time.astype(np.int64),
                         "slots": trace.slots_count.astype(np.int64)})


def _trace(result: Result):
    if result.timesharing is None:
        raise ValueError("not a gang (time-sharing) result: it has no time-sharing trace")
    return result.timesharing
