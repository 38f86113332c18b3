"""Backfilling on system-generated predictions (Tsafrir, Etsion & Feitelson, IEEE TPDS
18(6), 2007): EASY against EASY++ and the other predictors, reproduced.

The paper's claim, in its own abstract's terms: backfilling on predictions
that average the runtimes of the user's last two jobs, with the kill time
kept at the estimate and predictions corrected when a job outlives them,
and backfilling the shortest predicted job first, "achieves significant
improvements in performance, predictability, and accuracy" over EASY with
user estimates.  The experiment (the paper's exact numbers were not at hand
to put beside ours: the findings compare directions):

* **traces** KTH-SP2 and SDSC-BLUE (whole; the reduced form: the first
  5,000 jobs of KTH-SP2), and the first 30,000 jobs of every trace given
  with ``--trace``, at three loads: interarrival times x 1.0, 0.9 and 0.8
  (the shrinking factor, Streit 2002 §5);
* **schedulers** EASY with user estimates; EASY with shortest-job
  backfilled first (SJBF) on estimates; EASY++ (``easy++`` predictions and
  SJBF); EASY planning with each predictor alone (``easy++``, ``last``,
  ``user-quantile``, ``knn``, and ``oracle``, the real runtimes: the upper
  bound); EASY with perfect estimates (estimate := runtime);
* **measured** mean wait, mean bounded slowdown (τ = 60 s), and the
  prediction metrics of each run (docs/reference/metrics.md, "Predictions").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from schedlab.experiments.recipes import Finding, Recipe, Reproduction, trace_file
from schedlab.experiments.recipes.report import (
    finished_results,
    reproduction_dir,
    write_figure,
    write_frame,
)

#: Trace label -> (catalog name, file name).
TRACES = {"KTH-SP2": ("KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz"),
          "SDSC-BLUE": ("SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz")}
#: The shrinking factors: the load grows as the interarrival times shrink.
SHRINKS = (1.0, 0.9, 0.8)
#: Predictors planned with alone (queue-order backfilling).
PREDICTORS = ("easy++", "last", "user-quantile", "knn", "oracle")
#: Jobs of each trace a user adds (``reproduce run predictions --trace PATH``).
EXTRA_TRACE_JOBS = 30_000
#: The reduced form (CI): the first jobs of KTH-SP2, two loads, the main schedulers.
REDUCED_JOBS = 5000
REDUCED_SHRINKS = (1.0, 0.8)
REDUCED_PREDICTORS = ("easy++", "oracle")

EASY, SJBF, EASY_PLUS_PLUS, PERFECT = ("EASY", "EASY-SJBF", "EASY++",
                                       "EASY, perfect estimates")
#: The columns of the results table of every run.
MEASURES = ("avg_wait", "avg_bsld_60", "prediction_accuracy", "underpredicted_pct",
            "prediction_corrections", "broken_reservations", "killed")


def policies(predictors: tuple[str, ...]) -> list[dict[str, Any]]:
    """The schedulers, each labelled (the perfect-estimate run is selected by its label)."""
    return [{"name": "fcfs+easy", "label": EASY},
            {"name": "fcfs+easy", "label": SJBF, "params": {"backfill_order": "sjbf"}},
            {"name": "fcfs+easy", "label": EASY_PLUS_PLUS,
             "params": {"predictor": "easy++", "backfill_order": "sjbf"}},
            *({"name": "fcfs+easy", "label": predictions_line(p), "params": {"predictor": p}}
              for p in predictors),
            {"name": "fcfs+easy", "label": PERFECT}]


def predictions_line(predictor: str) -> str:
    """The line of EASY planning with ``predictor`` in queue order."""
    return f"EASY, {predictor} predictions"


def experiment(reduced: bool) -> dict[str, Any]:
    """The sweep: every scheduler at every load on each trace; the perfect-estimate run
    alone gets ``perfect_estimates``."""
    traces = {"KTH-SP2": TRACES["KTH-SP2"]} if reduced else TRACES
    workloads = [{"source": str(trace_file("predictions", catalog, file)), "label": label,
                  **({"jobs": REDUCED_JOBS} if reduced else {})}
                 for label, (catalog, file) in traces.items()]
    chosen = policies(REDUCED_PREDICTORS if reduced else PREDICTORS)
    shrinks = list(REDUCED_SHRINKS if reduced else SHRINKS)
    return {
        "name": "predictions",
        "description": "EASY on user estimates against EASY++ and other runtime predictors "
                       "(Tsafrir, Etsion & Feitelson 2007)",
        "workloads": workloads,
        "transforms": [{"shrink": shrinks, "policies": [p["label"] for p in chosen[:-1]]},
                       {"shrink": shrinks, "perfect_estimates": [True],
                        "policies": [PERFECT]}],
        "policies": chosen,
    }


def line_of(run: pd.Series) -> str:
    """Which scheduler a stored run is, from its parameters."""
    if run.get("transform.perfect_estimates") is True:
        return PERFECT
    predictor = run.get("param.predictor")
    predictor = "estimate" if pd.isna(predictor) else str(predictor)
    sjbf = run.get("param.backfill_order") == "sjbf"
    if predictor == "estimate":
        return SJBF if sjbf else EASY
    if predictor == "easy++" and sjbf:
        return EASY_PLUS_PLUS
    return predictions_line(predictor)


def run_table(exp_dir: Path) -> pd.DataFrame:
    """Every finished run: trace, load, scheduler and :data:`MEASURES`."""
    runs = finished_results(exp_dir)
    return pd.DataFrame({"trace": runs["workload"], "shrink": runs["transform.shrink"],
                         "scheduler": runs.apply(line_of, axis=1),
                         **{m: pd.to_numeric(runs[m], errors="coerce") for m in MEASURES}})


def scheduler_order(names) -> list[str]:
    """The schedulers in the order of :func:`policies`."""
    known = [EASY, SJBF, EASY_PLUS_PLUS, *map(predictions_line, PREDICTORS), PERFECT]
    return sorted(set(names), key=lambda n: known.index(n) if n in known else len(known))


def results_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per trace, load and scheduler: the measures (wait in hours)."""
    table = runs.assign(avg_wait=runs["avg_wait"] / 3600).set_index(
        ["trace", "shrink", "scheduler"])
    order = scheduler_order(runs["scheduler"])
    return table.sort_index(level=[0, 1], ascending=[True, False]).reindex(
        sorted(table.index, key=lambda k: (k[0], -k[1], order.index(k[2]))))


