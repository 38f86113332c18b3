"""Hostile platform files, side files and options: one line naming what is wrong, exit code 2.

Each case here once ended in a traceback (exit 1), a silently wrong number, or an empty reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.platform import read_platform
from schedlab.workload.grid import read_grid_workload
from schedlab.workload.job import Job, Workload
from schedlab.workload.swf import write_swf

runner = CliRunner()

ONE_MACHINE = """\
[[clusters]]
name = "a"

[[clusters.machines]]
name = "m"
cpus = {cpus}
rating = {rating}
"""


def platform_error(tmp_path: Path, text: str) -> InputError:
    path = tmp_path / "P.toml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_platform(path)
    return caught.value


@pytest.mark.parametrize("cpus, rating, field", [
    (10**20, 1, "cpus"),              # beyond int64: was an OverflowError traceback
    (2**63 - 1, 1, "cpus"),           # fits int64, but two of them summed to -2 CPUs
    (4, 10**20, "rating"),
    (4, 2**62, "rating"),
])
def test_huge_cpus_or_rating_is_refused(tmp_path, cpus, rating, field):
    err = platform_error(tmp_path, ONE_MACHINE.format(cpus=cpus, rating=rating))
    assert err.field == f"clusters[0].machines[0].{field}"
    assert err.line == (6 if field == "cpus" else 7)
    assert "expected an integer <= 1000000000" in str(err)


def test_largest_cpus_and_rating_are_accepted(tmp_path):
    path = tmp_path / "P.toml"
    path.write_text(ONE_MACHINE.format(cpus=10**9, rating=10**9))
    assert read_platform(path).total_cpus == 10**9


def test_huge_licence_copies_is_refused(tmp_path):
    text = ONE_MACHINE.format(cpus=4, rating=1) + (
        '\n[[clusters.licences]]\nname = "x"\ncopies = 99999999999999999999\nmachines = "all"\n')
    err = platform_error(tmp_path, text)
    assert err.field == "clusters[0].licences[0].copies"
    assert "expected an integer <= 1000000000" in str(err)


@pytest.mark.parametrize("option, value, message", [
    ("--cpus", "1:99999999999999999999", "field cpus: expected integers LO:HI with 1 <= LO "
                                          "<= HI <= 1000000000"),
    ("--rating", "1:99999999999999999999", "field rating: expected integers LO:HI"),
    ("--licences", "1000000000", "field licences: expected a number of licence types from 0 "
                                 "to 500, got 1000000000"),
    ("--clusters", "100000000", "field clusters: expected at most 20000 machines in all"),
])
def test_platform_generate_refuses_sizes_it_cannot_draw(tmp_path, option, value, message):
    result = runner.invoke(app, ["platform", "generate", option, value,
                                 "-o", str(tmp_path / "P.toml")])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "P.toml").exists()


def test_platform_generate_into_a_directory(tmp_path):
    result = runner.invoke(app, ["platform", "generate", "-o", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path}: expected a file to write, found a directory" in result.output
    assert list(tmp_path.iterdir()) == []  # no temporary file left beside it


def test_missing_required_option_says_so():
    result = runner.invoke(app, ["platform", "generate"])
    assert result.exit_code == 2
    assert "schedlab: error: field --out: missing; this command needs --out" in result.output


# ------------------------------------------------------------------ the side file
HEADER = "job_id,rating,deadline,licences,class,owner_priority,input\n"


def grid_files(tmp_path: Path, row: str, runtime: int = 100) -> Path:
    swf = tmp_path / "jobs.swf"
    write_swf(Workload((Job(1, 10, runtime, runtime, 1),), processors=4, name="jobs"), swf)
    (tmp_path / "jobs.grid.csv").write_text(HEADER + row + "\n")
    return swf


def side_error(tmp_path: Path, row: str, runtime: int = 100) -> InputError:
    with pytest.raises(InputError) as caught:
        read_grid_workload(grid_files(tmp_path, row, runtime))
    return caught.value


@pytest.mark.parametrize("row, field, message", [
    ("1,99999999999999999999,,,regular,0,0", "rating",
     "expected an integer of magnitude at most 2**53"),
    ("1,2000000000,,,regular,0,0", "rating", "expected an integer 1..1000000000"),
    ("1,100,99999999999999999999,,regular,0,0", "deadline",
     "expected an integer of magnitude at most 2**53"),
    ("1,100,,,regular,0,99999999999999999999", "input",
     "expected an integer of magnitude at most 2**53"),
    # int() reads these, silently: 1_0 is 10 and '١' (Arabic-Indic one) is 1
    ("1,100,,,regular,1_0,0", "owner_priority", "expected an integer, got '1_0'"),
    ("1,100,,,regular,\u0661,0", "owner_priority", "expected an integer, got '\u0661'"),
    ("1_0,100,,,regular,0,0", "job_id", "expected an integer, got '1_0'"),
])
def test_side_file_integers_are_strict(tmp_path, row, field, message):
    err = side_error(tmp_path, row)
    assert (err.line, err.field) == (2, field)
    assert message in str(err)


def test_rating_times_runtime_must_stay_exact(tmp_path):
    err = side_error(tmp_path, "1,1000000000,,,regular,0,0", runtime=2**40)
    assert (err.line, err.field) == (2, "rating")
    assert "seconds x rating is" in str(err) and "expected at most 2**62" in str(err)


def test_side_file_with_a_byte_order_mark_is_read(tmp_path):
    swf = grid_files(tmp_path, "1,100,,,gold,0,0")
    side = tmp_path / "jobs.grid.csv"
    side.write_bytes(b"\xef\xbb\xbf" + side.read_bytes())
    assert read_grid_workload(swf).job(0).user_class == "gold"


def test_deadline_file_integers_are_strict(tmp_path):
    from schedlab.workload.deadlines import read_deadlines

    path = tmp_path / "d.csv"
    path.write_text("job_id,deadline\n1,99999999999999999999\n")
    with pytest.raises(InputError, match=r"d.csv:2: field deadline: expected an integer of "
                                         r"magnitude at most 2\*\*53"):
        read_deadlines(path, Workload((Job(1, 10, 100, 100, 1),), processors=4))


# ------------------------------------------------------------------ run parameters
def test_unbounded_parameter_refuses_infinity():
    from schedlab.engine.policy import check_number

    check_number("bf-mod", "deadline_k", 1e300, float, 1.0)
    with pytest.raises(InputError, match=r"must be a float in \[1.0, inf\). Got inf instead"):
        check_number("bf-mod", "deadline_k", float("inf"), float, 1.0)


@pytest.fixture
def grid_run(tmp_path, monkeypatch):
    """A small grid workload on the two-sites platform, in a scratch directory."""
    monkeypatch.chdir(tmp_path)
    platform = str(Path(__file__).resolve().parents[2] / "examples/platforms/two-sites.toml")
    result = runner.invoke(app, ["generate", "grid", "--platform", platform, "-n", "20",
                                 "--seed", "1", "-o", "jobs.swf"])
    assert result.exit_code == 0, result.output
    return platform


def test_grid_parameter_inf_is_refused(grid_run):
    # deadline_k=inf made every bf-mod priority NaN: a run with a silently meaningless order
    result = runner.invoke(app, ["simulate", "jobs.swf", "--platform", grid_run,
                                 "--policy", "bf-mod", "--param", "deadline_k=inf"])
    assert result.exit_code == 2, result.output
    assert "field --param deadline_k: expected a finite number, got 'inf'" in result.output


def test_huge_preemption_overhead_is_refused(grid_run):
    result = runner.invoke(app, ["simulate", "jobs.swf", "--platform", grid_run,
                                 "--policy", "cs", "--param", "preemption=true",
                                 "--preemption-overhead", str(10**20)])
    assert result.exit_code == 2, result.output
    assert "field --preemption-overhead: expected at most 2**53 seconds" in result.output


@pytest.mark.parametrize("option", [["--dispatch", "least-work"],
                                    ["--dispatch-param", "window=3"],
                                    ["--allocation", "exclusive"]])
def test_grid_options_without_platform_are_refused(grid_run, option):
    # they were silently ignored: the user believed the run used them
    result = runner.invoke(app, ["simulate", "jobs.swf", "--policy", "easy", *option])
    assert result.exit_code == 2, result.output
    assert (f"field {option[0]}: a space-sharing run takes no {option[0]}: a run on one machine "
            f"has no dispatcher, machines or preemption; a grid run (give --platform) does"
            in " ".join(result.output.split()))


def test_huge_integer_parameter_is_refused():
    # context_switch=10**20 ended in an OverflowError traceback after the whole run
    result = runner.invoke(app, ["simulate", "w3", "--jobs", "20", "--policy", "gang",
                                 "--param", f"context_switch={10**20}"])
    assert result.exit_code == 2, result.output
    assert ("field --param context_switch: expected an integer of magnitude at most 2**53"
            in result.output)


# ------------------------------------------------------------------ run directories
@pytest.fixture
def grid_run_dir(grid_run):
    result = runner.invoke(app, ["simulate", "jobs.swf", "--platform", grid_run,
                                 "--policy", "bf-fcfs", "--out", "run"])
    assert result.exit_code == 0, result.output
    return Path("run")


@pytest.mark.parametrize("command", [["report", "run"],
                                     ["plot", "run", "--kind", "shares", "--out", "x.png"],
                                     ["plot", "run", "--kind", "gantt", "--out", "x.png"]])
def test_jobs_table_cut_short_is_refused(grid_run_dir, command):
    jobs = grid_run_dir / "jobs.csv"
    jobs.write_text("\n".join(jobs.read_text().splitlines()[:5]) + "\n")
    result = runner.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert "run/jobs.csv: expected 20 jobs (metrics.json), found 4 rows" in result.output


@pytest.mark.parametrize("command", [["report", "run"],
                                     ["plot", "run", "--kind", "shares", "--out", "x.png"]])
def test_jobs_table_with_a_bad_value_is_refused(grid_run_dir, command):
    # was a TypeError traceback (report, shares) or a silently drawn chart (gantt)
    jobs = grid_run_dir / "jobs.csv"
    lines = jobs.read_text().splitlines()
    lines[2] = ",".join([lines[2].split(",")[0], "abc"] + lines[2].split(",")[2:])
    jobs.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert "run/jobs.csv:3: field submit: expected an integer, got 'abc'" in result.output


def test_gantt_of_a_gang_run_names_the_right_kinds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["simulate", "w3", "--jobs", "200", "--policy", "gang",
                                 "--param", "strategy=3", "--out", "gang"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["plot", "gang", "--kind", "gantt", "--out", "x.png"])
    assert result.exit_code == 2, result.output
    assert "--kind gantt cannot draw it; expected --kind matrix or --kind slots" in \
        result.output


@pytest.mark.parametrize("out, message", [("afile", "afile: expected an experiment directory, "
                                                    "found a file"),
                                          ("afile/sub", "afile/sub: cannot write the experiment "
                                                        "directory: Not a directory")])
def test_reproduce_grid_fb_into_a_file(tmp_path, monkeypatch, out, message):
    # the recipe that runs its own simulations ended in a NotADirectoryError traceback
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("keep me\n")
    result = runner.invoke(app, ["reproduce", "run", "grid-fb", "--reduced", "-j", "1",
                                 "--out", out])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert Path("afile").read_text() == "keep me\n"


def test_enriching_a_trace_without_estimates_warns(tmp_path, monkeypatch):
    # the estimates became the runtimes, written into the grid SWF where no later run can tell
    monkeypatch.chdir(tmp_path)
    platform = str(Path(__file__).resolve().parents[2] / "examples/platforms/two-sites.toml")
    Path("trace.swf").write_text("".join(
        f"{k} {10 * k} -1 {100 + k} 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n" for k in range(1, 6)))
    result = runner.invoke(app, ["generate", "grid", "--platform", platform, "--from",
                                 "trace.swf", "--seed", "1", "-o", "jobs.swf"])
    assert result.exit_code == 0, result.output
    assert "warning: trace has no requested times: every job's estimate is its runtime" in \
        result.output
    assert "machine size is guessed" not in result.output


def test_error_on_a_preset_platform_names_the_preset(grid_run):
    # the platform was called 'generated-seed0', a name the user never gave
    result = runner.invoke(app, ["simulate", "jobs.swf", "--platform", "thesis-5.2",
                                 "--policy", "bf-fcfs"])
    assert result.exit_code == 2, result.output
    assert "platform 'thesis-5.2-seed0'" in result.output


def test_reproduce_interrupted_says_how_to_resume(tmp_path, monkeypatch):
    # Ctrl-C ended with no word on what was kept; a sweep says it, so does a recipe now
    import schedlab.experiments.recipes as recipes

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(recipes, "reproduce", interrupted)
    result = runner.invoke(app, ["reproduce", "run", "grid-fb", "--out", str(tmp_path / "r")])
    assert result.exit_code == 130, result.output
    assert "interrupted; the runs finished so far are stored in" in result.output
    assert "Run the same command again to resume." in result.output


@pytest.mark.parametrize("out", ["", ".", ".swf", "adir"])
def test_generate_grid_into_a_directory_is_refused(tmp_path, monkeypatch, out):
    # --out "" ended in a ValueError traceback ("PosixPath('.') has an empty name")
    monkeypatch.chdir(tmp_path)
    Path("adir").mkdir()
    platform = str(Path(__file__).resolve().parents[2] / "examples/platforms/two-sites.toml")
    result = runner.invoke(app, ["generate", "grid", "--platform", platform, "-n", "5",
                                 "-o", out])
    assert result.exit_code == 2, result.output
    assert "expected an SWF file name such as jobs.swf" in " ".join(result.output.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
