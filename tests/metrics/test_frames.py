"""pandas at the top of the API: ``jobs_frame`` is jobs.csv as a DataFrame, ``metrics_frame``
one row of ``compute_metrics`` per result, a metric over no jobs missing (NaN), never 0."""

from __future__ import annotations

import math

import pandas as pd

import schedlab
from schedlab.output import write_jobs_csv
from schedlab.workload.models import generate_builtin


def test_jobs_frame_is_the_jobs_csv_of_the_result(tmp_path):
    result = schedlab.simulate(generate_builtin("lublin", n_jobs=300), "sjf+easy")
    write_jobs_csv(result, tmp_path / "jobs.csv")
    frame = schedlab.jobs_frame(result)
    pd.testing.assert_frame_equal(frame, pd.read_csv(tmp_path / "jobs.csv"))
    assert frame["start"].tolist() == result.start.tolist()


def test_metrics_frame_has_a_row_per_label_and_leaves_empty_groups_missing(example,
                                                                          make_result):
    results = schedlab.compare(generate_builtin("lublin", n_jobs=300), ["fcfs", "fcfs+easy"])
    table = schedlab.metrics_frame(results)
    assert list(table.index) == ["fcfs", "fcfs+easy"] and table.index.name == "policy"
    assert table.loc["fcfs", "avg_wait"] == schedlab.compute_metrics(results["fcfs"])["avg_wait"]
    rejected = make_result([(0, -1, -1, 2, 10, 10, 2)], 4, policy="admission")
    one = schedlab.metrics_frame(rejected)
    assert list(one.index) == ["admission"]
    assert one.loc["admission", "rejected"] == 1 and math.isnan(one.loc["admission", "avg_wait"])
    assert schedlab.metrics_frame(example).loc["test", "avg_wait"] == 30.0
