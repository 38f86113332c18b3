"""Pieces every command shares: option types, workload loading, progress, tables."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape
from rich.table import Table

from schedlab.cli.conventions import (
    DEADLINES_PANEL,
    POLICY_PANEL,
    RESERVATION_LIMITS_PANEL,
    RESERVATIONS_PANEL,
    WORKLOAD_PANEL,
)
from schedlab.errors import InputError
from schedlab.workload.job import Workload

if TYPE_CHECKING:
    from schedlab.policies.registry import PolicySpec
    from schedlab.run import RunSpec

#: Columns a console that is not a terminal lays tables out in: wide enough
#: that no table of ours wraps a word.
PIPE_WIDTH = 10_000


class OutputConsole(Console):
    """The terminal's width on a terminal; :data:`PIPE_WIDTH` columns on a pipe or a file.

    Rich gives a console that is not a terminal 80 columns (or the size of
    whatever terminal stdin or stderr is on), so output piped to a file had
    policy names and headers broken across lines and metric names cut short.
    The check is made at each print, so it follows the stream in use then.
    """

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        return size if self.is_terminal else ConsoleDimensions(PIPE_WIDTH, size.height)


console = OutputConsole()
err_console = Console(stderr=True, soft_wrap=True)   # an error stays on one line

WorkloadArg = Annotated[str, typer.Argument(
    help="An SWF trace (plain or .gz) or a built-in model name (e.g. 'lublin').")]
ProcsOpt = Annotated[int | None, typer.Option(
    "--procs", help="Machine size in processors (default: the trace header / the model's).",
    rich_help_panel=WORKLOAD_PANEL)]
OverrunOpt = Annotated[Literal["kill", "extend"], typer.Option(
    "--overrun", help="A job still running at its estimate is killed or runs on.",
    rich_help_panel=POLICY_PANEL)]
WidthFieldOpt = Annotated[Literal["requested", "allocated"], typer.Option(
    "--width-field", help="Which SWF field gives a job's width: requested (field 8, else 5) "
    "or allocated (field 5, else 8).", rich_help_panel=WORKLOAD_PANEL)]
MissingEstimateOpt = Annotated[Literal["use-runtime", "drop"], typer.Option(
    "--missing-estimate", help="Jobs without a requested time: their runtime is their "
    "estimate, or they are dropped.", rich_help_panel=WORKLOAD_PANEL)]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Stop at the first record that cannot be simulated instead of skipping "
    "it.", rich_help_panel=WORKLOAD_PANEL)]
JobsOpt = Annotated[int | None, typer.Option(
    "--jobs", "-n", help="Number of jobs for a built-in model; for a trace, keep the first N.",
    rich_help_panel=WORKLOAD_PANEL)]
SeedOpt = Annotated[int, typer.Option(
    "--seed", help="Seed of a built-in model, of --load-method duplicate and of "
    "--deadline-fraction.", rich_help_panel=WORKLOAD_PANEL)]
ShrinkOpt = Annotated[float | None, typer.Option(
    "--shrink", help="Shrinking factor: multiply every interarrival time (Streit 2002, §5).",
    rich_help_panel=WORKLOAD_PANEL)]
PerfectOpt = Annotated[bool, typer.Option(
    "--perfect-estimates", help="Replace every estimate by the job's runtime.",
    rich_help_panel=WORKLOAD_PANEL)]
LoadOpt = Annotated[float | None, typer.Option(
    "--load", help="Raise the offered load by this factor >= 1 (QoPS §4.2; see --load-method).",
    rich_help_panel=WORKLOAD_PANEL)]
LoadMethodOpt = Annotated[Literal["duplicate", "expand"], typer.Option(
    "--load-method", help="How --load raises the load: copies of random jobs at random times "
    "(seeded by --seed), or every runtime and estimate stretched.",
    rich_help_panel=WORKLOAD_PANEL)]
DeadlinesOpt = Annotated[str | None, typer.Option(
    "--deadlines", help="A CSV side file 'job_id,deadline[,kind]' of absolute deadlines.",
    rich_help_panel=DEADLINES_PANEL)]
StringencyOpt = Annotated[float | None, typer.Option(
    "--stringency", help="Deadlines from an EASY run: submit + max(runtime, (1 - S) x EASY "
    "response) (QoPS §4.1); S in [0, 1].", rich_help_panel=DEADLINES_PANEL)]
DeadlineFractionOpt = Annotated[float, typer.Option(
    "--deadline-fraction", help="With --stringency: the share of jobs with real deadlines "
    "(seeded by --seed); the others get max(24 h, R x runtime) (QoPS §4.2).",
    rich_help_panel=DEADLINES_PANEL)]
RelaxationOpt = Annotated[float | None, typer.Option(
    "--relaxation", help="R of the artificial deadlines; needed when --deadline-fraction < 1.",
    rich_help_panel=DEADLINES_PANEL)]
ReservationsOpt = Annotated[str | None, typer.Option(
    "--reservations", help="A CSV file of advance-reservation requests (docs/reservations.md).",
    rich_help_panel=RESERVATIONS_PANEL)]
PlacementOpt = Annotated[Literal["exact", "earliest"], typer.Option(
    "--reservation-placement", help="A request whose start is busy is rejected (exact) or "
    "moved to its earliest fit.", rich_help_panel=RESERVATIONS_PANEL)]
ThrottleOpt = Annotated[bool, typer.Option(
    "--throttle", help="Margo et al.'s throttling: at most --reservation-cap node-seconds of "
    "reservations in any sliding --reservation-window.", rich_help_panel=RESERVATION_LIMITS_PANEL)]
CapOpt = Annotated[int | None, typer.Option(
    "--reservation-cap", help="The throttling cap in node-seconds (implies --throttle; "
    "default 11059200 = 256 nodes x 12 h).", rich_help_panel=RESERVATION_LIMITS_PANEL)]
CapWindowOpt = Annotated[int, typer.Option(
    "--reservation-window", help="The sliding window of the cap in seconds (7 days).",
    rich_help_panel=RESERVATION_LIMITS_PANEL)]
MinDurationOpt = Annotated[int, typer.Option(
    "--min-reservation-duration", help="Reject reservations shorter than this (seconds).",
    rich_help_panel=RESERVATION_LIMITS_PANEL)]
MinNoticeOpt = Annotated[int, typer.Option(
    "--min-reservation-notice", help="Reject requests made less than this many seconds "
    "before their start.", rich_help_panel=RESERVATION_LIMITS_PANEL)]
TickOpt = Annotated[int, typer.Option(
    "--tick", help="Schedule only every TICK seconds (Catalina: 900); 0 = at every event.",
    rich_help_panel=POLICY_PANEL)]
MaxQueuedOpt = Annotated[int | None, typer.Option(
    "--max-queued-per-user", help="Hold back a user's jobs beyond this many waiting ones "
    "(DataStar: 6).", rich_help_panel=POLICY_PANEL)]
#: The thesis settings of the grid platform and job generators (Pasquali thesis, ch. 4-5):
#: the keys of schedlab.platform.generator.PRESETS and schedlab.workload.models.grid.PRESETS,
#: spelled out so that ``--help`` lists them without importing the generators.
ThesisPreset = Literal["thesis-4.1", "thesis-4.2", "thesis-4.2-mkp", "thesis-4.3", "thesis-5.2"]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", "-j", help="Worker processes (default: every core; 1 runs in this process). "
    "With '--dask local', the size of the local cluster.")]
DaskOpt = Annotated[str | None, typer.Option(
    "--dask", help="Run on Dask: 'tcp://HOST:PORT' of a running scheduler, or 'local' for a "
    "local cluster of worker processes.")]


def run_spec(workload: str, policy: PolicySpec = "fcfs+easy", *, procs: int | None,
             width_field: str = "requested", missing_estimate: str = "use-runtime",
             strict: bool = False, jobs: int | None = None, seed: int = 0,
             shrink: float | None = None, perfect_estimates: bool = False,
             split: int | None = None, window: tuple[int, int] | None = None,
             load_factor: float | None = None, load_method: str = "duplicate",
             deadlines: str | None = None, stringency: float | None = None,
             deadline_fraction: float = 1.0, relaxation: float | None = None,
             overrun: str = "kill", reservations: str | None = None, tick: int = 0,
             max_queued: int | None = None) -> RunSpec:
    """The run the command-line options describe (:class:`~schedlab.run.RunSpec`).

    Transform order: time window, first N jobs, width split, shrinking,
    perfect estimates, load scaling, deadlines (QoPS §4.2: the trace is
    scaled first, then scheduled with EASY, then given deadlines).
    """
    from schedlab.pipeline import Transforms
    from schedlab.run import RunSpec

    steps = Transforms(window=window, split=split, shrink=shrink,
                       perfect_estimates=perfect_estimates, load=load_factor,
                       load_method=load_method, deadlines=deadlines, stringency=stringency,
                       deadline_fraction=deadline_fraction, relaxation=relaxation)
    return RunSpec(workload, policy, processors=procs, width_field=width_field,
                   missing_estimate=missing_estimate, strict=strict, jobs=jobs, seed=seed,
                   transforms=steps, overrun=overrun, reservations=reservations, tick=tick,
                   max_queued_per_user=max_queued)


def prepare(spec: RunSpec) -> Workload:
    """The spec's workload, loaded and transformed, with the warnings the user must see.

    Option names in errors are the command line's (``--load-method``).
    """
    from schedlab.run import prepare_workload

    source = spec.workload
    name = source.name if isinstance(source, Workload) else Path(str(source)).name
    bar = DelayedProgress(f"EASY for deadlines on {name}")
    try:
        loaded = prepare_workload(spec, label=option_name, progress=bar)
    finally:
        bar.close()
    report_guesses(loaded)
    steps = spec.transforms
    if steps.deadlines is not None or steps.stringency is not None:
        report_unreachable_deadlines(loaded, from_stringency=steps.stringency is not None)
    return loaded


def load(workload: str, **options) -> Workload:
    """Load a workload and apply the transforms asked for on the command line
    (the keyword arguments of :func:`run_spec`)."""
    return prepare(run_spec(workload, **options))


def report_guesses(workload: Workload) -> None:
    """Warn on stderr where the reader guessed what the trace does not say (docs/workloads.md).

    A machine sized by the widest job, and estimates taken from runtimes
    (perfect estimates, which flatter backfilling), change every result:
    the user must know, and learn how to set them.
    """
    for line in guess_warnings(workload):
        err_console.print(f"warning: {line}", markup=False, highlight=False)


def guess_warnings(workload: Workload, *, machine_size: bool = True) -> list[str]:
    """The warnings of :func:`report_guesses`, one sentence each.

    ``machine_size=False`` leaves out a guessed machine size (a trace enriched for a grid
    platform runs on the platform's machines, not on its own).
    """
    from schedlab.workload.job import (
        ESTIMATES_PARTLY_RUNTIME,
        ESTIMATES_RUNTIME,
        GUESSED_MACHINE_SOURCES,
        MACHINE_FROM_WIDEST_JOB,
    )
    from schedlab.workload.swf import FRACTIONAL_TIMES

    facts = workload.provenance
    lines = []
    source = facts.get("machine_size_source")
    if machine_size and source in GUESSED_MACHINE_SOURCES:
        lacking, basis = (("has no MaxProcs or MaxNodes header", "the widest job")
                          if source == MACHINE_FROM_WIDEST_JOB
                          else ("does not give the machine size", "the peak of CPUs in use"))
        lines.append(f"{workload.name} {lacking}: the machine size is guessed as "
                     f"{workload.processors} processors ({basis}); if the real machine is "
                     f"larger, jobs queue behind a machine it is not and waits (and every "
                     f"metric built on them) are meaningless: give the real size with --procs")
    fractional = facts.get(FRACTIONAL_TIMES)
    if fractional:
        lines.append(f"{workload.name}: {fractional} records have fractional times (fields "
                     f"2, 4 or 9), truncated to whole seconds (docs/workloads.md)")
    estimates = facts.get("estimates_source")
    if estimates == ESTIMATES_RUNTIME:
        lines.append(f"{workload.name} has no requested times: every job's estimate "
                     f"is its runtime, i.e. perfect estimates, which flatter backfilling")
    elif estimates == ESTIMATES_PARTLY_RUNTIME:
        lines.append(f"{workload.name}: {facts['estimates_from_runtime']} jobs have no "
                     f"requested time: their estimate is their runtime "
                     f"(--missing-estimate drop skips them instead)")
    return lines


def report_unreachable_deadlines(workload: Workload, *, from_stringency: bool) -> None:
    """Warn when jobs have deadlines that even an immediate start cannot meet by their estimates.

    Admission control plans by estimates, so such a job is always refused.
    Deadlines from ``--stringency`` assume exact estimates (QoPS §4.1, §6):
    on a trace with real estimates most of them are out of reach, and the
    hint names the option that makes them reachable.
    """
    unreachable = [job for job in workload.jobs
                   if job.deadline is not None and job.submit + job.estimate > job.deadline]
    if not unreachable:
        return
    with_deadline = sum(1 for job in workload.jobs if job.deadline is not None)
    # A perfect estimate is the runtime, at least 1 s (a job that runs 0 s keeps the
    # least estimate): only the jobs whose deadline that meets are helped by one.
    helped = sum(1 for job in unreachable if job.submit + max(job.runtime, 1) <= job.deadline)
    hint = ""
    if from_stringency and helped:
        hint = (f" Deadlines from --stringency assume exact estimates (QoPS §4.1): "
                f"--perfect-estimates makes {helped} of them reachable.")
    if helped < len(unreachable):
        hint += (f" {len(unreachable) - helped} of them cannot meet it even with an exact "
                 f"estimate (their runtime, at least 1 s): no estimate helps.")
    err_console.print(f"note: {len(unreachable)} of {with_deadline} jobs with a deadline cannot "
                      f"meet it by their estimate even if started at once; admission control will "
                      f"refuse them.{hint}", markup=False, highlight=False)


def option_name(setting: str) -> str:
    """The command-line option of a run setting: ``load_method`` -> ``--load-method``,
    ``jobs`` -> ``--jobs/-n`` (both spellings, as ``--help`` shows them)."""
    if setting in ("first", "jobs"):
        return "--jobs/-n"
    return "--" + {"processors": "procs"}.get(setting, setting).replace("_", "-")


#: Run settings and policy parameters that a command-line option of the same name sets: an
#: error the engine or a policy raises about one names the option (``--tick``).
OPTION_SETTINGS = ("processors", "tick", "max_queued_per_user", "overrun", "reservation_placement",
                   "throttle", "reservation_cap", "reservation_window",
                   "min_reservation_duration", "min_reservation_notice", "preemption_overhead")


def named_as_typed(err: InputError) -> InputError:
    """``err`` with its field named as the option the user typed, when it is a setting of
    :data:`OPTION_SETTINGS` and no file is in question (a sweep names its key path)."""
    if err.file is not None or err.field not in OPTION_SETTINGS:
        return err
    return InputError(err.reason, line=err.line, field=option_name(err.field))


def reservation_params(reservations: str | None, *, placement: str, throttle: bool,
                       cap: int | None, window: int, min_duration: int,
                       min_notice: int) -> dict[str, object]:
    """The policy parameters the reservation options set (only those not at their default).

    Placement and throttling are parameters of the policy
    (docs/reservations.md); the options need ``--reservations FILE``.
    """
    from schedlab.policies.reservations import RESERVATION_PARAMS

    given = {"reservation_placement": placement, "throttle": throttle, "reservation_cap": cap,
             "reservation_window": window, "min_reservation_duration": min_duration,
             "min_reservation_notice": min_notice}
    changed = {k: v for k, v in given.items() if v != RESERVATION_PARAMS[k]}
    if changed and reservations is None:
        raise InputError("the reservation placement and throttling options need "
                         "--reservations FILE", field="--reservations")
    return changed


def report_reservations(result, label: str | None = None) -> None:
    """One line on what became of the reservation requests, rejections by reason.

    ``label`` names the run (default: the policy name).
    """
    table = result.reservations
    if table is None:
        return
    granted = table.granted
    moved = int((granted & (table.start != table.requested_start)).sum())
    reasons: dict[str, int] = {}
    for reason, ok in zip(table.reason, granted):
        if not ok:
            reasons[reason] = reasons.get(reason, 0) + 1
    detail = ", ".join(f"{reason}: {count}" for reason, count in sorted(reasons.items()))
    console.print(f"{label or result.policy}: {len(table)} reservation requests, "
                  f"{int(granted.sum())} granted ({moved} moved), {len(table) - int(granted.sum())} rejected"
                  + (f" ({detail})" if detail else ""))


def report_skips(workload: Workload) -> None:
    """Always say how many records were skipped and why (SPEC §1.1)."""
    total = sum(workload.skipped.values())
    if not workload.skipped:
        return
    parts = ", ".join(f"{reason}: {count}" for reason, count in workload.skipped.items())
    console.print(f"[dim]{workload.name}: {len(workload)} jobs; skipped {total} ({parts})[/dim]")


#: The narrowest bar and label a progress line keeps on a narrow terminal.
MIN_BAR, MIN_LABEL = 10, 12
#: The widest bar (rich's default).
MAX_BAR = 40


def rate_column(unit: str):
    """A rich progress column with the rate of the task, e.g. ``12,345 jobs/s`` (blank at first)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} {unit}/s", style="cyan")

    return RateColumn()


