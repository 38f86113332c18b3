"""``schedlab --version`` and the one place the version is kept (``schedlab.__version__``)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from typer.testing import CliRunner

import schedlab
from schedlab.cli.app import app

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_version_prints_the_name_and_version_and_exits_0() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"schedlab {schedlab.__version__}\n"


def test_version_comes_before_any_command() -> None:
    """``--version`` is eager: it answers even where a command would be missing."""
    result = CliRunner().invoke(app, ["--version", "simulate"])
    assert result.exit_code == 0
    assert result.stdout.startswith("schedlab ")


def test_the_version_is_semantic() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", schedlab.__version__)


def test_the_package_metadata_takes_the_version_from_the_package() -> None:
    """pyproject.toml declares no version of its own: setuptools reads ``schedlab.__version__``."""
    project = tomllib.loads(PYPROJECT.read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "schedlab.__version__"}


def test_python_m_schedlab_version() -> None:
    process = subprocess.run([sys.executable, "-m", "schedlab", "--version"],
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    assert process.stdout == f"schedlab {schedlab.__version__}\n"


def test_the_licence_file_is_the_licence_the_package_declares() -> None:
    project = tomllib.loads(PYPROJECT.read_text())
    assert project["project"]["license"] == {"text": "MIT"}
    licence = (PYPROJECT.parent / "LICENSE").read_text()
    assert licence.startswith("MIT License\n\nCopyright (c) 2026 the schedlab authors\n")


def test_the_changelog_has_an_unreleased_section_and_the_current_version() -> None:
    headings = [line for line in (PYPROJECT.parent / "CHANGELOG.md").read_text().splitlines()
                if line.startswith("## ")]
    assert headings[0] == "## [Unreleased]"
    assert f"## [{schedlab.__version__}]" in headings
