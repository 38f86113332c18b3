"""The suite's one lookup of real traces honours SCHEDLAB_TRACES and symlinked folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from real_traces import real_trace, trace_path


def test_traces_are_looked_up_in_schedlab_traces_through_a_symlink(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "t.swf").write_text("1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(tmp_path / "link"))
    assert real_trace("t.swf") == tmp_path.resolve() / "real" / "t.swf"
    assert trace_path("absent.swf") == tmp_path.resolve() / "real" / "absent.swf"


def test_without_schedlab_traces_the_lookup_falls_back_to_shared_workloads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHEDLAB_TRACES", raising=False)
    assert trace_path("x.swf") == (Path("..") / "shared" / "workloads" / "x.swf").resolve()
