"""Every input surface, fed hostile values: one line naming file/line/field or option, exit 2.

A table of cases, each a set of small files and a command run in-process
(typer's CliRunner).  A bad input must end with exit code 2 and exactly one
line on stderr, ``schedlab: error: ...``, that contains the expected words
(the file, line and field, or the option, and what was expected); never a
traceback, an internal error (exit 1) or a silently wrong result.  The
inputs a reader accepts by rule (a byte-order mark, CR-only or CRLF line
endings, fractional SWF times) must run, with exit code 0 and the same
schedule as the plain file.

Surfaces: the SWF reader, the sacct reader, platform TOML, the grid side
file, reservation CSV, deadline CSV, sweep TOML, the options of simulate,
compare, transform and sweep, and ``--param``.  Hostile values: huge
integers, negative values, NaN and infinities, other scripts' digits, a
byte-order mark, CR-only line ends, deep nesting and truncation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app

# ----------------------------------------------------------------- small inputs
SWF = """\
; Version: 2.2
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 -1 300 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
"""
#: Record 2 of SWF with one field replaced: ``swf_with(4, "abc")`` puts 'abc' in field 4.
RECORD_2 = SWF.splitlines()[3].split()


def swf_with(field_number: int, value: str, header: str = "; MaxProcs: 4") -> str:
    record = list(RECORD_2)
    record[field_number - 1] = value
    lines = SWF.splitlines()
    return "\n".join([lines[0], header, lines[2], " ".join(record), lines[4]]) + "\n"


SACCT_HEADER = ("JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|AllocCPUS|ReqCPUS|State|"
                "User|Group|Partition")


def sacct(row: str) -> str:
    ok = "1|100|110|210|00:01:40|00:05:00|2|1|2|2|COMPLETED|a|b|p"
    return f"{SACCT_HEADER}\n{ok}\n{row}\n"


SACCT_ROW = "2|120|130|230|00:01:40|{limit}|2|1|{cpus}|2|COMPLETED|a|b|p"

PLATFORM = """\
[[clusters]]
name = "pisa"

[[clusters.machines]]
name = "pisa-1"
cpus = {cpus}
rating = {rating}
"""
SIDE_HEADER = "job_id,rating,deadline,licences,class,owner_priority,input\n"
SIDE_ROWS = ("1,100,,,regular,0,0\n2,100,,,regular,0,0\n3,100,,,regular,0,0\n")
RESERVATIONS = "id,created,start,duration,nodes\n1,0,50,100,2\n"
DEADLINES = "job_id,deadline\n1,500\n"
SWEEP = """\
name = "h"
{top}
[[workloads]]
source = "lublin"
jobs = {jobs}

{transforms}

[[policies]]
name = "fcfs"
"""


def sweep(top: str = "", jobs: str = "20", transforms: str = "") -> str:
    return SWEEP.format(top=top, jobs=jobs, transforms=transforms)


GRID_SWEEP = """\
name = "g"
seeds = [0]

[[platforms]]
source = "thesis-4.3"
settings = {{ clusters = [2, 1] }}

[[workloads]]
source = "grid"
preset = "thesis-4.3"
jobs = {jobs}
ta = [{ta}]