def fit_progress_line(label: str, others: int, width: int) -> tuple[str, int]:
    """The label and the bar width that keep a progress line within ``width`` columns.

    ``others`` is the room the other columns need (as wide as they usually
    get), spaces between columns included.  rich folds a line wider than the terminal onto two and cuts
    the count and the time left to fit (80 columns when it cannot tell);
    here the bar gives way first, down to ``MIN_BAR``, then the label is cut
    with an ellipsis, down to ``MIN_LABEL``.
    """
    room = width - others - 1                     # the space between label and bar
    bar = max(MIN_BAR, min(MAX_BAR, room - len(label)))
    keep = max(MIN_LABEL, room - bar)
    return (label if len(label) <= keep else label[:keep - 1] + "…"), bar


class DelayedProgress:
    """A progress bar that appears only once a run has taken longer than ``delay`` seconds.

    It shows the count, the rate (``unit`` per second) and the time left, on
    stderr and only when stderr is a terminal, in one line of the terminal's
    width (:func:`fit_progress_line`).  rich's progress module is imported
    only then: most runs are shorter.
    """

    def __init__(self, label: str, delay: float = 2.0, unit: str = "jobs") -> None:
        self.label = label
        self.delay = delay
        self.unit = unit
        self.began = time.perf_counter()
        self.bar = None
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if time.perf_counter() - self.began < self.delay or done >= total:
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            others = len(f"{total}/{total} 1,000,000 {self.unit}/s 0:00:00 ")
            label, bar_width = fit_progress_line(self.label, others, err_console.width)
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width),
                                MofNCompleteColumn(), rate_column(self.unit),
                                TimeRemainingColumn(), console=err_console, transient=True,
                                disable=not err_console.is_terminal)
            self.bar.start()
            self.task = self.bar.add_task(escape(label), total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def metrics_table(title: str, rows: dict[str, dict[str, float]], names: list[str],
                  formats: dict[str, str]) -> Table:
    """A rich table: one row per metric, one column per run (policy).

    Metrics run down the side so that several policies fit an 80-column
    terminal; there a policy name breaks after each ``+``, on a pipe it stays whole.
    Labels are shown as they are (``qops[k=3]`` is no rich markup).  A
    missing metric (one over no jobs, docs/metrics.md) shows as ``—``.
    """
    from schedlab.output import MISSING_CELL

    table = Table(title=title)
    table.add_column("metric", style="bold")
    for label in rows:
        header = escape(label)
        header = header.replace("+", "+\n") if console.is_terminal else header
        table.add_column(header, justify="right", overflow="fold")
    for name in names:
        cells = []
        for metrics in rows.values():
            value = metrics.get(name)
            cells.append(MISSING_CELL if value is None
                         else format(value, formats.get(name, ".2f")))
        table.add_row(name, *cells)
    return table


def parse_params(pairs: list[str] | None, *, field: str = "--param") -> dict[str, object]:
    """``["k=4", "heuristic=edf"]`` -> ``{"k": 4, "heuristic": "edf"}`` (numbers parsed)."""
    params: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"expected KEY=VALUE, got {pair!r}", field=field)
        params[key.strip()] = _number_or_text(raw.strip(), f"{field} {key.strip()}")
    return params


