"""The predictions reproduction (Tsafrir, Etsion & Feitelson 2007): the reduced recipe end to
end on the first 5,000 jobs of KTH-SP2, and how stored runs are told apart."""

from __future__ import annotations

import pandas as pd
import pytest

from real_traces import real_trace
from schedlab.experiments.recipes import get_recipe, reproduce
from schedlab.experiments.recipes import predictions as recipe


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    real_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    out = tmp_path_factory.mktemp("predictions") / "reduced"
    return out, reproduce("predictions", out, reduced=True, executor="serial")


def test_the_reduced_form_reproduces_the_papers_directions(reduced):
    _out, reproduction = reduced
    assert [f.holds for f in reproduction.findings] == [True, True, True, True]
    table = pd.read_csv(reproduction.tables["results"])
    assert len(table) == 2 * 6                    # two loads, six schedulers
    easy = table[table["scheduler"] == recipe.EASY]
    plus = table[table["scheduler"] == recipe.EASY_PLUS_PLUS]
    assert (easy["prediction_corrections"] == 0).all()
    assert (plus["prediction_corrections"] > 1000).all() and (plus["broken_reservations"] > 0).all()
    # the oracle plans with the runtimes: on KTH-SP2, where no job outlives its estimate,
    # exactly what perfect estimates do
    oracle = table[table["scheduler"] == "EASY, oracle predictions"]
    perfect = table[table["scheduler"] == recipe.PERFECT]
    assert oracle["avg_wait"].tolist() == perfect["avg_wait"].tolist()
    assert set(reproduction.figures) == {"avg_bsld_60", "avg_wait"}


def test_a_stored_run_is_named_from_its_parameters():
    line = recipe.line_of
    assert line(pd.Series({"param.predictor": "estimate"})) == recipe.EASY
    assert line(pd.Series({"param.predictor": "easy++", "param.backfill_order": "sjbf"})) == \
        recipe.EASY_PLUS_PLUS
    assert line(pd.Series({"param.predictor": "knn", "param.backfill_order": "queue"})) == \
        "EASY, knn predictions"
    assert line(pd.Series({"param.predictor": "estimate",
                           "transform.perfect_estimates": True})) == recipe.PERFECT


def test_the_full_form_sweeps_both_traces_at_three_loads():
    real_trace("SDSC-BLUE-2000-4.2-cln.swf.gz")
    spec = get_recipe("predictions").experiment(False)
    assert [w["label"] for w in spec["workloads"]] == ["KTH-SP2", "SDSC-BLUE"]
    assert spec["transforms"][0]["shrink"] == [1.0, 0.9, 0.8]
    assert len(spec["policies"]) == 9


def test_a_users_trace_joins_the_sweep_cut_to_its_first_30000_jobs(tmp_path):
    from schedlab.errors import InputError
    from schedlab.experiments.recipes import with_traces

    trace = tmp_path / "mine.swf"
    trace.write_text("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    spec = with_traces(get_recipe("predictions"), {"workloads": [{"label": "KTH-SP2"}]},
                       [trace])
    assert spec["workloads"][1] == {"source": str(trace.resolve()), "label": "mine",
                                    "jobs": 30_000}
    with pytest.raises(InputError, match="recipe 'qops' runs on its own traces only"):
        with_traces(get_recipe("qops"), {"workloads": []}, [trace])
    with pytest.raises(InputError, match="no such trace file"):
        with_traces(get_recipe("predictions"), {"workloads": []}, [tmp_path / "absent.swf"])
