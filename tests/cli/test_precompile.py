"""``schedlab precompile``: after it, a run compiles nothing; it only loads the cached loops.

These are numba's JIT path (``SCHEDLAB_AOT=0``: the ahead-of-time extension, which a
run uses instead when it is current, is tests/test_compiled.py's); numba's own cache
report (``NUMBA_DEBUG_CACHE=1``) says which kernels a
process compiled ("data saved") and which it loaded ("data loaded"); each
test gives the processes a cache folder of their own (``NUMBA_CACHE_DIR``),
so the first one starts cold whatever ran before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from real_traces import real_trace
from schedlab.api import COMPILED_POLICIES
from schedlab.cli.app import app


def schedlab(cache: Path, *args: str) -> str:
    """Run ``schedlab ARGS`` in its own process on the numba cache ``cache``; its output
    with numba's cache report."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1",
           "SCHEDLAB_AOT": "0", "SCHEDLAB_AOT_DIR": str(cache / "aot")}
    done = subprocess.run([sys.executable, "-m", "schedlab", *args], env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout + done.stderr


def test_after_precompile_a_run_only_loads_the_compiled_loops(tmp_path):
    cache = tmp_path / "numba"
    first = schedlab(cache, "precompile", "--policies", "fcfs+plan")
    assert "data saved" in first and "fcfs+plan" in first
    later = schedlab(cache, "simulate", "lublin", "-n", "2000", "--policy", "fcfs+plan",
                     "--overrun", "extend")
    assert "data saved" not in later
    assert "data loaded" in later
    with_failures = schedlab(cache, "simulate", "lublin", "-n", "2000", "--policy", "fcfs",
                             "--failures", "mtbf=2d,fate=requeue,allocation=any")
    assert "data saved" not in with_failures
    assert "processors" in with_failures and "data loaded" in with_failures
    with_knn = schedlab(cache, "simulate", "lublin", "-n", "2000", "--policy", "fcfs+easy",
                        "--param", "predictor=knn")
    assert "data saved" not in with_knn
    assert "knn_kernel" in with_knn and "data loaded" in with_knn
    platform, jobs = str(tmp_path / "platform.toml"), str(tmp_path / "grid.swf")
    schedlab(cache, "platform", "generate", "--preset", "thesis-4.2", "--seed", "1", "-o",
             platform)
    schedlab(cache, "generate", "grid", "--platform", platform, "--preset", "thesis-4.2",
             "--ta", "1", "-n", "300", "--seed", "1", "-o", jobs)
    with_cs = schedlab(cache, "simulate", jobs, "--platform", platform, "--policy", "cs",
                       "--out", str(tmp_path / "cs"))
    assert "data saved" not in with_cs
    assert "convergent" in with_cs and "data loaded" in with_cs


@pytest.mark.slow
@pytest.mark.parametrize("overrun", ["kill", "extend"])
def test_after_precompile_no_policy_compiles_on_a_real_trace(tmp_path, overrun):
    trace = str(real_trace("KTH-SP2-1996-2.1-cln.swf.gz"))
    cache = tmp_path / "numba"
    schedlab(cache, "precompile")
    for policy in (*COMPILED_POLICIES, "sjf+conservative", "ljf+conservative"):
        deadlines = ["--stringency", "0.3"] if policy in ("qops", "msb", "mrt") else []
        run = schedlab(cache, "simulate", trace, "--policy", policy, "--overrun", overrun,
                       *deadlines)
        assert "data saved" not in run, policy


def test_precompile_names_each_policy_and_refuses_one_without_compiled_loops():
    runner = CliRunner()
    done = runner.invoke(app, ["precompile", "--policies", "fcfs+conservative"])
    assert done.exit_code == 0, done.output
    assert "fcfs+conservative" in done.output and "done in" in done.output
    refused = runner.invoke(app, ["precompile", "--policies", "fcfs+easy"])
    assert refused.exit_code == 2
    assert "field --policies: expected policies with compiled loops (fcfs+conservative, " \
        "fcfs+plan, dynp, qops, msb, mrt, slurm), got 'fcfs+easy'" in " ".join(refused.output.split())