def _number_or_text(raw: str, field: str) -> object:
    """An integer in ASCII digits (magnitude at most 2**53, :func:`schedlab.textio.parse_int`),
    a finite decimal number, ``true``/``false``, else the text itself."""
    from schedlab.textio import ASCII_INT, ASCII_NUMBER, parse_int

    if ASCII_INT.fullmatch(raw):
        return parse_int(raw, field=field)
    if ASCII_NUMBER.fullmatch(raw) or raw.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        value = float(raw)
        if not math.isfinite(value):
            raise InputError(f"expected a finite number, got {raw!r}", field=field)
        return value
    return {"true": True, "false": False}.get(raw.lower(), raw)


#: ``NAME`` or ``NAME[KEY=VALUE,...]``: one policy of ``compare --policies``.
_POLICY_SPEC = re.compile(r"\s*([^\[\],=\s]+)\s*(?:\[([^\[\]]*)\])?\s*")


def split_policy_list(text: str) -> list[str]:
    """``"qops[k=3,heuristic=edf],fcfs"`` -> ``["qops[k=3,heuristic=edf]", "fcfs"]``.

    Commas split policies only outside brackets: inside they separate parameters.
    """
    specs, current, depth = [], [], 0
    for char in text:
        if char == "," and depth == 0:
            specs.append("".join(current))
            current = []
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        current.append(char)
    specs.append("".join(current))
    return [spec.strip() for spec in specs if spec.strip()]


