"""``schedlab platform`` and ``schedlab generate grid`` end to end; the docs' commands run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.platform import read_platform
from schedlab.workload.grid import read_grid_workload

ROOT = Path(__file__).resolve().parents[2]
TWO_SITES = "examples/platforms/two-sites.toml"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def doc_commands(page: str) -> list[list[str]]:
    """The ``schedlab`` lines of a page's console blocks, split as a shell would."""
    text = (ROOT / "docs" / page).read_text()
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    return [shlex.split(line, comments=True)[1:] for block in blocks
            for line in block.splitlines() if line.startswith("schedlab ")]


def test_docs_commands_run_as_written(project):
    commands = doc_commands("reference/platform.md") + doc_commands("reference/models.md")
    assert len(commands) >= 8
    for args in commands:
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    assert len(read_platform("P.toml").machines) == 225
    assert len(read_grid_workload("jobs.swf", platform=read_platform("P.toml"))) == 5000


def test_docs_python_example_runs(project):
    text = (ROOT / "docs" / "reference" / "platform.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.S)[-1]
    exec(compile(code, "docs/reference/platform.md", "exec"), {})


def test_docs_example_is_the_shipped_file():
    text = (ROOT / "docs" / "reference" / "platform.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    assert block == (ROOT / TWO_SITES).read_text()


def test_show_prints_clusters_and_licences(project):
    result = run("platform", "show", TWO_SITES, "--machines")
    assert result.exit_code == 0, result.output
    assert "platform two-sites: 2 clusters, 5 machines, 34 CPUs, 3 licences" in result.output
    assert "2/2" in result.output and "feature on 1" in result.output
    assert "venezia-2" in result.output


def test_show_a_bad_platform_exits_2_naming_line_and_field(project):
    text = (project / TWO_SITES).read_text()
    Path("bad.toml").write_text(text.replace("cpus = 16", "cpus = 0"))
    result = run("platform", "show", "bad.toml")
    assert result.exit_code == 2
    line = next(k + 1 for k, l in enumerate(Path("bad.toml").read_text().splitlines())
                if l == "cpus = 0")
    assert f"bad.toml:{line}: field clusters[1].machines[0].cpus:" in result.output


def test_generate_is_deterministic(project):
    for out in ("a.toml", "b.toml"):
        assert run("platform", "generate", "--preset", "thesis-4.1", "--seed", "7",
                   "-o", out).exit_code == 0
    assert Path("a.toml").read_text() == Path("b.toml").read_text()
    for out in ("a.swf", "b.swf"):
        assert run("generate", "grid", "--platform", "a.toml", "-n", "300", "--ta", "6",
                   "--seed", "2", "-o", out).exit_code == 0
    assert Path("a.grid.csv").read_text() == Path("b.grid.csv").read_text()
    assert Path("a.swf").read_text().split("\n", 3)[3] == Path("b.swf").read_text().split(
        "\n", 3)[3]


@pytest.mark.parametrize("args, message", [
    (["generate", "grid", "-o", "x.swf"], "needs --platform"),
    (["generate", "grid", "--platform", TWO_SITES], "--out"),
    (["generate", "grid", "--platform", TWO_SITES, "--procs", "4", "-o", "x.swf"],
     "--procs"),
    (["generate", "grid", "--platform", TWO_SITES, "--set", "speed=1:2",
      "-o", "x.swf"], "KEY one of"),
    (["generate", "grid", "--platform", TWO_SITES, "--preset", "thesis-9",
      "-o", "x.swf"], "field --preset: expected one of thesis-4.1,"),
    (["generate", "lublin", "--platform", TWO_SITES, "-o", "x.swf"],
     "only for 'schedlab generate grid'"),
    (["platform", "generate", "--cpus", "8:2", "-o", "x.toml"], "LO <= HI"),
    (["platform", "generate", "--clusters", "a,b", "-o", "x.toml"], "machine counts"),
    (["platform", "show", "missing.toml"], "no such platform file"),
    (["generate", "grid", "--platform", TWO_SITES, "--from", "t.swf", "--ta", "5",
      "-o", "x.swf"], "--jobs and --ta do not apply"),
])
def test_bad_usage_exits_2(project, args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_show_jobs_checks_a_grid_workload_against_the_platform(project):
    assert run("generate", "grid", "--platform", TWO_SITES, "--preset",
               "thesis-4.1", "-n", "50", "--seed", "1", "-o", "small.swf").exit_code == 0
    result = run("platform", "show", TWO_SITES, "--workload", "small.swf")
    assert result.exit_code == 0, result.output
    assert "small.swf: 50 jobs fit platform two-sites" in result.output


SWF = "; MaxProcs: 64\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n" \
      "2 10 -1 100 32 -1 -1 32 200 -1 1 1 1 -1 1 -1 -1 -1\n"
HEADER = "job_id,rating,deadline,licences,class,owner_priority,input\n"


@pytest.mark.parametrize("swf, rows, where", [
    (SWF.replace(" 32 ", " 8 "), HEADER + "1,100,,ansys,gold,0,0\n2,100,,,gold,0,0\n",
     "j.grid.csv:2: field licences: job 1 needs licence 'ansys', which no cluster of platform "
     "'two-sites' has"),
    (SWF, HEADER + "1,100,,,gold,0,0\n2,100,,,gold,0,0\n",
     "j.swf: field requested processors: job 2 asks for 32 CPUs, more than any machine of "
     "platform 'two-sites' has (16)"),
    (SWF.replace(" 32 ", " 16 "), HEADER + "1,100,,,gold,0,0\n2,100,,fluent;matlab,"
     "gold,0,0\n", "j.grid.csv:3: field licences: no machine of platform 'two-sites' has 16 "
     "CPUs and can activate all of job 2's licences (fluent, matlab)"),
])
def test_show_jobs_that_do_not_fit_exits_2(project, swf, rows, where):
    Path("j.swf").write_text(swf)
    Path("j.grid.csv").write_text(rows)
    result = run("platform", "show", TWO_SITES, "--workload", "j.swf")
    assert result.exit_code == 2
    assert where in " ".join(result.output.split())