def relative(runs: pd.DataFrame, metric: str, line: str) -> pd.Series:
    """``line``'s ``metric`` over EASY's at each trace and load (below 1: better)."""
    table = runs.pivot_table(index=["trace", "shrink"], columns="scheduler", values=metric)
    return table[line] / table[EASY]


def finding_better(runs: pd.DataFrame, metric: str, words: str) -> Finding:
    """EASY++ below EASY in ``metric`` at every trace and load."""
    ratios = relative(runs, metric, EASY_PLUS_PLUS)
    shown = ", ".join(f"{trace} x{shrink:g}: {ratio:.2f}" for (trace, shrink), ratio
                      in ratios.items())
    return Finding(claim=f"EASY++ improves {words} over EASY with user estimates",
                   paper="significant improvements in performance (abstract)",
                   ours=f"EASY++ / EASY {words}: {shown}",
                   holds=bool((ratios < 1).all()))


def finding_accuracy(runs: pd.DataFrame) -> Finding:
    """EASY++'s predictions more accurate than the estimates (mean min(p,a)/max(p,a))."""
    table = runs.pivot_table(index="trace", columns="scheduler", values="prediction_accuracy")
    shown = ", ".join(f"{trace}: {row[EASY]:.3f} -> {row[EASY_PLUS_PLUS]:.3f}"
                      for trace, row in table.iterrows())
    return Finding(claim="Predictions are more accurate than user estimates",
                   paper="significant improvements in accuracy (abstract)",
                   ours=f"mean accuracy, estimates -> easy++: {shown}",
                   holds=bool((table[EASY_PLUS_PLUS] > table[EASY]).all()))


def finding_no_kills(runs: pd.DataFrame) -> Finding:
    """Predictions never kill a job: EASY++ kills exactly the jobs EASY kills."""
    table = runs.pivot_table(index=["trace", "shrink"], columns="scheduler", values="killed")
    same = bool((table[EASY_PLUS_PLUS] == table[EASY]).all())
    return Finding(claim="Users see EASY: no job is killed because a prediction was short",
                   paper="behaves exactly like EASY as far as users are concerned (abstract)",
                   ours=f"jobs killed, EASY and EASY++: {int(table[EASY].sum())} and "
                        f"{int(table[EASY_PLUS_PLUS].sum())} over all runs",
                   holds=same,
                   note="both kill only jobs that outlive their estimates")


def findings(runs: pd.DataFrame) -> list[Finding]:
    return [finding_better(runs, "avg_wait", "mean wait"),
            finding_better(runs, "avg_bsld_60", "mean bounded slowdown"),
            finding_accuracy(runs), finding_no_kills(runs)]


def summarize(exp_dir: Path, reduced: bool) -> Reproduction:
    """The results table, bounded slowdown against the load, and the findings."""
    from schedlab.experiments import load_results
    from schedlab.viz.curves import curve_figure

    out = reproduction_dir(exp_dir)
    runs = run_table(Path(exp_dir))
    reproduction = Reproduction(findings=findings(runs))
    reproduction.tables.update(write_frame(results_table(runs), out, "results", digits=3))
    stored = load_results(exp_dir)
    stored = stored.assign(policy=stored.apply(line_of, axis=1))
    for metric in ("avg_bsld_60", "avg_wait"):
        figure = curve_figure(stored.drop(columns=[c for c in stored.columns
                                                   if c.startswith("param.")
                                                   or c == "transform.perfect_estimates"]),
                              metric, "transform.shrink", invert_x=True)
        reproduction.figures.update(write_figure(figure, out, metric))
    return reproduction


RECIPE = Recipe(
    name="predictions",
    paper="D. Tsafrir, Y. Etsion, D. G. Feitelson, Backfilling Using System-Generated "
          "Predictions Rather Than User Runtime Estimates, IEEE TPDS 18(6), 2007",
    description="EASY, EASY-SJBF, EASY++, EASY on each predictor (easy++, last, "
                "user-quantile, knn, oracle) and on perfect estimates; KTH-SP2 and SDSC-BLUE "
                "at shrinking factors 1.0, 0.9, 0.8; wait, bounded slowdown, prediction "
                "accuracy, corrections, broken reservations",
    experiment=experiment,
    summarize=summarize,
    extra_trace_jobs=EXTRA_TRACE_JOBS,
)

__all__ = ["EASY", "EASY_PLUS_PLUS", "PERFECT", "RECIPE", "SJBF", "experiment", "findings",
           "line_of", "results_table", "run_table", "summarize"]
