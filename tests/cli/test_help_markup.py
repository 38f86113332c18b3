"""Help texts survive rich's markup: a bracket that starts like a style tag
(``dynp[metric=slowdown]``, ``schedlab[rl]``) must be escaped, or ``--help`` drops it."""

from __future__ import annotations

import typer
from rich.markup import render

from schedlab.cli.app import app


def _texts(command: typer.core.TyperCommand | typer.core.TyperGroup, path: str
           ) -> list[tuple[str, str]]:
    """(where, text) of a command's help and its parameters' help, its subcommands' too."""
    texts = [(path, command.help or "")]
    texts += [(f"{path} {param.name}", getattr(param, "help", None) or "")
              for param in command.params]
    for name, sub in getattr(command, "commands", {}).items():
        texts += _texts(sub, f"{path} {name}")
    return texts


def test_no_help_text_loses_a_bracket_to_markup() -> None:
    texts = _texts(typer.main.get_command(app), "schedlab")
    lost = [where for where, text in texts
            if render(text).plain.count("[") != text.replace("\\[", "[").count("[")]
    assert not lost
    assert any("dynp\\[metric=slowdown]" in text for _, text in texts)
