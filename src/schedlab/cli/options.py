"""The command-line options several commands share, and the option names errors quote."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from schedlab.cli.conventions import (
    DEADLINES_PANEL,
    EVENTS_PANEL,
    POLICY_PANEL,
    RESERVATION_LIMITS_PANEL,
    RESERVATIONS_PANEL,
    WORKLOAD_PANEL,
)
from schedlab.errors import InputError
from schedlab.workload.swf import Cancellations, MissingEstimate, WidthField

WorkloadArg = Annotated[str, typer.Argument(
    help="An SWF trace (plain or .gz) or a built-in model name (e.g. 'lublin').")]
ProcsOpt = Annotated[int | None, typer.Option(
    "--procs", help="Machine size in processors (default: the trace header / the model's).",
    rich_help_panel=WORKLOAD_PANEL)]
SlurmQosOpt = Annotated[Path | None, typer.Option(
    "--slurm-qos", help="A QOS table for the 'slurm' policy, as `sacctmgr show qos "
    "--parsable2` prints it: priorities and per-user and group CPU and job limits.",
    rich_help_panel=POLICY_PANEL)]
SlurmAssocOpt = Annotated[Path | None, typer.Option(
    "--slurm-assoc", help="The association tree (accounts, users, shares) for the 'slurm' "
    "policy's fair-share, as `sacctmgr show assoc --parsable2` prints it with the "
    "columns Account, User, Share and ParentName (default: every account and user of "
    "the workload, one share each).", rich_help_panel=POLICY_PANEL)]
OverrunOpt = Annotated[Literal["kill", "extend"], typer.Option(
    "--overrun", help="A job still running at its estimate is killed or runs on.",
    rich_help_panel=POLICY_PANEL)]
WidthFieldOpt = Annotated[WidthField, typer.Option(
    "--width-field", help="Which SWF field gives a job's width: requested (field 8, else 5) "
    "or allocated (field 5, else 8).", rich_help_panel=WORKLOAD_PANEL)]
MissingEstimateOpt = Annotated[MissingEstimate, typer.Option(
    "--missing-estimate", help="Jobs without a requested time: their runtime is their "
    "estimate, or they are dropped.", rich_help_panel=WORKLOAD_PANEL)]
CancellationsOpt = Annotated[Cancellations, typer.Option(
    "--cancellations", help="Records of cancelled jobs (SWF status 5): run as ordinary jobs "
    "(ignore), cancelled when the trace says (replay), or skipped (drop).",
    rich_help_panel=WORKLOAD_PANEL)]
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
    "--reservations", help="A CSV file of advance-reservation requests (docs: reference/reservations.md).",
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
FailuresOpt = Annotated[str | None, typer.Option(
    "--failures", help="Node failures: drawn per node, e.g. 'mtbf=7d,repair=4h,fate=requeue', "
    "or replayed from a failure file (CSV time,nodes,duration), e.g. 'outages.csv,fate=kill'. "
    "Fates: kill, requeue, checkpoint; keys in docs/reference/events.md. With --platform a "
    "node is a machine (its index in the platform).",
    rich_help_panel=EVENTS_PANEL)]
MaintenanceOpt = Annotated[str | None, typer.Option(
    "--maintenance", help="Maintenance windows and drains: a CSV file with the columns "
    "notice, start, end, nodes (a count or all; with --platform, of machines) and kind "
    "(maintenance or drain).",
    rich_help_panel=EVENTS_PANEL)]
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


def complete_policy(incomplete: str) -> list[str]:
    """Shell completion of ``--policy``: every registered name starting with what is typed
    (``schedlab --install-completion`` installs it)."""
    from schedlab.policies.registry import entries

    return sorted(name for name in entries() if name.startswith(incomplete))


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
    (docs/reference/reservations.md); the options need ``--reservations FILE``.
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