def parse_policy_spec(spec: str, *, field: str = "--policies") -> dict[str, object]:
    """``"qops[k=3,heuristic=edf]"`` -> ``{"name": "qops", "k": 3, "heuristic": "edf"}``.

    The parameters are read as ``--param`` reads them; a malformed spec is an
    :class:`InputError` that quotes it.
    """
    match = _POLICY_SPEC.fullmatch(spec)
    if match is None:
        raise InputError(f"policy spec {spec!r}: expected NAME or NAME[KEY=VALUE,...] "
                         f"(e.g. 'qops[k=3]')", field=field)
    name, inner = match.groups()
    pairs = inner.split(",") if inner is not None and inner.strip() else []
    try:
        return {"name": name, **parse_params(pairs, field=field)}
    except InputError as err:
        raise InputError(f"policy spec {spec!r}: {err.reason}", field=field) from None


def parse_window(text: str | None) -> tuple[int, int] | None:
    """``"START:END"`` in seconds since the trace start -> ``(START, END)``."""
    if text is None:
        return None
    from schedlab.textio import ASCII_INT, parse_int

    start, sep, end = text.partition(":")
    if not sep or not ASCII_INT.fullmatch(start) or not ASCII_INT.fullmatch(end):
        raise InputError(f"expected START:END in whole seconds, got {text!r}",
                         field="--window")
    return (parse_int(start, field="--window"), parse_int(end, field="--window"))


