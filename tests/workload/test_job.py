"""The Workload record: its short repr and its offered load."""

from __future__ import annotations

import pytest

from schedlab.workload.job import Job, Workload
from schedlab.workload.models import generate_builtin


def test_repr_is_short_and_names_the_workload_not_its_jobs():
    workload = generate_builtin("lublin", n_jobs=5_000)
    text = repr(workload)
    first, last = workload.jobs[0].submit, workload.jobs[-1].submit
    days = (last - first) / 86_400
    assert text == (f"<Workload 'lublin-128p-5000j-s0': 5,000 jobs on 128 processors, "
                    f"submits over {days:.1f} days>")
    assert len(text) < 100
    assert "Job(" not in text


def test_repr_of_an_empty_workload():
    assert repr(Workload((), 4, name="none")) == "<Workload 'none': 0 jobs on 4 processors>"


def test_offered_load_is_area_over_capacity_of_the_submit_span():
    # areas 2*100 + 4*50 + 1*300 = 700 processor-seconds; submits span 0..50 on 4 processors
    jobs = (Job(1, 0, 100, 200, 2), Job(2, 10, 50, 100, 4), Job(3, 50, 300, 400, 1))
    workload = Workload(jobs, 4)
    assert workload.offered_load() == pytest.approx(700 / (4 * 50))
    assert workload.offered_load(processors=8) == pytest.approx(700 / (8 * 50))


def test_offered_load_of_the_default_model_is_the_documented_one():
    assert generate_builtin("lublin").offered_load() == pytest.approx(0.700, abs=0.0005)


def test_offered_load_is_undefined_without_a_submit_span():
    assert Workload((Job(1, 5, 10, 10, 1), Job(2, 5, 10, 10, 1)), 4).offered_load() is None
    assert Workload((), 4).offered_load() is None


def test_name_of_a_numbered_field() -> None:
    from schedlab.workload.job import name_of

    names = ("batch", "debug")
    assert [name_of(k, names) for k in (1, 2, 3, -1)] == ["batch", "debug", None, None]
    assert name_of(2, None) == "2"      # a source without names: the number as text
