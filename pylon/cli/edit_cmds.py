"""`pylon read` and `pylon edit`: numbered reads and tag-checked whole-line edits."""

from __future__ import annotations

import typer

from pylon.cli.common import APP_SETTINGS, JsonOpt

read_app = typer.Typer(**APP_SETTINGS)
edit_app = typer.Typer(**APP_SETTINGS)


@read_app.command("read")
def read_cmd(path: str, json_: JsonOpt = False) -> None:
    """Print PATH with absolute line numbers and a revision tag."""
    raise NotImplementedError("pylon read")


@edit_app.command("edit")
def edit_cmd(target: str, json_: JsonOpt = False) -> None:
    """Apply whole-line operations (stdin) to PATH#TAG."""
    raise NotImplementedError("pylon edit")
