"""Test-suite configuration: hypothesis settings profiles.

Two profiles, chosen with the ``HYPOTHESIS_PROFILE`` environment variable:

* ``ci`` (the default) — few examples and no per-example deadline, so the
  whole property suite stays well under a minute on two cores and a slow CI
  machine never fails a test on timing alone;
* ``dev`` — many more examples, for a thorough local search after changing
  the engine or a policy: ``HYPOTHESIS_PROFILE=dev pytest tests/properties``.

Failing examples are stored in ``.hypothesis/`` (ignored by git) and replayed
first on the next run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=30, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "dev", max_examples=500, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A working directory with the project's examples/, as the docs' commands expect."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path