[[policies]]
name = "bf-fcfs"
"""


BOM = "\ufeff"


def cr_only(text: str) -> str:
    return text.replace("\n", "\r")


@dataclass(frozen=True)
class Case:
    """Files to write into a fresh directory, the command (``{d}`` is that directory) and
    what stderr must say (``None``: the input is accepted and the command succeeds)."""

    id: str
    argv: tuple[str, ...]
    says: str | None
    files: dict[str, str | bytes] = field(default_factory=dict)


def simulate_swf(text: str, says: str | None, *options: str, id: str) -> Case:
    return Case(id, ("simulate", "{d}/t.swf", *options), says, {"t.swf": text})


def simulate_opt(id: str, says: str, *options: str) -> Case:
    return Case(id, ("simulate", "{d}/t.swf", *options), says, {"t.swf": SWF})


def grid_case(id: str, says: str | None, platform: str | None = None,
              side: str | None = None) -> Case:
    return Case(id, ("simulate", "{d}/jobs.swf", "--platform", "{d}/p.toml"), says,
                {"jobs.swf": SWF, "p.toml": platform or PLATFORM.format(cpus=4, rating=100),
                 "jobs.grid.csv": side if side is not None else SIDE_HEADER + SIDE_ROWS})


def reservation_case(id: str, text: str, says: str | None) -> Case:
    return Case(id, ("simulate", "{d}/t.swf", "-p", "conservative", "--reservations",
                     "{d}/r.csv"), says, {"t.swf": SWF, "r.csv": text})


def deadline_case(id: str, text: str, says: str | None) -> Case:
    return Case(id, ("simulate", "{d}/t.swf", "-p", "qops", "--deadlines", "{d}/d.csv"), says,
                {"t.swf": SWF, "d.csv": text})


def sweep_case(id: str, text: str, says: str | None) -> Case:
    return Case(id, ("sweep", "{d}/s.toml", "--out", "{d}/out", "--workers", "1"), says,
                {"s.toml": text})


DEEP = "[" * 500 + "1" + "]" * 500

CASES = [
    # ------------------------------------------------------------------ SWF reader
    simulate_swf(swf_with(4, "99999999999999999999"), "t.swf:4: field 4 (run time): expected a "
                 "number of magnitude at most 2**53", id="swf-huge-runtime"),
    simulate_swf(swf_with(1, "-3"), "t.swf:4: field 1 (job number): expected a job number >= 0",
                 id="swf-negative-job-number"),
    simulate_swf(swf_with(4, "nan"), "t.swf:4: field 4 (run time): expected a number, got 'nan'",
                 id="swf-nan"),
    simulate_swf(swf_with(9, "inf"), "t.swf:4: field 9 (requested time): expected a number",
                 id="swf-inf"),
    simulate_swf(swf_with(5, "\u0664"), "t.swf:4: field 5 (allocated processors): expected a "
                 "number", id="swf-arabic-digit"),
    simulate_swf(SWF[:-30] + "\n", "t.swf:5: field", id="swf-truncated-record"),
    simulate_swf(swf_with(4, "50", header="; MaxProcs: 1000000000000000000000"),
                 "t.swf:2: field MaxProcs: expected an integer <= 2**31", id="swf-huge-maxprocs"),
    simulate_swf(swf_with(4, "50", header="; MaxProcs: \u0664"),
                 "t.swf:2: field MaxProcs: expected an integer, got", id="swf-arabic-maxprocs"),
    simulate_swf(swf_with(4, "50", header="; MaxProcs: -4"),
                 "t.swf:2: field MaxProcs: expected a machine size > 0", id="swf-negative-maxprocs"),
    simulate_swf("; MaxProcs: 2147483648\n" + " ".join(
        ["1", "0", "-1", str(2**50), str(2**30), "-1", "-1", str(2**30), str(2**50)]
        + ["-1"] * 9) + "\n", "field --procs: 2147483648 processors x 1125899906842624 s (the "
        "latest a schedule of these jobs can end)", id="swf-processor-seconds-beyond-int64"),
    simulate_swf(BOM + SWF, None, id="swf-bom-accepted"),
    simulate_swf(cr_only(SWF), None, id="swf-cr-only-accepted"),
    simulate_swf(SWF.replace("\n", "\r\n"), None, id="swf-crlf-accepted"),
    simulate_swf(swf_with(4, "50.5"), None, id="swf-fractional-time-accepted"),
    simulate_swf("\0\1\2" * 100, "t.swf: not an SWF text file", id="swf-binary"),
    # ------------------------------------------------------------------ sacct reader
    Case("sacct-huge-timelimit", ("simulate", "{d}/j.sacct"), "j.sacct:3: field Timelimit: "
         "expected an integer <= 2**53", {"j.sacct": sacct(SACCT_ROW.format(
             limit="99999999999999999999-00:00:00", cpus=2))}),
    Case("sacct-arabic-cpus", ("simulate", "{d}/j.sacct"), "j.sacct:3: field AllocCPUS: "
         "expected a whole number of CPUs", {"j.sacct": sacct(SACCT_ROW.format(
             limit="00:05:00", cpus="\u0661\u0662"))}),
    Case("sacct-negative-cpus", ("simulate", "{d}/j.sacct"), "j.sacct:3: field AllocCPUS: "
         "expected a whole number of CPUs", {"j.sacct": sacct(SACCT_ROW.format(
             limit="00:05:00", cpus="-2"))}),
    Case("sacct-huge-cpus", ("simulate", "{d}/j.sacct"), "j.sacct:3: field AllocCPUS: "
         "expected an integer of magnitude at most", {"j.sacct": sacct(SACCT_ROW.format(
             limit="00:05:00", cpus="99999999999999999999"))}),
    Case("sacct-arabic-time", ("simulate", "{d}/j.sacct"), "j.sacct:3: field Submit: expected "
         "a time", {"j.sacct": sacct("2|\u0661\u0662|130|230|00:01:40|00:05:00|2|1|2|2|"
                                     "COMPLETED|a|b|p")}),
    Case("sacct-truncated-line", ("simulate", "{d}/j.sacct"), "j.sacct:3: expected 14 fields",
         {"j.sacct": sacct("2|120|130")}),
    Case("sacct-bom-accepted", ("simulate", "{d}/j.sacct"), None,
         {"j.sacct": BOM + sacct(SACCT_ROW.format(limit="00:05:00", cpus=2))}),
    Case("sacct-cr-only-accepted", ("simulate", "{d}/j.sacct"), None,
         {"j.sacct": cr_only(sacct(SACCT_ROW.format(limit="00:05:00", cpus=2)))}),
    # ------------------------------------------------------------------ platform TOML
    grid_case("platform-huge-cpus", "p.toml:6: field clusters[0].machines[0].cpus: machine "
              "'pisa-1': expected an integer <= 1000000000",
              platform=PLATFORM.format(cpus=10**30, rating=100)),
    grid_case("platform-negative-cpus", "p.toml:6: field clusters[0].machines[0].cpus",
              platform=PLATFORM.format(cpus=-4, rating=100)),
    grid_case("platform-nan-rating", "p.toml:7: field clusters[0].machines[0].rating",
              platform=PLATFORM.format(cpus=4, rating="nan")),
    grid_case("platform-inf-rating", "p.toml:7: field clusters[0].machines[0].rating",
              platform=PLATFORM.format(cpus=4, rating="inf")),
    grid_case("platform-duplicate-machine", "p.toml:9: field clusters[0].machines[1].name: "
              "cluster 'pisa' has two machines named 'pisa-1'",
              platform=PLATFORM.format(cpus=4, rating=100) + PLATFORM.format(
                  cpus=4, rating=100).split("\n\n", 1)[1]
              + '\n[[clusters.licences]]\nname = "gaussian"\ncopies = 1\nmachines = "all"\n'),
    grid_case("platform-deep-nesting", "p.toml: arrays or tables nested more than 32 deep",
              platform=f"x = {DEEP}\n"),
    grid_case("platform-truncated", "p.toml:5: not valid TOML",
              platform=PLATFORM.format(cpus=4, rating=100)[:60]),
    grid_case("platform-bom-accepted", None, platform=BOM + PLATFORM.format(cpus=4, rating=100)),
    grid_case("platform-cr-only-accepted", None,
              platform=cr_only(PLATFORM.format(cpus=4, rating=100))),
    # ------------------------------------------------------------------ grid side file
    grid_case("side-huge-rating", "jobs.grid.csv:2: field rating: expected an integer of "
              "magnitude at most 2**53", side=SIDE_HEADER + "1,99999999999999999999,,,regular,0,0\n"
              + SIDE_ROWS.split("\n", 1)[1]),
    grid_case("side-arabic-job-id", "jobs.grid.csv:2: field job_id: expected an integer",
              side=SIDE_HEADER + "\u0661,100,,,regular,0,0\n" + SIDE_ROWS.split("\n", 1)[1]),
    grid_case("side-negative-input", "jobs.grid.csv:2: field input: expected an integer >= 0",
              side=SIDE_HEADER + "1,100,,,regular,0,-5\n" + SIDE_ROWS.split("\n", 1)[1]),
    grid_case("side-truncated-row", "jobs.grid.csv:2: expected 7 fields",
              side=SIDE_HEADER + "1,100\n" + SIDE_ROWS.split("\n", 1)[1]),
    grid_case("side-bom-accepted", None, side=BOM + SIDE_HEADER + SIDE_ROWS),
    grid_case("side-cr-only-accepted", None, side=cr_only(SIDE_HEADER + SIDE_ROWS)),
    # ------------------------------------------------------------------ reservation CSV
    reservation_case("reservation-huge-duration", "id,created,start,duration,nodes\n"
                     "1,0,50,99999999999999999999999,2\n", "r.csv:2: field duration: expected an "
                     "integer of magnitude at most 2**53"),
    reservation_case("reservation-arabic-nodes", "id,created,start,duration,nodes\n"
                     "1,0,50,100,\u0661\u0662\n", "r.csv:2: field nodes: expected an integer, got"),
    reservation_case("reservation-extra-fields", "id,created,start,duration,nodes\n"
                     "1,0,50,100,2,7,8\n", "r.csv:2: expected 5 fields, got 7"),
    reservation_case("reservation-truncated-row", "id,created,start,duration,nodes\n1,0,50\n",
                     "r.csv:2: expected 5 fields, got 3"),
    reservation_case("reservation-negative-duration", "id,created,start,duration,nodes\n"
                     "1,0,50,-100,2\n", "r.csv:2: field duration: expected a duration > 0"),
    reservation_case("reservation-nan-start", "id,created,start,duration,nodes\n"
                     "1,0,nan,100,2\n", "r.csv:2: field start: expected an integer, got 'nan'"),
    reservation_case("reservation-bom-accepted", BOM + RESERVATIONS, None),
    reservation_case("reservation-cr-only-accepted", cr_only(RESERVATIONS), None),
    # ------------------------------------------------------------------ deadline CSV
    deadline_case("deadline-huge", "job_id,deadline\n1,99999999999999999999\n",
                  "d.csv:2: field deadline: expected an integer of magnitude at most 2**53"),
    deadline_case("deadline-arabic", "job_id,deadline\n1,\u0665\u0660\u0660\n",
                  "d.csv:2: field deadline: expected an integer, got"),
    deadline_case("deadline-nan", "job_id,deadline\n1,nan\n",
                  "d.csv:2: field deadline: expected an integer, got 'nan'"),
    deadline_case("deadline-truncated-row", "job_id,deadline\n1\n",
                  "d.csv:2: field job_id: expected 2 fields"),
    deadline_case("deadline-bom-accepted", BOM + DEADLINES, None),
    deadline_case("deadline-cr-only-accepted", cr_only(DEADLINES), None),
    # ------------------------------------------------------------------ sweep TOML
    sweep_case("sweep-huge-seed", sweep(top="seeds = [100000000000000000000]"),
               "s.toml: field seeds[0]: expected an integer <= 2**63 - 1"),
    sweep_case("sweep-negative-seed", sweep(top="seeds = [-1]"),
               "s.toml: field seeds[0]: expected an integer >= 0, got -1"),
    sweep_case("sweep-huge-processors", sweep(top="processors = [100000000000000000000]"),
               "s.toml: field processors[0]: expected an integer <= 2**31"),
    sweep_case("sweep-huge-jobs", sweep(jobs="100000000000000000000"),
               "s.toml: field workloads[0].jobs: expected an integer <= 2**22"),
    sweep_case("sweep-stringency-out-of-range", sweep(transforms="[transforms]\n"
                                                      "stringency = [0.5, 2]"),
               "s.toml: field transforms.stringency[1]: The 'stringency' parameter"),
    sweep_case("sweep-nan-shrink", sweep(transforms="[transforms]\nshrink = nan"),
               "s.toml: field transforms.shrink: expected a finite number > 0, got float nan"),
    sweep_case("sweep-inf-load", sweep(transforms="[transforms]\nload = inf"),
               "s.toml: field transforms.load: expected a finite number > 0, got float inf"),
    sweep_case("sweep-load-below-one", sweep(transforms="[transforms]\nload = 0.5"),
               "s.toml: field transforms.load: expected a finite number >= 1, got 0.5"),
    sweep_case("sweep-huge-load", sweep(transforms="[transforms]\nload = 1e9"),
               "s.toml: field transforms.load: expected a number <= 4194304"),
    sweep_case("sweep-fraction-without-stringency", sweep(
        transforms="[transforms]\ndeadline_fraction = 0.5"),
        "s.toml: field transforms.stringency: transforms.deadline_fraction and "
        "transforms.relaxation need transforms.stringency"),
    sweep_case("sweep-deep-nesting", sweep(transforms=f"[transforms]\nshrink = {DEEP}"),
               "s.toml: arrays or tables nested more than 32 deep"),
    sweep_case("sweep-truncated", sweep()[:40], "s.toml:4: not valid TOML"),
    sweep_case("sweep-huge-split", sweep(transforms="[transforms]\nsplit = 99999999999999999999"),
               "s.toml: field transforms.split: expected an integer <= 2**53"),
    sweep_case("sweep-huge-reservation-rate", sweep(transforms="[reservations]\nper_week = 1e300"),
               "s.toml: field reservations.per_week: expected at most 4194304 requests per week"),
    sweep_case("sweep-huge-reservation-hours", sweep(
        transforms="[reservations]\nper_week = 2\nhours = [1, 100000000000000000000]"),
        "s.toml: field reservations.hours: expected 1 <= LOW <= HIGH <= 2501999792983"),
    sweep_case("sweep-huge-reservation-tick", sweep(
        transforms="[reservations]\nper_week = 2\ntick = 100000000000000000000"),
        "s.toml: field reservations.tick: expected an integer <= 2**53"),
    sweep_case("sweep-huge-reservation-days", sweep(
        transforms="[reservations]\nper_week = 2\ndays = 1e300"),
        "s.toml: field reservations.days: expected at most 104249991374 days"),
    sweep_case("sweep-huge-reservation-compress", sweep(
        transforms="[reservations]\nper_week = 2\ncompress = { from_days = 1e300, "
        "into_days = 1 }"),
        "s.toml: field reservations.compress.from_days: expected at most 104249991374 days"),
    sweep_case("sweep-reservation-rate-over-days", sweep(
        transforms="[reservations]\nper_week = 4000000\ndays = 365"),
        "s.toml: field reservations.days: 4e+06 requests per week over 365 days make 208571429 "
        "requests; expected at most 4194304"),
    sweep_case("sweep-reservations-none-drawn-accepted", sweep(
        transforms="[reservations]\nper_week = 2"), None),
    sweep_case("grid-sweep-huge-ta", GRID_SWEEP.format(jobs=20, ta="1e300"),
               "s.toml: field workloads[0].ta[0]: expected a mean interarrival time x jobs of "
               "at most 2**48 s"),
    sweep_case("grid-sweep-huge-jobs", GRID_SWEEP.format(jobs=10**11, ta=400),
               "s.toml: field workloads[0].jobs: expected an integer <= 2**22"),
    sweep_case("grid-sweep-accepted", GRID_SWEEP.format(jobs=20, ta=400), None),
    sweep_case("sweep-bom-accepted", BOM + sweep(), None),
    sweep_case("sweep-cr-only-accepted", cr_only(sweep()), None),
    # ------------------------------------------------------------------ options
    simulate_opt("opt-huge-procs", "field --procs: expected an integer <= 2**31",
                 "--procs", "100000000000000000000"),
    simulate_opt("opt-zero-procs", "field --procs: expected a number of processors >= 1",
                 "--procs", "0"),
    simulate_opt("opt-arabic-procs", "field --procs: expected an integer, got", "--procs",
                 "\u0661\u0662"),
    simulate_opt("opt-underscore-procs", "field --procs: expected an integer, got '1_000'",
                 "--procs", "1_000"),
    simulate_opt("opt-forty-digit-procs", "field --procs: expected an integer of at most 40 "
                 "digits", "--procs", "9" * 5000),
    Case("opt-zero-jobs", ("simulate", "lublin", "-n", "0"),
         "field --jobs/-n: expected an integer >= 1, got 0"),
    Case("opt-huge-jobs", ("simulate", "lublin", "-n", "100000000000"),
         "field --jobs/-n: expected an integer <= 2**22"),
    Case("opt-negative-seed", ("simulate", "lublin", "-n", "100", "--seed", "-1"),
         "field --seed: expected an integer >= 0, got -1"),
    Case("opt-huge-seed", ("simulate", "lublin", "-n", "100", "--seed", "9" * 30),
         "field --seed: expected an integer <= 2**63 - 1"),
    simulate_opt("opt-huge-load", "field --load: expected a number <= 4194304", "--load",
                 "1000000000"),
    simulate_opt("opt-load-makes-too-many-jobs", "field --load: a load of 2e+06 makes 6000000 "
                 "jobs of 3; expected at most 2**22", "--load", "2000000"),
    simulate_opt("opt-nan-load", "field --load: expected a finite number", "--load", "nan"),
    simulate_opt("opt-inf-load", "field --load: expected a finite number", "--load", "inf"),
    simulate_opt("opt-overflowing-load", "field --load: expected a finite number", "--load",
                 "1e999"),
    simulate_opt("opt-huge-expansion", "field --load: stretching by 1e+15 puts times up to",
                 "--load", "1e15", "--load-method", "expand"),
    simulate_opt("opt-zero-shrink", "field --shrink: expected a finite number > 0, got 0.0",
                 "--shrink", "0"),
    simulate_opt("opt-negative-shrink", "field --shrink: expected a finite number > 0",
                 "--shrink", "-1"),
    simulate_opt("opt-huge-shrink", "field --shrink: expected a number <= 2**53", "--shrink",
                 "1e300"),
    simulate_opt("opt-arabic-shrink", "field --shrink: expected a finite number (ASCII digits)",
                 "--shrink", "\u0661"),
    simulate_opt("opt-stringency-out-of-range", "field --stringency: The 'stringency' "
                 "parameter of the deadline assignment must be a finite number in [0, 1]",
                 "-p", "qops", "--stringency", "2"),
    simulate_opt("opt-fraction-out-of-range-without-relaxation", "field --deadline-fraction: "
                 "The 'fraction' parameter", "-p", "qops", "--stringency", "0.5",
                 "--deadline-fraction", "2"),
    simulate_opt("opt-negative-relaxation", "field --relaxation: The 'relaxation' parameter",
                 "-p", "qops", "--stringency", "0.5", "--deadline-fraction", "0.5",
                 "--relaxation", "-1"),
    simulate_opt("opt-huge-relaxation", "field --relaxation: expected a number <= 2**53",
                 "-p", "qops", "--stringency", "0.5", "--deadline-fraction", "0.5",
                 "--relaxation", "1e300"),
    Case("transform-zero-split", ("transform", "{d}/t.swf", "--split", "0", "-o", "{d}/o.swf"),
         "field --split: expected an integer >= 1, got 0", {"t.swf": SWF}),
    simulate_opt("opt-negative-tick", "field --tick", "--tick", "-1"),
    simulate_opt("opt-negative-max-queued", "field --max-queued-per-user", "-p", "conservative",
                 "--max-queued-per-user", "-1"),
    Case("transform-bad-window", ("transform", "{d}/t.swf", "--window", "\u0661:\u0662", "-o",
                                  "{d}/o.swf"), "field --window: expected START:END in whole "
         "seconds", {"t.swf": SWF}),
    Case("reservation-huge-cap", ("simulate", "{d}/t.swf", "-p", "conservative",
                                  "--reservations", "{d}/r.csv", "--reservation-cap", "9" * 30),
         "field --reservation-cap", {"t.swf": SWF, "r.csv": RESERVATIONS}),
    Case("reservation-negative-window", ("simulate", "{d}/t.swf", "-p", "conservative",
                                         "--reservations", "{d}/r.csv", "--reservation-window",
                                         "-5"),
         "field --reservation-window", {"t.swf": SWF, "r.csv": RESERVATIONS}),
    simulate_opt("param-huge-integer", "field --param k: expected an integer of magnitude at "
                 "most 2**53", "-p", "qops", "--param", "k=100000000000000000000"),
    simulate_opt("param-arabic-digits", "field --param k: The 'k' parameter of QoPS must be an int",
                 "-p", "qops", "--param", "k=\u0661\u0662"),
    simulate_opt("param-infinite", "field --param k: expected a finite number, got '1e999'",
                 "-p", "qops", "--param", "k=1e999"),
    simulate_opt("param-nan", "field --param k: expected a finite number, got 'nan'", "-p",
                 "qops", "--param", "k=nan"),
    simulate_opt("param-negative", "field --param k: The 'k' parameter of QoPS must be an int", "-p",
                 "qops", "--param", "k=-5"),
    Case("compare-param-huge", ("compare", "{d}/t.swf", "--policies",
                                "qops[k=100000000000000000000]"),
         "field --policies: policy spec 'qops[k=100000000000000000000]': expected an integer "
         "of magnitude at most 2**53", {"t.swf": SWF}),
    Case("compare-huge-procs", ("compare", "{d}/t.swf", "--policies", "fcfs", "--procs",
                                "100000000000000000000"), "field --procs: expected an integer "
         "<= 2**31", {"t.swf": SWF}),
    Case("generate-huge-jobs", ("generate", "lublin", "-n", "100000000000", "-o", "{d}/g.swf"),
         "field --jobs/-n: expected an integer <= 2**22"),
    Case("generate-negative-seed", ("generate", "lublin", "-n", "10", "--seed", "-1", "-o",
                                    "{d}/g.swf"), "field --seed: expected an integer >= 0"),
    Case("generate-huge-procs", ("generate", "lublin", "-n", "10", "--procs", "9" * 25, "-o",
                                 "{d}/g.swf"), "field --procs: expected an integer <= 2**31"),
    Case("platform-generate-negative-seed", ("platform", "generate", "-o", "{d}/p.toml",
                                             "--seed", "-1"),
         "field --seed: expected an integer >= 0, got -1"),
    Case("analyze-huge-procs", ("analyze", "{d}/t.swf", "--procs", "9" * 25),
         "t.swf: field processors: expected an integer <= 2**31", {"t.swf": SWF}),
    Case("sweep-huge-workers", ("sweep", "{d}/s.toml", "--out", "{d}/out", "--workers",
                                "100000000"), "field --workers: expected an integer <= 1024",
         {"s.toml": sweep()}),
    Case("sweep-negative-workers", ("sweep", "{d}/s.toml", "--out", "{d}/out", "--workers",
                                    "-1"), "field --workers", {"s.toml": sweep()}),
]

#: What the cases tried and how many were handled cleanly, printed by the last test.
TALLY: dict[str, bool] = {}


def run_case(case: Case, directory: Path):
    for name, content in case.files.items():
        path = directory / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    argv = [part.replace("{d}", str(directory)) for part in case.argv]
    return CliRunner().invoke(app, argv)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_input_is_one_line_and_exit_2(case: Case, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_case(case, tmp_path)
    lines = result.stderr.splitlines()
    if case.says is None:
        clean = result.exit_code == 0 and "Traceback" not in result.output
        TALLY[case.id] = clean
        assert clean, result.output
        return
    clean = (result.exit_code == 2 and len(lines) == 1 and "Traceback" not in result.output
             and lines[0].startswith("schedlab: error: ") and case.says in lines[0])
    TALLY[case.id] = clean
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("schedlab: error: ")
    assert case.says in lines[0], lines[0]


def test_accepted_encodings_give_the_plain_schedule(tmp_path: Path) -> None:
    """A byte-order mark, CR-only or CRLF line ends change nothing in what is simulated."""
    outputs = []
    for name, text in (("plain", SWF), ("bom", BOM + SWF), ("cr", cr_only(SWF)),
                       ("crlf", SWF.replace("\n", "\r\n"))):
        (tmp_path / f"{name}.swf").write_bytes(text.encode("utf-8"))
        result = CliRunner().invoke(app, ["simulate", str(tmp_path / f"{name}.swf"), "--out",
                                          str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        outputs.append((tmp_path / name / "jobs.csv").read_text())
    assert outputs[1:] == outputs[:1] * 3


def test_a_cr_only_trace_of_200_records_is_read_whole(tmp_path: Path) -> None:
    """CR-only line ends (classic Mac OS) were read as one line: "no job records"."""
    from schedlab.workload.swf import read_swf

    records = [f"{k} {10 * k} -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1" for k in range(1, 201)]
    (tmp_path / "cr.swf").write_bytes(("; MaxProcs: 8\r" + "\r".join(records) + "\r").encode())
    workload = read_swf(tmp_path / "cr.swf")
    assert len(workload) == 200 and workload.jobs[-1].submit == 2000


def test_a_bad_value_in_the_last_sweep_combination_stops_before_any_run(tmp_path: Path) -> None:
    """Every combination is checked before the first run: nothing is stored."""
    (tmp_path / "s.toml").write_text(sweep(transforms="[transforms]\nstringency = [0, 0.5, 2]"))
    result = CliRunner().invoke(app, ["sweep", str(tmp_path / "s.toml"), "--out",
                                      str(tmp_path / "out"), "--workers", "1"])
    assert result.exit_code == 2
    assert "field transforms.stringency[2]" in result.stderr
    assert not (tmp_path / "out").exists()


def test_fractional_times_are_truncated_and_counted(tmp_path: Path) -> None:
    """Run time 50.5 -> 50 s (docs/reference/workloads.md), with one warning giving the count."""
    (tmp_path / "t.swf").write_text(swf_with(4, "50.5"))
    result = CliRunner().invoke(app, ["simulate", str(tmp_path / "t.swf"), "--out",
                                      str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert ("warning: t: 1 records have fractional times (fields 2, 4 or 9), truncated to "
            "whole seconds (docs/reference/workloads.md)") in result.stderr
    rows = (tmp_path / "o" / "jobs.csv").read_text().splitlines()
    header = rows[0].split(",")
    job_2 = dict(zip(header, rows[2].split(",")))
    assert job_2["job_id"] == "2" and job_2["runtime"] == "50"


def test_every_bad_input_was_handled_cleanly() -> None:
    """The tally of the table (run after it): bad inputs tried / handled cleanly."""
    if len(TALLY) < len(CASES):
        pytest.skip("run with the whole table (the tally needs every case)")
    bad = [case.id for case in CASES if case.says is not None]
    clean = [name for name in bad if TALLY[name]]
    print(f"hostile inputs: {len(bad)} bad inputs tried, {len(clean)} handled cleanly; "
          f"{len(CASES) - len(bad)} accepted inputs run")
    assert clean == bad


# ------------------------------------------------------------------ the shared pieces
def test_parse_int_reads_ascii_digits_only() -> None:
    from schedlab.errors import InputError
    from schedlab.textio import parse_int

    assert parse_int("-12", field="f") == -12 and parse_int(str(2**53), field="f") == 2**53
    for text in ("\u0661\u0662", "1_000", " 12", "12.0", "", "+"):
        with pytest.raises(InputError, match="expected an integer, got"):
            parse_int(text, field="f")
    with pytest.raises(InputError, match="magnitude at most 2\\*\\*53"):
        parse_int(str(2**53 + 1), field="f")


def test_toml_nesting_is_accepted_to_32_levels_and_refused_beyond() -> None:
    from schedlab.errors import InputError
    from schedlab.tomlio import MAX_DEPTH, parse_toml

    # the document itself is the first level
    assert parse_toml("x = " + "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1), "f")
    with pytest.raises(InputError, match="nested more than 32 deep"):
        parse_toml("x = " + "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH, "f")


def test_byte_order_mark_and_line_endings_are_normalized() -> None:
    from schedlab.textio import normalize_bytes

    assert normalize_bytes(b"\xef\xbb\xbfa\r\nb\rc\n") == b"a\nb\nc\n"
    assert normalize_bytes(b"a\nb") == b"a\nb"
