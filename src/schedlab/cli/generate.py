"""``schedlab generate``: write a synthetic workload from a built-in model as SWF.

``schedlab generate streit --from TRACE`` runs Streit's trace analyzer on an
SWF trace (or loads a saved model or a built-in parameter file) and
generates a synthetic job set from it (Streit 2002, §4); ``--save-model``
writes the analyzer's output.

``schedlab generate hyper-erlang --from TRACE`` fits hyper-Erlang
distributions of common order to the interarrival and service times of each
job-size range of an SWF trace (Jann et al. 1997), or loads a saved fit
(``.json``), and generates from it; ``--save-model`` writes the fit.

``schedlab generate reservations --span START:END`` writes advance-reservation
requests (Margo et al., §5: 15 per week, 8–128 nodes, 4–18 h) as CSV;
``--into START:END`` compresses them (or the requests of ``--from FILE``)
into another span, "a year of requests into a month".

``schedlab generate grid --platform P.toml`` writes a grid job stream (Pasquali
thesis, ch. 4) as SWF plus a side file of licences, ratings and classes;
``--from TRACE`` gives a trace's jobs those attributes instead (docs/reference/models.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from schedlab.cli.consoles import console
from schedlab.cli.conventions import OUTPUT_PANEL, RESERVATIONS_PANEL, WORKLOAD_PANEL
from schedlab.cli.options import MissingEstimateOpt, ThesisPreset, WidthFieldOpt
from schedlab.cli.parsing import parse_pair
from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.workload.job import Workload
    from schedlab.workload.swf import MissingEstimate, WidthField

STREIT = "streit"
HYPER_ERLANG = "hyper-erlang"
RESERVATIONS = "reservations"
GRID = "grid"

MODEL_PANEL = "Fitting a model (streit, hyper-erlang)"
GRID_PANEL = "Grid jobs (grid)"


def generate(
    model: Annotated[str, typer.Argument(
        help="A built-in model (docs/reference/models.md), e.g. 'lublin', 'KTH_syn' or 'w3'; 'streit' "
             "and 'hyper-erlang' generate from --from; 'grid' writes grid jobs for "
             "--platform.")],
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-n", help="Number of jobs.", rich_help_panel=WORKLOAD_PANEL)] = None,
    procs: Annotated[int | None, typer.Option(
        "--procs", help="Machine size.", rich_help_panel=WORKLOAD_PANEL)] = None,
    seed: Annotated[int, typer.Option(
        "--seed", help="Seed: the same seed gives the same jobs.",
        rich_help_panel=WORKLOAD_PANEL)] = 0,
    source: Annotated[str | None, typer.Option(
        "--from", help="streit: an SWF trace to analyse, a saved model (.json, .json.gz) or "
                       "a built-in parameter name (kth, sdscblue, nasa, lublin256); "
                       "hyper-erlang: an SWF trace to fit or a saved fit (.json); "
                       "reservations: a CSV file of requests; grid: a trace to enrich.",
        rich_help_panel=WORKLOAD_PANEL)] = None,
    save_model: Annotated[Path | None, typer.Option(
        "--save-model", help="streit, hyper-erlang: also write the fitted model (JSON).",
        rich_help_panel=MODEL_PANEL)] = None,
    size_edges: Annotated[str | None, typer.Option(
        "--size-edges", help="hyper-erlang: lower bounds of the job-size ranges, e.g. "
                             "1,2,3,5,9 (default powers of two).",
        rich_help_panel=MODEL_PANEL)] = None,
    width_unit: Annotated[int, typer.Option(
        "--width-unit", help="hyper-erlang: processors per width unit (8: count 8-way nodes).",
        rich_help_panel=MODEL_PANEL)] = 1,
    estimate_bins: Annotated[int, typer.Option(
        "--estimate-bins", help="streit, analysing a trace: estimate bins per decade.",
        rich_help_panel=MODEL_PANEL)] = 4,
    runtime_bins: Annotated[int, typer.Option(
        "--runtime-bins", help="streit, analysing a trace: bins per decade of the "
                               "runtime/estimate scale.", rich_help_panel=MODEL_PANEL)] = 6,
    width_bins: Annotated[Literal["pow2", "exact"], typer.Option(
        "--width-bins", help="streit, analysing a trace: width classes.",
        rich_help_panel=MODEL_PANEL)] = "pow2",
    width_field: WidthFieldOpt = "requested",
    missing_estimate: MissingEstimateOpt = "use-runtime",
    span: Annotated[str | None, typer.Option(
        "--span", help="START:END, the seconds since the trace start to spread requests over "
                       "(with --from: the span the file's requests come from).",
        rich_help_panel=RESERVATIONS_PANEL)] = None,
    into: Annotated[str | None, typer.Option(
        "--into", help="START:END, compress the requests from --span into this span (a year "
                       "into a month).", rich_help_panel=RESERVATIONS_PANEL)] = None,
    per_week: Annotated[float | None, typer.Option(
        "--per-week", help="Requests per week (default 15).",
        rich_help_panel=RESERVATIONS_PANEL)] = None,
    nodes: Annotated[str | None, typer.Option(
        "--nodes", help="LO:HI nodes per request (default 8:128, capped at --procs).",
        rich_help_panel=RESERVATIONS_PANEL)] = None,
    hours: Annotated[str | None, typer.Option(
        "--hours", help="LO:HI duration in hours (default 4:18).",
        rich_help_panel=RESERVATIONS_PANEL)] = None,
    notice_hours: Annotated[str | None, typer.Option(
        "--notice-hours", help="LO:HI advance notice in hours (default 24:168).",
        rich_help_panel=RESERVATIONS_PANEL)] = None,
    platform: Annotated[Path | None, typer.Option(
        "--platform", help="The platform file (TOML) the jobs are for.",
        rich_help_panel=GRID_PANEL)] = None,
    preset: Annotated[ThesisPreset | None, typer.Option(
        "--preset", help="The thesis setting to draw from (default thesis-4.3).",
        rich_help_panel=GRID_PANEL)] = None,
    ta: Annotated[float | None, typer.Option(
        "--ta", help="Mean interarrival time in seconds (default: the preset's first).",
        rich_help_panel=GRID_PANEL)] = None,
    settings: Annotated[list[str] | None, typer.Option(
        "--set", help="KEY=VALUE overriding a preset range, e.g. margin=30:250 "
                      "(docs/reference/models.md).", rich_help_panel=GRID_PANEL)] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The SWF file to write (the CSV file for 'reservations').",
        rich_help_panel=OUTPUT_PANEL)] = None,
) -> None:
    """Generate a synthetic workload and write it as an SWF trace.

    'reservations' writes advance-reservation requests as CSV instead.
    """
    check_model_options(procs=procs, jobs=jobs, seed=seed)
    reservation_options = {"--span": span, "--into": into, "--per-week": per_week,
                           "--nodes": nodes, "--hours": hours, "--notice-hours": notice_hours}
    if model == RESERVATIONS:
        _generate_reservations(out, source, procs=procs, seed=seed, jobs=jobs,
                               save_model=save_model, **reservation_options)
        return
    for option, value in reservation_options.items():
        if value is not None:
            raise InputError(f"{option} is only for 'schedlab generate reservations', not for "
                             f"the model {model!r}", field=option)
    grid_options = {"--platform": platform, "--preset": preset, "--ta": ta, "--set": settings}
    if model == GRID:
        from schedlab.cli.platform import generate_grid_jobs

        if procs is not None or save_model is not None:
            raise InputError("'grid' takes its machines from --platform, not --procs or "
                             "--save-model", field="--procs" if procs is not None
                             else "--save-model")
        generate_grid_jobs(out, platform_file=platform, preset=preset, jobs=jobs, ta=ta,
                           seed=seed, source=source, settings=settings or [],
                           swf_options={"width_field": width_field,
                                        "missing_estimate": missing_estimate})
        return
    for option, grid_value in grid_options.items():
        if grid_value is not None and grid_value != []:
            raise InputError(f"{option} is only for 'schedlab generate grid', not for "
                             f"the model {model!r}", field=option)
    if model == STREIT:
        _generate_streit(source, out, save_model, jobs=jobs, procs=procs, seed=seed,
                         analyzer={"estimate_bins": estimate_bins, "runtime_bins": runtime_bins,
                                   "width_bins": width_bins, "width_field": width_field,
                                   "missing_estimate": missing_estimate})
        return
    if model == HYPER_ERLANG:
        _generate_hyper_erlang(source, out, save_model, jobs=jobs, procs=procs, seed=seed,
                               size_edges=size_edges, width_unit=width_unit,
                               width_field=width_field, missing_estimate=missing_estimate)
        return
    for given, option in ((source, "--from"), (save_model, "--save-model")):
        if given is not None:
            raise InputError(f"{option} is only for 'schedlab generate streit' and "
                             f"'hyper-erlang', not for the model {model!r}", field=option)
    if out is None:
        raise InputError("expected the SWF file to write (--out/-o)", field="--out")
    from schedlab.workload.models import generate_builtin

    _write(generate_builtin(model, n_jobs=jobs, processors=procs, seed=seed), out)


def check_model_options(*, procs: int | None, jobs: int | None, seed: int) -> None:
    """The bounds a simulated run checks (:mod:`schedlab.limits`), checked before a model
    draws anything, each error naming the option."""
    from schedlab.limits import check_jobs, check_processors, check_seed

    if procs is not None:
        check_processors(procs, field="--procs")
    if jobs is not None:
        check_jobs(jobs, field="--jobs/-n")
    check_seed(seed, field="--seed")


def _generate_streit(source: str | None, output: Path | None, save_model: Path | None, *,
                     jobs: int | None, procs: int | None, seed: int,
                     analyzer: dict[str, Any]) -> None:
    """Analyse (or load) the model named by ``--from``; save it and/or generate from it."""
    from schedlab.workload.models.streit import (
        BUILTIN_PARAMETERS,
        DEFAULT_JOBS,
        generate_streit,
        resolve_model,
    )
    from schedlab.workload.models.streit import save_model as write_model

    if source is None:
        raise InputError("'streit' needs --from TRACE (an SWF trace, a model file or a "
                         "built-in parameter name such as 'kth')", field="--from")
    if output is None and save_model is None:
        raise InputError("expected --out/-o (the SWF file to write) or --save-model",
                         field="--out")
    model = resolve_model(source, **analyzer)
    builtin = not Path(source).exists() and source.lower() in BUILTIN_PARAMETERS
    name = BUILTIN_PARAMETERS[source.lower()][1] if builtin else None
    if save_model is not None:
        write_model(model, save_model)
        console.print(f"wrote {save_model}: Streit model of {model.source} "
                      f"({len(model.cells)} matrix cells, Weibull alpha "
                      f"{model.weibull_alpha:.3f}, beta {model.weibull_beta:.1f} s)")
    if output is not None:
        _write(generate_streit(model, DEFAULT_JOBS if jobs is None else jobs, seed,
                               processors=procs, name=name), output)


def _generate_hyper_erlang(source: str | None, output: Path | None, save_model: Path | None, *,
                           jobs: int | None, procs: int | None, seed: int,
                           size_edges: str | None, width_unit: int, width_field: WidthField,
                           missing_estimate: MissingEstimate) -> None:
    """Fit (or load) the hyper-Erlang model of ``--from``; save it and/or generate from it."""
    from schedlab.workload.models import hypererlang as he

    if source is None:
        raise InputError("'hyper-erlang' needs --from TRACE (an SWF trace or a saved .json fit)",
                         field="--from")
    if output is None and save_model is None:
        raise InputError("expected --out/-o (the SWF file to write) or --save-model",
                         field="--out")
    edges = None if size_edges is None else _integers(size_edges, "--size-edges")
    model = he.resolve_model(source, size_edges=edges, width_unit=width_unit,
                             width_field=width_field, missing_estimate=missing_estimate)
    if save_model is not None:
        he.save_model(model, save_model)
        orders = ", ".join(f"{r.low}-{r.high}: {r.interarrival.order}/{r.service.order}"
                           for r in model.ranges)
        console.print(f"wrote {save_model}: hyper-Erlang model of {model.source}, "
                      f"{len(model.ranges)} size ranges (orders interarrival/service: {orders})")
    if output is not None:
        _write(he.generate_hyper_erlang(model, he.DEFAULT_JOBS if jobs is None else jobs, seed,
                                        processors=procs), output)


def _integers(text: str, option: str) -> list[int]:
    """``"1,2,5"`` as integers."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise InputError(f"expected comma-separated integers, got {text!r}",
                         field=option) from None


