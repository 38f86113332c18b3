"""QoPS (Islam, Balaji, Sadayappan, Panda): deadline admission control, §4–§5 reproduced.

The paper's evaluation (§4, §5, Figs. 4–58): 5000-job subsets of the CTC
and SDSC traces with exact estimates; the offered load raised from 1.0 to
1.6 by duplication and by expansion (§4.2); deadlines from the EASY
schedule with stringency s = 0.2 and 0.5 (§4.1); 100 %, 80 % and 20 %
deadline jobs, the others with artificial deadlines max(24 h, R x runtime),
R = 2, 5, 10 (§4.2); QoPS against MSB and MRT, with EASY and conservative
backfilling as deadline-blind references.  schedlab adds ``edf`` (EDF with
EASY backfilling, no admission control).

Stand-ins (docs/reproductions/qops.md): the CTC and SDSC traces are not in
``SCHEDLAB_TRACES``; **KTH-SP2** stands in for CTC (the same machine type,
an IBM SP2 of 1996, with the same kind of EASY-scheduled batch workload)
and **SDSC-BLUE** for SDSC (the SDSC trace at hand: a larger IBM SP, 1,152
processors, where queues grow longest).

The figures are drawn from the stored results by :func:`summarize`; the
findings compare the directions the paper reports, since its figures carry
no printed values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.experiments.recipes import Finding, Recipe, Reproduction, trace_file

#: Paper trace -> (label, catalog name, file name) of the trace standing in for it.
STAND_INS = {
    "CTC": ("KTH-SP2", "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz"),
    "SDSC": ("SDSC-BLUE", "SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz"),
}

#: Jobs of each trace subset (QoPS §4.1: "5000-job subsets").
SUBSET_JOBS = 5000

ADMISSION = ("qops", "msb", "mrt")
BASELINES = ("edf", "fcfs+easy", "fcfs+conservative")
LOADS = (1.0, 1.2, 1.4, 1.6)
LOAD_METHODS = ("duplicate", "expand")
STRINGENCIES = (0.2, 0.5)
DEADLINE_FRACTIONS = (1.0, 0.8, 0.2)
RELAXATIONS = (2.0, 5.0, 10.0)
#: Non-deadline runs of mixed workloads are drawn with this R (QoPS §5.2 does not say
#: which R its Figs. 13-54 use; 5 is the middle of the paper's 2, 5 and 10).
MAIN_RELAXATION = 5.0

#: The reduced form: a built-in model, so that CI needs no trace.
REDUCED_MODEL = "lublin"
REDUCED_JOBS = 800
REDUCED_SEEDS = (0, 1, 2)
REDUCED_LOADS = (1.0, 1.6)
REDUCED_POLICIES = ("qops", "msb", "mrt", "fcfs+easy")


def full_experiment() -> dict[str, Any]:
    """The paper's grid on the two stand-in traces (QoPS §4–§5).

    Every combination of load, load method, stringency and deadline
    fraction, for every policy, on both traces; the mixed workloads (80 and
    20 % deadline jobs) under each relaxation R, the 100 % deadline ones,
    which ignore R, under R = 5 only (:func:`deadline_tables`):
    2 traces x 16 x (1 + 2 x 3) x 6 policies = 1,344 runs.  Exact estimates
    throughout (§6: "the simulation studies reported in this paper assumed
    accurate user estimates").
    """
    workloads = [{"source": str(trace_file("QoPS", catalog, file)), "label": label, "jobs": SUBSET_JOBS}
                 for label, catalog, file in STAND_INS.values()]
    return {
        "name": "qops",
        "description": "QoPS, MSB, MRT against EDF, EASY and conservative backfilling: "
                       "deadline admission on KTH-SP2 and SDSC-BLUE (QoPS §4-§5)",
        "workloads": workloads,
        "transforms": deadline_tables(),
        "policies": [{"name": name} for name in ADMISSION + BASELINES],
    }


def deadline_tables() -> list[dict[str, Any]]:
    """The full form's two transform grids: 100 % deadline jobs with R = 5, mixed ones with
    every R.

    R sets the artificial deadlines of the non-deadline jobs (QoPS §4.2), so
    a workload without them runs once, under :data:`MAIN_RELAXATION`, the R
    the summaries pick for it; its run ids are those the single grid of
    earlier versions gave it, so a sweep stored with that grid is resumed.
    """
    common = {"perfect_estimates": [True], "load": list(LOADS),
              "load_method": list(LOAD_METHODS), "stringency": list(STRINGENCIES)}
    mixed = [f for f in DEADLINE_FRACTIONS if f < 1.0]
    return [{**common, "deadline_fraction": [1.0], "relaxation": [MAIN_RELAXATION]},
            {**common, "deadline_fraction": mixed, "relaxation": list(RELAXATIONS)}]


def reduced_experiment() -> dict[str, Any]:
    """The CI form: the built-in Lublin model, every job with a deadline, s = 0.2.

    800 jobs on 128 processors, three seeds, loads 1.0 and 1.6 by
    duplication, QoPS, MSB, MRT and EASY: 24 runs of a few seconds.
    """
    return {
        "name": "qops-reduced",
        "description": "QoPS, MSB, MRT and EASY on the Lublin model, s = 0.2 (QoPS §5.1)",
        "seeds": list(REDUCED_SEEDS),
        "workloads": [{"source": REDUCED_MODEL, "jobs": REDUCED_JOBS}],
        "transforms": {"perfect_estimates": [True], "load": list(REDUCED_LOADS),
                       "load_method": ["duplicate"], "stringency": [0.2]},
        "policies": [{"name": name} for name in REDUCED_POLICIES],
    }


def experiment(reduced: bool) -> dict[str, Any]:
    """The experiment mapping of the full or the reduced form."""
    return reduced_experiment() if reduced else full_experiment()



# --------------------------------------------------------------------------- the stored runs

#: Transform columns of the results -> short names used below.
SETTING_COLUMNS = {"transform.load": "load", "transform.load_method": "method",
                   "transform.stringency": "s", "transform.deadline_fraction": "fraction",
                   "transform.relaxation": "R"}
#: Values of settings the reduced form does not sweep (R = 0: no artificial deadlines).
SETTING_DEFAULTS = {"load": 1.0, "method": "duplicate", "s": 0.0, "fraction": 1.0, "R": 0.0}
#: What identifies a point of the paper's figures (besides the policy).
POINT = ["workload", "method", "s", "fraction", "R", "load"]

METRICS = ("deadline_rejected_pct", "deadline_rejected_area_pct", "utilization",
           "deadline_missed", "deadline_missed_pct", "deadline_max_lateness",
           "deadline_unfinished",
           "nondeadline_avg_response", "nondeadline_avg_slowdown", "nondeadline_rejected")


def run_table(exp_dir: Path):
    """The finished runs with columns workload, policy, seed, run_id, wall_time, the
    settings (load, method, s, fraction, R) and :data:`METRICS`."""
    import pandas as pd

    from schedlab.experiments import load_results

    frame = load_results(exp_dir)
    frame = frame[frame["status"] == "finished"]
    table = pd.DataFrame({"workload": frame["workload"].astype(str),
                          "policy": frame["policy"].astype(str),
                          "seed": frame["seed"], "run_id": frame["run_id"],
                          "wall_time": frame["wall_time"].astype(float)})
    for column, name in SETTING_COLUMNS.items():
        if column in frame:
            table[name] = frame[column]
        else:
            table[name] = SETTING_DEFAULTS[name]
    for name in ("load", "s", "fraction", "R"):
        table[name] = pd.to_numeric(table[name]).astype(float)
    for metric in METRICS:
        table[metric] = (pd.to_numeric(frame[metric], errors="coerce").astype(float)
                         if metric in frame else float("nan"))
    return table.reset_index(drop=True)


def main_runs(runs):
    """One run per setting: R = :data:`MAIN_RELAXATION` (or 0 in the reduced form).

    Picks the mixed runs of Figs. 13-54.  A 100 % deadline workload ignores
    R: the full form runs it under R = 5 only, but a directory swept with the
    single grid of earlier versions also holds equal copies under R = 2 and
    10, which this drops.
    """
    return runs[(runs["R"] == 0.0) | (runs["R"] == MAIN_RELAXATION)]


def point_means(runs):
    """Mean of every metric over seeds, one row per (point, policy)."""
    return runs.groupby(POINT + ["policy"])[list(METRICS)].mean().reset_index()


def pivot(means, metric: str, policies=ADMISSION + BASELINES):
    """``metric`` per point (rows) and policy (columns), only policies that ran."""
    table = means.pivot_table(index=POINT, columns="policy", values=metric)
    return table[[p for p in policies if p in table.columns]]


# --------------------------------------------------------------------------- figures

#: The paper's figure numbers for each of our figures: (kind, method, s, fraction) ->
#: "CTC figures; SDSC figures" (QoPS §5; the paper shows expansion on CTC only).
PAPER_FIGURES = {
    ("admittance", "duplicate", 0.2, 1.0): "Figs. 4, 6a (CTC); 7, 9a (SDSC)",
    ("admittance", "duplicate", 0.5, 1.0): "Figs. 5, 6b (CTC); 8, 9b (SDSC)",
    ("admittance", "expand", 0.2, 1.0): "Figs. 10, 12a (CTC)",
    ("admittance", "expand", 0.5, 1.0): "Figs. 11, 12b (CTC)",
    ("admittance", "duplicate", 0.2, 0.8): "Figs. 13, 37a (CTC); 17, 39a (SDSC)",
    ("admittance", "duplicate", 0.5, 0.8): "Figs. 14, 38a (CTC); 18, 40a (SDSC)",
    ("admittance", "duplicate", 0.2, 0.2): "Figs. 15, 37b (CTC); 19, 39b (SDSC)",
    ("admittance", "duplicate", 0.5, 0.2): "Figs. 16, 38b (CTC); 20, 40b (SDSC)",
    ("admittance", "expand", 0.2, 0.8): "Figs. 21, 41a (CTC)",
    ("admittance", "expand", 0.5, 0.8): "Figs. 22, 42a (CTC)",
    ("admittance", "expand", 0.2, 0.2): "Figs. 23, 41b (CTC)",
    ("admittance", "expand", 0.5, 0.2): "Figs. 24, 42b (CTC)",
    ("nondeadline", "duplicate", 0.2, 0.2): "Figs. 25, 43 (CTC); 29, 47 (SDSC)",
    ("nondeadline", "duplicate", 0.5, 0.2): "Figs. 26, 44 (CTC); 30, 48 (SDSC)",
    ("nondeadline", "duplicate", 0.2, 0.8): "Figs. 27, 45 (CTC); 31, 49 (SDSC)",
    ("nondeadline", "duplicate", 0.5, 0.8): "Figs. 28, 46 (CTC); 32, 50 (SDSC)",
    ("nondeadline", "expand", 0.2, 0.2): "Figs. 33, 51 (CTC)",
    ("nondeadline", "expand", 0.5, 0.2): "Figs. 34, 52 (CTC)",
    ("nondeadline", "expand", 0.2, 0.8): "Figs. 35, 53 (CTC)",
    ("nondeadline", "expand", 0.5, 0.8): "Figs. 36, 54 (CTC)",
    ("relaxation", "duplicate", 0.2, 0.2): "Fig. 55 (CTC)",
    ("relaxation", "duplicate", 0.5, 0.2): "Fig. 56 (CTC)",
    ("relaxation", "duplicate", 0.2, 0.8): "Fig. 57 (CTC)",
    ("relaxation", "duplicate", 0.5, 0.8): "Fig. 58 (CTC)",
}

AXIS_LABELS = {
    "load": "load factor",
    "utilization": "achieved utilization",
    "deadline_rejected_pct": "unadmitted deadline jobs [%]",
    "deadline_rejected_area_pct": "unadmitted processor-seconds [%]",
    "nondeadline_avg_response": "non-deadline avg response [s]",
    "nondeadline_avg_slowdown": "non-deadline avg slowdown",
}


@dataclass(frozen=True)
class Panel:
    """One diagram of a figure row: ``metric`` against ``x`` for ``policies``."""

    metric: str
    x: str
    policies: tuple[str, ...]


def setting_text(method: str, s: float, fraction: float) -> str:
    """``s = 0.2, 80 % deadline jobs, load by duplication``."""
    return (f"s = {s:g}, {fraction * 100:.0f} % deadline jobs, load by "
            f"{'duplication' if method == 'duplicate' else 'expansion'}")


def panel_points(runs, panel: Panel, line: str):
    """Mean, min and max of the panel's metric per (line, x) over seeds, in drawing order.

    ``line`` is the column naming a run's line (``policy``, or ``R`` as text).
    """
    import pandas as pd

    data = runs[runs["policy"].isin(panel.policies)]
    table = pd.DataFrame({"line": data[line].astype(str), "x": data[panel.x],
                          "value": data[panel.metric]}).dropna()
    grouped = table.groupby(["line", "x"], sort=True)["value"]
    return grouped.agg(["mean", "min", "max", "count"]).reset_index().rename(
        columns={"count": "runs"})


def grid_figure(runs, panels: list[Panel], line: str, styles: dict, title: str):
    """One row per workload, one column per panel (the (a), (b) parts of the paper's
    figures side by side), one line per value of ``line``."""
    from schedlab.viz.curves import curve_legend, draw_workload
    from schedlab.viz.style import LEGEND_PLACE, NUMBER_FORMATTER, new_figure, paper_style

    workloads = sorted(runs["workload"].unique())
    drawn: set[str] = set()
    most_runs = 1
    with paper_style():
        figure = new_figure(3.6 * len(panels) + 1.9, 2.9 * len(workloads) + 0.7)
        axes = figure.subplots(len(workloads), len(panels), squeeze=False)
        for row, workload in enumerate(workloads):
            for column, panel in enumerate(panels):
                ax = axes[row][column]
                points = panel_points(runs[runs["workload"] == workload], panel, line)
                draw_workload(ax, points, styles)
                drawn.update(points["line"])
                most_runs = max([most_runs, *points["runs"]])
                ax.set_title(f"({chr(97 + column)}) {workload}")
                ax.set_xlabel(AXIS_LABELS.get(panel.x, panel.x))
                ax.set_ylabel(AXIS_LABELS.get(panel.metric, panel.metric))
                ax.yaxis.set_major_formatter(NUMBER_FORMATTER)
        lines = [name for name in styles if name in drawn]
        figure.legend(handles=curve_legend(lines, styles, int(most_runs), None),
                      loc=LEGEND_PLACE)
        figure.suptitle(title)
    return figure


def admittance_figures(runs, styles: dict, out: Path) -> dict[str, Path]:
    """Unadmitted jobs, unadmitted processor-seconds and utilization against the load,
    one figure per (method, s, fraction) (QoPS Figs. 4-24, 37-42)."""
    panels = [Panel("deadline_rejected_pct", "load", ADMISSION),
              Panel("deadline_rejected_area_pct", "load", ADMISSION),
              Panel("utilization", "load", ADMISSION + BASELINES)]
    return figures_per_setting(runs, "admittance", "Admission", panels, "policy", styles, out)


def nondeadline_figures(runs, styles: dict, out: Path) -> dict[str, Path]:
    """Average response and slowdown of the non-deadline jobs against the load and against
    the achieved utilization (QoPS Figs. 25-36 and 43-54), mixed workloads only."""
    every = ADMISSION + BASELINES
    panels = [Panel("nondeadline_avg_response", "load", every),
              Panel("nondeadline_avg_slowdown", "load", every),
              Panel("nondeadline_avg_response", "utilization", every),
              Panel("nondeadline_avg_slowdown", "utilization", every)]
    return figures_per_setting(runs[runs["fraction"] < 1.0], "nondeadline", "Non-deadline jobs",
                               panels, "policy", styles, out)


def relaxation_figures(runs, out: Path) -> dict[str, Path]:
    """QoPS's non-deadline response and slowdown against the load for R = 2, 5, 10
    (QoPS §5.3, Figs. 55-58), one figure per (method, s, fraction)."""
    from schedlab.viz.style import policy_styles

    mixed = runs[(runs["fraction"] < 1.0) & (runs["policy"] == "qops")].copy()
    mixed["relaxation"] = mixed["R"].map(lambda r: f"R = {r:g}")
    styles = policy_styles(sorted(mixed["relaxation"].unique(),
                                  key=lambda text: float(text.split("=")[1])))
    panels = [Panel("nondeadline_avg_response", "load", ("qops",)),
              Panel("nondeadline_avg_slowdown", "load", ("qops",))]
    return figures_per_setting(mixed, "relaxation", "QoPS against R", panels, "relaxation",
                               styles, out)


def figures_per_setting(runs, kind: str, heading: str, panels: list, hue: str, styles: dict,
                        out: Path) -> dict[str, Path]:
    """One figure of ``panels`` per (method, s, fraction), named ``KIND_METHOD_sS_deadlineF``
    and titled with the paper's figure number where there is one."""
    from schedlab.viz.style import save_png_and_svg

    figures = {}
    for (method, s, fraction), group in runs.groupby(["method", "s", "fraction"]):
        name = f"{kind}_{method}_s{s:g}_deadline{fraction * 100:.0f}"
        paper = PAPER_FIGURES.get((kind, method, s, fraction), "")
        title = f"{heading}, {setting_text(method, s, fraction)}" + (
            f" — QoPS {paper}" if paper else "")
        figure = grid_figure(group, panels, hue, styles, title)
        figures[name] = save_png_and_svg(figure, out / name)[0]
    return figures


# --------------------------------------------------------------------------- tables


def markdown_table(frame, digits: int = 2) -> str:
    """A DataFrame (index included) as a Markdown table, floats to ``digits`` decimals."""
    frame = frame.reset_index()
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return "" if value != value else f"{value:,.{digits}f}"
        return str(value)

    rows = ["| " + " | ".join(cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows]) + "\n"


def write_table(frame, out: Path, name: str, digits: int = 2) -> dict[str, Path]:
    """``out/NAME.csv`` and ``out/NAME.md``; returns both under ``NAME`` and ``NAME.md``."""
    from schedlab.output import atomic_write_text

    csv_path, md_path = out / f"{name}.csv", out / f"{name}.md"
    atomic_write_text(csv_path, frame.reset_index().to_csv(index=False))
    atomic_write_text(md_path, markdown_table(frame, digits))
    return {name: csv_path, f"{name}.md": md_path}


def admittance_table(means):
    """Per point: unadmitted deadline jobs and processor-seconds (%) of each admission
    scheme, and the utilization of every policy (QoPS Figs. 4-24, 37-42)."""
    import pandas as pd

    parts = [pivot(means, "deadline_rejected_pct", ADMISSION).add_suffix(" jobs %"),
             pivot(means, "deadline_rejected_area_pct", ADMISSION).add_suffix(" proc-s %"),
             pivot(means, "utilization").add_suffix(" util")]
    return pd.concat(parts, axis=1)


def nondeadline_table(means):
    """Per mixed point: non-deadline response, slowdown and utilization of every policy
    (QoPS Figs. 25-36, 43-54)."""
    import pandas as pd

    mixed = means[means["fraction"] < 1.0]
    parts = [pivot(mixed, "nondeadline_avg_response").add_suffix(" response"),
             pivot(mixed, "nondeadline_avg_slowdown").add_suffix(" slowdown"),
             pivot(mixed, "utilization").add_suffix(" util")]
    return pd.concat(parts, axis=1)


def relaxation_table(runs):
    """QoPS non-deadline response and slowdown per R (QoPS §5.3, Figs. 55-58)."""
    import pandas as pd

    qops = point_means(runs[(runs["fraction"] < 1.0) & (runs["policy"] == "qops")])
    index = ["workload", "method", "s", "fraction", "load"]
    parts = [qops.pivot_table(index=index, columns="R", values=metric)
             .rename(columns=lambda r: f"R={r:g} {short}")
             for metric, short in (("nondeadline_avg_response", "response"),
                                   ("nondeadline_avg_slowdown", "slowdown"))]
    return pd.concat(parts, axis=1)


def rejected_sizes_table(runs, exp_dir: Path):
    """Who is rejected, 100 % deadline jobs: the rejected share of the small and of the
    large jobs (processor-seconds below / above the run's median), and the mean
    processor-seconds of a rejected job relative to the mean job.

    This is what separates "unadmitted jobs" from "unadmitted processor-seconds"
    (QoPS §5.1 reports both).
    """
    import pandas as pd

    from schedlab.experiments import load_jobs

    rows = []
    chosen = runs[(runs["fraction"] == 1.0) & runs["policy"].isin(ADMISSION)]
    for run in chosen.itertuples(index=False):
        jobs = load_jobs(exp_dir, run.run_id)
        area = (jobs["width"].astype(float) * jobs["runtime"].astype(float)).to_numpy()
        rejected = (jobs["status"] == "rejected").to_numpy()
        large = area > pd.Series(area).median()
        rows.append({**{k: getattr(run, k) for k in POINT}, "policy": run.policy,
                     "rejected %": 100 * rejected.mean(),
                     "small rejected %": 100 * rejected[~large].mean(),
                     "large rejected %": 100 * rejected[large].mean(),
                     "rejected size / mean size": (area[rejected].mean() / area.mean()
                                                   if rejected.any() else 0.0)})
    table = pd.DataFrame(rows)
    return table.groupby(POINT + ["policy"]).mean(numeric_only=True)


def guarantee_table(runs):
    """Per policy: runs, runs with a missed deadline, missed deadlines, largest lateness,
    and the admitted deadline jobs killed at their estimate before their deadline
    (``deadline_unfinished``: not late, not done either; empty for runs stored before
    schedlab measured it)."""
    grouped = runs.groupby("policy")
    table = grouped.agg(runs=("run_id", "count"),
                        runs_with_misses=("deadline_missed", lambda m: int((m > 0).sum())),
                        missed=("deadline_missed", "sum"),
                        mean_missed_pct=("deadline_missed_pct", "mean"),
                        max_lateness_s=("deadline_max_lateness", "max"),
                        runs_with_unfinished=("deadline_unfinished",
                                              lambda m: int((m > 0).sum())),
                        unfinished=("deadline_unfinished", lambda m: m.sum(min_count=len(m))))
    table = table.astype({"missed": int, "max_lateness_s": int,
                          "unfinished": "Int64" if table["unfinished"].isna().any() else int})
    return table.reindex([p for p in ADMISSION + BASELINES if p in table.index])


def wall_time_table(runs):
    """Per workload and policy: runs and their total, mean and largest wall time [s]."""
    return runs.groupby(["workload", "policy"])["wall_time"].agg(
        ["count", "sum", "mean", "max"]).rename(columns={"count": "runs", "sum": "total s",
                                                         "mean": "mean s", "max": "max s"})


# --------------------------------------------------------------------------- findings


def subset(means, **conditions):
    """The rows of ``means`` whose columns equal the given values."""
    mask = True
    for column, value in conditions.items():
        mask = mask & (means[column] == value)
    return means[mask]


def share(wins: int, total: int) -> str:
    """``7 of 8 points``."""
    return f"{wins} of {total} points"


def at_high_load(table, policies: tuple[str, ...], digits: int = 1) -> str:
    """The policies' values at the highest load, per workload and method: the numbers
    a reader compares with the paper's figures."""
    top = table.index.get_level_values("load").max()
    several_s = table.index.get_level_values("s").nunique() > 1
    parts = []
    for key, row in table[table.index.get_level_values("load") == top].iterrows():
        point = dict(zip(table.index.names, key))
        values = " / ".join(f"{row[p]:.{digits}f}" for p in policies)
        where = f"{point['workload']} {point['method'][:3]}" + (
            f" s = {point['s']:g}" if several_s else "")
        parts.append(f"{where}: {values}")
    return f"at load {top:g} ({' / '.join(policies)}): " + "; ".join(parts)


def guarantee_finding(runs) -> Finding:
    """QoPS §3: admission control guarantees every deadline it accepts.

    A job killed at its estimate ends in time without being done, so the
    guarantee holds only with no miss and no such job (none under exact
    estimates, where nobody is killed).
    """
    admission = runs[runs["policy"].isin(ADMISSION)]
    blind = runs[runs["policy"].isin(BASELINES)]
    missed = int(admission["deadline_missed"].sum())
    recorded = admission["deadline_unfinished"].notna().all()
    unfinished = int(admission["deadline_unfinished"].sum()) if recorded else None
    ours = (f"{missed} misses and {unfinished} deadline jobs killed unfinished in "
            f"{len(admission)} QoPS/MSB/MRT runs" if recorded else
            f"{missed} misses in {len(admission)} QoPS/MSB/MRT runs (jobs killed unfinished "
            f"not recorded: runs stored by an older schedlab)")
    if not blind.empty:
        ours += (f"; the deadline-blind {', '.join(sorted(blind['policy'].unique()))} miss "
                 f"{blind['deadline_missed_pct'].mean():.0f} % of their jobs' deadlines "
                 f"on average")
    return Finding("No admitted job misses its deadline (exact estimates)",
                   "guaranteed by construction (§3); not measured", ours,
                   missed == 0 and not unfinished)


def fewer_unadmitted_finding(means, other: str, metric: str, what: str) -> Finding | None:
    """QoPS §5.1, Figs. 4, 7, 10: QoPS leaves fewer jobs / processor-seconds unadmitted."""
    table = pivot(subset(means, fraction=1.0, s=0.2), metric, ("qops", other))
    if table.empty or other not in table:
        return None
    wins = int((table["qops"] < table[other]).sum())
    return Finding(f"QoPS leaves fewer {what} unadmitted than {other.upper()} "
                   f"(100 % deadline jobs, s = 0.2)",
                   "Figs. 4, 7, 10: QoPS below MSB and MRT, most at high load",
                   f"QoPS lower at {share(wins, len(table))}; "
                   f"{at_high_load(table, ('qops', other))} %",
                   wins > len(table) / 2)


def gap(table) -> Any:
    """Per point: the mean of MSB's and MRT's value minus QoPS's (positive: QoPS ahead)."""
    others = [p for p in ("msb", "mrt") if p in table]
    return table[others].mean(axis=1) - table["qops"]


def high_load_finding(means) -> Finding | None:
    """QoPS §5.1: "the QoPS scheme performs better, especially at high load factors"."""
    table = pivot(subset(means, fraction=1.0, s=0.2), "deadline_rejected_pct", ADMISSION)
    loads = table.index.get_level_values("load")
    if table.empty or loads.nunique() < 2:
        return None
    by_load = gap(table).groupby(loads).mean()
    low, high = by_load.iloc[0], by_load.iloc[-1]
    each = {p: (table[p] - table["qops"]).groupby(loads).mean()
            for p in ("msb", "mrt") if p in table}
    return Finding("QoPS's lead grows with the load (unadmitted jobs, s = 0.2)",
                   "Fig. 4: \"especially at high load factors\"",
                   "others minus QoPS, mean over traces and methods: " + "; ".join(
                       f"{p.upper()} " + ", ".join(f"{v:+.1f} pts at {k:.1f}"
                                                   for k, v in diff.items())
                       for p, diff in each.items()),
                   bool(high > low and high > 0))


def convergence_finding(means) -> Finding | None:
    """QoPS §5.1, Fig. 5: as the stringency grows the schemes converge."""
    gaps = {}
    for s in STRINGENCIES:
        table = pivot(subset(means, fraction=1.0, s=s), "deadline_rejected_pct", ADMISSION)
        if table.empty:
            return None
        gaps[s] = (gap(table).mean(), (table.max(axis=1) - table.min(axis=1)).mean())
    (lax_gap, lax_spread), (tight_gap, tight_spread) = gaps[0.2], gaps[0.5]
    return Finding("The schemes converge as the stringency grows (100 % deadline jobs)",
                   "Figs. 5, 8, 11: at s = 0.5 QoPS is closer to MSB and MRT",
                   f"QoPS lead {lax_gap:+.1f} pts at s = 0.2, {tight_gap:+.1f} at s = 0.5; "
                   f"spread max - min {lax_spread:.1f} and {tight_spread:.1f} pts",
                   bool(abs(tight_gap) < abs(lax_gap) and tight_spread < lax_spread))


def area_trend_finding(means) -> Finding | None:
    """QoPS §5.1: "a similar and more pronounced downward trend with increasing load is
    observed for the unadmitted processor-seconds" — heavy jobs' EASY responses, hence
    their deadlines, grow most with the load."""
    table = pivot(subset(means, fraction=1.0, s=0.2), "deadline_rejected_area_pct", ADMISSION)
    loads = table.index.get_level_values("load")
    if table.empty or loads.nunique() < 2:
        return None
    low = table[loads == loads.min()].droplevel("load")
    high = table[loads == loads.max()].droplevel("load")
    falls = int((high < low).sum().sum())
    total = int(low.size)
    by_load = table.groupby(loads).mean().mean(axis=1)
    return Finding("Unadmitted processor-seconds fall as the load grows (s = 0.2)",
                   "§5.1, Fig. 4b: a downward trend with the load",
                   f"lower at load {loads.max():.1f} than at {loads.min():.1f} for {falls} of "
                   f"{total} (scheme, trace, method); mean of the schemes " + ", ".join(
                       f"{v:.1f} % at {k:.1f}" for k, v in by_load.items()),
                   falls > total / 2)


def stringency_finding(means, metric: str, what: str) -> Finding | None:
    """QoPS §4.1: "As 's' is increased ... we would expect the number of successfully
    scheduled jobs to decrease"; §5.1: "with a stringency factor of 0.5, fewer jobs are
    admitted".  Checked in jobs and in processor-seconds."""
    table = pivot(subset(means, fraction=1.0), metric, ADMISSION)
    stringency = table.index.get_level_values("s")
    if stringency.nunique() < 2:
        return None
    by_s = table.groupby(stringency).mean()
    higher = all(by_s.loc[0.5, p] > by_s.loc[0.2, p] for p in by_s.columns)
    return Finding(f"Tighter deadlines (s = 0.5) leave more {what} unadmitted",
                   "§4.1, §5.1: fewer jobs admitted at s = 0.5, utilization 5-10 % lower",
                   f"mean unadmitted {what} % at s = 0.2 -> 0.5: " + ", ".join(
                       f"{p} {by_s.loc[0.2, p]:.1f} -> {by_s.loc[0.5, p]:.1f}"
                       for p in by_s.columns), higher)


def load_dip_finding(means) -> Finding | None:
    """QoPS §5.1, Fig. 4: QoPS's unadmitted jobs fall from load 1.4 to 1.6, because the
    EASY responses the deadlines come from grow faster than the load."""
    table = pivot(subset(means, fraction=1.0, s=0.2), "deadline_rejected_pct", ("qops",))
    loads = table.index.get_level_values("load")
    if not {1.4, 1.6} <= set(loads):
        return None
    before = table[loads == 1.4]["qops"].droplevel("load")
    after = table[loads == 1.6]["qops"].droplevel("load")
    falls = int((after < before).sum())
    ours = "; ".join(f"{k[0]} {k[1][:3]}: {before[k]:.1f} -> {after[k]:.1f} %"
                     for k in before.index)
    return Finding("QoPS's unadmitted jobs fall from load 1.4 to 1.6 (s = 0.2)",
                   "Fig. 4 (CTC, duplication): a decrease (7000 -> 8000 jobs)", ours,
                   falls > len(before) / 2)


def utilization_loss(means, fraction: float, s: float | None = None) -> float | None:
    """Mean over points of EASY's and conservative's utilization minus QoPS's."""
    chosen = subset(means, fraction=fraction)
    if s is not None:
        chosen = subset(chosen, s=s)
    table = pivot(chosen, "utilization", ("qops", "fcfs+easy", "fcfs+conservative"))
    if table.empty or "qops" not in table or table.shape[1] < 2:
        return None
    return float((table.drop(columns="qops").mean(axis=1) - table["qops"]).mean())


def utilization_finding(means) -> Finding | None:
    """QoPS §5.1, Figs. 6, 9, 12: about 10 % less utilization than EASY and conservative
    at s = 0.2; MRT 3-5 % below QoPS and MSB at load 1.6."""
    loss = utilization_loss(means, 1.0, 0.2)
    table = pivot(subset(means, fraction=1.0), "utilization", ADMISSION)
    if loss is None or table.empty:
        return None
    top = table[table.index.get_level_values("load") == table.index.get_level_values(
        "load").max()]
    mrt_below = float((top["qops"] - top["mrt"]).mean()) if "mrt" in top else float("nan")
    msb_apart = float((top["qops"] - top["msb"]).abs().mean()) if "msb" in top else 0.0
    return Finding("QoPS delivers about 10 % less utilization than EASY/conservative; "
                   "MRT below QoPS and MSB at high load",
                   "Fig. 6: ~10 % loss at s = 0.2; MRT 3-5 % lower at load 1.6",
                   f"loss {100 * loss:.1f} pts (mean over points, s = 0.2); at the highest "
                   f"load QoPS - MRT {100 * mrt_below:+.1f} pts, QoPS and MSB "
                   f"{100 * msb_apart:.1f} pts apart",
                   bool(0.05 <= loss <= 0.15 and mrt_below > 0 and msb_apart < mrt_below))


def mixed_admission_finding(means, fraction: float) -> Finding | None:
    """QoPS §5.2, Figs. 13-24: with mixed workloads QoPS admits the most deadline jobs."""
    table = pivot(subset(means, fraction=fraction), "deadline_rejected_pct", ADMISSION)
    if table.empty:
        return None
    best = table[["msb", "mrt"]].min(axis=1)
    wins = int((table["qops"] < best).sum())
    by_s = {s: int((part["qops"] < best[part.index]).sum())
            for s, part in table.groupby(level="s")}
    return Finding(f"{fraction * 100:.0f} % deadline jobs: QoPS leaves the fewest deadline "
                   f"jobs unadmitted",
                   "Figs. 13-24: QoPS consistently superior, at 20 % even with s = 0.5",
                   f"QoPS below both at {share(wins, len(table))} ("
                   + ", ".join(f"s = {s:g}: {n}" for s, n in by_s.items()) + "); "
                   f"{at_high_load(table, ADMISSION)} %",
                   wins > len(table) / 2)


def mixed_utilization_finding(means) -> Finding | None:
    """QoPS §5.2, Figs. 37-42: the utilization loss shrinks with fewer deadline jobs
    (about 8 % at 80 %, 2-3 % at 20 %)."""
    losses = {f: utilization_loss(means, f) for f in DEADLINE_FRACTIONS}
    if any(loss is None for loss in losses.values()):
        return None
    return Finding("The utilization lost to admission shrinks with fewer deadline jobs",
                   "Figs. 37-42: ~8 % at 80 %, 2-3 % at 20 % (vs ~10 % at 100 %)",
                   ", ".join(f"{100 * loss:.1f} pts at {f * 100:.0f} %"
                             for f, loss in losses.items()),
                   bool(losses[0.2] < losses[0.8] < losses[1.0]))


def at_utilization(curve, utilization: float) -> float | None:
    """A policy's metric at ``utilization``, linear between its points; None outside them.

    ``curve`` has columns ``utilization`` and ``value`` (one point per load).
    """
    import numpy as np

    curve = curve.dropna().sort_values("utilization")
    if curve.empty or not (curve["utilization"].min() <= utilization
                           <= curve["utilization"].max()):
        return None
    return float(np.interp(utilization, curve["utilization"], curve["value"]))


def equal_utilization_wins(means, metric: str, references: tuple[str, ...]) -> tuple[int, int]:
    """QoPS §5.2, Figs. 43-54: at how many QoPS points (mixed workloads) QoPS's metric
    is below every reference policy's curve at the same achieved utilization.

    Returns (wins, comparable points); a point outside a reference's range of
    utilization cannot be compared.
    """
    wins = comparable = 0
    mixed = means[means["fraction"] < 1.0]
    for _, group in mixed.groupby(["workload", "method", "s", "fraction", "R"]):
        curves = {p: group[group["policy"] == p].rename(columns={metric: "value"})
                  [["utilization", "value"]] for p in references}
        for row in group[group["policy"] == "qops"].itertuples(index=False):
            others = [at_utilization(curves[p], row.utilization) for p in references]
            if any(value is None for value in others):
                continue
            comparable += 1
            wins += int(all(getattr(row, metric) < value for value in others))
    return wins, comparable


def nondeadline_load_finding(means) -> Finding | None:
    """QoPS §5.2, Figs. 25-36: at equal offered load the non-deadline jobs of the
    admission schemes fare better than under EASY and conservative."""
    mixed = means[means["fraction"] < 1.0]
    if mixed.empty:
        return None
    counts = {}
    for metric in ("nondeadline_avg_response", "nondeadline_avg_slowdown"):
        table = pivot(mixed, metric)
        counts[metric] = (int((table["qops"] < table[["fcfs+easy", "fcfs+conservative"]]
                               .min(axis=1)).sum()), len(table))
    (rw, n), (sw, _) = counts.values()
    return Finding("Non-deadline jobs: QoPS below EASY and conservative at equal offered load",
                   "Figs. 25-36: lower response and slowdown (less load is delivered)",
                   f"response lower at {share(rw, n)}, slowdown at {share(sw, n)}",
                   rw > n / 2 and sw > n / 2)


def nondeadline_utilization_finding(means, references: tuple[str, ...], claim: str,
                                    paper: str) -> Finding | None:
    """QoPS §5.2, Figs. 43-54: compared at the same achieved utilization."""
    if means[means["fraction"] < 1.0].empty:
        return None
    (rw, rn) = equal_utilization_wins(means, "nondeadline_avg_response", references)
    (sw, sn) = equal_utilization_wins(means, "nondeadline_avg_slowdown", references)
    return Finding(claim, paper,
                   f"response lower at {share(rw, rn)}, slowdown at {share(sw, sn)} "
                   f"(QoPS points within the others' utilization range)",
                   rn > 0 and rw > rn / 2 and sw > sn / 2)


def relaxation_finding(runs) -> Finding | None:
    """QoPS §5.3, Figs. 55-58: a larger R raises the non-deadline response time (long
    jobs wait longer) and lowers their slowdown (short jobs use the slack)."""
    table = relaxation_table(runs)
    if table.empty or "R=2 response" not in table or "R=10 response" not in table:
        return None
    up = int((table["R=10 response"] > table["R=2 response"]).sum())
    down = int((table["R=10 slowdown"] < table["R=2 slowdown"]).sum())
    n = len(table)
    return Finding("QoPS: larger R raises non-deadline response and lowers slowdown",
                   "Figs. 55-58 (§5.3): response up, slowdown down as R grows",
                   f"R = 10 vs 2: response higher at {share(up, n)}, slowdown lower at "
                   f"{share(down, n)}", up > n / 2 and down > n / 2)


def findings(runs, means) -> list[Finding]:
    """Every finding the stored runs can judge, in the paper's order (§5.1-§5.3)."""
    candidates = [
        guarantee_finding(runs),
        fewer_unadmitted_finding(means, "msb", "deadline_rejected_pct", "jobs"),
        fewer_unadmitted_finding(means, "mrt", "deadline_rejected_pct", "jobs"),
        fewer_unadmitted_finding(means, "msb", "deadline_rejected_area_pct",
                                 "processor-seconds"),
        fewer_unadmitted_finding(means, "mrt", "deadline_rejected_area_pct",
                                 "processor-seconds"),
        high_load_finding(means),
        load_dip_finding(means),
        area_trend_finding(means),
        stringency_finding(means, "deadline_rejected_pct", "jobs"),
        stringency_finding(means, "deadline_rejected_area_pct", "processor-seconds"),
        convergence_finding(means),
        utilization_finding(means),
        mixed_admission_finding(means, 0.8),
        mixed_admission_finding(means, 0.2),
        mixed_utilization_finding(means),
        nondeadline_load_finding(means),
        nondeadline_utilization_finding(
            means, ("fcfs+easy", "fcfs+conservative"),
            "Non-deadline jobs: QoPS below EASY and conservative at equal achieved utilization",
            "Fig. 43 (44-54): QoPS better, especially in slowdown"),
        nondeadline_utilization_finding(
            means, ("msb", "mrt"),
            "Non-deadline jobs: QoPS below MSB and MRT at equal achieved utilization",
            "Fig. 43: QoPS consistently superior to MSB and MRT"),
        relaxation_finding(runs),
    ]
    return [f for f in candidates if f is not None]


# --------------------------------------------------------------------------- summary


def summarize(exp_dir: Path, reduced: bool) -> Reproduction:
    """Figures, tables and findings of a finished sweep, in ``EXP_DIR/reproduction``."""
    from schedlab.viz.style import policy_styles

    out = Path(exp_dir) / "reproduction"
    runs = run_table(Path(exp_dir))
    main = main_runs(runs)
    means = point_means(main)
    styles = policy_styles(ADMISSION + BASELINES)
    reproduction = Reproduction(findings=findings(runs, means))
    reproduction.figures.update(admittance_figures(main, styles, out))
    reproduction.figures.update(nondeadline_figures(main, styles, out))
    reproduction.figures.update(relaxation_figures(runs, out))
    tables = {"admittance": admittance_table(means), "guarantee": guarantee_table(runs),
              "rejected_sizes": rejected_sizes_table(main, Path(exp_dir)),
              "wall_time": wall_time_table(runs)}
    if (means["fraction"] < 1.0).any():
        tables["nondeadline"] = nondeadline_table(means)
        tables["relaxation"] = relaxation_table(runs)
    for name, table in tables.items():
        reproduction.tables.update(write_table(table, out, name))
    return reproduction


RECIPE = Recipe(
    name="qops",
    paper="Islam, Balaji, Sadayappan, Panda: QoPS (deadline admission control)",
    description="QoPS, MSB, MRT, EDF, EASY, conservative: unadmitted jobs and "
                "processor-seconds, utilization, non-deadline jobs against load 1.0-1.6 "
                "(duplication, expansion), s = 0.2/0.5, 100/80/20 % deadline jobs, "
                "R = 2/5/10; KTH-SP2 for CTC, SDSC-BLUE for SDSC",
    experiment=experiment,
    summarize=summarize,
)