SUMMARY_METRICS = ["jobs", "killed", "rejected", "avg_wait", "avg_response", "avg_bsld_60",
                   "artww", "sldww_60", "utilization", "makespan"]
SUMMARY_FORMATS = {"jobs": "d", "killed": "d", "rejected": "d", "avg_wait": ".0f",
                   "avg_response": ".0f", "artww": ".0f", "utilization": ".3f", "makespan": "d",
                   "deadline_missed": "d", "deadline_unfinished": "d",
                   "nondeadline_avg_response": ".0f"}
#: Added to the summary when the workload has deadlines (docs/metrics.md, "Deadlines").
DEADLINE_SUMMARY_METRICS = ["deadline_rejected_pct", "deadline_rejected_area_pct",
                            "deadline_missed", "deadline_unfinished",
                            "nondeadline_avg_response", "nondeadline_avg_slowdown"]
#: Added when the run had reservation requests (Margo et al., §4 eq. 1–3).
RESERVATION_SUMMARY_METRICS = ["reservations_granted", "reservations_rejected",
                               "wait_weighted", "expansion_factor_weighted",
                               "utilization_margo_reserved"]
SUMMARY_FORMATS.update({"reservations_granted": "d", "reservations_rejected": "d",
                        "wait_weighted": ".0f", "expansion_factor_weighted": ".2f",
                        "utilization_margo_reserved": ".3f"})


#: Beside ``rejected`` when some run rejected jobs: the shares of jobs and of processor-seconds
#: refused (QoPS §5.1), so that an admission policy's wait and slowdown over the jobs it
#: kept are read with what it turned away (docs/metrics.md).
REJECTION_SUMMARY_METRICS = ["rejected_pct", "rejected_area_pct"]


def summary_metrics(rows: dict[str, dict]) -> list[str]:
    """The metric names of the summary table, with the rejection, deadline and reservation
    ones if any."""
    names = list(SUMMARY_METRICS)
    if any(metrics.get("rejected") for metrics in rows.values()):
        at = names.index("rejected") + 1
        names[at:at] = REJECTION_SUMMARY_METRICS
    if any("deadline_missed" in metrics for metrics in rows.values()):
        names += DEADLINE_SUMMARY_METRICS
    if any("reservations" in metrics for metrics in rows.values()):
        names += RESERVATION_SUMMARY_METRICS
    return names

