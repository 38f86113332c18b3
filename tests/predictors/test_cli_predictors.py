"""``schedlab predictors`` and ``schedlab analyze --predict``: listing, accuracy tables,
bad input in one line with exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from real_traces import real_trace
from schedlab.cli.app import app
from schedlab.predictors import available_predictors

#: Two users; every job waited 0 s in the trace except job 2 (50 s).
SMALL_SWF = """\
; MaxProcs: 4
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 7 1 -1 -1 -1
2 10 50 50 4 -1 -1 4 100 -1 1 1 1 7 1 -1 -1 -1
3 200 0 30 1 -1 -1 1 100 -1 1 1 1 7 1 -1 -1 -1
4 210 0 20 1 -1 -1 1 40 -1 0 2 1 -1 1 -1 -1 -1
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), terminal_width=250)


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.swf").write_text(SMALL_SWF)
    return "small.swf"


def rows(text: str) -> dict[str, list[str]]:
    """Table rows of rich output: first cell -> the other cells."""
    found = {}
    for line in text.splitlines():
        if line.startswith("│"):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            found[cells[0]] = cells[1:]
    return found


def test_predictors_lists_every_predictor_with_its_parameters():
    result = invoke("predictors")
    assert result.exit_code == 0, result.output
    listed = {name for name in rows(result.stdout) if name}
    assert listed == set(available_predictors())
    assert "q=0.5 (0, 1): the quantile" in result.stdout
    assert "k=5 [1, 10000]: neighbours averaged" in result.stdout
    assert "'graded' doubles it" in result.stdout


def test_analyze_predict_prints_the_accuracy_beside_the_estimates(small: str):
    result = invoke("analyze", small, "--predict", "easy++", "--predict", "last",
                    "--out", "predictions.csv")
    assert result.exit_code == 0, result.output
    table = rows(result.stdout)
    # a = 100, 50, 30, 20; estimates 200, 100, 100, 40: errors 100, 50, 70, 20.  In the
    # trace's schedule job 1 ends at 100 and job 2 at 110 (it waited 50 s): easy++ predicts
    # (100 + 50) / 2 = 75 for job 3 (error 45), last 50 (error 20); user 2's job 4 gets its
    # estimate.
    assert table["mean absolute error [s]"] == ["60", "53.750", "47.500"]
    assert table["share underpredicted"] == ["0", "0", "0"]
    assert table["jobs corrected"] == ["0", "0", "0"]
    assert Path("predictions.csv").read_text().splitlines() == [
        "job_id,actual,estimate,easy++,last", "1,100,200,200,200", "2,50,100,100,100",
        "3,30,100,75,50", "4,20,40,40,40"]
    assert "the trace's own schedule" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--predict", "easy+"], "unknown predictor 'easy+' (did you mean 'easy++'?)"),
    (["--predict", "knn[k=0]"], "The 'k' parameter of predictor 'knn' must be an int in "
                                "[1, 10000]. Got 0 instead."),
    (["--predict", "user-quantile[q=2]"], "must be a float in (0, 1). Got 2 instead."),
    (["--predict", "knn[k="], "predictor spec 'knn[k=': expected NAME or NAME[KEY=VALUE,...]"),
    (["--predict", "last", "--predict", "last[correction=estimate]"],
     "predictor 'last' is given twice"),
    (["--out", "x.csv"], "--out writes the predictions of --predict: give --predict too"),
    (["--predict", "easy++", "--compare", "kth"], "--compare and --compare-trace do not go with it"),
])
def test_bad_input_is_one_line_and_exit_code_2(small: str, args: list[str], message: str):
    result = invoke("analyze", small, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("schedlab: error: ")
    assert message in result.stderr


def test_analyze_predict_on_kth():
    trace = real_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    result = invoke("analyze", str(trace), "--predict", "easy++", "--predict", "oracle")
    assert result.exit_code == 0, result.output
    table = rows(result.stdout)
    assert "27,992 jobs" in result.stdout
    estimate, easy, oracle = table["mean accuracy min(p,a)/max(p,a)"]
    assert float(estimate) < float(easy) < float(oracle) == 1
    assert table["share underpredicted"][2] == "0"


def test_predictor_names_complete_in_the_shell():
    from schedlab.cli.predictors import complete_predictor

    assert complete_predictor("e") == ["easy++", "estimate"]
    assert complete_predictor("") == sorted(available_predictors())