def _generate_reservations(output: Path | None, source: str | None, *, procs: int | None,
                           seed: int, jobs: int | None, save_model: Path | None,
                           **options: Any) -> None:
    """Generate requests over ``--span`` (or read ``--from``), compress them ``--into``, write."""
    from schedlab.workload import reservations as res

    if jobs is not None or save_model is not None:
        raise InputError("'reservations' takes --per-week, not --jobs or --save-model",
                         field="--jobs" if jobs is not None else "--save-model")
    if output is None:
        raise InputError("expected the CSV file to write (--out/-o)", field="--out")
    span = parse_pair(options["--span"], "--span", int)
    if span is None:
        raise InputError("expected --span START:END (seconds since the trace start)",
                         field="--span")
    if source is not None:
        generated = [options[k] for k in ("--per-week", "--nodes", "--hours", "--notice-hours")]
        if any(value is not None for value in generated):
            raise InputError("--from reads requests; --per-week, --nodes, --hours and "
                             "--notice-hours are for generating them", field="--from")
        requests = res.read_reservations(source, processors=procs)
    else:
        requests = res.generate_requests(
            span, per_week=res.PAPER_PER_WEEK if options["--per-week"] is None
            else options["--per-week"],
            nodes=parse_pair(options["--nodes"], "--nodes", int) or res.PAPER_NODES,
            duration=parse_pair(options["--hours"], "--hours", _hours) or res.PAPER_DURATION,
            notice=parse_pair(options["--notice-hours"], "--notice-hours", _hours)
            or res.DEFAULT_NOTICE,
            processors=procs, seed=seed)
    into = parse_pair(options["--into"], "--into", int)
    if into is not None:
        requests = res.compress_requests(requests, span, into)
    res.write_reservations(requests, output)
    console.print(f"wrote {output}: {len(requests)} reservation requests")


def _hours(text: str) -> int:
    """Hours (a decimal number) as whole seconds."""
    return round(float(text) * 3600)


def _write(workload: Workload, output: Path) -> None:
    """Write the workload as SWF and say what was written."""
    from schedlab.workload.swf import write_swf

    write_swf(workload, output)
    console.print(f"wrote {output}: {len(workload)} jobs ({workload.name}) "
                  f"on {workload.processors} processors")
