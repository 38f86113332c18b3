"""Input files the tests write: one helper for every reader's tests."""

from __future__ import annotations

from pathlib import Path


def written(folder: Path, name: str, text: str) -> Path:
    """``text`` written as ``folder / name`` (UTF-8); its path."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
