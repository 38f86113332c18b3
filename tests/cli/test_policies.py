"""``schedlab policies``: every registered name, in the table of its execution model and kind."""

from __future__ import annotations

from typer.testing import CliRunner

from schedlab.cli.app import app
from schedlab.policies.registry import entries


def tables(text: str) -> dict[str, set[str]]:
    """The names listed under each table title of the ``policies`` output."""
    found: dict[str, set[str]] = {}
    title = ""
    for line in text.splitlines():
        stripped = line.strip()
        if line.startswith("│"):
            name = line.split("│")[1].strip()
            if name:
                found[title].add(name)
        elif stripped and not stripped.startswith(("┏", "┃", "┡", "└")):
            title = stripped
            found[title] = set()
    return found


def test_every_entry_is_listed_under_its_model_and_kind():
    listing = CliRunner().invoke(app, ["policies"], terminal_width=400)
    assert listing.exit_code == 0, listing.output
    listed = tables(listing.stdout)
    expected = {}
    for name, entry in entries().items():
        expected.setdefault((entry.model, entry.kind), set()).add(name)
    assert len(listed) == len(expected)
    for (model, kind), names in expected.items():
        title = next(title for title in listed if names & listed[title])
        assert title.startswith(f"{model} "), title
        assert ("dispatchers" in title) == (kind == "dispatcher"), title
        assert listed[title] == names
