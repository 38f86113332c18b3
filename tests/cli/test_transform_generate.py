"""``schedlab transform`` and ``schedlab generate`` end to end (CliRunner)."""

from __future__ import annotations

from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.workload.models import generate_builtin
from schedlab.workload.swf import read_swf

runner = CliRunner()

TRACE = """; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 8 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1
3 30 -1 20 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1
4 100 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
"""


def test_transform_applies_window_split_shrink_and_perfect_estimates(tmp_path):
    source = tmp_path / "in.swf"
    source.write_text(TRACE)
    out = tmp_path / "out.swf"
    result = runner.invoke(app, ["transform", str(source), "--out", str(out), "--window", "0:50",
                                 "--split", "4", "--shrink", "0.5", "--perfect-estimates"])
    assert result.exit_code == 0, result.output
    jobs = read_swf(out).jobs
    # window keeps jobs 1-3; job 2 (width 8) splits into 4 + 4 (new id 5 after the largest
    # id of the windowed workload); shrink 0.5 halves the gaps: 0, 10 -> 5, 30 -> 15.
    assert [(j.id, j.submit, j.width, j.estimate) for j in jobs] == [
        (1, 0, 4, 100), (2, 5, 4, 50), (4, 5, 4, 50), (3, 15, 2, 20)]


def test_transform_rejects_a_bad_window(tmp_path):
    source = tmp_path / "in.swf"
    source.write_text(TRACE)
    result = runner.invoke(app, ["transform", str(source), "-o", str(tmp_path / "o.swf"),
                                 "--window", "10"])
    assert result.exit_code == 2
    assert "--window" in result.output and "START:END" in result.output
    assert not (tmp_path / "o.swf").exists()


def test_generate_writes_the_builtin_model_reproducibly(tmp_path):
    out = tmp_path / "g.swf.gz"
    result = runner.invoke(app, ["generate", "lublin", "-n", "300", "--seed", "7", "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = read_swf(out)
    expected = generate_builtin("lublin", n_jobs=300, seed=7)
    assert written.processors == 128
    assert [(j.submit, j.runtime, j.estimate, j.width) for j in written.jobs] == \
        [(j.submit, j.runtime, j.estimate, j.width) for j in expected.jobs]


def test_generate_unknown_model_is_exit_2(tmp_path):
    result = runner.invoke(app, ["generate", "nosuchmodel", "-o", str(tmp_path / "x.swf")])
    assert result.exit_code == 2
    assert "nosuchmodel" in result.output and "lublin" in result.output
